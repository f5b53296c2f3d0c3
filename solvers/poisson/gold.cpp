// The CPU gold: poisson.hpp's multigrid written plainly, one loop nest per operation, parallel
// over z planes with OpenMP. Every cell's arithmetic is fixed and every sum runs in a fixed
// order (each plane in index order, then the planes in order), so the answer does not depend on
// the thread count.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

std::vector<Level> levels(const Params& p) {
  std::vector<Level> out{{p.nx, p.ny, p.nz, p.hx, p.hy, p.hz}};
  for (;;) {
    const Level& l = out.back();
    if (l.nx % 2 != 0 || l.ny % 2 != 0 || l.nz % 2 != 0 || l.cells() <= p.bottom_cells) break;
    out.push_back({l.nx / 2, l.ny / 2, l.nz / 2, 2 * l.hx, 2 * l.hy, 2 * l.hz});
  }
  return out;
}

double ghost_weight(FaceKind k) {
  return k == FaceKind::dirichlet ? 1.0 : k == FaceKind::neumann ? -1.0 : 0.0;
}

namespace {

// One axis's share of the diagonal, in units of 1/h², for the cell at `at` of `n`.
double axis_diagonal(FaceKind lo, FaceKind hi, std::int64_t at, std::int64_t n) {
  // A periodic side of one cell is its own neighbour twice over: the axis adds nothing.
  if (lo == FaceKind::periodic) return n == 1 ? 0.0 : 2.0;
  return 2.0 + (at == 0 ? ghost_weight(lo) : 0.0) + (at == n - 1 ? ghost_weight(hi) : 0.0);
}

}  // namespace

double diagonal(const Params& p, const Level& l, std::int64_t i, std::int64_t j, std::int64_t k) {
  return p.alpha + axis_diagonal(p.x_min.kind, p.x_max.kind, i, l.nx) / (l.hx * l.hx) +
         axis_diagonal(p.y_min.kind, p.y_max.kind, j, l.ny) / (l.hy * l.hy) +
         axis_diagonal(p.z_min.kind, p.z_max.kind, k, l.nz) / (l.hz * l.hz);
}

std::vector<ChebyshevStep> chebyshev_steps(std::int64_t sweeps) {
  constexpr double kMax = 2.0, kMin = kMax / 8;
  const double theta = (kMax + kMin) / 2, delta = (kMax - kMin) / 2, sigma = theta / delta;
  std::vector<ChebyshevStep> steps;
  double rho = 1 / sigma;
  for (std::int64_t s = 0; s < sweeps; ++s) {
    if (s == 0) {
      steps.push_back({0.0, 1 / theta});
      continue;
    }
    const double next = 1 / (2 * sigma - rho);
    steps.push_back({next * rho, 2 * next / delta});
    rho = next;
  }
  return steps;
}

namespace {

using Index = std::int64_t;

std::size_t at(const Level& l, Index i, Index j, Index k) {
  return static_cast<std::size_t>(i + l.nx * (j + l.ny * k));
}

// A level's operator with homogeneous conditions, in T.
template <class T>
struct Operator {
  Level l;
  FaceKind kind[6];
  T alpha, ih2[3];
  std::vector<T> inverse_diagonal;  // 0 where the diagonal is 0 (a cell whose equation is 0 = 0)
  bool odd_periodic = false;  // a periodic side of odd length ≥ 3: a colour meets itself

  Operator(const Params& p, const Level& level) : l(level) {
    for (int f = 0; f < 6; ++f) kind[f] = p.face(f).kind;
    alpha = static_cast<T>(p.alpha);
    ih2[0] = static_cast<T>(1 / (l.hx * l.hx));
    ih2[1] = static_cast<T>(1 / (l.hy * l.hy));
    ih2[2] = static_cast<T>(1 / (l.hz * l.hz));
    inverse_diagonal.resize(static_cast<std::size_t>(l.cells()));
    for (Index k = 0; k < l.nz; ++k)
      for (Index j = 0; j < l.ny; ++j)
        for (Index i = 0; i < l.nx; ++i) {
          const double d = diagonal(p, l, i, j, k);
          inverse_diagonal[at(l, i, j, k)] = d == 0 ? T(0) : static_cast<T>(1 / d);
        }
    const Index n[3] = {l.nx, l.ny, l.nz};
    for (int axis = 0; axis < 3; ++axis)
      odd_periodic = odd_periodic || (kind[2 * axis] == FaceKind::periodic && n[axis] % 2 == 1 &&
                                      n[axis] >= 3);
  }

