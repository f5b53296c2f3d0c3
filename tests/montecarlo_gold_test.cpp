// The gold solver against closed forms: it judges every GPU variant, so it is judged first.
// Its answers are statistical, so each is held to a few standard errors of the exact value; the
// seeds are fixed, so a pass or a failure is the same on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "comm/context.hpp"
#include "kernels/error.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/montecarlo.hpp"
#include "solvers/montecarlo/run.hpp"
#include "solvers/montecarlo/study.hpp"
#include "solvers/montecarlo/summary.hpp"

namespace parasol::montecarlo {
namespace {

// kStandardErrors (check.hpp): an honest estimate lands further out about once in 16000 seeds.

// The Black-Scholes test case: S = K = 1, r = 5%, sigma = 20%, T = 1.
Params european(Payoff payoff) {
  Params p;
  p.payoff = payoff;
  p.step = Step::exact;  // exact in distribution at T, so only sampling error remains
  p.paths = 200000;
  p.steps = 20;
  p.sigma = 0.2;
  p.rate = 0.05;
  p.spot = 1.0;
  p.strike = 1.0;
  return p;
}

// The two runs several tests use, made once.
const Result& call_run() {
  static const Result r = solve_gold(european(Payoff::european_call));
  return r;
}
const Result& put_run() {
  static const Result r = solve_gold(european(Payoff::european_put));
  return r;
}

TEST(MontecarloBlackScholes, MatchesPublishedValues) {
  // S = K = 1, r = 0.05, sigma = 0.2, T = 1: the textbook 10.4506 and 5.5735 at S = K = 100.
  EXPECT_NEAR(black_scholes(european(Payoff::european_call)), 0.1045058357, 1e-9);
  EXPECT_NEAR(black_scholes(european(Payoff::european_put)), 0.0557352602, 1e-9);
  // Deep in the money the call is the forward, S - K e^{-rT}; far out it is worth nothing.
  Params deep = european(Payoff::european_call);
  deep.strike = 0.01;
  EXPECT_NEAR(black_scholes(deep), 1.0 - 0.01 * std::exp(-0.05), 1e-12);
  deep.strike = 100;
  EXPECT_NEAR(black_scholes(deep), 0.0, 1e-12);
}

TEST(MontecarloBlackScholes, RefusesPayoffsWithoutAClosedForm) {
  EXPECT_THROW(black_scholes(european(Payoff::digital)), Error);
  EXPECT_THROW(black_scholes(european(Payoff::asian_call)), Error);
}

TEST(MontecarloGold, EuropeanCallMatchesBlackScholes) {
  const Estimate& e = call_run().estimate;
  EXPECT_EQ(e.samples, 200000);
  EXPECT_GT(e.standard_error, 0.0);
  EXPECT_NEAR(e.price, black_scholes(european(Payoff::european_call)),
              kStandardErrors * e.standard_error);
}

TEST(MontecarloGold, EuropeanPutMatchesBlackScholes) {
  const Estimate& e = put_run().estimate;
  EXPECT_GT(e.standard_error, 0.0);
  EXPECT_NEAR(e.price, black_scholes(european(Payoff::european_put)),
              kStandardErrors * e.standard_error);
}

TEST(MontecarloGold, CallAndPutFromTheSamePathsSatisfyParity) {
  // C - P = S - K e^{-rT}. The two runs share their seed, hence their paths, so C - P is the
  // sample mean of e^{-rT}(S(T) - K): its standard error is at most se(C) + se(P).
  const Estimate& c = call_run().estimate;
  const Estimate& p = put_run().estimate;
  const double forward = 1.0 - 1.0 * std::exp(-0.05);
  EXPECT_NEAR(c.price - p.price, forward, kStandardErrors * (c.standard_error + p.standard_error));
}

TEST(MontecarloGold, DigitalMatchesTheCourse) {
  // The Oxford course's case (its defaults in Params), Euler steps; the course quotes 0.4179.
  Params p;
  p.paths = 100000;
  p.steps = 100;
  p.spot = 1.0;
  p.sigma = 0.1;
  p.rho = 0.5;
  p.rate = 0.05;
  p.maturity = 1.0;
  p.payoff = Payoff::digital;
  p.step = Step::euler;
  const Estimate e = solve_gold(p).estimate;
  EXPECT_EQ(e.samples, 100000);
  EXPECT_NEAR(e.price, 0.4179, kStandardErrors * e.standard_error);
  // A digital pays e^{-rT} or nothing: the price is e^{-rT} times a probability.
  EXPECT_LE(e.price, std::exp(-0.05));
}

TEST(MontecarloGold, AntitheticPairsLowerTheStandardErrorAtTheSamePathCount) {
  Params p = european(Payoff::european_call);
  p.paths = 40000;
  p.steps = 10;
  const Estimate plain = solve_gold(p).estimate;
  p.antithetic = true;
  const Estimate paired = solve_gold(p).estimate;
  EXPECT_EQ(plain.samples, 40000);
  EXPECT_EQ(paired.samples, 20000) << "a pair is one sample";
  // A call is monotone in the normals, so a path and its mirror are negatively correlated:
  // for this case the variance falls by about a third, far beyond sampling noise at 20000 pairs.
  EXPECT_LT(paired.standard_error, 0.9 * plain.standard_error);
  EXPECT_NEAR(paired.price, black_scholes(p), kStandardErrors * paired.standard_error);
}

TEST(MontecarloGold, AsianCallLiesBelowTheEuropeanCall) {
  // Averaging lowers the variance of the underlying, and with it the option's value; with a
  // single step the average is S(T) and the two are the same payoff on the same paths.
  Params p = european(Payoff::asian_call);
  p.paths = 20000;
  p.steps = 1;
  Params q = p;
  q.payoff = Payoff::european_call;
  EXPECT_EQ(solve_gold(p).estimate.price, solve_gold(q).estimate.price);
  p.steps = q.steps = 20;
  EXPECT_LT(solve_gold(p).estimate.price, 0.7 * solve_gold(q).estimate.price);
}

TEST(MontecarloGold, TheSameSeedGivesTheSameBits) {
  Params p = european(Payoff::european_call);
  p.paths = 1000;
  const Result a = solve_gold(p), b = solve_gold(p);
  EXPECT_EQ(a.estimate.price, b.estimate.price);
  EXPECT_EQ(a.estimate.standard_error, b.estimate.standard_error);
  p.seed += 1;
  EXPECT_NE(solve_gold(p).estimate.price, a.estimate.price);
}

TEST(MontecarloGold, StoresSamplePathsPathMajorWithBothAssets) {
  Params p;
  p.paths = 10;
  p.steps = 4;
  p.spot = 2.0;
  p.sample_paths = 3;
  p.rho = 1.0;  // both assets driven by the same normals: equal at every time
  const Result r = solve_gold(p);
  ASSERT_EQ(r.sample.size(), 3u * 5u * 2u);  // [path][time][asset]
  for (std::size_t path = 0; path < 3; ++path) {
    const float* x = &r.sample[path * 5 * 2];
    EXPECT_EQ(x[0], 2.0f) << "S1(t_0) is the spot";
    EXPECT_EQ(x[1], 2.0f) << "S2(t_0) is the spot";
    for (std::size_t n = 1; n < 5; ++n) {
      EXPECT_EQ(x[2 * n], x[2 * n + 1]) << "path " << path << " time " << n;
      EXPECT_NE(x[2 * n], x[2 * (n - 1)]) << "path " << path << " time " << n;
    }
  }
  EXPECT_NE(r.sample[2], r.sample[5 * 2 + 2]) << "paths differ from one another";
  p.sample_paths = 0;
  EXPECT_TRUE(solve_gold(p).sample.empty());
}

TEST(MontecarloGold, ReportsProgressInChunksUpToEveryPath) {
  Params p = european(Payoff::european_call);
  p.paths = 100000;  // antithetic pairs: progress still counts paths
  p.antithetic = true;
  p.steps = 2;
  std::vector<Progress> reports;
  const Result r = solve_gold(p, [&](const Progress& pr) { reports.push_back(pr); });
  ASSERT_GE(reports.size(), 3u) << "some chunks, then the end";
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GT(reports[i].paths, reports[i - 1].paths);
    EXPECT_GE(reports[i].seconds, reports[i - 1].seconds);
  }
  EXPECT_EQ(reports.back().paths, p.paths);
  EXPECT_EQ(reports.back().total_paths, p.paths);
  EXPECT_EQ(r.estimate.price, solve_gold(p).estimate.price) << "progress changes nothing";
}

TEST(MontecarloCheck, AnEstimateAgreesWithItself) {
  const Estimate& e = call_run().estimate;
  const Agreement a = agreement(e, e);
  EXPECT_TRUE(a.passed());
  EXPECT_EQ(a.measure, "difference_in_standard_errors");
  EXPECT_EQ(a.value, 0.0);
  EXPECT_EQ(a.tolerance, kStandardErrors);
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_EQ(a.values[0].first, "gold_price");
  EXPECT_EQ(a.values[0].second, e.price);
  EXPECT_EQ(a.values[2].first, "difference");
  EXPECT_EQ(a.values[2].second, 0.0);
}

TEST(MontecarloCheck, JudgesTheDifferenceInCombinedStandardErrors) {
  Estimate gold;
  gold.price = 1.0;
  gold.standard_error = 0.03;
  gold.samples = 1000;
  Estimate result = gold;
  result.standard_error = 0.04;  // combined: 0.05
  result.price = 1.0 + 3.9 * 0.05;
  const Agreement near = agreement(result, gold);
  EXPECT_NEAR(near.value, 3.9, 1e-12);
  EXPECT_TRUE(near.passed());
  result.price = 1.0 - 4.1 * 0.05;
  const Agreement far = agreement(result, gold);
  EXPECT_NEAR(far.value, 4.1, 1e-12);
  EXPECT_FALSE(far.passed());
  EXPECT_NE(far.description.find("4.10 standard errors"), std::string::npos) << far.description;
}

TEST(MontecarloCheck, WithoutASpreadTheDifferenceIsNotJudged) {
  Estimate gold;
  gold.price = 1.0;
  gold.standard_error = NAN;  // a single sample
  gold.samples = 1;
  Estimate result = gold;
  result.price = 2.0;
  const Agreement a = agreement(result, gold);
  EXPECT_FALSE(a.judged());
  EXPECT_TRUE(a.passed());
}

TEST(MontecarloCheck, TheSweepGoldIsTheSameModelOnAtMost2To20Paths) {
  Params p;
  p.paths = 9600000;
  p.sample_paths = 10;
  p.seed = 7;
  const Params g = sweep_gold_params(p);
  EXPECT_EQ(g.paths, kSweepGoldPaths);
  EXPECT_EQ(g.sample_paths, 0);
  EXPECT_EQ(g.seed, 7u);
  p.paths = 20000;
  EXPECT_EQ(sweep_gold_params(p).paths, 20000);
}

TEST(MontecarloEstimate, FromHandMadeSums) {
  // Payoffs 1, 2 and 3 units of 2: mean 2 units (price 4), sample variance 1 unit^2.
  const Uint128 q = Uint128{1} << 32;  // one unit
  PayoffSums s;
  s.sum = (1 + 2 + 3) * q;
  s.sum_sq = (1 + 4 + 9) * q * q;
  s.count = 3;
  const Estimate e = estimate_from(s, 2.0);
  EXPECT_EQ(e.price, 4.0);
  EXPECT_DOUBLE_EQ(e.standard_error, 2.0 / std::sqrt(3.0));
  EXPECT_EQ(e.samples, 3);
  EXPECT_DOUBLE_EQ(e.ci_low(), 4.0 - 1.959963984540054 * 2.0 / std::sqrt(3.0));
}

TEST(MontecarloEstimate, SumsBeyond64BitsConvertWhole) {
  // Payoffs of 256 and 768 units: q up to 3 * 2^40, so the sum of squares is 10 * 2^80,
  // well past 64 bits. Mean 512, variance 2 * 256^2, standard error sqrt(variance / 2) = 256.
  PayoffSums s;
  s.sum = Uint128{4} << 40;
  s.sum_sq = Uint128{10} << 80;
  s.count = 2;
  const Estimate e = estimate_from(s, 1.0);
  EXPECT_EQ(e.price, 512.0);
  EXPECT_DOUBLE_EQ(e.standard_error, 256.0);
}

TEST(MontecarloEstimate, TooFewSamplesHaveNoStandardError) {
  PayoffSums s;
  s.sum = Uint128{3} << 31;  // 1.5 units
  s.sum_sq = Uint128{9} << 62;
  s.count = 1;
  const Estimate one = estimate_from(s, 1.0);
  EXPECT_EQ(one.price, 1.5);
  EXPECT_TRUE(std::isnan(one.standard_error));
  const Estimate none = estimate_from(PayoffSums{}, 1.0);
  EXPECT_TRUE(std::isnan(none.price));
  EXPECT_EQ(none.samples, 0);
}

TEST(MontecarloEstimate, AConstantPayoffHasZeroError) {
  PayoffSums s;
  const Uint128 q = 123456789;
  s.count = 1000;
  s.sum = q * 1000;
  s.sum_sq = q * q * 1000;
  const Estimate e = estimate_from(s, 1.0);
  EXPECT_EQ(e.standard_error, 0.0);
  EXPECT_DOUBLE_EQ(e.price, 123456789.0 / kPayoffScale);
}

TEST(MontecarloEstimate, PriceUnitIsTheLargerOfSpotAndStrike) {
  Params p;
  p.spot = 2.0;
  p.strike = 3.0;
  EXPECT_EQ(price_unit(p), 3.0);
  p.strike = 1.0;
  EXPECT_EQ(price_unit(p), 2.0);
}

TEST(MontecarloParams, DefaultsAreValid) { EXPECT_NO_THROW(Params{}.validate()); }

void expect_rejected(const Params& p, const std::string& key) {
  try {
    p.validate();
    ADD_FAILURE() << "expected " << key << " to be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
  }
}

TEST(MontecarloParams, RejectsEachBadValueByItsKey) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const auto with = [](auto change) {
    Params p;
    change(p);
    return p;
  };
  expect_rejected(with([](Params& p) { p.paths = 0; }), "paths.count");
  expect_rejected(with([](Params& p) { p.paths = -5; }), "paths.count");
  expect_rejected(with([](Params& p) { p.antithetic = true; p.paths = 1001; }), "paths.count");
  expect_rejected(with([](Params& p) { p.steps = 0; }), "paths.steps");
  expect_rejected(with([](Params& p) { p.maturity = 0; }), "model.maturity");
  expect_rejected(with([&](Params& p) { p.maturity = inf; }), "model.maturity");
  expect_rejected(with([&](Params& p) { p.rate = nan; }), "model.rate");
  expect_rejected(with([](Params& p) { p.sigma = -0.1; }), "model.sigma");
  expect_rejected(with([](Params& p) { p.sigma = 0; }), "model.sigma");
  expect_rejected(with([&](Params& p) { p.sigma = nan; }), "model.sigma");
  expect_rejected(with([](Params& p) { p.rho = 1.5; }), "model.rho");
  expect_rejected(with([](Params& p) { p.rho = -1.0001; }), "model.rho");
  expect_rejected(with([&](Params& p) { p.rho = nan; }), "model.rho");
  expect_rejected(with([](Params& p) { p.spot = 0; }), "model.spot");
  expect_rejected(with([](Params& p) { p.strike = -1; }), "payoff.strike");
  expect_rejected(with([](Params& p) { p.block = 100; }), "method.block");
  expect_rejected(with([](Params& p) { p.block = 1024; }), "method.block");
  expect_rejected(with([](Params& p) { p.batch_paths = 0; }), "method.batch_paths");
  expect_rejected(with([](Params& p) { p.antithetic = true; p.batch_paths = 999; }),
                  "method.batch_paths");
  expect_rejected(with([](Params& p) { p.sample_paths = -1; }), "output.sample_paths");
  expect_rejected(with([](Params& p) { p.sample_paths = 10001; }), "output.sample_paths");
  expect_rejected(with([](Params& p) {
                    p.paths = 10;
                    p.sample_paths = 11;
                  }),
                  "output.sample_paths");
  // One stored path per sample: an antithetic pair stores its first path only.
  expect_rejected(with([](Params& p) { p.paths = 10; p.antithetic = true; p.sample_paths = 6; }),
                  "output.sample_paths");
}

