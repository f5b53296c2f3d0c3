// fftconv on the device: every variant against the CPU gold by the one agreement (check.hpp), on
// random signals and filters of awkward sizes, in every mode, batched and 2D, on DeviceProblem as
// the sweep runs them; overlap-save at every block length; fused at every compiled length, with
// blocks paired across signals and left alone; streaming in pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <future>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/signals.hpp"
#include "tests/support.hpp"

namespace parasol::fftconv {
namespace {

using test::random_values;

// Every variant that takes the problem, each into an output poisoned with NaN (so an unwritten
// sample cannot pass), on one DeviceProblem as the sweep runs them, judged by the one agreement.
template <class T>
void expect_all_variants_match_gold(const Problem& p, std::uint64_t seed) {
  const auto signal = random_values<T>(p.batch * p.signal.size(), seed);
  const auto filter = random_values<T>(p.filters * p.filter.size(), seed + 1);
  const std::vector<double> gold = convolve_gold(p, signal, filter);
  DeviceProblem<T> device(p, signal, filter);
  for (Variant v : kVariants) {
    if (!supports(v, p) || (v == Variant::fused && !fused_compiled_in())) continue;
    device.poison_output();
    EXPECT_EQ(device.convolve(Options{v, 0}), v);
    const Agreement a = agreement(device.download(), gold, p);
    EXPECT_LE(a.value, a.tolerance)
        << name(v) << " " << name(p.mode) << " " << name(p.operation) << " batch " << p.batch
        << " signal " << p.signal.rows << "x" << p.signal.cols << " filter " << p.filter.rows
        << "x" << p.filter.cols << " filters " << p.filters << ": " << a.description;
  }
}

template <class T>
class FftconvGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FftconvGpu, Precisions);

TYPED_TEST(FftconvGpu, OneDimensionalEveryModeAndAwkwardSize) {
  PARASOL_REQUIRE_GPU();
  // Signal and filter lengths: 1, primes, odd and even, filter longer than the signal, a filter
  // longer than one direct-sum chunk.
  const std::pair<std::int64_t, std::int64_t> sizes[] = {
      {1, 1}, {1, 5}, {7, 1}, {2, 3}, {31, 7}, {1000, 33}, {4096, 64},
      {997, 1001}, {6007, 333}, {10007, 2}, {12289, 700}};
  std::uint64_t seed = 1;
  for (const auto& [n, k] : sizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        Problem p;
        p.signal = {1, n};
        p.filter = {1, k};
        p.mode = mode;
        p.operation = op;
        expect_all_variants_match_gold<TypeParam>(p, seed++);
      }
}

TYPED_TEST(FftconvGpu, BatchedWithOneFilterAndWithAFilterEach) {
  PARASOL_REQUIRE_GPU();
  for (std::int64_t filters : {std::int64_t(1), std::int64_t(13)})
    for (Mode mode : kModes) {
      Problem p;
      p.batch = 13;
      p.signal = {1, 517};
      p.filters = filters;
      p.filter = {1, 63};
      p.mode = mode;
      expect_all_variants_match_gold<TypeParam>(p, 100 + filters);
    }
}

TYPED_TEST(FftconvGpu, TwoDimensionalEveryMode) {
  PARASOL_REQUIRE_GPU();
  const std::pair<Extent, Extent> sizes[] = {{{1, 1}, {1, 1}},     {{5, 1}, {3, 1}},
                                             {{37, 61}, {5, 7}},   {{64, 64}, {31, 31}},
                                             {{3, 101}, {3, 3}},   {{17, 19}, {23, 29}},
                                             {{130, 45}, {2, 11}}};
  std::uint64_t seed = 200;
  for (const auto& [signal, filter] : sizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        Problem p;
        p.batch = 2;
        p.signal = signal;
        p.filter = filter;
        p.filters = 2;
        p.mode = mode;
        p.operation = op;
        expect_all_variants_match_gold<TypeParam>(p, seed++);
      }
}

TYPED_TEST(FftconvGpu, OverlapSaveMatchesTheGoldOnALongSignalAtEveryBlockLength) {
  PARASOL_REQUIRE_GPU();
  Problem p;
  p.signal = {1, 300007};
  p.filter = {1, 257};
  p.mode = Mode::same;
  const auto signal = random_values<TypeParam>(p.signal.size(), 7);
  const auto filter = random_values<TypeParam>(p.filter.size(), 8);
  const std::vector<double> gold = convolve_gold(p, signal, filter);
  DeviceProblem<TypeParam> device(p, signal, filter);
  // 257: one output per block, and a prime transform length; 258: two outputs per block.
  for (std::int64_t block : {257, 258, 1000, 4096, 16384, 0}) {
    device.poison_output();
    EXPECT_EQ(device.convolve(Options{Variant::overlap_save, block}), Variant::overlap_save);
    const Agreement a = agreement(device.download(), gold, p);
    EXPECT_LE(a.value, a.tolerance) << "block " << block << ": " << a.description;
  }
  device.poison_output();
  device.convolve(Options{Variant::r2c, 0});
  const Agreement a = agreement(device.download(), gold, p);
  EXPECT_LE(a.value, a.tolerance) << "r2c: " << a.description;
}

// What a sweep checks: the sampled outputs brought back alone are the whole output's values at
// those samples, and a sample outside the output is refused.
TYPED_TEST(FftconvGpu, SampledDownloadIsTheWholeOutputAtTheSamples) {
  PARASOL_REQUIRE_GPU();
  Problem p;
  p.batch = 3;
  p.signal = {1, 10007};
  p.filter = {1, 65};
  p.mode = Mode::same;
  const auto signal = random_values<TypeParam>(p.batch * p.signal.size(), 11);
  const auto filter = random_values<TypeParam>(p.filter.size(), 12);
  DeviceProblem<TypeParam> device(p, signal, filter);
  const std::vector<std::int64_t> samples = sampled_outputs(p, kSweepCheckStride);
  device.sample_outputs(samples);
  device.poison_output();
  device.convolve(Options{Variant::r2c, 0});
  const std::vector<TypeParam> whole = device.download();
  const std::vector<TypeParam> picked = device.download_samples();
  ASSERT_EQ(picked.size(), samples.size());
  for (std::size_t k = 0; k < samples.size(); ++k)
    EXPECT_EQ(std::memcmp(&picked[k], &whole[static_cast<std::size_t>(samples[k])],
                          sizeof(TypeParam)),
              0)
        << samples[k];
  EXPECT_THROW(device.sample_outputs({static_cast<std::int64_t>(whole.size())}), Error);
}

// fused at each compiled transform length: signals that are not a whole number of blocks, shorter
// than one block, with a filter longer than the signal, the longest filter it takes; batched with
// one filter (blocks paired across signals, an odd count leaving the last transform alone) and
// with a filter each (blocks alone); every mode, convolution and correlation.
TYPED_TEST(FftconvGpu, FusedMatchesTheGoldAtEveryCompiledLength) {
  PARASOL_REQUIRE_GPU();
  if (!fused_compiled_in()) GTEST_SKIP() << "the fused variant is not compiled in";
  const auto lengths = fused_block_lengths(static_cast<int>(sizeof(TypeParam)));
  ASSERT_FALSE(lengths.empty());
  struct Case {
    std::int64_t batch, filters, n, k;
  };
  std::uint64_t seed = 300;
  for (const std::int64_t block : lengths) {
    const Case cases[] = {{1, 1, 3 * block + 17, 1025},  {1, 1, 5, 1},
                          {1, 1, block - 3, 33},        {1, 1, 700, 1001},
                          {1, 1, 2 * block + 1, kFusedMostTaps},
                          {7, 1, block / 2 + 11, 63},   {5, 5, block + 101, 129},
                          {9, 1, 2 * block - 1, 2},     {4, 4, 31, 17}};
    for (const Case& c : cases) {
      if (c.k > block) continue;
      for (Mode mode : kModes)
        for (Operation op : {Operation::convolve, Operation::correlate}) {
          Problem p;
          p.batch = c.batch;
          p.filters = c.filters;
          p.signal = {1, c.n};
          p.filter = {1, c.k};
          p.mode = mode;
          p.operation = op;
          const auto signal = random_values<TypeParam>(p.batch * p.signal.size(), seed);
          const auto filter = random_values<TypeParam>(p.filters * p.filter.size(), seed + 1);
          seed += 2;
          const std::vector<double> gold = convolve_gold(p, signal, filter);
          DeviceProblem<TypeParam> device(p, signal, filter);
          for (const std::int64_t chosen : {block, std::int64_t(0)}) {
            device.poison_output();
            EXPECT_EQ(device.convolve(Options{Variant::fused, chosen}), Variant::fused);
            const Agreement a = agreement(device.download(), gold, p);
            EXPECT_LE(a.value, a.tolerance)
                << "block " << chosen << " batch " << c.batch << " filters " << c.filters
                << " n " << c.n << " k " << c.k << " " << name(mode) << " " << name(op) << ": "
                << a.description;
          }
        }
    }
  }
}

TYPED_TEST(FftconvGpu, StreamedPiecesMatchTheWholeSignalInEveryMode) {
  PARASOL_REQUIRE_GPU();
  for (Mode mode : kModes) {
    Problem p;
    p.signal = {1, 100003};
    p.filter = {1, 129};
    p.mode = mode;
    p.operation = Operation::correlate;
    const auto signal = random_values<TypeParam>(p.signal.size(), 11);
    const auto filter = random_values<TypeParam>(p.filter.size(), 12);
    const std::vector<double> gold = convolve_gold(p, signal, filter);
    std::vector<TypeParam> streamed(gold.size(), std::nan(""));
    std::int64_t next_read_end = 0, next_write = 0, pieces = 0;
    Options o;
    o.block = 1024;
    convolve_streamed<TypeParam>(
        p, o, filter,
        [&](std::int64_t offset, std::int64_t count, TypeParam* host) {
          EXPECT_GE(offset, 0);
          EXPECT_LE(offset + count, p.signal.cols);
          EXPECT_GE(offset + count, next_read_end);  // reads move forward
          next_read_end = offset + count;
          std::copy_n(signal.begin() + offset, count, host);
        },
        [&](std::int64_t offset, std::int64_t count, const TypeParam* host) {
          EXPECT_EQ(offset, next_write);  // writes in order, no gaps
          next_write = offset + count;
          ++pieces;
          std::copy_n(host, count, streamed.begin() + offset);
        },
        5000);
    EXPECT_EQ(next_write, static_cast<std::int64_t>(gold.size()));
    EXPECT_GT(pieces, 10);
    const Agreement a = agreement(streamed, gold, p);
    EXPECT_LE(a.value, a.tolerance) << name(mode) << ": " << a.description;
    // The gold windows a streamed --check uses, gathered piece by piece as they come, judge it
    // as the whole gold does.
    GoldDifference pieces_difference;
    const SignalReader<TypeParam> read = [&](std::int64_t offset, std::int64_t count,
                                             TypeParam* into) {
      std::copy_n(signal.begin() + offset, count, into);
    };
    for (std::int64_t first = 0; first < next_write; first += 7919) {
      const std::int64_t count = std::min<std::int64_t>(7919, next_write - first);
      pieces_difference.add(streamed.data() + first, gold_window(p, filter, first, count, read));
    }
    EXPECT_EQ(pieces_difference.relative(), a.value) << name(mode);
  }
}

// A rank's share of one long signal: a range of the output from only the samples its blocks
// read, by overlap-save and by fused (which pairs neighbouring blocks), is the whole run's output
// there bit for bit, at the start, the middle and the end, in every mode.
TYPED_TEST(FftconvGpu, RangesOfTheOutputAreTheWholeRunsBits) {
  PARASOL_REQUIRE_GPU();
  const int bytes = static_cast<int>(sizeof(TypeParam));
  std::vector<Options> options{{Variant::overlap_save, 1024}};
  if (fused_compiled_in()) options.push_back({Variant::fused, fused_block_lengths(bytes).front()});
  for (const Options& o : options) {
    for (Mode mode : kModes) {
      SCOPED_TRACE(std::string(name(o.variant)) + " " + std::string(name(mode)));
      Problem p;
      p.signal = {1, 100003};
      p.filter = {1, 129};
      p.mode = mode;
      const auto signal = random_values<TypeParam>(p.signal.size(), 21);
      const auto filter = random_values<TypeParam>(p.filter.size(), 22);
      DeviceProblem<TypeParam> whole(p, signal, filter);
      whole.poison_output();
      whole.convolve(o);
      const std::vector<TypeParam> all = whole.download();
      const std::int64_t m = output_extent(p).cols, step = range_step(p, o, bytes);
      ASSERT_GT(m, 4 * step);
      for (const auto& [first, count] :
           {std::pair<std::int64_t, std::int64_t>{0, step}, {step, 2 * step},
            {2 * step, m - 2 * step}, {m / step * step, m - m / step * step}}) {
        SCOPED_TRACE("outputs from " + std::to_string(first) + ", " + std::to_string(count));
        const auto [begin, end] = range_window(p, o, bytes, first, count);
        const std::vector<TypeParam> window(signal.begin() + begin, signal.begin() + end);
        const Result<TypeParam> r =
            convolve_range_gpu<TypeParam>(p, o, window, begin, filter, first, count);
        EXPECT_EQ(r.variant, o.variant);
        ASSERT_EQ(static_cast<std::int64_t>(r.output.size()), count);
        const std::vector<TypeParam> expected(all.begin() + first, all.begin() + first + count);
        EXPECT_EQ(std::memcmp(r.output.data(), expected.data(), expected.size() * sizeof(TypeParam)),
                  0);
      }
      // A range off the step, or a window that misses samples, is refused.
      const auto [begin, end] = range_window(p, o, bytes, step, step);
      const std::vector<TypeParam> short_window(signal.begin() + begin + 1, signal.begin() + end);
      EXPECT_THROW(convolve_range_gpu<TypeParam>(p, o, short_window, begin + 1, filter, step, step),
                   Error);
      const std::vector<TypeParam> window(signal.begin(), signal.end());
      EXPECT_THROW(convolve_range_gpu<TypeParam>(p, o, window, 0, filter, step + 1, step), Error);
      // Ending inside a step (for fused, between the two blocks of a pair) is refused too.
      EXPECT_THROW(convolve_range_gpu<TypeParam>(p, o, window, 0, filter, step, step + 17), Error);
    }
  }
}

TEST(FftconvGpu, PlansAreMadeOnceAndRepeatsGiveTheSameOutput) {
  PARASOL_REQUIRE_GPU();
  Problem p;
  p.signal = {1, 5000};
  p.filter = {1, 100};
  const auto signal = random_values<float>(p.signal.size(), 1);
  const auto filter = random_values<float>(p.filter.size(), 2);
  DeviceProblem<float> device(p, signal, filter);
  device.convolve(Options{Variant::r2c, 0});
  const std::vector<float> first = device.download();
  const std::size_t plans = device.cached_plans();
  EXPECT_GT(plans, 0u);
  // What a sweep times: the same convolution again, on the same plans and scratch, writing the
  // same output bit for bit.
  for (int i = 0; i < 3; ++i) {
    device.poison_output();
    device.convolve(Options{Variant::r2c, 0});
    EXPECT_EQ(device.download(), first) << "repeat " << i;
  }
  EXPECT_EQ(device.cached_plans(), plans);
}

// The host API (Python's convolve on NumPy arrays) writes into the caller's array what
// convolve_gpu returns, bit for bit, for an image, a batch and a long filter, one call at a time
// and on one HostConvolver kept across them: new values of the same shapes (the filter's too,
// whose spectrum must not be kept), then other shapes. Every sample of the poisoned output is
// written. A wrong value count is an input error.
TYPED_TEST(FftconvGpu, HostApiGivesConvolveGpusBits) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  Problem image, batch, long_filter;
  image.signal = {37, 301};
  image.filter = {1, 63};
  image.mode = Mode::same;
  batch.batch = 5;
  batch.signal = {1, 4099};
  batch.filter = {1, 31};
  long_filter.signal = {1, 20000};
  long_filter.filter = {1, 1500};
  long_filter.mode = Mode::valid;
  HostConvolver<T> kept;
  std::uint64_t seed = 11;
  for (const Problem& p : {image, image, batch, long_filter, batch}) {
    const auto signal = random_values<T>(p.batch * p.signal.size(), seed++);
    const auto filter = random_values<T>(p.filters * p.filter.size(), seed++);
    const std::vector<T> expected = convolve_gpu(p, Options{}, signal, filter).output;
    std::vector<T> y(expected.size(), std::numeric_limits<T>::quiet_NaN());
    convolve_once(p, Options{}, signal.data(), signal.size(), filter.data(), filter.size(),
                  y.data());
    EXPECT_EQ(0, std::memcmp(y.data(), expected.data(), y.size() * sizeof(T)))
        << "once: signal " << p.signal.rows << "x" << p.signal.cols << " batch " << p.batch;
    std::fill(y.begin(), y.end(), std::numeric_limits<T>::quiet_NaN());
    kept.convolve(p, Options{}, signal.data(), signal.size(), filter.data(), filter.size(),
                  y.data());
    EXPECT_EQ(0, std::memcmp(y.data(), expected.data(), y.size() * sizeof(T)))
        << "kept: signal " << p.signal.rows << "x" << p.signal.cols << " batch " << p.batch;
  }
  std::vector<T> y(301 * 37);
  const auto signal = random_values<T>(image.signal.size(), 1);
  const auto filter = random_values<T>(63, 2);
  EXPECT_THROW(kept.convolve(image, Options{}, signal.data(), signal.size() - 1, filter.data(),
                             filter.size(), y.data()),
               InputError);
}

