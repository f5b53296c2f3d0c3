// The heat march on the GPU: the step matrix stays on the device, each step builds its
// right-hand side from the last solution and solves the batch in place of it.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/heat_start.hpp"
#include "solvers/tridiag/kinds.hpp"

namespace parasol::tridiag {
namespace {

// d = lambda u, with the fixed end values added to each system's first and last rows.
template <class T>
__global__ void heat_rhs_kernel(std::int64_t n, std::int64_t systems, bool interleaved, T lambda,
                                T left, T right, const T* __restrict__ u, T* __restrict__ d) {
  for (const std::int64_t k : grid_stride(n * systems)) {
    const std::int64_t row = interleaved ? k / systems : k % n;
    T value = lambda * u[k];
    if (row == 0) value += left;
    if (row == n - 1) value += right;
    d[k] = value;
  }
}

template <class T>
void build_rhs(const Heat& heat, const Dims& dims, const T* d_u, T* d_d, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int blocks = grid_stride_blocks(dims.size(), kThreads);
  PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, heat_rhs_kernel<T>);
  heat_rhs_kernel<T><<<blocks, kThreads, 0, stream>>>(
      dims.n, dims.systems, dims.layout == Layout::interleaved, static_cast<T>(heat.lambda),
      static_cast<T>(heat.left), static_cast<T>(heat.right), d_u, d_d);
  PARASOL_CHECK_LAUNCH(stream);
}

// The step matrix (a = c = -1, b = 2 + lambda, as heat_matrix makes it) and, for a random or
// step start, the starting temperatures (drawn_start_at, the host's bits) made on the device
// in the layout's order: nothing of the size of the problem is made on the host or uploaded.
template <class T>
__global__ void heat_start_kernel(Heat heat, CounterDraws draws, std::int64_t n,
                                  std::int64_t systems, bool interleaved, bool start, T* a, T* b,
                                  T* c, T* u) {
  const T diagonal = static_cast<T>(2 + heat.lambda);
  for (const std::int64_t k : grid_stride(n * systems)) {
    a[k] = T(-1);
    b[k] = diagonal;
    c[k] = T(-1);
    if (!start) continue;
    const std::int64_t row = interleaved ? k / systems : k % n;
    const std::int64_t grid = interleaved ? k % systems : k / n;
    u[k] = static_cast<T>(drawn_start_at(heat, draws, grid, row));
  }
}

template <class T>
void make_on_device(const Heat& heat, const Dims& dims, bool start, T* a, T* b, T* c, T* u,
                    cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int blocks = grid_stride_blocks(dims.size(), kThreads);
  PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, heat_start_kernel<T>);
  heat_start_kernel<T><<<blocks, kThreads, 0, stream>>>(
      heat, CounterDraws(heat.seed, 0), dims.n, dims.systems,
      dims.layout == Layout::interleaved, start, a, b, c, u);
  PARASOL_CHECK_LAUNCH(stream);
}

// Device time in the solves alone, without a synchronisation per step: each solve sits between
// a pair of events from a ring, and a pair is read (waiting only on a solve long finished, in a
// long run) just before it is reused.
class SolveClock {
 public:
  void start(cudaStream_t stream) { slot().first.record(stream); }
  void stop(cudaStream_t stream) {
    slot().second.record(stream);
    ++recorded_;
  }
  double seconds() {
    for (; read_ < recorded_; ++read_) add(pairs_[read_ % kPairs]);
    return seconds_;
  }

 private:
  static constexpr std::int64_t kPairs = 32;
  std::pair<Event, Event>& slot() {
    if (recorded_ - read_ == kPairs) add(pairs_[read_++ % kPairs]);
    return pairs_[recorded_ % kPairs];
  }
  void add(const std::pair<Event, Event>& pair) {
    pair.second.synchronize();
    float ms = 0;
    PARASOL_CUDA(cudaEventElapsedTime(&ms, pair.first.get(), pair.second.get()));
    seconds_ += 1e-3 * static_cast<double>(ms);
  }
  std::array<std::pair<Event, Event>, kPairs> pairs_;
  std::int64_t recorded_ = 0, read_ = 0;
  double seconds_ = 0;
};

}  // namespace

