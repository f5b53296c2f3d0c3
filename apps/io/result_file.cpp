#include "apps/io/result_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <system_error>
#include <type_traits>
#include <utility>

#include "kernels/error.hpp"

// H5Pset_file_locking arrived in 1.10.7 and 1.12.1. H5Treclaim replaced H5Dvlen_reclaim in
// 1.12.0; 1.10.8's header declares it too, but its library does not define it.
#if H5_VERSION_GE(1, 12, 1) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7)
#define PARASOL_HDF5_FILE_LOCKING_OPTION 1
#endif
#if H5_VERSION_GE(1, 12, 0)
#define PARASOL_HDF5_TRECLAIM 1
#endif

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Temporaries to delete on a signal. A signal handler may call only async-signal-safe functions,
// so the live paths sit in a fixed table of NUL-terminated buffers that it can walk and unlink()
// without allocating or locking. The mutex orders threads registering at once; the handler never
// takes it.

constexpr std::size_t kMaxTemporaries = 32;  // generous: a run holds a result file and a sidecar
constexpr std::size_t kMaxPathBytes = 4096;  // PATH_MAX on Linux

struct TemporarySlot {
  std::atomic<bool> live{false};
  char path[kMaxPathBytes];
};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

TemporarySlot temporary_slots[kMaxTemporaries];
std::mutex temporary_slots_mutex;

void register_temporary(const fs::path& path) {
  const std::string& text = path.native();
  if (text.size() >= kMaxPathBytes)
    throw Error(text + ": path is too long for the table of temporary files");
  const std::lock_guard<std::mutex> lock(temporary_slots_mutex);
  for (TemporarySlot& slot : temporary_slots) {
    if (slot.live.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.live.store(true, std::memory_order_release);  // the handler sees a complete path
    return;
  }
  throw Error(text + ": more than " + std::to_string(kMaxTemporaries) +
              " output files are open at once");
}

void deregister_temporary(const fs::path& path) noexcept {
  const std::lock_guard<std::mutex> lock(temporary_slots_mutex);
  for (TemporarySlot& slot : temporary_slots) {
    if (slot.live.load(std::memory_order_relaxed) && std::strcmp(slot.path, path.c_str()) == 0) {
      slot.live.store(false, std::memory_order_release);
      return;
    }
  }
}

void remove_temporaries_and_reraise(int signal_number) {
  for (TemporarySlot& slot : temporary_slots)
    if (slot.live.load(std::memory_order_acquire)) unlink(slot.path);
  // With the default action back, the re-raised signal (blocked until this handler returns)
  // ends the process the way the signal would have, so the parent sees the real cause.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

// Hidden and unique per process and attempt, beside the final file so that the rename stays
// within one file system and is atomic. A stale name left by a killed run whose pid has come
// round again (common in containers) is skipped rather than failed on.
fs::path temporary_for(const fs::path& folder, const fs::path& file_name) {
  static std::atomic<unsigned> counter{0};
  const std::string stem = "." + file_name.string() + ".tmp-" + std::to_string(getpid()) + "-";
  fs::path candidate;
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    candidate = fs::absolute(folder) / (stem + std::to_string(counter.fetch_add(1)));
    if (!fs::exists(fs::symlink_status(candidate, ec))) break;
  }
  return candidate;
}

// The folder a file goes in, with the user's mistakes reported before anything is written.
fs::path checked_folder(const fs::path& path) {
  const std::string shown = path.string();
  if (path.empty() || !path.has_filename())
    throw InputError(shown, "", "expected a file name for the output");
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(shown, "", "folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK) != 0)
    throw InputError(shown, "", "folder " + folder.string() + " is not writable");
  if (fs::is_directory(path, ec)) throw InputError(shown, "", "output path is a folder");
  return folder;
}

// ---------------------------------------------------------------------------------------------
// HDF5 calls: checked, with handles closed by RAII so nothing leaks when one throws.

void silence_hdf5() {
  // HDF5 prints its whole error stack to stderr by default; our exceptions carry the message.
  static const bool silenced = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)silenced;
}

herr_t keep_innermost(unsigned n, const H5E_error2_t* error, void* reason) {
  if (n == 0 && error->desc != nullptr) {
    try {
      *static_cast<std::string*>(reason) = error->desc;
    } catch (...) {
      return -1;
    }
  }
  return 0;
}

// The deepest entry of HDF5's error stack says what actually went wrong ("name already exists",
// "file signature not found"); the entries above it only repeat "unable to ...".
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason;
}

