// The recurrence gold solver against closed forms, segment by segment, and the checks on its
// inputs and parameters: every GPU result is judged by it, so it is judged first. A series cut
// among ranks: the runs cover it once, and an AR(1) run drawn alone is its part of the whole.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "kernels/error.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"
#include "solvers/recurrence/run_part.hpp"
#include "tests/support.hpp"

namespace parasol::recurrence {
namespace {

using test::contains;

// One segment of n elements, every s = c and u = b, from v[-1] = v0.
template <class T>
Series<T> constant(std::int64_t n, T c, T b, T v0) {
  Series<T> series;
  series.s.assign(static_cast<std::size_t>(n), c);
  series.u.assign(static_cast<std::size_t>(n), b);
  series.offsets = {0, n};
  series.initial = {v0};
  return series;
}

// v[i] = c^(i+1) v0 + b (1 + c + ... + c^i): the geometric sum in closed form.
long double closed_form(long double c, long double b, long double v0, std::int64_t i) {
  const long double power = std::pow(c, static_cast<long double>(i + 1));
  const long double sum = c == 1 ? static_cast<long double>(i + 1) : (1 - power) / (1 - c);
  return power * v0 + b * sum;
}

template <class T>
class RecurrenceGoldTyped : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RecurrenceGoldTyped, Precisions);

TYPED_TEST(RecurrenceGoldTyped, ConstantCoefficientsMatchTheGeometricSum) {
  using T = TypeParam;
  // Powers of two and small integers: the inputs are exact in float, so only the gold's own
  // long-double round-off (and the rounding of its result to double) remains.
  for (const T c : {T(0.5), T(-0.75), T(0.96875), T(-1), T(0)}) {
    const Series<T> series = constant<T>(3000, c, T(1.5), T(-2));
    const std::vector<double> v = solve_gold(series);
    ASSERT_EQ(v.size(), series.s.size());
    for (std::int64_t i = 0; i < series.size(); ++i) {
      const double want = static_cast<double>(closed_form(c, 1.5L, -2.0L, i));
      ASSERT_NEAR(v[i], want, 1e-14 * std::max(1.0, std::abs(want)))
          << "c = " << c << ", element " << i;
    }
  }
}

TYPED_TEST(RecurrenceGoldTyped, UnitCoefficientIsAnExactRunningSum) {
  using T = TypeParam;
  // s = 1: v is v0 plus a prefix sum; integers stay exact far past float's 2^24.
  const std::int64_t n = 1 << 22;
  Series<T> series = constant<T>(n, T(1), T(0), T(7));
  for (std::int64_t i = 0; i < n; ++i) series.u[i] = static_cast<T>(i % 5 - 2);
  const std::vector<double> v = solve_gold(series);
  double running = 7;
  for (std::int64_t i = 0; i < n; ++i) {
    running += static_cast<double>(i % 5 - 2);
    ASSERT_EQ(v[i], running) << i;
  }
}

TYPED_TEST(RecurrenceGoldTyped, SegmentsRestartFromTheirOwnInitialValue) {
  using T = TypeParam;
  // Segments of 0, 1, 0, 3, 1 and 0 elements: empty ones at the start, the middle and the end.
  Series<T> series;
  series.s = {T(2), T(0.5), T(-1), T(3), T(4)};
  series.u = {T(1), T(1), T(2), T(0.25), T(-1)};
  series.offsets = {0, 0, 1, 1, 4, 5, 5};
  series.initial = {T(100), T(10), T(200), T(-4), T(8), T(300)};
  const std::vector<double> v = solve_gold(series);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0], 2.0 * 10 + 1);          // segment 1, from 10
  EXPECT_EQ(v[1], 0.5 * -4 + 1);          // segment 3, from -4, not from v[0]
  EXPECT_EQ(v[2], -1.0 * v[1] + 2);
  EXPECT_EQ(v[3], 3.0 * v[2] + 0.25);
  EXPECT_EQ(v[4], 4.0 * 8 - 1);           // segment 4, one element, from 8
}

