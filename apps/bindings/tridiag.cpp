// tridiag's binding: the heat equation marched in time or one batch of systems read from HDF5,
// and the sweep of every variant x threads x chunk on one batch against the copy bandwidth.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <optional>

#include "apps/binding.hpp"
#include "apps/bindings/tridiag_inputs.hpp"
#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "comm/over_ranks.hpp"
#include "kernels/buffer.hpp"
#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "kernels/validate.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"

namespace parasol::app {
namespace {

using tridiag::Batch;
using tridiag::Dims;
using tridiag::Launch;
using tridiag::Params;
using tridiag::Problem;
using tridiag::Variant;

struct SweepParams {
  std::vector<Variant> variants;  // default: every variant
  std::vector<int> threads{64, 128, 256, 512, 1024};
  std::vector<int> chunks;   // default: every chunk compiled for each variant
  Repeats repeats{7, kSweepMinTime};  // timed solves per row, after a warm-up; the median
};

// The keys only one problem reads: given with the other problem they are an error, not ignored.
const std::vector<const char*> kHeatKeys{"heat.points", "heat.grids",   "heat.steps",
                                         "heat.lambda", "heat.initial", "heat.mode",
                                         "heat.left",   "heat.right",   "heat.seed"};
const std::vector<const char*> kFileKeys{"input.file", "input.a", "input.b", "input.c", "input.d"};

void reject_other_problem(const io::ParamTable& t, const std::vector<const char*>& keys,
                          Problem p) {
  for (const char* key : keys)
    if (t.has(key))
      throw InputError(t.source_of(key), key,
                       "not read when problem.kind = \"" + std::string(name(p)) + "\"");
}

// A 32-bit integer key; validate() judges its range.
int get_int32(io::ParamTable& t, const std::string& key, int fallback) {
  const std::int64_t value = t.get_int(key, fallback);
  if (value < INT_MIN || value > INT_MAX)
    throw InputError(t.source_of(key), key,
                     "expected a 32-bit integer, got " + std::to_string(value));
  return static_cast<int>(value);
}

// A relative input.file is resolved against the parameter file's folder. `automatic`: the file
// says method.variant = "auto".
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path,
                   bool& automatic) {
  const Params d;
  Params p;
  p.problem =
      io::get_choice(t, "problem.kind", std::string(name(d.problem)), tridiag::parse_problem);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               tridiag::parse_precision);
  if (p.problem == Problem::heat) {
    reject_other_problem(t, kFileKeys, p.problem);
    p.heat.points = t.get_int("heat.points");
    p.heat.grids = t.get_int("heat.grids");
    p.heat.steps = t.get_int("heat.steps");
    p.heat.lambda = t.get_double("heat.lambda", d.heat.lambda);
    p.heat.initial = io::get_choice(t, "heat.initial", std::string(name(d.heat.initial)),
                                    tridiag::parse_initial);
    p.heat.mode = get_int32(t, "heat.mode", d.heat.mode);
    p.heat.left = t.get_double("heat.left", d.heat.left);
    p.heat.right = t.get_double("heat.right", d.heat.right);
    p.heat.seed = io::get_seed(t, "heat.seed", d.heat.seed);
  } else {
    reject_other_problem(t, kHeatKeys, p.problem);
    p.input.file = io::get_file(t, "input.file", params_path);
    p.input.a = t.get_string("input.a", d.input.a);
    p.input.b = t.get_string("input.b", d.input.b);
    p.input.c = t.get_string("input.c", d.input.c);
    p.input.d = t.get_string("input.d", d.input.d);
  }
  automatic = get_variant_or_auto(t, "method.variant", p.variant, tridiag::parse_variant);
  p.threads = get_int32(t, "method.threads", d.threads);
  p.chunk = get_int32(t, "method.chunk", d.chunk);
  return p;
}

