// poisson on the GPU, float, a manufactured solution on the unit cube with Dirichlet faces: for
// each variant x smoother at 256^3 and 512^3, the fine level's 7-point sweep (r = b - A u) beside a
// device-to-device copy (the roofline), one V(2,2) cycle in fine-sweep equivalents with the
// convergence factor, and FMG in ms, G unknowns/s and fine-sweep equivalents with its error over
// the discretisation error. Every ratio's two times come from the same run, and each solver is
// checked before it is timed: FMG and V-cycles must reach the discretisation error, measured by a
// double solve taken to 1e-10. Issue 50's targets: FMG <= 10 ms at 512^3 (<= 16 sweeps),
// V(2,2) <= 12 sweeps, factor <= 0.1.
//   build/ci/bench/poisson_bench --benchmark_filter=gpu --benchmark_counters_tabular=true
// Registered at start-up: the executable's main() is Google Benchmark's (poisson_gold_bench).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/event.hpp"
#include "kernels/stream.hpp"
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/problem.hpp"

namespace {

using namespace parasol;
using namespace parasol::poisson;

constexpr int kSweepsTimed = 20;  // fine sweeps per timing of the sweep the cycles are counted in

Params bench_params(std::int64_t n, Variant v, Smoother s) {
  Params p;
  p.nx = p.ny = p.nz = n;
  p.hx = p.hy = p.hz = 1.0 / static_cast<double>(n);
  p.source.kind = SourceKind::manufactured;
  p.precision = Precision::single;
  p.variant = v;
  p.smoother = s;
  p.tolerance = 1e-5;  // above float's rounding floor at 512^3
  return p;
}

// The source, the exact solution and the discretisation error of the converged double answer,
// made once per size.
struct Problem {
  std::vector<float> f;
  std::vector<double> exact;
  double discretisation_error = 0;
};

double max_error(const std::vector<float>& u, const std::vector<double>& exact) {
  double e = 0;
  for (std::size_t c = 0; c < u.size(); ++c)
    e = std::max(e, std::abs(static_cast<double>(u[c]) - exact[c]));
  return e;
}

const Problem& problem(std::int64_t n) {
  static std::map<std::int64_t, std::unique_ptr<Problem>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<Problem>();
    Params p = bench_params(n, Variant::plain, Smoother::rbgs);
    const std::vector<double> f = make_source(p);
    slot->f.assign(f.begin(), f.end());
    slot->exact = manufactured_solution(p);
    p.precision = Precision::double_;
    p.tolerance = 1e-10;
    DeviceSolver<double> reference(p);
    reference.upload_source(f.data());
    reference.solve();
    std::vector<double> u(f.size());
    reference.download(u.data());
    double e = 0;
    for (std::size_t c = 0; c < u.size(); ++c) e = std::max(e, std::abs(u[c] - slot->exact[c]));
    slot->discretisation_error = e;
  }
  return *slot;
}

double copy_bandwidth() {
  static const double measured = measure_copy_bandwidth(std::size_t{1} << 30);
  return measured;
}

// Seconds of one fine sweep, timed on the solver's own stream in this run.
double fine_sweep_seconds(DeviceSolver<float>& solver) {
  EventTimer timer(solver.stream());
  solver.enqueue_fine_sweep();  // warm-up
  timer.start();
  for (int s = 0; s < kSweepsTimed; ++s) solver.enqueue_fine_sweep();
  timer.stop();
  return timer.seconds() / kSweepsTimed;
}

bool skip_without_gpu(benchmark::State& state) {
  std::string reason;
  if (gpu_available(&reason)) return false;
  state.SkipWithError(("needs a CUDA device: " + reason).c_str());
  return true;
}

// A solver with the problem uploaded, checked: its solve reaches the discretisation error (within
// twice it: float's rounding adds to it at 512^3; a wrong answer is off by the solution's size).
// Null, with the state skipped, when it does not. `factor`: the geometric mean of the V-cycles' convergence factors.
std::unique_ptr<DeviceSolver<float>> checked_solver(benchmark::State& state, const Params& p,
                                                    double* factor) {
  const Problem& pr = problem(p.nx);
  auto solver = std::make_unique<DeviceSolver<float>>(p);
  solver->upload_source(pr.f.data());
  const Outcome out = solver->solve();
  std::vector<float> u(pr.f.size());
  solver->download(u.data());
  const double error = max_error(u, pr.exact);
  if (!(error <= 2 * pr.discretisation_error)) {
    state.SkipWithError(("error " + std::to_string(error) + " past the discretisation error " +
                         std::to_string(pr.discretisation_error))
                            .c_str());
    return nullptr;
  }
  double log_sum = 0;
  int counted = 0;
  for (std::size_t c = 1; c < out.cycles.size(); ++c) {
    log_sum += std::log(out.cycles[c].factor);
    ++counted;
  }
  *factor = counted > 0 ? std::exp(log_sum / counted) : 0.0;
  return solver;
}

