#include "solvers/laplace3d/keys.hpp"

#include <algorithm>

#include "solvers/laplace3d/shapes.hpp"

namespace parasol::laplace3d {

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    for (const auto& [axis, get] :
         {std::pair{"grid.nx", +[](P& p) -> std::int64_t& { return p.grid.nx; }},
          std::pair{"grid.ny", +[](P& p) -> std::int64_t& { return p.grid.ny; }},
          std::pair{"grid.nz", +[](P& p) -> std::int64_t& { return p.grid.nz; }}})
      k.push_back(key<P>(axis, get, "points in this direction, the two boundary planes included")
                      .required()
                      .values("≥ 3")
                      .unit("points"));
    k.push_back(key<P>("grid.spacing", [](P& p) -> auto& { return p.spacing; },
                       "grid spacing, equal in x, y, z (output coordinates only)")
                    .values("> 0"));
    for (const auto& [face, get] :
         {std::pair{"boundary.x_min", +[](P& p) -> double& { return p.boundary.x_min; }},
          std::pair{"boundary.x_max", +[](P& p) -> double& { return p.boundary.x_max; }},
          std::pair{"boundary.y_min", +[](P& p) -> double& { return p.boundary.y_min; }},
          std::pair{"boundary.y_max", +[](P& p) -> double& { return p.boundary.y_max; }},
          std::pair{"boundary.z_min", +[](P& p) -> double& { return p.boundary.z_min; }},
          std::pair{"boundary.z_max", +[](P& p) -> double& { return p.boundary.z_max; }}})
      k.push_back(key<P>(face, get,
                         "Dirichlet value on this face; where faces meet, x faces win over y, y "
                         "over z"));
    k.push_back(choice<P>("initial.interior", [](P& p) -> auto& { return p.interior; },
                          std::array{Interior::random, Interior::constant}, parse_interior,
                          "starting interior: uniform in [0, 1), or `initial.value`"));
    k.push_back(key<P>("initial.value", [](P& p) -> auto& { return p.interior_value; },
                       "the interior's value with `\"constant\"`")
                    .only_if([](const P& p) { return p.interior == Interior::constant; },
                             "initial.interior = \"constant\""));
    k.push_back(key<P>("initial.seed", [](P& p) -> auto& { return p.seed; },
                       "seed of the random interior: each point's value is a counter-based draw "
                       "(SplitMix64) of the seed and its index, so every rank of a run across GPUs "
                       "makes its own slab with the values a one-rank run has")
                    .values("≥ 0")
                    .only_if([](const P& p) { return p.interior == Interior::random; },
                             "initial.interior = \"random\""));
    k.push_back(key<P>("iteration.max_iterations", [](P& p) -> auto& { return p.max_iterations; },
                       "iterations at most")
                    .required()
                    .values("≥ 1"));
    k.push_back(key<P>("iteration.tolerance", [](P& p) -> auto& { return p.tolerance; },
                       "stop once max |u_new − u| < tolerance; 0 runs every iteration")
                    .values("≥ 0"));
    k.push_back(key<P>("iteration.check_every", [](P& p) -> auto& { return p.check_every; },
                       "iterations between convergence checks (made on the GPU) and progress "
                       "reports")
                    .values("≥ 1"));
    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; }, kVariants,
                          parse_variant,
                          "GPU kernel; `\"auto\"`: the one `parasol sweep --autotune` chose for "
                          "this grid, precision and device")
                    .gpu_only()
                    .or_auto());
    std::string shapes;
    for (Variant v : kVariants) {
      shapes += std::string(shapes.empty() ? "" : "; ") + std::string(name(v)) + ":";
      for (const Shape& s : compiled_shapes(v)) shapes += " " + to_string(s);
    }
    k.push_back(key<P>("method.block", [](P& p) -> auto& { return p.block; },
                       "thread-block shape: one compiled for the variant (" + shapes + ")")
                    .default_from([](const P& p) { return default_block(p.variant); })
                    .shown_default("[64, 4, 1]; block3d [32, 8, 2], temporal [64, 8, 1]")
                    .gpu_only());
    k.push_back(choice<P>("method.precision", [](P& p) -> auto& { return p.precision; },
                          std::array{Precision::single, Precision::double_}, parse_precision,
                          "arithmetic and storage precision"));
    add_checkpoint_keys<P>(k, [](P& p) -> auto& { return p.checkpoint; }, "iterations");
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    k.push_back(choices<S>("sweep.variants", [](S& s) -> auto& { return s.variants; }, kVariants,
                           parse_variant, "variants `parasol sweep` times"));
    k.push_back(key<S>("sweep.blocks", [](S& s) -> auto& { return s.blocks; },
                       "block shapes `parasol sweep` times (each with the variants it is compiled "
                       "for); empty: every compiled shape")
                    .shown_default("every compiled shape"));
    k.push_back(key<S>("sweep.iterations", [](S& s) -> auto& { return s.iterations; },
                       "sweeps per timed repeat")
                    .at_least(1));
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; }, "timed repeats");
    k.push_back(key<S>("sweep.check_iterations", [](S& s) -> auto& { return s.check_iterations; },
                       "sweeps compared with the gold before timing")
                    .at_least(1));
  });
}

std::vector<Params> sweep_configurations(const Params& p, const SweepParams& s) {
  std::vector<Params> configs;
  for (Variant v : s.variants)
    for (const Shape& b : compiled_shapes(v))
      if (s.blocks.empty() || std::find(s.blocks.begin(), s.blocks.end(), b) != s.blocks.end()) {
        configs.push_back(p);
        configs.back().variant = v;
        configs.back().block = b;
      }
  return configs;
}

void require_compiled(const SweepParams& s) {
  for (const Shape& b : s.blocks) {
    SweepParams one = s;
    one.blocks = {b};
    if (sweep_configurations(Params{}, one).empty())
      throw InputError("", "sweep.blocks",
                       "block " + to_string(b) + " is not compiled in for any listed variant");
  }
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    MethodAxes<P> m;
    m.axes = {variant_axis<P>([](P& p) -> auto& { return p.variant; }, parse_variant, 10),
              shape_axis<P>("block", 10, [](P& p) -> auto& { return p.block; }, "128x2x1")};
    m.autotuned = true;
    m.validated_as = "block";
    return m;
  }();
  return axes;
}

}  // namespace parasol::laplace3d
