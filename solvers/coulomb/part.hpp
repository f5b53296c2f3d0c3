// coulomb across ranks: the lattice cut into blocks of whole x rows, one block per rank: slabs of
// whole z planes of a 3D lattice, bands of y rows of a 2D slice (nz = 1). Each point is summed
// from its global indices over every atom in the same order whichever rank holds it, and the GPU
// plans its launches and atom slices from the whole lattice, so N ranks give the one-rank run's
// bits. Plain C++: no CUDA, no MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/coulomb/params.hpp"

namespace parasol::coulomb {

// The points (i, j, k) of the lattice with every i, j in [j_first, j_first + ny) and k in
// [k_first, k_first + nz). A part made by whole() or rank_part() is one contiguous run of the
// lattice's [nz][ny][nx] order, starting at first_point().
struct Part {
  std::int64_t nx = 0;
  std::int64_t j_first = 0, ny = 0;
  std::int64_t k_first = 0, nz = 0;

  std::int64_t points() const { return nx * ny * nz; }
  std::int64_t first_point(const Lattice& n) const { return nx * (j_first + n.ny * k_first); }
  // The part as a block of the lattice's [nz][ny][nx] field: where it starts, and its extent.
  std::vector<std::uint64_t> offset() const {
    return {std::uint64_t(k_first), std::uint64_t(j_first), 0};
  }
  std::vector<std::uint64_t> count() const {
    return {std::uint64_t(nz), std::uint64_t(ny), std::uint64_t(nx)};
  }
};

Part whole(const Lattice& n);

// The axis a cut among ranks goes along: z planes for a lattice of several, else y rows.
inline bool cuts_planes(const Lattice& n) { return n.nz > 1; }

// Rank `rank`'s part of an even cut among `size` ranks (the first planes % size ranks one more).
// InputError naming lattice.nz (lattice.ny for a 2D slice) when a rank would hold nothing.
Part rank_part(const Lattice& n, int rank, int size);

}  // namespace parasol::coulomb