// "out.h5: H5Dcreate2(/fields/u): failed (name already exists)"
[[noreturn]] void fail(const std::string& file, const char* call, const std::string& object) {
  std::string message = file + ": " + call;
  if (!object.empty()) message += "(" + object + ")";
  message += ": failed";
  const std::string reason = hdf5_reason();
  if (!reason.empty()) message += " (" + reason + ")";
  throw Error(message);
}

void check(herr_t status, const std::string& file, const char* call, const std::string& object) {
  if (status < 0) fail(file, call, object);
}

class Handle {
 public:
  using Close = herr_t (*)(hid_t);
  Handle(hid_t id, Close close) noexcept : id_(id), close_(close) {}
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  Close close_;
};

Handle checked(hid_t id, Handle::Close close, const std::string& file, const char* call,
               const std::string& object) {
  if (id < 0) fail(file, call, object);
  return Handle(id, close);
}

// The file the caller passed, for messages: the writer's final path, not its temporary.
std::string file_name(hid_t file) {
  const ssize_t length = H5Fget_name(file, nullptr, 0);
  if (length <= 0) return "(HDF5 file)";
  std::string name(static_cast<std::size_t>(length) + 1, '\0');
  H5Fget_name(file, name.data(), name.size());
  name.resize(static_cast<std::size_t>(length));
  return name;
}

Handle access_properties(const std::string& file) {
  Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, file, "H5Pcreate", "file access");
#ifdef PARASOL_HDF5_FILE_LOCKING_OPTION
  // Keep HDF5's file locks where the file system has them, but do not fail where it has none
  // (Lustre and NFS mounts often don't): otherwise every write there ends "unable to lock file".
  check(H5Pset_file_locking(fapl.get(), true, true), file, "H5Pset_file_locking", "");
#endif
  return fapl;
}

// "fields//u/" and "fields/u" both name "/fields/u"; "" and "/" name the root.
std::vector<std::string> components(const std::string& object_path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= object_path.size()) {
    const std::size_t slash = std::min(object_path.find('/', start), object_path.size());
    if (slash > start) parts.push_back(object_path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string normalized(const std::string& object_path) {
  std::string path;
  for (const std::string& part : components(object_path)) path += "/" + part;
  return path.empty() ? "/" : path;
}

// H5Lexists fails, rather than answering false, when an intermediate group is missing, so each
// prefix is asked in turn; a prefix that is a dataset makes the rest absent too.
bool object_exists(hid_t file, const std::string& path) {
  std::string prefix;
  for (const std::string& part : components(path)) {
    prefix += "/" + part;
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  const htri_t exists = H5Oexists_by_name(file, path.c_str(), H5P_DEFAULT);  // dangling links
  H5Eclear2(H5E_DEFAULT);
  return exists > 0;
}

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

// ---------------------------------------------------------------------------------------------
// Datasets.

// Below 64 Ki elements (256 KiB of floats) deflate saves little and a contiguous layout is the
// simplest for every reader; above it, fields compress well enough to be worth chunking.
constexpr std::uint64_t kChunkedFromElements = std::uint64_t{1} << 16;

// HDF5's default chunk cache is 1 MiB per dataset: a bigger chunk is decompressed afresh for
// every partial read.
constexpr hsize_t kChunkBytes = hsize_t{1} << 20;

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

struct DatasetWrite {
  hid_t file_type;
  hid_t memory_type;
  std::size_t element_bytes;
  const void* data;
};

// A new dataset of `dims`, with the groups on its path. Chunked ones are laid out by chunk_dims
// and deflated at `compression` (0: stored as they are).
Handle new_dataset(hid_t file_id, const std::string& file, const std::string& path,
                   const std::vector<hsize_t>& dims, hid_t file_type, std::size_t element_bytes,
                   bool chunked, int compression) {
  Handle space = checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                         H5Sclose, file, "H5Screate_simple", path);
  Handle dcpl =
      checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate", "dataset creation");
  if (chunked) {
    const std::vector<hsize_t> chunk = chunk_dims(dims, element_bytes);
    check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), file,
          "H5Pset_chunk", path);
    // Shuffling bytes by significance first lets deflate find the slowly varying exponents;
    // level 4 gets nearly all of level 9's ratio at a fraction of its time.
    if (compression > 0) {
      check(H5Pset_shuffle(dcpl.get()), file, "H5Pset_shuffle", path);
      if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
        check(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(compression)), file,
              "H5Pset_deflate", path);
    }
  }
  check_parents_are_groups(file_id, file, path);
  Handle lcpl = link_properties(file);
  return checked(H5Dcreate2(file_id, path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(),
                            H5P_DEFAULT),
                 H5Dclose, file, "H5Dcreate2", path);
}

