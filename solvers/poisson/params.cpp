#include "solvers/poisson/params.hpp"

#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "kernels/validate.hpp"

namespace parasol::poisson {
namespace {

constexpr NameTable<FaceKind, 3> kFaceKindNames{{{FaceKind::dirichlet, "dirichlet"},
                                                 {FaceKind::neumann, "neumann"},
                                                 {FaceKind::periodic, "periodic"}}};
constexpr NameTable<SourceKind, 5> kSourceKindNames{{{SourceKind::zero, "zero"},
                                                     {SourceKind::gaussian, "gaussian"},
                                                     {SourceKind::charges, "charges"},
                                                     {SourceKind::manufactured, "manufactured"},
                                                     {SourceKind::file, "file"}}};
constexpr NameTable<Smoother, 2> kSmootherNames{
    {{Smoother::rbgs, "rbgs"}, {Smoother::chebyshev, "chebyshev"}}};
constexpr NameTable<Cycle, 2> kCycleNames{{{Cycle::fmg, "fmg"}, {Cycle::v, "v"}}};
constexpr NameTable<Variant, 2> kVariantNames{{{Variant::plain, "plain"}, {Variant::fused, "fused"}}};

std::string face_key(int index, const char* field) {
  return std::string("boundary.") + kFaceNames[static_cast<std::size_t>(index)] + "." + field;
}

}  // namespace

std::string_view name(FaceKind k) { return lookup_name(kFaceKindNames, k); }
FaceKind parse_face_kind(std::string_view s) { return lookup_value(kFaceKindNames, s, "face kind"); }
std::string_view name(SourceKind k) { return lookup_name(kSourceKindNames, k); }
SourceKind parse_source_kind(std::string_view s) {
  return lookup_value(kSourceKindNames, s, "source kind");
}
std::string_view name(Smoother s) { return lookup_name(kSmootherNames, s); }
Smoother parse_smoother(std::string_view s) { return lookup_value(kSmootherNames, s, "smoother"); }
std::string_view name(Cycle c) { return lookup_name(kCycleNames, c); }
Cycle parse_cycle(std::string_view s) { return lookup_value(kCycleNames, s, "cycle"); }
std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }

const Face& Params::face(int index) const {
  switch (index) {
    case 0: return x_min;
    case 1: return x_max;
    case 2: return y_min;
    case 3: return y_max;
    case 4: return z_min;
    default: return z_max;
  }
}

Face& Params::face(int index) {
  return const_cast<Face&>(static_cast<const Params&>(*this).face(index));
}

bool singular(const Params& p) {
  if (p.alpha != 0) return false;
  for (int f = 0; f < 6; ++f)
    if (p.face(f).kind == FaceKind::dirichlet) return false;
  return true;
}

