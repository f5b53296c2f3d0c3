// The poisson operator on the device, one level at a time: A u = alpha u - sum over axes of
// (u_{i-1} - 2 u_i + u_{i+1}) / h^2 on cell-centred unknowns, stored x fastest with no ghosts.
// Faces enter through the ghost cell past them: Dirichlet u_g = -u_0, Neumann u_g = u_0 and
// periodic wrap. These are the homogeneous conditions; boundary data were moved into the
// right-hand side when the source was uploaded, so every level solves with them.
//
// Every kernel that needs A u or the diagonal calls these two functions, so the plain and fused
// variants compute the same sums in the same order and agree to the bit. They compile for the
// host too, where tests/poisson_stencil_test.cu checks them against the gold.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/launch.cuh"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"

namespace parasol::poisson {

// Ghost factor per face: the ghost is factor * u_0 (Dirichlet -1, Neumann +1); 0 marks a
// periodic face, whose ghost is the cell at the other end.
inline constexpr signed char kPeriodicGhost = 0;

template <class T>
struct LevelGrid {
  int nx = 0, ny = 0, nz = 0;
  T cx = 0, cy = 0, cz = 0;  // 1 / h^2 per axis
  T alpha = 0;
  signed char lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};  // ghost factors: x_min, y_min, z_min; x_max...
  int rx = 1, ry = 1, rz = 1;  // Level's: the finer level's cells under a cell, per axis (1 or 2)
  static constexpr bool kSlab = false;  // a whole level (SlabGrid: planes of one)

  __host__ __device__ std::int64_t cells() const {
    return static_cast<std::int64_t>(nx) * ny * nz;
  }
  __host__ __device__ std::int64_t sy() const { return nx; }
  __host__ __device__ std::int64_t sz() const { return static_cast<std::int64_t>(nx) * ny; }
  // The storage index of cell (i, j, k).
  __host__ __device__ std::int64_t index(int i, int j, int k) const {
    return i + nx * (j + static_cast<std::int64_t>(ny) * k);
  }
};

// A level as one rank holds it across ranks (device_slab.hpp): planes [k0, k0 + planes) of the
// level's nz. A cut level is stored with one halo plane below and one above (z_halos): the
// neighbouring ranks' planes, or beyond a periodic z face the plane at the other end, so that a
// z-neighbour is always the next plane in memory. Kernels take i, j and k as indices of the whole
// level (colours, faces and diagonals are the one-rank ones) and address the storage through
// index(). A type of its own, the kernels templates over the grid, so that a whole level's
// kernels (LevelGrid) compile to the code they had before slabs, instruction for instruction on
// sm_90: with the slab's fields and branches in LevelGrid every one-rank kernel had grown (the
// fused red-black pass in float 1,152 -> 1,200 instructions, 48 -> 64 bytes of stack), and the
// one-rank fused V(2,2) at 512^3 on an H200 had gone from 14.5 to 22.3 ms.
template <class T>
struct SlabGrid : LevelGrid<T> {
  int k0 = 0, planes = 0;
  bool z_halos = false;
  static constexpr bool kSlab = true;

  SlabGrid() = default;
  // The whole level `g`, planes [k0, k0 + planes) of it held, stored with halos or not.
  SlabGrid(const LevelGrid<T>& g, int first, int count, bool halos)
      : LevelGrid<T>(g), k0(first), planes(count), z_halos(halos) {}

  // The storage index of cell (i, j, k), k a plane of the whole level (k0 - 1 to k0 + planes
  // where z_halos).
  __host__ __device__ std::int64_t index(int i, int j, int k) const {
    return i + this->sy() * j + this->sz() * (k - (z_halos ? k0 - 1 : 0));
  }
};

inline signed char ghost_factor(FaceKind k) {
  switch (k) {
    case FaceKind::dirichlet: return -1;
    case FaceKind::neumann: return 1;
    case FaceKind::periodic: break;
  }
  return kPeriodicGhost;
}

