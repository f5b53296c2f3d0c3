// The precision a solver computes in, named as users write it (`method.precision`,
// `problem.precision`): one type for every solver.
#pragma once

#include <string_view>

namespace parasol {

enum class Precision { single, double_ };
std::string_view name(Precision p);             // "float", "double"
Precision parse_precision(std::string_view s);  // InputError (key "precision") listing both

}  // namespace parasol
