// coulomb parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/shape.hpp"

namespace parasol::coulomb {

// The GPU kernels, by the names users type.
// gather-hybrid is gather-shared with one point in `coarsening` taking its reciprocal square root
// on the FMA pipe (bit trick and three Newton steps) instead of the special-function unit.
enum class Variant { scatter, gather, gather_coarse, gather_shared, gather_hybrid };
inline constexpr std::array kVariants{Variant::scatter, Variant::gather, Variant::gather_coarse,
                                      Variant::gather_shared, Variant::gather_hybrid};
// "scatter", "gather", "gather-coarse", "gather-shared", "gather-hybrid"
std::string_view name(Variant v);
// Whether the variant computes `coarsening` points per thread.
inline bool coarsens(Variant v) {
  return v == Variant::gather_coarse || v == Variant::gather_shared || v == Variant::gather_hybrid;
}
Variant parse_variant(std::string_view s);

enum class AtomFormat { pqr, xyz };
std::string_view name(AtomFormat f);  // "pqr", "xyz"
AtomFormat parse_atom_format(std::string_view s);

// The unit the potential is stored and reported in. The sum is in kcal/(mol·e) when
// physics.coulomb_constant is 332.0637 (charges in e, lengths in Å); kT/e divides it by R·T, as
// APBS's maps are written.
enum class PotentialUnit { kcal_per_mol_e, kt_per_e };
inline constexpr std::array kPotentialUnits{PotentialUnit::kcal_per_mol_e, PotentialUnit::kt_per_e};
std::string_view name(PotentialUnit u);  // "kcal/(mol·e)", "kT/e"
PotentialUnit parse_potential_unit(std::string_view s);

// The gas constant in kcal/(mol·K) (CODATA 2018's R = 8.314462618 J/(mol·K) over 4184 J/kcal).
inline constexpr double kGasConstantKcal = 1.987204259e-3;

// A regular lattice: point (i, j, k) is at origin + spacing * (i, j, k). A 2D slice is nz = 1.
struct Lattice {
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 0.5;
  std::int64_t nx = 64, ny = 64, nz = 64;
  std::int64_t points() const { return nx * ny * nz; }
};

// "256x256x256": the lattice's points along x, y and z.
std::string extent(const Lattice& n);

// Where the lattice is placed: at lattice.origin as given, or centred on the atoms' bounding box
// (APBS's `gcent mol` / `fgcent mol`, which takes the box's centre, not the atoms' mean, so that
// an elongated molecule is not pushed against one face).
enum class LatticeCenter { origin, molecule };
inline constexpr std::array kLatticeCenters{LatticeCenter::origin, LatticeCenter::molecule};
std::string_view name(LatticeCenter c);  // "origin", "molecule"
LatticeCenter parse_lattice_center(std::string_view s);

// The atoms' bounding box, in their length unit.
struct Box {
  std::array<double, 3> low{0, 0, 0}, high{0, 0, 0};
};

struct Params {
  Lattice lattice;
  LatticeCenter center = LatticeCenter::origin;
  // With center = molecule: the room left on every side of the atoms' box. The lattice then spans
  // the box plus twice this along each axis (APBS's `glen`, as psize sizes it: the molecule's
  // length plus `fadd`, 2 x margin), rounded up to whole spacings; the spacing is kept and the
  // points follow from it. Unset: lattice.nx, ny and nz say the points.
  std::optional<double> margin;
  std::string atoms_file;             // PQR or XYZ-with-charges; resolved against the params file
  AtomFormat atom_format = AtomFormat::pqr;
  // V(r) = k sum_i q_i / max(|r - r_i|, min_distance): a lattice point closer than min_distance
  // to an atom takes that atom's term at min_distance (the near-atom rule, the same everywhere).
  double coulomb_constant = 1.0;      // k; 332.0637 gives kcal/(mol e) for charges in e and Å
  double min_distance = 0.1;          // same length unit as the coordinates (Å for PQR)
  PotentialUnit potential_unit = PotentialUnit::kcal_per_mol_e;
  double temperature = 298.15;        // K: kT/e's T

  // What the sum is multiplied by to give the potential in `potential_unit`.
  double potential_scale() const {
    return potential_unit == PotentialUnit::kt_per_e ? 1.0 / (kGasConstantKcal * temperature) : 1.0;
  }

  Variant variant = Variant::gather_shared;  // fastest with coarsening 4 (docs/journal/2026-11.md)
  Shape block{32, 8, 1};              // threads; x and y of the lattice
  int coarsening = 4;                 // lattice points per thread along x: 1, 2, 4 or 8

  bool write_dx = false;              // also write an OpenDX map beside the HDF5 result

  // Throws InputError naming the offending key (its source left for the caller).
  void validate() const;
};

// p with its lattice placed around atoms whose bounding box is `box`: with center = molecule,
// the points from the margin (when set) and the origin that centres the lattice on the box;
// unchanged with center = origin. Validated again, since the points and the origin are new;
// throws InputError naming lattice.margin when the margin asks for too many points.
Params placed(Params p, const Box& box);

inline constexpr std::array kCoarsenings{1, 2, 4, 8};

// ", centred on the atoms from (-4.13, -5.65, -4.89)": where a lattice centred on the molecule
// begins, for a summary; nothing for one placed at lattice.origin, which the result file says.
std::string placement(const Params& p);

// The comment lines an OpenDX map of the potential of `atoms` atoms carries: the unit in APBS's
// "POTENTIAL (kT/e)" line, where the atoms came from, the Coulomb constant and the temperature.
std::string dx_comment(const Params& p, std::size_t atoms);

// What runs, in words: "gather-coarse 32x8x1, 4 points per thread" (the points per thread only
// for a variant that coarsens).
std::string describe_method(const Params& p);

// A kernel and its launch: what a sweep varies and an autotune choice stores.
struct Method {
  Variant variant;
  Shape block;
  int coarsening;
};

// `p` with m's variant, block and coarsening.
Params with_method(Params p, const Method& m);

// Every method a sweep times: scatter once, at `block` and coarsening 1 (it ignores both), then
// each gather variant at each compiled block shape and each coarsening it takes (1 alone for
// gather), in the order of kVariants, compiled_shapes() and kCoarsenings.
std::vector<Method> sweep_methods(const Shape& block);

}  // namespace parasol::coulomb
