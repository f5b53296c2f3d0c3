#include "io/result_reader.hpp"

#include <algorithm>
#include <system_error>
#include <type_traits>
#include <utility>

#include "io/compression.hpp"
#include "io/hdf5_calls.hpp"
#include "io/host_memory.hpp"
#include "kernels/error.hpp"

// H5Treclaim replaced H5Dvlen_reclaim in 1.12.0; 1.10.8's header declares it too, but its
// library does not define it.
#if H5_VERSION_GE(1, 12, 0)
#define PARASOL_HDF5_TRECLAIM 1
#endif

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

// Variable-length strings (h5py's default) are allocated by HDF5 and must be given back to it.
class ReclaimOnExit {
 public:
  ReclaimOnExit(hid_t type, hid_t space, void* buffer)
      : type_(type), space_(space), buffer_(buffer) {}
  ReclaimOnExit(const ReclaimOnExit&) = delete;
  ReclaimOnExit& operator=(const ReclaimOnExit&) = delete;
  ~ReclaimOnExit() {
#ifdef PARASOL_HDF5_TRECLAIM
    H5Treclaim(type_, space_, H5P_DEFAULT, buffer_);
#else
    H5Dvlen_reclaim(type_, space_, H5P_DEFAULT, buffer_);
#endif
  }

 private:
  hid_t type_, space_;
  void* buffer_;
};

// The text of a fixed-length string: up to its first NUL (NULLTERM and NULLPAD alike).
std::string fixed_string(const char* text, std::size_t size) {
  return std::string(text, std::find(text, text + size, '\0'));
}

Handle variable_string_type(hid_t stored, const std::string& file) {
  Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, "H5Tcopy", "H5T_C_S1");
  check(H5Tset_size(type.get(), H5T_VARIABLE), file, "H5Tset_size", "");
  check(H5Tset_cset(type.get(), H5Tget_cset(stored)), file, "H5Tset_cset", "");
  return type;
}

Handle fixed_string_type(hid_t stored, const std::string& file) {
  return checked(H5Tcopy(stored), H5Tclose, file, "H5Tcopy", "string type");
}

AttributeValue read_attribute(hid_t attribute, const std::string& file, const std::string& where) {
  Handle type = checked(H5Aget_type(attribute), H5Tclose, file, "H5Aget_type", where);
  Handle space = checked(H5Aget_space(attribute), H5Sclose, file, "H5Aget_space", where);
  const H5T_class_t type_class = H5Tget_class(type.get());
  const H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const bool scalar = space_class == H5S_SCALAR;
  // A one-dimensional or null dataspace is a vector (an empty one is 1D of length 0).
  const bool vector = space_class == H5S_NULL || (space_class == H5S_SIMPLE && rank == 1);
  const std::size_t count = element_count(space.get(), file, where);

  if (type_class == H5T_STRING && scalar) {
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle memory = variable_string_type(type.get(), file);
      char* text = nullptr;
      check(H5Aread(attribute, memory.get(), &text), file, "H5Aread", where);
      const ReclaimOnExit reclaim(memory.get(), space.get(), &text);
      return std::string(text == nullptr ? "" : text);
    }
    Handle memory = fixed_string_type(type.get(), file);
    std::string buffer(H5Tget_size(type.get()), '\0');
    check(H5Aread(attribute, memory.get(), buffer.data()), file, "H5Aread", where);
    return fixed_string(buffer.data(), buffer.size());
  }
  if (type_class == H5T_INTEGER && scalar) {
    if (H5Tget_size(type.get()) == 1) {
      std::int8_t flag = 0;
      check(H5Aread(attribute, H5T_NATIVE_INT8, &flag), file, "H5Aread", where);
      return flag != 0;
    }
    std::int64_t value = 0;
    check(H5Aread(attribute, H5T_NATIVE_INT64, &value), file, "H5Aread", where);
    return value;
  }
  if (type_class == H5T_FLOAT && scalar) {
    double value = 0;
    check(H5Aread(attribute, H5T_NATIVE_DOUBLE, &value), file, "H5Aread", where);
    return value;
  }
  if (type_class == H5T_INTEGER && vector) {
    std::vector<std::int64_t> values(count);
    if (count != 0)
      check(H5Aread(attribute, H5T_NATIVE_INT64, values.data()), file, "H5Aread", where);
    return values;
  }
  if (type_class == H5T_FLOAT && vector) {
    std::vector<double> values(count);
    if (count != 0)
      check(H5Aread(attribute, H5T_NATIVE_DOUBLE, values.data()), file, "H5Aread", where);
    return values;
  }
  throw Error(file + ": attribute " + where +
              " is not a scalar, string or 1D number vector, which is all this reader knows");
}

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* names) {
  try {
    static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  } catch (...) {
    return -1;
  }
  return 0;
}