// A level of the hierarchy as the kernels take it.
template <class T>
LevelGrid<T> grid_of(const Params& p, const Level& level) {
  LevelGrid<T> g;
  g.nx = static_cast<int>(level.nx);
  g.ny = static_cast<int>(level.ny);
  g.nz = static_cast<int>(level.nz);
  g.cx = static_cast<T>(1.0 / (level.hx * level.hx));
  g.cy = static_cast<T>(1.0 / (level.hy * level.hy));
  g.cz = static_cast<T>(1.0 / (level.hz * level.hz));
  g.alpha = static_cast<T>(p.alpha);
  g.rx = level.rx;
  g.ry = level.ry;
  g.rz = level.rz;
  for (int axis = 0; axis < 3; ++axis) {
    g.lo[axis] = ghost_factor(p.face(axis, 0).kind);
    g.hi[axis] = ghost_factor(p.face(axis, 1).kind);
  }
  return g;
}

// The neighbour below (i - 1) of a cell at index i of n along an axis of stride s.
template <class T>
__host__ __device__ __forceinline__ T below(const T* u, std::int64_t at, int i, int n, std::int64_t s,
                                   signed char ghost, T centre) {
  if (i > 0) return u[at - s];
  if (ghost == kPeriodicGhost) return u[at + (n - 1) * s];
  return T(ghost) * centre;
}
template <class T>
__host__ __device__ __forceinline__ T above(const T* u, std::int64_t at, int i, int n, std::int64_t s,
                                   signed char ghost, T centre) {
  if (i < n - 1) return u[at + s];
  if (ghost == kPeriodicGhost) return u[at - (n - 1) * s];
  return T(ghost) * centre;
}

// How much of a cell's own value comes back through the neighbour on one side: the ghost factor
// at a Dirichlet or Neumann face, and 1 where a periodic axis has one cell (its neighbour is
// itself twice over, so the axis adds nothing to the diagonal, as poisson.hpp's diagonal() says).
__host__ __device__ __forceinline__ int self_weight(int i, int n, signed char ghost, bool low) {
  const bool edge = low ? i == 0 : i == n - 1;
  if (!edge) return 0;
  if (ghost == kPeriodicGhost) return n == 1 ? 1 : 0;
  return ghost;
}

// An axis's weight in the diagonal at index i of n (2 less the self weights of its two sides):
// diagonal() and diagonal_yz() take it from here.
__host__ __device__ __forceinline__ int axis_weight(int i, int n, signed char lo, signed char hi) {
  return 2 - self_weight(i, n, lo, true) - self_weight(i, n, hi, false);
}

// A u from a cell's value and its six neighbours (ghosts already resolved). Axes in the order
// x, y, z, each as (2c - below - above): every kernel's sums, in the gold's order.
template <class T>
__host__ __device__ __forceinline__ T apply_values(const LevelGrid<T>& g, T c, T xm, T xp, T ym,
                                                   T yp, T zm, T zp) {
  const T x = (c + c) - xm - xp;
  const T y = (c + c) - ym - yp;
  const T z = (c + c) - zm - zp;
  return g.alpha * c + g.cx * x + g.cy * y + g.cz * z;
}

// The z-neighbours: below() and above() along z on a whole level; on a slab stored with halo
// planes (SlabGrid::z_halos) past a periodic face the halo plane next to it, which holds the
// plane at the other end.
template <class T, template <class> class G>
__host__ __device__ __forceinline__ T below_z(const G<T>& g, const T* u, std::int64_t at, int k,
                                              T centre) {
  if constexpr (G<T>::kSlab) {
    if (k > 0) return u[at - g.sz()];
    if (g.lo[2] == kPeriodicGhost) return u[at + (g.z_halos ? -1 : g.nz - 1) * g.sz()];
    return T(g.lo[2]) * centre;
  } else {
    return below(u, at, k, g.nz, g.sz(), g.lo[2], centre);
  }
}
template <class T, template <class> class G>
__host__ __device__ __forceinline__ T above_z(const G<T>& g, const T* u, std::int64_t at, int k,
                                              T centre) {
  if constexpr (G<T>::kSlab) {
    if (k < g.nz - 1) return u[at + g.sz()];
    if (g.hi[2] == kPeriodicGhost) return u[at + (g.z_halos ? 1 : -(g.nz - 1)) * g.sz()];
    return T(g.hi[2]) * centre;
  } else {
    return above(u, at, k, g.nz, g.sz(), g.hi[2], centre);
  }
}