TEST(MontecarloParams, AcceptsTheEdgesOfEachRange) {
  Params p;
  p.rho = -1.0;
  EXPECT_NO_THROW(p.validate());
  p.rho = 1.0;
  EXPECT_NO_THROW(p.validate());
  p.rate = -0.01;  // negative rates happen
  EXPECT_NO_THROW(p.validate());
  for (int b : kBlockSizes) {
    p.block = b;
    EXPECT_NO_THROW(p.validate()) << b;
  }
  p.paths = 1;
  p.steps = 1;
  p.batch_paths = 1;
  p.sample_paths = 1;
  EXPECT_NO_THROW(p.validate());
}

TEST(MontecarloParams, NamesConvertBothWays) {
  for (Variant v : kVariants) EXPECT_EQ(parse_variant(name(v)), v);
  for (Step s : {Step::euler, Step::exact}) EXPECT_EQ(parse_step(name(s)), s);
  for (Payoff p :
       {Payoff::digital, Payoff::european_call, Payoff::european_put, Payoff::asian_call})
    EXPECT_EQ(parse_payoff(name(p)), p);
  for (Generator g : {Generator::xorwow, Generator::philox, Generator::mrg32k3a})
    EXPECT_EQ(parse_generator(name(g)), g);
  for (Ordering o : {Ordering::legacy, Ordering::dynamic}) EXPECT_EQ(parse_ordering(name(o)), o);
  EXPECT_EQ(name(Variant::host_rng), "host-rng");
  EXPECT_EQ(name(Payoff::european_call), "european-call");
  EXPECT_EQ(name(Ordering::legacy), "default");
  try {
    parse_payoff("european_call");
    ADD_FAILURE() << "a misspelt payoff must be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("payoff \"european_call\" is not one of \"digital\", "
                                         "\"european-call\", \"european-put\", \"asian-call\""),
              0u)
        << e.what();
  }
}

