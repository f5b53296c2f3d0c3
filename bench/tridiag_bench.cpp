// tridiag: unknowns solved per second for each variant and launch, beside cuSPARSE's
// gtsv2StridedBatch (contiguous) and gtsvInterleavedBatch (interleaved, Thomas) on the same data,
// and the roofline: 20 bytes per unknown in float (a, b, c, d read, x written) at the measured
// device-to-device copy bandwidth.
// Then the other kinds (kinds.hpp), each variant that solves them beside its byte floor
// (kind_bytes_per_solve: periodic 20 B an unknown in float, multi-rhs (12 + 8k) / k an
// unknown-RHS, pentadiagonal 28 B, block2 32 B) and the cuSPARSE routine that solves them where
// one exists: gtsv2 looped over the batch for multi-rhs (one call a system, its k right-hand
// sides at once), gpsvInterleavedBatch for pentadiagonal. Periodic and block2 have none. Each
// launch is checked once against the kind's gold before it is timed; each row of a kind with a
// cuSPARSE routine also reports its speed against that routine's in the same run (xcusparse).
// Last, one system of 2^28 unknowns in float on one GPU: the partition method across ranks
// (long.hpp) on one rank, its rows kept on the device, timed kernels and interface exchange
// together; beside it the copy kernel at its byte floor (20 B an unknown), thomas (one thread,
// the one-rank Thomas algorithm on the device; one timed solve) and thomas-scan on the same
// system.
//   build/bench/tridiag_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
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

// ---- the other kinds --------------------------------------------------------------------------

struct KindCase {
  Kind kind;
  std::int64_t n, systems;
  int rhs = 1;
  KindDims dims() const { return {kind, n, systems, rhs}; }
  std::string label() const {
    return std::string(name(kind)) + (rhs > 1 ? "-k" + std::to_string(rhs) : "") + "/" +
           std::to_string(n) + "x" + std::to_string(systems);
  }
};
// The sizes: periodic at 256 x 65536, 1024 x 16384 and 2^20 x 16; the others at 64 Mi
// unknowns (unknown-RHS for multi-rhs) or near it.
const KindCase kKindCases[] = {
    {Kind::periodic, 256, 1 << 16},     {Kind::periodic, 1024, 1 << 14},
    {Kind::periodic, 1 << 20, 16},      {Kind::multi_rhs, 256, 1 << 15, 8},
    {Kind::multi_rhs, 1024, 1 << 13, 8}, {Kind::pentadiagonal, 256, 1 << 16},
    {Kind::pentadiagonal, 1024, 1 << 14}, {Kind::block2, 256, 1 << 15},
    {Kind::block2, 1024, 1 << 13}};

// A kind's batch on the device in one layout, pristine copies kept for the routines that
// overwrite their inputs, and its gold for the one check before timing.
struct DeviceKindCase {
  KindCase k;
  Layout layout;
  KindBatch<float> batch;
  std::vector<double> gold;
  double condition = 0;
  std::vector<DeviceBuffer<float>> bands, pristine;
  DeviceBuffer<float> d, x;
  DeviceKindCase(const KindCase& kc, Layout l) : k(kc), layout(l) {
    batch = random_kind_batch<float>(kc.dims(), 2026);
    gold = solve_kind_gold(batch);
    condition = condition_bound(batch);
    const KindDims dims = kc.dims();
    const Dims band_dims{dims.band_width(), dims.systems, Layout::contiguous};
    for (const std::vector<float>& band : batch.bands) {
      bands.push_back(upload_relaid(band, band_dims, layout, nullptr));
      pristine.push_back(upload_relaid(band, band_dims, layout, nullptr));
    }
    d = upload_relaid(batch.d, {dims.rhs_width(), dims.systems, Layout::contiguous}, layout, nullptr);
    x = DeviceBuffer<float>(batch.d.size());
  }
  std::vector<const float*> pointers() const {
    std::vector<const float*> p;
    for (const auto& b : bands) p.push_back(b.data());
    return p;
  }
  // x (in this layout) against the gold; throws when it disagrees: a fast wrong answer is not a
  // result.
  void verify(const std::string& what) const {
    const KindDims dims = k.dims();
    const std::vector<float> laid = download(x, nullptr);
    const std::vector<float> contiguous =
        relayout(laid, {dims.rhs_width(), dims.systems, layout}, Layout::contiguous);
    const Agreement a = kind_agreement(contiguous, gold, dims, condition);
    if (!a.passed())
      throw Error(what + " on " + k.label() + " disagrees with the gold: " + a.description);
  }
};

