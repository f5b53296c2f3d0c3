// parasol: the one front end. `run` solves what a parameter file describes, `sweep` times every
// variant and block shape against the copy bandwidth, `info` describes the device.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "apps/commands.hpp"
#include "apps/driver.hpp"
#include "apps/keys.hpp"
#include "apps/progress.hpp"
#include "io/result_file.hpp"
#include "comm/context.hpp"
#include "comm/launcher.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "parasol/version.hpp"

namespace {

constexpr int kInputErrorStatus = 2;

// "laplace3d (3D Laplace equation ...), montecarlo (...)": every registered solver.
std::string solver_list() {
  std::string text;
  for (const parasol::app::Binding& b : parasol::app::bindings())
    text += (text.empty() ? "" : "; ") + std::string(b.name) + " (" + std::string(b.summary) + ")";
  return text;
}

std::string joined(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i == 0 ? "" : " ") + std::string(argv[i]);
  return text;
}

// A command-line error as one line: CLI11's message with its line breaks and runs of spaces
// collapsed, and where to look. "parasol: --threads: Value 0 not in range 1 to 4096; see parasol
// run --help".
std::string one_line(const CLI::Error& e, const std::string& command) {
  std::string text;
  for (const char c : std::string(e.what())) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space) text += c;
    else if (!text.empty() && text.back() != ' ') text += ' ';
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '.')) text.pop_back();
  return "parasol: " + text + "; see " + command + " --help";
}

// Whether the command line asks for work a GPU may do: `run` or `sweep` without `--backend cpu`
// (read before the command line is parsed, which comes after MPI's initialisation).
bool may_use_gpu(int argc, char** argv) {
  std::string command;
  for (int i = 1; i < argc && command.empty(); ++i)
    if (argv[i][0] != '-') command = argv[i];
  if (command != "run" && command != "sweep") return false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--backend=cpu" || (arg == "--backend" && i + 1 < argc &&
                                   std::string(argv[i + 1]) == "cpu"))
      return false;
  }
  return true;
}

}  // namespace

