// The GPU tridiagonal solvers and the Solver that launches them.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/chunk.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/pcr.cuh"
#include "solvers/tridiag/random_rows.hpp"
#include "solvers/tridiag/segments.cuh"
#include "solvers/tridiag/thomas_scan.cuh"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {
namespace {

template <class T>
__device__ inline SharedRows<T> shared_rows(T* base, int count) {
  return {base, base + count, base + 2 * count, base + 3 * count};
}

// ---- pcr-warp and thomas-pcr, one block per group of systems -------------------------------
// Groups of `group` threads (a power of two) each solve one system of n <= group * K rows,
// contiguous layout; blockDim.x / group systems per block (blockDim.x a multiple of group).
// Dynamic shared memory: 4 rows of blockDim.x when group > 32, else none (warp shuffles).
template <class T, int K>
__global__ void __launch_bounds__(max_chunk_threads(K, sizeof(T)))
    chunked_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                   const T* d, T* x, std::int64_t n, std::int64_t systems, int group,
                   unsigned long long* failure) {
  extern __shared__ unsigned char shared_bytes[];
  SharedRows<T> smem{};
  if (group > 32) smem = shared_rows(reinterpret_cast<T*>(shared_bytes), blockDim.x);
  const int k = threadIdx.x % group;
  const std::int64_t system =
      static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / group) + threadIdx.x / group;
  // Threads of a system past the last still take part in the block's synchronisation.
  const bool active = system < systems;
  const std::int64_t offset = active ? system * n : 0;
  const std::int64_t row = static_cast<std::int64_t>(k) * K;

  Chunk<T, K> chunk;
  chunk.load_and_eliminate(a + offset, b + offset, c + offset, d + offset, active ? row : n, n);

  // The next chunk's first unknown, from the neighbouring thread.
  const Substitution<T> next = next_thread_first(chunk.first(), group, smem.a);
  // The last chunk ends on the system's last row or on padding, where c is 0: `next` unused.
  const T x_last = block_pcr(chunk.interface_row(next), group, smem);

  T x_before;
  if (group <= 32) {
    x_before = __shfl_up_sync(0xffffffffu, x_last, 1, group);
  } else {
    smem.d[threadIdx.x] = x_last;
    __syncthreads();
    x_before = k > 0 ? smem.d[threadIdx.x - 1] : T(0);
  }
  if (k == 0) x_before = T(0);  // chunk 0 holds row 0, whose a is 0: no unknown before it

  if (!active) return;
  note_failure(chunk.store_solution(x_before, x_last, x + offset, row, n), system, failure);
}

// ---- thomas-pcr past one block per system: three steps ---------------------------------------
// 1. Every chunk (system m, chunk j; chunks per system = ceil(n / K)) eliminates and writes its
//    row of the interface system, in its own and its neighbours' last unknowns: the next chunk's
//    first unknown is replaced by its Substitution, from the next thread (next_thread_first; a
//    block's last thread eliminates the chunk after its own once more). The block steps over
//    the chunks as a whole, so every thread reaches every barrier. Dynamic shared memory: three
//    values of blockDim.x.
template <class T, int K>
__global__ void __launch_bounds__(max_chunk_threads(K, sizeof(T)))
    interface_rows_kernel(const T* __restrict__ a, const T* __restrict__ b,
                          const T* __restrict__ c, const T* __restrict__ d, std::int64_t n,
                          std::int64_t chunks, std::int64_t total, T* ia, T* ib, T* ic, T* id) {
  extern __shared__ unsigned char shared_bytes[];
  T* const scratch = reinterpret_cast<T*>(shared_bytes);
  const int t = threadIdx.x;
  for (const std::int64_t q : block_uniform_stride(total)) {
    const bool active = q < total;
    const std::int64_t system = q / chunks, j = q % chunks;
    const std::int64_t offset = system * n;
    Chunk<T, K> chunk;
    Substitution<T> first{T(0), T(0), T(0)};
    if (active) {
      chunk.load_and_eliminate(a + offset, b + offset, c + offset, d + offset, j * K, n);
      first = chunk.first();
    }
    Substitution<T> next = next_thread_first(first, static_cast<int>(blockDim.x), scratch);
    if (active) {
      // The system's last chunk ends on its last row or on padding, where c is 0: `next` is
      // unused, and not taken from the next system (whose NaN would spread to this one). A
      // block's last thread eliminates the chunk after its own once more.
      if (j + 1 == chunks) {
        next = {T(0), T(0), T(0)};
      } else if (t + 1 == static_cast<int>(blockDim.x)) {
        Chunk<T, K> after;
        after.load_and_eliminate(a + offset, b + offset, c + offset, d + offset, (j + 1) * K, n);
        next = after.first();
      }
      const Row<T> row = chunk.interface_row(next);
      ia[q] = row.a;
      ib[q] = row.b;
      ic[q] = row.c;
      id[q] = row.d;
    }
  }
}

