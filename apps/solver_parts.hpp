// What a binding hands on from its solver's layer without a line of its own: a solver's list of
// named facts written as attributes (poisson::diagnostics), and an output's range for the summary.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "apps/binding.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {

// Pairs of a name and a variant of the kinds an attribute holds, as attributes of `group`, in
// the list's order.
template <class List>
void set_attributes(io::ResultFile& out, const std::string& group, const List& list) {
  for (const auto& [name, value] : list)
    std::visit([&, &name = name](const auto& v) { out.set_attribute(group, name, v); }, value);
}

// An output checked finite (kernels/finite.hpp: `what` names it when it is not), then its lowest
// and highest values into `low` and `high`, for the summary; left as they are when it is empty.
template <class T>
void finite_range(const char* what, const std::vector<T>& values, double& low, double& high) {
  require_finite(what, values);
  if (values.empty()) return;
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  low = static_cast<double>(*lowest);
  high = static_cast<double>(*highest);
}

}  // namespace parasol::app
