// What the front end derives from a solver's method axes (kernels/method_axes.hpp): /method's
// attributes, a stored choice restored for method.variant = "auto", the method in words, and a
// sweep's axis columns, cells and autotune choice. A binding writes none of these itself.
#pragma once

#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apps/binding.hpp"
#include "kernels/method_axes.hpp"

namespace parasol::app {

// Whether the solver of Params `P` declares its method axes (method_axes(const P&) beside it).
template <class P, class = void>
inline constexpr bool kHasMethodAxes = false;
template <class P>
inline constexpr bool kHasMethodAxes<P, std::void_t<decltype(method_axes(std::declval<const P&>()))>> =
    true;

// The value of `a` in `p` as a row and a choice show it: "-" where the axis does not apply.
template <class P>
std::string axis_text(const MethodAxis<P>& a, const P& p) {
  return a.applies_to(p) ? axis_text(a.get(p)) : std::string("-");
}

// What runs, in words: the declaration's describe(), else the swept axes' values ("zreg 64x4x1").
template <class P>
std::string method_text(const MethodAxes<P>& m, const P& p) {
  if (m.describe) return m.describe(p);
  std::string text;
  for (const MethodAxis<P>& a : m.axes)
    if (a.swept() && a.applies_to(p)) text += (text.empty() ? "" : " ") + axis_text(a.get(p));
  return text;
}

// /method's attributes: each axis recorded for `p`, a shape as [x, y, z].
template <class P>
void record_method(io::ResultFile& out, const MethodAxes<P>& m, const P& p) {
  for (const MethodAxis<P>& a : m.axes) {
    if (!a.recorded_for(p)) continue;
    const AxisValue v = a.get(p);
    if (const auto* s = std::get_if<std::string>(&v)) out.set_attribute("/method", a.key, *s);
    else if (const auto* n = std::get_if<std::int64_t>(&v)) out.set_attribute("/method", a.key, *n);
    else {
      const Shape& b = std::get<Shape>(v);
      out.set_attribute("/method", a.key, std::vector<std::int64_t>{b.x, b.y, b.z});
    }
  }
}

// The stored choice (`c.choice`, which must hold one) in `p`: its variant, then each other axis
// it stores ("-" left as it is, and an axis only some configurations have, where the choice has
// none), then the parameters validated. A value this build cannot run is the InputError naming
// the file, its line and the axis at fault (AutoChoice::unusable).
template <class P>
void restore_choice(const MethodAxes<P>& m, const AutoChoice& c, P& p) {
  for (const MethodAxis<P>& a : m.axes) {
    if (!a.parse) continue;
    const std::optional<std::string> stored =
        a.key == "variant" ? std::optional<std::string>(c.choice->variant) : c.choice->axis(a.key);
    if (!stored && a.recorded) continue;
    const std::string text = stored.value_or("");
    if (text == "-") continue;
    try {
      a.parse(p, text);
    } catch (const InputError& e) {
      throw c.unusable(e, a.key);
    }
  }
  c.validate(m.validated_as, [&] { p.validate(); });
}

// restore_choice for what look_up_choice found. A shipped choice (AutoChoice::shipped) this build
// cannot run is dropped, said in one line on stderr naming `fallback` (what runs instead), rather
// than ending the run: the table was measured with a build that may have had more compiled in.
// `p` is then as it came, and `c` holds no choice.
template <class P>
void restore_found(const MethodAxes<P>& m, AutoChoice& c, P& p, const std::string& fallback) {
  if (!c.shipped) return restore_choice(m, c, p);
  const P before = p;
  try {
    restore_choice(m, c, p);
  } catch (const InputError& e) {
    std::cerr << "parasol: method.variant = \"auto\": the shipped choice " << c.choice->describe()
              << " (" << c.file.string() << ":" << c.choice->line
              << ") cannot run in this build: " << e.expected() << "; running " << fallback
              << "\n";
    p = before;
    c.choice.reset();
    c.shipped = false;
  }
}

// A sweep's axis columns, in the declaration's order.
template <class P>
std::vector<ResultsTable::Column> axis_columns(const MethodAxes<P>& m) {
  std::vector<ResultsTable::Column> columns;
  for (const MethodAxis<P>& a : m.axes)
    if (a.swept()) columns.push_back({a.key, a.title, a.width});
  return columns;
}

// One configuration's axis cells: names and shapes as text, whole numbers as numbers.
template <class P>
std::vector<Cell> axis_cells(const MethodAxes<P>& m, const P& p) {
  std::vector<Cell> cells;
  for (const MethodAxis<P>& a : m.axes) {
    if (!a.swept()) continue;
    const AxisValue v = a.get(p);
    if (a.applies_to(p) && std::holds_alternative<std::int64_t>(v))
      cells.emplace_back(std::get<std::int64_t>(v));
    else cells.emplace_back(axis_text(a, p));
  }
  return cells;
}

// What --autotune stores for configuration `p` under `key`: its variant and its other swept axes.
template <class P>
io::AutotuneChoice axis_choice(const MethodAxes<P>& m, io::AutotuneKey key, const P& p) {
  std::string variant;
  std::vector<std::pair<std::string, std::string>> axes;
  for (const MethodAxis<P>& a : m.axes) {
    if (!a.swept()) continue;
    if (a.key == "variant") variant = axis_text(a, p);
    else axes.emplace_back(a.key, axis_text(a, p));
  }
  return choice_of(std::move(key), std::move(variant), std::move(axes));
}

}  // namespace parasol::app
