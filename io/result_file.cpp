#include "io/result_file.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "io/hdf5_calls.hpp"
#include "kernels/error.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Adds the time until it goes out of scope to a total, however the scope is left.
class AddTime {
 public:
  explicit AddTime(double& total) : total_(total), start_(Clock::now()) {}
  AddTime(const AddTime&) = delete;
  AddTime& operator=(const AddTime&) = delete;
  ~AddTime() { total_ += seconds_since(start_); }

 private:
  double& total_;
  Clock::time_point start_;
};

// ---------------------------------------------------------------------------------------------
// Groups and names.

// HDF5's own complaint about a path through a dataset is "message type not found".
void check_parents_are_groups(hid_t file_id, const std::string& file, const std::string& path) {
  const std::vector<std::string> parts = components(path);
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += "/" + parts[i];
    if (!object_exists(file_id, prefix)) return;
    Handle object = checked(H5Oopen(file_id, prefix.c_str(), H5P_DEFAULT), H5Oclose, file,
                            "H5Oopen", prefix);
    if (H5Iget_type(object.get()) != H5I_GROUP)
      throw Error(file + ": " + path + ": " + prefix + " is not a group");
  }
}

// Missing groups along a new object's path are created with it; names are UTF-8, as h5py writes.
Handle link_properties(const std::string& file) {
  Handle lcpl = checked(H5Pcreate(H5P_LINK_CREATE), H5Pclose, file, "H5Pcreate", "link creation");
  check(H5Pset_create_intermediate_group(lcpl.get(), 1), file,
        "H5Pset_create_intermediate_group", "");
  check(H5Pset_char_encoding(lcpl.get(), H5T_CSET_UTF8), file, "H5Pset_char_encoding", "");
  return lcpl;
}

// Variable-length UTF-8: h5py reads these back as str (fixed-length strings come back as bytes).
Handle string_type(const std::string& file) {
  Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, "H5Tcopy", "H5T_C_S1");
  check(H5Tset_size(type.get(), H5T_VARIABLE), file, "H5Tset_size", "");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), file, "H5Tset_cset", "");
  return type;
}

Handle scalar_space(const std::string& file) {
  return checked(H5Screate(H5S_SCALAR), H5Sclose, file, "H5Screate", "scalar");
}

Handle vector_space(std::size_t length, const std::string& file) {
  const hsize_t dims[1] = {length};
  return checked(H5Screate_simple(1, dims, nullptr), H5Sclose, file, "H5Screate_simple", "");
}

std::string dataset_name(const std::string& file, const std::string& dataset_path) {
  const std::string path = normalized(dataset_path);
  if (path == "/") throw Error(file + ": a dataset needs a name, not \"" + dataset_path + "\"");
  return path;
}

// ---------------------------------------------------------------------------------------------
// Attributes.

void create_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t memory_type,
                      hid_t space, const void* data, const std::string& file,
                      const std::string& where) {
  Handle acpl = checked(H5Pcreate(H5P_ATTRIBUTE_CREATE), H5Pclose, file, "H5Pcreate",
                        "attribute creation");
  check(H5Pset_char_encoding(acpl.get(), H5T_CSET_UTF8), file, "H5Pset_char_encoding", "");
  Handle attribute =
      checked(H5Acreate2(object, name.c_str(), file_type, space, acpl.get(), H5P_DEFAULT),
              H5Aclose, file, "H5Acreate2", where);
  // An empty vector has nothing to write, and H5Awrite refuses a null buffer.
  if (data != nullptr) check(H5Awrite(attribute.get(), memory_type, data), file, "H5Awrite", where);
}