// 2. The interface system, one row per chunk, is solved by a Solver of its own.
// 3. With the chunks' last unknowns solved, every chunk eliminates again and substitutes back,
//    the last chunk first: the input step 1 read last is the likeliest still in L2 (H100, 2^20 x
//    16 and 16384 x 2^10: 1.3 points of the roofline).
template <class T, int K>
__global__ void __launch_bounds__(max_chunk_threads(K, sizeof(T)))
    substitute_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                      const T* d, T* x, std::int64_t n, std::int64_t chunks, std::int64_t total,
                      const T* __restrict__ x_last, unsigned long long* failure) {
  for (const std::int64_t i : grid_stride(total)) {
    const std::int64_t q = total - 1 - i;
    const std::int64_t system = q / chunks, j = q % chunks;
    const std::int64_t offset = system * n;
    Chunk<T, K> chunk;
    chunk.load_and_eliminate(a + offset, b + offset, c + offset, d + offset, j * K, n);
    const T x_before = j > 0 ? x_last[q - 1] : T(0);
    note_failure(chunk.store_solution(x_before, x_last[q], x + offset, j * K, n), system, failure);
  }
}

// ---- pcr-shared: the course's PCR in shared memory, generalised ---------------------------
// Each block holds `per_block` systems padded to np (a power of two) rows, or one system when
// np exceeds the block; every thread updates rows t, t + blockDim.x, ... Two copies of the rows
// (read one, write the other) so each step needs one barrier.
template <class T>
__global__ void __launch_bounds__(1024) pcr_shared_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                  const T* __restrict__ c, const T* d, T* x, std::int64_t n,
                                  std::int64_t systems, int np, int per_block,
                                  unsigned long long* failure) {
  extern __shared__ unsigned char shared_bytes[];
  const int rows = np * per_block;
  SharedRows<T> buf[2] = {shared_rows(reinterpret_cast<T*>(shared_bytes), rows),
                          shared_rows(reinterpret_cast<T*>(shared_bytes) + 4 * rows, rows)};
  const std::int64_t first_system = static_cast<std::int64_t>(blockIdx.x) * per_block;

  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    Row<T> r = identity_row<T>();
    if (k < n && system < systems) {
      const std::int64_t g = system * n + k;
      r = {k == 0 ? T(0) : a[g], b[g], k == n - 1 ? T(0) : c[g], d[g]};
    }
    buf[0].store(i, r);
  }
  __syncthreads();

  int from = 0;
  for (int s = 1; s < np; s *= 2, from ^= 1) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      const int k = i % np;
      const Row<T> lower = k >= s ? buf[from].load(i - s) : identity_row<T>();
      const Row<T> upper = k + s < np ? buf[from].load(i + s) : identity_row<T>();
      buf[from ^ 1].store(i, pcr_combine(lower, buf[from].load(i), upper));
    }
    __syncthreads();
  }

  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    if (k >= n || system >= systems) continue;
    const T xi = buf[from].d[i] / buf[from].b[i];
    x[system * n + k] = xi;
    note_failure(isfinite(xi), system, failure);
  }
}

