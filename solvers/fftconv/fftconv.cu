// fftconv on the device: the four variants and the streamed overlap-save.
//
// Every variant computes the window of the full linear convolution that the mode asks for
// (output_offset, output_extent). Correlation reverses the filters first; the kernels only ever
// convolve. The FFT variants use circular convolution of length L per axis, which equals the
// linear one on the window [s, s + m) as long as L >= max(full - s, s + m): the wrapped-around
// terms then land outside the window. That is shorter than the full length in `same` and `valid`.
// Images may go shorter still (image_extent): r2c and fused then recompute the few outputs near
// the window's edges that take wrapped terms by direct sums (edge_kernel).
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <future>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/buffer.hpp"
#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/fused.hpp"
#include "solvers/fftconv/plan_cache.hpp"
#include "solvers/fftconv/signals.hpp"
#include "solvers/fftconv/rows.cuh"

namespace parasol::fftconv {
namespace {

template <class T>
struct Fft;

template <>
struct Fft<float> {
  using Complex = cufftComplex;
  static constexpr cufftType kR2C = CUFFT_R2C, kC2R = CUFFT_C2R, kC2C = CUFFT_C2C;
  static void r2c(cufftHandle plan, float* in, Complex* out) {
    PARASOL_CUFFT(cufftExecR2C(plan, in, out));
  }
  static void c2r(cufftHandle plan, Complex* in, float* out) {
    PARASOL_CUFFT(cufftExecC2R(plan, in, out));
  }
  static void c2c(cufftHandle plan, Complex* data, int direction) {
    PARASOL_CUFFT(cufftExecC2C(plan, data, data, direction));
  }
};

template <>
struct Fft<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType kR2C = CUFFT_D2Z, kC2R = CUFFT_Z2D, kC2C = CUFFT_Z2Z;
  static void r2c(cufftHandle plan, double* in, Complex* out) {
    PARASOL_CUFFT(cufftExecD2Z(plan, in, out));
  }
  static void c2r(cufftHandle plan, Complex* in, double* out) {
    PARASOL_CUFFT(cufftExecZ2D(plan, in, out));
  }
  static void c2c(cufftHandle plan, Complex* data, int direction) {
    PARASOL_CUFFT(cufftExecZ2Z(plan, data, data, direction));
  }
};

template <class T>
using Complex = typename Fft<T>::Complex;

// ---------------------------------------------------------------------------------------------
// Kernels. Rows of all items (signals, filters, blocks) are walked as rows.cuh says.

using rows::copy_row;
using rows::kThreads;
using rows::UnrolledColumns;
using rows::rows_grid;
using rows::unrolled_columns;
using rows::unrolled_rows_grid;

template <class T>
__device__ T real_of(T v) { return v; }
__device__ float real_of(cufftComplex v) { return v.x; }
__device__ double real_of(cufftDoubleComplex v) { return v.x; }

template <class Out, class T>
__device__ Out from_real(T v) {
  if constexpr (std::is_same_v<Out, T>) return v;
  else return Out{v, T(0)};
}

// dst[i][y][x] = src[i][y][x] (reversed in both axes when `reverse`) inside `in`, 0 elsewhere
// up to `to`. rows = items * to.rows.
template <class T, class Out>
__global__ void pad_kernel(const T* __restrict__ src, Extent in, Extent to, std::int64_t rows,
                           bool reverse, Out* __restrict__ dst) {
  const UnrolledColumns c = unrolled_columns();
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t item = row / to.rows, y = row % to.rows;
    Out* out = dst + row * to.cols;
    const bool inside_row = y < in.rows;
    const std::int64_t sy = reverse ? in.rows - 1 - y : y;
    const T* source = src + (item * in.rows + sy) * in.cols;
    copy_row(out, to.cols, c, [&](std::int64_t x) {
      return from_real<Out>(inside_row && x < in.cols ? source[reverse ? in.cols - 1 - x : x]
                                                      : T(0));
    });
  }
}

template <class C>
__device__ C multiply(C a, C b) {
  return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

// spectra[i] *= filter_spectra[i / items_per_filter or 0] * scale, `length` values each.
template <class T>
__global__ void multiply_kernel(Complex<T>* __restrict__ spectra,
                                const Complex<T>* __restrict__ filter_spectra,
                                std::int64_t length, std::int64_t items, bool one_filter,
                                std::int64_t items_per_filter, T scale) {
  for (std::int64_t item = blockIdx.y; item < items; item += gridDim.y) {
    Complex<T>* s = spectra + item * length;
    const Complex<T>* h = filter_spectra + (one_filter ? 0 : item / items_per_filter) * length;
    for (const std::int64_t j : grid_stride(length)) {
      Complex<T> v = multiply(s[j], h[j]);
      s[j] = {v.x * scale, v.y * scale};
    }
  }
}

// r2c in 1D on transforms of half the length. A real row of even length N is read as the M = N/2
// complex values z[n] = x[2n] + i x[2n+1], whose transform Z holds the real transform X:
//   X[k] = E[k] + W^k O[k],  E[k] = (Z[k] + conj Z[M-k]) / 2,  O[k] = (Z[k] - conj Z[M-k]) / 2i,
// with W = exp(-2 pi i / N) and Z[M] = Z[0], for k = 0..M. This kernel takes each pair k, M - k
// of a row, makes X there, multiplies by the filter's half spectrum and `scale`, and turns the
// products Y back into the M values
//   Z'[k] = (Y[k] + conj Y[M-k]) + i (Y[k] - conj Y[M-k]) conj(W^k),
// whose unnormalised inverse transform of length M is the output's pairs y[2n] + i y[2n+1] (with
// scale = 1/N). One pass over the spectra, where cuFFT's real transforms add a pass after the
// forward and one before the inverse around the multiply's own.
template <class C>
__device__ C conj_of(C a) {
  return {a.x, -a.y};
}

template <class T>
__global__ void multiply_half_length_kernel(Complex<T>* __restrict__ z,
                                            const Complex<T>* __restrict__ filter_spectra,
                                            std::int64_t m, std::int64_t items, bool one_filter,
                                            T scale) {
  using C = Complex<T>;
  const T half = T(0.5);
  for (std::int64_t item = blockIdx.y; item < items; item += gridDim.y) {
    C* row = z + item * m;
    const C* h = filter_spectra + (one_filter ? 0 : item) * (m + 1);
    for (const std::int64_t k : grid_stride(m / 2 + 1)) {
      const std::int64_t j = m - k;  // m at k = 0: Z[m] is Z[0], X[m] the Nyquist value
      // k / m in double: exact enough past 2^24 too.
      T sin_k, cos_k;
      if constexpr (std::is_same_v<T, float>)
        sincospif(static_cast<float>(double(k) / double(m)), &sin_k, &cos_k);
      else sincospi(double(k) / double(m), &sin_k, &cos_k);
      const C w{cos_k, -sin_k};        // W^k
      const C w_j{-cos_k, -sin_k};     // W^(m-k) = -conj(W^k)
      const C a = row[k], b = row[j == m ? 0 : j];
      // X at k and at j from (Z[k], conj Z[j]) and (Z[j], conj Z[k]).
      const auto x_of = [&](C p, C q_conj, C twiddle) {
        const C e{half * (p.x + q_conj.x), half * (p.y + q_conj.y)};
        const C o{half * (p.y - q_conj.y), -half * (p.x - q_conj.x)};  // (p - q) / 2i
        const C t = multiply(twiddle, o);
        return C{e.x + t.x, e.y + t.y};
      };
      const C xk = multiply(x_of(a, conj_of(b), w), h[k]);
      const C xj = multiply(x_of(b, conj_of(a), w_j), h[j]);
      const C yk{xk.x * scale, xk.y * scale}, yj{xj.x * scale, xj.y * scale};
      // Z' at k and at j, the second with conj(W^j) = -W^k.
      const auto z_of = [](C p, C q_conj, C conj_twiddle) {
        const C d = multiply(C{p.x - q_conj.x, p.y - q_conj.y}, conj_twiddle);
        return C{p.x + q_conj.x - d.y, p.y + q_conj.y + d.x};  // sum + i d
      };
      row[k] = z_of(yk, conj_of(yj), conj_of(w));
      if (j != m && j != k) row[j] = z_of(yj, conj_of(yk), C{-w.x, -w.y});
    }
  }
}

// A 2D filter's spectrum from its rows' spectra: the filter has only k_rows non-zero rows, so
// instead of transforming all l_rows padded rows down the columns, each column's DFT is summed
// directly, H[u][v] = sum_y G[y][v] exp(-2 pi i u y / l_rows): k_rows complex multiply-adds per
// value, against a full column transform's passes over memory. A block takes kDftRows rows u
// of kThreads columns v; its twiddles exp(-2 pi i u y / l_rows) are made once, in shared memory.
constexpr int kDftRows = 32;
constexpr int kDftMostFilterRows = 64;

template <class T>
__global__ void column_dft_kernel(const Complex<T>* __restrict__ g, std::int64_t k_rows,
                                  std::int64_t l_rows, std::int64_t width, std::int64_t filters,
                                  Complex<T>* __restrict__ h) {
  __shared__ Complex<T> twiddle[kDftRows][kDftMostFilterRows];
  const std::int64_t u0 = std::int64_t(blockIdx.y) * kDftRows;
  for (int e = threadIdx.x; e < kDftRows * k_rows; e += blockDim.x) {
    const std::int64_t u = u0 + e / k_rows, y = e % k_rows;
    T sine, cosine;
    // (u y mod l_rows) first: the angle stays exact however long the transform.
    sincospi(T(-2) * static_cast<T>((u * y) % l_rows) / static_cast<T>(l_rows), &sine, &cosine);
    twiddle[e / k_rows][y] = {cosine, sine};
  }
  __syncthreads();
  const std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= width) return;
  for (std::int64_t f = blockIdx.z; f < filters; f += gridDim.z) {
    const Complex<T>* column = g + f * k_rows * width + v;
    Complex<T>* out = h + f * l_rows * width + v;
    for (int r = 0; r < kDftRows && u0 + r < l_rows; ++r) {
      Complex<T> acc{T(0), T(0)};
      for (std::int64_t y = 0; y < k_rows; ++y) {
        const Complex<T> a = column[y * width], w = twiddle[r][y];
        acc.x = fma(a.x, w.x, fma(-a.y, w.y, acc.x));
        acc.y = fma(a.x, w.y, fma(a.y, w.x, acc.y));
      }
      out[(u0 + r) * width] = acc;
    }
  }
}

