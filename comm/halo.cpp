#include "comm/halo.hpp"

#include <string>

#include "kernels/error.hpp"

namespace parasol::comm {

Slab slab_of(const std::vector<std::int64_t>& planes_per_rank, int rank) {
  const int size = static_cast<int>(planes_per_rank.size());
  if (rank < 0 || rank >= size)
    throw Error("slab_of: rank " + std::to_string(rank) + " is not one of the " +
                std::to_string(size) + " ranks the planes are given for");
  Slab slab;
  for (int r = 0; r < rank; ++r) slab.begin += planes_per_rank[r];
  slab.end = slab.begin + planes_per_rank[rank];
  if (slab.empty()) return slab;
  for (int r = rank - 1; r >= 0 && slab.neighbours.down == kNoRank; --r)
    if (planes_per_rank[r] > 0) slab.neighbours.down = r;
  for (int r = rank + 1; r < size && slab.neighbours.up == kNoRank; ++r)
    if (planes_per_rank[r] > 0) slab.neighbours.up = r;
  return slab;
}

std::vector<std::int64_t> even_planes(std::int64_t n, int size) {
  if (n < 0 || size < 1)
    throw Error("even_planes: " + std::to_string(n) + " planes over " + std::to_string(size) +
                " ranks");
  std::vector<std::int64_t> planes(static_cast<std::size_t>(size), n / size);
  for (std::int64_t r = 0; r < n % size; ++r) ++planes[static_cast<std::size_t>(r)];
  return planes;
}

Slab even_slab(std::int64_t n, int rank, int size) { return slab_of(even_planes(n, size), rank); }

}  // namespace parasol::comm
