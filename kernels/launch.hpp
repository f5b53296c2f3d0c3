// Launch geometry on the host: grids that cover an extent with a block shape, within the
// device's grid limits, and occupancy queries.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "kernels/error.hpp"
#include "kernels/kernel_log.hpp"
#include "kernels/shape.hpp"

namespace parasol {

// Grid dimensions y and z are limited to 65535 blocks; x to 2^31 - 1.
inline constexpr std::int64_t kMaxGridY = 65535;
inline constexpr std::int64_t kMaxGridZ = 65535;
inline constexpr std::int64_t kMaxGridX = 2147483647;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks needed to cover n points in each direction, before any limit.
struct BlockCount {
  std::int64_t x = 1, y = 1, z = 1;
};
inline BlockCount blocks_to_cover(std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                  const Shape& block) {
  return {ceil_div(nx, block.x), ceil_div(ny, block.y), ceil_div(nz, block.z)};
}

// The grid launched for a block count: capped at the device limits. Kernels launched with it
// loop over blocks with a stride of gridDim (see launch.cuh), so no extent is out of reach.
inline dim3 grid_for(const BlockCount& blocks) {
  return dim3(static_cast<unsigned>(std::min(blocks.x, kMaxGridX)),
              static_cast<unsigned>(std::min(blocks.y, kMaxGridY)),
              static_cast<unsigned>(std::min(blocks.z, kMaxGridZ)));
}

// A 1D grid for a grid-stride loop over n elements: enough blocks to fill the device
// `waves` times over, never more than the elements need.
int grid_stride_blocks(std::int64_t n, int block_threads, int waves = 4);

// Resident blocks of `kernel` per multiprocessor at this block size and dynamic shared memory.
inline int max_active_blocks(const void* kernel, int block_threads, std::size_t dynamic_smem = 0) {
  int blocks = 0;
  PARASOL_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, dynamic_smem));
  return blocks;
}

// Dynamic shared memory (bytes) that holds `kernel` to at most `blocks` resident blocks a
// multiprocessor at this block size: 0 where it holds no more than that already, or where the
// padding would pass the default per-block limit (48 KiB). For a kernel whose speed falls as more
// blocks share a cache the occupancy calculator does not count, such as coulomb's constant-memory
// gather (docs/journal/2026-11.md). The padding is allocated, never read.
std::size_t smem_to_cap_blocks(const void* kernel, int block_threads, int blocks);

}  // namespace parasol