// Before H5Dread: a filter HDF5 cannot load is named, with the package that has it, instead of
// HDF5's "can't open directory" several layers down.
void require_filters(hid_t dataset, const std::string& file, const std::string& path) {
  Handle dcpl =
      checked(H5Dget_create_plist(dataset), H5Pclose, file, "H5Dget_create_plist", path);
  const std::string missing = missing_filter(dcpl.get());
  if (!missing.empty()) throw Error(file + ": " + path + ": compressed with " + missing);
}

// Before a dataset's values are allocated: a file of 2 KB may declare [1000000 x 1000000], and
// the allocation would end the run in std::bad_alloc (or the OOM killer). Counted in double, so
// no extent overflows the count.
template <class T>
void require_room(const std::vector<hsize_t>& extent, const std::string& file,
                  const std::string& path) {
  double elements = 1;
  std::string text;
  for (const hsize_t n : extent) {
    elements *= static_cast<double>(n);
    text += (text.empty() ? "" : " x ") + std::to_string(n);
  }
  require_host_memory(file, path, "holds [" + text + "] values, which need",
                      elements * static_cast<double>(sizeof(T)));
}

template <class T>
std::vector<T> read_numbers(hid_t file_id, const std::string& dataset_path, hid_t memory_type) {
  const std::string file = file_name(file_id);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  require_room<T>(extent_of(space.get(), file, path), file, path);
  std::vector<T> values(element_count(space.get(), file, path));
  // HDF5 converts from the stored type (float to double, narrower integers to int64).
  if (!values.empty()) {
    require_filters(dataset.get(), file, path);
    check(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), file,
          "H5Dread", path);
  }
  return values;
}

// A dataset a user named (an input file), opened with the checks read_dataset promises, each an
// InputError naming the file, the dataset and what was expected, never HDF5's words.
struct UserDataset {
  Handle dataset;
  Handle space;
  std::vector<hsize_t> extent;
};

UserDataset open_user_dataset(hid_t file_id, const std::string& file, const std::string& given,
                              bool integers, const std::vector<int>& ranks) {
  if (components(given).empty())
    throw InputError(file, given.empty() ? "\"\"" : given,
                     given.empty() ? "no dataset named; expected the path of a dataset in it"
                                   : "is the file's root group; expected the path of a dataset");
  const std::string path = normalized(given);
  if (!object_exists(file_id, path)) throw InputError(file, path, "no such dataset");
  H5O_info_t info{};
#if H5_VERSION_GE(1, 10, 3)
  const herr_t status = H5Oget_info_by_name2(file_id, path.c_str(), &info, H5O_INFO_BASIC,
                                             H5P_DEFAULT);
#else
  const herr_t status = H5Oget_info_by_name(file_id, path.c_str(), &info, H5P_DEFAULT);
#endif
  if (status < 0) {
    H5Eclear2(H5E_DEFAULT);
    throw InputError(file, path, "cannot be opened; expected a dataset");
  }
  if (info.type == H5O_TYPE_GROUP) throw InputError(file, path, "expected a dataset, found a group");
  if (info.type != H5O_TYPE_DATASET)
    throw InputError(file, path, "expected a dataset, found a named datatype");
  Handle dataset = Handle(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.get() < 0) {
    H5Eclear2(H5E_DEFAULT);
    throw InputError(file, path, "cannot be opened as a dataset");
  }
  Handle type = checked(H5Dget_type(dataset.get()), H5Tclose, file, "H5Dget_type", path);
  const H5T_class_t type_class = H5Tget_class(type.get());
  // Strings, records and the like: the apps append the key that named the dataset to this.
  if (type_class != H5T_INTEGER && (integers || type_class != H5T_FLOAT))
    throw InputError(file, path,
                     integers ? "expected a dataset of integers" : "expected a dataset of numbers");

  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  std::vector<hsize_t> extent = extent_of(space.get(), file, path);
  const int rank = static_cast<int>(extent.size());
  if (!ranks.empty() && std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) {
    std::string wanted, shape;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      wanted += (i == 0 ? "" : i + 1 == ranks.size() ? " or " : ", ") + std::to_string(ranks[i]);
    for (const hsize_t d : extent) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(file, path,
                     "expected a dataset of rank " + wanted + ", got rank " +
                         std::to_string(rank) + (shape.empty() ? "" : " (" + shape + ")"));
  }
  return {std::move(dataset), std::move(space), std::move(extent)};
}

