// poisson's problems: the source f on the cells, the manufactured solution, the boundary data
// folded into the right-hand side, and what is done for a singular problem.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"

namespace parasol::poisson {

// f at the cell centres of planes z_begin <= k < z_end (a rank's slab; all of them by default),
// x fastest. source.kind = file is the front end's to read: this throws for it.
std::vector<double> make_source(const Params& p, std::int64_t z_begin = 0,
                                std::int64_t z_end = -1);

// The manufactured solution at the cell centres of planes [z_begin, z_end): per axis a
// function chosen for that axis's two face kinds, the product scaled by source.amplitude:
//   Dirichlet–Dirichlet sin(π t/L), Neumann–Neumann cos(π t/L), Dirichlet–Neumann sin(π t/2L),
//   Neumann–Dirichlet cos(π t/2L), periodic sin(2π t/L),
// t the coordinate from the min face and L the box's side, so that the value on every Dirichlet
// face and the flux through every Neumann face is 0 (validate() asks for face values 0), and
// f = (α + Σ k_axis²) u exactly.
std::vector<double> manufactured_solution(const Params& p, std::int64_t z_begin = 0,
                                          std::int64_t z_end = -1);

// Adds the boundary data of `level` to a right-hand side b (x fastest, the level's cells, planes
// [z_begin, z_end) of the level): per boundary cell and face, Dirichlet 2g/h², Neumann g/h
// (the ghost's data moved across; poisson.hpp).
void add_boundary_terms(const Params& p, const Level& level, std::vector<double>& b,
                        std::int64_t z_begin = 0, std::int64_t z_end = -1);

// For a singular problem (singular(p)), the constant subtracted from f so that the right-hand
// side sums to 0 (its mean, boundary data included, by compensated sums: each plane's, then the
// planes' in order); 0 otherwise. make_compatible subtracts it and returns it (the front end
// says so in /diagnostics). With a context, `f` is this rank's planes [z_begin, z_end) and the
// planes' sums meet across the ranks, giving the one-rank shift's bits.
double compatibility_shift(const Params& p, const std::vector<double>& f,
                           comm::Context* context = nullptr, std::int64_t z_begin = 0,
                           std::int64_t z_end = -1);
double make_compatible(const Params& p, std::vector<double>& f, comm::Context* context = nullptr,
                       std::int64_t z_begin = 0, std::int64_t z_end = -1);

// A discretisation error: max and rms of u − u* over the cells.
struct DiscretisationError {
  double max = 0, rms = 0;
};

// u − u* over this rank's planes [z_begin, ...) of q's grid (`exact` beside u, as
// manufactured_solution gives it); across ranks the whole grid's, the squares summed plane by
// plane in plane order as on one rank, a plane's in cell order: the same bits on any threads
// and ranks. Collective when the context has more than one rank.
template <class T>
DiscretisationError discretisation_error(const Params& q, const std::vector<T>& u,
                                         const std::vector<double>& exact, comm::Context& context,
                                         std::int64_t z_begin);

// Kahan–Babuška (Neumaier) summation of `values`, in index order: the compensated sum the
// singular case's means use.
double compensated_sum(const std::vector<double>& values);

}  // namespace parasol::poisson
