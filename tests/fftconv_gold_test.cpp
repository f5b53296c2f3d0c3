// The fftconv gold against hand-computed and scipy-derived answers in every mode, the shapes of
// scipy's modes, the FFT lengths, the generators and the parameter checks: every GPU variant is
// judged by the gold, so it is judged first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/share.hpp"
#include "solvers/fftconv/signals.hpp"
#include "tests/support.hpp"

namespace parasol::fftconv {
namespace {

using test::contains;

Problem one_d(std::int64_t n, std::int64_t k, Mode mode,
              Operation operation = Operation::convolve) {
  Problem p;
  p.signal = {1, n};
  p.filter = {1, k};
  p.mode = mode;
  p.operation = operation;
  return p;
}

Problem two_d(Extent signal, Extent filter, Mode mode) {
  Problem p;
  p.signal = signal;
  p.filter = filter;
  p.mode = mode;
  return p;
}

template <class T>
std::vector<T> seeded(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> values(count);
  for (T& v : values) v = static_cast<T>(uniform(engine));
  return values;
}

// ---------------------------------------------------------------------------------------------
// Names and shapes.

TEST(FftconvNames, ConvertBothWays) {
  for (const Mode m : kModes) EXPECT_EQ(parse_mode(name(m)), m);
  for (const Variant v : kVariants) EXPECT_EQ(parse_variant(name(v)), v);
  EXPECT_EQ(name(Variant::automatic), "auto");
  EXPECT_EQ(parse_variant("auto"), Variant::automatic);
  EXPECT_EQ(name(Variant::overlap_save), "overlap-save");
  EXPECT_EQ(parse_operation("correlate"), Operation::correlate);
  EXPECT_EQ(name(Operation::convolve), "convolve");
  try {
    parse_variant("overlap_save");
    ADD_FAILURE() << "accepted \"overlap_save\"";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "variant \"overlap_save\" is not one of \"auto\", \"c2c\", "
                                   "\"r2c\", \"overlap-save\", \"direct\", \"fused\""))
        << e.what();
  }
  EXPECT_THROW(parse_mode("Same"), InputError);
  EXPECT_THROW(parse_operation("convolution"), InputError);
}

TEST(FftconvShapes, OutputExtentAndOffsetInEveryMode) {
  // n = 10, k = 4: full 13 from 0; same 10 from (4 - 1) / 2 = 1; valid 7 from 3.
  EXPECT_EQ(output_extent(one_d(10, 4, Mode::full)), (Extent{1, 13}));
  EXPECT_EQ(output_offset(one_d(10, 4, Mode::full)), (Extent{0, 0}));
  EXPECT_EQ(output_extent(one_d(10, 4, Mode::same)), (Extent{1, 10}));
  EXPECT_EQ(output_offset(one_d(10, 4, Mode::same)), (Extent{0, 1}));
  EXPECT_EQ(output_extent(one_d(10, 4, Mode::valid)), (Extent{1, 7}));
  EXPECT_EQ(output_offset(one_d(10, 4, Mode::valid)), (Extent{0, 3}));
  // An odd filter centres exactly: k = 5 starts same at 2.
  EXPECT_EQ(output_offset(one_d(10, 5, Mode::same)), (Extent{0, 2}));
  // The filter longer than the signal: same keeps the signal's length, valid swaps the roles.
  EXPECT_EQ(output_extent(one_d(3, 8, Mode::full)), (Extent{1, 10}));
  EXPECT_EQ(output_extent(one_d(3, 8, Mode::same)), (Extent{1, 3}));
  EXPECT_EQ(output_offset(one_d(3, 8, Mode::same)), (Extent{0, 3}));
  EXPECT_EQ(output_extent(one_d(3, 8, Mode::valid)), (Extent{1, 6}));
  EXPECT_EQ(output_offset(one_d(3, 8, Mode::valid)), (Extent{0, 2}));
  EXPECT_EQ(output_extent(one_d(6, 6, Mode::valid)), (Extent{1, 1}));
  // 2D: each axis on its own.
  const Problem p = two_d({64, 48}, {7, 4}, Mode::same);
  EXPECT_EQ(output_extent(p), (Extent{64, 48}));
  EXPECT_EQ(output_offset(p), (Extent{3, 1}));
  const Problem q = two_d({5, 9}, {8, 12}, Mode::valid);
  EXPECT_EQ(output_extent(q), (Extent{4, 4}));
  EXPECT_EQ(output_offset(q), (Extent{4, 8}));
  EXPECT_EQ(output_extent(two_d({64, 48}, {7, 4}, Mode::full)), (Extent{70, 51}));
  EXPECT_TRUE(p.is_2d());
  EXPECT_TRUE(two_d({1, 9}, {2, 3}, Mode::full).is_2d()) << "a 2D filter makes a 2D problem";
  EXPECT_FALSE(one_d(9, 3, Mode::full).is_2d());
}

void expect_bad_problem(const Problem& p, const std::string& key, const std::string& part) {
  try {
    check_problem(p);
    ADD_FAILURE() << "accepted; expected an error for " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_TRUE(contains(e.expected(), part)) << e.what();
  }
}

TEST(FftconvShapes, CheckProblemNamesWhatIsWrong) {
  EXPECT_NO_THROW(check_problem(one_d(1, 1, Mode::valid)));
  Problem p = one_d(10, 3, Mode::full);
  p.batch = 0;
  expect_bad_problem(p, "signal", "at least one signal, got a batch of 0");
  p = one_d(0, 3, Mode::full);
  expect_bad_problem(p, "signal", "at least one sample in each axis, got 0");
  p = one_d(10, 0, Mode::full);
  expect_bad_problem(p, "filter", "at least one tap");
  p = two_d({0, 4}, {1, 1}, Mode::full);
  expect_bad_problem(p, "signal", "got 0 x 4");
  p = one_d(10, 3, Mode::full);
  p.batch = 4;
  p.filters = 3;
  expect_bad_problem(p, "filters", "1 filter (for every signal) or one per signal (4), got 3");
  p.filters = 4;
  EXPECT_NO_THROW(check_problem(p));
  p.filters = 0;
  expect_bad_problem(p, "filters", "got 0");
  // Sizes past 2^40, without overflow on the way.
  p = one_d(std::int64_t{1} << 20, 3, Mode::full);
  p.batch = std::int64_t{1} << 21;
  expect_bad_problem(p, "signal", "at most 2^40 samples in all");
  p = two_d({std::int64_t{1} << 40, std::int64_t{1} << 40}, {1, 1}, Mode::full);
  expect_bad_problem(p, "signal", "at most 2^40 samples");
  p = one_d(100, std::int64_t{1} << 41, Mode::full);
  expect_bad_problem(p, "filter", "at most 2^40 taps");
  p = one_d((std::int64_t{1} << 40) - 10, 100, Mode::full);
  expect_bad_problem(p, "signal", "at most 2^40 output samples");
  p.mode = Mode::same;
  EXPECT_NO_THROW(check_problem(p)) << "same keeps the signal's length";
}

TEST(FftconvShapes, ValidNeedsOneOperandLargerInEveryAxis) {
  EXPECT_NO_THROW(check_problem(two_d({8, 8}, {3, 8}, Mode::valid)));
  EXPECT_NO_THROW(check_problem(two_d({3, 8}, {8, 8}, Mode::valid)));
  EXPECT_NO_THROW(check_problem(one_d(2, 9, Mode::valid)));
  // Longer in one axis, shorter in the other: scipy refuses it too.
  expect_bad_problem(two_d({8, 3}, {3, 8}, Mode::valid), "mode",
                     "the signal is 8 x 3 and the filter 3 x 8");
  expect_bad_problem(two_d({1, 9}, {2, 3}, Mode::valid), "mode", "valid needs one operand");
  // The same shapes are fine in the other modes.
  EXPECT_NO_THROW(check_problem(two_d({8, 3}, {3, 8}, Mode::full)));
  EXPECT_NO_THROW(check_problem(two_d({8, 3}, {3, 8}, Mode::same)));
}

TEST(FftconvShapes, SupportsOverlapSaveIn1DOnly) {
  for (const Variant v : kVariants) EXPECT_TRUE(supports(v, one_d(100, 7, Mode::same))) << name(v);
  const Problem image = two_d({64, 64}, {5, 5}, Mode::same);
  EXPECT_FALSE(supports(Variant::overlap_save, image));
  EXPECT_TRUE(supports(Variant::c2c, image));
  EXPECT_TRUE(supports(Variant::r2c, image));
  EXPECT_TRUE(supports(Variant::direct, image));
  EXPECT_TRUE(supports(Variant::automatic, image));
  // fused takes images whose rows' circular length fits its longest row transform.
  EXPECT_TRUE(supports(Variant::fused, image));
  EXPECT_TRUE(supports(Variant::fused, two_d({8, 4096}, {5, 31}, Mode::valid)));
  EXPECT_FALSE(supports(Variant::fused, two_d({8, 4096}, {5, 31}, Mode::same)));
  Problem batch = one_d(100, 7, Mode::same);
  batch.batch = 3;
  batch.filters = 3;
  EXPECT_TRUE(supports(Variant::overlap_save, batch));
}

