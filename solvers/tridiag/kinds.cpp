// The kinds' random systems and CPU golds: one obvious loop nest a kind, in double.
#include "solvers/tridiag/kinds.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"

namespace parasol::tridiag {
namespace {

// Where one system's elimination stopped; row < 0 when it did not.
struct Failure {
  std::int64_t row = -1;
  const char* what = "";
};

bool finite(double v) { return std::isfinite(v); }

// The Thomas algorithm on rows a, b, c (a[0] and c[n-1] unread) for one right-hand side, in
// double; cp is scratch of n. x may alias d.
Failure thomas(std::int64_t n, const double* a, const double* b, const double* c, const double* d,
               double* cp, double* x) {
  for (std::int64_t i = 0; i < n; ++i) {
    const double pivot = i > 0 ? b[i] - a[i] * cp[i - 1] : b[i];
    if (pivot == 0) return {i, "zero pivot"};
    cp[i] = i < n - 1 ? c[i] / pivot : 0.0;
    x[i] = (i > 0 ? d[i] - a[i] * x[i - 1] : d[i]) / pivot;
    if (!finite(pivot) || !finite(cp[i]) || !finite(x[i])) return {i, "non-finite value"};
  }
  for (std::int64_t i = n - 2; i >= 0; --i) {
    x[i] -= cp[i] * x[i + 1];
    if (!finite(x[i])) return {i, "non-finite value"};
  }
  return {};
}

// System m's band `band` (or d) as doubles: `width` values from `v`.
template <class T>
std::vector<double> widened(const std::vector<T>& v, std::int64_t m, std::int64_t width) {
  std::vector<double> out(static_cast<std::size_t>(width));
  for (std::int64_t j = 0; j < width; ++j)
    out[static_cast<std::size_t>(j)] = static_cast<double>(v[static_cast<std::size_t>(m * width + j)]);
  return out;
}

// Every input value finite, or the row of the first that is not.
Failure all_finite(const std::vector<std::vector<double>>& arrays, std::int64_t per_row) {
  for (const auto& v : arrays)
    for (std::size_t j = 0; j < v.size(); ++j)
      if (!finite(v[j])) return {static_cast<std::int64_t>(j) / per_row, "non-finite value"};
  return {};
}

// A ring by Sherman-Morrison: A = A' + u v^T with u = (gamma, 0, ..., 0, c[n-1]) and
// v = (1, 0, ..., 0, a[0] / gamma), so A' is tridiagonal with b[0] - gamma and
// b[n-1] - a[0] c[n-1] / gamma on its diagonal. gamma = -b[0] keeps A' as dominant as A: its
// first pivot doubles, and its last row loses at most |a[0] c[n-1] / b[0]| < |c[n-1]|.
template <class T>
Failure solve_periodic(const KindBatch<T>& batch, std::int64_t m, double* x) {
  const std::int64_t n = batch.dims.n;
  std::vector<double> a = widened(batch.bands[0], m, n), b = widened(batch.bands[1], m, n),
                      c = widened(batch.bands[2], m, n), d = widened(batch.d, m, n);
  if (const Failure f = all_finite({a, b, c, d}, 1); f.row >= 0) return f;
  if (b[0] == 0) return {0, "zero pivot"};
  const double gamma = -b[0], corner = a[0] / gamma;
  std::vector<double> u(static_cast<std::size_t>(n), 0.0), cp(u.size()), y(u.size()), z(u.size());
  u[0] = gamma;
  u[static_cast<std::size_t>(n - 1)] = c[static_cast<std::size_t>(n - 1)];
  b[0] -= gamma;
  b[static_cast<std::size_t>(n - 1)] -= a[0] * c[static_cast<std::size_t>(n - 1)] / gamma;
  if (const Failure f = thomas(n, a.data(), b.data(), c.data(), d.data(), cp.data(), y.data());
      f.row >= 0)
    return f;
  if (const Failure f = thomas(n, a.data(), b.data(), c.data(), u.data(), cp.data(), z.data());
      f.row >= 0)
    return f;
  const double denominator = 1 + z[0] + corner * z[static_cast<std::size_t>(n - 1)];
  if (denominator == 0) return {n - 1, "zero pivot"};
  const double factor = (y[0] + corner * y[static_cast<std::size_t>(n - 1)]) / denominator;
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = y[static_cast<std::size_t>(i)] - factor * z[static_cast<std::size_t>(i)];
    if (!finite(x[i])) return {i, "non-finite value"};
  }
  return {};
}

// One matrix, rhs right-hand sides: the elimination (the pivots and c') once, then each
// right-hand side down and back up with it.
template <class T>
Failure solve_multi_rhs(const KindBatch<T>& batch, std::int64_t m, double* x) {
  const std::int64_t n = batch.dims.n, k = batch.dims.rhs;
  const std::vector<double> a = widened(batch.bands[0], m, n), b = widened(batch.bands[1], m, n),
                            c = widened(batch.bands[2], m, n), d = widened(batch.d, m, k * n);
  if (const Failure f = all_finite({a, b, c}, 1); f.row >= 0) return f;
  if (const Failure f = all_finite({d}, 1); f.row >= 0) return {f.row % n, f.what};
  std::vector<double> pivot(static_cast<std::size_t>(n)), cp(pivot.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    pivot[s] = i > 0 ? b[s] - a[s] * cp[s - 1] : b[s];
    if (pivot[s] == 0) return {i, "zero pivot"};
    cp[s] = i < n - 1 ? c[s] / pivot[s] : 0.0;
    if (!finite(pivot[s]) || !finite(cp[s])) return {i, "non-finite value"};
  }
  for (std::int64_t r = 0; r < k; ++r) {
    double* xr = x + r * n;
    const double* dr = d.data() + r * n;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto s = static_cast<std::size_t>(i);
      xr[i] = (i > 0 ? dr[i] - a[s] * xr[i - 1] : dr[i]) / pivot[s];
    }
    for (std::int64_t i = n - 2; i >= 0; --i) xr[i] -= cp[static_cast<std::size_t>(i)] * xr[i + 1];
    for (std::int64_t i = 0; i < n; ++i)
      if (!finite(xr[i])) return {i, "non-finite value"};
  }
  return {};
}