// The sweep's warm-up: every option run once on threads of their own while the caller goes on.
// An option the problem cannot take (a 1D-only variant on an image) is passed over, not thrown;
// the variants then run on the caller's own DeviceProblem and agree with the gold.
TEST(FftconvGpu, WarmUpRunsEveryOptionAsideAndPassesOverWhatCannotRun) {
  PARASOL_REQUIRE_GPU();
  for (const Extent signal_extent : {Extent{37, 301}, Extent{1, 20011}}) {
    Problem p;
    p.signal = signal_extent;
    p.filter = signal_extent.rows > 1 ? Extent{5, 9} : Extent{1, 99};
    p.mode = Mode::same;
    p.batch = 3;
    std::vector<Options> options;
    for (Variant v : kVariants) options.push_back(Options{v, 0});
    options.push_back(Options{Variant::overlap_save, 5});  // shorter than the filter: refused
    std::future<void> warming = warm_up_async<float>(p, options);
    const auto signal = random_values<float>(p.batch * p.signal.size(), 11);
    const auto filter = random_values<float>(p.filter.size(), 12);
    const std::vector<double> gold = convolve_gold(p, signal, filter);
    ASSERT_NO_THROW(warming.get());
    DeviceProblem<float> device(p, signal, filter);
    for (Variant v : kVariants) {
      if (!supports(v, p) || (v == Variant::fused && !fused_compiled_in())) continue;
      device.poison_output();
      device.convolve(Options{v, 0});
      const Agreement a = agreement(device.download(), gold, p);
      EXPECT_LE(a.value, a.tolerance) << name(v) << ": " << a.description;
    }
  }
}

