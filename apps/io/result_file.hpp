// One HDF5 result file, written under a temporary name beside its final path and renamed into
// place only by commit(): a run that fails, throws or is interrupted leaves no truncated file.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "apps/io/value.hpp"

namespace parasol::io {

// Attribute values: scalars, strings and short vectors (block shapes, extents).
using AttributeValue = Value;

// Deflate level (after a byte shuffle) of large fields and streamed datasets: 4 keeps nearly all
// of level 9's ratio at a fraction of its time; 0 stores them uncompressed, several times faster
// to write (a 2^26-sample streamed result spends most of its run compressing at 4).
inline constexpr int kDefaultCompression = 4;

class ResultFile {
 public:
  // Refuses (InputError, exit 2) when `path` exists and `force` is false, or when its folder
  // does not exist; creates the temporary file at once, so an unwritable folder fails before
  // any computing is done. `compression`: 0 to 9, see kDefaultCompression.
  ResultFile(std::filesystem::path path, bool force, int compression = kDefaultCompression);
  ResultFile(ResultFile&&) noexcept;
  ResultFile& operator=(ResultFile&&) = delete;
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;
  ~ResultFile();  // not committed: closes and deletes the temporary

  // Groups along `object_path` ("/parameters", "/fields/u") are created as needed; "/" is the root.
  void set_attribute(const std::string& object_path, const std::string& name,
                     const AttributeValue& value);

  // An N-dimensional field in C order (last dimension fastest). Large fields are chunked and
  // compressed (deflate with shuffle, unless the file's compression is 0); small ones are
  // contiguous.
  void write_field(const std::string& dataset_path, const float* data,
                   const std::vector<std::uint64_t>& dims);
  void write_field(const std::string& dataset_path, const double* data,
                   const std::vector<std::uint64_t>& dims);

  // One column of a table (a 1D dataset); tables are groups of equal-length columns.
  void write_column(const std::string& dataset_path, const std::vector<double>& values);
  void write_column(const std::string& dataset_path, const std::vector<std::int64_t>& values);
  void write_column(const std::string& dataset_path, const std::vector<std::string>& values);

  // A 1D float or double dataset of `length` elements (at least 1) whose values come afterwards,
  // in parts, by write_slab: a streamed result need never be in memory whole. Chunked and
  // compressed as a large field is, whatever its length; elements never written read back as 0.
  template <class T>
  void create_dataset(const std::string& dataset_path, std::uint64_t length);
  // Elements [offset, offset + count) of a dataset made by create_dataset, converted to its type.
  // Parts that cover whole chunks (runs of 1 MiB from the start) are compressed once; a part
  // that ends inside a chunk has it read back and compressed again by the next.
  template <class T>
  void write_slab(const std::string& dataset_path, std::uint64_t offset, const T* data,
                  std::uint64_t count);

  // Closes the file and renames it to its final path. After commit() nothing more may be written.
  void commit();

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temporary_path() const { return temporary_; }

 private:
  std::filesystem::path path_, temporary_;
  hid_t file_ = H5I_INVALID_HID;
  int compression_ = kDefaultCompression;
  bool committed_ = false;
};

// A text file written whole under a temporary name and renamed into place (XDMF sidecars).
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

// Deletes every registered temporary file when the process gets SIGINT, SIGTERM or SIGHUP,
// then dies of that signal as it would have. Installed once by the front end.
void remove_temporaries_on_signal();

// A numeric dataset read whole: its extent and its values in C order (last dimension fastest).
template <class T>
struct Dataset {
  std::vector<std::uint64_t> dims;
  std::vector<T> values;
};

// Reading back (tests, and tools that post-process results).
class ResultReader {
 public:
  explicit ResultReader(const std::filesystem::path& path);
  ~ResultReader();
  ResultReader(const ResultReader&) = delete;
  ResultReader& operator=(const ResultReader&) = delete;

  bool exists(const std::string& object_path) const;
  bool has_attribute(const std::string& object_path, const std::string& name) const;
  AttributeValue attribute(const std::string& object_path, const std::string& name) const;
  std::vector<std::string> attribute_names(const std::string& object_path) const;
  std::vector<std::uint64_t> dims(const std::string& dataset_path) const;
  std::vector<double> read_doubles(const std::string& dataset_path) const;  // any float dataset
  std::vector<float> read_floats(const std::string& dataset_path) const;
  std::vector<std::int64_t> read_ints(const std::string& dataset_path) const;
  std::vector<std::string> read_strings(const std::string& dataset_path) const;
  bool is_chunked(const std::string& dataset_path) const;
  bool is_compressed(const std::string& dataset_path) const;  // has any filter (deflate, shuffle)
  // A dataset a user named (an input file), converted by HDF5 to T: float, double or
  // std::int64_t (integers only). InputError naming the file and dataset when it is missing, is
  // not a dataset of numbers, or its rank is not one of `ranks` (any rank when empty).
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

 private:
  hid_t file_ = H5I_INVALID_HID;
};

}  // namespace parasol::io
