// The 7-point Jacobi update shared by every laplace3d kernel.
#pragma once

#include <cstdint>

#include "kernels/launch.cuh"
#include "solvers/laplace3d/params.hpp"

namespace parasol::laplace3d {

struct Strides {
  std::int64_t nx, ny, nz;  // extent
  std::int64_t sy, sz;      // index steps in y and z (x is 1)
};

inline Strides strides_of(const Extent3& n) { return {n.nx, n.ny, n.nz, n.nx, n.nx * n.ny}; }

// Always in this order (x-, x+, y-, y+, z-, z+), then scaled: the gold solver does the same, so
// float results agree bit for bit whichever kernel ran.
template <class T>
__device__ __forceinline__ T mean_of_neighbours(T xm, T xp, T ym, T yp, T zm, T zp) {
  return (xm + xp + ym + yp + zm + zp) * (T(1) / T(6));
}

}  // namespace parasol::laplace3d