void write_dataset(hid_t file_id, const std::string& file, const std::string& dataset_path,
                   const std::vector<hsize_t>& dims, const DatasetWrite& what, int compression) {
  const std::string path = normalized(dataset_path);
  if (path == "/") throw Error(file + ": a dataset needs a name, not \"" + dataset_path + "\"");
  std::uint64_t count = 1;
  for (const hsize_t d : dims) {
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d)
      throw Error(file + ": " + path + ": dimensions overflow a 64-bit element count");
    count *= d;
  }
  if (count != 0 && what.data == nullptr) throw Error(file + ": " + path + ": no data");

  Handle dataset = new_dataset(file_id, file, path, dims, what.file_type, what.element_bytes,
                               count >= kChunkedFromElements, compression);
  // H5Dwrite refuses a null buffer even for no elements, and there is nothing to write.
  if (count != 0)
    check(H5Dwrite(dataset.get(), what.memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, what.data),
          file, "H5Dwrite", path);
}

// How numbers of type T are stored (little-endian, whatever this machine is) and held in memory.
template <class T>
DatasetWrite number_types(const T* data) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::int64_t>);
  if constexpr (std::is_same_v<T, float>) {
    return {H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, sizeof(T), data};
  } else if constexpr (std::is_same_v<T, double>) {
    return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sizeof(T), data};
  } else {
    return {H5T_STD_I64LE, H5T_NATIVE_INT64, sizeof(T), data};
  }
}

template <class T>
void write_numbers(hid_t file_id, const std::string& file, const std::string& dataset_path,
                   const T* data, const std::vector<std::uint64_t>& dims, int compression) {
  write_dataset(file_id, file, dataset_path, std::vector<hsize_t>(dims.begin(), dims.end()),
                number_types(data), compression);
}

// Elements [offset, offset + count) of a 1D dataset, as a file space and a memory space that
// H5Dread and H5Dwrite take.
struct Slab {
  Handle file_space;
  Handle memory_space;
};

Slab select_slab(hid_t dataset, const std::string& file, const std::string& path,
                 std::uint64_t offset, std::uint64_t count) {
  Handle file_space = checked(H5Dget_space(dataset), H5Sclose, file, "H5Dget_space", path);
  const hsize_t start[1] = {offset}, extent[1] = {count};
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr),
        file, "H5Sselect_hyperslab", path);
  Handle memory_space =
      checked(H5Screate_simple(1, extent, nullptr), H5Sclose, file, "H5Screate_simple", path);
  return {std::move(file_space), std::move(memory_space)};
}

void check_field_dims(const std::string& file, const std::string& dataset_path,
                      const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) throw Error(file + ": " + dataset_path + ": a field needs a dimension");
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 0)
      throw Error(file + ": " + dataset_path + ": dimension " + std::to_string(i) +
                  " is 0; a field must not be empty");
}

hid_t open_for_writing(hid_t file_id, const fs::path& path) {
  if (file_id < 0) throw Error(path.string() + ": written to after commit() or after a move");
  return file_id;
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

// ---------------------------------------------------------------------------------------------
// Reading.

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

std::size_t element_count(hid_t space, const std::string& file, const std::string& where) {
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0) fail(file, "H5Sget_simple_extent_npoints", where);
  return static_cast<std::size_t>(count);
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

template <class T>
std::vector<T> read_numbers(hid_t file_id, const std::string& dataset_path, hid_t memory_type) {
  const std::string file = file_name(file_id);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  std::vector<T> values(element_count(space.get(), file, path));
  // HDF5 converts from the stored type (float to double, narrower integers to int64).
  if (!values.empty())
    check(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), file,
          "H5Dread", path);
  return values;
}

