// Values a process computes before its turn to write them into a result (a rank's share of a
// streamed convolution): an unnamed temporary file, gone when it is closed or when the process
// ends, however it ends, so a run that fails leaves nothing behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace parasol::io {

class SpillFile {
 public:
  // In `folder` (where the result goes, so the spill shares its disk) as an O_TMPFILE file, or
  // where the file system has none, a std::tmpfile. Error naming the folder when neither opens.
  explicit SpillFile(const std::filesystem::path& folder);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  void append(const void* data, std::size_t bytes);
  // Bytes [offset, offset + bytes) of what was appended.
  void read(std::uint64_t offset, void* data, std::size_t bytes) const;
  std::uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  std::FILE* stream_ = nullptr;  // the std::tmpfile, when that is what holds fd_
  std::uint64_t size_ = 0;
  std::filesystem::path where_;
};

}  // namespace parasol::io
