// tridiag's one definition of agreement with the gold, used by the tests, `parasol run --check`,
// `parasol sweep` and the benchmarks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// max(|a| + |b| + |c|) / min(|b| - |a| - |c|) over the rows: for a strictly diagonally dominant
// matrix a bound on its condition number in the infinity norm (Varah's bound on |A^-1|).
// Infinity when some row is not dominant: then no error bound is known.
// Its two terms, so that parts of a batch (ranks' shares) can be combined: the largest norm and
// the smallest margin.
struct ConditionTerms {
  double norm = 0, margin = std::numeric_limits<double>::infinity();
  double bound() const {
    return margin > 0 ? norm / margin : std::numeric_limits<double>::infinity();
  }
};

template <class T>
ConditionTerms condition_terms(const Batch<T>& batch) {
  const Dims& dims = batch.dims;
  ConditionTerms t;
  for (std::int64_t m = 0; m < dims.systems; ++m)
    for (std::int64_t i = 0; i < dims.n; ++i) {
      const auto k = static_cast<std::size_t>(dims.index(m, i));
      const double a = i > 0 ? std::abs(static_cast<double>(batch.a[k])) : 0;
      const double c = i < dims.n - 1 ? std::abs(static_cast<double>(batch.c[k])) : 0;
      const double b = std::abs(static_cast<double>(batch.b[k]));
      t.norm = std::max(t.norm, a + b + c);
      t.margin = std::min(t.margin, b - a - c);
    }
  return t;
}

template <class T>
double condition_bound(const Batch<T>& batch) {
  return condition_terms(batch).bound();
}

// The same for a kind's batch, over its scalar rows: a ring's corners count in its end rows, a
// pentadiagonal row has four neighbours, a block row five (kind_row_weight).
template <class T>
ConditionTerms condition_terms(const KindBatch<T>& batch) {
  ConditionTerms t;
  for (std::int64_t m = 0; m < batch.dims.systems; ++m)
    for (std::int64_t row = 0; row < batch.dims.rows(); ++row) {
      const RowWeight w = kind_row_weight(batch, m, row);
      t.norm = std::max(t.norm, w.diagonal + w.off);
      t.margin = std::min(t.margin, w.diagonal - w.off);
    }
  return t;
}

template <class T>
double condition_bound(const KindBatch<T>& batch) {
  return condition_terms(batch).bound();
}

// The heat step's matrix: every grid and step solves the same one, whose rows are all alike but
// the two ends, so three points (one row of each kind) give the bound, (4 + lambda) / lambda
// once there are interior rows.
inline double condition_bound(const Heat& heat) {
  Heat rows = heat;
  rows.points = std::min<std::int64_t>(heat.points, 3);
  rows.grids = 1;
  return condition_bound(heat_matrix<double>(rows, Layout::contiguous));
}

// The largest difference from the gold allowed after `solves` solves of systems of n rows with
// condition bound `condition`, relative to max|x|.
//
// A backward-stable solve is off from the exact answer by cond(A) x (its backward error)
// relative to max|x|; the gold solves the same coefficients by the Thomas algorithm in double
// (exact beside float, a few ulps beside double). The backward error is a few ulps for the
// Thomas algorithm, and PCR (pcr-shared, pcr-warp,
// thomas-pcr's interface) and thomas-scan's scans add a level of rounding per halving of n: so
// 4 + 2 log2(n) ulps of T per solve and unit of condition. On the tests' random systems
// (cond <= 6) that is no looser than the 1e-5 max(1, log2(n) / 4) in float and 1e-12 in double
// the tests held the variants to before, nor than the flat 64 ulps the run's check allowed
// (n < 2^30), while a wrong index, a lost row or a stale value (errors of order max|x|) stays
// far outside. The heat march's step is a contraction, so the errors of its solves at most add:
// `solves` multiplies the bound.
template <class T>
double tolerance(double condition, std::int64_t n, std::int64_t solves = 1) {
  const double ulps = 4 + 2 * std::log2(static_cast<double>(std::max<std::int64_t>(n, 1)));
  return ulps * std::numeric_limits<T>::epsilon() * condition *
         static_cast<double>(std::max<std::int64_t>(solves, 1));
}

// The same for a kind: the solve's rows are n (2n scalar rows for block2, whose 2x2 inverses add
// a few roundings a block row, within the same 4 ulps), and a periodic solve by Sherman-Morrison
// is two solves and a correction of both by a factor that is itself off by cond(A) ulps: twice
// the bound. multi-rhs's right-hand sides are separate solves with one elimination, each bound
// alone; pentadiagonal elimination, like Thomas, is backward stable on dominant rows.
inline constexpr double kPeriodicFactor = 2;
template <class T>
double kind_tolerance(const KindDims& dims, double condition) {
  return (dims.kind == Kind::periodic ? kPeriodicFactor : 1) * tolerance<T>(condition, dims.rows());
}

// The measure the check and the sweep store: max|x - gold| / max|gold|.
inline constexpr const char* kMeasure = "max_relative_difference";

// x (in the gold's layout) against the gold, judged by tolerance<T>(condition, n, solves).
// The same from the difference and max|gold| (of a whole batch cut among ranks, say).
template <class T>
Agreement agreement(const FieldDifference& d, double scale, double condition, std::int64_t n,
                    std::int64_t solves = 1) {
  const double relative = scale > 0 ? d.max_abs / scale : d.max_abs;
  return field_agreement(d, kMeasure, "max relative to max|x|", relative,
                         tolerance<T>(condition, n, solves));
}

template <class T>
Agreement agreement(const std::vector<T>& x, const std::vector<double>& gold, double condition,
                    std::int64_t n, std::int64_t solves = 1) {
  return agreement<T>(compare(x, gold), max_magnitude(gold), condition, n, solves);
}

// A kind's x against its gold (both systems x rhs_width(), contiguous).
template <class T>
Agreement kind_agreement(const FieldDifference& d, double scale, const KindDims& dims,
                         double condition) {
  const double relative = scale > 0 ? d.max_abs / scale : d.max_abs;
  return field_agreement(d, kMeasure, "max relative to max|x|", relative,
                         kind_tolerance<T>(dims, condition));
}

template <class T>
Agreement kind_agreement(const std::vector<T>& x, const std::vector<double>& gold,
                         const KindDims& dims, double condition) {
  return kind_agreement<T>(compare(x, gold), max_magnitude(gold), dims, condition);
}

// A solve that reported a failure (a zero pivot, a non-finite value) where the gold solved the
// batch: no difference to measure, and never a pass, whatever the condition.
inline Agreement failed_solve(const std::string& what) {
  Agreement a;
  a.measure = kMeasure;
  a.value = std::numeric_limits<double>::infinity();
  a.tolerance = 0;
  a.description = what;
  return a;
}

}  // namespace parasol::tridiag
