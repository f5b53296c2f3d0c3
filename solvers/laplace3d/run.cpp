#include "solvers/laplace3d/run.hpp"

#include "io/checkpoint.hpp"

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

std::vector<Diagnostic> method_across_ranks(int ranks, bool gpu, bool overlap, comm::Route route) {
  if (ranks == 1) return {};
  return {{"transport", gpu ? std::string(comm::name(route)) : "mpi-host"},
          {"overlap", gpu && overlap}};
}

void add_state(io::CheckpointWriter& w, std::int64_t iterations, const ConvergenceChecks& checks) {
  w.add("iterations", iterations);
  w.add("checks.previous_iteration", checks.previous_iteration);
  w.add("checks.previous_change", checks.previous_change);
  w.add("checks.last_iteration", checks.last_iteration);
  w.add("checks.last_change", checks.last_change);
}

std::int64_t read_state(const io::CheckpointReader& r, const Params& p, ConvergenceChecks& checks) {
  const std::int64_t iterations = io::restart_step(r, "iterations", "iteration",
                                                   "iteration.max_iterations", p.max_iterations);
  checks.previous_iteration = r.integer("checks.previous_iteration");
  checks.previous_change = r.number("checks.previous_change");
  checks.last_iteration = r.integer("checks.last_iteration");
  checks.last_change = r.number("checks.last_change");
  return iterations;
}

}  // namespace parasol::laplace3d
