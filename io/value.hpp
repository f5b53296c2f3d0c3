// A parameter or attribute value: what a parameter file can say and an HDF5 attribute can hold.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace parasol::io {

using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                           std::vector<double>>;

}  // namespace parasol::io
