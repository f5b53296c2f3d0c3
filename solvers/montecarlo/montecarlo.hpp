// montecarlo: prices a payoff on two correlated geometric Brownian motions by path simulation,
// with its standard error. Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/phase_timer.hpp"
#include "solvers/montecarlo/params.hpp"

namespace parasol::montecarlo {

// An estimate of a discounted expected payoff.
struct Estimate {
  double price = 0;           // sample mean of the discounted payoff
  double standard_error = 0;  // sample standard deviation / sqrt(samples)
  std::int64_t samples = 0;   // independent samples: paths, or path pairs when antithetic
  double ci_low() const { return price - 1.959963984540054 * standard_error; }
  double ci_high() const { return price + 1.959963984540054 * standard_error; }
};

// Accumulated payoff sums. Payoffs are non-negative; each is rounded to a multiple of 2^-32 of
// the price unit (spot or strike, whichever is larger) and summed as integers, so the total does
// not depend on the order of summation: the same paths give the same bits whatever the block
// shape, thread count, batch size or number of ranks they are cut among.
__extension__ typedef unsigned __int128 Uint128;  // GCC, Clang and nvcc all have it
struct PayoffSums {
  Uint128 sum = 0;      // sum of q, q = round(payoff / unit * 2^32)
  Uint128 sum_sq = 0;   // sum of q^2 (no overflow below ~2^40 samples of payoffs < 256 units)
  std::int64_t count = 0;
};

// Samples [first, first + count) of a run (a sample is a path, or an antithetic pair): the part
// one rank simulates. count < 0: all of them.
struct Samples {
  std::int64_t first = 0, count = -1;
};

// The samples of `p` a rank of `ranks` simulates, as evenly as they go, the first ranks one
// more; with `whole_batches`, whole batches of p.batch_paths (so host-rng's generator can start
// a rank at one of the one-rank run's batches), the first ranks one batch more. A rank may get
// none.
Samples samples_of(const Params& p, int rank, int ranks, bool whole_batches);

// A run's phases beside kernels/phase_timer.hpp's, each added even when 0: host-rng's cuRAND
// filling device memory with normals; the path kernels with their in-kernel sums, and the
// partial sums to the host (the gold's whole run).
inline constexpr char kGeneratePhase[] = "generate";
inline constexpr char kPathsPhase[] = "paths";

struct Result {
  Estimate estimate;
  PayoffSums sums;  // of the samples simulated: what ranks add together
  PhaseTimer timings;  // generate, then paths
  // The wall time the caller waited, set-up included: a rate's seconds. Not a phase: the phases
  // are spent inside it.
  double seconds = 0;
  // sample_paths x (steps + 1) x 2: both assets at every time, path-major.
  std::vector<float> sample;
};

// Reported as a run goes: after each batch of paths on the GPU, each chunk of paths in the gold.
struct Progress {
  std::int64_t paths = 0, total_paths = 0;
  double seconds = 0;  // since the run began
};
using ProgressCallback = std::function<void(const Progress&)>;

// The CPU gold solver: double arithmetic, the same model and payoff, its own normals (Box-Muller
// on counter-based uniforms of the seed, sample and step, so any samples can be simulated alone:
// `part`, a rank's). Agreement with the GPU is statistical (a few standard errors), not bitwise:
// check.hpp.
Result solve_gold(const Params& p, const ProgressCallback& progress = {}, Samples part = {});

// The host memory solve_gold takes for `samples` samples beyond its result: one PayoffSums per
// chunk of samples a thread simulates at a time. In double, so no sample count overflows it.
double gold_host_bytes(std::int64_t samples);

// The GPU solver: p.variant, through a Simulator made for this run. Payoffs are summed on the
// device; only per-block partial sums come back, and memory is bounded by p.batch_paths
// whatever the path count.
Result solve_gpu(const Params& p, const ProgressCallback& progress = {}, Samples part = {});

// One GPU estimator set up on the device, for runs, the sweep and the benchmarks: the kernel for
// p's variant, block, step, payoff and antithetic choice; the partial sums; host-rng's cuRAND
// generator (its state set up here) and its batch of normals; the stored sample paths. Each
// run() enqueues one whole estimate on the stream and allocates nothing, so a sweep times only
// the estimate. device-rng repeats the same paths every run; host-rng's generator goes on where
// the last run left it, so its runs are independent estimates.
class Simulator {
 public:
  // `part`: the samples this simulator runs (a rank's), all by default. device-rng draws each
  // sample's normals from its own counter, so a part's paths are the whole run's.
  Simulator(const Params& p, cudaStream_t stream, Samples part = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Every batch: normals (host-rng), the path kernel adding into the partial sums, and the
  // partial sums copied to the host. With `progress`, the host waits for each batch one batch
  // behind, so the device never idles for it; without, run() returns at once.
  void run(const ProgressCallback& progress = {});
  // The last run's estimate and payoff sums (wait for the stream).
  Estimate estimate() const;
  PayoffSums sums() const;
  // The last run's device time: generation and paths, from its first launch to the estimate's
  // inputs on the host (waits for the stream).
  PhaseTimer timings() const;
  // The last run's stored sample paths, as Result::sample (waits for the stream).
  std::vector<float> sample() const;
  const Params& params() const { return p_; }
  cudaStream_t stream() const { return stream_; }

 private:
  struct State;  // device buffers, the generator, the compiled kernel: montecarlo.cu
  Params p_;
  cudaStream_t stream_;
  Samples part_;
  std::unique_ptr<State> state_;
};

// Black-Scholes price of a European call or put on one asset (the exact-step limit).
double black_scholes(const Params& p);

Estimate estimate_from(const PayoffSums& sums, double unit);
double price_unit(const Params& p);  // the unit payoffs are counted in
inline constexpr double kPayoffScale = 4294967296.0;  // 2^32

}  // namespace parasol::montecarlo
