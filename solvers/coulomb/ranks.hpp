// coulomb across ranks, on the cut part.hpp makes: rank 0 reads the atoms, each rank's
// diagnostics and check are made the whole run's, and rank 0 gathers the whole potential for a
// writer that needs it at once (the OpenDX map). Every rank calls these in the same order; on one
// rank they touch no other. Host-only: the communication layer carries everything.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/coulomb/coulomb.hpp"

namespace parasol::coulomb {

// Rank 0 reads p's atoms into `atoms` (the other ranks get them later, by a broadcast timed with
// the run); every rank returns how many there are. When rank 0 cannot read them it rethrows its
// error, the run's one line, and the other ranks throw Error.
std::int64_t read_atoms_on_root(comm::Context& context, const Params& p, std::vector<Atom>& atoms);

// Rank 0's atoms (read_atoms_on_root's) on every rank, by one broadcast; the seconds it took in
// communication, 0 on one rank.
double broadcast_atoms(comm::Context& context, std::vector<Atom>& atoms);

// The atoms' bounding box on every rank, from rank 0's atoms (read_atoms_on_root's): what
// placed() needs before a rank knows its part of the lattice.
Box atoms_box_on_every_rank(comm::Context& context, const std::vector<Atom>& atoms);

// p's lattice placed around the atoms (with center = molecule, by the box of rank 0's `atoms`,
// shared with every rank; placed()), then this rank's part of it: the whole lattice on one rank,
// and across ranks the same cut on every rank, so a lattice with fewer planes (rows) than ranks is
// refused by all of them alike. The placement comes before the cut, which follows the lattice's
// points. InputError naming the key at fault, its source left for the caller.
Part place_and_cut(comm::Context& context, Params& p, const std::vector<Atom>& atoms);

// What a run reports beside its potential.
struct Diagnostics {
  double low = NAN, high = NAN;  // the potential's range; NaN where there are no points
  double compute_seconds = 0;
};

// This rank's, from its result.
Diagnostics diagnostics(const Result& result);

// The whole run's from every rank's `mine`: the lowest low, the highest high and the slowest
// rank's compute seconds.
Diagnostics over_ranks(comm::Context& context, const Diagnostics& mine);

// The whole run's agreement with the gold, from this rank's `potential` and the gold on the same
// points (solve_gold_with_scale of its part): on one rank as agreement() judges it; across ranks
// the differences and the largest relative to scale combined, a NaN on any rank failing all.
Agreement agreement(comm::Context& context, const Lattice& n, const std::vector<float>& potential,
                    const GoldWithScale& gold, double tolerance);

// Floats a message of gather_on_root() carries at most: 1 GiB, under MPI's int count of bytes.
inline constexpr std::size_t kGatherMessageFloats = std::size_t(1) << 28;

// The whole potential on rank 0, from every rank's part of the lattice (`mine`, the cut
// rank_part() makes), each sent in rank order into its place (a part is one run of the lattice's
// order) in messages of at most kGatherMessageFloats. Empty on the other ranks.
std::vector<float> gather_on_root(comm::Context& context, const Lattice& n,
                                  const std::vector<float>& mine);

}  // namespace parasol::coulomb
