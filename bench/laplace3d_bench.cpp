// laplace3d: every variant x compiled block shape at 512^3 and 1024^3, beside a device-to-device
// copy of the same bytes and a copy in zreg's z-marching order (bench/zmarch_copy.hpp), in the
// same run. Each configuration is checked against the gold before it is timed: a fast wrong
// answer is not a result.
//   build/bench/laplace3d_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>

#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "bench/timed_runs.hpp"
#include "bench/zmarch_copy.hpp"
#include "solvers/laplace3d/laplace3d.hpp"

namespace {

using namespace parasol;
using namespace parasol::laplace3d;

constexpr int kSweepsPerIteration = 12;  // one benchmark iteration times this many sweeps
// (a multiple of temporal's passes, so none of its sweeps are single ones)
constexpr std::int64_t kCheckSweeps = 4;  // one temporal pass

Params bench_params(std::int64_t n) {
  Params p;
  p.grid = {n, n, n};
  p.boundary = {1.0, 0.0, 0.5, 0.0, 0.0, 0.25};
  p.interior = Interior::random;  // never zeros: they hide unwritten points and can run faster
  p.seed = 2026;
  return p;
}

// The initial field and its gold iterate, made once per size.
struct Reference {
  std::vector<float> initial, gold;
};

const Reference& reference(std::int64_t n) {
  static std::map<std::int64_t, std::unique_ptr<Reference>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<Reference>();
    const Params p = bench_params(n);
    slot->initial = initial_field<float>(p);
    slot->gold = slot->initial;
    std::vector<float> next = slot->initial;
    for (std::int64_t it = 0; it < kCheckSweeps; ++it) {
      gold_sweep(p.grid, slot->gold.data(), next.data());
      slot->gold.swap(next);
    }
  }
  return *slot;
}

double copy_bandwidth() {
  static const double measured = measure_copy_bandwidth(std::size_t{1} << 30);
  return measured;
}

void set_rates(benchmark::State& state, double points_per_sweep, double bytes_per_sweep,
               double seconds, double sweeps) {
  state.counters["Gpoints/s"] = benchmark::Counter(1e-9 * points_per_sweep * sweeps / seconds);
  state.counters["GB/s"] = benchmark::Counter(1e-9 * bytes_per_sweep * sweeps / seconds);
  state.counters["%copy"] =
      benchmark::Counter(100.0 * bytes_per_sweep * sweeps / seconds / copy_bandwidth());
}

void bench_laplace3d(benchmark::State& state, Variant variant, Shape block) {
  const std::int64_t n = state.range(0);
  const Params p = bench_params(n);
  const Reference& ref = reference(n);
  Stream stream;
  DeviceGrid<float> field(p.grid, ref.initial, stream);
  field.sweep(variant, block, kCheckSweeps);
  const double error = max_abs_difference(field.download(), ref.gold);
  if (!(error <= 1e-5)) {
    state.SkipWithError(("differs from the gold by " + std::to_string(error)).c_str());
    return;
  }
  const double total = bench::timed_runs(
      state, [] {}, [&] { field.sweep(variant, block, kSweepsPerIteration); },
      {stream, kSweepsPerIteration});
  set_rates(state, double(p.grid.points()), bytes_per_sweep(p.grid, 4), total,
            double(state.iterations() * kSweepsPerIteration));
}

// The roofline: a device-to-device copy reads and writes as many bytes as one sweep.
void bench_copy(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::size_t elements = static_cast<std::size_t>(n * n * n);
  DeviceBuffer<float> src(elements), dst(elements);
  Stream stream;
  PARASOL_CUDA(cudaMemcpyAsync(src.data(), reference(n).initial.data(), src.bytes(),
                               cudaMemcpyHostToDevice, stream));
  PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice, stream));
  const double total = bench::timed_runs(
      state, [] {},
      [&] {
        for (std::int64_t r = 0; r < kSweepsPerIteration; ++r)
          PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(),
                                       cudaMemcpyDeviceToDevice, stream));
      },
      {stream, kSweepsPerIteration});
  set_rates(state, double(elements), 2.0 * double(src.bytes()), total,
            double(state.iterations() * kSweepsPerIteration));
}

// The single-sweep kernels' own bound: a copy in zreg's access order, chunks of `chunk` planes.
void bench_zmarch_copy(benchmark::State& state) {
  const std::int64_t n = state.range(0), chunk = state.range(1);
  const std::size_t elements = static_cast<std::size_t>(n * n * n);
  DeviceBuffer<float> src(elements), dst(elements);
  Stream stream;
  PARASOL_CUDA(cudaMemcpyAsync(src.data(), reference(n).initial.data(), src.bytes(),
                               cudaMemcpyHostToDevice, stream));
  fill_bytes(dst, 0xff, stream);  // NaN: the check below sees any point the copy missed
  bench::zmarch_copy(src.data(), dst.data(), n, chunk, stream);
  std::vector<float> copied(elements);
  PARASOL_CUDA(cudaMemcpyAsync(copied.data(), dst.data(), dst.bytes(), cudaMemcpyDeviceToHost, stream));
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  if (copied != reference(n).initial) {
    state.SkipWithError("the z-order copy differs from its source");
    return;
  }
  const double total = bench::timed_runs(
      state, [] {},
      [&] {
        for (std::int64_t r = 0; r < kSweepsPerIteration; ++r)
          bench::zmarch_copy(src.data(), dst.data(), n, chunk, stream);
      },
      {stream, kSweepsPerIteration});
  set_rates(state, double(elements), 2.0 * double(src.bytes()), total,
            double(state.iterations() * kSweepsPerIteration));
}

}  // namespace

int main(int argc, char** argv) {
  std::string reason;
  if (!gpu_available(&reason)) {
    std::fprintf(stderr, "laplace3d_bench: %s; nothing to time\n", reason.c_str());
    return 0;
  }
  for (const std::int64_t n : {512, 1024}) {
    benchmark::RegisterBenchmark("laplace3d/copy-baseline", bench_copy)
        ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
    for (const std::int64_t chunk : {16, 32, 64})
      benchmark::RegisterBenchmark("laplace3d/zmarch-copy", bench_zmarch_copy)
          ->Args({n, chunk})->ArgNames({"n", "chunk"})->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    for (Variant v : kVariants)
      for (const Shape& b : compiled_shapes(v))
        benchmark::RegisterBenchmark(
            ("laplace3d/" + std::string(name(v)) + "/" + to_string(b)).c_str(), bench_laplace3d, v, b)
            ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
