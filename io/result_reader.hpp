// Reading HDF5 files back: results (tests, tools that post-process them) and the input datasets a
// user names (signals, series, coefficient batches), with checks that speak of the user's file.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/value.hpp"

namespace parasol::io {

// Attribute values: scalars, strings and short vectors (block shapes, extents).
using AttributeValue = Value;

// A numeric dataset read whole: its extent and its values in C order (last dimension fastest).
template <class T>
struct Dataset {
  std::vector<std::uint64_t> dims;
  std::vector<T> values;
};

class ResultReader {
 public:
  // InputError when `path` is missing or is a folder; Error naming H5Fopen when it is not HDF5.
  explicit ResultReader(const std::filesystem::path& path);
  ~ResultReader();
  ResultReader(const ResultReader&) = delete;
  ResultReader& operator=(const ResultReader&) = delete;

  bool exists(const std::string& object_path) const;
  bool has_attribute(const std::string& object_path, const std::string& name) const;
  AttributeValue attribute(const std::string& object_path, const std::string& name) const;
  std::vector<std::string> attribute_names(const std::string& object_path) const;
  std::vector<std::uint64_t> dims(const std::string& dataset_path) const;
  // A dataset written with a filter this HDF5 cannot load (a plugin not installed) is an Error
  // naming the filter and the Debian package that has it.
  std::vector<double> read_doubles(const std::string& dataset_path) const;  // any float dataset
  std::vector<float> read_floats(const std::string& dataset_path) const;
  std::vector<std::int64_t> read_ints(const std::string& dataset_path) const;
  std::vector<std::string> read_strings(const std::string& dataset_path) const;
  bool is_chunked(const std::string& dataset_path) const;
  bool is_compressed(const std::string& dataset_path) const;  // has any filter (deflate, shuffle)
  // A dataset a user named (an input file), converted by HDF5 to T: float, double or
  // std::int64_t (integers only). InputError naming the file and dataset when the name is empty
  // or the root, it is missing, is a group, does not hold numbers (strings, compounds), or its
  // rank is not one of `ranks` (any rank when empty).
  template <class T>
  Dataset<T> read_dataset(const std::string& dataset_path,
                          const std::vector<int>& ranks = {}) const;
  // The extent of such a dataset, with read_dataset's checks, its values left unread.
  template <class T>
  std::vector<std::uint64_t> dataset_dims(const std::string& dataset_path,
                                          const std::vector<int>& ranks = {}) const;
  // Elements [offset, offset + count) of a 1D such dataset, converted to T: read_dataset's
  // checks, and InputError when the range runs past its end. Reads only the chunks it needs.
  template <class T>
  std::vector<T> read_slab(const std::string& dataset_path, std::uint64_t offset,
                           std::uint64_t count) const;
  // Rows [first, first + rows) of such a dataset along its first dimension (all of the others),
  // in C order: what one rank reads of a batch cut among ranks. read_dataset's checks, with
  // `ranks`, and InputError when the rows run past its end. Reads only the chunks it needs.
  template <class T>
  std::vector<T> read_rows(const std::string& dataset_path, std::uint64_t first,
                           std::uint64_t rows, const std::vector<int>& ranks = {}) const;
  // The block [offset, offset + count) of such a dataset (its rank one of `ranks`, any when
  // empty), in C order: a column of rows, say. read_dataset's checks, and InputError when the
  // block runs past its end.
  template <class T>
  std::vector<T> read_block(const std::string& dataset_path,
                            const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count,
                            const std::vector<int>& ranks = {}) const;
  // Elements [first, first + count) of a 1D or 2D such dataset taken in C order (a 2D one's rows
  // end to end): the end of a row, whole rows and the start of one, in one read of just those.
  // read_dataset's checks, and InputError when the elements run past its end.
  template <class T>
  std::vector<T> read_run(const std::string& dataset_path, std::uint64_t first,
                          std::uint64_t count) const;

 private:
  hid_t file_ = H5I_INVALID_HID;
};

}  // namespace parasol::io
