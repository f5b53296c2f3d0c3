// A user's HDF5 input file (signals, series, coefficient batches): opening it, and the words its
// errors use for datasets and shapes, the same in every solver.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"

namespace parasol::io {

// The file opened for reading. One that is missing, or is not HDF5, is an InputError naming the
// file and `key` (the parameter that named it; may be empty). Held by pointer: a ResultReader
// cannot be moved.
std::unique_ptr<ResultReader> open_input_file(const std::string& file, const std::string& key = "");

// A dataset's name as HDF5 shows it in messages: "x" and "/x" are both "/x".
std::string dataset_display_path(const std::string& name);

// A dataset's extent in messages: "[3 x 4]", "[]" for a scalar.
std::string shape_text(const std::vector<std::uint64_t>& dims);

// What `read` returns; an InputError it throws is restated with the parameter that named the
// dataset: "... (input.s)".
template <class Read>
auto naming_key(const char* key, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw InputError(e.source(), e.key(), e.expected() + " (" + key + ")");
  }
}

// NaN or infinity in an input would spread through every output it reaches: an InputError naming
// the file, the dataset and the element. `values` are the dataset's from element `first` on.
template <class T>
void require_finite(const T* values, std::int64_t count, std::int64_t first,
                    const std::string& file, const std::string& dataset) {
  for (std::int64_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      throw InputError(file, dataset_display_path(dataset),
                       "holds " + shown(static_cast<double>(values[i])) + " at element " +
                           std::to_string(first + i) + "; expected finite numbers");
}

}  // namespace parasol::io