void write_attribute(hid_t object, const std::string& name, const AttributeValue& value,
                     const std::string& file, const std::string& where) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          // HDF5 has no boolean type: an 8-bit 0 or 1, which every tool reads as a number and
          // ResultReader reads back as bool (it takes every 1-byte integer for one).
          const std::int8_t flag = v ? 1 : 0;
          Handle space = scalar_space(file);
          create_attribute(object, name, H5T_STD_I8LE, H5T_NATIVE_INT8, space.get(), &flag, file,
                           where);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          Handle space = scalar_space(file);
          create_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space.get(), &v, file,
                           where);
        } else if constexpr (std::is_same_v<T, double>) {
          Handle space = scalar_space(file);
          create_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), &v, file,
                           where);
        } else if constexpr (std::is_same_v<T, std::string>) {
          Handle type = string_type(file);
          Handle space = scalar_space(file);
          const char* text = v.c_str();
          create_attribute(object, name, type.get(), type.get(), space.get(), &text, file, where);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          Handle space = vector_space(v.size(), file);
          create_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space.get(),
                           v.empty() ? nullptr : v.data(), file, where);
        } else {
          static_assert(std::is_same_v<T, std::vector<double>>);
          Handle space = vector_space(v.size(), file);
          create_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(),
                           v.empty() ? nullptr : v.data(), file, where);
        }
      },
      value);
}

void set_attribute_in(hid_t file_id, const std::string& file, const std::string& object_path,
                      const std::string& name, const AttributeValue& value) {
  const std::string path = normalized(object_path);
  const std::string where = path + ", " + name;
  check_parents_are_groups(file_id, file, path);
  Handle object = object_exists(file_id, path)
                      ? checked(H5Oopen(file_id, path.c_str(), H5P_DEFAULT), H5Oclose, file,
                                "H5Oopen", path)
                      : checked(H5Gcreate2(file_id, path.c_str(), link_properties(file).get(),
                                           H5P_DEFAULT, H5P_DEFAULT),
                                H5Oclose, file, "H5Gcreate2", path);
  const htri_t exists = H5Aexists(object.get(), name.c_str());
  if (exists < 0) fail(file, "H5Aexists", where);
  if (exists > 0) check(H5Adelete(object.get(), name.c_str()), file, "H5Adelete", where);
  write_attribute(object.get(), name, value, file, where);
}

// ---------------------------------------------------------------------------------------------
// Datasets.

// Below 64 Ki elements (256 KiB of floats) a filter saves little and a contiguous layout is the
// simplest for every reader; above it, fields are chunked, so a filter can be applied.
constexpr std::uint64_t kChunkedFromElements = std::uint64_t{1} << 16;

// HDF5's default chunk cache is 1 MiB per dataset: a bigger chunk is decompressed afresh for
// every partial read.
constexpr hsize_t kChunkBytes = hsize_t{1} << 20;

// A large field goes out in slabs of about this size: each a progress report, and small enough
// that one a fraction of a second apart keeps a progress line moving even at zstd's speed.
constexpr std::uint64_t kSlabBytes = std::uint64_t{32} << 20;

// Whole trailing dimensions while they fit, then as many slabs of the next one as fit: a chunk
// of a [nz][ny][nx] field is [k][ny][nx], which slicing along z reads whole. A row too big on its
// own is cut along the last dimension.
std::vector<hsize_t> chunk_dims(const std::vector<hsize_t>& dims, std::size_t element_bytes) {
  std::vector<hsize_t> chunk(dims.size(), 1);
  hsize_t inner = std::max<hsize_t>(1, element_bytes);
  for (std::size_t i = dims.size(); i-- > 0;) {
    if (inner <= kChunkBytes && dims[i] <= kChunkBytes / inner) {
      chunk[i] = dims[i];
      inner *= dims[i];
      continue;
    }
    chunk[i] = std::max<hsize_t>(1, std::min(dims[i], kChunkBytes / inner));
    break;
  }
  return chunk;
}

std::uint64_t element_product(const std::string& file, const std::string& path,
                              const std::vector<hsize_t>& dims) {
  std::uint64_t count = 1;
  for (const hsize_t d : dims) {
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d)
      throw Error(file + ": " + path + ": dimensions overflow a 64-bit element count");
    count *= d;
  }
  return count;
}

