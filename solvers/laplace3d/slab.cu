// The GPU solver on one rank's slab. A single-sweep variant writes its two edge planes first on
// a stream of their own; the communicator's stream waits for them and exchanges them while the
// interior sweep runs, and the next sweep waits for both. Temporal does the same with four
// sweeps a pass: it writes the four owned planes nearest each neighbour first, exchanges them
// into the neighbours' four-deep halos while it writes the owned planes between, and never
// writes its own halo planes (the exchange does). Iteration counts that are not a multiple of
// four end with single zreg sweeps over the whole local grid and one exchange, as on one rank.
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "comm/device_comm.hpp"
#include "kernels/nvtx.hpp"
#include "kernels/event.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/stream.hpp"
#include "solvers/laplace3d/slab.hpp"

namespace parasol::laplace3d {

namespace {

// One rank's sweeps and exchanges, enqueued on three streams.
template <class T>
class SlabSweeper {
 public:
  SlabSweeper(const SlabPart& part, DeviceGrid<T>& grid, comm::DeviceComm& comm,
              const Stream& compute, bool overlap)
      : part_(part), grid_(grid), comm_(comm), compute_(compute), overlap_(overlap) {
    // The edge stream's first sweep reads what the compute stream uploaded.
    iteration_done_.record(compute_);
  }

  // `count` sweeps of `variant`, halos exchanged as its depth requires.
  void sweeps(Variant variant, const Shape& block, std::int64_t count) {
    if (variant != Variant::temporal) {
      for (std::int64_t it = 0; it < count; ++it) single_sweep(variant, block);
      return;
    }
    for (std::int64_t pass = 0; pass < count / kTimeSteps; ++pass) {
      grid_.advance();
      if (overlap_ && temporal_interior().first <= temporal_interior().second) {
        temporal_pass_overlapped(block);
        continue;
      }
      sweep_local(variant, block);
      exchange();
    }
    const std::int64_t rest = count % kTimeSteps;
    // Four-deep halos hold for up to four single sweeps: one exchange after them.
    for (std::int64_t it = 0; it < rest; ++it) {
      grid_.advance();
      sweep_local(Variant::zreg, Params{}.block);
    }
    if (rest > 0) exchange();
  }

 private:
  // Every interior plane of the local grid, halos included.
  void sweep_local(Variant variant, const Shape& block) {
    if (part_.local_planes() >= 3)
      grid_.sweep_planes(variant, block, 1, part_.local_planes() - 2, compute_);
  }

  // The owned planes a temporal pass writes while the edges are exchanged: those not sent.
  std::pair<std::int64_t, std::int64_t> temporal_interior() const {
    const std::int64_t first = part_.below > 0 ? 2 * part_.below : 1;
    const std::int64_t end = part_.below + part_.owned();
    const std::int64_t last = part_.above > 0 ? end - part_.above - 1 : part_.local_planes() - 2;
    return {first, last};
  }

  void temporal_pass_overlapped(const Shape& block) {
    edge_stream_.wait(iteration_done_.get());
    // The planes each neighbour's halo takes: halo_of sends the `below` owned planes nearest the
    // rank below and the `above` nearest the one above.
    if (part_.below > 0)
      grid_.sweep_planes(Variant::temporal, block, part_.below, 2 * part_.below - 1,
                         edge_stream_);
    if (part_.above > 0) {
      const std::int64_t end = part_.below + part_.owned();
      grid_.sweep_planes(Variant::temporal, block, end - part_.above, end - 1, edge_stream_);
    }
    edges_done_.record(edge_stream_);
    comm_stream().wait(edges_done_.get());
    const auto [first, last] = temporal_interior();
    grid_.sweep_planes(Variant::temporal, block, first, last, compute_);
    exchange_after_waiting_for(false);
    iteration_done_.record(compute_);
  }

  void single_sweep(Variant variant, const Shape& block) {
    const std::int64_t first = part_.first_updated(), last = part_.last_updated();
    grid_.advance();
    if (overlap_ && last - first >= 2) {
      edge_stream_.wait(iteration_done_.get());
      grid_.sweep_planes(variant, block, first, first, edge_stream_);
      grid_.sweep_planes(variant, block, last, last, edge_stream_);
      edges_done_.record(edge_stream_);
      comm_stream().wait(edges_done_.get());
      // Launched before the exchange: an MPI route blocks this thread until its data has moved.
      grid_.sweep_planes(variant, block, first + 1, last - 1, compute_);
      exchange_after_waiting_for(false);
      iteration_done_.record(compute_);
      return;
    }
    if (first <= last) grid_.sweep_planes(variant, block, first, last, compute_);
    exchange();
  }

  // The halos of the current iterate, once the compute stream has written it.
  void exchange() { exchange_after_waiting_for(true); }

  void exchange_after_waiting_for(bool compute_first) {
    if (compute_first) {
      swept_.record(compute_);
      comm_stream().wait(swept_.get());
    }
    comm_.exchange(part_.slab.neighbours, halo_of(part_, grid_.plane(0)));
    exchanged_.record(comm_stream());
    compute_.wait(exchanged_.get());
  }

  struct StreamRef {
    cudaStream_t s;
    void wait(cudaEvent_t e) const { PARASOL_CUDA(cudaStreamWaitEvent(s, e, 0)); }
    operator cudaStream_t() const { return s; }  // NOLINT: passed straight to CUDA calls
  };
  StreamRef comm_stream() const { return {comm_.stream()}; }

