// poisson's device kernels, one idea each: smoothers, residual, transfers between levels, boundary
// data, the bottom solve and the deterministic reductions. device.cu strings them into cycles.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/reduce.cuh"
#include "solvers/poisson/stencil.cuh"

namespace parasol::poisson {

// Cell kernels run 32 x 8 blocks over x and y (a warp on a row, so loads along x coalesce).
inline constexpr int kCellX = 32, kCellY = 8;
inline constexpr int kCellThreads = kCellX * kCellY;
inline constexpr int kBottomThreads = 256;

// What a reduction accumulates: a sum (of squares, or of values) and a max of magnitudes, which
// starts at 0.
struct SumMax {
  double sum, max;
};
struct SumMaxOp {
  __device__ SumMax operator()(SumMax a, SumMax b) const {
    return {a.sum + b.sum, Max{}(a.max, b.max)};  // a NaN anywhere is the max
  }
};

// The launch grid of a cell kernel over nx x ny x (held) planes, and its block: a thread takes a
// run of up to kPlanesPerThread planes (planes_of_thread), fewer where the grid would otherwise
// hold under kMinCellBlocks blocks (a few waves of the largest devices).
inline constexpr std::int64_t kPlanesPerThread = 16, kMinCellBlocks = 8192;
inline dim3 cell_grid(std::int64_t nx, std::int64_t ny, std::int64_t planes) {
  BlockCount b = blocks_to_cover(nx, ny, planes, Shape{kCellX, kCellY, 1});
  b.z = std::min(b.z, std::max(ceil_div(b.z, kPlanesPerThread), ceil_div(kMinCellBlocks, b.x * b.y)));
  return grid_for(b);
}
inline const dim3 kCellBlock(kCellX, kCellY, 1);
// The launch grid of a kernel over one colour's cells (for_each_held_of_colour): half the columns.
inline dim3 colour_grid(std::int64_t nx, std::int64_t ny, std::int64_t planes) {
  return cell_grid((nx + 1) / 2, ny, planes);
}

// Whether a periodic axis of the level has an odd length of 3 or more: red meets red across the
// wrap, and the in-place red-black kernel would read a neighbour that some threads have updated
// and others not. The fused pass, which writes into the other field, reads each colour's values
// from before its half sweep, as the gold does there (poisson.hpp): it smooths such a level in
// either variant. Semi-coarsening makes such levels (an odd periodic side that stopped halving
// while others go on); the bottom solve orders its colours by barriers and needs nothing.
inline bool odd_periodic(const Params& p, const Level& l) {
  const std::int64_t n[3] = {l.nx, l.ny, l.nz};
  for (int axis = 0; axis < 3; ++axis)
    if (p.face(axis, 0).kind == FaceKind::periodic && n[axis] % 2 == 1 && n[axis] >= 3) return true;
  return false;
}

// Over a block of kCellThreads threads of any shape; the result is valid in its first thread.
__device__ inline SumMax block_sum_max(SumMax value) {
  constexpr int kWarps = kCellThreads / 32;
  __shared__ SumMax per_warp[kWarps];
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  value = warp_reduce(value, SumMaxOp{});
  if (t % 32 == 0) per_warp[t / 32] = value;
  __syncthreads();
  if (t < 32) {
    value = t < kWarps ? per_warp[t] : SumMax{0.0, 0.0};
    value = warp_reduce(value, SumMaxOp{});
  }
  return value;
}

__device__ inline bool first_thread() {
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}
__device__ inline std::int64_t block_rank() {
  return blockIdx.x + static_cast<std::int64_t>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
}

// r = b - A u at a cell: the one residual every kernel uses.
template <class T, template <class> class G>
__device__ __forceinline__ T residual_at(const G<T>& g, const T* u, const T* b, int i,
                                         int j, int k, std::int64_t at) {
  return b[at] - apply_operator(g, u, i, j, k, at);
}

// A red-black update of one cell from the values in u: u + (b - A u) / diag, or u where the
// diagonal is 0. Both variants' sweeps and the fused sweep's recomputed cells call it.
template <class T, template <class> class G>
__device__ __forceinline__ T red_black_update(const G<T>& g, const T* u, const T* b, int i,
                                              int j, int k, std::int64_t at) {
  const T d = diagonal(g, i, j, k);
  return d != T(0) ? u[at] + residual_at(g, u, b, i, j, k, at) / d : u[at];
}

// red_black_update at a cell inside_yz() the level, whose diagonal is never 0: the same sums.
template <class T, template <class> class G>
__device__ __forceinline__ T inside_update(const G<T>& g, const T* u, const T* b, int i,
                                           std::int64_t at) {
  return u[at] + (b[at] - apply_inside_yz(g, u, i, at)) / diagonal_yz(g, i);
}

// One colour of a red-black Gauss-Seidel sweep, in place: the cells of the other colour, which a
// cell's update reads, are not written. Only on levels whose periodic axes are even. Launched
// over colour_grid.
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    rbgs_kernel(G<T> g, T* __restrict__ u, const T* __restrict__ b, int colour) {
  for_each_held_of_colour(g, colour, [&](int i, int j, int k, std::int64_t at) {
    u[at] = inside_yz(g, j, k) ? inside_update(g, u, b, i, at) : red_black_update(g, u, b, i, j, k, at);
  });
}

// One colour of a red-black sweep in Jacobi order within the colour: the colour's cells from the
// values in `from`, a copy of u from before the half sweep, written into u. The fused pass's
// arithmetic on a level with an odd periodic side (odd_periodic), in two kernels a sweep: what
// the slabs across ranks run there (device_slab.cu), the fused pass needing its whole level.
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    colour_from_kernel(G<T> g, const T* __restrict__ from, T* __restrict__ u,
                       const T* __restrict__ b, int colour) {
  for_each_held_of_colour(g, colour, [&](int i, int j, int k, std::int64_t at) {
    u[at] = inside_yz(g, j, k) ? inside_update(g, from, b, i, at)
                               : red_black_update(g, from, b, i, j, k, at);
  });
}

// One Chebyshev step, Jacobi order: next = u + c1 (u - previous) + c2 D^-1 (b - A u), written over
// `previous` (each cell reads only its own previous value). The first step of a smoothing has no
// previous iterate and does not read it.
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    chebyshev_kernel(G<T> g, const T* __restrict__ u, T* __restrict__ previous,
                     const T* __restrict__ b, T c1, T c2, bool first) {
  const auto fetch = [&](std::int64_t f) {
    fetch_line(u + f);
    fetch_line(b + f);
    if (!first) fetch_line(previous + f);
  };
  for_each_held(g, [&](int i, int j, int k, std::int64_t at) {
    const T c = u[at];
    const T momentum = first ? T(0) : c1 * (c - previous[at]);
    if (inside_yz(g, j, k)) {
      previous[at] = c + momentum + c2 * (b[at] - apply_inside_yz(g, u, i, at)) / diagonal_yz(g, i);
      return;
    }
    const T d = diagonal(g, i, j, k);
    previous[at] = d != T(0) ? c + momentum + c2 * residual_at(g, u, b, i, j, k, at) / d : c;
  }, fetch);
}

// The fused variant's passes: two dependent half-steps in one pass over memory, from `u` into `out`
// (never in place: a neighbouring tile still reads the old values). A red-black sweep is red then
// black; a Chebyshev pass is a smoothing's first two steps.
//
// A block owns an xy tile with a one-cell halo (kFusedX x kFusedY columns, the inner
// (kFusedX - 2) x (kFusedY - 2) written) and marches up z through its chunk of planes. At each
// step, stage A computes the first half-step at plane k over the whole tile from the old values and
// puts the plane in shared memory, keeping its own column's last three planes in registers; after
// one barrier, stage B computes the second half-step at plane k - 1 over the inner tile, its x and
// y neighbours from shared memory, its z neighbours from the registers, and writes the plane. A
// periodic neighbour across the domain, outside every tile, is computed again where it is needed
// (the first half-step reads only old values). Three shared planes in turn: stage A of step k + 1
// writes the plane stage B of step k - 1 read, with step k's barrier between. The same
// arithmetic on the same operands as the plain variant's kernels: the same bits.
inline constexpr int kFusedX = 32, kFusedY = 16;

// Red then black: stage A updates the red cells ((i + j + k) even) and passes the black ones on.
template <class T>
struct RedBlackPass {
  // The face-free path for cells with no face beside them (fused_pass_kernel): 512^3's V(2,2)
  // cycle 16.6 -> 14.5 ms on an H200. Chebyshev's pass, with more live values, was slower
  // with it (10.8 -> 13.2 ms) and goes without.
  static constexpr bool kInsidePath = true;
  __device__ T first(const LevelGrid<T>& g, const T* u, const T* b, int i, int j, int k,
                     std::int64_t at) const {
    return ((i + j + k) & 1) == 0 ? red_black_update(g, u, b, i, j, k, at) : u[at];
  }
  // first() at a cell with all six neighbours inside the box, `d` its diagonal: the same sums.
  __device__ T first_inside(const LevelGrid<T>& g, const T* u, const T* b, int i, int j, int k,
                            std::int64_t at, T d) const {
    const T c = u[at];
    if (((i + j + k) & 1) != 0) return c;
    const std::int64_t sy = g.sy(), sz = g.sz();
    const T r = b[at] - apply_values(g, c, u[at - 1], u[at + 1], u[at - sy], u[at + sy],
                                     u[at - sz], u[at + sz]);
    return d != T(0) ? c + r / d : c;
  }
  __device__ bool second_updates(int i, int j, int k) const { return ((i + j + k) & 1) == 1; }
  __device__ T second(const LevelGrid<T>& g, const T* /*u*/, const T* b, T c, T xm, T xp, T ym,
                      T yp, T zm, T zp, std::int64_t at, T d) const {
    return d != T(0) ? c + (b[at] - apply_values(g, c, xm, xp, ym, yp, zm, zp)) / d : c;
  }
};

// A smoothing's first two Chebyshev steps (chebyshev_kernel's arithmetic): the first has no
// previous iterate; the second's is the pass's input.
template <class T>
struct ChebyshevPass {
  static constexpr bool kInsidePath = false;
  T first_c2, c1, c2;
  __device__ T first(const LevelGrid<T>& g, const T* u, const T* b, int i, int j, int k,
                     std::int64_t at) const {
    const T d = diagonal(g, i, j, k);
    const T c = u[at];
    return d != T(0) ? c + T(0) + first_c2 * residual_at(g, u, b, i, j, k, at) / d : c;
  }
  __device__ bool second_updates(int, int, int) const { return true; }
  __device__ T second(const LevelGrid<T>& g, const T* u, const T* b, T c, T xm, T xp, T ym, T yp,
                      T zm, T zp, std::int64_t at, T d) const {
    const T momentum = c1 * (c - u[at]);
    return d != T(0) ? c + momentum + c2 * (b[at] - apply_values(g, c, xm, xp, ym, yp, zm, zp)) / d
                     : c;
  }
};

// Stage A's value at (i, j, k) for a periodic neighbour across the domain, outside every tile.
// Out of line: taken only at the domain's faces, and inlined six times it held the red-black pass
// to one block a multiprocessor by registers.
template <class T, class Pass>
__device__ __noinline__ T first_across(const Pass& pass, const LevelGrid<T>& g, const T* u,
                                       const T* b, int i, int j, int k) {
  return pass.first(g, u, b, i, j, k, i + g.sy() * j + g.sz() * k);
}

// The face-free first half-step where the pass has one (kInsidePath); never called otherwise.
template <class T, class Pass>
__device__ __forceinline__ T inside_first(const Pass& pass, const LevelGrid<T>& g, const T* u,
                                          const T* b, int i, int j, int k, std::int64_t at, T d) {
  if constexpr (Pass::kInsidePath) {
    return pass.first_inside(g, u, b, i, j, k, at, d);
  } else {
    return pass.first(g, u, b, i, j, k, at);
  }
}

template <class T, class Pass>
__global__ void __launch_bounds__(kFusedX* kFusedY)
    fused_pass_kernel(Pass pass, LevelGrid<T> g, std::int64_t tiles_x, std::int64_t tiles_y,
                      int z_chunk, std::int64_t chunks, const T* __restrict__ u,
                      const T* __restrict__ b, T* __restrict__ out) {
  constexpr int OX = kFusedX - 2, OY = kFusedY - 2;
  __shared__ T plane[3][kFusedY][kFusedX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // The diagonal of a cell with no face beside it (used only where the box has such cells): the
  // one function's value, so the fast path's bits are the general path's.
  const T inner_diagonal = diagonal(g, 1, 1, 1);
  const std::int64_t sy = g.sy(), sz = g.sz();
  for (std::int64_t chunk : block_stride_z(chunks))
    for (std::int64_t by : block_stride_y(tiles_y))
      for (std::int64_t bx : block_stride_x(tiles_x)) {
        const int z0 = static_cast<int>(chunk) * z_chunk;
        const int z1 = min(z0 + z_chunk, g.nz);
        const int i = static_cast<int>(bx) * OX - 1 + tx;
        const int j = static_cast<int>(by) * OY - 1 + ty;
        const bool inside = i >= 0 && i < g.nx && j >= 0 && j < g.ny;
        const bool writes = inside && tx >= 1 && tx <= kFusedX - 2 && ty >= 1 && ty <= kFusedY - 2;
        // A column whose x and y neighbours are all inside the box: its cells away from the z
        // faces take the fast path, with the diagonal every such cell shares.
        const bool column_inside =
            Pass::kInsidePath && i >= 1 && i <= g.nx - 2 && j >= 1 && j <= g.ny - 2;
        const std::int64_t column = i + sy * j;
        const auto across = [&](int ai, int aj, int ak) {
          return first_across(pass, g, u, b, ai, aj, ak);
        };
        T below = T(0), centre = T(0), above = T(0);  // stage A's planes k - 2, k - 1, k here
        for (int k = z0 - 1, step = 0; k <= z1; ++k, ++step) {
          T a = T(0);
          if (k >= 0 && k < g.nz && inside)
            a = column_inside && k >= 1 && k <= g.nz - 2
                    ? inside_first(pass, g, u, b, i, j, k, column + sz * k, inner_diagonal)
                    : pass.first(g, u, b, i, j, k, column + sz * k);
          plane[step % 3][ty][tx] = a;
          below = centre;
          centre = above;
          above = a;
          __syncthreads();
          const int kk = k - 1;
          if (kk < z0 || kk >= z1 || !writes) continue;
          const std::int64_t at = column + sz * kk;
          T v = centre;
          const T(*p)[kFusedX] = plane[(step + 2) % 3];  // plane kk, from the step before
          if (column_inside && kk >= 1 && kk <= g.nz - 2) {
            // Every neighbour inside the box: no face to resolve.
            if (pass.second_updates(i, j, kk))
              v = pass.second(g, u, b, centre, p[ty][tx - 1], p[ty][tx + 1], p[ty - 1][tx],
                              p[ty + 1][tx], below, above, at, inner_diagonal);
          } else if (pass.second_updates(i, j, kk)) {
            const T xm = i > 0 ? p[ty][tx - 1]
                         : g.lo[0] == kPeriodicGhost ? across(g.nx - 1, j, kk)
                                                     : T(g.lo[0]) * centre;
            const T xp = i < g.nx - 1 ? p[ty][tx + 1]
                         : g.hi[0] == kPeriodicGhost ? across(0, j, kk)
                                                     : T(g.hi[0]) * centre;
            const T ym = j > 0 ? p[ty - 1][tx]
                         : g.lo[1] == kPeriodicGhost ? across(i, g.ny - 1, kk)
                                                     : T(g.lo[1]) * centre;
            const T yp = j < g.ny - 1 ? p[ty + 1][tx]
                         : g.hi[1] == kPeriodicGhost ? across(i, 0, kk)
                                                     : T(g.hi[1]) * centre;
            const T zm = kk > 0 ? below
                         : g.lo[2] == kPeriodicGhost ? across(i, j, g.nz - 1)
                                                     : T(g.lo[2]) * centre;
            const T zp = kk < g.nz - 1 ? above
                         : g.hi[2] == kPeriodicGhost ? across(i, j, 0)
                                                     : T(g.hi[2]) * centre;
            v = pass.second(g, u, b, centre, xm, xp, ym, yp, zm, zp, at, diagonal(g, i, j, kk));
          }
          out[at] = v;
        }
        __syncthreads();  // the next tile's first stage A rewrites the planes
      }
}

template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    residual_kernel(G<T> g, const T* __restrict__ u, const T* __restrict__ b,
                    T* __restrict__ r) {
  for_each_held(g, [&](int i, int j, int k, std::int64_t at) {
    r[at] = inside_yz(g, j, k) ? b[at] - apply_inside_yz(g, u, i, at) : residual_at(g, u, b, i, j, k, at);
  }, [&](std::int64_t f) {
    fetch_line(u + f);
    fetch_line(b + f);
  });
}

// The finer level's cells under a coarse cell along `axis` (1 or 2): the coarse grid's own, or 2
// fixed at compile time (kHalves) for a level that halved every axis, as every level of a cube's
// hierarchy did. Read at run time, the ratios kept the restriction's and prolongation's guards,
// divisions and weights in every cell's instructions: those kernels ran at a fraction of their
// bytes' speed, and the 512^3 V-cycle 1.5x slower than before semi-coarsening.
template <bool kHalves, class G>
__host__ __device__ __forceinline__ int ratio(const G& g, int axis) {
  if constexpr (kHalves) return 2;
  return axis == 0 ? g.rx : axis == 1 ? g.ry : g.rz;
}

// Whether a coarse grid halved every axis of the finer one: the kernels' kHalves.
template <class G>
bool halves_every_axis(const G& coarse) {
  return coarse.rx == 2 && coarse.ry == 2 && coarse.rz == 2;
}

// Calls launch(std::true_type{}) when `coarse` halved every axis, launch(std::false_type{})
// otherwise: a launch site's kHalves is decltype(halves)::value.
template <class G, class Launch>
void with_halving(const G& coarse, Launch&& launch) {
  if (halves_every_axis(coarse))
    launch(std::true_type{});
  else
    launch(std::false_type{});
}

// The mean of a coarse cell's children (2 per halved axis, 1 per other: the coarse level's
// ratios), summed z, y, x in order: `child(at)` gives a fine value, so restriction of a field and
// of a residual computed on the fly add the same numbers in the same order, the gold's.
template <bool kHalves = false, class T, template <class> class F, template <class> class C,
          class Child>
__host__ __device__ __forceinline__ T mean_of_children(const F<T>& fine, const C<T>& coarse, int i, int j,
                                                       int k, Child&& child) {
  const int rx = ratio<kHalves>(coarse, 0), ry = ratio<kHalves>(coarse, 1),
            rz = ratio<kHalves>(coarse, 2);
  T sum = T(0);
  // Over 2 with the ratio as a guard, not a loop bound: constant trip counts, so the compiler
  // unrolls a cube's 8 loads (host code, where tests/poisson_stencil_test.cu checks it, would
  // warn at a pragma).
  for (int dk = 0; dk < 2; ++dk)
    for (int dj = 0; dj < 2; ++dj)
      for (int di = 0; di < 2; ++di) {
        if (dk >= rz || dj >= ry || di >= rx) continue;
        const int fi = rx * i + di, fj = ry * j + dj, fk = rz * k + dk;
        sum += child(fi, fj, fk, fine.index(fi, fj, fk));
      }
  return sum * T(1.0 / (rx * ry * rz));  // a power of 2: exact
}

// coarse = R fine (plain: a field, the residual or a source).
template <bool kHalves, class T, template <class> class F, template <class> class C>
__global__ void __launch_bounds__(kCellThreads)
    restrict_kernel(F<T> fine, C<T> coarse_grid, const T* __restrict__ x,
                    T* __restrict__ coarse) {
  for_each_held(coarse_grid,
                [&](int i, int j, int k, std::int64_t at) {
                  coarse[at] = mean_of_children<kHalves>(fine, coarse_grid, i, j, k,
                                                [&](int, int, int, std::int64_t f) { return x[f]; });
                });
}

// coarse = R (b - A u), the residual made where it is restricted and never stored.
template <bool kHalves, class T, template <class> class F, template <class> class C>
__global__ void __launch_bounds__(kCellThreads)
    residual_restrict_kernel(F<T> fine, C<T> coarse_grid, const T* __restrict__ u,
                             const T* __restrict__ b, T* __restrict__ coarse) {
  for_each_held(coarse_grid,
                [&](int i, int j, int k, std::int64_t at) {
                  coarse[at] = mean_of_children<kHalves>(
                      fine, coarse_grid, i, j, k, [&](int fi, int fj, int fk, std::int64_t f) {
                        return inside_yz(fine, fj, fk) ? b[f] - apply_inside_yz(fine, u, fi, f)
                                                        : residual_at(fine, u, b, fi, fj, fk, f);
                      });
                });
}

// A number per face, x_min, x_max, y_min, y_max, z_min, z_max: the data part of each ghost (the
// ghost is factor * inside + data: Dirichlet -u_0 + 2g, Neumann u_0 + h g at the level's spacing),
// or the boundary terms a right-hand side gets.
struct PerFace {
  double value[6];
};

inline double spacing(const Level& level, int axis) {
  return axis == 0 ? level.hx : axis == 1 ? level.hy : level.hz;
}

// What the boundary data add to a boundary cell's right-hand side, per face, at a level's spacing
// (problem.hpp's add_boundary_terms): Dirichlet 2g/h^2, Neumann g/h.
inline PerFace boundary_terms(const Params& p, const Level& level) {
  PerFace t{};
  for (int face = 0; face < 6; ++face) {
    const Face& f = p.face(face);
    const double h = spacing(level, face / 2);
    t.value[face] = f.kind == FaceKind::dirichlet ? 2 * f.value / (h * h)
                    : f.kind == FaceKind::neumann ? f.value / h
                                                  : 0.0;
  }
  return t;
}

// The data part of each face's ghost at a level (poisson.hpp's FMG prolongation): Dirichlet 2g,
// Neumann h g, periodic none.
inline PerFace ghost_data(const Params& p, const Level& level) {
  PerFace d{};
  for (int face = 0; face < 6; ++face) {
    const Face& f = p.face(face);
    d.value[face] = f.kind == FaceKind::dirichlet ? 2 * f.value
                    : f.kind == FaceKind::neumann ? spacing(level, face / 2) * f.value
                                                  : 0.0;
  }
  return d;
}

// (P u_coarse) at fine cell (i, j, k), trilinear (FMG): along each halved axis 3/4 of the parent
// and 1/4 of its neighbour on the child's side, that neighbour beyond a face being the coarse
// ghost with the boundary data; along an axis the coarse level did not halve, the parent alone.
// Past two or three faces (a corner) the rules apply z first, then y, then x, as the gold
// resolves them; in double, as the gold computes.
template <bool kHalves = false, class T, template <class> class G>
__host__ __device__ inline double trilinear_at(const G<T>& coarse,
                                               const PerFace& ghost, const T* uc, int i,
                                               int j, int k) {
  const int rx = ratio<kHalves>(coarse, 0), ry = ratio<kHalves>(coarse, 1),
            rz = ratio<kHalves>(coarse, 2);
  const int ci = i / rx, cj = j / ry, ck = k / rz;
  const int si = (i & 1) ? 1 : -1, sj = (j & 1) ? 1 : -1, sk = (k & 1) ? 1 : -1;
  // Which face an index passes (-1: none), the index moved to the cell inside it (or wrapped by
  // `period`: the axis's cells, or 0 in z where the level is stored with halo planes, the halo
  // plane holding the wrap).
  const auto fold = [](int& v, int n, int period, int axis, signed char lo, signed char hi) {
    if (v < 0) {
      if (lo == kPeriodicGhost) {
        v += period;
        return -1;
      }
      v = 0;
      return 2 * axis;
    }
    if (v >= n) {
      if (hi == kPeriodicGhost) {
        v -= period;
        return -1;
      }
      v = n - 1;
      return 2 * axis + 1;
    }
    return -1;
  };
  int z_period = coarse.nz;
  std::int64_t z_base = 0;  // the storage's first plane
  if constexpr (G<T>::kSlab) {
    if (coarse.z_halos) {
      z_period = 0;
      z_base = coarse.k0 - 1;
    }
  }
  // Each axis's two coarse indices, the parent's (always inside) and its neighbour's on the
  // child's side, folded once: the face that neighbour lies past (-1: none), whose ghost rule
  // its values take. An axis the level did not halve uses the parent alone.
  int xs[2] = {ci, ci + si}, ys[2] = {cj, cj + sj}, zs[2] = {ck, ck + sk};
  const int fx = rx == 1 ? -1 : fold(xs[1], coarse.nx, coarse.nx, 0, coarse.lo[0], coarse.hi[0]);
  const int fy = ry == 1 ? -1 : fold(ys[1], coarse.ny, coarse.ny, 1, coarse.lo[1], coarse.hi[1]);
  const int fz = rz == 1 ? -1 : fold(zs[1], coarse.nz, z_period, 2, coarse.lo[2], coarse.hi[2]);
  const auto weight = [](int r, int offset) { return r == 1 ? 1.0 : offset ? 0.25 : 0.75; };
  const std::int64_t sy = coarse.nx, sz = static_cast<std::int64_t>(coarse.nx) * coarse.ny;
  double sum = 0.0;
  if (fx < 0 && fy < 0 && fz < 0) {
    // No neighbour past a face (every child but those of the coarse cells along the faces): the
    // terms below with no ghost rule to apply, in the same order.
    for (int c = 0; c < 2; ++c)
      for (int b = 0; b < 2; ++b)
        for (int a = 0; a < 2; ++a) {
          if (c >= rz || b >= ry || a >= rx) continue;
          const double v = static_cast<double>(uc[xs[a] + sy * ys[b] + sz * (zs[c] - z_base)]);
          sum += weight(rx, a) * weight(ry, b) * weight(rz, c) * v;
        }
    return sum;
  }
  // A face's ghost rule (factor * inside + data), its numbers taken with constant indices: indexed
  // by a face chosen at run time, the level's grid and the ghost data were copied to each
  // thread's local memory, 96 bytes a cell written before any was read.
  struct Rule {
    bool on;
    signed char factor;
    double data;
  };
  const auto rule = [&](int face, int axis) {
    const bool high = face == 2 * axis + 1;
    const signed char lo = axis == 0 ? coarse.lo[0] : axis == 1 ? coarse.lo[1] : coarse.lo[2];
    const signed char hi = axis == 0 ? coarse.hi[0] : axis == 1 ? coarse.hi[1] : coarse.hi[2];
    const double low_data = axis == 0 ? ghost.value[0] : axis == 1 ? ghost.value[2] : ghost.value[4];
    const double high_data = axis == 0 ? ghost.value[1] : axis == 1 ? ghost.value[3] : ghost.value[5];
    return Rule{face >= 0, high ? hi : lo, high ? high_data : low_data};
  };
  const Rule none{false, 1, 0.0}, rx1 = rule(fx, 0), ry1 = rule(fy, 1), rz1 = rule(fz, 2);
  const auto apply = [](double& v, const Rule& r) {
    if (r.on) v = r.factor * v + r.data;
  };
  // Over 2 with the ratio as a guard, not a loop bound, as mean_of_children: constant trip counts,
  // so the compiler unrolls a cube's 8 terms (a host pragma would warn). Past two or three faces
  // (a corner) the ghost rules apply z first, then y, then x, as the gold resolves them. The
  // folds were made per term before, 24 a cell: the one in eight warps that touches a face ran
  // them all, and the 512^3 prolongations took 3.5-4 ms for 0.8-1.3 GB (ncu, 2026-11-29).
  for (int c = 0; c < 2; ++c)
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 2; ++a) {
        if (c >= rz || b >= ry || a >= rx) continue;
        double v = static_cast<double>(uc[xs[a] + sy * ys[b] + sz * (zs[c] - z_base)]);
        apply(v, c ? rz1 : none);
        apply(v, b ? ry1 : none);
        apply(v, a ? rx1 : none);
        sum += weight(rx, a) * weight(ry, b) * weight(rz, c) * v;
      }
  return sum;
}

// u_fine = P u_coarse, trilinear (FMG), rounded once to T.
template <bool kHalves, class T, template <class> class F, template <class> class C>
__global__ void __launch_bounds__(kCellThreads)
    prolong_trilinear_kernel(F<T> fine, C<T> coarse, PerFace ghost,
                             T* __restrict__ u, const T* __restrict__ uc) {
  for_each_held(fine, [&](int i, int j, int k, std::int64_t at) {
    u[at] = static_cast<T>(trilinear_at<kHalves>(coarse, ghost, uc, i, j, k));
  });
}

// u += P e, trilinear as FMG's with homogeneous ghosts (the correction's boundary data are 0),
// in double, rounded once to T and added: the gold's arithmetic.
template <bool kHalves, class T, template <class> class F, template <class> class C>
__global__ void __launch_bounds__(kCellThreads)
    prolong_correct_kernel(F<T> fine, C<T> coarse, T* __restrict__ u,
                           const T* __restrict__ e) {
  const PerFace homogeneous{};
  for_each_held(fine, [&](int i, int j, int k, std::int64_t at) {
    u[at] += static_cast<T>(trilinear_at<kHalves>(coarse, homogeneous, e, i, j, k));
  });
}

// The boundary terms of cell (i, j, k) (problem.hpp's add_boundary_terms, at this level's
// spacing): `term` per face is Dirichlet 2g/h^2, Neumann g/h, periodic 0, added up in face order
// as the gold does.
template <class T>
__host__ __device__ inline double boundary_term_at(const LevelGrid<T>& g, const PerFace& term,
                                                   int i, int j, int k) {
  const int index[3] = {i, j, k}, n[3] = {g.nx, g.ny, g.nz};
  double add = 0.0;
  for (int axis = 0; axis < 3; ++axis) {
    if (index[axis] == 0) add += term.value[2 * axis];
    if (index[axis] == n[axis] - 1) add += term.value[2 * axis + 1];
  }
  return add;
}

// b += its boundary terms, in double, rounded once.
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    boundary_terms_kernel(G<T> g, PerFace term, T* __restrict__ b) {
  for_each_held(g, [&](int i, int j, int k, std::int64_t at) {
    const double add = boundary_term_at(g, term, i, j, k);
    if (add != 0.0) b[at] = static_cast<T>(static_cast<double>(b[at]) + add);
  });
}

// What a reduction over a level reads per cell.
enum class Reading { field, residual, value };

// Reductions over the finest level go plane by plane, so that a level cut into slabs of planes
// among ranks (device_slab.hpp) gives the one-rank bits: each plane's total is made on the rank
// that holds it by a grid fixed by nx and ny alone (the same blocks, threads and order on any
// rank), and the planes' totals are then added in plane order, by one thread on one rank
// (planes_finish_kernel) or by the host after an all-reduce over zeros (exact) across ranks, in
// the one function below.

// The per-plane grid over x and y, fixed by the level's nx and ny: at most 4 x 8 blocks a plane,
// so that a plane of 512^2 gives each thread 32 cells and 512 planes 16,384 blocks: a block's
// reduction and partial for every few cells would cost more than their reads (not measured yet).
inline dim3 plane_partials_grid(std::int64_t nx, std::int64_t ny, std::int64_t planes) {
  const std::int64_t bx = std::min<std::int64_t>((nx + kCellX - 1) / kCellX, 4);
  const std::int64_t by = std::min<std::int64_t>((ny + kCellY - 1) / kCellY, 8);
  const std::int64_t bz = std::max<std::int64_t>(1, std::min<std::int64_t>(planes, 65535));
  return dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by), static_cast<unsigned>(bz));
}