// A new dataset of `dims`, with the groups on its path. Chunked ones are laid out by chunk_dims
// and filtered as `compression` says; a filtered one says so in its `compression` attribute.
Handle new_dataset(hid_t file_id, const std::string& file, const std::string& path,
                   const std::vector<hsize_t>& dims, hid_t file_type, std::size_t element_bytes,
                   bool chunked, const Compression& compression) {
  Handle space = checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                         H5Sclose, file, "H5Screate_simple", path);
  Handle dcpl =
      checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate", "dataset creation");
  bool filtered = false;
  if (chunked) {
    const std::vector<hsize_t> chunk = chunk_dims(dims, element_bytes);
    check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), file,
          "H5Pset_chunk", path);
    filtered = set_filters(dcpl.get(), compression, file_type, file, path);
  }
  check_parents_are_groups(file_id, file, path);
  Handle lcpl = link_properties(file);
  Handle dataset = checked(H5Dcreate2(file_id, path.c_str(), file_type, space.get(), lcpl.get(),
                                      dcpl.get(), H5P_DEFAULT),
                           H5Dclose, file, "H5Dcreate2", path);
  if (filtered) {
    write_attribute(dataset.get(), "compression", name(compression), file, path);
    if (compression.lossy())
      write_attribute(dataset.get(), "zfp_accuracy", compression.zfp_accuracy, file, path);
  }
  return dataset;
}

void check_field_dims(const std::string& file, const std::string& dataset_path,
                      const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) throw Error(file + ": " + dataset_path + ": a field needs a dimension");
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 0)
      throw Error(file + ": " + dataset_path + ": dimension " + std::to_string(i) +
                  " is 0; a field must not be empty");
}

// The block [offset, offset + count) of an existing dataset, converted from T to its type.
template <class T>
void write_block(hid_t file_id, const std::string& file, const std::string& dataset_path,
                 const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& count,
                 const T* data) {
  const std::string path = dataset_name(file, dataset_path);
  Handle dataset =
      checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file, "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const std::vector<hsize_t> extent = extent_of(space.get(), file, path);
  if (offset.size() != extent.size() || count.size() != extent.size())
    throw Error(file + ": " + path + ": a block of rank " + std::to_string(count.size()) +
                " for a dataset of rank " + std::to_string(extent.size()));
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < extent.size(); ++i) {
    if (offset[i] > extent[i] || count[i] > extent[i] - offset[i])
      throw Error(file + ": " + path + ": elements " + std::to_string(offset[i]) + " + " +
                  std::to_string(count[i]) + " of dimension " + std::to_string(i) +
                  " are past its end, " + std::to_string(extent[i]));
    elements *= count[i];
  }
  if (elements == 0) return;
  if (data == nullptr) throw Error(file + ": " + path + ": no data");
  const Selection block = select_block(dataset.get(), file, path,
                                       std::vector<hsize_t>(offset.begin(), offset.end()),
                                       std::vector<hsize_t>(count.begin(), count.end()));
  check(H5Dwrite(dataset.get(), native_type<T>(), block.memory_space.get(),
                 block.file_space.get(), H5P_DEFAULT, data),
        file, "H5Dwrite", path);
}

template <class T>
hid_t file_type_of() {
  if constexpr (std::is_same_v<T, float>) return H5T_IEEE_F32LE;
  if constexpr (std::is_same_v<T, double>) return H5T_IEEE_F64LE;
  return H5T_STD_I64LE;
}

// An abandoned temporary is about to be deleted: HDF5's closing flush is pointed at an anonymous
// memory file instead of the disk, so it cannot fail for want of space and the library's state
// ends clean (a failed close leaves a file half-closed inside HDF5: start_hdf5() says why that
// matters). Used only for HDF5's default sec2 driver, whose handle is the file descriptor.
void close_abandoned(hid_t file) noexcept {
  const hid_t fapl = H5Fget_access_plist(file);
  if (fapl >= 0) {
    int* fd = nullptr;
    if (H5Pget_driver(fapl) == H5FD_SEC2 &&
        H5Fget_vfd_handle(file, fapl, reinterpret_cast<void**>(&fd)) >= 0 && fd != nullptr) {
      const int sink = memfd_create("parasol-abandoned", MFD_CLOEXEC);
      if (sink >= 0) {
        dup2(sink, *fd);
        close(sink);
      }
    }
    H5Pclose(fapl);
  }
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
}

