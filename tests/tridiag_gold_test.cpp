// The tridiag gold solver against exact answers: it judges every GPU variant, so it is judged
// first. Systems with a known solution, both layouts, the smallest size, the failures it must
// report, the heat march against the exact decay of a sine mode, and the parameter checks. Then
// the one agreement with the gold (check.hpp) and the heat diagnostics a run reports, the systems
// cut among ranks and a run's numbers made the whole run's (run.hpp), and the launches a sweep
// times (sweep.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "kernels/error.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/run.hpp"
#include "solvers/tridiag/run_part.hpp"
#include "solvers/tridiag/sweep.hpp"
#include "solvers/tridiag/tridiag.hpp"
#include "tests/support.hpp"

namespace parasol::tridiag {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

using test::contains;

// d = A x for a known x, in double, so the gold must give x back.
std::vector<double> random_x(const Dims& dims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(dims.size()));
  for (double& v : x) v = u(rng);
  return x;
}

template <class T>
std::vector<double> multiply(const Batch<T>& batch, const std::vector<double>& x) {
  const Dims& dims = batch.dims;
  std::vector<double> d(x.size());
  for (std::int64_t m = 0; m < dims.systems; ++m)
    for (std::int64_t i = 0; i < dims.n; ++i) {
      const auto k = static_cast<std::size_t>(dims.index(m, i));
      double sum = static_cast<double>(batch.b[k]) * x[k];
      if (i > 0)
        sum += static_cast<double>(batch.a[k]) * x[static_cast<std::size_t>(dims.index(m, i - 1))];
      if (i < dims.n - 1)
        sum += static_cast<double>(batch.c[k]) * x[static_cast<std::size_t>(dims.index(m, i + 1))];
      d[k] = sum;
    }
  return d;
}

using test::max_abs_difference;

// The message a NumericalError carries, or a failure when none was thrown.
template <class T>
NumericalError solve_failure(const Batch<T>& batch) {
  try {
    solve_gold(batch);
  } catch (const NumericalError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a NumericalError";
  return NumericalError(-1, "none");
}

TEST(TridiagGold, RecoversAKnownSolution) {
  SCOPED_TRACE(test::kSeed);
  for (const Layout layout : {Layout::contiguous, Layout::interleaved})
    for (const std::int64_t n : {1, 2, 3, 17, 1000})
      for (const std::int64_t systems : {1, 5}) {
        const Dims dims{n, systems, layout};
        Batch<double> batch = random_batch<double>(dims, test::kSeed);
        const std::vector<double> x = random_x(dims, test::kSeed + 1);
        batch.d = multiply(batch, x);
        // Every row has |b| >= |a| + |c| + 1, so cond(A) <= 6: double round-off stays near 1e-15.
        EXPECT_LE(max_abs_difference(solve_gold(batch), x), 1e-12)
            << name(layout) << " n " << n << " systems " << systems;
      }
}

TEST(TridiagGold, RecoversAKnownSolutionFromFloatCoefficients) {
  const Dims dims{300, 4, Layout::contiguous};
  Batch<float> batch = random_batch<float>(dims, test::kSeed);
  const std::vector<double> x = random_x(dims, test::kSeed + 1);
  const std::vector<double> d = multiply(batch, x);
  // d rounded to float moves x by at most |A^-1| |d| eps/2 <= 6 eps/2 (|A^-1| <= 1, as every
  // row's dominance margin is at least 1; |d| <= |a| + |b| + |c| <= 6): the rest is double.
  for (std::size_t k = 0; k < d.size(); ++k) batch.d[k] = static_cast<float>(d[k]);
  EXPECT_LE(max_abs_difference(solve_gold(batch), x), 3 * std::numeric_limits<float>::epsilon());
}

TEST(TridiagGold, RandomBatchesAreDominantAndAlikeInBothLayouts) {
  const Dims contiguous{37, 6, Layout::contiguous};
  const Dims interleaved{37, 6, Layout::interleaved};
  const Batch<float> c = random_batch<float>(contiguous, test::kSeed);
  const Batch<float> i = random_batch<float>(interleaved, test::kSeed);
  int negative = 0;
  for (std::int64_t m = 0; m < contiguous.systems; ++m)
    for (std::int64_t r = 0; r < contiguous.n; ++r) {
      const auto kc = static_cast<std::size_t>(contiguous.index(m, r));
      const auto ki = static_cast<std::size_t>(interleaved.index(m, r));
      EXPECT_EQ(c.a[kc], i.a[ki]);
      EXPECT_EQ(c.b[kc], i.b[ki]);
      EXPECT_EQ(c.c[kc], i.c[ki]);
      EXPECT_EQ(c.d[kc], i.d[ki]);
      EXPECT_GE(std::abs(c.b[kc]), std::abs(c.a[kc]) + std::abs(c.c[kc]) + 0.999f);
      EXPECT_LE(std::abs(c.d[kc]), 1.0f);
      negative += c.b[kc] < 0;
    }
  for (std::int64_t m = 0; m < contiguous.systems; ++m) {
    EXPECT_EQ(c.a[static_cast<std::size_t>(contiguous.index(m, 0))], 0.0f);
    EXPECT_EQ(c.c[static_cast<std::size_t>(contiguous.index(m, contiguous.n - 1))], 0.0f);
  }
  // Signs mixed: about half of 222 rows.
  EXPECT_GT(negative, 60);
  EXPECT_LT(negative, 162);
  // Another seed, other systems.
  EXPECT_NE(random_batch<float>(contiguous, test::kSeed + 1).d, c.d);
}

// Every row is the one the definition in tridiag.hpp gives on its own (counter-based words,
// kernels/seeded_draws.hpp), whatever the threads, and any systems drawn alone (first_system)
// are those systems of the whole batch, in either layout.
template <class T>
void expect_random_rows_are_their_draws() {
  const Dims dims{1001, 9, Layout::contiguous};  // rows past a chunk of 2^12, cut mid-system
  Batch<T> whole;
  {
    test::Threads t(3);
    whole = random_batch<T>(dims, test::kSeed);
  }
  const CounterDraws draws(test::kSeed, 0);
  for (std::int64_t m = 0; m < dims.systems; ++m)
    for (std::int64_t i = 0; i < dims.n; ++i) {
      const std::uint64_t w = 5 * static_cast<std::uint64_t>(m * dims.n + i);
      const T a = i == 0 ? T(0) : static_cast<T>(2 * SeededDraws::unit_of(draws.word(w)) - 1);
      const T c = i == dims.n - 1 ? T(0)
                                  : static_cast<T>(2 * SeededDraws::unit_of(draws.word(w + 1)) - 1);
      const double magnitude = std::abs(static_cast<double>(a)) +
                               std::abs(static_cast<double>(c)) + 1 +
                               SeededDraws::unit_of(draws.word(w + 2));
      const bool negative = (draws.word(w + 3) >> 63) != 0;
      const auto k = static_cast<std::size_t>(dims.index(m, i));
      ASSERT_EQ(whole.a[k], a) << m << " " << i;
      ASSERT_EQ(whole.b[k], static_cast<T>(negative ? -magnitude : magnitude)) << m << " " << i;
      ASSERT_EQ(whole.c[k], c) << m << " " << i;
      ASSERT_EQ(whole.d[k], static_cast<T>(2 * SeededDraws::unit_of(draws.word(w + 4)) - 1))
          << m << " " << i;
    }
  // Uneven shares of the systems, in the interleaved layout too.
  const std::int64_t cuts[] = {0, 1, 4, 5, 9};
  for (const Layout layout : {Layout::contiguous, Layout::interleaved}) {
    const Batch<T> all = random_batch<T>({dims.n, dims.systems, layout}, test::kSeed);
    for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
      const Dims part{dims.n, cuts[c + 1] - cuts[c], layout};
      const Batch<T> alone = random_batch<T>(part, test::kSeed, cuts[c]);
      for (std::int64_t m = 0; m < part.systems; ++m)
        for (std::int64_t i = 0; i < dims.n; ++i) {
          const auto k = static_cast<std::size_t>(part.index(m, i));
          const auto at = static_cast<std::size_t>(all.dims.index(cuts[c] + m, i));
          ASSERT_EQ(alone.a[k], all.a[at]) << cuts[c] << " " << m << " " << i;
          ASSERT_EQ(alone.b[k], all.b[at]) << cuts[c] << " " << m << " " << i;
          ASSERT_EQ(alone.c[k], all.c[at]) << cuts[c] << " " << m << " " << i;
          ASSERT_EQ(alone.d[k], all.d[at]) << cuts[c] << " " << m << " " << i;
        }
    }
  }
}

