// The CPU gold solver. Every GPU variant is judged by it, so it is one obvious loop nest in
// double, and it is itself tested against hand values (tests/coulomb_io_test.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/coulomb/coulomb.hpp"

namespace parasol::coulomb {
namespace {

// Terms between progress reports: under a second of one core (5 to 10 ns a term), a fraction of
// one of many.
constexpr double kBandTerms = 67108864.0;  // 2^26

// sum_i k q_i / max(|r - r_i|, min_distance) at every point of `part`, [nz][ny][nx] x fastest,
// and with kScale sum_i |k q_i| / max(|r - r_i|, min_distance) beside it from the same
// distances. A point's position comes from its indices in the whole lattice, so its sums are the
// same bits in any part that holds it.
// The same over `rows` x rows of the lattice, the r-th of them row_of(r) = (j, k), written one
// after another.
template <bool kScale, class RowOf>
void sum_over_atoms(const Params& p, const std::vector<Atom>& atoms, std::int64_t rows,
                    RowOf row_of, double* potential, double* scale,
                    const ProgressCallback& progress) {
  const Lattice& n = p.lattice;
  const auto start = std::chrono::steady_clock::now();
  // One (j, k) row per iteration: rows are independent, and there are enough of them for
  // threads even on a 2D slice. They go in bands, each band shared among the threads, so
  // progress can be told between bands.
  const double row_terms = static_cast<double>(n.nx) * static_cast<double>(std::max<std::size_t>(atoms.size(), 1));
  const auto band = std::max<std::int64_t>(4 * cpu_threads(),
                                           static_cast<std::int64_t>(std::ceil(kBandTerms / row_terms)));
  for (std::int64_t first = 0; first < rows; first += band) {
    const std::int64_t last = std::min(rows, first + band);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t row = first; row < last; ++row) {
      const auto [j, k] = row_of(row);
      const double y = n.origin[1] + n.spacing * static_cast<double>(j);
      const double z = n.origin[2] + n.spacing * static_cast<double>(k);
      for (std::int64_t i = 0; i < n.nx; ++i) {
        const double x = n.origin[0] + n.spacing * static_cast<double>(i);
        double sum = 0, magnitude = 0;
        for (const Atom& a : atoms) {
          const double dx = x - a.x, dy = y - a.y, dz = z - a.z;
          const double r = std::max(std::sqrt(dx * dx + dy * dy + dz * dz), p.min_distance);
          sum += static_cast<double>(a.q) / r;
          if constexpr (kScale) magnitude += std::abs(static_cast<double>(a.q)) / r;
        }
        const auto at = static_cast<std::size_t>(i + n.nx * row);
        potential[at] = p.coulomb_constant * sum;
        // A negative k makes the sum negative.
        if constexpr (kScale) scale[at] = std::abs(p.coulomb_constant * magnitude);
      }
    }
    if (progress) progress({last * n.nx, rows * n.nx, seconds_since(start)});
  }
}

template <bool kScale>
void sum_over_atoms(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                    double* potential, double* scale, const ProgressCallback& progress) {
  sum_over_atoms<kScale>(
      p, atoms, part.ny * part.nz,
      [&](std::int64_t row) {
        return std::pair<std::int64_t, std::int64_t>{part.j_first + row % part.ny,
                                                     part.k_first + row / part.ny};
      },
      potential, scale, progress);
}

}  // namespace

std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms,
                               const ProgressCallback& progress) {
  return solve_gold(p, atoms, whole(p.lattice), progress);
}

std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                               const ProgressCallback& progress) {
  std::vector<double> v(static_cast<std::size_t>(part.points()));
  sum_over_atoms<false>(p, atoms, part, v.data(), nullptr, progress);
  return v;
}

Result solve_cpu(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                 const ProgressCallback& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> gold = solve_gold(p, atoms, part, progress);
  Result result;
  result.timings.add(phase::compute, seconds_since(start));
  result.potential.assign(gold.begin(), gold.end());
  return result;
}

GoldWithScale solve_gold_with_scale(const Params& p, const std::vector<Atom>& atoms,
                                    const ProgressCallback& progress) {
  return solve_gold_with_scale(p, atoms, whole(p.lattice), progress);
}

GoldWithScale solve_gold_with_scale(const Params& p, const std::vector<Atom>& atoms,
                                    const Part& part, const ProgressCallback& progress) {
  GoldWithScale g;
  g.potential.resize(static_cast<std::size_t>(part.points()));
  g.scale.resize(g.potential.size());
  sum_over_atoms<true>(p, atoms, part, g.potential.data(), g.scale.data(), progress);
  return g;
}

GoldWithScale solve_gold_with_scale_rows(const Params& p, const std::vector<Atom>& atoms,
                                         const std::vector<std::int64_t>& rows,
                                         const ProgressCallback& progress) {
  const Lattice& n = p.lattice;
  for (std::int64_t r : rows)
    if (r < 0 || r >= n.ny * n.nz)
      throw Error("coulomb: solve_gold_with_scale_rows: row " + std::to_string(r) + " of " +
                  std::to_string(n.ny * n.nz));
  GoldWithScale g;
  g.potential.resize(rows.size() * static_cast<std::size_t>(n.nx));
  g.scale.resize(g.potential.size());
  sum_over_atoms<true>(
      p, atoms, static_cast<std::int64_t>(rows.size()),
      [&](std::int64_t r) {
        const std::int64_t row = rows[static_cast<std::size_t>(r)];
        return std::pair<std::int64_t, std::int64_t>{row % n.ny, row / n.ny};
      },
      g.potential.data(), g.scale.data(), progress);
  return g;
}

std::vector<std::int64_t> sampled_rows(const Lattice& n, std::int64_t stride) {
  std::vector<std::int64_t> rows;
  const std::int64_t count = n.ny * n.nz;
  for (std::int64_t r = 0; r < count; ++r)
    if (r % stride == 0 || r == count - 1) rows.push_back(r);
  return rows;
}

std::vector<double> magnitude_scale(const Params& p, const std::vector<Atom>& atoms) {
  return solve_gold_with_scale(p, atoms).scale;
}

}  // namespace parasol::coulomb