  // The neighbour beyond face `f` of a cell whose value is `own`; `wrapped` is the cell at the
  // other end (periodic).
  T ghost(int f, T own, T wrapped) const {
    return kind[f] == FaceKind::dirichlet ? -own : kind[f] == FaceKind::neumann ? own : wrapped;
  }

  // (A u) at (i, j, k).
  T apply(const T* u, Index i, Index j, Index k) const {
    const Index nx = l.nx, ny = l.ny, nz = l.nz, sy = nx, sz = nx * ny;
    const Index c = i + nx * (j + ny * k);
    const T uc = u[c];
    const T xl = i > 0 ? u[c - 1] : ghost(0, uc, u[c + nx - 1]);
    const T xr = i < nx - 1 ? u[c + 1] : ghost(1, uc, u[c - (nx - 1)]);
    const T yl = j > 0 ? u[c - sy] : ghost(2, uc, u[c + (ny - 1) * sy]);
    const T yr = j < ny - 1 ? u[c + sy] : ghost(3, uc, u[c - (ny - 1) * sy]);
    const T zl = k > 0 ? u[c - sz] : ghost(4, uc, u[c + (nz - 1) * sz]);
    const T zr = k < nz - 1 ? u[c + sz] : ghost(5, uc, u[c - (nz - 1) * sz]);
    const T two = 2;
    return alpha * uc + (two * uc - xl - xr) * ih2[0] + (two * uc - yl - yr) * ih2[1] +
           (two * uc - zl - zr) * ih2[2];
  }
};

// Sums of each z plane in index order, then of the planes in order: fixed whatever the threads.
template <class PerCell>
double plane_ordered_sum(const Level& l, PerCell per_cell) {
  std::vector<double> planes(static_cast<std::size_t>(l.nz));
#pragma omp parallel for
  for (Index k = 0; k < l.nz; ++k) {
    double s = 0;
    for (Index j = 0; j < l.ny; ++j)
      for (Index i = 0; i < l.nx; ++i) s += per_cell(at(l, i, j, k));
    planes[static_cast<std::size_t>(k)] = s;
  }
  double s = 0;
  for (double v : planes) s += v;
  return s;
}

// The mean by compensated sums: each plane's, then the planes'.
template <class T>
double compensated_mean(const Level& l, const std::vector<T>& v) {
  std::vector<double> planes(static_cast<std::size_t>(l.nz));
  const std::size_t plane = static_cast<std::size_t>(l.nx * l.ny);
#pragma omp parallel for
  for (Index k = 0; k < l.nz; ++k) {
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::size_t>(k));
    planes[static_cast<std::size_t>(k)] =
        compensated_sum(std::vector<double>(first, first + static_cast<std::ptrdiff_t>(plane)));
  }
  return compensated_sum(planes) / static_cast<double>(l.cells());
}

template <class T>
void remove_mean(const Level& l, std::vector<T>& v) {
  const T mean = static_cast<T>(compensated_mean(l, v));
  for (T& x : v) x -= mean;
}

struct Norms {
  double max = 0, l2 = 0;
};

template <class T>
Norms norms(const Level& l, const std::vector<T>& v) {
  Norms n;
  for (T x : v) n.max = std::max(n.max, std::abs(static_cast<double>(x)));
  n.l2 = std::sqrt(plane_ordered_sum(l, [&](std::size_t c) {
    const double x = static_cast<double>(v[c]);
    return x * x;
  }));
  return n;
}

template <class T>
class Multigrid {
 public:
  Multigrid(const Params& p) : p_(p), singular_(singular(p)) {
    for (const Level& l : levels(p)) {
      ops_.emplace_back(p, l);
      const auto n = static_cast<std::size_t>(l.cells());
      x_.emplace_back(n, T(0));
      b_.emplace_back(n, T(0));
      r_.emplace_back(n, T(0));
    }
  }

  std::size_t depth() const { return ops_.size(); }
  std::vector<T>& x(std::size_t l) { return x_[l]; }
  std::vector<T>& b(std::size_t l) { return b_[l]; }

