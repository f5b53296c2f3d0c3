// What a sweep checks each configuration against, made fast enough that a sweep spends its time
// timing: comparisons on every core with the same bits whatever the thread count, the gold at
// sampled outputs and rows with the whole gold's bits there, the recurrence's gold, scale and
// chain together, generated series drawn in chunks, the montecarlo gold's paths on every core,
// and the repeats' rule of a minimum time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/laplace3d/initial.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "solvers/montecarlo/montecarlo.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::Threads;

std::vector<double> uniform(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

TEST(SweepChecks, ComparisonsMatchAOneThreadLoopWithTheSameBitsOnAnyThreadCount) {
  // Past several blocks of 2^16, with a ragged end.
  const std::size_t n = (std::size_t{1} << 18) + 12345;
  const std::vector<double> gold = uniform(n, test::kSeed);
  std::vector<float> result(n);
  for (std::size_t i = 0; i < n; ++i) result[i] = static_cast<float>(gold[i] * (1 + 1e-7));
  std::vector<double> scale(n);
  for (std::size_t i = 0; i < n; ++i) scale[i] = 1 + std::abs(gold[i]);

  double max_abs = 0, sum_sq = 0, magnitude = 0, relative = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = static_cast<double>(result[i]) - gold[i];
    max_abs = std::max(max_abs, std::abs(e));
    sum_sq += e * e;
    magnitude = std::max(magnitude, std::abs(static_cast<double>(result[i])));
    relative = std::max(relative, std::abs(e) / scale[i]);
  }
  FieldDifference one, two;
  double magnitude_one = 0, magnitude_two = 0, relative_one = 0, relative_two = 0;
  {
    Threads t(1);
    one = compare(result, gold);
    magnitude_one = max_magnitude(result);
    relative_one = max_relative_to_scale(result, gold, scale);
  }
  {
    Threads t(2);
    two = compare(result, gold);
    magnitude_two = max_magnitude(result);
    relative_two = max_relative_to_scale(result, gold, scale);
  }
  EXPECT_EQ(one.max_abs, max_abs);
  EXPECT_NEAR(one.rms, std::sqrt(sum_sq / static_cast<double>(n)), 1e-12 * one.rms);
  EXPECT_EQ(one.rms, two.rms) << "blocks combined in order: the same bits";
  EXPECT_EQ(one.max_abs, two.max_abs);
  EXPECT_EQ(magnitude_one, magnitude);
  EXPECT_EQ(magnitude_two, magnitude);
  EXPECT_EQ(relative_one, relative);
  EXPECT_EQ(relative_two, relative);

  // A NaN anywhere, in the last block too, makes every measure NaN; sizes that differ as well.
  std::vector<float> bad = result;
  bad[n - 3] = NAN;
  EXPECT_TRUE(std::isnan(compare(bad, gold).max_abs));
  EXPECT_TRUE(std::isnan(compare(bad, gold).rms));
  EXPECT_TRUE(std::isnan(max_relative_to_scale(bad, gold, scale)));
  EXPECT_TRUE(std::isnan(compare(std::vector<float>(n - 1), gold).max_abs));
  EXPECT_EQ(compare(std::vector<double>(), std::vector<double>()).rms, 0.0);
}

TEST(SweepChecks, RepeatsRunAtLeastTheirCountThenUntilTheirMinimumTime) {
  const Repeats exact{3, 0};
  EXPECT_TRUE(exact.more(2, 100.0));
  EXPECT_FALSE(exact.more(3, 0.0));
  const Repeats timed{3, 0.25, 50};
  EXPECT_TRUE(timed.more(0, 10.0)) << "the count first";
  EXPECT_TRUE(timed.more(3, 0.2));
  EXPECT_FALSE(timed.more(4, 0.25));
  EXPECT_FALSE(timed.more(50, 0.01)) << "never past at_most";
}

// Storage asked for in huge pages is an ordinary vector of the value asked for, large or small;
// the advice is a hint only, so any range (null, tiny, unaligned) is taken without complaint.
TEST(SweepChecks, HugeVectorsHoldTheirValues) {
  const std::vector<float> big = huge_vector<float>(std::size_t{3} << 20, 1.5f);
  ASSERT_EQ(big.size(), std::size_t{3} << 20);
  for (float v : big) ASSERT_EQ(v, 1.5f);
  EXPECT_EQ(huge_vector<double>(5), std::vector<double>(5, 0.0));
  EXPECT_TRUE(huge_vector<int>(0).empty());
  std::vector<char> small(100);
  advise_huge_pages(small.data() + 1, 99);
  advise_huge_pages(nullptr, std::size_t{1} << 30);
}