TEST(MontecarloRun, WorkAndMemoryCountPathStepsAndFloats) {
  Params p;
  p.paths = 1000;
  p.steps = 30;
  p.sample_paths = 5;
  p.batch_paths = 400;
  EXPECT_EQ(path_steps(p), 30000.0);
  const double samples = 5.0 * 31 * 2 * sizeof(float);  // both assets at each of 31 times
  EXPECT_EQ(sample_path_bytes(p), samples);
  EXPECT_EQ(host_rng_bytes(p), 2.0 * sizeof(float) * 30 * 400 + samples);
  p.batch_paths = 1 << 20;  // a batch is never more than the run's paths
  EXPECT_EQ(host_rng_bytes(p), 2.0 * sizeof(float) * 30 * 1000 + samples);
}

TEST(MontecarloRun, OnlyHostRngOnTheGpuCutsWholeBatches) {
  Params p;
  p.variant = Variant::host_rng;
  EXPECT_TRUE(cuts_whole_batches(p, true));
  EXPECT_FALSE(cuts_whole_batches(p, false)) << "the gold draws each sample alone";
  p.variant = Variant::device_rng;
  EXPECT_FALSE(cuts_whole_batches(p, true));
}

TEST(MontecarloRun, TheRanksStoredRowsTileTheSamplePaths) {
  Params p;
  p.paths = 95;
  p.batch_paths = 10;
  p.sample_paths = 50;
  EXPECT_EQ(stored_rows(p, {32, 32}).first, 32);
  EXPECT_EQ(stored_rows(p, {32, 32}).count, 18) << "the rows end at sample_paths";
  EXPECT_EQ(stored_rows(p, {64, 31}).first, 50);
  EXPECT_EQ(stored_rows(p, {64, 31}).count, 0) << "a part past the stored paths has none";
  for (bool whole_batches : {false, true}) {
    std::int64_t next = 0;
    for (int rank = 0; rank < 3; ++rank) {
      const Samples rows = stored_rows(p, samples_of(p, rank, 3, whole_batches));
      EXPECT_EQ(rows.first, next) << "rank " << rank;
      next += rows.count;
    }
    EXPECT_EQ(next, p.sample_paths);
  }
}

