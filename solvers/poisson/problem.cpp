#include "solvers/poisson/problem.hpp"

#include <algorithm>
#include <cmath>

#include "comm/over_ranks.hpp"
#include "kernels/error.hpp"
#include "solvers/poisson/compensated.hpp"

namespace parasol::poisson {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::int64_t end_plane(std::int64_t nz, std::int64_t z_end) { return z_end < 0 ? nz : z_end; }

// One axis of the manufactured solution: φ(t) with φ'' = −k² φ, fitting the axis's two faces.
struct Mode {
  enum Shape { sine, cosine } shape;
  double k;
  double at(double t) const { return shape == sine ? std::sin(k * t) : std::cos(k * t); }
};

Mode mode(FaceKind lo, FaceKind hi, double length) {
  using F = FaceKind;
  if (lo == F::periodic) return {Mode::sine, 2 * kPi / length};
  if (lo == F::dirichlet && hi == F::dirichlet) return {Mode::sine, kPi / length};
  if (lo == F::neumann && hi == F::neumann) return {Mode::cosine, kPi / length};
  // A quarter wave: 0 (or flat) at the min face, flat (or 0) at the max.
  return {lo == F::dirichlet ? Mode::sine : Mode::cosine, kPi / (2 * length)};
}

// Fills planes [z_begin, z_end) with value(x, y, z) at the cell centres.
template <class Value>
std::vector<double> on_cells(const Params& p, std::int64_t z_begin, std::int64_t z_end,
                             Value value) {
  z_end = end_plane(p.nz, z_end);
  std::vector<double> out(static_cast<std::size_t>(p.nx * p.ny * (z_end - z_begin)));
#pragma omp parallel for
  for (std::int64_t k = z_begin; k < z_end; ++k)
    for (std::int64_t j = 0; j < p.ny; ++j)
      for (std::int64_t i = 0; i < p.nx; ++i)
        out[static_cast<std::size_t>(i + p.nx * (j + p.ny * (k - z_begin)))] =
            value((static_cast<double>(i) + 0.5) * p.hx, (static_cast<double>(j) + 0.5) * p.hy,
                  (static_cast<double>(k) + 0.5) * p.hz);
  return out;
}

Mode axis_mode(const Params& p, int axis) {
  const std::int64_t n[3] = {p.nx, p.ny, p.nz};
  const double h[3] = {p.hx, p.hy, p.hz};
  return mode(p.face(axis, 0).kind, p.face(axis, 1).kind, static_cast<double>(n[axis]) * h[axis]);
}

// An axis's mode taken once per cell centre along it: a table of n values, not n³ calls of sin.
std::vector<double> mode_table(const Params& p, int axis) {
  const std::int64_t n[3] = {p.nx, p.ny, p.nz};
  const double h[3] = {p.hx, p.hy, p.hz};
  const Mode m = axis_mode(p, axis);
  std::vector<double> t(static_cast<std::size_t>(n[axis]));
  for (std::int64_t i = 0; i < n[axis]; ++i)
    t[static_cast<std::size_t>(i)] = m.at((static_cast<double>(i) + 0.5) * h[axis]);
  return t;
}

// scale · φx(x) · φy(y) · φz(z) on planes [z_begin, z_end), multiplied in that order.
std::vector<double> separable(const Params& p, std::int64_t z_begin, std::int64_t z_end,
                              double scale, const std::vector<double>& x,
                              const std::vector<double>& y, const std::vector<double>& z) {
  z_end = end_plane(p.nz, z_end);
  std::vector<double> out(static_cast<std::size_t>(p.nx * p.ny * (z_end - z_begin)));
#pragma omp parallel for
  for (std::int64_t k = z_begin; k < z_end; ++k)
    for (std::int64_t j = 0; j < p.ny; ++j) {
      double* row = out.data() + p.nx * (j + p.ny * (k - z_begin));
      for (std::int64_t i = 0; i < p.nx; ++i)
        row[i] = scale * x[static_cast<std::size_t>(i)] * y[static_cast<std::size_t>(j)] *
                 z[static_cast<std::size_t>(k)];
    }
  return out;
}

}  // namespace