TEST(SweepChecks, ChunksCoverEveryItemOnceAndTellFinishedItemsInOrder) {
  Threads t(2);
  std::vector<int> seen(1001, 0);
  std::vector<std::int64_t> told;
  for_chunks(
      1001, 64,
      [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t i = first; i < last; ++i) ++seen[static_cast<std::size_t>(i)];
      },
      [&](std::int64_t finished) { told.push_back(finished); });
  for (int s : seen) EXPECT_EQ(s, 1);
  ASSERT_EQ(told.size(), 16u);
  for (std::size_t i = 1; i < told.size(); ++i) EXPECT_GT(told[i], told[i - 1]);
  EXPECT_EQ(told.back(), 1001);
}

// The gold at sampled outputs is the whole gold's bits there, in 1D batches and 2D, convolution
// and correlation, every mode; the samples meet every position of a block and every edge.
TEST(SweepChecks, FftconvGoldAtSampledOutputsIsTheWholeGoldThere) {
  using fftconv::Mode;
  using fftconv::Operation;
  using fftconv::Problem;
  std::vector<Problem> problems;
  for (Mode mode : {Mode::full, Mode::same, Mode::valid}) {
    Problem batch;
    batch.batch = 3;
    batch.signal = {1, 2000};
    batch.filters = 3;
    batch.filter = {1, 37};
    batch.mode = mode;
    problems.push_back(batch);
    Problem image;
    image.signal = {45, 61};
    image.filter = {7, 5};
    image.mode = mode;
    image.operation = Operation::correlate;
    problems.push_back(image);
  }
  for (const Problem& p : problems) {
    SCOPED_TRACE(std::string(name(p.mode)) + (p.is_2d() ? " 2D" : " batch"));
    const auto signal_values = static_cast<std::size_t>(p.batch * p.signal.size());
    const auto filter_values = static_cast<std::size_t>(p.filters * p.filter.size());
    const std::vector<double> x = uniform(signal_values, test::kSeed);
    const std::vector<double> h = uniform(filter_values, test::kSeed + 1);
    const std::vector<double> whole = fftconv::convolve_gold(p, x, h);
    const std::vector<std::int64_t> outputs = fftconv::sampled_outputs(p, 17);
    const std::vector<double> at = fftconv::convolve_gold_at(p, x, h, outputs);
    ASSERT_EQ(at.size(), outputs.size());
    ASSERT_LT(outputs.size(), whole.size());
    for (std::size_t i = 0; i < outputs.size(); ++i)
      ASSERT_EQ(at[i], whole[static_cast<std::size_t>(outputs[i])]) << outputs[i];
    std::set<std::int64_t> residues;
    for (std::int64_t o : outputs) residues.insert(o % 64);
    EXPECT_EQ(residues.size(), 64u) << "every position in a block of 64";
    const fftconv::Extent out = fftconv::output_extent(p);
    const std::set<std::int64_t> listed(outputs.begin(), outputs.end());
    EXPECT_TRUE(listed.count(0));
    EXPECT_TRUE(listed.count(p.batch * out.size() - 1)) << "the last output, at an edge";
    // The whole output agrees with itself at the samples; an output off at one sample does not.
    std::vector<float> result(whole.begin(), whole.end());
    EXPECT_TRUE(fftconv::agreement_at(result, outputs, at, p).passed());
    result[static_cast<std::size_t>(outputs[outputs.size() / 2])] += 1.0f;
    EXPECT_FALSE(fftconv::agreement_at(result, outputs, at, p).passed());
  }
}

