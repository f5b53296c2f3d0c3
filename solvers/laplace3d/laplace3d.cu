// laplace3d GPU kernels, their launchers and the GPU solver.
//
// All kernels update interior points only: boundary values are written into both copies of the
// field once, before iterating, and never change. Every kernel adds the six neighbours in the
// gold solver's order (x-, x+, y-, y+, z-, z+) and then scales, so float results agree with the
// float gold bit for bit. Indices are 64-bit and every grid dimension is walked with a block
// stride, so neither 2^31 points nor the 65535-block limit in y and z is a surprise.
#include <algorithm>
#include <chrono>
#include <optional>
#include <limits>

#include "kernels/nvtx.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/stream.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/reduce.cuh"
#include "solvers/laplace3d/initial.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "solvers/laplace3d/stencil.cuh"
#include "solvers/laplace3d/temporal.cuh"
#include "solvers/laplace3d/zreg_vector.cuh"

namespace parasol::laplace3d {
namespace {

// The Oxford course kernel: a 2D block covers an xy tile and each thread marches up the z
// column, reading all six neighbours from memory at every step.
template <int BX, int BY, class T>
__global__ void __launch_bounds__(BX* BY)
    zmarch_kernel(Strides n, std::int64_t blocks_y, const T* __restrict__ u, T* __restrict__ u_next) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BX + threadIdx.x;
  if (i < 1 || i >= n.nx - 1) return;
  for (std::int64_t by : block_stride_y(blocks_y)) {
    const std::int64_t j = by * BY + threadIdx.y;
    if (j < 1 || j >= n.ny - 1) continue;
    for (std::int64_t k = 1; k < n.nz - 1; ++k) {
      const std::int64_t c = i + n.sy * j + n.sz * k;
      u_next[c] = mean_of_neighbours(u[c - 1], u[c + 1], u[c - n.sy], u[c + n.sy], u[c - n.sz],
                                     u[c + n.sz]);
    }
  }
}

// One point per thread of a 3D block.
template <int BX, int BY, int BZ, class T>
__global__ void __launch_bounds__(BX* BY* BZ)
    block3d_kernel(Strides n, std::int64_t blocks_y, std::int64_t blocks_z, const T* __restrict__ u,
                   T* __restrict__ u_next) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BX + threadIdx.x;
  if (i < 1 || i >= n.nx - 1) return;
  for (std::int64_t bz : block_stride_z(blocks_z)) {
    const std::int64_t k = bz * BZ + threadIdx.z;
    if (k < 1 || k >= n.nz - 1) continue;
    for (std::int64_t by : block_stride_y(blocks_y)) {
      const std::int64_t j = by * BY + threadIdx.y;
      if (j < 1 || j >= n.ny - 1) continue;
      const std::int64_t c = i + n.sy * j + n.sz * k;
      u_next[c] = mean_of_neighbours(u[c - 1], u[c + 1], u[c - n.sy], u[c + n.sy], u[c - n.sz],
                                     u[c + n.sz]);
    }
  }
}

// z-marching with the z-neighbours in registers: each thread keeps its columns' u[k-1] and u[k]
// from the previous step, so it loads only u[k+1] from memory, and every value is read from
// memory once per sweep. Three more things keep the loads few and the memory busy:
// - each thread owns kZregRows consecutive rows, so y-neighbours inside its rows come from its
//   own registers and only the rows above and below its own are loaded;
// - x-neighbours come from the neighbouring lanes by warp shuffles (a warp spans 32 points of
//   one row), only the lanes at the warp's ends loading theirs;
// - the threads on the x boundary rewrite their unchanged values, so each row is written in
//   whole 32-byte sectors and the L2 never reads a sector back to merge a partial write.
// The z range is cut into chunks (blockIdx.z) so that small grids still fill the device.
constexpr int kZregRows = 2;

