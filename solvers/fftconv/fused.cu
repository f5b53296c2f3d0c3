// fftconv's fused overlap-save (fused.hpp): one kernel per launch reads each block of the signal
// once, takes cuFFTDx's block FFT of it, multiplies by the filter's spectrum, takes the inverse
// and writes the block's valid outputs once. Compiled for a few transform lengths only (each is a
// large instantiation); without cuFFTDx this file is a stub that says so.
#include "solvers/fftconv/fused.hpp"

#include <algorithm>
#include <string>

#include "kernels/error.hpp"

#if PARASOL_WITH_CUFFTDX
#include <cufftdx.hpp>

#include <type_traits>
#include <utility>

#include "kernels/device.hpp"
#include "kernels/kernel_log.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#endif

namespace parasol::fftconv::fused {

#if PARASOL_WITH_CUFFTDX
namespace {

// One block FFT of N points of T, complex to complex, one transform per thread block, 16 values
// per thread: N / 16 threads, held in registers between the load, the multiply and the store.
template <class T, unsigned N, cufftdx::fft_direction D>
using BlockFft =
    decltype(cufftdx::Size<N>() + cufftdx::Precision<T>() +
             cufftdx::Type<cufftdx::fft_type::c2c>() + cufftdx::Direction<D>() +
             cufftdx::ElementsPerThread<16>() + cufftdx::FFTsPerBlock<1>() +
             cufftdx::SM<PARASOL_CUFFTDX_SM>() + cufftdx::Block());

template <class T, unsigned N>
struct Transforms {
  using Forward = BlockFft<T, N, cufftdx::fft_direction::forward>;
  using Inverse = BlockFft<T, N, cufftdx::fft_direction::inverse>;
  using Complex = typename Forward::value_type;
  static_assert(sizeof(Complex) == 2 * sizeof(T), "cuFFTDx's complex is a pair of T");
  static_assert(Forward::block_dim.x == Inverse::block_dim.x &&
                    Forward::elements_per_thread == Inverse::elements_per_thread,
                "the forward and inverse transforms share the threads' layout");
  static constexpr unsigned kThreads = Forward::block_dim.x;
  static constexpr unsigned kPerThread = Forward::elements_per_thread;
  static constexpr unsigned kStride = Forward::stride;  // thread t holds t + i * kStride
  static constexpr unsigned kShared = std::max(Forward::shared_memory_size,
                                               Inverse::shared_memory_size);
};

// The lengths compiled: each is one forward and one inverse instantiation, a large one, so the
// lists stay short. 8192 serves filters up to about a thousand taps in float; 4096 longer ones;
// 1024 and 2048 short filters on short signals (a batch of 4096-sample signals), where a long
// transform would spend most of its points on zero padding.
template <class T>
struct Lengths;
template <>
struct Lengths<float> {
  using List = std::integer_sequence<unsigned, 1024, 2048, 4096, 8192>;
};
template <>
struct Lengths<double> {
  using List = std::integer_sequence<unsigned, 1024, 2048, 4096>;
};

template <unsigned... N>
std::vector<std::int64_t> listed(std::integer_sequence<unsigned, N...>) {
  return {std::int64_t(N)...};
}

template <class T, class Launch, unsigned... N>
void dispatch_length(std::int64_t block, std::integer_sequence<unsigned, N...>, Launch&& launch) {
  const bool found =
      ((block == std::int64_t(N) ? (launch(std::integral_constant<unsigned, N>{}), true)
                                 : false) ||
       ...);
  if (!found)
    throw Error("fftconv/fused: transform length " + std::to_string(block) +
                " is not compiled in");
}

template <class T, class Launch>
void dispatch_length(std::int64_t block, Launch&& launch) {
  dispatch_length<T>(block, typename Lengths<T>::List{}, std::forward<Launch>(launch));
}

template <class C, class T>
__device__ C complex_of(T re, T im) {
  C c;
  c.x = re;
  c.y = im;
  return c;
}

// spectra[f] = FFT(filter f, reversed when `reverse`, zero-padded to N) / N.
template <class T, unsigned N>
__global__ void __launch_bounds__(Transforms<T, N>::kThreads)
    filter_spectrum_kernel(const T* __restrict__ filter, std::int64_t taps, std::int64_t filters,
                           bool reverse, typename Transforms<T, N>::Complex* __restrict__ spectra) {
  using F = Transforms<T, N>;
  using C = typename F::Complex;
  extern __shared__ __align__(16) unsigned char shared[];
  for (const std::int64_t f : block_stride_x(filters)) {
    const T* h = filter + f * taps;
    C v[F::Forward::storage_size];
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const std::int64_t r = threadIdx.x + i * F::kStride;
      const T tap = r < taps ? h[reverse ? taps - 1 - r : r] : T(0);
      v[i] = complex_of<C>(tap, T(0));
    }
    typename F::Forward().execute(v, shared);
    const T scale = T(1) / T(N);
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i)
      spectra[f * N + threadIdx.x + i * F::kStride] = complex_of<C>(v[i].x * scale, v[i].y * scale);
    __syncthreads();  // the next filter's transform reuses the shared memory
  }
}

