#include "solvers/recurrence/keys.hpp"

#include <array>
#include <cstdint>
#include <utility>

namespace parasol::recurrence {
namespace {

bool is_ar1(const Params& p) { return p.problem == Problem::ar1; }
bool is_smoothing(const Params& p) { return p.problem == Problem::smoothing; }
bool is_file(const Params& p) { return p.problem == Problem::file; }

}  // namespace

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    const std::string ar1_kind = "problem.kind = \"ar1\"";
    k.push_back(choice<P>("problem.kind", [](P& p) -> auto& { return p.problem; }, kProblems,
                          parse_problem, "what is solved (above)"));
    k.push_back(choice<P>("problem.precision", [](P& p) -> auto& { return p.precision; },
                          std::array{Precision::single, Precision::double_}, parse_precision,
                          "arithmetic and storage precision of s, u and v (input files are "
                          "converted)"));
    k.push_back(key<P>("ar1.series", [](P& p) -> auto& { return p.ar1.series; },
                       "independent processes, one segment each")
                    .values("≥ 1")
                    .only_if(is_ar1, ar1_kind));
    k.push_back(key<P>("ar1.length", [](P& p) -> auto& { return p.ar1.length; },
                       "steps of each; at most 2⁴⁰ elements in all")
                    .values("≥ 1")
                    .only_if(is_ar1, ar1_kind));
    // Either end of the range given asks for a coefficient drawn at every step; the reader
    // requires the other end then, and refuses ar1.phi beside them.
    for (const auto& [end, get] :
         {std::pair{"ar1.phi_min", +[](P& p) -> double& { return p.ar1.phi_min; }},
          std::pair{"ar1.phi_max", +[](P& p) -> double& { return p.ar1.phi_max; }}}) {
      Key<P> range = key<P>(end, get,
                            "give both, instead of `ar1.phi`, for a coefficient drawn at every "
                            "step")
                         .values("in (−1, 1), min < max")
                         .optional("none")
                         .only_if(is_ar1, ar1_kind);
      range.set = [inner = range.set](P& p, const KeyValue& v) {
        inner(p, v);
        p.ar1.time_varying = true;
      };
      k.push_back(std::move(range));
    }
    k.push_back(key<P>("ar1.phi", [](P& p) -> auto& { return p.ar1.phi; },
                       "the coefficient (1 is a random walk); not together with "
                       "`phi_min`/`phi_max`")
                    .values("in [−1, 1]")
                    .only_if([](const P& p) { return is_ar1(p) && !p.ar1.time_varying; },
                             ar1_kind + " without ar1.phi_min and ar1.phi_max"));
    k.push_back(key<P>("ar1.sigma", [](P& p) -> auto& { return p.ar1.sigma; },
                       "scale of the shocks; the stationary variance is sigma² / (1 − phi²)")
                    .values("≥ 0")
                    .only_if(is_ar1, ar1_kind));
    k.push_back(key<P>("ar1.x0", [](P& p) -> auto& { return p.ar1.x0; },
                       "`x[−1]` of every series")
                    .only_if(is_ar1, ar1_kind));
    k.push_back(key<P>("ar1.seed", [](P& p) -> auto& { return p.ar1.seed; },
                       "seed of the shocks (and coefficients)")
                    .values("≥ 0")
                    .only_if(is_ar1, ar1_kind));
    k.push_back(key<P>("smoothing.alpha", [](P& p) -> auto& { return p.smoothing.alpha; },
                       "smoothing weight of the newest value; 1 follows the series")
                    .values("in (0, 1]")
                    .only_if(is_smoothing, "problem.kind = \"smoothing\""));
    const std::string file_kind = "problem.kind = \"file\"";
    // Required by both kinds that read it: validate() says so, naming what the file should hold.
    k.push_back(file<P>("input.file", [](P& p) -> auto& { return p.input.file; },
                        "the HDF5 input file (required by `smoothing` and `file`); a relative path "
                        "is taken from the parameter file's folder (given on the command line, "
                        "from the current folder)")
                    .shown_default("none")
                    .only_if([](const P& p) { return !is_ar1(p); },
                             "problem.kind = \"smoothing\" or \"file\""));
    k.push_back(key<P>("input.y", [](P& p) -> auto& { return p.input.y; },
                       "`smoothing`: dataset of the series, `[length]` (one series) or "
                       "`[series][length]` (one per row)")
                    .only_if(is_smoothing, "problem.kind = \"smoothing\""));
    for (const auto& [name, get] :
         {std::pair{"input.s", +[](P& p) -> std::string& { return p.input.s; }},
          std::pair{"input.u", +[](P& p) -> std::string& { return p.input.u; }}})
      k.push_back(key<P>(name, get,
                         "`file`: datasets of s and u, the same shape, `[length]` or "
                         "`[series][length]` (one segment per row)")
                      .only_if(is_file, file_kind));
    k.push_back(key<P>("input.initial", [](P& p) -> auto& { return p.input.initial; },
                       "`file`: dataset of the segments' `v[−1]`, one value per segment; `\"\"`: "
                       "zeros")
                    .only_if(is_file, file_kind));
    k.push_back(key<P>("input.offsets", [](P& p) -> auto& { return p.input.offsets; },
                       "`file`, 1D s and u only: dataset of segments + 1 integers, segment k being "
                       "elements offsets[k] … offsets[k+1] − 1 (offsets[0] = 0, non-decreasing, "
                       "the last = the element count; empty segments allowed). Empty: one segment "
                       "(1D), or one per row (2D)")
                    .only_if(is_file, file_kind));
    k.push_back(choice<P>("method.mode", [](P& p) -> auto& { return p.mode; },
                          std::array{ScanMode::fast, ScanMode::reproducible}, parse_scan_mode,
                          "the scan: `fast` reads the input once, and a float result may differ "
                          "in its last bits from run to run (a tile combines whichever "
                          "predecessors are ready when it looks back); `reproducible` gives the "
                          "same bits every run on a device, reading the input twice, and across "
                          "ranks (`mpirun -np N`) the one-rank run's bits for any N; across ranks "
                          "the fast scan reads its run twice (docs/scaling.md)")
                    .gpu_only());
    k.push_back(key<P>("output.input", [](P& p) -> auto& { return p.write_input; },
                       "also store s and u under `/input` (offsets and initial values are "
                       "stored always)"));
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; },
                       "`parasol sweep`: timed solves per mode (after a warm-up)");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    MethodAxes<P> m;
    m.axes = {choice_axis<P>("mode", 13, [](P& p) -> auto& { return p.mode; }, parse_scan_mode)};
    return m;
  }();
  return axes;
}

}  // namespace parasol::recurrence
