// montecarlo's basket model beside its baselines, in the same binary as the course's benchmark:
//   montecarlo/basket/<variant>/d:N   a geometric basket call, 2^20 paths x 32 steps, no Greeks,
//                                     d = 1, 2, 4, 8, 16 (both variants) and 128 (cuBLAS):
//                                     G path-steps/s and G asset-steps/s (x d);
//   montecarlo/curand-philox/d:N      curandGenerateNormal (Philox) of one cuBLAS block's normals
//                                     (d x 2^16 paths x its steps);
//   montecarlo/sgemm/d:N              cublasSgemm of that block's shape: y (d x n) = L (d x d) z;
//   montecarlo/lsm/american-put       Longstaff-Schwartz, 2^20 paths x 50 dates, by phase.
// Each basket configuration's first estimate is checked against the closed form (check.hpp) and
// the LSM against the tree before anything is timed.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <curand.h>

#include <cmath>
#include <cstdio>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/stream.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/check.hpp"

namespace {

using namespace parasol;
using namespace parasol::montecarlo;

constexpr std::int64_t kPaths = std::int64_t{1} << 20;
constexpr std::int64_t kSteps = 32;
constexpr std::int64_t kCublasBatch = std::int64_t{1} << 16;

// d assets, spots 100, vols 0.2 to 0.3, correlation 0.3 between every pair (positive definite).
BasketParams basket(int d, BasketVariant v) {
  BasketParams p;
  p.paths = kPaths;
  p.steps = kSteps;
  p.spots.assign(d, 100.0);
  p.dividends.assign(d, 0.0);
  p.weights.assign(d, 1.0 / d);
  p.vols.clear();
  for (int i = 0; i < d; ++i) p.vols.push_back(0.2 + 0.1 * i / std::max(1, d - 1));
  p.correlation.assign(static_cast<std::size_t>(d) * d, 0.3);
  for (int i = 0; i < d; ++i) p.correlation[static_cast<std::size_t>(i) * d + i] = 1.0;
  p.payoff = BasketPayoff::geometric_basket;
  p.strike = 100;
  p.greeks = false;
  p.variant = v;
  p.batch_paths = v == BasketVariant::cublas ? kCublasBatch : kPaths;
  return p;
}

// Steps per GEMM in basket-cublas at d assets: BasketSimulator's rule (2^25 floats a block).
std::int64_t step_block(int d) {
  return std::min<std::int64_t>(kSteps, std::max<std::int64_t>(1, (std::int64_t{1} << 25) / (d * kCublasBatch)));
}

void bench_basket(benchmark::State& state, BasketVariant v, int d) {
  const BasketParams p = basket(d, v);
  Stream stream;
  BasketSimulator simulator(p, stream);
  simulator.run();
  const Agreement a =
      agreement_with_exact(simulator.result().price, geometric_basket_price(p), 0.0, "closed form");
  if (!a.passed()) {
    state.SkipWithError(("disagrees with the closed form: " + a.description).c_str());
    return;
  }
  EventTimer timer(stream);
  double seconds = 0;
  for (auto _ : state) {
    timer.start();
    simulator.run();
    timer.stop();
    const double s = timer.seconds();
    state.SetIterationTime(s);
    seconds += s;
  }
  const double n = static_cast<double>(state.iterations());
  const double path_steps = static_cast<double>(p.paths) * static_cast<double>(p.steps);
  state.counters["Gpath-steps/s"] = benchmark::Counter(1e-9 * path_steps * n / seconds);
  state.counters["Gasset-steps/s"] = benchmark::Counter(1e-9 * path_steps * d * n / seconds);
  if (v != BasketVariant::cublas) return;
  // One more run with each step block's phases between events: the correlation GEMM's time
  // inside the simulation and the rate that gives, to set beside montecarlo/sgemm's of the same
  // shapes alone, and the normals' and the advance's.
  simulator.time_phases(true);
  simulator.run();
  const BasketSimulator::PhaseSeconds t = simulator.phase_seconds();
  state.counters["normals_ms_in_run"] = benchmark::Counter(1e3 * t.normals);
  state.counters["gemm_ms_in_run"] = benchmark::Counter(1e3 * t.correlation);
  state.counters["advance_ms_in_run"] = benchmark::Counter(1e3 * t.advance);
  state.counters["gemm_TFLOP/s_in_run"] =
      benchmark::Counter(1e-12 * 2.0 * d * d * path_steps / t.correlation);
}

void bench_curand(benchmark::State& state, int d) {
  const std::size_t count = static_cast<std::size_t>(d * kCublasBatch * step_block(d));
  Stream stream;
  DeviceBuffer<float> z(count);
  curandGenerator_t gen = nullptr;
  PARASOL_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  PARASOL_CURAND(curandSetStream(gen, stream));
  PARASOL_CURAND(curandGenerateNormal(gen, z.data(), count, 0.0f, 1.0f));  // sets up its state
  EventTimer timer(stream);
  double seconds = 0;
  for (auto _ : state) {
    timer.start();
    PARASOL_CURAND(curandGenerateNormal(gen, z.data(), count, 0.0f, 1.0f));
    timer.stop();
    const double s = timer.seconds();
    state.SetIterationTime(s);
    seconds += s;
  }
  curandDestroyGenerator(gen);
  const double n = static_cast<double>(state.iterations());
  state.counters["Gnormals/s"] = benchmark::Counter(1e-9 * static_cast<double>(count) * n / seconds);
}

void bench_sgemm(benchmark::State& state, int d) {
  const std::int64_t columns = kCublasBatch * step_block(d);
  Stream stream;
  DeviceBuffer<float> l(static_cast<std::size_t>(d) * d), z(static_cast<std::size_t>(d * columns)),
      y(static_cast<std::size_t>(d * columns));
  fill_bytes(l, 0, stream);
  fill_bytes(z, 0, stream);
  cublasHandle_t handle = nullptr;
  PARASOL_CUBLAS(cublasCreate(&handle));
  PARASOL_CUBLAS(cublasSetStream(handle, stream));
  const float one = 1.0f, zero = 0.0f;
  const auto gemm = [&] {
    PARASOL_CUBLAS(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, d, static_cast<int>(columns), d,
                               &one, l.data(), d, z.data(), d, &zero, y.data(), d));
  };
  gemm();
  EventTimer timer(stream);
  double seconds = 0;
  for (auto _ : state) {
    timer.start();
    gemm();
    timer.stop();
    const double s = timer.seconds();
    state.SetIterationTime(s);
    seconds += s;
  }
  cublasDestroy(handle);
  const double n = static_cast<double>(state.iterations());
  state.counters["TFLOP/s"] =
      benchmark::Counter(1e-12 * 2.0 * d * d * static_cast<double>(columns) * n / seconds);
  // The same GEMMs' time for one whole basket run (kPaths x kSteps), to set beside it.
  const double per_run = seconds / n * static_cast<double>(kPaths / kCublasBatch) *
                         std::ceil(static_cast<double>(kSteps) / static_cast<double>(step_block(d)));
  state.counters["ms_per_basket_run"] = benchmark::Counter(1e3 * per_run);
}

