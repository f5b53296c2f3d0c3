// One HDF5 result file, written under a temporary name beside its final path and renamed into
// place, with its sidecars, only by commit(): a run that fails, throws or is interrupted leaves
// no truncated file. Reading back: result_reader.hpp (included here for existing users).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/commit.hpp"
#include "io/compression.hpp"
#include "io/direct_write.hpp"
#include "io/result_reader.hpp"
#include "io/value.hpp"

namespace parasol::io {

// The default as the old integer --compression (a deflate level): 0, stored as they are.
inline constexpr int kDefaultCompression = 0;

// The sidecars a result may have beside it: xdmf_path_for's .xmf and coulomb's OpenDX map. With
// force, those a run does not write are removed when it commits, so no old .xmf points at a
// dataset the new result lacks.
inline constexpr const char* kSidecarExtensions[] = {".xmf", ".dx"};

class ResultFile {
 public:
  // After each slab of a large field: bytes written so far, the field's bytes, and the seconds
  // since its write began. Called on the writing thread; a front end draws a line from it.
  using Progress = std::function<void(std::uint64_t done, std::uint64_t total, double seconds)>;

  // Refuses (InputError, exit 2) an output that check_output_path refuses (exists without
  // `force`; a folder, device or FIFO; a missing folder), and a compression whose filter plugin
  // HDF5 cannot load; creates the temporary file at once, so an unwritable folder fails before
  // any computing is done.
  ResultFile(std::filesystem::path path, bool force, const Compression& compression = {});
  // `deflate_level`: 0 (none) to 9, as --compression took before it took names.
  ResultFile(std::filesystem::path path, bool force, int deflate_level);
  ResultFile(ResultFile&&) noexcept;
  ResultFile& operator=(ResultFile&&) = delete;
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;
  ~ResultFile();  // not committed: the temporary and every sidecar's temporary are deleted

  // Groups along `object_path` ("/parameters", "/fields/u") are created as needed; "/" is the root.
  void set_attribute(const std::string& object_path, const std::string& name,
                     const AttributeValue& value);

  // An N-dimensional field in C order (last dimension fastest). Large ones (64 Ki elements and
  // more) are chunked, filtered as the file's compression says, and written in slabs that report
  // to on_progress; small ones are contiguous. A filtered dataset has a `compression` attribute
  // (name()), and a lossy one its bound too (`zfp_accuracy`).
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
  // filtered as a large field is, whatever its length; elements never written read back as 0.
  template <class T>
  void create_dataset(const std::string& dataset_path, std::uint64_t length);
  // An N-dimensional one, laid out and filtered as write_field would, written by write_hyperslab.
  template <class T>
  void create_dataset(const std::string& dataset_path, const std::vector<std::uint64_t>& dims);
  // Elements [offset, offset + count) of a dataset made by create_dataset, converted to its type.
  // Parts that cover whole chunks (runs of 1 MiB from the start) are compressed once; a part
  // that ends inside a chunk has it read back and compressed again by the next.
  template <class T>
  void write_slab(const std::string& dataset_path, std::uint64_t offset, const T* data,
                  std::uint64_t count);
  // The block [offset, offset + count) of an N-dimensional dataset, from `data` in C order.
  template <class T>
  void write_hyperslab(const std::string& dataset_path, const std::vector<std::uint64_t>& offset,
                       const std::vector<std::uint64_t>& count, const T* data);

  // An N-dimensional dataset for writers outside HDF5 (io/direct_write.hpp): contiguous and
  // unfiltered whatever the file's compression, its storage allocated now and never filled by
  // HDF5, so that a DirectWriter may put its elements at the offset returned. Elements never
  // written read back as whatever the file held there: every element must be written.
  template <class T>
  DirectDataset create_contiguous(const std::string& dataset_path,
                                  const std::vector<std::uint64_t>& dims);

  // Sidecars (XDMF, OpenDX) commit with the result, as one: declare_sidecar checks a path up
  // front like the result's (exists without force: InputError), add_sidecar writes its contents
  // to a temporary now (checking it too if undeclared); commit() renames them all, or none.
  void declare_sidecar(const std::filesystem::path& path);
  void add_sidecar(const std::filesystem::path& path, const std::string& contents);

  // Several writers of one file, without parallel HDF5: suspend() closes this process's handle
  // and keeps the temporary; each other writer opens it with a Part, writes its blocks and
  // closes; resume() opens it again. The caller passes the turn (no MPI in here).
  void suspend();
  void resume();
  class Part;

  // Closes the file and renames it and its sidecars to their final paths. With force, stale
  // sidecars of an earlier result (kSidecarExtensions) that this run does not write are removed.
  // After commit() nothing more may be written.
  void commit();

  void on_progress(Progress progress) { progress_ = std::move(progress); }
  double write_seconds() const { return write_seconds_; }        // in dataset writes, summed
  std::uint64_t bytes_written() const { return bytes_written_; }  // of data, before compression
  std::uint64_t file_bytes() const { return file_bytes_; }        // the file's size; 0 before commit

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temporary_path() const { return temporary_; }
  const Compression& compression() const { return compression_; }

 private:
  hid_t open_for_writing(const char* what) const;
  void write_numbers(const std::string& dataset_path, hid_t file_type, hid_t memory_type,
                     std::size_t element_bytes, const void* data,
                     const std::vector<std::uint64_t>& dims);

  std::filesystem::path path_, temporary_;
  Compression compression_;
  OutputSet outputs_;
  hid_t file_ = H5I_INVALID_HID;
  bool committed_ = false;
  bool suspended_ = false;
  Progress progress_;
  double write_seconds_ = 0;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t file_bytes_ = 0;
};

// Another writer's handle on a suspended ResultFile's temporary (its temporary_path(), passed to
// the writer): blocks and attributes only. Never commits or deletes the file.
class ResultFile::Part {
 public:
  explicit Part(const std::filesystem::path& temporary);
  Part(Part&&) noexcept;
  Part& operator=(Part&&) = delete;
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ~Part();  // closes, if close() was not called; a failure then goes unreported

  template <class T>
  void write_hyperslab(const std::string& dataset_path, const std::vector<std::uint64_t>& offset,
                       const std::vector<std::uint64_t>& count, const T* data);
  void set_attribute(const std::string& object_path, const std::string& name,
                     const AttributeValue& value);
  // Closes the file, reporting a failure; call it before passing the turn on.
  void close();

 private:
  std::filesystem::path temporary_;
  hid_t file_ = H5I_INVALID_HID;
};

}  // namespace parasol::io