// dst[i][y][x] = real(full[i][y + offset.rows][x + offset.cols]), full holding `from`-extent
// items. rows = items * out.rows.
template <class T, class In>
__global__ void crop_kernel(const In* __restrict__ full, Extent from, Extent out, Extent offset,
                            std::int64_t rows, T* __restrict__ dst) {
  const UnrolledColumns c = unrolled_columns();
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t item = row / out.rows, y = row % out.rows;
    // Past `from`, the circular image (an image's wrapped outputs, recomputed after).
    const In* source = full + (item * from.rows + (y + offset.rows) % from.rows) * from.cols;
    copy_row(dst + row * out.cols, out.cols, c, [&](std::int64_t x) {
      const std::int64_t at = x + offset.cols;
      return real_of(source[at < from.cols ? at : at - from.cols]);
    });
  }
}

// Overlap-save, step 1: block j of signal b holds samples first + j * step + [0, block) of that
// signal. Only samples [x_begin, x_begin + x_count) are on the device (x[0] is sample x_begin);
// those outside are zero (outside [0, n) they are the zero padding; a streamed piece holds every
// sample in range).
template <class T>
__global__ void gather_blocks_kernel(const T* __restrict__ x, std::int64_t x_stride,
                                     std::int64_t x_begin, std::int64_t x_count,
                                     std::int64_t first, std::int64_t step, std::int64_t blocks,
                                     std::int64_t block, std::int64_t rows, T* __restrict__ dst) {
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t b = row / blocks, j = row % blocks;
    const T* signal = x + b * x_stride;
    const std::int64_t start = first + j * step - x_begin;
    T* out = dst + row * block;
    for (const std::int64_t r : grid_stride(block)) {
      const std::int64_t g = start + r;
      out[r] = (g >= 0 && g < x_count) ? signal[g] : T(0);
    }
  }
}

// Overlap-save, step 2: the last `step` samples of each block are exact outputs; output q of
// signal b is sample (overlap + q % step) of its block q / step. count outputs per signal.
template <class T>
__global__ void scatter_blocks_kernel(const T* __restrict__ y, std::int64_t block,
                                      std::int64_t overlap, std::int64_t step,
                                      std::int64_t blocks, std::int64_t count,
                                      std::int64_t out_stride, std::int64_t rows,
                                      T* __restrict__ dst) {
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t b = row / blocks, j = row % blocks;
    const T* source = y + row * block + overlap;
    const std::int64_t q0 = j * step;
    const std::int64_t here = std::min(step, count - q0);
    T* out = dst + b * out_stride + q0;
    for (const std::int64_t r : grid_stride(here))
      out[r] = source[r];
  }
}

// Direct sums. A block computes kTile consecutive outputs of one output row; each thread kPer
// consecutive ones. For every filter row that meets the signal, the taps go in chunks of kChunk:
// the chunk and the signal window it needs are staged in shared memory, and each thread slides
// a register window along the signal, so one shared load feeds kPer multiply-adds. kPer is odd
// so the threads' strided loads fall in distinct banks.
__device__ std::int64_t larger(std::int64_t a, std::int64_t b) { return a > b ? a : b; }
__device__ std::int64_t smaller(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

constexpr int kDirectThreads = 128;
constexpr int kPer = 5;
constexpr int kTile = kDirectThreads * kPer;
constexpr int kChunk = kPer * 64;

template <class T>
__global__ void __launch_bounds__(kDirectThreads)
    direct_kernel(const T* __restrict__ x, Extent in, const T* __restrict__ h, Extent k,
                  bool one_filter, Extent out, Extent offset, std::int64_t rows,
                  T* __restrict__ y) {
  __shared__ T xs[kTile + kChunk - 1];
  __shared__ T hs[kChunk];
  const int t = threadIdx.x;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t b = row / out.rows, oy = row % out.rows;
    const std::int64_t fy = oy + offset.rows;  // the row in the full convolution
    const T* filter = h + (one_filter ? 0 : b) * k.rows * k.cols;
    const std::int64_t dy_lo = larger(std::int64_t(0), fy - (in.rows - 1));
    const std::int64_t dy_hi = smaller(k.rows - 1, fy);
    for (std::int64_t tile = blockIdx.x; tile * kTile < out.cols; tile += gridDim.x) {
      const std::int64_t fx0 = tile * kTile + offset.cols;
      T acc[kPer];
#pragma unroll
      for (int r = 0; r < kPer; ++r) acc[r] = T(0);
      // Taps whose signal samples fx - i fall inside the row for some fx in the tile.
      const std::int64_t i_lo = larger(std::int64_t(0), fx0 - (in.cols - 1));
      const std::int64_t i_hi = smaller(k.cols - 1, fx0 + kTile - 1);
      for (std::int64_t dy = dy_lo; dy <= dy_hi; ++dy) {
        const T* signal = x + (b * in.rows + fy - dy) * in.cols;
        const T* taps = filter + dy * k.cols;
        for (std::int64_t i0 = i_lo; i0 <= i_hi; i0 += kChunk) {
          // This chunk's taps, rounded up to whole groups of kPer (the extra ones are zero).
          const int len = static_cast<int>(smaller(std::int64_t(kChunk),
                                                   (i_hi - i0 + kPer) / kPer * kPer));
          // xs[q] = x[w0 + q]; output fx0 + u at tap i0 + q' reads xs[u + len - 1 - q'].
          const std::int64_t w0 = fx0 - i0 - (len - 1);
          __syncthreads();
          for (int q = t; q < kTile + len - 1; q += kDirectThreads) {
            const std::int64_t g = w0 + q;
            xs[q] = (g >= 0 && g < in.cols) ? signal[g] : T(0);
          }
          for (int q = t; q < len; q += kDirectThreads)
            hs[q] = i0 + q <= i_hi ? taps[i0 + q] : T(0);
          __syncthreads();
          // w[j] = xs[base - q - (kPer - 1) + j] for the group of taps q .. q + kPer - 1.
          const int base = t * kPer + len - 1;
          T w[2 * kPer - 1];
#pragma unroll
          for (int j = 0; j < kPer - 1; ++j) w[kPer + j] = xs[base + 1 + j];
#pragma unroll 2
          for (int q = 0; q < len; q += kPer) {
#pragma unroll
            for (int j = 0; j < kPer; ++j) w[j] = xs[base - q - (kPer - 1) + j];
#pragma unroll
            for (int e = 0; e < kPer; ++e) {
              const T tap = hs[q + e];
#pragma unroll
              for (int r = 0; r < kPer; ++r) acc[r] = fma(tap, w[r - e + kPer - 1], acc[r]);
            }
#pragma unroll
            for (int j = 0; j < kPer - 1; ++j) w[kPer + j] = w[j];
          }
        }
      }
      T* target = y + row * out.cols + tile * kTile + t * kPer;
      const std::int64_t left = out.cols - tile * kTile - t * kPer;
#pragma unroll
      for (int r = 0; r < kPer; ++r)
        if (r < left) target[r] = acc[r];
    }
  }
}