template <int BX, int BY, class T>
__global__ void __launch_bounds__(BX* BY)
    zreg_kernel(Strides n, std::int64_t blocks_y, std::int64_t z_chunk, std::int64_t chunks,
                const T* __restrict__ u, T* __restrict__ u_next) {
  static_assert(BX % 32 == 0, "zreg's x-neighbour shuffles need whole warps along x");
  constexpr int R = kZregRows;
  constexpr unsigned kAll = 0xffffffffu;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BX + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const std::int64_t sy = n.sy, sz = n.sz;
  // Every lane takes part in the shuffles, so none returns early: lanes past the grid hold zeros.
  const bool in_x = i < n.nx;
  const bool interior_x = i >= 1 && i < n.nx - 1;
  const bool boundary_x = i == 0 || i == n.nx - 1;
  for (std::int64_t chunk : block_stride_z(chunks)) {
    const std::int64_t k_begin = 1 + chunk * z_chunk;
    const std::int64_t k_end = min(k_begin + z_chunk, n.nz - 1);
    for (std::int64_t by : block_stride_y(blocks_y)) {
      const std::int64_t j0 = (by * BY + threadIdx.y) * R;
      bool loads[R], interior_y[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        loads[r] = in_x && j0 + r < n.ny;
        interior_y[r] = j0 + r >= 1 && j0 + r < n.ny - 1;
      }
      const std::int64_t c = i + sy * j0 + sz * k_begin;
      const T* p = u + c;
      T* q = u_next + c;
      T below[R], centre[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        below[r] = loads[r] ? p[r * sy - sz] : T(0);
        centre[r] = loads[r] ? p[r * sy] : T(0);
      }
      for (std::int64_t k = k_begin; k < k_end; ++k, p += sz, q += sz) {
        T above[R];
#pragma unroll
        for (int r = 0; r < R; ++r) above[r] = loads[r] ? p[r * sy + sz] : T(0);
        const T y_before = interior_x && interior_y[0] ? p[-sy] : T(0);
        const T y_after = interior_x && interior_y[R - 1] ? p[R * sy] : T(0);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          T xm = __shfl_up_sync(kAll, centre[r], 1);
          T xp = __shfl_down_sync(kAll, centre[r], 1);
          const bool update = interior_x && interior_y[r];
          if (lane == 0 && update) xm = p[r * sy - 1];
          if (lane == 31 && update) xp = p[r * sy + 1];
          const T ym = r == 0 ? y_before : centre[r - 1];
          const T yp = r == R - 1 ? y_after : centre[r + 1];
          if (update)
            q[r * sy] = mean_of_neighbours(xm, xp, ym, yp, below[r], above[r]);
          else if (boundary_x && interior_y[r])
            q[r * sy] = centre[r];
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          below[r] = centre[r];
          centre[r] = above[r];
        }
      }
    }
  }
}

// 2.5D tiling: the current xy plane of a BX x (kSmemRows * BY) tile, with its one-point halo,
// in shared memory; the planes below and above in registers; marching through z. Every step
// ends at a barrier, so a value loaded in a step must not be needed in it: each thread loads
// its points (and the threads at the tile's edges the halo) two planes ahead, writes the plane
// above into the other buffer, and computes from the current one.
constexpr int kSmemRows = 2;

template <int BX, int BY, class T>
__global__ void __launch_bounds__(BX* BY)
    smem_zreg_kernel(Strides n, std::int64_t blocks_y, std::int64_t z_chunk, std::int64_t chunks,
                     const T* __restrict__ u, T* __restrict__ u_next) {
  constexpr int R = kSmemRows, EY = BY * R;
  __shared__ T plane[2][EY + 2][BX + 2];  // [y + 1][x + 1]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BX + tx;
  // The halo point each edge thread owns for row r: left/right of its rows, below/above the tile.
  const int halo_dx = tx == 0 ? -1 : (tx == BX - 1 ? 1 : 0);
  const int halo_dy = ty == 0 ? -1 : (ty == BY - 1 ? 1 : 0);
  for (std::int64_t chunk : block_stride_z(chunks)) {
    const std::int64_t k_begin = 1 + chunk * z_chunk;
    const std::int64_t k_end = min(k_begin + z_chunk, n.nz - 1);
    for (std::int64_t by : block_stride_y(blocks_y)) {
      const std::int64_t j0 = by * EY + ty * R;  // this thread's first row
      const auto value = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return x >= 0 && x < n.nx && y >= 0 && y < n.ny && z < n.nz ? u[x + n.sy * y + n.sz * z]
                                                                    : T(0);
      };
      struct Plane {
        T own[R], side[R], end;  // own points; the x halo beside them; the y halo past the tile
      };
      const auto fetch = [&](std::int64_t z) {
        Plane p;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          p.own[r] = value(i, j0 + r, z);
          p.side[r] = halo_dx != 0 ? value(i + halo_dx, j0 + r, z) : T(0);
        }
        p.end = halo_dy != 0 ? value(i, halo_dy < 0 ? j0 - 1 : j0 + R, z) : T(0);
        return p;
      };
      const auto stage = [&](int b, const Plane& p) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          plane[b][ty * R + r + 1][tx + 1] = p.own[r];
          if (halo_dx != 0) plane[b][ty * R + r + 1][tx + 1 + halo_dx] = p.side[r];
        }
        if (halo_dy < 0) plane[b][0][tx + 1] = p.end;
        if (halo_dy > 0) plane[b][EY + 1][tx + 1] = p.end;
      };
      T below[R];