// Per plane of planes [first, first + count) of the level (held here), per-block partials
// (gridDim.x * gridDim.y of them, plane q's at q * gridDim.x * gridDim.y): field: sum of x^2
// and max |x|; residual: the same of b - A u; value: the sum of x (for means).
template <Reading kRead, class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    plane_partials_kernel(G<T> g, int first, int count, const T* __restrict__ x,
                          const T* __restrict__ b, SumMax* __restrict__ partials) {
  const unsigned step_x = gridDim.x * blockDim.x, step_y = gridDim.y * blockDim.y;
  const std::int64_t per_plane = static_cast<std::int64_t>(gridDim.x) * gridDim.y;
  for (int q = static_cast<int>(blockIdx.z); q < count; q += static_cast<int>(gridDim.z)) {
    const int k = first + q;
    SumMax acc{0.0, 0.0};
    for (unsigned j = blockIdx.y * blockDim.y + threadIdx.y; j < static_cast<unsigned>(g.ny); j += step_y)
      for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>(g.nx);
           i += step_x) {
        const std::int64_t at = g.index(static_cast<int>(i), static_cast<int>(j), k);
        if constexpr (kRead == Reading::value) {
          acc.sum += static_cast<double>(x[at]);
        } else {
          const double v =
              kRead == Reading::field
                  ? static_cast<double>(x[at])
                  : static_cast<double>(
                        inside_yz(g, static_cast<int>(j), k)
                            ? b[at] - apply_inside_yz(g, x, static_cast<int>(i), at)
                            : residual_at(g, x, b, static_cast<int>(i), static_cast<int>(j), k, at));
          acc.sum += v * v;
          acc.max = Max{}(acc.max, fabs(v));
        }
      }
    acc = block_sum_max(acc);
    if (first_thread()) partials[q * per_plane + blockIdx.x + gridDim.x * blockIdx.y] = acc;
    __syncthreads();  // block_sum_max's shared words are reused for the next plane
  }
}

