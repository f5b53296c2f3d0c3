#include "apps/check.hpp"

namespace parasol::app {

void write_check(io::ResultFile& out, const FieldDifference& d, const std::string& gold_precision) {
  out.set_attribute("/check", "gold", std::string("CPU gold solver"));
  out.set_attribute("/check", "gold_precision", gold_precision);
  out.set_attribute("/check", "max_abs_difference", d.max_abs);
  out.set_attribute("/check", "rms_difference", d.rms);
}

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace parasol::app
