// zreg with vector loads and stores: each thread owns kVector consecutive points of a row (16
// bytes: four floats or two doubles), so every load and store instruction moves 16 bytes and a
// warp covers 512 bytes of a row. The x-neighbours inside a thread's vector are its own; those
// past its ends come from the neighbouring lanes by shuffles, the warp's end lanes loading
// theirs. Rows whose length is not a multiple of the vector cannot be read in aligned vectors:
// the launcher runs the scalar zreg kernel for those grids.
//
// Each block marches through a short chunk of kVectorChunk planes, its steps unrolled, where
// zreg's chunks are 16 to 64 planes long. Blocks, which the hardware starts in order, then walk
// the field nearly as a linear copy does, and the two planes around each chunk are read again
// from L2, as the neighbouring chunks are in flight at the same time. (They must come from L2: a
// six-plane chunk reads a third more than it writes, and the sweep still runs at 91 % of the
// copy.) The unrolled steps let the loads of later planes issue early. On an H100 this reached
// 91.6 % of the runtime's device-to-device copy at 512^3 and 91.2 % at 1024^3, where zreg, in
// chunks of 32 and 64 planes, reached 84-88 % (docs/journal/2026-11.md).
#pragma once

#include "solvers/laplace3d/stencil.cuh"

namespace parasol::laplace3d {

template <class T>
struct Vector16;  // 16 bytes of T, aligned
template <>
struct Vector16<float> {
  using type = float4;
  static constexpr int size = 4;
};
template <>
struct Vector16<double> {
  using type = double2;
  static constexpr int size = 2;
};

// Element e of a vector, by a compile-time index after unrolling.
template <class V>
__device__ __forceinline__ auto& lane_of(V& v, int e) {
  return reinterpret_cast<decltype(v.x)*>(&v)[e];
}
template <class V>
__device__ __forceinline__ auto lane_of(const V& v, int e) {
  return reinterpret_cast<const decltype(v.x)*>(&v)[e];
}

constexpr int kVectorRows = 2;   // rows per thread, as in zreg
constexpr int kVectorChunk = 6;  // planes per block
// Registers are capped so that 1024 threads fit a multiprocessor (64 a thread): the kernel
// otherwise takes 72 and fits only 768. A few bytes spill (in float), and it ran 2-5 % faster.
constexpr int kVectorThreadsPerSm = 1024;

template <int BX, int BY, class T>
__global__ void __launch_bounds__(BX* BY, kVectorThreadsPerSm / (BX * BY))
    zreg_vector_kernel(Strides n, std::int64_t blocks_y, std::int64_t chunks,
                       const T* __restrict__ u, T* __restrict__ u_next) {
  static_assert(BX % 32 == 0, "the x-neighbour shuffles need whole warps along x");
  using V = typename Vector16<T>::type;
  constexpr int W = Vector16<T>::size, R = kVectorRows;
  constexpr unsigned kAll = 0xffffffffu;
  const std::int64_t i0 = (static_cast<std::int64_t>(blockIdx.x) * BX + threadIdx.x) * W;
  const int lane = threadIdx.x % 32;
  const std::int64_t sy = n.sy, sz = n.sz;
  const bool in_x = i0 < n.nx;  // whole vectors: nx is a multiple of W
  for (std::int64_t chunk : block_stride_z(chunks)) {
    const std::int64_t k_begin = 1 + chunk * kVectorChunk;
    const std::int64_t k_end = min(k_begin + kVectorChunk, n.nz - 1);
    for (std::int64_t by : block_stride_y(blocks_y)) {
      const std::int64_t j0 = (by * BY + threadIdx.y) * R;
      bool loads[R], interior_y[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        loads[r] = in_x && j0 + r < n.ny;
        interior_y[r] = j0 + r >= 1 && j0 + r < n.ny - 1;
      }
      const auto vload = [&](const T* p) { return *reinterpret_cast<const V*>(p); };
      const V zero{};
      const T* p = u + i0 + sy * j0 + sz * k_begin;
      T* q = u_next + i0 + sy * j0 + sz * k_begin;
      V below[R], centre[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        below[r] = loads[r] ? vload(p + r * sy - sz) : zero;
        centre[r] = loads[r] ? vload(p + r * sy) : zero;
      }
#pragma unroll
      for (int step = 0; step < kVectorChunk; ++step, p += sz, q += sz) {
        if (k_begin + step >= k_end) break;
        V above[R];
#pragma unroll
        for (int r = 0; r < R; ++r) above[r] = loads[r] ? vload(p + r * sy + sz) : zero;
        const V y_before = in_x && interior_y[0] ? vload(p - sy) : zero;
        const V y_after = in_x && interior_y[R - 1] ? vload(p + R * sy) : zero;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          // The x-neighbours past the vector's ends: from the lanes beside, or from memory.
          T left = __shfl_up_sync(kAll, lane_of(centre[r], W - 1), 1);
          T right = __shfl_down_sync(kAll, lane_of(centre[r], 0), 1);
          if (!(in_x && interior_y[r])) continue;
          if (lane == 0 && i0 >= 1) left = p[r * sy - 1];
          if (lane == 31 && i0 + W < n.nx) right = p[r * sy + W];
          const V& ym = r == 0 ? y_before : centre[r - 1];
          const V& yp = r == R - 1 ? y_after : centre[r + 1];
          V out = centre[r];  // the x boundary keeps its value, rewritten with the rest
#pragma unroll
          for (int e = 0; e < W; ++e) {
            const std::int64_t i = i0 + e;
            if (i >= 1 && i < n.nx - 1)
              lane_of(out, e) = mean_of_neighbours(
                  e == 0 ? left : lane_of(centre[r], e - 1),
                  e == W - 1 ? right : lane_of(centre[r], e + 1), lane_of(ym, e), lane_of(yp, e),
                  lane_of(below[r], e), lane_of(above[r], e));
          }
          *reinterpret_cast<V*>(q + r * sy) = out;
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

}  // namespace parasol::laplace3d