namespace {

int run_parasol(int argc, char** argv) {
  using namespace parasol;
  // Line-buffered even into a file (a batch job's log): each line is there the moment it is
  // printed, and one killed mid-run loses nothing it had said. std::cout is synced with stdio.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  std::setvbuf(stderr, nullptr, _IOLBF, BUFSIZ);
  load_kernels_eagerly();  // before any CUDA call: module loads belong to setup, not to a solve
  io::remove_temporaries_on_signal(app::say_interrupted);
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, reported and cleaned up like
  // a full disk, instead of the signal killing the process with its temporaries left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // First of all: a process a launcher started (mpirun, srun) joins its run's ranks here; a plain
  // run is one rank and never touches MPI. Rank 0 speaks for the run.
  std::unique_ptr<comm::Context> context;
  {
    // A launched rank's device context is made while MPI initialises: each takes about a quarter
    // of a second on an H200 host, and one after the other they made two ranks' start-up 0.3 s
    // longer than one rank's. Where the launcher does not say the rank's place on its host, the
    // context is made later, while the run reads its inputs.
    std::optional<ContextWarmup> early;
    if (const auto launch = comm::detect_launch();
        launch && launch->local_rank >= 0 && may_use_gpu(argc, argv))
      early.emplace(launch->local_rank);
    try {
      context = std::make_unique<comm::Context>();
    } catch (const std::exception& e) {
      std::cerr << "parasol: " << e.what() << "\n";
      return 1;
    }
  }
  app::set_speaker(context->is_root());

  CLI::App cli{"Parasol: GPU solvers checked against CPU gold solvers, results in HDF5.", "parasol"};
  cli.set_version_flag("--version", std::string(kVersion) + " (" + kGitDescribe + ")");
  cli.require_subcommand(1);

  app::RunOptions run;
  std::vector<std::string> overrides;
  std::string backend = "auto";
  CLI::App* run_cmd = cli.add_subcommand("run", "Run the solver a parameter file names and write an HDF5 result.");
  run_cmd->add_option("params", run.params_path, "Parameter file (TOML), e.g. inputs/laplace3d.toml")
      ->required();
  run_cmd->add_option("overrides", overrides,
                      "Parameter overrides key=value, checked like the file (e.g. grid.nx=256 "
                      "method.variant=zmarch)");
  run_cmd->add_option("-o,--output", run.output, "Result file (default: <params name>.h5 here)");
  run_cmd->add_flag("--check", run.check,
                    "Also run the CPU gold solver in double; report and store the difference");
  run_cmd->add_flag("--require-convergence", run.require_convergence,
                    "An iterative solver (laplace3d) that stops at iteration.max_iterations "
                    "before its tolerance is met exits with status 1; the result is still written "
                    "(with /diagnostics@converged = 0) for inspection");
  run_cmd->add_option("--backend", backend, "gpu, cpu, or auto (gpu when a device is present)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  run_cmd->add_flag("--force", run.force, "Overwrite an existing result file");
  run_cmd->add_option("--restart", run.restart,
                      "Continue from a checkpoint ([checkpoint] keys; on a signal, status 75) of "
                      "the same problem, on any rank count its solver allows; the result records "
                      "it as /provenance@restarted_from");
  std::string transport = "auto";
  run_cmd
      ->add_option("--transport", transport,
                   "Across ranks (mpirun -np N parasol run ...): how device data travels between "
                   "GPUs: nccl, mpi (CUDA-aware where the MPI is, else staged through host "
                   "memory), or auto (nccl when every rank has a GPU of its own); docs/scaling.md")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}));
  bool no_overlap = false;
  run_cmd->add_flag("--no-overlap", no_overlap,
                    "Across ranks: exchange halos after each sweep instead of behind the interior "
                    "sweep (to measure what the overlap hides)");
  std::string run_compression = "none";
  run_cmd->add_option("--compression", run_compression,
                      "Filter of large datasets: " + std::string(io::kCompressionForms) +
                          "; default none (the disk's speed); costs in docs/compression.md");
  std::string threads = "auto";
  const auto add_threads = [&](CLI::App* command) {
    command
        ->add_option("--threads", threads,
                     "Threads of the CPU solvers (the CPU backend and the gold of --check): N, "
                     "at most the cores this process may use (" +
                         std::to_string(available_cores()) +
                         " here), or auto (default): those cores shared among the ranks on this "
                         "host, fewer for a small problem")
        ->check(CLI::Validator(
            [](std::string& text) {
              try {
                parse_threads(text);
                return std::string();
              } catch (const InputError& e) {
                return e.expected();
              }
            },
            "auto|N"));
  };
  add_threads(run_cmd);
  double progress = app::kDefaultProgressInterval;
  bool quiet = false;
  const auto add_progress = [&](CLI::App* command) {
    command
        ->add_option("--progress", progress,
                     "Off a terminal (a batch job's log), a progress line every SECONDS (default " +
                         std::to_string(static_cast<int>(app::kDefaultProgressInterval)) +
                         "; 0: every update); on a terminal the line is redrawn in place")
        ->check(CLI::Validator(
            [](const std::string& text) {
              char* end = nullptr;
              const double seconds = std::strtod(text.c_str(), &end);
              return *end == '\0' && seconds >= 0 && seconds <= 86400
                         ? std::string()
                         : "expected seconds from 0 to 86400, got " + text;
            },
            "SECONDS"));
    command->add_flag("--quiet", quiet, "No progress lines: the header, summary and errors only");
  };
  add_progress(run_cmd);
  run_cmd->add_option("--autotune-file", run.autotune_file,
                      "Where laplace3d's method.variant = \"auto\" looks up its variant and block "
                      "(default: as for `sweep --autotune`)");
  run_cmd->footer(
      "The file's `solver` key picks the solver: " + solver_list() +
      ". Every key, its type and default: `parasol run FILE --help`, `parasol keys SOLVER` or "
      "docs/parameters.md. Exit status: 0 done, 2 bad input "
      "(one line naming file, key and what was expected; nothing written), 1 any other failure "
      "(or --check found the result off the gold, or --require-convergence found it not "
      "converged: the result is kept). On SIGTERM, SIGINT, SIGHUP or SIGUSR1 it says so on one "
      "line, removes its unfinished files and dies of the signal (a shell's status 128 + its "
      "number: 143 for SIGTERM).");

  app::SweepOptions sweep;
  CLI::App* sweep_cmd = cli.add_subcommand(
      "sweep", "Time every variant x block shape (from the file's [sweep] table), each checked "
               "against the gold, beside the measured copy bandwidth.");
  std::vector<std::string> sweep_overrides;
  sweep_cmd->add_option("params", sweep.params_path, "Parameter file (TOML)")->required();
  sweep_cmd->add_option("overrides", sweep_overrides,
                        "Parameter overrides key=value, checked like the file (e.g. grid.nx=256)");
  sweep_cmd->add_option("-o,--output", sweep.output, "Result file (default: <params name>-sweep.h5)");
  sweep_cmd->add_flag("--force", sweep.force, "Overwrite an existing result file");
  add_threads(sweep_cmd);
  add_progress(sweep_cmd);
  std::string sweep_backend = "auto";
  sweep_cmd
      ->add_option("--backend", sweep_backend,
                   "gpu: every variant x block shape on the device; cpu: the CPU solver at 1, 2, "
                   "4, ... threads up to --threads, each checked against the gold (a sweep file "
                   "made without a GPU); auto (default): gpu when a device is present, else cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  std::string sweep_transport = "auto";
  sweep_cmd
      ->add_option("--transport", sweep_transport,
                   "Across ranks (mpirun -np N parasol sweep ..., laplace3d): how halos travel, as "
                   "for run; the table adds each configuration's exchange, the share of it hidden "
                   "behind the interior sweep, and the rate per GPU")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}));
  std::string sweep_compression = "none";
  sweep_cmd->add_option("--compression", sweep_compression,
                        "Filter of large datasets, as for run; default none");
  CLI::Option* autotune = sweep_cmd->add_flag(
      "--autotune", sweep.autotune,
      "Also store the fastest configuration that agreed with the gold, for this problem, precision "
      "and device, in the autotune file; `parasol run` uses it for method.variant = \"auto\" "
      "(with --backend cpu: the fastest thread count, which run's --threads auto uses)");
  sweep_cmd->add_option("--autotune-file", sweep.autotune_file,
                        "Autotune file (default: $PARASOL_AUTOTUNE_FILE, else "
                        "$XDG_CACHE_HOME/parasol/autotune.toml, else "
                        "~/.cache/parasol/autotune.toml)")
      ->needs(autotune);
  sweep_cmd->add_flag(
      "--profile", sweep.profile,
      "Also run the best and the worst configuration again under Nsight Compute (ncu, found on "
      "PATH) and store their achieved occupancy, DRAM throughput and top stall reason");
  sweep_cmd->footer(
      "The autotune file holds one choice per device, solver, problem and precision: a sweep of "
      "the same replaces its choice and keeps the others. Plots of any solver's sweep: "
      "python3 tools/plot_sweep.py SWEEP.h5 -o FOLDER (a CPU sweep: rate and speedup against "
      "threads). Exit status: 0 every configuration agreed "
      "with the gold, 1 one did not (or --backend gpu without a device), 2 bad input.");

  CLI::App* solvers_cmd = cli.add_subcommand(
      "solvers", "List the solvers this build has (the `solver` key's values), each with what it "
                 "solves and its example parameter files.");
  bool names_only = false;
  solvers_cmd->add_flag("--names", names_only, "Only the names, one per line (for scripts)");

  CLI::App* keys_cmd = cli.add_subcommand(
      "keys", "List every key a solver's parameter file may hold: type, allowed values, unit, "
              "default and meaning (`parasol run FILE --help` does the same for FILE's solver).");
  std::string keys_solver;
  keys_cmd->add_option("solver", keys_solver, "A solver's name (`parasol solvers` lists them)")
      ->required();
  bool markdown = false;
  keys_cmd->add_flag("--markdown", markdown,
                     "As the Markdown table docs/parameters.md holds (generated from this)");

  CLI::App* info_cmd = cli.add_subcommand(
      "info", "Describe the device and measure its device-to-device copy bandwidth now.");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    // `parasol run FILE --help`: the run's options, then every key of FILE's solver.
    std::ostringstream unheard;
    const int status = context->is_root() ? cli.exit(e) : cli.exit(e, unheard, unheard);
    if (*run_cmd && !run.params_path.empty() && context->is_root()) {
      try {
        io::ParamTable params = io::ParamTable::load(run.params_path);
        std::cout << "\n";
        app::print_keys(std::cout, app::find_binding(params));
      } catch (const std::exception& error) {
        std::cerr << "parasol: " << error.what() << "\n";
        return kInputErrorStatus;
      }
    }
    return status;
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same command line: rank 0 answers for all. --help and --version
    // print as CLI11 prints them; an error is one line, as every other input error is.
    if (e.get_exit_code() == 0) {
      std::ostringstream unheard;
      return context->is_root() ? cli.exit(e) : cli.exit(e, unheard, unheard);
    }
    std::string command = "parasol";
    for (const CLI::App* sub : cli.get_subcommands()) command += " " + sub->get_name();
    std::string line = one_line(e, command);
    // CLI11 blames a misspelt command or a flag before the command on the missing subcommand;
    // the user is better served by the word it could not place.
    const std::vector<std::string> unplaced = cli.remaining();
    if (command == "parasol" && !unplaced.empty()) {
      std::string commands;
      const std::vector<CLI::App*> all = cli.get_subcommands([](CLI::App*) { return true; });
      for (std::size_t i = 0; i < all.size(); ++i)
        commands += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i]->get_name();
      line = "parasol: " + unplaced.front() +
             (unplaced.front()[0] == '-' ? ": unknown flag" : ": unknown command") +
             "; expected " + commands + "; see parasol --help";
    }
    if (context->is_root()) std::cerr << line << "\n";
    return kInputErrorStatus;
  }

  // `-o ''` would otherwise fall back to the default name without a word.
  const auto refuse_empty_output = [](CLI::App* command, const std::filesystem::path& output) {
    if (command->get_option("--output")->count() > 0 && output.empty())
      throw InputError("command line", "-o", "expected a file name, got an empty one");
  };
  // However the command ends (a status returned, a failure said), a signal after it is the
  // launcher ending the other ranks, not an interruption of the run.
  struct OutcomeKnown {
    ~OutcomeKnown() { app::mark_outcome_known(); }
  } outcome_known;
  try {
    const std::string clamped = apply_threads_option(parse_threads(threads), context->local_size());
    if (!clamped.empty() && context->is_root()) std::cerr << "parasol: " << clamped << "\n";
    app::configure_progress(progress, quiet);
    if (*run_cmd) {
      refuse_empty_output(run_cmd, run.output);
      run.compression = io::parse_compression(run_compression);
      run.backend = backend == "gpu" ? app::Backend::gpu
                    : backend == "cpu" ? app::Backend::cpu
                                       : app::Backend::automatic;
      run.command_line = joined(argc, argv);
      run.transport = comm::parse_transport(transport);
      run.overlap = !no_overlap;
      run.ends_process = true;
      return app::run_command(*context, run, overrides);
    }
    if (*sweep_cmd) {
      refuse_empty_output(sweep_cmd, sweep.output);
      sweep.backend = sweep_backend == "gpu"   ? app::Backend::gpu
                      : sweep_backend == "cpu" ? app::Backend::cpu
                                               : app::Backend::automatic;
      sweep.transport = comm::parse_transport(sweep_transport);
      sweep.compression = io::parse_compression(sweep_compression);
      sweep.command_line = joined(argc, argv);
      return app::sweep_command(*context, sweep, sweep_overrides);
    }
    if (*solvers_cmd) {
      if (names_only)
        for (const app::Binding& b : app::bindings()) std::cout << b.name << "\n";
      else
        app::print_solvers(std::cout);
      return 0;
    }
    if (*keys_cmd) {
      const app::Binding& binding = app::binding_named(keys_solver);
      if (markdown) app::print_keys_markdown(std::cout, binding);
      else app::print_keys(std::cout, binding);
      return 0;
    }
    if (*info_cmd) return app::info_command(std::cout);
  } catch (const InputError& e) {
    if (context->is_root()) std::cerr << "parasol: " << e.what() << "\n";
    return kInputErrorStatus;
  } catch (const std::exception& e) {
    if (context->is_root()) std::cerr << "parasol: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

// Everything a run does is over when run_parasol returns: results committed, files closed, MPI
// finalised, output flushed below, the device's context destroyed in the run's phase "release"
// (0.1-0.15 s on an H200 that the exit spent after the summary otherwise). What exit would still
// do is the libraries' own teardown: the process ends without it. Under a CUDA profiler (Nsight Systems or
// Compute inject a library named by CUDA_INJECTION64_PATH) the exit stays normal, so the
// profiler's last records are flushed.
int main(int argc, char** argv) {
  const int status = run_parasol(argc, argv);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (std::getenv("CUDA_INJECTION64_PATH") == nullptr) std::_Exit(status);
  return status;
}
