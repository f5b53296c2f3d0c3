// montecarlo around its solvers, for the front end, the tests and the benchmarks: the work and
// memory a run needs, a run cut among ranks made whole and judged against its gold, and what a
// sweep times and checks against. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "kernels/checkpoint_keys.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/montecarlo.hpp"
#include "solvers/montecarlo/summary.hpp"

namespace parasol::io {
class CheckpointReader;  // io/checkpoint.hpp, which run.cpp reads and writes through
class CheckpointWriter;
}  // namespace parasol::io

namespace parasol::montecarlo {

// A run's units of work, the rate's: paths x steps.
double path_steps(const Params& p);
double path_steps(const BasketParams& p);

// The stored sample paths: a float per asset at each of steps + 1 times, for sample_paths paths.
double sample_path_bytes(const Params& p);
// host-rng's device memory: its normals for a batch (2 x steps floats for each of
// min(batch_paths, paths) paths), and the stored sample paths beside them.
double host_rng_bytes(const Params& p);

// Whether a run's samples are cut among ranks by whole batches (samples_of): on the GPU
// host-rng's generator starts a rank at one of the one-rank run's batches; the other generators
// draw each sample's normals alone, so any cut will do.
bool cuts_whole_batches(const Params& p, bool gpu);

// The stored sample paths among `part`'s samples: rows [first, first + count) of the whole run's
// sample_paths rows, none when the part starts past them.
Samples stored_rows(const Params& p, Samples part);

// The whole run's result from this rank's `mine`, on every rank: the ranks' payoff sums added
// (integers, so in any order they give the one-rank run's bits), the estimate made from them, and
// the slowest rank's total seconds. One all-gather of a small record a rank; on one rank, `mine`.
Result whole_run(comm::Context& context, const Params& p, Result mine);

// The batches a rank runs. A run's samples are cut among `ranks` ranks (samples_of), and each
// rank's share is a stream of batches from its start, one batch a round; a rank runs the streams
// [first, first + count) of that cut. A run runs its own rank's stream of its own cut; a restart
// on another rank count keeps the cut of the run that began it, and each rank runs the streams of
// the parts it took over (a block of them; none on a rank past the count that began it), so the
// batches, their sums and the rounds are the ones the first run's would have been.
struct Streams {
  int ranks = 1;
  int first = 0, count = 1;
  // The samples of streams [first, first + count): one run of sample indices.
  Samples samples(const Params& p, bool whole_batches) const;
};

// What a checkpoint holds of a run, enough to continue it to the same bits: the rounds of
// batches done (every stream's, a round being one batch of method.batch_paths paths from each),
// the streams this rank ran, the payoff sums of their samples in them, and the stored sample
// paths among those (`sample`, not owned). No generator state is needed: the gold and device-rng
// draw each sample's normals from Philox counters of its index, and host-rng's generator is set
// to the offset of the batch it starts at, so the next sample's index is every stream's position.
struct State {
  std::int64_t rounds = 0;
  Streams streams;
  PayoffSums sums;
  const std::vector<float>* sample = nullptr;
};
// A run's safe points are the ends of its rounds.
using Checkpoints = SafePoints<State>;

// The whole numbers a checkpoint records of a rank's State beside its sample paths (`paths`: the
// run's path count), by name; the 128-bit sums as four 64-bit halves, since HDF5 attributes hold
// no wider integer.
std::vector<std::pair<std::string, std::int64_t>> checkpoint_integers(const State& s,
                                                                      std::int64_t paths);

// A checkpoint as a restart reads it (io::CheckpointReader through the front end): the parts its
// ranks wrote, the whole numbers it holds once or per part, and a part's stored sample paths.
struct Written {
  std::string source;  // the file, for a refusal's message
  int parts = 1;
  std::function<std::int64_t(const std::string& name)> integer;
  std::function<std::int64_t(const std::string& name, int part)> part_integer;
  std::function<std::vector<float>(int part)> sample;
};

// Where rank `rank` of `ranks` continues a run of `p` from the checkpoint `written`: the parts
// it takes over (its own on as many ranks as wrote them, otherwise a block of them, as evenly as
// they go), their streams of batches, their payoff sums added (integers: in any order the first
// run's), and their stored sample paths, placed at their rows of the run's in `sample`, which the
// State points at. The cut the batches follow stays the first run's, so across ranks the path
// count must stay too. InputError "checkpoint refused: ..." at `written.source` for a checkpoint
// that cannot continue this run.
State resume(const Params& p, const Written& written, int rank, int ranks, bool whole_batches,
             std::vector<float>& sample);

// Rounds of batches a run of `p` cut among `ranks` ranks makes: rank 0's batches, the most any
// rank's stream has.
std::int64_t batch_rounds(const Params& p, int ranks, bool whole_batches);

// solve_gpu (`gpu`) or solve_gold of `streams`, one batch of each a round, for `rounds` rounds,
// meeting `checkpoints` after each (a rank whose samples ran out meets them too) and continuing
// from checkpoints.from when set: the bits one solve of the streams' samples gives. Stops early
// where `at` says so.
Result solve_in_rounds(const Params& p, bool gpu, const ProgressCallback& progress,
                       const Streams& streams, std::int64_t rounds, const Checkpoints& checkpoints);

// A rank's part of a two-asset run of `p` among `ranks`: the streams of batches it runs (its own
// rank's of its own cut, or on a restart those of the parts it takes over), their samples, and
// their solve, whole or a round of batches at a time between checkpoints, with the checkpoints'
// state written and read back through io/checkpoint.hpp.
class RankPart {
 public:
  RankPart(const Params& p, bool gpu, int rank, int ranks);
  RankPart(const RankPart&) = delete;  // from_ points into sample_
  RankPart& operator=(const RankPart&) = delete;

