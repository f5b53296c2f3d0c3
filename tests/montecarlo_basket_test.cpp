// The basket model's CPU gold against what is known exactly: the geometric basket's closed form,
// the course model's paths at d = 1, the input correlation, finite differences of the price with
// common random numbers, and the binomial tree; and the correlation matrix's checks.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "kernels/error.hpp"
#include "solvers/montecarlo/analytic.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/run.hpp"
#include "tests/montecarlo_basket_support.hpp"
#include "tests/support.hpp"

namespace parasol::montecarlo {
namespace {

using test::random_basket;
using test::random_correlation;

// |estimate - exact| within kStandardErrors of the estimate's own error.
void expect_within_errors(const Estimate& e, double exact, const std::string& what) {
  EXPECT_TRUE(std::isfinite(e.standard_error) && e.standard_error > 0) << what;
  EXPECT_LE(std::abs(e.price - exact), kStandardErrors * e.standard_error)
      << what << ": " << e.price << " +- " << e.standard_error << ", exact " << exact;
}

std::string assets_name(const ::testing::TestParamInfo<int>& param) {
  return "d" + std::to_string(param.param);
}

std::string payoff_name(const ::testing::TestParamInfo<BasketPayoff>& param) {
  std::string n(name(param.param));
  for (char& c : n) c = c == '-' ? '_' : c;
  return n;
}

class GeometricBasket : public ::testing::TestWithParam<int> {};

// The geometric basket is lognormal, so its call has a closed form for any d: the gold's mean
// must land within 4 standard errors of it. One exact step per path: the terminal law is exact.
TEST_P(GeometricBasket, MatchesTheClosedForm) {
  const int d = GetParam();
  SCOPED_TRACE("seed " + std::to_string(test::kSeed));
  BasketParams p = random_basket(d, test::kSeed + d);
  p.payoff = BasketPayoff::geometric_basket;
  p.steps = d > 8 ? 1 : 3;
  p.paths = d > 8 ? 10000 : 40000;
  p.greeks = false;
  p.validate();
  const BasketResult r = solve_basket_gold(p);
  expect_within_errors(r.price, geometric_basket_price(p), "d = " + std::to_string(d));
}

INSTANTIATE_TEST_SUITE_P(Assets, GeometricBasket, ::testing::Values(1, 2, 7, 64),
                         assets_name);

// The geometric basket's closed form is itself right: at d = 1 it is Black-Scholes with a
// dividend yield, and a perfectly correlated basket of equal assets is one asset.
TEST(GeometricBasketClosedForm, ReducesToBlackScholes) {
  BasketParams p;
  p.spots = {100};
  p.vols = {0.25};
  p.dividends = {0.02};
  p.weights = {1};
  p.correlation = {1};
  p.strike = 95;
  p.rate = 0.04;
  p.maturity = 0.75;
  const double s = 100 * std::exp(-0.02 * 0.75), k = 95, v = 0.25 * std::sqrt(0.75);
  const double d1 = (std::log(s / k) + 0.04 * 0.75 + 0.5 * v * v) / v;
  const double bs = s * normal_cdf(d1) - k * std::exp(-0.04 * 0.75) * normal_cdf(d1 - v);
  EXPECT_NEAR(geometric_basket_price(p), bs, 1e-12);
}

// A one-asset basket draws the course gold's first normal at every step, so with the exact step
// it follows the course model's first asset path for path: the same call price to the course's
// payoff quantum (2^-32 of the unit), not merely within errors.
TEST(BasketGold, OneAssetIsTheCourseModelsFirstAsset) {
  Params course;
  course.paths = 5000;
  course.steps = 12;
  course.sigma = 0.3;
  course.rate = 0.04;
  course.spot = 1.0;
  course.strike = 1.05;
  course.step = Step::exact;
  course.payoff = Payoff::european_call;
  course.seed = 77;
  const Result c = solve_gold(course);

  BasketParams p;
  p.paths = course.paths;
  p.steps = course.steps;
  p.rate = course.rate;
  p.spots = {1.0};
  p.vols = {0.3};
  p.dividends = {0.0};
  p.weights = {1.0};
  p.correlation = {1.0};
  p.strike = 1.05;
  p.payoff = BasketPayoff::arithmetic_basket_call;
  p.seed = 77;
  p.greeks = false;
  const BasketResult b = solve_basket_gold(p);
  EXPECT_NEAR(b.price.price, c.estimate.price, 1e-9);
  EXPECT_NEAR(b.price.standard_error, c.estimate.standard_error, 1e-9);
  EXPECT_GT(b.price.price, 0.05);
}

// The gold's normals, correlated by the factor, have the input's correlation: each sample
// correlation within 5 of its standard errors ((1 - rho^2) / sqrt(n)) of the input.
TEST(BasketGold, CorrelatedNormalsHaveTheInputCorrelation) {
  const int d = 5;
  BasketParams p = random_basket(d, test::kSeed);
  p.steps = 4;
  const std::vector<double> l = cholesky(p.correlation, d, "model.correlation");
  const std::uint64_t key = gold_key(p.seed, 0);
  const int n = 20000;
  std::vector<double> sum(d, 0.0), cross(d * d, 0.0), z(d);
  for (int s = 0; s < n / 4; ++s)
    for (int step = 0; step < 4; ++step) {
      gold_normals(p, key, s, step, z.data());
      std::vector<double> y(d, 0.0);
      for (int i = 0; i < d; ++i)
        for (int k = 0; k <= i; ++k) y[i] += l[i * d + k] * z[k];
      for (int i = 0; i < d; ++i) {
        sum[i] += y[i];
        for (int j = 0; j < d; ++j) cross[i * d + j] += y[i] * y[j];
      }
    }
  for (int i = 0; i < d; ++i) {
    EXPECT_NEAR(sum[i] / n, 0.0, 5 / std::sqrt(static_cast<double>(n))) << "mean of " << i;
    for (int j = 0; j < d; ++j) {
      const double rho = p.correlation[i * d + j];
      const double cov = cross[i * d + j] / n - sum[i] * sum[j] / n / n;
      const double sample = cov / std::sqrt((cross[i * d + i] / n - sum[i] * sum[i] / n / n) *
                                            (cross[j * d + j] / n - sum[j] * sum[j] / n / n));
      EXPECT_NEAR(sample, rho, 5 * std::max(1 - rho * rho, 1e-3) / std::sqrt(static_cast<double>(n)))
          << "entry " << i << ", " << j;
    }
  }
}

// The pathwise Greeks are the derivatives of the estimator itself, so with common random numbers
// (the same seed) central differences of the price converge to them as the bump shrinks; the
// payoffs' kinks put O(bump) paths on the other side, hence a tolerance of a few bumps' worth.
class BasketGreeks : public ::testing::TestWithParam<BasketPayoff> {};

TEST_P(BasketGreeks, MatchFiniteDifferencesWithCommonRandomNumbers) {
  BasketParams p = random_basket(3, test::kSeed + 3);
  p.payoff = GetParam();
  p.paths = 20000;
  p.steps = 4;
  const BasketResult r = solve_basket_gold(p);
  ASSERT_EQ(r.delta.size(), 3u);
  BasketParams q = p;
  q.greeks = false;
  for (int i = 0; i < 3; ++i) {
    const double h = 1e-3 * p.spots[i];
    BasketParams up = q, down = q;
    up.spots[i] += h;
    down.spots[i] -= h;
    const double fd = (solve_basket_gold(up).price.price - solve_basket_gold(down).price.price) / (2 * h);
    EXPECT_NEAR(r.delta[i].price, fd, 0.01 * std::abs(fd) + 0.2 * r.delta[i].standard_error)
        << "delta " << i;
  }
  const double h = 1e-4;
  BasketParams up = q, down = q;
  for (double& v : up.vols) v += h;
  for (double& v : down.vols) v -= h;
  const double fd = (solve_basket_gold(up).price.price - solve_basket_gold(down).price.price) / (2 * h);
  EXPECT_NEAR(r.vega.price, fd, 0.01 * std::abs(fd) + 0.2 * r.vega.standard_error) << "vega";
}

INSTANTIATE_TEST_SUITE_P(Payoffs, BasketGreeks,
                         ::testing::Values(BasketPayoff::geometric_basket,
                                           BasketPayoff::arithmetic_basket_call,
                                           BasketPayoff::arithmetic_basket_put,
                                           BasketPayoff::best_of_call, BasketPayoff::worst_of_call),
                         payoff_name);

// The geometric basket's delta and vega against the closed form's own derivatives.
TEST(BasketGreeks, GeometricMatchesTheClosedFormsDerivatives) {
  BasketParams p = random_basket(4, test::kSeed + 4);
  p.payoff = BasketPayoff::geometric_basket;
  p.paths = 40000;
  p.steps = 2;
  const BasketResult r = solve_basket_gold(p);
  for (int i = 0; i < 4; ++i) {
    const double h = 1e-4 * p.spots[i];
    BasketParams up = p, down = p;
    up.spots[i] += h;
    down.spots[i] -= h;
    expect_within_errors(r.delta[i], (geometric_basket_price(up) - geometric_basket_price(down)) / (2 * h),
                         "delta " + std::to_string(i));
  }
  BasketParams up = p, down = p;
  for (double& v : up.vols) v += 1e-5;
  for (double& v : down.vols) v -= 1e-5;
  expect_within_errors(r.vega, (geometric_basket_price(up) - geometric_basket_price(down)) / 2e-5, "vega");
}

// The digital's delta by likelihood ratio against the one-asset closed form
// e^{-rT} phi(d2) / (S sigma sqrt(T) e^{...}): the derivative of e^{-rT} N(d2).
TEST(BasketGreeks, DigitalLikelihoodRatioMatchesTheClosedForm) {
  BasketParams p;
  p.spots = {100};
  p.vols = {0.2};
  p.dividends = {0.01};
  p.weights = {1};
  p.correlation = {1};
  p.strike = 105;
  p.rate = 0.03;
  p.payoff = BasketPayoff::digital_basket_call;
  p.paths = 100000;
  p.steps = 1;
  const BasketResult r = solve_basket_gold(p);
  const double v = 0.2;
  const double d2 = (std::log(100.0 / 105) + (0.03 - 0.01 - 0.5 * v * v)) / v;
  const double price = std::exp(-0.03) * normal_cdf(d2);
  const double delta = std::exp(-0.03) * std::exp(-0.5 * d2 * d2) / std::sqrt(2 * 3.14159265358979323846) / (100 * v);
  expect_within_errors(r.price, price, "price");
  ASSERT_EQ(r.delta.size(), 1u);
  expect_within_errors(r.delta[0], delta, "delta");
  EXPECT_EQ(r.vega.samples, 0) << "no vega by likelihood ratio";
}

BasketParams put_params() {
  BasketParams p;  // Longstaff and Schwartz's first example: S 36, K 40, sigma 0.2, r 0.06, T 1
  p.spots = {36};
  p.vols = {0.2};
  p.dividends = {0};
  p.weights = {1};
  p.correlation = {1};
  p.strike = 40;
  p.rate = 0.06;
  p.maturity = 1;
  p.steps = 50;
  p.payoff = BasketPayoff::american_put;
  p.paths = 20000;
  return p;
}

// The tree is itself right: with exercise at maturity only it is the European put, which
// Black-Scholes gives exactly, to the CRR tree's O(1/N) error.
TEST(BinomialTree, EuropeanLimitIsBlackScholes) {
  BasketParams p = put_params();
  p.payoff = BasketPayoff::bermudan_put;
  p.exercise_steps = {p.steps};
  const double v = 0.2, d1 = (std::log(36.0 / 40) + 0.06 + 0.5 * v * v) / v;
  const double bs = 40 * std::exp(-0.06) * normal_cdf(-(d1 - v)) - 36 * normal_cdf(-d1);
  EXPECT_NEAR(binomial_put(p, 40, false), bs, 2e-3);
  // Early exercise is worth something for this put, and continuous exercise more than 50 dates.
  const double bermudan = binomial_put(put_params(), 40, false);
  EXPECT_GT(bermudan, bs + 0.2);
  EXPECT_GE(binomial_put(put_params(), 40, true), bermudan);
}

// Longstaff-Schwartz against the Bermudan tree with the same 50 dates. The out-of-sample price
// uses a policy fitted elsewhere, so it is low-biased; the in-sample price has seen its own
// paths, so it is high-biased. Each may stray past 4 standard errors in its own direction by the
// regression's bias: with a cubic in S/K on 20000 paths, 1% of the price (Longstaff and Schwartz
// report a few tenths of a percent for this put).
TEST(BasketGold, LongstaffSchwartzBracketsTheTree) {
  const BasketParams p = put_params();
  const double tree = binomial_put(p, 40, false);
  const BasketResult r = solve_basket_gold(p);
  const double allowance = 0.01 * tree;
  const double low = r.price.price, high = r.in_sample.price;
  EXPECT_LE(low, tree + kStandardErrors * r.price.standard_error) << "out-of-sample above";
  EXPECT_GE(low, tree - kStandardErrors * r.price.standard_error - allowance) << "out-of-sample";
  EXPECT_GE(high, tree - kStandardErrors * r.in_sample.standard_error - allowance) << "in-sample";
  EXPECT_LE(high, tree + kStandardErrors * r.in_sample.standard_error + allowance) << "in-sample";
  EXPECT_EQ(r.policy.size(), 50u);
  EXPECT_TRUE(r.policy.back().empty()) << "no regression at maturity";
  EXPECT_FALSE(r.policy.front().empty());
}

// A Bermudan put on a two-asset basket: its price lies between the European put on the basket
// (no early exercise) and the same basket with exercise at every step.
TEST(BasketGold, BermudanBasketPutLiesBetweenEuropeanAndAmerican) {
  BasketParams p = random_basket(2, test::kSeed + 2);
  p.strike = 110;
  p.paths = 20000;
  p.steps = 20;
  p.payoff = BasketPayoff::bermudan_put;
  p.exercise_steps = {5, 10, 15, 20};
  const BasketResult bermudan = solve_basket_gold(p);
  BasketParams e = p;
  e.payoff = BasketPayoff::arithmetic_basket_put;
  e.exercise_steps.clear();
  e.greeks = false;
  const BasketResult european = solve_basket_gold(e);
  BasketParams a = e;
  a.payoff = BasketPayoff::american_put;
  const BasketResult american = solve_basket_gold(a);
  EXPECT_GT(bermudan.price.price, european.price.price);
  EXPECT_LT(bermudan.price.price, american.price.price + kStandardErrors * american.price.standard_error);
}

std::string message_of(const std::vector<double>& c, int d) {
  try {
    cholesky(c, d, "model.correlation");
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "model.correlation");
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(Correlation, BadMatricesAreRefusedNamingTheProblem) {
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(message_of({1, 0.5, 0.4, 1}, 2), "symmetric")) << message_of({1, 0.5, 0.4, 1}, 2);
  EXPECT_TRUE(has(message_of({1, 0.5, 0.5, 1}, 3), "3 x 3"));
  EXPECT_TRUE(has(message_of({1, NAN, NAN, 1}, 2), "finite"));
  EXPECT_TRUE(has(message_of({2, 0, 0, 1}, 2), "diagonal"));
  // Pairwise fine, jointly impossible: the third pivot is negative.
  const std::vector<double> c{1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1};
  EXPECT_TRUE(has(message_of(c, 3), "pivot 3")) << message_of(c, 3);
  EXPECT_TRUE(has(message_of({1, 1, 1, 1}, 2), "pivot 2")) << "singular";
}

TEST(Correlation, FactorReproducesTheMatrix) {
  const int d = 9;
  const std::vector<double> c = random_correlation(d, test::kSeed);
  const std::vector<double> l = cholesky(c, d, "model.correlation");
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) {
      double s = 0;
      for (int k = 0; k < d; ++k) s += l[i * d + k] * l[j * d + k];
      EXPECT_NEAR(s, c[i * d + j], 1e-13);
      if (j > i) {
        EXPECT_EQ(l[i * d + j], 0.0);
      }
    }
}

TEST(BasketParams, ValidateNamesTheKey) {
  const auto key_of = [](const BasketParams& p) {
    try {
      p.validate();
    } catch (const InputError& e) {
      return e.key();
    }
    return std::string("accepted");
  };
  BasketParams p;
  EXPECT_EQ(key_of(p), "accepted");
  BasketParams q = p;
  q.vols = {0.2, 0.3};
  EXPECT_EQ(key_of(q), "model.vols");
  q = p;
  q.spots = {-1};
  EXPECT_EQ(key_of(q), "model.spots");
  q = p;
  q.payoff = BasketPayoff::bermudan_put;
  EXPECT_EQ(key_of(q), "payoff.exercise_steps");
  q.exercise_steps = {10, 5, 50};
  EXPECT_EQ(key_of(q), "payoff.exercise_steps");
  q.exercise_steps = {10, 50};
  EXPECT_EQ(key_of(q), "accepted");
  q = random_basket(20, 1);
  q.variant = BasketVariant::registers;
  EXPECT_EQ(key_of(q), "method.variant");
  q.variant = BasketVariant::automatic;
  EXPECT_EQ(q.resolved_variant(), BasketVariant::cublas);
  EXPECT_EQ(random_basket(kRegistersUpTo, 1).resolved_variant(), BasketVariant::registers);
}

TEST(BasketRun, SweepsTheVariantsThatHoldItsAssets) {
  EXPECT_EQ(sweep_variants(random_basket(kRegistersUpTo, 1)),
            (std::vector<BasketVariant>{BasketVariant::registers, BasketVariant::cublas}));
  EXPECT_EQ(sweep_variants(random_basket(kRegistersUpTo + 1, 1)),
            std::vector<BasketVariant>{BasketVariant::cublas});
}

TEST(BasketRun, TheSweepGoldRunsOnAtMost2To14Paths) {
  BasketParams p = random_basket(3, 1);
  p.paths = 1000000;
  const BasketParams g = basket_sweep_gold_params(p);
  EXPECT_EQ(g.paths, kBasketSweepGoldPaths);
  EXPECT_EQ(g.spots, p.spots);
  EXPECT_EQ(g.seed, p.seed);
  p.paths = 1000;
  EXPECT_EQ(basket_sweep_gold_params(p).paths, 1000);
}

TEST(BasketRun, LongstaffSchwartzKeepsAFloatAPathAtEachExerciseDateAndTwoMore) {
  BasketParams p;
  p.paths = 1000;
  p.steps = 50;
  p.payoff = BasketPayoff::american_put;
  // With the Gram sums: 16 doubles for each date but the last and each block of 256 paths (4),
  // and 16 for their totals.
  EXPECT_EQ(lsm_device_bytes(p), 4.0 * 1000 * 52 + 8.0 * 16 * 49 * (4 + 1));
  p.payoff = BasketPayoff::bermudan_put;
  p.exercise_steps = {10, 50};
  EXPECT_EQ(lsm_device_bytes(p), 4.0 * 1000 * 4 + 8.0 * 16 * 1 * (4 + 1));
  p.paths = 1 << 20;  // 1024 blocks at most
  EXPECT_EQ(lsm_device_bytes(p), 4.0 * (1 << 20) * 4 + 8.0 * 16 * 1 * (1024 + 1));
}

TEST(BasketRun, JudgesByWhatIsKnownExactlyElseByTheGold) {
  BasketParams p = random_basket(2, 3);
  p.payoff = BasketPayoff::geometric_basket;
  Estimate e;
  e.price = geometric_basket_price(p) + 0.02;
  e.standard_error = 0.01;
  e.samples = 1000;
  const std::optional<Agreement> closed = agreement_with_exact(p, e);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->gold, "the geometric basket's closed form");
  EXPECT_NEAR(closed->value, 2.0, 1e-9);
  EXPECT_EQ(check_run(p, e, false).value, closed->value) << "exact on the CPU too";