TEST(TridiagGold, RandomRowsAreTheirDrawsAndSystemsAreDrawnAlone) {
  expect_random_rows_are_their_draws<float>();
  expect_random_rows_are_their_draws<double>();
}

TEST(TridiagGold, BothLayoutsGiveTheSameSolution) {
  const Dims contiguous{129, 7, Layout::contiguous};
  const Dims interleaved{129, 7, Layout::interleaved};
  const std::vector<double> xc = solve_gold(random_batch<double>(contiguous, test::kSeed));
  const std::vector<double> xi = solve_gold(random_batch<double>(interleaved, test::kSeed));
  for (std::int64_t m = 0; m < contiguous.systems; ++m)
    for (std::int64_t r = 0; r < contiguous.n; ++r)
      // The same arithmetic in the same order, only stored elsewhere: bit for bit.
      ASSERT_EQ(xc[static_cast<std::size_t>(contiguous.index(m, r))],
                xi[static_cast<std::size_t>(interleaved.index(m, r))])
          << "system " << m << " row " << r;
}

TEST(TridiagGold, OneRowIsADivisionAndTheEndsAreIgnored) {
  Batch<double> batch;
  batch.dims = {1, 3, Layout::contiguous};
  batch.a = {kNaN, 7, -1};  // a of a first row and c of a last row are outside the matrix
  batch.b = {2, -4, 0.5};
  batch.c = {kNaN, 1e300, 3};
  batch.d = {1, 2, -3};
  EXPECT_EQ(solve_gold(batch), (std::vector<double>{0.5, -0.5, -6}));

  // Two rows, solved by hand: 2 x0 + 1 x1 = 4, 1 x0 + 3 x1 = 7 -> x = (1, 2).
  Batch<double> two;
  two.dims = {2, 1, Layout::contiguous};
  two.a = {kNaN, 1};
  two.b = {2, 3};
  two.c = {1, kNaN};
  two.d = {4, 7};
  const std::vector<double> x = solve_gold(two);
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 2.0, 1e-15);
}

TEST(TridiagGold, ZeroPivotNamesTheSystemAndRow) {
  const Dims dims{6, 5, Layout::interleaved};
  Batch<double> batch = random_batch<double>(dims, test::kSeed);
  batch.b[static_cast<std::size_t>(dims.index(2, 0))] = 0;
  NumericalError e = solve_failure(batch);
  EXPECT_EQ(e.system(), 2);
  EXPECT_STREQ(e.what(), "system 2: zero pivot at row 0");

  // A pivot that cancels to exactly 0 further down: b1 - a1 c0 / b0 = 1 - 1 * 1 / 1.
  batch = random_batch<double>(dims, test::kSeed);
  const auto at = [&](std::int64_t m, std::int64_t r) { return static_cast<std::size_t>(dims.index(m, r)); };
  batch.b[at(3, 0)] = 1;
  batch.c[at(3, 0)] = 1;
  batch.a[at(3, 1)] = 1;
  batch.b[at(3, 1)] = 1;
  e = solve_failure(batch);
  EXPECT_EQ(e.system(), 3);
  EXPECT_STREQ(e.what(), "system 3: zero pivot at row 1");
}

TEST(TridiagGold, NonFiniteValuesNameTheSystemAndRow) {
  const Dims dims{10, 6, Layout::contiguous};
  const auto at = [&](std::int64_t m, std::int64_t r) { return static_cast<std::size_t>(dims.index(m, r)); };
  Batch<float> batch = random_batch<float>(dims, test::kSeed);
  batch.d[at(4, 7)] = std::numeric_limits<float>::quiet_NaN();
  NumericalError e = solve_failure(batch);
  EXPECT_EQ(e.system(), 4);
  EXPECT_STREQ(e.what(), "system 4: non-finite value at row 7");

  // The lowest failing system is the one named, whatever else fails.
  batch.b[at(1, 3)] = std::numeric_limits<float>::infinity();
  batch.b[at(5, 0)] = 0;
  e = solve_failure(batch);
  EXPECT_EQ(e.system(), 1);
  EXPECT_STREQ(e.what(), "system 1: non-finite value at row 3");

  // Finite input that overflows on the way is caught too.
  Batch<double> big;
  big.dims = {2, 1, Layout::contiguous};
  big.a = {0, 1};
  big.b = {1e-300, 1};
  big.c = {1e300, 0};
  big.d = {1e300, 1};
  e = solve_failure(big);
  EXPECT_EQ(e.system(), 0);
  EXPECT_TRUE(contains(e.what(), "non-finite value at row 0")) << e.what();
}

TEST(TridiagGold, RejectsMismatchedArrays) {
  Batch<double> batch = random_batch<double>({4, 2, Layout::contiguous}, test::kSeed);
  batch.d.pop_back();
  EXPECT_THROW(solve_gold(batch), Error);
}

// ---------------------------------------------------------------------------------------------
// The heat problem.

Heat small_heat(std::int64_t points, std::int64_t steps, double lambda, int mode) {
  Heat h;
  h.points = points;
  h.grids = 3;
  h.steps = steps;
  h.lambda = lambda;
  h.mode = mode;
  return h;
}