// totals[q] = plane q's partials (per_plane of them) added by one block, in a fixed tree. (A
// template, as the kernels below, so that each file including this one may hold it.)
template <int kThreads = kCellThreads>
__global__ void __launch_bounds__(kThreads)
    plane_totals_kernel(const SumMax* __restrict__ partials, int per_plane, int count,
                        SumMax* __restrict__ totals) {
  const int t = threadIdx.x;
  for (int q = static_cast<int>(blockIdx.x); q < count; q += static_cast<int>(gridDim.x)) {
    SumMax acc{0.0, 0.0};
    for (int p = t; p < per_plane; p += kThreads)
      acc = SumMaxOp{}(acc, partials[static_cast<std::int64_t>(q) * per_plane + p]);
    acc = block_sum_max(acc);
    if (t == 0) totals[q] = acc;
    __syncthreads();
  }
}

// The planes' totals added in plane order onto `acc` (from {0, 0}): the one sum of the device and
// the host, which may take the planes in consecutive runs.
__host__ __device__ inline SumMax sum_planes(SumMax acc, const SumMax* totals, int count) {
  for (int q = 0; q < count; ++q) {
    acc.sum = acc.sum + totals[q].sum;
    acc.max = Max{}(acc.max, totals[q].max);
  }
  return acc;
}

