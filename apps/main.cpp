// parasol: the one front end. `run` solves what a parameter file describes, `sweep` times every
// variant and block shape against the copy bandwidth, `info` describes the device.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "apps/commands.hpp"
#include "apps/driver.hpp"
#include "apps/progress.hpp"
#include "io/result_file.hpp"
#include "comm/context.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  using namespace parasol;
  load_kernels_eagerly();  // before any CUDA call: module loads belong to setup, not to a solve
  io::remove_temporaries_on_signal();
  // First of all: a process a launcher started (mpirun, srun) joins its run's ranks here; a plain
  // run is one rank and never touches MPI. Rank 0 speaks for the run.
  std::unique_ptr<comm::Context> context;
  try {
    context = std::make_unique<comm::Context>();
  } catch (const std::exception& e) {
    std::cerr << "parasol: " << e.what() << "\n";
    return 1;
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
  run_cmd->add_option("--backend", backend, "gpu, cpu, or auto (gpu when a device is present)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  run_cmd->add_flag("--force", run.force, "Overwrite an existing result file");
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
  run_cmd->add_option("--autotune-file", run.autotune_file,
                      "Where laplace3d's method.variant = \"auto\" looks up its variant and block "
                      "(default: as for `sweep --autotune`)");
  run_cmd->footer(
      "The file's `solver` key picks the solver: " + solver_list() +
      ". Every key, its type and default: docs/parameters.md. Exit status: 0 done, 2 bad input "
      "(one line naming file, key and what was expected; nothing written), 1 any other failure "
      "(or --check found the result off the gold: the result is kept).");

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
  std::string sweep_backend = "gpu";
  sweep_cmd
      ->add_option("--backend", sweep_backend,
                   "gpu: every variant x block shape on the device (default); cpu: the CPU solver "
                   "at 1, 2, 4, ... threads up to --threads, each checked against the gold (a "
                   "sweep file made without a GPU)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
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
      "and device, in the autotune file; `parasol run` uses it for method.variant = \"auto\"");
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
      "python3 docs/plots/plot_sweep.py SWEEP.h5 -o FOLDER. Exit status: 0 every configuration agreed "
      "with the gold, 1 one did not (or no device), 2 bad input.");

  CLI::App* solvers_cmd = cli.add_subcommand(
      "solvers", "List the solvers this build has, one name per line (the `solver` key's values).");

  CLI::App* info_cmd = cli.add_subcommand(
      "info", "Describe the device and measure its device-to-device copy bandwidth now.");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same command line: rank 0 answers for all.
    std::ostringstream quiet;
    const int status = context->is_root() ? cli.exit(e) : cli.exit(e, quiet, quiet);
    return status == 0 ? 0 : kInputErrorStatus;
  }

  try {
    const std::string clamped = apply_threads_option(parse_threads(threads), context->local_size());
    if (!clamped.empty() && context->is_root()) std::cerr << "parasol: " << clamped << "\n";
    if (*run_cmd) {
      run.compression = io::parse_compression(run_compression);
      run.backend = backend == "gpu" ? app::Backend::gpu
                    : backend == "cpu" ? app::Backend::cpu
                                       : app::Backend::automatic;
      run.command_line = joined(argc, argv);
      run.transport = comm::parse_transport(transport);
      run.overlap = !no_overlap;
      return app::run_command(*context, run, overrides);
    }
    if (*sweep_cmd) {
      sweep.backend = sweep_backend == "cpu" ? app::Backend::cpu : app::Backend::gpu;
      sweep.transport = comm::parse_transport(sweep_transport);
      sweep.compression = io::parse_compression(sweep_compression);
      sweep.command_line = joined(argc, argv);
      return app::sweep_command(*context, sweep, sweep_overrides);
    }
    if (*solvers_cmd) {
      for (const app::Binding& b : app::bindings()) std::cout << b.name << "\n";
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
