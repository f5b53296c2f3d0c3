// Thread-block shapes. A kernel whose block shape sizes its shared memory or unrolls its loops is
// a template on the shape; each solver lists the few instances it compiles, and a shape asked for
// at run time is dispatched to its instance or refused with the list of those compiled in.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/error.hpp"

namespace parasol {

struct Shape {
  int x = 1, y = 1, z = 1;
  long long threads() const { return static_cast<long long>(x) * y * z; }
  friend bool operator==(const Shape& a, const Shape& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
};

std::string to_string(const Shape& s);  // "32x8x1"
// "32x8x1", "128x2" or "256" back to a shape (missing sizes are 1); nullopt when it is not one.
std::optional<Shape> shape_from_string(std::string_view text);
std::ostream& operator<<(std::ostream& out, const Shape& s);

template <int X, int Y, int Z>
struct Block {
  static constexpr int x = X, y = Y, z = Z;
  static constexpr int threads = X * Y * Z;
  static constexpr Shape shape() { return {X, Y, Z}; }
};

template <class... B>
struct ShapeList {};

template <class... B>
std::vector<Shape> compiled_shapes(ShapeList<B...>) {
  return {B::shape()...};
}

// The one form of every "not compiled in" message, from a Params check or a dispatch:
// "block 48x4x1 is not compiled in for zreg; compiled: 32x4x1 32x8x1"; `variant` may be empty.
std::string not_compiled(std::string_view what, const Shape& want, std::string_view variant,
                         const std::vector<Shape>& compiled);
std::string not_compiled(std::string_view what, int want, std::string_view variant,
                         const std::vector<int>& compiled);

class UnsupportedShape : public InputError {
 public:
  UnsupportedShape(std::string_view kernel, const Shape& want, const std::vector<Shape>& compiled);
};

// A template parameter that is not a shape (rows per thread, threads per block) takes the same
// road: a list of the values compiled in, dispatched at run time or refused in the one form.
template <int... V>
struct ValueList {
  static constexpr std::array<int, sizeof...(V)> values{V...};
};

class UnsupportedValue : public InputError {
 public:
  UnsupportedValue(std::string_view kernel, std::string_view what, int want,
                   const std::vector<int>& compiled);
};

// Calls launch(std::integral_constant<int, V>{}) for the V equal to `want`, or throws
// UnsupportedValue("tridiag/thomas-pcr", "chunk", ...).
template <int... V, class Launch>
void dispatch_value(std::string_view kernel, std::string_view what, ValueList<V...>, int want,
                    Launch&& launch) {
  const bool found =
      ((want == V ? (launch(std::integral_constant<int, V>{}), true) : false) || ...);
  if (!found) throw UnsupportedValue(kernel, what, want, {V...});
}

template <class... B, class Launch>
void dispatch_shape(std::string_view kernel, ShapeList<B...> list, const Shape& want,
                    Launch&& launch) {
  const bool found = ((want == B::shape() ? (launch(B{}), true) : false) || ...);
  if (!found) throw UnsupportedShape(kernel, want, compiled_shapes(list));
}

}  // namespace parasol
