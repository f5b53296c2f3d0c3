// tridiag's batch from HDF5: every dataset's kind, type and shape checked before any is read.
#include "solvers/tridiag/inputs.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/input_file.hpp"
#include "kernels/error.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/run.hpp"

namespace parasol::tridiag {

namespace {

// `read` (read_dataset or dataset_dims, which check that the path holds a dataset of numbers),
// its complaint restated against the key that named the dataset.
template <class Read>
auto named(const std::string& file, const char* key, const std::string& dataset, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw InputError(file, key, "dataset \"" + dataset + "\": " + e.expected());
  }
}

// The four datasets' shape [systems][n], every one checked before any values are read.
template <class T>
std::vector<std::uint64_t> batch_shape(const io::ResultReader& h5, const FileInput& input) {
  const std::string& file = input.file;
  const std::pair<const std::string&, const char*> datasets[] = {
      {input.a, "input.a"}, {input.b, "input.b"}, {input.c, "input.c"}, {input.d, "input.d"}};
  using io::shape_text;
  std::vector<std::uint64_t> shape;
  for (const auto& [dataset, key] : datasets) {
    if (!h5.exists(dataset))
      throw InputError(file, key, "no dataset \"" + dataset + "\" in the file");
    const std::vector<std::uint64_t> dims =
        named(file, key, dataset, [&] { return h5.dataset_dims<T>(dataset); });
    if (dims.size() != 2 || dims[0] == 0 || dims[1] == 0)
      throw InputError(file, key,
                       "dataset \"" + dataset + "\" is " + shape_text(dims) +
                           "; expected [systems][n], both at least 1");
    if (shape.empty()) shape = dims;
    if (dims != shape)
      throw InputError(file, key,
                       "dataset \"" + dataset + "\" is " + shape_text(dims) + " but \"" + input.a +
                           "\" is " + shape_text(shape) +
                           "; a, b, c and d must have the same shape [systems][n]");
  }
  return shape;
}

// This rank's share of a file's `systems` (system_share), a complaint naming the file.
comm::Slab file_share(const std::string& file, std::int64_t systems, int rank, int ranks) {
  try {
    return system_share(systems, rank, ranks, "input.file", "systems");
  } catch (const InputError& e) {
    throw e.with_source(file);
  }
}

// Each of `datasets` (name, key, values) read as the rows `mine` of its systems alone.
template <class T, class Datasets>
void read_share(io::ResultReader& h5, const std::string& file, const Datasets& datasets,
                const comm::Slab& mine) {
  for (const auto& [dataset, key, values] : datasets)
    values = named(file, key, dataset, [&] {
      return h5.read_rows<T>(dataset, static_cast<std::uint64_t>(mine.begin),
                             static_cast<std::uint64_t>(mine.count()));
    });
}

}  // namespace

template <class T>
BatchPart<T> read_batch_part(const FileInput& input, int rank, int ranks) {
  const std::string& file = input.file;
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "input.file");
  BatchPart<T> part;
  Batch<T>& batch = part.batch;
  const std::tuple<const std::string&, const char*, std::vector<T>&> datasets[] = {
      {input.a, "input.a", batch.a},
      {input.b, "input.b", batch.b},
      {input.c, "input.c", batch.c},
      {input.d, "input.d", batch.d}};
  const std::vector<std::uint64_t> shape = batch_shape<T>(*h5, input);
  part.systems = static_cast<std::int64_t>(shape[0]);
  const comm::Slab mine = file_share(file, part.systems, rank, ranks);
  part.first = mine.begin;
  read_share<T>(*h5, file, datasets, mine);
  batch.dims = {static_cast<std::int64_t>(shape[1]), mine.count(), Layout::contiguous};
  return part;
}

template <class T>
RowsPart<T> read_rows_part(const FileInput& input, bool periodic, int rank, int ranks,
                           std::int64_t piece_rows) {
  const std::string& file = input.file;
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "input.file");
  const std::vector<std::uint64_t> shape = batch_shape<T>(*h5, input);
  const auto systems = static_cast<std::int64_t>(shape[0]), n = static_cast<std::int64_t>(shape[1]);
  try {
    (void)long_cut(n, ranks, piece_rows, "input.file");
  } catch (const InputError& e) {
    throw e.with_source(file);
  }
  if (periodic && n < 3)
    throw InputError(file, "input.file",
                     "periodic systems need n >= 3 (a ring of three rows at least), got " +
                         std::to_string(n));
  const comm::Slab mine = comm::even_slab(n, rank, ranks);
  RowsPart<T> part;
  part.n = n;
  part.periodic = periodic;
  part.first_row = mine.begin;
  Batch<T>& batch = part.batch;
  batch.dims = {mine.count(), systems, Layout::contiguous};
  const std::tuple<const std::string&, const char*, std::vector<T>&> datasets[] = {
      {input.a, "input.a", batch.a},
      {input.b, "input.b", batch.b},
      {input.c, "input.c", batch.c},
      {input.d, "input.d", batch.d}};
  for (const auto& [dataset, key, values] : datasets)
    values = named(file, key, dataset, [&] {
      return h5->read_block<T>(dataset, {0, static_cast<std::uint64_t>(mine.begin)},
                               {static_cast<std::uint64_t>(systems),
                                static_cast<std::uint64_t>(mine.count())});
    });
  return part;
}

