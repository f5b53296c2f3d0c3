// The routine every solver shares. `parasol run`: parameters -> validate -> inputs and device
// checks -> result file -> provenance -> solve -> report -> check -> write -> commit, each phase
// timed. `parasol sweep`: the same front, then every configuration checked against the gold and
// timed, one table printed and stored, and the fastest passing one kept for autotune.
#include "apps/driver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include "apps/binding.hpp"
#include "apps/io/xdmf.hpp"
#include "apps/progress.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/timed_runs.hpp"
#include "parasol/version.hpp"

namespace parasol::app {

void say(const std::string& text) {
  if (is_speaker()) std::cout << "  " << text << "\n";
}

const Binding& find_binding(io::ParamTable& params) {
  const std::string solver = params.get_string("solver");
  std::string known;
  for (const Binding& b : bindings()) {
    if (b.name == solver) return b;
    known += (known.empty() ? "\"" : ", \"") + std::string(b.name) + "\"";
  }
  throw InputError(params.source_of("solver"), "solver",
                   "unknown solver \"" + solver + "\"; expected one of " + known);
}

namespace {

io::ParamTable load_params(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  io::ParamTable params = io::ParamTable::load(file);
  for (const std::string& assignment : overrides) params.apply_override(assignment);
  return params;
}

void write_check(io::ResultFile& out, const Agreement& a) {
  out.set_attribute("/check", "gold", std::string("CPU gold solver"));
  out.set_attribute("/check", "gold_precision", a.gold_precision);
  for (const auto& [name, value] : a.values) out.set_attribute("/check", name, value);
  out.set_attribute("/check", a.measure, a.value);
  out.set_attribute("/check", "tolerance", a.tolerance);
  out.set_attribute("/check", "passed", a.passed());
}

// A CPU run given keys only the GPU solver reads says so once, on stderr: the run goes on.
void note_gpu_only_keys(const Binding& binding, const io::ParamTable& params) {
  std::string given;
  for (std::string_view key : binding.gpu_only_keys)
    if (params.has(key)) given += (given.empty() ? "" : ", ") + std::string(key);
  if (!given.empty() && is_speaker())
    std::cerr << "parasol: " << given << ": read by the GPU solver only; this CPU run does not use "
              << (given.find(',') == std::string::npos ? "it" : "them") << "\n";
}

// "(above 1e-05: suspect the solver)", or nothing when it agrees.
std::string verdict(const Agreement& a) {
  if (!a.judged()) return " (no bound is known to judge it by)";
  if (a.passed()) return "";
  return " (above " + short_number(a.tolerance) + ": suspect the solver)";
}

// Each phase as /timings/<phase>_s, and the whole wall time.
void write_timings(io::ResultFile& out, const PhaseTimer& timings, double wall) {
  for (const auto& [phase, seconds] : timings.phases())
    out.set_attribute("/timings", phase + "_s", seconds);
  out.set_attribute("/timings", "wall_s", wall);
}

std::string phase_summary(const PhaseTimer& timings, double wall) {
  char text[64];
  std::snprintf(text, sizeof text, "wall %.3g s:", wall);
  std::string line = text;
  bool first = true;
  for (const auto& [phase, seconds] : timings.phases()) {
    std::snprintf(text, sizeof text, "%s %s %.3g", first ? "" : ",", phase.c_str(), seconds);
    line += text;
    first = false;
  }
  return line + " s";
}

}  // namespace

int run_command(const RunOptions& options, const std::vector<std::string>& overrides) {
  const auto started = std::chrono::steady_clock::now();
  PhaseTimer timings;
  auto setup_phase = timings.time("setup");
  io::ParamTable params = load_params(options.params_path, overrides);
  const Binding& binding = find_binding(params);
  if (binding.legacy_run != nullptr) return binding.legacy_run(params, options);
  const std::unique_ptr<Run> run = binding.make_run(params, options.params_path);
  const Backend backend = resolve_backend(options.backend);
  const RunSetup setup{options, backend, output_path(options.output, options.params_path, "")};
  run->prepare(setup);
  // After prepare: a run refused for its input says only why.
  if (backend == Backend::cpu) note_gpu_only_keys(binding, params);

  io::ResultFile file(setup.output, options.force, options.compression);
  write_parameters(file, params);
  write_provenance(file, binding.name, backend, options.command_line);
  if (setup.gpu()) run->write_method(file);
  setup_phase.stop();
  if (is_speaker()) std::cout << binding.name << ": " << run->describe() << "\n";

  run->solve(timings, file);
  run->report(file);

  bool agreed = true;
  if (options.check) {
    Agreement a;
    {
      const auto checking = timings.time("check");
      a = run->check();
    }
    write_check(file, a);
    say("check against " + a.gold + ": " + a.description + verdict(a));
    agreed = a.passed();
  }

  Output out{file, {}};
  double written = 0;
  {
    const auto writing = timings.time("write");
    run->write(out);
  }
  const double wall = seconds_since(started);
  write_timings(file, timings, wall);
  file.set_attribute("/timings", "bytes_written", written);
  file.commit();
  std::string also;
  for (const Sidecar& s : out.sidecars) {
    io::write_file_atomically(s.path, s.contents);
    also += (also.empty() ? " (and " : ", ") + s.path.string();
  }
  say("wrote " + setup.output.string() + (also.empty() ? "" : also + ")"));
  const double write_s = timings.seconds("write");
  char rate[96] = "";
  if (write_s > 0 && written > 0)
    std::snprintf(rate, sizeof rate, " (%.3g MB written at %.3g MB/s)", 1e-6 * written,
                  1e-6 * written / write_s);
  say(phase_summary(timings, seconds_since(started)) + rate);
  if (!agreed) {
    std::cerr << "parasol: --check: the result does not agree with the gold; it is kept in "
              << setup.output.string() << " for inspection\n";
    return 1;
  }
  return 0;
}

int sweep_command(const SweepOptions& options, const std::vector<std::string>& overrides) {
  io::ParamTable params = load_params(options.params_path, overrides);
  const Binding& binding = find_binding(params);
  if (binding.legacy_sweep != nullptr) {
    if (options.autotune)
      throw InputError(params.source_of("solver"), "solver",
                       "--autotune stores laplace3d's fastest variant and block; the " +
                           std::string(binding.name) + " sweep has nothing to store");
    return binding.legacy_sweep(params, options);
  }
  const std::unique_ptr<Study> study = binding.make_study(params, options.params_path);
  if (options.autotune && !study->can_autotune())
    throw InputError(params.source_of("solver"), "solver",
                     "--autotune stores laplace3d's fastest variant and block; the " +
                         std::string(binding.name) + " sweep has nothing to store");
  // The autotune file is read now, so one that cannot be used fails before any timing.
  std::filesystem::path autotune_file;
  if (options.autotune) {
    autotune_file = io::autotune_path(options.autotune_file);
    (void)io::AutotuneFile::load(autotune_file);
  }
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  study->prepare();

  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, params);
  write_provenance(out, binding.name, Backend::gpu, options.command_line);
  if (is_speaker()) std::cout << binding.name << " sweep: " << study->describe() << "\n";