// Direct sums on the outputs of each image's window that a shorter transform wraps terms into
// (wrapped_outputs' rectangles, all in one launch). A block of kEdgeThreads computes one tile
// of a rectangle: 64 x 16 outputs (columns x rows) for a band of rows, 16 x 64 for a band of
// columns, each thread kEdgeRun consecutive outputs of a row. The signal samples the tile reaches
// and the filter (taps reversed, rows padded with zeros to a multiple of kEdgeRun) are staged in
// shared memory; each thread slides a register window along its row, so a shared load of the
// signal and one of a tap feed kEdgeRun multiply-adds each. Filters of at most kWrappedMostTaps
// a side.
constexpr int kEdgeThreads = 128;
constexpr int kEdgeRun = 8;
constexpr int kEdgeTaps = static_cast<int>(kWrappedMostTaps);
static_assert(kEdgeTaps % kEdgeRun == 0, "filter rows pad to whole runs");
constexpr int kEdgeShared = (64 + kEdgeTaps - 1) * (16 + kEdgeTaps);

struct EdgeRects {
  Rect rect[4];
  std::int64_t first_tile[5] = {0, 0, 0, 0, 0};
  int count = 0;
};

// Threads along a row of the tile: 8 (64 columns) for a band of rows, 2 (16) for one of columns.
__host__ __device__ inline int edge_threads_x(const Rect& r) { return r.cols >= r.rows ? 8 : 2; }