// The filter's spectrum is computed once per filter, variant and transform length, as the plans
// are made once: repeated convolutions on one DeviceProblem (the sweep's) reuse it, and still
// agree with the gold on an output poisoned before each; another variant in between does not
// disturb a kept spectrum. A Convolver that was not told the filter is its own recomputes it.
TYPED_TEST(FftconvGpu, FilterSpectraAreComputedOncePerFilter) {
  PARASOL_REQUIRE_GPU();
  Problem image;
  image.signal = {123, 217};
  image.filter = {9, 14};
  image.mode = Mode::same;
  image.operation = Operation::correlate;
  Problem batch;
  batch.batch = 5;
  batch.filters = 5;
  batch.signal = {1, 3001};
  batch.filter = {1, 301};
  batch.mode = Mode::full;
  std::uint64_t seed = 900;
  for (const Problem& p : {image, batch}) {
    const auto signal = random_values<TypeParam>(p.batch * p.signal.size(), seed++);
    const auto filter = random_values<TypeParam>(p.filters * p.filter.size(), seed++);
    const std::vector<double> gold = convolve_gold(p, signal, filter);
    DeviceProblem<TypeParam> device(p, signal, filter);
    std::vector<Variant> kept{Variant::r2c};
    if (supports(Variant::fused, p) && fused_compiled_in()) kept.push_back(Variant::fused);
    std::int64_t computed = 0;
    for (int round = 0; round < 3; ++round)
      for (const Variant v : kept) {
        device.poison_output();
        device.convolve(Options{v, 0});
        const Agreement a = agreement(device.download(), gold, p);
        EXPECT_LE(a.value, a.tolerance) << name(v) << " round " << round << ": " << a.description;
        device.convolve(Options{Variant::c2c, 0});  // shares no buffer with a kept spectrum
        if (round == 0) computed = device.spectra_computed();
      }
    EXPECT_EQ(device.spectra_computed(), static_cast<std::int64_t>(kept.size()));
    EXPECT_EQ(computed, static_cast<std::int64_t>(kept.size()));
  }
  // Without keep_filter_spectra every call computes it.
  const auto signal = random_values<TypeParam>(image.signal.size(), 1);
  const auto filter = random_values<TypeParam>(image.filter.size(), 2);
  DeviceBuffer<TypeParam> x(signal.size()), h(filter.size()),
      y(static_cast<std::size_t>(output_extent(image).size()));
  Stream stream;
  upload(x, signal, stream.get());
  upload(h, filter, stream.get());
  Convolver<TypeParam> convolver;
  for (int i = 0; i < 2; ++i)
    convolver.convolve(image, Options{Variant::r2c, 0}, x.data(), h.data(), y.data(),
                       stream.get());
  stream.synchronize();
  EXPECT_EQ(convolver.spectra_computed(), 2);
}