TEST(TridiagHeat, SineModeDecaysByTheExactFactor) {
  for (const std::int64_t points : {1, 7, 100, 1023})
    for (const int mode : {1, 3, 7})
      for (const double lambda : {0.05, 1.0, 40.0}) {
        const Heat heat = small_heat(points, 6, lambda, mode);
        const double factor = std::pow(sine_decay_per_step(heat), 6.0);
        // Round-off puts a trace of the slow modes in the start; once the mode itself has
        // decayed by more than 1e4 that trace, not the solver, sets the relative error.
        if (factor < 1e-4) continue;
        const std::vector<double> start = heat_initial<double>(heat);
        const std::vector<double> u = march_heat_gold(heat);
        double worst = 0, scale = 0;
        for (std::size_t k = 0; k < u.size(); ++k) {
          worst = std::max(worst, std::abs(u[k] - factor * start[k]));
          scale = std::max(scale, std::abs(factor * start[k]));
        }
        // A sine mode is an eigenvector of the step; only double round-off separates them.
        ASSERT_GT(scale, 0.0);
        EXPECT_LE(worst / scale, 1e-12)
            << "points " << points << " mode " << mode << " lambda " << lambda;
      }
}

TEST(TridiagHeat, DecayFactorMatchesItsClosedForm) {
  // One point: the step is (2 + lambda) u = lambda u_old.
  EXPECT_NEAR(sine_decay_per_step(small_heat(1, 1, 3.0, 1)), 3.0 / 5.0, 1e-15);
  // Many points, mode 1: close to exp(-pi^2 dt) with dt = dx^2 / lambda, dx = 1 / (points + 1).
  const Heat h = small_heat(9999, 1, 100.0, 1);
  const double dt = 1e-8 / 100.0;
  EXPECT_NEAR(sine_decay_per_step(h), std::exp(-kPi * kPi * dt), 1e-12);
}

// The march by the general gold, one solve_gold per step: the reference the factor-once march
// must agree with, ends and all.
std::vector<double> march_by_solve_gold(const Heat& heat) {
  Batch<double> step = heat_matrix<double>(heat, Layout::contiguous);
  std::vector<double> u = heat_initial<double>(heat);
  step.d.resize(u.size());
  for (std::int64_t s = 0; s < heat.steps; ++s) {
    for (std::size_t k = 0; k < u.size(); ++k) {
      const auto row = static_cast<std::int64_t>(k) % heat.points;
      step.d[k] = heat.lambda * u[k] + (row == 0 ? heat.left : 0) +
                  (row == heat.points - 1 ? heat.right : 0);
    }
    u = solve_gold(step);
  }
  return u;
}

TEST(TridiagHeat, MarchMatchesAStepByStepSolveWithEnds) {
  for (const Initial initial : {Initial::random, Initial::step, Initial::sine})
    for (const std::int64_t points : {1, 2, 50}) {
      Heat heat = small_heat(points, 9, 0.3, 2);
      heat.initial = initial;
      heat.left = 1.5;
      heat.right = -0.25;
      heat.seed = test::kSeed;
      const std::vector<double> u = march_heat_gold(heat);
      const std::vector<double> reference = march_by_solve_gold(heat);
      EXPECT_LE(max_abs_difference(u, reference), 1e-13) << name(initial) << " points " << points;
    }
}

TEST(TridiagHeat, StepsZeroReturnsTheStart) {
  Heat heat = small_heat(20, 0, 1.0, 1);
  heat.initial = Initial::random;
  EXPECT_EQ(march_heat_gold(heat), heat_initial<double>(heat));
}

TEST(TridiagHeat, InitialShapes) {
  Heat heat = small_heat(8, 1, 1.0, 2);
  std::vector<float> u = heat_initial<float>(heat);
  ASSERT_EQ(u.size(), 24u);
  // sin(pi * 2 * (j + 1) / 9), the same on every grid.
  for (int g = 0; g < 3; ++g)
    for (int j = 0; j < 8; ++j)
      EXPECT_FLOAT_EQ(u[static_cast<std::size_t>(8 * g + j)],
                      static_cast<float>(std::sin(kPi * 2 * (j + 1) / 9.0)));

  heat.initial = Initial::step;  // x = (j + 1) / 9: 1 for 3/9 <= x <= 6/9, i.e. j = 2 .. 5
  u = heat_initial<float>(heat);
  const std::vector<float> one_grid{0, 0, 1, 1, 1, 1, 0, 0};
  for (int g = 0; g < 3; ++g)
    EXPECT_EQ(std::vector<float>(u.begin() + 8 * g, u.begin() + 8 * g + 8), one_grid);

  heat.initial = Initial::random;
  heat.seed = 42;
  u = heat_initial<float>(heat);
  for (float v : u) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  EXPECT_NE(std::vector<float>(u.begin(), u.begin() + 8), std::vector<float>(u.begin() + 8, u.begin() + 16))
      << "random grids differ";
  EXPECT_EQ(heat_initial<float>(heat), u) << "the same for a seed";
  heat.seed = 43;
  EXPECT_NE(heat_initial<float>(heat), u);
}

TEST(TridiagHeat, MatrixInEitherLayout) {
  const Heat heat = small_heat(5, 1, 0.5, 1);
  for (const Layout layout : {Layout::contiguous, Layout::interleaved}) {
    const Batch<double> m = heat_matrix<double>(heat, layout);
    EXPECT_EQ(m.dims.n, 5);
    EXPECT_EQ(m.dims.systems, 3);
    EXPECT_EQ(m.dims.layout, layout);
    EXPECT_EQ(m.a, std::vector<double>(15, -1.0));
    EXPECT_EQ(m.b, std::vector<double>(15, 2.5));
    EXPECT_EQ(m.c, std::vector<double>(15, -1.0));
    EXPECT_TRUE(m.d.empty());
  }
}

TEST(TridiagHeat, GoldReportsProgressInStretchesAndGivesTheSameAnswer) {
  Heat heat = small_heat(40, 130, 0.7, 2);
  heat.initial = Initial::random;
  heat.seed = test::kSeed;
  std::vector<Progress> reports;
  const std::vector<double> watched =
      march_heat_gold(heat, [&](const Progress& p) { reports.push_back(p); });
  EXPECT_EQ(watched, march_heat_gold(heat));  // the same arithmetic in the same order
  // 130 steps in stretches of 130 / 64 + 1 = 3: 44 reports, the last at step 130.
  ASSERT_EQ(reports.size(), 44u);
  for (std::size_t k = 0; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].steps, std::min<std::int64_t>(3 * static_cast<std::int64_t>(k + 1), 130));
    EXPECT_EQ(reports[k].total_steps, 130);
    if (k > 0) {
      EXPECT_GE(reports[k].seconds, reports[k - 1].seconds);
    }
  }
  heat.steps = 0;
  reports.clear();
  march_heat_gold(heat, [&](const Progress& p) { reports.push_back(p); });
  EXPECT_TRUE(reports.empty()) << "no steps, nothing to report";
}