TYPED_TEST(RecurrenceGoldTyped, NoElementsAndNoSegments) {
  using T = TypeParam;
  Series<T> none;
  none.offsets = {0};
  EXPECT_TRUE(solve_gold(none).empty());
  Series<T> empty_segments;
  empty_segments.offsets = {0, 0, 0};
  empty_segments.initial = {T(1), T(2)};
  EXPECT_TRUE(solve_gold(empty_segments).empty());
}

TYPED_TEST(RecurrenceGoldTyped, MagnitudeScaleBoundsTheSolution) {
  using T = TypeParam;
  Ar1 a;
  a.series = 3;
  a.length = 5000;
  a.phi_min = -0.99;
  a.phi_max = 0.99;
  a.time_varying = true;
  a.x0 = -3;
  const Series<T> series = ar1_series<T>(a);
  const std::vector<double> v = solve_gold(series);
  const std::vector<double> scale = magnitude_scale(series);
  for (std::size_t i = 0; i < v.size(); ++i)
    ASSERT_LE(std::abs(v[i]), scale[i] * (1 + 1e-15)) << i;
  // With nothing negative the scale is the solution itself.
  const Series<T> positive = constant<T>(100, T(0.5), T(2), T(1));
  EXPECT_EQ(magnitude_scale(positive), solve_gold(positive));
}

// ---------------------------------------------------------------------------------------------
// check_series: every way the arrays can disagree is an InputError against "input".

template <class T>
void expect_bad_series(const Series<T>& series, const std::string& part) {
  try {
    check_series(series);
    ADD_FAILURE() << "accepted a bad series; expected \"" << part << "\"";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "input");
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
  }
  EXPECT_THROW(solve_gold(series), InputError) << "the gold checks its input too";
}

TYPED_TEST(RecurrenceGoldTyped, CheckSeriesNamesWhatDisagrees) {
  using T = TypeParam;
  const Series<T> good = constant<T>(6, T(1), T(1), T(0));
  EXPECT_NO_THROW(check_series(good));

  Series<T> bad = good;
  bad.u.pop_back();
  expect_bad_series(bad, "s has 6 elements but u has 5");
  bad = good;
  bad.initial.push_back(T(0));
  expect_bad_series(bad, "offsets has 2 entries for 2 initial values");
  bad = good;
  bad.offsets.clear();
  bad.initial.clear();
  expect_bad_series(bad, "offsets has 0 entries");
  bad = good;
  bad.offsets = {1, 3, 6};
  bad.initial = {T(0), T(0)};
  expect_bad_series(bad, "offsets[0] is 1; expected 0");
  bad.offsets = {0, 4, 3, 6};
  bad.initial = {T(0), T(0), T(0)};
  expect_bad_series(bad, "offsets decrease at segment 1");
  bad.offsets = {0, 3, 5, 7};
  expect_bad_series(bad, "offsets end at 7; expected 6");
  bad.offsets = {0, 3, 5, 5};
  expect_bad_series(bad, "offsets end at 5; expected 6");
}

// ---------------------------------------------------------------------------------------------
// The generated problems.