TEST(FftconvGpu, AutoRunsWhatChooseVariantPicks) {
  PARASOL_REQUIRE_GPU();
  for (std::int64_t k : {5, 200, 2000}) {
    Problem p;
    p.signal = {1, 50000};
    p.filter = {1, k};
    const auto signal = random_values<float>(p.signal.size(), 3);
    const auto filter = random_values<float>(p.filter.size(), 4);
    DeviceProblem<float> device(p, signal, filter);
    device.poison_output();
    EXPECT_EQ(device.convolve(Options{}), choose_variant(p, 4));
    const Agreement a = agreement(device.download(), convolve_gold(p, signal, filter), p);
    EXPECT_LE(a.value, a.tolerance) << k << " taps: " << a.description;
  }
}

TEST(FftconvGpu, BadProblemsAreInputErrors) {
  PARASOL_REQUIRE_GPU();
  DeviceBuffer<float> buffer(1024);
  Convolver<float> convolver;
  const auto attempt = [&](const Problem& p, Variant v) {
    Options o;
    o.variant = v;
    convolver.convolve(p, o, buffer.data(), buffer.data(), buffer.data(), nullptr);
  };
  Problem empty;
  empty.signal = {1, 0};
  EXPECT_THROW(attempt(empty, Variant::r2c), InputError);
  Problem mismatched;
  mismatched.batch = 3;
  mismatched.filters = 2;
  mismatched.signal = {1, 10};
  EXPECT_THROW(attempt(mismatched, Variant::direct), InputError);
  Problem image;
  image.signal = {8, 8};
  image.filter = {3, 3};
  EXPECT_THROW(attempt(image, Variant::overlap_save), InputError);
  Problem short_block;
  short_block.signal = {1, 100};
  short_block.filter = {1, 50};
  Options o;
  o.variant = Variant::overlap_save;
  o.block = 32;
  EXPECT_THROW(convolver.convolve(short_block, o, buffer.data(), buffer.data(), buffer.data(),
                                  nullptr),
               InputError);
  // A DeviceProblem refuses values that disagree with its sizes before it takes device memory,
  // and a variant that cannot take its problem as the Convolver does.
  const std::vector<float> values(64, 1.0f);
  EXPECT_THROW(DeviceProblem<float>(image, values, std::vector<float>(8, 1.0f)), InputError);
  EXPECT_THROW(DeviceProblem<float>(empty, {}, {}), InputError);
  DeviceProblem<float> device(image, values, std::vector<float>(9, 1.0f));
  EXPECT_THROW(device.convolve(Options{Variant::overlap_save, 0}), InputError);
  // fused: 1D filters of at most kFusedMostTaps, images whose rows fit kFusedMostRowLength,
  // compiled lengths only; or, without cuFFTDx, one error that says it is not compiled in.
  if (!fused_compiled_in()) {
    EXPECT_THROW(device.convolve(Options{Variant::fused, 0}), InputError);
  }
  Problem wide_image;
  wide_image.signal = {2, kFusedMostRowLength};
  wide_image.filter = {2, 2};
  EXPECT_THROW(attempt(wide_image, Variant::fused), InputError);
  EXPECT_THROW(device.convolve(Options{Variant::fused, 16}), InputError);
  Problem long_filter;
  long_filter.signal = {1, 100};
  long_filter.filter = {1, kFusedMostTaps + 1};
  EXPECT_THROW(attempt(long_filter, Variant::fused), InputError);
  Problem odd_block;
  odd_block.signal = {1, 100};
  odd_block.filter = {1, 5};
  o.variant = Variant::fused;
  o.block = 1000;
  EXPECT_THROW(convolver.convolve(odd_block, o, buffer.data(), buffer.data(), buffer.data(),
                                  nullptr),
               InputError);
}

