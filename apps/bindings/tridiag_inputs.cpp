// tridiag's batch from HDF5: every dataset's kind, type and shape checked before any is read.
#include "apps/bindings/tridiag_inputs.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/input_file.hpp"
#include "kernels/error.hpp"
#include "solvers/tridiag/run.hpp"

namespace parasol::app {

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

}  // namespace

template <class T>
BatchPart<T> read_batch_part(const tridiag::FileInput& input, int rank, int ranks) {
  const std::string& file = input.file;
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "input.file");
  BatchPart<T> part;
  tridiag::Batch<T>& batch = part.batch;
  const std::tuple<const std::string&, const char*, std::vector<T>&> datasets[] = {
      {input.a, "input.a", batch.a},
      {input.b, "input.b", batch.b},
      {input.c, "input.c", batch.c},
      {input.d, "input.d", batch.d}};
  using io::shape_text;
  // Every shape is checked before any values are read.
  std::vector<std::uint64_t> shape;
  for (const auto& [dataset, key, values] : datasets) {
    if (!h5->exists(dataset))
      throw InputError(file, key, "no dataset \"" + dataset + "\" in the file");
    const std::vector<std::uint64_t> dims =
        named(file, key, dataset, [&] { return h5->dataset_dims<T>(dataset); });
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
  part.systems = static_cast<std::int64_t>(shape[0]);
  const comm::Slab mine = [&] {
    try {
      return tridiag::system_share(part.systems, rank, ranks, "input.file", "systems");
    } catch (const InputError& e) {
      throw e.with_source(file);
    }
  }();
  part.first = mine.begin;
  for (const auto& [dataset, key, values] : datasets)
    values = named(file, key, dataset, [&] {
      return h5->read_rows<T>(dataset, static_cast<std::uint64_t>(mine.begin),
                              static_cast<std::uint64_t>(mine.count()));
    });
  batch.dims = {static_cast<std::int64_t>(shape[1]), mine.count(), tridiag::Layout::contiguous};
  return part;
}

template <class T>
tridiag::Batch<T> read_batch(const tridiag::FileInput& input) {
  return read_batch_part<T>(input, 0, 1).batch;
}

template BatchPart<float> read_batch_part<float>(const tridiag::FileInput&, int, int);
template BatchPart<double> read_batch_part<double>(const tridiag::FileInput&, int, int);
template tridiag::Batch<float> read_batch<float>(const tridiag::FileInput&);
template tridiag::Batch<double> read_batch<double>(const tridiag::FileInput&);

}  // namespace parasol::app