// Closes a file we mean to keep: flushed first, so that a full disk fails the flush, which
// leaves the file open and sound (the caller abandons it), rather than the close.
void close_kept(hid_t& file, const std::string& shown) {
  check(H5Fflush(file, H5F_SCOPE_LOCAL), shown, "H5Fflush", "");
  // Invalid from here on, whatever H5Fclose says: a file id is never closed twice.
  check(H5Fclose(std::exchange(file, H5I_INVALID_HID)), shown, "H5Fclose", "");
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// ResultFile

ResultFile::ResultFile(fs::path path, bool force, const Compression& compression)
    : path_(std::move(path)), compression_(compression), outputs_(force) {
  start_hdf5();
  require_filter(compression_);
  temporary_ = outputs_.add(path_);
  const std::string shown = path_.string();
  Handle fapl = access_properties(shown);
  file_ = H5Fcreate(temporary_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get());
  if (file_ < 0) fail(shown, "H5Fcreate", temporary_.string());
}

namespace {
Compression from_deflate_level(const fs::path& path, int level) {
  if (level < 0 || level > 9)
    throw Error(path.string() + ": compression level " + std::to_string(level) +
                " is not one of 0 (none) to 9");
  return parse_compression(std::to_string(level));
}
}  // namespace

ResultFile::ResultFile(fs::path path, bool force, int deflate_level)
    : ResultFile(path, force, from_deflate_level(path, deflate_level)) {}

ResultFile::ResultFile(ResultFile&& other) noexcept
    : path_(std::move(other.path_)),
      temporary_(std::exchange(other.temporary_, {})),
      compression_(other.compression_),
      outputs_(std::move(other.outputs_)),
      file_(std::exchange(other.file_, H5I_INVALID_HID)),
      committed_(std::exchange(other.committed_, true)),  // the moved-from owns nothing
      suspended_(other.suspended_),
      progress_(std::move(other.progress_)),
      write_seconds_(other.write_seconds_),
      bytes_written_(other.bytes_written_),
      file_bytes_(other.file_bytes_) {}

ResultFile::~ResultFile() {
  if (committed_) return;
  // The names go first, so that nothing is left even if closing went wrong.
  outputs_.abandon();
  if (file_ >= 0) close_abandoned(std::exchange(file_, H5I_INVALID_HID));
}

hid_t ResultFile::open_for_writing(const char* what) const {
  if (suspended_)
    throw Error(path_.string() + ": " + what + " while suspended (another writer's turn)");
  if (file_ < 0 || committed_)
    throw Error(path_.string() + ": " + what + " after commit() or after a move");
  return file_;
}

void ResultFile::set_attribute(const std::string& object_path, const std::string& name,
                               const AttributeValue& value) {
  set_attribute_in(open_for_writing("written to"), path_.string(), object_path, name, value);
}

void ResultFile::write_numbers(const std::string& dataset_path, hid_t file_type,
                               hid_t memory_type, std::size_t element_bytes, const void* data,
                               const std::vector<std::uint64_t>& dims_in) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  const std::string path = dataset_name(file, dataset_path);
  const std::vector<hsize_t> dims(dims_in.begin(), dims_in.end());
  const std::uint64_t count = element_product(file, path, dims);
  if (count != 0 && data == nullptr) throw Error(file + ": " + path + ": no data");

  const AddTime timer(write_seconds_);
  const auto start = Clock::now();
  const bool chunked = count >= kChunkedFromElements;
  Handle dataset = new_dataset(file_id, file, path, dims, file_type, element_bytes, chunked,
                               compression_);
  // H5Dwrite refuses a null buffer even for no elements, and there is nothing to write.
  if (count == 0) return;
  const std::uint64_t total = count * element_bytes;
  if (!chunked) {
    check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file,
          "H5Dwrite", path);
    bytes_written_ += total;
    return;
  }
  // Slabs along the slowest dimension, whole chunks deep, so each chunk is filtered once.
  const std::uint64_t rows = dims[0];
  const std::uint64_t row_bytes = total / rows;
  const std::uint64_t chunk_rows = chunk_dims(dims, element_bytes)[0];
  const std::uint64_t slab_rows =
      std::max<std::uint64_t>(1, kSlabBytes / row_bytes / chunk_rows) * chunk_rows;
  std::vector<hsize_t> offset(dims.size(), 0), extent = dims;
  for (std::uint64_t row = 0; row < rows; row += slab_rows) {
    offset[0] = row;
    extent[0] = std::min(slab_rows, rows - row);
    const Selection slab = select_block(dataset.get(), file, path, offset, extent);
    check(H5Dwrite(dataset.get(), memory_type, slab.memory_space.get(), slab.file_space.get(),
                   H5P_DEFAULT, static_cast<const char*>(data) + row * row_bytes),
          file, "H5Dwrite", path);
    const std::uint64_t done = (row + extent[0]) * row_bytes;
    bytes_written_ += extent[0] * row_bytes;
    if (progress_) progress_(done, total, seconds_since(start));
  }
}