TYPED_TEST(RecurrenceGoldTyped, ReportsProgressAndEndsAtTheTotal) {
  using T = TypeParam;
  const Series<T> series = constant<T>(5000, T(0.5), T(1), T(0));
  std::vector<Progress> reports;
  const std::vector<double> watched =
      solve_gold(series, [&](const Progress& p) { reports.push_back(p); });
  EXPECT_EQ(watched, solve_gold(series));
  ASSERT_FALSE(reports.empty());
  for (std::size_t k = 0; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].total, 5000);
    if (k > 0) {
      EXPECT_GT(reports[k].elements, reports[k - 1].elements);
    }
  }
  EXPECT_EQ(reports.back().elements, 5000);
  EXPECT_GE(reports.back().seconds, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Agreement with the gold (check.hpp).

TEST(RecurrenceCheck, TileChainWeighsWhatCrossesTileBoundaries) {
  // s = 0.5: at a tile's first element half the scale comes from the tile before, one boundary
  // back (what lies two tiles back is damped away).
  EXPECT_NEAR(tile_chain(constant<double>(10000, 0.5, 1, 0), 4096), 0.5, 1e-12);
  // A running sum over tiles of 4: at element 8 (tile 2) four terms lie two boundaries back and
  // four one: 12 / 9.
  EXPECT_NEAR(tile_chain(constant<float>(12, 1, 1, 0), 4), 12.0 / 9.0, 1e-12);
  // The initial value enters at the segment's first element: two boundaries back from tile 2.
  EXPECT_NEAR(tile_chain(constant<float>(12, 1, 0, 1), 4), 2.0, 1e-12);
  // Segments each inside one tile, and s = 0, carry nothing across.
  Series<float> two = constant<float>(8, 1, 1, 1);
  two.offsets = {0, 4, 8};
  two.initial = {1, 1};
  EXPECT_EQ(tile_chain(two, 4), 0.0);
  EXPECT_EQ(tile_chain(constant<float>(100, 0, 1, 1), 4), 0.0);
}

TEST(RecurrenceCheck, ToleranceIsTheTreePlusTwoUlpsPerBoundaryCrossed) {
  EXPECT_DOUBLE_EQ(tolerance<float>(0), 96 * std::numeric_limits<float>::epsilon());
  EXPECT_DOUBLE_EQ(tolerance<double>(10), 116 * std::numeric_limits<double>::epsilon());
  // On the GPU tests' random series (s uniform in (-1, 1)) the chain stays below one boundary,
  // so the bound is under the 256 ulps the tests held the scan to before.
  std::mt19937_64 rng(test::kSeed);
  Series<float> random = constant<float>(1 << 20, 0, 0, 0);
  for (std::size_t i = 0; i < random.s.size(); ++i) {
    random.s[i] = static_cast<float>(2 * std::ldexp(static_cast<double>(rng() >> 11), -53) - 1);
    random.u[i] = static_cast<float>(2 * std::ldexp(static_cast<double>(rng() >> 11), -53) - 1);
  }
  const double chain = tile_chain(random, kTileElements<float>);
  EXPECT_LT(chain, 1.0);
  EXPECT_LT(tolerance<float>(chain), 256 * std::numeric_limits<float>::epsilon());
  // A running sum of 10^8 floats is reached through half its 24415 tiles on average: a
  // worst-case bound far looser, as round-off that all falls one way needs.
  EXPECT_GT(tile_chain(constant<float>(100000000, 1, 1, 0), kTileElements<float>), 12000.0);
}

TEST(RecurrenceCheck, AgreementIsRelativeToTheMagnitudeScale) {
  const std::vector<double> gold{1, 0, -2};
  const std::vector<double> scale{1, 4, 8};  // v can cancel to 0 where its terms do not
  std::vector<float> v{1, 1e-3f, -2};
  Agreement a = agreement(v, gold, scale, 0.0);
  EXPECT_EQ(a.measure, "max_relative_to_scale");
  EXPECT_EQ(a.gold_precision, "long double");
  EXPECT_NEAR(a.value, 1e-3 / 4, 1e-9);
  EXPECT_EQ(a.tolerance, tolerance<float>(0));
  EXPECT_FALSE(a.passed());
  EXPECT_NE(a.description.find("max relative to scale"), std::string::npos) << a.description;
  v[1] = 0;
  EXPECT_TRUE(agreement(v, gold, scale, 0.0).passed());
  // An element whose scale is 0 must match exactly; a NaN never agrees.
  const std::vector<double> zero_scale{1, 0, 8};
  v[1] = 1e-30f;
  EXPECT_FALSE(agreement(v, gold, zero_scale, 0.0).passed());
  v[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(agreement(v, gold, scale, 0.0).passed());
}

TEST(RecurrenceAr1, SameSeedSameSeriesWhateverTheSeriesCount) {
  Ar1 a;
  a.length = 1000;
  a.series = 3;
  a.seed = test::kSeed;
  const Series<double> three = ar1_series<double>(a);
  a.series = 5;
  const Series<double> five = ar1_series<double>(a);
  EXPECT_EQ(three.offsets, (std::vector<std::int64_t>{0, 1000, 2000, 3000}));
  EXPECT_TRUE(std::equal(three.u.begin(), three.u.end(), five.u.begin()));
  EXPECT_EQ(ar1_series<double>(a).u, five.u) << "the same seed must give the same series";
  a.seed += 1;
  EXPECT_NE(ar1_series<double>(a).u, five.u);
  // Series differ from one another.
  EXPECT_FALSE(std::equal(three.u.begin(), three.u.begin() + 1000, three.u.begin() + 1000));
  // Float is the double series rounded.
  const Series<float> single = ar1_series<float>(a);
  const Series<double> twin = ar1_series<double>(a);
  for (std::size_t i = 0; i < single.u.size(); ++i)
    ASSERT_EQ(single.u[i], static_cast<float>(twin.u[i]));
}

TEST(RecurrenceAr1, ConstantPhiIsStationaryWithTheRightVariance) {
  Ar1 a;
  a.series = 4;
  a.length = 250000;
  a.phi = 0.8;
  a.sigma = 0.5;
  a.x0 = 0;
  a.seed = test::kSeed;
  const Series<double> series = ar1_series<double>(a);
  for (const double s : series.s) ASSERT_EQ(s, 0.8);
  EXPECT_EQ(series.initial, std::vector<double>(4, 0.0));
  // eps: mean 0, variance 1. 10^6 draws: the mean's standard error is 5e-4 (times sigma).
  const double n = static_cast<double>(series.u.size());
  const double mean_u = std::accumulate(series.u.begin(), series.u.end(), 0.0) / n;
  double var_u = 0;
  for (const double u : series.u) var_u += (u - mean_u) * (u - mean_u) / n;
  EXPECT_NEAR(mean_u, 0.0, 4 * 0.5 * 1e-3);
  EXPECT_NEAR(var_u, 0.25, 0.25 * 4 * std::sqrt(2.0 / n));
  // x: variance sigma^2 / (1 - phi^2) = 0.694. Neighbours are correlated, leaving about
  // (1 - phi^2) / (1 + phi^2) = 0.22 of the samples independent: the estimate's standard error
  // is 0.3%, so 3% is ten of them.
  const std::vector<double> x = solve_gold(series);
  double var_x = 0;
  for (const double v : x) var_x += v * v / n;
  EXPECT_NEAR(var_x, 0.25 / (1 - 0.64), 0.03 * 0.25 / (1 - 0.64));
}

TEST(RecurrenceAr1, TimeVaryingPhiStaysInItsInterval) {
  Ar1 a;
  a.series = 2;
  a.length = 100000;
  a.time_varying = true;
  a.phi_min = -0.25;
  a.phi_max = 0.75;
  a.seed = test::kSeed;
  const Series<float> series = ar1_series<float>(a);
  double mean = 0;
  for (const float s : series.s) {
    ASSERT_GT(s, -0.25f);
    ASSERT_LT(s, 0.75f);
    mean += s / static_cast<double>(series.s.size());
  }
  // Uniform on (-0.25, 0.75): mean 0.25, standard deviation 0.289; 2 x 10^5 draws.
  EXPECT_NEAR(mean, 0.25, 4 * 0.289 / std::sqrt(2e5));
}

TEST(RecurrenceSmoothing, StepResponseAndFirstValue) {
  // Two rows: a step from 0 to 1 at t = 1, and a constant. v[-1] = y[0], so v[0] = y[0].
  const double alpha = 0.25;
  std::vector<double> y(2 * 40, 1.0);
  y[0] = 0;
  const Series<double> series = smoothing_series<double>(y, 2, alpha);
  EXPECT_EQ(series.offsets, (std::vector<std::int64_t>{0, 40, 80}));
  EXPECT_EQ(series.initial, (std::vector<double>{0.0, 1.0}));
  const std::vector<double> v = solve_gold(series);
  for (int t = 0; t < 40; ++t) {
    EXPECT_NEAR(v[t], 1 - std::pow(1 - alpha, t), 1e-15) << t;
    EXPECT_NEAR(v[40 + t], 1.0, 1e-15) << t;
  }
  // alpha = 1 follows the series exactly.
  std::vector<double> ramp(10);
  std::iota(ramp.begin(), ramp.end(), -3.0);
  EXPECT_EQ(solve_gold(smoothing_series<double>(ramp, 1, 1.0)), ramp);
}

// ---------------------------------------------------------------------------------------------
// Parameters: each bad value names its key.

void expect_bad_params(const Params& p, const std::string& key, const std::string& part) {
  try {
    p.validate();
    ADD_FAILURE() << "accepted; expected an error for " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_TRUE(contains(e.expected(), part)) << e.what();
  }
}

TEST(RecurrenceParams, DefaultsAreValid) {
  EXPECT_NO_THROW(Params().validate());
  Params p;
  p.problem = Problem::smoothing;
  p.input.file = "y.h5";
  EXPECT_NO_THROW(p.validate());
  p.problem = Problem::file;
  EXPECT_NO_THROW(p.validate());
}

TEST(RecurrenceParams, BadValuesNameTheirKey) {
  Params p;
  p.ar1.series = 0;
  expect_bad_params(p, "ar1.series", "expected a positive integer, got 0");
  p = Params();
  p.ar1.length = -5;
  expect_bad_params(p, "ar1.length", "got -5");
  p = Params();
  p.ar1.series = 1 << 21;
  p.ar1.length = 1 << 20;
  expect_bad_params(p, "ar1", "at most 2^40 elements");
  p = Params();
  p.ar1.phi = 1.5;
  expect_bad_params(p, "ar1.phi", "expected a number in [-1, 1], got 1.5");
  p.ar1.phi = NAN;
  expect_bad_params(p, "ar1.phi", "[-1, 1]");
  p = Params();
  p.ar1.time_varying = true;
  p.ar1.phi_min = -1;
  p.ar1.phi_max = 0.5;
  expect_bad_params(p, "ar1.phi_min", "(-1, 1), got -1");
  p.ar1.phi_min = 0.6;
  expect_bad_params(p, "ar1.phi_max", "expected more than ar1.phi_min (0.6), got 0.5");
  p.ar1.phi_max = 1;
  expect_bad_params(p, "ar1.phi_max", "(-1, 1), got 1");
  p = Params();
  p.ar1.sigma = -1e-9;
  expect_bad_params(p, "ar1.sigma", "got -1e-09");
  p = Params();
  p.ar1.x0 = INFINITY;
  expect_bad_params(p, "ar1.x0", "finite");

  p = Params();
  p.problem = Problem::smoothing;
  expect_bad_params(p, "input.file", "HDF5 file");
  p.input.file = "y.h5";
  p.smoothing.alpha = 0;
  expect_bad_params(p, "smoothing.alpha", "(0, 1], got 0");
  p.smoothing.alpha = 0.5;
  p.input.y = "";
  expect_bad_params(p, "input.y", "name of a dataset");
  // Another problem's keys are not checked: a bad ar1 table does not stop a smoothing run.
  p.input.y = "y";
  p.ar1.series = 0;
  EXPECT_NO_THROW(p.validate());

  p = Params();
  p.problem = Problem::file;
  expect_bad_params(p, "input.file", "s and u");
  p.input.file = "su.h5";
  p.input.u = "";
  expect_bad_params(p, "input.u", "name of a dataset");
}

TEST(RecurrenceParams, NamesConvertBothWays) {
  for (const Problem problem : kProblems) EXPECT_EQ(parse_problem(name(problem)), problem);
  EXPECT_EQ(parse_precision("double"), Precision::double_);
  EXPECT_EQ(name(Precision::single), "float");
  try {
    parse_problem("arl");
    ADD_FAILURE() << "accepted \"arl\"";
  } catch (const InputError& e) {
    EXPECT_TRUE(
        contains(e.what(), "problem \"arl\" is not one of \"ar1\", \"smoothing\", \"file\""))
        << e.what();
  }
  EXPECT_THROW(parse_precision("single"), InputError);
}

// A series cut among ranks (ranks.hpp): the runs, in rank order, hold every element once; each
// run's segments are the whole's that meet it, with their offsets from its first element and
// their initial values, the first one continued where it began on an earlier rank.
template <class T>
void expect_runs_cover(const Series<T>& whole, int size, Cut cut) {
  std::int64_t next = 0;
  for (int rank = 0; rank < size; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank) + " of " + std::to_string(size));
    const SeriesPart<T> part = part_of(whole, rank, size, cut);
    EXPECT_NO_THROW(check_series(part.series));
    EXPECT_EQ(part.whole, whole.size());
    if (part.size() == 0) continue;
    EXPECT_EQ(part.first, next);
    if (cut == Cut::tiles) {
      EXPECT_EQ(part.first % kTileElements<T>, 0);
    }
    for (std::int64_t i = 0; i < part.size(); ++i) {
      EXPECT_EQ(part.series.s[i], whole.s[part.first + i]);
      EXPECT_EQ(part.series.u[i], whole.u[part.first + i]);
    }
    const std::int64_t k0 = part.first_segment;
    EXPECT_EQ(part.continued, whole.offsets[k0] < part.first);
    EXPECT_LE(whole.offsets[k0], part.first);
    EXPECT_GT(whole.offsets[k0 + 1], part.first);
    for (std::int64_t k = 1; k < part.series.segments(); ++k) {
      EXPECT_EQ(part.series.offsets[k], whole.offsets[k0 + k] - part.first);
      EXPECT_EQ(part.series.initial[k], whole.initial[k0 + k]);
    }
    if (!part.continued) {
      EXPECT_EQ(part.series.initial[0], whole.initial[k0]);
    }
    next = part.first + part.size();
  }
  EXPECT_EQ(next, whole.size());
}