std::vector<std::string> phase_names(const PhaseTimer& timings) {
  std::vector<std::string> names;
  for (const auto& [phase, seconds] : timings.phases()) names.push_back(phase);
  return names;
}

Params small_call() {
  Params p = european(Payoff::european_call);
  p.paths = 2000;
  return p;
}

TEST(MontecarloRun, OnOneRankTheRunIsAlreadyWhole) {
  comm::Context context;
  const Params p = small_call();
  const Result mine = solve_gold(p);
  const Result whole = whole_run(context, p, mine);
  EXPECT_EQ(whole.estimate.price, mine.estimate.price);
  EXPECT_EQ(whole.estimate.standard_error, mine.estimate.standard_error);
  EXPECT_EQ(whole.sums.count, mine.sums.count);
  EXPECT_EQ(whole.seconds, mine.seconds);
}

TEST(MontecarloRun, ACpuRunIsItsOwnGoldAndAGpuRunIsJudgedByTheGoldOnItsSamples) {
  comm::Context context;
  const Params p = small_call();
  const Estimate e = solve_gold(p).estimate;
  Estimate off = e;
  off.price += 10 * e.standard_error;  // 10 / sqrt(2) standard errors of the difference
  const Agreement cpu = check_run(p, off, false, {}, context);
  EXPECT_EQ(cpu.value, 0.0) << "the CPU run is the gold itself";
  EXPECT_EQ(cpu.values[0].second, off.price);
  const Agreement gpu = check_run(p, off, true, {}, context);
  EXPECT_EQ(gpu.values[0].second, e.price) << "the gold's own estimate";
  EXPECT_NEAR(gpu.value, 10 / std::sqrt(2.0), 1e-9);
  EXPECT_FALSE(gpu.passed());
  // A rank's part is judged by the gold on the same samples.
  const Samples part{500, 700};
  EXPECT_EQ(check_run(p, solve_gold(p, {}, part).estimate, true, part, context).value, 0.0);
}