// ---------------------------------------------------------------------------------------------
// FFT lengths.

// The circular length per axis is the shortest that keeps the wrapped-around terms out of the
// mode's window: the full length in `full`, less in `same` and `valid`.
TEST(FftconvShapes, CircularExtentKeepsTheWrappedTermsOutOfTheWindow) {
  EXPECT_EQ(circular_extent(two_d({4096, 4096}, {31, 31}, Mode::full)), (Extent{4126, 4126}));
  EXPECT_EQ(circular_extent(two_d({4096, 4096}, {31, 31}, Mode::same)), (Extent{4111, 4111}));
  EXPECT_EQ(circular_extent(two_d({4096, 4096}, {31, 31}, Mode::valid)), (Extent{4096, 4096}));
  EXPECT_EQ(transform_extent(two_d({4096, 4096}, {31, 31}, Mode::same)), (Extent{4116, 4116}));
  EXPECT_EQ(circular_extent(one_d(100, 7, Mode::same)), (Extent{1, 103}));
  EXPECT_EQ(transform_extent(one_d(100, 7, Mode::full)), (Extent{1, 108}));
}

// Images at a shorter length than the circular one: the wrapped outputs are the window's within
// k - 1 of its ends, each counted once; a power of two is taken where it is shorter than the
// usual length and its wrapped outputs cost little.
TEST(FftconvShapes, ImagesTakeAShorterPowerOfTwoAndRecomputeTheWrappedOutputs) {
  const Problem same = two_d({4096, 4096}, {31, 31}, Mode::same);
  EXPECT_EQ(r2c_image_extent(same), (Extent{4096, 4096}));
  EXPECT_EQ(fused_image_extent(same, {1024, 2048, 4096, 8192}), (Extent{4096, 4096}));
  const std::vector<Rect> rects = wrapped_outputs(same, {4096, 4096});
  ASSERT_EQ(rects.size(), 4u);
  EXPECT_EQ(rects[0], (Rect{0, 15, 0, 4096}));
  EXPECT_EQ(rects[1], (Rect{4081, 15, 0, 4096}));
  EXPECT_EQ(rects[2], (Rect{15, 4066, 0, 15}));
  EXPECT_EQ(rects[3], (Rect{15, 4066, 4081, 15}));
  EXPECT_TRUE(wrapped_outputs(same, transform_extent(same)).empty());
  // full gains nothing from a power of two (8192 against 4200); valid needs none.
  const Problem full = two_d({4096, 4096}, {31, 31}, Mode::full);
  EXPECT_EQ(r2c_image_extent(full), transform_extent(full));
  const Problem valid = two_d({4096, 4096}, {31, 31}, Mode::valid);
  EXPECT_EQ(r2c_image_extent(valid), (Extent{4096, 4096}));
  EXPECT_TRUE(wrapped_outputs(valid, {4096, 4096}).empty());
  // A large filter's edges cost too much; so do a small image's against a long filter.
  EXPECT_EQ(r2c_image_extent(two_d({4096, 4096}, {63, 63}, Mode::same)),
            transform_extent(two_d({4096, 4096}, {63, 63}, Mode::same)));
  EXPECT_EQ(r2c_image_extent(two_d({64, 64}, {31, 31}, Mode::same)),
            transform_extent(two_d({64, 64}, {31, 31}, Mode::same)));
  // 1D keeps its circular length.
  EXPECT_EQ(r2c_image_extent(one_d(4096, 31, Mode::same)),
            transform_extent(one_d(4096, 31, Mode::same)));
  // Against the definition: output f (full index) takes wrapped terms where f < full - L or
  // f >= L, on small awkward cases in every mode, each such output in exactly one rectangle.
  for (const Mode mode : kModes)
    for (const auto& [n, k] : {std::pair<Extent, Extent>{{13, 17}, {4, 6}},
                               {{9, 30}, {9, 3}}, {{20, 11}, {7, 11}}}) {
      const Problem p = two_d(n, k, mode);
      const Extent out = output_extent(p), at = output_offset(p), c = circular_extent(p);
      const Extent least{std::max({out.rows, n.rows, k.rows}), std::max({out.cols, n.cols, k.cols})};
      for (std::int64_t lr = least.rows; lr <= c.rows; ++lr)
        for (std::int64_t lc = least.cols; lc <= c.cols; ++lc) {
          std::vector<int> covered(static_cast<std::size_t>(out.size()), 0);
          for (const Rect& r : wrapped_outputs(p, {lr, lc}))
            for (std::int64_t y = r.row; y < r.row + r.rows; ++y)
              for (std::int64_t x = r.col; x < r.col + r.cols; ++x)
                ++covered[static_cast<std::size_t>(y * out.cols + x)];
          const auto wraps = [](std::int64_t f, std::int64_t length, std::int64_t l) {
            return f < length - l || f >= l;
          };
          for (std::int64_t y = 0; y < out.rows; ++y)
            for (std::int64_t x = 0; x < out.cols; ++x) {
              const bool wrapped = wraps(y + at.rows, n.rows + k.rows - 1, lr) ||
                                   wraps(x + at.cols, n.cols + k.cols - 1, lc);
              EXPECT_EQ(covered[static_cast<std::size_t>(y * out.cols + x)], wrapped ? 1 : 0)
                  << name(mode) << " at " << lr << " x " << lc << ", output " << y << ", " << x;
            }
        }
    }
}

bool seven_smooth(std::int64_t n) {
  for (const std::int64_t p : {2, 3, 5, 7})
    while (n % p == 0) n /= p;
  return n == 1;
}

TEST(FftconvFftLength, SmallestSevenSmoothAtLeastN) {
  // n = 1 up to 5000 against a search upwards: the answer is 7-smooth, >= n, and nothing
  // between n and it is.
  std::int64_t next = 1;
  for (std::int64_t n = 1; n <= 5000; ++n) {
    if (next < n) next = n;
    while (!seven_smooth(next)) ++next;
    ASSERT_EQ(good_fft_length(n), next) << "n = " << n;
  }
  // Primes go up to the next smooth number; 11 and 13 are not factors cuFFT likes.
  const std::pair<std::int64_t, std::int64_t> known[] = {
      {1, 1},       {2, 2},       {7, 7},        {11, 12},           {13, 14},
      {97, 98},     {101, 105},   {1021, 1024},  {1025, 1029},       {65537, 65610},
      {1000003, 1000188}};
  for (const auto& [n, want] : known) EXPECT_EQ(good_fft_length(n), want) << n;
}

TEST(FftconvFftLength, LargeLengthsUpTo2To62) {
  // Found by the same search over 2^a 3^b 5^c 7^d, in Python's exact integers.
  EXPECT_EQ(good_fft_length(std::int64_t{1} << 40), std::int64_t{1} << 40);
  EXPECT_EQ(good_fft_length((std::int64_t{1} << 40) + 1), 1100753141760);
  EXPECT_EQ(good_fft_length(1000000000039), 1000188000000);
  EXPECT_EQ(good_fft_length(999999999989), 1000000000000);
  EXPECT_EQ(good_fft_length(3 * (std::int64_t{1} << 40) + 1), 3302259425280);
  EXPECT_EQ(good_fft_length((std::int64_t{1} << 61) + 1), 2305920400000000000);
  EXPECT_EQ(good_fft_length(std::int64_t{1} << 62), std::int64_t{1} << 62);
  // A thousand large lengths, each smooth and no smaller than asked. The search is some
  // thousand candidates each, so this takes milliseconds.
  for (std::int64_t n = (std::int64_t{1} << 40) - 1000; n < (std::int64_t{1} << 40); ++n) {
    const std::int64_t m = good_fft_length(n);
    ASSERT_GE(m, n);
    ASSERT_TRUE(seven_smooth(m)) << m;
  }
  EXPECT_THROW(good_fft_length(0), Error);
  EXPECT_THROW(good_fft_length(-5), Error);
  EXPECT_THROW(good_fft_length((std::int64_t{1} << 62) + 1), Error);
}

// ---------------------------------------------------------------------------------------------
// The gold against exact answers.

template <class T>
class FftconvGoldTyped : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FftconvGoldTyped, Precisions);