TEST(RecurrenceRanks, RunsCoverTheSeriesOnceWhateverTheCut) {
  // Empty segments first, between and last; one long segment past a tile.
  Series<float> whole;
  const std::vector<std::int64_t> lengths{0, 3, 0, 0, 1, 9000, 2, 0};
  whole.offsets = {0};
  for (const std::int64_t length : lengths) {
    whole.offsets.push_back(whole.offsets.back() + length);
    whole.initial.push_back(static_cast<float>(whole.initial.size()) + 0.5f);
  }
  for (std::int64_t i = 0; i < whole.offsets.back(); ++i) {
    whole.s.push_back(0.5f + 0.001f * static_cast<float>(i % 100));
    whole.u.push_back(static_cast<float>(i));
  }
  for (const int size : {1, 2, 3, 4, 7, 9006, 9010})
    for (const Cut cut : {Cut::elements, Cut::tiles}) expect_runs_cover(whole, size, cut);
}

// Each run draws only its own elements: cut evenly by elements among 2, 5 and 7 ranks, runs start
// at odd steps (a Box-Muller pair split between two runs) and inside series of odd length.
template <class T>
void expect_ar1_runs_are_their_parts(bool time_varying) {
  Ar1 a;
  a.series = 3;
  a.length = 1501;
  a.time_varying = time_varying;
  a.phi = 0.7;
  a.phi_min = 0.2;
  a.phi_max = 0.9;
  a.x0 = 1.5;
  a.seed = 11;
  const Series<T> whole = ar1_series<T>(a);
  const Series<T> segments = ar1_segments<T>(a);
  EXPECT_EQ(segments.offsets, whole.offsets);
  EXPECT_EQ(segments.initial, whole.initial);
  bool split_pair = false;
  for (const int size : {1, 2, 5, 7})
    for (const Cut cut : {Cut::elements, Cut::tiles})
      for (int rank = 0; rank < size; ++rank) {
        const SeriesPart<T> made = ar1_part<T>(a, rank, size, cut);
        const SeriesPart<T> cut_out = part_of(whole, rank, size, cut);
        split_pair = split_pair || (made.size() > 0 && made.first % a.length % 2 == 1);
        EXPECT_EQ(made.first, cut_out.first);
        EXPECT_EQ(made.continued, cut_out.continued);
        EXPECT_EQ(made.first_segment, cut_out.first_segment);
        EXPECT_EQ(made.series.s, cut_out.series.s);
        EXPECT_EQ(made.series.u, cut_out.series.u);
        EXPECT_EQ(made.series.offsets, cut_out.series.offsets);
        EXPECT_EQ(made.series.initial, cut_out.series.initial);
        // The same run without its elements, for a device to draw them: all else the same.
        const SeriesPart<T> shape = ar1_run<T>(a, rank, size, cut);
        EXPECT_TRUE(shape.series.s.empty() && shape.series.u.empty());
        EXPECT_EQ(shape.first, made.first);
        EXPECT_EQ(shape.whole, made.whole);
        EXPECT_EQ(shape.continued, made.continued);
        EXPECT_EQ(shape.first_segment, made.first_segment);
        EXPECT_EQ(shape.series.offsets, made.series.offsets);
        EXPECT_EQ(shape.series.initial, made.series.initial);
      }
  EXPECT_TRUE(split_pair);
}