TEST(TridiagHeat, OneStepAsABatchIsOneStepOfTheMarch) {
  Heat heat = small_heat(30, 1, 0.4, 1);
  heat.initial = Initial::random;
  heat.left = 2;
  heat.right = -1;
  heat.seed = test::kSeed;
  const Batch<double> step = heat_step<double>(heat);
  EXPECT_EQ(step.dims.layout, Layout::contiguous);
  const std::vector<double> u = heat_initial<double>(heat);
  ASSERT_EQ(step.d.size(), u.size());
  for (std::int64_t g = 0; g < heat.grids; ++g) {
    const auto at = [&](std::int64_t j) { return static_cast<std::size_t>(g * 30 + j); };
    EXPECT_EQ(step.d[at(0)], 0.4 * u[at(0)] + 2);
    EXPECT_EQ(step.d[at(13)], 0.4 * u[at(13)]);
    EXPECT_EQ(step.d[at(29)], 0.4 * u[at(29)] - 1);
  }
  EXPECT_LE(max_abs_difference(solve_gold(step), march_heat_gold(heat)), 1e-13);
}

TEST(TridiagHeat, SineAmplitudesProjectOnTheMode) {
  Heat heat = small_heat(50, 1, 1.0, 3);
  // The start is the mode itself: amplitude 1 in every grid.
  for (double a : sine_amplitudes(heat_initial<double>(heat), heat)) EXPECT_NEAR(a, 1.0, 1e-15);
  // Grid g scaled by g - 1, plus another mode, which the projection does not see.
  std::vector<double> u = heat_initial<double>(heat);
  Heat other = heat;
  other.mode = 5;
  const std::vector<double> five = heat_initial<double>(other);
  for (std::size_t k = 0; k < u.size(); ++k)
    u[k] = static_cast<double>(static_cast<std::int64_t>(k) / 50 - 1) * u[k] + 0.3 * five[k];
  const std::vector<double> a = sine_amplitudes(u, heat);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t g = 0; g < 3; ++g) EXPECT_NEAR(a[g], static_cast<double>(g) - 1, 1e-14);
}

TEST(TridiagHeat, SineDecayOfTheGoldMarchIsExact) {
  Heat heat = small_heat(100, 25, 0.2, 3);
  const std::optional<SineDecay> decay = sine_decay(heat, march_heat_gold(heat));
  ASSERT_TRUE(decay.has_value());
  EXPECT_EQ(decay->per_step, sine_decay_per_step(heat));
  EXPECT_NEAR(decay->exact, std::pow(decay->per_step, 25.0), 1e-15);
  EXPECT_NEAR(decay->measured, decay->exact, 1e-12 * decay->exact);
  EXPECT_LE(decay->relative_error, 1e-12);
  // A wrong grid is the worst one, and is the one reported.
  std::vector<double> u = march_heat_gold(heat);
  for (std::size_t j = 100; j < 200; ++j) u[j] *= 1.01;
  const std::optional<SineDecay> off = sine_decay(heat, u);
  ASSERT_TRUE(off.has_value());
  EXPECT_NEAR(off->relative_error, 0.01, 1e-10);
  EXPECT_NEAR(off->measured, 1.01 * off->exact, 1e-10);
  // Only a sine start with both ends at 0 keeps the mode alone.
  for (const auto& change : std::vector<std::function<void(Heat&)>>{
           [](Heat& h) { h.initial = Initial::random; }, [](Heat& h) { h.left = 1; },
           [](Heat& h) { h.right = -0.5; }}) {
    Heat h = heat;
    change(h);
    EXPECT_FALSE(sine_decay(h, march_heat_gold(h)).has_value());
  }
}

// ---------------------------------------------------------------------------------------------
// Agreement with the gold (check.hpp) and layouts.

TEST(TridiagCheck, ConditionBoundIsVarahsBound) {
  Batch<double> batch;
  batch.dims = {3, 1, Layout::contiguous};
  batch.a = {kNaN, 1, -1};  // a of a first row and c of a last row are outside the matrix
  batch.b = {3, -4, 5};
  batch.c = {-1, 1, kNaN};
  batch.d = {0, 0, 0};
  // Row norms 4, 6, 6; margins 2, 2, 4: 6 / 2.
  EXPECT_EQ(condition_bound(batch), 3.0);
  batch.b[1] = 2;  // row 1 no longer dominant: no bound
  EXPECT_TRUE(std::isinf(condition_bound(batch)));
  // The same bound whatever the layout.
  const Batch<float> random = random_batch<float>({40, 6, Layout::contiguous}, test::kSeed);
  EXPECT_EQ(condition_bound(random), condition_bound(relayout(random, Layout::interleaved)));
  EXPECT_GT(condition_bound(random), 1.0);
  EXPECT_LE(condition_bound(random), 6.0);  // |b| >= |a| + |c| + 1 and |a|, |c| <= 1
  // The heat step: (4 + lambda) / lambda with interior rows, 1 for one point.
  EXPECT_NEAR(condition_bound(small_heat(1000, 1, 0.5, 1)), 9.0, 1e-14);
  EXPECT_NEAR(condition_bound(small_heat(2, 1, 0.5, 1)), 3.5 / 1.5, 1e-14);
  EXPECT_EQ(condition_bound(small_heat(1, 1, 0.5, 1)), 1.0);
}

TEST(TridiagCheck, ToleranceIsNoLooserThanTheBoundsItReplaces) {
  // On the tests' random systems (cond <= 6): at most 1e-5 max(1, log2(n) / 4) in float and
  // 1e-12 in double, the bounds the GPU tests used; and at most the 64 ulps x cond x solves the
  // run's check used, for any n a variant solves in one block or a thousand.
  for (std::int64_t n = 1; n <= (std::int64_t{1} << 29); n *= 2)
    for (const std::int64_t m : {n, n + n / 2}) {
      const double log2n = std::log2(static_cast<double>(m));
      EXPECT_LE(tolerance<float>(6, m), 1e-5 * std::max(1.0, log2n / 4)) << m;
      EXPECT_LE(tolerance<double>(6, m), 1e-12) << m;
      EXPECT_LE(tolerance<float>(6, m, 7), 64 * 6 * 7 * std::numeric_limits<float>::epsilon()) << m;
    }
  // Proportional to the condition and the solves; infinite without a bound.
  EXPECT_DOUBLE_EQ(tolerance<double>(40, 1000, 3), 20 * tolerance<double>(6, 1000, 1));
  EXPECT_TRUE(std::isinf(tolerance<float>(std::numeric_limits<double>::infinity(), 10)));
}

