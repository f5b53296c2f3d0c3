// recurrence and scan: elements per second on 2^28 floats, beside CUB in the same run.
//   float sum:        parasol device_sum_scan (fast, reproducible) vs cub::DeviceScan::InclusiveSum,
//                     8 bytes per element;
//   float recurrence: parasol recurrence::Solver vs cub::DeviceScan::InclusiveScan with the same
//                     pair operator over a zip of (s, u) and an output iterator writing only v,
//                     12 bytes per element.
// `parasol-fast` and `parasol-reproducible` run the shipped tile for the device's class; the
// rows after them, one a compiled tile (`sum/parasol-fast/256x32v`: kernels/scan.hpp's names),
// time every candidate, the shipped one again among them (the spread between its two rows is the
// noise). Every row's result is checked once before it is timed (a fast wrong answer is not a
// result): the sums against a long-double scan on the host within scan_test's round-off, the
// recurrences by recurrence's one agreement (check.hpp) against its gold, compared on the device.
// % of copy: bytes per element x elements/s over the measured device-to-device copy bandwidth.
//   build/bench/recurrence_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/scan.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace {

using namespace parasol;

constexpr std::int64_t kN = std::int64_t(1) << 28;

double copy_bandwidth() {
  static const double bw = measure_copy_bandwidth(std::size_t(1) << 30);
  return bw;
}

// Random data on the device, made once: u and sum inputs uniform in (-1, 1), s in (-1, 1).
// The host keeps s, u and x for the golds, made when a row first asks.
struct Data {
  DeviceBuffer<float> s, u, v, x, y;
  DeviceBuffer<std::int64_t> offsets;
  DeviceBuffer<float> initial;
  recurrence::Series<float> series;  // s, u, offsets {0, kN}, initial {0.5}
  std::vector<float> h_x;
  Data() : s(kN), u(kN), v(kN), x(kN), y(kN), offsets(2), initial(1) {
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const auto n = static_cast<std::size_t>(kN);
    series.s.resize(n);
    series.u.resize(n);
    h_x.resize(n);
    for (auto [h, d] : {std::pair{&series.s, &s}, std::pair{&series.u, &u}, std::pair{&h_x, &x}}) {
      for (float& e : *h) e = dist(rng);
      PARASOL_CUDA(cudaMemcpy(d->data(), h->data(), d->bytes(), cudaMemcpyHostToDevice));
    }
    series.offsets = {0, kN};
    series.initial = {0.5f};
    PARASOL_CUDA(cudaMemcpy(offsets.data(), series.offsets.data(), 2 * sizeof(std::int64_t),
                            cudaMemcpyHostToDevice));
    PARASOL_CUDA(cudaMemcpy(initial.data(), series.initial.data(), sizeof(float),
                            cudaMemcpyHostToDevice));
  }
};

Data& data() {
  static Data d;
  return d;
}

// A gold on the device and the scale its differences are judged by: a row passes when every
// |result - gold| / scale is at most `bound`.
struct DeviceGold {
  DeviceBuffer<double> gold, scale;
  double bound = 1;
  std::string measure;
  std::string check(const float* d_result) const {
    const ScaledComparison c =
        device_compare_scaled(d_result, gold.data(), scale.data(), kN, nullptr);
    if (c.max_relative <= bound) return {};
    return measure + " " + std::to_string(c.max_relative) + " over its bound " +
           std::to_string(bound);
  }
};

