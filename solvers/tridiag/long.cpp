// One long system cut among ranks, on the host: the cut, a rank's rows, the interface across
// ranks and the solve in double (long.hpp).
#include "solvers/tridiag/long.hpp"

#include <chrono>
#include <string>

#include "comm/over_ranks.hpp"
#include "kernels/error.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/partition.hpp"
#include "solvers/tridiag/random_rows.hpp"

namespace parasol::tridiag {
namespace {

// The interface's messages: the rows to rank 0 and the values back.
constexpr int kInterfaceRowsTag = 5201;
constexpr int kInterfaceValuesTag = 5202;

// Values of a piece's interface rows: a', c', d' of its first row and of its last.
constexpr std::size_t kRowValues = 6;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<std::int64_t> pieces_of(std::int64_t rows, std::int64_t piece_rows) {
  const std::int64_t pieces = piece_rows > 0 ? std::max<std::int64_t>(1, rows / piece_rows) : 1;
  return comm::even_planes(rows, static_cast<int>(pieces));
}

std::vector<std::int64_t> long_cut(std::int64_t n, int ranks, std::int64_t piece_rows,
                                   const std::string& key) {
  std::vector<std::int64_t> cut;
  for (int r = 0; r < ranks; ++r) {
    const comm::Slab s = comm::even_slab(n, r, ranks);
    if (s.count() < 2)
      throw InputError("", key,
                       "n = " + std::to_string(n) + " rows cut among " + std::to_string(ranks) +
                           " ranks leaves rank " + std::to_string(r) + " " +
                           std::to_string(s.count()) +
                           " (the partition method needs two rows a rank at least); run fewer "
                           "ranks or a longer system");
    for (const std::int64_t rows : pieces_of(s.count(), piece_rows)) cut.push_back(rows);
  }
  return cut;
}

template <class T>
RowsPart<T> random_rows_part(std::int64_t n, std::int64_t systems, std::uint64_t seed,
                             const comm::Slab& mine) {
  RowsPart<T> part;
  part.n = n;
  part.first_row = mine.begin;
  const std::int64_t rows = mine.count();
  Batch<T>& b = part.batch;
  b.dims = {rows, systems, Layout::contiguous};
  const auto size = static_cast<std::size_t>(b.dims.size());
  b.a.resize(size), b.b.resize(size), b.c.resize(size), b.d.resize(size);
  const CounterDraws draws(seed, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < rows * systems; ++k) {
    const std::int64_t s = k / rows, i = k % rows;
    const RandomRow<T> row = random_row<T>(draws, n, s * n + mine.begin + i);
    const auto at = static_cast<std::size_t>(k);
    b.a[at] = row.a, b.b[at] = row.b, b.c[at] = row.c, b.d[at] = row.d;
  }
  return part;
}

template <class T>
RowsPart<T> random_ring_rows_part(std::int64_t n, std::int64_t systems, std::uint64_t seed,
                                  const comm::Slab& mine) {
  return rows_part_of(periodic_as_batch(random_kind_batch<T>({Kind::periodic, n, systems, 1}, seed)),
                      mine, true);
}

template <class T>
Batch<T> periodic_as_batch(const KindBatch<T>& ring) {
  if (ring.dims.kind != Kind::periodic || ring.bands.size() != 3)
    throw Error("tridiag::periodic_as_batch: expected a periodic batch");
  return {{ring.dims.n, ring.dims.systems, Layout::contiguous},
          ring.bands[0], ring.bands[1], ring.bands[2], ring.d};
}

template <class T>
RowsPart<T> rows_part_of(const Batch<T>& whole, const comm::Slab& mine, bool periodic) {
  if (whole.dims.layout != Layout::contiguous)
    throw Error("tridiag::rows_part_of: expected the contiguous layout");
  RowsPart<T> part;
  part.n = whole.dims.n;
  part.first_row = mine.begin;
  part.periodic = periodic;
  const std::int64_t rows = mine.count(), systems = whole.dims.systems;
  part.batch.dims = {rows, systems, Layout::contiguous};
  for (std::int64_t s = 0; s < systems; ++s) {
    const auto from = static_cast<std::ptrdiff_t>(s * whole.dims.n + mine.begin);
    const auto take = [&](const std::vector<T>& v, std::vector<T>& out) {
      out.insert(out.end(), v.begin() + from, v.begin() + from + rows);
    };
    take(whole.a, part.batch.a), take(whole.b, part.batch.b);
    take(whole.c, part.batch.c), take(whole.d, part.batch.d);
  }
  return part;
}

namespace {

// Every rank's two rows a system (`top`: a', c', d' of its first and last, [system][6]) to rank
// 0, which solves each system's 2 x ranks interface rows in rank order and sends each rank its
// two values back: returned, [system][2].
std::vector<double> interface_of_ranks(comm::Context& context, const std::vector<double>& top,
                                       std::int64_t systems, bool periodic) {
  const auto count = static_cast<std::size_t>(systems);
  if (!context.is_root()) {
    context.send(top.data(), top.size(), 0, kInterfaceRowsTag);
    std::vector<double> back(count * 2);
    context.recv(back.data(), back.size(), 0, kInterfaceValuesTag);
    return back;
  }
  const auto ranks = static_cast<std::size_t>(context.size());
  std::vector<std::vector<double>> rows(ranks, std::vector<double>(count * kRowValues));
  std::vector<std::vector<double>> values(ranks, std::vector<double>(count * 2));
  rows[0] = top;
  for (std::size_t r = 1; r < ranks; ++r)
    context.recv(rows[r].data(), rows[r].size(), static_cast<int>(r), kInterfaceRowsTag);
  std::vector<double> ia(2 * ranks), ic(ia.size()), id(ia.size());
  for (std::size_t s = 0; s < count; ++s) {
    for (std::size_t r = 0, q = 0; r < ranks; ++r, q += 2) {
      const double* v = &rows[r][s * kRowValues];
      ia[q] = v[0], ic[q] = v[1], id[q] = v[2];
      ia[q + 1] = v[3], ic[q + 1] = v[4], id[q + 1] = v[5];
    }
    std::vector<double> xi;
    try {
      xi = periodic ? solve_periodic_interface(ia, ic, id) : solve_interface(ia, ic, id);
    } catch (const NumericalError& e) {
      throw NumericalError(static_cast<std::int64_t>(s),
                           "system " + std::to_string(s) + ": " + e.what());
    }
    for (std::size_t r = 0, q = 0; r < ranks; ++r, q += 2) {
      values[r][2 * s] = xi[q];
      values[r][2 * s + 1] = xi[q + 1];
    }
  }
  for (std::size_t r = 1; r < ranks; ++r)
    context.send(values[r].data(), values[r].size(), static_cast<int>(r), kInterfaceValuesTag);
  return values[0];
}

}  // namespace

std::vector<double> interface_across(comm::Context& context, const std::vector<double>& mine,
                                     std::int64_t systems, std::int64_t pieces, bool periodic) {
  const auto per_system = static_cast<std::size_t>(pieces), count = static_cast<std::size_t>(systems);
  if (pieces < 1 || mine.size() != count * per_system * kRowValues)
    throw Error("tridiag::interface_across: " + std::to_string(mine.size()) + " values for " +
                std::to_string(systems) + " systems of " + std::to_string(pieces) + " pieces");
  // 1. This rank's chain of interface rows, 2 a piece (diagonal 1, its first a and last c
  // coupling the neighbouring ranks' ends), reduced alone to its first and last rows.
  const std::size_t chain = 2 * per_system;
  std::vector<ReducedPiece> reduced;
  std::vector<double> top(count * kRowValues);
  std::vector<double> a(chain), b(chain, 1.0), c(chain), d(chain);
  for (std::size_t s = 0; s < count; ++s) {
    for (std::size_t p = 0; p < per_system; ++p) {
      const double* v = &mine[(s * per_system + p) * kRowValues];
      a[2 * p] = v[0], c[2 * p] = v[1], d[2 * p] = v[2];
      a[2 * p + 1] = v[3], c[2 * p + 1] = v[4], d[2 * p + 1] = v[5];
    }
    try {
      reduced.push_back(reduce_piece(a.data(), b.data(), c.data(), d.data(),
                                     static_cast<std::int64_t>(chain)));
    } catch (const NumericalError& e) {
      throw NumericalError(static_cast<std::int64_t>(s), "system " + std::to_string(s) + ": " +
                                                             e.what() + " of rank " +
                                                             std::to_string(context.rank()) +
                                                             "'s interface rows");
    }
    const ReducedPiece& r = reduced.back();
    double* t = &top[s * kRowValues];
    t[0] = r.a[0], t[1] = r.c[0], t[2] = r.d[0];
    t[3] = r.a[chain - 1], t[4] = r.c[chain - 1], t[5] = r.d[chain - 1];
  }
  // 2. The ranks' two rows each, on rank 0; 3. the chain's values from its ends.
  const std::vector<double> ends = interface_of_ranks(context, top, systems, periodic);
  std::vector<double> values(count * chain);
  for (std::size_t s = 0; s < count; ++s) {
    try {
      substitute_piece(reduced[s], ends[2 * s], ends[2 * s + 1], 0, &values[s * chain]);
    } catch (const NumericalError& e) {
      throw NumericalError(static_cast<std::int64_t>(s),
                           "system " + std::to_string(s) + ": " + e.what() + " of the interface");
    }
  }
  return values;
}

template <class T>
LongResult<double> solve_long(comm::Context& context, const RowsPart<T>& part) {
  const Dims& dims = part.batch.dims;
  const std::int64_t rows = dims.n, systems = dims.systems;
  if (rows < 2)
    throw Error("tridiag::solve_long: a rank's rows are one piece of two rows at least, got " +
                std::to_string(rows));
  // A ring's first and last rows couple each other: nothing lies outside it.
  const bool first_piece = !part.periodic && part.first_row == 0;
  const bool last_piece = !part.periodic && part.first_row + rows == part.n;
  LongResult<double> result;
  auto start = std::chrono::steady_clock::now();
  std::vector<ReducedPiece> reduced;
  std::vector<double> mine(static_cast<std::size_t>(systems) * kRowValues);
  const auto size = static_cast<std::size_t>(rows);
  std::vector<double> a(size), b(size), c(size), d(size);
  for (std::int64_t s = 0; s < systems; ++s) {
    // The whole system's a[0] and c[n - 1] lie outside it: read as 0, as solve_partitioned does.
    for (std::size_t j = 0; j < size; ++j) {
      const auto k = static_cast<std::size_t>(s) * size + j;
      a[j] = j == 0 && first_piece ? 0.0 : static_cast<double>(part.batch.a[k]);
      b[j] = static_cast<double>(part.batch.b[k]);
      c[j] = j + 1 == size && last_piece ? 0.0 : static_cast<double>(part.batch.c[k]);
      d[j] = static_cast<double>(part.batch.d[k]);
    }
    try {
      reduced.push_back(reduce_piece(a.data(), b.data(), c.data(), d.data(), rows));
    } catch (const NumericalError& e) {
      throw NumericalError(s, "system " + std::to_string(s) + ": " + e.what() + " of rank " +
                                  std::to_string(context.rank()) + "'s rows (from row " +
                                  std::to_string(part.first_row) + ")");
    }
    const ReducedPiece& r = reduced.back();
    double* v = &mine[static_cast<std::size_t>(s) * kRowValues];
    v[0] = r.a[0], v[1] = r.c[0], v[2] = r.d[0];
    v[3] = r.a[size - 1], v[4] = r.c[size - 1], v[5] = r.d[size - 1];
  }
  result.timings.add(phase::compute, seconds_since(start));
  start = std::chrono::steady_clock::now();
  const std::vector<double> ends = interface_across(context, mine, systems, 1, part.periodic);
  result.timings.add(phase::exchange, seconds_since(start));
  start = std::chrono::steady_clock::now();
  result.x.resize(static_cast<std::size_t>(dims.size()));
  for (std::int64_t s = 0; s < systems; ++s) {
    const auto at = static_cast<std::size_t>(s);
    try {
      substitute_piece(reduced[at], ends[2 * at], ends[2 * at + 1], part.first_row,
                       &result.x[at * size]);
    } catch (const NumericalError& e) {
      throw NumericalError(s, "system " + std::to_string(s) + ": " + e.what());
    }
  }
  result.timings.add(phase::compute, seconds_since(start));
  return result;
}

namespace {

// Rows [mine.begin, mine.end) of every system of a whole batch's gold (systems x n, contiguous).
std::vector<double> rows_of(const std::vector<double>& gold, std::int64_t systems, std::int64_t n,
                            const comm::Slab& mine) {
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(systems * mine.count()));
  for (std::int64_t s = 0; s < systems; ++s) {
    const auto from = gold.begin() + static_cast<std::ptrdiff_t>(s * n + mine.begin);
    rows.insert(rows.end(), from, from + static_cast<std::ptrdiff_t>(mine.count()));
  }
  return rows;
}

}  // namespace

template <class T>
Agreement long_agreement(comm::Context& context, const Batch<T>& whole, const std::vector<T>& x,
                         const comm::Slab& mine) {
  const std::vector<double> gold = solve_gold(whole);
  const Dims& dims = whole.dims;
  const std::vector<double> mine_of_gold = rows_of(gold, dims.systems, dims.n, mine);
  const FieldDifference d = comm::over_ranks(context, compare(x, mine_of_gold), x.size(),
                                             static_cast<std::uint64_t>(dims.size()));
  const double scale = comm::max_over_ranks(context, max_magnitude(mine_of_gold));
  return agreement<T>(d, scale, condition_bound(whole), dims.n);
}

template <class T>
Agreement long_agreement(comm::Context& context, const KindBatch<T>& whole,
                         const std::vector<T>& x, const comm::Slab& mine) {
  const std::vector<double> gold = solve_kind_gold(whole);
  const KindDims& dims = whole.dims;
  const std::vector<double> mine_of_gold = rows_of(gold, dims.systems, dims.n, mine);
  const FieldDifference d = comm::over_ranks(context, compare(x, mine_of_gold), x.size(),
                                             static_cast<std::uint64_t>(dims.n * dims.systems));
  const double scale = comm::max_over_ranks(context, max_magnitude(mine_of_gold));
  return kind_agreement<T>(d, scale, dims, condition_bound(whole));
}

#define PARASOL_TRIDIAG_LONG(T)                                                              \
  template RowsPart<T> random_rows_part<T>(std::int64_t, std::int64_t, std::uint64_t,       \
                                           const comm::Slab&);                               \
  template RowsPart<T> rows_part_of<T>(const Batch<T>&, const comm::Slab&, bool);           \
  template Batch<T> periodic_as_batch<T>(const KindBatch<T>&);                              \
  template RowsPart<T> random_ring_rows_part<T>(std::int64_t, std::int64_t, std::uint64_t,  \
                                                const comm::Slab&);                         \
  template Agreement long_agreement<T>(comm::Context&, const KindBatch<T>&,                 \
                                       const std::vector<T>&, const comm::Slab&);           \
  template LongResult<double> solve_long<T>(comm::Context&, const RowsPart<T>&);           \
  template Agreement long_agreement<T>(comm::Context&, const Batch<T>&, const std::vector<T>&, \
                                       const comm::Slab&);
PARASOL_TRIDIAG_LONG(float)
PARASOL_TRIDIAG_LONG(double)
#undef PARASOL_TRIDIAG_LONG

}  // namespace parasol::tridiag