TEST(TridiagCheck, AgreementIsRelativeToTheLargestX) {
  const std::vector<double> gold{0.5, -4, 1};
  std::vector<float> x{0.5f, -4.0f, 1.0f};
  Agreement a = agreement(x, gold, 2.0, 3);
  EXPECT_EQ(a.measure, "max_relative_difference");
  EXPECT_EQ(a.value, 0.0);
  EXPECT_TRUE(a.passed());
  EXPECT_EQ(a.tolerance, tolerance<float>(2.0, 3));
  // Off by 1e-3 at the smallest element: 1e-3 / 4 relative, far outside the bound.
  x[0] = 0.501f;
  a = agreement(x, gold, 2.0, 3);
  EXPECT_NEAR(a.value, 0.001 / 4, 1e-8);
  EXPECT_FALSE(a.passed());
  EXPECT_NE(a.description.find("max relative to max|x|"), std::string::npos) << a.description;
  // A NaN never agrees; without a condition bound the difference is reported, not judged.
  x[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(agreement(x, gold, 2.0, 3).passed());
  x = {0.5f, -4.0f, 2.0f};
  a = agreement(x, gold, std::numeric_limits<double>::infinity(), 3);
  EXPECT_FALSE(a.judged());
  EXPECT_TRUE(a.passed());
  // A solve that failed where the gold did not fails, bound or no bound.
  EXPECT_FALSE(failed_solve("system 3: zero pivot").passed());
  EXPECT_EQ(failed_solve("x").measure, "max_relative_difference");
}

TEST(TridiagCheck, RelayoutMovesEachRowToItsPlace) {
  const Dims contiguous{4, 3, Layout::contiguous};
  std::vector<float> v(12);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(k);  // 4 m + i
  const std::vector<float> inter = relayout(v, contiguous, Layout::interleaved);
  // Row i of system m at i * 3 + m.
  EXPECT_EQ(inter, (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  EXPECT_EQ(relayout(inter, {4, 3, Layout::interleaved}, Layout::contiguous), v);
  EXPECT_EQ(relayout(v, contiguous, Layout::contiguous), v);
  // A batch: the same systems, so the same solution once laid back.
  const Batch<double> batch = random_batch<double>({9, 5, Layout::contiguous}, test::kSeed);
  const Batch<double> laid = relayout(batch, Layout::interleaved);
  EXPECT_EQ(laid.dims.layout, Layout::interleaved);
  EXPECT_EQ(relayout(solve_gold(laid), laid.dims, Layout::contiguous), solve_gold(batch));
}

// ---------------------------------------------------------------------------------------------
// Parameters.

TEST(TridiagParams, DefaultsAreValid) {
  EXPECT_NO_THROW(Params{}.validate());
  for (Variant v : kVariants) {
    Params p;
    p.variant = v;
    p.heat.points = 100;
    EXPECT_NO_THROW(p.validate()) << name(v);
  }
}

InputError rejection(const Params& p) {
  try {
    p.validate();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", "", "");
}

void expect_rejected(const Params& p, const std::string& key, const std::string& part = "") {
  const InputError e = rejection(p);
  EXPECT_EQ(e.key(), key) << e.what();
  EXPECT_TRUE(contains(e.what(), part)) << e.what() << "\nexpected to contain: " << part;
}

TEST(TridiagParams, RejectsEachBadValueByItsKey) {
  Params p;
  p.heat.points = 0;
  expect_rejected(p, "heat.points");
  p = Params{};
  p.heat.grids = -1;
  expect_rejected(p, "heat.grids");
  p = Params{};
  p.heat.steps = -1;
  expect_rejected(p, "heat.steps");
  p = Params{};
  p.heat.steps = 0;  // allowed: the start is the answer
  EXPECT_NO_THROW(p.validate());
  for (const double lambda : {0.0, -1.0, std::numeric_limits<double>::infinity(), kNaN}) {
    p = Params{};
    p.heat.lambda = lambda;
    expect_rejected(p, "heat.lambda");
  }
  p = Params{};
  p.heat.mode = 0;
  expect_rejected(p, "heat.mode");
  p = Params{};
  p.heat.left = kNaN;
  expect_rejected(p, "heat.left");
  p = Params{};
  p.heat.right = -std::numeric_limits<double>::infinity();
  expect_rejected(p, "heat.right");
  for (const int threads : {0, 16, 48, 1056, 2048}) {
    p = Params{};
    p.threads = threads;
    expect_rejected(p, "method.threads", std::to_string(threads));
  }
}

TEST(TridiagParams, CountsThatOverflowAreRejected) {
  Params p;
  p.heat.points = std::int64_t{1} << 32;
  p.heat.grids = std::int64_t{1} << 32;  // 2^64: the product itself would overflow
  expect_rejected(p, "heat.grids", "2^40");
  p.heat.points = std::numeric_limits<std::int64_t>::max();
  p.heat.grids = 2;
  expect_rejected(p, "heat.grids");
}

TEST(TridiagParams, ChunkMustSuitTheVariant) {
  Params p;
  p.heat.points = 100;
  p.variant = Variant::pcr_warp;
  for (int chunk : kWarpChunks) {
    p.chunk = chunk;
    if (32 * chunk >= p.heat.points) {
      EXPECT_NO_THROW(p.validate()) << chunk;
    }
  }
  p.chunk = 8;
  expect_rejected(p, "method.chunk", "is not compiled in for pcr-warp; compiled: 1 2 4");
  p.chunk = 2;  // 64 rows: too few for 100 points
  expect_rejected(p, "method.chunk", "at most 64");

  // Every chunk compiled for the variant passes; one that is not (2 is thomas-pcr's, not
  // thomas-scan's) is rejected with the variant's list.
  const struct {
    Variant variant;
    int rejected;
    const char* listed;
  } cases[] = {{Variant::thomas_pcr, 3, "for thomas-pcr; compiled: 2 4 8 16 (rows per thread"},
               {Variant::thomas_scan, 2, "for thomas-scan; compiled: 4 8 16 (rows per thread"}};
  for (const auto& c : cases) {
    p.variant = c.variant;
    for (int chunk : compiled_chunks(c.variant)) {
      p.chunk = chunk;
      EXPECT_NO_THROW(p.validate()) << name(c.variant) << " " << chunk;
    }
    p.chunk = c.rejected;
    expect_rejected(p, "method.chunk", c.listed);
    p.chunk = -1;
    expect_rejected(p, "method.chunk");
  }

  for (Variant v : {Variant::pcr_shared, Variant::thomas}) {
    p.variant = v;
    p.chunk = 0;
    EXPECT_NO_THROW(p.validate());
    p.chunk = 4;
    expect_rejected(p, "method.chunk", std::string(name(v)));
  }
}

TEST(TridiagParams, HeatSizeBeyondAVariantsLimitNamesThePoints) {
  Params p;
  p.variant = Variant::pcr_warp;
  p.heat.points = kPcrWarpMaxRows;
  EXPECT_NO_THROW(p.validate());
  p.heat.points = kPcrWarpMaxRows + 1;
  expect_rejected(p, "heat.points", "pcr-warp solves at most 128");
  p.variant = Variant::pcr_shared;
  p.heat.points = kPcrSharedMaxRows;
  EXPECT_NO_THROW(p.validate());
  p.heat.points = kPcrSharedMaxRows + 1;
  expect_rejected(p, "heat.points", "pcr-shared solves at most 2048");
  // The others take any n.
  for (Variant v : {Variant::thomas_pcr, Variant::thomas, Variant::thomas_scan}) {
    p.variant = v;
    p.heat.points = 1000000;
    EXPECT_NO_THROW(p.validate());
  }
}

TEST(TridiagParams, FileProblemNeedsAFileAndDatasets) {
  Params p;
  p.problem = Problem::file;
  p.heat.points = -5;  // the heat keys are not checked for a file
  expect_rejected(p, "input.file");
  p.input.file = "systems.h5";
  EXPECT_NO_THROW(p.validate());
  p.input.c = "";
  expect_rejected(p, "input.c", "systems.h5");
  // A file's n is not known yet: pcr-warp is checked once the file is read.
  p.input.c = "c";
  p.variant = Variant::pcr_warp;
  EXPECT_NO_THROW(p.validate());
}

TEST(TridiagParams, NamesConvertBothWays) {
  for (Variant v : kVariants) EXPECT_EQ(parse_variant(name(v)), v);
  EXPECT_EQ(name(Variant::pcr_shared), "pcr-shared");
  EXPECT_EQ(name(Variant::thomas_pcr), "thomas-pcr");
  EXPECT_EQ(name(Variant::thomas_scan), "thomas-scan");
  for (Layout l : {Layout::contiguous, Layout::interleaved}) EXPECT_EQ(parse_layout(name(l)), l);
  EXPECT_EQ(parse_precision("float"), Precision::single);
  EXPECT_EQ(parse_precision("double"), Precision::double_);
  EXPECT_EQ(parse_problem("file"), Problem::file);
  for (Initial i : {Initial::sine, Initial::random, Initial::step}) EXPECT_EQ(parse_initial(name(i)), i);
  try {
    parse_variant("pcr_shared");
    ADD_FAILURE() << "a misspelt variant must be rejected";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "\"pcr-shared\"")) << e.what();
  }
}

TEST(TridiagParams, OnlyThomasUsesTheInterleavedLayout) {
  EXPECT_EQ(required_layout(Variant::thomas), Layout::interleaved);
  EXPECT_EQ(required_layout(Variant::pcr_shared), Layout::contiguous);
  EXPECT_EQ(required_layout(Variant::pcr_warp), Layout::contiguous);
  EXPECT_EQ(required_layout(Variant::thomas_pcr), Layout::contiguous);
}

// ---------------------------------------------------------------------------------------------
// Across ranks (run.hpp): each rank's share, and a run's diagnostics and check.

// The one context a process may hold: one rank, as a run without a launcher has.
comm::Context& one_rank() {
  static comm::Context context;
  return context;
}

TEST(TridiagAcrossRanks, SharesAreEvenWholeAndCoverEverySystem) {
  // 10 among 3: the first 10 % 3 ranks one more.
  const std::int64_t begins[] = {0, 4, 7}, ends[] = {4, 7, 10};
  for (int r = 0; r < 3; ++r) {
    const comm::Slab s = system_share(10, r, 3, "heat.grids", "grids");
    EXPECT_EQ(s.begin, begins[r]) << r;
    EXPECT_EQ(s.end, ends[r]) << r;
  }
  const comm::Slab one = system_share(1, 0, 1, "input.file", "systems");
  EXPECT_EQ(one.count(), 1);
  // A rank with nothing to solve is an error naming the key that sized the problem.
  try {
    system_share(2, 0, 3, "input.file", "systems");
    ADD_FAILURE() << "2 systems among 3 ranks must be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "input.file");
    EXPECT_EQ(e.expected(),
              "2 systems cannot be cut among 3 ranks (each needs at least one); run fewer ranks "
              "or more systems");
  }
}

TEST(TridiagAcrossRanks, HeatSharesStartAsTheWholeProblemsGrids) {
  Heat heat = small_heat(9, 4, 0.5, 1);
  heat.grids = 7;
  heat.initial = Initial::random;  // every grid draws its own start
  const std::vector<double> whole = heat_initial<double>(heat);
  std::int64_t next = 0;
  for (int r = 0; r < 3; ++r) {
    const Heat part = heat_share(heat, r, 3);
    EXPECT_EQ(part.first_grid, next);
    EXPECT_EQ(part.points, heat.points);
    EXPECT_EQ(part.steps, heat.steps);
    const std::vector<double> start = heat_initial<double>(part);
    EXPECT_EQ(start, std::vector<double>(whole.begin() + next * heat.points,
                                         whole.begin() + (next + part.grids) * heat.points))
        << r;
    next += part.grids;
  }
  EXPECT_EQ(next, heat.grids);
  try {
    heat_share(heat, 0, 8);
    ADD_FAILURE() << "7 grids among 8 ranks must be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "heat.grids");
    EXPECT_TRUE(contains(e.expected(), "7 grids cannot be cut among 8 ranks")) << e.expected();
  }
}

// A random start's every point is the word the definition in heat.hpp gives it, whatever the
// threads, and uneven shares of the grids drawn alone are those grids of the whole.
TEST(TridiagAcrossRanks, RandomStartsAreTheirDrawsAndSharesAreDrawnAlone) {
  Heat heat = small_heat(10007, 4, 0.5, 1);  // odd grids: chunks of 2^14 points cut them
  heat.grids = 5;
  heat.initial = Initial::random;
  heat.seed = test::kSeed;
  std::vector<float> whole;
  {
    test::Threads t(3);
    whole = heat_initial<float>(heat);
  }
  ASSERT_EQ(whole.size(), static_cast<std::size_t>(heat.grids * heat.points));
  const CounterDraws draws(heat.seed, 0);
  for (std::size_t i = 0; i < whole.size(); ++i)
    ASSERT_EQ(whole[i], static_cast<float>(SeededDraws::unit_of(draws.word(i)))) << i;
  const std::int64_t cuts[] = {0, 2, 3, 5};
  for (const int threads : {1, 2}) {
    test::Threads t(threads);
    for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
      Heat part = heat;
      part.first_grid = cuts[c];
      part.grids = cuts[c + 1] - cuts[c];
      EXPECT_EQ(heat_initial<float>(part),
                std::vector<float>(whole.begin() + cuts[c] * heat.points,
                                   whole.begin() + cuts[c + 1] * heat.points))
          << "grids from " << cuts[c] << ", " << threads << " threads";
    }
  }
}

TEST(TridiagAcrossRanks, DiagnosticsOfARunAndTheirCombination) {
  const Diagnostics file = batch_diagnostics(std::vector<float>{0.5f, -3.0f, 2.0f});
  EXPECT_EQ(file.high, 3.0);
  EXPECT_EQ(file.low, 0.0);
  EXPECT_FALSE(file.has_decay);

  const Heat heat = small_heat(50, 10, 0.5, 2);
  std::vector<double> u = march_heat_gold(heat);
  u[7] *= 1.001;  // grid 0 off the exact decay
  const Diagnostics d = heat_diagnostics(heat, u);
  EXPECT_EQ(d.low, *std::min_element(u.begin(), u.end()));
  EXPECT_EQ(d.high, *std::max_element(u.begin(), u.end()));
  ASSERT_TRUE(d.has_decay);
  EXPECT_EQ(d.decay.relative_error, sine_decay(heat, u)->relative_error);
  EXPECT_GT(d.decay.relative_error, 0.0);

  // The lowest low, the highest high, the decay farthest from exact, whichever rank has each.
  Diagnostics a = d, b = d;
  a.low = -2;
  b.high = 9;
  b.decay.relative_error = 0.25;
  b.decay.measured = 0.5;
  const Diagnostics both = combine({a, b});
  EXPECT_EQ(both.low, -2.0);
  EXPECT_EQ(both.high, 9.0);
  EXPECT_EQ(both.decay.relative_error, 0.25);
  EXPECT_EQ(both.decay.measured, 0.5);
  EXPECT_EQ(combine({b, a}).decay.relative_error, 0.25);
  // On one rank its own are the whole run's.
  const Diagnostics alone = over_ranks(one_rank(), d);
  EXPECT_EQ(alone.low, d.low);
  EXPECT_EQ(alone.high, d.high);
  EXPECT_EQ(alone.decay.measured, d.decay.measured);
}

TEST(TridiagAcrossRanks, OneRanksCheckIsTheAgreementOfItsWholeResult) {
  const Heat heat = small_heat(40, 6, 0.5, 1);
  const std::vector<double> gold = march_heat_gold(heat);
  std::vector<float> u(gold.begin(), gold.end());
  Agreement a = march_agreement(one_rank(), heat, u, gold);
  EXPECT_TRUE(a.passed()) << a.description;
  EXPECT_EQ(a.tolerance, tolerance<float>(condition_bound(heat), heat.points, heat.steps));
  EXPECT_EQ(a.value, agreement(u, gold, condition_bound(heat), heat.points, heat.steps).value);
  u[5] += 0.01f;
  EXPECT_FALSE(march_agreement(one_rank(), heat, u, gold).passed());

  const Batch<double> batch = random_batch<double>({30, 5, Layout::contiguous}, test::kSeed);
  const std::vector<double> x = solve_gold(batch);
  a = batch_agreement(one_rank(), batch, batch.dims.systems, x, x);
  EXPECT_TRUE(a.passed());
  EXPECT_EQ(a.tolerance, tolerance<double>(condition_bound(batch), batch.dims.n));
  std::vector<double> off = x;
  off[12] += 1e-6;
  a = batch_agreement(one_rank(), batch, batch.dims.systems, off, x);
  EXPECT_EQ(a.value, agreement(off, x, condition_bound(batch), batch.dims.n).value);
  EXPECT_FALSE(a.passed());
}

// ---------------------------------------------------------------------------------------------
// The sweep's launches (sweep.hpp).

TEST(TridiagSweep, ListableChunksAreThoseCompiledForSomeVariant) {
  for (int chunk : {0, 1, 2, 4, 8, 16}) EXPECT_TRUE(listable_chunk(chunk)) << chunk;
  for (int chunk : {-1, 3, 32}) EXPECT_FALSE(listable_chunk(chunk)) << chunk;
  EXPECT_EQ(chunks_for(Variant::thomas_pcr, {}), compiled_chunks(Variant::thomas_pcr));
  EXPECT_EQ(chunks_for(Variant::thomas_pcr, {0, 1, 4}), (std::vector<int>{0, 4}));
  EXPECT_EQ(chunks_for(Variant::thomas_scan, {2, 16}), (std::vector<int>{16}));
  // A variant compiled with no chunk takes 0 whatever is listed.
  EXPECT_EQ(chunks_for(Variant::pcr_shared, {4, 8}), (std::vector<int>{0}));
  EXPECT_EQ(chunks_for(Variant::thomas, {}), (std::vector<int>{0}));
}

TEST(TridiagSweep, EachDistinctLaunchOnceWithWhyOthersAreLeftOut) {
  const Dims dims{1000, 8, Layout::contiguous};
  // Every compiled chunk of thomas-pcr at both thread counts resolves; pcr-warp takes at most
  // 128 rows, so it has no row, only why.
  std::vector<Configuration> c = configurations_for(
      {Variant::pcr_warp, Variant::thomas_pcr, Variant::thomas}, {64, 128}, {}, dims, 4);
  ASSERT_EQ(c.size(), 1u + 8u + 2u);
  EXPECT_EQ(c[0].launch.variant, Variant::pcr_warp);
  EXPECT_TRUE(contains(c[0].skipped, "pcr-warp skipped: 64 threads, chunk 1: pcr-warp solves"))
      << c[0].skipped;
  for (std::size_t i = 1; i < c.size(); ++i) {
    EXPECT_TRUE(c[i].skipped.empty()) << i;
    EXPECT_TRUE(c[i].note.empty()) << i;
  }
  EXPECT_EQ(c[1].launch.threads, 64);
  EXPECT_EQ(c[1].launch.chunk, 2);
  EXPECT_EQ(c[8].launch.threads, 128);
  EXPECT_EQ(c[8].launch.chunk, 16);
  EXPECT_EQ(c[9].launch.variant, Variant::thomas);

  // Chunk 0 picks 4 for 1000 rows in 256 threads: the same launch as chunk 4, timed once.
  c = configurations_for({Variant::thomas_pcr}, {256}, {0, 4}, dims, 4);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].launch.chunk, 4);

  // A launch the variant refuses is said once, before its first row.
  c = configurations_for({Variant::thomas_scan}, {256, 1024}, {16}, dims, 4);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].launch.threads, 256);
  EXPECT_EQ(c[0].note,
            "thomas-scan: 1 launch skipped (first: 1024 threads, chunk 16: thomas-scan with chunk "
            "16 in float runs at most 256 threads per block, got 1024)");

  c = configurations_for({Variant::thomas_pcr}, {256}, {1}, dims, 4);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].skipped, "thomas-pcr skipped: no chunk listed for it");
}