TEST(SweepChecks, CoulombGoldOfSampledRowsIsTheWholeGoldsRows) {
  coulomb::Params p;
  p.lattice.nx = 9;
  p.lattice.ny = 40;
  p.lattice.nz = 3;
  p.lattice.spacing = 0.1;
  std::mt19937_64 rng(test::kSeed);
  std::uniform_real_distribution<float> position(-1.0f, 4.0f), charge(-1.0f, 1.0f);
  std::vector<coulomb::Atom> atoms(30);
  for (coulomb::Atom& a : atoms) a = {position(rng), position(rng), position(rng), charge(rng)};
  const coulomb::GoldWithScale whole = coulomb::solve_gold_with_scale(p, atoms);
  const std::vector<std::int64_t> rows = coulomb::sampled_rows(p.lattice, 17);
  EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 17, 34, 51, 68, 85, 102, 119}));
  const coulomb::GoldWithScale at = coulomb::solve_gold_with_scale_rows(p, atoms, rows);
  ASSERT_EQ(at.potential.size(), rows.size() * 9);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t i = 0; i < 9; ++i) {
      const auto w = static_cast<std::size_t>(rows[r]) * 9 + i;
      ASSERT_EQ(at.potential[r * 9 + i], whole.potential[w]);
      ASSERT_EQ(at.scale[r * 9 + i], whole.scale[w]);
    }
  std::vector<float> result(whole.potential.begin(), whole.potential.end());
  EXPECT_TRUE(coulomb::agreement_at_rows(result, 9, rows, at, 1e-5).passed());
  result[17 * 9 + 4] += 1.0f;
  EXPECT_FALSE(coulomb::agreement_at_rows(result, 9, rows, at, 1e-5).passed());
  EXPECT_THROW(coulomb::solve_gold_with_scale_rows(p, atoms, {120}), Error);
}

// Three AR(1) series of time-varying phi in [0.5, 1.0] (near 1: slow decay), starting at 2.
recurrence::Ar1 varying_ar1(std::int64_t length) {
  recurrence::Ar1 a;
  a.series = 3;
  a.length = length;
  a.time_varying = true;
  a.phi_min = 0.5;
  a.phi_max = 1.0;
  a.x0 = 2.0;
  return a;
}

TEST(SweepChecks, RecurrenceGoldScaleAndChainTogetherAreTheThreeAlone) {
  recurrence::Ar1 a = varying_ar1(5000);
  for (const bool varying : {true, false}) {
    a.time_varying = varying;
    const recurrence::Series<float> series = recurrence::ar1_series<float>(a);
    const recurrence::GoldScaleChain g = recurrence::gold_scale_chain(series, 256);
    EXPECT_EQ(g.gold, recurrence::solve_gold(series));
    EXPECT_EQ(g.scale, recurrence::magnitude_scale(series));
    EXPECT_EQ(g.chain, recurrence::tile_chain(series, 256));
  }
}

// SplitMix64's output function, written out as published (Steele, Lea and Flood; Vigna's
// splitmix64.c), and its increment.
constexpr std::uint64_t kSplitMixIncrement = 0x9E3779B97F4A7C15;
std::uint64_t splitmix_output(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31);
}

// Every step of every series is the one the definition in problems.hpp and seeded_draws.hpp
// gives on its own, the series drawn on three threads in chunks that cut series and pairs.
TEST(SweepChecks, Ar1SeriesDrawnInChunksAreTheDrawsOneByOne) {
  // The published SplitMix64 stream from state 0 begins so.
  EXPECT_EQ(splitmix_output(kSplitMixIncrement), 0xE220A8397B1DCDAFu);
  EXPECT_EQ(splitmix_output(2 * kSplitMixIncrement), 0x6E789E6AA1B965F4u);
  recurrence::Ar1 a;
  a.series = 3;
  a.length = (std::int64_t{1} << 15) + 3;  // past a chunk of 2^14 pairs, odd
  a.phi = 0.97;
  a.phi_min = -0.5;
  a.phi_max = 0.9;
  a.sigma = 0.5;
  a.seed = 7;
  // Word i of the stream of (seed, stream).
  const auto word = [&](std::uint64_t stream, std::uint64_t i) {
    const std::uint64_t key = splitmix_output(splitmix_output(a.seed + kSplitMixIncrement) +
                                              (stream + 1) * kSplitMixIncrement);
    return splitmix_output(key + (i + 1) * kSplitMixIncrement);
  };
  for (const bool varying : {false, true}) {
    a.time_varying = varying;
    recurrence::Series<double> series;
    {
      Threads t(3);
      series = recurrence::ar1_series<double>(a);
    }
    ASSERT_EQ(series.size(), a.series * a.length);
    for (std::uint64_t k = 0; k < static_cast<std::uint64_t>(a.series); ++k)
      for (std::uint64_t j = 0; j < static_cast<std::uint64_t>(a.length); ++j) {
        const std::uint64_t q = j / 2;
        const SeededDraws::Pair pair =
            SeededDraws::normal_pair(word(2 * k, 2 * q), word(2 * k, 2 * q + 1));
        const double drawn =
            a.phi_min + (a.phi_max - a.phi_min) * SeededDraws::open_unit_of(word(2 * k + 1, j));
        const auto at = static_cast<std::size_t>(k * static_cast<std::uint64_t>(a.length) + j);
        ASSERT_EQ(series.u[at], a.sigma * (j % 2 == 0 ? pair.first : pair.second)) << k << " " << j;
        ASSERT_EQ(series.s[at], varying ? drawn : a.phi) << k << " " << j;
      }
  }
}

