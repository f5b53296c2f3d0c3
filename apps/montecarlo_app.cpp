// montecarlo in the front end: parameter file -> Params, run or sweep, estimate -> HDF5.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "apps/check.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "apps/solvers.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::app {
namespace {

using montecarlo::Params;
using montecarlo::Variant;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::int64_t repeats = 5;  // timed runs per row; the median is reported
};

// Every key montecarlo accepts is read here, so anything else in the file is unknown.
Params read_params(io::ParamTable& t) {
  const Params d;
  Params p;
  p.paths = t.get_int("paths.count");
  p.steps = t.get_int("paths.steps");
  p.maturity = t.get_double("model.maturity", d.maturity);
  p.rate = t.get_double("model.rate", d.rate);
  p.sigma = t.get_double("model.sigma", d.sigma);
  p.rho = t.get_double("model.rho", d.rho);
  p.spot = t.get_double("model.spot", d.spot);
  p.payoff = io::get_choice(t, "payoff.kind", std::string(name(d.payoff)), montecarlo::parse_payoff);
  p.strike = t.get_double("payoff.strike", d.strike);
  p.variant = io::get_choice(t, "method.variant", std::string(name(d.variant)), montecarlo::parse_variant);
  p.step = io::get_choice(t, "method.step", std::string(name(d.step)), montecarlo::parse_step);
  p.antithetic = t.get_bool("method.antithetic", d.antithetic);
  const std::int64_t seed = t.get_int("method.seed", static_cast<std::int64_t>(d.seed));
  const std::int64_t block = t.get_int("method.block", d.block);
  p.batch_paths = t.get_int("method.batch_paths", d.batch_paths);
  p.generator = io::get_choice(t, "method.generator", std::string(name(d.generator)), montecarlo::parse_generator);
  p.ordering = io::get_choice(t, "method.ordering", std::string(name(d.ordering)), montecarlo::parse_ordering);
  p.sample_paths = t.get_int("output.sample_paths", d.sample_paths);

  if (seed < 0)
    throw InputError(t.source_of("method.seed"), "method.seed", "expected an integer >= 0");
  p.seed = static_cast<std::uint64_t>(seed);
  if (block < INT_MIN || block > INT_MAX) {
    std::string list;
    for (int b : montecarlo::kBlockSizes) list += (list.empty() ? "" : ", ") + std::to_string(b);
    throw InputError(
        t.source_of("method.block"), "method.block",
        "threads per block " + std::to_string(block) + " is not compiled in; compiled: " + list);
  }
  p.block = static_cast<int>(block);  // validate() checks it is compiled in
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.repeats = io::get_positive_int(t, "sweep.repeats", s.repeats);
  return s;
}

// Reads and checks everything the file says; names the file (or the command line) and the key.
std::pair<Params, SweepParams> read_all(io::ParamTable& t) {
  return io::read_checked(t, [&] { return read_params(t); }, [&] { return read_sweep_params(t); });
}

// The stored sample paths are the only allocation that grows with a parameter unboundedly.
void check_fits_host(const io::ParamTable& t, const Params& p) {
  const double host = host_memory_bytes();
  const double need = 2.0 * sizeof(float) * static_cast<double>(p.sample_paths) *
                      (static_cast<double>(p.steps) + 1.0);
  if (need > host / 2) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "%lld sample paths of %lld steps need %.2f GiB; this machine has %.2f GiB",
                  static_cast<long long>(p.sample_paths), static_cast<long long>(p.steps),
                  need / (1024.0 * 1024.0 * 1024.0), host / (1024.0 * 1024.0 * 1024.0));
    throw InputError(t.source_of("output.sample_paths"), "output.sample_paths", text);
  }
}

// What only the device can tell: its block limits, and room for host-rng's normals
// (2 x steps floats per sample of a batch).
void check_fits_device(const io::ParamTable& t, const Params& p) {
  const DeviceInfo device = current_device();
  try {
    check_block_limits(Shape{p.block, 1, 1}, device, "method.block");
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.block"), "method.block", e.expected());
  }
  if (p.variant != Variant::host_rng) return;
  const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
  const double need = 2.0 * sizeof(float) * static_cast<double>(p.steps) * batch;
  if (need > 0.9 * static_cast<double>(device.free_memory)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "host-rng stores %.2f GiB of normals for a batch of %.0f paths; %s has %.2f GiB "
                  "free: lower method.batch_paths",
                  need / (1024.0 * 1024.0 * 1024.0), batch, device.name.c_str(),
                  static_cast<double>(device.free_memory) / (1024.0 * 1024.0 * 1024.0));
    throw InputError(t.source_of("method.batch_paths"), "method.batch_paths", text);
  }
}