// out[0] = max, out[1] = sqrt(sum) (norms), or out[0] = sum / cells (a mean), of a sum of planes.
__host__ __device__ inline void finish_sum(const SumMax& acc, bool mean, double cells, double* out) {
  if (mean) {
    out[0] = acc.sum / cells;
  } else {
    out[0] = acc.max;
    out[1] = sqrt(acc.sum);
  }
}

// finish_sum of sum_planes over every plane of the level on this device, on one block: the block
// loads runs of the totals into shared memory together, and one thread adds them in order (a
// thread alone would wait on each load from memory in turn).
inline constexpr int kFinishRun = 512;
template <int kThreads = kCellThreads>
__global__ void __launch_bounds__(kThreads)
    planes_finish_kernel(const SumMax* __restrict__ totals, int count, bool mean, double cells,
                         double* __restrict__ out) {
  __shared__ SumMax run[kFinishRun];
  SumMax acc{0.0, 0.0};
  for (int first = 0; first < count; first += kFinishRun) {
    const int n = min(kFinishRun, count - first);
    for (int q = threadIdx.x; q < n; q += kThreads) run[q] = totals[first + q];
    __syncthreads();
    if (threadIdx.x == 0) acc = sum_planes(acc, run, n);
    __syncthreads();
  }
  if (threadIdx.x == 0) finish_sum(acc, mean, cells, out);
}