// The gold, the magnitude scale and the tile chain as the plain loops along each segment, on
// one thread: what the chunked runs must equal bit for bit.
template <class T>
recurrence::GoldScaleChain one_thread_loops(const recurrence::Series<T>& series,
                                            std::int64_t tile) {
  recurrence::GoldScaleChain r;
  r.gold.resize(series.s.size());
  r.scale.resize(series.s.size());
  for (std::int64_t k = 0; k < series.segments(); ++k) {
    long double value = series.initial[k];
    long double scale = std::abs(static_cast<long double>(series.initial[k]));
    long double weighted = static_cast<long double>(series.offsets[k] / tile) * scale;
    for (std::int64_t i = series.offsets[k]; i < series.offsets[k + 1]; ++i) {
      const long double s = series.s[i], u = series.u[i];
      const long double at = static_cast<long double>(i / tile);
      value = s * value + u;
      scale = std::abs(s) * scale + std::abs(u);
      weighted = std::abs(s) * weighted + at * std::abs(u);
      r.gold[i] = static_cast<double>(value);
      r.scale[i] = static_cast<double>(scale);
      if (scale > 0)
        r.chain = std::max(r.chain, static_cast<double>((at * scale - weighted) / scale));
    }
  }
  return r;
}

// Segments of the given lengths, s from `s_of(i)` and u, initial values uniform in (-1, 1).
template <class T, class S>
recurrence::Series<T> segments_of(const std::vector<std::int64_t>& lengths, const S& s_of) {
  recurrence::Series<T> series;
  series.offsets = {0};
  std::mt19937_64 rng(test::kSeed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const std::int64_t length : lengths) {
    series.offsets.push_back(series.offsets.back() + length);
    series.initial.push_back(static_cast<T>(unit(rng)));
  }
  for (std::int64_t i = 0; i < series.offsets.back(); ++i) {
    series.s.push_back(static_cast<T>(s_of(i, rng)));
    series.u.push_back(static_cast<T>(unit(rng)));
  }
  return series;
}