// Five bands by Gaussian elimination in order (cuPentBatch's method): row i, with x[i-2] and
// x[i-1] eliminated by the two rows before it, becomes x[i] + alpha[i] x[i+1] + beta[i] x[i+2]
// = z[i]; then x back up.
template <class T>
Failure solve_penta(const KindBatch<T>& batch, std::int64_t m, double* x) {
  const std::int64_t n = batch.dims.n;
  std::array<std::vector<double>, 5> band;
  for (int q = 0; q < 5; ++q) band[static_cast<std::size_t>(q)] = widened(batch.bands[static_cast<std::size_t>(q)], m, n);
  const std::vector<double> d = widened(batch.d, m, n);
  const auto& [e, a, b, c, f] = band;
  if (const Failure bad = all_finite({e, a, b, c, f, d}, 1); bad.row >= 0) return bad;
  std::vector<double> alpha(static_cast<std::size_t>(n)), beta(alpha.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    // The entries outside the matrix are read as 0.
    const double ei = i >= 2 ? e[s] : 0.0, ai = i >= 1 ? a[s] : 0.0;
    const double ci = i + 1 < n ? c[s] : 0.0, fi = i + 2 < n ? f[s] : 0.0;
    const double alpha2 = i >= 2 ? alpha[s - 2] : 0.0, beta2 = i >= 2 ? beta[s - 2] : 0.0;
    const double z2 = i >= 2 ? x[i - 2] : 0.0;
    const double alpha1 = i >= 1 ? alpha[s - 1] : 0.0, beta1 = i >= 1 ? beta[s - 1] : 0.0;
    const double z1 = i >= 1 ? x[i - 1] : 0.0;
    const double gamma = ai - ei * alpha2;
    const double mu = b[s] - ei * beta2 - gamma * alpha1;
    if (mu == 0) return {i, "zero pivot"};
    alpha[s] = (ci - gamma * beta1) / mu;
    beta[s] = fi / mu;
    x[i] = (d[s] - ei * z2 - gamma * z1) / mu;
    if (!finite(mu) || !finite(alpha[s]) || !finite(beta[s]) || !finite(x[i]))
      return {i, "non-finite value"};
  }
  for (std::int64_t i = n - 2; i >= 0; --i) {
    const auto s = static_cast<std::size_t>(i);
    x[i] -= alpha[s] * x[i + 1] + (i + 2 < n ? beta[s] * x[i + 2] : 0.0);
    if (!finite(x[i])) return {i, "non-finite value"};
  }
  return {};
}