  const SlabPart& part_;
  DeviceGrid<T>& grid_;
  comm::DeviceComm& comm_;
  const Stream& compute_;
  bool overlap_;
  Stream edge_stream_ = Stream::high_priority();
  Event edges_done_, swept_, exchanged_, iteration_done_;
};

}  // namespace

template <class T>
SlabResult<T> solve_gpu_slab(const Params& p, comm::Context& context, comm::Transport transport,
                             bool overlap, const ProgressCallback& progress,
                             const Checkpoints<T>* checkpoints) {
  const SlabPart part = slab_part(p.grid, context.rank(), context.size(), halo_depth(p.variant));
  Stream comm_stream = Stream::high_priority();  // the halo's exchange goes first too
  comm::DeviceComm comm(context, transport, comm_stream);
  comm.connect(part.slab.neighbours);  // setup, not the first timed sweep's exchange
  return solve_gpu_slab<T>(p, context, comm, overlap, progress, checkpoints);
}

template <class T>
SlabResult<T> solve_gpu_slab(const Params& p, comm::Context& context, comm::DeviceComm& comm,
                             bool overlap, const ProgressCallback& progress,
                             const Checkpoints<T>* checkpoints) {
  PARASOL_NVTX_RANGE("laplace3d solve_gpu_slab");
  SlabResult<T> result;
  result.part = slab_part(p.grid, context.rank(), context.size(), halo_depth(p.variant));
  const SlabPart& part = result.part;
  const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  if (from != nullptr && from->points != part.local().points())
    throw Error("laplace3d: a checkpoint's slab of " + std::to_string(from->points) +
                " points for this rank's " + std::to_string(part.local().points()));
  Stream stream;
  // The slab and its halos are made on the device, with the values of the whole grid's:
  // host_to_device is their making (or, continuing from a checkpoint, their upload).
  EventTimer h2d(stream);
  h2d.start();
  std::optional<DeviceGrid<T>> made;
  std::vector<T> start_field;  // a restart's, held until its upload is done
  if (from != nullptr) {
    start_field.assign(from->u, from->u + from->points);
    made.emplace(part.local(), start_field, stream);
    result.iterations = from->iterations;
    result.checks = from->checks;
    result.last_change = from->checks.last_change;
  } else {
    made.emplace(p, part.first_global(), part.local_planes(), stream);
  }
  DeviceGrid<T>& grid = *made;
  h2d.stop();
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  start_field = {};
  result.timings.add(phase::host_to_device, h2d.seconds());
  const double before = comm.seconds();
  result.route = comm.route();
  SlabSweeper<T> sweeper(part, grid, comm, stream, overlap);

  EventTimer compute(stream);
  compute.start();
  const auto start = std::chrono::steady_clock::now();
  double reducing = 0;
  const bool checking = p.tolerance > 0 || progress;
  const std::int64_t first = part.first_updated(), last = part.last_updated();
  const auto check = [&] {
    const double mine = first <= last ? grid.last_change(first, last) : 0.0;
    const auto reduce_start = std::chrono::steady_clock::now();
    result.last_change = context.all_reduce(mine, comm::Op::max);
    result.checks.record(result.iterations, result.last_change);
    reducing += seconds_since(reduce_start);
    result.converged = p.tolerance > 0 && result.last_change < p.tolerance;
    if (progress)
      progress({result.iterations, p.max_iterations, result.last_change, seconds_since(start)});
  };
  std::vector<T> saved;  // a checkpoint's copy of the local planes
  // Sweep in batches up to the next check or safe point, so the host waits only when it must.
  while (result.iterations < p.max_iterations) {
    const std::int64_t end = next_batch_end(p, checking, checkpoints, result.iterations);
    sweeper.sweeps(p.variant, p.block, end - result.iterations);
    result.iterations = end;
    const bool periodic = checking && end % p.check_every == 0;
    if (periodic) check();
    if (result.converged) break;
    // A batch ends with its halos exchanged: the local planes, halos included, are a whole state.
    if (at_safe_point(checkpoints, p, end, [&] {
          PARASOL_CUDA(cudaStreamSynchronize(comm.stream()));
          saved = grid.download_planes(0, part.local_planes());
          return State<T>{end, saved.data(), part.local().points(), result.checks};
        }))
      break;
    if (end == p.max_iterations && !periodic) check();
  }
  compute.stop();
  result.timings.add(phase::compute, compute.seconds());
  result.exchange_seconds = comm.seconds() - before + reducing;

  EventTimer d2h(stream);
  d2h.start();
  result.u = grid.download_planes(part.below, part.owned());
  d2h.stop();
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

template SlabResult<float> solve_gpu_slab<float>(const Params&, comm::Context&, comm::Transport,
                                                 bool, const ProgressCallback&,
                                                 const Checkpoints<float>*);
template SlabResult<double> solve_gpu_slab<double>(const Params&, comm::Context&,
                                                   comm::Transport, bool,
                                                   const ProgressCallback&,
                                                   const Checkpoints<double>*);
template SlabResult<float> solve_gpu_slab<float>(const Params&, comm::Context&, comm::DeviceComm&,
                                                 bool, const ProgressCallback&,
                                                 const Checkpoints<float>*);
template SlabResult<double> solve_gpu_slab<double>(const Params&, comm::Context&,
                                                   comm::DeviceComm&, bool,
                                                   const ProgressCallback&,
                                                   const Checkpoints<double>*);

}  // namespace parasol::laplace3d
