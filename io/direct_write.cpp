#include "io/direct_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

#include "kernels/error.hpp"

namespace parasol::io {
namespace {

// The elements are written as they lie in memory: the file's types are little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "direct writes copy memory to a little-endian file as it is");

// Linux moves at most 0x7ffff000 bytes in one pwrite(); 1 GiB calls stay clear of that and cost
// nothing next to the copy itself.
constexpr std::uint64_t kMostBytesPerCall = std::uint64_t{1} << 30;

std::uint64_t checked_product(const std::vector<std::uint64_t>& values, std::size_t from,
                              std::uint64_t start, const std::string& what) {
  std::uint64_t product = start;
  for (std::size_t i = from; i < values.size(); ++i) {
    if (values[i] != 0 && product > std::numeric_limits<std::uint64_t>::max() / values[i])
      throw Error(what + ": dimensions overflow a 64-bit byte count");
    product *= values[i];
  }
  return product;
}

}  // namespace

std::string to_text(const std::vector<DirectDataset>& datasets) {
  std::ostringstream text;
  for (const DirectDataset& d : datasets) {
    if (d.path.find('\n') != std::string::npos)
      throw Error("a direct-write dataset's name holds a line break: " + d.path);
    text << d.offset << ' ' << d.element_bytes << ' ' << d.dims.size();
    for (const std::uint64_t n : d.dims) text << ' ' << n;
    text << ' ' << d.path << '\n';
  }
  return text.str();
}

std::vector<DirectDataset> parse_direct_datasets(const std::string& text) {
  std::vector<DirectDataset> datasets;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    DirectDataset d;
    std::size_t rank = 0;
    fields >> d.offset >> d.element_bytes >> rank;
    // Every dimension is on the line, so a rank past its length is a malformed line.
    if (fields && rank <= line.size()) {
      d.dims.resize(rank);
      for (std::uint64_t& n : d.dims) fields >> n;
    }
    const bool numbers_read = static_cast<bool>(fields);
    fields.get();  // the space before the path, which may hold spaces itself
    std::getline(fields, d.path);
    if (!numbers_read || d.path.empty() || d.element_bytes == 0 || rank == 0)
      throw Error("a malformed direct-write table line: " + line);
    datasets.push_back(std::move(d));
  }
  return datasets;
}

DirectWriter::DirectWriter(std::filesystem::path file) : file_(std::move(file)) {
  fd_ = ::open(file_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(file_.string() + ": open for direct writes: " + std::strerror(errno));
}

DirectWriter::DirectWriter(DirectWriter&& other) noexcept
    : file_(std::move(other.file_)),
      fd_(std::exchange(other.fd_, -1)),
      bytes_written_(other.bytes_written_),
      write_seconds_(other.write_seconds_) {}

DirectWriter::~DirectWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void DirectWriter::write_bytes(std::uint64_t at, const char* bytes, std::uint64_t size) {
  const auto start = std::chrono::steady_clock::now();
  while (size > 0) {
    const std::uint64_t want = std::min(size, kMostBytesPerCall);
    const ssize_t put = ::pwrite(fd_, bytes, want, static_cast<off_t>(at));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0)
      throw Error(file_.string() + ": pwrite of " + std::to_string(want) + " bytes at " +
                  std::to_string(at) + ": " + std::strerror(errno));
    // A short count with no error is what a file system gives at its limit: try again, and the
    // next call says why.
    at += static_cast<std::uint64_t>(put);
    bytes += put;
    size -= static_cast<std::uint64_t>(put);
    bytes_written_ += static_cast<std::uint64_t>(put);
  }
  write_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void DirectWriter::write_block(const DirectDataset& dataset,
                               const std::vector<std::uint64_t>& offset,
                               const std::vector<std::uint64_t>& count, const void* data) {
  const std::string what = file_.string() + ": " + dataset.path;
  if (fd_ < 0) throw Error(what + ": written to after finish()");
  const std::vector<std::uint64_t>& dims = dataset.dims;
  const std::size_t rank = dims.size();
  if (offset.size() != rank || count.size() != rank)
    throw Error(what + ": a block of rank " + std::to_string(count.size()) +
                " for a dataset of rank " + std::to_string(rank));
  for (std::size_t i = 0; i < rank; ++i)
    if (offset[i] > dims[i] || count[i] > dims[i] - offset[i])
      throw Error(what + ": elements " + std::to_string(offset[i]) + " + " +
                  std::to_string(count[i]) + " of dimension " + std::to_string(i) +
                  " are past its end, " + std::to_string(dims[i]));
  if (checked_product(count, 0, 1, what) == 0) return;
  if (data == nullptr) throw Error(what + ": no data");

  // The block is contiguous in the file from dimension `run` on: every later dimension is whole.
  // Each pwrite() covers count[run] rows of those, so whole rows of the first dimension go out
  // in one call.
  std::size_t run = rank - 1;
  while (run > 0 && count[run] == dims[run]) --run;
  const std::uint64_t inner = checked_product(dims, run + 1, dataset.element_bytes, what);
  const std::uint64_t run_bytes = count[run] * inner;
  // Byte strides of each dimension in the file.
  std::vector<std::uint64_t> stride(rank);
  stride[rank - 1] = dataset.element_bytes;
  for (std::size_t i = rank - 1; i-- > 0;) stride[i] = stride[i + 1] * dims[i + 1];
  std::uint64_t runs = 1;
  for (std::size_t i = 0; i < run; ++i) runs *= count[i];
  std::vector<std::uint64_t> index(run, 0);  // within the block, over dimensions before `run`
  const char* bytes = static_cast<const char*>(data);
  for (std::uint64_t r = 0; r < runs; ++r) {
    std::uint64_t at = dataset.offset + offset[run] * stride[run];
    for (std::size_t i = 0; i < run; ++i) at += (offset[i] + index[i]) * stride[i];
    write_bytes(at, bytes, run_bytes);
    bytes += run_bytes;
    for (std::size_t i = run; i-- > 0;) {
      if (++index[i] < count[i]) break;
      index[i] = 0;
    }
  }
}

void DirectWriter::finish() {
  if (fd_ < 0) return;
  const auto start = std::chrono::steady_clock::now();
  // The holder reopens and commits the file next, possibly on another host of a shared file
  // system: this writer's bytes must be there, not in its page cache.
  const int synced = ::fsync(fd_);
  const int saved = errno;
  const int closed = ::close(std::exchange(fd_, -1));
  write_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (synced != 0) throw Error(file_.string() + ": fsync: " + std::strerror(saved));
  if (closed != 0) throw Error(file_.string() + ": close: " + std::strerror(errno));
}

}  // namespace parasol::io