// One transform per pass of a thread block: blocks g0 and g0 + 1 of the flattened (signal,
// block) list as its real and imaginary parts when they share the filter (one_filter), block g0
// alone otherwise. Loads and stores are coalesced: thread t touches samples t + i * stride.
template <class T, unsigned N>
__global__ void __launch_bounds__(Transforms<T, N>::kThreads)
    overlap_save_kernel(Blocks b, const T* __restrict__ x,
                        const typename Transforms<T, N>::Complex* __restrict__ spectra,
                        T* __restrict__ out) {
  using F = Transforms<T, N>;
  using C = typename F::Complex;
  extern __shared__ __align__(16) unsigned char shared[];
  const std::int64_t items = b.signals * b.blocks;
  const std::int64_t per = b.one_filter ? 2 : 1;
  const std::int64_t transforms = (items + per - 1) / per;
  for (const std::int64_t t : block_stride_x(transforms)) {
    const std::int64_t g0 = t * per, g1 = g0 + 1;
    const bool second = per == 2 && g1 < items;
    const std::int64_t s0 = g0 / b.blocks, j0 = g0 % b.blocks;
    const std::int64_t s1 = second ? g1 / b.blocks : s0, j1 = second ? g1 % b.blocks : j0;
    const T* x0 = x + s0 * b.x_stride;
    const T* x1 = x + s1 * b.x_stride;
    const std::int64_t a0 = b.first + j0 * b.step, a1 = b.first + j1 * b.step;
    const std::int64_t lo = max(b.x_begin, std::int64_t(0));
    const std::int64_t hi = b.x_end < 0 ? b.n : min(b.x_end, b.n);
    C v[F::Forward::storage_size];
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const std::int64_t r = threadIdx.x + i * F::kStride;
      const std::int64_t p0 = a0 + r, p1 = a1 + r;
      const T re = (p0 >= lo && p0 < hi) ? x0[p0 - b.x_begin] : T(0);
      const T im = (second && p1 >= lo && p1 < hi) ? x1[p1 - b.x_begin] : T(0);
      v[i] = complex_of<C>(re, im);
    }
    typename F::Forward().execute(v, shared);
    const C* h = spectra + (b.one_filter ? 0 : s0) * std::int64_t(N);
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const C w = h[threadIdx.x + i * F::kStride];
      v[i] = complex_of<C>(v[i].x * w.x - v[i].y * w.y, v[i].x * w.y + v[i].y * w.x);
    }
    __syncthreads();  // the inverse reuses the forward's shared memory
    typename F::Inverse().execute(v, shared);
    T* y0 = out + s0 * b.out_stride;
    T* y1 = out + s1 * b.out_stride;
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const std::int64_t r = std::int64_t(threadIdx.x + i * F::kStride) - b.overlap;
      if (r < 0) continue;
      const std::int64_t q0 = j0 * b.step + r, q1 = j1 * b.step + r;
      if (q0 < b.count) y0[q0] = v[i].x;
      if (second && q1 < b.count) y1[q1] = v[i].y;
    }
    __syncthreads();  // the next transform reuses the shared memory
  }
}

