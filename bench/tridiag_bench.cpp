// tridiag: unknowns solved per second for each variant and launch, beside cuSPARSE's
// gtsv2StridedBatch (contiguous) and gtsvInterleavedBatch (interleaved, Thomas) on the same data,
// and the roofline: 20 bytes per unknown in float (a, b, c, d read, x written) at the measured
// device-to-device copy bandwidth.
//   build/bench/tridiag_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <cusparse.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace {

using namespace parasol;
using namespace parasol::tridiag;

struct Case {
  std::int64_t n, systems;
  std::string label() const { return std::to_string(n) + "x" + std::to_string(systems); }
};
const Case kCases[] = {{32, 1 << 20}, {256, 1 << 16}, {1024, 1 << 14}, {16384, 1 << 10},
                       {1 << 20, 16}};

#define BENCH_CUSPARSE(call)                                                              \
  do {                                                                                    \
    const cusparseStatus_t status_ = (call);                                              \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                               \
      throw Error(std::string(#call) + ": " + cusparseGetErrorString(status_));           \
  } while (0)

// One case's batch on the device in both layouts, with the right-hand sides kept pristine for
// the cuSPARSE routines, which overwrite them with the solution.
struct DeviceCase {
  Dims dims;
  DeviceBuffer<float> a, b, c, d, x;       // contiguous
  DeviceBuffer<float> ia, ib, ic, id, ix;  // interleaved
  explicit DeviceCase(const Case& k) {
    dims = {k.n, k.systems, Layout::contiguous};
    const Batch<float> batch = random_batch<float>(dims, 2026);
    Dims inter = dims;
    inter.layout = Layout::interleaved;
    const Batch<float> ibatch = random_batch<float>(inter, 2026);
    const auto up = [](const std::vector<float>& h) {
      DeviceBuffer<float> buf(h.size());
      PARASOL_CUDA(cudaMemcpy(buf.data(), h.data(), buf.bytes(), cudaMemcpyHostToDevice));
      return buf;
    };
    a = up(batch.a), b = up(batch.b), c = up(batch.c), d = up(batch.d), x = up(batch.d);
    ia = up(ibatch.a), ib = up(ibatch.b), ic = up(ibatch.c), id = up(ibatch.d),
    ix = up(ibatch.d);
  }
};

DeviceCase& device_case(const Case& k) {
  static std::unique_ptr<DeviceCase> current;  // one case resident at a time
  if (!current || current->dims.n != k.n || current->dims.systems != k.systems) {
    current.reset();
    current = std::make_unique<DeviceCase>(k);
  }
  return *current;
}

double copy_bandwidth() {
  static const double bw = measure_copy_bandwidth(std::size_t(1) << 30);
  return bw;
}

void report(benchmark::State& state, const Dims& dims, double seconds) {
  const double unknowns = static_cast<double>(dims.size()) * static_cast<double>(state.iterations());
  const double bytes = bytes_per_solve(dims, 4) * static_cast<double>(state.iterations());
  state.counters["Gunknowns/s"] = benchmark::Counter(1e-9 * unknowns / seconds);
  state.counters["GB/s"] = benchmark::Counter(1e-9 * bytes / seconds);
  state.counters["%roofline"] = benchmark::Counter(100.0 * bytes / seconds / copy_bandwidth());
}

// Times `solve` per iteration with events; `prepare` runs untimed before each.
template <class Prepare, class Solve>
void timed(benchmark::State& state, const Dims& dims, Prepare&& prepare, Solve&& solve) {
  report(state, dims, bench::timed_runs(state, prepare, solve));
}

void bench_copy(benchmark::State& state, Case k) {
  DeviceCase& dc = device_case(k);
  // Half the solve's bytes read and half written: 10 bytes per unknown copied.
  const std::size_t half = static_cast<std::size_t>(dc.dims.size()) * 10 / 4;
  DeviceBuffer<float> src(half), dst(half);
  PARASOL_CUDA(cudaMemset(src.data(), 1, src.bytes()));
  timed(state, dc.dims, [] {}, [&] {
    PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice));
  });
}

void bench_parasol(benchmark::State& state, Case k, Launch launch) {
  DeviceCase& dc = device_case(k);
  Dims dims = dc.dims;
  dims.layout = required_layout(launch.variant);
  const bool inter = dims.layout == Layout::interleaved;
  Solver<float> solver(launch, dims);
  float* x = inter ? dc.ix.data() : dc.x.data();
  timed(state, dims, [] {}, [&] {
    if (inter) solver.solve(dc.ia.data(), dc.ib.data(), dc.ic.data(), dc.id.data(), x, nullptr);
    else solver.solve(dc.a.data(), dc.b.data(), dc.c.data(), dc.d.data(), x, nullptr);
  });
  solver.check(nullptr);
  state.SetLabel("chunk " + std::to_string(solver.launch().chunk) +
                 (solver.passes() == 1 ? "" : ", input read twice"));
}

