#include "io/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/error.hpp"

namespace parasol::io {

namespace {

[[noreturn]] void fail(const std::filesystem::path& where, const char* call) {
  throw Error(where.string() + ": " + call + " of a temporary file: " + std::strerror(errno));
}

}  // namespace

SpillFile::SpillFile(const std::filesystem::path& folder)
    : where_(folder.empty() ? std::filesystem::path(".") : folder) {
#ifdef O_TMPFILE
  fd_ = ::open(where_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {
    stream_ = std::tmpfile();  // unlinked at once by the C library
    if (stream_ == nullptr) fail(where_, "open");
    fd_ = ::fileno(stream_);
    where_ = "the temporary folder";
  }
}

SpillFile::~SpillFile() {
  if (stream_ != nullptr) std::fclose(stream_);
  else if (fd_ >= 0) ::close(fd_);
}

void SpillFile::append(const void* data, std::size_t bytes) {
  const char* from = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t done = ::pwrite(fd_, from, bytes, static_cast<off_t>(size_));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) fail(where_, "write");
    from += done;
    bytes -= static_cast<std::size_t>(done);
    size_ += static_cast<std::uint64_t>(done);
  }
}

void SpillFile::read(std::uint64_t offset, void* data, std::size_t bytes) const {
  char* to = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t done = ::pread(fd_, to, bytes, static_cast<off_t>(offset));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) fail(where_, "read");
    to += done;
    bytes -= static_cast<std::size_t>(done);
    offset += static_cast<std::uint64_t>(done);
  }
}

}  // namespace parasol::io