// Images' rows (ImageRows): rows y0 and y0 + 1 of one image as the real and imaginary parts of
// one transform Z. Their half spectra follow from Z at k and at length - k:
//   A[k] = (Z[k] + conj Z[N-k]) / 2,  B[k] = (Z[k] - conj Z[N-k]) / 2i,
// the second read from shared memory, where the block leaves Z after its transform.
template <class T, unsigned N>
struct RowTransforms : Transforms<T, N> {
  static constexpr unsigned kWidth = N / 2 + 1;
  static constexpr unsigned kShared =
      std::max<unsigned>(Transforms<T, N>::kShared, N * sizeof(typename Transforms<T, N>::Complex));
};

template <class T, unsigned N>
__global__ void __launch_bounds__(Transforms<T, N>::kThreads)
    forward_rows_kernel(ImageRows r, const T* __restrict__ x,
                        typename Transforms<T, N>::Complex* __restrict__ spectra) {
  using F = RowTransforms<T, N>;
  using C = typename F::Complex;
  extern __shared__ __align__(16) unsigned char shared[];
  C* z = reinterpret_cast<C*>(shared);
  const std::int64_t pairs = (r.rows + 1) / 2, transforms = r.images * pairs;
  for (const std::int64_t t : block_stride_x(transforms)) {
    const std::int64_t image = t / pairs, y0 = 2 * (t % pairs);
    const bool second = y0 + 1 < r.rows;
    const T* x0 = x + (image * r.rows + y0) * r.cols;
    const T* x1 = x0 + r.cols;
    C v[F::Forward::storage_size];
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const std::int64_t c = threadIdx.x + i * F::kStride;
      const bool inside = c < r.cols;
      v[i] = complex_of<C>(inside ? x0[c] : T(0), second && inside ? x1[c] : T(0));
    }
    typename F::Forward().execute(v, shared);
    __syncthreads();  // z reuses the transform's shared memory
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) z[threadIdx.x + i * F::kStride] = v[i];
    __syncthreads();
    C* s0 = spectra + (image * r.spectrum_rows + y0) * std::int64_t(F::kWidth);
    C* s1 = s0 + F::kWidth;
    const T half = T(0.5);
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const unsigned k = threadIdx.x + i * F::kStride;
      if (k >= F::kWidth) continue;
      const C p = v[i], q = z[(N - k) % N];
      s0[k] = complex_of<C>(half * (p.x + q.x), half * (p.y - q.y));
      if (second) s1[k] = complex_of<C>(half * (p.y + q.y), -half * (p.x - q.x));
    }
    __syncthreads();  // the next transform reuses the shared memory
  }
}

// The inverse: Z[k] = A[k] + i B[k] over all N points, A and B extended by their symmetry
// (A[N-k] = conj A[k]), with the imaginary parts at 0 and N/2 dropped as a C2R transform does;
// the real part of its inverse is row y0's output, the imaginary part row y0 + 1's.
template <class T, unsigned N>
__global__ void __launch_bounds__(Transforms<T, N>::kThreads)
    inverse_rows_kernel(ImageRows r, const typename Transforms<T, N>::Complex* __restrict__ spectra,
                        T* __restrict__ out) {
  using F = RowTransforms<T, N>;
  using C = typename F::Complex;
  extern __shared__ __align__(16) unsigned char shared[];
  const std::int64_t pairs = (r.rows + 1) / 2, transforms = r.images * pairs;
  for (const std::int64_t t : block_stride_x(transforms)) {
    const std::int64_t image = t / pairs, y0 = 2 * (t % pairs);
    const bool second = y0 + 1 < r.rows;
    // A row past the spectrum's is its circular image (a wrapped output, recomputed later).
    const std::int64_t row0 = (r.first_row + y0) % r.spectrum_rows;
    const std::int64_t row1 = (row0 + 1) % r.spectrum_rows;
    const C* s0 = spectra + (image * r.spectrum_rows + row0) * std::int64_t(F::kWidth);
    const C* s1 = spectra + (image * r.spectrum_rows + row1) * std::int64_t(F::kWidth);
    C v[F::Inverse::storage_size];
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const unsigned k = threadIdx.x + i * F::kStride;
      const bool stored = k < F::kWidth;
      const unsigned j = stored ? k : N - k;
      C a = s0[j];
      C b = second ? s1[j] : complex_of<C>(T(0), T(0));
      if (j == 0 || 2 * j == N) a.y = b.y = T(0);
      if (!stored) {
        a.y = -a.y;
        b.y = -b.y;
      }
      v[i] = complex_of<C>(a.x - b.y, a.y + b.x);
    }
    typename F::Inverse().execute(v, shared);
    T* o0 = out + (image * r.rows + y0) * r.cols;
    T* o1 = o0 + r.cols;
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const std::int64_t c = std::int64_t(threadIdx.x + i * F::kStride) - r.first_col;
      if (c < 0 || c >= r.cols) continue;
      o0[c] = v[i].x;
      if (second) o1[c] = v[i].y;
    }
    __syncthreads();  // the next transform reuses the shared memory
  }
}