TEST(RecurrenceRanks, AnAR1RunIsItsPartOfTheWholeSeries) {
  for (const bool time_varying : {false, true}) {
    expect_ar1_runs_are_their_parts<float>(time_varying);
    expect_ar1_runs_are_their_parts<double>(time_varying);
  }
}

// On one rank, a run judged across ranks is judged as the whole series is (check.hpp), and a NaN
// in it fails.
TEST(RecurrenceRanks, OneRankIsJudgedAsTheWholeSeries) {
  Ar1 a;
  a.series = 3;
  a.length = 2000;
  a.phi = 0.9;
  a.seed = 5;
  const Series<float> whole = ar1_series<float>(a);
  const std::vector<double> gold = solve_gold(whole);
  std::vector<float> v(gold.begin(), gold.end());
  v[1234] *= 1.0f + 1e-4f;  // one value off by far more than float's rounding
  comm::Context context;
  const SeriesPart<float> part = part_of(whole, 0, 1, Cut::elements);
  const Agreement mine = agreement_part(part, v, gold, context);
  const Agreement alone = agreement(v, gold, whole);
  EXPECT_FALSE(mine.passed());
  EXPECT_FALSE(alone.passed());
  EXPECT_EQ(mine.value, alone.value);
  EXPECT_EQ(mine.tolerance, alone.tolerance);
  EXPECT_EQ(mine.description, alone.description);
  EXPECT_EQ(mine.values, alone.values);
  v[1234] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(agreement_part(part, v, gold, context).value));
}

