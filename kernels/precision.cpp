#include "kernels/precision.hpp"

#include "kernels/name_table.hpp"

namespace parasol {
namespace {

constexpr NameTable<Precision, 2> kPrecisionNames{
    {{Precision::single, "float"}, {Precision::double_, "double"}}};

}  // namespace

std::string_view name(Precision p) { return lookup_name(kPrecisionNames, p); }
Precision parse_precision(std::string_view s) {
  return lookup_value(kPrecisionNames, s, "precision");
}

}  // namespace parasol