#pragma unroll
      for (int r = 0; r < R; ++r) below[r] = value(i, j0 + r, k_begin - 1);
      Plane centre = fetch(k_begin), above = fetch(k_begin + 1);
      int cur = 0;
      __syncthreads();  // the previous tile's last reads are done
      stage(cur, centre);
      __syncthreads();
      for (std::int64_t k = k_begin; k < k_end; ++k) {
        const Plane ahead = fetch(k + 2);
        stage(cur ^ 1, above);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int y = ty * R + r + 1;
          const std::int64_t j = j0 + r;
          if (i >= 1 && i < n.nx - 1 && j >= 1 && j < n.ny - 1)
            u_next[i + n.sy * j + n.sz * k] = mean_of_neighbours(
                plane[cur][y][tx], plane[cur][y][tx + 2], plane[cur][y - 1][tx + 1],
                plane[cur][y + 1][tx + 1], below[r], above.own[r]);
          below[r] = centre.own[r];
        }
        centre = above;
        above = ahead;
        __syncthreads();
        cur ^= 1;
      }
    }
  }
}

// Planes [first_plane, first_plane + planes) of the starting field, made where they are used:
// the same values initial_planes() makes on the host (initial.hpp), with no upload.
template <class T>
__global__ void start_kernel(Start s, std::int64_t first_plane, std::int64_t points, T* u) {
  const std::int64_t nx = s.grid.nx, plane = s.grid.nx * s.grid.ny;
  for (std::int64_t c : grid_stride(points)) {
    const std::int64_t k = first_plane + c / plane, j = (c % plane) / nx, i = c % nx;
    u[c] = static_cast<T>(start_value(s, i, j, k));
  }
}

template <class T>
__global__ void poison_interior_kernel(Strides n, T* u) {
  for (std::int64_t c : grid_stride(n.nx * n.ny * n.nz)) {
    const std::int64_t i = c % n.nx, j = (c / n.nx) % n.ny, k = c / n.sz;
    if (i > 0 && i < n.nx - 1 && j > 0 && j < n.ny - 1 && k > 0 && k < n.nz - 1)
      u[c] = std::numeric_limits<T>::quiet_NaN();
  }
}

// Chunks of the z range for zreg: enough blocks to fill the device about eight times over (64
// blocks per multiprocessor), each chunk between 16 planes (it re-reads the two planes around
// it) and 64 (longer chunks ran slower). 32 to 64 planes won at 512^3 and 1024^3 on a 132-SM
// H100; see docs/journal/2026-11.md.
std::int64_t zreg_chunk_length(const Extent3& n, std::int64_t xy_blocks, int sms) {
  constexpr std::int64_t kMinChunk = 16, kMaxChunk = 64;
  const std::int64_t kTargetBlocks = std::int64_t{sms} * 8 * 8;
  const std::int64_t interior = n.nz - 2;
  const std::int64_t chunks = std::max<std::int64_t>(1, kTargetBlocks / std::max<std::int64_t>(xy_blocks, 1));
  const std::int64_t length = std::clamp(ceil_div(interior, chunks), kMinChunk, kMaxChunk);
  return std::min(length, interior);
}

