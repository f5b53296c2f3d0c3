// The GPU multigrid's per-cell arithmetic, run on the host (it compiles for both): the operator,
// its diagonal and the boundary terms against the gold's on grids with every face kind and
// one-cell axes, and FMG's trilinear prolongation exact on the linear fields its ghost rules
// reproduce; and the same functions on slabs of planes stored with halo planes (the runs across
// ranks) giving the whole level's values to the bit. These are where an index or a ghost goes
// wrong; they need no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solvers/poisson/kernels.cuh"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/stencil.cuh"

namespace parasol::poisson {
namespace {

struct Grid {
  std::string name;
  std::int64_t nx, ny, nz;
  Face faces[6];
  double alpha;
};

constexpr Face D(double g) { return {FaceKind::dirichlet, g}; }
constexpr Face N(double g) { return {FaceKind::neumann, g}; }
constexpr Face P{FaceKind::periodic, 0.0};

// One-cell axes appear on coarse levels (2 coarsened once); they are built directly here.
std::vector<Grid> grids() {
  return {
      {"dirichlet5x4x3", 5, 4, 3, {D(1), D(-2), D(0.5), D(0), D(3), D(-1)}, 0.0},
      {"mixed6x7x4", 6, 7, 4, {D(1), D(0), N(0.5), N(-0.25), P, P}, 1.5},
      {"neumann4x3x5", 4, 3, 5, {N(1), N(2), N(-1), N(0), N(0.5), N(0.25)}, 0.0},
      {"periodic3x4x5", 3, 4, 5, {P, P, P, P, P, P}, 0.0},
      {"one_cell_axes4x1x1", 4, 1, 1, {D(1), N(1), P, P, N(0.5), N(-2)}, 0.0},
      {"one_cell_dirichlet1x3x1", 1, 3, 1, {D(2), D(-1), N(0), D(1), P, P}, 0.5},
  };
}

Params params_of(const Grid& g) {
  Params p;
  p.nx = g.nx;
  p.ny = g.ny;
  p.nz = g.nz;
  p.hx = 0.3;
  p.hy = 0.7;
  p.hz = 0.45;
  p.alpha = g.alpha;
  for (int f = 0; f < 6; ++f) p.face(f) = g.faces[f];
  return p;
}

std::vector<double> random_field(std::int64_t n, unsigned seed) {
  std::mt19937 draws(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = uniform(draws);
  return v;
}

// b - A u with b = f + boundary terms, cell by cell with the GPU's functions, against the gold's
// residual(): the same terms in the same order, so they agree to a few ulps of the terms' size.
TEST(PoissonStencil, OperatorAndBoundaryTermsMatchTheGold) {
  for (const Grid& grid : grids()) {
    const Params p = params_of(grid);
    const Level level = levels(p).front();
    const LevelGrid<double> g = grid_of<double>(p, level);
    const PerFace terms = boundary_terms(p, level);
    const std::vector<double> f = random_field(p.cells(), 1), u = random_field(p.cells(), 2);
    const std::vector<double> gold = residual(p, f, u);
    const double scale = 12.0 / (0.3 * 0.3);  // the largest term's size: 2 |u| / h^2 per side
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::int64_t at = i + g.nx * (j + static_cast<std::int64_t>(g.ny) * k);
          const double b = f[at] + boundary_term_at(g, terms, i, j, k);
          const double r = b - apply_operator(g, u.data(), i, j, k, at);
          ASSERT_NEAR(r, gold[at], 1e-13 * scale)
              << grid.name << " cell (" << i << ", " << j << ", " << k << ")";
        }
  }
}

TEST(PoissonStencil, DiagonalMatchesTheGold) {
  for (const Grid& grid : grids()) {
    const Params p = params_of(grid);
    const Level level = levels(p).front();
    const LevelGrid<double> g = grid_of<double>(p, level);
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const double want = poisson::diagonal(p, level, i, j, k);
          ASSERT_NEAR(diagonal(g, i, j, k), want, 1e-14 * std::max(1.0, want))
              << grid.name << " cell (" << i << ", " << j << ", " << k << ")";
        }
  }
}

// Restriction is the mean of the children, 2 per halved axis and 1 per other: a field linear in
// x, y and z, at the fine cell centres, restricts to its value at each coarse cell's centre, for
// a cube's level and for semi-coarsened ones.
TEST(PoissonStencil, RestrictionTakesTheMeanOfTheChildren) {
  const std::int64_t nx = 3, ny = 4, nz = 2;  // the coarse level's cells
  const double hx = 0.5, hy = 0.25, hz = 1.0;  // and spacings
  const auto u = [](double x, double y, double z) { return 0.5 + 2 * x - 3 * y + 0.75 * z; };
  const int ratios[][3] = {{2, 2, 2}, {2, 1, 2}, {1, 2, 1}, {1, 1, 2}};
  for (const auto& r : ratios) {
    Params p;
    const Level fine{r[0] * nx, r[1] * ny, r[2] * nz, hx / r[0], hy / r[1], hz / r[2]};
    const Level coarse{nx, ny, nz, hx, hy, hz, r[0], r[1], r[2]};
    const LevelGrid<double> gf = grid_of<double>(p, fine), gc = grid_of<double>(p, coarse);
    std::vector<double> uf(static_cast<std::size_t>(fine.cells()));
    for (std::int64_t k = 0; k < fine.nz; ++k)
      for (std::int64_t j = 0; j < fine.ny; ++j)
        for (std::int64_t i = 0; i < fine.nx; ++i)
          uf[i + fine.nx * (j + fine.ny * k)] =
              u((i + 0.5) * fine.hx, (j + 0.5) * fine.hy, (k + 0.5) * fine.hz);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const auto child = [&](int, int, int, std::int64_t at) { return uf[at]; };
          const double mean = mean_of_children(gf, gc, i, j, k, child);
          ASSERT_NEAR(mean, u((i + 0.5) * hx, (j + 0.5) * hy, (k + 0.5) * hz), 1e-13)
              << "ratios " << r[0] << r[1] << r[2] << " coarse cell (" << i << ", " << j << ", "
              << k << ")";
          // A cube's level takes the kernels' compile-time ratios: the same sum, the same bits.
          if (halves_every_axis(gc))
            ASSERT_EQ(mean_of_children<true>(gf, gc, i, j, k, child), mean);
        }
  }
}

