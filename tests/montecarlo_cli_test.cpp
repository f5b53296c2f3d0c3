// montecarlo through the front end, as a user meets it: the example file runs on the CPU and its
// result holds the estimate; bad parameters give one line naming the key, status 2, no file.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
using test::number;
const std::filesystem::path kExample =
    std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs/montecarlo.toml";

class MontecarloCli : public ::testing::Test {
 protected:
  // The example file on the CPU with 20000 paths (a fraction of a second), output in the scratch
  // folder, more overrides or options after.
  test::CommandResult run_example(const std::string& args = "") {
    return test::run_shell(kExe + " run " + quoted(kExample) +
                           " --backend cpu paths.count=20000 -o " + quoted(dir_ / "m.h5") + " " +
                           args);
  }
  test::CommandResult run_file(const std::string& text, const std::string& args = "") {
    const auto params = dir_ / "p.toml";
    std::ofstream(params) << text;
    return test::run_shell(kExe + " run " + quoted(params) + " --backend cpu -o " +
                           quoted(dir_ / "m.h5") + " " + args);
  }
  // An input error: status 2, one line naming what is wrong, nothing written.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml"});
  }
  test::ScratchDir dir_;
};

TEST_F(MontecarloCli, ExampleRunsOnTheCpuAndStoresTheEstimate) {
  const auto r = run_example();
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  EXPECT_TRUE(contains(r.output, "95% CI")) << r.output;
  EXPECT_TRUE(contains(r.output, "Gpath-steps/s")) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir_ / "m.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "m.xmf")) << "no grid, so no XDMF";

  io::ResultReader h5(dir_ / "m.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/", "solver")), "montecarlo");
  const double price = number(h5, "/estimate", "price");
  const double error = number(h5, "/estimate", "standard_error");
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/estimate", "samples")), 20000);
  EXPECT_GT(error, 0.0);
  EXPECT_NEAR(price, 0.4179, 4 * error) << "the course's digital";
  EXPECT_NEAR(number(h5, "/estimate", "ci95_low"), price - 1.959963984540054 * error, 1e-12);
  EXPECT_NEAR(number(h5, "/estimate", "ci95_high"), price + 1.959963984540054 * error, 1e-12);
  for (const char* name : {"generate_s", "paths_s", "total_s", "path_steps_per_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", name)) << name;
  EXPECT_GT(number(h5, "/timings", "total_s"), 0.0);
  // The override and the defaults are stored: the fully resolved parameters.
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/parameters", "paths.count")), 20000);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "payoff.kind")), "digital");
  EXPECT_EQ(std::get<bool>(h5.attribute("/parameters", "method.antithetic")), false);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "cpu");
  EXPECT_FALSE(h5.exists("/fields/sample_paths"));
  EXPECT_FALSE(h5.exists("/check"));
}

TEST_F(MontecarloCli, StoresSamplePathsWhenAsked) {
  const auto r = run_example("output.sample_paths=5 paths.steps=30");
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "m.h5");
  EXPECT_EQ(h5.dims("/fields/sample_paths"), (std::vector<std::uint64_t>{5, 31, 2}));
  const std::vector<float> x = h5.read_floats("/fields/sample_paths");
  ASSERT_EQ(x.size(), 5u * 31u * 2u);
  for (std::size_t path = 0; path < 5; ++path) {
    EXPECT_EQ(x[path * 31 * 2], 1.0f) << "S1(0) is the spot";
    EXPECT_EQ(x[path * 31 * 2 + 1], 1.0f) << "S2(0) is the spot";
  }
  for (float v : x) ASSERT_TRUE(std::isfinite(v) && v > 0);
  EXPECT_NEAR(number(h5, "/fields/sample_paths", "dt"), 1.0 / 30, 1e-15);
}

TEST_F(MontecarloCli, CheckComparesWithTheGold) {
  const auto r =
      run_example("--check payoff.kind=european-call method.step=exact method.antithetic=true");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "check against the CPU gold solver")) << r.output;
  EXPECT_FALSE(contains(r.output, "warning")) << r.output;
  io::ResultReader h5(dir_ / "m.h5");
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/estimate", "samples")), 10000);
  // On the CPU the run is the gold itself: the same seed, the same bits.
  EXPECT_EQ(number(h5, "/check", "gold_price"), number(h5, "/estimate", "price"));
  EXPECT_EQ(number(h5, "/check", "gold_standard_error"), number(h5, "/estimate", "standard_error"));
  EXPECT_EQ(number(h5, "/check", "difference"), 0.0);
  EXPECT_EQ(number(h5, "/check", "difference_in_standard_errors"), 0.0);
}

TEST_F(MontecarloCli, BadValuesNameTheirKey) {
  expect_input_error(run_example("model.sigma=-0.1"),
                     "command line: model.sigma: expected a positive volatility, got -0.1");
  expect_input_error(run_example("model.rho=1.5"),
                     "command line: model.rho: expected a correlation in [-1, 1], got 1.5");
  expect_input_error(run_example("paths.count=0"),
                     "command line: paths.count: expected a positive integer, got 0");
  // Paths are float: a spot that grows past float's range along a path is refused.
  expect_input_error(run_example("model.spot=3e38"),
                     "command line: model.spot: expected a magnitude of at most");
  expect_input_error(run_example("method.antithetic=true paths.count=20001"),
                     "paths.count: expected an even number with method.antithetic");
  expect_input_error(
      run_example("method.block=100"),
      "method.block: threads per block 100 is not compiled in; compiled: 64 128 256 512");
  expect_input_error(run_example("output.sample_paths=20001"),
                     "output.sample_paths: expected an integer");
  expect_input_error(run_example("method.seed=-1"), "method.seed: expected an integer >= 0");
}