TYPED_TEST(FftconvGoldTyped, HandComputedInEveryModeAndBothOperations) {
  using T = TypeParam;
  // Small integers and halves: every product and sum is exact, so the answers are exact too.
  const std::vector<T> x{T(1), T(2), T(3)}, h{T(0), T(1), T(0.5)};
  using V = std::vector<double>;
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::full), x, h), (V{0, 1, 2.5, 4, 1.5}));
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::same), x, h), (V{1, 2.5, 4}));
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::valid), x, h), (V{2.5}));
  // correlate(x, h) = convolve(x, [0.5, 1, 0]), as scipy.signal.correlate gives.
  const Operation c = Operation::correlate;
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::full, c), x, h), (V{0.5, 2, 3.5, 3, 0}));
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::same, c), x, h), (V{2, 3.5, 3}));
  EXPECT_EQ(convolve_gold(one_d(3, 3, Mode::valid, c), x, h), (V{3.5}));
  // An even filter: same starts at (2 - 1) / 2 = 0.
  const std::vector<T> ramp{T(1), T(2), T(3), T(4)}, pair{T(1), T(1)};
  EXPECT_EQ(convolve_gold(one_d(4, 2, Mode::same), ramp, pair), (V{1, 3, 5, 7}));
}

TYPED_TEST(FftconvGoldTyped, FilterLongerThanTheSignal) {
  using T = TypeParam;
  // scipy.signal.fftconvolve([1, 2], [1, 0, -1, 2], mode) and scipy.signal.correlate.
  const std::vector<T> x{T(1), T(2)}, h{T(1), T(0), T(-1), T(2)};
  using V = std::vector<double>;
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::full), x, h), (V{1, 2, -1, 0, 4}));
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::same), x, h), (V{2, -1}));
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::valid), x, h), (V{2, -1, 0}));
  const Operation c = Operation::correlate;
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::full, c), x, h), (V{2, 3, -2, 1, 2}));
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::same, c), x, h), (V{3, -2}));
  EXPECT_EQ(convolve_gold(one_d(2, 4, Mode::valid, c), x, h), (V{3, -2, 1}));
}

TYPED_TEST(FftconvGoldTyped, TwoDimensionalHandComputed) {
  using T = TypeParam;
  // scipy.signal.convolve([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, -1]], mode) and correlate.
  const std::vector<T> x{T(1), T(2), T(3), T(4), T(5), T(6)}, h{T(1), T(0), T(0), T(-1)};
  using V = std::vector<double>;
  Problem p = two_d({2, 3}, {2, 2}, Mode::full);
  EXPECT_EQ(convolve_gold(p, x, h), (V{1, 2, 3, 0, 4, 4, 4, -3, 0, -4, -5, -6}));
  p.mode = Mode::same;
  EXPECT_EQ(convolve_gold(p, x, h), (V{1, 2, 3, 4, 4, 4}));
  p.mode = Mode::valid;
  EXPECT_EQ(convolve_gold(p, x, h), (V{4, 4}));
  p.operation = Operation::correlate;
  EXPECT_EQ(convolve_gold(p, x, h), (V{-4, -4}));
  p.mode = Mode::full;
  EXPECT_EQ(convolve_gold(p, x, h), (V{-1, -2, -3, 0, -4, -4, -4, 3, 0, 4, 5, 6}));
}

// A 2D convolution is a sum of 1D ones: output row I of the full convolution is the sum over
// filter rows m of signal row I - m convolved with filter row m. Each mode is then that full
// result cropped at its offset.
TYPED_TEST(FftconvGoldTyped, TwoDimensionalIsASumOf1DConvolutions) {
  using T = TypeParam;
  const Extent n{9, 13}, k{4, 6};
  const std::vector<T> x = seeded<T>(static_cast<std::size_t>(n.size()), test::kSeed);
  const std::vector<T> h = seeded<T>(static_cast<std::size_t>(k.size()), test::kSeed + 1);
  SCOPED_TRACE("seed " + std::to_string(test::kSeed));
  const Extent full{n.rows + k.rows - 1, n.cols + k.cols - 1};
  std::vector<double> sum(static_cast<std::size_t>(full.size()), 0.0);
  for (std::int64_t i = 0; i < n.rows; ++i)
    for (std::int64_t m = 0; m < k.rows; ++m) {
      const std::vector<T> row(x.begin() + i * n.cols, x.begin() + (i + 1) * n.cols);
      const std::vector<T> taps(h.begin() + m * k.cols, h.begin() + (m + 1) * k.cols);
      const std::vector<double> line = convolve_gold(one_d(n.cols, k.cols, Mode::full), row, taps);
      for (std::int64_t j = 0; j < full.cols; ++j)
        sum[static_cast<std::size_t>((i + m) * full.cols + j)] += line[static_cast<std::size_t>(j)];
    }
  for (const Mode mode : kModes) {
    const Problem p = two_d(n, k, mode);
    const std::vector<double> y = convolve_gold(p, x, h);
    const Extent e = output_extent(p), o = output_offset(p);
    ASSERT_EQ(y.size(), static_cast<std::size_t>(e.size())) << name(mode);
    for (std::int64_t i = 0; i < e.rows; ++i)
      for (std::int64_t j = 0; j < e.cols; ++j)
        ASSERT_NEAR(y[static_cast<std::size_t>(i * e.cols + j)],
                    sum[static_cast<std::size_t>((o.rows + i) * full.cols + o.cols + j)], 1e-13)
            << name(mode) << " at " << i << ", " << j;
  }
}

TYPED_TEST(FftconvGoldTyped, BatchWithOneFilterOrOnePerSignal) {
  using T = TypeParam;
  const std::int64_t batch = 3, n = 40, k = 7;
  const std::vector<T> x = seeded<T>(static_cast<std::size_t>(batch * n), test::kSeed);
  const std::vector<T> bank = seeded<T>(static_cast<std::size_t>(batch * k), test::kSeed + 2);
  SCOPED_TRACE("seed " + std::to_string(test::kSeed));
  for (const Mode mode : kModes)
    for (const Operation op : {Operation::convolve, Operation::correlate}) {
      Problem p = one_d(n, k, mode, op);
      p.batch = batch;
      const std::int64_t out = output_extent(p).cols;
      // One filter: filter 0 of the bank for every signal.
      const std::vector<T> first(bank.begin(), bank.begin() + k);
      const std::vector<double> shared = convolve_gold(p, x, first);
      p.filters = batch;
      const std::vector<double> own = convolve_gold(p, x, bank);
      ASSERT_EQ(own.size(), static_cast<std::size_t>(batch * out));
      for (std::int64_t b = 0; b < batch; ++b) {
        const std::vector<T> signal(x.begin() + b * n, x.begin() + (b + 1) * n);
        const std::vector<T> taps(bank.begin() + b * k, bank.begin() + (b + 1) * k);
        const std::vector<double> alone = convolve_gold(one_d(n, k, mode, op), signal, taps);
        const std::vector<double> alone_first = convolve_gold(one_d(n, k, mode, op), signal, first);
        EXPECT_TRUE(std::equal(alone.begin(), alone.end(), own.begin() + b * out))
            << name(mode) << " " << name(op) << " signal " << b;
        EXPECT_TRUE(std::equal(alone_first.begin(), alone_first.end(), shared.begin() + b * out))
            << name(mode) << " " << name(op) << " signal " << b;
      }
    }
}

TYPED_TEST(FftconvGoldTyped, DeltaFilterShiftsTheSignal) {
  using T = TypeParam;
  // h = delta at tap 2: the full convolution is x delayed by 2, the correlation x advanced.
  const std::int64_t n = 50, k = 5;
  const std::vector<T> x = seeded<T>(static_cast<std::size_t>(n), test::kSeed);
  std::vector<T> h(static_cast<std::size_t>(k), T(0));
  h[2] = T(1);
  const std::vector<double> full = convolve_gold(one_d(n, k, Mode::full), x, h);
  const std::vector<double> same = convolve_gold(one_d(n, k, Mode::same), x, h);
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(full[static_cast<std::size_t>(i + 2)], static_cast<double>(x[i]));
    // A centred delta leaves same mode's output equal to the signal.
    EXPECT_EQ(same[static_cast<std::size_t>(i)], static_cast<double>(x[i]));
  }
  h[2] = T(0);
  h[0] = T(1);
  const std::vector<double> corr =
      convolve_gold(one_d(n, k, Mode::full, Operation::correlate), x, h);
  // Correlating with a delta at tap 0 is convolving with one at tap k - 1.
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_EQ(corr[static_cast<std::size_t>(i + k - 1)], static_cast<double>(x[i]));
}

TEST(FftconvGold, LongValidCheckCostsOnlyItsOutput) {
  // 2^22 samples against 2^22 - 2 taps in valid mode: 3 outputs, 1.3e7 products. The full
  // convolution would be 1.8e13 and never finish.
  const std::int64_t n = std::int64_t{1} << 22, k = n - 2;
  const std::vector<float> x(static_cast<std::size_t>(n), 1.0f);
  const std::vector<float> h(static_cast<std::size_t>(k), 0.5f);
  const std::vector<double> y = convolve_gold(one_d(n, k, Mode::valid), x, h);
  EXPECT_EQ(y, std::vector<double>(3, 0.5 * static_cast<double>(k)));
}

