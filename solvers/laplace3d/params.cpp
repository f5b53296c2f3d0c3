#include "solvers/laplace3d/params.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "kernels/name_table.hpp"
#include "solvers/laplace3d/shapes.hpp"

namespace parasol::laplace3d {
namespace {

constexpr NameTable<Variant, 6> kVariantNames{{{Variant::zmarch, "zmarch"},
                                               {Variant::block3d, "block3d"},
                                               {Variant::zreg, "zreg"},
                                               {Variant::zreg_vector, "zreg-vec"},
                                               {Variant::smem_zreg, "smem-zreg"},
                                               {Variant::temporal, "temporal"}}};
constexpr NameTable<Interior, 2> kInteriorNames{
    {{Interior::random, "random"}, {Interior::constant, "constant"}}};

}  // namespace

std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }
std::string_view name(Interior i) { return lookup_name(kInteriorNames, i); }
Interior parse_interior(std::string_view s) { return lookup_value(kInteriorNames, s, "interior"); }

std::vector<Shape> compiled_shapes(Variant v) {
  switch (v) {
    case Variant::block3d: return compiled_shapes(Block3dShapes{});
    case Variant::smem_zreg: return compiled_shapes(SmemShapes{});
    case Variant::temporal: return compiled_shapes(TemporalShapes{});
    default: return compiled_shapes(MarchShapes{});
  }
}

Shape default_block(Variant v) {
  switch (v) {
    case Variant::block3d: return {32, 8, 2};
    case Variant::temporal: return {64, 8, 1};
    default: return Params{}.block;
  }
}

void Params::validate() const {
  // Three points is the smallest extent with an interior point between two boundary planes.
  const auto check_extent = [](std::int64_t n, const char* key) {
    require(n >= 3, key,
            "expected an integer of at least 3 (two boundary planes and an interior), got " +
                std::to_string(n));
  };
  check_extent(grid.nx, "grid.nx");
  check_extent(grid.ny, "grid.ny");
  check_extent(grid.nz, "grid.nz");
  // Past 2^62 points the byte counts themselves overflow; no machine comes close.
  require(grid.points() / grid.nx / grid.ny == grid.nz && grid.points() < (std::int64_t{1} << 62),
          "grid", "the grid has too many points to address");
  require(std::isfinite(spacing) && spacing > 0, "grid.spacing",
          "expected a positive number, got " + std::to_string(spacing));
  const std::pair<double, const char*> faces[] = {
      {boundary.x_min, "boundary.x_min"}, {boundary.x_max, "boundary.x_max"},
      {boundary.y_min, "boundary.y_min"}, {boundary.y_max, "boundary.y_max"},
      {boundary.z_min, "boundary.z_min"}, {boundary.z_max, "boundary.z_max"}};
  // A Jacobi update adds six neighbours before scaling by 1/6: each value must leave room for
  // that sum in the run's precision (1e38 is a float, six of them are not).
  const bool single = precision == Precision::single;
  for (const auto& [value, key] : faces) require_representable(value, key, single, 6);
  require_representable(interior_value, "initial.value", single, 6);
  require(max_iterations >= 1, "iteration.max_iterations",
          "expected a positive integer, got " + std::to_string(max_iterations));
  require(std::isfinite(tolerance) && tolerance >= 0, "iteration.tolerance",
          "expected a number >= 0 (0 runs every iteration), got " + std::to_string(tolerance));
  require(check_every >= 1, "iteration.check_every",
          "expected a positive integer, got " + std::to_string(check_every));
  const std::vector<Shape> shapes = compiled_shapes(variant);
  if (std::find(shapes.begin(), shapes.end(), block) == shapes.end())
    throw InputError("", "method.block", not_compiled("block", block, name(variant), shapes));
}

std::uint64_t device_bytes(const Params& p) {
  const std::uint64_t element = p.precision == Precision::single ? 4 : 8;
  // Two copies of the field for the Jacobi ping-pong, each with its guard cells; the reduction
  // scratch is a few KiB.
  const auto points = static_cast<std::uint64_t>(p.grid.points() + 2 * temporal_guard_points(p.grid.nx));
  return 2 * element * points + (1u << 20);
}

}  // namespace parasol::laplace3d
