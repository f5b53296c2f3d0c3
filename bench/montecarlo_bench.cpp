// montecarlo: path-steps per second for each variant at 9.6M paths x 100 steps on the course's
// digital payoff, host-rng split into generation and the path kernel, for both cuRAND orderings.
// Each configuration's first estimate is checked against the CPU gold (montecarlo/check.hpp, as
// the sweep does) before its estimates are timed: a fast wrong answer is not a result.
//   build/bench/montecarlo_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>

#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace {

using namespace parasol;
using namespace parasol::montecarlo;

Params course_digital(Variant v, int block, Ordering ordering) {
  Params p;  // the course's model and payoff: sigma 0.1, rho 0.5, 100 Euler steps
  p.paths = 9600000;
  p.steps = 100;
  p.variant = v;
  p.block = block;
  p.ordering = ordering;
  p.batch_paths = p.paths;  // one batch: 7.7 GB of normals for host-rng, fine on an H100
  return p;
}

// The sweep's gold for the course's case, made once.
const Estimate& gold() {
  static const Estimate estimate =
      solve_gold(sweep_gold_params(course_digital(Variant::device_rng, 512, Ordering::dynamic)))
          .estimate;
  return estimate;
}

// Manual time = device time from the first generation to the partial sums on the host, one whole
// estimate per iteration on a Simulator set up once (allocation and generator set-up excluded).
void bench_variant(benchmark::State& state, Variant v, int block, Ordering ordering) {
  const Params p = course_digital(v, block, ordering);
  Stream stream;
  Simulator simulator(p, stream);
  simulator.run();
  const Agreement a = agreement(simulator.estimate(), gold());
  if (!a.passed()) {
    state.SkipWithError(("disagrees with the gold: " + a.description).c_str());
    return;
  }
  double generate = 0, paths = 0, seconds = 0;
  for (auto _ : state) {
    simulator.run();
    const PhaseTimer t = simulator.timings();
    const double total = t.seconds(kGeneratePhase) + t.seconds(kPathsPhase);
    state.SetIterationTime(total);
    generate += t.seconds(kGeneratePhase);
    paths += t.seconds(kPathsPhase);
    seconds += total;
  }
  const double n = static_cast<double>(state.iterations());
  const double path_steps = static_cast<double>(p.paths) * static_cast<double>(p.steps);
  state.counters["Gpath-steps/s"] = benchmark::Counter(1e-9 * path_steps * n / seconds);
  state.counters["generate_ms"] = benchmark::Counter(1e3 * generate / n);
  state.counters["paths_ms"] = benchmark::Counter(1e3 * paths / n);
}

}  // namespace

void register_pricer_benchmarks();  // bench/pricer_bench.cu: the basket model and its baselines

int main(int argc, char** argv) {
  std::string reason;
  if (!gpu_available(&reason)) {
    std::fprintf(stderr, "montecarlo_bench: %s; nothing to time\n", reason.c_str());
    return 0;
  }
  for (int block : kBlockSizes)
    benchmark::RegisterBenchmark(("montecarlo/device-rng/" + std::to_string(block)).c_str(),
                                 bench_variant, Variant::device_rng, block, Ordering::dynamic)
        ->UseManualTime()->Unit(benchmark::kMillisecond);
  for (Ordering o : {Ordering::legacy, Ordering::dynamic})
    benchmark::RegisterBenchmark(("montecarlo/host-rng/" + std::string(name(o)) + "/128").c_str(),
                                 bench_variant, Variant::host_rng, 128, o)
        ->UseManualTime()->Unit(benchmark::kMillisecond);
  register_pricer_benchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
