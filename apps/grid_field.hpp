// A field on a grid of z planes, in and out: read from a user's HDF5 input file (a source, an
// initial state) a rank's rows at a time, the dataset's extent checked against the grid's and its
// values against NaN and infinity, each error said against the key that named the dataset; and
// written, a rank's planes at a time, with the XDMF sidecar that shows it. Solvers do not link
// HDF5: a binding reads the field here and hands the values to its solver.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "io/input_file.hpp"
#include "io/param_table.hpp"
#include "io/xdmf.hpp"

namespace parasol::app {

// Where a field lies: the file and dataset, and the keys that named them.
struct FieldInput {
  std::string file;
  const char* file_key;  // "source.file"
  std::string dataset;
  const char* dataset_key;  // "source.dataset"
};

// Rows [first, first + rows) along the first dimension of `in`'s dataset, which must have
// extent `dims` (`layout` says what they are: "[nz][ny][nx], the grid's cells"); every value
// of `quantity` ("f") finite.
template <class T>
std::vector<T> read_field_rows(const io::ParamTable& t, const FieldInput& in,
                               const std::vector<std::uint64_t>& dims, const std::string& layout,
                               const std::string& quantity, std::uint64_t first,
                               std::uint64_t rows) {
  const char* key = in.dataset_key;
  const std::unique_ptr<io::ResultReader> file = io::open_input_file(in.file, in.file_key);
  const std::vector<std::uint64_t> found = io::naming_key(key, [&] {
    return file->dataset_dims<T>(in.dataset, {static_cast<int>(dims.size())});
  });
  if (found != dims)
    throw InputError(t.source_of(key), key,
                     "expected a dataset of " + io::shape_text(dims) + " values (" + layout +
                         "), got " + io::shape_text(found) + " in " + in.file);
  std::vector<T> values = io::naming_key(key, [&] {
    return file->read_rows<T>(in.dataset, first, rows, {static_cast<int>(dims.size())});
  });
  std::uint64_t row = 1;
  for (std::size_t d = 1; d < dims.size(); ++d) row *= dims[d];
  for (std::size_t c = 0; c < values.size(); ++c)
    if (!std::isfinite(values[c]))
      throw InputError(t.source_of(key), key,
                       "expected finite values of " + quantity + ", found " +
                           std::to_string(values[c]) + " at cell " +
                           std::to_string(first * row + c) + " of " + in.file);
  return values;
}

// Planes [first, first + planes) of the [nz][ny][nx] field `dataset` on `grid` from `data`
// (Output::write_share), and on rank 0 the sidecar that shows it as `name`; true where the
// field's attributes are written (rank 0).
template <class T>
bool write_planes(Output& out, const std::string& dataset, const std::string& name,
                  const io::UniformGrid3& grid, std::int64_t first, std::int64_t planes,
                  const T* data) {
  const std::vector<std::uint64_t> dims{grid.points[2], grid.points[1], grid.points[0]};
  if (!out.write_share(dataset, dims, static_cast<std::uint64_t>(first),
                       static_cast<std::uint64_t>(planes), data))
    return false;
  out.add_xdmf(grid, {dataset, name, int(sizeof(T))});
  return true;
}

}  // namespace parasol::app