// ---- thomas: one thread per system, interleaved layout ---------------------------------------
// Row i of system m is at i * systems + m, so a warp's loads of a row are contiguous. The
// eliminated upper diagonal goes to `cp`, the eliminated right-hand side to x.
template <class T>
__global__ void thomas_kernel(const T* __restrict__ a, const T* __restrict__ b,
                              const T* __restrict__ c, const T* d, T* x, T* __restrict__ cp,
                              std::int64_t n, std::int64_t systems, unsigned long long* failure) {
  for (const std::int64_t m : grid_stride(systems)) {
    T r = T(1) / b[m];
    T c_prev = n > 1 ? c[m] * r : T(0);
    T d_prev = d[m] * r;
    cp[m] = c_prev;
    x[m] = d_prev;
    for (std::int64_t i = 1; i < n; ++i) {
      const std::int64_t g = i * systems + m;
      const T ai = a[g];
      r = T(1) / (b[g] - ai * c_prev);
      c_prev = i < n - 1 ? c[g] * r : T(0);
      d_prev = (d[g] - ai * d_prev) * r;
      cp[g] = c_prev;
      x[g] = d_prev;
    }
    bool finite = isfinite(d_prev);
    T x_next = d_prev;
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t g = i * systems + m;
      x_next = x[g] - cp[g] * x_next;
      x[g] = x_next;
      finite &= isfinite(x_next);
    }
    note_failure(finite, m, failure);
  }
}

// ---- launching --------------------------------------------------------------------------------

// The chunked kernels of pcr-warp and thomas-pcr, dispatched on the chunks each compiles.
template <class F>
void with_chunk(Variant variant, int chunk, F&& f) {
  const std::string kernel = "tridiag/" + std::string(name(variant));
  if (variant == Variant::pcr_warp) dispatch_value(kernel, "chunk", WarpChunks{}, chunk, f);
  else dispatch_value(kernel, "chunk", ThomasPcrChunks{}, chunk, f);
}

// segments_kernel's launch: a cluster of `segments` blocks a system.
struct SegmentsLaunch {
  SegmentsLaunch(int segments, std::int64_t systems, int threads, std::size_t element_bytes,
                 cudaStream_t stream) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(segments);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(static_cast<unsigned>(segments * systems));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = 6 * element_bytes * static_cast<std::size_t>(threads);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  cudaLaunchAttribute attribute{};
  cudaLaunchConfig_t config{};
};

// The most blocks a cluster may hold (8 is portable; Hopper allows 16 when asked).
constexpr int kMaxClusterBlocks = 16;

// Blocks per system for thomas-pcr in one pass (segments_kernel), or 0 when it cannot take this
// launch: a block's threads must be a power of two (its PCR), and a system's segments must form
// a cluster the device can place.
template <class T>
int one_pass_segments(const Launch& l, const Dims& dims) {
  const std::int64_t segments = ceil_div(dims.n, static_cast<std::int64_t>(l.threads) * l.chunk);
  if (l.threads != next_pow2(l.threads) || segments > kMaxClusterBlocks ||
      segments * dims.systems > INT_MAX || l.threads > max_chunk_threads(l.chunk, sizeof(T)))
    return 0;
  int clusters = 0;
  with_chunk(l.variant, l.chunk, [&](auto kc) {
    const auto kernel = segments_kernel<T, decltype(kc)::value>;
    SegmentsLaunch launch(static_cast<int>(segments), dims.systems, l.threads, sizeof(T), nullptr);
    // Not every device takes every cluster, or clusters at all: an error here means "no", not
    // a failure.
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config) != cudaSuccess) {
      (void)cudaGetLastError();
      clusters = 0;
    }
  });
  return clusters > 0 ? static_cast<int>(segments) : 0;
}

