// The basket model on the GPU: both ways of correlating the normals against each other (they
// simulate the same paths), against the CPU gold (independent normals: within standard errors)
// and the closed forms, the normals' correlation, and Longstaff-Schwartz against the tree.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/stream.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/check.hpp"
#include "tests/montecarlo_basket_support.hpp"
#include "tests/support.hpp"

namespace parasol::montecarlo {
namespace {

using test::random_basket;

const std::vector<BasketPayoff> kEuropean{
    BasketPayoff::geometric_basket,      BasketPayoff::arithmetic_basket_call,
    BasketPayoff::arithmetic_basket_put, BasketPayoff::best_of_call,
    BasketPayoff::worst_of_call,         BasketPayoff::digital_basket_call};

std::string case_name(BasketPayoff p, int d) {
  std::string n(name(p));
  for (char& c : n) c = c == '-' ? '_' : c;
  return n + "_d" + std::to_string(d);
}

BasketResult run_variant(BasketParams p, BasketVariant v) {
  p.variant = v;
  Stream stream;
  BasketSimulator simulator(p, stream);
  simulator.run();
  return simulator.result();
}

void expect_agree(const Estimate& gpu, const Estimate& gold, const std::string& what) {
  ASSERT_TRUE(std::isfinite(gpu.price) && std::isfinite(gpu.standard_error)) << what;
  const Agreement a = agreement(gpu, gold);
  EXPECT_LE(a.value, a.tolerance) << what << ": gpu " << gpu.price << " +- " << gpu.standard_error
                                  << ", " << a.description;
}

// Every bit of an estimate: the same run on the same device must repeat exactly
// (/method@reproducible), so any difference, however small, fails.
void expect_same_bits(const Estimate& a, const Estimate& b, const std::string& what) {
  EXPECT_EQ(std::memcmp(&a.price, &b.price, sizeof a.price), 0)
      << what << ": " << std::hexfloat << a.price << " vs " << b.price;
  EXPECT_EQ(std::memcmp(&a.standard_error, &b.standard_error, sizeof a.standard_error), 0)
      << what << " standard error: " << std::hexfloat << a.standard_error << " vs "
      << b.standard_error;
}

void expect_same_bits(const BasketResult& a, const BasketResult& b, const std::string& what) {
  expect_same_bits(a.price, b.price, what + " price");
  expect_same_bits(a.vega, b.vega, what + " vega");
  expect_same_bits(a.in_sample, b.in_sample, what + " in-sample price");
  ASSERT_EQ(a.delta.size(), b.delta.size()) << what;
  for (std::size_t i = 0; i < a.delta.size(); ++i)
    expect_same_bits(a.delta[i], b.delta[i], what + " delta " + std::to_string(i));
}

// Three runs of each variant, each with a simulator of its own (a fresh cuBLAS handle and
// workspace), give the same bits: the reductions add per-block slots in a fixed order and the
// GEMM runs without atomics. Several batches and, for cuBLAS, several step blocks make any
// order that varies show. d = 20 is past the registers' 16; 8 runs both variants.
TEST(BasketReproducible, EachVariantRepeatsToTheBit) {
  PARASOL_REQUIRE_GPU();
  for (int d : {8, 20}) {
    BasketParams p = random_basket(d, test::kSeed + d);
    p.payoff = BasketPayoff::arithmetic_basket_call;
    p.paths = 300007;  // prime: the last batch is partial
    p.batch_paths = 65536;
    p.steps = 9;
    for (BasketVariant v : kBasketVariants) {
      if (v == BasketVariant::registers && d > kRegistersUpTo) continue;
      const std::string what = std::string(name(v)) + " d" + std::to_string(d);
      const BasketResult first = run_variant(p, v);
      ASSERT_TRUE(std::isfinite(first.price.price)) << what;
      for (int again = 0; again < 2; ++again) expect_same_bits(first, run_variant(p, v), what);
    }
  }
  // Longstaff-Schwartz's regression sums and price, likewise.
  BasketParams q = random_basket(3, test::kSeed + 3);
  q.paths = 100003;
  q.steps = 13;
  q.payoff = BasketPayoff::bermudan_put;
  q.exercise_steps = {2, 3, 7, 11, 13};
  Stream stream;
  const BasketResult first = solve_lsm_gpu(q, stream);
  for (int again = 0; again < 2; ++again) expect_same_bits(first, solve_lsm_gpu(q, stream), "lsm");
  // One solver run again on the buffers its last run left: the same bits and policies.
  LsmSolver solver(q, stream);
  for (int again = 0; again < 3; ++again) {
    const BasketResult r = solver.run();
    expect_same_bits(first, r, "lsm, run " + std::to_string(again) + " of one solver");
    ASSERT_EQ(r.policy.size(), first.policy.size());
    for (std::size_t e = 0; e < r.policy.size(); ++e) {
      ASSERT_EQ(r.policy[e].size(), first.policy[e].size()) << "date " << e;
      EXPECT_EQ(std::memcmp(r.policy[e].data(), first.policy[e].data(),
                            r.policy[e].size() * sizeof(double)),
                0)
          << "lsm policy at date " << e;
    }
  }
}

using Case = std::tuple<BasketPayoff, int>;

std::string tuple_name(const ::testing::TestParamInfo<Case>& param) {
  return case_name(std::get<0>(param.param), std::get<1>(param.param));
}

std::string assets_name(const ::testing::TestParamInfo<int>& param) {
  return "d" + std::to_string(param.param);
}
class BasketVariants : public ::testing::TestWithParam<Case> {};

// Both variants draw normal (s, n, i) from the same Philox counter, so their paths differ only
// by the order of L z's float additions (registers: fmaf in k; cuBLAS: its own blocking), a few
// ulps of each log-price: prices and Greeks agree to a small fraction of a standard error. A
// digital pays 0 or 1, and a rounding that moves a path across the strike moves the price by
// discount / paths, so it gets half a standard error.
TEST_P(BasketVariants, RegistersAndCublasSimulateTheSamePaths) {
  PARASOL_REQUIRE_GPU();
  const auto [payoff, d] = GetParam();
  SCOPED_TRACE("seed " + std::to_string(test::kSeed + d));
  BasketParams p = random_basket(d, test::kSeed + d);
  p.payoff = payoff;
  p.paths = 30011;       // prime: the last batch is partial
  p.batch_paths = 8192;
  p.steps = 7;           // odd: for d <= 2 the last Philox draw covers fewer steps
  const BasketResult a = run_variant(p, BasketVariant::registers);
  const BasketResult b = run_variant(p, BasketVariant::cublas);
  const double share = payoff == BasketPayoff::digital_basket_call ? 0.5 : 0.02;
  EXPECT_NEAR(a.price.price, b.price.price, share * a.price.standard_error);
  ASSERT_EQ(a.delta.size(), static_cast<std::size_t>(d));
  ASSERT_EQ(b.delta.size(), static_cast<std::size_t>(d));
  for (int i = 0; i < d; ++i)
    EXPECT_NEAR(a.delta[i].price, b.delta[i].price, share * a.delta[i].standard_error + 1e-7)
        << "delta " << i;
  if (payoff != BasketPayoff::digital_basket_call) {
    EXPECT_NEAR(a.vega.price, b.vega.price, share * a.vega.standard_error + 1e-7);
  }
}

std::vector<Case> variant_cases() {
  std::vector<Case> cases;
  for (BasketPayoff p : kEuropean)
    for (int d : {1, 2, 3, 8, 13, 16}) cases.emplace_back(p, d);
  return cases;
}
INSTANTIATE_TEST_SUITE_P(All, BasketVariants, ::testing::ValuesIn(variant_cases()),
                         tuple_name);

// Every payoff and its Greeks against the CPU gold: different normals, so independent estimates
// judged by check.hpp's 4 standard errors of the difference. d = 40 and 70 run through cuBLAS.
class BasketVsGold : public ::testing::TestWithParam<Case> {};

TEST_P(BasketVsGold, PriceAndGreeksWithinStandardErrors) {
  PARASOL_REQUIRE_GPU();
  const auto [payoff, d] = GetParam();
  SCOPED_TRACE("seed " + std::to_string(test::kSeed + 100 + d));
  BasketParams p = random_basket(d, test::kSeed + 100 + d);
  p.payoff = payoff;
  p.paths = d > 16 ? 20000 : 50000;
  p.steps = d > 16 ? 2 : 5;
  const BasketResult gold = solve_basket_gold(p);
  Stream stream;
  const BasketResult gpu = solve_basket_gpu(p, stream);
  expect_agree(gpu.price, gold.price, "price");
  ASSERT_EQ(gpu.delta.size(), gold.delta.size());
  for (int i = 0; i < d; ++i) expect_agree(gpu.delta[i], gold.delta[i], "delta " + std::to_string(i));
  if (payoff != BasketPayoff::digital_basket_call) {
    expect_agree(gpu.vega, gold.vega, "vega");
  }
}

std::vector<Case> gold_cases() {
  std::vector<Case> cases;
  for (BasketPayoff p : kEuropean)
    for (int d : {1, 2, 7, 16, 40, 70}) cases.emplace_back(p, d);
  return cases;
}
INSTANTIATE_TEST_SUITE_P(All, BasketVsGold, ::testing::ValuesIn(gold_cases()),
                         tuple_name);

class GeometricBasketGpu : public ::testing::TestWithParam<int> {};

TEST_P(GeometricBasketGpu, MatchesTheClosedFormInEitherVariant) {
  PARASOL_REQUIRE_GPU();
  const int d = GetParam();
  BasketParams p = random_basket(d, test::kSeed + 7 * d);
  p.payoff = BasketPayoff::geometric_basket;
  p.paths = 1 << 18;
  p.steps = 3;
  p.greeks = false;
  const double exact = geometric_basket_price(p);
  for (BasketVariant v : kBasketVariants) {
    if (v == BasketVariant::registers && d > kRegistersUpTo) continue;
    const BasketResult r = run_variant(p, v);
    EXPECT_LE(std::abs(r.price.price - exact), kStandardErrors * r.price.standard_error)
        << name(v) << ": " << r.price.price << " +- " << r.price.standard_error << ", exact "
        << exact;
  }
}
INSTANTIATE_TEST_SUITE_P(Assets, GeometricBasketGpu, ::testing::Values(1, 2, 7, 64, 128),
                         assets_name);

// Step 0's correlated normals, as each variant draws them, have the input correlation.
TEST(BasketGpu, CorrelatedNormalsHaveTheInputCorrelation) {
  PARASOL_REQUIRE_GPU();
  for (int d : {2, 5, 16, 24}) {
    BasketParams p = random_basket(d, test::kSeed + d);
    p.paths = 40000;
    p.batch_paths = 40000;
    for (BasketVariant v : kBasketVariants) {
      if (v == BasketVariant::registers && d > kRegistersUpTo) continue;
      p.variant = v;
      Stream stream;
      BasketSimulator simulator(p, stream);
      const std::vector<float> y = simulator.correlated_normals(p.paths);
      ASSERT_EQ(y.size(), static_cast<std::size_t>(d * p.paths));
      const double n = static_cast<double>(p.paths);
      std::vector<double> sum(d, 0.0), cross(d * d, 0.0);
      for (std::int64_t s = 0; s < p.paths; ++s)
        for (int i = 0; i < d; ++i) {
          ASSERT_TRUE(std::isfinite(y[s * d + i]));
          sum[i] += y[s * d + i];
          for (int j = 0; j < d; ++j) cross[i * d + j] += double(y[s * d + i]) * y[s * d + j];
        }
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {
          const double rho = p.correlation[i * d + j];
          const double ci = cross[i * d + i] / n - sum[i] * sum[i] / n / n;
          const double cj = cross[j * d + j] / n - sum[j] * sum[j] / n / n;
          const double sample = (cross[i * d + j] / n - sum[i] * sum[j] / n / n) / std::sqrt(ci * cj);
          EXPECT_NEAR(sample, rho, 5 * std::max(1 - rho * rho, 1e-3) / std::sqrt(n))
              << name(v) << " d " << d << " entry " << i << ", " << j;
        }
    }
  }
}

// Longstaff-Schwartz on the GPU against the Bermudan tree, with the gold test's allowance for
// the regression's bias (tests/montecarlo_basket_test.cpp), and against the CPU's own LSM.
TEST(BasketGpu, LongstaffSchwartzBracketsTheTree) {
  PARASOL_REQUIRE_GPU();
  BasketParams p;
  p.spots = {36};
  p.vols = {0.2};
  p.dividends = {0};
  p.weights = {1};
  p.correlation = {1};
  p.strike = 40;
  p.rate = 0.06;
  p.steps = 50;
  p.payoff = BasketPayoff::american_put;
  p.paths = 200000;
  for (int degree : {2, 3, 4}) {
    p.basis_degree = degree;
    const double tree = binomial_put(p, 40, false);
    Stream stream;
    const BasketResult r = solve_lsm_gpu(p, stream);
    const double allowance = 0.01 * tree;
    EXPECT_LE(r.price.price, tree + kStandardErrors * r.price.standard_error) << degree;
    EXPECT_GE(r.price.price, tree - kStandardErrors * r.price.standard_error - allowance) << degree;
    EXPECT_GE(r.in_sample.price, tree - kStandardErrors * r.in_sample.standard_error - allowance);
    EXPECT_LE(r.in_sample.price, tree + kStandardErrors * r.in_sample.standard_error + allowance);
    EXPECT_EQ(r.policy.size(), 50u);
  }
  // An awkward Bermudan on a three-asset basket against the CPU's LSM: the same algorithm, in
  // double, on independent paths; both biases are small against 4 standard errors here.
  BasketParams q = random_basket(3, test::kSeed + 3);
  q.strike = 105;
  q.paths = 40000;
  q.steps = 13;
  q.payoff = BasketPayoff::bermudan_put;
  q.exercise_steps = {2, 3, 7, 11, 13};
  Stream stream;
  const BasketResult gpu = solve_lsm_gpu(q, stream);
  const BasketResult gold = solve_basket_gold(q);
  expect_agree(gpu.price, gold.price, "out-of-sample");
  expect_agree(gpu.in_sample, gold.in_sample, "in-sample");
}

// Longstaff-Schwartz at sizes that end its launches part way: fewer paths than a block (one
// block, the last to finish, solves every date), a second grid-stride pass that stops inside a
// thread's four paths, and one exercise date (no regression at all, a European put).
TEST(BasketGpu, LongstaffSchwartzAtAwkwardSizes) {
  PARASOL_REQUIRE_GPU();
  BasketParams q = random_basket(3, test::kSeed + 3);  // the Bermudan of the test above
  q.strike = 105;
  q.steps = 13;
  q.payoff = BasketPayoff::bermudan_put;
  Stream stream;
  // 37 paths: too few to judge against the gold; the dates with enough in-the-money paths get a
  // policy, and a second solve repeats every bit of it.
  q.paths = 37;
  q.exercise_steps = {2, 3, 7, 11, 13};
  const BasketResult few = solve_lsm_gpu(q, stream);
  ASSERT_EQ(few.policy.size(), 5u);
  EXPECT_TRUE(few.policy.back().empty()) << "the last date has no regression";
  for (const std::vector<double>& beta : few.policy)
    for (double b : beta) EXPECT_TRUE(std::isfinite(b));
  EXPECT_TRUE(std::isfinite(few.price.price) && std::isfinite(few.in_sample.price));
  const BasketResult again = solve_lsm_gpu(q, stream);
  expect_same_bits(few, again, "lsm, 37 paths");
  for (std::size_t e = 0; e < few.policy.size(); ++e)
    EXPECT_EQ(few.policy[e], again.policy[e]) << "date " << e;

  struct Size {
    std::int64_t paths;
    std::vector<std::int64_t> exercise_steps;
  };
  for (const Size& c : {Size{(1 << 20) + 3, {2, 3, 7, 11, 13}}, Size{50001, {13}}}) {
    q.paths = c.paths;
    q.exercise_steps = c.exercise_steps;
    const std::string what = std::to_string(c.paths) + " paths, " +
                             std::to_string(c.exercise_steps.size()) + " dates";
    const BasketResult gpu = solve_lsm_gpu(q, stream);
    const BasketResult gold = solve_basket_gold(q);
    ASSERT_EQ(gpu.policy.size(), c.exercise_steps.size()) << what;
    for (std::size_t e = 0; e + 1 < gpu.policy.size(); ++e)
      EXPECT_EQ(gpu.policy[e].size(), 4u) << what << ", date " << e << " has a policy";
    expect_agree(gpu.price, gold.price, what + ", out-of-sample");
    expect_agree(gpu.in_sample, gold.in_sample, what + ", in-sample");
  }
}

}  // namespace
}  // namespace parasol::montecarlo