// ---------------------------------------------------------------------------------------------
// A run's part without the command line (run_part.hpp): made, solved by the gold, judged, and
// reported as the front end writes it.

TEST(RecurrenceRunPart, AnAr1RunOnTheCpuIsItsGoldAndSaysWhatItRan) {
  Params p;
  p.ar1.series = 3;
  p.ar1.length = 50;
  std::vector<std::int64_t> judged;
  RunPart<double> part(p, false, true, 0, 1, [&](std::int64_t n) { judged.push_back(n); });
  EXPECT_EQ(judged, (std::vector<std::int64_t>{150}));
  EXPECT_EQ(part.elements(), 150);
  EXPECT_EQ(part.first(), 0u);
  EXPECT_EQ(&part.held(), &part.series());
  EXPECT_EQ(std::string(part.decomposition()), "runs of elements");
  std::vector<std::string> shown;
  const ShowGold show = [&](const std::string& what, const auto& solve) {
    shown.push_back(what);
    solve({});
  };
  comm::Context context;
  const PhaseTimer t = part.solve(context, show);
  EXPECT_EQ(t.seconds(phase::exchange), 0);
  EXPECT_EQ(part.v(), solve_gold(part.series()));
  // The CPU solve's result is the gold: the check solves none again.
  EXPECT_TRUE(part.check(context, show).passed());
  EXPECT_EQ(shown, (std::vector<std::string>{"element"}));
  const Summary s = part.summary();
  ASSERT_EQ(s.timings.size(), 2u);
  EXPECT_EQ(s.timings[0].first, "gelements_per_s");
  EXPECT_EQ(s.timings[1].first, "gb_per_s");
  ASSERT_EQ(s.series.size(), 3u);
  EXPECT_EQ(std::get<std::string>(s.series[0].second), "ar1");
  EXPECT_EQ(std::get<std::int64_t>(s.series[1].second), 150);
  EXPECT_EQ(std::get<std::int64_t>(s.series[2].second), 3);
  EXPECT_TRUE(s.method.empty());  // the carry is said across ranks only
  EXPECT_TRUE(contains(s.line, "v from ")) << s.line;
}

