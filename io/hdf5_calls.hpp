// Checked HDF5 calls for the writer and the reader: handles closed by RAII, failures turned into
// one-line parasol::Error messages naming the file, the call and the object. Internal to io/.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace parasol::io {

// Before any other HDF5 call of ours: HDF5's own printing of its error stack is turned off (our
// exceptions carry its innermost reason), and it is told not to close files at process exit (see
// hdf5_calls.cpp for why).
void start_hdf5();

// The innermost reason on HDF5's error stack, one line ("name already exists", or the system's
// words when a write failed: "File too large"); the stack is cleared.
std::string hdf5_reason();

// "out.h5: H5Dcreate2(/fields/u): failed (name already exists)"
[[noreturn]] void fail(const std::string& file, const char* call, const std::string& object);

inline void check(herr_t status, const std::string& file, const char* call,
                  const std::string& object) {
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

inline Handle checked(hid_t id, Handle::Close close, const std::string& file, const char* call,
                      const std::string& object) {
  if (id < 0) fail(file, call, object);
  return Handle(id, close);
}

// File access properties for every file we open or create.
Handle access_properties(const std::string& file);

// The name HDF5 has for an open file (for messages).
std::string file_name(hid_t file);

// "fields//u/" and "fields/u" both name "/fields/u"; "" and "/" name the root.
std::vector<std::string> components(const std::string& object_path);
std::string normalized(const std::string& object_path);

// Whether `path` (normalized) names an object; false, not an error, when a group on the way is
// missing or is a dataset.
bool object_exists(hid_t file, const std::string& path);

std::size_t element_count(hid_t space, const std::string& file, const std::string& where);

// The extent of a dataspace.
std::vector<hsize_t> extent_of(hid_t space, const std::string& file, const std::string& where);

// A block of a dataset, [offset, offset + count) in each dimension, as the file space and the
// memory space that H5Dread and H5Dwrite take.
struct Selection {
  Handle file_space;
  Handle memory_space;
};
Selection select_block(hid_t dataset, const std::string& file, const std::string& path,
                       const std::vector<hsize_t>& offset, const std::vector<hsize_t>& count);

template <class T>
hid_t native_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::int64_t>);
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  return H5T_NATIVE_INT64;
}

}  // namespace parasol::io
