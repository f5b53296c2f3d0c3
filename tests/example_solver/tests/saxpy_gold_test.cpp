// saxpy's gold against exact answers: a = 0 leaves y as it was made, and every element is
// a x + y of the made inputs, in double.
#include <gtest/gtest.h>

#include <cmath>

#include "solvers/saxpy/saxpy.hpp"

namespace parasol::saxpy {
namespace {

TEST(SaxpyGold, ZeroScaleLeavesY) {
  Params p;
  p.n = 1000;
  p.a = 0;
  const std::vector<double> gold = solve_gold(p);
  const std::vector<float> y = initial_y(p.n);
  ASSERT_EQ(gold.size(), y.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(gold[i], double(y[i])) << i;
}

TEST(SaxpyGold, EachElementIsAXPlusY) {
  Params p;
  p.n = 1001;
  p.a = -1.5;
  const std::vector<double> gold = solve_gold(p);
  ASSERT_EQ(gold.size(), 1001u);
  // x[0] = sin 0 = 0 and y[0] = cos 0 = 1 exactly; -1.5 x + y is exact in double for float x, y.
  EXPECT_EQ(gold[0], 1.0);
  for (std::size_t i : {std::size_t{1}, std::size_t{500}, std::size_t{1000}}) {
    const float x = static_cast<float>(std::sin(double(i)));
    const float y = static_cast<float>(std::cos(double(i)));
    EXPECT_EQ(gold[i], -1.5 * double(x) + double(y)) << i;
  }
}

}  // namespace
}  // namespace parasol::saxpy