TEST(FftconvGold, SizesThatDisagreeWithTheProblemAreRefused) {
  const std::vector<double> x(10, 1.0), h(3, 1.0);
  Problem p = one_d(10, 3, Mode::full);
  EXPECT_NO_THROW(convolve_gold(p, x, h));
  p.batch = 2;
  EXPECT_THROW(convolve_gold(p, x, h), InputError);
  p.batch = 1;
  p.filter = {1, 4};
  EXPECT_THROW(convolve_gold(p, x, h), InputError);
  p.filter = {1, 3};
  p.mode = Mode::valid;
  p.signal = {2, 5};
  p.filter = {3, 1};
  EXPECT_THROW(convolve_gold(p, x, h), InputError) << "the gold checks the problem too";
}

TEST(FftconvGold, ReportsItsProgressUpToTheWholeOutput) {
  // 2^16 outputs of 1024 taps each: 2^26 multiply-adds, reported every 2^25 or so.
  const Problem p = one_d(std::int64_t{1} << 16, 1024, Mode::same);
  const std::vector<float> x = seeded<float>(static_cast<std::size_t>(p.signal.cols), test::kSeed);
  const std::vector<float> h = seeded<float>(1024, test::kSeed + 1);
  std::vector<Progress> reports;
  const std::vector<double> y =
      convolve_gold(p, x, h, [&](const Progress& pr) { reports.push_back(pr); });
  ASSERT_GE(reports.size(), 2u);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].total, p.signal.cols);
    EXPECT_GT(reports[i].done, i == 0 ? 0 : reports[i - 1].done);
    EXPECT_GE(reports[i].seconds, i == 0 ? 0.0 : reports[i - 1].seconds);
  }
  EXPECT_EQ(reports.back().done, reports.back().total);
  EXPECT_EQ(y, convolve_gold(p, x, h)) << "reporting changes nothing";
}

// A streamed run is checked, and on the CPU computed, window by window: each window must be
// exactly the whole gold's samples, at the ends (where the filter meets the zero padding) too.
TYPED_TEST(FftconvGoldTyped, WindowsAreTheWholeGoldsSamples) {
  using T = TypeParam;
  const std::pair<std::int64_t, std::int64_t> sizes[] = {{50, 7}, {6, 9}, {1, 1}, {40, 40}};
  for (const auto& [n, k] : sizes)
    for (const Mode mode : kModes)
      for (const Operation op : {Operation::convolve, Operation::correlate}) {
        const Problem p = one_d(n, k, mode, op);
        const std::vector<T> x = seeded<T>(static_cast<std::size_t>(n), test::kSeed);
        const std::vector<T> h = seeded<T>(static_cast<std::size_t>(k), test::kSeed + 1);
        const std::vector<double> whole = convolve_gold(p, x, h);
        const std::int64_t m = output_extent(p).cols;
        std::int64_t asked_first = n, asked_end = 0;
        const SignalReader<T> read = [&](std::int64_t offset, std::int64_t count, T* into) {
          ASSERT_GE(offset, 0);
          ASSERT_LE(offset + count, n) << "reads stay inside the signal";
          asked_first = std::min(asked_first, offset);
          asked_end = std::max(asked_end, offset + count);
          std::copy_n(x.begin() + offset, count, into);
        };
        for (const std::int64_t piece : {std::int64_t{1}, std::int64_t{3}, m}) {
          for (std::int64_t first = 0; first < m; first += piece) {
            const std::int64_t count = std::min(piece, m - first);
            const std::vector<double> window = gold_window(p, h, first, count, read);
            ASSERT_EQ(window.size(), static_cast<std::size_t>(count));
            for (std::int64_t i = 0; i < count; ++i)
              ASSERT_EQ(window[i], whole[first + i])
                  << name(mode) << " " << name(op) << " n " << n << " k " << k << " at "
                  << first + i << " in pieces of " << piece;
          }
        }
        EXPECT_EQ(asked_first, 0) << "the windows together reach the whole signal";
        EXPECT_EQ(asked_end, n) << name(mode);
      }
  // One 1D signal and filter only, and only the output's samples.
  Problem batch = one_d(10, 3, Mode::full);
  batch.batch = 2;
  const SignalReader<T> none = [](std::int64_t, std::int64_t, T*) {};
  EXPECT_THROW(gold_window(batch, std::vector<T>(3), 0, 1, none), InputError);
  EXPECT_THROW(gold_window(one_d(10, 3, Mode::full), std::vector<T>(3), 10, 3, none), Error);
}

// ---------------------------------------------------------------------------------------------
// The one agreement with the gold (check.hpp).

TEST(FftconvCheck, ToleranceGrowsWithTheLongestTransformOrTheLongestSum) {
  // The full convolution's size decides, whatever the mode: 10 + 4 - 1 = 13 needs 4 levels.
  for (const Mode mode : kModes) EXPECT_EQ(round_off_depth(one_d(10, 4, mode)), 4.0);
  EXPECT_EQ(round_off_depth(one_d(1, 1, Mode::full)), 1.0) << "at least one level";
  EXPECT_EQ(round_off_depth(one_d(512, 513, Mode::valid)), 10.0);
  EXPECT_EQ(round_off_depth(one_d(512, 514, Mode::valid)), 11.0);
  EXPECT_EQ(round_off_depth(two_d({64, 48}, {7, 4}, Mode::same)), 12.0) << "70 x 51 = 3570";
  // A filter of 2^20 taps: its sums round more than the 21 levels of its transforms.
  EXPECT_EQ(round_off_depth(one_d(100, std::int64_t{1} << 20, Mode::valid)), 256.0);
  EXPECT_EQ(round_off_depth(two_d({2000, 2000}, {1024, 1024}, Mode::valid)), 256.0);
  EXPECT_EQ(tolerance<float>(one_d(10, 4, Mode::same)), 8 * 4 * double(FLT_EPSILON));
  EXPECT_EQ(tolerance<double>(one_d(10, 4, Mode::same)), 8 * 4 * DBL_EPSILON);
  // The sizes the GPU tests take stay inside the bounds they had before the rule: 2e-5 in float
  // and 1e-12 in double at 300007 samples and 257 taps (19 levels); a 2^30-sample transform gets
  // 2.9e-5 in float.
  const Problem longest_tested = one_d(300007, 257, Mode::same);
  EXPECT_LE(tolerance<float>(longest_tested), 2e-5);
  EXPECT_LE(tolerance<double>(longest_tested), 1e-12);
  EXPECT_NEAR(tolerance<float>(one_d(std::int64_t{1} << 30, 1, Mode::full)), 2.86e-5, 1e-7);
}

TEST(FftconvCheck, JudgesTheLargestDifferenceAgainstTheLargestGold) {
  const Problem p = one_d(100, 5, Mode::full);
  std::vector<double> gold(104);
  for (std::size_t i = 0; i < gold.size(); ++i) gold[i] = std::sin(0.1 * double(i)) * 4.0;
  const double scale = max_magnitude(gold);
  std::vector<float> output = rounded<float>(gold);
  Agreement a = agreement(output, gold, p);
  EXPECT_TRUE(a.passed()) << a.description;
  EXPECT_LE(a.value, 0.5 * FLT_EPSILON * 1.0001) << "rounding to float is half an ulp at most";
  EXPECT_EQ(a.measure, "max_relative_difference");
  EXPECT_NE(a.description.find("max relative to max|gold|"), std::string::npos) << a.description;
  EXPECT_EQ(a.tolerance, tolerance<float>(p));
  // One sample off by a thousandth of the scale: a wrong index is off by far more, and fails.
  output[40] += static_cast<float>(1e-3 * scale);
  a = agreement(output, gold, p);
  EXPECT_FALSE(a.passed());
  EXPECT_NEAR(a.value, 1e-3, 1e-5);
  // A NaN anywhere, an output of the wrong size: never agreement.
  output = rounded<float>(gold);
  output[7] = NAN;
  EXPECT_FALSE(agreement(output, gold, p).passed());
  EXPECT_FALSE(agreement(std::vector<float>(103, 0.0f), gold, p).passed());
  // An all-zero gold has no scale: the difference itself is judged.
  const std::vector<double> zeros(104, 0.0);
  EXPECT_TRUE(agreement(std::vector<float>(104, 1e-30f), zeros, p).passed());
  EXPECT_FALSE(agreement(std::vector<float>(104, 1e-3f), zeros, p).passed());
}