TEST(FftconvGpu, FusedRepeatsGiveTheSameBitsAndAutoPicksItForLongFilters) {
  PARASOL_REQUIRE_GPU();
  if (!fused_compiled_in()) GTEST_SKIP() << "the fused variant is not compiled in";
  Problem p;
  p.signal = {1, 1 << 18};
  p.filter = {1, 1025};
  p.mode = Mode::same;
  const auto signal = random_values<float>(p.signal.size(), 21);
  const auto filter = random_values<float>(p.filter.size(), 22);
  DeviceProblem<float> device(p, signal, filter);
  EXPECT_EQ(choose_variant(p, 4), Variant::fused);
  device.poison_output();
  EXPECT_EQ(device.convolve(Options{}), Variant::fused);
  const std::vector<float> first = device.download();
  const Agreement a = agreement(first, convolve_gold(p, signal, filter), p);
  EXPECT_LE(a.value, a.tolerance) << a.description;
  for (int i = 0; i < 2; ++i) {
    device.poison_output();
    device.convolve(Options{Variant::fused, 0});
    EXPECT_EQ(device.download(), first) << "repeat " << i;
  }
}

// fused on images: each image's rows are paired within it, so an image gives the bits it gives
// alone whatever images are batched beside it (what a batch cut among ranks relies on); odd row
// counts leave a row alone; every compiled row length that holds the rows agrees with the gold.
TYPED_TEST(FftconvGpu, FusedImagesGiveEachImageItsOwnBitsAtEveryRowLength) {
  PARASOL_REQUIRE_GPU();
  if (!fused_compiled_in()) GTEST_SKIP() << "the fused variant is not compiled in";
  Problem p;
  p.batch = 3;
  p.filters = 3;
  p.signal = {67, 611};
  p.filter = {7, 12};
  p.mode = Mode::full;
  const auto signal = random_values<TypeParam>(p.batch * p.signal.size(), 31);
  const auto filter = random_values<TypeParam>(p.filters * p.filter.size(), 32);
  const std::vector<double> gold = convolve_gold(p, signal, filter);
  DeviceProblem<TypeParam> whole(p, signal, filter);
  const std::int64_t out = output_extent(p).size();
  for (const std::int64_t length : fused_block_lengths(sizeof(TypeParam))) {
    if (length < circular_extent(p).cols) continue;
    whole.poison_output();
    EXPECT_EQ(whole.convolve(Options{Variant::fused, length}), Variant::fused);
    const std::vector<TypeParam> batched = whole.download();
    const Agreement a = agreement(batched, gold, p);
    EXPECT_LE(a.value, a.tolerance) << length << ": " << a.description;
    for (std::int64_t i = 0; i < p.batch; ++i) {
      Problem one = p;
      one.batch = one.filters = 1;
      const auto at = [&](const std::vector<TypeParam>& v, std::int64_t size) {
        return std::vector<TypeParam>(v.begin() + i * size, v.begin() + (i + 1) * size);
      };
      DeviceProblem<TypeParam> alone(one, at(signal, p.signal.size()),
                                     at(filter, p.filter.size()));
      alone.poison_output();
      alone.convolve(Options{Variant::fused, length});
      EXPECT_EQ(alone.download(), at(batched, out)) << "image " << i << " at " << length;
    }
  }
}