void Params::validate() const {
  // Two cells is the smallest side on which every face kind has a neighbour to take the ghost's
  // place against.
  const std::pair<std::int64_t, const char*> sides[] = {
      {nx, "grid.nx"}, {ny, "grid.ny"}, {nz, "grid.nz"}};
  for (const auto& [n, key] : sides)
    require(n >= 2, key, "expected an integer of at least 2 (cells), got " + std::to_string(n));
  // Past 2^62 cells the byte counts themselves overflow; no machine comes close.
  require(cells() / nx / ny == nz && cells() < (std::int64_t{1} << 62), "grid",
          "the grid has too many cells to address");
  const std::pair<double, const char*> spacings[] = {{hx, "grid.hx"}, {hy, "grid.hy"}, {hz, "grid.hz"}};
  for (const auto& [h, key] : spacings)
    require(std::isfinite(h) && h > 0, key, "expected a positive number, got " + shown(h));
  require(std::isfinite(alpha) && alpha >= 0, "problem.alpha",
          "expected a number >= 0 (0: Poisson, > 0: Helmholtz), got " + shown(alpha));

  const bool single = precision == Precision::single;
  for (int axis = 0; axis < 3; ++axis) {
    const Face& lo = face(axis, 0);
    const Face& hi = face(axis, 1);
    if ((lo.kind == FaceKind::periodic) != (hi.kind == FaceKind::periodic))
      throw InputError("", face_key(2 * axis + (lo.kind == FaceKind::periodic ? 1 : 0), "kind").c_str(),
                       std::string("expected \"periodic\": faces are periodic in pairs, and ") +
                           kFaceNames[static_cast<std::size_t>(2 * axis)] + "'s kind is " +
                           std::string(name(lo.kind)) + " while " +
                           kFaceNames[static_cast<std::size_t>(2 * axis + 1)] + "'s is " +
                           std::string(name(hi.kind)));
    for (int side = 0; side < 2; ++side) {
      const std::string key = face_key(2 * axis + side, "value");
      // A Dirichlet value enters the right-hand side as 2g/h², a Neumann one as g/h.
      require_representable(face(axis, side).value, key.c_str(), single);
      if (source.kind == SourceKind::manufactured)
        require(face(axis, side).value == 0 || face(axis, side).kind == FaceKind::periodic,
                key.c_str(),
                "expected 0 with source.kind = \"manufactured\" (the manufactured solution is 0 "
                "on Dirichlet faces and has no flux through Neumann ones), got " +
                    shown(face(axis, side).value));
    }
  }

  require(source.centre.size() == 3, "source.centre",
          "expected three fractions of the box's sides [x, y, z], got " +
              std::to_string(source.centre.size()) + " numbers");
  for (double c : source.centre)
    require(std::isfinite(c), "source.centre", "expected finite numbers, got " + shown(c));
  require(std::isfinite(source.width) && source.width > 0, "source.width",
          "expected a positive fraction of the box's shortest side, got " + shown(source.width));
  require(std::isfinite(source.amplitude), "source.amplitude",
          "expected a finite number, got " + shown(source.amplitude));
  if (source.kind == SourceKind::charges) {
    require(!source.charges.empty(), "source.charges",
            "expected at least one charge [x, y, z, q] with source.kind = \"charges\"");
    for (const auto& row : source.charges) {
      require(row.size() == 4, "source.charges",
              "expected rows of four numbers [x, y, z, q], got a row of " +
                  std::to_string(row.size()));
      for (double v : row)
        require(std::isfinite(v), "source.charges", "expected finite numbers, got " + shown(v));
    }
  }
  if (source.kind == SourceKind::file)
    require(!source.file.empty(), "source.file",
            "expected an HDF5 file with source.kind = \"file\"");

  require(pre_sweeps >= 0, "method.pre_sweeps",
          "expected an integer >= 0, got " + std::to_string(pre_sweeps));
  require(post_sweeps >= 0, "method.post_sweeps",
          "expected an integer >= 0, got " + std::to_string(post_sweeps));
  require(pre_sweeps + post_sweeps >= 1, "method.pre_sweeps",
          "expected at least one smoother sweep in a cycle (pre_sweeps + post_sweeps >= 1)");
  require(bottom_cells >= 1, "method.bottom_cells",
          "expected a positive integer, got " + std::to_string(bottom_cells));
  require(bottom_sweeps >= 1, "method.bottom_sweeps",
          "expected a positive integer, got " + std::to_string(bottom_sweeps));
  require(std::isfinite(tolerance) && tolerance >= 0, "iteration.tolerance",
          "expected a number >= 0 (0 runs every cycle), got " + shown(tolerance));
  require(max_cycles >= 0, "iteration.max_cycles",
          "expected an integer >= 0, got " + std::to_string(max_cycles));
  require(max_cycles >= 1 || cycle == Cycle::fmg, "iteration.max_cycles",
          "expected at least 1 V-cycle with method.cycle = \"v\"");
  require(refinements >= 1, "study.refinements",
          "expected a positive integer, got " + std::to_string(refinements));
  if (refinements > 1) {
    require(source.kind == SourceKind::manufactured, "study.refinements",
            "expected 1 unless source.kind = \"manufactured\": the observed order needs the exact "
            "solution");
    // Each coarser grid halves every side, so each side must divide by 2^(k-1) and keep 2 cells.
    const std::int64_t divisor = std::int64_t{1} << (refinements - 1);
    for (const auto& [n, key] : sides)
      require(refinements < 62 && n % divisor == 0 && n / divisor >= 2, "study.refinements",
              std::string("expected each side to halve ") + std::to_string(refinements - 1) +
                  " times to at least 2 cells; " + key + " = " + std::to_string(n) +
                  " does not");
  }
}

}  // namespace parasol::poisson