using Block = std::array<double, 4>;  // row-major 2x2
using Pair = std::array<double, 2>;

Block block_at(const std::vector<double>& v, std::int64_t i) {
  const auto s = static_cast<std::size_t>(4 * i);
  return {v[s], v[s + 1], v[s + 2], v[s + 3]};
}
Block times(const Block& p, const Block& q) {
  return {p[0] * q[0] + p[1] * q[2], p[0] * q[1] + p[1] * q[3], p[2] * q[0] + p[3] * q[2],
          p[2] * q[1] + p[3] * q[3]};
}
Pair times(const Block& p, const Pair& v) {
  return {p[0] * v[0] + p[1] * v[1], p[2] * v[0] + p[3] * v[1]};
}

// Block Thomas: P[i] = B[i] - A[i] C'[i-1], C'[i] = P[i]^-1 C[i], d'[i] = P[i]^-1 (d[i] - A[i]
// d'[i-1]); then x[i] = d'[i] - C'[i] x[i+1]. Each P[i] inverted explicitly (2x2).
template <class T>
Failure solve_block2(const KindBatch<T>& batch, std::int64_t m, double* x) {
  const std::int64_t n = batch.dims.n;
  const std::vector<double> a = widened(batch.bands[0], m, 4 * n),
                            b = widened(batch.bands[1], m, 4 * n),
                            c = widened(batch.bands[2], m, 4 * n), d = widened(batch.d, m, 2 * n);
  if (const Failure f = all_finite({a, b, c}, 4); f.row >= 0) return f;
  if (const Failure f = all_finite({d}, 2); f.row >= 0) return f;
  std::vector<Block> cp(static_cast<std::size_t>(n));
  Pair previous{0, 0};
  for (std::int64_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    Block p = block_at(b, i);
    Pair rhs{d[2 * s], d[2 * s + 1]};
    if (i > 0) {
      const Block ai = block_at(a, i), ac = times(ai, cp[s - 1]);
      for (int q = 0; q < 4; ++q) p[static_cast<std::size_t>(q)] -= ac[static_cast<std::size_t>(q)];
      const Pair ad = times(ai, previous);
      rhs = {rhs[0] - ad[0], rhs[1] - ad[1]};
    }
    const double det = p[0] * p[3] - p[1] * p[2];
    if (det == 0) return {i, "zero pivot"};
    const Block inverse{p[3] / det, -p[1] / det, -p[2] / det, p[0] / det};
    cp[s] = i < n - 1 ? times(inverse, block_at(c, i)) : Block{0, 0, 0, 0};
    previous = times(inverse, rhs);
    x[2 * i] = previous[0];
    x[2 * i + 1] = previous[1];
    for (double v : cp[s])
      if (!finite(v)) return {i, "non-finite value"};
    if (!finite(det) || !finite(previous[0]) || !finite(previous[1])) return {i, "non-finite value"};
  }
  for (std::int64_t i = n - 2; i >= 0; --i) {
    const Pair next{x[2 * i + 2], x[2 * i + 3]};
    const Pair cx = times(cp[static_cast<std::size_t>(i)], next);
    x[2 * i] -= cx[0];
    x[2 * i + 1] -= cx[1];
    if (!finite(x[2 * i]) || !finite(x[2 * i + 1])) return {i, "non-finite value"};
  }
  return {};
}

