// poisson's problems: the source f on the cells, the manufactured solution, the boundary data
// folded into the right-hand side, and what is done for a singular problem.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"

namespace parasol::poisson {

// What make_source computes f of an analytic kind from, every constant made once on the host, so
// that the device's sources (sources.cuh) take the same doubles and repeat the same operations:
//   zero          0;
//   gaussian      scale · exp(−r² / two_width2), r² = (x − c_x)² + (y − c_y)² + (z − c_z)²;
//   charges       Σ (in order) q_n · exp(−r_n² / two_width2), r_n from charges[n]'s position;
//   manufactured  ((scale · x_mode[i]) · y_mode[j]) · z_mode[k];
// x = (i + ½) h_x at cell i, likewise y and z. The per-axis modes are tables of one value per cell
// centre along the axis (make_source and manufactured_solution multiply the same tables).
struct SourceRecipe {
  SourceKind kind = SourceKind::zero;
  double scale = 0;       // gaussian: the amplitude; manufactured: amplitude · (α + Σ k²)
  double two_width2 = 1;  // gaussian, charges: 2 w², w the width in coordinates
  std::array<double, 3> centre{};  // gaussian: c in coordinates
  // charges: x, y, z in coordinates and q / (2π w²)^{3/2}, each charge's factor.
  std::vector<std::array<double, 4>> charges;
  std::vector<double> x_mode, y_mode, z_mode;  // manufactured: nx, ny and nz values
};
// source.kind = file has no recipe: this throws for it, as make_source does.
SourceRecipe source_recipe(const Params& p);

// Per axis, the manufactured solution's mode at each cell centre (nx, ny, nz values): the tables
// of SourceRecipe, which manufactured_solution multiplies with source.amplitude.
struct ModeTables {
  std::vector<double> x, y, z;
};
ModeTables mode_tables(const Params& p);

// f at the cell centres of planes z_begin <= k < z_end (a rank's slab; all of them by default),
// x fastest, by source_recipe(p). source.kind = file is the front end's to read: this throws for
// it.
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
