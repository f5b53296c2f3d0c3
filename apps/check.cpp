#include "apps/check.hpp"

namespace parasol::app {

void write_check(io::ResultFile& out, const FieldDifference& d, const std::string& gold_precision) {
  out.set_attribute("/check", "gold", std::string("CPU gold solver"));
  out.set_attribute("/check", "gold_precision", gold_precision);
  out.set_attribute("/check", "max_abs_difference", d.max_abs);
  out.set_attribute("/check", "rms_difference", d.rms);
}

}  // namespace parasol::app