// A value uniform in [-1, 1).
double signed_unit(std::uint64_t word) { return 2 * SeededDraws::unit_of(word) - 1; }

// The draws' stream of each kind, so that no two kinds' batches share values for a seed (the
// general kind's random_batch draws stream 0).
std::uint64_t kind_stream(Kind k) { return 1 + static_cast<std::uint64_t>(k); }

}  // namespace

void check_kind_dims(const KindDims& dims, const std::string& source, const std::string& key) {
  if (dims.kind == Kind::general)
    throw Error("tridiag: general systems are a Batch (tridiag.hpp), not a KindBatch");
  if (dims.kind == Kind::periodic && dims.n < 3)
    throw InputError(source, key,
                     "periodic systems need n >= 3 (a ring of three rows at least), got " +
                         std::to_string(dims.n));
  if (dims.rhs < 1)
    throw InputError(source, key,
                     "expected at least one right-hand side, got " + std::to_string(dims.rhs));
  if (dims.rhs > 1 && dims.kind != Kind::multi_rhs)
    throw InputError(source, key,
                     std::string(name(dims.kind)) + " systems take one right-hand side, got " +
                         std::to_string(dims.rhs));
  if (dims.n < 1 || dims.systems < 0)
    throw InputError(source, key,
                     "expected n >= 1 and systems >= 0, got n " + std::to_string(dims.n) + ", " +
                         std::to_string(dims.systems) + " systems");
}