TEST(FftconvCheck, GatheredInPiecesAsWhole) {
  std::vector<double> gold(1000);
  std::vector<float> output(1000);
  std::mt19937_64 engine(test::kSeed);
  std::normal_distribution<double> normal;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    gold[i] = normal(engine);
    output[i] = static_cast<float>(gold[i] * (1 + 1e-6 * normal(engine)));
  }
  GoldDifference whole, pieces;
  whole.add(output.data(), gold);
  for (std::size_t first = 0; first < gold.size(); first += 37) {
    const std::size_t end = std::min(first + 37, gold.size());
    const std::vector<double> part(gold.begin() + first, gold.begin() + end);
    pieces.add(output.data() + first, part);
  }
  EXPECT_EQ(pieces.relative(), whole.relative());
  EXPECT_EQ(pieces.difference().max_abs, whole.difference().max_abs);
  EXPECT_NEAR(pieces.difference().rms, whole.difference().rms, 1e-15);
  EXPECT_GT(whole.relative(), 0.0);
  const Agreement a = whole.agreement(1.0);
  EXPECT_EQ(a.value, whole.relative());
  EXPECT_EQ(a.gold, "the CPU gold (direct sums in double)");
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0].first, "max_abs_difference");
  EXPECT_EQ(a.values[1].first, "rms_difference");
}

// ---------------------------------------------------------------------------------------------
// In parts: the gold by pieces, and a problem cut among ranks (share.hpp).

TEST(FftconvShare, GoldInPiecesIsTheWholeGoldInOrder) {
  const Problem p = one_d(1000, 7, Mode::same);
  const std::vector<double> x = seeded<double>(1000, test::kSeed);
  const std::vector<double> h = seeded<double>(7, test::kSeed + 1);
  const std::vector<double> whole = convolve_gold(p, x, h);
  const SignalReader<double> read = [&](std::int64_t offset, std::int64_t count, double* into) {
    std::copy(x.begin() + offset, x.begin() + offset + count, into);
  };
  std::int64_t next = 100;
  gold_in_pieces<double>(p, h, 100, 750, read,
                         [&](std::int64_t offset, const std::vector<double>& gold) {
                           EXPECT_EQ(offset, next) << "in order, none missed";
                           EXPECT_LE(gold.size(), 64u);
                           for (std::size_t i = 0; i < gold.size(); ++i)
                             ASSERT_EQ(gold[i], whole[offset + i]) << "at " << offset + i;
                           next = offset + static_cast<std::int64_t>(gold.size());
                         },
                         /*piece=*/64);
  EXPECT_EQ(next, 850) << "the pieces end at the range's end";
  int calls = 0;
  gold_in_pieces<double>(p, h, 0, 1000, read,
                         [&](std::int64_t, const std::vector<double>&) { ++calls; });
  EXPECT_EQ(calls, 1) << "kGoldPiece holds this output whole";
  gold_in_pieces<double>(p, h, 500, 0, read,
                         [&](std::int64_t, const std::vector<double>&) { ++calls; });
  EXPECT_EQ(calls, 1) << "an empty range asks for nothing";
}

TEST(FftconvShare, ABatchIsCutInWholeSignalsAsEvenlyAsCanBe) {
  Problem q = one_d(300, 31, Mode::same);
  q.batch = 7;
  const Options asked{Variant::direct, 0};
  const std::int64_t firsts[] = {0, 3, 5}, counts[] = {3, 2, 2};
  for (int rank = 0; rank < 3; ++rank) {
    const Share s = share_of(q, asked, 4, /*gpu=*/false, /*streamed=*/false, rank, 3);
    EXPECT_EQ(s.cut, Cut::batch);
    EXPECT_EQ(s.first, firsts[rank]) << "rank " << rank;
    EXPECT_EQ(s.count, counts[rank]) << "rank " << rank;
    EXPECT_EQ(s.method.variant, Variant::direct);
    EXPECT_FALSE(s.in_memory);
    const Problem part = s.part(q);
    EXPECT_EQ(part.batch, s.count);
    EXPECT_EQ(part.filters, 1) << "one filter for every signal stays one";
  }
  q.filters = 7;
  EXPECT_EQ(share_of(q, asked, 4, false, false, 1, 3).part(q).filters, 2)
      << "a filter each: the share's own";
  // auto is made explicit, so that every share runs what one rank would on the whole batch.
  const Share automatic = share_of(q, {Variant::automatic, 0}, 4, false, false, 0, 2);
  EXPECT_EQ(automatic.method.variant, choose_variant(q, 4));
}

TEST(FftconvShare, ALongSignalIsCutInRangesOfWholeBlocks) {
  // 5000 outputs in blocks of 1024 with 301 taps: 724 outputs a block, 7 blocks, 3 + 2 + 2.
  const Problem q = one_d(5000, 301, Mode::same);
  const Options asked{Variant::overlap_save, 1024};
  std::int64_t end = 0;
  const std::int64_t blocks[] = {3, 2, 2};
  for (int rank = 0; rank < 3; ++rank) {
    const Share s = share_of(q, asked, 4, false, false, rank, 3);
    EXPECT_EQ(s.cut, Cut::range);
    EXPECT_EQ(s.first, end) << "the ranges tile the output, rank " << rank;
    EXPECT_EQ(s.first % 724, 0) << "each starts at a block's first output";
    EXPECT_EQ(s.count, std::min<std::int64_t>(blocks[rank] * 724, 5000 - s.first));
    EXPECT_EQ(s.method.variant, Variant::overlap_save);
    EXPECT_EQ(s.method.block, 1024);
    EXPECT_FALSE(s.in_memory) << "the CPU reads the signal piece by piece";
    end = s.first + s.count;
  }
  EXPECT_EQ(end, 5000);
  // On the GPU, not streamed, overlap-save computes its range from a window held in memory; a
  // streamed run's range, or a variant that does not compute ranges, runs overlap-save from the
  // host.
  EXPECT_TRUE(share_of(q, asked, 4, /*gpu=*/true, false, 0, 3).in_memory);
  EXPECT_FALSE(share_of(q, asked, 4, true, /*streamed=*/true, 0, 3).in_memory);
  const Share direct = share_of(q, {Variant::direct, 1024}, 4, true, false, 0, 3);
  EXPECT_FALSE(direct.in_memory);
  EXPECT_EQ(direct.method.variant, Variant::overlap_save);
  EXPECT_EQ(direct.method.block, 1024);
}

TEST(FftconvShare, WhatCannotBeCutSaysWhy) {
  const auto expect_refused = [](const Problem& q, const Options& o, int ranks,
                                 const std::string& key, const std::string& why) {
    try {
      share_of(q, o, 4, false, false, 0, ranks);
      ADD_FAILURE() << "cut among " << ranks << " ranks: " << why;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << e.what();
      EXPECT_TRUE(contains(e.expected(), why)) << e.expected();
    }
  };
  Problem batch = one_d(300, 31, Mode::same);
  batch.batch = 2;
  expect_refused(batch, {Variant::direct, 0}, 3, "ranks",
                 "2 signals cannot be cut among 3 ranks; run fewer ranks");
  expect_refused(two_d({40, 50}, {5, 7}, Mode::same), {Variant::direct, 0}, 2, "ranks",
                 "one image runs on one rank; a batch of images is cut among ranks");
  expect_refused(one_d(2000, 301, Mode::same), {Variant::overlap_save, 1024}, 4, "ranks",
                 "2000 output samples make 3 overlap-save blocks of 724, too few to cut among 4 "
                 "ranks");
  expect_refused(one_d(5000, 301, Mode::same), {Variant::overlap_save, 100}, 2, "block",
                 "at least the filter length (301), got 100");
}

TEST(FftconvShare, OnOneRankTheAgreementIsTheRanksOwn) {
  const Problem p = one_d(100, 5, Mode::full);
  std::vector<double> gold(104);
  std::vector<float> output(104);
  for (std::size_t i = 0; i < gold.size(); ++i) {
    gold[i] = std::sin(0.1 * double(i));
    output[i] = static_cast<float>(gold[i]) + (i == 17 ? 1e-3f : 0.0f);
  }
  GoldDifference mine;
  mine.add(output.data(), gold);
  comm::Context context;
  const Agreement a = agreement_over_ranks<float>(context, mine, p);
  EXPECT_EQ(a.value, mine.relative());
  EXPECT_EQ(a.tolerance, tolerance<float>(p));
  EXPECT_FALSE(a.passed()) << "1e-3 off is far past float's tolerance";
}

// ---------------------------------------------------------------------------------------------
// Generators.

