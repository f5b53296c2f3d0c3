// A solver's parameters, declared once: each key with its type, default, unit, allowed values,
// help text, whether only the GPU solver reads it, and where its value lands in the solver's
// Params. Everything else is derived from the declaration: the reading and checking of a
// parameter file (io/read_keys.hpp), `parasol keys SOLVER` and `parasol run FILE --help`, the
// tables of docs/parameters.md (generated; a test fails when they drift), and the defaults, read
// off a default-made Params so that they are written once, in params.hpp. Plain C++: no TOML, no
// CUDA, so a solver declares its keys beside its Params and any front end can read them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/shape.hpp"

namespace parasol {

// What a key holds, as a parameter file spells it.
enum class KeyType { integer, number, boolean, string, choice, file, strings, choices, numbers, shape, shapes, matrix };

inline std::string_view name(KeyType t) {
  switch (t) {
    case KeyType::integer: return "integer";
    case KeyType::number: return "number";
    case KeyType::boolean: return "boolean";
    case KeyType::string: return "string";
    case KeyType::choice: return "name";
    case KeyType::file: return "file";
    case KeyType::strings: return "array of strings";
    case KeyType::choices: return "array of names";
    case KeyType::numbers: return "array of numbers";
    case KeyType::shape: return "[x, y, z]";
    case KeyType::shapes: return "array of [x, y, z]";
    case KeyType::matrix: return "array of rows of numbers";
  }
  return "?";
}

// One key as a user reads about it: what `parasol keys` prints and the docs' tables hold.
struct KeyInfo {
  std::string key;       // dotted: "grid.nx"
  KeyType type = KeyType::string;
  std::string values;    // the allowed values or range: "≥ 3", "\"zreg\", \"zmarch\""
  std::string fallback;  // the default as TOML writes it ("64", "\"zreg\"", "[64, 4, 1]"); "" when required
  std::string unit;      // "s", "Å", "points"; "" when the key has none
  std::string help;      // what it means, one paragraph
  std::string read_when; // "" when always read; else the condition, e.g. "problem.kind = \"ar1\""
  bool gpu_only = false; // read by the GPU solver only: a CPU run says it does not use it
  bool sweep = false;    // a key of `parasol sweep` ([sweep] table)
  bool automatic = false;  // "auto" is accepted too (the choice `parasol sweep --autotune` stored)
  bool required() const { return fallback.empty(); }
};

// A key's value as read from a file, before it lands in Params.
using KeyValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>,
                              std::vector<double>, Shape, std::vector<Shape>,
                              std::vector<std::vector<double>>>;

// A key of Params `P`: its KeyInfo and how its value is read into P. Made by the builders below,
// refined by the chained setters (`integer(...).unit("s").at_least(1)`).
template <class P>
struct Key {
  KeyInfo info;
  // The default, given the Params read so far (keys are read in the order declared, so a default
  // may follow an earlier key: a variant's block); nullopt when the key is required.
  std::function<std::optional<KeyValue>(const P&)> fallback;
  // Stores the value; throws InputError (its key left empty: the reader fills it in) for a value
  // out of range or a name that is not allowed.
  std::function<void(P&, const KeyValue&)> set;
  // Whether the key is read, given the Params read so far; null: always.
  std::function<bool(const P&)> read_if;
  // Whether a file may leave the key out, its field then kept as it is (optional()).
  bool may_be_absent = false;

