#include "kernels/agreement.hpp"

#include <cstdio>

namespace parasol {

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

Agreement field_agreement(const FieldDifference& d, std::string measure, std::string measure_words,
                          double value, double tolerance) {
  Agreement a;
  a.measure = std::move(measure);
  a.value = value;
  a.tolerance = tolerance;
  a.description = "max abs diff " + short_number(d.max_abs) + ", rms diff " + short_number(d.rms);
  if (a.measure != "max_abs_difference")
    a.description += ", " + measure_words + " " + short_number(value);
  a.values = {{"max_abs_difference", d.max_abs}, {"rms_difference", d.rms}};
  return a;
}

}  // namespace parasol
