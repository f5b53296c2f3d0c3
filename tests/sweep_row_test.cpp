// The sweep-row protocol (kernels/sweep_row.hpp) on the CPU: fakes for a solver's steps and its
// timing, so the order of the steps and what a failure does to a row are judged without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/stream.hpp"
#include "kernels/sweep_row.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

// An agreement whose measure is `value`, judged by a tolerance of 1.
Agreement within_one(double value) {
  Agreement a;
  a.measure = "max_abs_difference";
  a.value = value;
  a.tolerance = 1;
  return a;
}

// A solver's steps that write each call in `calls`; the output is a number that a run sets to 0
// (agreeing with the gold) and poisoning sets to NaN. Timing runs the timed run three times, one
// second each.
struct FakeSolver {
  std::vector<std::string> calls;
  double output = 0;

  RowSteps steps() {
    RowSteps s;
    s.method = "fake 32x8x1";
    s.poison = [this] {
      calls.push_back("poison");
      output = std::numeric_limits<double>::quiet_NaN();
    };
    s.run = [this] {
      calls.push_back("run");
      output = 0;
    };
    s.check = [this] {
      calls.push_back("check");
      return within_one(output);
    };
    s.time = [this](const std::function<void()>& run) {
      calls.push_back("time");
      std::vector<double> seconds;
      for (int r = 0; r < 3; ++r) {
        run();
        seconds.push_back(1.0);
      }
      return seconds;
    };
    return s;
  }
};

TEST(SweepRow, PoisonsRunsChecksWarmsUpTimesAndChecksAgainInThatOrder) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.warm_up = [&] { solver.calls.push_back("warm-up"); };
  steps.timed = [&] { solver.calls.push_back("timed"); };
  steps.recheck = [&] {
    solver.calls.push_back("recheck");
    return within_one(0);
  };
  const RowOutcome row = measure_row(steps);
  const std::vector<std::string> expected{"poison", "run",   "check", "warm-up", "time",
                                          "timed",  "timed", "timed", "recheck"};
  EXPECT_EQ(solver.calls, expected);
  EXPECT_EQ(row.seconds, std::vector<double>({1.0, 1.0, 1.0}));
  EXPECT_TRUE(row.agreement.passed());
  EXPECT_TRUE(row.failure.empty());
}

TEST(SweepRow, WithoutItsOwnStepsWarmsUpWithARunAndChecksAgainWithTheCheck) {
  FakeSolver solver;
  const RowOutcome row = measure_row(solver.steps());
  const std::vector<std::string> expected{"poison", "run", "check", "run", "time",
                                          "run",    "run", "run",   "check"};
  EXPECT_EQ(solver.calls, expected);
  EXPECT_TRUE(row.agreement.passed());
}

TEST(SweepRow, ARunThatLeavesThePoisonFailsItsCheckAndTheRowIsStillTimed) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.run = [&] { solver.calls.push_back("run"); };  // writes nothing
  const RowOutcome row = measure_row(steps);
  EXPECT_FALSE(row.agreement.passed());
  EXPECT_TRUE(std::isnan(row.agreement.value));
  EXPECT_EQ(row.seconds.size(), 3u);  // the table shows its time beside the failed check
}

TEST(SweepRow, TheRecheckCatchesATimedRunThatWentWrong) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  int timed = 0;
  // The warm-up and three timed runs; the last goes wrong.
  steps.timed = [&] { solver.output = ++timed == 4 ? 5.0 : 0.0; };
  const RowOutcome row = measure_row(steps);
  EXPECT_FALSE(row.agreement.passed());
  EXPECT_EQ(row.agreement.value, 5.0);  // the value that failed, not the first check's
  EXPECT_EQ(row.seconds.size(), 3u);
}

TEST(SweepRow, APassingRecheckKeepsTheFirstChecksValue) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  int checks = 0;
  steps.check = [&] { return within_one(checks++ == 0 ? 0.25 : 0.5); };
  steps.run = [&] {};
  steps.timed = [&] { solver.calls.push_back("timed"); };
  const RowOutcome row = measure_row(steps);
  EXPECT_EQ(row.agreement.value, 0.25);
}

TEST(SweepRow, ACudaErrorTheContextSurvivesFailsOnlyItsRowNamingTheMethod) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.warm_up = [] {
    throw CudaError(cudaErrorInvalidConfiguration, "launch.cu:12: too many resources requested");
  };
  const RowOutcome failed = measure_row(steps);
  EXPECT_TRUE(failed.seconds.empty());
  EXPECT_EQ(failed.failure, "fake 32x8x1: launch.cu:12: too many resources requested");
  // The sweep goes on: the next row measures as any other.
  FakeSolver next;
  const RowOutcome row = measure_row(next.steps());
  EXPECT_EQ(row.seconds.size(), 3u);
  EXPECT_TRUE(row.failure.empty());
}

TEST(SweepRow, AStickyCudaErrorEndsTheSweep) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.run = [] { throw CudaError(cudaErrorIllegalAddress, "an illegal memory access"); };
  EXPECT_THROW(measure_row(steps), CudaError);
}

TEST(SweepRow, AcrossRanksEveryCudaErrorEndsTheSweep) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.fail_alone = false;
  steps.run = [] { throw CudaError(cudaErrorInvalidConfiguration, "too many resources"); };
  EXPECT_THROW(measure_row(steps), CudaError);
}

TEST(SweepRow, OtherErrorsAreNotTheRowsToKeep) {
  FakeSolver solver;
  RowSteps steps = solver.steps();
  steps.check = []() -> Agreement { throw InputError("signal.file", "key", "a file"); };
  EXPECT_THROW(measure_row(steps), InputError);
}

// On a device, with timed_on's CUDA events: the poison is there when the run starts, the run's
// output when the check reads it, and the repeats asked for are timed.
TEST(SweepRow, OnADeviceTheStepsRunInTheStreamsOrderAndTheRepeatsAreTimed) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  DeviceBuffer<float> y(4096);
  std::vector<double> checked;
  RowSteps steps;
  steps.method = "fill";
  steps.poison = [&] { fill_bytes(y, 0xFF, stream.get()); };  // all bits set: NaN
  steps.run = [&] { fill_bytes(y, 0, stream.get()); };
  steps.check = [&] {
    double worst = 0;
    for (float v : download(y, stream.get())) worst = std::isnan(v) ? v : std::max(worst, double{v});
    checked.push_back(worst);
    return within_one(worst);
  };
  steps.time = timed_on(stream.get(), Repeats{5});
  const RowOutcome row = measure_row(steps);
  EXPECT_EQ(checked, std::vector<double>({0.0, 0.0}));  // the check and the re-check
  EXPECT_TRUE(row.agreement.passed());
  ASSERT_EQ(row.seconds.size(), 5u);
  for (double s : row.seconds) EXPECT_GE(s, 0.0);
}

}  // namespace
}  // namespace parasol
