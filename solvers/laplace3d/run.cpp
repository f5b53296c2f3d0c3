#include "solvers/laplace3d/run.hpp"

namespace parasol::laplace3d {

std::string extent_text(const Params& p) {
  return std::to_string(p.grid.nx) + "x" + std::to_string(p.grid.ny) + "x" +
         std::to_string(p.grid.nz);
}

void settle(Params& p, bool automatic) {
  if (automatic) p.block = default_block(p.variant);
}

SlabPart run_part(const Params& p, bool gpu, int rank, int ranks) {
  return slab_part(p.grid, rank, ranks, gpu ? halo_depth(p.variant) : 1);
}

MemoryNeed device_need(const Params& p, double points) {
  const double whole = static_cast<double>(p.grid.points());
  MemoryNeed n;
  n.what = "a " + extent_text(p) + " grid in " + std::string(name(p.precision)) +
           (points < whole ? " needs, for this rank's slab," : " needs");
  n.bytes = static_cast<double>(device_bytes(p)) * points / whole;
  n.device = true;
  return n;
}

MemoryNeed host_need(const Params&, bool gpu, double points, double element) {
  MemoryNeed n;
  n.what = "the grid needs";
  n.bytes = (gpu ? 2 : 3) * element * points;
  return n;
}

}  // namespace parasol::laplace3d