ModeTables mode_tables(const Params& p) {
  return {mode_table(p, 0), mode_table(p, 1), mode_table(p, 2)};
}

SourceRecipe source_recipe(const Params& p) {
  const double lx = static_cast<double>(p.nx) * p.hx, ly = static_cast<double>(p.ny) * p.hy,
               lz = static_cast<double>(p.nz) * p.hz;
  const double width = p.source.width * std::min({lx, ly, lz});
  SourceRecipe r;
  r.kind = p.source.kind;
  r.two_width2 = 2 * width * width;
  switch (p.source.kind) {
    case SourceKind::zero: return r;
    case SourceKind::gaussian:
      r.scale = p.source.amplitude;
      r.centre = {p.source.centre[0] * lx, p.source.centre[1] * ly, p.source.centre[2] * lz};
      return r;
    case SourceKind::charges: {
      // Each charge's Gaussian integrates to q over all space, so f is a charge density.
      const double norm = 1 / std::pow(2 * kPi * width * width, 1.5);
      for (const auto& c : p.source.charges)
        r.charges.push_back({c[0] * lx, c[1] * ly, c[2] * lz, c[3] * norm});
      return r;
    }
    case SourceKind::manufactured: {
      // −∇² of a product of modes is Σ k² times it.
      const Mode mx = axis_mode(p, 0), my = axis_mode(p, 1), mz = axis_mode(p, 2);
      r.scale = p.source.amplitude * (p.alpha + mx.k * mx.k + my.k * my.k + mz.k * mz.k);
      ModeTables t = mode_tables(p);
      r.x_mode = std::move(t.x);
      r.y_mode = std::move(t.y);
      r.z_mode = std::move(t.z);
      return r;
    }
    case SourceKind::file: break;
  }
  throw Error("poisson: source.kind = \"file\" is read by the front end, not made");
}

std::vector<double> manufactured_solution(const Params& p, std::int64_t z_begin,
                                          std::int64_t z_end) {
  const ModeTables t = mode_tables(p);
  return separable(p, z_begin, z_end, p.source.amplitude, t.x, t.y, t.z);
}

std::vector<double> make_source(const Params& p, std::int64_t z_begin, std::int64_t z_end) {
  const SourceRecipe r = source_recipe(p);
  switch (r.kind) {
    case SourceKind::gaussian:
      return on_cells(p, z_begin, z_end, [&](double x, double y, double z) {
        const double dx = x - r.centre[0], dy = y - r.centre[1], dz = z - r.centre[2];
        return r.scale * std::exp(-(dx * dx + dy * dy + dz * dz) / r.two_width2);
      });
    case SourceKind::charges:
      return on_cells(p, z_begin, z_end, [&](double x, double y, double z) {
        double f = 0;
        for (const auto& c : r.charges) {
          const double dx = x - c[0], dy = y - c[1], dz = z - c[2];
          f += c[3] * std::exp(-(dx * dx + dy * dy + dz * dz) / r.two_width2);
        }
        return f;
      });
    case SourceKind::manufactured:
      return separable(p, z_begin, z_end, r.scale, r.x_mode, r.y_mode, r.z_mode);
    default:
      return std::vector<double>(
          static_cast<std::size_t>(p.nx * p.ny * (end_plane(p.nz, z_end) - z_begin)), 0.0);
  }
}