template <class T>
KindBatch<T> random_kind_batch(const KindDims& dims, std::uint64_t seed, std::int64_t first_system) {
  check_kind_dims(dims, "", "");
  KindBatch<T> batch;
  batch.dims = dims;
  batch.bands.assign(static_cast<std::size_t>(dims.bands()),
                     huge_vector<T>(static_cast<std::size_t>(dims.systems * dims.band_width())));
  batch.d = huge_vector<T>(static_cast<std::size_t>(dims.systems * dims.rhs_width()));
  const std::int64_t n = dims.n;
  const CounterDraws draws(seed, kind_stream(dims.kind));
  // Values a row draws: periodic 5 (a, c, the diagonal's size and sign, d); multi-rhs 4 + rhs;
  // pentadiagonal 7; block2 16 (A 4, B off the diagonal 2, C 4, two sizes, two signs, d 2).
  const std::uint64_t per_row = dims.kind == Kind::periodic        ? 5
                                : dims.kind == Kind::multi_rhs     ? 4 + static_cast<std::uint64_t>(dims.rhs)
                                : dims.kind == Kind::pentadiagonal ? 7
                                                                   : 16;
  // Stored in T, then measured: dominance holds for the values as solved.
  const auto store = [](T& to, double v) {
    to = static_cast<T>(v);
    return std::abs(static_cast<double>(to));
  };
  const auto diagonal = [](std::uint64_t size, std::uint64_t sign, double off) {
    const double magnitude = off + 1 + SeededDraws::unit_of(size);
    return (sign >> 63) != 0 ? -magnitude : magnitude;
  };
  constexpr std::int64_t kRowsAtOnce = std::int64_t{1} << 12;
  for_chunks(
      dims.systems * n, kRowsAtOnce,
      [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t row = first; row < last; ++row) {
          const std::int64_t m = row / n, i = row % n;
          const std::uint64_t w = per_row * static_cast<std::uint64_t>(first_system * n + row);
          const auto word = [&](std::uint64_t k) { return draws.word(w + k); };
          const auto k = static_cast<std::size_t>(row);
          switch (dims.kind) {
            case Kind::general:
            case Kind::periodic: {
              // Every row has both neighbours on a ring.
              const double off = store(batch.bands[0][k], signed_unit(word(0))) +
                                 store(batch.bands[2][k], signed_unit(word(1)));
              batch.bands[1][k] = static_cast<T>(diagonal(word(2), word(3), off));
              batch.d[k] = static_cast<T>(signed_unit(word(4)));
              break;
            }
            case Kind::multi_rhs: {
              const double off = store(batch.bands[0][k], i > 0 ? signed_unit(word(0)) : 0.0) +
                                 store(batch.bands[2][k], i < n - 1 ? signed_unit(word(1)) : 0.0);
              batch.bands[1][k] = static_cast<T>(diagonal(word(2), word(3), off));
              for (int r = 0; r < dims.rhs; ++r)
                batch.d[static_cast<std::size_t>((m * dims.rhs + r) * n + i)] =
                    static_cast<T>(signed_unit(word(4 + static_cast<std::uint64_t>(r))));
              break;
            }
            case Kind::pentadiagonal: {
              // Entries outside the matrix are stored as 0.
              const bool inside[5] = {i >= 2, i >= 1, true, i + 1 < n, i + 2 < n};
              double off = 0;
              const int outer[4] = {0, 1, 3, 4};
              for (int q = 0; q < 4; ++q) {
                const int band = outer[q];
                off += store(batch.bands[static_cast<std::size_t>(band)][k],
                             inside[band] ? signed_unit(word(static_cast<std::uint64_t>(q))) : 0.0);
              }
              batch.bands[2][k] = static_cast<T>(diagonal(word(4), word(5), off));
              batch.d[k] = static_cast<T>(signed_unit(word(6)));
              break;
            }
            case Kind::block2: {
              // Scalar row r of block row i: A[r][0..1], B[r][1-r], C[r][0..1] off the diagonal.
              const std::size_t base = 4 * k;
              double off[2] = {0, 0};
              for (int q = 0; q < 4; ++q) {
                const std::size_t e = base + static_cast<std::size_t>(q);
                off[q / 2] += store(batch.bands[0][e], i > 0 ? signed_unit(word(static_cast<std::uint64_t>(q))) : 0.0);
                off[q / 2] += store(batch.bands[2][e], i < n - 1 ? signed_unit(word(4 + static_cast<std::uint64_t>(q))) : 0.0);
              }
              off[0] += store(batch.bands[1][base + 1], signed_unit(word(8)));
              off[1] += store(batch.bands[1][base + 2], signed_unit(word(9)));
              batch.bands[1][base] = static_cast<T>(diagonal(word(10), word(12), off[0]));
              batch.bands[1][base + 3] = static_cast<T>(diagonal(word(11), word(13), off[1]));
              batch.d[2 * k] = static_cast<T>(signed_unit(word(14)));
              batch.d[2 * k + 1] = static_cast<T>(signed_unit(word(15)));
              break;
            }
          }
        }
      },
      [](std::int64_t) {});
  return batch;
}