// A dataset a user named (an input file), opened with the checks read_dataset promises:
// InputError naming the file and dataset when it is missing, is a group, does not hold numbers
// (integers, when `integers`), or its rank is not one of `ranks` (any when empty).
struct UserDataset {
  Handle dataset;
  Handle space;
  std::vector<hsize_t> extent;
};

UserDataset open_user_dataset(hid_t file_id, const std::string& file, const std::string& path,
                              bool integers, const std::vector<int>& ranks) {
  if (path == "/" || !object_exists(file_id, path))
    throw InputError(file, path, "no such dataset");
  Handle dataset = checked(H5Oopen(file_id, path.c_str(), H5P_DEFAULT), H5Oclose, file,
                           "H5Oopen", path);
  if (H5Iget_type(dataset.get()) != H5I_DATASET)
    throw InputError(file, path, "expected a dataset, found a group");
  Handle type = checked(H5Dget_type(dataset.get()), H5Tclose, file, "H5Dget_type", path);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && (integers || type_class != H5T_FLOAT))
    throw InputError(file, path,
                     integers ? "expected a dataset of integers" : "expected a dataset of numbers");

  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(file, "H5Sget_simple_extent_ndims", path);
  std::vector<hsize_t> extent(static_cast<std::size_t>(rank));
  if (rank > 0)
    check(H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr), file,
          "H5Sget_simple_extent_dims", path);
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

template <class T>
hid_t native_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::int64_t>);
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  return H5T_NATIVE_INT64;
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// ResultFile

ResultFile::ResultFile(fs::path path, bool force, int compression)
    : path_(std::move(path)), compression_(compression) {
  silence_hdf5();
  const std::string shown = path_.string();
  if (compression < 0 || compression > 9)
    throw Error(shown + ": compression level " + std::to_string(compression) +
                " is not one of 0 (none) to 9");
  const fs::path folder = checked_folder(path_);
  std::error_code ec;
  if (!force && fs::exists(fs::symlink_status(path_, ec)))
    throw InputError(shown, "", "output file exists; pass --force to overwrite");

  // Registered before it exists, so there is no moment when a signal would leave it behind.
  temporary_ = temporary_for(folder, path_.filename());
  register_temporary(temporary_);
  try {
    Handle fapl = access_properties(shown);
    file_ = H5Fcreate(temporary_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get());
    if (file_ < 0) fail(shown, "H5Fcreate", temporary_.string());
  } catch (...) {
    deregister_temporary(temporary_);
    throw;
  }
}

ResultFile::ResultFile(ResultFile&& other) noexcept
    : path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)),
      file_(std::exchange(other.file_, H5I_INVALID_HID)),
      compression_(other.compression_),
      committed_(std::exchange(other.committed_, true)) {}  // the moved-from owns nothing

ResultFile::~ResultFile() {
  if (committed_) return;
  if (file_ >= 0) H5Fclose(file_);
  std::error_code ec;
  fs::remove(temporary_, ec);
  // Deregistered only once it is gone: a signal in between finds nothing left to delete.
  deregister_temporary(temporary_);
}