TEST(FftconvSignals, NoiseIsTheSameWhateverTheBatch) {
  Signal s;
  s.kind = SignalKind::noise;
  s.length = 1000;
  s.batch = 2;
  s.seed = test::kSeed;
  const std::vector<double> two = generate_signal<double>(s);
  s.batch = 5;
  const std::vector<double> five = generate_signal<double>(s);
  ASSERT_EQ(two.size(), 2000u);
  ASSERT_EQ(five.size(), 5000u);
  EXPECT_TRUE(std::equal(two.begin(), two.end(), five.begin()));
  EXPECT_EQ(generate_signal<double>(s), five) << "the same seed must give the same signals";
  EXPECT_FALSE(std::equal(five.begin(), five.begin() + 1000, five.begin() + 1000))
      << "signals differ from one another";
  s.seed += 1;
  EXPECT_NE(generate_signal<double>(s), five);
  // Float is the double signal rounded.
  const std::vector<float> single = generate_signal<float>(s);
  const std::vector<double> twin = generate_signal<double>(s);
  for (std::size_t i = 0; i < single.size(); ++i)
    ASSERT_EQ(single[i], static_cast<float>(twin[i])) << i;
}

// Every sample is the one the definition in signals.hpp gives on its own (counter-based words,
// kernels/seeded_draws.hpp), made on three threads in chunks that cut signals and pairs.
TEST(FftconvSignals, SamplesAreTheirDrawsOneByOne) {
  Signal s;
  s.batch = 3;
  s.rows = 2;
  s.length = (1 << 14) + 7;  // a signal of odd size, past a chunk
  s.amplitude = 1.5;
  s.f0 = 0.01;
  s.f1 = 0.3;
  s.seed = test::kSeed;
  const std::int64_t size = s.rows * s.length;
  for (const SignalKind kind : {SignalKind::noise, SignalKind::chirp}) {
    s.kind = kind;
    s.noise = kind == SignalKind::chirp ? 0.25 : 0.0;
    std::vector<double> x;
    {
      test::Threads t(3);
      x = generate_signal<double>(s);
    }
    s.noise = 0;
    const std::vector<double> clean =
        kind == SignalKind::chirp ? generate_signal<double>(s) : std::vector<double>(x.size());
    const double scale = kind == SignalKind::chirp ? 0.25 : s.amplitude;
    ASSERT_EQ(x.size(), static_cast<std::size_t>(s.batch * size));
    for (std::int64_t b = 0; b < s.batch; ++b) {
      const CounterDraws draws(s.seed, static_cast<std::uint64_t>(b));
      for (std::int64_t i = 0; i < size; ++i) {
        const auto q = static_cast<std::uint64_t>(i / 2);
        const SeededDraws::Pair pair = SeededDraws::normal_pair(draws.word(2 * q),
                                                                draws.word(2 * q + 1));
        const auto at = static_cast<std::size_t>(b * size + i);
        ASSERT_EQ(x[at], clean[at] + scale * (i % 2 == 0 ? pair.first : pair.second))
            << name(kind) << " " << b << " " << i;
      }
    }
  }
}

// A stretch drawn alone is the same samples of the whole, at any cut (pairs and signals split)
// and with any thread count: what a rank's signals, a rank's range or a streamed piece takes.
TEST(FftconvSignals, AStretchDrawnAloneIsThoseSamplesOfTheWhole) {
  Signal s;
  s.batch = 4;
  s.length = 5001;
  s.f0 = 0.02;
  s.f1 = 0.2;
  s.noise = 0.1;
  s.seed = test::kSeed;
  for (const SignalKind kind : {SignalKind::noise, SignalKind::chirp}) {
    s.kind = kind;
    const std::vector<float> whole = generate_signal<float>(s);
    // Uneven cuts: odd starts, a single sample, a stretch across two signals, the last sample.
    const std::int64_t cuts[] = {0, 1, 2, 7, 4999, 5002, 5003, 12345, 19999, 20000, 20004};
    for (const int threads : {1, 2, 3}) {
      test::Threads t(threads);
      for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
        const std::int64_t first = cuts[c], count = cuts[c + 1] - first;
        std::vector<float> alone(static_cast<std::size_t>(count));
        generate_samples(s, first, count, alone.data());
        EXPECT_TRUE(std::equal(alone.begin(), alone.end(), whole.begin() + first))
            << name(kind) << ": samples [" << first << ", " << first + count << "), " << threads
            << " threads";
      }
      const std::vector<float> middle = generate_signals<float>(s, 1, 2);
      EXPECT_TRUE(std::equal(middle.begin(), middle.end(), whole.begin() + s.length))
          << name(kind) << ": signals 1 and 2 alone, " << threads << " threads";
    }
  }
}

TEST(FftconvSignals, NoiseHasTheAmplitudeAsStandardDeviation) {
  Signal s;
  s.kind = SignalKind::noise;
  s.rows = 100;
  s.length = 1000;
  s.amplitude = 2.0;
  s.seed = test::kSeed;
  const std::vector<double> x = generate_signal<double>(s);
  ASSERT_EQ(x.size(), 100000u);
  const double n = static_cast<double>(x.size());
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double var = 0;
  for (const double v : x) var += (v - mean) * (v - mean) / n;
  // 10^5 draws: the mean's standard error is 2 / 316, the variance's 4 sqrt(2 / 10^5).
  EXPECT_NEAR(mean, 0.0, 4 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(var, 4.0, 4 * 4.0 * std::sqrt(2.0 / n));
}

TEST(FftconvSignals, ChirpFollowsItsPhaseLaw) {
  Signal s;
  s.kind = SignalKind::chirp;
  s.length = 1 << 20;
  s.amplitude = 1.5;
  s.f0 = 0.05;
  s.f1 = 0.45;
  const std::vector<double> x = generate_signal<double>(s);
  constexpr double kTwoPi = 6.283185307179586;
  for (const std::int64_t t : {std::int64_t{0}, std::int64_t{1}, std::int64_t{777},
                               std::int64_t{1} << 19, (std::int64_t{1} << 20) - 1}) {
    const double time = static_cast<double>(t);
    const double cycles = 0.05 * time + 0.4 * time * time / (2.0 * (1 << 20));
    EXPECT_NEAR(x[static_cast<std::size_t>(t)], 1.5 * std::cos(kTwoPi * cycles), 1e-6) << t;
  }
  EXPECT_EQ(x[0], 1.5);
  // Noise added to every sample: the difference is that noise, the same for any f0 and f1.
  s.noise = 0.25;
  const std::vector<double> noisy = generate_signal<double>(s);
  s.kind = SignalKind::noise;
  s.amplitude = 0.25;
  const std::vector<double> noise = generate_signal<double>(s);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_NEAR(noisy[i] - x[i], noise[i], 1e-12) << i;
  // 2D: every row is the chirp along its length.
  s = Signal();
  s.kind = SignalKind::chirp;
  s.rows = 3;
  s.length = 64;
  const std::vector<double> image = generate_signal<double>(s);
  EXPECT_TRUE(std::equal(image.begin(), image.begin() + 64, image.begin() + 128));
}

TEST(FftconvSignals, FiltersSumToOneAndAreSymmetric) {
  Filter f;
  f.kind = FilterKind::gaussian;
  f.length = 255;
  f.sigma = 20;
  const std::vector<double> g = generate_filter<double>(f);
  ASSERT_EQ(g.size(), 255u);
  EXPECT_NEAR(std::accumulate(g.begin(), g.end(), 0.0), 1.0, 1e-14);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i], g[g.size() - 1 - i]) << i;
  EXPECT_EQ(std::max_element(g.begin(), g.end()) - g.begin(), 127);
  // One sigma from the centre the taps are exp(-1/2) of the peak.
  EXPECT_NEAR(g[147] / g[127], std::exp(-0.5), 1e-14);
  // sigma 0: a sixth of the taps.
  f.sigma = 0;
  f.length = 61;
  EXPECT_EQ(gaussian_sigma(f, 61), 61.0 / 6);
  const std::vector<double> wide = generate_filter<double>(f);
  EXPECT_NEAR(wide[30 + 10] / wide[30], std::exp(-0.5 * std::pow(10 / (61.0 / 6), 2)), 1e-14);
  // A sigma far below a tap is an impulse, not 0 / 0; with an even count, two halves.
  f.sigma = 1e-3;
  f.length = 5;
  EXPECT_EQ(generate_filter<double>(f), (std::vector<double>{0, 0, 1, 0, 0}));
  f.length = 4;
  EXPECT_EQ(generate_filter<double>(f), (std::vector<double>{0, 0.5, 0.5, 0}));

  f.kind = FilterKind::box;
  f.length = 8;
  EXPECT_EQ(generate_filter<double>(f), std::vector<double>(8, 0.125));
}