  // r = b − A x at level l.
  void residual(std::size_t l, std::vector<T>& r) {
    const Operator<T>& o = ops_[l];
    const T* x = x_[l].data();
    const std::vector<T>& b = b_[l];
#pragma omp parallel for
    for (Index k = 0; k < o.l.nz; ++k)
      for (Index j = 0; j < o.l.ny; ++j)
        for (Index i = 0; i < o.l.nx; ++i) {
          const std::size_t c = at(o.l, i, j, k);
          r[c] = b[c] - o.apply(x, i, j, k);
        }
  }

  void smooth(std::size_t l, std::int64_t sweeps) {
    if (p_.smoother == Smoother::rbgs) {
      for (std::int64_t s = 0; s < sweeps; ++s) {
        colour(l, 0);
        colour(l, 1);
      }
    } else {
      chebyshev(l, sweeps);
    }
  }

  // The V-cycle on A x_l = b_l from the current x_l (poisson.hpp).
  void vcycle(std::size_t l) {
    if (l + 1 == depth()) {
      bottom(l);
      return;
    }
    smooth(l, p_.pre_sweeps);
    residual(l, r_[l]);
    restrict_to(l, r_[l], b_[l + 1]);
    std::fill(x_[l + 1].begin(), x_[l + 1].end(), T(0));
    vcycle(l + 1);
    correct(l);
    smooth(l, p_.post_sweeps);
  }

  // FMG from the level right-hand sides `fmg_b` (b_l with the boundary data at each level).
  void fmg(const std::vector<std::vector<T>>& fmg_b) {
    const std::size_t coarsest = depth() - 1;
    b_[coarsest] = fmg_b[coarsest];
    std::fill(x_[coarsest].begin(), x_[coarsest].end(), T(0));
    bottom(coarsest);
    for (std::size_t l = coarsest; l-- > 0;) {
      interpolate(l);
      b_[l] = fmg_b[l];
      vcycle(l);
    }
  }

  // The mean of the children of each coarse cell: `fine` at level l into `coarse` at l + 1.
  void restrict_to(std::size_t l, const std::vector<T>& fine, std::vector<T>& coarse) const {
    const Level& f = ops_[l].l;
    const Level& c = ops_[l + 1].l;
    const T eighth = T(0.125);
#pragma omp parallel for
    for (Index k = 0; k < c.nz; ++k)
      for (Index j = 0; j < c.ny; ++j)
        for (Index i = 0; i < c.nx; ++i) {
          T s = 0;
          for (Index dk = 0; dk < 2; ++dk)
            for (Index dj = 0; dj < 2; ++dj)
              for (Index di = 0; di < 2; ++di)
                s += fine[at(f, 2 * i + di, 2 * j + dj, 2 * k + dk)];
          coarse[at(c, i, j, k)] = s * eighth;
        }
  }

 private:
  // The coarsest level: bottom_sweeps sweeps; a singular problem's right-hand side is made
  // compatible first and the correction's free constant removed after.
  void bottom(std::size_t l) {
    if (singular_) remove_mean(ops_[l].l, b_[l]);
    smooth(l, p_.bottom_sweeps);
    if (singular_) remove_mean(ops_[l].l, x_[l]);
  }

  // x_l += piecewise-constant prolongation of x_{l+1}.
  void correct(std::size_t l) {
    const Level& f = ops_[l].l;
    const Level& c = ops_[l + 1].l;
    std::vector<T>& x = x_[l];
    const std::vector<T>& e = x_[l + 1];
#pragma omp parallel for
    for (Index k = 0; k < f.nz; ++k)
      for (Index j = 0; j < f.ny; ++j)
        for (Index i = 0; i < f.nx; ++i) x[at(f, i, j, k)] += e[at(c, i / 2, j / 2, k / 2)];
  }

  // The coarse value at (i, j, k), any index one beyond a face standing for the ghost with the
  // boundary data: resolved x first, then y, then z (poisson.hpp).
  double coarse_at(const Level& c, const std::vector<T>& u, Index i, Index j, Index k) const {
    const Index n[3] = {c.nx, c.ny, c.nz};
    const double h[3] = {c.hx, c.hy, c.hz};
    Index idx[3] = {i, j, k};
    for (int axis = 0; axis < 3; ++axis) {
      const int side = idx[axis] < 0 ? 0 : idx[axis] >= n[axis] ? 1 : -1;
      if (side < 0) continue;
      const Face& face = p_.face(axis, side);
      Index inside[3] = {idx[0], idx[1], idx[2]};
      if (face.kind == FaceKind::periodic) {
        inside[axis] = side == 0 ? n[axis] - 1 : 0;
        return coarse_at(c, u, inside[0], inside[1], inside[2]);
      }
      inside[axis] = side == 0 ? 0 : n[axis] - 1;
      const double own = coarse_at(c, u, inside[0], inside[1], inside[2]);
      return face.kind == FaceKind::dirichlet ? 2 * face.value - own : own + h[axis] * face.value;
    }
    return static_cast<double>(u[at(c, i, j, k)]);
  }

