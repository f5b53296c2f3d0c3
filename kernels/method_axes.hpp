// A solver's method axes, declared once: each way a run may do the same computation differently
// (the variant, the block shape, the points per thread, the ordering of the draws), with how its
// value prints and parses back, where it lands in the solver's Params, and the width of its
// sweep column. The front end derives the rest from the declaration (apps/method_axes.hpp):
// /method's attributes, method.variant = "auto" restoring a stored choice, a sweep's axis
// columns and cells, and what `parasol sweep --autotune` stores. Plain C++: no TOML, no CUDA.
//
// A solver declares `const MethodAxes<Params>& method_axes(const Params&)` beside its keys; the
// front end finds it by the Params it holds (argument-dependent lookup).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/shape.hpp"

namespace parasol {

// One axis's value in one configuration: a name, a whole number or a block shape.
using AxisValue = std::variant<std::string, std::int64_t, Shape>;

// "zreg", "4", "32x8x1": a value as a sweep's row, an autotune choice and a summary write it.
inline std::string axis_text(const AxisValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  return to_string(std::get<Shape>(v));
}

template <class P>
struct MethodAxis {
  std::string key;    // "block": method.<key>, /method@<key>, the choice's <key>, the column's name
  std::string title;  // the sweep column's header; "" for a fact /method records but no sweep varies
  int width = 0;      // the sweep column's width
  std::function<AxisValue(const P&)> get;
  // The text an autotune file stored, into `p`; InputError (expected, got) for one this build
  // cannot run. Null for an axis no choice stores.
  std::function<void(P&, const std::string&)> parse;
  // `p`'s field set to the default's (a default-made P), before a choice is looked up.
  std::function<void(P&)> reset;
  // Whether the axis means anything for this configuration (host-rng's ordering, not
  // device-rng's): where not, a sweep's row and a stored choice say "-" and a choice's "-" is
  // left as it is. Null: always.
  std::function<bool(const P&)> applies;
  // Whether /method records it for this configuration; null: always.
  std::function<bool(const P&)> recorded;

  bool swept() const { return !title.empty(); }
  bool applies_to(const P& p) const { return !applies || applies(p); }
  bool recorded_for(const P& p) const { return !recorded || recorded(p); }

  // Read only where `when(p)`: "-" in a row and a choice, and not in /method, elsewhere; a
  // stored choice without it leaves the field as it is.
  template <class F>
  MethodAxis only_for(F when) && {
    applies = when;
    recorded = std::move(when);
    return std::move(*this);
  }
  // "-" in a row and a choice where `when(p)` is false, yet recorded in /method.
  template <class F>
  MethodAxis dash_unless(F when) && {
    applies = std::move(when);
    return std::move(*this);
  }
};

// A solver's method axes, in the order /method records them and a sweep's columns show them.
template <class P>
struct MethodAxes {
  std::vector<MethodAxis<P>> axes;
  // Whether method.variant = "auto" looks a choice up (`parasol sweep --autotune` stores one).
  bool autotuned = false;
  // The axis a stored choice is blamed on when the parameters with it in fail validate().
  std::string validated_as;
  // What runs, in words, for a summary and the note of a missing choice; null: the swept
  // axes' values that apply, spaced ("zreg 64x4x1").
  std::function<std::string(const P&)> describe;
};

namespace detail {

template <class P, class Field>
std::function<void(P&)> reset_of(Field field) {
  return [field](P& p) {
    P defaults;
    field(p) = field(defaults);
  };
}

}  // namespace detail

// The variant: an enumeration by the names users type (`parse` throws InputError listing them).
template <class P, class Field, class Parse>
MethodAxis<P> variant_axis(Field field, Parse parse, int width) {
  MethodAxis<P> a;
  a.key = a.title = "variant";
  a.width = width;
  a.get = [field](P p) { return AxisValue(std::string(name(field(p)))); };
  a.parse = [field, parse](P& p, const std::string& text) { field(p) = parse(text); };
  a.reset = detail::reset_of<P>(field);
  return a;
}

// Another enumeration (host-rng's ordering, the scan's mode).
template <class P, class Field, class Parse>
MethodAxis<P> choice_axis(std::string key, int width, Field field, Parse parse) {
  MethodAxis<P> a = variant_axis<P>(field, parse, width);
  a.key = a.title = std::move(key);
  return a;
}

// A block shape; a stored text that is not one is refused with `example` ("128x2x1").
template <class P, class Field>
MethodAxis<P> shape_axis(std::string key, int width, Field field, std::string example) {
  MethodAxis<P> a;
  a.key = a.title = std::move(key);
  a.width = width;
  a.get = [field](P p) { return AxisValue(field(p)); };
  a.parse = [field, example](P& p, const std::string& text) {
    const std::optional<Shape> block = shape_from_string(text);
    if (!block)
      throw InputError("expected a block shape such as \"" + example + "\", got \"" + text + "\"");
    field(p) = *block;
  };
  a.reset = detail::reset_of<P>(field);
  return a;
}

// A whole number from `least` to `most`; a stored text that is not one is refused saying `what`
// it should be ("threads per block").
template <class P, class Field>
MethodAxis<P> integer_axis(std::string key, std::string title, int width, Field field,
                           std::int64_t least, std::int64_t most, std::string what) {
  using T = std::remove_reference_t<decltype(field(std::declval<P&>()))>;
  MethodAxis<P> a;
  a.key = std::move(key);
  a.title = std::move(title);
  a.width = width;
  a.get = [field](P p) { return AxisValue(static_cast<std::int64_t>(field(p))); };
  a.parse = [field, least, most, what](P& p, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || value < least || value > most)
      throw InputError("expected " + what + ", got \"" + text + "\"");
    field(p) = static_cast<T>(value);
  };
  a.reset = detail::reset_of<P>(field);
  return a;
}

// A fact of the method that /method records but no sweep varies or choice stores (the batch
// size, the generator).
template <class P, class Get>
MethodAxis<P> recorded_axis(std::string key, Get get) {
  MethodAxis<P> a;
  a.key = std::move(key);
  a.get = [get](const P& p) { return AxisValue(get(p)); };
  return a;
}

}  // namespace parasol