void ResultFile::set_attribute(const std::string& object_path, const std::string& name,
                               const AttributeValue& value) {
  const hid_t file_id = open_for_writing(file_, path_);
  const std::string file = path_.string();
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

void ResultFile::write_field(const std::string& dataset_path, const float* data,
                             const std::vector<std::uint64_t>& dims) {
  const hid_t file_id = open_for_writing(file_, path_);
  check_field_dims(path_.string(), dataset_path, dims);
  write_numbers(file_id, path_.string(), dataset_path, data, dims, compression_);
}

void ResultFile::write_field(const std::string& dataset_path, const double* data,
                             const std::vector<std::uint64_t>& dims) {
  const hid_t file_id = open_for_writing(file_, path_);
  check_field_dims(path_.string(), dataset_path, dims);
  write_numbers(file_id, path_.string(), dataset_path, data, dims, compression_);
}

void ResultFile::write_column(const std::string& dataset_path, const std::vector<double>& values) {
  const hid_t file_id = open_for_writing(file_, path_);
  write_numbers(file_id, path_.string(), dataset_path, values.data(), {values.size()},
                compression_);
}

void ResultFile::write_column(const std::string& dataset_path,
                              const std::vector<std::int64_t>& values) {
  const hid_t file_id = open_for_writing(file_, path_);
  write_numbers(file_id, path_.string(), dataset_path, values.data(), {values.size()},
                compression_);
}

void ResultFile::write_column(const std::string& dataset_path,
                              const std::vector<std::string>& values) {
  const hid_t file_id = open_for_writing(file_, path_);
  const std::string file = path_.string();
  Handle type = string_type(file);
  std::vector<const char*> texts;
  for (const std::string& value : values) texts.push_back(value.c_str());
  write_dataset(file_id, file, dataset_path, {values.size()},
                {type.get(), type.get(), sizeof(const char*), texts.empty() ? nullptr : texts.data()},
                compression_);
}

template <class T>
void ResultFile::create_dataset(const std::string& dataset_path, std::uint64_t length) {
  const hid_t file_id = open_for_writing(file_, path_);
  const std::string file = path_.string();
  check_field_dims(file, dataset_path, {length});
  const std::string path = normalized(dataset_path);
  if (path == "/") throw Error(file + ": a dataset needs a name, not \"" + dataset_path + "\"");
  new_dataset(file_id, file, path, {length}, number_types<T>(nullptr).file_type, sizeof(T), true,
              compression_);
}

template <class T>
void ResultFile::write_slab(const std::string& dataset_path, std::uint64_t offset, const T* data,
                            std::uint64_t count) {
  const hid_t file_id = open_for_writing(file_, path_);
  const std::string file = path_.string();
  const std::string path = normalized(dataset_path);
  Handle dataset =
      checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file, "H5Dopen2", path);
  Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, file, "H5Dget_space", path);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t length = 0;
  if (rank != 1 || H5Sget_simple_extent_dims(space.get(), &length, nullptr) < 0)
    throw Error(file + ": " + path + ": write_slab needs a 1D dataset");
  if (offset > length || count > length - offset)
    throw Error(file + ": " + path + ": elements " + std::to_string(offset) + " + " +
                std::to_string(count) + " are past its end, " + std::to_string(length));
  if (count == 0) return;
  if (data == nullptr) throw Error(file + ": " + path + ": no data");
  const Slab slab = select_slab(dataset.get(), file, path, offset, count);
  check(H5Dwrite(dataset.get(), native_type<T>(), slab.memory_space.get(), slab.file_space.get(),
                 H5P_DEFAULT, data),
        file, "H5Dwrite", path);
}

template void ResultFile::create_dataset<float>(const std::string&, std::uint64_t);
template void ResultFile::create_dataset<double>(const std::string&, std::uint64_t);
template void ResultFile::write_slab<float>(const std::string&, std::uint64_t, const float*,
                                            std::uint64_t);
template void ResultFile::write_slab<double>(const std::string&, std::uint64_t, const double*,
                                             std::uint64_t);

void ResultFile::commit() {
  const std::string shown = path_.string();
  if (file_ < 0) throw Error(shown + ": commit() after commit() or after a move");
  // Closed before the rename, so the final name only ever holds a complete file.
  check(H5Fclose(std::exchange(file_, H5I_INVALID_HID)), shown, "H5Fclose", "");
  std::error_code ec;
  fs::rename(temporary_, path_, ec);
  if (ec)
    throw Error(shown + ": renaming " + temporary_.string() + " into place failed: " +
                ec.message());
  committed_ = true;
  deregister_temporary(temporary_);
}

// -------------------------------------------------------------------------------------------------
// Text files and signals

void write_file_atomically(const fs::path& path, const std::string& contents) {
  const std::string shown = path.string();
  const fs::path temporary = temporary_for(checked_folder(path), path.filename());
  register_temporary(temporary);
  const auto give_up = [&](const std::string& what, int error) {
    unlink(temporary.c_str());
    deregister_temporary(temporary);
    throw Error(shown + ": " + what + ": " + std::strerror(error));
  };
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    deregister_temporary(temporary);
    throw Error(shown + ": creating " + temporary.string() + ": " + std::strerror(error));
  }
  const char* next = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = write(fd, next, left);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      const int error = errno;
      close(fd);
      give_up("writing " + temporary.string(), error);
    }
    next += written;
    left -= static_cast<std::size_t>(written);
  }
  if (close(fd) != 0) give_up("closing " + temporary.string(), errno);
  if (rename(temporary.c_str(), path.c_str()) != 0)
    give_up("renaming " + temporary.string() + " into place", errno);
  deregister_temporary(temporary);
}

