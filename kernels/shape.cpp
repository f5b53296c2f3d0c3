#include "kernels/shape.hpp"

#include <algorithm>

namespace parasol {

std::string to_string(const Shape& s) {
  return std::to_string(s.x) + "x" + std::to_string(s.y) + "x" + std::to_string(s.z);
}

std::ostream& operator<<(std::ostream& out, const Shape& s) { return out << to_string(s); }

std::optional<Shape> shape_from_string(std::string_view text) {
  int sizes[3] = {1, 1, 1};
  int count = 0;
  std::size_t at = 0;
  while (true) {
    if (count == 3) return std::nullopt;
    const std::size_t end = std::min(text.find('x', at), text.size());
    if (end == at || end - at > 4) return std::nullopt;
    int value = 0;
    for (std::size_t i = at; i < end; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      value = value * 10 + (text[i] - '0');
    }
    if (value < 1) return std::nullopt;
    sizes[count++] = value;
    if (end == text.size()) break;
    at = end + 1;
  }
  return Shape{sizes[0], sizes[1], sizes[2]};
}

namespace {
std::string text_of(const Shape& s) { return to_string(s); }
std::string text_of(int v) { return std::to_string(v); }

template <class T>
std::string message(std::string_view what, const T& want, std::string_view variant,
                    const std::vector<T>& compiled) {
  std::string text = std::string(what) + " " + text_of(want) + " is not compiled in";
  if (!variant.empty()) text += " for " + std::string(variant);
  text += "; compiled:";
  for (const T& c : compiled) text += " " + text_of(c);
  return text;
}
}  // namespace

std::string not_compiled(std::string_view what, const Shape& want, std::string_view variant,
                         const std::vector<Shape>& compiled) {
  return message(what, want, variant, compiled);
}

std::string not_compiled(std::string_view what, int want, std::string_view variant,
                         const std::vector<int>& compiled) {
  return message(what, want, variant, compiled);
}

// "laplace3d/zreg: block 48x4x1 is not compiled in; compiled: 32x4x1 32x8x1 64x4x1 128x2x1"
UnsupportedShape::UnsupportedShape(std::string_view kernel, const Shape& want,
                                   const std::vector<Shape>& compiled)
    : InputError(std::string(kernel) + ": " + not_compiled("block", want, "", compiled)) {}

// "tridiag/thomas-scan: chunk 5 is not compiled in; compiled: 4 8 16"
UnsupportedValue::UnsupportedValue(std::string_view kernel, std::string_view what, int want,
                                   const std::vector<int>& compiled)
    : InputError(std::string(kernel) + ": " + not_compiled(what, want, "", compiled)) {}

}  // namespace parasol
