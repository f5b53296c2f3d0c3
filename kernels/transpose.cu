#include "kernels/transpose.hpp"

#include "kernels/error.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"

namespace parasol {
namespace {

constexpr int kTile = 32;  // a tile of 32 x 32 values, read and written a warp's row at a time
constexpr int kRowsPerPass = 8;  // a block of 32 x 8 threads, each moving 4 values of a tile

// Each block takes tiles in turn (grid-stride over tiles, so any extent fits the grid): reads a
// tile's rows coalesced into shared memory, writes its columns coalesced as rows of `out`. The
// tile's row is padded by one so a column is read without bank conflicts.
template <class T>
__global__ void transpose_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t rows,
                                 std::int64_t cols, std::int64_t tile_cols, std::int64_t tiles) {
  __shared__ T tile[kTile][kTile + 1];
  for (const std::int64_t t : block_stride_x(tiles)) {
    const std::int64_t r0 = (t / tile_cols) * kTile, c0 = (t % tile_cols) * kTile;
    for (int y = threadIdx.y; y < kTile; y += kRowsPerPass) {
      const std::int64_t r = r0 + y, c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[y][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < kTile; y += kRowsPerPass) {
      const std::int64_t c = c0 + y, r = r0 + threadIdx.x;
      if (r < rows && c < cols) out[c * rows + r] = tile[threadIdx.x][y];
    }
    __syncthreads();
  }
}

}  // namespace

template <class T>
void transpose(const T* in, T* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const std::int64_t tile_rows = (rows + kTile - 1) / kTile, tile_cols = (cols + kTile - 1) / kTile;
  const std::int64_t tiles = tile_rows * tile_cols;
  const dim3 block(kTile, kRowsPerPass);
  // A block per tile, up to enough to fill the device four times over.
  const int blocks = grid_stride_blocks(tiles * kTile * kRowsPerPass, kTile * kRowsPerPass);
  PARASOL_NOTE_LAUNCH(blocks, block, 0, transpose_kernel<T>);
  transpose_kernel<T><<<blocks, block, 0, stream>>>(in, out, rows, cols, tile_cols, tiles);
  PARASOL_CHECK_LAUNCH(stream);
}

template void transpose(const float*, float*, std::int64_t, std::int64_t, cudaStream_t);
template void transpose(const double*, double*, std::int64_t, std::int64_t, cudaStream_t);

}  // namespace parasol