// The creation properties of a dataset: its layout and filters.
Handle creation_properties(hid_t file_id, const std::string& dataset_path) {
  const std::string file = file_name(file_id);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  return checked(H5Dget_create_plist(dataset.get()), H5Pclose, file, "H5Dget_create_plist", path);
}

}  // namespace

ResultReader::ResultReader(const fs::path& path) {
  start_hdf5();
  const std::string shown = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(shown, "", "no such file");
  if (fs::is_directory(path, ec)) throw InputError(shown, "", "is a folder, expected an HDF5 file");
  Handle fapl = access_properties(shown);
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (file_ < 0) fail(shown, "H5Fopen", "");
}

ResultReader::~ResultReader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool ResultReader::exists(const std::string& object_path) const {
  return object_exists(file_, normalized(object_path));
}

bool ResultReader::has_attribute(const std::string& object_path, const std::string& name) const {
  const std::string path = normalized(object_path);
  if (!object_exists(file_, path)) return false;
  const htri_t exists = H5Aexists_by_name(file_, path.c_str(), name.c_str(), H5P_DEFAULT);
  if (exists < 0) fail(file_name(file_), "H5Aexists_by_name", path + ", " + name);
  return exists > 0;
}

AttributeValue ResultReader::attribute(const std::string& object_path,
                                       const std::string& name) const {
  const std::string file = file_name(file_);
  const std::string path = normalized(object_path);
  const std::string where = path + ", " + name;
  Handle attribute =
      checked(H5Aopen_by_name(file_, path.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, file, "H5Aopen_by_name", where);
  return read_attribute(attribute.get(), file, where);
}

std::vector<std::string> ResultReader::attribute_names(const std::string& object_path) const {
  const std::string path = normalized(object_path);
  std::vector<std::string> names;
  hsize_t next = 0;
  check(H5Aiterate_by_name(file_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, &next, collect_name,
                           &names, H5P_DEFAULT),
        file_name(file_), "H5Aiterate_by_name", path);
  return names;
}

std::vector<std::uint64_t> ResultReader::dims(const std::string& dataset_path) const {
  const std::string file = file_name(file_);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const std::vector<hsize_t> extent = extent_of(space.get(), file, path);
  return std::vector<std::uint64_t>(extent.begin(), extent.end());
}

std::vector<double> ResultReader::read_doubles(const std::string& dataset_path) const {
  return read_numbers<double>(file_, dataset_path, H5T_NATIVE_DOUBLE);
}

std::vector<float> ResultReader::read_floats(const std::string& dataset_path) const {
  return read_numbers<float>(file_, dataset_path, H5T_NATIVE_FLOAT);
}

std::vector<std::int64_t> ResultReader::read_ints(const std::string& dataset_path) const {
  return read_numbers<std::int64_t>(file_, dataset_path, H5T_NATIVE_INT64);
}

std::vector<std::string> ResultReader::read_strings(const std::string& dataset_path) const {
  const std::string file = file_name(file_);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  Handle type = checked(H5Dget_type(dataset.get()), H5Tclose, file, "H5Dget_type", path);
  if (H5Tget_class(type.get()) != H5T_STRING)
    throw Error(file + ": " + path + ": not a dataset of strings");
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const std::size_t count = element_count(space.get(), file, path);
  std::vector<std::string> values;
  values.reserve(count);
  if (count == 0) return values;
  require_filters(dataset.get(), file, path);

  if (H5Tis_variable_str(type.get()) > 0) {
    Handle memory = variable_string_type(type.get(), file);
    std::vector<char*> texts(count, nullptr);
    check(H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), file,
          "H5Dread", path);
    const ReclaimOnExit reclaim(memory.get(), space.get(), texts.data());
    for (const char* text : texts) values.emplace_back(text == nullptr ? "" : text);
    return values;
  }
  Handle memory = fixed_string_type(type.get(), file);
  const std::size_t width = H5Tget_size(type.get());
  std::vector<char> packed(count * width);
  check(H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), file,
        "H5Dread", path);
  for (std::size_t i = 0; i < count; ++i)
    values.push_back(fixed_string(packed.data() + i * width, width));
  return values;
}

bool ResultReader::is_chunked(const std::string& dataset_path) const {
  return H5Pget_layout(creation_properties(file_, dataset_path).get()) == H5D_CHUNKED;
}

bool ResultReader::is_compressed(const std::string& dataset_path) const {
  return H5Pget_nfilters(creation_properties(file_, dataset_path).get()) > 0;
}