TEST(FftconvSignals, TwoDimensionalFiltersAreSeparableProducts) {
  Filter f;
  f.kind = FilterKind::gaussian;
  f.rows = 7;
  f.length = 11;
  f.sigma = 2;
  const std::vector<double> g = generate_filter<double>(f);
  ASSERT_EQ(g.size(), 77u);
  const std::vector<double> down = gaussian_taps(7, 2), across = gaussian_taps(11, 2);
  for (std::size_t r = 0; r < 7; ++r)
    for (std::size_t c = 0; c < 11; ++c) EXPECT_EQ(g[r * 11 + c], down[r] * across[c]);
  EXPECT_NEAR(std::accumulate(g.begin(), g.end(), 0.0), 1.0, 1e-14);
  f.kind = FilterKind::box;
  f.rows = 2;
  f.length = 4;
  EXPECT_EQ(generate_filter<float>(f), std::vector<float>(8, 0.125f));
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

TEST(FftconvParams, DefaultsAreValid) {
  EXPECT_NO_THROW(Params().validate());
  Params p;
  p.signal.source = Source::file;
  p.signal.file = "x.h5";
  p.filter.kind = FilterKind::file;
  p.filter.file = "h.h5";
  EXPECT_NO_THROW(p.validate());
  // A file's sizes are unknown here: a 2D-looking generated filter is not judged against it.
  p.variant = Variant::overlap_save;
  EXPECT_NO_THROW(p.validate());
}

TEST(FftconvParams, BadValuesNameTheirKey) {
  Params p;
  p.signal.length = 0;
  expect_bad_params(p, "signal.length", "expected a positive integer, got 0");
  p = Params();
  p.signal.batch = -1;
  expect_bad_params(p, "signal.batch", "got -1");
  p = Params();
  p.signal.rows = 0;
  expect_bad_params(p, "signal.rows", "got 0");
  p = Params();
  p.signal.batch = 1 << 21;
  p.signal.length = 1 << 20;
  expect_bad_params(p, "signal", "at most 2^40 samples");
  p = Params();
  p.signal.amplitude = NAN;
  expect_bad_params(p, "signal.amplitude", "finite");
  p = Params();
  p.signal.kind = SignalKind::chirp;
  p.signal.f1 = 0.6;
  expect_bad_params(p, "signal.f1", "cycles per sample in [0, 0.5], got 0.6");
  p.signal.f1 = 0.5;
  p.signal.f0 = -0.1;
  expect_bad_params(p, "signal.f0", "got -0.1");
  p.signal.f0 = 0;
  p.signal.noise = -1;
  expect_bad_params(p, "signal.noise", "expected a number >= 0, got -1");
  p = Params();
  p.filter.length = 0;
  expect_bad_params(p, "filter.length", "positive");
  p = Params();
  p.filter.sigma = -2;
  expect_bad_params(p, "filter.sigma", "got -2");
  p = Params();
  p.signal.source = Source::file;
  expect_bad_params(p, "signal.file", "HDF5 file");
  p.signal.file = "x.h5";
  p.signal.dataset = "";
  expect_bad_params(p, "signal.dataset", "name of a dataset");
  p = Params();
  p.filter.kind = FilterKind::file;
  expect_bad_params(p, "filter.file", "HDF5 file");
}

// ---------------------------------------------------------------------------------------------
// The fused variant: what it takes, the transform length it runs, and what a build without
// cuFFTDx says.

TEST(FftconvShapes, FusedTakes1DFiltersUpToItsMostTapsAndImagesUpToItsLongestRows) {
  EXPECT_TRUE(supports(Variant::fused, one_d(100, kFusedMostTaps, Mode::full)));
  EXPECT_FALSE(supports(Variant::fused, one_d(100, kFusedMostTaps + 1, Mode::full)));
  EXPECT_TRUE(supports(Variant::fused, two_d({64, 64}, {5, 5}, Mode::same)));
  EXPECT_TRUE(supports(Variant::fused, two_d({3, kFusedMostRowLength - 4}, {5, 5}, Mode::full)));
  EXPECT_FALSE(supports(Variant::fused, two_d({3, kFusedMostRowLength - 3}, {5, 5}, Mode::full)));
  Problem batch = one_d(100, 7, Mode::valid);
  batch.batch = 4;
  batch.filters = 4;
  EXPECT_TRUE(supports(Variant::fused, batch));
}

TEST(FftconvChoice, FusedBlockIsACompiledLengthOrSaysWhyNot) {
  const Problem long_1025 = one_d(1 << 24, 1025, Mode::same);
  if (!fused_compiled_in()) {
    EXPECT_TRUE(fused_block_lengths(4).empty());
    try {
      fused_block(long_1025, Options{Variant::fused, 0}, 4);
      ADD_FAILURE() << "fused ran without cuFFTDx";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "variant");
      EXPECT_TRUE(contains(e.expected(), "not compiled in")) << e.what();
    }
    EXPECT_EQ(choose_variant(long_1025, 4), Variant::overlap_save);
    Params p;
    p.variant = Variant::fused;
    expect_bad_params(p, "method.variant", "not compiled in");
    return;
  }
  const Problem cases[] = {long_1025,
                           one_d(4096, 63, Mode::full),
                           one_d(5, 1, Mode::full),
                           one_d(100, kFusedMostTaps, Mode::valid),
                           one_d(1 << 20, 2, Mode::same),
                           one_d(3, 2000, Mode::same)};
  for (const int bytes : {4, 8}) {
    const std::vector<std::int64_t> lengths = fused_block_lengths(bytes);
    ASSERT_FALSE(lengths.empty());
    EXPECT_TRUE(std::is_sorted(lengths.begin(), lengths.end()));
    EXPECT_GE(lengths.back(), 2 * (kFusedMostTaps - 1));
    for (const Problem& p : cases) {
      const std::int64_t block = fused_block(p, Options{Variant::fused, 0}, bytes);
      EXPECT_NE(std::find(lengths.begin(), lengths.end(), block), lengths.end()) << block;
      EXPECT_GE(block, 2 * (p.filter.cols - 1)) << p.filter.cols << " taps";
      for (const std::int64_t l : lengths) {
        if (l >= p.filter.cols) {
          EXPECT_EQ(fused_block(p, Options{Variant::fused, l}, bytes), l);
          continue;
        }
        try {
          fused_block(p, Options{Variant::fused, l}, bytes);
          ADD_FAILURE() << "accepted a length of " << l << " for " << p.filter.cols << " taps";
        } catch (const InputError& e) {
          EXPECT_EQ(e.key(), "block");
          EXPECT_TRUE(contains(e.expected(), "at least the filter's")) << e.what();
        }
      }
    }
    // With auto a block length not compiled is overlap-save's: fused chooses its own.
    EXPECT_EQ(fused_block(long_1025, Options{Variant::automatic, 1000}, bytes),
              fused_block(long_1025, Options{Variant::fused, 0}, bytes));
    try {
      fused_block(long_1025, Options{Variant::fused, 1000}, bytes);
      ADD_FAILURE() << "accepted a length not compiled in";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "block");
      EXPECT_TRUE(contains(e.expected(), "got 1000")) << e.what();
    }
    // Images: the shortest compiled length that holds the rows' circular length, or the one
    // asked for among those; a length that does not hold them, and rows too long, are refused.
    const Problem image = two_d({64, 1000}, {5, 25}, Mode::full);
    EXPECT_EQ(fused_block(image, Options{Variant::fused, 0}, bytes), 1024);
    EXPECT_EQ(fused_block(image, Options{Variant::fused, 4096}, bytes), 4096);
    EXPECT_EQ(fused_block(image, Options{Variant::automatic, 1000}, bytes), 1024);
    try {
      fused_block(image, Options{Variant::fused, 1000}, bytes);
      ADD_FAILURE() << "accepted a length not compiled in";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "block");
      EXPECT_TRUE(contains(e.expected(), "(at least 1024), got 1000")) << e.what();
    }
    try {
      fused_block(two_d({64, 4096}, {5, 5}, Mode::full), Options{Variant::fused, 0}, bytes);
      ADD_FAILURE() << "accepted an image whose rows need 4100 points";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "variant");
      EXPECT_TRUE(contains(e.expected(), "these need 4100")) << e.what();
    }
  }
  // overlap-save's choice for 1025 taps (8192) where it is compiled; auto takes fused past the
  // direct sums' crossover, and direct below it.
  // A long signal with 1025 taps: 4096 (5462 blocks of 4096 at 1.15 a point, against 2341 of
  // 8192 at 1.65 or 16384 of 2048 at 1); a batch of short signals with a short filter: the
  // shortest length, five blocks a signal (5 x 1024 against 3 x 2048 or 2 x 4096 x 1.15).
  const std::vector<std::int64_t> floats = fused_block_lengths(4);
  if (std::find(floats.begin(), floats.end(), 4096) != floats.end()) {
    EXPECT_EQ(fused_block(long_1025, Options{Variant::fused, 0}, 4), 4096);
  }
  if (std::find(floats.begin(), floats.end(), 1024) != floats.end()) {
    Problem short_signals = one_d(4096, 63, Mode::full);
    short_signals.batch = 4096;
    EXPECT_EQ(fused_block(short_signals, Options{Variant::fused, 0}, 4), 1024);
  }
  EXPECT_EQ(choose_variant(long_1025, 4), Variant::fused);
  EXPECT_EQ(choose_variant(one_d(1 << 24, 63, Mode::same), 4), Variant::fused);
  EXPECT_EQ(choose_variant(one_d(1 << 24, 3, Mode::same), 4), Variant::direct);
  // Images past the direct sums' crossover: fused where its rows are no longer than r2c's.
  const Variant image_fft = fused_compiled_in() ? Variant::fused : Variant::r2c;
  EXPECT_EQ(choose_variant(two_d({4096, 4096}, {31, 31}, Mode::same), 4), image_fft);
  EXPECT_EQ(choose_variant(two_d({4096, 4096}, {31, 31}, Mode::valid), 4), image_fft);
  EXPECT_EQ(choose_variant(two_d({4096, 4096}, {31, 31}, Mode::full), 4), Variant::r2c);
  EXPECT_EQ(choose_variant(two_d({1000, 1000}, {31, 31}, Mode::same), 4), image_fft);
  EXPECT_EQ(choose_variant(two_d({1000, 2100}, {31, 31}, Mode::same), 4), Variant::r2c);
  EXPECT_EQ(choose_variant(two_d({4096, 4096}, {7, 7}, Mode::same), 4), Variant::direct);

  Params p;
  p.variant = Variant::fused;
  EXPECT_NO_THROW(p.validate());
  p.block = 1000;
  expect_bad_params(p, "method.block", "fused runs transform lengths");
  p.block = 0;
  p.signal.rows = 64;
  p.signal.length = 64;
  if (fused_compiled_in()) {
    EXPECT_NO_THROW(p.validate());
    p.signal.length = 4096;
    expect_bad_params(p, "method.variant", "fused takes images whose rows need");
  } else {
    expect_bad_params(p, "method.variant", "not compiled in");
  }
}

