#include "kernels/shape.hpp"

namespace parasol {

std::string to_string(const Shape& s) {
  return std::to_string(s.x) + "x" + std::to_string(s.y) + "x" + std::to_string(s.z);
}

std::ostream& operator<<(std::ostream& out, const Shape& s) { return out << to_string(s); }

namespace {
std::string shape_list(const std::vector<Shape>& shapes) {
  std::string text;
  for (const Shape& s : shapes) text += (text.empty() ? "" : " ") + to_string(s);
  return text;
}
}  // namespace

// "laplace3d/zreg: block 48x4x1 is not compiled in; compiled: 32x4x1 32x8x1 64x4x1 128x2x1"
UnsupportedShape::UnsupportedShape(std::string_view kernel, const Shape& want,
                                   const std::vector<Shape>& compiled)
    : InputError(std::string(kernel) + ": block " + to_string(want) +
                 " is not compiled in; compiled: " + shape_list(compiled)) {}

}  // namespace parasol