template <class T>
Dataset<T> ResultReader::read_dataset(const std::string& dataset_path,
                                      const std::vector<int>& ranks) const {
  const std::string file = file_name(file_);
  const UserDataset d =
      open_user_dataset(file_, file, dataset_path, std::is_same_v<T, std::int64_t>, ranks);
  const std::string path = normalized(dataset_path);
  Dataset<T> result;
  result.dims.assign(d.extent.begin(), d.extent.end());
  require_room<T>(d.extent, file, path);
  result.values.resize(element_count(d.space.get(), file, path));
  // HDF5 converts from the stored type (integers to floating point, narrower to wider).
  if (!result.values.empty()) {
    require_filters(d.dataset.get(), file, path);
    check(H5Dread(d.dataset.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  result.values.data()),
          file, "H5Dread", path);
  }
  return result;
}

template <class T>
std::vector<std::uint64_t> ResultReader::dataset_dims(const std::string& dataset_path,
                                                      const std::vector<int>& ranks) const {
  const UserDataset d = open_user_dataset(file_, file_name(file_), dataset_path,
                                          std::is_same_v<T, std::int64_t>, ranks);
  return std::vector<std::uint64_t>(d.extent.begin(), d.extent.end());
}

template <class T>
std::vector<T> ResultReader::read_rows(const std::string& dataset_path, std::uint64_t first,
                                       std::uint64_t rows, const std::vector<int>& ranks) const {
  const std::string file = file_name(file_);
  const UserDataset d =
      open_user_dataset(file_, file, dataset_path, std::is_same_v<T, std::int64_t>, ranks);
  const std::string path = normalized(dataset_path);
  if (d.extent.empty())
    throw InputError(file, path, "is a scalar; expected a dataset of rows");
  const std::uint64_t length = d.extent[0];
  if (first > length || rows > length - first)
    throw InputError(file, path,
                     "holds " + std::to_string(length) +
                         (d.extent.size() == 1 ? " elements" : " rows") + "; expected at least " +
                         std::to_string(first) + " + " + std::to_string(rows));
  std::vector<hsize_t> offset(d.extent.size(), 0), count = d.extent;
  offset[0] = first;
  count[0] = rows;
  require_room<T>(count, file, path);
  std::uint64_t size = 1;
  for (hsize_t c : count) size *= c;
  std::vector<T> values(static_cast<std::size_t>(size));
  if (size == 0) return values;
  require_filters(d.dataset.get(), file, path);
  const Selection slab = select_block(d.dataset.get(), file, path, offset, count);
  check(H5Dread(d.dataset.get(), native_type<T>(), slab.memory_space.get(), slab.file_space.get(),
                H5P_DEFAULT, values.data()),
        file, "H5Dread", path);
  return values;
}

template <class T>
std::vector<T> ResultReader::read_block(const std::string& dataset_path,
                                        const std::vector<std::uint64_t>& offset,
                                        const std::vector<std::uint64_t>& count,
                                        const std::vector<int>& ranks) const {
  const std::string file = file_name(file_);
  const UserDataset d =
      open_user_dataset(file_, file, dataset_path, std::is_same_v<T, std::int64_t>, ranks);
  const std::string path = normalized(dataset_path);
  if (offset.size() != d.extent.size() || count.size() != d.extent.size())
    throw Error(file + ": " + path + ": a block of rank " + std::to_string(count.size()) +
                " for a dataset of rank " + std::to_string(d.extent.size()));
  std::uint64_t size = 1;
  for (std::size_t i = 0; i < d.extent.size(); ++i) {
    if (offset[i] > d.extent[i] || count[i] > d.extent[i] - offset[i])
      throw InputError(file, path,
                       "holds " + std::to_string(d.extent[i]) + " along dimension " +
                           std::to_string(i) + "; expected at least " +
                           std::to_string(offset[i]) + " + " + std::to_string(count[i]));
    size *= count[i];
  }
  const std::vector<hsize_t> block_offset(offset.begin(), offset.end()),
      block_count(count.begin(), count.end());
  require_room<T>(block_count, file, path);
  std::vector<T> values(static_cast<std::size_t>(size));
  if (size == 0) return values;
  require_filters(d.dataset.get(), file, path);
  const Selection block = select_block(d.dataset.get(), file, path, block_offset, block_count);
  check(H5Dread(d.dataset.get(), native_type<T>(), block.memory_space.get(),
                block.file_space.get(), H5P_DEFAULT, values.data()),
        file, "H5Dread", path);
  return values;
}