// Whether cell (i, j, k) is at least one cell from the y and z faces, whatever its x: its y and z
// neighbours are the next cells in memory (on a slab too: a z-neighbour inside the level is held,
// in the slab or its halo plane), and only its x neighbours may need a face rule. The plain
// variant's kernels take apply_inside_yz there: apply_operator's tests, branches and 64-bit index
// arithmetic had been most of a sweep's instructions (168 a cell for r = b - A u). A warp runs
// along a row: tested for all six faces, the warps holding a row's first or last cell (a quarter of
// a 256-cell row's) ran apply_operator for that one lane beside the others' short path, and the
// Chebyshev step at 256^3 issued 188 instructions a cell. The fused pass has its own
// (RedBlackPass::first_inside).
template <class T>
__host__ __device__ __forceinline__ bool inside_yz(const LevelGrid<T>& g, int j, int k) {
  return static_cast<unsigned>(j - 1) < static_cast<unsigned>(g.ny - 2) &&
         static_cast<unsigned>(k - 1) < static_cast<unsigned>(g.nz - 2);
}

// A u at a cell inside_yz(): apply_operator's operands (x by the face rules, y and z from
// memory), so its sum.
template <class T, template <class> class G>
__host__ __device__ __forceinline__ T apply_inside_yz(const G<T>& g, const T* u, int i,
                                                      std::int64_t at) {
  const T* c = u + at;
  const T centre = c[0];
  const std::int64_t sy = g.sy(), sz = g.sz();
  return apply_values(g, centre, below(u, at, i, g.nx, std::int64_t{1}, g.lo[0], centre),
                      above(u, at, i, g.nx, std::int64_t{1}, g.hi[0], centre), c[-sy], c[sy],
                      c[-sz], c[sz]);
}

// A u at cell (i, j, k), index `at`, its neighbours read from u.
template <class T, template <class> class G>
__host__ __device__ __forceinline__ T apply_operator(const G<T>& g, const T* u, int i, int j,
                                                     int k, std::int64_t at) {
  const T c = u[at];
  const std::int64_t sy = g.sy(), sz = g.sz();
  if constexpr (G<T>::kSlab) {
    return apply_values(g, c, below(u, at, i, g.nx, std::int64_t{1}, g.lo[0], c),
                        above(u, at, i, g.nx, std::int64_t{1}, g.hi[0], c),
                        below(u, at, j, g.ny, sy, g.lo[1], c),
                        above(u, at, j, g.ny, sy, g.hi[1], c), below_z(g, u, at, k, c),
                        above_z(g, u, at, k, c));
  } else {
    return apply_values(g, c, below(u, at, i, g.nx, std::int64_t{1}, g.lo[0], c),
                        above(u, at, i, g.nx, std::int64_t{1}, g.hi[0], c),
                        below(u, at, j, g.ny, sy, g.lo[1], c), above(u, at, j, g.ny, sy, g.hi[1], c),
                        below(u, at, k, g.nz, sz, g.lo[2], c), above(u, at, k, g.nz, sz, g.hi[2], c));
  }
}

// The diagonal of A at cell (i, j, k): alpha + sum over axes of (2 - self weights) / h^2. Zero
// only where alpha = 0 and every axis is one cell, Neumann or periodic: that cell's equation is
// 0 = 0, and smoothers leave it alone (the gold's inverse diagonal is 0 there).
template <class T>
__host__ __device__ __forceinline__ T diagonal(const LevelGrid<T>& g, int i, int j, int k) {
  const int wx = axis_weight(i, g.nx, g.lo[0], g.hi[0]);
  const int wy = axis_weight(j, g.ny, g.lo[1], g.hi[1]);
  const int wz = axis_weight(k, g.nz, g.lo[2], g.hi[2]);
  return g.alpha + g.cx * T(wx) + g.cy * T(wy) + g.cz * T(wz);
}