// A reduction over planes [first, first + count) of a level into `totals` (count of them),
// enqueued: `partials` holds per_plane_partials(g) * count values.
inline std::int64_t per_plane_partials(std::int64_t nx, std::int64_t ny) {
  const dim3 grid = plane_partials_grid(nx, ny, 1);
  return static_cast<std::int64_t>(grid.x) * grid.y;
}
template <Reading kRead, class T, template <class> class G>
void enqueue_plane_totals(const G<T>& g, int first, int count, const T* x, const T* b,
                          SumMax* partials, SumMax* totals, cudaStream_t stream) {
  const dim3 grid = plane_partials_grid(g.nx, g.ny, count);
  plane_partials_kernel<kRead><<<grid, dim3(kCellX, kCellY, 1), 0, stream>>>(g, first, count, x,
                                                                              b, partials);
  PARASOL_CHECK_LAUNCH(stream);
  plane_totals_kernel<><<<static_cast<unsigned>(std::min(count, 65535)), kCellThreads, 0, stream>>>(
      partials, static_cast<int>(grid.x * grid.y), count, totals);
  PARASOL_CHECK_LAUNCH(stream);
}

template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    subtract_kernel(G<T> g, T* __restrict__ u, const double* __restrict__ mean) {
  const T m = static_cast<T>(*mean);
  for_each_held(g, [&](int, int, int, std::int64_t at) { u[at] -= m; });
}

