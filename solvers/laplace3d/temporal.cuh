// Temporal blocking for the Jacobi sweep: kTimeSteps iterations per pass over memory.
//
// A block owns an xy tile (halo included) and marches up z with a pipeline of time levels: at
// step k it loads plane k of level 0 from memory, and level l + 1 is computed at plane k - 1 - l
// from level l's planes k - 2 - l, k - 1 - l and k - l. Each thread keeps its own column's
// below/centre planes of every level in registers; the xy neighbours come from shared memory,
// where each step leaves the planes the next step needs (double-buffered, one barrier a step).
// Level kTimeSteps is written to memory. The tile's edges go stale by one point per level, so
// only its inner part, kTimeSteps points in from every side, is written; neighbouring tiles
// overlap by twice that.
//
// The planes written are [z_begin, z_end) (interior planes; all of them for a whole sweep), in
// chunks of z_chunk; the planes read are those within kTimeSteps of them. Every plane written is
// exact, so a slab can write the planes its neighbours need first and the rest meanwhile.
//
// The same neighbour sums in the same order as one sweep: the iterates agree bit for bit.
#pragma once

#include "solvers/laplace3d/shapes.hpp"
#include "solvers/laplace3d/stencil.cuh"

namespace parasol::laplace3d {

// Rows of the tile per thread: nine in float, so a 64 x 8 block (128 registers a thread) holds a
// 64 x 72 tile whose written part is 56 x 64. Many rows a thread share the work of a step that
// does not depend on the row (z tests, the loads of the rows just past the thread's own, the
// barrier): at 512^3 on an H100, four rows in a 64 x 16 block ran at 657 Gpoints/s, eight in a
// 64 x 8 block (64 x 64 tiles, no spills) at 724, nine at 748, though they spill 64 bytes: 64
// written rows cover 510 interior rows in 8 tiles instead of 10. Four in double.
template <class T>
constexpr int kTemporalRows = sizeof(T) == 4 ? 9 : 4;

// Dynamic shared memory the kernel needs for a BX x BY block.
template <int BX, int BY, class T>
constexpr std::size_t temporal_shared_bytes() {
  return 2 * kTimeSteps * BY * kTemporalRows<T> * BX * sizeof(T);
}

template <int BX, int BY, class T>
__global__ void __launch_bounds__(BX* BY)
    temporal_kernel(Strides n, std::int64_t tiles_x, std::int64_t tiles_y, std::int64_t z_begin,
                    std::int64_t z_end, std::int64_t z_chunk, std::int64_t chunks,
                    const T* __restrict__ u, T* __restrict__ u_next) {
  constexpr int TT = kTimeSteps, R = kTemporalRows<T>;
  constexpr int EX = BX, EY = BY * R;             // the tile, halo included
  constexpr int OX = EX - 2 * TT, OY = EY - 2 * TT;  // the part written
  static_assert(OX > 0 && OY > 0, "tile too small for its halo");
  static_assert(EX <= kTemporalMaxTile && EY <= kTemporalMaxTile, "tile past the guard cells");
  // plane[parity][level][y][x]: level l at the plane the next level needs this step. Dynamic
  // shared memory: 144 KiB for a 64 x 72 float tile, past the 48 KiB a static array may take.
  extern __shared__ unsigned char temporal_shared[];
  auto plane = reinterpret_cast<T(*)[TT][EY][EX]>(temporal_shared);

  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t chunk : block_stride_z(chunks)) {
    const std::int64_t z0 = z_begin + chunk * z_chunk;             // output planes [z0, z1)
    const std::int64_t z1 = z0 + z_chunk < z_end ? z0 + z_chunk : z_end;
    for (std::int64_t by : block_stride_y(tiles_y)) {
      for (std::int64_t bx : block_stride_x(tiles_x)) {
        const std::int64_t gx = bx * OX - TT + tx;
        const bool interior_x = gx >= 1 && gx < n.nx - 1;
        const bool written_x = tx >= TT && tx < EX - TT && interior_x;
        // This thread's point of row r is at column + r * n.sy in every plane. The tile's halo
        // reaches past the grid in x and y; those reads land in the guard cells around the field
        // (temporal_guard_points) and no update ever uses them: an updated point is interior, so
        // its neighbours are inside the grid. Loads then need no tests, and a row's address is
        // the thread's plane address plus a uniform offset.
        const std::int64_t gy0 = by * OY - TT + ty * R;
        const std::int64_t column = gx + n.sy * gy0;
        // Per row: written, and updated where z is interior (inside the grid's xy interior and
        // not on the tile's x edge, whose neighbours are not in the tile).
        bool written_y[R], updated_xy[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int y = ty * R + r;
          const std::int64_t gy = gy0 + r;
          const bool interior_y = gy >= 1 && gy < n.ny - 1;
          written_y[r] = y >= TT && y < EY - TT && interior_y;
          updated_xy[r] = interior_x && interior_y && tx > 0 && tx < EX - 1;
        }
        // Planes below 0 and above nz - 1 are read as planes 0 and nz - 1: values no update
        // uses either (level 1 is computed at interior planes only).
        const auto load_plane = [&](std::int64_t z, T (&values)[R]) {
          const T* const plane = u + (column + n.sz * (z < 0 ? 0 : (z < n.nz ? z : n.nz - 1)));
#pragma unroll
          for (int r = 0; r < R; ++r) values[r] = plane[r * n.sy];
        };

        // Level l at planes (centre - 1, centre) of this thread's column, centre = k - 1 - l.
        T below[TT][R], centre[TT][R];
        const std::int64_t k_first = z0 + 2 - TT;  // the first plane that level TT needs is z0
        int cur = 0;
        // Level 0's next plane, loaded a step ahead: every step ends at a barrier, so a load
        // used in the step that issues it would stall the whole block for its latency.
        T ahead[R];
        load_plane(k_first - 2, below[0]);
        load_plane(k_first - 1, centre[0]);
        load_plane(k_first, ahead);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          plane[cur][0][ty * R + r][tx] = centre[0][r];
#pragma unroll
          for (int l = 1; l < TT; ++l) below[l][r] = centre[l][r] = T(0);  // not yet valid
        }
        __syncthreads();

        // Three steps per trip: the register rotation (below <- centre <- above) then needs no
        // moves. Two took 512^3 from 424 to 492 Gpoints/s (H200); three, 645 -> 658 (H100, four
        // rows a thread) and 665 -> 718 (eight).
        constexpr int kStepsPerTrip = 3;
#pragma unroll kStepsPerTrip
        for (std::int64_t k = k_first; k < z1 + TT; ++k) {
          const int nxt = cur ^ 1;
          T above[R];
#pragma unroll
          for (int r = 0; r < R; ++r) above[r] = ahead[r];
          load_plane(k + 1, ahead);
#pragma unroll
          for (int r = 0; r < R; ++r) plane[nxt][0][ty * R + r][tx] = above[r];
#pragma unroll
          for (int l = 0; l < TT; ++l) {
            const std::int64_t z = k - 1 - l;  // where level l + 1 is computed
            // Level l + 1 has valid inputs from step k_first + 2 l on; the pipeline's earlier
            // steps skip it, as their values are never used: 12 of a chunk's 4 (L + 6) level
            // steps for L planes, 6 % at 43.
            const bool live = z >= 1 && z < n.nz - 1 && k >= k_first + 2 * l;
            T next[R];
            const T(*p)[EX] = plane[cur][l];
            const T y_before = ty * R > 0 ? p[ty * R - 1][tx] : T(0);
            const T y_after = ty * R + R < EY ? p[ty * R + R][tx] : T(0);
#pragma unroll
            for (int r = 0; r < R; ++r) {
              const int y = ty * R + r;
              if (updated_xy[r] && live) {
                const T ym = r == 0 ? y_before : centre[l][r - 1];
                const T yp = r == R - 1 ? y_after : centre[l][r + 1];
                next[r] = mean_of_neighbours(p[y][tx - 1], p[y][tx + 1], ym, yp, below[l][r],
                                             above[r]);
              } else {
                next[r] = centre[l][r];  // boundary values never change; tile edges go stale
              }
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
              below[l][r] = centre[l][r];
              centre[l][r] = above[r];
              above[r] = next[r];  // the plane above for level l + 1
              if (l + 1 < TT) plane[nxt][l + 1][ty * R + r][tx] = next[r];
            }
          }
          // above now holds level TT at plane k - TT.
          const std::int64_t z_out = k - TT;
          if (z_out >= z0 && written_x) {
#pragma unroll
            for (int r = 0; r < R; ++r)
              if (written_y[r]) u_next[column + n.sz * z_out + r * n.sy] = above[r];
          }
          __syncthreads();
          cur = nxt;
        }
      }
    }
  }
}

}  // namespace parasol::laplace3d