TEST(MontecarloSweep, TimesEachVariantAtEachBlockAndHostRngAtBothOrderings) {
  Params p;
  p.paths = 12345;
  p.seed = 9;
  const std::vector<Params> configurations = sweep_configurations(p);
  ASSERT_EQ(configurations.size(), 3 * kBlockSizes.size());
  std::size_t device_rng = 0, legacy = 0, dynamic = 0;
  for (const Params& q : configurations) {
    EXPECT_EQ(q.paths, p.paths);
    EXPECT_EQ(q.seed, p.seed);
    EXPECT_NE(std::find(kBlockSizes.begin(), kBlockSizes.end(), q.block), kBlockSizes.end());
    if (q.variant == Variant::device_rng) ++device_rng;
    else if (q.ordering == Ordering::legacy) ++legacy;
    else ++dynamic;
  }
  EXPECT_EQ(device_rng, kBlockSizes.size());
  EXPECT_EQ(legacy, kBlockSizes.size());
  EXPECT_EQ(dynamic, kBlockSizes.size());
}

// What a run needs is checked device first, then host, each naming the key a user would lower.
TEST(MontecarloSummary, RunNeedsNameTheirKeysDeviceFirst) {
  Params p;
  p.variant = Variant::host_rng;
  p.sample_paths = 10;
  const auto keys = [](const std::vector<MemoryNeed>& needs) {
    std::vector<std::string> k;
    for (const MemoryNeed& n : needs) k.push_back(n.key + (n.device ? " device" : " host"));
    return k;
  };
  EXPECT_EQ(keys(run_needs(p, /*gpu=*/true, /*check=*/true, 100)),
            (std::vector<std::string>{"output.sample_paths device", "method.batch_paths device",
                                      "output.sample_paths host", "paths.count host"}));
  EXPECT_EQ(keys(run_needs(p, /*gpu=*/false, /*check=*/false, 100)),
            (std::vector<std::string>{"output.sample_paths host", "paths.count host"}));
  // A GPU run checked against the gold holds the stored paths twice on the host.
  EXPECT_EQ(run_needs(p, true, true, 100)[2].bytes, 2 * sample_path_bytes(p));
  p.variant = Variant::device_rng;
  EXPECT_EQ(device_needs(p).size(), 1u);
}