  // The keys a restart may change: on one rank the path count (the batches done are the same
  // ones); across ranks it decides each rank's samples, so it must stay.
  std::set<std::string> restart_may_change() const;
  // A part that checkpoints (`enabled`) refuses host-rng on the GPU (refuse_checkpoints, an
  // InputError naming method.variant with no source); with `restart` it continues from this
  // rank's reading of that checkpoint (resume(): "checkpoint refused: ..." naming it).
  void use_checkpoints(bool enabled, const io::CheckpointReader* restart);
  // The restart's state, null without one; this rank's State into a checkpoint.
  const State* from() const { return from_ ? &*from_ : nullptr; }
  void save(io::CheckpointWriter& w, const State& s) const;
  // The part's safe points as the front end's `checkpoints` make them (its safe_points(from,
  // fill)): from the restart's state, each checkpoint holding this rank's State (save).
  template <class Checkpointing>
  Checkpoints points(Checkpointing& checkpoints) const {
    return checkpoints.safe_points(from(), [this](io::CheckpointWriter& w, const State& s) {
      save(w, s);
    });
  }

  // Whether samples are cut by whole batches (cuts_whole_batches), the samples this rank
  // simulates, the rounds of batches every rank makes, and the cut in words for /method.
  bool whole_batches() const { return cuts_whole_batches(p_, gpu_); }
  Samples samples() const { return streams_.samples(p_, whole_batches()); }
  std::int64_t rounds() const { return batch_rounds(p_, streams_.ranks, whole_batches()); }
  std::string decomposition() const;
  // What one parallel loop of the CPU gold shares among threads: its paths' steps, this rank's
  // share of them (kernels/cpu_threads.hpp sizes its threads by it).
  std::int64_t parallel_items() const {
    return static_cast<std::int64_t>(path_steps(p_) / ranks_);
  }

  // The part solved: in one solve without checkpoints (`points.at` unset), else solve_in_rounds.
  Result solve(const ProgressCallback& progress, const Checkpoints& points) const;

  // The stored sample paths as this rank writes them of `r` (its result): the dataset, its whole
  // dims (sample_dims), this rank's rows [first, first + count) of it (the first sample_paths
  // samples at their places in the whole run; across ranks those among this rank's samples),
  // and the field's attributes (sample_attributes).
  struct SampleField {
    std::string dataset = "/fields/sample_paths";
    std::vector<std::uint64_t> dims;
    std::uint64_t first = 0, count = 0;
    const float* values = nullptr;
    std::vector<Attribute> attributes;
  };
  SampleField stored(const Result& r) const;
 private:
  Params p_;
  bool gpu_;
  int rank_, ranks_;
  Streams streams_;
  std::optional<State> from_;
  std::vector<float> sample_;  // a restart's stored sample paths
};

// The stored sample paths' field: [path][time][asset] of sample_paths x (steps + 1) x 2.
std::vector<std::uint64_t> sample_dims(const Params& p);

// A run's estimate (the whole run's, across ranks) judged against the gold. A CPU run is the gold
// solver itself (the same seed, the same bits), so it is its own gold; a GPU run's gold simulates
// this rank's `part`, made whole over the ranks. Every rank calls it and gets the same answer.
Agreement check_run(const Params& p, const Estimate& estimate, bool gpu, Samples part,
                    comm::Context& context, const ProgressCallback& progress = {});

// A sweep's configurations of `p`: each variant at each compiled block size, host-rng at both of
// cuRAND's orderings (device-rng has none).
std::vector<Params> sweep_configurations(const Params& p);

// Longstaff-Schwartz's device memory: a float for every fitting path at each exercise date, two
// more a path, and the Gram sums (lsm_gram_bytes).
double lsm_device_bytes(const BasketParams& p);

// The basket sweep's gold where no closed form is known: the CPU gold on at most this many paths,
// as it does d^2 work a path-step on one core.
inline constexpr std::int64_t kBasketSweepGoldPaths = std::int64_t{1} << 14;
// The same model on min(paths, kBasketSweepGoldPaths) paths.
BasketParams basket_sweep_gold_params(BasketParams p);

// The variants a basket sweep times: those that can hold its assets.
std::vector<BasketVariant> sweep_variants(const BasketParams& p);

// A basket price judged by what is known exactly, where something is: the geometric basket's
// closed form, or for a one-asset early-exercise put a binomial tree with the same exercise
// dates, less kLsmBiasAllowance; nullopt otherwise.
std::optional<Agreement> agreement_with_exact(const BasketParams& p, const Estimate& price);

// A basket run judged against its gold: what is known exactly (agreement_with_exact), else the
// CPU gold's estimate. A CPU run is that gold (the same bits), so it is its own.
Agreement check_run(const BasketParams& p, const Estimate& price, bool gpu);

}  // namespace parasol::montecarlo