// ---------------------------------------------------------------------------------------------
// A run's part without the command line (run_part.hpp): made, solved by the gold, judged, and
// laid out for the result as the front end writes it.

TEST(TridiagRunPart, ARandomBatchSolvedOnTheCpuAgreesWithItsGoldAndSaysWhereItCameFrom) {
  Params p;
  p.problem = Problem::random;
  p.random = {33, 5, 7};
  std::vector<std::string> judged;
  Placement where;
  where.fits = [&](const Footprint& f, const std::string& what, bool device) {
    EXPECT_GT(f.host, 0);
    EXPECT_FALSE(device);
    judged.push_back(what);
  };
  const auto part = RunPart<double>::make(p, where);
  EXPECT_EQ(part->launch_dims().n, 33);
  EXPECT_EQ(part->launch_dims().systems, 5);
  part->fit();
  EXPECT_EQ(judged, (std::vector<std::string>{"5 systems of 33 rows"}));
  EXPECT_EQ(part->what(), "5 systems of 33 rows drawn from seed 7");
  EXPECT_EQ(part->cpu_method(), "CPU gold solver");
  part->solve(one_rank(), {}, {});
  EXPECT_EQ(part->x().size(), 5u * 33u);
  EXPECT_TRUE(part->check(one_rank(), {}).passed());
  const FieldBlock f = part->field();
  EXPECT_EQ(f.dataset, "/fields/x");
  EXPECT_EQ(f.dims, (std::vector<std::uint64_t>{5, 33}));
  EXPECT_EQ(f.count, f.dims);
  const Attributes input = part->input();
  ASSERT_EQ(input.size(), 3u);
  EXPECT_EQ(input[0].first, "seed");
  EXPECT_EQ(std::get<std::int64_t>(input[0].second), 7);
  EXPECT_EQ(part->unknowns(), 5.0 * 33.0);
}