// A field linear along an axis is reproduced exactly by trilinear interpolation between cell
// centres, and by the ghost rules beyond faces whose data are that field's own: a Dirichlet face
// holding its value, a Neumann face its outward slope. So on a coarse level holding
// u = 1 + 2x - 3z (its x and z faces Neumann with the slopes, y periodic), or u = 0.5 - 4x (x faces
// Dirichlet with its values, y Neumann 0, z periodic), every fine cell, corners included, gets u
// at its centre: below a cube's level (every axis halved) and below semi-coarsened ones, where an
// axis that kept its cells is copied (its fine cell centres are the coarse ones).
TEST(PoissonStencil, TrilinearReproducesLinearFields) {
  struct Linear {
    std::string name;
    Face faces[6];
    double c0, cx, cz;
  };
  const double hx = 0.5, hy = 1.0, hz = 0.4;  // the coarse level's
  const std::int64_t nx = 4, ny = 4, nz = 6;  // the coarse level's cells
  const double lx = nx * hx;
  const Linear cases[] = {
      {"neumann_xz", {N(-2), N(2), P, P, N(3), N(-3)}, 1.0, 2.0, -3.0},
      {"dirichlet_x", {D(0.5), D(0.5 - 4 * lx), N(0), N(0), P, P}, 0.5, -4.0, 0.0},
  };
  const int ratios[][3] = {{2, 2, 2}, {2, 1, 2}, {1, 2, 1}, {1, 1, 2}};
  for (const Linear& c : cases)
    for (const auto& r : ratios) {
      Params p;
      p.nx = r[0] * nx;
      p.ny = r[1] * ny;
      p.nz = r[2] * nz;
      p.hx = hx / r[0];
      p.hy = hy / r[1];
      p.hz = hz / r[2];
      for (int f = 0; f < 6; ++f) p.face(f) = c.faces[f];
      const Level fine{p.nx, p.ny, p.nz, p.hx, p.hy, p.hz};
      const Level coarse{nx, ny, nz, hx, hy, hz, r[0], r[1], r[2]};
      const LevelGrid<double> gc = grid_of<double>(p, coarse);
      const PerFace ghost = ghost_data(p, coarse);
      const auto u = [&](double x, double z) { return c.c0 + c.cx * x + c.cz * z; };
      std::vector<double> uc(static_cast<std::size_t>(coarse.cells()));
      for (std::int64_t k = 0; k < nz; ++k)
        for (std::int64_t j = 0; j < ny; ++j)
          for (std::int64_t i = 0; i < nx; ++i)
            uc[i + nx * (j + ny * k)] = u((i + 0.5) * coarse.hx, (k + 0.5) * coarse.hz);
      for (int k = 0; k < fine.nz; ++k)
        for (int j = 0; j < fine.ny; ++j)
          for (int i = 0; i < fine.nx; ++i) {
            const double v = trilinear_at(gc, ghost, uc.data(), i, j, k);
            ASSERT_NEAR(v, u((i + 0.5) * fine.hx, (k + 0.5) * fine.hz), 1e-12)
                << c.name << " ratios " << r[0] << r[1] << r[2] << " fine cell (" << i << ", "
                << j << ", " << k << ")";
            // A cube's level takes the kernels' compile-time ratios: the same terms, the same bits.
            if (halves_every_axis(gc)) ASSERT_EQ(trilinear_at<true>(gc, ghost, uc.data(), i, j, k), v);
          }
    }
}