// A list of integers from a TOML array (read as numbers, so 256.5 is caught here).
std::vector<int> get_ints(io::ParamTable& t, const std::string& key,
                          const std::vector<int>& fallback) {
  std::vector<int> out;
  for (double v : t.get_doubles(key, std::vector<double>(fallback.begin(), fallback.end()))) {
    if (!(v == std::floor(v) && v >= INT_MIN && v <= INT_MAX))
      throw InputError(t.source_of(key), key, "expected a list of integers, got " + shown(v));
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw InputError(t.source_of(key), key, "expected at least one value");
  return out;
}

bool compiled_chunk(int chunk) {
  for (Variant v : tridiag::kVariants) {
    const std::vector<int> chunks = tridiag::compiled_chunks(v);
    if (std::find(chunks.begin(), chunks.end(), chunk) != chunks.end()) return true;
  }
  return chunk == 0;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.variants = io::get_choices(t, "sweep.variants", io::names_of(tridiag::kVariants),
                               tridiag::parse_variant);
  s.threads = get_ints(t, "sweep.threads", s.threads);
  for (int threads : s.threads)
    if (threads < 32 || threads > 1024 || threads % 32 != 0)
      throw InputError(t.source_of("sweep.threads"), "sweep.threads",
                       "expected multiples of 32 from 32 to 1024, got " + std::to_string(threads));
  if (t.has("sweep.chunks")) s.chunks = get_ints(t, "sweep.chunks", {});
  for (int chunk : s.chunks)
    if (!compiled_chunk(chunk))
      throw InputError(
          t.source_of("sweep.chunks"), "sweep.chunks",
          "chunk " + std::to_string(chunk) +
              " is compiled for no variant; expected 0 (picked from n), 1, 2, 4, 8 or 16");
  s.repeats = get_sweep_repeats(t, s.repeats.at_least);
  return s;
}

std::string method_of(const Launch& l) {
  std::string text = std::string(name(l.variant)) + ", " + std::to_string(l.threads) + " threads";
  if (l.chunk != 0) text += ", chunk " + std::to_string(l.chunk);
  return text;
}

std::string extent(const Dims& dims) {
  return std::to_string(dims.systems) + " systems of " + std::to_string(dims.n) + " rows";
}

// The problem class of a choice: rows per system and systems, exactly ("n=1024,systems=65536").
io::AutotuneKey tridiag_key(const Params& p, std::int64_t n, std::int64_t systems) {
  return autotune_key("tridiag", "n=" + std::to_string(n) + ",systems=" + std::to_string(systems),
                      std::string(name(p.precision)));
}

template <class T>
std::vector<T> rounded(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The key that sized the problem, for memory complaints.
const char* size_key(const Params& p) {
  return p.problem == Problem::heat ? "heat.grids" : "input.file";
}

// a, b, c, d and x on the device (the solver's own workspace is small beside them); on the host
// six arrays of T and, with the gold, about seven of doubles.
template <class T>
void require_memory(const io::ParamTable& t, const Params& p, const Dims& dims, bool gpu,
                    bool gold) {
  const double size = static_cast<double>(dims.size());
  if (gpu)
    require_device_memory(t.source_of(size_key(p)), size_key(p), extent(dims) + " need",
                          5.0 * sizeof(T) * size);
  require_host_memory(t.source_of(size_key(p)), size_key(p), extent(dims) + " need",
                      (6.0 * sizeof(T) + (gold ? 7.0 * 8 : 0.0)) * size);
}

template <class T>
class TridiagRun final : public Run {
 public:
  TridiagRun(io::ParamTable& t, Params p, bool automatic)
      : t_(t), p_(std::move(p)), automatic_(automatic) {}

  // Across ranks each takes a share of the systems (grids), whole: it reads only its own rows of
  // an input file, or marches its own grids.
  void prepare(const RunSetup& setup) override {
    gpu_ = setup.gpu();
    context_ = &setup.context;
    const bool heat = p_.problem == Problem::heat;
    part_ = p_.heat;
    if (heat) {
      if (p_.heat.grids < ranks())
        throw InputError(t_.source_of("heat.grids"), "heat.grids",
                         std::to_string(p_.heat.grids) + " grids cannot be cut among " +
                             std::to_string(ranks()) +
                             " ranks (each needs at least one); run fewer ranks or more grids");
      const comm::Slab mine = comm::even_slab(p_.heat.grids, context_->rank(), ranks());
      part_.grids = mine.count();
      part_.first_grid = mine.begin;
      first_ = mine.begin;
      systems_ = p_.heat.grids;
    } else {
      BatchPart<T> part = read_batch_part<T>(p_.input, context_->rank(), ranks());
      batch_ = std::move(part.batch);
      first_ = part.first;
      systems_ = part.systems;
    }
    const Dims dims = heat ? Dims{part_.points, part_.grids} : batch_.dims;
    if (gpu_ && automatic_) choose_automatic(setup.options.autotune_file, dims.n);
    // The launch the kernels will run (the chunk picked when 0), or why it cannot.
    io::with_sources(t_, [&] {
      launch_ =
          tridiag::resolve_launch({p_.variant, p_.threads, p_.chunk},
                                  {dims.n, dims.systems, tridiag::required_layout(p_.variant)},
                                  static_cast<int>(sizeof(T)));
    });
    require_memory<T>(t_, p_, dims, gpu_, !gpu_ || setup.options.check);
  }

  std::string describe() const override {
    const tridiag::Heat& h = p_.heat;
    const std::string what =
        p_.problem == Problem::heat
            ? "heat on " + std::to_string(h.grids) + " grids x " + std::to_string(h.points) +
                  " points, " + std::to_string(h.steps) + " steps at lambda " + shown(h.lambda)
            : extent({batch_.dims.n, systems_}) + " from " + p_.input.file;
    return what + ", " + std::string(name(p_.precision)) + "; " +
           (gpu_ ? method_of(launch_) + (automatic_ ? auto_.described() : "") + " on " +
                       current_device().name
                 : "CPU gold solver");
  }

  void write_method(io::ResultFile& out) const override {
    out.set_attribute("/method", "variant", std::string(name(launch_.variant)));
    out.set_attribute("/method", "threads", std::int64_t{launch_.threads});
    out.set_attribute("/method", "chunk", std::int64_t{launch_.chunk});
    out.set_attribute("/method", "layout",
                      std::string(name(tridiag::required_layout(launch_.variant))));
    out.set_attribute("/method", "chosen_by", automatic_ ? auto_.chosen_by() : "parameters");
    if (automatic_) out.set_attribute("/method", "autotune_file", auto_.file.string());
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::Timings t;
    if (p_.problem == Problem::heat) {
      const tridiag::Heat& h = p_.heat;
      ProgressLine line("step", "unknowns", static_cast<double>(h.points * h.grids));
      const tridiag::ProgressCallback report = [&](const tridiag::Progress& pr) {
        line.update(pr.steps, pr.total_steps, pr.seconds);
      };
      if (gpu_) {
        tridiag::HeatResult<T> r = tridiag::march_heat_gpu<T>(part_, launch_, report);
        x_ = std::move(r.u);
        t = r.timings;
        solve_seconds_ = r.solve_seconds;
      } else {
        const auto start = std::chrono::steady_clock::now();
        gold_ = tridiag::march_heat_gold(part_, report);
        t.compute = solve_seconds_ = seconds_since(start);
        x_ = rounded<T>(gold_);
      }
    } else {
      t = solve_batch();
      solve_seconds_ = t.compute;
    }
    timings.add("host_to_device", t.host_to_device);
    timings.add("compute", t.compute);
    timings.add("device_to_host", t.device_to_host);
    compute_seconds_ = t.compute;
    diagnose(timings);
  }

  void report(io::ResultFile& out) override {
    const double unknowns =
        static_cast<double>(systems_ * (p_.problem == Problem::heat ? p_.heat.points
                                                                    : batch_.dims.n)) *
        (p_.problem == Problem::heat ? static_cast<double>(p_.heat.steps) : 1.0);
    const double rate = solve_seconds_ > 0 ? unknowns / solve_seconds_ : 0.0;
    out.set_attribute("/timings", "solve_s", solve_seconds_);
    out.set_attribute("/timings", "unknowns_per_s", rate);
    if (ranks() > 1) {
      out.set_attribute("/method", "ranks", std::int64_t{ranks()});
      out.set_attribute("/method", "decomposition",
                        std::string(p_.problem == Problem::heat ? "whole grids" : "whole systems"));
    }
    char line[256];
    if (p_.problem == Problem::file) {
      std::snprintf(line, sizeof line, "max|x| %.6g; %.3g s, %.3f G unknowns/s", diagnostics_.high,
                    compute_seconds_, 1e-9 * rate);
      say(line);
      return;
    }
    out.set_attribute("/diagnostics", "u_min", diagnostics_.low);
    out.set_attribute("/diagnostics", "u_max", diagnostics_.high);
    std::snprintf(line, sizeof line,
                  "u from %.6g to %.6g; %.3f s (solves %.3f s), %.3f G unknowns/s",
                  diagnostics_.low, diagnostics_.high, compute_seconds_, solve_seconds_,
                  1e-9 * rate);
    say(line);
    if (!diagnostics_.has_decay) return;
    const tridiag::SineDecay* decay = &diagnostics_.decay;
    out.set_attribute("/diagnostics", "sine_decay", decay->measured);
    out.set_attribute("/diagnostics", "exact_sine_decay", decay->exact);
    out.set_attribute("/diagnostics", "sine_decay_relative_error", decay->relative_error);
    out.set_attribute("/diagnostics", "decay_per_step", decay->per_step);
    std::snprintf(line, sizeof line,
                  "sine mode %d decayed by %.6g over %lld steps; exact %.6g (relative error %.3g)",
                  p_.heat.mode, decay->measured, static_cast<long long>(p_.heat.steps),
                  decay->exact, decay->relative_error);
    say(line);
  }

  // Unknowns solved: every system's rows, at every step of a march.
  double work() const override {
    const bool heat = p_.problem == Problem::heat;
    return static_cast<double>(systems_ * (heat ? p_.heat.points : batch_.dims.n)) *
           (heat ? static_cast<double>(p_.heat.steps) : 1.0);
  }

  // The gold in double (a CPU run's own result); the errors of the march's steps at most add.
  // Across ranks each judges its share against the gold of the same systems, and the
  // differences, the scale and (for a file) the condition bound's terms are combined.
  Agreement check() override {
    const bool heat = p_.problem == Problem::heat;
    if (gold_.empty() && !heat) gold_ = tridiag::solve_gold(batch_);
    if (gold_.empty()) {
      ProgressLine line("gold step", "unknowns",
                        static_cast<double>(part_.points * part_.grids));
      gold_ = tridiag::march_heat_gold(part_, [&](const tridiag::Progress& pr) {
        line.update(pr.steps, pr.total_steps, pr.seconds);
      });
    }
    const std::int64_t n = heat ? p_.heat.points : batch_.dims.n;
    const FieldDifference d = over_ranks(*context_, compare(x_, gold_), x_.size(),
                                         static_cast<std::uint64_t>(systems_ * n));
    const double scale = max_over_ranks(*context_, max_magnitude(gold_));
    if (heat)
      return tridiag::agreement<T>(d, scale, tridiag::condition_bound(p_.heat), n, p_.heat.steps);
    tridiag::ConditionTerms c = tridiag::condition_terms(batch_);
    if (ranks() > 1) {
      c.norm = context_->all_reduce(c.norm, comm::Op::max);
      c.margin = context_->all_reduce(c.margin, comm::Op::min);
    }
    return tridiag::agreement<T>(d, scale, c.bound(), n);
  }

  void write(Output& out) override {
    const bool heat = p_.problem == Problem::heat;
    const Dims dims = heat ? Dims{p_.heat.points, p_.heat.grids} : Dims{batch_.dims.n, systems_};
    const char* field = heat ? "/fields/u" : "/fields/x";
    const std::vector<std::uint64_t> extent{std::uint64_t(dims.systems), std::uint64_t(dims.n)};
    if (ranks() == 1) {
      out.file->write_field(field, x_.data(), extent);
    } else {
      out.write_rows(field, extent, static_cast<std::uint64_t>(first_),
                     x_.size() / static_cast<std::size_t>(dims.n), x_.data());
      if (out.file == nullptr) return;
    }
    out.file->set_attribute(
        field, "layout",
        std::string(heat ? "[grid][point], point fastest" : "[system][row], row fastest"));
    if (heat) return;
    out.file->set_attribute("/input", "file", p_.input.file);
    out.file->set_attribute("/input", "systems", dims.systems);
    out.file->set_attribute("/input", "n", dims.n);
  }

 private:
  int ranks() const { return context_->size(); }

  // method.variant = "auto": the variant, threads and chunk stored for this problem, or the
  // defaults (and a note on stderr) when none is.
  void choose_automatic(const std::filesystem::path& given, std::int64_t n) {
    const Params d;
    p_.variant = d.variant;
    p_.threads = d.threads;
    p_.chunk = d.chunk;
    auto_ = look_up_choice(given, tridiag_key(p_, n, systems_),
                           method_of({d.variant, d.threads, d.chunk}));
    if (!auto_.choice) return;
    try {
      p_.variant = tridiag::parse_variant(auto_.choice->variant);
    } catch (const InputError& e) {
      throw auto_.unusable(e, "variant");
    }
    p_.threads = static_cast<int>(auto_.integer("threads", INT_MIN, INT_MAX, "an integer"));
    p_.chunk = static_cast<int>(auto_.integer("chunk", INT_MIN, INT_MAX, "an integer"));
    try {
      (void)tridiag::resolve_launch({p_.variant, p_.threads, p_.chunk},
                                    {n, systems_, tridiag::required_layout(p_.variant)},
                                    static_cast<int>(sizeof(T)));
    } catch (const InputError& e) {
      throw auto_.unusable(e, "chunk");
    }
  }

  // What the summary says of the whole result: the range of u (max|x| for a file), and the sine
  // mode's decay in the grid farthest from the exact one. Across ranks, from every rank's share.
  struct Diagnostics {
    double low = 0, high = 0;
    bool has_decay = false;
    tridiag::SineDecay decay;
  };

  void diagnose(PhaseTimer& timings) {
    Diagnostics& d = diagnostics_;
    if (p_.problem == Problem::file) {
      d.high = max_magnitude(x_);
    } else {
      const auto [low, high] = std::minmax_element(x_.begin(), x_.end());
      d.low = static_cast<double>(*low);
      d.high = static_cast<double>(*high);
      const std::optional<tridiag::SineDecay> decay = tridiag::sine_decay(part_, x_);
      d.has_decay = decay.has_value();
      if (decay) d.decay = *decay;
    }
    if (ranks() == 1) return;
    timings.add("wait", wait_for_ranks(*context_));
    const double before = context_->comm_seconds();
    const std::vector<Diagnostics> all = context_->all_gather(d);
    d = all[0];
    for (const Diagnostics& r : all) {
      d.low = std::min(d.low, r.low);
      d.high = std::max(d.high, r.high);
      if (r.has_decay && r.decay.relative_error > d.decay.relative_error) d.decay = r.decay;
    }
    solve_seconds_ = context_->all_reduce(solve_seconds_, comm::Op::max);
    compute_seconds_ = context_->all_reduce(compute_seconds_, comm::Op::max);
    timings.add("exchange", context_->comm_seconds() - before);
  }

  // The file's batch on the GPU (in the layout the variant needs) or by the gold; a failure
  // names the file, and that no algorithm here pivots.
  tridiag::Timings solve_batch() {
    try {
      if (!gpu_) {
        const auto start = std::chrono::steady_clock::now();
        gold_ = tridiag::solve_gold(batch_);
        x_ = rounded<T>(gold_);
        return {0, seconds_since(start), 0};
      }
      const tridiag::Layout layout = tridiag::required_layout(launch_.variant);
      const tridiag::Result<T> r = tridiag::solve_gpu<T>(launch_, relayout(batch_, layout));
      x_ = relayout(r.x, {batch_.dims.n, batch_.dims.systems, layout}, tridiag::Layout::contiguous);
      return r.timings;
    } catch (const tridiag::NumericalError& e) {
      const std::string what = e.what();
      throw tridiag::NumericalError(e.system(), p_.input.file + ": " + what +
                                                    (what.find("do not pivot") == std::string::npos
                                                         ? " (these solvers do not pivot)"
                                                         : ""));
    }
  }

  io::ParamTable& t_;
  Params p_;
  bool automatic_;
  AutoChoice auto_;  // with method.variant = "auto": what the autotune file held
  bool gpu_ = false;
  comm::Context* context_ = nullptr;
  tridiag::Heat part_;       // the grids this rank marches: all of them on one rank
  std::int64_t first_ = 0;   // this rank's first system (grid)
  std::int64_t systems_ = 0; // in the whole problem
  Diagnostics diagnostics_;
  Launch launch_;
  Batch<T> batch_;  // the file's (this rank's rows of it), contiguous
  std::vector<T> x_;
  std::vector<double> gold_;
  double compute_seconds_ = 0, solve_seconds_ = 0;
};

// One row of the sweep: a launch resolved for the batch, or why a variant has none.
struct Configuration {
  Launch launch;
  std::string skipped;  // the variant can take none of the listed launches
  std::string note;     // some listed launches skipped, said before its first row
};

// The chunks timed for a variant: those listed (or all compiled) that the variant takes.
std::vector<int> chunks_for(Variant v, const std::vector<int>& listed) {
  std::vector<int> compiled = tridiag::compiled_chunks(v);
  if (compiled.empty()) compiled = {0};
  if (listed.empty() || compiled == std::vector<int>{0}) return compiled;
  std::vector<int> chosen;
  for (int c : listed)
    if (c == 0 || std::find(compiled.begin(), compiled.end(), c) != compiled.end())
      chosen.push_back(c);
  return chosen;
}

// Each distinct launch of each variant once (chunk 0 resolves to one of the listed chunks).
std::vector<Configuration> configurations_for(const SweepParams& s, const Dims& dims, int element) {
  std::vector<Configuration> out;
  for (Variant v : s.variants) {
    const Dims vdims{dims.n, dims.systems, tridiag::required_layout(v)};
    std::vector<Launch> launches;
    std::vector<std::string> skipped;
    for (int threads : s.threads)
      for (int chunk : chunks_for(v, s.chunks)) {
        try {
          const Launch l = tridiag::resolve_launch({v, threads, chunk}, vdims, element);
          if (std::none_of(launches.begin(), launches.end(), [&](const Launch& o) {
                return o.threads == l.threads && o.chunk == l.chunk;
              }))
            launches.push_back(l);
        } catch (const InputError& e) {
          skipped.push_back(std::to_string(threads) + " threads, chunk " + std::to_string(chunk) +
                            ": " + e.expected());
        }
      }
    if (launches.empty()) {
      out.push_back({{v, 0, 0},
                     std::string(name(v)) + " skipped: " +
                         (skipped.empty() ? "no chunk listed for it" : skipped.front()),
                     ""});
      continue;
    }
    for (const Launch& l : launches) out.push_back({l, "", ""});
    if (!skipped.empty())
      out[out.size() - launches.size()].note =
          std::string(name(v)) + ": " + std::to_string(skipped.size()) + " launch" +
          (skipped.size() == 1 ? "" : "es") + " skipped (first: " + skipped.front() + ")";
  }
  return out;
}

template <class T>
class TridiagStudy final : public Study {
 public:
  TridiagStudy(io::ParamTable& t, Params p, SweepParams s)
      : t_(t), p_(std::move(p)), s_(std::move(s)) {}

  void prepare() override {
    batch_ = p_.problem == Problem::heat ? tridiag::heat_step<T>(p_.heat) : read_batch<T>(p_.input);
    require_memory<T>(t_, p_, batch_.dims, true, true);
    gold_ = tridiag::solve_gold(batch_);  // a singular batch stops here
    scale_ = max_magnitude(gold_);
    // A heat step's bound as `parasol run` takes it (every row alike but the ends: three rows
    // give it), not a pass over the whole batch.
    condition_ = p_.problem == Problem::heat ? tridiag::condition_bound(p_.heat)
                                             : tridiag::condition_bound(batch_);
    configurations_ = configurations_for(s_, batch_.dims, static_cast<int>(sizeof(T)));
    stream_.emplace();
    bytes_ = tridiag::bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T)));
    // The copy moves as many bytes as one solve (read + written), so cache effects are alike.
    copy_ = measure_copy_bandwidth(static_cast<std::size_t>(bytes_ / 2));
  }

  std::string describe() const override {
    return extent(batch_.dims) + ", " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; device-to-device copy " + short_number(copy_ * 1e-9) +
           " GB/s, " + describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 11}, {"threads", "threads", 7}, {"chunk", "chunk", 5}},
            {"gunknowns_per_s", "Gunknowns/s", 11, 2},
            SweepColumns::Roofline{{"gb_per_s", "GB/s", 8, 1}, {"percent_of_copy", "% copy", 7, 1}},
            {tridiag::kMeasure, "max rel diff", 12, 2, 'g'},
            {}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    std::vector<std::vector<Cell>> cells;
    for (const Configuration& c : configurations_)
      cells.push_back({std::string(name(c.launch.variant)), std::int64_t{c.launch.threads},
                       std::int64_t{c.launch.chunk}});
    return cells;
  }

  // Checked first on an output poisoned with NaN, so an unwritten value cannot pass, then
  // `repeats` timed solves after a warm-up, and checked again for a failure in any of them.
  Measurement measure(std::size_t i) override {
    const Configuration& c = configurations_[i];
    Measurement m;
    m.skipped = c.skipped;
    if (!c.skipped.empty()) return m;
    if (!c.note.empty()) say(c.note);
    Resident& on_device = resident(tridiag::required_layout(c.launch.variant));
    tridiag::DeviceBatch<T>& device = on_device.batch;
    try {
      device.poison();
      device.solve(c.launch);
      m.agreement = checked(device, [&] {
        if (on_device.gold.empty())
          return tridiag::agreement(device.download(), gold_, condition_, batch_.dims.n);
        return tridiag::agreement<T>(device_compare(device.x(), on_device.gold.data(),
                                                    batch_.dims.size(), device.stream()),
                                     scale_, condition_, batch_.dims.n);
      });
      device.solve(c.launch);  // warm-up
      m.seconds = timed_runs(device.stream(), s_.repeats, [&] { device.solve(c.launch); });
      m.agreement = checked(device, [&] { return m.agreement; });
    } catch (const CudaError& e) {
      // A launch the device refuses (too many registers, say) fails its row; the context
      // survives, so the study goes on. A fault that poisons the context ends it.
      if (e.sticky()) throw;
      say(method_of(c.launch) + ": " + e.what());
      m.seconds.clear();
    }
    return m;
  }

  double units_per_run() const override { return static_cast<double>(batch_.dims.size()); }
  double roofline_per_run() const override { return bytes_; }
  double ceiling_per_second() const override { return copy_; }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", copy_ * 1e-9);
    out.set_attribute("/sweep", "bytes_per_solve", bytes_);
    out.set_attribute("/sweep", "n", batch_.dims.n);
    out.set_attribute("/sweep", "systems", batch_.dims.systems);
    out.set_attribute("/sweep", "condition_bound", condition_);
    out.set_attribute("/sweep", "check_tolerance",
                      tridiag::tolerance<T>(condition_, batch_.dims.n));
  }

  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Launch& l = configurations_[i].launch;
    io::AutotuneChoice c;
    c.key = tridiag_key(p_, batch_.dims.n, batch_.dims.systems);
    c.variant = name(l.variant);
    c.axes = {{"threads", std::to_string(l.threads)}, {"chunk", std::to_string(l.chunk)}};
    return c;
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant, threads and chunk can solve " + extent(batch_.dims));
  }

 private:
  // The batch on the device in `layout`, with the gold in the same layout beside it, so that
  // each configuration is checked on the device. Each layout's copy is made once and kept while
  // the device has room for the next beside it (twice what the memory check asked, and the gold
  // in double); otherwise the copies made before are freed first. Without room for the gold, the
  // check downloads x.
  struct Resident {
    tridiag::DeviceBatch<T> batch;
    DeviceBuffer<double> gold;
  };
  Resident& resident(tridiag::Layout layout) {
    for (Resident& r : residents_)
      if (r.batch.dims().layout == layout) return r;
    const double batch_bytes = tridiag::bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T)));
    const double gold_bytes = static_cast<double>(gold_.size() * sizeof(double));
    if (!residents_.empty() && !fits_in_free_memory(2 * batch_bytes + gold_bytes)) residents_.clear();
    residents_.push_back({tridiag::DeviceBatch<T>(batch_, layout, *stream_), {}});
    Resident& r = residents_.back();
    // The gold, and its copy before it is reordered, beside the batch.
    if (fits_in_free_memory(2 * gold_bytes))
      r.gold = tridiag::upload_relaid(gold_, batch_.dims, layout, *stream_);
    return r;
  }

  // `agree` once the solves so far check clean; a failure the gold did not meet fails the row.
  template <class Agree>
  Agreement checked(tridiag::DeviceBatch<T>& device, Agree&& agree) {
    try {
      device.check();
    } catch (const tridiag::NumericalError& e) {
      const std::string what = method_of(device.launch()) + ": " + e.what();
      say(what + ", where the gold solved it");
      return tridiag::failed_solve(what);
    }
    return agree();
  }

  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  Batch<T> batch_;  // contiguous
  std::vector<double> gold_;
  double condition_ = 0, bytes_ = 0, copy_ = 0, scale_ = 0;
  std::vector<Configuration> configurations_;
  std::optional<Stream> stream_;  // made once a device is known to be there
  std::vector<Resident> residents_;  // one per layout met so far, while there is room
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  bool automatic = false;
  Params p = io::read_checked(
                 t, [&] { return read_params(t, params_path, automatic); },
                 [&] { return read_sweep_params(t); })
                 .first;
  const bool single = p.precision == tridiag::Precision::single;
  return in_precision<Run, TridiagRun>(single, t, std::move(p), automatic);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  bool automatic = false;
  auto [p, s] = io::read_checked(
      t, [&] { return read_params(t, params_path, automatic); },
      [&] { return read_sweep_params(t); });
  const bool single = p.precision == tridiag::Precision::single;
  return in_precision<Study, TridiagStudy>(single, t, std::move(p), std::move(s));
}

}  // namespace

Binding tridiag_binding() {
  Binding b{
      "tridiag",
      "batched tridiagonal systems: the 1D heat equation by backward Euler, or a batch from HDF5",
      make_run,
      make_study,
      {"method.variant", "method.threads", "method.chunk"}};
  b.across_ranks = true;
  return b;
}

}  // namespace parasol::app
