// A 1D result written as it is computed, in order, by a run whose output is never whole in
// memory (fftconv's streamed convolution).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "kernels/error.hpp"

namespace parasol::io {

// Values arrive in order and are gathered into runs of kRunBytes before each write_slab: a
// multiple of the result file's 1 MiB chunks, so no compressed chunk is written twice. Keeps
// the range of what it was given.
template <class T>
class StreamedDataset {
 public:
  static constexpr std::int64_t kRunBytes = std::int64_t{1} << 24;
  static constexpr std::int64_t kRunValues = kRunBytes / static_cast<std::int64_t>(sizeof(T));

  // Creates `dataset` of `length` values (create_dataset).
  StreamedDataset(ResultFile& out, std::string dataset, std::int64_t length)
      : out_(out), dataset_(std::move(dataset)), length_(length) {
    out_.create_dataset<T>(dataset_, static_cast<std::uint64_t>(length_));
    buffer_.reserve(static_cast<std::size_t>(std::min(length_, kRunValues)));
  }

  // Values [offset, offset + count): offset must be where the last ones ended.
  void write(std::int64_t offset, std::int64_t count, const T* values) {
    const std::int64_t next = written_ + static_cast<std::int64_t>(buffer_.size());
    if (offset != next || count < 0 || count > length_ - offset)
      throw Error(out_.path().string() + ": " + dataset_ + ": values [" + std::to_string(offset) +
                  ", " + std::to_string(offset + count) + ") arrived where value " +
                  std::to_string(next) + " of " + std::to_string(length_) + " was due");
    T low = std::numeric_limits<T>::infinity(), high = -std::numeric_limits<T>::infinity();
    for (std::int64_t i = 0; i < count; ++i) {  // NaNs are left out of the range
      low = std::min(low, values[i]);
      high = std::max(high, values[i]);
    }
    low_ = std::min(low_, static_cast<double>(low));
    high_ = std::max(high_, static_cast<double>(high));
    // Whole runs go straight from `values` when nothing waits before them; the rest is gathered.
    while (count > 0) {
      if (buffer_.empty() && count >= kRunValues) {
        const std::int64_t runs = count / kRunValues * kRunValues;
        out_.write_slab(dataset_, static_cast<std::uint64_t>(written_), values,
                        static_cast<std::size_t>(runs));
        written_ += runs;
        values += runs;
        count -= runs;
        continue;
      }
      const std::int64_t take =
          std::min(count, kRunValues - static_cast<std::int64_t>(buffer_.size()));
      buffer_.insert(buffer_.end(), values, values + take);
      values += take;
      count -= take;
      if (static_cast<std::int64_t>(buffer_.size()) == kRunValues) flush();
    }
  }

  // Writes what is left; every value must have come.
  void finish() {
    flush();
    if (written_ != length_)
      throw Error(out_.path().string() + ": " + dataset_ + ": the values stopped at " +
                  std::to_string(written_) + " of " + std::to_string(length_));
  }

  double low() const { return low_; }
  double high() const { return high_; }

 private:
  void flush() {
    out_.write_slab(dataset_, static_cast<std::uint64_t>(written_), buffer_.data(),
                    buffer_.size());
    written_ += static_cast<std::int64_t>(buffer_.size());
    buffer_.clear();
  }

  ResultFile& out_;
  std::string dataset_;
  std::int64_t length_;
  std::int64_t written_ = 0;
  std::vector<T> buffer_;
  double low_ = std::numeric_limits<double>::infinity();
  double high_ = -std::numeric_limits<double>::infinity();
};

}  // namespace parasol::io