template <class T>
HeatResult<T> march_heat_gpu(const Heat& heat, const Launch& launch,
                             const ProgressCallback& progress,
                             const HeatCheckpoints<T>* checkpoints) {
  const auto started = std::chrono::steady_clock::now();
  // A launch that cannot work fails before anything is allocated. A ring's matrix is the
  // fixed-end one with a[0] and c[n-1] read: heat_matrix stores -1 there too.
  std::unique_ptr<Solver<T>> line;
  std::unique_ptr<KindSolver<T>> ring;
  if (heat.ring)
    ring = std::make_unique<KindSolver<T>>(launch, KindDims{Kind::periodic, heat.points, heat.grids, 1});
  else
    line = std::make_unique<Solver<T>>(launch, Dims{heat.points, heat.grids, required_layout(launch.variant)});
  const Dims dims{heat.points, heat.grids, ring ? ring->layout() : line->dims().layout};
  const HeatState<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  // A random or step start is made on the device; a sine start (the C library's sin) and a
  // checkpoint's state come from the host.
  const bool start_on_device = from == nullptr && heat.initial != Initial::sine;
  const std::vector<T> initial =
      from != nullptr  ? std::vector<T>(from->u, from->u + from->values)
      : start_on_device ? std::vector<T>()
                        : relayout(heat_initial<T>(heat), {dims.n, dims.systems, Layout::contiguous},
                                   dims.layout);
  const auto size = static_cast<std::size_t>(dims.size());
  Stream stream;
  HeatResult<T> result;

  EventTimer h2d(stream);
  h2d.start();
  DeviceBuffer<T> a(size), b(size), c(size), d(size), u(size);
  make_on_device(heat, dims, start_on_device, a.data(), b.data(), c.data(), u.data(), stream);
  if (!start_on_device) upload(u, initial.data(), size, stream);
  h2d.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());

  EventTimer compute(stream);
  SolveClock solves;
  // With a progress callback, an event ends each stretch of steps; a stretch is reported once
  // the next has been enqueued behind it, so the device never waits for the host.
  const std::int64_t stretch = steps_per_report(heat.steps);
  std::array<Event, 2> stretch_end;
  std::int64_t stretches = 0, reported = 0;  // events recorded; the step the last one ends
  const auto report = [&](std::int64_t steps) {
    progress({steps, heat.steps,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
  };
  const bool checkpointing = checkpoints != nullptr && checkpoints->at;
  std::vector<T> saved;  // a checkpoint's copy of u, in the variant's layout
  bool stopped = false;
  compute.start();
  for (std::int64_t s = from != nullptr ? from->steps : 0; s < heat.steps; ++s) {
    build_rhs(heat, dims, u.data(), d.data(), stream);
    solves.start(stream);
    if (ring) {
      const T* bands[] = {a.data(), b.data(), c.data()};
      ring->solve(bands, d.data(), u.data(), stream);
    } else {
      line->solve(a.data(), b.data(), c.data(), d.data(), u.data(), stream);
    }
    solves.stop(stream);
    const std::int64_t done = s + 1;
    if (progress && done % stretch == 0) {
      stretch_end[stretches % 2].record(stream);
      if (stretches > 0) {
        stretch_end[(stretches - 1) % 2].synchronize();
        report(reported);
      }
      reported = done;
      ++stretches;
    }
    if (checkpointing && (done % stretch == 0 || checkpoints->due(done, heat.steps))) {
      const AtSafePoint at = checkpoints->at(done);
      if (at != AtSafePoint::go_on) {
        saved.resize(size);
        download(u, saved.data(), size, stream);
        checkpoints->save({done, saved.data(), static_cast<std::int64_t>(size)});
      }
      if (at == AtSafePoint::save_and_stop) {
        stopped = true;
        break;
      }
    }
  }
  compute.stop();
  // A zero pivot or a NaN in any step.
  if (ring) ring->check(stream);
  else line->check(stream);
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(kSolves, solves.seconds());
  if (progress && heat.steps > 0 && !stopped) report(heat.steps);

  EventTimer d2h(stream);
  std::vector<T> laid_out(size);
  d2h.start();
  enqueue_download(laid_out.data(), u.data(), size, stream);
  d2h.stop();
  result.timings.add(phase::device_to_host, d2h.seconds());
  result.u = relayout(laid_out, dims, Layout::contiguous);
  return result;
}

template HeatResult<float> march_heat_gpu<float>(const Heat&, const Launch&,
                                                 const ProgressCallback&,
                                                 const HeatCheckpoints<float>*);
template HeatResult<double> march_heat_gpu<double>(const Heat&, const Launch&,
                                                   const ProgressCallback&,
                                                   const HeatCheckpoints<double>*);

}  // namespace parasol::tridiag