// Images at a power of two shorter than their circular length (image_extent): r2c and fused
// recompute the outputs that take wrapped terms by direct sums. Sizes where that path is taken
// (checked), one filter and a filter each, convolution and correlation, even and odd filters.
TYPED_TEST(FftconvGpu, ImagesAtAShorterLengthRecomputeTheWrappedOutputs) {
  PARASOL_REQUIRE_GPU();
  const std::pair<Extent, Extent> sizes[] = {
      {{256, 512}, {5, 7}}, {{255, 512}, {4, 6}}, {{512, 250}, {3, 9}}};
  std::uint64_t seed = 700;
  for (const auto& [signal, filter] : sizes)
    for (const std::int64_t filters : {std::int64_t(1), std::int64_t(3)})
      for (const Operation op : {Operation::convolve, Operation::correlate}) {
        Problem p;
        p.batch = 3;
        p.filters = filters;
        p.signal = signal;
        p.filter = filter;
        p.mode = Mode::same;
        p.operation = op;
        ASSERT_NE(r2c_image_extent(p), transform_extent(p));
        ASSERT_FALSE(wrapped_outputs(p, r2c_image_extent(p)).empty());
        expect_all_variants_match_gold<TypeParam>(p, seed++);
      }
}

// fused on images whose column transform is one its single column kernel compiles (1024, 2048
// or 4096 rows: the columns' forward transforms, the multiply and the inverses in one pass),
// in every mode, with a filter each and correlation, against the gold.
TYPED_TEST(FftconvGpu, FusedImagesAtEveryCompiledColumnLength) {
  PARASOL_REQUIRE_GPU();
  if (!fused_compiled_in()) GTEST_SKIP() << "the fused variant is not compiled in";
  struct Case {
    Extent signal, filter;
    Mode mode;
    std::int64_t rows;  // the column transform's length the case must meet
  };
  const Case cases[] = {{{1000, 300}, {25, 5}, Mode::full, 1024},
                        {{1024, 200}, {31, 3}, Mode::same, 1024},
                        {{2048, 64}, {3, 3}, Mode::valid, 2048},
                        {{4096, 16}, {3, 3}, Mode::valid, 4096}};
  std::uint64_t seed = 800;
  for (const Case& c : cases)
    for (const Operation op : {Operation::convolve, Operation::correlate}) {
      Problem p;
      p.batch = 2;
      p.filters = 2;
      p.signal = c.signal;
      p.filter = c.filter;
      p.mode = c.mode;
      p.operation = op;
      ASSERT_EQ(fused_image_extent(p, fused_block_lengths(sizeof(TypeParam))).rows, c.rows);
      const auto signal = random_values<TypeParam>(p.batch * p.signal.size(), seed++);
      const auto filter = random_values<TypeParam>(p.filters * p.filter.size(), seed++);
      DeviceProblem<TypeParam> device(p, signal, filter);
      device.poison_output();
      EXPECT_EQ(device.convolve(Options{Variant::fused, 0}), Variant::fused);
      const Agreement a = agreement(device.download(), convolve_gold(p, signal, filter), p);
      EXPECT_LE(a.value, a.tolerance) << name(c.mode) << " " << name(op) << " " << c.rows
                                      << " rows: " << a.description;
    }
}

