#include "io/input_file.hpp"

#include "kernels/error.hpp"

namespace parasol::io {

std::unique_ptr<ResultReader> open_input_file(const std::string& file, const std::string& key) {
  try {
    return std::make_unique<ResultReader>(file);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(file, key, std::string("cannot be read as HDF5: ") + e.what());
  }
}

std::string dataset_display_path(const std::string& name) {
  return !name.empty() && name.front() == '/' ? name : "/" + name;
}

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string text;
  for (const std::uint64_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return "[" + text + "]";
}

}  // namespace parasol::io
