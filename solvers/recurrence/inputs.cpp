// recurrence's series from HDF5: each dataset read through read_dataset, which checks that it is a
// dataset of numbers of the rank expected, its values checked finite and the offsets in order.
#include "solvers/recurrence/inputs.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/input_file.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "solvers/recurrence/problems.hpp"

namespace parasol::recurrence {
namespace {

// A dataset named by `key`; its errors name the file, the dataset and the key.
template <class T>
io::Dataset<T> read_input(const io::ResultReader& in, const char* key, const std::string& dataset,
                          const std::vector<int>& ranks) {
  return io::naming_key(key, [&] { return in.read_dataset<T>(dataset, ranks); });
}

// The refusal of s and u of different shapes.
InputError shapes_differ(const Params& p, const std::vector<std::uint64_t>& s_dims,
                         const std::vector<std::uint64_t>& u_dims) {
  return InputError(p.input.file, io::dataset_display_path(p.input.u),
                    "has shape " + io::shape_text(u_dims) + " but " +
                        io::dataset_display_path(p.input.s) + " has " + io::shape_text(s_dims) +
                        "; expected the same (input.u)");
}

// The refusal of an empty `dataset` of the input file.
InputError no_values(const Params& p, const std::string& dataset,
                     const std::vector<std::uint64_t>& dims) {
  return InputError(p.input.file, io::dataset_display_path(dataset),
                    "has shape " + io::shape_text(dims) + "; expected at least one value");
}

// The offsets of `rows` segments of `length` elements each, one a row.
std::vector<std::int64_t> row_offsets(std::uint64_t rows, std::uint64_t length) {
  std::vector<std::int64_t> offsets;
  for (std::uint64_t k = 0; k <= rows; ++k)
    offsets.push_back(static_cast<std::int64_t>(k * length));
  return offsets;
}

// A file problem's initial values: one per segment, or zeros.
template <class T>
std::vector<T> initial_values(const io::ResultReader& in, const Params& p, std::size_t segments) {
  if (p.input.initial.empty()) return std::vector<T>(segments, T(0));
  io::Dataset<T> initial = read_input<T>(in, "input.initial", p.input.initial, {0, 1});
  if (initial.values.size() != segments)
    throw InputError(p.input.file, io::dataset_display_path(p.input.initial),
                     "holds " + std::to_string(initial.values.size()) +
                         " values; expected one per segment, " + std::to_string(segments) +
                         " (input.initial)");
  io::require_finite(initial.values.data(), static_cast<std::int64_t>(initial.values.size()), 0,
                     p.input.file, p.input.initial);
  return std::move(initial.values);
}

template <class T>
Series<T> smoothing_from_file(const Params& p) {
  const auto in = io::open_input_file(p.input.file);
  const io::Dataset<double> y = read_input<double>(*in, "input.y", p.input.y, {1, 2});
  if (y.values.empty()) throw no_values(p, p.input.y, y.dims);
  io::require_finite(y.values.data(), static_cast<std::int64_t>(y.values.size()), 0, p.input.file,
                     p.input.y);
  const std::int64_t rows = y.dims.size() == 2 ? static_cast<std::int64_t>(y.dims[0]) : 1;
  return smoothing_series<T>(y.values, rows, p.smoothing.alpha);
}

template <class T>
Series<T> series_from_file(const Params& p) {
  const auto in = io::open_input_file(p.input.file);
  io::Dataset<T> s = read_input<T>(*in, "input.s", p.input.s, {1, 2});
  io::Dataset<T> u = read_input<T>(*in, "input.u", p.input.u, {1, 2});
  if (u.dims != s.dims) throw shapes_differ(p, s.dims, u.dims);
  if (s.values.empty()) throw no_values(p, p.input.s, s.dims);
  io::require_finite(s.values.data(), static_cast<std::int64_t>(s.values.size()), 0, p.input.file,
                     p.input.s);
  io::require_finite(u.values.data(), static_cast<std::int64_t>(u.values.size()), 0, p.input.file,
                     p.input.u);

  Series<T> series;
  series.s = std::move(s.values);
  series.u = std::move(u.values);
  const bool rows = s.dims.size() == 2;
  if (!p.input.offsets.empty()) {
    if (rows)
      throw InputError("", "input.offsets",
                       "offsets need 1D s and u; " + io::dataset_display_path(p.input.s) + " is " +
                           io::shape_text(s.dims) + ", one segment per row");
    series.offsets = read_input<std::int64_t>(*in, "input.offsets", p.input.offsets, {1}).values;
  } else if (rows) {
    series.offsets = row_offsets(s.dims[0], s.dims[1]);
  } else {
    series.offsets = {0, series.size()};
  }
  const std::size_t segments = series.offsets.empty() ? 0 : series.offsets.size() - 1;
  series.initial = initial_values<T>(*in, p, segments);
  try {
    check_series(series);
  } catch (const InputError& e) {
    throw InputError(p.input.file, e.key(), e.expected());
  }
  return series;
}

}  // namespace

template <class T>
Series<T> make_series(const Params& p) {
  switch (p.problem) {
    case Problem::ar1: return ar1_series<T>(p.ar1);
    case Problem::smoothing: return smoothing_from_file<T>(p);
    case Problem::file: return series_from_file<T>(p);
  }
  throw Error("recurrence: unknown problem");
}

namespace {

// Smoothing's part of file_run: each row of y one segment whose initial value is its first y
// (the first column, read by every rank for rank 0 to write), and of y only the run's elements,
// made into s and u as smoothing_series makes them. Every element's finiteness is checked by the
// rank whose run holds it, so the first bad one is named as a one-rank run names it.
template <class T>
std::optional<SeriesPart<T>> smoothing_run(const Params& p, int rank, int size,
                                                       Cut cut, Series<T>& segments) {
  const auto in = io::open_input_file(p.input.file);
  const std::vector<std::uint64_t> dims =
      io::naming_key("input.y", [&] { return in->dataset_dims<double>(p.input.y, {1, 2}); });
  const std::uint64_t rows = dims.size() == 2 ? dims[0] : 1, length = dims.back();
  if (rows == 0 || length == 0) return std::nullopt;  // smoothing_from_file says why not
  const auto n = static_cast<std::int64_t>(rows * length);
  const std::vector<double> firsts = io::naming_key("input.y", [&] {
    return dims.size() == 2 ? in->read_block<double>(p.input.y, {0, 0}, {rows, 1})
                            : in->read_slab<double>(p.input.y, 0, 1);
  });
  segments = Series<T>{};
  segments.offsets = row_offsets(rows, length);
  for (const double first : firsts) segments.initial.push_back(static_cast<T>(first));
  const Span span =
      span_of(n, kTileElements<T>, rank, size, cut);
  std::vector<double> y;
  if (span.count > 0) {
    y = io::naming_key("input.y", [&] {
      return in->read_run<double>(p.input.y, static_cast<std::uint64_t>(span.first),
                                  static_cast<std::uint64_t>(span.count));
    });
    io::require_finite(y.data(), span.count, span.first, p.input.file, p.input.y);
  }
  const T keep = static_cast<T>(1.0 - p.smoothing.alpha);
  std::vector<T> s(y.size(), keep), u(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) u[i] = static_cast<T>(p.smoothing.alpha * y[i]);
  return part_of(segments, n, span, std::move(s), std::move(u));
}

}  // namespace

template <class T>
std::optional<SeriesPart<T>> file_run(const Params& p, int rank, int size,
                                                  Cut cut, Series<T>& segments) {
  if (p.problem == Problem::smoothing) return smoothing_run<T>(p, rank, size, cut, segments);
  if (p.problem != Problem::file) return std::nullopt;
  const auto in = io::open_input_file(p.input.file);
  const auto s_dims = io::naming_key("input.s", [&] {
    return in->dataset_dims<T>(p.input.s, {1, 2});
  });
  const auto u_dims = io::naming_key("input.u", [&] {
    return in->dataset_dims<T>(p.input.u, {1, 2});
  });
  if (u_dims != s_dims) throw shapes_differ(p, s_dims, u_dims);
  // Rows (one segment each) with offsets given, and empty datasets, are refused by
  // series_from_file, which says why.
  const bool rows = s_dims.size() == 2;
  if (rows && !p.input.offsets.empty()) return std::nullopt;
  if (s_dims[0] == 0 || (rows && s_dims[1] == 0)) {
    if (rows) return std::nullopt;
    throw no_values(p, p.input.s, s_dims);
  }
  const auto n = static_cast<std::int64_t>(rows ? s_dims[0] * s_dims[1] : s_dims[0]);
  segments = Series<T>{};
  if (rows) segments.offsets = row_offsets(s_dims[0], s_dims[1]);
  else if (!p.input.offsets.empty())
    segments.offsets = read_input<std::int64_t>(*in, "input.offsets", p.input.offsets, {1}).values;
  else segments.offsets = {0, n};
  const std::size_t count = segments.offsets.empty() ? 0 : segments.offsets.size() - 1;
  segments.initial = initial_values<T>(*in, p, count);
  try {
    check_offsets(segments.offsets, segments.initial.size(), n);
  } catch (const InputError& e) {
    throw InputError(p.input.file, e.key(), e.expected());
  }
  const Span span =
      span_of(n, kTileElements<T>, rank, size, cut);
  const auto slab = [&](const char* key, const std::string& dataset) {
    if (span.count == 0) return std::vector<T>{};
    std::vector<T> values = io::naming_key(key, [&] {
      // One read of just this run's elements, whether the rows are cut inside or not.
      return in->read_run<T>(dataset, static_cast<std::uint64_t>(span.first),
                             static_cast<std::uint64_t>(span.count));
    });
    io::require_finite(values.data(), static_cast<std::int64_t>(values.size()), span.first,
                       p.input.file, dataset);
    return values;
  };
  std::vector<T> s = slab("input.s", p.input.s);
  std::vector<T> u = slab("input.u", p.input.u);
  return part_of(segments, n, span, std::move(s), std::move(u));
}

template <class T>
RunSeries<T> run_series(const Params& p, bool gpu, bool host_copy, int rank, int ranks,
                        const std::function<void(std::int64_t elements)>& require_host) {
  RunSeries<T> r;
  const Cut cut = cut_for(gpu, p.mode);
  r.drawn = gpu && p.problem == Problem::ar1 && !host_copy;
  if (ranks > 1 && p.problem == Problem::ar1) {
    // Each rank draws only the series its run meets, and keeps only its run; every rank holds
    // the offsets and initial values of the whole, for rank 0 to write.
    if (!r.drawn)
      require_host(span_of(p.ar1.series * p.ar1.length, kTileElements<T>, rank, ranks, cut).count);
    r.part = r.drawn ? ar1_run<T>(p.ar1, rank, ranks, cut) : ar1_part<T>(p.ar1, rank, ranks, cut);
    r.series = ar1_segments<T>(p.ar1);
  } else if (r.drawn) {
    r.series = ar1_segments<T>(p.ar1);
  } else {
    // s and u (or smoothing's y) of a file: each rank reads its run of them alone.
    if (ranks > 1) r.part = file_run<T>(p, rank, ranks, cut, r.series);
    if (r.part) {
      require_host(r.part->size());
    } else {
      if (p.problem == Problem::ar1) require_host(p.ar1.series * p.ar1.length);
      r.series = make_series<T>(p);
      if (p.problem != Problem::ar1) require_host(r.series.size());
    }
  }
  if (ranks > 1 && !r.part) {
    // A series read whole (none that make_series accepts today: file_run takes them) is cut
    // here: every rank keeps its run, and the whole's offsets and initial values for rank 0.
    r.part = part_of(r.series, rank, ranks, cut);
    r.series.s = {};
    r.series.u = {};
  }
  return r;
}

template RunSeries<float> run_series<float>(const Params&, bool, bool, int, int,
                                            const std::function<void(std::int64_t)>&);
template RunSeries<double> run_series<double>(const Params&, bool, bool, int, int,
                                              const std::function<void(std::int64_t)>&);
template Series<float> make_series<float>(const Params&);
template Series<double> make_series<double>(const Params&);
template std::optional<SeriesPart<float>> file_run<float>(
    const Params&, int, int, Cut, Series<float>&);
template std::optional<SeriesPart<double>> file_run<double>(
    const Params&, int, int, Cut, Series<double>&);

}  // namespace parasol::recurrence
