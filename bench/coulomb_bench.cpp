// coulomb: atom evaluations per second (lattice points x atoms / time) for each variant, block
// shape and coarsening, on a 2048^2 slice with 4000 atoms and a 128^3 lattice with 20000 atoms,
// beside the measured rsqrtf throughput (one reciprocal square root per evaluation: the bound).
// Each case's atoms are uploaded once; each configuration's first run is checked against the
// gold (coulomb/check.hpp, as the sweep does) before it is timed: a fast wrong answer is not a
// result.
//   build/bench/coulomb_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "bench/timed_runs.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"

namespace {

using namespace parasol;
using namespace parasol::coulomb;

struct Case {
  const char* label;
  std::int64_t nx, ny, nz;
  int atoms;
};
constexpr Case kSlice{"2d-2048x2048x4000", 2048, 2048, 1, 4000};
constexpr Case kVolume{"3d-128^3x20000", 128, 128, 128, 20000};
constexpr Case kSmallSlice{"2d-256x256x4000", 256, 256, 1, 4000};  // for scatter, the slow one

Params case_params(const Case& c) {
  Params p;
  p.lattice = {{0, 0, 0}, 0.1, c.nx, c.ny, c.nz};
  p.coulomb_constant = 332.0637;
  return p;
}

std::vector<Atom> case_atoms(const Case& c) {
  std::mt19937_64 rng(2026);
  const Params p = case_params(c);
  const auto extent = [&](std::int64_t n) { return 0.1 * static_cast<double>(n); };
  std::uniform_real_distribution<double> ux(0, extent(c.nx)), uy(0, extent(c.ny)),
      uz(-1.0, extent(c.nz) + 1.0), q(-1, 1);
  std::vector<Atom> atoms(static_cast<std::size_t>(c.atoms));
  for (Atom& a : atoms)
    a = {static_cast<float>(ux(rng)), static_cast<float>(uy(rng)), static_cast<float>(uz(rng)),
         static_cast<float>(q(rng))};
  return atoms;
}

// A case on the device (its atoms uploaded once) and its gold, made on first use.
struct Problem {
  Stream stream;
  DeviceProblem device;
  GoldWithScale gold;
  explicit Problem(const Case& c)
      : device(case_params(c), case_atoms(c), stream),
        gold(solve_gold_with_scale(case_params(c), case_atoms(c))) {}
};

Problem& problem(const Case& c) {
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  auto& slot = cache[c.label];
  if (!slot) slot = std::make_unique<Problem>(c);
  return *slot;
}

double rsqrt_rate() {
  static const double rate = measure_rsqrt_throughput();
  return rate;
}

void bench_case(benchmark::State& state, Case c, Variant v, Shape block, int coarsening) {
  Problem& pr = problem(c);
  const auto run = [&] { pr.device.run(v, block, coarsening); };
  pr.device.poison();
  run();
  const Agreement a = agreement(pr.device.download(), pr.gold.potential, pr.gold.scale,
                                tolerance(v, static_cast<std::size_t>(c.atoms)));
  if (!a.passed()) {
    state.SkipWithError(("disagrees with the gold: " + a.description).c_str());
    return;
  }
  const double seconds = bench::timed_runs(state, [] {}, run, {pr.device.stream()});
  const double evaluations = static_cast<double>(case_params(c).lattice.points()) * c.atoms *
                             static_cast<double>(state.iterations());
  state.counters["Gevals/s"] = benchmark::Counter(1e-9 * evaluations / seconds);
  state.counters["%rsqrt"] = benchmark::Counter(100.0 * evaluations / seconds / rsqrt_rate());
}

void bench_rsqrt(benchmark::State& state) {
  double rate = 0;
  for (auto _ : state) {
    rate = measure_rsqrt_throughput();
    state.SetIterationTime(1.0);
  }
  state.counters["Grsqrt/s"] = benchmark::Counter(1e-9 * rate);
}

}  // namespace

int main(int argc, char** argv) {
  std::string reason;
  if (!gpu_available(&reason)) {
    std::fprintf(stderr, "coulomb_bench: %s; nothing to time\n", reason.c_str());
    return 0;
  }
  benchmark::RegisterBenchmark("coulomb/rsqrt-throughput", bench_rsqrt)->UseManualTime()->Iterations(3);
  const auto add = [](const Case& c, Variant v, Shape b, int coarsening) {
    benchmark::RegisterBenchmark((std::string("coulomb/") + c.label + "/" + std::string(name(v)) + "/" +
                                  to_string(b) + "/c" + std::to_string(coarsening)).c_str(),
                                 bench_case, c, v, b, coarsening)
        ->UseManualTime()->Unit(benchmark::kMillisecond);
  };
  add(kSmallSlice, Variant::scatter, {32, 8, 1}, 1);
  for (const Case& c : {kSlice, kVolume}) {
    add(c, Variant::gather, {32, 8, 1}, 1);
    for (Variant v : {Variant::gather_coarse, Variant::gather_shared, Variant::gather_hybrid})
      for (int coarsening : kCoarsenings)
        for (const Shape& b : {Shape{16, 16, 1}, Shape{32, 8, 1}, Shape{64, 4, 1}, Shape{128, 2, 1}}) add(c, v, b, coarsening);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