  // FMG's prolongation: x_l = trilinear interpolation of x_{l+1}, HPGMG-FV's weights 3/4 and 1/4
  // per axis.
  void interpolate(std::size_t l) {
    const Level& f = ops_[l].l;
    const Level& c = ops_[l + 1].l;
    std::vector<T>& x = x_[l];
    const std::vector<T>& u = x_[l + 1];
#pragma omp parallel for
    for (Index k = 0; k < f.nz; ++k)
      for (Index j = 0; j < f.ny; ++j)
        for (Index i = 0; i < f.nx; ++i) {
          const Index ci = i / 2, cj = j / 2, ck = k / 2;
          // The neighbour on the child's side: the child at offset −1/4 leans to the lower one.
          const Index si = i % 2 == 0 ? -1 : 1, sj = j % 2 == 0 ? -1 : 1, sk = k % 2 == 0 ? -1 : 1;
          double v = 0;
          for (int dk = 0; dk < 2; ++dk)
            for (int dj = 0; dj < 2; ++dj)
              for (int di = 0; di < 2; ++di) {
                const double w = (di ? 0.25 : 0.75) * (dj ? 0.25 : 0.75) * (dk ? 0.25 : 0.75);
                v += w * coarse_at(c, u, ci + di * si, cj + dj * sj, ck + dk * sk);
              }
          x[at(f, i, j, k)] = static_cast<T>(v);
        }
  }

  // Half a red-black sweep: the cells with (i + j + k) % 2 == parity.
  void colour(std::size_t l, int parity) {
    const Operator<T>& o = ops_[l];
    std::vector<T>& x = x_[l];
    const std::vector<T>& b = b_[l];
    // Where a periodic side of odd length lets a colour meet itself, the colour reads the values
    // from before its half sweep (Jacobi order within the colour), so no order of cells matters.
    const T* from = x.data();
    if (o.odd_periodic) {
      r_[l] = x;
      from = r_[l].data();
    }
#pragma omp parallel for
    for (Index k = 0; k < o.l.nz; ++k)
      for (Index j = 0; j < o.l.ny; ++j)
        for (Index i = (j + k + parity) % 2; i < o.l.nx; i += 2) {
          const std::size_t c = at(o.l, i, j, k);
          x[c] = from[c] + (b[c] - o.apply(from, i, j, k)) * o.inverse_diagonal[c];
        }
  }

  // Chebyshev-accelerated Jacobi: `sweeps` steps of chebyshev_steps.
  void chebyshev(std::size_t l, std::int64_t sweeps) {
    const Operator<T>& o = ops_[l];
    std::vector<T>& x = x_[l];
    const std::vector<T>& b = b_[l];
    std::vector<T> previous = x, next(x.size());
    for (const ChebyshevStep& step : chebyshev_steps(sweeps)) {
      const T c1 = static_cast<T>(step.c1), c2 = static_cast<T>(step.c2);
#pragma omp parallel for
      for (Index k = 0; k < o.l.nz; ++k)
        for (Index j = 0; j < o.l.ny; ++j)
          for (Index i = 0; i < o.l.nx; ++i) {
            const std::size_t c = at(o.l, i, j, k);
            next[c] = x[c] + c1 * (x[c] - previous[c]) +
                      c2 * (b[c] - o.apply(x.data(), i, j, k)) * o.inverse_diagonal[c];
          }
      previous.swap(x);
      x.swap(next);
    }
  }

 public:
  const Level& level(std::size_t l) const { return ops_[l].l; }

 private:
  const Params& p_;
  bool singular_;
  std::vector<Operator<T>> ops_;
  std::vector<std::vector<T>> x_, b_, r_;
};

