// What an iterative run says about its stop: "converged" only with the criterion named, an
// estimate of the error that remains (and that estimate holding against a run taken much
// further), and a run stopped by its iteration cap saying so, in its summary, in /diagnostics
// and, with --require-convergence, in its exit status.
#include <gtest/gtest.h>

#include <cmath>

#include "io/result_reader.hpp"
#include "kernels/convergence.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
const std::string kExample = std::string(PARASOL_SOURCE_DIR) + "/inputs/laplace3d.toml";
// The shipped problem on a smaller grid, so that each run takes a fraction of a second.
const std::string kSmall = " grid.nx=24 grid.ny=24 grid.nz=24";

test::CommandResult run(const std::filesystem::path& out, const std::string& args) {
  return test::run_shell(kExe + " run '" + kExample + "' -o '" + out.string() +
                         "' --backend cpu --force" + kSmall + " " + args);
}

TEST(Convergence, ContractionOfAGeometricSequenceIsItsRatio) {
  ConvergenceChecks c;
  EXPECT_TRUE(std::isnan(c.contraction()));
  c.record(100, 0.5 * std::pow(0.99, 100));
  EXPECT_TRUE(std::isnan(c.contraction())) << "one check measures nothing";
  c.record(150, 0.5 * std::pow(0.99, 150));
  EXPECT_NEAR(c.contraction(), 0.99, 1e-12);
  // The changes still to come, 0.99 d + 0.99^2 d + ..., sum to d 0.99 / 0.01.
  EXPECT_NEAR(c.error_bound(), c.last_change * 99, 1e-12 * c.last_change * 99);
  c.record(200, c.last_change * 2);
  EXPECT_TRUE(std::isnan(c.contraction())) << "a change that grew gives no contraction";
  EXPECT_TRUE(std::isnan(c.error_bound()));
}

// The gold keeps the last two checks, check_every iterations apart, the last its final one.
TEST(Convergence, GoldKeepsItsLastTwoChecks) {
  laplace3d::Params p;
  p.grid = {16, 16, 16};
  p.boundary.x_min = 1;
  p.max_iterations = 1000;
  p.tolerance = 1e-5;
  p.check_every = 25;
  const auto r = laplace3d::solve_gold<double>(p);
  ASSERT_TRUE(r.converged);
  EXPECT_EQ(r.checks.last_iteration, r.iterations);
  EXPECT_EQ(r.checks.previous_iteration, r.iterations - 25);
  EXPECT_EQ(r.checks.last_change, r.last_change);
  EXPECT_GT(r.checks.previous_change, r.checks.last_change);
  const double rho = r.checks.contraction();
  EXPECT_GT(rho, 0.9);
  EXPECT_LT(rho, 1.0);
}

TEST(Convergence, StoppedAtTheCapSaysNotConverged) {
  test::ScratchDir dir;
  const auto r = run(dir / "capped.h5", "iteration.max_iterations=100");
  ASSERT_EQ(r.status, 0) << "without --require-convergence a capped run succeeds\n" << r.output;
  EXPECT_TRUE(contains(r.output, "NOT converged after 100 iterations (max|du| ")) << r.output;
  EXPECT_FALSE(contains(r.output, "converged:")) << r.output;
  io::ResultReader h5(dir / "capped.h5");
  EXPECT_FALSE(std::get<bool>(h5.attribute("/diagnostics", "converged")));
  EXPECT_EQ(std::get<std::string>(h5.attribute("/diagnostics", "stop_reason")), "max_iterations");
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/diagnostics", "iterations")), 100);
  EXPECT_GT(std::get<double>(h5.attribute("/diagnostics", "last_change")), 1e-4);
}

TEST(Convergence, RequireConvergenceExitsOneAndKeepsTheResult) {
  test::ScratchDir dir;
  const auto capped = run(dir / "capped.h5", "iteration.max_iterations=100 --require-convergence");
  EXPECT_EQ(capped.status, 1) << capped.output;
  EXPECT_TRUE(contains(capped.output, "--require-convergence: NOT converged")) << capped.output;
  ASSERT_TRUE(std::filesystem::exists(dir / "capped.h5")) << "the result is kept for inspection";
  io::ResultReader h5(dir / "capped.h5");
  EXPECT_FALSE(std::get<bool>(h5.attribute("/diagnostics", "converged")));

  const auto met = run(dir / "met.h5", "--require-convergence");
  EXPECT_EQ(met.status, 0) << met.output;
  EXPECT_TRUE(contains(met.output, "converged: max|du| ")) << met.output;
}

// The stated bound against the truth: the shipped problem (its tolerance, in double) beside the
// same problem taken to a tolerance a million times smaller, whose own error is negligible.
TEST(Convergence, StatedErrorBoundHoldsAndIsNotVacuous) {
  test::ScratchDir dir;
  const auto r = run(dir / "example.h5", "method.precision=double");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "converged: max|du| ")) << r.output;
  EXPECT_TRUE(contains(r.output, " < 1e-04 after ")) << r.output;
  EXPECT_TRUE(contains(r.output, "error bound ≈ ")) << r.output;
  const auto ref = run(dir / "reference.h5",
                       "method.precision=double iteration.tolerance=1e-10 "
                       "iteration.max_iterations=100000");
  ASSERT_EQ(ref.status, 0) << ref.output;

  io::ResultReader h5(dir / "example.h5"), reference(dir / "reference.h5");
  EXPECT_TRUE(std::get<bool>(h5.attribute("/diagnostics", "converged")));
  EXPECT_EQ(std::get<std::string>(h5.attribute("/diagnostics", "stop_reason")), "tolerance");
  ASSERT_TRUE(std::get<bool>(reference.attribute("/diagnostics", "converged")));
  const double bound = std::get<double>(h5.attribute("/diagnostics", "error_bound"));
  const double rho = std::get<double>(h5.attribute("/diagnostics", "contraction"));
  EXPECT_GT(rho, 0.9);
  EXPECT_LT(rho, 1.0);
  const std::vector<double> u = h5.read_doubles("/fields/u");
  const std::vector<double> exact = reference.read_doubles("/fields/u");
  ASSERT_EQ(u.size(), exact.size());
  double error = 0;
  for (std::size_t i = 0; i < u.size(); ++i) error = std::max(error, std::abs(u[i] - exact[i]));
  EXPECT_LE(error, bound) << "the stated bound must hold";
  EXPECT_GE(error, bound / 10) << "and say something: within 10x of the true error";
  // Far more than the tolerance: the reason the bound is stated at all.
  EXPECT_GT(error, 10 * 1e-4);
}

}  // namespace
}  // namespace parasol
