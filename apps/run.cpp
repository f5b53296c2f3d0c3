// `parasol run`: parameters -> validate -> inputs and device checks -> result file -> provenance
// -> solve -> report -> check -> write -> commit, each phase timed, on one rank or across ranks.
#include "apps/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "apps/binding.hpp"
#include "apps/ranks.hpp"
#include "apps/units.hpp"
#include "comm/device_comm.hpp"
#include "apps/progress.hpp"
#include "apps/provenance.hpp"
#include "comm/context.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/nvtx.hpp"

namespace parasol::app {
namespace {

void write_check(io::ResultFile& out, const Agreement& a) {
  out.set_attribute("/check", "gold", std::string("CPU gold solver"));
  out.set_attribute("/check", "gold_precision", a.gold_precision);
  for (const auto& [name, value] : a.values) out.set_attribute("/check", name, value);
  out.set_attribute("/check", a.measure, a.value);
  out.set_attribute("/check", "tolerance", a.tolerance);
  out.set_attribute("/check", "passed", a.passed());
}

// A CPU run given keys only the GPU solver reads says so in its summary (stdout: stderr keeps
// to the one line of a failure): the run goes on.
void note_gpu_only_keys(const Binding& binding, const io::ParamTable& params) {
  std::vector<std::string> gpu_only;
  if (binding.keys != nullptr)
    for (const KeyInfo& k : binding.keys())
      // A key two models declare apart (montecarlo's method.variant) is named once.
      if (k.gpu_only && !k.sweep &&
          std::find(gpu_only.begin(), gpu_only.end(), k.key) == gpu_only.end())
        gpu_only.push_back(k.key);
  std::string given;
  for (const std::string& key : gpu_only)
    if (params.has(key)) given += (given.empty() ? "" : ", ") + key;
  if (!given.empty())
    say("note: " + given + ": read by the GPU solver only; this CPU run does not use " +
        (given.find(',') == std::string::npos ? "it" : "them"));
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
  out.set_attribute("/timings", "units",
                    std::string("s (each <phase>_s); a rate <things>_per_s in things per second; "
                                "bytes_written in B"));
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

// Each phase's seconds over the ranks: the slowest rank's as <phase>_s (the rank whose phases add
// up to most: what the run waited for), the mean as <phase>_mean_s, and every rank's, in rank
// order, in `by_rank`. Collective. Each phase's own maximum would not do: ranks that meet at every
// exchange share their seconds between compute and exchange unevenly, and the maxima of both
// add up to more than anyone waited.
PhaseTimer over_ranks(comm::Context& context, const PhaseTimer& mine, PhaseTimer& mean,
                      std::vector<std::vector<double>>& by_rank) {
  const std::size_t phases = mine.phases().size();
  const auto ranks = static_cast<std::size_t>(context.size());
  std::vector<double> all(phases * ranks, 0.0);
  for (std::size_t i = 0; i < phases; ++i)
    all[i * ranks + static_cast<std::size_t>(context.rank())] = mine.phases()[i].second;
  context.all_reduce(all, comm::Op::sum);  // each slot has one rank's value: exact
  std::vector<double> totals(ranks, 0.0);
  by_rank.assign(phases, {});
  for (std::size_t i = 0; i < phases; ++i) {
    by_rank[i].assign(all.begin() + static_cast<std::ptrdiff_t>(i * ranks),
                      all.begin() + static_cast<std::ptrdiff_t>((i + 1) * ranks));
    double sum = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      totals[r] += by_rank[i][r];
      sum += by_rank[i][r];
    }
    mean.add(mine.phases()[i].first, sum / context.size());
  }
  const auto slowest_rank =
      static_cast<std::size_t>(std::max_element(totals.begin(), totals.end()) - totals.begin());
  PhaseTimer slowest;
  for (std::size_t i = 0; i < phases; ++i)
    slowest.add(mine.phases()[i].first, by_rank[i][slowest_rank]);
  return slowest;
}

// The lines a run across ranks prints after its summary: each rank's solving seconds (every
// phase but startup, setup, wait, exchange, check, write and release), waiting for the others, and
// exchanging.
void say_ranks(const PhaseTimer& slowest, const std::vector<std::vector<double>>& by_rank) {
  if (by_rank.empty() || by_rank[0].size() < 2) return;
  const std::size_t ranks = by_rank[0].size();
  const std::vector<std::string> kinds{"solve", phase::wait, phase::exchange};
  std::vector<std::vector<double>> seconds(kinds.size(), std::vector<double>(ranks, 0.0));
  std::vector<bool> seen(kinds.size(), false);
  for (std::size_t i = 0; i < by_rank.size(); ++i) {
    const std::string& name = slowest.phases()[i].first;
    if (name == phase::startup || name == phase::setup || name == phase::check ||
        name == phase::write || name == phase::release)
      continue;
    const std::size_t k = name == phase::wait ? 1 : name == phase::exchange ? 2 : 0;
    seen[k] = true;
    for (std::size_t r = 0; r < ranks; ++r) seconds[k][r] += by_rank[i][r];
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (!seen[k]) continue;
    std::string line = "per rank, " + kinds[k] + " s:";
    for (double s : seconds[k]) {
      char cell[32];
      std::snprintf(cell, sizeof cell, " %.3g", s);
      line += cell;
    }
    say(line);
  }
}

int run_across_ranks(comm::Context& context, const RunOptions& options,
                     const std::vector<std::string>& overrides) {
  // The wall time a user waits for starts with the process: loading, static initialisers, MPI.
  const auto started = process_start();
  PhaseTimer timings;
  timings.add(phase::startup, seconds_since(started));
  auto setup_phase = timings.time(phase::setup);
  std::optional<Heartbeat> setup_beat;  // a long setup says so in a batch job's log
  setup_beat.emplace(phase::setup);
  std::optional<io::ParamTable> params;
  const Binding* binding = nullptr;
  std::unique_ptr<Run> run;
  Backend backend = Backend::cpu;
  together(context, [&] {
    params.emplace(load_params(options.params_path, overrides));
    binding = &find_binding(*params);
    if (!options.restart.empty() && !binding->checkpoints)
      throw InputError("command line", "--restart",
                       std::string(binding->name) + " writes no checkpoints to continue from");
    if (context.size() > 1 && !binding->across_ranks)
      throw InputError("command line", "mpirun",
                       std::string(binding->name) + " runs on one rank; this run has " +
                           std::to_string(context.size()) + " (run it without a launcher)");
  });
  const std::filesystem::path output = output_path(options.output, options.params_path, "");
  together(context, [&] {
    run = binding->make_run(*params, options.params_path);
    backend = agreed_backend(context, options.backend);
  });
  together(context, [&] { require_same_problem(context, *params, options.params_path); });
  const RunSetup setup{options, backend, output, context};
  {
    std::optional<ContextWarmup> warm;  // the GPU's context made while prepare reads and draws
    if (backend == Backend::gpu) warm.emplace();
    together(context, [&] { run->prepare(setup); });
  }
  fit_cpu_threads(run->parallel_items());  // --threads auto: fewer for a small problem
  if (backend == Backend::cpu)
    together(context, [&] {
      use_stored_cpu_threads(options.autotune_file, binding->name, *params, options.params_path);
    });

  // Rank 0 makes the result file; every rank writes its part in it (write_fields). Across
  // ranks the file is made only once the solve is over: a rank that fails mid-solve ends every
  // rank at once (MPI_Abort), and nothing may be left behind then. Its path and its sidecars'
  // are judged now, before any computing, as a one-rank run's are.
  std::optional<io::ResultFile> file;
  const auto make_file = [&] {
    together(context, [&] {
      if (!context.is_root()) return;
      file.emplace(output, options.force, options.compression);
      for (const std::filesystem::path& sidecar : run->sidecars(output))
        file->declare_sidecar(sidecar);
      write_parameters(*file, *params);
      write_provenance(*file, binding->name, backend, options.command_line);
      const Reproducibility r = run->reproducibility();
      file->set_attribute("/provenance", "reproducible", r.reproducible);
      file->set_attribute("/provenance", "reproducible_because", r.because);
      if (!options.restart.empty())
        file->set_attribute("/provenance", "restarted_from", options.restart.string());
      if (setup.gpu()) run->write_method(*file);
    });
    // Collective: every rank gives its host and device.
    const std::vector<comm::RankDevice> devices =
        context.size() > 1 ? context.devices(backend == Backend::gpu)
                           : std::vector<comm::RankDevice>{};
    if (file) write_ranks(*file, context, backend, devices);
  };
  if (context.size() == 1) {
    make_file();
  } else {
    together(context, [&] {
      if (!context.is_root()) return;
      io::check_output_path(output, options.force);
      for (const std::filesystem::path& sidecar : run->sidecars(output))
        io::check_output_path(sidecar, options.force);
    });
  }
  setup_phase.stop();
  setup_beat.reset();
  if (is_speaker()) std::cout << binding->name << ": " << run->describe() << "\n";
  // A launcher that bound the ranks below their share of the host's cores leaves their host work
  // (inputs, the gold, the write) on fewer threads: said with the summary, as a note.
  if (context.size() > 1) {
    const std::string bound =
        bound_below_share(available_cores(), host_cores(), context.local_size());
    if (!bound.empty()) say("note: " + bound);
  }
  if (backend == Backend::cpu) {
    say(describe_cpu_threads());
    note_gpu_only_keys(*binding, *params);
  }

  // Across ranks, solve() and check() meet the other ranks; report() is rank 0's alone, once
  // its file is made.
  {
    // What the solver does not time itself (inputs made on the host, allocation, the device's
    // first use) is setup: the phases add up to the wall time a user waits.
    const auto solving = std::chrono::steady_clock::now();
    const Heartbeat beat("solve");
    double before = 0;
    for (const auto& phase : timings.phases()) before += phase.second;
    NvtxRange range("solve");  // the solver's own phases are timed inside it
    or_abort(context, [&] { run->solve(timings, file ? &*file : nullptr); });
    range.end();
    double after = 0;
    for (const auto& phase : timings.phases()) after += phase.second;
    const double untimed = seconds_since(solving) - (after - before);
    if (untimed > 0) timings.add(phase::setup, untimed);
    // A CPU run has no device: its summary and /timings show no transfer phases of zero.
    if (backend == Backend::cpu)
      for (const char* name : {phase::host_to_device, phase::device_to_host}) timings.drop(name);
  }
  std::optional<Agreement> agreement;
  if (options.check) {
    const auto checking = timings.time(phase::check);
    const Heartbeat beat(phase::check);
    or_abort(context, [&] { agreement = run->check(); });
  }
  if (context.size() > 1) {
    // Across ranks the file is made now, after the solve: part of writing the result.
    const auto making = timings.time(phase::write);
    make_file();
  }
  if (file) run->report(*file);
  bool agreed = true;
  if (agreement) {
    if (file) write_check(*file, *agreement);
    say("check against " + agreement->gold + ": " + agreement->description + verdict(*agreement));
    agreed = agreement->passed();
  }

  // Every rank knows the run's stop (its diagnostics are global), so every rank gives status 1.
  const std::optional<std::string> unconverged =
      options.require_convergence ? run->unconverged() : std::nullopt;

  std::string also;
  {
    const auto writing = timings.time(phase::write);
    const Heartbeat beat(phase::write);
    // Writes that take more than a second draw a line.
    ProgressLine line("written bytes", "B", 1.0);
    if (file)
      file->on_progress([&](std::uint64_t done, std::uint64_t total, double seconds) {
        line.update(static_cast<std::int64_t>(done), static_cast<std::int64_t>(total), seconds);
      });
    also = write_fields(context, *run, file ? &*file : nullptr);
    if (file) file->on_progress({});
  }
  {
    // The solver's device memory, pinned buffers and plans freed inside the wall time: freeing
    // a gigabyte of pinned memory alone takes a tenth of a second, which the process otherwise
    // spent after its summary (a GPU run's process wall was 0.2 s above the summary's).
    const auto releasing = timings.time(phase::release);
    if (options.ends_process) comm::leave_communicators_to_exit();
    run.reset();
    if (options.ends_process && backend == Backend::gpu && !comm::communicators_left_to_exit())
      release_device_context();
  }
  PhaseTimer mean;
  std::vector<std::vector<double>> by_rank;
  const PhaseTimer slowest =
      context.size() > 1 ? over_ranks(context, timings, mean, by_rank) : timings;
  int status = agreed && !unconverged ? 0 : 1;
  together(context, [&] {
    if (!file) return;
    if (context.size() > 1) {
      file->resume();
      for (const auto& [phase, seconds] : mean.phases())
        file->set_attribute("/timings", phase + "_mean_s", seconds);
      for (std::size_t i = 0; i < by_rank.size(); ++i)
        file->set_attribute("/timings", slowest.phases()[i].first + "_by_rank_s", by_rank[i]);
    }
    write_timings(*file, slowest, seconds_since(started));
    // The committed file's size, every rank's part and every attribute in it: the file is closed
    // once to measure it, and the measure stored in an attribute already the size of its value,
    // so storing it changes nothing on disk.
    file->set_attribute("/timings", "bytes_written", std::int64_t{0});
    file->suspend();
    const auto written = static_cast<std::int64_t>(std::filesystem::file_size(file->temporary_path()));
    file->resume();
    file->set_attribute("/timings", "bytes_written", written);
    file->commit();
    say("wrote " + output.string() + (also.empty() ? "" : also + ")"));
    const double write_s = slowest.seconds(phase::write);
    std::string rate;
    if (write_s > 0 && written > 0)
      rate = " (" + bytes_text(static_cast<double>(written)) + " written at " +
             byte_rate_text(static_cast<double>(written) / write_s) + ")";
    say(phase_summary(slowest, seconds_since(started)) + rate);
    say_ranks(slowest, by_rank);
    if (!agreed)
      std::cerr << "parasol: --check: the result does not agree with the gold; it is kept in "
                << output.string() << " for inspection\n";
    if (unconverged)
      std::cerr << "parasol: --require-convergence: " << *unconverged << "; the result is kept in "
                << output.string() << " for inspection\n";
  });
  return status;
}

}  // namespace

int run_command(comm::Context& context, const RunOptions& options,
                const std::vector<std::string>& overrides) {
  try {
    return run_across_ranks(context, options, overrides);
  } catch (const Stop& stop) {
    return stop.status;
  }
}

}  // namespace parasol::app
