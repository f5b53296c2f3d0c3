// What `parasol run` and `parasol sweep` (apps/run.cpp, apps/sweep.cpp) share about the ranks of
// a run: failures every rank agrees on, work done while the ranks meet, the backend they all use,
// and the parameter file every rank reads.
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "apps/options.hpp"
#include "io/param_table.hpp"
#include "io/result_file.hpp"
#include "comm/context.hpp"
#include "kernels/error.hpp"

namespace parasol::app {

// A failure that every rank agreed on: rank 0 says it in one line, every rank returns its status.
struct Stop {
  int status;
};

// Runs `step` on every rank. In a one-rank run it is just called (its exceptions go up to main,
// which prints them). Across ranks, any rank's failure is shared: the lowest failing rank's
// message is printed once by rank 0 and every rank stops with its status (InputError: 2).
template <class Step>
void together(comm::Context& context, Step&& step) {
  if (context.size() == 1) {
    step();
    return;
  }
  std::string error;
  int status = 0;
  try {
    step();
  } catch (const InputError& e) {
    error = e.what();
    status = 2;
  } catch (const std::exception& e) {
    error = e.what();
    status = 1;
  }
  if (const std::optional<comm::RankFailure> f = context.agree(error, status)) {
    if (context.is_root()) std::cerr << "parasol: " << f->message << "\n";
    throw Stop{f->status};
  }
}

// Work that ranks do while meeting each other (halo exchanges, reductions): a rank that fails
// cannot tell the others, which wait for it, so it says why and ends the whole run (MPI_Abort;
// the launcher's SIGTERM then lets rank 0 remove its temporary file).
template <class Step>
void or_abort(comm::Context& context, Step&& step) {
  if (context.size() == 1) {
    step();
    return;
  }
  try {
    step();
  } catch (const std::exception& e) {
    std::cerr << "parasol: rank " << context.rank() << ": " << e.what() << "\n";
    context.abort(1);
  }
}

// The backend every rank will use: a GPU run only when every rank has a device; `auto` runs the
// CPU solver only when no rank has one (rank 0 says so on one line). Collective.
Backend agreed_backend(comm::Context& context, Backend asked);

// Its rule, given each rank's GPU in rank order. When some ranks have a device and others not,
// `auto` is an InputError naming the ranks without and their hosts, and `gpu` an Error: neither
// silently runs a hundred times slower than asked. None has one: `gpu` is an Error, `auto` cpu.
struct RankGpu {
  bool usable = false;
  std::string host;
  std::string reason;  // why not, when not: gpu_available's
};
Backend agree_on_backend(Backend asked, const std::vector<RankGpu>& ranks);

// /provenance of a run across ranks: how many, where, on what, and how data travelled.
void write_ranks(io::ResultFile& file, comm::Context& context, Backend backend,
                 const std::vector<comm::RankDevice>& ranks);

// Across ranks, before any work: every rank must have read the same problem. Each gives a digest
// of its resolved parameters (every key read, with its value) and of the input files they name
// (size and a hash of their first and last 64 KiB: node-local copies of one file agree, a
// different file does not); on a mismatch every rank ends with InputError (exit 2) naming the
// first differing key and the ranks ("grid.nx is 16 on rank 0 and 17 on rank 1"). Collective;
// call it inside together(), once the parameters are read and validated.
void require_same_problem(comm::Context& context, const io::ParamTable& params,
                          const std::filesystem::path& params_path);

// The parameter file with the command line's overrides applied.
io::ParamTable load_params(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides);

}  // namespace parasol::app