void ResultFile::write_field(const std::string& dataset_path, const float* data,
                             const std::vector<std::uint64_t>& dims) {
  check_field_dims(path_.string(), dataset_path, dims);
  write_numbers(dataset_path, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, sizeof(float), data, dims);
}

void ResultFile::write_field(const std::string& dataset_path, const double* data,
                             const std::vector<std::uint64_t>& dims) {
  check_field_dims(path_.string(), dataset_path, dims);
  write_numbers(dataset_path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sizeof(double), data, dims);
}

void ResultFile::write_column(const std::string& dataset_path, const std::vector<double>& values) {
  write_numbers(dataset_path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sizeof(double), values.data(),
                {values.size()});
}

void ResultFile::write_column(const std::string& dataset_path,
                              const std::vector<std::int64_t>& values) {
  write_numbers(dataset_path, H5T_STD_I64LE, H5T_NATIVE_INT64, sizeof(std::int64_t),
                values.data(), {values.size()});
}

void ResultFile::write_column(const std::string& dataset_path,
                              const std::vector<std::string>& values) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  const std::string path = dataset_name(file, dataset_path);
  const AddTime timer(write_seconds_);
  Handle type = string_type(file);
  std::vector<const char*> texts;
  std::uint64_t bytes = 0;
  for (const std::string& value : values) {
    texts.push_back(value.c_str());
    bytes += value.size();
  }
  Handle dataset = new_dataset(file_id, file, path, {values.size()}, type.get(),
                               sizeof(const char*), values.size() >= kChunkedFromElements,
                               compression_);
  if (!texts.empty())
    check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), file,
          "H5Dwrite", path);
  bytes_written_ += bytes;
}

template <class T>
void ResultFile::create_dataset(const std::string& dataset_path, std::uint64_t length) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  check_field_dims(file, dataset_path, {length});
  const std::string path = dataset_name(file, dataset_path);
  const AddTime timer(write_seconds_);
  new_dataset(file_id, file, path, {length}, file_type_of<T>(), sizeof(T), true, compression_);
}

template <class T>
void ResultFile::create_dataset(const std::string& dataset_path,
                                const std::vector<std::uint64_t>& dims) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  check_field_dims(file, dataset_path, dims);
  const std::string path = dataset_name(file, dataset_path);
  const std::vector<hsize_t> extent(dims.begin(), dims.end());
  const AddTime timer(write_seconds_);
  new_dataset(file_id, file, path, extent, file_type_of<T>(), sizeof(T),
              element_product(file, path, extent) >= kChunkedFromElements, compression_);
}