template <class T>
__global__ void __launch_bounds__(kEdgeThreads)
    edge_kernel(const T* __restrict__ x, Extent in, const T* __restrict__ h, Extent k,
                bool one_filter, Extent out, Extent offset, EdgeRects e, std::int64_t images,
                T* __restrict__ y) {
  __shared__ T xs[kEdgeShared];
  __shared__ T hs[kEdgeTaps * kEdgeTaps];
  int which = 0;
  while (which + 1 < e.count && blockIdx.x >= e.first_tile[which + 1]) ++which;
  const Rect r = e.rect[which];
  const int threads_x = edge_threads_x(r);
  const int tile_cols = threads_x * kEdgeRun, tile_rows = kEdgeThreads / threads_x;
  const std::int64_t tiles_x = (r.cols + tile_cols - 1) / tile_cols;
  const std::int64_t tile = blockIdx.x - e.first_tile[which];
  const std::int64_t oy0 = r.row + (tile / tiles_x) * tile_rows;
  const std::int64_t ox0 = r.col + (tile % tiles_x) * tile_cols;
  const int kr = static_cast<int>(k.rows), kc = static_cast<int>(k.cols);
  const int kcp = (kc + kEdgeRun - 1) / kEdgeRun * kEdgeRun;
  const int span_y = tile_rows + kr - 1, span_x = tile_cols + kcp;
  const int tx = threadIdx.x % threads_x, ty = threadIdx.x / threads_x;
  // Shared (a, b) holds signal sample (sy0 + a, sx0 + b); output (oy0 + ty, ox0 + u) at tap
  // (dy, dx) reads shared (ty + kr - 1 - dy, u + kc - 1 - dx).
  const std::int64_t sy0 = oy0 + offset.rows - (kr - 1);
  const std::int64_t sx0 = ox0 + offset.cols - (kc - 1);
  for (std::int64_t image = blockIdx.y; image < images; image += gridDim.y) {
    const T* signal = x + image * in.rows * in.cols;
    const T* filter = h + (one_filter ? 0 : image) * k.rows * k.cols;
    __syncthreads();  // the previous image's tiles are read
    for (int q = threadIdx.x; q < kr * kcp; q += kEdgeThreads) {
      const int dy = q / kcp, j = q % kcp;
      hs[q] = j < kc ? filter[dy * kc + kc - 1 - j] : T(0);
    }
    for (int q = threadIdx.x; q < span_y * span_x; q += kEdgeThreads) {
      const std::int64_t sy = sy0 + q / span_x, sx = sx0 + q % span_x;
      xs[q] = sy >= 0 && sy < in.rows && sx >= 0 && sx < in.cols ? signal[sy * in.cols + sx]
                                                                  : T(0);
    }
    __syncthreads();
    T acc[kEdgeRun];
#pragma unroll
    for (int u = 0; u < kEdgeRun; ++u) acc[u] = T(0);
    for (int dy = 0; dy < kr; ++dy) {
      const T* row = xs + (ty + kr - 1 - dy) * span_x + tx * kEdgeRun;
      const T* taps = hs + dy * kcp;
      T w[2 * kEdgeRun];
#pragma unroll
      for (int j = 0; j < kEdgeRun; ++j) w[j] = row[j];
      for (int j0 = 0; j0 < kcp; j0 += kEdgeRun) {
#pragma unroll
        for (int j = 0; j < kEdgeRun; ++j) w[kEdgeRun + j] = row[j0 + kEdgeRun + j];
#pragma unroll
        for (int j = 0; j < kEdgeRun; ++j) {
          const T tap = taps[j0 + j];
#pragma unroll
          for (int u = 0; u < kEdgeRun; ++u) acc[u] = fma(tap, w[u + j], acc[u]);
        }
#pragma unroll
        for (int j = 0; j < kEdgeRun; ++j) w[j] = w[kEdgeRun + j];
      }
    }
    const std::int64_t oy = oy0 + ty;
    if (oy >= r.row + r.rows) continue;
    T* target = y + (image * out.rows + oy) * out.cols;
#pragma unroll
    for (int u = 0; u < kEdgeRun; ++u) {
      const std::int64_t ox = ox0 + tx * kEdgeRun + u;
      if (ox < r.col + r.cols) target[ox] = acc[u];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Launch helpers.

template <class T, class Out>
void pad(const T* src, Extent in, Extent to, std::int64_t items, bool reverse, Out* dst,
         cudaStream_t stream) {
  const std::int64_t rows = items * to.rows;
  const dim3 grid = unrolled_rows_grid(to.cols, rows);
  PARASOL_NOTE_LAUNCH(grid, kThreads, 0, pad_kernel<T, Out>);
  pad_kernel<<<grid, kThreads, 0, stream>>>(src, in, to, rows, reverse, dst);
  PARASOL_CHECK_LAUNCH(stream);
}

template <class T>
void multiply_spectra(Complex<T>* spectra, const Complex<T>* filter_spectra, std::int64_t length,
                      std::int64_t items, bool one_filter, std::int64_t items_per_filter,
                      double scale, cudaStream_t stream) {
  PARASOL_NOTE_LAUNCH(rows_grid(length, items), kThreads, 0, multiply_kernel<T>);
  multiply_kernel<T><<<rows_grid(length, items), kThreads, 0, stream>>>(
      spectra, filter_spectra, length, items, one_filter, items_per_filter, static_cast<T>(scale));
  PARASOL_CHECK_LAUNCH(stream);
}

template <class T, class In>
void crop(const In* full, Extent from, Extent out, Extent offset, std::int64_t items, T* dst,
          cudaStream_t stream) {
  const std::int64_t rows = items * out.rows;
  const dim3 grid = unrolled_rows_grid(out.cols, rows);
  PARASOL_NOTE_LAUNCH(grid, kThreads, 0, crop_kernel<T, In>);
  crop_kernel<<<grid, kThreads, 0, stream>>>(full, from, out, offset, rows, dst);
  PARASOL_CHECK_LAUNCH(stream);
}

// Grows a scratch buffer to at least n values; never shrinks, so repeated calls reuse it.
template <class V>
V* reserve(DeviceBuffer<V>& buffer, std::int64_t n) {
  if (static_cast<std::int64_t>(buffer.size()) < n)
    buffer = DeviceBuffer<V>(static_cast<std::size_t>(n));
  return buffer.data();
}

// Overlap-save keeps at most this many block samples in scratch at once (in-memory signals run
// in groups of blocks): bounded device memory whatever the signal length.
constexpr std::int64_t kMostBlockSamples = std::int64_t(1) << 26;
constexpr std::int64_t kDefaultPiece = std::int64_t(1) << 24;

// InputError unless the host holds as many signal and filter values as the problem says.
void check_values(const Problem& p, std::size_t signal_values, std::size_t filter_values) {
  if (static_cast<std::int64_t>(signal_values) != p.batch * p.signal.size())
    throw InputError("", "signal",
                     "expected " + std::to_string(p.batch * p.signal.size()) +
                         " signal values, got " + std::to_string(signal_values));
  if (static_cast<std::int64_t>(filter_values) != p.filters * p.filter.size())
    throw InputError("", "filter",
                     "expected " + std::to_string(p.filters * p.filter.size()) +
                         " filter values, got " + std::to_string(filter_values));
}

// The problem, once it and the values' counts pass their checks.
const Problem& checked(const Problem& p, std::size_t signal_values, std::size_t filter_values) {
  check_problem(p);
  check_values(p, signal_values, filter_values);
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

template <class T>
struct Convolver<T>::Impl {
  PlanCache plans;
  DeviceBuffer<T> real_a, real_b, filters, fused_spectra;
  DeviceBuffer<Complex<T>> complex_a, complex_b, complex_c, r2c_spectra, image_spectra;

  // What a kept filter spectrum was computed from (keep_filter_spectra): the filters (where they
  // lie, how many, their extent, reversed or not) and the transform extent.
  struct SpectrumKey {
    const T* filter = nullptr;
    std::int64_t filters = 0;
    Extent extent, transform;
    Operation operation = Operation::convolve;
    bool operator==(const SpectrumKey& o) const {
      return filter == o.filter && filters == o.filters && extent == o.extent &&
             transform == o.transform && operation == o.operation;
    }
  };
  bool keep_spectra = false;
  std::int64_t spectra_computed = 0;
  std::optional<SpectrumKey> r2c_for, fused_for, image_for;

  // Whether the spectrum in a kept buffer is the one `key` asks for; when not, the caller
  // computes it, and the buffer is marked as holding it (when spectra are kept) or nothing.
  bool spectrum_kept(std::optional<SpectrumKey>& kept, const SpectrumKey& key) {
    if (keep_spectra && kept && *kept == key) return true;
    kept.reset();
    if (keep_spectra) kept = key;
    ++spectra_computed;
    return false;
  }

  // The filters as the kernels want them: reversed for correlation, as given otherwise.
  const T* oriented_filters(const Problem& p, const T* filter, cudaStream_t stream) {
    if (p.operation == Operation::convolve) return filter;
    T* reversed = reserve(filters, p.filters * p.filter.size());
    pad(filter, p.filter, p.filter, p.filters, true, reversed, stream);
    return reversed;
  }

  void c2c(const Problem& p, const T* signal, const T* filter, T* output, cudaStream_t stream) {
    const Extent l = transform_extent(p);
    Complex<T>* s = reserve(complex_a, p.batch * l.size());
    Complex<T>* h = reserve(complex_b, p.filters * l.size());
    pad(signal, p.signal, l, p.batch, false, s, stream);
    pad(filter, p.filter, l, p.filters, p.operation == Operation::correlate, h, stream);
    Fft<T>::c2c(plans.get(Fft<T>::kC2C, l.rows, l.cols, p.batch, stream), s, CUFFT_FORWARD);
    Fft<T>::c2c(plans.get(Fft<T>::kC2C, l.rows, l.cols, p.filters, stream), h, CUFFT_FORWARD);
    multiply_spectra<T>(s, h, l.size(), p.batch, p.filters == 1, 1, 1.0 / double(l.size()),
                        stream);
    Fft<T>::c2c(plans.get(Fft<T>::kC2C, l.rows, l.cols, p.batch, stream), s, CUFFT_INVERSE);
    crop(s, l, output_extent(p), output_offset(p), p.batch, output, stream);
  }

  // Images' outputs that a transform of extent l wrapped terms into, by direct sums.
  void recompute_wrapped(const Problem& p, Extent l, const T* signal, const T* filter,
                         T* output, cudaStream_t stream) {
    const std::vector<Rect> rects = wrapped_outputs(p, l);
    if (rects.empty()) return;
    EdgeRects e;
    for (const Rect& r : rects) {
      const int threads_x = edge_threads_x(r);
      const std::int64_t tiles = ceil_div(r.cols, threads_x * kEdgeRun) *
                                 ceil_div(r.rows, kEdgeThreads / threads_x);
      e.rect[e.count] = r;
      e.first_tile[e.count + 1] = e.first_tile[e.count] + tiles;
      ++e.count;
    }
    const T* h = oriented_filters(p, filter, stream);
    const dim3 grid(static_cast<unsigned>(e.first_tile[e.count]),
                    static_cast<unsigned>(std::min<std::int64_t>(p.batch, kMaxGridY)));
    PARASOL_NOTE_LAUNCH(grid, kEdgeThreads, 0, edge_kernel<T>);
    edge_kernel<T><<<grid, kEdgeThreads, 0, stream>>>(signal, p.signal, h, p.filter,
                                                      p.filters == 1, output_extent(p),
                                                      output_offset(p), e, p.batch, output);
    PARASOL_CHECK_LAUNCH(stream);
  }

  void r2c(const Problem& p, const T* signal, const T* filter, T* output, cudaStream_t stream) {
    const Extent l = p.is_2d() ? r2c_image_extent(p) : transform_extent(p);
    if (l.rows == 1 && l.cols % 2 == 0) return r2c_half_length(p, signal, filter, output, stream);
    const Extent half{l.rows, l.cols / 2 + 1};
    T* s = reserve(real_a, p.batch * l.size());
    Complex<T>* s_hat = reserve(complex_a, p.batch * half.size());
    pad(signal, p.signal, l, p.batch, false, s, stream);
    const Complex<T>* h_hat = filter_spectra(p, filter, l, stream, r2c_spectra, r2c_for);
    Fft<T>::r2c(plans.get(Fft<T>::kR2C, l.rows, l.cols, p.batch, stream), s, s_hat);
    multiply_spectra<T>(s_hat, h_hat, half.size(), p.batch, p.filters == 1, 1,
                        1.0 / double(l.size()), stream);
    Fft<T>::c2r(plans.get(Fft<T>::kC2R, l.rows, l.cols, p.batch, stream), s_hat, s);
    crop(s, l, output_extent(p), output_offset(p), p.batch, output, stream);
    recompute_wrapped(p, l, signal, filter, output, stream);
  }

  // 1D r2c at an even transform length, on complex transforms of half the length
  // (multiply_half_length_kernel): pad, forward, one pass for the spectra, inverse, crop.
  void r2c_half_length(const Problem& p, const T* signal, const T* filter, T* output,
                       cudaStream_t stream) {
    const Extent l = transform_extent(p);
    const std::int64_t m = l.cols / 2;
    T* s = reserve(real_a, p.batch * l.cols);
    // The padded rows read as m complex values each: cudaMalloc's alignment, and 2m reals a row.
    auto* z = reinterpret_cast<Complex<T>*>(s);
    pad(signal, p.signal, l, p.batch, false, s, stream);
    const Complex<T>* h_hat = filter_spectra(p, filter, l, stream, r2c_spectra, r2c_for);
    const cufftHandle plan = plans.get(Fft<T>::kC2C, 1, m, p.batch, stream);
    Fft<T>::c2c(plan, z, CUFFT_FORWARD);
    const dim3 grid = rows_grid(m / 2 + 1, p.batch);
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, multiply_half_length_kernel<T>);
    multiply_half_length_kernel<T><<<grid, kThreads, 0, stream>>>(
        z, h_hat, m, p.batch, p.filters == 1, static_cast<T>(1.0 / double(l.cols)));
    PARASOL_CHECK_LAUNCH(stream);
    Fft<T>::c2c(plan, z, CUFFT_INVERSE);
    crop(s, l, output_extent(p), output_offset(p), p.batch, output, stream);
  }

  // The filters' half spectra at transform extent l. Short 2D filters: transform their few rows
  // and sum the column DFTs directly (column_dft_kernel); otherwise the whole padded filter.
  // Kept in `spectra` (r2c's or fused's on images), as `kept` says.
  const Complex<T>* filter_spectra(const Problem& p, const T* filter, Extent l,
                                   cudaStream_t stream, DeviceBuffer<Complex<T>>& spectra,
                                   std::optional<SpectrumKey>& kept) {
    const std::int64_t width = l.cols / 2 + 1;
    const bool reverse = p.operation == Operation::correlate;
    Complex<T>* h_hat = reserve(spectra, p.filters * l.rows * width);
    if (spectrum_kept(kept, {filter, p.filters, p.filter, l, p.operation})) return h_hat;
    if (l.rows == 1 || p.filter.rows > kDftMostFilterRows) {
      T* h = reserve(real_b, p.filters * l.size());
      pad(filter, p.filter, l, p.filters, reverse, h, stream);
      Fft<T>::r2c(plans.get(Fft<T>::kR2C, l.rows, l.cols, p.filters, stream), h, h_hat);
      return h_hat;
    }
    const std::int64_t k_rows = p.filter.rows;
    T* rows = reserve(real_b, p.filters * k_rows * l.cols);
    Complex<T>* g = reserve(complex_c, p.filters * k_rows * width);
    pad(filter, p.filter, Extent{k_rows, l.cols}, p.filters, reverse, rows, stream);
    Fft<T>::r2c(plans.get(Fft<T>::kR2C, 1, l.cols, p.filters * k_rows, stream), rows, g);
    const dim3 grid(static_cast<unsigned>(ceil_div(width, kThreads)),
                    static_cast<unsigned>(ceil_div(l.rows, kDftRows)),
                    static_cast<unsigned>(std::min<std::int64_t>(p.filters, kMaxGridZ)));
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, column_dft_kernel<T>);
    column_dft_kernel<T><<<grid, kThreads, 0, stream>>>(g, k_rows, l.rows, width, p.filters,
                                                        h_hat);
    PARASOL_CHECK_LAUNCH(stream);
    return h_hat;
  }

  void direct(const Problem& p, const T* signal, const T* filter, T* output,
              cudaStream_t stream) {
    const T* h = oriented_filters(p, filter, stream);
    const Extent out = output_extent(p);
    const std::int64_t rows = p.batch * out.rows;
    const dim3 grid(static_cast<unsigned>(std::clamp<std::int64_t>(ceil_div(out.cols, kTile), 1,
                                                                   kMaxGridX)),
                    static_cast<unsigned>(std::clamp<std::int64_t>(rows, 1, kMaxGridY)));
    PARASOL_NOTE_LAUNCH(grid, kDirectThreads, 0, direct_kernel<T>);
    direct_kernel<<<grid, kDirectThreads, 0, stream>>>(signal, p.signal, h, p.filter,
                                                       p.filters == 1, out, output_offset(p),
                                                       rows, output);
    PARASOL_CHECK_LAUNCH(stream);
  }

  // Overlap-save's filter spectra: `filters` filters padded to the block length, transformed.
  const Complex<T>* block_filter_spectra(const Problem& p, const T* filter, std::int64_t block,
                                         cudaStream_t stream) {
    const std::int64_t half = block / 2 + 1;
    T* padded = reserve(real_b, p.filters * block);
    Complex<T>* spectra = reserve(complex_b, p.filters * half);
    pad(filter, p.filter, Extent{1, block}, p.filters, p.operation == Operation::correlate,
        padded, stream);
    Fft<T>::r2c(plans.get(Fft<T>::kR2C, 1, block, p.filters, stream), padded, spectra);
    return spectra;
  }

  // Outputs [o0, o0 + count) of signals [b0, b0 + signals) by overlap-save: x holds samples
  // [x_begin, x_begin + x_count) of each signal (x_stride apart), output receives count values
  // per signal (out_stride apart). h_hat: the filter spectra of those signals' filters.
  void overlap_save_range(const Problem& p, std::int64_t block, const Complex<T>* h_hat,
                          const T* x, std::int64_t x_stride, std::int64_t x_begin,
                          std::int64_t x_count, std::int64_t signals, std::int64_t o0,
                          std::int64_t count, T* output, std::int64_t out_stride,
                          cudaStream_t stream) {
    const std::int64_t overlap = p.filter.cols - 1, step = block - overlap;
    const std::int64_t blocks = ceil_div(count, step), items = signals * blocks;
    const std::int64_t half = block / 2 + 1;
    T* y = reserve(real_a, items * block);
    Complex<T>* y_hat = reserve(complex_a, items * half);
    const std::int64_t first = output_offset(p).cols + o0 - overlap;
    PARASOL_NOTE_LAUNCH(rows_grid(block, items), kThreads, 0, gather_blocks_kernel<T>);
    gather_blocks_kernel<<<rows_grid(block, items), kThreads, 0, stream>>>(
        x, x_stride, x_begin, x_count, first, step, blocks, block, items, y);
    PARASOL_CHECK_LAUNCH(stream);
    Fft<T>::r2c(plans.get(Fft<T>::kR2C, 1, block, items, stream), y, y_hat);
    multiply_spectra<T>(y_hat, h_hat, half, items, p.filters == 1, blocks, 1.0 / double(block),
                        stream);
    Fft<T>::c2r(plans.get(Fft<T>::kC2R, 1, block, items, stream), y_hat, y);
    PARASOL_NOTE_LAUNCH(rows_grid(step, items), kThreads, 0, scatter_blocks_kernel<T>);
    scatter_blocks_kernel<<<rows_grid(step, items), kThreads, 0, stream>>>(
        y, block, overlap, step, blocks, count, out_stride, items, output);
    PARASOL_CHECK_LAUNCH(stream);
  }

  std::int64_t block_length(const Problem& p, const Options& o) const {
    return overlap_save_block(p, o);
  }

  void overlap_save(const Problem& p, const Options& o, const T* signal, const T* filter,
                    T* output, cudaStream_t stream) {
    const std::int64_t block = block_length(p, o);
    const std::int64_t step = block - (p.filter.cols - 1);
    const std::int64_t n = p.signal.cols, m = output_extent(p).cols;
    const Complex<T>* h_hat = block_filter_spectra(p, filter, block, stream);
    const std::int64_t blocks = ceil_div(m, step);
    if (blocks * block <= kMostBlockSamples) {
      // Whole signals at a time, as many as fit.
      const std::int64_t group = std::max<std::int64_t>(1, kMostBlockSamples / (blocks * block));
      for (std::int64_t b0 = 0; b0 < p.batch; b0 += group) {
        const std::int64_t signals = std::min(group, p.batch - b0);
        overlap_save_range(p, block, h_hat + (p.filters == 1 ? 0 : b0 * (block / 2 + 1)),
                           signal + b0 * n, n, 0, n, signals, 0, m, output + b0 * m, m, stream);
      }
      return;
    }
    // One signal at a time, in runs of blocks.
    const std::int64_t run = std::max<std::int64_t>(1, kMostBlockSamples / block) * step;
    for (std::int64_t b = 0; b < p.batch; ++b)
      for (std::int64_t o0 = 0; o0 < m; o0 += run)
        overlap_save_range(p, block, h_hat + (p.filters == 1 ? 0 : b * (block / 2 + 1)),
                           signal + b * n, n, 0, n, 1, o0, std::min(run, m - o0),
                           output + b * m + o0, m, stream);
  }

  // The fused variant (fused.hpp): the filters' spectra at the transform length, then every
  // block of every signal in one kernel.
  void fused_overlap_save(const Problem& p, const Options& o, const T* signal, const T* filter,
                          T* output, cudaStream_t stream) {
    const std::int64_t block = fused_block(p, o, static_cast<int>(sizeof(T)));
    const std::int64_t overlap = p.filter.cols - 1, m = output_extent(p).cols;
    T* spectra = reserve(fused_spectra, 2 * p.filters * block);
    if (!spectrum_kept(fused_for, {filter, p.filters, p.filter, Extent{1, block}, p.operation}))
      fused::filter_spectra(filter, p.filter.cols, p.filters,
                            p.operation == Operation::correlate, block, spectra, stream);
    fused::Blocks b;
    b.signals = p.batch;
    b.n = b.x_stride = p.signal.cols;
    b.first = output_offset(p).cols - overlap;
    b.step = block - overlap;
    b.blocks = ceil_div(m, b.step);
    b.overlap = overlap;
    b.count = b.out_stride = m;
    b.one_filter = p.filters == 1;
    fused::convolve_blocks(b, block, signal, spectra, output, stream);
  }

  // The fused variant on images: the rows' forward transforms read the image unpadded (fused.hpp),
  // the rows past it are zeroed, cuFFT transforms the columns in place, the multiply scales by
  // the filters' half spectra at the same extent, cuFFT takes the columns back, and the rows'
  // inverse transforms read only the window's rows and write only its columns. At an extent
  // shorter than the circular one (fused_image_extent), the wrapped outputs are recomputed.
  void fused_images(const Problem& p, const Options& o, const T* signal, const T* filter,
                    T* output, cudaStream_t stream) {
    const std::int64_t length = fused_block(p, o, static_cast<int>(sizeof(T)));
    const Extent l{fused_image_extent(p, fused_block_lengths(static_cast<int>(sizeof(T)))).rows, length};
    const std::int64_t width = length / 2 + 1, plane = l.rows * width;
    Complex<T>* s_hat = reserve(complex_a, p.batch * plane);
    const Complex<T>* h_hat = filter_spectra(p, filter, l, stream, image_spectra, image_for);
    fused::ImageRows rows;
    rows.images = p.batch;
    rows.rows = p.signal.rows;
    rows.cols = p.signal.cols;
    rows.spectrum_rows = l.rows;
    fused::forward_rows(rows, length, signal, reinterpret_cast<T*>(s_hat), stream);
    const double scale = 1.0 / double(l.rows * length);
    if (fused::columns_compiled(l.rows, static_cast<int>(sizeof(T)))) {
      // Columns, multiply and inverse in one pass; the rows past the image read as zeros.
      fused::ImageColumns columns;
      columns.images = p.batch;
      columns.width = width;
      columns.filled = p.signal.rows;
      columns.one_filter = p.filters == 1;
      columns.scale = scale;
      fused::convolve_columns(columns, l.rows, reinterpret_cast<T*>(s_hat),
                              reinterpret_cast<const T*>(h_hat), stream);
    } else {
      if (l.rows > p.signal.rows)
        PARASOL_CUDA(cudaMemset2DAsync(s_hat + p.signal.rows * width,
                                       plane * sizeof(Complex<T>), 0,
                                       (l.rows - p.signal.rows) * width * sizeof(Complex<T>),
                                       p.batch, stream));
      const cufftHandle columns = plans.get_columns(Fft<T>::kC2C, l.rows, width, stream);
      for (std::int64_t i = 0; i < p.batch; ++i)
        Fft<T>::c2c(columns, s_hat + i * plane, CUFFT_FORWARD);
      multiply_spectra<T>(s_hat, h_hat, plane, p.batch, p.filters == 1, 1, scale, stream);
      for (std::int64_t i = 0; i < p.batch; ++i)
        Fft<T>::c2c(columns, s_hat + i * plane, CUFFT_INVERSE);
    }
    const Extent out = output_extent(p), at = output_offset(p);
    rows.rows = out.rows;
    rows.cols = out.cols;
    rows.first_row = at.rows;
    rows.first_col = at.cols;
    fused::inverse_rows(rows, length, reinterpret_cast<const T*>(s_hat), output, stream);
    recompute_wrapped(p, l, signal, filter, output, stream);
  }

  // Outputs [o0, o0 + count) of one signal (convolve_range_gpu): x holds samples
  // [x_begin, x_end) of it.
  void range(const Problem& p, const Options& o, const T* x, std::int64_t x_begin,
             std::int64_t x_end, const T* filter, std::int64_t o0, std::int64_t count,
             T* output, cudaStream_t stream) {
    const std::int64_t overlap = p.filter.cols - 1;
    if (o.variant == Variant::fused) {
      const std::int64_t block = fused_block(p, o, static_cast<int>(sizeof(T)));
      T* spectra = reserve(fused_spectra, 2 * block);
      if (!spectrum_kept(fused_for, {filter, 1, p.filter, Extent{1, block}, p.operation}))
        fused::filter_spectra(filter, p.filter.cols, 1, p.operation == Operation::correlate,
                              block, spectra, stream);
      fused::Blocks b;
      b.n = p.signal.cols;
      b.x_begin = x_begin;
      b.x_end = x_end;
      b.first = output_offset(p).cols + o0 - overlap;
      b.step = block - overlap;
      b.blocks = ceil_div(count, b.step);
      b.overlap = overlap;
      b.count = count;
      fused::convolve_blocks(b, block, x, spectra, output, stream);
      return;
    }
    const std::int64_t block = block_length(p, o);
    const std::int64_t step = block - overlap;
    const Complex<T>* h_hat = block_filter_spectra(p, filter, block, stream);
    const std::int64_t run = std::max<std::int64_t>(1, kMostBlockSamples / block) * step;
    for (std::int64_t at = 0; at < count; at += run)
      overlap_save_range(p, block, h_hat, x, 0, x_begin, x_end - x_begin, 1, o0 + at,
                         std::min(run, count - at), output + at, 0, stream);
  }

  struct Piece {
    std::int64_t o0 = 0, count = 0;   // outputs
    std::int64_t x0 = 0, x_count = 0;  // signal samples they need that exist
  };
};

template <class T>
Convolver<T>::Convolver() : impl_(std::make_unique<Impl>()) {}
template <class T>
Convolver<T>::~Convolver() = default;

template <class T>
void Convolver<T>::convolve_range(const Problem& p, const Options& o, const T* x,
                                  std::int64_t x_begin, std::int64_t x_end, const T* filter,
                                  std::int64_t first_output, std::int64_t outputs, T* output,
                                  cudaStream_t stream) {
  if (outputs > 0)
    impl_->range(p, o, x, x_begin, x_end, filter, first_output, outputs, output, stream);
}

template <class T>
std::size_t Convolver<T>::cached_plans() const {
  return impl_->plans.size();
}

template <class T>
void Convolver<T>::keep_filter_spectra() {
  impl_->keep_spectra = true;
}

template <class T>
std::int64_t Convolver<T>::spectra_computed() const {
  return impl_->spectra_computed;
}

template <class T>
Variant Convolver<T>::convolve(const Problem& p, const Options& o, const T* signal,
                               const T* filter, T* output, cudaStream_t stream) {
  check_problem(p);
  const Variant v =
      o.variant == Variant::automatic ? choose_variant(p, static_cast<int>(sizeof(T))) : o.variant;
  // fused says itself why it cannot run (not compiled in, or the filter too long).
  if (v == Variant::fused) (void)fused_block(p, o, static_cast<int>(sizeof(T)));
  if (!supports(v, p))
    throw InputError("", "variant",
                     "variant \"" + std::string(name(v)) + "\" takes 1D signals only");
  switch (v) {
    case Variant::c2c: impl_->c2c(p, signal, filter, output, stream); break;
    case Variant::r2c: impl_->r2c(p, signal, filter, output, stream); break;
    case Variant::overlap_save: impl_->overlap_save(p, o, signal, filter, output, stream); break;
    case Variant::direct: impl_->direct(p, signal, filter, output, stream); break;
    case Variant::fused:
      if (p.is_2d()) impl_->fused_images(p, o, signal, filter, output, stream);
      else impl_->fused_overlap_save(p, o, signal, filter, output, stream);
      break;
    case Variant::automatic: break;  // resolved above
  }
  return v;
}

// Pieces alternate between two pinned host buffers, so reading piece i + 1 and writing piece
// i - 1 on the host overlap the device's work on piece i.
template <class T>
void Convolver<T>::convolve_streamed(const Problem& p, const Options& o,
                                     const std::vector<T>& filter, const Reader& read,
                                     const Writer& write, cudaStream_t stream,
                                     std::int64_t piece, std::int64_t first_output,
                                     std::int64_t outputs) {
  check_problem(p);
  if (p.batch != 1 || p.is_2d())
    throw InputError("", "streamed", "expected one 1D signal (batch 1) for a streamed run");
  if (static_cast<std::int64_t>(filter.size()) != p.filter.size())
    throw InputError("", "filter",
                     "expected " + std::to_string(p.filter.size()) + " filter values, got " +
                         std::to_string(filter.size()));
  Impl& impl = *impl_;
  const std::int64_t block = impl.block_length(p, o);
  const std::int64_t overlap = p.filter.cols - 1, step = block - overlap;
  const std::int64_t n = p.signal.cols, m = output_extent(p).cols, s = output_offset(p).cols;
  const std::int64_t outputs_per_piece =
      std::max<std::int64_t>(1, (piece > 0 ? piece : kDefaultPiece) / step) * step;
  const std::int64_t samples_per_piece = outputs_per_piece + overlap;

  DeviceBuffer<T> h(filter.size()), x(static_cast<std::size_t>(samples_per_piece)),
      y(static_cast<std::size_t>(outputs_per_piece));
  upload(h, filter, stream);
  PinnedBuffer<T> in[2] = {PinnedBuffer<T>(samples_per_piece),
                           PinnedBuffer<T>(samples_per_piece)};
  PinnedBuffer<T> out[2] = {PinnedBuffer<T>(outputs_per_piece),
                            PinnedBuffer<T>(outputs_per_piece)};
  const Complex<T>* h_hat = impl.block_filter_spectra(p, h.data(), block, stream);

  const std::int64_t end = outputs < 0 ? m : std::min(m, first_output + outputs);
  if (first_output < 0 || first_output % step != 0 || first_output > m)
    throw Error("fftconv: a streamed range must start at a multiple of " + std::to_string(step) +
                " outputs inside the " + std::to_string(m) + " of the output, not at " +
                std::to_string(first_output));
  const std::int64_t pieces = ceil_div(std::max<std::int64_t>(0, end - first_output),
                                       outputs_per_piece);
  const auto piece_at = [&](std::int64_t i) {
    typename Impl::Piece at;
    at.o0 = first_output + i * outputs_per_piece;
    at.count = std::min(outputs_per_piece, end - at.o0);
    const std::int64_t first = s + at.o0 - overlap, last = s + at.o0 + at.count;  // [first, last)
    at.x0 = std::clamp<std::int64_t>(first, 0, n);
    at.x_count = std::clamp<std::int64_t>(last, 0, n) - at.x0;
    return at;
  };
  const auto enqueue = [&](std::int64_t i) {
    const typename Impl::Piece at = piece_at(i);
    upload(x, in[i % 2].data(), static_cast<std::size_t>(at.x_count), stream);
    impl.overlap_save_range(p, block, h_hat, x.data(), 0, at.x0, at.x_count, 1, at.o0, at.count,
                            y.data(), 0, stream);
    enqueue_download(out[i % 2].data(), y.data(), static_cast<std::size_t>(at.count), stream);
  };
  const auto fill = [&](std::int64_t i) {
    const typename Impl::Piece at = piece_at(i);
    if (at.x_count > 0) read(at.x0, at.x_count, in[i % 2].data());
  };

  if (pieces == 0) return;
  fill(0);
  enqueue(0);
  for (std::int64_t i = 0; i < pieces; ++i) {
    if (i + 1 < pieces) fill(i + 1);  // the host reads while the device works on piece i
    PARASOL_CUDA(cudaStreamSynchronize(stream));
    if (i + 1 < pieces) enqueue(i + 1);
    const typename Impl::Piece at = piece_at(i);
    write(at.o0, at.count, out[i % 2].data());  // while the device works on piece i + 1
  }
}

namespace {

// Upload (or draw), convolve, download: `fill_signal(x, stream)` puts the batch's signal into
// the device buffer x, enqueued on the stream.
template <class T, class FillSignal>
Result<T> convolve_gpu_with(const Problem& p, const Options& o, std::size_t signal_size,
                            FillSignal fill_signal, const std::vector<T>& filter) {
  const std::int64_t outputs = p.batch * output_extent(p).size();
  Stream stream;
  Result<T> result;
  EventTimer h2d(stream.get()), compute(stream.get()), d2h(stream.get());
  h2d.start();
  DeviceBuffer<T> x(signal_size), h(filter.size()), y(static_cast<std::size_t>(outputs));
  fill_signal(x, stream.get());
  upload(h, filter, stream.get());
  h2d.stop();
  // cuFFT plans are made on first use, on the host, while the device waits: a first run makes
  // them (and is reported as setup), so compute times the convolution alone.
  // The filter's spectrum, like the plans, is made by the first run and kept for the second.
  Convolver<T> convolver;
  convolver.keep_filter_spectra();
  EventTimer setup(stream.get());
  setup.start();
  convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
  setup.stop();
  compute.start();
  result.variant = convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
  compute.stop();
  result.output = huge_vector<T>(static_cast<std::size_t>(outputs));  // first touch on huge pages
  d2h.start();
  enqueue_download(result.output.data(), y.data(), y.size(), stream.get());
  d2h.stop();
  result.timings.add(phase::setup, setup.seconds());
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

}  // namespace

template <class T>
Result<T> convolve_gpu(const Problem& p, const Options& o, const std::vector<T>& signal,
                       const std::vector<T>& filter) {
  check_problem(p);
  check_values(p, signal.size(), filter.size());
  return convolve_gpu_with<T>(
      p, o, signal.size(),
      [&](DeviceBuffer<T>& x, cudaStream_t stream) {
        upload(x, signal, stream);
      },
      filter);
}

namespace {

bool same_shapes(const Problem& a, const Problem& b) {
  return a.batch == b.batch && a.signal == b.signal && a.filters == b.filters &&
         a.filter == b.filter && a.mode == b.mode && a.operation == b.operation;
}

}  // namespace

template <class T>
struct HostConvolver<T>::Kept {
  Problem problem;
  int device = -1;
  Stream stream;
  DeviceBuffer<T> x, h, y;
  Convolver<T> convolver;
};

template <class T>
HostConvolver<T>::HostConvolver() = default;
template <class T>
HostConvolver<T>::~HostConvolver() = default;

template <class T>
void HostConvolver<T>::clear() {
  kept_.reset();
}

template <class T>
Variant HostConvolver<T>::convolve(const Problem& p, const Options& o, const T* signal,
                                   std::size_t signal_size, const T* filter,
                                   std::size_t filter_size, T* output) {
  checked(p, signal_size, filter_size);
  int device = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  if (!kept_ || kept_->device != device || !same_shapes(kept_->problem, p)) {
    kept_.reset();  // the old plans and buffers freed before the new are made
    kept_ = std::make_unique<Kept>();
    kept_->problem = p;
    kept_->device = device;
    kept_->x = DeviceBuffer<T>(signal_size);
    kept_->h = DeviceBuffer<T>(filter_size);
    kept_->y = DeviceBuffer<T>(static_cast<std::size_t>(p.batch * output_extent(p).size()));
  }
  Kept& k = *kept_;
  upload(k.x, signal, signal_size, k.stream.get());
  upload(k.h, filter, filter_size, k.stream.get());
  const Variant ran = k.convolver.convolve(p, o, k.x.data(), k.h.data(), k.y.data(), k.stream.get());
  download(k.y, output, k.y.size(), k.stream.get());
  return ran;
}

template <class T>
Variant convolve_once(const Problem& p, const Options& o, const T* signal, std::size_t signal_size,
                      const T* filter, std::size_t filter_size, T* output) {
  return HostConvolver<T>().convolve(p, o, signal, signal_size, filter, filter_size, output);
}

template <class T>
Result<T> convolve_gpu(const Problem& p, const Options& o, const Signal& drawn,
                       std::int64_t first_signal, const std::vector<T>& filter) {
  check_problem(p);
  const std::int64_t size = p.batch * p.signal.size();
  check_values(p, static_cast<std::size_t>(size), filter.size());
  return convolve_gpu_with<T>(
      p, o, static_cast<std::size_t>(size),
      [&](DeviceBuffer<T>& x, cudaStream_t stream) {
        generate_samples_gpu(drawn, first_signal * p.signal.size(), size, x.data(), stream);
      },
      filter);
}

template <class T>
Result<T> convolve_range_gpu(const Problem& p, const Options& o, const std::vector<T>& window,
                             std::int64_t x0, const std::vector<T>& filter,
                             std::int64_t first_output, std::int64_t outputs) {
  check_problem(p);
  if (p.batch != 1 || p.is_2d())
    throw InputError("", "signal", "expected one 1D signal (batch 1) for a range of its output");
  if (!computes_ranges(o))
    throw Error("fftconv: a range of the output runs overlap-save or fused, not " +
                std::string(name(o.variant)));
  const std::int64_t bytes = sizeof(T);
  const std::int64_t step = range_step(p, o, static_cast<int>(bytes));
  const std::int64_t m = output_extent(p).cols;
  if (first_output < 0 || first_output % step != 0 || outputs < 0 || first_output + outputs > m ||
      (outputs % step != 0 && first_output + outputs != m))
    throw Error("fftconv: a range of the output must start at a multiple of " +
                std::to_string(step) + " outputs and end at one or at the output's end (" +
                std::to_string(m) + "), not [" + std::to_string(first_output) + ", " +
                std::to_string(first_output + outputs) + ")");
  const auto [begin, end] = range_window(p, o, static_cast<int>(bytes), first_output, outputs);
  const std::int64_t x_end = x0 + static_cast<std::int64_t>(window.size());
  if (x0 > begin || x_end < end)
    throw Error("fftconv: the window of samples [" + std::to_string(x0) + ", " +
                std::to_string(x_end) + ") does not hold the range's [" + std::to_string(begin) +
                ", " + std::to_string(end) + ")");
  if (static_cast<std::int64_t>(filter.size()) != p.filter.size())
    throw InputError("", "filter",
                     "expected " + std::to_string(p.filter.size()) + " filter values, got " +
                         std::to_string(filter.size()));
  Stream stream;
  Result<T> result;
  EventTimer h2d(stream.get()), setup(stream.get()), compute(stream.get()), d2h(stream.get());
  h2d.start();
  DeviceBuffer<T> x(window.size()), h(filter.size()), y(static_cast<std::size_t>(outputs));
  upload(x, window, stream.get());
  upload(h, filter, stream.get());
  h2d.stop();
  Convolver<T> convolver;
  convolver.keep_filter_spectra();
  // The first run makes the plans and the filter's spectrum, as convolve_gpu's does.
  setup.start();
  convolver.convolve_range(p, o, x.data(), x0, x_end, h.data(), first_output, outputs, y.data(),
                           stream.get());
  setup.stop();
  compute.start();
  convolver.convolve_range(p, o, x.data(), x0, x_end, h.data(), first_output, outputs, y.data(),
                           stream.get());
  compute.stop();
  d2h.start();
  result.output = download(y, stream.get());
  d2h.stop();
  result.variant = o.variant;
  result.timings.add(phase::setup, setup.seconds());
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

template <class T>
void convolve_streamed(const Problem& p, const Options& o, const std::vector<T>& filter,
                       const SignalReader<T>& read, const OutputWriter<T>& write,
                       std::int64_t piece, std::int64_t first_output, std::int64_t outputs) {
  Stream stream;
  Convolver<T> convolver;
  convolver.convolve_streamed(p, o, filter, read, write, stream.get(), piece, first_output,
                              outputs);
  stream.synchronize();
}

// The values are checked against the problem before any device memory is taken, and copied
// before the constructor returns, so the caller's vectors may go at once.
template <class T>
DeviceProblem<T>::DeviceProblem(const Problem& p, const std::vector<T>& signal,
                                const std::vector<T>& filter)
    : problem_(checked(p, signal.size(), filter.size())),
      signal_(signal.size()),
      filter_(filter.size()),
      output_(static_cast<std::size_t>(p.batch * output_extent(p).size())) {
  upload(signal_, signal, stream_);
  upload(filter_, filter, stream_);
  stream_.synchronize();
  // The filter is this object's and never changes: its spectrum is computed once per variant
  // and transform length, not at every convolution.
  convolver_.keep_filter_spectra();
}

template <class T>
Variant DeviceProblem<T>::convolve(const Options& o) {
  return convolver_.convolve(problem_, o, signal_.data(), filter_.data(), output_.data(),
                             stream_);
}

// Each option on a thread of its own, with its own buffers, Convolver and stream: what is slow in
// a first plan is compiling its kernels, which the driver keeps in CUDA's cache for every later
// plan of that shape. Whether the threads' compilations overlap is the driver's affair.
template <class T>
std::future<void> warm_up_async(const Problem& p, std::vector<Options> options) {
  const Problem problem = checked(p, static_cast<std::size_t>(p.batch * p.signal.size()),
                                  static_cast<std::size_t>(p.filters * p.filter.size()));
  const std::size_t signal = static_cast<std::size_t>(problem.batch * problem.signal.size());
  const std::size_t filter = static_cast<std::size_t>(problem.filters * problem.filter.size());
  const std::size_t output =
      static_cast<std::size_t>(problem.batch * output_extent(problem).size());
  // Each run's operands and output, about as much again for its transforms, and the caller's
  // own: where that does not fit, the variants make their plans in their own first convolution.
  const double bytes = static_cast<double>(sizeof(T) * (signal + filter + output));
  if (!fits_in_free_memory(bytes * (2.0 * static_cast<double>(options.size()) + 2.0)))
    options.clear();
  int device = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  const auto warm_one = [=](const Options& o) {
    try {
      PARASOL_CUDA(cudaSetDevice(device));
      Stream stream;
      DeviceBuffer<T> x(signal), h(filter), y(output);
      fill_bytes(x, 0, stream);
      fill_bytes(h, 0, stream);
      Convolver<T> convolver;
      convolver.convolve(problem, o, x.data(), h.data(), y.data(), stream);
      stream.synchronize();
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is lost: nothing later can run
    } catch (const Error&) {
      // A variant that cannot take the problem, or a plan or buffer the device has no memory
      // for beside the others: the caller's own convolution meets it and reports it.
    }
  };
  return std::async(std::launch::async, [warm_one, options = std::move(options)] {
    std::vector<std::future<void>> warming;
    for (const Options& o : options) warming.push_back(std::async(std::launch::async, warm_one, o));
    for (std::future<void>& w : warming) w.get();
  });
}

template <class T>
void DeviceProblem<T>::poison_output() {
  fill_bytes(output_, 0xFF, stream_);
}

template <class T>
std::vector<T> DeviceProblem<T>::download() const {
  return parasol::download(output_, stream_.get());
}

template <class T>
void DeviceProblem<T>::sample_outputs(const std::vector<std::int64_t>& outputs) {
  for (const std::int64_t o : outputs)
    if (o < 0 || static_cast<std::size_t>(o) >= output_.size())
      throw Error("fftconv: output sample " + std::to_string(o) + " lies outside the " +
                  std::to_string(output_.size()) + " outputs");
  samples_ = DeviceBuffer<std::int64_t>(outputs.size());
  upload(samples_, outputs, stream_.get());
}

template <class T>
std::vector<T> DeviceProblem<T>::download_samples() const {
  return download_at(output_.data(), samples_.data(), static_cast<std::int64_t>(samples_.size()),
                     stream_.get());
}

template class Convolver<float>;
template class Convolver<double>;
template class DeviceProblem<float>;
template class DeviceProblem<double>;
template std::future<void> warm_up_async<float>(const Problem&, std::vector<Options>);
template std::future<void> warm_up_async<double>(const Problem&, std::vector<Options>);
template class HostConvolver<float>;
template class HostConvolver<double>;
template Variant convolve_once(const Problem&, const Options&, const float*, std::size_t,
                               const float*, std::size_t, float*);
template Variant convolve_once(const Problem&, const Options&, const double*, std::size_t,
                               const double*, std::size_t, double*);
template Result<float> convolve_gpu(const Problem&, const Options&, const std::vector<float>&,
                                    const std::vector<float>&);
template Result<float> convolve_gpu(const Problem&, const Options&, const Signal&, std::int64_t,
                                    const std::vector<float>&);
template Result<double> convolve_gpu(const Problem&, const Options&, const Signal&, std::int64_t,
                                     const std::vector<double>&);
template Result<double> convolve_gpu(const Problem&, const Options&, const std::vector<double>&,
                                     const std::vector<double>&);
template Result<float> convolve_range_gpu(const Problem&, const Options&,
                                           const std::vector<float>&, std::int64_t,
                                           const std::vector<float>&, std::int64_t, std::int64_t);
template Result<double> convolve_range_gpu(const Problem&, const Options&,
                                           const std::vector<double>&, std::int64_t,
                                           const std::vector<double>&, std::int64_t,
                                           std::int64_t);
template void convolve_streamed(const Problem&, const Options&, const std::vector<float>&,
                                const SignalReader<float>&, const OutputWriter<float>&,
                                std::int64_t, std::int64_t, std::int64_t);
template void convolve_streamed(const Problem&, const Options&, const std::vector<double>&,
                                const SignalReader<double>&, const OutputWriter<double>&,
                                std::int64_t, std::int64_t, std::int64_t);

}  // namespace parasol::fftconv