TEST(MontecarloSummary, TheProblemClassNamesWhatPicksTheKernel) {
  Params p;
  p.paths = 9600000;
  p.steps = 256;
  p.antithetic = true;
  EXPECT_EQ(problem_class(p), "paths=9600000,steps=256," + std::string(name(p.payoff)) + "," +
                                  std::string(name(p.step)) + ",antithetic");
}

// A basket run refuses, naming the key at fault, what it cannot do.
TEST(MontecarloSummary, ABasketRunRefusesRestartsRanksAndTooManyAssetsForLsmOnTheGpu) {
  BasketParams p;
  const auto key_refused = [&](bool gpu, int ranks, bool restart) {
    try {
      refuse_basket_run(p, gpu, ranks, restart);
    } catch (const InputError& e) {
      return e.key();
    }
    return std::string();
  };
  EXPECT_EQ(key_refused(true, 1, false), "");
  EXPECT_EQ(key_refused(false, 1, true), "--restart");
  EXPECT_EQ(key_refused(false, 2, false), "model.kind");
  p.payoff = BasketPayoff::american_put;
  p.spots.assign(kRegistersUpTo + 1, 1.0);
  EXPECT_EQ(key_refused(false, 1, false), "");  // the CPU gold takes any count
  EXPECT_EQ(key_refused(true, 1, false), "model.spots");
}