// The march reports its range and the sine mode's decay beside the exact one; its field is u.
TEST(TridiagRunPart, AHeatMarchOnTheCpuReportsItsDecay) {
  Params p;
  p.heat = small_heat(31, 6, 0.5, 1);
  const auto part = RunPart<double>::make(p, Placement{});
  EXPECT_EQ(std::string(part->decomposition()), "whole grids");
  const PhaseTimer t = part->solve(one_rank(), {}, {});
  EXPECT_GE(t.seconds(kSolves), 0);
  EXPECT_TRUE(part->check(one_rank(), {}).passed());
  const Summary s = summary(p, part->diagnostics(), 1, 1, 1e9);
  EXPECT_TRUE(contains(s.first, "u from ")) << s.first;
  ASSERT_EQ(s.more.size(), 1u);
  EXPECT_TRUE(contains(s.more[0], "sine mode 1 decayed by")) << s.more[0];
  ASSERT_EQ(s.diagnostics.size(), 6u);
  EXPECT_EQ(s.diagnostics[2].first, "sine_decay");
  EXPECT_EQ(part->field().dataset, "/fields/u");
  EXPECT_TRUE(part->input().empty());
}

// A share the rank count cannot cut is refused through the caller's `sourced`, naming the key.
TEST(TridiagRunPart, AShareTooSmallForTheRanksNamesItsKeyThroughSourced) {
  Params p;
  p.problem = Problem::random;
  p.random = {8, 2, 1};
  Placement where;
  where.rank = 0;
  where.ranks = 3;
  int sourced = 0;
  where.sourced = [&](const std::function<void()>& step) {
    ++sourced;
    step();
  };
  try {
    RunPart<float>::make(p, where);
    ADD_FAILURE() << "2 systems among 3 ranks must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "random.systems");
  }
  EXPECT_EQ(sourced, 1);
}