// A level's planes [k0, k1) as a rank holds them across ranks (device_slab.hpp): one halo plane
// below and one above, holding what the exchange brings (the neighbours' planes; past a periodic
// z face the other end's), and NaN past any other z face, where nothing may be read.
std::vector<double> slab_of(const Level& l, const std::vector<double>& whole, int k0, int k1,
                            bool periodic) {
  const std::int64_t plane = l.nx * l.ny;
  std::vector<double> slab(static_cast<std::size_t>(plane * (k1 - k0 + 2)),
                           std::numeric_limits<double>::quiet_NaN());
  for (int k = k0 - 1; k <= k1; ++k) {
    int from = k;
    if (k < 0 || k >= l.nz) {
      if (!periodic) continue;
      from = k < 0 ? static_cast<int>(l.nz) - 1 : 0;
    }
    std::copy_n(whole.begin() + plane * from, plane, slab.begin() + plane * (k - k0 + 1));
  }
  return slab;
}

SlabGrid<double> slab_grid(const Params& p, const Level& l, int k0, int k1) {
  return SlabGrid<double>(grid_of<double>(p, l), k0, k1 - k0, true);
}

// The operator, the restriction and both prolongations on each rank's slab of a level and of the
// level below (cuts in whole children, evenly and not, z halving and not), with each z face
// kind: the whole level's values, bit for bit, and no NaN halo read past a face.
TEST(PoissonStencil, SlabsWithHaloPlanesGiveTheWholeLevelsValues) {
  const Face z_faces[][2] = {{D(1), N(0.5)}, {N(0), N(-1)}, {P, P}};
  const std::vector<std::vector<int>> cuts = {{0, 4, 8}, {0, 2, 6, 8}, {0, 2, 4, 6, 8}};
  for (const double hz : {0.45, 1.0})  // z halves with x (cells as short), or keeps its planes
    for (const auto& zf : z_faces) {
      Params p;
      p.nx = 6;
      p.ny = 4;
      p.nz = 8;
      p.hx = 0.3;
      p.hy = 0.7;
      p.hz = hz;
      p.alpha = 0.5;
      p.bottom_cells = 1;
      p.x_min = D(1);
      p.x_max = N(0.25);
      p.y_min = p.y_max = P;
      p.z_min = zf[0];
      p.z_max = zf[1];
      const bool periodic = zf[0].kind == FaceKind::periodic;
      const std::vector<Level> all = levels(p);
      ASSERT_GE(all.size(), 2u);
      const Level &fine = all[0], &coarse = all[1];
      ASSERT_EQ(coarse.rz, hz < 0.6 ? 2 : 1);  // z within twice x's spacing halves with it
      const LevelGrid<double> wf = grid_of<double>(p, fine), wc = grid_of<double>(p, coarse);
      const std::vector<double> uf = random_field(fine.cells(), 3);
      const std::vector<double> uc = random_field(coarse.cells(), 4);
      const PerFace ghost = ghost_data(p, coarse), homogeneous{};
      for (const std::vector<int>& cut : cuts)
        for (std::size_t r = 0; r + 1 < cut.size(); ++r) {
          const int k0 = cut[r], k1 = cut[r + 1], c0 = k0 / coarse.rz, c1 = k1 / coarse.rz;
          const std::string where = "hz " + std::to_string(hz) + ", z " +
                                    std::string(name(zf[0].kind)) + ", planes [" +
                                    std::to_string(k0) + ", " + std::to_string(k1) + ")";
          const SlabGrid<double> sf = slab_grid(p, fine, k0, k1), sc = slab_grid(p, coarse, c0, c1);
          const std::vector<double> vf = slab_of(fine, uf, k0, k1, periodic);
          const std::vector<double> vc = slab_of(coarse, uc, c0, c1, periodic);
          for (int k = k0; k < k1; ++k)
            for (int j = 0; j < fine.ny; ++j)
              for (int i = 0; i < fine.nx; ++i) {
                ASSERT_EQ(apply_operator(sf, vf.data(), i, j, k, sf.index(i, j, k)),
                          apply_operator(wf, uf.data(), i, j, k, wf.index(i, j, k)))
                    << where << ", cell (" << i << ", " << j << ", " << k << ")";
                ASSERT_EQ(trilinear_at(sc, ghost, vc.data(), i, j, k),
                          trilinear_at(wc, ghost, uc.data(), i, j, k))
                    << where << ", fine cell (" << i << ", " << j << ", " << k << ")";
                ASSERT_EQ(trilinear_at(sc, homogeneous, vc.data(), i, j, k),
                          trilinear_at(wc, homogeneous, uc.data(), i, j, k))
                    << where << ", fine cell (" << i << ", " << j << ", " << k << ")";
              }
          for (int k = c0; k < c1; ++k)
            for (int j = 0; j < coarse.ny; ++j)
              for (int i = 0; i < coarse.nx; ++i)
                ASSERT_EQ(mean_of_children(sf, sc, i, j, k,
                                           [&](int, int, int, std::int64_t at) { return vf[at]; }),
                          mean_of_children(wf, wc, i, j, k,
                                           [&](int, int, int, std::int64_t at) { return uf[at]; }))
                    << where << ", coarse cell (" << i << ", " << j << ", " << k << ")";
        }
    }
}

