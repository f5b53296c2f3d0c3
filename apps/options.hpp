// What the front end hands a solver: the parsed parameter file and the command-line choices.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/param_table.hpp"
#include "io/result_file.hpp"
#include "comm/transport.hpp"

namespace parasol::app {

enum class Backend { automatic, gpu, cpu };

struct RunOptions {
  std::filesystem::path params_path;
  std::filesystem::path output;  // empty: <params stem>.h5 in the current folder
  bool check = false;            // also run the CPU gold solver and store the difference
  // An iterative run that stops short of its tolerance exits 1 (the result is still written).
  bool require_convergence = false;
  Backend backend = Backend::automatic;
  bool force = false;            // overwrite an existing output
  std::string command_line;      // as typed, for provenance
  std::filesystem::path autotune_file;  // empty: io::autotune_path's default
  io::Compression compression;  // of large datasets: --compression, none by default
  // Across ranks: how device buffers travel, and whether halo exchanges overlap the interior
  // sweep (--no-overlap, to measure what the overlap hides).
  comm::Transport transport = comm::Transport::automatic;
  bool overlap = true;
  // --restart: the checkpoint (rank 0's part) a run continues from; empty for a fresh run.
  std::filesystem::path restart;
  // The command line's run, whose process ends with it: the device's context is torn down in
  // the phase "release" rather than by the exit after the summary. Not for a library's caller
  // (Python's parasol.run), whose process goes on using the device.
  bool ends_process = false;
};

struct SweepOptions {
  std::filesystem::path params_path;
  std::filesystem::path output;  // empty: <params stem>-sweep.h5 in the current folder
  bool force = false;
  std::string command_line;
  bool autotune = false;  // store the fastest passing configuration in the autotune file
  std::filesystem::path autotune_file;  // empty: io::autotune_path's default
  io::Compression compression;  // of large datasets: --compression, none by default
  bool profile = false;  // run the best and the worst configuration again under ncu
  // gpu: every variant and shape on the device; cpu: the CPU solver at each thread count;
  // automatic: as for run (resolve_sweep_backend).
  Backend backend = Backend::automatic;
  comm::Transport transport = comm::Transport::automatic;  // across ranks: how halos travel
};

// The backend a run uses: `automatic` becomes gpu when a device is present, else cpu (and says
// so on stderr); `gpu` without a device is an error.
Backend resolve_backend(Backend asked);
std::string_view name(Backend b);  // "gpu", "cpu", "auto"
// A one-rank sweep's backend: `automatic` becomes gpu when a device is present, or when
// --autotune or --profile ask for what only the device's sweep gives; else cpu, said on one line.
Backend resolve_sweep_backend(const SweepOptions& options);

// Physical memory of this machine, in bytes: what a CPU run, or the host side of a GPU run, can
// hold at most.
double host_memory_bytes();

std::filesystem::path output_path(const std::filesystem::path& given,
                                  const std::filesystem::path& params_path, std::string_view suffix);

}  // namespace parasol::app