TEST(MontecarloSummary, OnlyHostRngOnTheGpuRefusesCheckpoints) {
  Params p;
  p.variant = Variant::host_rng;
  EXPECT_THROW(refuse_checkpoints(p, /*gpu=*/true), InputError);
  EXPECT_NO_THROW(refuse_checkpoints(p, /*gpu=*/false));
  p.variant = Variant::device_rng;
  EXPECT_NO_THROW(refuse_checkpoints(p, /*gpu=*/true));
}

// A rank's part on one rank: every sample, solved whole or a round of batches at a time to the
// same bits, and its stored paths the whole field's rows.
TEST(MontecarloRankPart, OneRankSolvesEverySampleWholeOrInRoundsToTheSameBits) {
  Params p = small_call();
  p.batch_paths = 300;
  p.sample_paths = 7;
  RankPart part(p, /*gpu=*/false, 0, 1);
  EXPECT_EQ(part.samples().first, 0);
  EXPECT_EQ(part.samples().count, samples_of(p, 0, 1, false).count);
  EXPECT_EQ(part.rounds(), 7) << "2000 paths in batches of 300";
  EXPECT_EQ(part.restart_may_change(), std::set<std::string>{"paths.count"});
  EXPECT_EQ(RankPart(p, false, 0, 2).restart_may_change(), std::set<std::string>{})
      << "across ranks the path count cuts the samples";
  EXPECT_EQ(part.decomposition(), "samples by global sample index");
  EXPECT_EQ(part.from(), nullptr);
  EXPECT_NO_THROW(part.use_checkpoints(true, nullptr)) << "the gold draws by counters";

  const Result whole = part.solve({}, Checkpoints{});
  EXPECT_EQ(whole.estimate.price, solve_gold(p).estimate.price);
  std::int64_t rounds_met = 0;
  Checkpoints points;
  points.at = [&](std::int64_t) {
    ++rounds_met;
    return AtSafePoint::go_on;
  };
  const Result in_rounds = part.solve({}, points);
  EXPECT_EQ(rounds_met, part.rounds());
  EXPECT_TRUE(in_rounds.sums.sum == whole.sums.sum);
  EXPECT_EQ(in_rounds.estimate.price, whole.estimate.price);
  EXPECT_EQ(in_rounds.sample, whole.sample);

  const RankPart::SampleField f = part.stored(whole);
  EXPECT_EQ(f.dataset, "/fields/sample_paths");
  EXPECT_EQ(f.dims, (std::vector<std::uint64_t>{7, 21, 2}));
  EXPECT_EQ(f.first, 0u);
  EXPECT_EQ(f.count, 7u);
  EXPECT_EQ(f.values, whole.sample.data());
  ASSERT_EQ(f.attributes.size(), 2u);
  EXPECT_EQ(std::get<double>(f.attributes[1].second), p.maturity / 20);
}

TEST(MontecarloRankPart, HostRngOnTheGpuCutsWholeBatchesAndRefusesCheckpoints) {
  Params p = small_call();
  p.variant = Variant::host_rng;
  RankPart part(p, /*gpu=*/true, 1, 2);
  EXPECT_EQ(part.decomposition(), "whole batches of samples, by global sample index");
  EXPECT_EQ(part.samples().first, samples_of(p, 1, 2, true).first);
  EXPECT_NO_THROW(part.use_checkpoints(false, nullptr));
  try {
    part.use_checkpoints(true, nullptr);
    ADD_FAILURE() << "host-rng on the GPU checkpointed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.variant");
    EXPECT_EQ(e.source(), "") << "the caller's table has the source";
  }
}