// Columns (ImageColumns): kColumns neighbouring columns a block, 32 bytes of a row, one FFT of
// the column transform's length each (threadIdx.y: which). The tile in shared memory holds them
// column by column, kTilePitch apart (four values past the length, so that the staging writes of
// a warp's rows and columns fall in distinct banks).
template <class T, unsigned N>
struct ColumnTransforms {
  static constexpr unsigned kColumns = 32 / (2 * sizeof(T));
  template <cufftdx::fft_direction D>
  using Fft = decltype(cufftdx::Size<N>() + cufftdx::Precision<T>() +
                       cufftdx::Type<cufftdx::fft_type::c2c>() + cufftdx::Direction<D>() +
                       cufftdx::ElementsPerThread<16>() + cufftdx::FFTsPerBlock<kColumns>() +
                       cufftdx::SM<PARASOL_CUFFTDX_SM>() + cufftdx::Block());
  using Forward = Fft<cufftdx::fft_direction::forward>;
  using Inverse = Fft<cufftdx::fft_direction::inverse>;
  using Complex = typename Forward::value_type;
  static constexpr unsigned kThreadsX = Forward::block_dim.x;
  static constexpr unsigned kThreads = kThreadsX * kColumns;
  static constexpr unsigned kPerThread = Forward::elements_per_thread;
  static constexpr unsigned kStride = Forward::stride;
  static constexpr unsigned kTilePitch = N + 4;
  static constexpr unsigned kShared =
      std::max<unsigned>(std::max(Forward::shared_memory_size, Inverse::shared_memory_size),
                         kColumns * kTilePitch * sizeof(Complex));
  static_assert(Forward::block_dim.y == kColumns, "one FFT a column of the block");
};

// Column lengths compiled: the row lengths' powers of two up to 4096 (8192 would need 256 KiB of
// tile a block).
template <class T>
struct ColumnLengths {
  using List = std::integer_sequence<unsigned, 1024, 2048, 4096>;
};

template <class T, unsigned N>
__global__ void __launch_bounds__(ColumnTransforms<T, N>::kThreads)
    image_columns_kernel(ImageColumns c, typename ColumnTransforms<T, N>::Complex* spectra,
                         const typename ColumnTransforms<T, N>::Complex* __restrict__ filter) {
  using F = ColumnTransforms<T, N>;
  using C = typename F::Complex;
  extern __shared__ __align__(16) unsigned char shared[];
  C* tile = reinterpret_cast<C*>(shared);
  const unsigned me = threadIdx.y * F::kThreadsX + threadIdx.x;
  const std::int64_t groups = (c.width + F::kColumns - 1) / F::kColumns;
  const C zero = complex_of<C>(T(0), T(0));
  const T scale = static_cast<T>(c.scale);
  // Global [row][col0 + j] <-> tile[j][row], j fastest across a warp: whole 32-byte runs.
  const auto stage_in = [&](const C* from, std::int64_t col0, std::int64_t rows) {
    for (unsigned q = me; q < N * F::kColumns; q += F::kThreads) {
      const unsigned row = q / F::kColumns, j = q % F::kColumns;
      const std::int64_t col = col0 + j;
      tile[j * F::kTilePitch + row] =
          std::int64_t(row) < rows && col < c.width ? from[row * c.width + col] : zero;
    }
  };
  for (const std::int64_t g : block_stride_x(c.images * groups)) {
    const std::int64_t image = g / groups, col0 = (g % groups) * F::kColumns;
    C* s = spectra + image * std::int64_t(N) * c.width;
    const C* h = filter + (c.one_filter ? 0 : image) * std::int64_t(N) * c.width;
    stage_in(s, col0, c.filled);
    __syncthreads();
    C v[F::Forward::storage_size];
    const C* column = tile + threadIdx.y * F::kTilePitch;
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) v[i] = column[threadIdx.x + i * F::kStride];
    __syncthreads();  // the transform reuses the tile's memory
    typename F::Forward().execute(v, shared);
    __syncthreads();
    stage_in(h, col0, N);
    __syncthreads();
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) {
      const C w = column[threadIdx.x + i * F::kStride];
      v[i] = complex_of<C>((v[i].x * w.x - v[i].y * w.y) * scale,
                           (v[i].x * w.y + v[i].y * w.x) * scale);
    }
    __syncthreads();
    typename F::Inverse().execute(v, shared);
    __syncthreads();
    C* out_column = tile + threadIdx.y * F::kTilePitch;
