// The CPU gold solver. Every GPU variant is judged by it, so it is one obvious loop nest in
// double, and it is itself tested against hand values (tests/coulomb_io_test.cpp).
#include <algorithm>
#include <cmath>

#include "solvers/coulomb/coulomb.hpp"

namespace parasol::coulomb {
namespace {

// sum_i k w(q_i) / max(|r - r_i|, min_distance) at every lattice point, [nz][ny][nx] x fastest.
template <class Weight>
std::vector<double> sum_over_atoms(const Params& p, const std::vector<Atom>& atoms, Weight weight) {
  const Lattice& n = p.lattice;
  std::vector<double> v(static_cast<std::size_t>(n.points()));
  // One (j, k) row per iteration: rows are independent, and there are enough of them for
  // threads even on a 2D slice.
  const std::int64_t rows = n.ny * n.nz;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t j = row % n.ny, k = row / n.ny;
    const double y = n.origin[1] + n.spacing * static_cast<double>(j);
    const double z = n.origin[2] + n.spacing * static_cast<double>(k);
    for (std::int64_t i = 0; i < n.nx; ++i) {
      const double x = n.origin[0] + n.spacing * static_cast<double>(i);
      double sum = 0;
      for (const Atom& a : atoms) {
        const double dx = x - a.x, dy = y - a.y, dz = z - a.z;
        const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
        sum += weight(static_cast<double>(a.q)) / std::max(r, p.min_distance);
      }
      v[static_cast<std::size_t>(i + n.nx * row)] = p.coulomb_constant * sum;
    }
  }
  return v;
}

}  // namespace

std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms) {
  return sum_over_atoms(p, atoms, [](double q) { return q; });
}

std::vector<double> magnitude_scale(const Params& p, const std::vector<Atom>& atoms) {
  std::vector<double> scale = sum_over_atoms(p, atoms, [](double q) { return std::abs(q); });
  for (double& s : scale) s = std::abs(s);  // a negative k makes the sum negative
  return scale;
}

}  // namespace parasol::coulomb
