// The precision a solver computes in, named as users write it (`method.precision`,
// `problem.precision`): one type for every solver.
#pragma once

#include <string_view>
#include <vector>

namespace parasol {

enum class Precision { single, double_ };
std::string_view name(Precision p);             // "float", "double"
Precision parse_precision(std::string_view s);  // InputError (key "precision") listing both

// Values computed in double (a gold's) as a run in T gives them: each rounded to T.
template <class T>
std::vector<T> rounded(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

}  // namespace parasol