// Chunks of the z range for temporal. A block fills a multiprocessor (one resident per SM), so
// the count of blocks decides how full the last wave is; and each chunk re-reads kTimeSteps + 1
// planes below it to fill its pipeline. Picks the chunk count with the least of both wastes for
// the device's `sms` multiprocessors, chunks at least 32 planes long.
std::int64_t temporal_chunk_length(std::int64_t interior, std::int64_t tiles, int sms) {
  const std::int64_t kSms = sms;
  constexpr std::int64_t kMinChunk = 32;
  std::int64_t best_chunks = 1;
  double best_cost = 1e300;
  for (std::int64_t chunks = 1; chunks <= std::max<std::int64_t>(1, interior / kMinChunk); ++chunks) {
    const std::int64_t blocks = tiles * chunks;
    const double waves = static_cast<double>(ceil_div(blocks, kSms)) * kSms / blocks;
    const double refill = 1.0 + static_cast<double>((kTimeSteps + 1) * chunks) / interior;
    if (waves * refill < best_cost - 1e-9) {
      best_cost = waves * refill;
      best_chunks = chunks;
    }
  }
  return ceil_div(interior, best_chunks);
}

// The grid of a z-marching kernel (zreg, smem-zreg) whose blocks each cover `tile`
// points of a plane, and the planes each block marches through.
struct ZMarch {
  BlockCount blocks;
  std::int64_t z_chunk;
};

ZMarch z_march(const Extent3& grid, const Shape& tile, int sms) {
  BlockCount blocks = blocks_to_cover(grid.nx, grid.ny, 1, tile);
  const std::int64_t z_chunk = zreg_chunk_length(grid, blocks.x * blocks.y, sms);
  blocks.z = ceil_div(grid.nz - 2, z_chunk);
  return {blocks, z_chunk};
}

// Interior planes [begin, end) of a grid that a temporal pass writes.
struct ZWindow {
  std::int64_t begin, end;
};

