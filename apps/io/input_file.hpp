// A user's HDF5 input file (signals, series, coefficient batches): opening it, and the words its
// errors use for datasets and shapes, the same in every solver.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/io/result_file.hpp"

namespace parasol::io {

// The file opened for reading. One that is missing, or is not HDF5, is an InputError naming the
// file and `key` (the parameter that named it; may be empty). Held by pointer: a ResultReader
// cannot be moved.
std::unique_ptr<ResultReader> open_input_file(const std::string& file, const std::string& key = "");

// A dataset's name as HDF5 shows it in messages: "x" and "/x" are both "/x".
std::string dataset_display_path(const std::string& name);

// A dataset's extent in messages: "[3 x 4]", "[]" for a scalar.
std::string shape_text(const std::vector<std::uint64_t>& dims);

}  // namespace parasol::io