DeviceBuffer<double> upload(const std::vector<double>& h) {
  DeviceBuffer<double> d(h.size());
  PARASOL_CUDA(cudaMemcpy(d.data(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

// The inclusive sum in long double, and scan_test's round-off at each element in units of the
// running sum of |x|: 64 ulps for the trees inside a tile, and the chain of tile prefixes before
// it, half an ulp a tile of 512 or more with a random sign.
const DeviceGold& sum_gold() {
  static const DeviceGold g = [] {
    const std::vector<float>& x = data().h_x;
    std::vector<double> sum(x.size()), scale(x.size());
    long double running = 0, magnitude = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      running += x[i];
      magnitude += std::abs(static_cast<long double>(x[i]));
      sum[i] = static_cast<double>(running);
      scale[i] = static_cast<double>(magnitude) * std::numeric_limits<float>::epsilon() *
                 (64.0 + std::sqrt(static_cast<double>(i + 1) / 512.0) * 4.0);
    }
    return DeviceGold{upload(sum), upload(scale), 1.0, "max |sum - gold| / round-off bound"};
  }();
  return g;
}

// recurrence's gold, magnitude scale and tile chain (problems.hpp), judged by check.hpp's
// tolerance.
const DeviceGold& recurrence_gold() {
  static const DeviceGold g = [] {
    const recurrence::GoldScaleChain gsc =
        recurrence::gold_scale_chain(data().series, recurrence::kTileElements<float>);
    return DeviceGold{upload(gsc.gold), upload(gsc.scale), recurrence::tolerance<float>(gsc.chain),
                      "max relative to scale"};
  }();
  return g;
}

// Runs `run` once into an output filled with NaN and checks it; false (the row skipped with the
// reason) when it disagrees.
template <class Run>
bool checked(benchmark::State& state, DeviceBuffer<float>& out, const DeviceGold& gold, Run&& run) {
  fill_bytes(out, 0xFF, nullptr);
  run();
  PARASOL_CUDA(cudaDeviceSynchronize());
  const std::string failure = gold.check(out.data());
  if (failure.empty()) return true;
  state.SkipWithError(failure.c_str());
  return false;
}

template <class Run>
void timed(benchmark::State& state, double bytes_per_element, Run&& run) {
  const double total = bench::timed_runs(state, run);
  const double elements = static_cast<double>(kN) * static_cast<double>(state.iterations());
  state.counters["Gelem/s"] = benchmark::Counter(1e-9 * elements / total);
  state.counters["GB/s"] = benchmark::Counter(1e-9 * elements * bytes_per_element / total);
  state.counters["%copy"] =
      benchmark::Counter(100.0 * elements * bytes_per_element / total / copy_bandwidth());
}

// What a tile can keep in flight (Little's law: the copy rate x the latency, over the
// multiprocessors, is what each must hold): blocks a multiprocessor by the occupancy calculator,
// and their input in KB.
void tile_counters(benchmark::State& state, const ScanTile& tile, int blocks,
                   double input_bytes_per_element) {
  state.counters["blocks/SM"] = benchmark::Counter(blocks);
  state.counters["inKB/SM"] = benchmark::Counter(
      blocks * static_cast<double>(tile.elements()) * input_bytes_per_element / 1024.0);
}

void bench_copy(benchmark::State& state) {
  Data& d = data();
  timed(state, 8.0, [&] {
    PARASOL_CUDA(cudaMemcpyAsync(d.y.data(), d.x.data(), d.x.bytes(), cudaMemcpyDeviceToDevice));
  });
}

void bench_sum(benchmark::State& state, ScanMode mode, ScanTile tile) {
  Data& d = data();
  ScanWorkspace ws;
  const auto run = [&] {
    device_sum_scan(d.x.data(), d.y.data(), kN, ScanKind::inclusive, mode, ws, nullptr, tile);
  };
  if (!checked(state, d.y, sum_gold(), run)) return;
  timed(state, 8.0, run);
  const ScanTile t =
      tile.is_default() ? default_sum_tile<float>(mode, current_memory_class()) : tile;
  tile_counters(state, t, sum_scan_blocks_per_multiprocessor<float>(mode, t), 4.0);
}

void bench_cub_sum(benchmark::State& state) {
  Data& d = data();
  std::size_t bytes = 0;
  PARASOL_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, d.x.data(), d.y.data(), kN));
  DeviceBuffer<unsigned char> temp(bytes);
  const auto run = [&] {
    PARASOL_CUDA(cub::DeviceScan::InclusiveSum(temp.data(), bytes, d.x.data(), d.y.data(), kN));
  };
  if (!checked(state, d.y, sum_gold(), run)) return;
  timed(state, 8.0, run);
}

void bench_recurrence(benchmark::State& state, ScanMode mode, ScanTile tile) {
  Data& d = data();
  recurrence::Solver<float> solver(mode, tile);
  const auto run = [&] {
    solver.solve(d.s.data(), d.u.data(), d.offsets.data(), d.initial.data(), kN, 1, d.v.data(),
                 nullptr);
  };
  if (!checked(state, d.v, recurrence_gold(), run)) return;
  timed(state, 12.0, run);
  const ScanTile t =
      tile.is_default() ? recurrence::default_tile<float>(mode, current_memory_class()) : tile;
  tile_counters(state, t, recurrence::blocks_per_multiprocessor<float>(mode, t), 8.0);
}

// CUB's formulation: (s1, u1) o (s2, u2) = (s1 s2, s2 u1 + u2) over zip(s, u), writing only u.
struct PairOp {
  using Pair = thrust::tuple<float, float>;
  __host__ __device__ Pair operator()(const Pair& a, const Pair& b) const {
    return {thrust::get<0>(a) * thrust::get<0>(b),
            fmaf(thrust::get<0>(b), thrust::get<1>(a), thrust::get<1>(b))};
  }
};
struct SecondOf {
  __host__ __device__ float operator()(const thrust::tuple<float, float>& p) const {
    return thrust::get<1>(p);
  }
};

void bench_cub_recurrence(benchmark::State& state) {
  Data& d = data();
  auto in = thrust::make_zip_iterator(d.s.data(), d.u.data());
  auto out = thrust::make_transform_output_iterator(d.v.data(), SecondOf{});
  std::size_t bytes = 0;
  PARASOL_CUDA(cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, PairOp{}, kN));
  DeviceBuffer<unsigned char> temp(bytes);
  // CUB scans the pairs without our segment start: element 0 becomes (0, s0 v[-1] + u0) first.
  const auto run = [&] {
    PARASOL_CUDA(cub::DeviceScan::InclusiveScan(temp.data(), bytes, in, out, PairOp{}, kN));
  };
  const float s0 = d.series.s[0], u0 = d.series.u[0];
  const float start[2] = {0.0f, std::fma(s0, d.series.initial[0], u0)};
  PARASOL_CUDA(cudaMemcpy(d.s.data(), &start[0], sizeof(float), cudaMemcpyHostToDevice));
  PARASOL_CUDA(cudaMemcpy(d.u.data(), &start[1], sizeof(float), cudaMemcpyHostToDevice));
  const bool agrees = checked(state, d.v, recurrence_gold(), run);
  PARASOL_CUDA(cudaMemcpy(d.s.data(), &s0, sizeof(float), cudaMemcpyHostToDevice));
  PARASOL_CUDA(cudaMemcpy(d.u.data(), &u0, sizeof(float), cudaMemcpyHostToDevice));
  if (agrees) timed(state, 12.0, run);
}

}  // namespace