double path_steps(const Params& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

std::string describe(const Params& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::string(name(p.payoff)) + ", " + std::string(name(p.step)) + " step" +
         (p.antithetic ? ", antithetic" : "");
}

std::string method_of(const Params& p) {
  std::string text = std::string(name(p.variant)) + ", " + std::to_string(p.block) + " threads";
  if (p.variant == Variant::host_rng)
    text +=
        ", " + std::string(name(p.generator)) + " " + std::string(name(p.ordering)) + " ordering";
  return text;
}

struct Comparison {
  double difference;  // result - gold
  double in_errors;   // |difference| / combined standard error
};

Comparison compare(const montecarlo::Estimate& result, const montecarlo::Estimate& gold) {
  const double difference = result.price - gold.price;
  const double combined = std::hypot(result.standard_error, gold.standard_error);
  // Identical estimates (the CPU checked against itself) agree whatever their spread.
  return {difference, difference == 0 ? 0.0 : std::abs(difference) / combined};
}

int run(io::ParamTable& t, const RunOptions& options) {
  const auto [p, sweep] = read_all(t);
  (void)sweep;
  check_fits_host(t, p);
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  if (gpu) check_fits_device(t, p);
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "montecarlo", backend, options.command_line);

  std::cout << "montecarlo: " << describe(p) << "; "
            << (gpu ? method_of(p) + " on " + current_device().name
                    : std::string("CPU gold solver"))
            << "\n";
  const montecarlo::Result result = gpu ? montecarlo::solve_gpu(p) : montecarlo::solve_gold(p);
  const montecarlo::Estimate& e = result.estimate;
  const double rate = path_steps(p) / result.timings.total;

  out.set_attribute("/estimate", "price", e.price);
  out.set_attribute("/estimate", "standard_error", e.standard_error);
  out.set_attribute("/estimate", "ci95_low", e.ci_low());
  out.set_attribute("/estimate", "ci95_high", e.ci_high());
  out.set_attribute("/estimate", "samples", static_cast<std::int64_t>(e.samples));
  out.set_attribute("/timings", "generate_s", result.timings.generate);
  out.set_attribute("/timings", "paths_s", result.timings.paths);
  out.set_attribute("/timings", "total_s", result.timings.total);
  out.set_attribute("/timings", "path_steps_per_s", rate);

  char line[256];
  std::snprintf(line, sizeof line,
                "  price %.6f +- %.2g (standard error), 95%% CI [%.6f, %.6f], %lld samples\n"
                "  %.3f s, %.3f G path-steps/s\n",
                e.price, e.standard_error, e.ci_low(), e.ci_high(),
                static_cast<long long>(e.samples), result.timings.total, 1e-9 * rate);
  std::cout << line;

  if (options.check) {
    const montecarlo::Result gold = montecarlo::solve_gold(p);
    const Comparison c = compare(e, gold.estimate);
    out.set_attribute("/check", "gold", std::string("CPU gold solver"));
    out.set_attribute("/check", "gold_price", gold.estimate.price);
    out.set_attribute("/check", "gold_standard_error", gold.estimate.standard_error);
    out.set_attribute("/check", "difference", c.difference);
    out.set_attribute("/check", "difference_in_standard_errors", c.in_errors);
    std::snprintf(line, sizeof line,
                  "  check against the CPU gold solver: gold %.6f +- %.2g, difference %.3g "
                  "(%.2f standard errors)\n",
                  gold.estimate.price, gold.estimate.standard_error, c.difference, c.in_errors);
    std::cout << line;
    // Independent estimates differ by more than 4 combined standard errors about once in
    // 16000 runs; more often than that is a bug.
    if (!(c.in_errors <= 4))
      std::cout << "  warning: more than 4 standard errors from the gold: suspect the solver\n";
  }

  if (p.sample_paths > 0) {
    const std::string dataset = "/fields/sample_paths";
    out.write_field(dataset, result.sample.data(),
                    {static_cast<std::uint64_t>(p.sample_paths),
                     static_cast<std::uint64_t>(p.steps) + 1, 2});
    out.set_attribute(dataset, "layout",
                      std::string("[path][time][asset], asset fastest; time n is t = n * dt"));
    out.set_attribute(dataset, "dt", p.maturity / static_cast<double>(p.steps));
  }
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return 0;
}

// Times one configuration (median of the timed runs, after a warm-up) into the table.
void time_one(Params p, const SweepParams& s, ResultsTable& table) {
  (void)montecarlo::solve_gpu(p);  // warm-up: module loading, generator set-up
  std::vector<double> seconds;
  montecarlo::Result last;
  for (std::int64_t r = 0; r < s.repeats; ++r) {
    last = montecarlo::solve_gpu(p);
    // Device time, generation to estimate: allocation and generator set-up are not the method.
    seconds.push_back(last.timings.generate + last.timings.paths);
  }
  const double m = median(seconds);
  table.add({std::string(name(p.variant)), std::int64_t{p.block},
             p.variant == Variant::host_rng ? std::string(name(p.ordering)) : std::string("-"), m,
             1e-9 * path_steps(p) / m, last.estimate.price, last.estimate.standard_error},
            m);
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const auto [p, s] = read_all(t);
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  check_fits_host(t, p);
  check_fits_device(t, p);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "montecarlo", Backend::gpu, options.command_line);
  std::cout << "montecarlo sweep: " << describe(p) << " on " << current_device().name << ", "
            << s.repeats << " timed runs each\n";

  ResultsTable table({{"variant", "variant", 11},
                      {"block", "block", 6},
                      {"ordering", "ordering", 9},
                      {"median_s", "median ms", 12, 3, 'f', 1e3},
                      {"gpath_steps_per_s", "Gpath-steps/s", 14, 2},
                      {"price", "price", 10, 6},
                      {"standard_error", "std error", 10, 2, 'g'}});
  for (Variant v : montecarlo::kVariants)
    for (int block : montecarlo::kBlockSizes) {
      Params q = p;
      q.variant = v;
      q.block = block;
      q.sample_paths = 0;  // storing paths is not what is being timed
      if (v == Variant::host_rng) {
        for (montecarlo::Ordering o :
             {montecarlo::Ordering::legacy, montecarlo::Ordering::dynamic}) {
          q.ordering = o;
          time_one(q, s, table);
        }
      } else {
        time_one(q, s, table);
      }
    }
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "path_steps", path_steps(p));
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return 0;
}

}  // namespace

SolverApp montecarlo_app() {
  return {"montecarlo", "option prices on two correlated assets by Monte Carlo path simulation",
          run, sweep};
}

}  // namespace parasol::app