// The diagonal at a cell inside_yz(): diagonal()'s sum with its y and z weights 2, so its value;
// never 0.
template <class T>
__host__ __device__ __forceinline__ T diagonal_yz(const LevelGrid<T>& g, int i) {
  const int wx = axis_weight(i, g.nx, g.lo[0], g.hi[0]);
  const int wy = 2, wz = 2;
  return g.alpha + g.cx * T(wx) + g.cy * T(wy) + g.cz * T(wz);
}

// The planes [first, end) of nz that a thread takes: the grid's threads along z each take a run
// of consecutive planes (cell_grid launches fewer blocks along z than planes), so that a block
// works through several planes, its z-neighbours' lines already in L1, rather than each of
// hundreds of thousands of blocks loading one cell a thread and leaving: so launched, the 512^3
// residual ran at 28 % of DRAM's rate and 58 % of the issue rate, bound by the blocks' latency.
struct PlaneRun {
  unsigned first, end;
};
__device__ __forceinline__ PlaneRun planes_of_thread(int nz) {
  const unsigned threads = gridDim.z * blockDim.z, n = static_cast<unsigned>(nz);
  const unsigned per = (n + threads - 1) / threads;  // one 32-bit division a thread
  const unsigned first = (blockIdx.z * blockDim.z + threadIdx.z) * per;
  return {first, min(first + per, n)};
}

// Every cell of an nx x ny x nz box once, over a 3D grid of 3D blocks that may hold fewer
// blocks than the box needs (launch.hpp caps y and z; cell_grid launches a run of planes a
// thread): body(i, j, k, at). A thread's cells in z, y, x order: its run of planes, and x and y
// strided by the grid's threads along them, with 32-bit counters (64-bit divisions per thread
// cost more than the stencil itself). Every kernel that loops so reads only values no other
// thread of the launch writes, so the order of cells leaves the bits alone.
//
// `fetch(at)`, where a kernel gives one, is called before each cell's body with the index of the
// same column kFetchAhead planes on, while that plane is in the thread's run: the kernel asks
// there for the lines it will read (fetch_line), so that a thread, which otherwise has one cell's
// loads in flight at a time, has the next planes' on their way while it works. An L1 prefetch two
// planes ahead took a 512^3 r = b - A u from 684 to 634 us and a 256^3 one from 101 to 91 us
// (H200; L2 prefetches and 1 or 4 planes ahead gained less). Nothing it does changes a value.
inline constexpr unsigned kFetchAhead = 2;
struct NoFetch {
  __device__ void operator()(std::int64_t) const {}
};
// A prefetch of the line holding `p` into L1: no register written, nothing waited for.
__device__ __forceinline__ void fetch_line(const void* p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

template <class Body, class Fetch = NoFetch>
__device__ __forceinline__ void for_each_cell(int nx, int ny, int nz, Body&& body,
                                              Fetch&& fetch = Fetch{}) {
  const unsigned step_x = gridDim.x * blockDim.x, step_y = gridDim.y * blockDim.y;
  const PlaneRun run = planes_of_thread(nz);
  const std::int64_t sz = static_cast<std::int64_t>(nx) * ny;
  // Column by column (a thread has one where the grid covers the plane, as cell_grid launches it),
  // up its run of planes, the index stepped a plane at a time: no 64-bit products a cell.
  for (unsigned j = blockIdx.y * blockDim.y + threadIdx.y; j < static_cast<unsigned>(ny); j += step_y)
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>(nx); i += step_x) {
      std::int64_t at = i + static_cast<std::int64_t>(nx) * (j + static_cast<std::int64_t>(ny) * run.first);
      for (unsigned k = run.first; k < run.end; ++k, at += sz) {
        if constexpr (!std::is_same_v<std::decay_t<Fetch>, NoFetch>)
          if (k + kFetchAhead < run.end) fetch(at + kFetchAhead * sz);
        body(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k), at);
      }
    }
}