int main(int argc, char** argv) {
  std::string reason;
  if (!gpu_available(&reason)) {
    std::printf("recurrence_bench needs a CUDA device: %s\n", reason.c_str());
    return 0;
  }
  benchmark::RegisterBenchmark("copy/2^28 floats", bench_copy)->UseManualTime();
  benchmark::RegisterBenchmark("sum/cub-inclusive-sum", bench_cub_sum)->UseManualTime();
  for (const ScanMode mode : {ScanMode::fast, ScanMode::reproducible}) {
    const std::string row = "sum/parasol-" + std::string(name(mode));
    benchmark::RegisterBenchmark(row.c_str(), bench_sum, mode, ScanTile{})->UseManualTime();
    for (const ScanTile& tile : sum_scan_tiles<float>(mode))
      benchmark::RegisterBenchmark((row + "/" + to_string(tile)).c_str(), bench_sum, mode, tile)
          ->UseManualTime();
  }
  benchmark::RegisterBenchmark("recurrence/cub-pair-scan", bench_cub_recurrence)->UseManualTime();
  for (const ScanMode mode : {ScanMode::fast, ScanMode::reproducible}) {
    const std::string row = "recurrence/parasol-" + std::string(name(mode));
    benchmark::RegisterBenchmark(row.c_str(), bench_recurrence, mode, ScanTile{})
        ->UseManualTime();
    for (const ScanTile& tile : recurrence::scan_tiles<float>(mode))
      benchmark::RegisterBenchmark((row + "/" + to_string(tile)).c_str(), bench_recurrence, mode,
                                   tile)
          ->UseManualTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