// Generated signals drawn on the device (generate_samples_gpu) are the host's (generate_samples)
// bit for bit: the one sample_pair on both sides, with kernels/portable_math.hpp's log, sin and
// cos. Noise and chirp + noise, float and double, several seeds; signals of odd sizes (a pair
// is then cut by a signal's end), 2D ones (the chirp restarts each row), and stretches that
// start and end mid-signal and on an odd sample (a rank's share, a streamed piece). The device
// buffer is filled with NaN first, so a sample the kernel never writes cannot pass.
template <class T>
void expect_device_draws_equal_host_draws() {
  struct Stretch {
    std::int64_t batch, rows, length, first, count;
  };
  const Stretch stretches[] = {
      {1, 1, 1, 0, 1},         {1, 1, 7, 0, 7},         {3, 1, 1001, 0, 3003},
      {4, 1, 999, 1500, 1997}, {5, 3, 17, 51, 100},      {2, 1, 65537, 65536, 65538},
      {1, 1, 1 << 20, 12345, (1 << 20) - 12345 - 777},  {7, 2, 33, 1, 7 * 2 * 33 - 2}};
  for (const SignalKind kind : {SignalKind::noise, SignalKind::chirp})
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{46}, ~std::uint64_t{0}})
      for (const Stretch& at : stretches) {
        Signal s;
        s.kind = kind;
        s.batch = at.batch;
        s.rows = at.rows;
        s.length = at.length;
        s.amplitude = 1.5;
        s.f0 = 0.01;
        s.f1 = 0.4;
        s.noise = kind == SignalKind::chirp ? 0.1 : 0.0;
        s.seed = seed;
        std::vector<T> host(static_cast<std::size_t>(at.count));
        generate_samples(s, at.first, at.count, host.data());
        DeviceBuffer<T> d(host.size());
        fill_bytes(d, 0xFF, nullptr);  // NaN
        generate_samples_gpu(s, at.first, at.count, d.data(), nullptr);
        const std::vector<T> device = download(d, nullptr);
        std::int64_t differ = 0, first_differ = -1;
        for (std::size_t i = 0; i < host.size(); ++i)
          if (std::memcmp(&host[i], &device[i], sizeof(T)) != 0 && differ++ == 0)
            first_differ = static_cast<std::int64_t>(i);
        EXPECT_EQ(differ, 0) << (kind == SignalKind::noise ? "noise" : "chirp") << ", seed "
                             << seed << ", " << at.batch << " x " << at.rows << " x "
                             << at.length << ", samples [" << at.first << ", "
                             << at.first + at.count << "): first at " << first_differ;
      }
}