template <class T>
std::vector<T> ResultReader::read_run(const std::string& dataset_path, std::uint64_t first,
                                      std::uint64_t count) const {
  const std::string file = file_name(file_);
  const UserDataset d =
      open_user_dataset(file_, file, dataset_path, std::is_same_v<T, std::int64_t>, {1, 2});
  const std::string path = normalized(dataset_path);
  const std::uint64_t length = d.extent.back();
  const std::uint64_t total = d.extent.size() == 2 ? d.extent[0] * length : length;
  if (first > total || count > total - first)
    throw InputError(file, path,
                     "holds " + std::to_string(total) + " elements; expected at least " +
                         std::to_string(first) + " + " + std::to_string(count));
  require_room<T>({count}, file, path);
  std::vector<T> values(static_cast<std::size_t>(count));
  if (count == 0) return values;
  require_filters(d.dataset.get(), file, path);
  Handle file_space = checked(H5Dget_space(d.dataset.get()), H5Sclose, file, "H5Dget_space", path);
  if (d.extent.size() == 1) {
    const hsize_t offset[1] = {first}, extent[1] = {count};
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, extent, nullptr),
          file, "H5Sselect_hyperslab", path);
  } else {
    // HDF5 reads a selection in C order whatever order its blocks were added in: the run's.
    H5S_seloper_t how = H5S_SELECT_SET;
    for (std::uint64_t i = 0; i < count;) {
      const std::uint64_t at = first + i, row = at / length, column = at % length;
      const std::uint64_t rows = column != 0 || count - i < length ? 1 : (count - i) / length;
      const std::uint64_t width = rows == 1 ? std::min(length - column, count - i) : length;
      const hsize_t offset[2] = {row, column}, extent[2] = {rows, width};
      check(H5Sselect_hyperslab(file_space.get(), how, offset, nullptr, extent, nullptr), file,
            "H5Sselect_hyperslab", path);
      how = H5S_SELECT_OR;
      i += rows * width;
    }
  }
  const hsize_t memory_extent[1] = {count};
  Handle memory_space = checked(H5Screate_simple(1, memory_extent, nullptr), H5Sclose, file,
                                "H5Screate_simple", path);
  check(H5Dread(d.dataset.get(), native_type<T>(), memory_space.get(), file_space.get(),
                H5P_DEFAULT, values.data()),
        file, "H5Dread", path);
  return values;
}

template <class T>
std::vector<T> ResultReader::read_slab(const std::string& dataset_path, std::uint64_t offset,
                                       std::uint64_t count) const {
  return read_rows<T>(dataset_path, offset, count, {1});
}

template Dataset<float> ResultReader::read_dataset<float>(const std::string&,
                                                          const std::vector<int>&) const;
template Dataset<double> ResultReader::read_dataset<double>(const std::string&,
                                                            const std::vector<int>&) const;
template Dataset<std::int64_t> ResultReader::read_dataset<std::int64_t>(
    const std::string&, const std::vector<int>&) const;
template std::vector<std::uint64_t> ResultReader::dataset_dims<float>(
    const std::string&, const std::vector<int>&) const;
template std::vector<std::uint64_t> ResultReader::dataset_dims<double>(
    const std::string&, const std::vector<int>&) const;
template std::vector<std::uint64_t> ResultReader::dataset_dims<std::int64_t>(
    const std::string&, const std::vector<int>&) const;
template std::vector<float> ResultReader::read_rows<float>(const std::string&, std::uint64_t,
                                                           std::uint64_t,
                                                           const std::vector<int>&) const;
template std::vector<double> ResultReader::read_rows<double>(const std::string&, std::uint64_t,
                                                             std::uint64_t,
                                                             const std::vector<int>&) const;
template std::vector<float> ResultReader::read_block<float>(const std::string&,
                                                           const std::vector<std::uint64_t>&,
                                                           const std::vector<std::uint64_t>&,
                                                           const std::vector<int>&) const;
template std::vector<double> ResultReader::read_block<double>(const std::string&,
                                                            const std::vector<std::uint64_t>&,
                                                            const std::vector<std::uint64_t>&,
                                                            const std::vector<int>&) const;
template std::vector<float> ResultReader::read_run<float>(const std::string&, std::uint64_t,
                                                         std::uint64_t) const;
template std::vector<double> ResultReader::read_run<double>(const std::string&, std::uint64_t,
                                                          std::uint64_t) const;
template std::vector<float> ResultReader::read_slab<float>(const std::string&, std::uint64_t,
                                                           std::uint64_t) const;
template std::vector<double> ResultReader::read_slab<double>(const std::string&, std::uint64_t,
                                                             std::uint64_t) const;
template std::vector<std::int64_t> ResultReader::read_slab<std::int64_t>(const std::string&,
                                                                         std::uint64_t,
                                                                         std::uint64_t) const;

}  // namespace parasol::io