// The numbers a part kept, made the whole run's and said: /timings' solve_s and unknowns_per_s
// beside the summary's words.
TEST(TridiagRunPart, KeptNumbersGiveTheSummaryAndItsTimings) {
  Params p;
  p.problem = Problem::random;
  p.random = {33, 5, 7};
  const auto part = RunPart<double>::make(p, Placement{});
  part->solve(one_rank(), {}, {});
  PhaseTimer t;
  t.add(phase::compute, 2);
  t.add(kSolves, 0.5);
  part->keep(t);
  part->combine(one_rank());  // one rank: its own numbers
  const Summary s = part->summary();
  ASSERT_EQ(s.timings.size(), 2u);
  EXPECT_EQ(s.timings[0].first, "solve_s");
  EXPECT_EQ(std::get<double>(s.timings[0].second), 0.5);
  EXPECT_EQ(s.timings[1].first, "unknowns_per_s");
  EXPECT_EQ(std::get<double>(s.timings[1].second), 5.0 * 33.0 / 0.5);
  EXPECT_TRUE(contains(s.first, "max|x| ")) << s.first;
  EXPECT_TRUE(contains(s.first, "2 s")) << s.first;
}

// Only the heat march continues from a checkpoint, and its state says how it is held: the gold's
// [grid][point], which any cut reads back, and thomas's interleaved layout on the GPU, which only
// the same cut does.
TEST(TridiagRunPart, OnlyTheMarchContinuesAndItsStateSaysHowItIsHeld) {
  Params p;
  p.problem = Problem::heat;
  p.heat = small_heat(31, 6, 0.5, 1);
  EXPECT_TRUE(why_no_restart(p).empty());
  Launch launch;
  launch.variant = Variant::thomas;
  const MarchState gold = RunPart<float>::make(p, Placement{})->march_state(launch);
  EXPECT_EQ(gold.held, held_by(false, launch.variant, 4));
  EXPECT_EQ(gold.values, 31u * 3u);
  ASSERT_TRUE(gold.share.has_value());
  EXPECT_EQ(gold.share->total, 31u * 3u);
  EXPECT_EQ(gold.share->first, 0u);
  EXPECT_EQ(gold.share->count, 31u * 3u);
  EXPECT_EQ(gold.key, "heat.steps");
  EXPECT_EQ(gold.last, 6);
  Placement on_gpu;
  on_gpu.gpu = true;
  const MarchState gpu = RunPart<float>::make(p, on_gpu)->march_state(launch);
  EXPECT_EQ(gpu.held, held_by(true, launch.variant, 4));
  EXPECT_FALSE(gpu.share.has_value());
  EXPECT_TRUE(contains(gpu.interleaved, "only the same cut"));

  p.problem = Problem::random;
  EXPECT_TRUE(contains(why_no_restart(p), "a batch is one solve")) << why_no_restart(p);
  p.cut = Cut::rows;
  EXPECT_TRUE(contains(why_no_restart(p), "one long system is one solve")) << why_no_restart(p);
}

// A sweep times whole systems: one long system cut by rows is refused, naming system.cut.
TEST(TridiagSweep, OneLongSystemCutByRowsIsNotSwept) {
  Params p;
  p.problem = Problem::random;
  EXPECT_NO_THROW(require_sweepable(p));
  p.cut = Cut::rows;
  try {
    require_sweepable(p);
    ADD_FAILURE() << "one long system cut by rows must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "system.cut");
    EXPECT_TRUE(e.source().empty());  // the front end says where system.cut was set
  }
}

}  // namespace
}  // namespace parasol::tridiag
