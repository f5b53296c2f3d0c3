// recurrence and scan: elements per second on 2^28 floats, beside CUB in the same run.
//   float sum:        parasol device_sum_scan (fast, reproducible) vs cub::DeviceScan::InclusiveSum,
//                     8 bytes per element;
//   float recurrence: parasol recurrence::Solver vs cub::DeviceScan::InclusiveScan with the same
//                     pair operator over a zip of (s, u) and an output iterator writing only v,
//                     12 bytes per element.
// % of copy: bytes per element x elements/s over the measured device-to-device copy bandwidth.
//   build/bench/recurrence_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include <cstdio>
#include <random>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/scan.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace {

using namespace parasol;

constexpr std::int64_t kN = std::int64_t(1) << 28;

double copy_bandwidth() {
  static const double bw = measure_copy_bandwidth(std::size_t(1) << 30);
  return bw;
}

// Random data on the device, made once: u and sum inputs uniform in (-1, 1), s in (-1, 1).
struct Data {
  DeviceBuffer<float> s, u, v, x, y;
  DeviceBuffer<std::int64_t> offsets;
  DeviceBuffer<float> initial;
  Data() : s(kN), u(kN), v(kN), x(kN), y(kN), offsets(2), initial(1) {
    std::vector<float> h(static_cast<std::size_t>(kN));
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (DeviceBuffer<float>* b : {&s, &u, &x}) {
      for (float& e : h) e = dist(rng);
      PARASOL_CUDA(cudaMemcpy(b->data(), h.data(), b->bytes(), cudaMemcpyHostToDevice));
    }
    const std::int64_t off[2] = {0, kN};
    const float init = 0.5f;
    PARASOL_CUDA(cudaMemcpy(offsets.data(), off, sizeof off, cudaMemcpyHostToDevice));
    PARASOL_CUDA(cudaMemcpy(initial.data(), &init, sizeof init, cudaMemcpyHostToDevice));
  }
};

Data& data() {
  static Data d;
  return d;
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

void bench_copy(benchmark::State& state) {
  Data& d = data();
  timed(state, 8.0, [&] {
    PARASOL_CUDA(cudaMemcpyAsync(d.y.data(), d.x.data(), d.x.bytes(), cudaMemcpyDeviceToDevice));
  });
}

void bench_sum(benchmark::State& state, ScanMode mode) {
  Data& d = data();
  ScanWorkspace ws;
  timed(state, 8.0, [&] {
    device_sum_scan(d.x.data(), d.y.data(), kN, ScanKind::inclusive, mode, ws, nullptr);
  });
}

void bench_cub_sum(benchmark::State& state) {
  Data& d = data();
  std::size_t bytes = 0;
  PARASOL_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, d.x.data(), d.y.data(), kN));
  DeviceBuffer<unsigned char> temp(bytes);
  timed(state, 8.0, [&] {
    PARASOL_CUDA(cub::DeviceScan::InclusiveSum(temp.data(), bytes, d.x.data(), d.y.data(), kN));
  });
}

void bench_recurrence(benchmark::State& state, ScanMode mode) {
  Data& d = data();
  recurrence::Solver<float> solver(mode);
  timed(state, 12.0, [&] {
    solver.solve(d.s.data(), d.u.data(), d.offsets.data(), d.initial.data(), kN, 1, d.v.data(),
                 nullptr);
  });
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
  timed(state, 12.0, [&] {
    PARASOL_CUDA(cub::DeviceScan::InclusiveScan(temp.data(), bytes, in, out, PairOp{}, kN));
  });
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
  benchmark::RegisterBenchmark("sum/parasol-fast", bench_sum, ScanMode::fast)->UseManualTime();
  benchmark::RegisterBenchmark("sum/parasol-reproducible", bench_sum, ScanMode::reproducible)
      ->UseManualTime();
  benchmark::RegisterBenchmark("recurrence/cub-pair-scan", bench_cub_recurrence)->UseManualTime();
  benchmark::RegisterBenchmark("recurrence/parasol-fast", bench_recurrence, ScanMode::fast)
      ->UseManualTime();
  benchmark::RegisterBenchmark("recurrence/parasol-reproducible", bench_recurrence,
                               ScanMode::reproducible)
      ->UseManualTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
