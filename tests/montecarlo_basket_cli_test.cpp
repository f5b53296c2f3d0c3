// The basket model through the front end: the example files run on the CPU and pass --check
// against their golds (closed form, tree), the result holds the Greeks and both Longstaff-Schwartz
// estimates, and bad correlation matrices give one line naming the key, status 2, no file.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <fstream>

#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
using test::number;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

class BasketCli : public ::testing::Test {
 protected:
  test::CommandResult run(const std::filesystem::path& params, const std::string& args = "") {
    return test::run_shell(kExe + " run " + quoted(params) + " --backend cpu -o " +
                           quoted(dir_ / "m.h5") + " " + args);
  }
  test::CommandResult run_text(const std::string& text, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << text;
    return run(dir_ / "p.toml", args);
  }
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "c.h5"});
  }
  test::ScratchDir dir_;
};

// Three assets, the correlation given as `correlation` (the TOML rows after it).
std::string three_assets(const std::string& correlation, const std::string& extra = "") {
  return "solver = \"montecarlo\"\n[model]\nkind = \"basket\"\nspots = [100, 90, 110]\n"
         "vols = [0.2, 0.3, 0.25]\n" + correlation + "\n[paths]\ncount = 2000\nsteps = 2\n"
         "[payoff]\nkind = \"arithmetic-basket-call\"\nstrike = 100\n" + extra;
}

// Each model's keys are declared only_if on model.kind: a key of the other model is not an
// unknown key, nor read, but refused, naming the model that leaves it unread.
TEST_F(BasketCli, TheCourseModelsKeysAreRefusedNotRead) {
  const auto r = run_text(three_assets("correlation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
                                       "[method]\nstep = \"exact\"\n"),
                          "model.sigma=-1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "model.sigma: not read when model.kind = \"basket\"")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

// The correlation matrix's rows are judged against the assets as they are read.
TEST_F(BasketCli, ACorrelationRowOfTheWrongLengthNamesTheKey) {
  expect_input_error(run_text(three_assets("correlation = [[1, 0, 0], [0, 1], [0, 0, 1]]")),
                     "p.toml:6: model.correlation: expected rows of 3 numbers (one per asset), "
                     "got a row of 2");
  expect_input_error(run_text(three_assets("")), "model.correlation: missing");
}

TEST_F(BasketCli, GeometricExampleAgreesWithItsClosedForm) {
  const auto r = run(kInputs / "montecarlo-basket.toml", "--check paths.count=40000");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "geometric basket's closed form")) << r.output;
  EXPECT_TRUE(contains(r.output, "delta[0]")) << r.output;
  io::ResultReader h5(dir_ / "m.h5");
  EXPECT_GT(number(h5, "/estimate", "standard_error"), 0.0);
  const auto delta = std::get<std::vector<double>>(h5.attribute("/greeks", "delta"));
  const auto errors = std::get<std::vector<double>>(h5.attribute("/greeks", "delta_standard_error"));
  ASSERT_EQ(delta.size(), 8u);
  ASSERT_EQ(errors.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_GT(delta[i], 0.0) << "a call's delta";
    EXPECT_GT(errors[i], 0.0);
  }
  EXPECT_GT(number(h5, "/greeks", "vega"), 0.0);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "model.kind")), "basket");
}

TEST_F(BasketCli, AmericanExampleAgreesWithTheTree) {
  const auto r = run(kInputs / "montecarlo-american.toml", "--check paths.count=20000");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "binomial tree")) << r.output;
  EXPECT_TRUE(contains(r.output, "in-sample")) << r.output;
  io::ResultReader h5(dir_ / "m.h5");
  const double low = number(h5, "/estimate", "price");
  const double high = number(h5, "/estimate", "in_sample_price");
  EXPECT_GT(low, 4.0);  // the tree: 4.47 for these dates
  EXPECT_LT(low, 5.0);
  EXPECT_GT(high, 4.0);
  EXPECT_GT(number(h5, "/estimate", "in_sample_standard_error"), 0.0);
}

