#include "solvers/coulomb/params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "kernels/name_table.hpp"
#include "solvers/coulomb/shapes.hpp"

namespace parasol::coulomb {
namespace {

constexpr NameTable<Variant, 5> kVariantNames{{{Variant::scatter, "scatter"},
                                               {Variant::gather, "gather"},
                                               {Variant::gather_coarse, "gather-coarse"},
                                               {Variant::gather_shared, "gather-shared"},
                                               {Variant::gather_hybrid, "gather-hybrid"}}};
constexpr NameTable<AtomFormat, 2> kAtomFormatNames{
    {{AtomFormat::pqr, "pqr"}, {AtomFormat::xyz, "xyz"}}};
constexpr NameTable<PotentialUnit, 2> kPotentialUnitNames{
    {{PotentialUnit::kcal_per_mol_e, "kcal/(mol·e)"}, {PotentialUnit::kt_per_e, "kT/e"}}};
constexpr NameTable<LatticeCenter, 2> kLatticeCenterNames{
    {{LatticeCenter::origin, "origin"}, {LatticeCenter::molecule, "molecule"}}};


}  // namespace

std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }
std::string_view name(PotentialUnit u) { return lookup_name(kPotentialUnitNames, u); }
PotentialUnit parse_potential_unit(std::string_view s) {
  return lookup_value(kPotentialUnitNames, s, "unit");
}

std::string_view name(LatticeCenter c) { return lookup_name(kLatticeCenterNames, c); }
LatticeCenter parse_lattice_center(std::string_view s) {
  return lookup_value(kLatticeCenterNames, s, "lattice centre");
}

std::string_view name(AtomFormat f) { return lookup_name(kAtomFormatNames, f); }
AtomFormat parse_atom_format(std::string_view s) {
  return lookup_value(kAtomFormatNames, s, "atom format");
}

void Params::validate() const {
  const Lattice& n = lattice;
  require(n.nx >= 1, "lattice.nx", "expected a positive integer, got " + std::to_string(n.nx));
  require(n.ny >= 1, "lattice.ny", "expected a positive integer, got " + std::to_string(n.ny));
  require(n.nz >= 1, "lattice.nz",
          "expected a positive integer (1 for a 2D slice), got " + std::to_string(n.nz));
  // Checked factor by factor so the product cannot overflow before it is compared.
  constexpr std::int64_t kMostPoints = std::int64_t(1) << 40;
  const bool small = n.nx < kMostPoints && n.ny < kMostPoints / n.nx &&
                     n.nz < kMostPoints / (n.nx * n.ny);
  require(small, "lattice",
          "expected fewer than 2^40 lattice points, got " + extent(n));
  require(std::isfinite(n.spacing) && n.spacing > 0, "lattice.spacing",
          "expected a positive number, got " + shown(n.spacing));
  require(std::all_of(n.origin.begin(), n.origin.end(), [](double x) { return std::isfinite(x); }),
          "lattice.origin",
          "expected three finite numbers, got [" + shown(n.origin[0]) + ", " +
              shown(n.origin[1]) + ", " + shown(n.origin[2]) + "]");
  require(!margin || (std::isfinite(*margin) && *margin >= 0), "lattice.margin",
          "expected a distance >= 0, got " + shown(margin.value_or(0)));
  require(!atoms_file.empty(), "atoms.file", "expected the name of a PQR or XYZ file");
  require(std::isfinite(coulomb_constant), "physics.coulomb_constant",
          "expected a finite number, got " + shown(coulomb_constant));
  require(std::isfinite(min_distance) && min_distance > 0, "physics.min_distance",
          "expected a positive distance, got " + shown(min_distance));
  require(!(potential_unit == PotentialUnit::kt_per_e) ||
              (std::isfinite(temperature) && temperature > 0),
          "units.temperature", "expected a positive temperature in K, got " + shown(temperature));
  // Positions and terms are float: the lattice's far corner, and k q / r at the nearest
  // distance a term is taken at, must stay in float's range.
  const double far = std::max({std::abs(n.origin[0]) + static_cast<double>(n.nx) * n.spacing,
                               std::abs(n.origin[1]) + static_cast<double>(n.ny) * n.spacing,
                               std::abs(n.origin[2]) + static_cast<double>(n.nz) * n.spacing});
  require_representable(far, "lattice", true);
  require_representable(coulomb_constant, "physics.coulomb_constant", true,
                        std::max(1.0, 1.0 / min_distance));
  if (std::find(kCoarsenings.begin(), kCoarsenings.end(), coarsening) == kCoarsenings.end()) {
    std::string list;
    for (int c : kCoarsenings) list += (list.empty() ? "" : ", ") + std::to_string(c);
    throw InputError("", "method.coarsening",
                     "expected one of " + list + " (points per thread), got " +
                         std::to_string(coarsening));
  }
  // The lattice's x runs along a warp and y across the block; z is looped over.
  const std::string shape = to_string(block);
  require(block.z == 1, "method.block", "expected a 2D block [x, y, 1], got " + shape);
  require(block.x == 16 || (block.x >= 32 && block.x % 32 == 0), "method.block",
          "expected block x 16 or a multiple of 32 (a warp along one or two lattice rows), got " +
              shape);
  require(block.y >= 1 && block.threads() >= 32 && block.threads() <= 1024, "method.block",
          "expected 32 to 1024 threads, got " + shape);
  const std::vector<Shape>& compiled = compiled_shapes();
  if (std::find(compiled.begin(), compiled.end(), block) == compiled.end())
    throw InputError("", "method.block", not_compiled("block", block, "", compiled));
}