TEST(RecurrenceRunPart, MemoryNeedsNameTheKeyThatSizedTheSeries) {
  Params p;
  const MemoryNeed host = host_need<float>(p, 1000);
  EXPECT_EQ(host.key, "ar1");
  EXPECT_EQ(host.what, "1000 elements need");
  EXPECT_EQ(host.bytes, (3.0 * 4 + 16) * 1000);  // s, u and v, with the gold and the scale
  EXPECT_FALSE(host.device);
  p.problem = Problem::file;
  Series<float> s;
  s.offsets = {0, 10, 30};
  s.initial = {0, 0};
  const MemoryNeed device = device_need(p, s);
  EXPECT_EQ(device.key, "input.file");
  EXPECT_EQ(device.what, "30 elements in " + std::string(name(p.precision)) + " need");
  EXPECT_GT(device.bytes, bytes_per_solve(30, 4));
  EXPECT_TRUE(device.device);
}

TEST(RecurrenceRunPart, OnlyTheFastScanOnTheGpuPromisesNoBits) {
  Params p;
  EXPECT_TRUE(reproducibility(p, false, 2).first);
  EXPECT_FALSE(reproducibility(p, true, 1).first);
  EXPECT_TRUE(contains(reproducibility(p, true, 2).second, "across ranks"));
  p.mode = ScanMode::reproducible;
  EXPECT_TRUE(reproducibility(p, true, 4).first);
}

TEST(RecurrenceRunPart, TheFieldsLayoutAndASweepsAttributesFollowTheSeries) {
  EXPECT_EQ(v_layout({3, 50}), "[segment][t], t fastest: row k is segment k");
  EXPECT_TRUE(contains(v_layout({150}), "(/input/offsets)"));
  Series<float> s;
  s.s.assign(40, 0.5f);
  s.u.assign(40, 1.0f);
  s.offsets = {0, 40};
  s.initial = {0};
  const std::vector<Attribute> a = sweep_attributes(s, 400.0, 2.0);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].first, "bytes_per_element");
  EXPECT_EQ(std::get<double>(a[0].second), 10.0);
  EXPECT_EQ(std::get<std::int64_t>(a[1].second), 40);
  EXPECT_EQ(a[4].first, "check_tolerance");
  EXPECT_EQ(std::get<double>(a[4].second), tolerance<float>(2.0));
}

}  // namespace
}  // namespace parasol::recurrence
