// montecarlo: path-steps per second for each variant at 9.6M paths x 100 steps on the course's
// digital payoff, host-rng split into generation and the path kernel, for both cuRAND orderings.
//   build/bench/montecarlo_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>

#include "kernels/device.hpp"
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

// Manual time = device time from the first generation to the last path kernel (allocation and
// generator set-up excluded); the estimate is checked against the course's figure first.
void bench_variant(benchmark::State& state, Variant v, int block, Ordering ordering) {
  const Params p = course_digital(v, block, ordering);
  const Result first = solve_gpu(p);
  if (!(std::abs(first.estimate.price - 0.4179) < 4 * first.estimate.standard_error)) {
    state.SkipWithError(("estimate " + std::to_string(first.estimate.price) + " is off").c_str());
    return;
  }
  double generate = 0, paths = 0, seconds = 0;
  for (auto _ : state) {
    const Result r = solve_gpu(p);
    const double device = r.timings.generate + r.timings.paths;
    state.SetIterationTime(device);
    generate += r.timings.generate;
    paths += r.timings.paths;
    seconds += device;
  }
  const double n = static_cast<double>(state.iterations());
  const double path_steps = static_cast<double>(p.paths) * static_cast<double>(p.steps);
  state.counters["Gpath-steps/s"] = benchmark::Counter(1e-9 * path_steps * n / seconds);
  state.counters["generate_ms"] = benchmark::Counter(1e3 * generate / n);
  state.counters["paths_ms"] = benchmark::Counter(1e3 * paths / n);
}

}  // namespace

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
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
