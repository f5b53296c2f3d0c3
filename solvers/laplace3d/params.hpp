// laplace3d parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/precision.hpp"
#include "kernels/shape.hpp"

namespace parasol::laplace3d {

// The GPU kernels, by the names users type.
// zmarch: the course kernel; block3d: a point per thread of a 3D block; zreg: z-neighbours in
// registers; zreg-vec: zreg with 16-byte vector loads and stores along x (rows whose length is
// not a multiple of the vector run zreg); smem-zreg: zreg with the xy plane in shared memory;
// temporal: four iterations per pass over memory (temporal blocking; iteration counts that are
// not a multiple of four finish with zreg sweeps).
enum class Variant { zmarch, block3d, zreg, zreg_vector, smem_zreg, temporal };
inline constexpr std::array kVariants{Variant::zmarch,      Variant::block3d,
                                      Variant::zreg,        Variant::zreg_vector,
                                      Variant::smem_zreg,   Variant::temporal};
std::string_view name(Variant v);
Variant parse_variant(std::string_view s);  // throws InputError listing the valid names

// The precision it computes in: the kernel layer's one type (kernels/precision.hpp).
using parasol::Precision;
using parasol::parse_precision;

// How the interior starts; the boundary always holds the face values.
enum class Interior { random, constant };
std::string_view name(Interior i);  // "random", "constant"
Interior parse_interior(std::string_view s);

// Points in each direction, boundary planes included. Stored x fastest: index i + nx*(j + ny*k).
struct Extent3 {
  std::int64_t nx = 1, ny = 1, nz = 1;
  std::int64_t points() const { return nx * ny * nz; }
  friend bool operator==(const Extent3& a, const Extent3& b) {
    return a.nx == b.nx && a.ny == b.ny && a.nz == b.nz;
  }
};

// Dirichlet values, one per face. Where faces meet, the x faces win over y, and y over z.
struct Faces {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0, z_min = 0, z_max = 0;
};

struct Params {
  Extent3 grid{64, 64, 64};
  double spacing = 1.0;  // grid spacing, equal in x, y and z; used for output coordinates only
  Faces boundary;
  Interior interior = Interior::random;  // random: uniform in [0, 1) from `seed`
  double interior_value = 0.0;           // with Interior::constant
  std::uint64_t seed = 1;

  std::int64_t max_iterations = 100;
  double tolerance = 0.0;         // stop once max |u_new - u| < tolerance; 0 runs every iteration
  std::int64_t check_every = 50;  // iterations between convergence checks (and progress reports)

  Variant variant = Variant::zreg;
  Shape block{64, 4, 1};  // threads; fastest zreg shape on an H100 (docs/journal/2026-11.md)
  Precision precision = Precision::single;

  CheckpointParams checkpoint;  // [checkpoint]: the solver's state every N iterations, on a signal

  // Throws InputError naming the offending key (its source left for the caller to fill in).
  // Checks what is known without a device: sizes, counts, and that the block is compiled in.
  void validate() const;
};

// The block a variant runs when the parameter file names none: 64x4x1 (the fastest zreg shape on
// an H100), 32x8x2 for block3d and 64x8x1 for temporal, whose compiled shapes differ.
Shape default_block(Variant v);

// Bytes the GPU solver allocates on the device (two copies of the field, plus scratch).
std::uint64_t device_bytes(const Params& p);

}  // namespace parasol::laplace3d