// The planes' totals added in runs (the device's one block, kFinishRun at a time) give the one
// pass's bits (the host's, across ranks).
TEST(PoissonStencil, PlaneTotalsAddedInRunsGiveOnePassesBits) {
  std::vector<SumMax> totals;
  const std::vector<double> values = random_field(1300, 9);
  for (std::size_t q = 0; q < values.size(); ++q)
    totals.push_back({values[q] * values[q] * 1e3, std::abs(values[q])});
  const SumMax whole = sum_planes(SumMax{0.0, 0.0}, totals.data(), static_cast<int>(totals.size()));
  SumMax runs{0.0, 0.0};
  for (int first = 0; first < static_cast<int>(totals.size()); first += kFinishRun)
    runs = sum_planes(runs, totals.data() + first,
                      std::min(kFinishRun, static_cast<int>(totals.size()) - first));
  EXPECT_EQ(runs.sum, whole.sum);
  EXPECT_EQ(runs.max, whole.max);
  double out[2], again[2];
  finish_sum(whole, false, 0.0, out);
  finish_sum(runs, false, 0.0, again);
  EXPECT_EQ(out[1], again[1]);
  EXPECT_EQ(out[1], std::sqrt(whole.sum));
}

}  // namespace
}  // namespace parasol::poisson