// A batch cut among ranks runs what auto chose for the whole batch, made explicit: with a block
// length fused does not compile, auto's fallback (fused picks its own length) must hold there
// too, so the explicit options run where the single-rank auto run does.
TEST(FftconvChoice, ChosenOptionsAreWhatAutoRuns) {
  Problem batch = one_d(4096, 1025, Mode::same);
  batch.batch = 4096;
  for (const int bytes : {4, 8}) {
    for (const std::int64_t block : {std::int64_t{0}, std::int64_t{1000}, std::int64_t{2048}}) {
      SCOPED_TRACE(std::to_string(bytes) + " bytes, block " + std::to_string(block));
      const Options o{Variant::automatic, block};
      const Options chosen = chosen_options(batch, o, bytes);
      EXPECT_EQ(chosen.variant, choose_variant(batch, bytes));
      if (chosen.variant == Variant::fused) {
        // The explicit fused options are accepted, and run auto's length.
        EXPECT_EQ(chosen.block, fused_block(batch, o, bytes));
        EXPECT_NO_THROW(fused_block(batch, chosen, bytes));
        const std::vector<std::int64_t> lengths = fused_block_lengths(bytes);
        EXPECT_NE(std::find(lengths.begin(), lengths.end(), chosen.block), lengths.end());
      } else if (chosen.variant == Variant::overlap_save) {
        EXPECT_EQ(chosen.block, block);
      } else {
        EXPECT_EQ(chosen.block, 0);
      }
    }
    // A variant named is kept as it is, block and all.
    const Options named{Variant::fused, 1000};
    EXPECT_EQ(chosen_options(batch, named, bytes).variant, Variant::fused);
    EXPECT_EQ(chosen_options(batch, named, bytes).block, 1000);
    // Below the direct sums' crossover auto takes direct, which takes no block.
    const Options direct = chosen_options(one_d(4096, 3, Mode::same), {Variant::automatic, 1000},
                                          bytes);
    EXPECT_EQ(direct.variant, Variant::direct);
    EXPECT_EQ(direct.block, 0);
  }
  if (fused_compiled_in()) {
    EXPECT_EQ(chosen_options(batch, {Variant::automatic, 1000}, 4).variant, Variant::fused);
  }
}

// fused pairs blocks of the flattened (signal, block) list in one transform: a batch cut among
// ranks keeps pairs of signals together exactly when a signal has an odd count of blocks, with
// one filter; any other variant, or a filter per signal, cuts anywhere.
TEST(FftconvChoice, BatchCutKeepsFusedPairsOfSignals) {
  for (const int bytes : {4, 8}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    Problem batch = one_d(3000, 401, Mode::same);
    batch.batch = 10;
    for (const Variant v : {Variant::direct, Variant::r2c, Variant::overlap_save})
      EXPECT_EQ(batch_cut_unit(batch, {v, 0}, bytes), 1);
    if (!fused_compiled_in()) continue;
    for (const std::int64_t block : fused_block_lengths(bytes)) {
      if (block < 2 * 400) continue;
      SCOPED_TRACE("block " + std::to_string(block));
      const Options fused{Variant::fused, block};
      const std::int64_t step = block - 400;
      const std::int64_t blocks = (output_extent(batch).cols + step - 1) / step;
      EXPECT_EQ(batch_cut_unit(batch, fused, bytes), blocks % 2 == 1 ? 2 : 1);
      Problem per_signal = batch;
      per_signal.filters = batch.batch;
      EXPECT_EQ(batch_cut_unit(per_signal, fused, bytes), 1);
    }
    // An odd count and an even count of blocks a signal, at the same transform length.
    const std::int64_t block = fused_block_lengths(bytes).front();
    const std::int64_t step = block - 400;
    Problem odd = one_d(3 * step, 401, Mode::full);
    odd.signal.cols = 3 * step - 400;  // full output: 3 * step samples, 3 blocks
    odd.batch = 5;
    EXPECT_EQ(batch_cut_unit(odd, {Variant::fused, block}, bytes), 2);
    Problem even = odd;
    even.signal.cols = 4 * step - 400;
    EXPECT_EQ(batch_cut_unit(even, {Variant::fused, block}, bytes), 1);
  }
}

TEST(FftconvParams, MethodChecksNameTheirKey) {
  Params p;
  p.block = -4;
  expect_bad_params(p, "method.block", "got -4");
  p.block = 64;
  p.variant = Variant::r2c;
  expect_bad_params(p, "method.block", "only overlap-save and fused take a block length");
  p.variant = Variant::overlap_save;
  p.filter.length = 100;
  expect_bad_params(p, "method.block", "at least the filter's 100 taps, got 64");
  p.block = 128;
  EXPECT_NO_THROW(p.validate());

  p = Params();
  p.piece = 1 << 20;
  expect_bad_params(p, "method.piece", "only a streamed run");
  p.streamed = true;
  EXPECT_NO_THROW(p.validate());
  p.piece = -1;
  expect_bad_params(p, "method.piece", "got -1");
  p.piece = 0;
  p.variant = Variant::c2c;
  expect_bad_params(p, "method.variant", "a streamed run is overlap-save");
  p.variant = Variant::automatic;
  p.signal.batch = 2;
  expect_bad_params(p, "method.streamed", "one 1D signal and one 1D filter; got 2 of");
  p.signal.batch = 1;
  p.filter.rows = 3;
  expect_bad_params(p, "method.streamed", "3 x 31 taps");

  p = Params();
  p.variant = Variant::overlap_save;
  p.signal.rows = 64;
  p.signal.length = 64;
  expect_bad_params(p, "method.variant",
                    "overlap-save takes 1D problems only; the signal is 64 x 64");
  p.variant = Variant::direct;
  EXPECT_NO_THROW(p.validate());
  p.mode = Mode::valid;
  p.filter.rows = 65;
  expect_bad_params(p, "problem.mode", "valid needs one operand");
}

TEST(FftconvParams, NamesConvertBothWays) {
  for (const Source s : kSources) EXPECT_EQ(parse_source(name(s)), s);
  for (const SignalKind k : kSignalKinds) EXPECT_EQ(parse_signal_kind(name(k)), k);
  for (const FilterKind k : kFilterKinds) EXPECT_EQ(parse_filter_kind(name(k)), k);
  EXPECT_EQ(parse_precision("double"), Precision::double_);
  EXPECT_EQ(name(Precision::single), "float");
  EXPECT_EQ(parse_layout("image"), Layout::image);
  try {
    parse_signal_kind("sine");
    ADD_FAILURE() << "accepted \"sine\"";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "signal kind \"sine\" is not one of \"noise\", \"chirp\""))
        << e.what();
  }
  EXPECT_THROW(parse_layout("rows"), InputError);
}

}  // namespace
}  // namespace parasol::fftconv