// Runs that meet within a few elements, running sums (s = 1) that never meet, one amid runs that
// do, growth (|s| > 1) and an AR(1) series of time-varying phi near 1, in segments of uneven
// lengths (empty ones too), cut into chunks of a single element up to the whole, on one to four
// threads: the one-thread loops' bits every time.
template <class T>
void expect_chunked_runs_are_the_loops() {
  std::uniform_real_distribution<double> shrink(-0.9, 0.9);
  const std::vector<std::int64_t> uneven{0, 1, 37, 0, 0, 3000, 2, 513, 0};
  const recurrence::Ar1 a = varying_ar1(1001);
  const std::vector<std::pair<std::string, recurrence::Series<T>>> cases{
      {"|s| < 0.9", segments_of<T>(uneven, [&](std::int64_t, auto& rng) { return shrink(rng); })},
      {"running sums", segments_of<T>({700, 0, 301}, [](std::int64_t, auto&) { return 1.0; })},
      {"a running sum amid |s| < 0.9",  // the chain's largest inside chunks, after the meeting
       segments_of<T>(
           {2, 3000, 1},
           [&](std::int64_t i, auto& rng) { return i >= 1200 && i < 1500 ? 1.0 : shrink(rng); })},
      {"growth",
       segments_of<T>({500, 401}, [](std::int64_t i, auto&) { return i % 3 == 0 ? -1.01 : 1.01; })},
      {"time-varying AR(1)", recurrence::ar1_series<T>(a)}};
  for (const auto& [what, series] : cases)
    for (const std::int64_t tile : {std::int64_t{7}, std::int64_t{256}}) {
      const recurrence::GoldScaleChain want = one_thread_loops(series, tile);
      ASSERT_GT(want.chain, 0) << what;
      for (const std::int64_t chunk :
           {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{7}, std::int64_t{64},
            std::int64_t{600}, std::int64_t{1000}, recurrence::kGoldChunk})
        for (const int threads : {1, 2, 3, 4}) {
          SCOPED_TRACE(what + ", tile " + std::to_string(tile) + ", chunk " +
                       std::to_string(chunk) + ", " + std::to_string(threads) + " threads");
          Threads t(threads);
          EXPECT_EQ(recurrence::solve_gold(series, {}, chunk), want.gold);
          EXPECT_EQ(recurrence::magnitude_scale(series, chunk), want.scale);
          EXPECT_EQ(recurrence::tile_chain(series, tile, chunk), want.chain);
          const recurrence::GoldScaleChain g = recurrence::gold_scale_chain(series, tile, chunk);
          EXPECT_EQ(g.gold, want.gold);
          EXPECT_EQ(g.scale, want.scale);
          EXPECT_EQ(g.chain, want.chain);
        }
    }
}

TEST(SweepChecks, RecurrenceGoldScaleAndChainInChunksAreTheOneThreadLoops) {
  expect_chunked_runs_are_the_loops<float>();
  expect_chunked_runs_are_the_loops<double>();
}

// The gold on every core tells its progress as it goes, in increasing counts that end at the
// total, and gives the one-thread gold's bits.
TEST(SweepChecks, RecurrenceGoldOnEveryCoreTellsItsProgressInOrder) {
  const std::int64_t n = (std::int64_t{1} << 24) + (std::int64_t{1} << 20) + 3;
  recurrence::Series<float> series;
  series.s.assign(static_cast<std::size_t>(n), 0.5f);
  series.u.assign(static_cast<std::size_t>(n), 1.0f);
  series.offsets = {0, n};
  series.initial = {3.0f};
  std::vector<recurrence::Progress> reports;
  std::vector<double> v;
  {
    Threads t(3);
    v = recurrence::solve_gold(series,
                               [&](const recurrence::Progress& p) { reports.push_back(p); });
  }
  ASSERT_GE(reports.size(), 2u) << "one report past 2^24 elements, and the last";
  for (std::size_t r = 0; r < reports.size(); ++r) {
    EXPECT_EQ(reports[r].total, n);
    EXPECT_GT(reports[r].elements, r > 0 ? reports[r - 1].elements : 0);
  }
  EXPECT_EQ(reports.back().elements, n);
  Threads t(1);
  EXPECT_EQ(v, recurrence::solve_gold(series));
}

TEST(SweepChecks, MontecarloGoldHasTheSameBitsOnAnyThreadCount) {
  montecarlo::Params p;
  p.paths = 70001;
  p.steps = 8;
  p.sample_paths = 3;
  montecarlo::Result one, two;
  {
    Threads t(1);
    one = montecarlo::solve_gold(p);
  }
  {
    Threads t(2);
    two = montecarlo::solve_gold(p);
  }
  EXPECT_EQ(one.estimate.price, two.estimate.price);
  EXPECT_EQ(one.estimate.standard_error, two.estimate.standard_error);
  EXPECT_EQ(one.sample, two.sample);
  EXPECT_EQ(one.sums.count, two.sums.count);
}

TEST(SweepChecks, Laplace3dStartingFieldMadeOnEveryCoreIsPointByPoint) {
  laplace3d::Params p;
  p.grid = {17, 11, 9};
  const std::vector<float> u = laplace3d::initial_field<float>(p);
  const laplace3d::Start start = laplace3d::start_of(p);
  std::size_t c = 0;
  for (std::int64_t k = 0; k < 9; ++k)
    for (std::int64_t j = 0; j < 11; ++j)
      for (std::int64_t i = 0; i < 17; ++i)
        ASSERT_EQ(u[c++], static_cast<float>(laplace3d::start_value(start, i, j, k)));
}

}  // namespace
}  // namespace parasol