DeviceKindCase& device_kind_case(const KindCase& k, Layout layout) {
  static std::unique_ptr<DeviceKindCase> current;  // one case resident at a time
  if (!current || current->k.label() != k.label() || current->layout != layout) {
    current.reset();
    current = std::make_unique<DeviceKindCase>(k, layout);
  }
  return *current;
}

// Seconds a solve of each kind case (by label) took by its cuSPARSE routine in this run: the
// anchor its variants' rows, registered after it, are reported against.
std::map<std::string, double>& cusparse_seconds() {
  static std::map<std::string, double> seconds;
  return seconds;
}

void report_kind(benchmark::State& state, const KindCase& k, double seconds) {
  const KindDims dims = k.dims();
  const double iterations = static_cast<double>(state.iterations());
  const double unknowns = static_cast<double>(dims.systems * dims.rhs_width()) * iterations;
  const double bytes = kind_bytes_per_solve(dims, 4) * iterations;
  state.counters["Gunknowns/s"] = benchmark::Counter(1e-9 * unknowns / seconds);
  state.counters["GB/s"] = benchmark::Counter(1e-9 * bytes / seconds);
  state.counters["%roofline"] = benchmark::Counter(100.0 * bytes / seconds / copy_bandwidth());
  const auto anchor = cusparse_seconds().find(k.label());
  if (anchor != cusparse_seconds().end())
    state.counters["xcusparse"] = benchmark::Counter(anchor->second * iterations / seconds);
}

// The same for a cuSPARSE row, which becomes its case's anchor.
void report_cusparse_kind(benchmark::State& state, const KindCase& k, double seconds) {
  cusparse_seconds()[k.label()] = seconds / static_cast<double>(state.iterations());
  report_kind(state, k, seconds);
}

void bench_kind_copy(benchmark::State& state, KindCase k) {
  // The floor's bytes, half read and half written.
  const auto half = static_cast<std::size_t>(kind_bytes_per_solve(k.dims(), 4) / 2 / 4);
  DeviceBuffer<float> src(half), dst(half);
  PARASOL_CUDA(cudaMemset(src.data(), 1, src.bytes()));
  report_kind(state, k, bench::timed_runs(state, [&] {
                PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(),
                                             cudaMemcpyDeviceToDevice));
              }));
}

void bench_kind(benchmark::State& state, KindCase k, Launch launch) {
  KindSolver<float> solver(launch, k.dims());
  DeviceKindCase& dc = device_kind_case(k, solver.layout());
  const std::vector<const float*> bands = dc.pointers();
  solver.solve(bands.data(), dc.d.data(), dc.x.data(), nullptr);
  solver.check(nullptr);
  dc.verify(std::string(name(launch.variant)));
  report_kind(state, k, bench::timed_runs(state, [&] {
                solver.solve(bands.data(), dc.d.data(), dc.x.data(), nullptr);
              }));
  solver.check(nullptr);
  state.SetLabel("chunk " + std::to_string(solver.launch().chunk));
}

// multi-rhs by cuSPARSE: gtsv2 (with pivoting) once a system, its k right-hand sides as the
// columns of B ([rhs][n] per system is column-major n x k, ldb = n), over the batch in a loop.
void bench_cusparse_gtsv2_loop(benchmark::State& state, KindCase k) {
  DeviceKindCase& dc = device_kind_case(k, Layout::contiguous);
  Sparse sp;
  const int n = static_cast<int>(k.n), rhs = k.rhs;
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSgtsv2_bufferSizeExt(sp.handle, n, rhs, dc.bands[0].data(),
                                              dc.bands[1].data(), dc.bands[2].data(),
                                              dc.x.data(), n, &bytes));
  DeviceBuffer<unsigned char> buffer(bytes);
  const auto solve_all = [&] {
    for (std::int64_t m = 0; m < k.systems; ++m)
      BENCH_CUSPARSE(cusparseSgtsv2(sp.handle, n, rhs, dc.bands[0].data() + m * n,
                                    dc.bands[1].data() + m * n, dc.bands[2].data() + m * n,
                                    dc.x.data() + m * n * rhs, n, buffer.data()));
  };
  const auto restore = [&] {
    PARASOL_CUDA(cudaMemcpyAsync(dc.x.data(), dc.d.data(), dc.d.bytes(), cudaMemcpyDeviceToDevice));
  };
  restore();
  solve_all();
  dc.verify("cusparse gtsv2");
  report_cusparse_kind(state, k, bench::timed_runs(state, restore, solve_all));
}

