// Device-side launch helpers: grid-stride loops over elements and over blocks.
#pragma once

#include <cstdint>

namespace parasol {

// The indices of a grid-stride loop: each thread starts at its place in the grid and steps by the
// grid's size; 64-bit so arrays past 2^31 elements are safe.
//
// grid_stride(n): for (auto i : grid_stride(n)) visits every index in [0, n) once across the
// whole grid, whatever the grid's size.
//
// block_uniform_stride(n): the same indices, but every thread of a block takes the same number of
// turns, so a body that synchronises the block (shuffles, shared memory) is reached by all of its
// threads: the block's last turn may give indices at or past n, which the body must test (i < n)
// before using. A turn is taken while the block's first index (the thread's own less its place)
// is below n.
template <bool BlockUniform>
struct Stride {
  std::int64_t begin_, end_, step_;
  struct Iterator {
    std::int64_t i, step;
    __device__ std::int64_t operator*() const { return i; }
    __device__ Iterator& operator++() {
      i += step;
      return *this;
    }
    __device__ bool operator!=(const Iterator& end) const {
      return (BlockUniform ? i - threadIdx.x : i) < end.i;
    }
  };
  __device__ Iterator begin() const { return {begin_, step_}; }
  __device__ Iterator end() const { return {end_, step_}; }
};

template <bool BlockUniform>
__device__ inline Stride<BlockUniform> stride_over(std::int64_t n) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  return {first, n, static_cast<std::int64_t>(gridDim.x) * blockDim.x};
}
__device__ inline Stride<false> grid_stride(std::int64_t n) { return stride_over<false>(n); }
__device__ inline Stride<true> block_uniform_stride(std::int64_t n) { return stride_over<true>(n); }

// Block indices in one grid dimension: the grid may hold fewer blocks than the extent needs
// (y and z are capped at 65535), so each block takes every gridDim-th block index.
struct BlockStride {
  unsigned first, count, step;
  struct Iterator {
    std::int64_t b;
    unsigned step;
    __device__ std::int64_t operator*() const { return b; }
    __device__ Iterator& operator++() {
      b += step;
      return *this;
    }
    __device__ bool operator!=(const Iterator& end) const { return b < end.b; }
  };
  __device__ Iterator begin() const { return {first, step}; }
  __device__ Iterator end() const { return {count, step}; }
};

// Block indices along x, where the grid may also hold fewer blocks than `count` (its limit is
// 2^31 - 1): each block takes every gridDim.x-th of [0, count), in 64 bits.
struct BlockStrideX {
  std::int64_t count;
  struct Iterator {
    std::int64_t b;
    __device__ std::int64_t operator*() const { return b; }
    __device__ Iterator& operator++() {
      b += gridDim.x;
      return *this;
    }
    __device__ bool operator!=(const Iterator& end) const { return b < end.b; }
  };
  __device__ Iterator begin() const { return {blockIdx.x}; }
  __device__ Iterator end() const { return {count}; }
};

__device__ inline BlockStrideX block_stride_x(std::int64_t count) { return {count}; }
__device__ inline BlockStride block_stride_y(std::int64_t blocks) {
  return {blockIdx.y, static_cast<unsigned>(blocks), gridDim.y};
}
__device__ inline BlockStride block_stride_z(std::int64_t blocks) {
  return {blockIdx.z, static_cast<unsigned>(blocks), gridDim.z};
}

}  // namespace parasol