  Key unit(std::string u) && { info.unit = std::move(u); return std::move(*this); }
  Key values(std::string v) && { info.values = std::move(v); return std::move(*this); }
  Key gpu_only() && { info.gpu_only = true; return std::move(*this); }
  Key or_auto() && { info.automatic = true; return std::move(*this); }
  Key required() && {
    info.fallback.clear();
    fallback = [](const P&) { return std::optional<KeyValue>(); };
    return std::move(*this);
  }
  // No default: a file that does not set the key leaves its field as it is, and the key out of
  // the parameters stored with the result (ar1.phi_min, whose presence asks for a coefficient
  // drawn at every step). `shown` says so to users ("none").
  Key optional(std::string shown) && {
    may_be_absent = true;
    info.fallback = std::move(shown);
    return std::move(*this);
  }
  // The default shown to users when it is not one value ("[64, 4, 1]; block3d [32, 8, 2]").
  Key shown_default(std::string text) && { info.fallback = std::move(text); return std::move(*this); }
  // A default that depends on keys read before (its text given by shown_default).
  template <class F>
  Key default_from(F f) && {
    fallback = [f](const P& p) { return std::optional<KeyValue>(KeyValue(f(p))); };
    return std::move(*this);
  }
  // Read only when `when(params so far)`; `described` says when, for users.
  template <class F>
  Key only_if(F when, std::string described) && {
    read_if = std::move(when);
    info.read_when = std::move(described);
    return std::move(*this);
  }
  // An integer at least `least`, with the house's message.
  Key at_least(std::int64_t least) && {
    auto inner = set;
    set = [inner, least](P& p, const KeyValue& v) {
      const std::int64_t n = std::get<std::int64_t>(v);
      if (n < least)
        throw InputError("", "",
                         least == 1 ? "expected a positive integer, got " + std::to_string(n)
                                    : "expected an integer >= " + std::to_string(least) +
                                          ", got " + std::to_string(n));
      inner(p, v);
    };
    if (info.values.empty()) info.values = least == 1 ? "≥ 1" : "≥ " + std::to_string(least);
    return std::move(*this);
  }
};

// The keys of one Params type, in the order they are read.
template <class P>
using Keys = std::vector<Key<P>>;

namespace detail {

// "1.0", "0.5", "1e-06": a default as a parameter file would write it.
inline std::string toml_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  std::string s = text;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

inline std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

inline std::string shape_text(const Shape& s) {
  return "[" + std::to_string(s.x) + ", " + std::to_string(s.y) + ", " + std::to_string(s.z) + "]";
}

inline std::string default_text(const KeyValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<T, double>) return toml_number(x);
        else if constexpr (std::is_same_v<T, std::string>) return in_quotes(x);
        else if constexpr (std::is_same_v<T, Shape>) return shape_text(x);
        else {
          std::string text = "[";
          for (const auto& e : x) {
            using E = std::decay_t<decltype(e)>;
            if (text.size() > 1) text += ", ";
            if constexpr (std::is_same_v<E, std::string>) text += in_quotes(e);
            else if constexpr (std::is_same_v<E, double>) text += toml_number(e);
            else if constexpr (std::is_same_v<E, std::vector<double>>) text += default_text(e);
            else text += shape_text(e);
          }
          return text + "]";
        }
      },
      v);
}

template <class P, class Field>
using FieldType = std::remove_reference_t<decltype(std::declval<Field>()(std::declval<P&>()))>;

// A key whose value is stored as `Stored` and set by `set`, its default read off P{} by `get`.
template <class P, class Get, class Set>
Key<P> make_key(std::string key, KeyType type, std::string help, Get get, Set set) {
  Key<P> k;
  k.info.key = std::move(key);
  k.info.type = type;
  k.info.help = std::move(help);
  k.fallback = [get](const P&) { return std::optional<KeyValue>(get(P{})); };
  k.info.fallback = default_text(get(P{}));
  k.set = std::move(set);
  return k;
}

}  // namespace detail

// A scalar, string, shape or list key stored in the field `field(p)` returns (a lambda
// `[](P& p) -> auto& { return p.grid.nx; }`): integers (any width; out of the field's range is
// an error), numbers, booleans, strings, block shapes, lists of numbers, strings or shapes.
template <class P, class Field>
Key<P> key(std::string name, Field field, std::string help) {
  using T = detail::FieldType<P, Field>;
  const auto get = [field](P p) { return field(p); };
  if constexpr (std::is_same_v<T, bool>) {
    return detail::make_key<P>(std::move(name), KeyType::boolean, std::move(help),
                               [get](const P& p) { return KeyValue(get(p)); },
                               [field](P& p, const KeyValue& v) { field(p) = std::get<bool>(v); });
  } else if constexpr (std::is_integral_v<T>) {
    return detail::make_key<P>(
        std::move(name), KeyType::integer, std::move(help),
        [get](const P& p) { return KeyValue(static_cast<std::int64_t>(get(p))); },
        [field](P& p, const KeyValue& v) {
          const std::int64_t n = std::get<std::int64_t>(v);
          if constexpr (std::is_unsigned_v<T>) {
            if (n < 0) throw InputError("", "", "expected an integer >= 0, got " + std::to_string(n));
          }
          if (static_cast<std::int64_t>(static_cast<T>(n)) != n)
            throw InputError("", "", "expected a " + std::to_string(8 * sizeof(T)) +
                                         "-bit integer, got " + std::to_string(n));
          field(p) = static_cast<T>(n);
        });
  } else if constexpr (std::is_same_v<T, double>) {
    return detail::make_key<P>(std::move(name), KeyType::number, std::move(help),
                               [get](const P& p) { return KeyValue(get(p)); },
                               [field](P& p, const KeyValue& v) { field(p) = std::get<double>(v); });
  } else {
    static_assert(std::is_constructible_v<KeyValue, T>, "a field type no key can hold");
    constexpr KeyType type = std::is_same_v<T, std::string>           ? KeyType::string
                             : std::is_same_v<T, Shape>               ? KeyType::shape
                             : std::is_same_v<T, std::vector<Shape>>  ? KeyType::shapes
                             : std::is_same_v<T, std::vector<double>> ? KeyType::numbers
                                                                      : KeyType::strings;
    return detail::make_key<P>(std::move(name), type, std::move(help),
                               [get](const P& p) { return KeyValue(get(p)); },
                               [field](P& p, const KeyValue& v) { field(p) = std::get<T>(v); });
  }
}

