// Several processes writing one result file at once, without parallel HDF5: the process that
// holds the file makes each field a contiguous, unfiltered dataset whose storage is allocated
// when it is made (ResultFile::create_contiguous), and every writer then puts its own block of it
// straight into the file with pwrite() at the dataset's byte offset. HDF5 never reads or writes
// that storage itself (no fill values), so the writers and the library never meet; the file is
// complete once every writer has finished and the holder has closed it. No MPI in here: the
// caller passes the table of datasets between processes (to_text, parse_direct_datasets) and
// says when every writer has finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace parasol::io {

// Where a contiguous dataset's elements lie in the file: `offset` is the byte of element 0,
// `dims` its extent (C order), `element_bytes` the size of one little-endian element.
struct DirectDataset {
  std::string path;  // "/fields/u"
  std::uint64_t offset = 0;
  std::vector<std::uint64_t> dims;
  std::size_t element_bytes = 0;
};

// A table of them as one line each (offset, element bytes, number of dimensions, each dimension,
// then the path: "4096 4 3 512 512 512 /fields/u"), and read back: what the holder of the file
// sends the other writers. A malformed text is an Error.
std::string to_text(const std::vector<DirectDataset>& datasets);
std::vector<DirectDataset> parse_direct_datasets(const std::string& text);

// One writer's handle on the file: an ordinary file descriptor on the temporary that a
// ResultFile made (its temporary_path()). Never creates, truncates or removes the file.
class DirectWriter {
 public:
  explicit DirectWriter(std::filesystem::path file);
  DirectWriter(DirectWriter&&) noexcept;
  DirectWriter& operator=(DirectWriter&&) = delete;
  DirectWriter(const DirectWriter&) = delete;
  DirectWriter& operator=(const DirectWriter&) = delete;
  ~DirectWriter();  // closes, if finish() was not called; a failure then goes unreported

  // The block [offset, offset + count) of `dataset` from `data` in C order (its elements of
  // dataset.element_bytes each, already in the file's byte order), in as few pwrite() calls as
  // the layout allows: one when the block is whole rows of the first dimension. Error naming the
  // file and the system's words when a write fails (a full disk, a file size limit).
  void write_block(const DirectDataset& dataset, const std::vector<std::uint64_t>& offset,
                   const std::vector<std::uint64_t>& count, const void* data);

  // Flushes what this writer wrote to the disk (fsync) and closes: after it returns on every
  // writer, the holder may reopen the file and commit it. Errors as write_block's.
  void finish();

  std::uint64_t bytes_written() const { return bytes_written_; }
  double write_seconds() const { return write_seconds_; }  // in pwrite() and fsync(), summed

 private:
  void write_bytes(std::uint64_t at, const char* bytes, std::uint64_t size);

  std::filesystem::path file_;
  int fd_ = -1;
  std::uint64_t bytes_written_ = 0;
  double write_seconds_ = 0;
};

}  // namespace parasol::io