#pragma unroll
    for (unsigned i = 0; i < F::kPerThread; ++i) out_column[threadIdx.x + i * F::kStride] = v[i];
    __syncthreads();
    for (unsigned q = me; q < N * F::kColumns; q += F::kThreads) {
      const unsigned row = q / F::kColumns, j = q % F::kColumns;
      const std::int64_t col = col0 + j;
      if (col < c.width) s[row * c.width + col] = tile[j * F::kTilePitch + row];
    }
    __syncthreads();  // the next group's staging reuses the tile
  }
}

// Enough thread blocks for every transform, within the grid's limit; each loops past it.
unsigned grid_of(std::int64_t transforms) {
  return static_cast<unsigned>(std::clamp<std::int64_t>(transforms, 1, kMaxGridX));
}

// Every launch here: the kernel allowed its dynamic shared memory (past the 48 KiB default for
// the long transforms), noted for the kernel log under `name`, launched and checked.
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 threads,
            unsigned shared, cudaStream_t stream, Args... args) {
  PARASOL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)));
  if (kernel_log_active()) note_launch(name, kernel, grid, threads, shared);
  kernel<<<grid, threads, shared, stream>>>(args...);
  PARASOL_CHECK_LAUNCH(stream);
}

}  // namespace

bool compiled_in() { return true; }

template <class T>
std::vector<std::int64_t> block_lengths() {
  return listed(typename Lengths<T>::List{});
}

template <class T>
void filter_spectra(const T* filter, std::int64_t taps, std::int64_t filters, bool reverse,
                    std::int64_t block, T* spectra, cudaStream_t stream) {
  if (filters < 1) return;
  dispatch_length<T>(block, [&](auto n) {
    constexpr unsigned kN = decltype(n)::value;
    using F = Transforms<T, kN>;
    launch("filter_spectrum_kernel<T, kN>", filter_spectrum_kernel<T, kN>, grid_of(filters),
           F::kThreads, F::kShared, stream, filter, taps, filters, reverse,
           reinterpret_cast<typename F::Complex*>(spectra));
  });
}

template <class T>
void convolve_blocks(const Blocks& b, std::int64_t block, const T* x, const T* spectra, T* out,
                     cudaStream_t stream) {
  const std::int64_t items = b.signals * b.blocks;
  if (items < 1 || b.count < 1) return;
  dispatch_length<T>(block, [&](auto n) {
    constexpr unsigned kN = decltype(n)::value;
    using F = Transforms<T, kN>;
    const std::int64_t transforms = b.one_filter ? (items + 1) / 2 : items;
    launch("overlap_save_kernel<T, kN>", overlap_save_kernel<T, kN>, grid_of(transforms),
           F::kThreads, F::kShared, stream, b, x,
           reinterpret_cast<const typename F::Complex*>(spectra), out);
  });
}

// The row transforms of every image, two rows to a transform: forward from real rows `in` into
// spectra `out`, or inverse from spectra `in` into real rows `out`.
template <class T>
void transform_rows(bool forward, const ImageRows& r, std::int64_t length, const T* in, T* out,
                    cudaStream_t stream) {
  const std::int64_t transforms = r.images * ((r.rows + 1) / 2);
  if (transforms < 1) return;
  dispatch_length<T>(length, [&](auto n) {
    constexpr unsigned kN = decltype(n)::value;
    using F = RowTransforms<T, kN>;
    using Complex = typename F::Complex;
    if (forward)
      launch("forward_rows_kernel<T, kN>", forward_rows_kernel<T, kN>, grid_of(transforms),
             F::kThreads, F::kShared, stream, r, in, reinterpret_cast<Complex*>(out));
    else
      launch("inverse_rows_kernel<T, kN>", inverse_rows_kernel<T, kN>, grid_of(transforms),
             F::kThreads, F::kShared, stream, r, reinterpret_cast<const Complex*>(in), out);
  });
}