// Every cell of the planes a level's grid holds once, as for_each_cell: body(i, j, k, at) with k
// the plane of the whole level and `at` the storage index. A whole level's is for_each_cell.
template <class T, class Body, class Fetch = NoFetch>
__device__ __forceinline__ void for_each_held(const LevelGrid<T>& g, Body&& body,
                                              Fetch&& fetch = Fetch{}) {
  for_each_cell(g.nx, g.ny, g.nz, body, fetch);
}
template <class T, class Body, class Fetch = NoFetch>
__device__ __forceinline__ void for_each_held(const SlabGrid<T>& g, Body&& body,
                                              Fetch&& fetch = Fetch{}) {
  const int skip = g.z_halos ? 1 : 0;
  const auto body_held = [&](int i, int j, int k, std::int64_t at) {
    body(i, j, k + g.k0, at + skip * g.sz());
  };
  if constexpr (std::is_same_v<std::decay_t<Fetch>, NoFetch>)
    for_each_cell(g.nx, g.ny, g.planes, body_held);
  else
    for_each_cell(g.nx, g.ny, g.planes, body_held,
                  [&](std::int64_t at) { fetch(at + skip * g.sz()); });
}

// The cells of one colour ((i + j + k_first + k) & 1 == colour, k_first the whole level's plane
// that local plane 0 is) of an nx x ny x nz box, as for_each_cell visits every cell: a thread
// along x takes every other cell, so a red-black half sweep launches only the threads that update
// (cell_grid over (nx + 1) / 2 columns: colour_grid). Over every cell with the other colour's
// threads idle, a 512^3 half sweep took 2 ms for 0.6 GB (ncu, 2026-11-28).
template <class Body>
__device__ __forceinline__ void for_each_colour_cell(int nx, int ny, int nz, int k_first,
                                                     int colour, Body&& body) {
  const unsigned step_x = gridDim.x * blockDim.x, step_y = gridDim.y * blockDim.y;
  const unsigned half = (static_cast<unsigned>(nx) + 1) / 2;
  const PlaneRun run = planes_of_thread(nz);
  const std::int64_t sz = static_cast<std::int64_t>(nx) * ny;
  // Column by column up the run, as for_each_cell: the plane's start stepped, i alternating.
  for (unsigned j = blockIdx.y * blockDim.y + threadIdx.y; j < static_cast<unsigned>(ny); j += step_y)
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < half; t += step_x) {
      std::int64_t plane = static_cast<std::int64_t>(nx) * (j + static_cast<std::int64_t>(ny) * run.first);
      for (unsigned k = run.first; k < run.end; ++k, plane += sz) {
        const unsigned i = 2 * t + ((static_cast<unsigned>(colour) + j + k +
                                     static_cast<unsigned>(k_first)) & 1u);
        if (i < static_cast<unsigned>(nx))
          body(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k), plane + i);
      }
    }
}

// Every cell of one colour ((i + j + k) & 1 == colour, k the whole level's plane) among the planes
// a level's grid holds, as for_each_held.
template <class T, class Body>
__device__ __forceinline__ void for_each_held_of_colour(const LevelGrid<T>& g, int colour,
                                                        Body&& body) {
  for_each_colour_cell(g.nx, g.ny, g.nz, 0, colour, body);
}
template <class T, class Body>
__device__ __forceinline__ void for_each_held_of_colour(const SlabGrid<T>& g, int colour,
                                                        Body&& body) {
  const int skip = g.z_halos ? 1 : 0;
  for_each_colour_cell(g.nx, g.ny, g.planes, g.k0, colour,
                       [&](int i, int j, int k, std::int64_t at) {
                         body(i, j, k + g.k0, at + skip * g.sz());
                       });
}

}  // namespace parasol::poisson