TEST(FftconvDraws, DeviceDrawsAreTheHostDrawsInFloat) {
  PARASOL_REQUIRE_GPU();
  expect_device_draws_equal_host_draws<float>();
}

TEST(FftconvDraws, DeviceDrawsAreTheHostDrawsInDouble) {
  PARASOL_REQUIRE_GPU();
  expect_device_draws_equal_host_draws<double>();
}

// convolve_gpu from a drawn signal (a share of signals [2, 5) of a batch of 6) is convolve_gpu
// from the host's draws of the same signals, bit for bit.
TEST(FftconvDraws, ConvolutionOfADrawnShareIsTheUploadedShares) {
  PARASOL_REQUIRE_GPU();
  Signal s;
  s.kind = SignalKind::chirp;
  s.batch = 6;
  s.length = 4099;
  s.noise = 0.2;
  s.seed = 7;
  Problem p;
  p.mode = Mode::same;
  p.batch = 3;
  p.signal = {1, s.length};
  p.filter = {1, 31};
  const std::vector<float> filter(31, 1.0f / 31);
  const std::vector<float> signal = generate_signals<float>(s, 2, 3);
  const Options o{Variant::r2c, 0};
  const Result<float> uploaded = convolve_gpu(p, o, signal, filter);
  const Result<float> drawn = convolve_gpu(p, o, s, 2, filter);
  ASSERT_EQ(uploaded.output.size(), drawn.output.size());
  EXPECT_EQ(std::memcmp(uploaded.output.data(), drawn.output.data(),
                        drawn.output.size() * sizeof(float)),
            0);
}

}  // namespace
}  // namespace parasol::fftconv
