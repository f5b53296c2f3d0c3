// fftconv: time per convolution for every variant on the issue's cases, beside the floor in the
// same run: the cuFFT transforms alone that the method needs (forward and inverse, real or
// complex, of the padded length), with no padding, multiplying or cropping.
//   1d:    one signal of 2^24 samples, 1025 taps, full;
//   batch: 4096 signals of 4096 samples, one 63-tap filter, full;
//   2d:    a 4096^2 image, 31x31 filter, in each mode (2d-full, 2d-same, 2d-valid), every
//          variant beside a plain R2C program of the same mode in the same run (2d-<mode>/plain:
//          pad to the full 7-smooth extent, cufftExecR2C, multiply by the filter's spectrum made
//          once before timing, cufftExecC2R, crop; checked against parasol's r2c before it is
//          timed);
//   taps:  the 1D signal against filter lengths 3 .. 4095: where direct sums stop paying;
//   block: overlap-save's transform length on the 1d case;
//   host-api: a 4096^2 image "same" ⊛ 1x63 through the host API (HostConvolver), copies and
//          the output's allocation included: what Python's convolve is judged by;
//   3d:    a 512^3 volume, 9^3 filter, same: direct and r2c beside the forward and inverse
//          R2C/C2R of the padded volume alone (3d/transforms), in the same run.
// Inputs are uniform random in (-1, 1); each 1D case is checked against the gold before it is
// timed. Counters: Gsamples/s of output; xfloor: time over the
// transforms-alone floor of the padded length (r2c floor for every variant but c2c); GB/s: the
// signal read once and the output written once (the least any variant can move) over the time;
// io_floor_ms: a device-to-device copy moving as many bytes, timed in the same run; xio: time
// over it. fused runs where the build has cuFFTDx.
//   build/bench/fftconv_bench --benchmark_counters_tabular=true --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bench/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/plan_cache.hpp"
#include "solvers/fftconv/volume.hpp"

namespace {

using namespace parasol;
using namespace parasol::fftconv;

std::vector<float> random_values(std::int64_t n, unsigned seed) {
  std::vector<float> h(static_cast<std::size_t>(n));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& e : h) e = dist(rng);
  return h;
}

