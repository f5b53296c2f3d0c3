// One run of a recurrence problem on one rank, usable without the command line: this rank's series
// made or read (inputs.hpp's run_series), solved by the scan on the GPU or by the gold, judged
// against the gold, and what a run says of itself: the memory it needs, its summary and
// attributes, what it promises of its bits, how its fields are laid out. What a run says is the
// whole run's: every function that takes a Context is called by every rank, in the same order.
// Host-only API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/recurrence/inputs.hpp"
#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// Memory of the whole problem, refused at the parameter file naming the key that set its size
// (size_key): "<what> about ..." (`what` ends in its verb).
struct MemoryNeed {
  std::string key, what;
  double bytes = 0;
  bool device = false;
};
// The key a size complaint names: what set the size ("ar1" or "input.file").
const char* size_key(const Params& p);
// On the host: s, u and v of `elements`, with the gold and the magnitude scale in double beside
// them. A generated problem is judged before it is made, a file's once it is read.
template <class T>
MemoryNeed host_need(const Params& p, std::int64_t elements);
// On the device: s, u and v, the offsets and initial values, and a little for the scan's tile
// states. The elements are counted by the offsets: a series drawn on the device holds no s or u
// on the host.
template <class T>
MemoryNeed device_need(const Params& p, const Series<T>& series);

// Whether a run's bits repeat (the same inputs, backend, device and rank count), and why.
std::pair<bool, std::string> reproducibility(const Params& p, bool gpu, int ranks);

// A fact of a run as an attribute records it, by name (the kinds an HDF5 attribute holds).
using Attribute = std::pair<std::string, std::variant<std::int64_t, double, std::string>>;

// /fields/v's layout attribute for a field of `dims` (field_dims).
std::string v_layout(const std::vector<std::uint64_t>& dims);

// A sweep's /sweep attributes of `series`: bytes a solve moves per element (`bytes` per solve),
// its extent, its tile chain and the tolerance that follows from it.
template <class T>
std::vector<Attribute> sweep_attributes(const Series<T>& series, double bytes, double chain);

// Runs `solve` with a ProgressCallback that shows the gold's steps as `what` ("element"): the
// caller's live line, alive while `solve` runs.
using ShowGold = std::function<void(const std::string& what,
                                    const std::function<void(const ProgressCallback&)>& solve)>;

// What a run reports once solved, the whole run's: /timings' rates (and across ranks on the GPU,
// reproducible: the slowest rank's two steps), /series, and across ranks /method's carry; and the
// summary's line.
struct Summary {
  std::vector<Attribute> timings, series, method;
  std::string line;
};

template <class T>
class RunPart {
 public:
  // p's series as rank `rank` of `ranks` holds it (run_series, its `require_host` judging the
  // elements the host will hold), for a run on the GPU or by the gold; `host_copy`: the series is
  // kept on the host (a check follows, or s and u are written).
  RunPart(const Params& p, bool gpu, bool host_copy, int rank, int ranks,
          const std::function<void(std::int64_t elements)>& require_host);

  // The whole series: across ranks its offsets and initial values only.
  const Series<T>& series() const { return series_; }
  // This rank's series: the whole on one rank, its run across ranks.
  const Series<T>& held() const { return part_ ? part_->series : series_; }
  // The whole series' element that held()'s first is.
  std::uint64_t first() const { return part_ ? static_cast<std::uint64_t>(part_->first) : 0; }
  std::int64_t elements() const { return series_.offsets.back(); }  // of the whole series
  // The device's memory this rank's solve takes.
  MemoryNeed device_need() const { return recurrence::device_need(p_, held()); }
  // How the ranks cut the series, for /method.
  const char* decomposition() const;

  // This rank's run solved (the scan on the GPU, else the gold, shown through `show`), the
  // carries exchanged across ranks; v checked finite, and the whole run's range of v and
  // seconds kept for summary(). Collective. Its phases as the run reports them: across ranks
  // exchange, then host_to_device, compute and device_to_host (the gold's compute alone).
  PhaseTimer solve(comm::Context& context, const ShowGold& show);
  const std::vector<T>& v() const { return v_; }
  // The whole run's report, once solved: rank 0's alone, it waits on no one.
  Summary summary() const;
  // v against the gold (solved now when a CPU solve kept none, shown through `show`), the whole
  // run's agreement. Collective.
  Agreement check(comm::Context& context, const ShowGold& show);

 private:
  bool across() const { return ranks_ > 1; }
  const Ar1* drawn() const { return drawn_ ? &p_.ar1 : nullptr; }

  Params p_;
  bool gpu_ = false;
  int ranks_ = 1;
  bool drawn_ = false;  // s and u drawn on the device, never held on the host
  Series<T> series_;    // across ranks its offsets and initial values only: part_ holds the run
  std::optional<SeriesPart<T>> part_;
  std::vector<T> v_;
  std::vector<double> gold_;
  double compute_ = 0;
  std::pair<double, double> range_{0, 0};  // v's least and greatest, over every rank
  // Across ranks on the GPU, reproducible: the slowest rank's tile totals and prefixed scan.
  std::pair<double, double> steps_{0, 0};
};

}  // namespace parasol::recurrence