template <class T>
Batch<T> read_batch(const FileInput& input) {
  return read_batch_part<T>(input, 0, 1).batch;
}

template <class T>
KindBatchPart<T> read_kind_batch_part(const FileInput& input, Kind kind, int rhs,
                                      int rank, int ranks) {
  const std::string& file = input.file;
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "input.file");
  KindBatchPart<T> part;
  KindBatch<T>& batch = part.batch;
  const bool penta = kind == Kind::pentadiagonal;
  batch.bands.resize(penta ? 5 : 3);
  // b first: its shape gives the systems and n the others are judged by.
  std::vector<std::tuple<const std::string&, const char*, std::vector<T>&>> datasets;
  datasets.emplace_back(input.b, "input.b", batch.bands[penta ? 2 : 1]);
  if (penta) datasets.emplace_back(input.e, "input.e", batch.bands[0]);
  datasets.emplace_back(input.a, "input.a", batch.bands[penta ? 1 : 0]);
  datasets.emplace_back(input.c, "input.c", batch.bands[penta ? 3 : 2]);
  if (penta) datasets.emplace_back(input.f, "input.f", batch.bands[4]);
  datasets.emplace_back(input.d, "input.d", batch.d);
  using io::shape_text;
  const std::string kind_text = "system.kind = \"" + std::string(name(kind)) + "\"";
  std::vector<std::uint64_t> b_shape;
  for (const auto& [dataset, key, values] : datasets) {
    if (!h5->exists(dataset))
      throw InputError(file, key, "no dataset \"" + dataset + "\" in the file");
    const std::vector<std::uint64_t> dims =
        named(file, key, dataset, [&] { return h5->dataset_dims<T>(dataset); });
    const bool is_d = std::string(key) == "input.d";
    if (b_shape.empty()) {
      const bool block = kind == Kind::block2;
      const std::string wanted = block ? "[systems][n][2][2]" : "[systems][n]";
      if (dims.size() != (block ? 4u : 2u) || dims[0] == 0 || dims[1] == 0 ||
          (block && (dims[2] != 2 || dims[3] != 2)))
        throw InputError(file, key,
                         "dataset \"" + dataset + "\" is " + shape_text(dims) + "; expected " +
                             wanted + " for " + kind_text + ", systems and n at least 1");
      b_shape = dims;
    }
    const std::uint64_t systems = b_shape[0], n = b_shape[1];
    std::vector<std::uint64_t> expected{systems, n};
    std::string wanted = "[systems][n]";
    if (kind == Kind::block2) {
      expected = is_d ? std::vector<std::uint64_t>{systems, n, 2}
                      : std::vector<std::uint64_t>{systems, n, 2, 2};
      wanted = is_d ? "[systems][n][2]" : "[systems][n][2][2]";
    } else if (kind == Kind::multi_rhs && is_d) {
      expected = {systems, static_cast<std::uint64_t>(rhs), n};
      wanted = "[systems][rhs][n] with rhs = system.rhs = " + std::to_string(rhs);
    }
    if (dims != expected)
      throw InputError(file, key,
                       "dataset \"" + dataset + "\" is " + shape_text(dims) + "; expected " +
                           wanted + " = " + shape_text(expected) + " for " + kind_text +
                           " (\"" + input.b + "\" is " + shape_text(b_shape) + ")");
  }
  part.systems = static_cast<std::int64_t>(b_shape[0]);
  batch.dims = {kind, static_cast<std::int64_t>(b_shape[1]), 0, rhs};
  check_kind_dims(batch.dims, file, "input.file");
  const comm::Slab mine = file_share(file, part.systems, rank, ranks);
  part.first = mine.begin;
  batch.dims.systems = mine.count();
  read_share<T>(*h5, file, datasets, mine);
  return part;
}

template KindBatchPart<float> read_kind_batch_part<float>(const FileInput&, Kind,
                                                          int, int, int);
template KindBatchPart<double> read_kind_batch_part<double>(const FileInput&,
                                                            Kind, int, int, int);
template BatchPart<float> read_batch_part<float>(const FileInput&, int, int);
template BatchPart<double> read_batch_part<double>(const FileInput&, int, int);
template RowsPart<float> read_rows_part<float>(const FileInput&, bool, int, int, std::int64_t);
template RowsPart<double> read_rows_part<double>(const FileInput&, bool, int, int, std::int64_t);
template Batch<float> read_batch<float>(const FileInput&);
template Batch<double> read_batch<double>(const FileInput&);

}  // namespace parasol::tridiag