void bench_lsm(benchmark::State& state) {
  BasketParams p;
  p.spots = {36};
  p.vols = {0.2};
  p.dividends = {0};
  p.weights = {1};
  p.correlation = {1};
  p.strike = 40;
  p.rate = 0.06;
  p.steps = 50;
  p.paths = kPaths;
  p.payoff = BasketPayoff::american_put;
  Stream stream;
  const double tree = binomial_put(p, 40, false);
  LsmSolver solver(p, stream);  // its buffers, made once, as the basket's simulator makes its own
  const BasketResult first = solver.run();
  const Agreement a = agreement_with_exact(first.price, tree, kLsmBiasAllowance * tree, "tree");
  if (!a.passed()) {
    state.SkipWithError(("disagrees with the tree: " + a.description).c_str());
    return;
  }
  double simulate = 0, regress = 0, price = 0, total = 0;
  for (auto _ : state) {
    const BasketResult r = solver.run();
    state.SetIterationTime(r.seconds);
    simulate += r.timings.seconds(kSimulatePhase);
    regress += r.timings.seconds(kRegressPhase);
    price += r.timings.seconds(kPricePhase);
    total += r.seconds;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["simulate_ms"] = benchmark::Counter(1e3 * simulate / n);
  state.counters["regress_ms"] = benchmark::Counter(1e3 * regress / n);
  state.counters["price_ms"] = benchmark::Counter(1e3 * price / n);
  state.counters["total_ms"] = benchmark::Counter(1e3 * total / n);
}

}  // namespace

// Called from montecarlo_bench.cpp's main, beside the course's benchmarks.
void register_pricer_benchmarks() {
  // 4 and 8 besides the issue's sizes: where registers and cuBLAS cross (kRegistersUpTo).
  for (int d : {1, 2, 4, 8, 16, 128}) {
    const std::string tail = "/d:" + std::to_string(d);
    for (BasketVariant v : kBasketVariants) {
      if (v == BasketVariant::registers && d > kRegistersUpTo) continue;
      benchmark::RegisterBenchmark(("montecarlo/basket/" + std::string(name(v)) + tail).c_str(),
                                   bench_basket, v, d)
          ->UseManualTime()->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("montecarlo/curand-philox" + tail).c_str(), bench_curand, d)
        ->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("montecarlo/sgemm" + tail).c_str(), bench_sgemm, d)
        ->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("montecarlo/lsm/american-put", bench_lsm)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
}