TEST_F(BasketCli, CorrelationFromAnHdf5Dataset) {
  {
    io::ResultFile in(dir_ / "c.h5", true);
    const std::vector<double> c{1, 0.3, 0.1, 0.3, 1, 0.2, 0.1, 0.2, 1};
    in.write_field("/corr", c.data(), {3, 3});
    in.commit();
  }
  const auto r = run_text(three_assets("correlation_file = \"c.h5:/corr\""));
  ASSERT_EQ(r.status, 0) << r.output;
  // Not positive definite in the file: the file's key is named.
  {
    io::ResultFile in(dir_ / "c.h5", true);
    const std::vector<double> c{1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1};
    in.write_field("/corr", c.data(), {3, 3});
    in.commit();
  }
  std::filesystem::remove(dir_ / "m.h5");
  expect_input_error(run_text(three_assets("correlation_file = \"c.h5:/corr\"")),
                     "model.correlation_file");
  expect_input_error(run_text(three_assets("correlation_file = \"c.h5:/missing\"")),
                     "model.correlation_file");
}

// basket-cublas on a GPU, the correlation written inline and the same matrix read from an HDF5
// dataset: one problem, so the price and Greeks are the same bits (/method@reproducible says
// so), and so is a second run of the same file.
TEST_F(BasketCli, CublasGivesTheSameBitsWhicheverWayTheCorrelationIsGiven) {
  PARASOL_REQUIRE_GPU();
  const std::vector<double> c{1, 0.3, 0.1, 0.3, 1, 0.2, 0.1, 0.2, 1};
  {
    io::ResultFile in(dir_ / "c.h5", true);
    in.write_field("/corr", c.data(), {3, 3});
    in.commit();
  }
  const std::string gpu = "--backend gpu method.variant=basket-cublas paths.count=300007 -o ";
  const auto run_gpu = [&](const std::string& correlation, const std::string& out) {
    std::ofstream(dir_ / "p.toml") << three_assets(correlation, "[method]\ngreeks = true\n");
    const auto r = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " " + gpu +
                                   quoted(dir_ / out));
    EXPECT_EQ(r.status, 0) << r.output;
  };
  run_gpu("correlation = [[1, 0.3, 0.1], [0.3, 1, 0.2], [0.1, 0.2, 1]]", "inline.h5");
  run_gpu("correlation = [[1, 0.3, 0.1], [0.3, 1, 0.2], [0.1, 0.2, 1]]", "again.h5");
  run_gpu("correlation_file = \"c.h5:/corr\"", "file.h5");
  io::ResultReader a(dir_ / "inline.h5");
  EXPECT_TRUE(std::get<bool>(a.attribute("/method", "reproducible")));
  for (const char* other : {"again.h5", "file.h5"}) {
    io::ResultReader b(dir_ / other);
    for (const char* key : {"price", "standard_error"}) {
      const double x = number(a, "/estimate", key), y = number(b, "/estimate", key);
      EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << other << " " << key << ": " << x << " vs " << y;
    }
    for (const char* key : {"delta", "delta_standard_error"}) {
      const auto x = std::get<std::vector<double>>(a.attribute("/greeks", key));
      const auto y = std::get<std::vector<double>>(b.attribute("/greeks", key));
      ASSERT_EQ(x.size(), y.size()) << other << " " << key;
      EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(double) * x.size()), 0) << other << " " << key;
    }
    const double x = number(a, "/greeks", "vega"), y = number(b, "/greeks", "vega");
    EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << other << " vega: " << x << " vs " << y;
  }
}

// A rate of -1000 a year is finite, so validate() lets it through, but exp(1000) is not: the
// price comes out non-finite. The run ends with status 1 and one line naming the quantity, and
// writes nothing (kernels/finite.hpp).
TEST_F(BasketCli, ANonFinitePriceEndsTheRunNamingItAndWritesNothing) {
  const std::string identity = "correlation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\nrate = -1000";
  const auto r = run_text(three_assets(identity));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "parasol: montecarlo: the ")) << r.output;
  EXPECT_TRUE(contains(r.output, "where the problem is finite; nothing is written")) << r.output;
  test::expect_only_inputs(dir_, {"p.toml"});
}

