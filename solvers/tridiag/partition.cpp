// The partition method on the host (partition.hpp).
#include "solvers/tridiag/partition.hpp"

#include <cmath>
#include <string>

#include "comm/halo.hpp"
#include "kernels/error.hpp"

namespace parasol::tridiag {
namespace {

void require_finite(double v, std::int64_t row, const char* what) {
  if (!std::isfinite(v))
    throw NumericalError(0, std::string(what) + " at row " + std::to_string(row));
}

}  // namespace

ReducedPiece reduce_piece(const double* a, const double* b, const double* c, const double* d,
                          std::int64_t m) {
  if (m < 2) throw Error("tridiag::reduce_piece: a piece needs two rows, got " + std::to_string(m));
  const auto size = static_cast<std::size_t>(m);
  ReducedPiece r{std::vector<double>(size), std::vector<double>(size), std::vector<double>(size)};
  // Down the piece: rows 0 and 1 divided by their diagonal; each row after eliminates the one
  // before it, its a' then coupling the piece's first unknown.
  for (std::size_t j = 0; j < size; ++j) {
    const double pivot = j < 2 ? b[j] : b[j] - a[j] * r.c[j - 1];
    if (pivot == 0) throw NumericalError(0, "zero pivot at row " + std::to_string(j));
    r.d[j] = (j < 2 ? d[j] : d[j] - a[j] * r.d[j - 1]) / pivot;
    r.a[j] = j < 2 ? a[j] / pivot : -a[j] * r.a[j - 1] / pivot;
    r.c[j] = c[j] / pivot;
    require_finite(r.d[j] + r.a[j] + r.c[j], static_cast<std::int64_t>(j), "non-finite value");
  }
  // Up the piece from its last row but one: each row's c' then couples the piece's last unknown.
  for (std::int64_t i = m - 3; i >= 1; --i) {
    const auto j = static_cast<std::size_t>(i);
    r.d[j] -= r.c[j] * r.d[j + 1];
    r.a[j] -= r.c[j] * r.a[j + 1];
    r.c[j] = -r.c[j] * r.c[j + 1];
  }
  // Row 0 couples the row before the piece and, through row 1, the piece's last unknown (two
  // rows: row 1 is the last already).
  if (size >= 3) {
    const double pivot = 1 - r.c[0] * r.a[1];
    if (pivot == 0) throw NumericalError(0, "zero pivot at row 0");
    r.d[0] = (r.d[0] - r.c[0] * r.d[1]) / pivot;
    r.a[0] = r.a[0] / pivot;
    r.c[0] = -r.c[0] * r.c[1] / pivot;
  }
  return r;
}

std::vector<double> solve_interface(const std::vector<double>& ia, const std::vector<double>& ic,
                                    const std::vector<double>& id) {
  const std::size_t interface = ia.size();
  // The interface's diagonal is 1; its first a and last c lie outside the system (0).
  std::vector<double> cp(interface), xi(interface);
  for (std::size_t q = 0; q < interface; ++q) {
    const double lower = q > 0 ? ia[q] : 0.0;
    const double pivot = q > 0 ? 1 - lower * cp[q - 1] : 1.0;
    if (pivot == 0) throw NumericalError(0, "zero pivot in the interface");
    cp[q] = q + 1 < interface ? ic[q] / pivot : 0.0;
    xi[q] = (id[q] - (q > 0 ? lower * xi[q - 1] : 0.0)) / pivot;
  }
  for (std::size_t q = interface - 1; q-- > 0;) xi[q] -= cp[q] * xi[q + 1];
  return xi;
}

std::vector<double> solve_periodic_interface(const std::vector<double>& ia,
                                             const std::vector<double>& ic,
                                             const std::vector<double>& id) {
  // A = A' + u v^T, u = (gamma, 0, ..., 0, ic[L-1]), v = (1, 0, ..., 0, ia[0] / gamma) with
  // gamma = -1 (minus the unit diagonal): A' is the band with 2 and 1 + ia[0] ic[L-1] at its
  // ends. With two rows the corners fall on the band's own places, and the same u v^T takes
  // them off it.
  const std::size_t size = ia.size(), last = size - 1;
  const double gamma = -1, corner = ia[0] / gamma;
  std::vector<double> diagonal(size, 1.0), u(size, 0.0);
  diagonal[0] -= gamma;
  diagonal[last] -= ia[0] * ic[last] / gamma;
  u[0] = gamma;
  u[last] = ic[last];
  const auto thomas = [&](const std::vector<double>& rhs) {
    std::vector<double> cp(size), y(size);
    for (std::size_t q = 0; q < size; ++q) {
      const double lower = q > 0 ? ia[q] : 0.0;
      const double pivot = q > 0 ? diagonal[q] - lower * cp[q - 1] : diagonal[q];
      if (pivot == 0) throw NumericalError(0, "zero pivot in the interface");
      cp[q] = q < last ? ic[q] / pivot : 0.0;
      y[q] = (rhs[q] - (q > 0 ? lower * y[q - 1] : 0.0)) / pivot;
    }
    for (std::size_t q = last; q-- > 0;) y[q] -= cp[q] * y[q + 1];
    return y;
  };
  const std::vector<double> y = thomas(id), z = thomas(u);
  const double denominator = 1 + z[0] + corner * z[last];
  if (denominator == 0) throw NumericalError(0, "zero pivot in the interface's correction");
  const double factor = (y[0] + corner * y[last]) / denominator;
  std::vector<double> x(size);
  for (std::size_t q = 0; q < size; ++q) x[q] = y[q] - factor * z[q];
  return x;
}

void substitute_piece(const ReducedPiece& r, double first, double last, std::int64_t first_row,
                      double* x) {
  const std::size_t rows = r.a.size();
  for (std::size_t j = 0; j < rows; ++j) {
    const double v = j == 0 ? first
                     : j + 1 == rows ? last
                                     : r.d[j] - r.a[j] * first - r.c[j] * last;
    require_finite(v, first_row + static_cast<std::int64_t>(j), "non-finite value");
    x[j] = v;
  }
}

template <class T>
std::vector<double> solve_partitioned(const Batch<T>& batch, int pieces) {
  const Dims& dims = batch.dims;
  if (pieces < 1 || dims.n < 2 * std::int64_t{pieces})
    throw InputError("", "pieces",
                     "each of " + std::to_string(pieces) + " pieces needs two rows at least; n is " +
                         std::to_string(dims.n));
  return solve_partitioned(batch, comm::even_planes(dims.n, pieces));
}

template <class T>
std::vector<double> solve_partitioned(const Batch<T>& batch, const std::vector<std::int64_t>& rows,
                                      bool periodic) {
  const Dims& dims = batch.dims;
  if (dims.layout != Layout::contiguous)
    throw Error("tridiag::solve_partitioned: expected the contiguous layout");
  std::int64_t total = 0;
  for (const std::int64_t r : rows) {
    if (r < 2)
      throw InputError("", "pieces",
                       "a piece needs two rows at least; the cut has one of " + std::to_string(r));
    total += r;
  }
  if (rows.empty() || total != dims.n)
    throw InputError("", "pieces",
                     "the cut's pieces hold " + std::to_string(total) + " rows; n is " +
                         std::to_string(dims.n));
  const std::int64_t n = dims.n;
  const std::size_t pieces = rows.size();
  std::vector<double> x(static_cast<std::size_t>(dims.size()));
  std::vector<double> a(static_cast<std::size_t>(n)), b(a.size()), c(a.size()), d(a.size());
  const std::size_t interface = 2 * pieces;
  for (std::int64_t m = 0; m < dims.systems; ++m) {
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(m * n + i);
      a[static_cast<std::size_t>(i)] = i > 0 || periodic ? static_cast<double>(batch.a[k]) : 0.0;
      b[static_cast<std::size_t>(i)] = static_cast<double>(batch.b[k]);
      c[static_cast<std::size_t>(i)] = i < n - 1 || periodic ? static_cast<double>(batch.c[k]) : 0.0;
      d[static_cast<std::size_t>(i)] = static_cast<double>(batch.d[k]);
    }
    try {
      // 1. Each piece alone; 2. the interface rows, first and last of each piece, by Thomas.
      std::vector<ReducedPiece> reduced;
      std::vector<std::int64_t> begins;
      std::vector<double> ia(interface), ic(interface), id(interface);
      std::int64_t begin = 0;
      for (std::size_t p = 0; p < pieces; ++p) {
        const auto first = static_cast<std::size_t>(begin);
        reduced.push_back(reduce_piece(&a[first], &b[first], &c[first], &d[first], rows[p]));
        begins.push_back(begin);
        begin += rows[p];
        const ReducedPiece& r = reduced.back();
        const std::size_t q = 2 * p, last = r.a.size() - 1;
        ia[q] = r.a[0], ic[q] = r.c[0], id[q] = r.d[0];
        ia[q + 1] = r.a[last], ic[q + 1] = r.c[last], id[q + 1] = r.d[last];
      }
      const std::vector<double> xi =
          periodic ? solve_periodic_interface(ia, ic, id) : solve_interface(ia, ic, id);
      // 3. Each piece's rows between its first and last.
      for (std::size_t p = 0; p < pieces; ++p)
        substitute_piece(reduced[p], xi[2 * p], xi[2 * p + 1], begins[p],
                         &x[static_cast<std::size_t>(m * n + begins[p])]);
    } catch (const NumericalError& e) {
      throw NumericalError(m, "system " + std::to_string(m) + ": " + e.what());
    }
  }
  return x;
}

template std::vector<double> solve_partitioned<float>(const Batch<float>&, int);
template std::vector<double> solve_partitioned<double>(const Batch<double>&, int);
template std::vector<double> solve_partitioned<float>(const Batch<float>&,
                                                      const std::vector<std::int64_t>&, bool);
template std::vector<double> solve_partitioned<double>(const Batch<double>&,
                                                       const std::vector<std::int64_t>&, bool);

}  // namespace parasol::tridiag