template <class T>
DirectDataset ResultFile::create_contiguous(const std::string& dataset_path,
                                            const std::vector<std::uint64_t>& dims) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  check_field_dims(file, dataset_path, dims);
  const std::string path = dataset_name(file, dataset_path);
  const std::vector<hsize_t> extent(dims.begin(), dims.end());
  element_product(file, path, extent);  // refuses an extent past 64 bits
  const AddTime timer(write_seconds_);
  Handle space = checked(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr),
                         H5Sclose, file, "H5Screate_simple", path);
  Handle dcpl =
      checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate", "dataset creation");
  check(H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS), file, "H5Pset_layout", path);
  // Allocated now, so the offset exists before anyone writes; never filled, so HDF5 writes
  // nothing there that could race the direct writers (or cost a pass over the disk).
  check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), file, "H5Pset_alloc_time", path);
  check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), file, "H5Pset_fill_time", path);
  check_parents_are_groups(file_id, file, path);
  Handle lcpl = link_properties(file);
  Handle dataset = checked(H5Dcreate2(file_id, path.c_str(), file_type_of<T>(), space.get(),
                                      lcpl.get(), dcpl.get(), H5P_DEFAULT),
                           H5Dclose, file, "H5Dcreate2", path);
  const haddr_t address = H5Dget_offset(dataset.get());
  if (address == HADDR_UNDEF) fail(file, "H5Dget_offset", path);
  return DirectDataset{path, static_cast<std::uint64_t>(address), dims, sizeof(T)};
}

template <class T>
void ResultFile::write_slab(const std::string& dataset_path, std::uint64_t offset, const T* data,
                            std::uint64_t count) {
  const hid_t file_id = open_for_writing("written to");
  const std::string file = path_.string();
  const std::string path = dataset_name(file, dataset_path);
  const AddTime timer(write_seconds_);
  Handle dataset =
      checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file, "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const std::vector<hsize_t> extent = extent_of(space.get(), file, path);
  if (extent.size() != 1) throw Error(file + ": " + path + ": write_slab needs a 1D dataset");
  const hsize_t length = extent[0];
  if (offset > length || count > length - offset)
    throw Error(file + ": " + path + ": elements " + std::to_string(offset) + " + " +
                std::to_string(count) + " are past its end, " + std::to_string(length));
  if (count == 0) return;
  if (data == nullptr) throw Error(file + ": " + path + ": no data");
  const Selection slab = select_block(dataset.get(), file, path, {offset}, {count});
  check(H5Dwrite(dataset.get(), native_type<T>(), slab.memory_space.get(), slab.file_space.get(),
                 H5P_DEFAULT, data),
        file, "H5Dwrite", path);
  bytes_written_ += count * sizeof(T);
}

template <class T>
void ResultFile::write_hyperslab(const std::string& dataset_path,
                                 const std::vector<std::uint64_t>& offset,
                                 const std::vector<std::uint64_t>& count, const T* data) {
  const hid_t file_id = open_for_writing("written to");
  const AddTime timer(write_seconds_);
  write_block(file_id, path_.string(), dataset_path, offset, count, data);
  std::uint64_t elements = 1;
  for (const std::uint64_t c : count) elements *= c;
  bytes_written_ += elements * sizeof(T);
}

template void ResultFile::create_dataset<float>(const std::string&, std::uint64_t);
template void ResultFile::create_dataset<double>(const std::string&, std::uint64_t);
template void ResultFile::create_dataset<float>(const std::string&,
                                                const std::vector<std::uint64_t>&);
template void ResultFile::create_dataset<double>(const std::string&,
                                                 const std::vector<std::uint64_t>&);
template DirectDataset ResultFile::create_contiguous<float>(const std::string&,
                                                           const std::vector<std::uint64_t>&);
template DirectDataset ResultFile::create_contiguous<double>(const std::string&,
                                                            const std::vector<std::uint64_t>&);
template void ResultFile::write_slab<float>(const std::string&, std::uint64_t, const float*,
                                            std::uint64_t);
template void ResultFile::write_slab<double>(const std::string&, std::uint64_t, const double*,
                                             std::uint64_t);
template void ResultFile::write_hyperslab<float>(const std::string&,
                                                 const std::vector<std::uint64_t>&,
                                                 const std::vector<std::uint64_t>&, const float*);