void bench_fine_sweep(benchmark::State& state, Variant v, Smoother s) {
  if (skip_without_gpu(state)) return;
  const Params p = bench_params(state.range(0), v, s);
  DeviceSolver<float> solver(p);
  solver.upload_source(problem(p.nx).f.data());
  const double total = bench::timed_runs(
      state, [] {},
      [&] {
        for (int r = 0; r < kSweepsTimed; ++r) solver.enqueue_fine_sweep();
      },
      {solver.stream(), kSweepsTimed});
  const double sweeps = static_cast<double>(state.iterations()) * kSweepsTimed;
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(p.cells());  // u, b in; r out
  state.counters["GB/s"] = 1e-9 * bytes * sweeps / total;
  state.counters["%copy"] = 100.0 * bytes * sweeps / total / copy_bandwidth();
  state.counters["Gcells/s"] = 1e-9 * static_cast<double>(p.cells()) * sweeps / total;
}

void bench_v_cycle(benchmark::State& state, Variant v, Smoother s) {
  if (skip_without_gpu(state)) return;
  const Params p = bench_params(state.range(0), v, s);
  double factor = 0;
  const auto solver = checked_solver(state, p, &factor);
  if (!solver) return;
  const double sweep = fine_sweep_seconds(*solver);
  const double total = bench::timed_runs(state, [] {}, [&] { solver->enqueue_v_cycle(); },
                                         {solver->stream(), 1});
  const double cycle = total / static_cast<double>(state.iterations());
  state.counters["ms"] = 1e3 * cycle;
  state.counters["sweeps"] = cycle / sweep;  // target <= 12
  state.counters["factor"] = factor;         // target <= 0.1
  state.counters["sweep_us"] = 1e6 * sweep;
}

void bench_fmg(benchmark::State& state, Variant v, Smoother s) {
  if (skip_without_gpu(state)) return;
  Params p = bench_params(state.range(0), v, s);
  double factor = 0;
  const auto solver = checked_solver(state, p, &factor);
  if (!solver) return;
  const Problem& pr = problem(p.nx);
  // FMG alone, from u = 0: its error against the discretisation error.
  solver->enqueue_fmg();
  std::vector<float> u(pr.f.size());
  solver->download(u.data());
  const double fmg_error = max_error(u, pr.exact);
  const double sweep = fine_sweep_seconds(*solver);
  const double total =
      bench::timed_runs(state, [] {}, [&] { solver->enqueue_fmg(); }, {solver->stream(), 1});
  const double seconds = total / static_cast<double>(state.iterations());
  state.counters["ms"] = 1e3 * seconds;                                         // target <= 10
  state.counters["Gunknowns/s"] = 1e-9 * static_cast<double>(p.cells()) / seconds;  // >= 13
  state.counters["sweeps"] = seconds / sweep;                                   // target <= 16
  state.counters["error/disc"] = fmg_error / pr.discretisation_error;
}

// The roofline: a device-to-device copy of one field, its bytes read and written.
void bench_copy(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const std::int64_t n = state.range(0);
  const auto elements = static_cast<std::size_t>(n * n * n);
  DeviceBuffer<float> src(elements), dst(elements);
  Stream stream;
  fill_bytes(src, 0, stream);
  const double total = bench::timed_runs(
      state, [] {},
      [&] {
        PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(),
                                     cudaMemcpyDeviceToDevice, stream));
      },
      {stream, 1});
  state.counters["GB/s"] =
      1e-9 * 2.0 * static_cast<double>(src.bytes()) * static_cast<double>(state.iterations()) / total;
}

bool register_benchmarks() {
  for (const std::int64_t n : {256, 512}) {
    benchmark::RegisterBenchmark("poisson/gpu/copy-baseline", bench_copy)
        ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
    for (Variant v : kVariants)
      for (Smoother s : kSmoothers) {
        const std::string stem =
            "poisson/gpu/" + std::string(name(v)) + "/" + std::string(name(s)) + "/";
        benchmark::RegisterBenchmark((stem + "fine-sweep").c_str(), bench_fine_sweep, v, s)
            ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((stem + "v-cycle").c_str(), bench_v_cycle, v, s)
            ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
        if (n == 512)
          benchmark::RegisterBenchmark((stem + "fmg").c_str(), bench_fmg, v, s)
              ->Arg(n)->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
      }
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = register_benchmarks();

}  // namespace