void remove_temporaries_on_signal() {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    if (sigaction(signal_number, nullptr, &previous) != 0)
      throw Error(std::string("sigaction: ") + std::strerror(errno));
    // A signal the process was started ignoring (nohup's SIGHUP, a background job's SIGINT)
    // stays ignored: the caller chose to outlive it.
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&action.sa_mask);
    // A second signal during the cleanup waits, so the cleanup is not run twice at once.
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    if (sigaction(signal_number, &action, nullptr) != 0)
      throw Error(std::string("sigaction: ") + std::strerror(errno));
  }
}

// -------------------------------------------------------------------------------------------------
// ResultReader

ResultReader::ResultReader(const fs::path& path) {
  silence_hdf5();
  const std::string shown = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(shown, "", "no such file");
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
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(file, "H5Sget_simple_extent_ndims", path);
  std::vector<hsize_t> extent(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr), file,
        "H5Sget_simple_extent_dims", path);
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

namespace {

// The creation properties of a dataset: its layout and filters.
Handle creation_properties(hid_t file_id, const std::string& dataset_path) {
  const std::string file = file_name(file_id);
  const std::string path = normalized(dataset_path);
  Handle dataset = checked(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose, file,
                           "H5Dopen2", path);
  return checked(H5Dget_create_plist(dataset.get()), H5Pclose, file, "H5Dget_create_plist", path);
}

}  // namespace

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
  const std::string path = normalized(dataset_path);
  const UserDataset d =
      open_user_dataset(file_, file, path, std::is_same_v<T, std::int64_t>, ranks);
  Dataset<T> result;
  result.dims.assign(d.extent.begin(), d.extent.end());
  result.values.resize(element_count(d.space.get(), file, path));
  // HDF5 converts from the stored type (integers to floating point, narrower to wider).
  if (!result.values.empty())
    check(H5Dread(d.dataset.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  result.values.data()),
          file, "H5Dread", path);
  return result;
}

template <class T>
std::vector<std::uint64_t> ResultReader::dataset_dims(const std::string& dataset_path,
                                                      const std::vector<int>& ranks) const {
  const UserDataset d = open_user_dataset(file_, file_name(file_), normalized(dataset_path),
                                          std::is_same_v<T, std::int64_t>, ranks);
  return std::vector<std::uint64_t>(d.extent.begin(), d.extent.end());
}

template <class T>
std::vector<T> ResultReader::read_slab(const std::string& dataset_path, std::uint64_t offset,
                                       std::uint64_t count) const {
  const std::string file = file_name(file_);
  const std::string path = normalized(dataset_path);
  const UserDataset d = open_user_dataset(file_, file, path, std::is_same_v<T, std::int64_t>, {1});
  const std::uint64_t length = d.extent[0];
  if (offset > length || count > length - offset)
    throw InputError(file, path,
                     "holds " + std::to_string(length) + " elements; expected at least " +
                         std::to_string(offset) + " + " + std::to_string(count));
  std::vector<T> values(static_cast<std::size_t>(count));
  if (count == 0) return values;
  const Slab slab = select_slab(d.dataset.get(), file, path, offset, count);
  check(H5Dread(d.dataset.get(), native_type<T>(), slab.memory_space.get(), slab.file_space.get(),
                H5P_DEFAULT, values.data()),
        file, "H5Dread", path);
  return values;
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
template std::vector<float> ResultReader::read_slab<float>(const std::string&, std::uint64_t,
                                                           std::uint64_t) const;
template std::vector<double> ResultReader::read_slab<double>(const std::string&, std::uint64_t,
                                                             std::uint64_t) const;
template std::vector<std::int64_t> ResultReader::read_slab<std::int64_t>(const std::string&,
                                                                         std::uint64_t,
                                                                         std::uint64_t) const;

}  // namespace parasol::io
