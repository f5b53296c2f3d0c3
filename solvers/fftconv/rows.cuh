// How fftconv's copy kernels walk rows (signals, filters, blocks, image and volume rows): rows by
// gridDim.y with a stride, a row's columns by x, so there is no division per element and any
// count fits the grid limits. For fftconv.cu and volume.cu alike.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/launch.hpp"

namespace parasol::fftconv::rows {

constexpr int kThreads = 256;

// About sixteen blocks per multiprocessor, each looping over rows: a block per short row would
// spend more time being scheduled than copying (70 thousand blocks of one 1 KiB row each ran at
// a fifth of the bandwidth on a 132-SM H100). The count is the device's, asked once.
inline dim3 rows_grid(std::int64_t cols, std::int64_t rows, int threads = kThreads) {
  static const std::int64_t kBlocks = std::int64_t{multiprocessor_count()} * 16;
  const std::int64_t x = std::clamp<std::int64_t>(ceil_div(cols, threads), 1, kBlocks);
  const std::int64_t y = std::clamp<std::int64_t>(kBlocks / x, 1, std::min(rows, kMaxGridY));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

// A row's columns kUnroll at a time a thread, blockDim.x apart, every load of a turn issued
// before its stores: with one value in flight a thread, the pad and crop copies ran at half the
// bandwidth of a flat loop (129 against 66 us for a 4200^2 pad on an H100).
constexpr int kUnroll = 4;

// The grid for a kernel that takes a row's columns kUnroll at a time (unrolled_columns).
inline dim3 unrolled_rows_grid(std::int64_t cols, std::int64_t rows) {
  return rows_grid(ceil_div(cols, kUnroll), rows);
}

// for (x0 = start; x0 < cols; x0 += span), then columns x0 + u * blockDim.x, u < kUnroll.
struct UnrolledColumns {
  std::int64_t start, span;
};
__device__ inline UnrolledColumns unrolled_columns() {
  return {std::int64_t(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x,
          std::int64_t(gridDim.x) * blockDim.x * kUnroll};
}

// The u-th column of a turn starting at x0.
__device__ inline std::int64_t unrolled_column(std::int64_t x0, int u) {
  return x0 + std::int64_t(u) * blockDim.x;
}

// row[x] = load(x) for every column x < cols of this thread's turns (unrolled_columns), the
// kUnroll loads of a turn issued before its stores: the one loop of every pad and crop kernel.
template <class Out, class Load>
__device__ inline void copy_row(Out* __restrict__ row, std::int64_t cols, UnrolledColumns c,
                                Load&& load) {
  for (std::int64_t x0 = c.start; x0 < cols; x0 += c.span) {
    Out v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t x = unrolled_column(x0, u);
      if (x < cols) v[u] = load(x);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t x = unrolled_column(x0, u);
      if (x < cols) row[x] = v[u];
    }
  }
}

}  // namespace parasol::fftconv::rows