DeviceBuffer<float> on_device(const std::vector<float>& h) {
  DeviceBuffer<float> d(h.size());
  PARASOL_CUDA(cudaMemcpy(d.data(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

// Inputs and outputs per case, made once: the signals are large. The host keeps the inputs for
// the check.
struct Case {
  Problem problem;
  std::vector<float> h_signal, h_filter;
  DeviceBuffer<float> signal, filter, output;
  explicit Case(const Problem& p)
      : problem(p),
        h_signal(random_values(p.batch * p.signal.size(), 1)),
        h_filter(random_values(p.filters * p.filter.size(), 2)),
        signal(on_device(h_signal)),
        filter(on_device(h_filter)),
        output(static_cast<std::size_t>(p.batch * output_extent(p).size())) {}
};

// A fast wrong answer is not a result: the output of a first convolution against the gold, by
// check.hpp's agreement, where the gold can afford it: the first signal's first and last 8192
// outputs, by gold windows as a streamed --check takes them. 2D cases are left to the tests.
Agreement check_1d(const Case& c) {
  const Problem& p = c.problem;
  Problem one = p;
  one.batch = 1;
  one.filters = 1;
  const std::int64_t m = output_extent(p).cols;
  std::vector<float> y(static_cast<std::size_t>(m));
  PARASOL_CUDA(cudaMemcpy(y.data(), c.output.data(), y.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
  const std::vector<float> h(c.h_filter.begin(), c.h_filter.begin() + p.filter.cols);
  const SignalReader<float> read = [&](std::int64_t offset, std::int64_t count, float* into) {
    std::copy_n(c.h_signal.begin() + offset, count, into);
  };
  const std::int64_t count = std::min<std::int64_t>(8192, m);
  GoldDifference d;
  for (const std::int64_t first : {std::int64_t{0}, m - count})
    d.add(y.data() + first, gold_window(one, h, first, count, read));
  return d.agreement(tolerance<float>(p));
}

Problem make_problem(std::int64_t batch, Extent signal, Extent filter, Mode mode = Mode::full) {
  Problem p;
  p.batch = batch;
  p.signal = signal;
  p.filter = filter;
  p.mode = mode;
  return p;
}

// Named by a C string: a std::string made for the call would be a temporary, and GCC 13 warns
// (-Wdangling-reference) of a reference returned from a call given one.
const Problem& problem_named(const char* name, std::int64_t taps = 0) {
  static std::map<std::string, Problem> problems{
      {"1d", make_problem(1, {1, 1 << 24}, {1, 1025})},
      {"batch", make_problem(4096, {1, 4096}, {1, 63})},
      {"2d-full", make_problem(1, {4096, 4096}, {31, 31}, Mode::full)},
      {"2d-same", make_problem(1, {4096, 4096}, {31, 31}, Mode::same)},
      {"2d-valid", make_problem(1, {4096, 4096}, {31, 31}, Mode::valid)}};
  if (taps == 0) return problems.at(name);
  static std::map<std::int64_t, Problem> sweep;
  auto [at, fresh] = sweep.try_emplace(taps, make_problem(1, {1, 1 << 24}, {1, taps}));
  (void)fresh;
  return at->second;
}

// The last case's buffers only: the cases are run one after another, and the device need not
// hold them all.
Case& case_for(const Problem& p) {
  static std::unique_ptr<Case> last;
  if (!last || last->problem.batch != p.batch || last->problem.signal != p.signal ||
      last->problem.filter != p.filter || last->problem.mode != p.mode) {
    last.reset();
    last = std::make_unique<Case>(p);
  }
  return *last;
}

// The padded lengths of the full convolution per axis.
Extent padded(const Problem& p) {
  Extent l{1, good_fft_length(p.signal.cols + p.filter.cols - 1)};
  if (p.is_2d()) l.rows = good_fft_length(p.signal.rows + p.filter.rows - 1);
  return l;
}

template <class Run>
double time_runs(benchmark::State& state, Run&& run) {
  return bench::timed_runs(state, run) / static_cast<double>(state.iterations());
}

// The transforms alone: forward of the signal batch and inverse, at the padded length.
double floor_seconds(const Problem& p, bool complex_transforms) {
  static std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, double> known;
  const Extent l = padded(p);
  const auto key = std::make_tuple(p.batch, l.rows, l.cols, complex_transforms);
  if (auto found = known.find(key); found != known.end()) return found->second;
  PlanCache plans;
  const std::int64_t n = p.batch * l.size();
  DeviceBuffer<float> real(static_cast<std::size_t>(complex_transforms ? 1 : n));
  DeviceBuffer<cufftComplex> spectrum(static_cast<std::size_t>(
      complex_transforms ? n : p.batch * l.rows * (l.cols / 2 + 1)));
  PARASOL_CUDA(cudaMemset(spectrum.data(), 0, spectrum.bytes()));
  if (!complex_transforms) PARASOL_CUDA(cudaMemset(real.data(), 0, real.bytes()));
  const auto run = [&] {
    if (complex_transforms) {
      const cufftHandle plan = plans.get(CUFFT_C2C, l.rows, l.cols, p.batch, nullptr);
      PARASOL_CUFFT(cufftExecC2C(plan, spectrum.data(), spectrum.data(), CUFFT_FORWARD));
      PARASOL_CUFFT(cufftExecC2C(plan, spectrum.data(), spectrum.data(), CUFFT_INVERSE));
    } else {
      PARASOL_CUFFT(cufftExecR2C(plans.get(CUFFT_R2C, l.rows, l.cols, p.batch, nullptr),
                                 real.data(), spectrum.data()));
      PARASOL_CUFFT(cufftExecC2R(plans.get(CUFFT_C2R, l.rows, l.cols, p.batch, nullptr),
                                 spectrum.data(), real.data()));
    }
  };
  run();
  PARASOL_CUDA(cudaDeviceSynchronize());
  EventTimer timer(nullptr);
  std::vector<double> times;
  for (int i = 0; i < 21; ++i) {
    timer.start();
    run();
    timer.stop();
    times.push_back(timer.seconds());
  }
  std::nth_element(times.begin(), times.begin() + 10, times.end());
  return known[key] = times[10];
}

// Reading the signal once and writing the output once: a copy of half their bytes both reads and
// writes that many, so it moves the same total at the copy bandwidth.
double io_bytes(const Problem& p) {
  return 4.0 * static_cast<double>(p.batch * (p.signal.size() + output_extent(p).size()));
}

double io_floor_seconds(const Problem& p) {
  static std::map<std::int64_t, double> known;
  const auto half = static_cast<std::int64_t>(io_bytes(p) / 2);
  if (auto found = known.find(half); found != known.end()) return found->second;
  DeviceBuffer<unsigned char> from(static_cast<std::size_t>(half)),
      to(static_cast<std::size_t>(half));
  PARASOL_CUDA(cudaMemset(from.data(), 0, from.bytes()));
  const auto run = [&] {
    PARASOL_CUDA(cudaMemcpyAsync(to.data(), from.data(), to.bytes(), cudaMemcpyDeviceToDevice,
                                 nullptr));
  };
  run();
  PARASOL_CUDA(cudaDeviceSynchronize());
  EventTimer timer(nullptr);
  std::vector<double> times;
  for (int i = 0; i < 21; ++i) {
    timer.start();
    run();
    timer.stop();
    times.push_back(timer.seconds());
  }
  std::nth_element(times.begin(), times.begin() + 10, times.end());
  return known[half] = times[10];
}

void report(benchmark::State& state, const Problem& p, double seconds, bool complex_floor) {
  const double outputs = static_cast<double>(p.batch * output_extent(p).size());
  state.counters["GB/s"] = benchmark::Counter(1e-9 * io_bytes(p) / seconds);
  state.counters["io_floor_ms"] = benchmark::Counter(1e3 * io_floor_seconds(p));
  state.counters["xio"] = benchmark::Counter(seconds / io_floor_seconds(p));
  state.counters["Gsamples/s"] = benchmark::Counter(1e-9 * outputs / seconds);
  state.counters["ms"] = benchmark::Counter(1e3 * seconds);
  state.counters["floor_ms"] = benchmark::Counter(1e3 * floor_seconds(p, complex_floor));
  state.counters["xfloor"] = benchmark::Counter(seconds / floor_seconds(p, complex_floor));
}

void run_variant(benchmark::State& state, const Problem& p, Variant v, std::int64_t block = 0) {
  Case& c = case_for(p);
  Convolver<float> convolver;
  convolver.keep_filter_spectra();  // the case's filter never changes, as a DeviceProblem's
  Options o;
  o.variant = v;
  o.block = block;
  Variant ran = v;
  if (!p.is_2d()) {
    PARASOL_CUDA(cudaMemset(c.output.data(), 0xFF, c.output.bytes()));  // NaN: unwritten fails
    convolver.convolve(p, o, c.signal.data(), c.filter.data(), c.output.data(), nullptr);
    const Agreement a = check_1d(c);
    if (!a.passed()) {
      state.SkipWithError(("disagrees with the gold: " + a.description).c_str());
      return;
    }
  }
  const double seconds = time_runs(state, [&] {
    ran = convolver.convolve(p, o, c.signal.data(), c.filter.data(), c.output.data(), nullptr);
  });
  report(state, p, seconds, v == Variant::c2c);
  if (v == Variant::automatic) state.SetLabel("picked " + std::string(name(ran)));
}

// The host API, as Python's fftconv.convolve runs it on NumPy arrays: a 4096^2 image "same"
// with a 1x63 filter, uploaded from host vectors, convolved on the plans the HostConvolver kept
// from the call before, downloaded into a fresh huge-page array. Host wall per call, the
// allocation of the output included; python/bench/vs_scipy.py times the Python call of the same
// problem, and the two are compared from one GPU session (docs/performance.md).
void run_host_api(benchmark::State& state) {
  Problem p;
  p.signal = {4096, 4096};
  p.filter = {1, 63};
  p.mode = Mode::same;
  const std::vector<float> x = random_values(p.signal.size(), 1), h = random_values(63, 2);
  const auto outputs = static_cast<std::size_t>(output_extent(p).size());
  HostConvolver<float> convolver;
  const auto call = [&] {
    std::vector<float> y = huge_vector<float>(outputs);
    convolver.convolve(p, Options{}, x.data(), x.size(), h.data(), h.size(), y.data());
    benchmark::DoNotOptimize(y.data());
  };
  call();  // the context, cuFFT's library, the plans and the buffers, as Python's warm-up makes them
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // The image read and the output written once, over the host wall of a call.
  state.counters["GB/s"] = benchmark::Counter(2e-9 * sizeof(float) * static_cast<double>(outputs),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// ---------------------------------------------------------------------------------------------
// The plain R2C program a user would write for a 2D convolution: zero-pad the image to the full
// convolution's 7-smooth extent, R2C, multiply by the filter's half spectrum (made once, before
// timing) and scale, C2R, crop the mode's window. Four kernels and two transforms, each over the
// whole padded image.

__global__ void plain_pad_kernel(const float* __restrict__ x, Extent n, Extent l,
                                 float* __restrict__ padded) {
  for (const std::int64_t i : grid_stride(l.rows * l.cols)) {
    const std::int64_t r = i / l.cols, col = i % l.cols;
    padded[i] = r < n.rows && col < n.cols ? x[r * n.cols + col] : 0.0f;
  }
}

__global__ void plain_multiply_kernel(cufftComplex* __restrict__ s,
                                      const cufftComplex* __restrict__ h, std::int64_t count,
                                      float scale) {
  for (const std::int64_t i : grid_stride(count)) {
    const cufftComplex a = s[i], b = h[i];
    s[i] = make_cuFloatComplex(scale * (a.x * b.x - a.y * b.y), scale * (a.x * b.y + a.y * b.x));
  }
}

__global__ void plain_crop_kernel(const float* __restrict__ full, Extent l, Extent out,
                                  Extent at, float* __restrict__ y) {
  for (const std::int64_t i : grid_stride(out.rows * out.cols)) {
    const std::int64_t r = i / out.cols, col = i % out.cols;
    y[i] = full[(r + at.rows) * l.cols + col + at.cols];
  }
}

struct PlainR2c {
  Extent l;
  PlanCache plans;
  DeviceBuffer<float> padded;
  DeviceBuffer<cufftComplex> spectrum, filter_spectrum;
  cufftHandle forward = 0, inverse = 0;

  explicit PlainR2c(const Case& c)
      : l(padded_extent(c.problem)),
        padded(static_cast<std::size_t>(l.size())),
        spectrum(static_cast<std::size_t>(l.rows * (l.cols / 2 + 1))),
        filter_spectrum(spectrum.size()),
        forward(plans.get(CUFFT_R2C, l.rows, l.cols, 1, nullptr)),
        inverse(plans.get(CUFFT_C2R, l.rows, l.cols, 1, nullptr)) {
    pad(c.filter.data(), c.problem.filter);
    PARASOL_CUFFT(cufftExecR2C(forward, padded.data(), filter_spectrum.data()));
    PARASOL_CUDA(cudaDeviceSynchronize());
  }
  static Extent padded_extent(const Problem& p) {
    return {good_fft_length(p.signal.rows + p.filter.rows - 1),
            good_fft_length(p.signal.cols + p.filter.cols - 1)};
  }
  void pad(const float* x, Extent n) {
    plain_pad_kernel<<<grid_stride_blocks(l.size(), 256), 256>>>(x, n, l, padded.data());
    PARASOL_CHECK_LAUNCH(nullptr);
  }
  void run(Case& c) {
    const Problem& p = c.problem;
    pad(c.signal.data(), p.signal);
    PARASOL_CUFFT(cufftExecR2C(forward, padded.data(), spectrum.data()));
    const auto count = static_cast<std::int64_t>(spectrum.size());
    plain_multiply_kernel<<<grid_stride_blocks(count, 256), 256>>>(
        spectrum.data(), filter_spectrum.data(), count, 1.0f / static_cast<float>(l.size()));
    PARASOL_CHECK_LAUNCH(nullptr);
    PARASOL_CUFFT(cufftExecC2R(inverse, spectrum.data(), padded.data()));
    const Extent out = output_extent(p);
    plain_crop_kernel<<<grid_stride_blocks(out.size(), 256), 256>>>(
        padded.data(), l, out, output_offset(p), c.output.data());
    PARASOL_CHECK_LAUNCH(nullptr);
  }
};

// The plain program's output against parasol's r2c on the same case (the tests judge r2c against
// the gold): relative to the largest output, within float round-off of the transforms.
void run_plain(benchmark::State& state, const Problem& p) {
  Case& c = case_for(p);
  PlainR2c plain(c);
  PARASOL_CUDA(cudaMemset(c.output.data(), 0xFF, c.output.bytes()));
  plain.run(c);
  const std::vector<float> mine = download(c.output, nullptr);
  Convolver<float> convolver;
  convolver.convolve(p, Options{Variant::r2c, 0}, c.signal.data(), c.filter.data(),
                     c.output.data(), nullptr);
  const std::vector<float> theirs = download(c.output, nullptr);
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    largest = std::max(largest, std::abs(static_cast<double>(theirs[i])));
    const double d = std::abs(static_cast<double>(mine[i]) - static_cast<double>(theirs[i]));
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  if (!(worst <= 1e-4 * largest)) {
    state.SkipWithError(("plain R2C disagrees with r2c: " + std::to_string(worst) + " against " +
                         std::to_string(largest)).c_str());
    return;
  }
  const double seconds = time_runs(state, [&] { plain.run(c); });
  report(state, p, seconds, false);
  state.SetLabel("padded " + std::to_string(plain.l.rows) + "x" + std::to_string(plain.l.cols));
}

// ---------------------------------------------------------------------------------------------
// Volumes.

struct VolumeCase {
  VolumeProblem problem;
  std::vector<float> h_signal, h_filter;
  DeviceBuffer<float> signal, filter, output;
  explicit VolumeCase(const VolumeProblem& p)
      : problem(p),
        h_signal(random_values(p.signal.size(), 3)),
        h_filter(random_values(p.filter.size(), 4)),
        signal(on_device(h_signal)),
        filter(on_device(h_filter)),
        output(static_cast<std::size_t>(output_extent(p).size())) {}
};

VolumeCase& volume_case() {
  static VolumeCase c([] {
    VolumeProblem p;
    p.signal = {512, 512, 512};
    p.filter = {9, 9, 9};
    p.mode = Mode::same;
    return p;
  }());
  return c;
}

double volume_io_bytes(const VolumeProblem& p) {
  return 4.0 * static_cast<double>(p.signal.size() + output_extent(p).size());
}

// The output's first and last slices against the gold's slabs.
Agreement check_volume(const VolumeCase& c) {
  const VolumeProblem& p = c.problem;
  const Extent3 out = output_extent(p);
  const std::int64_t plane = out.rows * out.cols;
  std::vector<float> y(static_cast<std::size_t>(out.size()));
  PARASOL_CUDA(cudaMemcpy(y.data(), c.output.data(), y.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
  GoldDifference d;
  for (const std::int64_t z : {std::int64_t{0}, out.depth - 1})
    d.add(y.data() + z * plane, convolve_gold(p, c.h_signal, c.h_filter, z, 1));
  return d.agreement(tolerance<float>(p));
}

// The forward and inverse real 3D transforms of the padded volume alone.
double volume_floor_seconds(const VolumeProblem& p) {
  static double known = 0;
  if (known > 0) return known;
  const Extent3 l = volume_transform_extent(p, output_extent(p).depth);
  PlanCache plans;
  DeviceBuffer<float> real(static_cast<std::size_t>(l.size()));
  DeviceBuffer<cufftComplex> spectrum(
      static_cast<std::size_t>(l.depth * l.rows * (l.cols / 2 + 1)));
  PARASOL_CUDA(cudaMemset(real.data(), 0, real.bytes()));
  const cufftHandle forward = plans.get_3d(CUFFT_R2C, l.depth, l.rows, l.cols, nullptr);
  const cufftHandle inverse = plans.get_3d(CUFFT_C2R, l.depth, l.rows, l.cols, nullptr);
  const auto run = [&] {
    PARASOL_CUFFT(cufftExecR2C(forward, real.data(), spectrum.data()));
    PARASOL_CUFFT(cufftExecC2R(inverse, spectrum.data(), real.data()));
  };
  run();
  PARASOL_CUDA(cudaDeviceSynchronize());
  EventTimer timer(nullptr);
  std::vector<double> times;
  for (int i = 0; i < 11; ++i) {
    timer.start();
    run();
    timer.stop();
    times.push_back(timer.seconds());
  }
  std::nth_element(times.begin(), times.begin() + 5, times.end());
  return known = times[5];
}

void run_volume(benchmark::State& state, Variant v) {
  VolumeCase& c = volume_case();
  const VolumeProblem& p = c.problem;
  VolumeConvolver<float> convolver;
  convolver.keep_filter_spectra();  // the case's filter never changes, as in a run's compute
  const VolumeOptions o{v, 0};
  PARASOL_CUDA(cudaMemset(c.output.data(), 0xFF, c.output.bytes()));
  const Variant ran = convolver.convolve(p, o, c.signal.data(), c.filter.data(), c.output.data(),
                                         nullptr);
  const Agreement a = check_volume(c);
  if (!a.passed()) {
    state.SkipWithError(("disagrees with the gold: " + a.description).c_str());
    return;
  }
  const double seconds = time_runs(state, [&] {
    convolver.convolve(p, o, c.signal.data(), c.filter.data(), c.output.data(), nullptr);
  });
  state.counters["ms"] = benchmark::Counter(1e3 * seconds);
  state.counters["GB/s"] = benchmark::Counter(1e-9 * volume_io_bytes(p) / seconds);
  state.counters["floor_ms"] = benchmark::Counter(1e3 * volume_floor_seconds(p));
  state.counters["xfloor"] = benchmark::Counter(seconds / volume_floor_seconds(p));
  state.SetLabel("ran " + std::string(name(ran)) + ", " +
                 std::to_string(convolver.last_chunks()) + " chunk(s)");
}

void run_volume_transforms(benchmark::State& state) {
  const VolumeProblem& p = volume_case().problem;
  const double seconds = volume_floor_seconds(p);
  for (auto _ : state) state.SetIterationTime(seconds);
  state.counters["ms"] = benchmark::Counter(1e3 * seconds);
}

// Every variant the build has that takes the problem, and auto.
bool runnable(Variant v, const Problem& p) {
  return supports(v, p) && (v != Variant::fused || fused_compiled_in());
}

void register_all() {
  for (const char* name_text : {"1d", "batch", "2d-full", "2d-same", "2d-valid"}) {
    const Problem& p = problem_named(name_text);
    if (p.is_2d())
      benchmark::RegisterBenchmark((std::string("fftconv/") + name_text + "/plain").c_str(),
                                   [&p](benchmark::State& state) { run_plain(state, p); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    for (Variant v : {Variant::c2c, Variant::r2c, Variant::overlap_save, Variant::direct,
                      Variant::fused, Variant::automatic}) {
      if (!runnable(v, p)) continue;
      benchmark::RegisterBenchmark(
          (std::string("fftconv/") + name_text + "/" + std::string(name(v))).c_str(),
          [&p, v](benchmark::State& state) { run_variant(state, p, v); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (std::int64_t taps : {3, 15, 31, 63, 95, 127, 191, 255, 511, 1023, 4095}) {
    const Problem& p = problem_named("taps", taps);
    for (Variant v : {Variant::overlap_save, Variant::direct, Variant::fused, Variant::automatic})
      if (runnable(v, p))
        benchmark::RegisterBenchmark(
            ("fftconv/taps/" + std::to_string(taps) + "/" + std::string(name(v))).c_str(),
            [&p, v](benchmark::State& state) { run_variant(state, p, v); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
  }
  // fused at each compiled transform length that takes the filter, on the 1d and batch cases.
  for (const char* name_text : {"1d", "batch"})
    for (const std::int64_t block : fused_block_lengths(4)) {
      const Problem& p = problem_named(name_text);
      if (block < p.filter.cols) continue;
      benchmark::RegisterBenchmark(
          (std::string("fftconv/fused-block/") + name_text + "/" + std::to_string(block)).c_str(),
          [&p, block](benchmark::State& state) { run_variant(state, p, Variant::fused, block); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::RegisterBenchmark("fftconv/host-api/4096x4096-same", run_host_api)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("fftconv/3d/transforms", run_volume_transforms)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  for (Variant v : {Variant::r2c, Variant::direct, Variant::automatic})
    benchmark::RegisterBenchmark(("fftconv/3d/" + std::string(name(v))).c_str(),
                                 [v](benchmark::State& state) { run_volume(state, v); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  for (std::int64_t block : {2048, 4096, 8192, 16384, 32768}) {
    const Problem& p = problem_named("1d");
    benchmark::RegisterBenchmark(
        ("fftconv/block/" + std::to_string(block)).c_str(),
        [&p, block](benchmark::State& state) {
          run_variant(state, p, Variant::overlap_save, block);
        })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