struct Sparse {
  cusparseHandle_t handle = nullptr;
  Sparse() { BENCH_CUSPARSE(cusparseCreate(&handle)); }
  ~Sparse() { cusparseDestroy(handle); }
};

void bench_cusparse_strided(benchmark::State& state, Case k) {
  DeviceCase& dc = device_case(k);
  Sparse sp;
  const int n = static_cast<int>(k.n), m = static_cast<int>(k.systems);
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSgtsv2StridedBatch_bufferSizeExt(sp.handle, n, dc.a.data(), dc.b.data(),
                                                          dc.c.data(), dc.x.data(), m, n, &bytes));
  DeviceBuffer<unsigned char> buffer(bytes);
  timed(
      state, dc.dims,
      [&] {
        PARASOL_CUDA(cudaMemcpyAsync(dc.x.data(), dc.d.data(), dc.d.bytes(),
                                     cudaMemcpyDeviceToDevice));
      },
      [&] {
        BENCH_CUSPARSE(cusparseSgtsv2StridedBatch(sp.handle, n, dc.a.data(), dc.b.data(),
                                                  dc.c.data(), dc.x.data(), m, n, buffer.data()));
      });
}

void bench_cusparse_interleaved(benchmark::State& state, Case k) {
  DeviceCase& dc = device_case(k);
  Sparse sp;
  const int n = static_cast<int>(k.n), m = static_cast<int>(k.systems);
  constexpr int kThomas = 0;  // no pivoting, like every variant here
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSgtsvInterleavedBatch_bufferSizeExt(sp.handle, kThomas, n, dc.ia.data(),
                                                             dc.ib.data(), dc.ic.data(),
                                                             dc.ix.data(), m, &bytes));
  DeviceBuffer<unsigned char> buffer(bytes);
  timed(
      state, dc.dims,
      [&] {
        PARASOL_CUDA(cudaMemcpyAsync(dc.ix.data(), dc.id.data(), dc.id.bytes(),
                                     cudaMemcpyDeviceToDevice));
      },
      [&] {
        BENCH_CUSPARSE(cusparseSgtsvInterleavedBatch(sp.handle, kThomas, n, dc.ia.data(),
                                                     dc.ib.data(), dc.ic.data(), dc.ix.data(), m,
                                                     buffer.data()));
      });
}

// Launches worth timing for a case: every variant that can solve it, over a few block sizes and
// every chunk it takes.
std::vector<Launch> launches(const Case& k) {
  std::vector<Launch> out;
  const auto add = [&](Variant v, int threads, int chunk) {
    Dims dims{k.n, k.systems, required_layout(v)};
    try {
      out.push_back(resolve_launch({v, threads, chunk}, dims, 4));
    } catch (const InputError&) {
    }
  };
  for (int t : {128, 256, 512}) add(Variant::pcr_shared, t, 0);
  for (int t : {64, 128, 256})
    for (int c : kWarpChunks) add(Variant::pcr_warp, t, c);
  for (int t : {64, 128, 256, 512, 1024})
    for (int c : kThomasPcrChunks) add(Variant::thomas_pcr, t, c);
  for (int t : {64, 128, 256}) add(Variant::thomas, t, 0);
  for (int t : {128, 256, 512})
    for (int c : kThomasScanChunks) add(Variant::thomas_scan, t, c);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string reason;
  if (!gpu_available(&reason)) {
    std::printf("tridiag_bench needs a CUDA device: %s\n", reason.c_str());
    return 0;
  }
  for (const Case& k : kCases) {
    const std::string tag = "/" + k.label();
    benchmark::RegisterBenchmark(("copy" + tag).c_str(), bench_copy, k)->UseManualTime();
    benchmark::RegisterBenchmark(("cusparse-strided" + tag).c_str(), bench_cusparse_strided, k)
        ->UseManualTime();
    benchmark::RegisterBenchmark(("cusparse-interleaved" + tag).c_str(),
                                 bench_cusparse_interleaved, k)
        ->UseManualTime();
    for (const Launch& l : launches(k)) {
      const std::string name = std::string(tridiag::name(l.variant)) + "/" +
                               std::to_string(l.threads) + "/c" + std::to_string(l.chunk) + tag;
      benchmark::RegisterBenchmark(name.c_str(), bench_parasol, k, l)->UseManualTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