  BasketParams put;
  put.spots = {36};
  put.vols = {0.2};
  put.rate = 0.06;
  put.strike = 40;
  put.steps = 10;
  put.payoff = BasketPayoff::american_put;
  const double tree = binomial_put(put, 40, false);
  e.price = tree;
  const std::optional<Agreement> by_tree = agreement_with_exact(put, e);
  ASSERT_TRUE(by_tree);
  EXPECT_EQ(by_tree->gold, "a binomial tree with the same exercise dates");
  EXPECT_EQ(by_tree->value, 0.0);
  EXPECT_EQ(by_tree->values[1].second, kLsmBiasAllowance * tree);
  BasketParams two = random_basket(2, 3);
  two.payoff = BasketPayoff::american_put;
  EXPECT_FALSE(agreement_with_exact(two, e)) << "no tree for two assets";

  p.payoff = BasketPayoff::arithmetic_basket_call;
  p.paths = 2000;
  p.greeks = false;
  EXPECT_FALSE(agreement_with_exact(p, e));
  EXPECT_EQ(check_run(p, e, false).value, 0.0) << "the CPU run is the gold itself";
  const Estimate gold = solve_basket_gold(p).price;
  EXPECT_EQ(check_run(p, gold, true).value, 0.0);
  EXPECT_EQ(check_run(p, gold, true).values[0].second, gold.price);
}

}  // namespace
}  // namespace parasol::montecarlo