// Shared memory of pcr-shared for a block: two copies of four coefficients per row.
template <class T>
std::size_t pcr_shared_bytes(int rows) {
  return 2 * 4 * static_cast<std::size_t>(rows) * sizeof(T);
}

// pcr-shared's biggest blocks need more than the default 48 KiB of dynamic shared memory.
template <class T>
void allow_pcr_shared_bytes() {
  static const bool done = [] {
    PARASOL_CUDA(cudaFuncSetAttribute(pcr_shared_kernel<T>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(pcr_shared_bytes<T>(kPcrSharedMaxRows))));
    return true;
  }();
  (void)done;
}

}  // namespace

template <class T>
Solver<T>::Solver(const Launch& launch, const Dims& dims)
    : launch_(resolve_launch(launch, dims, sizeof(T))), dims_(dims), failure_(1) {
  PARASOL_CUDA(cudaMemset(failure_.data(), 0xFF, failure_.bytes()));
  if (launch_.variant == Variant::thomas) {
    workspace_ = DeviceBuffer<T>(static_cast<std::size_t>(dims.size()));
  } else if (launch_.variant == Variant::thomas_scan) {
    scan_layout_ = std::make_shared<const ThomasScanWorkspace<T>>(dims.n, dims.systems,
                                                                   launch_.threads, launch_.chunk);
    scan_workspace_ = DeviceBuffer<unsigned char>(scan_layout_->bytes());
    scan_layout_->clear(scan_workspace_.data());
  } else if (launch_.variant == Variant::thomas_pcr || launch_.variant == Variant::pcr_warp) {
    if (whole_system_block(launch_, dims.n) > 0) return;
    // Past one block per system (thomas-pcr only): in one pass when the segments allow.
    segments_ = one_pass_segments<T>(launch_, dims);
    if (segments_ > 0) return;
    // Else in three steps: the interface system's four coefficients and its solution.
    chunks_ = ceil_div(dims.n, launch_.chunk);
    workspace_ = DeviceBuffer<T>(5 * static_cast<std::size_t>(chunks_ * dims.systems));
    Launch inner = launch_;
    inner.chunk = 0;
    interface_ = std::make_unique<Solver>(inner, Dims{chunks_, dims.systems, Layout::contiguous});
  }
}