// How the bottom level is solved: `sweeps` smoother sweeps, from u = 0 or from the u there; for a
// singular problem the right-hand side's mean is removed before and u's after.
struct BottomPlan {
  int sweeps = 0;
  bool from_zero = true;
  bool singular = false;
  bool chebyshev = false;
  const double2* steps = nullptr;  // Chebyshev (c1, c2) per sweep, on the device
  // The level's four fields (u, previous, scratch, b) copied into dynamic shared memory for the
  // sweeps, where they fit: a sweep is then a few hundred cycles, not a round trip to L2 a phase.
  bool in_shared = false;
};

// The mean over the bottom level of x (minus `shift`), by the whole block, in double.
template <class T>
__device__ double bottom_mean(const T* x, std::int64_t n) {
  __shared__ double mean;
  double s = 0.0;
  for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) s += static_cast<double>(x[at]);
  s = block_reduce<kBottomThreads>(s, Sum{});
  if (threadIdx.x == 0) mean = s / static_cast<double>(n);
  __syncthreads();
  const double m = mean;
  __syncthreads();  // `mean` is rewritten by the next call
  return m;
}

// The bottom level on one block. Every sweep computes all the new values of a colour (red-black)
// or of the step (Chebyshev) before writing any, with a barrier between, so no value read in a
// sweep is one being written by it: the order threads run in never shows in the result.
template <class T>
__device__ void bottom_solve(const LevelGrid<T>& g, T* u, T* previous, const T* b, T* scratch,
                             const BottomPlan& plan) {
  const std::int64_t n = g.cells();
  const T shift = plan.singular ? static_cast<T>(bottom_mean(b, n)) : T(0);
  // A cell's indices, by 32-bit divisions where the level allows (a 64-bit division costs more
  // than the cell's update, and a sweep here is a few cells a thread).
  const bool narrow = n <= 0xffffffffLL;
  const auto cell = [&](std::int64_t at, int& i, int& j, int& k) {
    if (narrow) {
      const auto a = static_cast<unsigned>(at), nx = static_cast<unsigned>(g.nx),
                 ny = static_cast<unsigned>(g.ny);
      i = static_cast<int>(a % nx);
      j = static_cast<int>((a / nx) % ny);
      k = static_cast<int>(a / (nx * ny));
      return;
    }
    i = static_cast<int>(at % g.nx);
    j = static_cast<int>((at / g.nx) % g.ny);
    k = static_cast<int>(at / (static_cast<std::int64_t>(g.nx) * g.ny));
  };
  // The residual with the shifted right-hand side: (b - shift) - A u.
  const auto residual = [&](const T* v, int i, int j, int k, std::int64_t at) {
    return (b[at] - shift) - apply_operator(g, v, i, j, k, at);
  };
  if (plan.from_zero) {
    for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) u[at] = T(0);
    __syncthreads();
  }
  if (!plan.chebyshev) {
    for (int s = 0; s < plan.sweeps; ++s) {
      for (int colour = 0; colour < 2; ++colour) {
        for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) {
          int i, j, k;
          cell(at, i, j, k);
          if (((i + j + k) & 1) != colour) continue;
          const T d = diagonal(g, i, j, k);
          scratch[at] = d != T(0) ? u[at] + residual(u, i, j, k, at) / d : u[at];
        }
        __syncthreads();
        for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) {
          int i, j, k;
          cell(at, i, j, k);
          if (((i + j + k) & 1) == colour) u[at] = scratch[at];
        }
        __syncthreads();
      }
    }
  } else {
    T* current = u;
    T* next = previous;  // holds the iterate before `current`, overwritten by the one after
    // Each step's coefficients loaded a sweep ahead: read where they are used, every sweep waited
    // a load's latency first.
    double2 ahead = plan.sweeps > 0 ? plan.steps[0] : double2{0.0, 0.0};
    for (int s = 0; s < plan.sweeps; ++s) {
      const T c1 = static_cast<T>(ahead.x), c2 = static_cast<T>(ahead.y);
      if (s + 1 < plan.sweeps) ahead = plan.steps[s + 1];
      for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) {
        int i, j, k;
        cell(at, i, j, k);
        const T d = diagonal(g, i, j, k);
        const T c = current[at];
        const T momentum = s == 0 ? T(0) : c1 * (c - next[at]);
        next[at] = d != T(0) ? c + momentum + c2 * residual(current, i, j, k, at) / d : c;
      }
      __syncthreads();
      T* const swap = current;
      current = next;
      next = swap;
    }
    if (current != u) {
      for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) u[at] = current[at];
      __syncthreads();
    }
  }
  if (plan.singular) {
    const T m = static_cast<T>(bottom_mean(u, n));
    for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) u[at] -= m;
  }
}

template <class T>
__global__ void __launch_bounds__(kBottomThreads)
    bottom_kernel(LevelGrid<T> g, T* u, T* previous, const T* b, T* scratch, BottomPlan plan) {
  if (!plan.in_shared) {
    bottom_solve(g, u, previous, b, scratch, plan);
    return;
  }
  extern __shared__ double bottom_shared[];  // double: aligned for either T
  const std::int64_t n = g.cells();
  T* const su = reinterpret_cast<T*>(bottom_shared);
  T* const sp = su + n;
  T* const ss = sp + n;
  T* const sb = ss + n;
  for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) {
    sb[at] = b[at];
    su[at] = plan.from_zero ? T(0) : u[at];
  }
  __syncthreads();
  bottom_solve(g, su, sp, sb, ss, plan);
  __syncthreads();
  for (std::int64_t at = threadIdx.x; at < n; at += kBottomThreads) u[at] = su[at];
}

}  // namespace parasol::poisson