template void ResultFile::write_hyperslab<double>(const std::string&,
                                                  const std::vector<std::uint64_t>&,
                                                  const std::vector<std::uint64_t>&,
                                                  const double*);

void ResultFile::declare_sidecar(const fs::path& path) {
  if (committed_) throw Error(path.string() + ": a sidecar declared after commit()");
  check_output_path(path, outputs_.force());
}

void ResultFile::add_sidecar(const fs::path& path, const std::string& contents) {
  if (committed_) throw Error(path.string() + ": a sidecar added after commit()");
  outputs_.add_text(path, contents);
}

void ResultFile::suspend() {
  open_for_writing("suspended");
  close_kept(file_, path_.string());
  suspended_ = true;
}

void ResultFile::resume() {
  const std::string shown = path_.string();
  if (!suspended_) throw Error(shown + ": resume() without suspend()");
  Handle fapl = access_properties(shown);
  file_ = H5Fopen(temporary_.c_str(), H5F_ACC_RDWR, fapl.get());
  if (file_ < 0) fail(shown, "H5Fopen", temporary_.string());
  suspended_ = false;
}

void ResultFile::commit() {
  const std::string shown = path_.string();
  if (committed_ || (file_ < 0 && !suspended_))
    throw Error(shown + ": commit() after commit() or after a move");
  // Closed before the rename, so the final name only ever holds a complete file.
  if (!suspended_) close_kept(file_, shown);
  suspended_ = false;
  struct stat st {};
  if (stat(temporary_.c_str(), &st) != 0)
    throw Error(shown + ": " + temporary_.string() + ": " + std::strerror(errno));
  std::vector<fs::path> stale;
  for (const char* extension : kSidecarExtensions) {
    fs::path sidecar = path_;
    sidecar.replace_extension(extension);
    if (sidecar != path_) stale.push_back(sidecar);
  }
  outputs_.commit(stale);
  file_bytes_ = static_cast<std::uint64_t>(st.st_size);
  committed_ = true;
}

// -------------------------------------------------------------------------------------------------
// ResultFile::Part

ResultFile::Part::Part(const fs::path& temporary) : temporary_(temporary) {
  start_hdf5();
  const std::string shown = temporary_.string();
  Handle fapl = access_properties(shown);
  file_ = H5Fopen(temporary_.c_str(), H5F_ACC_RDWR, fapl.get());
  if (file_ < 0) fail(shown, "H5Fopen", "");
}

ResultFile::Part::Part(Part&& other) noexcept
    : temporary_(std::exchange(other.temporary_, {})),
      file_(std::exchange(other.file_, H5I_INVALID_HID)) {}

ResultFile::Part::~Part() {
  if (file_ >= 0) H5Fclose(std::exchange(file_, H5I_INVALID_HID));
  H5Eclear2(H5E_DEFAULT);
}

template <class T>
void ResultFile::Part::write_hyperslab(const std::string& dataset_path,
                                       const std::vector<std::uint64_t>& offset,
                                       const std::vector<std::uint64_t>& count, const T* data) {
  if (file_ < 0) throw Error(temporary_.string() + ": written to after close()");
  write_block(file_, temporary_.string(), dataset_path, offset, count, data);
}

template void ResultFile::Part::write_hyperslab<float>(const std::string&,
                                                       const std::vector<std::uint64_t>&,
                                                       const std::vector<std::uint64_t>&,
                                                       const float*);
template void ResultFile::Part::write_hyperslab<double>(const std::string&,
                                                        const std::vector<std::uint64_t>&,
                                                        const std::vector<std::uint64_t>&,
                                                        const double*);

void ResultFile::Part::set_attribute(const std::string& object_path, const std::string& name,
                                     const AttributeValue& value) {
  if (file_ < 0) throw Error(temporary_.string() + ": written to after close()");
  set_attribute_in(file_, temporary_.string(), object_path, name, value);
}

void ResultFile::Part::close() {
  if (file_ < 0) return;
  close_kept(file_, temporary_.string());
}

}  // namespace parasol::io
