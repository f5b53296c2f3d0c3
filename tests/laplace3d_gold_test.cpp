// The gold solver against exact answers: it judges every GPU variant, so it is judged first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "apps/solver_run.hpp"
#include "kernels/error.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "solvers/laplace3d/run.hpp"

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

// What a run is made of before it solves, as the front end asks the solver for it.
Params run_params(Variant v) {
  Params p;
  p.grid = {64, 32, 20};
  p.variant = v;
  return p;
}

TEST(Laplace3dRun, OneRankHoldsTheWholeGridWithoutHalos) {
  const SlabPart part = run_part(run_params(Variant::temporal), true, 0, 1);
  EXPECT_EQ(part.slab.begin, 0);
  EXPECT_EQ(part.slab.end, 20);
  EXPECT_EQ(part.below + part.above, 0);
  EXPECT_EQ(part.local().points(), 64 * 32 * 20);
  // Its share of a checkpoint is the whole field.
  const io::Share s = app::planes_share(part.plane_points(), 20, part.first_global(),
                                        part.slab.begin, part.slab.end);
  EXPECT_EQ(s.total, 64u * 32 * 20);
  EXPECT_EQ(s.first, 0u);
  EXPECT_EQ(s.owned_begin, 0u);
  EXPECT_EQ(s.owned_end, s.total);
}

// Temporal sweeps four times between exchanges on the GPU; the CPU gold exchanges one plane after
// every sweep whatever the variant, so its halo is one plane deep.
TEST(Laplace3dRun, ASlabsHaloIsTheVariantsOnTheGpuAndOnePlaneOnTheCpu) {
  const Params p = run_params(Variant::temporal);
  const SlabPart gpu = run_part(p, true, 1, 2), cpu = run_part(p, false, 1, 2);
  EXPECT_EQ(gpu.slab.begin, 10);
  EXPECT_EQ(gpu.below, halo_depth(Variant::temporal));
  EXPECT_EQ(cpu.below, 1);
  EXPECT_EQ(gpu.above + cpu.above, 0);  // the last rank: no halo past the grid's top plane
  // Its local planes start below its own, halos included, in a checkpoint's share.
  const io::Share s = app::planes_share(gpu.plane_points(), 20, gpu.first_global(),
                                        gpu.slab.begin, gpu.slab.end);
  EXPECT_EQ(s.first, static_cast<std::uint64_t>(64 * 32 * (10 - gpu.below)));
  EXPECT_EQ(s.owned_begin, 64u * 32 * 10);
  EXPECT_EQ(s.owned_end, s.total);
  EXPECT_THROW((void)run_part(p, true, 0, 6), InputError);  // 20 planes leave 6 ranks < 4 each
}

TEST(Laplace3dRun, MemoryNeedsNameTheGridAndWhatOfItARankHolds) {
  const Params p = run_params(Variant::zreg);
  const double whole = 64.0 * 32 * 20;
  const MemoryNeed all = device_need(p, whole), half = device_need(p, whole / 2);
  EXPECT_EQ(all.key, "grid");
  EXPECT_TRUE(all.device);
  EXPECT_EQ(all.what, "a 64x32x20 grid in float needs");
  EXPECT_EQ(all.bytes, static_cast<double>(device_bytes(p)));
  EXPECT_EQ(half.what, "a 64x32x20 grid in float needs, for this rank's slab,");
  EXPECT_EQ(half.bytes, all.bytes / 2);
  // The initial field and the result; the CPU gold a field of its own besides.
  EXPECT_EQ(host_need(p, true, whole, 4).bytes, 2 * 4 * whole);
  EXPECT_EQ(host_need(p, false, whole, 8).bytes, 3 * 8 * whole);
  EXPECT_FALSE(host_need(p, true, whole, 4).device);
}

TEST(Laplace3dRun, AutoStartsFromTheVariantsDefaultBlockAndTheGridNamesTheProblem) {
  Params p = run_params(Variant::block3d);
  p.block = {7, 7, 7};
  settle(p, false);
  EXPECT_EQ(p.block, (Shape{7, 7, 7}));
  settle(p, true);
  EXPECT_EQ(p.block, default_block(Variant::block3d));
  EXPECT_EQ(extent_text(p), "64x32x20");
}

}  // namespace
}  // namespace parasol::laplace3d
