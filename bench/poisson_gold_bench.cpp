// poisson's CPU gold: one FMG and one V(2,2) cycle at 64³ and 128³ on this machine's cores, so the
// GPU's numbers have the plain multigrid beside them. The solve is checked before it is timed:
// FMG must reach a tenth of the first V-cycle's residual, or the timing is of a broken solver.
//   build/bench/poisson_bench --benchmark_filter=gold
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"

namespace {

using namespace parasol::poisson;

Params gold_params(std::int64_t n, Cycle cycle, std::int64_t cycles) {
  Params p;
  p.nx = p.ny = p.nz = n;
  p.hx = p.hy = p.hz = 1.0 / static_cast<double>(n);
  p.x_max.kind = p.y_min.kind = FaceKind::neumann;
  p.cycle = cycle;
  p.max_cycles = cycles;
  p.tolerance = 0;
  return p;
}

void bench_gold(benchmark::State& state, Cycle cycle) {
  const Params p = gold_params(state.range(0), cycle, cycle == Cycle::fmg ? 0 : 1);
  const std::vector<double> f = make_source(p);
  std::vector<double> u;
  const Outcome check = solve_gold(p, f, u);
  if (check.cycles.empty() || !(check.cycles.back().residual_l2 < 0.1)) {
    state.SkipWithError("the gold's first cycle did not reduce the residual tenfold");
    return;
  }
  for (auto _ : state) {
    const Outcome o = solve_gold(p, f, u);
    benchmark::DoNotOptimize(u.data());
    state.SetIterationTime(o.seconds);
  }
  state.counters["Munknowns/s"] = benchmark::Counter(
      1e-6 * static_cast<double>(p.cells()), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK_CAPTURE(bench_gold, gold_fmg, Cycle::fmg)
    ->Arg(64)->Arg(128)->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_gold, gold_vcycle, Cycle::v)
    ->Arg(64)->Arg(128)->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