template <class T>
std::vector<double> solve_kind_gold(const KindBatch<T>& batch) {
  const KindDims& dims = batch.dims;
  check_kind_dims(dims, "", "");
  const auto band_size = static_cast<std::size_t>(dims.systems * dims.band_width());
  const auto rhs_size = static_cast<std::size_t>(dims.systems * dims.rhs_width());
  bool shaped = batch.bands.size() == static_cast<std::size_t>(dims.bands()) && batch.d.size() == rhs_size;
  for (const auto& band : batch.bands) shaped = shaped && band.size() == band_size;
  if (!shaped)
    throw Error("tridiag::solve_kind_gold: expected " + std::to_string(dims.bands()) +
                " coefficient arrays of " + std::to_string(band_size) + " values and d of " +
                std::to_string(rhs_size) + " for " + std::string(name(dims.kind)));
  std::vector<double> x = huge_vector<double>(rhs_size);
  const std::int64_t width = dims.rhs_width();
  // Systems are independent; the lowest failing one is reported, as the GPU solvers do.
  std::int64_t failed_system = dims.systems;
  Failure failure;
#pragma omp parallel for schedule(static)
  for (std::int64_t m = 0; m < dims.systems; ++m) {
    double* xm = x.data() + m * width;
    Failure f;
    switch (dims.kind) {
      case Kind::general:  // refused by check_kind_dims
      case Kind::periodic: f = solve_periodic(batch, m, xm); break;
      case Kind::multi_rhs: f = solve_multi_rhs(batch, m, xm); break;
      case Kind::pentadiagonal: f = solve_penta(batch, m, xm); break;
      case Kind::block2: f = solve_block2(batch, m, xm); break;
    }
    if (f.row >= 0) {
#pragma omp critical(parasol_tridiag_kind_gold_failure)
      if (m < failed_system) {
        failed_system = m;
        failure = f;
      }
    }
  }
  if (failed_system < dims.systems)
    throw NumericalError(failed_system, "system " + std::to_string(failed_system) + ": " +
                                            failure.what + " at row " +
                                            std::to_string(failure.row));
  return x;
}

template <class T>
RowWeight kind_row_weight(const KindBatch<T>& batch, std::int64_t m, std::int64_t row) {
  const KindDims& dims = batch.dims;
  const std::int64_t n = dims.n;
  const auto at = [&](int band, std::int64_t j) {
    return std::abs(static_cast<double>(
        batch.bands[static_cast<std::size_t>(band)][static_cast<std::size_t>(m * dims.band_width() + j)]));
  };
  RowWeight w;
  switch (dims.kind) {
    case Kind::general:
    case Kind::periodic:
      w.diagonal = at(1, row);
      w.off = at(0, row) + at(2, row);
      break;
    case Kind::multi_rhs:
      w.diagonal = at(1, row);
      w.off = (row > 0 ? at(0, row) : 0) + (row < n - 1 ? at(2, row) : 0);
      break;
    case Kind::pentadiagonal:
      w.diagonal = at(2, row);
      w.off = (row >= 2 ? at(0, row) : 0) + (row >= 1 ? at(1, row) : 0) +
              (row + 1 < n ? at(3, row) : 0) + (row + 2 < n ? at(4, row) : 0);
      break;
    case Kind::block2: {
      const std::int64_t i = row / 2, r = row % 2, e = 4 * i + 2 * r;
      w.diagonal = at(1, e + r);
      w.off = at(1, e + 1 - r);
      if (i > 0) w.off += at(0, e) + at(0, e + 1);
      if (i < n - 1) w.off += at(2, e) + at(2, e + 1);
      break;
    }
  }
  return w;
}

double kind_bytes_per_solve(const KindDims& dims, int element_bytes) {
  const double rows = static_cast<double>(dims.n) * static_cast<double>(dims.systems);
  double values = 5;
  switch (dims.kind) {
    case Kind::general:
    case Kind::periodic: values = 5; break;
    case Kind::multi_rhs: values = 3 + 2.0 * dims.rhs; break;
    case Kind::pentadiagonal: values = 7; break;
    case Kind::block2: values = 16; break;
  }
  return values * element_bytes * rows;
}

#define PARASOL_TRIDIAG_KINDS(T)                                                              \
  template KindBatch<T> random_kind_batch<T>(const KindDims&, std::uint64_t, std::int64_t); \
  template std::vector<double> solve_kind_gold<T>(const KindBatch<T>&);                     \
  template RowWeight kind_row_weight<T>(const KindBatch<T>&, std::int64_t, std::int64_t);
PARASOL_TRIDIAG_KINDS(float)
PARASOL_TRIDIAG_KINDS(double)
#undef PARASOL_TRIDIAG_KINDS

}  // namespace parasol::tridiag