template <class T>
void Solver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, cudaStream_t stream) {
  const Dims& dm = dims_;
  if (dm.size() == 0) return;
  const int threads = launch_.threads;
  unsigned long long* failure = failure_.data();

  switch (launch_.variant) {
    case Variant::pcr_warp:
    case Variant::thomas_pcr: {
      if (segments_ > 0) {
        with_chunk(launch_.variant, launch_.chunk, [&](auto kc) {
          constexpr int K = decltype(kc)::value;
          SegmentsLaunch config(segments_, dm.systems, threads, sizeof(T), stream);
          PARASOL_NOTE_LAUNCH(config.config.gridDim, config.config.blockDim,
                              config.config.dynamicSmemBytes, segments_kernel<T, K>);
          PARASOL_CUDA(cudaLaunchKernelEx(&config.config, segments_kernel<T, K>, a, b, c, d, x,
                                          dm.n, failure));
          PARASOL_CHECK_LAUNCH(stream);
        });
        return;
      }
      if (interface_) {
        const std::int64_t total = chunks_ * dm.systems;
        T* rows[4];
        for (int i = 0; i < 4; ++i) rows[i] = workspace_.data() + i * total;
        T* x_last = workspace_.data() + 4 * total;
        with_chunk(launch_.variant, launch_.chunk, [&](auto kc) {
          constexpr int K = decltype(kc)::value;
          // Grid-stride kernels: any block size works; one the registers allow is taken.
          const int block = std::min(threads, max_chunk_threads(K, sizeof(T)));
          const int blocks = grid_stride_blocks(total, block);
          PARASOL_NOTE_LAUNCH(blocks, block, 3 * sizeof(T) * block, interface_rows_kernel<T, K>);
          interface_rows_kernel<T, K><<<blocks, block, 3 * sizeof(T) * block, stream>>>(
              a, b, c, d, dm.n, chunks_, total, rows[0], rows[1], rows[2], rows[3]);
          PARASOL_CHECK_LAUNCH(stream);
          interface_->solve(rows[0], rows[1], rows[2], rows[3], x_last, stream);
          PARASOL_NOTE_LAUNCH(blocks, block, 0, substitute_kernel<T, K>);
          substitute_kernel<T, K><<<blocks, block, 0, stream>>>(a, b, c, d, x, dm.n, chunks_,
                                                                 total, x_last, failure);
          PARASOL_CHECK_LAUNCH(stream);
        });
        return;
      }
      const int group = system_group(dm.n, launch_.chunk);
      const int block = whole_system_block(launch_, dm.n);
      const std::int64_t blocks = ceil_div(dm.systems, block / group);
      const std::size_t smem = group > 32 ? 4 * sizeof(T) * block : 0;
      with_chunk(launch_.variant, launch_.chunk, [&](auto kc) {
        constexpr int K = decltype(kc)::value;
        PARASOL_NOTE_LAUNCH(static_cast<unsigned>(blocks), block, smem, chunked_kernel<T, K>);
        chunked_kernel<T, K><<<static_cast<unsigned>(blocks), block, smem, stream>>>(
            a, b, c, d, x, dm.n, dm.systems, group, failure);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    }
    case Variant::pcr_shared: {
      allow_pcr_shared_bytes<T>();
      const int np = next_pow2(dm.n);
      const int per_block = std::max(1, threads / np);
      const std::int64_t blocks = ceil_div(dm.systems, per_block);
      PARASOL_NOTE_LAUNCH(static_cast<unsigned>(blocks), threads,
                          pcr_shared_bytes<T>(np * per_block), pcr_shared_kernel<T>);
      pcr_shared_kernel<T>
          <<<static_cast<unsigned>(blocks), threads, pcr_shared_bytes<T>(np * per_block),
             stream>>>(a, b, c, d, x, dm.n, dm.systems, np, per_block, failure);
      PARASOL_CHECK_LAUNCH(stream);
      return;
    }
    case Variant::thomas_scan: {
      const auto solve = [&](auto kc) {
        scan_layout_->template solve<decltype(kc)::value>(a, b, c, d, x, scan_workspace_.data(),
                                                          failure, stream);
      };
      dispatch_value("tridiag/thomas-scan", "chunk", ThomasScanChunks{}, launch_.chunk, solve);
      return;
    }
    case Variant::thomas: {
      PARASOL_NOTE_LAUNCH(grid_stride_blocks(dm.systems, threads), threads, 0, thomas_kernel<T>);
      thomas_kernel<T><<<grid_stride_blocks(dm.systems, threads), threads, 0, stream>>>(
          a, b, c, d, x, workspace_.data(), dm.n, dm.systems, failure);
      PARASOL_CHECK_LAUNCH(stream);
      return;
    }
  }
}

template <class T>
void Solver<T>::check(cudaStream_t stream) {
  unsigned long long first = kNoFailure;
  download(failure_, &first, 1, stream);
  if (first == kNoFailure) return;
  PARASOL_CUDA(cudaMemsetAsync(failure_.data(), 0xFF, failure_.bytes(), stream));
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  const auto system = static_cast<std::int64_t>(first);
  throw NumericalError(system, "tridiag " + std::string(name(launch_.variant)) + ": system " +
                                   std::to_string(system) +
                                   " met a zero pivot or a non-finite value (these solvers do "
                                   "not pivot: the system must be diagonally dominant or "
                                   "otherwise safe to eliminate in order)");
}

namespace {

// Upload (or draw), solve, check, download: `fill(a, b, c, d, stream)` puts the batch into the
// device buffers, enqueued on the stream.
template <class T, class Fill>
Result<T> solve_gpu_with(const Launch& launch, const Dims& dims, Fill fill) {
  Solver<T> solver(launch, dims);
  Stream stream;
  const auto size = static_cast<std::size_t>(dims.size());
  DeviceBuffer<T> a(size), b(size), c(size), d(size), x(size);
  Result<T> result;
  EventTimer h2d(stream.get()), compute(stream.get()), d2h(stream.get());
  h2d.start();
  fill(a, b, c, d, stream.get());
  h2d.stop();
  compute.start();
  solver.solve(a.data(), b.data(), c.data(), d.data(), x.data(), stream.get());
  compute.stop();
  result.x = huge_vector<T>(size);  // first touch on huge pages
  d2h.start();
  enqueue_download(result.x.data(), x.data(), size, stream.get());
  d2h.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(phase::device_to_host, d2h.seconds());
  solver.check(stream.get());
  return result;
}

// random_batch's rows on the device, each where `interleaved` or contiguous order puts it.
template <class T>
__global__ void random_batch_kernel(CounterDraws draws, std::int64_t n, std::int64_t systems,
                                    bool interleaved, std::int64_t first_row, T* a, T* b, T* c,
                                    T* d) {
  for (const std::int64_t k : grid_stride(n * systems)) {
    const std::int64_t row = interleaved ? k / systems : k % n;
    const std::int64_t system = interleaved ? k % systems : k / n;
    const RandomRow<T> drawn = random_row<T>(draws, n, first_row + system * n + row);
    a[k] = drawn.a;
    b[k] = drawn.b;
    c[k] = drawn.c;
    d[k] = drawn.d;
  }
}

}  // namespace

template <class T>
Result<T> solve_gpu(const Launch& launch, const Batch<T>& batch) {
  return solve_gpu_with<T>(launch, batch.dims,
                           [&](DeviceBuffer<T>& a, DeviceBuffer<T>& b, DeviceBuffer<T>& c,
                               DeviceBuffer<T>& d, cudaStream_t stream) {
                             for (auto [dst, src] : {std::pair{&a, &batch.a}, {&b, &batch.b},
                                                     {&c, &batch.c}, {&d, &batch.d}})
                               upload(*dst, src->data(), dst->size(), stream);
                           });
}

template <class T>
Result<T> solve_gpu(const Launch& launch, const Dims& dims, std::uint64_t seed,
                    std::int64_t first_system) {
  return solve_gpu_with<T>(
      launch, dims,
      [&](DeviceBuffer<T>& a, DeviceBuffer<T>& b, DeviceBuffer<T>& c, DeviceBuffer<T>& d,
          cudaStream_t stream) {
        constexpr int kThreads = 256;
        const int blocks = grid_stride_blocks(dims.size(), kThreads);
        PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, random_batch_kernel<T>);
        random_batch_kernel<T><<<blocks, kThreads, 0, stream>>>(
            CounterDraws(seed, 0), dims.n, dims.systems, dims.layout == Layout::interleaved,
            first_system * dims.n, a.data(), b.data(), c.data(), d.data());
        PARASOL_CHECK_LAUNCH(stream);
      });
}

template class Solver<float>;
template class Solver<double>;
template Result<float> solve_gpu(const Launch&, const Batch<float>&);
template Result<double> solve_gpu(const Launch&, const Batch<double>&);
template Result<float> solve_gpu<float>(const Launch&, const Dims&, std::uint64_t, std::int64_t);
template Result<double> solve_gpu<double>(const Launch&, const Dims&, std::uint64_t,
                                          std::int64_t);

}  // namespace parasol::tridiag