// pentadiagonal by cuSPARSE: gpsvInterleavedBatch (QR, algo 0) on the interleaved layout, which
// may overwrite its bands and overwrites x: both restored outside the timing.
void bench_cusparse_gpsv(benchmark::State& state, KindCase k) {
  DeviceKindCase& dc = device_kind_case(k, Layout::interleaved);
  Sparse sp;
  const int n = static_cast<int>(k.n), m = static_cast<int>(k.systems);
  std::size_t bytes = 0;
  auto& b = dc.bands;
  BENCH_CUSPARSE(cusparseSgpsvInterleavedBatch_bufferSizeExt(
      sp.handle, 0, n, b[0].data(), b[1].data(), b[2].data(), b[3].data(), b[4].data(),
      dc.x.data(), m, &bytes));
  DeviceBuffer<unsigned char> buffer(bytes);
  const auto restore = [&] {
    for (std::size_t q = 0; q < b.size(); ++q)
      PARASOL_CUDA(cudaMemcpyAsync(b[q].data(), dc.pristine[q].data(), b[q].bytes(),
                                   cudaMemcpyDeviceToDevice));
    PARASOL_CUDA(cudaMemcpyAsync(dc.x.data(), dc.d.data(), dc.d.bytes(), cudaMemcpyDeviceToDevice));
  };
  const auto solve = [&] {
    BENCH_CUSPARSE(cusparseSgpsvInterleavedBatch(sp.handle, 0, n, b[0].data(), b[1].data(),
                                                 b[2].data(), b[3].data(), b[4].data(),
                                                 dc.x.data(), m, buffer.data()));
  };
  restore();
  solve();
  dc.verify("cusparse gpsvInterleavedBatch");
  report_cusparse_kind(state, k, bench::timed_runs(state, restore, solve));
  restore();
}

// The launches of a kind's variants worth timing: periodic by every general variant (fused on
// chip by thomas-pcr, pcr-warp and pcr-shared while a system fits a block, else through
// Sherman-Morrison) or thomas fused; the rest by thomas and on chip by thomas-pcr (pcr-shared
// too for multi-rhs), over a few block sizes.
std::vector<Launch> kind_launches(const KindCase& k) {
  std::vector<Launch> out;
  for (Variant v : variants_for(k.kind)) {
    // thomas-pcr beyond periodic: two blocks and two chunks that keep a system's group near a
    // warp or a few (block rows for pentadiagonal and block2).
    const bool on_chip = k.kind != Kind::periodic && v == Variant::thomas_pcr;
    const bool blocks = k.kind == Kind::pentadiagonal || k.kind == Kind::block2;
    for (int t : on_chip ? std::vector<int>{128, 256} : std::vector<int>{64, 128, 256, 512})
      for (int chunk : v == Variant::thomas || v == Variant::pcr_shared ? std::vector<int>{0}
                       : on_chip && blocks                             ? std::vector<int>{2, 4}
                       : on_chip                                       ? std::vector<int>{4, 8}
                                                                       : std::vector<int>{0, 4, 8, 16}) {
        try {
          const Launch l = resolve_kind_launch({v, t, chunk}, k.dims(), 4);
          if (std::none_of(out.begin(), out.end(), [&](const Launch& o) {
                return o.variant == l.variant && o.threads == l.threads && o.chunk == l.chunk;
              }))
            out.push_back(l);
        } catch (const InputError&) {
        }
      }
  }
  return out;
}

// ---- one long system ---------------------------------------------------------------------------

// One system of 2^28 unknowns, random_batch's with the plain cases' seed: the study.
const Case kLongCase{std::int64_t{1} << 28, 1};
constexpr std::uint64_t kSeed = 2026;

// The partition method of one system across ranks, on this one rank: its rows drawn on the
// device once and checked once against the gold (the host's Thomas in double), then each
// iteration timed as the kernels' events plus the interface's exchange (host wall, its one copy
// each way included), at the plain kind's byte floor (20 B an unknown).
comm::Context& bench_context() {
  static comm::Context context;  // one a process
  return context;
}

