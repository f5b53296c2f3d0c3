// One run of a tridiag problem on one rank, usable without the command line: its part of the
// problem made (a share of a batch's systems or of the heat problem's grids, read or drawn, or
// with system.cut = "rows" its rows of every system), solved on the GPU or by the gold, judged
// against the gold, and described for a summary and a result file, the heat march's checkpoints
// included. What a run says is the whole run's: the caller has the parts' numbers combined over
// the ranks (combine). Every function that takes a Context is called by every rank, in the same
// order. Host-only API.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/problem.hpp"
#include "solvers/tridiag/run.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// Where a part runs and what it is asked to keep.
struct Placement {
  int rank = 0, ranks = 1;
  bool gpu = false;
  bool check = false;  // a check against the gold follows: the inputs are kept on the host
  // Judges the memory `f` takes before it is made (`what`: "4096 systems of 1024 rows"), on the
  // device too when `device`: throws to refuse. Null: not judged.
  std::function<void(const Footprint& f, const std::string& what, bool device)> fits;
  // Runs a step whose InputError names a key of the parameter file but no source (a share the
  // rank count cannot cut), so that the caller adds the key's; null: runs it as it is.
  std::function<void(const std::function<void()>&)> sourced;
};

// This rank's block of the result's field (x, or the heat march's u): the dataset, its whole
// extent, the block's offset and count in it, and its attributes.
struct FieldBlock {
  std::string dataset;
  std::vector<std::uint64_t> dims, offset, count;
  std::string layout, units;
};

// What a heat march meets as it goes, on the GPU (T) or in the gold (double); a batch meets none.
template <class T>
struct Marching {
  ProgressCallback progress;
  std::optional<HeatCheckpoints<T>> gpu;
  std::optional<HeatCheckpoints<double>> gold;
};

// Why a run of `p` has nothing to continue from a checkpoint ("a batch is one solve, ..."); empty
// for the heat march, the one problem that checkpoints.
std::string why_no_restart(const Params& p);

// The heat march's state as its checkpoints hold it (the front end's BackendMarch keeps them):
// this rank's `values` temperatures after some steps, held as `held` says (held_by: the GPU keeps
// them in T in its variant's layout, the gold in contiguous doubles, and a restart on another
// backend or variant, `wrote`, is refused rather than rounded); where they lie among the whole
// run's, values [first, first + count) of `total`, when the march holds them [grid][point] (every
// cut marches each grid alike, so such a checkpoint continues on any rank count), and none when
// its layout interleaves them (`interleaved` says why another cut is refused); and the last step
// a restart may be at (`last`, the key `key`).
struct MarchState {
  struct Share {
    std::uint64_t total = 0, first = 0, count = 0;
  };
  std::string held;
  std::uint64_t values = 0;
  std::optional<Share> share;
  std::string key = "heat.steps";
  std::int64_t last = 0;
  std::string wrote = "the backend and variant";
  std::string interleaved =
      "it holds each rank's grids interleaved point by point, which only the same cut reads back";
};

// What a run's summary says after its first line, and /diagnostics' attributes, from the whole
// run's diagnostics: a batch's max|x|, its seconds and rate; a march's range of u, its seconds
// and its solves', the rate, and the sine mode's decay beside the exact one (a line of its own,
// after the checkpoints' when there are any). RunPart::summary adds /timings' solve_s and
// unknowns_per_s.
struct Summary {
  std::string first;
  std::vector<std::string> more;
  Attributes diagnostics;
  Attributes timings;
};
Summary summary(const Params& p, const Diagnostics& d, double seconds, double solve_seconds,
                double unknowns_per_s);

template <class T>
class RunPart {
 public:
  // p's problem cut for `where`, made: a batch read or drawn (on the device, later, when a GPU
  // run keeps no host copy), the heat problem's grids, or one long system's rows. InputError
  // as the inputs, the cut or the memory refuse it.
  static std::unique_ptr<RunPart> make(const Params& p, const Placement& where);
  virtual ~RunPart() = default;