// A file name stored in a string field; a relative name is taken from the parameter file's folder.
template <class P, class Field>
Key<P> file(std::string name, Field field, std::string help) {
  Key<P> k = key<P>(std::move(name), field, std::move(help));
  k.info.type = KeyType::file;
  return k;
}

// A matrix written as an array of rows ([[1, 0.5], [0.5, 1]]), stored by `set(p, rows)`, which
// judges its shape against the keys read before (throwing InputError, its key left empty).
// `fallback(params so far)` is the default, or nullopt where the key is required; the default's
// text is given by shown_default (required when none is).
template <class P, class Set, class Fallback>
Key<P> matrix(std::string name, Set set, Fallback fallback, std::string help) {
  using Rows = std::vector<std::vector<double>>;
  Key<P> k;
  k.info.key = std::move(name);
  k.info.type = KeyType::matrix;
  k.info.help = std::move(help);
  k.fallback = [fallback](const P& p) {
    const std::optional<Rows> rows = fallback(p);
    return rows ? std::optional<KeyValue>(KeyValue(*rows)) : std::optional<KeyValue>();
  };
  k.set = [set](P& p, const KeyValue& v) { set(p, std::get<Rows>(v)); };
  return k;
}

// "\"zmarch\", \"zreg\"": the names of `values`, as the docs list them.
template <class Values>
std::string quoted_names(const Values& values) {
  std::string text;
  for (const auto& v : values) text += (text.empty() ? "" : ", ") + detail::in_quotes(name(v));
  return text;
}

// An enumeration stored in the field `field(p)`, by the names users type: `values` lists them all
// (name(v) each), `parse` turns a name back (throwing InputError listing the valid ones).
template <class P, class Field, class Values, class Parse>
Key<P> choice(std::string key_name, Field field, const Values& values, Parse parse, std::string help) {
  const auto get = [field](P p) { return field(p); };
  Key<P> k = detail::make_key<P>(
      std::move(key_name), KeyType::choice, std::move(help),
      [get](const P& p) { return KeyValue(std::string(name(get(p)))); },
      [field, parse](P& p, const KeyValue& v) { field(p) = parse(std::get<std::string>(v)); });
  k.info.values = quoted_names(values);
  return k;
}

// A list of enumerations (sweep.variants), every value by default.
template <class P, class Field, class Values, class Parse>
Key<P> choices(std::string key_name, Field field, const Values& values, Parse parse, std::string help) {
  std::vector<std::string> all;
  for (const auto& v : values) all.emplace_back(name(v));
  Key<P> k;
  k.info.key = std::move(key_name);
  k.info.type = KeyType::choices;
  k.info.help = std::move(help);
  k.info.values = quoted_names(values);
  k.info.fallback = "all";
  k.fallback = [all](const P&) { return std::optional<KeyValue>(KeyValue(all)); };
  k.set = [field, parse](P& p, const KeyValue& v) {
    auto& out = field(p);
    out.clear();
    for (const std::string& text : std::get<std::vector<std::string>>(v)) out.push_back(parse(text));
  };
  return k;
}

// The keys `declare(k)` appends, made on first use and kept: a solver's keys() and sweep_keys()
// are `return declared_once<Params>([](Keys<Params>& k) { k.push_back(...); ... });`.
template <class P, class Declare>
const Keys<P>& declared_once(Declare declare) {
  static const Keys<P> all = [&] {
    Keys<P> k;
    declare(k);
    return k;
  }();
  return all;
}

// The KeyInfo of every key in `keys`, marked as sweep keys when `sweep`.
template <class P>
std::vector<KeyInfo> infos(const Keys<P>& keys, bool sweep = false) {
  std::vector<KeyInfo> out;
  for (const Key<P>& k : keys) {
    out.push_back(k.info);
    out.back().sweep = sweep;
  }
  return out;
}

}  // namespace parasol