  const SweepColumns c = study->columns();
  std::vector<ResultsTable::Column> columns = c.axes;
  columns.push_back({"median_s", "median ms", 11, 4, 'f', 1e3});
  columns.push_back({"spread_percent", "spread %", 8, 1});
  columns.push_back(c.rate);
  if (c.roofline) {
    columns.push_back(c.roofline->throughput);
    columns.push_back(c.roofline->percent);
  }
  columns.push_back(c.check);
  columns.insert(columns.end(), c.extras.begin(), c.extras.end());
  ResultsTable table(columns);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double units = study->units_per_run();
  const double roofline = study->roofline_per_run();
  const double ceiling = study->ceiling_per_second();
  std::optional<std::size_t> fastest;
  double fastest_seconds = 0;
  std::vector<double> min_s, max_s;
  const std::vector<std::vector<Cell>> configurations = study->configurations();
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    const Measurement m = study->measure(i);
    if (!m.skipped.empty()) {
      say(m.skipped);
      continue;
    }
    std::vector<Cell> row = configurations[i];
    const bool timed = !m.seconds.empty();
    const double middle = timed ? median(m.seconds) : nan;
    const auto [low, high] = timed ? std::minmax_element(m.seconds.begin(), m.seconds.end())
                                   : std::pair{m.seconds.end(), m.seconds.end()};
    min_s.push_back(timed ? *low : nan);
    max_s.push_back(timed ? *high : nan);
    row.push_back(middle);
    row.push_back(timed ? 100.0 * (*high - *low) / middle : nan);
    row.push_back(1e-9 * units / middle);
    if (c.roofline) {
      row.push_back(1e-9 * roofline / middle);
      row.push_back(100.0 * roofline / middle / ceiling);
    }
    row.push_back(m.agreement.value);
    row.insert(row.end(), m.extras.begin(), m.extras.end());
    const bool passed = timed && m.agreement.passed();
    table.add(std::move(row), middle, passed);
    if (passed && (!fastest || middle < fastest_seconds)) {
      fastest = i;
      fastest_seconds = middle;
    }
  }
  if (table.empty()) throw study->nothing_to_time();
  if (is_speaker()) table.print(std::cout);
  table.write(out, "/sweep");
  out.write_column("/sweep/min_s", min_s);
  out.write_column("/sweep/max_s", max_s);
  study->write_attributes(out);
  out.commit();
  say("wrote " + path.string());

  if (!autotune_file.empty()) {
    std::optional<io::AutotuneChoice> choice;
    if (fastest) choice = study->autotune_choice(*fastest);
    if (!choice) {
      std::cerr << "parasol: --autotune: no configuration agreed with the gold; nothing stored in "
                << autotune_file.string() << "\n";
      return 1;
    }
    choice->timed = static_cast<std::int64_t>(configurations.size());
    choice->date = utc_now();
    choice->sweep_file = std::filesystem::absolute(path).string();
    choice->parasol_version = std::string(kVersion) + " (" + kGitDescribe + ")";
    // Read again rather than reuse the copy read at the start: another sweep may have stored a
    // choice for another problem meanwhile.
    io::AutotuneFile file = io::AutotuneFile::load(autotune_file);
    file.put(*choice);
    file.save();
    say("autotune: " + choice->variant + " " + to_string(choice->block) + " stored for " +
        io::describe(choice->key) + " in " + autotune_file.string());
  }
  return table.all_passed() ? 0 : 1;
}

}  // namespace parasol::app