std::vector<Shape> compiled_shapes() { return parasol::compiled_shapes(GatherShapes{}); }

Params placed(Params p, const Box& box) {
  if (p.center != LatticeCenter::molecule) return p;
  Lattice& n = p.lattice;
  std::array<std::int64_t*, 3> points{&n.nx, &n.ny, &n.nz};
  for (int a = 0; a < 3; ++a) {
    const double centre = 0.5 * (box.low[a] + box.high[a]);
    if (p.margin) {
      const double spans = (box.high[a] - box.low[a] + 2 * *p.margin) / n.spacing;
      // A span that is a whole number of spacings, give or take rounding in the division, takes
      // exactly that many: 1e-9 of a spacing is far below any coordinate a PQR file can write.
      require(spans < 0x1p40, "lattice.margin",
              "expected a margin that leaves fewer than 2^40 points along each axis at spacing " +
                  shown(n.spacing) + ", got " + shown(*p.margin));
      *points[a] = static_cast<std::int64_t>(std::ceil(spans - 1e-9)) + 1;
    }
    n.origin[a] = centre - 0.5 * n.spacing * static_cast<double>(*points[a] - 1);
  }
  p.validate();
  return p;
}

std::string extent(const Lattice& n) {
  return std::to_string(n.nx) + "x" + std::to_string(n.ny) + "x" + std::to_string(n.nz);
}

std::string placement(const Params& p) {
  if (p.center != LatticeCenter::molecule) return "";
  const auto& o = p.lattice.origin;
  char text[128];
  std::snprintf(text, sizeof text, ", centred on the atoms from (%.6g, %.6g, %.6g)", o[0], o[1],
                o[2]);
  return text;
}

std::string dx_comment(const Params& p, std::size_t atoms) {
  const std::string unit(name(p.potential_unit));
  // APBS's maps say their unit in a line "POTENTIAL (kT/e)".
  return "Data from parasol coulomb\n  POTENTIAL (" + unit + ")\n" +
         "Coulomb potential by direct summation\n" + std::to_string(atoms) + " atoms from " +
         p.atoms_file + "\ncoulomb_constant " + std::to_string(p.coulomb_constant) +
         (p.potential_unit == PotentialUnit::kt_per_e
              ? "\ntemperature " + std::to_string(p.temperature) + " K"
              : std::string());
}

std::string describe_method(const Params& p) {
  std::string method = std::string(name(p.variant)) + " " + to_string(p.block);
  if (coarsens(p.variant)) method += ", " + std::to_string(p.coarsening) + " points per thread";
  return method;
}

Params with_method(Params p, const Method& m) {
  p.variant = m.variant;
  p.block = m.block;
  p.coarsening = m.coarsening;
  return p;
}

std::vector<Method> sweep_methods(const Shape& block) {
  std::vector<Method> methods{{Variant::scatter, block, 1}};
  for (Variant v : kVariants)
    for (const Shape& b : compiled_shapes())
      for (int c : kCoarsenings)
        if (v != Variant::scatter && (c == 1 || coarsens(v))) methods.push_back({v, b, c});
  return methods;
}

}  // namespace parasol::coulomb
