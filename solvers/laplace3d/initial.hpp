// The starting field, point by point, the same on the host and on the device: a point's value
// depends on its indices and the parameters alone, so a rank's slab, or the whole field made on
// the GPU, holds exactly the values the CPU gold starts from.
#pragma once

#include <cstdint>

#include "solvers/laplace3d/params.hpp"

#ifdef __CUDACC__
#define PARASOL_LAPLACE3D_HD __host__ __device__
#else
#define PARASOL_LAPLACE3D_HD
#endif

namespace parasol::laplace3d {

// What the starting field depends on, as plain values a kernel can take.
struct Start {
  Extent3 grid;
  Faces faces;
  bool random = true;
  double value = 0;  // the constant interior, when not random
  std::uint64_t seed = 1;
};

inline Start start_of(const Params& p) {
  return {p.grid, p.boundary, p.interior == Interior::random, p.interior_value, p.seed};
}

// Uniform in [0, 1) for point `index` of the grid from `seed`: SplitMix64 of the seed's own mix
// and the index, a counter-based draw. Integer arithmetic and one exact scaling: the same bits on
// every processor.
PARASOL_LAPLACE3D_HD inline double uniform_at(std::uint64_t seed, std::uint64_t index) {
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const std::uint64_t key = mix(seed + 0x9E3779B97F4A7C15ull);
  return static_cast<double>(mix(key + 0x9E3779B97F4A7C15ull * (index + 1)) >> 11) * 0x1.0p-53;
}

// The value of point (i, j, k): a face's where it lies on one (x faces win over y, and y over z,
// where they meet), else the interior's.
PARASOL_LAPLACE3D_HD inline double start_value(const Start& s, std::int64_t i, std::int64_t j,
                                               std::int64_t k) {
  const Extent3& n = s.grid;
  if (i == 0) return s.faces.x_min;
  if (i == n.nx - 1) return s.faces.x_max;
  if (j == 0) return s.faces.y_min;
  if (j == n.ny - 1) return s.faces.y_max;
  if (k == 0) return s.faces.z_min;
  if (k == n.nz - 1) return s.faces.z_max;
  if (!s.random) return s.value;
  return uniform_at(s.seed, static_cast<std::uint64_t>(i + n.nx * (j + n.ny * k)));
}

}  // namespace parasol::laplace3d
