#include "solvers/coulomb/keys.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/shapes.hpp"

namespace parasol::coulomb {
namespace {

// lattice.origin: three numbers into the lattice's std::array, the count checked as it is read.
Key<Params> origin_key() {
  Key<Params> k;
  k.info.key = "lattice.origin";
  k.info.type = KeyType::numbers;
  k.info.values = "[x, y, z]";
  k.info.help = "position of lattice point (0, 0, 0), in the atoms' length unit (Å for PQR)";
  const std::array<double, 3> o = Params{}.lattice.origin;
  const KeyValue fallback = std::vector<double>(o.begin(), o.end());
  k.info.fallback = detail::default_text(fallback);
  k.fallback = [fallback](const Params&) { return std::optional<KeyValue>(fallback); };
  k.set = [](Params& p, const KeyValue& v) {
    const auto& xyz = std::get<std::vector<double>>(v);
    if (xyz.size() != 3)
      throw InputError("", "", "expected three numbers [x, y, z], got " + std::to_string(xyz.size()));
    std::copy(xyz.begin(), xyz.end(), p.lattice.origin.begin());
  };
  return std::move(k).only_if([](const Params& p) { return p.center == LatticeCenter::origin; },
                              "lattice.center = \"origin\"");
}

// lattice.margin: a distance into Params' optional, whose absence leaves the points to nx, ny, nz.
Key<Params> margin_key() {
  Key<Params> k;
  k.info.key = "lattice.margin";
  k.info.type = KeyType::number;
  k.info.values = "≥ 0";
  k.info.unit = "Å";
  k.info.help =
      "room on every side of the atoms' bounding box: the lattice spans the box plus twice this "
      "along each axis, rounded up to whole spacings (APBS's `glen` as psize sizes it, with "
      "`fadd` = 2 × margin), and the points follow from `lattice.spacing`; unset, `lattice.nx`, "
      "`ny`, `nz` say the points, still centred on the box";
  k.set = [](Params& p, const KeyValue& v) { p.margin = std::get<double>(v); };
  k.fallback = [](const Params&) { return std::optional<KeyValue>(); };
  return std::move(k).optional("none").only_if(
      [](const Params& p) { return p.center == LatticeCenter::molecule; },
      "lattice.center = \"molecule\"");
}

}  // namespace

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    k.push_back(choice<P>("lattice.center", [](P& p) -> auto& { return p.center; },
                          kLatticeCenters, parse_lattice_center,
                          "where the lattice lies: point (0, 0, 0) at `lattice.origin`, or centred "
                          "on the atoms' bounding box, the centre of its lowest and highest x, y "
                          "and z (APBS's `gcent mol`); the origin it chose is in the summary and "
                          "in `/fields/potential@origin`"));
    k.push_back(origin_key());
    k.push_back(key<P>("lattice.spacing", [](P& p) -> auto& { return p.lattice.spacing; },
                       "lattice spacing, equal in x, y, z")
                    .values("> 0"));
    k.push_back(margin_key());
    for (const auto& [axis, get] :
         {std::pair{"lattice.nx", +[](P& p) -> std::int64_t& { return p.lattice.nx; }},
          std::pair{"lattice.ny", +[](P& p) -> std::int64_t& { return p.lattice.ny; }},
          std::pair{"lattice.nz", +[](P& p) -> std::int64_t& { return p.lattice.nz; }}})
      k.push_back(key<P>(axis, get,
                         "points in this direction; `nz = 1` is a 2D slice at z = `origin[2]`; "
                         "fewer than 2⁴⁰ points in all")
                      .required()
                      .values("≥ 1")
                      .unit("points")
                      .only_if([](const P& p) { return !p.margin; }, "no lattice.margin"));
    k.push_back(file<P>("atoms.file", [](P& p) -> auto& { return p.atoms_file; },
                        "the atoms: a PQR or XYZ file (below); a relative path is taken from the "
                        "parameter file's folder (given on the command line, from the current "
                        "folder)")
                    .required());
    // The format defaults to the file's extension; where that does not say, the key is required,
    // and its absence is reported as such (an empty default stands for "not given").
    Key<P> format = choice<P>("atoms.format", [](P& p) -> auto& { return p.atom_format; },
                              std::array{AtomFormat::pqr, AtomFormat::xyz}, parse_atom_format,
                              "required when the file's extension is neither `.pqr` nor `.xyz`")
                        .default_from([](const P& p) {
                          const std::optional<AtomFormat> f = format_from_extension(p.atoms_file);
                          return f ? std::string(name(*f)) : std::string();
                        })
                        .shown_default("from the extension");
    format.set = [](P& p, const KeyValue& v) {
      const std::string& text = std::get<std::string>(v);
      if (text.empty() && !format_from_extension(p.atoms_file))
        throw InputError("", "",
                         "missing; the extension of \"" +
                             std::filesystem::path(p.atoms_file).filename().string() +
                             "\" does not say, so expected \"pqr\" or \"xyz\"");
      p.atom_format = parse_atom_format(text);
    };
    k.push_back(std::move(format));
    k.push_back(key<P>("physics.coulomb_constant", [](P& p) -> auto& { return p.coulomb_constant; },
                       "k; 332.0637 gives kcal/(mol e) for charges in e and lengths in Å"));
    k.push_back(key<P>("physics.min_distance", [](P& p) -> auto& { return p.min_distance; },
                       "the near-atom cut-off, in the atoms' length unit")
                    .values("> 0"));
    k.push_back(choice<P>("units.potential", [](P& p) -> auto& { return p.potential_unit; },
                          kPotentialUnits, parse_potential_unit,
                          "the potential's unit in the result, the summary and the OpenDX map: "
                          "the sum as computed (kcal/(mol·e) with `physics.coulomb_constant = "
                          "332.0637`), or that divided by R·T, as APBS writes its maps"));
    k.push_back(key<P>("units.temperature", [](P& p) -> auto& { return p.temperature; },
                       "T of kT/e")
                    .values("> 0")
                    .unit("K")
                    .only_if([](const P& p) { return p.potential_unit == PotentialUnit::kt_per_e; },
                             "units.potential = \"kT/e\""));
    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; }, kVariants,
                          parse_variant,
                          "GPU kernel; `\"auto\"`: the variant, block and coarsening `parasol "
                          "sweep --autotune` chose for this lattice, atom count and device")
                    .gpu_only()
                    .or_auto());
    std::string shapes;
    for (const Shape& s : compiled_shapes()) shapes += (shapes.empty() ? "" : ", ") + to_string(s);
    k.push_back(key<P>("method.block", [](P& p) -> auto& { return p.block; },
                       "thread-block shape over the lattice's x and y: " + shapes +
                           " (the compiled shapes; 16x16x1 lets coarsening 8 cover a lattice "
                           "128 wide)")
                    .values("with z = 1")
                    .gpu_only());
    std::string coarsenings;
    for (std::size_t i = 0; i < kCoarsenings.size(); ++i)
      coarsenings += (i == 0 ? "" : i + 1 == kCoarsenings.size() ? " or " : ", ") +
                     std::to_string(kCoarsenings[i]);
    k.push_back(key<P>("method.coarsening", [](P& p) -> auto& { return p.coarsening; },
                       "lattice points per thread along x (gather-coarse, gather-shared, "
                       "gather-hybrid)")
                    .values(coarsenings)
                    .gpu_only());
    k.push_back(key<P>("output.dx", [](P& p) -> auto& { return p.write_dx; },
                       "also write an OpenDX map beside the result (`OUT.h5` → `OUT.dx`), for "
                       "PyMOL, VMD, Chimera and APBS's tools"));
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; },
                       "`parasol sweep`: timed runs per row (after one warm-up)");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    MethodAxes<P> m;
    m.axes = {variant_axis<P>([](P& p) -> auto& { return p.variant; }, parse_variant, 14),
              shape_axis<P>("block", 9, [](P& p) -> auto& { return p.block; }, "32x8x1")
                  .dash_unless([](const P& p) { return p.variant != Variant::scatter; }),
              integer_axis<P>("coarsening", "coarse", 6, [](P& p) -> auto& { return p.coarsening; },
                              1, 64, "points per thread")};
    m.autotuned = true;
    m.validated_as = "coarsening";
    m.describe = describe_method;
    return m;
  }();
  return axes;
}

}  // namespace parasol::coulomb
