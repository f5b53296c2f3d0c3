// The gold solver against exact answers: it judges every GPU variant, so it is judged first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/error.hpp"
#include "solvers/laplace3d/laplace3d.hpp"

namespace parasol::laplace3d {
namespace {

std::size_t at(const Extent3& n, std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<std::size_t>(i + n.nx * (j + n.ny * k));
}

// A field with value f(i, j, k) everywhere.
template <class F>
std::vector<double> field_of(const Extent3& n, F f) {
  std::vector<double> u(static_cast<std::size_t>(n.points()));
  for (std::int64_t k = 0; k < n.nz; ++k)
    for (std::int64_t j = 0; j < n.ny; ++j)
      for (std::int64_t i = 0; i < n.nx; ++i) u[at(n, i, j, k)] = f(double(i), double(j), double(k));
  return u;
}

TEST(Laplace3dGold, PreservesALinearFunction) {
  // The discrete Laplacian of a linear function is zero, so one sweep reproduces it
  // up to the rounding of six additions and a multiply.
  const Extent3 n{9, 7, 5};
  const auto linear = [](double x, double y, double z) { return 0.5 + 1.25 * x - 2.0 * y + 0.75 * z; };
  const std::vector<double> u = field_of(n, linear);
  std::vector<double> next(u.size(), std::numeric_limits<double>::quiet_NaN());
  // Boundaries are the caller's: copy them so only the interior is compared with what the sweep wrote.
  next = u;
  for (std::int64_t k = 1; k < n.nz - 1; ++k)
    for (std::int64_t j = 1; j < n.ny - 1; ++j)
      for (std::int64_t i = 1; i < n.nx - 1; ++i) next[at(n, i, j, k)] = std::nan("");
  gold_sweep(n, u.data(), next.data());
  for (std::size_t c = 0; c < u.size(); ++c)
    ASSERT_NEAR(next[c], u[c], 8 * std::numeric_limits<double>::epsilon() * 20) << "at " << c;
}

TEST(Laplace3dGold, ConvergesToADiscreteHarmonicField) {
  // x^2 - y^2 + x*y*z is harmonic for the 7-point Laplacian exactly: the second differences of
  // x^2 and y^2 are 2 and 2, and x*y*z is linear in each direction. With it on the boundary,
  // Jacobi from any interior must converge to it.
  const Extent3 n{10, 9, 8};
  const auto harmonic = [](double x, double y, double z) { return 0.01 * (x * x - y * y + x * y * z); };
  const std::vector<double> exact = field_of(n, harmonic);
  std::vector<double> u = exact;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (std::int64_t k = 1; k < n.nz - 1; ++k)
    for (std::int64_t j = 1; j < n.ny - 1; ++j)
      for (std::int64_t i = 1; i < n.nx - 1; ++i) u[at(n, i, j, k)] = uniform(rng);
  std::vector<double> next = u;
  // The slowest mode decays by about cos(pi/9) ~ 0.94 a sweep: 1500 sweeps leave ~1e-40.
  for (int it = 0; it < 1500; ++it) {
    gold_sweep(n, u.data(), next.data());
    u.swap(next);
  }
  EXPECT_LT(max_abs_difference(u, exact), 1e-12);
}

Params small_params() {
  Params p;
  p.grid = {12, 11, 10};
  p.boundary = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  p.max_iterations = 5;
  return p;
}

TEST(Laplace3dGold, InitialFieldPutsFacesOnTheBoundaryWithXWinningAtEdges) {
  const Params p = small_params();
  const std::vector<double> u = initial_field<double>(p);
  const Extent3& n = p.grid;
  EXPECT_EQ(u[at(n, 0, 5, 5)], 1.0);
  EXPECT_EQ(u[at(n, n.nx - 1, 5, 5)], 2.0);
  EXPECT_EQ(u[at(n, 5, 0, 5)], 3.0);
  EXPECT_EQ(u[at(n, 5, n.ny - 1, 5)], 4.0);
  EXPECT_EQ(u[at(n, 5, 5, 0)], 5.0);
  EXPECT_EQ(u[at(n, 5, 5, n.nz - 1)], 6.0);
  EXPECT_EQ(u[at(n, 0, 0, 0)], 1.0);             // x over y and z
  EXPECT_EQ(u[at(n, 5, n.ny - 1, 0)], 4.0);      // y over z
  const double inside = u[at(n, 5, 5, 5)];
  EXPECT_GE(inside, 0.0);
  EXPECT_LT(inside, 1.0);
  EXPECT_EQ(initial_field<double>(p), u) << "the same seed must give the same field";
}

TEST(Laplace3dGold, ConstantBoundaryConvergesToTheConstantAndStopsAtACheck) {
  Params p = small_params();
  p.boundary = {2.5, 2.5, 2.5, 2.5, 2.5, 2.5};
  p.max_iterations = 100000;
  p.tolerance = 1e-9;
  p.check_every = 7;
  const Result<double> r = solve_gold<double>(p);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.iterations, p.max_iterations);
  EXPECT_EQ(r.iterations % p.check_every, 0) << "convergence is only looked at every check_every";
  EXPECT_LT(r.last_change, p.tolerance);
  for (double v : r.u) ASSERT_NEAR(v, 2.5, 1e-7);
}

TEST(Laplace3dGold, RunsExactlyMaxIterationsWithoutATolerance) {
  Params p = small_params();
  p.max_iterations = 13;
  int reports = 0;
  const Result<float> r = solve_gold<float>(p, [&](const Progress& pr) {
    ++reports;
    EXPECT_LE(pr.iterations, p.max_iterations);
  });
  EXPECT_EQ(r.iterations, 13);
  EXPECT_FALSE(r.converged);
  EXPECT_GT(r.last_change, 0.0);
  EXPECT_GE(reports, 1);
}

TEST(Laplace3dParams, DefaultsAreValid) { EXPECT_NO_THROW(Params{}.validate()); }

void expect_rejected(Params p, const std::string& key) {
  try {
    p.validate();
    ADD_FAILURE() << "expected " << key << " to be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
  }
}

TEST(Laplace3dParams, RejectsEachBadValueByItsKey) {
  Params p;
  p.grid.nx = 0;
  expect_rejected(p, "grid.nx");
  p = Params{};
  p.grid.ny = -4;
  expect_rejected(p, "grid.ny");
  p = Params{};
  p.grid.nz = 2;
  expect_rejected(p, "grid.nz");
  p = Params{};
  p.spacing = 0;
  expect_rejected(p, "grid.spacing");
  p = Params{};
  p.max_iterations = 0;
  expect_rejected(p, "iteration.max_iterations");
  p = Params{};
  p.tolerance = -1;
  expect_rejected(p, "iteration.tolerance");
  p = Params{};
  p.check_every = 0;
  expect_rejected(p, "iteration.check_every");
  p = Params{};
  p.boundary.z_max = std::numeric_limits<double>::infinity();
  expect_rejected(p, "boundary.z_max");
  p = Params{};
  p.block = {48, 4, 1};
  expect_rejected(p, "method.block");
  p = Params{};
  p.variant = Variant::block3d;
  p.block = {32, 8, 1};  // a zreg shape, not a block3d one
  expect_rejected(p, "method.block");
}

TEST(Laplace3dParams, NamesConvertBothWays) {
  for (Variant v : kVariants) EXPECT_EQ(parse_variant(name(v)), v);
  EXPECT_EQ(parse_precision("double"), Precision::double_);
  try {
    parse_variant("zrge");
    ADD_FAILURE() << "a misspelt variant must be rejected";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"zreg\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace parasol::laplace3d
