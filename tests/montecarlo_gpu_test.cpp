// The GPU Monte Carlo against closed forms, the course's figure and the CPU gold (statistically),
// and device-rng's reproducibility across launch shapes (bitwise).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/stream.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/montecarlo.hpp"
#include "solvers/montecarlo/run.hpp"
#include "solvers/montecarlo/study.hpp"
#include "tests/support.hpp"

namespace parasol::montecarlo {
namespace {

// Within `k` standard errors of an exact value.
void expect_within(double value, double expected, double standard_error,
                   double k = kStandardErrors) {
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(standard_error, 0.0);
  EXPECT_LE(std::abs(value - expected), k * standard_error)
      << value << " vs " << expected << " (standard error " << standard_error << ")";
}

Params european(Payoff payoff, Variant v) {
  Params p;
  p.paths = 2000000;
  p.steps = 16;
  p.sigma = 0.2;
  p.rate = 0.05;
  p.spot = 1.0;
  p.strike = 1.05;
  p.step = Step::exact;
  p.payoff = payoff;
  p.variant = v;
  p.seed = test::kSeed;
  return p;
}

class EachVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(EachVariant, ExactStepEuropeanMatchesBlackScholes) {
  PARASOL_REQUIRE_GPU();
  for (Payoff payoff : {Payoff::european_call, Payoff::european_put}) {
    const Params p = european(payoff, GetParam());
    const Result r = solve_gpu(p);
    SCOPED_TRACE(std::string(name(payoff)));
    EXPECT_EQ(r.estimate.samples, p.paths);
    expect_within(r.estimate.price, black_scholes(p), r.estimate.standard_error);
  }
}

TEST_P(EachVariant, DigitalReproducesTheCourseFigure) {
  PARASOL_REQUIRE_GPU();
  Params p;  // the course's model: sigma 0.1, rho 0.5, r 0.05, T 1, 100 Euler steps
  p.paths = 9600000;
  p.variant = GetParam();
  p.seed = test::kSeed;
  const Result r = solve_gpu(p);
  expect_within(r.estimate.price, 0.4179, r.estimate.standard_error);
  EXPECT_LT(r.estimate.standard_error, 2e-4);
}

TEST_P(EachVariant, AgreesWithTheGoldForEveryPayoffAndStep) {
  PARASOL_REQUIRE_GPU();
  for (Step step : {Step::euler, Step::exact})
    for (Payoff payoff : {Payoff::digital, Payoff::european_call, Payoff::european_put, Payoff::asian_call}) {
      Params p;
      p.paths = 200000;
      p.steps = 21;  // odd: the last step uses half a Philox draw
      p.sigma = 0.25;
      p.step = step;
      p.payoff = payoff;
      p.variant = GetParam();
      const Result gpu = solve_gpu(p);
      const Result gold = solve_gold(p);
      SCOPED_TRACE(std::string(name(step)) + " " + std::string(name(payoff)));
      const Agreement a = agreement(gpu.estimate, gold.estimate);
      EXPECT_TRUE(a.judged());
      EXPECT_TRUE(a.passed()) << a.description;
      // Both estimate the same variance.
      EXPECT_NEAR(gpu.estimate.standard_error / gold.estimate.standard_error, 1.0, 0.05);
    }
}

TEST_P(EachVariant, AntitheticLowersTheStandardError) {
  PARASOL_REQUIRE_GPU();
  Params p = european(Payoff::european_call, GetParam());
  const Result plain = solve_gpu(p);
  p.antithetic = true;
  const Result paired = solve_gpu(p);
  EXPECT_EQ(paired.estimate.samples, p.paths / 2);
  EXPECT_LT(paired.estimate.standard_error, plain.estimate.standard_error);
  expect_within(paired.estimate.price, black_scholes(p), paired.estimate.standard_error);
}

TEST_P(EachVariant, AwkwardSizes) {
  PARASOL_REQUIRE_GPU();
  for (std::int64_t paths : {1, 2, 3, 1021}) {
    for (std::int64_t steps : {1, 2, 7}) {
      Params p;
      p.paths = paths;
      p.steps = steps;
      p.payoff = Payoff::european_call;
      p.variant = GetParam();
      p.batch_paths = 256;
      const Result r = solve_gpu(p);
      EXPECT_EQ(r.estimate.samples, paths);
      EXPECT_TRUE(std::isfinite(r.estimate.price)) << paths << " paths, " << steps << " steps";
      EXPECT_GE(r.estimate.price, 0.0);
    }
  }
}

std::string variant_name(const ::testing::TestParamInfo<Variant>& param) {
  return param.param == Variant::host_rng ? "host_rng" : "device_rng";
}

INSTANTIATE_TEST_SUITE_P(Variants, EachVariant,
                         ::testing::Values(Variant::host_rng, Variant::device_rng), variant_name);

TEST_P(EachVariant, SimulatorRunsAgainWithoutSetUp) {
  PARASOL_REQUIRE_GPU();
  Params p = european(Payoff::european_call, GetParam());
  p.paths = 300000;
  p.batch_paths = 100000;  // three batches
  p.sample_paths = 2;
  p.ordering = Ordering::legacy;  // cuRAND's reproducible ordering: the same normals every set-up
  Stream stream;
  Simulator simulator(p, stream);
  simulator.run();
  const Estimate first = simulator.estimate();
  const std::vector<float> first_sample = simulator.sample();
  simulator.run();
  const Estimate second = simulator.estimate();
  EXPECT_EQ(second.samples, p.paths);
  EXPECT_GT(simulator.timings().seconds(kPathsPhase), 0.0);
  const Result whole = solve_gpu(p);
  if (GetParam() == Variant::device_rng) {
    // The same paths every run, and the same as a whole solve.
    EXPECT_EQ(second.price, first.price);
    EXPECT_EQ(second.standard_error, first.standard_error);
    EXPECT_EQ(first.price, whole.estimate.price);
    EXPECT_EQ(first_sample, whole.sample);
  } else {
    // The generator goes on: a fresh estimate, its first run the same as a whole solve's.
    EXPECT_NE(second.price, first.price);
    EXPECT_EQ(first.price, whole.estimate.price);
    EXPECT_GT(simulator.timings().seconds(kGeneratePhase), 0.0);
  }
  for (const Estimate& e : {first, second}) expect_within(e.price, black_scholes(p), e.standard_error);
}

TEST_P(EachVariant, ProgressComesBatchByBatch) {
  PARASOL_REQUIRE_GPU();
  Params p = european(Payoff::european_call, GetParam());
  p.paths = 100002;
  p.antithetic = true;
  p.batch_paths = 20000;  // 10000 pairs a batch: six batches, the last 2 paths
  std::vector<Progress> reports;
  const Result r = solve_gpu(p, [&](const Progress& pr) { reports.push_back(pr); });
  ASSERT_EQ(reports.size(), 6u) << "one a batch, a batch behind, then the end";
  for (std::size_t i = 0; i + 1 < reports.size(); ++i)
    EXPECT_EQ(reports[i].paths, 20000 * static_cast<std::int64_t>(i + 1));
  EXPECT_EQ(reports.back().paths, p.paths);
  EXPECT_EQ(reports.back().total_paths, p.paths);
  EXPECT_EQ(r.estimate.samples, p.paths / 2);
  if (GetParam() == Variant::device_rng) {
    EXPECT_EQ(r.estimate.price, solve_gpu(p).estimate.price) << "progress changes nothing";
  }
}

TEST(DeviceRng, BitIdenticalAcrossBlockShapesAndBatchSizes) {
  PARASOL_REQUIRE_GPU();
  for (Payoff payoff : {Payoff::digital, Payoff::asian_call}) {
    for (bool antithetic : {false, true}) {
      Params p;
      p.paths = 300002;
      p.steps = 33;
      p.payoff = payoff;
      p.antithetic = antithetic;
      p.sample_paths = 3;
      p.batch_paths = p.paths;
      const Result reference = solve_gpu(p);
      for (int block : kBlockSizes)
        for (std::int64_t batch : {std::int64_t{65536}, std::int64_t{99998}, std::int64_t{300002}}) {
          p.block = block;
          p.batch_paths = batch;
          const Result r = solve_gpu(p);
          SCOPED_TRACE("block " + std::to_string(block) + ", batch " + std::to_string(batch));
          EXPECT_EQ(r.estimate.price, reference.estimate.price);
          EXPECT_EQ(r.estimate.standard_error, reference.estimate.standard_error);
          EXPECT_EQ(r.sample, reference.sample);
        }
    }
  }
}

TEST(DeviceRng, SamplePathsStartAtTheSpotAndStayFinite) {
  PARASOL_REQUIRE_GPU();
  Params p;
  p.paths = 1000;
  p.steps = 10;
  p.spot = 2.0;
  p.sample_paths = 4;
  const Result r = solve_gpu(p);
  ASSERT_EQ(r.sample.size(), 4u * 11u * 2u);
  for (int path = 0; path < 4; ++path) {
    EXPECT_EQ(r.sample[static_cast<std::size_t>(path * 22)], 2.0f);
    EXPECT_EQ(r.sample[static_cast<std::size_t>(path * 22 + 1)], 2.0f);
  }
  for (float v : r.sample) EXPECT_TRUE(std::isfinite(v) && v > 0);
}

TEST(HostRng, BothOrderingsGiveSoundEstimates) {
  PARASOL_REQUIRE_GPU();
  for (Ordering ordering : {Ordering::legacy, Ordering::dynamic}) {
    Params p = european(Payoff::european_call, Variant::host_rng);
    p.ordering = ordering;
    p.batch_paths = 300000;  // several batches
    const Result r = solve_gpu(p);
    SCOPED_TRACE(std::string(name(ordering)));
    expect_within(r.estimate.price, black_scholes(p), r.estimate.standard_error);
    EXPECT_GT(r.timings.seconds(kGeneratePhase), 0.0);
    EXPECT_GT(r.timings.seconds(kPathsPhase), 0.0);
  }
}

// A rank's part on the device: a round of batches at a time between checkpoints gives the bits
// of one solve of its samples.
TEST(MontecarloGpu, ARankPartInRoundsGivesTheWholeSolvesBits) {
  PARASOL_REQUIRE_GPU();
  Params p;
  p.variant = Variant::device_rng;
  p.paths = 100000;
  p.batch_paths = 16384;
  p.sample_paths = 5;
  const RankPart part(p, /*gpu=*/true, 0, 1);
  const Result whole = part.solve({}, Checkpoints{});
  Checkpoints points;
  points.at = [](std::int64_t) { return AtSafePoint::go_on; };
  const Result rounds = part.solve({}, points);
  EXPECT_TRUE(rounds.sums.sum == whole.sums.sum && rounds.sums.sum_sq == whole.sums.sum_sq);
  EXPECT_EQ(rounds.estimate.price, whole.estimate.price);
  EXPECT_EQ(rounds.sample, whole.sample);
}

// A sweep refuses, at method.block, a block the device cannot launch.
TEST(MontecarloGpu, ASweepRefusesABlockTheDeviceCannotLaunch) {
  PARASOL_REQUIRE_GPU();
  Params p;
  p.block = 4096;
  try {
    check_sweep(p);
    ADD_FAILURE() << "a block of 4096 threads was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.block");
  }
  p.block = 256;
  EXPECT_NO_THROW(check_sweep(p));
}

}  // namespace
}  // namespace parasol::montecarlo