// One sweep (four for temporal) of `grid`'s interior from d_u into d_u_next, on a device of
// `sms` multiprocessors. temporal writes only the planes of `window` (all interior planes when
// it is empty), each of them exact.
template <class T>
void launch_sweep(Variant variant, const Shape& block, const Extent3& grid, const T* d_u, T* d_u_next,
                  cudaStream_t stream, int sms, ZWindow window = {0, 0}) {
  const Strides n = strides_of(grid);
  switch (variant) {
    case Variant::zmarch:
      dispatch_shape("laplace3d/zmarch", MarchShapes{}, block, [&](auto b) {
        using B = decltype(b);
        const BlockCount blocks = blocks_to_cover(grid.nx, grid.ny, 1, B::shape());
        PARASOL_NOTE_LAUNCH(grid_for(blocks), dim3(B::x, B::y), 0, zmarch_kernel<B::x, B::y, T>);
        zmarch_kernel<B::x, B::y><<<grid_for(blocks), dim3(B::x, B::y), 0, stream>>>(
            n, blocks.y, d_u, d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    case Variant::block3d:
      dispatch_shape("laplace3d/block3d", Block3dShapes{}, block, [&](auto b) {
        using B = decltype(b);
        const BlockCount blocks = blocks_to_cover(grid.nx, grid.ny, grid.nz, B::shape());
        PARASOL_NOTE_LAUNCH(grid_for(blocks), dim3(B::x, B::y, B::z), 0,
                            block3d_kernel<B::x, B::y, B::z, T>);
        block3d_kernel<B::x, B::y, B::z><<<grid_for(blocks), dim3(B::x, B::y, B::z), 0, stream>>>(
            n, blocks.y, blocks.z, d_u, d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    case Variant::zreg:
      dispatch_shape("laplace3d/zreg", MarchShapes{}, block, [&](auto b) {
        using B = decltype(b);
        // Each thread covers kZregRows rows, so a block covers a B::x by kZregRows * B::y tile.
        const ZMarch m = z_march(grid, Shape{B::x, kZregRows * B::y, 1}, sms);
        PARASOL_NOTE_LAUNCH(grid_for(m.blocks), dim3(B::x, B::y), 0, zreg_kernel<B::x, B::y, T>);
        zreg_kernel<B::x, B::y><<<grid_for(m.blocks), dim3(B::x, B::y), 0, stream>>>(
            n, m.blocks.y, m.z_chunk, m.blocks.z, d_u, d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    case Variant::zreg_vector:
      if (grid.nx % Vector16<T>::size != 0) {
        launch_sweep(Variant::zreg, block, grid, d_u, d_u_next, stream, sms);
        return;
      }
      dispatch_shape("laplace3d/zreg-vec", MarchShapes{}, block, [&](auto b) {
        using B = decltype(b);
        constexpr int W = Vector16<T>::size;
        const Shape tile{B::x * W, kVectorRows * B::y, 1};
        BlockCount blocks = blocks_to_cover(grid.nx, grid.ny, 1, tile);
        blocks.z = ceil_div(grid.nz - 2, kVectorChunk);
        PARASOL_NOTE_LAUNCH(grid_for(blocks), dim3(B::x, B::y), 0, zreg_vector_kernel<B::x, B::y, T>);
        zreg_vector_kernel<B::x, B::y><<<grid_for(blocks), dim3(B::x, B::y), 0, stream>>>(
            n, blocks.y, blocks.z, d_u, d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    case Variant::smem_zreg:
      dispatch_shape("laplace3d/smem-zreg", SmemShapes{}, block, [&](auto b) {
        using B = decltype(b);
        const ZMarch m = z_march(grid, Shape{B::x, kSmemRows * B::y, 1}, sms);
        PARASOL_NOTE_LAUNCH(grid_for(m.blocks), dim3(B::x, B::y), 0, smem_zreg_kernel<B::x, B::y, T>);
        smem_zreg_kernel<B::x, B::y><<<grid_for(m.blocks), dim3(B::x, B::y), 0, stream>>>(
            n, m.blocks.y, m.z_chunk, m.blocks.z, d_u, d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
    case Variant::temporal:
      dispatch_shape("laplace3d/temporal", TemporalShapes{}, block, [&](auto b) {
        using B = decltype(b);
        constexpr std::int64_t out_x = B::x - 2 * kTimeSteps;
        constexpr std::int64_t out_y = B::y * kTemporalRows<T> - 2 * kTimeSteps;
        // Tiles cover the interior points 1 .. n - 2 with their written parts.
        const std::int64_t tiles_x = ceil_div(grid.nx - 1, out_x);
        const std::int64_t tiles_y = ceil_div(grid.ny - 1, out_y);
        const ZWindow planes = window.begin < window.end ? window : ZWindow{1, grid.nz - 1};
        const std::int64_t z_chunk =
            temporal_chunk_length(planes.end - planes.begin, tiles_x * tiles_y, sms);
        const std::int64_t chunks = ceil_div(planes.end - planes.begin, z_chunk);
        constexpr std::size_t shared = temporal_shared_bytes<B::x, B::y, T>();
        PARASOL_CUDA(cudaFuncSetAttribute(temporal_kernel<B::x, B::y, T>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shared)));
        PARASOL_NOTE_LAUNCH(grid_for({tiles_x, tiles_y, chunks}), dim3(B::x, B::y), shared,
                            temporal_kernel<B::x, B::y, T>);
        temporal_kernel<B::x, B::y><<<grid_for({tiles_x, tiles_y, chunks}), dim3(B::x, B::y),
                                      shared, stream>>>(n, tiles_x, tiles_y, planes.begin,
                                                        planes.end, z_chunk, chunks, d_u,
                                                        d_u_next);
        PARASOL_CHECK_LAUNCH(stream);
      });
      return;
  }
  throw Error("laplace3d: unknown variant");
}

}  // namespace

template <class T>
DeviceGrid<T>::DeviceGrid(const Extent3& grid, const std::vector<T>& initial, cudaStream_t stream)
    : grid_(grid),
      stream_(stream),
      multiprocessors_(multiprocessor_count()),
      guard_(temporal_guard_points(grid.nx)),
      current_(static_cast<std::size_t>(grid.points() + 2 * guard_)),
      previous_(static_cast<std::size_t>(grid.points() + 2 * guard_)) {
  if (initial.size() != static_cast<std::size_t>(grid.points()))
    throw Error("laplace3d: initial field has " + std::to_string(initial.size()) +
                " points, the grid " + std::to_string(grid.points()));
  // Guard cells zeroed, so that no kernel ever reads memory nothing wrote. The field between
  // them is written by the copies below.
  const std::size_t guard_bytes = static_cast<std::size_t>(guard_) * sizeof(T);
  for (DeviceBuffer<T>* copy : {&current_, &previous_}) {
    PARASOL_CUDA(cudaMemsetAsync(copy->data(), 0, guard_bytes, stream_));
    PARASOL_CUDA(cudaMemsetAsync(field(*copy) + grid.points(), 0, guard_bytes, stream_));
  }
  // Both copies start equal, so the boundary is in place whichever copy a sweep writes.
  upload(current_, static_cast<std::size_t>(guard_), initial.data(), initial.size(), stream_);
  copy_on_device(field(previous_), field(current_), initial.size(), stream_);
}

template <class T>
DeviceGrid<T>::DeviceGrid(const Params& p, std::int64_t first_plane, std::int64_t planes,
                          cudaStream_t stream)
    : grid_{p.grid.nx, p.grid.ny, planes},
      stream_(stream),
      multiprocessors_(multiprocessor_count()),
      guard_(temporal_guard_points(p.grid.nx)),
      current_(static_cast<std::size_t>(grid_.points() + 2 * guard_)),
      previous_(static_cast<std::size_t>(grid_.points() + 2 * guard_)) {
  const std::size_t guard_bytes = static_cast<std::size_t>(guard_) * sizeof(T);
  for (DeviceBuffer<T>* copy : {&current_, &previous_}) {
    PARASOL_CUDA(cudaMemsetAsync(copy->data(), 0, guard_bytes, stream_));
    PARASOL_CUDA(cudaMemsetAsync(field(*copy) + grid_.points(), 0, guard_bytes, stream_));
  }
  constexpr int kThreads = 256;
  PARASOL_NOTE_LAUNCH(grid_stride_blocks(grid_.points(), kThreads), kThreads, 0, start_kernel<T>);
  start_kernel<<<grid_stride_blocks(grid_.points(), kThreads), kThreads, 0, stream_>>>(
      start_of(p), first_plane, grid_.points(), field(current_));
  PARASOL_CHECK_LAUNCH(stream_);
  copy_on_device(field(previous_), field(current_), static_cast<std::size_t>(grid_.points()),
                 stream_);
}

template <class T>
void DeviceGrid<T>::sweep(Variant variant, const Shape& block, std::int64_t iterations) {
  PARASOL_NVTX_RANGE("laplace3d sweep");
  const auto one_launch = [&](Variant v, const Shape& b) {
    std::swap(current_, previous_);
    launch_sweep(v, b, grid_, field(previous_), field(current_), stream_, multiprocessors_);
  };
  if (variant != Variant::temporal) {
    for (std::int64_t it = 0; it < iterations; ++it) one_launch(variant, block);
    return;
  }
  for (std::int64_t pass = 0; pass < iterations / kTimeSteps; ++pass) one_launch(variant, block);
  // The rest by single zreg sweeps (at its default shape): the same sums, so the same bits.
  for (std::int64_t it = 0; it < iterations % kTimeSteps; ++it)
    one_launch(Variant::zreg, Params{}.block);
}

template <class T>
void DeviceGrid<T>::advance() {
  std::swap(current_, previous_);
}

template <class T>
void DeviceGrid<T>::sweep_planes(Variant variant, const Shape& block, std::int64_t first,
                                 std::int64_t last, cudaStream_t stream) {
  if (first < 1 || last > grid_.nz - 2 || first > last)
    throw Error("laplace3d: planes " + std::to_string(first) + " to " + std::to_string(last) +
                " are not interior planes of a grid of " + std::to_string(grid_.nz));
  // temporal's four sweeps read four planes past the range: it sweeps the whole grid, writing
  // only the range, so every plane it writes is exact.
  if (variant == Variant::temporal) {
    launch_sweep(variant, block, grid_, field(previous_), field(current_),
                 stream != nullptr ? stream : stream_, multiprocessors_, ZWindow{first, last + 1});
    return;
  }
  // The planes around the range are the view's boundary: read, never written. Every kernel
  // updates a view's interior with the sums it would make in the whole grid.
  const std::int64_t offset = (first - 1) * grid_.nx * grid_.ny;
  const Extent3 view{grid_.nx, grid_.ny, last - first + 3};
  launch_sweep(variant, block, view, field(previous_) + offset, field(current_) + offset,
               stream != nullptr ? stream : stream_, multiprocessors_);
}

template <class T>
T* DeviceGrid<T>::plane(std::int64_t k) {
  return field(current_) + k * grid_.nx * grid_.ny;
}

template <class T>
void DeviceGrid<T>::poison_next() {
  constexpr int kThreads = 256;
  PARASOL_NOTE_LAUNCH(grid_stride_blocks(grid_.points(), kThreads), kThreads, 0,
                      poison_interior_kernel<T>);
  poison_interior_kernel<<<grid_stride_blocks(grid_.points(), kThreads), kThreads, 0, stream_>>>(
      strides_of(grid_), field(previous_));
  PARASOL_CHECK_LAUNCH(stream_);
}

template <class T>
struct AbsChange {
  const T* a;
  const T* b;
  __device__ double operator()(std::int64_t i) const {
    return fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
  }
};

template <class T>
double DeviceGrid<T>::last_change() {
  return last_change(0, grid_.nz - 1);
}

template <class T>
double DeviceGrid<T>::last_change(std::int64_t first, std::int64_t last) {
  if (first > last) return 0;
  const std::int64_t plane = grid_.nx * grid_.ny, offset = first * plane;
  return reducer_.reduce((last - first + 1) * plane,
                         AbsChange<T>{field(current_) + offset, field(previous_) + offset}, Max{},
                         stream_);
}

template <class T>
std::vector<T> DeviceGrid<T>::download() const {
  return download_planes(0, grid_.nz);
}

template <class T>
std::vector<T> DeviceGrid<T>::download_planes(std::int64_t first, std::int64_t count) const {
  // Straight from device to pageable memory: through pinned staging halves and a host copy it
  // took 0.45 s for a 512^3 float field on an H100 against 0.31 s so (docs/journal/2026-11.md).
  const std::int64_t plane = grid_.nx * grid_.ny;
  std::vector<T> u(static_cast<std::size_t>(count * plane));
  parasol::download(current_, static_cast<std::size_t>(guard_ + first * plane), u.data(),
                    u.size(), stream_);
  return u;
}

template <class T>
Result<T> solve_gpu(const Params& p, const ProgressCallback& progress,
                    const Checkpoints<T>* checkpoints) {
  PARASOL_NVTX_RANGE("laplace3d solve_gpu");
  Result<T> result;
  result.grid = p.grid;
  Stream stream;
  const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;

  // The starting field is made on the device, not uploaded: host_to_device is its making (or,
  // continuing from a checkpoint, its upload).
  EventTimer h2d(stream);
  h2d.start();
  std::optional<DeviceGrid<T>> made;
  std::vector<T> start_field;  // a restart's, held until its upload is done
  if (from != nullptr) {
    start_field.assign(from->u, from->u + from->points);
    made.emplace(p.grid, start_field, stream);
    result.iterations = from->iterations;
    result.checks = from->checks;
    result.last_change = from->checks.last_change;
  } else {
    made.emplace(p, 0, p.grid.nz, stream);
  }
  DeviceGrid<T>& field = *made;
  h2d.stop();
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  start_field = {};
  result.timings.add(phase::host_to_device, h2d.seconds());

  EventTimer compute(stream);
  compute.start();
  const auto start = std::chrono::steady_clock::now();
  const bool checking = p.tolerance > 0 || progress;
  const auto check = [&] {
    result.last_change = field.last_change();
    result.checks.record(result.iterations, result.last_change);
    result.converged = p.tolerance > 0 && result.last_change < p.tolerance;
    if (progress) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      progress({result.iterations, p.max_iterations, result.last_change, elapsed.count()});
    }
  };
  std::vector<T> saved;  // a checkpoint's copy of the field
  // Sweep in batches up to the next check or safe point, so the host waits only when it must.
  while (result.iterations < p.max_iterations) {
    const std::int64_t end = next_batch_end(p, checking, checkpoints, result.iterations);
    field.sweep(p.variant, p.block, end - result.iterations);
    result.iterations = end;
    const bool periodic = checking && end % p.check_every == 0;
    if (periodic) check();
    if (result.converged) break;
    if (at_safe_point(checkpoints, p, end, [&] {
          saved = field.download();
          return State<T>{end, saved.data(), p.grid.points(), result.checks};
        }))
      break;
    if (end == p.max_iterations && !periodic) check();
  }
  compute.stop();
  result.timings.add(phase::compute, compute.seconds());

  EventTimer d2h(stream);
  d2h.start();
  result.u = field.download();
  d2h.stop();
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

template class DeviceGrid<float>;
template class DeviceGrid<double>;
template Result<float> solve_gpu<float>(const Params&, const ProgressCallback&,
                                        const Checkpoints<float>*);
template Result<double> solve_gpu<double>(const Params&, const ProgressCallback&,
                                          const Checkpoints<double>*);

}  // namespace parasol::laplace3d
