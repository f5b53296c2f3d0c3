// Generated inputs drawn on the host: nanoseconds per sample of fftconv's noise and chirp + noise
// signals and of recurrence's AR(1) series (s and u of each step), in double, on 1 and 2 threads.
// What a run's setup spends per element when its input is drawn on the CPU
// (docs/generated-inputs.md); a GPU run that needs no host copy draws on the device instead.
//   build/bench/draws_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "solvers/fftconv/signals.hpp"
#include "solvers/recurrence/problems.hpp"

namespace {

using namespace parasol;

constexpr std::int64_t kSamples = std::int64_t(1) << 23;

// Wall-clock nanoseconds per sample (an inverted rate of samples per 10^9 s), and that times
// the threads (the cores' time per sample).
// The CPU column is the process's, every thread's time summed: on a loaded machine it says what
// the draws cost where the wall clock also counts the waits for a core.
void set_rate(benchmark::State& state, std::int64_t samples) {
  const double billions =
      static_cast<double>(samples) * static_cast<double>(state.iterations()) * 1e-9;
  const auto kPerSample = benchmark::Counter::kIsRate | benchmark::Counter::kInvert;
  state.counters["ns/sample"] = benchmark::Counter(billions, kPerSample);
  state.counters["core-ns/sample"] =
      benchmark::Counter(billions / static_cast<double>(state.range(0)), kPerSample);
}

void bench_signal(benchmark::State& state, fftconv::SignalKind kind) {
  set_cpu_threads(static_cast<int>(state.range(0)));
  fftconv::Signal s;
  s.kind = kind;
  s.batch = 8;
  s.length = kSamples / s.batch;
  s.noise = kind == fftconv::SignalKind::chirp ? 0.1 : 0.0;
  std::vector<double> into(static_cast<std::size_t>(kSamples));
  for (auto _ : state) {
    fftconv::generate_samples(s, 0, kSamples, into.data());
    benchmark::DoNotOptimize(into.data());
  }
  set_rate(state, kSamples);
}

void bench_ar1(benchmark::State& state) {
  set_cpu_threads(static_cast<int>(state.range(0)));
  recurrence::Ar1 a;
  a.series = 8;
  a.length = kSamples / a.series;
  for (auto _ : state) {
    recurrence::Series<double> series = recurrence::ar1_series<double>(a);
    benchmark::DoNotOptimize(series.u.data());
  }
  set_rate(state, kSamples);
}

// Each on 1 and 2 threads, timed by the wall clock, with the process's CPU time beside it.
void threads_1_and_2(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(2)->ArgName("threads")->UseRealTime()->MeasureProcessCPUTime();
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(bench_signal, fftconv_noise, fftconv::SignalKind::noise)->Apply(threads_1_and_2);
BENCHMARK_CAPTURE(bench_signal, fftconv_chirp_noise, fftconv::SignalKind::chirp)
    ->Apply(threads_1_and_2);
BENCHMARK(bench_ar1)->Apply(threads_1_and_2);

}  // namespace

BENCHMARK_MAIN();