// The case's rows on the device, drawn and checked once (Google Benchmark calls a benchmark
// several times while it settles the iteration count).
DeviceRows<float>& long_rows(const Case& k, int threads) {
  static std::unique_ptr<DeviceRows<float>> rows;
  static std::vector<int> checked;  // block sizes whose answer was checked
  const comm::Slab all = comm::even_slab(k.n, 0, 1);
  if (!rows) rows = std::make_unique<DeviceRows<float>>(k.n, k.systems, kSeed, all);
  if (std::find(checked.begin(), checked.end(), threads) == checked.end()) {
    (void)rows->solve(bench_context(), threads);
    const Batch<float> whole = random_batch<float>({k.n, k.systems, Layout::contiguous}, kSeed);
    const Agreement agreement = long_agreement(bench_context(), whole, rows->x(), all);
    if (!agreement.passed())
      throw Error("long/partition/" + std::to_string(threads) + " on " + k.label() +
                  " disagrees with the gold: " + agreement.description);
    checked.push_back(threads);
  }
  return *rows;
}

void bench_long(benchmark::State& state, Case k, int threads) {
  DeviceRows<float>& rows = long_rows(k, threads);
  comm::Context& context = bench_context();
  (void)rows.solve(context, threads);  // warm-up
  double total = 0, compute = 0, exchange = 0;
  for (auto _ : state) {
    const PhaseTimer t = rows.solve(context, threads);
    state.SetIterationTime(t.seconds(phase::compute) + t.seconds(phase::exchange));
    total += t.seconds(phase::compute) + t.seconds(phase::exchange);
    compute += t.seconds(phase::compute);
    exchange += t.seconds(phase::exchange);
  }
  report(state, {k.n, k.systems, Layout::contiguous}, total);
  const double iterations = static_cast<double>(state.iterations());
  state.counters["kernels_ms"] = benchmark::Counter(1e3 * compute / iterations);
  state.counters["exchange_ms"] = benchmark::Counter(1e3 * exchange / iterations);
  state.SetLabel("pieces of " + std::to_string(kDevicePieceRows) + " rows, one rank");
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
  for (const KindCase& k : kKindCases) {
    const std::string tag = "/" + k.label();
    benchmark::RegisterBenchmark(("copy" + tag).c_str(), bench_kind_copy, k)->UseManualTime();
    if (k.kind == Kind::multi_rhs)
      benchmark::RegisterBenchmark(("cusparse-gtsv2-loop" + tag).c_str(),
                                   bench_cusparse_gtsv2_loop, k)
          ->UseManualTime();
    if (k.kind == Kind::pentadiagonal)
      benchmark::RegisterBenchmark(("cusparse-gpsv-interleaved" + tag).c_str(),
                                   bench_cusparse_gpsv, k)
          ->UseManualTime();
    for (const Launch& l : kind_launches(k)) {
      const std::string name = std::string(tridiag::name(l.variant)) + "/" +
                               std::to_string(l.threads) + "/c" + std::to_string(l.chunk) + tag;
      benchmark::RegisterBenchmark(name.c_str(), bench_kind, k, l)->UseManualTime();
    }
  }
  {
    const std::string tag = "/" + kLongCase.label();
    benchmark::RegisterBenchmark(("copy" + tag).c_str(), bench_copy, kLongCase)->UseManualTime();
    for (const int threads : {128, 256})
      benchmark::RegisterBenchmark(("long/partition/" + std::to_string(threads) + tag).c_str(),
                                   bench_long, kLongCase, threads)
          ->UseManualTime();
    for (const Variant v : {Variant::thomas_scan, Variant::thomas}) {
      try {
        const Launch l = resolve_launch({v, v == Variant::thomas ? 32 : 256, 0},
                                        {kLongCase.n, kLongCase.systems, required_layout(v)}, 4);
        const std::string name = std::string(tridiag::name(l.variant)) + "/" +
                                 std::to_string(l.threads) + "/c" + std::to_string(l.chunk) + tag;
        auto* b = benchmark::RegisterBenchmark(name.c_str(), bench_parasol, kLongCase, l);
        b->UseManualTime();
        // One thread walks 2^28 rows: seconds a solve, so one timed solve.
        if (v == Variant::thomas) b->Iterations(1);
      } catch (const InputError& e) {
        std::printf("%s: %s\n", std::string(tridiag::name(v)).c_str(), e.what());
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