  // Rows per system and this rank's systems: what the launch is made for (launch_for). One
  // long system's method is its own: n is 0.
  virtual Dims launch_dims() const = 0;
  // The memory a batch or march takes judged (Placement::fits), once its launch is made; a
  // part sized before it is drawn or read has judged its own.
  virtual void fit() const {}
  std::int64_t systems() const { return systems_; }  // in the whole problem
  double unknowns() const { return unknowns_; }      // solved by the whole run
  // How the ranks cut the problem, for /method.
  virtual const char* decomposition() const { return "whole systems"; }
  // The summary's first words ("4096 systems of 1024 rows drawn from seed 1"), and its method
  // on the GPU by `launch` and on the CPU.
  virtual std::string what() const = 0;
  virtual std::string method(const Launch& launch) const { return method_of(launch); }
  virtual std::string cpu_method() const { return "CPU gold solver"; }
  virtual std::string reproducible_because() const {
    return "each system is solved alone in a fixed order of operations; ranks split the "
           "systems, not a system";
  }

  // This rank's part solved by `launch` (on the GPU) or the gold, x made; a NumericalError
  // names where the systems came from. Its phases: across ranks one long system's interface as
  // exchange, first; host_to_device, compute and device_to_host (the gold's compute alone); and
  // the seconds of the solves alone, kSolves (a batch's compute; one long system's with its
  // interface), which the run says apart.
  virtual PhaseTimer solve(comm::Context& context, const Launch& launch,
                           const Marching<T>& marching) = 0;
  const std::vector<T>& x() const { return x_; }
  // What the summary says of this rank's x; the caller combines it over the ranks.
  virtual Diagnostics diagnostics() const { return batch_diagnostics(x_); }
  // x against the gold, the whole run's (a gold not kept by a CPU solve is solved now, a march's
  // reporting through `progress`).
  virtual Agreement check(comm::Context& context, const ProgressCallback& progress) = 0;

  // The run's numbers once this rank has solved: its diagnostics and its seconds (`t`: compute as
  // the run counts it, a march's without its checkpoints', and kSolves), made the whole run's by
  // combine(), which every rank calls across ranks; then the summary and /timings' attributes of
  // them.
  void keep(const PhaseTimer& t);
  void combine(comm::Context& context);
  Summary summary() const;

  // The heat march's state as its checkpoints hold it when it marches by `launch`.
  MarchState march_state(const Launch& launch) const;

  virtual FieldBlock field() const = 0;
  // /input's attributes: where the systems came from and their extent.
  virtual Attributes input() const = 0;

 protected:
  RunPart(const Params& p, const Placement& where) : p_(p), where_(where) {}
  void sourced(const std::function<void()>& step) const {
    if (where_.sourced) where_.sourced(step);
    else step();
  }
  void fits(const Footprint& f, const std::string& what, bool device) const {
    if (where_.fits) where_.fits(f, what, device);
  }
  // " from FILE" or " drawn from seed N", for the summary.
  std::string source() const;
  // `e` restated naming where the systems came from, and `note` after it unless it says so.
  NumericalError from_source(const NumericalError& e, const std::string& note = "") const;
  // /input's file or seed, and the systems' count and rows.
  Attributes input_of(std::int64_t n) const;

  Params p_;
  Placement where_;
  std::vector<T> x_;          // this rank's solution, contiguous
  std::vector<double> gold_;  // ... by the gold in double (a CPU solve's, or the check's)
  std::int64_t systems_ = 0, first_ = 0;  // the whole problem's systems; this rank's first
  double unknowns_ = 0;

 private:
  Diagnostics combined_;  // keep()'s, the whole run's once combined
  double compute_seconds_ = 0, solve_seconds_ = 0;
};

}  // namespace parasol::tridiag
