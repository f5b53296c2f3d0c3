#include "io/hdf5_calls.hpp"

#include <algorithm>

#include "io/compression.hpp"
#include "io/one_line.hpp"
#include "kernels/error.hpp"

// H5Pset_file_locking arrived in 1.10.7 and 1.12.1.
#if H5_VERSION_GE(1, 12, 1) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7)
#define PARASOL_HDF5_FILE_LOCKING_OPTION 1
#endif

namespace parasol::io {
namespace {

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

}  // namespace

void start_hdf5() {
  static const bool started = [] {
    // A file whose H5Fclose fails (its last flush hit a full disk) stays half-closed in HDF5
    // 1.10's table of open files, and the next touch of it dereferences freed memory. HDF5's own
    // cleanup at exit is such a touch: it turned every full disk into a segfault. Our files are
    // closed by their owners, so the exit cleanup has nothing to do but that. Refused (harmlessly)
    // when the library is already running.
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    use_installed_filter_plugins();
    return true;
  }();
  (void)started;
}

std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &reason);
  H5Eclear2(H5E_DEFAULT);
  // A failed write or truncate quotes the system's words inside a long list of offsets and sizes:
  // the words are what a person can act on ("No space left on device").
  const std::string marker = "error message = '";
  if (const std::size_t at = reason.find(marker); at != std::string::npos) {
    const std::size_t start = at + marker.size();
    const std::size_t end = reason.find('\'', start);
    reason = reason.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return one_line(reason);
}

void fail(const std::string& file, const char* call, const std::string& object) {
  std::string message = file + ": " + call;
  if (!object.empty()) message += "(" + object + ")";
  message += ": failed";
  const std::string reason = hdf5_reason();
  if (!reason.empty()) message += " (" + reason + ")";
  throw Error(one_line(message));
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

std::string file_name(hid_t file) {
  const ssize_t length = H5Fget_name(file, nullptr, 0);
  if (length <= 0) return "(HDF5 file)";
  std::string name(static_cast<std::size_t>(length) + 1, '\0');
  H5Fget_name(file, name.data(), name.size());
  name.resize(static_cast<std::size_t>(length));
  return name;
}

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

std::size_t element_count(hid_t space, const std::string& file, const std::string& where) {
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0) fail(file, "H5Sget_simple_extent_npoints", where);
  return static_cast<std::size_t>(count);
}

std::vector<hsize_t> extent_of(hid_t space, const std::string& file, const std::string& where) {
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) fail(file, "H5Sget_simple_extent_ndims", where);
  std::vector<hsize_t> extent(static_cast<std::size_t>(rank));
  if (rank > 0)
    check(H5Sget_simple_extent_dims(space, extent.data(), nullptr), file,
          "H5Sget_simple_extent_dims", where);
  return extent;
}

Selection select_block(hid_t dataset, const std::string& file, const std::string& path,
                       const std::vector<hsize_t>& offset, const std::vector<hsize_t>& count) {
  Handle file_space = checked(H5Dget_space(dataset), H5Sclose, file, "H5Dget_space", path);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset.data(), nullptr, count.data(),
                            nullptr),
        file, "H5Sselect_hyperslab", path);
  Handle memory_space = checked(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                                H5Sclose, file, "H5Screate_simple", path);
  return {std::move(file_space), std::move(memory_space)};
}

}  // namespace parasol::io