template <class T>
void forward_rows(const ImageRows& r, std::int64_t length, const T* x, T* spectra,
                  cudaStream_t stream) {
  transform_rows(true, r, length, x, spectra, stream);
}

template <class T>
void inverse_rows(const ImageRows& r, std::int64_t length, const T* spectra, T* out,
                  cudaStream_t stream) {
  transform_rows(false, r, length, spectra, out, stream);
}

bool columns_compiled(std::int64_t length, int) {
  return length == 1024 || length == 2048 || length == 4096;
}

template <class T>
void convolve_columns(const ImageColumns& c, std::int64_t length, T* spectra,
                      const T* filter_spectra, cudaStream_t stream) {
  const std::int64_t groups = (c.width + 32 / (2 * std::int64_t(sizeof(T))) - 1) /
                              (32 / (2 * std::int64_t(sizeof(T))));
  if (c.images < 1 || groups < 1) return;
  dispatch_length<T>(length, typename ColumnLengths<T>::List{}, [&](auto n) {
    constexpr unsigned kN = decltype(n)::value;
    using F = ColumnTransforms<T, kN>;
    launch("image_columns_kernel<T, kN>", image_columns_kernel<T, kN>,
           grid_of(c.images * groups), dim3(F::kThreadsX, F::kColumns), F::kShared, stream, c,
           reinterpret_cast<typename F::Complex*>(spectra),
           reinterpret_cast<const typename F::Complex*>(filter_spectra));
  });
}

#else  // without cuFFTDx

namespace {
[[noreturn]] void not_compiled_in() {
  throw InputError("", "variant",
                   "the fused variant is not compiled in (it needs cuFFTDx: ./build.sh deps "
                   "unpacks it into .deps/mathdx/, then configure again)");
}
}  // namespace

bool compiled_in() { return false; }

template <class T>
std::vector<std::int64_t> block_lengths() {
  return {};
}

template <class T>
void filter_spectra(const T*, std::int64_t, std::int64_t, bool, std::int64_t, T*, cudaStream_t) {
  not_compiled_in();
}

template <class T>
void convolve_blocks(const Blocks&, std::int64_t, const T*, const T*, T*, cudaStream_t) {
  not_compiled_in();
}

bool columns_compiled(std::int64_t, int) { return false; }

template <class T>
void convolve_columns(const ImageColumns&, std::int64_t, T*, const T*, cudaStream_t) {
  not_compiled_in();
}

template <class T>
void forward_rows(const ImageRows&, std::int64_t, const T*, T*, cudaStream_t) {
  not_compiled_in();
}

template <class T>
void inverse_rows(const ImageRows&, std::int64_t, const T*, T*, cudaStream_t) {
  not_compiled_in();
}

#endif

template std::vector<std::int64_t> block_lengths<float>();
template std::vector<std::int64_t> block_lengths<double>();
template void filter_spectra(const float*, std::int64_t, std::int64_t, bool, std::int64_t,
                             float*, cudaStream_t);
template void filter_spectra(const double*, std::int64_t, std::int64_t, bool, std::int64_t,
                             double*, cudaStream_t);
template void convolve_blocks(const Blocks&, std::int64_t, const float*, const float*, float*,
                              cudaStream_t);
template void convolve_blocks(const Blocks&, std::int64_t, const double*, const double*, double*,
                              cudaStream_t);
template void forward_rows(const ImageRows&, std::int64_t, const float*, float*, cudaStream_t);
template void forward_rows(const ImageRows&, std::int64_t, const double*, double*, cudaStream_t);
template void inverse_rows(const ImageRows&, std::int64_t, const float*, float*, cudaStream_t);
template void inverse_rows(const ImageRows&, std::int64_t, const double*, double*, cudaStream_t);
template void convolve_columns(const ImageColumns&, std::int64_t, float*, const float*,
                               cudaStream_t);
template void convolve_columns(const ImageColumns&, std::int64_t, double*, const double*,
                               cudaStream_t);

}  // namespace parasol::fftconv::fused