template <class T>
std::vector<T> to(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace

template <class T>
Outcome solve_gold(const Params& p, const std::vector<T>& f, std::vector<T>& u) {
  const auto start = std::chrono::steady_clock::now();
  if (f.size() != static_cast<std::size_t>(p.cells()))
    throw Error("poisson::solve_gold: f holds " + std::to_string(f.size()) + " values for " +
                std::to_string(p.cells()) + " cells");
  Multigrid<T> mg(p);
  Outcome out;
  out.levels = static_cast<std::int64_t>(mg.depth());
  const bool singular_problem = singular(p);

  // Each level's source (the mean of its children), and with it each level's right-hand side.
  std::vector<std::vector<double>> source{std::vector<double>(f.begin(), f.end())};
  for (std::size_t l = 0; l + 1 < mg.depth(); ++l) {
    std::vector<T> coarse(static_cast<std::size_t>(mg.level(l + 1).cells()));
    mg.restrict_to(l, to<T>(source[l]), coarse);
    source.emplace_back(coarse.begin(), coarse.end());
  }
  std::vector<std::vector<T>> rhs;
  for (std::size_t l = 0; l < mg.depth(); ++l) {
    std::vector<double> b = source[l];
    add_boundary_terms(p, mg.level(l), b);
    rhs.push_back(to<T>(b));
    if (p.cycle == Cycle::v) break;
  }

  const Level& fine = mg.level(0);
  const Norms bn = norms(fine, rhs[0]);
  out.b_max = bn.max;
  out.b_l2 = bn.l2;
  std::vector<T> r(static_cast<std::size_t>(fine.cells()));
  double previous_l2 = 1;
  const auto record = [&] {
    if (singular_problem) remove_mean(fine, mg.x(0));
    mg.residual(0, r);
    const Norms rn = norms(fine, r);
    CycleReport c;
    c.residual_max = bn.max > 0 ? rn.max / bn.max : rn.max;
    c.residual_l2 = bn.l2 > 0 ? rn.l2 / bn.l2 : rn.l2;
    c.factor = previous_l2 > 0 ? c.residual_l2 / previous_l2 : 0.0;
    previous_l2 = c.residual_l2;
    out.cycles.push_back(c);
    return c.residual_max < p.tolerance;
  };

  bool met = false;
  if (p.cycle == Cycle::fmg) {
    mg.fmg(rhs);
    met = record();
  } else {
    std::fill(mg.x(0).begin(), mg.x(0).end(), T(0));
  }
  for (std::int64_t c = 0; c < p.max_cycles && !met; ++c) {
    mg.b(0) = rhs[0];
    mg.vcycle(0);
    met = record();
  }
  out.stop = met ? StopReason::tolerance : StopReason::max_iterations;
  u = mg.x(0);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

template Outcome solve_gold<float>(const Params&, const std::vector<float>&, std::vector<float>&);
template Outcome solve_gold<double>(const Params&, const std::vector<double>&, std::vector<double>&);

std::vector<double> residual(const Params& p, const std::vector<double>& f,
                             const std::vector<double>& u) {
  const Level l = levels(p).front();
  const Operator<double> o(p, l);
  std::vector<double> r = f;
  add_boundary_terms(p, l, r);
  for (Index k = 0; k < l.nz; ++k)
    for (Index j = 0; j < l.ny; ++j)
      for (Index i = 0; i < l.nx; ++i) r[at(l, i, j, k)] -= o.apply(u.data(), i, j, k);
  return r;
}

std::int64_t solve_reference(const Params& p, const std::vector<double>& f, std::vector<double>& u,
                             double tolerance, std::int64_t max_sweeps) {
  const Level l = levels(p).front();
  const Operator<double> o(p, l);
  std::vector<double> b = f;
  add_boundary_terms(p, l, b);
  double b_max = 0;
  for (double v : b) b_max = std::max(b_max, std::abs(v));
  u.assign(b.size(), 0.0);
  const auto converged = [&] {
    double r_max = 0;
    for (double v : residual(p, f, u)) r_max = std::max(r_max, std::abs(v));
    return r_max <= tolerance * (b_max > 0 ? b_max : 1);
  };
  for (std::int64_t s = 1; s <= max_sweeps; ++s) {
    // Gauss–Seidel in index order: each cell from its neighbours' latest values.
    for (Index k = 0; k < l.nz; ++k)
      for (Index j = 0; j < l.ny; ++j)
        for (Index i = 0; i < l.nx; ++i) {
          const std::size_t c = at(l, i, j, k);
          u[c] += (b[c] - o.apply(u.data(), i, j, k)) * o.inverse_diagonal[c];
        }
    if (singular(p)) remove_mean(l, u);
    if (converged()) return s;
  }
  return max_sweeps;
}

}  // namespace parasol::poisson
