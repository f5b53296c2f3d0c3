#include "solvers/coulomb/part.hpp"

#include <algorithm>
#include <string>

#include "kernels/error.hpp"

namespace parasol::coulomb {

Part whole(const Lattice& n) { return {n.nx, 0, n.ny, 0, n.nz}; }

Part rank_part(const Lattice& n, int rank, int size) {
  const bool planes = cuts_planes(n);
  const std::int64_t count = planes ? n.nz : n.ny;
  if (count < size)
    throw InputError("", planes ? "lattice.nz" : "lattice.ny",
                     std::to_string(count) + (planes ? " planes" : " rows of a 2D slice") +
                         " cannot be cut among " + std::to_string(size) +
                         " ranks (each needs at least one); run fewer ranks or a larger lattice");
  const std::int64_t base = count / size, extra = count % size;
  const std::int64_t first = rank * base + std::min<std::int64_t>(rank, extra);
  const std::int64_t mine = base + (rank < extra ? 1 : 0);
  Part part = whole(n);
  if (planes) {
    part.k_first = first;
    part.nz = mine;
  } else {
    part.j_first = first;
    part.ny = mine;
  }
  return part;
}

}  // namespace parasol::coulomb
