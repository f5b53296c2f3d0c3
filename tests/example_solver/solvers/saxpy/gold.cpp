// saxpy's CPU reference: one loop, in double, from the same float inputs the device reads.
#include <cmath>

#include "solvers/saxpy/saxpy.hpp"

namespace parasol::saxpy {

std::vector<float> initial_x(std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(double(i)));
  return x;
}

std::vector<float> initial_y(std::int64_t n) {
  std::vector<float> y(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(std::cos(double(i)));
  return y;
}

std::vector<double> solve_gold(const Params& p) {
  const std::vector<float> x = initial_x(p.n), y = initial_y(p.n);
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = p.a * double(x[i]) + double(y[i]);
  return out;
}

}  // namespace parasol::saxpy