TEST_F(BasketCli, BadCorrelationMatricesExitTwoNamingTheKey) {
  // Not symmetric.
  expect_input_error(run_text(three_assets("correlation = [[1, 0.5, 0], [0.4, 1, 0], [0, 0, 1]]")),
                     "model.correlation");
  // Not positive definite: the third pivot.
  const auto r = run_text(three_assets("correlation = [[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]]"));
  expect_input_error(r, "model.correlation");
  EXPECT_TRUE(contains(r.output, "pivot 3")) << r.output;
  // Wrong size: a short row, and too few rows.
  expect_input_error(run_text(three_assets("correlation = [[1, 0], [0, 1, 0], [0, 0, 1]]")),
                     "model.correlation");
  expect_input_error(run_text(three_assets("correlation = [[1, 0, 0], [0, 1, 0]]")),
                     "model.correlation");
  // NaN.
  expect_input_error(run_text(three_assets("correlation = [[1, nan, 0], [nan, 1, 0], [0, 0, 1]]")),
                     "model.correlation");
  // Missing altogether for more than one asset.
  expect_input_error(run_text(three_assets("")), "model.correlation");
}

TEST_F(BasketCli, OtherBadInputsNameTheirKeys) {
  const std::string identity = "correlation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]";
  expect_input_error(run_text(three_assets(identity + "\nvolz = 1")), "model.volz");
  expect_input_error(
      run_text("solver = \"montecarlo\"\n[model]\nkind = \"basket\"\nspots = [100, 90]\n"
               "vols = [0.2]\ncorrelation = [[1, 0], [0, 1]]\n[paths]\ncount = 100\nsteps = 1\n"),
      "model.vols");
  expect_input_error(run_text(three_assets(identity, "exercise_steps = [1]\n")),
                     "payoff.exercise_steps");
  expect_input_error(run_text(three_assets(identity), "payoff.kind=bermudan-put"),
                     "payoff.exercise_steps");
  expect_input_error(run_text(three_assets(identity), "model.kind=baskett"), "model.kind");
}

TEST_F(BasketCli, EveryEuropeanPayoffRunsAndChecksOnTheCpu) {
  const std::string identity = "correlation = [[1, 0.2, 0], [0.2, 1, 0], [0, 0, 1]]";
  for (const char* payoff : {"arithmetic-basket-call", "arithmetic-basket-put", "best-of-call",
                             "worst-of-call", "digital-basket-call"}) {
    const auto r = run_text(three_assets(identity), std::string("--check --force payoff.kind=") + payoff);
    EXPECT_EQ(r.status, 0) << payoff << "\n" << r.output;
  }
}

TEST_F(BasketCli, GpuRunsOfTheExamplesPassTheirChecks) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"basket-registers", "basket-cublas"}) {
    const auto r = test::run_shell(kExe + " run " + quoted(kInputs / "montecarlo-basket.toml") +
                                   " --backend gpu --check --force method.variant=" + variant +
                                   " -o " + quoted(dir_ / "m.h5"));
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "m.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "variant")), variant);
    EXPECT_LT(number(h5, "/check", "difference_in_standard_errors"), 4.0) << variant;
    EXPECT_EQ(std::get<std::vector<double>>(h5.attribute("/greeks", "delta")).size(), 8u);
  }
  const auto r = test::run_shell(kExe + " run " + quoted(kInputs / "montecarlo-american.toml") +
                                 " --backend gpu --check --force paths.count=200000 -o " +
                                 quoted(dir_ / "a.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "a.h5");
  EXPECT_LT(number(h5, "/check", "difference_in_standard_errors"), 4.0);
  for (const char* phase : {"simulate_s", "regress_s", "price_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", phase)) << phase;
}

TEST_F(BasketCli, SweepTimesBothVariantsAgainstTheClosedForm) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / "montecarlo-basket.toml") + " sweep.min_time=0" +
                                 " sweep.repeats=2 -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  EXPECT_EQ(h5.read_strings("/sweep/variant"),
            (std::vector<std::string>{"basket-registers", "basket-cublas"}));
  for (double x : h5.read_doubles("/sweep/difference_in_standard_errors")) EXPECT_LT(x, 4.0);
}

}  // namespace
}  // namespace parasol
