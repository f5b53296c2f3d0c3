#include "solvers/tridiag/keys.hpp"

#include <array>
#include <cmath>
#include <climits>
#include <string>
#include <utility>

#include "kernels/validate.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/problem.hpp"
#include "solvers/tridiag/sweep.hpp"

namespace parasol::tridiag {
namespace {

bool is_heat(const Params& p) { return p.problem == Problem::heat; }
bool is_file(const Params& p) { return p.problem == Problem::file; }
bool is_random(const Params& p) { return p.problem == Problem::random; }
bool is_multi_rhs(const Params& p) { return p.kind == Kind::multi_rhs; }
bool whole_systems(const Params& p) { return p.cut == Cut::systems; }

// A non-empty list of 32-bit integers stored in `field(s)` (a TOML array, read as numbers so that
// 256.5 is caught), each judged by `check` (which throws InputError, its key left empty).
template <class S, class Field, class Check>
Key<S> int_list(std::string key_name, Field field, std::string help, Check check) {
  Key<S> k;
  k.info.key = std::move(key_name);
  k.info.type = KeyType::numbers;
  k.info.help = std::move(help);
  S made{};
  const std::vector<int> defaults = field(made);
  std::vector<double> given(defaults.begin(), defaults.end());
  std::string text;
  for (int v : defaults) text += (text.empty() ? "[" : ", ") + std::to_string(v);
  k.info.fallback = text + "]";
  k.fallback = [given](const S&) { return std::optional<KeyValue>(KeyValue(given)); };
  k.set = [field, check](S& s, const KeyValue& v) {
    std::vector<int> out;
    for (double x : std::get<std::vector<double>>(v)) {
      if (!(x == std::floor(x) && x >= INT_MIN && x <= INT_MAX))
        throw InputError("", "", "expected a list of integers, got " + shown(x));
      check(static_cast<int>(x));
      out.push_back(static_cast<int>(x));
    }
    if (out.empty()) throw InputError("", "", "expected at least one value");
    field(s) = std::move(out);
  };
  return k;
}

}  // namespace

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    const std::string heat = "problem.kind = \"heat\"";
    const std::string file_kind = "problem.kind = \"file\"";
    const std::string random_kind = "problem.kind = \"random\"";
    k.push_back(choice<P>("problem.kind", [](P& p) -> auto& { return p.problem; },
                          std::array{Problem::heat, Problem::file, Problem::random}, parse_problem,
                          "what is solved (above); the other problems' keys are then an error, "
                          "not ignored"));
    k.push_back(choice<P>("system.kind", [](P& p) -> auto& { return p.kind; }, kKinds, parse_kind,
                          "what each system is: `general` tridiagonal; `periodic` (a ring: a[0] "
                          "couples x[n−1], c[n−1] couples x[0]; n ≥ 3; with `heat`, a heat ring); "
                          "`multi-rhs` (one matrix, `system.rhs` right-hand sides); "
                          "`pentadiagonal`; `block2` (2×2 blocks). Layouts in "
                          "docs/hdf5-layout.md"));
    k.push_back(choice<P>("system.cut", [](P& p) -> auto& { return p.cut; }, kCuts, parse_cut,
                          "across ranks: `systems`, each system whole on one rank; `rows`, one "
                          "long system (or a few) whose rows are cut among the ranks and solved "
                          "by the partition method (general or periodic systems, `random` or "
                          "`file`; "
                          "docs/scaling.md). The GPU cuts each rank's rows again, into pieces of " +
                              std::to_string(kDevicePieceRows) + " rows, one thread each"));
    k.push_back(key<P>("system.rhs", [](P& p) -> auto& { return p.rhs; },
                       "`multi-rhs`: right-hand sides per system, solved with one elimination")
                    .values("≥ 1")
                    .only_if(is_multi_rhs, "system.kind = \"multi-rhs\""));
    k.push_back(choice<P>("problem.precision", [](P& p) -> auto& { return p.precision; },
                          std::array{Precision::single, Precision::double_}, parse_precision,
                          "storage and arithmetic on the GPU (the gold is always double)"));
    k.push_back(key<P>("heat.points", [](P& p) -> auto& { return p.heat.points; },
                       "interior points per grid: n, dx = 1 / (points + 1)")
                    .required()
                    .values("≥ 1")
                    .only_if(is_heat, heat));
    k.push_back(key<P>("heat.grids", [](P& p) -> auto& { return p.heat.grids; },
                       "independent grids: the systems of each solve; fewer than 2⁴⁰ unknowns in "
                       "all")
                    .required()
                    .values("≥ 1")
                    .only_if(is_heat, heat));
    k.push_back(key<P>("heat.steps", [](P& p) -> auto& { return p.heat.steps; },
                       "backward-Euler steps (0 writes the start)")
                    .required()
                    .values("≥ 0")
                    .only_if(is_heat, heat));
    k.push_back(key<P>("heat.lambda", [](P& p) -> auto& { return p.heat.lambda; }, "dx² / dt")
                    .values("> 0")
                    .only_if(is_heat, heat));
    k.push_back(choice<P>("heat.initial", [](P& p) -> auto& { return p.heat.initial; },
                          std::array{Initial::sine, Initial::random, Initial::step}, parse_initial,
                          "the start: `sin(π mode (j + 1) / (points + 1))`; uniform in [0, 1) from "
                          "`heat.seed` (every grid different); 1 where 1/3 ≤ (j + 1) / (points + "
                          "1) ≤ 2/3, else 0. Every grid starts alike but with `random`")
                    .only_if(is_heat, heat));
    k.push_back(key<P>("heat.mode", [](P& p) -> auto& { return p.heat.mode; },
                       "with `sine`: half-waves across the grid")
                    .values("≥ 1")
                    .only_if(is_heat, heat));
    for (const auto& [end, get] :
         {std::pair{"heat.left", +[](P& p) -> double& { return p.heat.left; }},
          std::pair{"heat.right", +[](P& p) -> double& { return p.heat.right; }}})
      k.push_back(key<P>(end, get, "the fixed end values u[−1] and u[points]").only_if(is_heat, heat));
    k.push_back(key<P>("heat.seed", [](P& p) -> auto& { return p.heat.seed; },
                       "with `random`: counter-based draws indexed by grid and point "
                       "(docs/generated-inputs.md)")
                    .values("≥ 0")
                    .only_if(is_heat, heat));
    k.push_back(file<P>("input.file", [](P& p) -> auto& { return p.input.file; },
                        "`file`: the HDF5 file; a relative path is taken from the parameter file's "
                        "folder (given on the command line, from the current folder)")
                    .required()
                    .only_if(is_file, file_kind));
    k.push_back(key<P>("random.n", [](P& p) -> auto& { return p.random.n; },
                       "`random`: rows per system (block rows for `block2`)")
                    .required()
                    .values("≥ 1")
                    .only_if(is_random, random_kind));
    k.push_back(key<P>("random.systems", [](P& p) -> auto& { return p.random.systems; },
                       "`random`: systems in the batch")
                    .required()
                    .values("≥ 1")
                    .only_if(is_random, random_kind));
    k.push_back(key<P>("random.seed", [](P& p) -> auto& { return p.random.seed; },
                       "`random`: diagonally dominant systems from counter-based draws indexed by "
                       "system and row, so any share is drawn alone (docs/generated-inputs.md)")
                    .values("≥ 0")
                    .only_if(is_random, random_kind));
    for (const auto& [name, get] :
         {std::pair{"input.a", +[](P& p) -> std::string& { return p.input.a; }},
          std::pair{"input.b", +[](P& p) -> std::string& { return p.input.b; }},
          std::pair{"input.c", +[](P& p) -> std::string& { return p.input.c; }},
          std::pair{"input.d", +[](P& p) -> std::string& { return p.input.d; }}})
      k.push_back(key<P>(name, get,
                         "`file`: the datasets' paths in it (e.g. `\"systems/a\"`); shapes by "
                         "`system.kind` in docs/hdf5-layout.md")
                      .only_if(is_file, file_kind));
    for (const auto& [name, get] :
         {std::pair{"input.e", +[](P& p) -> std::string& { return p.input.e; }},
          std::pair{"input.f", +[](P& p) -> std::string& { return p.input.f; }}})
      k.push_back(key<P>(name, get,
                         "`file` with `pentadiagonal`: the outer bands' datasets (x[i−2] and "
                         "x[i+2])")
                      .only_if([](const P& p) { return is_file(p) && p.kind == Kind::pentadiagonal; },
                               file_kind + " and system.kind = \"pentadiagonal\""));
    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; }, kVariants,
                          parse_variant,
                          "GPU kernel (below); `periodic`: thomas (per thread) and pcr-shared "
                          "(on chip) fused, the others by Sherman–Morrison on their general "
                          "solve; `multi-rhs`: thomas or pcr-shared (reduced once, on chip); "
                          "`pentadiagonal` and `block2`: thomas")
                    .default_from([](const P& p) { return std::string(name(default_variant(p.kind))); })
                    .shown_default("\"thomas-pcr\"; \"thomas\" for kinds other than general")
                    .gpu_only()
                    .or_auto()
                    .only_if(whole_systems, "system.cut = \"systems\""));
    k.push_back(key<P>("method.threads", [](P& p) -> auto& { return p.threads; },
                       "threads per block")
                    .values("multiple of 32, 32 … 1024")
                    .gpu_only());
    k.push_back(key<P>("method.chunk", [](P& p) -> auto& { return p.chunk; },
                       "rows per thread: pcr-warp 1, 2 or 4 (rows per lane, n ≤ 32 × chunk); "
                       "thomas-pcr 2, 4, 8 or 16; thomas-scan 4, 8 or 16; 0 picks one from n "
                       "(thomas-scan: 16). pcr-shared and thomas take none (0)")
                    .gpu_only()
                    .only_if(whole_systems, "system.cut = \"systems\""));
    add_checkpoint_keys<P>(k, [](P& p) -> auto& { return p.checkpoint; }, "time steps",
                           is_heat, heat);
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    k.push_back(choices<S>("sweep.variants", [](S& s) -> auto& { return s.variants; }, kVariants,
                           parse_variant, "variants `parasol sweep` times"));
    k.push_back(int_list<S>("sweep.threads", [](S& s) -> auto& { return s.threads; },
                            "threads per block `parasol sweep` times",
                            [](int threads) {
                              if (threads < 32 || threads > 1024 || threads % 32 != 0)
                                throw InputError("", "",
                                                 "expected multiples of 32 from 32 to 1024, got " +
                                                     std::to_string(threads));
                            })
                    .values("(integers), multiples of 32, 32 … 1024"));
    k.push_back(int_list<S>("sweep.chunks", [](S& s) -> auto& { return s.chunks; },
                            "chunks `parasol sweep` times, each with the variants that take it (0: "
                            "picked from n)",
                            [](int chunk) {
                              if (!listable_chunk(chunk))
                                throw InputError("", "",
                                                 "chunk " + std::to_string(chunk) +
                                                     " is compiled for no variant; expected 0 "
                                                     "(picked from n), 1, 2, 4, 8 or 16");
                            })
                    .values("(integers)")
                    .optional("every chunk compiled for each variant"));
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; },
                       "timed solves per row (after one warm-up)");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    // One long system cut by rows has one method: the partition method, in pieces of
    // kDevicePieceRows rows, on the contiguous layout.
    const auto cut_by_rows = [](const P& p) { return p.cut == Cut::rows; };
    MethodAxis<P> variant =
        variant_axis<P>([](P& p) -> auto& { return p.variant; }, parse_variant, 11);
    variant.get = [cut_by_rows](const P& p) {
      return AxisValue(cut_by_rows(p) ? std::string("partition") : std::string(name(p.variant)));
    };
    variant.reset = [](P& p) { p.variant = default_variant(p.kind); };
    // A stored number this build cannot run is judged by launch_for, which knows the problem.
    MethodAxis<P> chunk = integer_axis<P>("chunk", "chunk", 5, [](P& p) -> auto& { return p.chunk; },
                                          INT_MIN, INT_MAX, "an integer");
    chunk.get = [cut_by_rows](const P& p) {
      return AxisValue(cut_by_rows(p) ? kDevicePieceRows : std::int64_t{p.chunk});
    };
    MethodAxes<P> m;
    m.axes = {std::move(variant),
              integer_axis<P>("threads", "threads", 7, [](P& p) -> auto& { return p.threads; },
                              INT_MIN, INT_MAX, "an integer"),
              std::move(chunk), recorded_axis<P>("layout", [cut_by_rows](const P& p) {
                return std::string(
                    name(cut_by_rows(p) ? Layout::contiguous : kind_layout(p.kind, p.variant)));
              })};
    m.autotuned = true;
    m.validated_as = "chunk";
    m.describe = [](const P& p) { return method_of({p.variant, p.threads, p.chunk}); };
    return m;
  }();
  return axes;
}

}  // namespace parasol::tridiag