// What a run records and says, in the order it says it.
TEST(MontecarloSummary, AReportIsTheEstimateTheRateAndTheirLines) {
  Result r;
  r.estimate = {0.5, 0.01, 1000};
  r.seconds = 2.0;
  const Params p = small_call();
  const Report report = montecarlo::report(p, r);
  ASSERT_EQ(report.attributes.size(), 2u);
  EXPECT_EQ(report.attributes[0].first, "/estimate");
  EXPECT_EQ(report.attributes[0].second.size(), estimate_attributes(r.estimate).size());
  EXPECT_EQ(report.attributes[1].first, "/timings");
  EXPECT_EQ(report.lines, (std::vector<std::string>{price_line(r.estimate),
                                                    rate_line(2.0, path_steps(p))}));
  // A run's phases, as the gold adds them: generate (none on the CPU), then paths.
  EXPECT_EQ(phase_names(solve_gold(p).timings), (std::vector<std::string>{"generate", "paths"}));
}

TEST(MontecarloSummary, ABasketReportAddsItsGreeksAndLinesBeforeTheRate) {
  BasketParams p;
  p.spots = {1.0, 1.0};
  p.payoff = BasketPayoff::arithmetic_basket_call;
  BasketResult r;
  r.price = {0.3, 0.01, 100};
  r.delta = {{0.5, 0.02, 100}, {0.4, 0.02, 100}};
  r.seconds = 2.0;
  const Report report = montecarlo::report(p, r);
  ASSERT_EQ(report.attributes.size(), 3u);
  EXPECT_EQ(report.attributes[2].first, "/greeks");
  EXPECT_FALSE(report.attributes[2].second.empty());
  ASSERT_EQ(report.lines.size(), 3u);
  EXPECT_EQ(report.lines[0], price_line(r.price));
  EXPECT_EQ(report.lines[1], basket_lines(p, r)[0]);
  EXPECT_EQ(report.lines[2], rate_line(2.0, path_steps(p)));
  EXPECT_EQ(run_method(p), std::string(name(p.resolved_variant())));
  p.payoff = BasketPayoff::american_put;
  EXPECT_EQ(run_method(p), "Longstaff-Schwartz");
  EXPECT_EQ(problem_class(p).rfind("paths=", 0), 0u);
  // A run's phases, as the gold adds them: simulate, and with early exercise regress and price.
  BasketParams one;  // the defaults' one asset
  one.paths = 1000;
  EXPECT_EQ(phase_names(solve_basket_gold(one).timings), (std::vector<std::string>{"simulate"}));
  one.payoff = BasketPayoff::american_put;
  EXPECT_EQ(phase_names(solve_basket_gold(one).timings),
            (std::vector<std::string>{"simulate", "regress", "price"}));
}

// A sweep times the run's model without its stored paths, against one gold.
TEST(MontecarloSweep, TheTwoAssetSweepNeedsHostRngsNormalsAndSaysItsGold) {
  Params p = small_call();
  p.sample_paths = 10;
  p.variant = Variant::device_rng;
  const Params swept = sweep_params(p);
  EXPECT_EQ(swept.sample_paths, 0);
  EXPECT_EQ(sweep_needs(p).size(), 2u) << "the sweep runs host-rng too";
  const SweepGold gold = sweep_gold(swept);
  EXPECT_EQ(gold.paths, p.paths);
  EXPECT_EQ(gold.estimate.price, solve_gold(sweep_gold_params(swept)).estimate.price);
  const std::string header = describe_sweep(swept, "a device", gold);
  EXPECT_EQ(header.find(describe_model(swept) + " on a device; gold"), 0u) << header;
  EXPECT_EQ(sweep_attributes(swept, gold).size(), 5u);
}

TEST(MontecarloSweep, ABasketSweepTimesEachVariantThatHoldsItsAssetsAndNoEarlyExercise) {
  BasketParams p;
  p.spots.assign(kRegistersUpTo + 1, 1.0);
  p.payoff = BasketPayoff::geometric_basket;
  EXPECT_NO_THROW(check_sweep(p));
  EXPECT_TRUE(sweep_needs(p).empty());
  EXPECT_EQ(sweep_gold(p).paths, 0) << "the closed form judges";
  const std::vector<BasketParams> configurations = sweep_configurations(p);
  ASSERT_EQ(configurations.size(), 1u) << "registers holds at most kRegistersUpTo assets";
  EXPECT_EQ(configurations[0].variant, BasketVariant::cublas);
  EXPECT_EQ(describe_sweep(p, "a device", {}), describe_model(p) + " on a device");
  p.payoff = BasketPayoff::american_put;
  try {
    check_sweep(p);
    ADD_FAILURE() << "an early-exercise sweep";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "payoff.kind");
  }
}

}  // namespace
}  // namespace parasol::montecarlo