void add_boundary_terms(const Params& p, const Level& l, std::vector<double>& b,
                        std::int64_t z_begin, std::int64_t z_end) {
  z_end = end_plane(l.nz, z_end);
  const std::int64_t n[3] = {l.nx, l.ny, l.nz};
  const double h[3] = {l.hx, l.hy, l.hz};
  // The ghost's data moved across: Dirichlet u_g = 2g − u_0 leaves 2g/h² on the right, Neumann
  // u_g = u_0 + h g leaves g/h.
  double term[6];
  for (int f = 0; f < 6; ++f) {
    const Face& face = p.face(f);
    const double hf = h[f / 2];
    term[f] = face.kind == FaceKind::dirichlet ? 2 * face.value / (hf * hf)
              : face.kind == FaceKind::neumann ? face.value / hf
                                               : 0.0;
  }
#pragma omp parallel for
  for (std::int64_t k = z_begin; k < z_end; ++k)
    for (std::int64_t j = 0; j < l.ny; ++j)
      for (std::int64_t i = 0; i < l.nx; ++i) {
        const std::int64_t at[3] = {i, j, k};
        double add = 0;
        for (int axis = 0; axis < 3; ++axis) {
          if (at[axis] == 0) add += term[2 * axis];
          if (at[axis] == n[axis] - 1) add += term[2 * axis + 1];
        }
        if (add != 0) b[static_cast<std::size_t>(i + l.nx * (j + l.ny * (k - z_begin)))] += add;
      }
}

template <class T>
DiscretisationError discretisation_error(const Params& q, const std::vector<T>& u,
                                         const std::vector<double>& exact, comm::Context& context,
                                         std::int64_t z_begin) {
  const std::size_t plane = static_cast<std::size_t>(q.nx * q.ny);
  std::vector<double> squares(static_cast<std::size_t>(q.nz), 0.0);
  const auto planes = static_cast<std::int64_t>(plane > 0 ? u.size() / plane : 0);
  double max = 0;
#pragma omp parallel for reduction(max : max)
  for (std::int64_t k = 0; k < planes; ++k) {
    double sum = 0;
    const std::size_t first = static_cast<std::size_t>(k) * plane;
    for (std::size_t c = first; c < first + plane; ++c) {
      const double d = static_cast<double>(u[c]) - exact[c];
      max = std::max(max, std::abs(d));
      sum += d * d;
    }
    squares[static_cast<std::size_t>(z_begin + k)] = sum;
  }
  DiscretisationError e;
  e.max = max;
  if (context.size() > 1) {
    e.max = comm::max_over_ranks(context, e.max);
    context.all_reduce(squares, comm::Op::sum);
  }
  double sum = 0;
  for (double s : squares) sum += s;
  e.rms = std::sqrt(sum / static_cast<double>(q.cells()));
  return e;
}

template DiscretisationError discretisation_error<float>(const Params&, const std::vector<float>&,
                                                         const std::vector<double>&,
                                                         comm::Context&, std::int64_t);
template DiscretisationError discretisation_error<double>(const Params&, const std::vector<double>&,
                                                          const std::vector<double>&,
                                                          comm::Context&, std::int64_t);

double compensated_sum(const std::vector<double>& values) {
  CompensatedSum s;
  for (double v : values) s.add(v);
  return s.total();
}

double compatibility_shift(const Params& p, const std::vector<double>& f, comm::Context* context,
                           std::int64_t z_begin, std::int64_t z_end) {
  if (!singular(p)) return 0;
  z_end = end_plane(p.nz, z_end);
  std::vector<double> b = f;
  add_boundary_terms(p, levels(p).front(), b, z_begin, z_end);
  // Zeros stand for the other ranks' planes: adding them in is exact, whatever the order.
  std::vector<double> planes(static_cast<std::size_t>(p.nz), 0.0);
  const auto plane = static_cast<std::ptrdiff_t>(p.nx * p.ny);
  for (std::int64_t k = z_begin; k < z_end; ++k) {
    const auto first = b.begin() + plane * (k - z_begin);
    planes[static_cast<std::size_t>(k)] = compensated_sum(std::vector<double>(first, first + plane));
  }
  if (context != nullptr && context->size() > 1) context->all_reduce(planes, comm::Op::sum);
  return compensated_sum(planes) / static_cast<double>(p.cells());
}

double make_compatible(const Params& p, std::vector<double>& f, comm::Context* context,
                       std::int64_t z_begin, std::int64_t z_end) {
  const double shift = compatibility_shift(p, f, context, z_begin, z_end);
  if (shift != 0)
    for (double& v : f) v -= shift;
  return shift;
}

}  // namespace parasol::poisson
