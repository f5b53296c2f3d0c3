// laplace3d's slabs, and the CPU gold solver on one of them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/laplace3d/slab.hpp"

namespace parasol::laplace3d {

int halo_depth(Variant v) { return v == Variant::temporal ? kTimeSteps : 1; }

std::int64_t SlabPart::first_updated() const {
  return std::max<std::int64_t>(slab.begin, 1) - first_global();
}

std::int64_t SlabPart::last_updated() const {
  return std::min<std::int64_t>(slab.end, grid.nz - 1) - 1 - first_global();
}

SlabPart slab_part(const Extent3& grid, int rank, int size, int halo) {
  if (grid.nz < size)
    throw InputError("", "grid.nz",
                     std::to_string(grid.nz) + " planes cannot be cut among " + std::to_string(size) +
                         " ranks (each needs at least one plane); run fewer ranks or more planes");
  if (size > 1 && grid.nz / size < halo)
    throw InputError("", "grid.nz",
                     std::to_string(grid.nz) + " planes among " + std::to_string(size) +
                         " ranks leave some fewer than " + std::to_string(halo) +
                         ", the depth of this variant's halo; run at most " +
                         std::to_string(grid.nz / halo) + " ranks");
  SlabPart part;
  part.grid = grid;
  part.slab = comm::even_slab(grid.nz, rank, size);
  part.below = part.slab.neighbours.down == comm::kNoRank ? 0 : halo;
  part.above = part.slab.neighbours.up == comm::kNoRank ? 0 : halo;
  return part;
}

namespace {

// max |a - b| over local planes [first, last].
template <class T>
double max_change(const SlabPart& part, const std::vector<T>& a, const std::vector<T>& b,
                  std::int64_t first, std::int64_t last) {
  double worst = 0;
  const std::int64_t plane = part.plane_points();
  for (std::int64_t c = first * plane; c < (last + 1) * plane; ++c) {
    const auto k = static_cast<std::size_t>(c);
    const double d = std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
    if (d > worst || std::isnan(d)) worst = d;
  }
  return worst;
}

}  // namespace

template <class T>
SlabResult<T> solve_gold_slab(const Params& p, comm::Context& context,
                              const ProgressCallback& progress,
                              const Checkpoints<T>* checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  SlabResult<T> result;
  result.part = slab_part(p.grid, context.rank(), context.size(), 1);
  const SlabPart& part = result.part;
  const Extent3 local = part.local();
  const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  if (from != nullptr && from->points != local.points())
    throw Error("laplace3d: a checkpoint's slab of " + std::to_string(from->points) +
                " points for this rank's " + std::to_string(local.points()));
  std::vector<T> u = from != nullptr ? std::vector<T>(from->u, from->u + from->points)
                                     : initial_planes<T>(p, part.first_global(), part.local_planes());
  if (from != nullptr) {
    result.iterations = from->iterations;
    result.checks = from->checks;
    result.last_change = from->checks.last_change;
  }
  std::vector<T> u_next = u;  // boundaries and halos start in both copies
  const std::int64_t first = part.first_updated(), last = part.last_updated();
  const bool checking = p.tolerance > 0 || progress;
  double exchange = 0;
  const auto check = [&](std::int64_t it) {
    const double mine = first <= last ? max_change(part, u, u_next, first, last) : 0.0;
    const auto reducing = std::chrono::steady_clock::now();
    result.last_change = context.all_reduce(mine, comm::Op::max);
    result.checks.record(it, result.last_change);
    exchange += seconds_since(reducing);
    result.converged = p.tolerance > 0 && result.last_change < p.tolerance;
    if (progress) progress({it, p.max_iterations, result.last_change, seconds_since(start)});
  };
  for (std::int64_t it = result.iterations + 1; it <= p.max_iterations; ++it) {
    // The local grid's outer planes are halos or the grid's boundary: gold_sweep leaves them.
    gold_sweep(local, u.data(), u_next.data());
    u.swap(u_next);
    const auto exchanging = std::chrono::steady_clock::now();
    context.exchange(part.slab.neighbours, halo_of(part, u.data()));
    exchange += seconds_since(exchanging);
    result.iterations = it;
    const bool periodic = checking && it % p.check_every == 0;
    if (periodic) check(it);
    if (result.converged) break;
    // The halos were just exchanged: the local planes are a whole state.
    if (at_safe_point(checkpoints, p, it, [&] {
          return State<T>{it, u.data(), local.points(), result.checks};
        }))
      break;
    if (it == p.max_iterations && !periodic) check(it);
  }
  const std::int64_t plane = part.plane_points();
  result.u.assign(u.begin() + part.below * plane, u.begin() + (part.below + part.owned()) * plane);
  result.timings.add(phase::compute, seconds_since(start));
  result.exchange_seconds = exchange;
  return result;
}

template <class T>
Agreement check_run(const Params& p, const std::vector<T>& u, std::int64_t iterations,
                    comm::Context& context) {
  Params gold_params = p;
  gold_params.max_iterations = iterations;
  gold_params.tolerance = 0;
  const double scale = max_magnitude(initial_field<double>(p));
  if (context.size() == 1)
    return agreement(u, solve_gold<double>(gold_params).u, iterations, scale);
  const SlabResult<double> gold = solve_gold_slab<double>(gold_params, context);
  return slab_agreement(context, gold.part, u, gold.u, iterations, scale);
}

template <class T>
std::vector<double> time_slab_sweeps(const Params& p, comm::Context& context,
                                     comm::DeviceComm& comm, bool overlap, const Repeats& repeats,
                                     double& timed_s, std::vector<double>* exchange) {
  const auto sweeps = static_cast<double>(p.max_iterations);
  (void)solve_gpu_slab<T>(p, context, comm, overlap);  // warm-up
  std::vector<double> seconds;
  double total = 0;
  for (std::int64_t r = 0; repeats.more(r, total); ++r) {
    const SlabResult<T> run = solve_gpu_slab<T>(p, context, comm, overlap);
    const double slowest = comm::max_over_ranks(context, run.timings.seconds(phase::compute));
    total += slowest;
    timed_s += slowest;
    seconds.push_back(slowest / sweeps);
    if (exchange) exchange->push_back(comm::max_over_ranks(context, run.exchange_seconds) / sweeps);
  }
  return seconds;
}

template <class T>
SlabResult<T> solve(const Params& p, bool gpu, comm::Context& context, comm::Transport transport,
                    bool overlap, const ProgressCallback& progress,
                    const Checkpoints<T>* checkpoints, SlabComm* slab_comm) {
  if (context.size() > 1 && gpu && slab_comm != nullptr) {
    slab_comm->comm.connect(
        slab_part(p.grid, context.rank(), context.size(), halo_depth(p.variant)).slab.neighbours);
    return solve_gpu_slab<T>(p, context, slab_comm->comm, overlap, progress, checkpoints);
  }
  if (context.size() > 1)
    return gpu ? solve_gpu_slab<T>(p, context, transport, overlap, progress, checkpoints)
               : solve_gold_slab<T>(p, context, progress, checkpoints);
  Result<T> whole = gpu ? solve_gpu<T>(p, progress, checkpoints)
                        : solve_gold<T>(p, progress, checkpoints);
  SlabResult<T> r;
  r.u = std::move(whole.u);
  r.iterations = whole.iterations;
  r.last_change = whole.last_change;
  r.converged = whole.converged;
  r.checks = whole.checks;
  r.timings = whole.timings;
  return r;
}

template SlabResult<float> solve<float>(const Params&, bool, comm::Context&, comm::Transport, bool,
                                        const ProgressCallback&, const Checkpoints<float>*,
                                        SlabComm*);
template SlabResult<double> solve<double>(const Params&, bool, comm::Context&, comm::Transport,
                                          bool, const ProgressCallback&,
                                          const Checkpoints<double>*, SlabComm*);
template SlabResult<float> solve_gold_slab<float>(const Params&, comm::Context&,
                                                  const ProgressCallback&,
                                                  const Checkpoints<float>*);
template SlabResult<double> solve_gold_slab<double>(const Params&, comm::Context&,
                                                    const ProgressCallback&,
                                                    const Checkpoints<double>*);

template Agreement check_run<float>(const Params&, const std::vector<float>&, std::int64_t,
                                    comm::Context&);
template Agreement check_run<double>(const Params&, const std::vector<double>&, std::int64_t,
                                     comm::Context&);
template std::vector<double> time_slab_sweeps<float>(const Params&, comm::Context&,
                                                     comm::DeviceComm&, bool, const Repeats&,
                                                     double&, std::vector<double>*);
template std::vector<double> time_slab_sweeps<double>(const Params&, comm::Context&,
                                                      comm::DeviceComm&, bool, const Repeats&,
                                                      double&, std::vector<double>*);

}  // namespace parasol::laplace3d