TEST_F(MontecarloCli, APathCountPastTheCpuSolversMemoryIsRefusedAtOnce) {
  // The CPU solver keeps a sum for each 16384 samples: 1e15 paths would need about 3 TB of them.
  const auto start = std::chrono::steady_clock::now();
  expect_input_error(run_example("paths.count=1000000000000000"),
                     "command line: paths.count: the CPU solver's sums over 1000000000000000 "
                     "samples need about ");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0)
      << "refused before any path is simulated";
}

TEST_F(MontecarloCli, MisspeltKeysAndNamesAreRejected) {
  expect_input_error(run_example("model.sigmaa=0.2"),
                     "command line: model.sigmaa: unknown key; did you mean model.sigma?");
  expect_input_error(run_example("payoff.kind=barrier"),
                     "command line: payoff.kind: payoff \"barrier\" is not one of \"digital\"");
  expect_input_error(
      run_example("method.variant=host_rng"),
      "method.variant: variant \"host_rng\" is not one of \"host-rng\", \"device-rng\"");
  expect_input_error(run_example("method.ordering=legacy"),
                     "method.ordering: ordering \"legacy\" is not one of \"default\", \"dynamic\"");
}

// A basket's key in a file of the course model is refused, naming the model that leaves it
// unread, whatever its value.
TEST_F(MontecarloCli, TheBasketsKeysAreRefusedNotRead) {
  const auto r = run_example("model.vols=[-1]");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("command line: model.vols: not read when model.kind = \"two-asset\""),
            std::string::npos)
      << r.output;
}

TEST_F(MontecarloCli, ErrorsInAFileGiveTheLine) {
  const std::string head = "solver = \"montecarlo\"\n[paths]\ncount = 1000\nsteps = 10\n";
  expect_input_error(run_file(head + "[model]\nsigma = -0.1\n"),
                     "p.toml:6: model.sigma: expected a positive volatility");
  expect_input_error(run_file("solver = \"montecarlo\"\n[paths]\ncount = 1000\n"),
                     "p.toml: paths.steps: missing; expected an integer");
  expect_input_error(run_file(head + "[model]\nrho = \"half\"\n"),
                     "p.toml:6: model.rho: expected a number");
  // A minimal file runs, every other key at its default.
  const auto r = run_file(head);
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "m.h5");
  EXPECT_EQ(std::get<double>(h5.attribute("/parameters", "model.sigma")), 0.1);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "method.variant")), "device-rng");
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/parameters", "method.block")), 512);
}

TEST_F(MontecarloCli, SweepWithoutADeviceSaysSo) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto r =
      test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0 --backend gpu -o " + quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(MontecarloCli, GpuRunAgreesWithTheGold) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"device-rng", "host-rng"}) {
    const auto r =
        test::run_shell(kExe + " run " + quoted(kExample) + " --backend gpu --check --force " +
                        "paths.count=100000 output.sample_paths=3 method.variant=" + variant +
                        " -o " + quoted(dir_ / "m.h5"));
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "m.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/estimate", "samples")), 100000);
    EXPECT_LT(number(h5, "/check", "difference_in_standard_errors"), 4.0) << variant;
    EXPECT_EQ(h5.dims("/fields/sample_paths"), (std::vector<std::uint64_t>{3, 101, 2}));
    const std::vector<float> x = h5.read_floats("/fields/sample_paths");
    EXPECT_EQ(x[0], 1.0f) << variant;
    for (float v : x) ASSERT_TRUE(std::isfinite(v) && v > 0) << variant;
  }
}

TEST_F(MontecarloCli, SweepTimesEveryVariantBlockAndOrdering) {
  PARASOL_REQUIRE_GPU();
  std::ofstream(dir_ / "p.toml") << "solver = \"montecarlo\"\n[paths]\ncount = 20000\nsteps = 20\n"
                                    "[sweep]\nrepeats = 2\n";
  const auto r =
      test::run_shell(kExe + " sweep " + quoted(dir_ / "p.toml") + " sweep.min_time=0 -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fastest")) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  // 4 block sizes: device-rng once each, host-rng with each of 2 orderings.
  EXPECT_EQ(h5.read_strings("/sweep/variant").size(), 12u);
  for (double price : h5.read_doubles("/sweep/price")) EXPECT_NEAR(price, 0.418, 0.02);
  // Every row judged against one CPU gold estimate of the same model.
  const std::vector<double> differences = h5.read_doubles("/sweep/difference_in_standard_errors");
  EXPECT_EQ(differences.size(), 12u);
  for (double d : differences) EXPECT_LE(d, 4.0);
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/sweep", "gold_paths")), 20000);
  EXPECT_NEAR(number(h5, "/sweep", "gold_price"), 0.418, 0.02);
}

}  // namespace
}  // namespace parasol
