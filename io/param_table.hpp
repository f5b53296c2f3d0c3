// A parameter file (TOML) with command-line overrides, read key by key. Every key a solver asks
// for becomes known; whatever the file holds that no one asked for is an error (a misspelt key
// must not be silently ignored), reported with the closest known key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/value.hpp"
#include "kernels/error.hpp"
#include "kernels/shape.hpp"

namespace parasol::io {

class ParamTable {
 public:
  // Throws InputError for a missing or unreadable file and for TOML syntax (with its line).
  static ParamTable load(const std::filesystem::path& file);
  // `source` names the text in messages, as a file name would.
  static ParamTable parse(std::string_view text, std::string source);

  ParamTable(ParamTable&&) noexcept;
  ParamTable& operator=(ParamTable&&) noexcept;
  ~ParamTable();

  // "grid.nx=256": the value is read as TOML ("1e-6", "[32,8,1]", "true", "\"zreg\"") and, if it
  // is not valid TOML, as a bare string, so `method.variant=zreg` needs no quotes.
  void apply_override(std::string_view assignment);

  // Where a key's value came from, for messages: "the file name:LINE" or "command line".
  std::string source_of(std::string_view key) const;
  const std::string& source() const { return source_; }

  bool has(std::string_view key) const;

  // Typed reads. Without a default the key is required. Each read makes the key known.
  std::int64_t get_int(std::string_view key, std::optional<std::int64_t> fallback = {});
  double get_double(std::string_view key, std::optional<double> fallback = {});  // integers too
  bool get_bool(std::string_view key, std::optional<bool> fallback = {});
  std::string get_string(std::string_view key, std::optional<std::string> fallback = {});
  std::vector<std::string> get_strings(std::string_view key,
                                       std::optional<std::vector<std::string>> fallback = {});
  std::vector<double> get_doubles(std::string_view key,  // integers too
                                  std::optional<std::vector<double>> fallback = {});
  // A matrix as an array of rows, [[1, 0.5], [0.5, 1]]; rows may differ in length (the caller
  // judges the shape, naming the key). Stored in the resolved parameters row after row.
  std::vector<std::vector<double>> get_double_rows(
      std::string_view key, std::optional<std::vector<std::vector<double>>> fallback = {});
  Shape get_shape(std::string_view key, std::optional<Shape> fallback = {});  // [x, y, z]; [x, y]
  std::vector<Shape> get_shapes(std::string_view key, std::optional<std::vector<Shape>> fallback = {});

  // Makes `key` known without reading it (a key the run does not read, given the keys before
  // it): the unknown-key check then passes it over and points a misspelling of it here.
  void skip(std::string_view key);

  // Throws InputError for the first key in the file (or an override) that no read asked for,
  // naming the closest known key when one is near.
  void reject_unknown_keys() const;

  // Every key that was read, in dotted form, with the value used (given or default): the fully
  // resolved parameters, stored with each result. A block shape is an integer vector [x, y, z];
  // lists of strings are joined with ", " and lists of shapes written "32x8x1 64x4x1".
  const std::map<std::string, Value>& resolved() const { return resolved_; }

 private:
  struct Impl;
  ParamTable(std::unique_ptr<Impl> impl, std::string source);
  std::unique_ptr<Impl> impl_;
  std::string source_;
  std::set<std::string, std::less<>> known_;
  std::set<std::string, std::less<>> overridden_;
  std::map<std::string, Value> resolved_;
};

// Runs `check` (a Params::validate(), say) and gives any InputError it throws the source of its
// key: "inputs/a.toml:12" or "command line".
template <class Check>
void with_sources(const ParamTable& table, Check&& check) {
  try {
    check();
  } catch (const InputError& e) {
    throw InputError(table.source_of(e.key()), e.key(), e.expected());
  }
}

// A solver's whole parameter file: its parameters and its [sweep] table read (in that order),
// any key neither read refused, then the parameters validated with their keys' sources, so a
// misspelt key is reported before a value it would have set. Returns {params, sweep}.
template <class ReadParams, class ReadSweep>
auto read_checked(ParamTable& table, ReadParams&& read_params, ReadSweep&& read_sweep) {
  auto params = read_params();
  auto sweep = read_sweep();
  table.reject_unknown_keys();
  with_sources(table, [&] { params.validate(); });
  return std::pair{std::move(params), std::move(sweep)};
}

// A string key turned into an enum by `parse` (a parse_variant, say); a name it rejects is
// reported against the key, with its source.
template <class Parse>
auto get_choice(ParamTable& table, std::string_view key, std::string fallback, Parse parse) {
  const std::string text = table.get_string(key, std::move(fallback));
  try {
    return parse(text);
  } catch (const InputError& e) {
    throw InputError(table.source_of(key), std::string(key), e.expected());
  }
}

// A file named by a string key. A relative name is taken from the parameter file's folder (one
// given on the command line, from the current folder).
std::string get_file(ParamTable& table, std::string_view key,
                     const std::filesystem::path& params_path,
                     std::optional<std::string> fallback = {});

// A list of names (sweep.variants, say) turned into enums by `parse`; a name it rejects is
// reported against the key, with its source.
template <class Parse>
auto get_choices(ParamTable& table, std::string_view key, std::vector<std::string> fallback,
                 Parse parse) {
  std::vector<decltype(parse(std::string()))> values;
  for (const std::string& text : table.get_strings(key, std::move(fallback))) {
    try {
      values.push_back(parse(text));
    } catch (const InputError& e) {
      throw InputError(table.source_of(key), std::string(key), e.expected());
    }
  }
  return values;
}

// The names of `values` (every variant of a solver, say): a list key's default.
template <class Values>
std::vector<std::string> names_of(const Values& values) {
  std::vector<std::string> names;
  for (const auto& v : values) names.emplace_back(name(v));
  return names;
}

// An integer key that must be at least 1 (repeats, counts), with the same error everywhere.
inline std::int64_t get_positive_int(ParamTable& table, std::string_view key, std::int64_t fallback) {
  const std::int64_t value = table.get_int(key, fallback);
  if (value < 1)
    throw InputError(table.source_of(key), std::string(key),
                     "expected a positive integer, got " + std::to_string(value));
  return value;
}

// A random seed: an integer key that must be >= 0, with the same error everywhere.
inline std::uint64_t get_seed(ParamTable& table, std::string_view key, std::uint64_t fallback) {
  const std::int64_t seed = table.get_int(key, static_cast<std::int64_t>(fallback));
  if (seed < 0)
    throw InputError(table.source_of(key), std::string(key),
                     "expected an integer >= 0, got " + std::to_string(seed));
  return static_cast<std::uint64_t>(seed);
}

// An integer key that must fit 32 bits (a thread count, a mode number); the solver's validate()
// judges its range.
int get_int32(ParamTable& table, std::string_view key, int fallback);

// A list of 32-bit integers from a TOML array (read as numbers, so 256.5 is caught here); at least
// one.
std::vector<int> get_ints(ParamTable& table, std::string_view key, const std::vector<int>& fallback);

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace parasol::io
