// Every GPU variant, every compiled block shape, awkward grids: against the gold solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "kernels/stream.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "tests/support.hpp"

namespace parasol::laplace3d {
namespace {

using Case = std::tuple<Variant, Shape, Extent3>;

}  // namespace

// Readable parameters in test listings ("zreg", "33x17x9") instead of raw bytes.
void PrintTo(Variant v, std::ostream* out) { *out << name(v); }
void PrintTo(const Extent3& n, std::ostream* out) { *out << n.nx << "x" << n.ny << "x" << n.nz; }

namespace {

Params test_params(const Extent3& grid, Variant v, const Shape& block, std::int64_t iterations) {
  Params p;
  p.grid = grid;
  p.variant = v;
  p.block = block;
  p.max_iterations = iterations;
  p.boundary = {1.0, -0.5, 0.25, 2.0, -1.0, 0.75};
  p.seed = test::kSeed;
  return p;
}

// Runs `iterations` sweeps, poisoning the copy each sweep writes, and returns the field.
template <class T>
std::vector<T> gpu_iterates(const Params& p, std::int64_t iterations) {
  Stream stream;
  DeviceGrid<T> field(p.grid, initial_field<T>(p), stream);
  if (p.variant == Variant::temporal) {
    // Its passes take several iterations at once (a remainder goes by single sweeps).
    field.poison_next();
    field.sweep(p.variant, p.block, iterations);
    return field.download();
  }
  for (std::int64_t it = 0; it < iterations; ++it) {
    field.poison_next();
    field.sweep(p.variant, p.block, 1);
  }
  return field.download();
}

template <class T>
std::vector<T> gold_iterates(const Params& p, std::int64_t iterations) {
  std::vector<T> u = initial_field<T>(p), next = u;
  for (std::int64_t it = 0; it < iterations; ++it) {
    gold_sweep(p.grid, u.data(), next.data());
    u.swap(next);
  }
  return u;
}

template <class T>
void expect_all_near(const std::vector<T>& gpu, const std::vector<T>& gold, double tolerance,
                     const Extent3& n) {
  ASSERT_EQ(gpu.size(), gold.size());
  std::size_t bad = 0;
  for (std::size_t c = 0; c < gpu.size(); ++c) {
    const double d = std::abs(double(gpu[c]) - double(gold[c]));
    if (!(d <= tolerance) && bad++ < 5)  // NaN fails too
      ADD_FAILURE() << "point (" << c % n.nx << ", " << (c / n.nx) % n.ny << ", " << c / (n.nx * n.ny)
                    << "): gpu " << gpu[c] << ", gold " << gold[c];
  }
  EXPECT_EQ(bad, 0u) << "points differing by more than " << tolerance;
}

std::string extent_name(const Extent3& n) {
  return std::to_string(n.nx) + "x" + std::to_string(n.ny) + "x" + std::to_string(n.nz);
}

std::vector<Case> all_cases() {
  // 3 is the smallest extent with an interior; 33x17x9 divides by no compiled shape, so every
  // tail path runs; 64^3 is a plain case; 3x(>2^20)x3 and 3x3x(>2^19) need more than the 65535
  // blocks a grid may have in y or z, so the block-stride loops run.
  // 36x17x9 and 132x5x11 have rows a whole number of 16-byte vectors long (zreg-vec's vector
  // path) that divide no block.
  const std::vector<Extent3> grids{{3, 3, 3},       {33, 17, 9},     {64, 64, 64},
                                   {5, 3, 40},      {130, 3, 7},     {36, 17, 9},
                                   {132, 5, 11},    {3, 1100003, 3}, {3, 3, 530001}};
  std::vector<Case> cases;
  for (Variant v : kVariants)
    for (const Shape& b : compiled_shapes(v))
      for (const Extent3& g : grids) cases.emplace_back(v, b, g);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [v, b, g] = info.param;
  std::string text = std::string(name(v)) + "_" + to_string(b) + "_" + extent_name(g);
  std::replace(text.begin(), text.end(), '-', '_');  // GoogleTest names allow no '-'
  return text;
}

class Laplace3dVsGold : public ::testing::TestWithParam<Case> {};

TEST_P(Laplace3dVsGold, FloatMatchesGoldAfterSevenSweeps) {
  PARASOL_REQUIRE_GPU();
  const auto [variant, block, grid] = GetParam();
  SCOPED_TRACE("seed " + std::to_string(test::kSeed));
  const Params p = test_params(grid, variant, block, 7);
  // The kernels add the neighbours in the gold's order, so they should agree exactly; a few
  // ulps a sweep allow for a compiler's reordering. More means a wrong index.
  const double tolerance = 8 * 7 * std::numeric_limits<float>::epsilon() * 2.0;
  expect_all_near(gpu_iterates<float>(p, 7), gold_iterates<float>(p, 7), tolerance, grid);
}

TEST_P(Laplace3dVsGold, DoubleMatchesGoldAfterFourSweeps) {
  PARASOL_REQUIRE_GPU();
  const auto [variant, block, grid] = GetParam();
  const Params p = test_params(grid, variant, block, 4);
  const double tolerance = 8 * 4 * std::numeric_limits<double>::epsilon() * 2.0;
  expect_all_near(gpu_iterates<double>(p, 4), gold_iterates<double>(p, 4), tolerance, grid);
}

INSTANTIATE_TEST_SUITE_P(All, Laplace3dVsGold, ::testing::ValuesIn(all_cases()), case_name);

// Temporal blocking computes the same sums in the same order as single sweeps: the iterates are
// the same bits, whether or not the count is a multiple of the passes' depth.
TEST(Laplace3dGpu, TemporalGivesTheSameBitsAsSingleSweeps) {
  PARASOL_REQUIRE_GPU();
  const std::vector<Extent3> grids{{3, 3, 3}, {70, 37, 19}, {130, 5, 80}, {61, 97, 3},
                                   {200, 150, 140}};
  for (const Extent3& grid : grids)
    for (const Shape& block : compiled_shapes(Variant::temporal))
      for (std::int64_t iterations : {1, 3, 4, 5, 8, 9, 13}) {
        SCOPED_TRACE(extent_name(grid) + " " + to_string(block) + " " +
                     std::to_string(iterations) + " iterations");
        Params p = test_params(grid, Variant::temporal, block, iterations);
        const std::vector<float> temporal = gpu_iterates<float>(p, iterations);
        p.variant = Variant::zreg;
        p.block = {64, 4, 1};
        const std::vector<float> single = gpu_iterates<float>(p, iterations);
        expect_all_near(temporal, single, 0.0, grid);
      }
}

TEST(Laplace3dGpu, SolverStopsWhereTheGoldStops) {
  PARASOL_REQUIRE_GPU();
  Params p = test_params({20, 17, 23}, Variant::zreg, {32, 8, 1}, 5000);
  p.tolerance = 1e-4;
  p.check_every = 10;
  const Result<float> gpu = solve_gpu<float>(p);
  const Result<float> gold = solve_gold<float>(p);
  EXPECT_TRUE(gpu.converged);
  EXPECT_EQ(gpu.iterations, gold.iterations);
  EXPECT_EQ(gpu.last_change, gold.last_change);
  expect_all_near(gpu.u, gold.u, 1e-5, p.grid);
  EXPECT_GT(gpu.timings.seconds(phase::compute), 0.0);
  EXPECT_GT(gpu.timings.seconds(phase::host_to_device), 0.0);
}

TEST(Laplace3dGpu, UnsupportedShapeIsRefusedWithTheCompiledList) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  const Params p = test_params({8, 8, 8}, Variant::zreg, {48, 4, 1}, 1);
  DeviceGrid<float> field(p.grid, initial_field<float>(p), stream);
  try {
    field.sweep(Variant::zreg, {48, 4, 1}, 1);
    ADD_FAILURE() << "a shape not compiled in must be refused";
  } catch (const UnsupportedShape& e) {
    EXPECT_NE(std::string(e.what()).find("32x8x1"), std::string::npos) << e.what();
  }
}

// Past 2^31 points a 32-bit index wraps. One sweep from a zero interior changes only the points
// next to a face, so the planes near the top of the grid show whether every index is right.
TEST(Laplace3dGpu, GridPastTwoToTheThirtyOnePoints) {
  PARASOL_REQUIRE_GPU();
  const Extent3 grid{2048, 1024, 1026};  // 2.15e9 points > 2^31
  if (!(static_cast<double>(current_device().free_memory) > 2.2 * 4 * static_cast<double>(grid.points())))
    GTEST_SKIP() << "needs " << 2.2 * 4 * static_cast<double>(grid.points()) / 1e9 << " GB of device memory";
  Params p = test_params(grid, Variant::zreg, {32, 8, 1}, 1);
  p.interior = Interior::constant;
  p.interior_value = 0.0;
  const std::vector<float> initial = initial_field<float>(p);
  Stream stream;
  for (Variant v : kVariants) {
    SCOPED_TRACE(std::string(name(v)));
    DeviceGrid<float> field(grid, initial, stream);
    field.poison_next();
    field.sweep(v, compiled_shapes(v).front(), 1);
    const std::vector<float> u = field.download();
    const std::int64_t sy = grid.nx, sz = grid.nx * grid.ny;
    std::size_t bad = 0;
    for (std::int64_t k : {std::int64_t{1}, grid.nz / 2, grid.nz - 3, grid.nz - 2})
      for (std::int64_t j = 1; j < grid.ny - 1; ++j)
        for (std::int64_t i = 1; i < grid.nx - 1; ++i) {
          const std::int64_t c = i + sy * j + sz * k;
          const float expected = (initial[c - 1] + initial[c + 1] + initial[c - sy] +
                                  initial[c + sy] + initial[c - sz] + initial[c + sz]) *
                                 (1.0f / 6.0f);
          if (!(u[c] == expected) && bad++ < 5)
            ADD_FAILURE() << "(" << i << ", " << j << ", " << k << "): " << u[c] << " vs " << expected;
        }
    EXPECT_EQ(bad, 0u);
  }
}

}  // namespace
}  // namespace parasol::laplace3d
