#include "io/param_table.hpp"

#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/commit.hpp"
#include "io/one_line.hpp"
#include "io/read_keys.hpp"
#include "kernels/error.hpp"
#include "kernels/printable.hpp"
#include "kernels/validate.hpp"

namespace parasol::io {

struct ParamTable::Impl {
  toml::table root;
};

namespace {

std::vector<std::string> split_key(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The node at a dotted key, or nullptr. Keys are plain words, so a dot always separates tables.
const toml::node* find_node(const toml::table& root, std::string_view key) {
  const toml::node* node = &root;
  for (const std::string& part : split_key(key)) {
    const toml::table* table = node->as_table();
    if (table == nullptr) return nullptr;
    node = table->get(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

const char* type_words(toml::node_type type) {
  switch (type) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

// A value quoted back in a message: one line, cut to kQuotedMost characters. Arrays and tables
// are written element by element only until that much is said, so a 20-million-element array in
// a type error costs no more than a short one.
void render(const toml::node& node, std::string& out) {
  if (const toml::array* array = node.as_array()) {
    out += '[';
    for (std::size_t i = 0; i < array->size() && out.size() <= kQuotedMost; ++i) {
      if (i > 0) out += ", ";
      render(*array->get(i), out);
    }
    out += ']';
  } else if (const toml::table* table = node.as_table()) {
    bool first = true;
    for (auto&& [k, value] : *table) {
      if (out.size() > kQuotedMost) break;
      out += (first ? "" : " ") + std::string(k.str()) + " = ";
      first = false;
      render(value, out);
    }
  } else {
    std::ostringstream text;
    node.visit([&](auto&& n) { text << n; });
    out += text.str();
  }
}

std::string shown(const toml::node& node) {
  std::string text;
  render(node, text);
  return printable(text, kQuotedMost);
}

// Every leaf key in the file, dotted, with its line.
void collect_leaves(const toml::table& table, const std::string& prefix,
                    std::vector<std::pair<std::string, int>>& leaves) {
  for (auto&& [k, node] : table) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = node.as_table(); sub != nullptr && !sub->empty())
      collect_leaves(*sub, key, leaves);
    else
      leaves.emplace_back(key, static_cast<int>(node.source().begin.line));
  }
}

std::string join_shapes(const std::vector<Shape>& shapes) {
  std::string text;
  for (const Shape& s : shapes) text += (text.empty() ? "" : " ") + to_string(s);
  return text;
}

}  // namespace

int get_int32(ParamTable& table, std::string_view key, int fallback) {
  const std::int64_t value = table.get_int(key, fallback);
  if (value < INT_MIN || value > INT_MAX)
    throw InputError(table.source_of(key), std::string(key),
                     "expected a 32-bit integer, got " + std::to_string(value));
  return static_cast<int>(value);
}

std::vector<int> get_ints(ParamTable& table, std::string_view key, const std::vector<int>& fallback) {
  std::vector<int> out;
  for (double v : table.get_doubles(key, std::vector<double>(fallback.begin(), fallback.end()))) {
    if (!(v == std::floor(v) && v >= INT_MIN && v <= INT_MAX))
      throw InputError(table.source_of(key), std::string(key),
                       "expected a list of integers, got " + parasol::shown(v));
    out.push_back(static_cast<int>(v));
  }
  if (out.empty())
    throw InputError(table.source_of(key), std::string(key), "expected at least one value");
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

ParamTable::ParamTable(std::unique_ptr<Impl> impl, std::string source)
    : impl_(std::move(impl)), source_(std::move(source)) {}
ParamTable::ParamTable(ParamTable&&) noexcept = default;
ParamTable& ParamTable::operator=(ParamTable&&) noexcept = default;
ParamTable::~ParamTable() = default;

ParamTable ParamTable::load(const std::filesystem::path& file) {
  // Judged before it is opened: a FIFO would block the open, and /dev/zero would be read until
  // memory runs out.
  struct stat st {};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = not_a_regular_file(file);
    throw InputError(file.string(), "",
                     why == kNoSuchFile ? "no such parameter file"
                                        : why + "; expected a TOML parameter file");
  }
  // No parameter file comes near this size: a larger one is some other file, not parameters.
  constexpr std::size_t kMostBytes = std::size_t{16} << 20;
  const auto too_large = [&] {
    return InputError(file.string(), "",
                      "is larger than " + std::to_string(kMostBytes >> 20) +
                          " MiB; expected a TOML parameter file");
  };
  if (static_cast<std::uintmax_t>(st.st_size) > kMostBytes) throw too_large();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string(), "", "cannot read the parameter file");
  // Read to one byte past the limit, so a file that grew since stat() is caught too.
  std::string text(kMostBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMostBytes) throw too_large();
  note_input_file("", file);
  return parse(text, file.string());
}

ParamTable ParamTable::parse(std::string_view text, std::string source) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->root = toml::parse(text, source);
  } catch (const toml::parse_error& err) {
    throw InputError(source + ":" + std::to_string(err.source().begin.line), "",
                     "TOML syntax error: " + one_line(err.description()));
  }
  return ParamTable(std::move(impl), std::move(source));
}

void ParamTable::apply_override(std::string_view assignment) {
  const std::size_t eq = assignment.find('=');
  const std::string key(assignment.substr(0, eq));
  if (eq == std::string_view::npos || key.empty() || key.front() == '.' || key.back() == '.' ||
      key.find("..") != std::string::npos)
    throw InputError("command line", std::string(assignment),
                     "expected an override of the form key=value, e.g. grid.nx=256");
  const std::string value_text(assignment.substr(eq + 1));
  toml::table parsed;
  try {
    parsed = toml::parse("value = " + value_text);
  } catch (const toml::parse_error&) {
    parsed.insert_or_assign("value", value_text);  // a bare word: take it as a string
  }
  toml::table* table = &impl_->root;
  const std::vector<std::string> parts = split_key(key);
  for (std::size_t p = 0; p + 1 < parts.size(); ++p) {
    toml::node* next = table->get(parts[p]);
    if (next == nullptr) next = &table->insert_or_assign(parts[p], toml::table{}).first->second;
    table = next->as_table();
    if (table == nullptr)
      throw InputError("command line", key,
                       "cannot set it: " + printable(parts[p], kQuotedMost) +
                           " is a value, not a table, in " + printable(source_));
  }
  table->insert_or_assign(parts.back(), std::move(*parsed.get("value")));
  overridden_.insert(key);
}

std::string ParamTable::source_of(std::string_view key) const {
  if (overridden_.count(key) != 0) return "command line";
  if (const toml::node* node = find_node(impl_->root, key); node != nullptr)
    return source_ + ":" + std::to_string(node->source().begin.line);
  return source_;
}

bool ParamTable::has(std::string_view key) const { return find_node(impl_->root, key) != nullptr; }

namespace {

[[noreturn]] void wrong_type(const std::string& where, std::string_view key, const char* expected,
                             const toml::node& node) {
  throw InputError(where, std::string(key),
                   std::string("expected ") + expected + ", got " + type_words(node.type()) + " (" +
                       shown(node) + ")");
}

}  // namespace

// One pattern for every typed read: find the node (or fall back, or complain that it is
// missing), convert it, remember the key and the value used.
#define PARASOL_PARAM_READ(convert, expected, to_value)                                        \
  known_.emplace(key);                                                                         \
  const toml::node* node = find_node(impl_->root, key);                                        \
  if (node == nullptr) {                                                                       \
    if (!fallback)                                                                             \
      throw InputError(source_, std::string(key), std::string("missing; expected ") + expected); \
    resolved_[std::string(key)] = to_value(*fallback);                                         \
    return *fallback;                                                                          \
  }                                                                                            \
  const auto result = convert(*node, source_of(key), key);                                     \
  resolved_[std::string(key)] = to_value(result);                                              \
  return result

namespace {

template <class T>
Value as_value(const T& v) { return Value(v); }
Value as_value(const std::vector<std::string>& v) {
  std::string text;
  for (const std::string& s : v) text += (text.empty() ? "" : ", ") + s;
  return text;
}
Value as_value(const std::vector<std::vector<double>>& rows) {
  std::vector<double> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}
Value as_value(const Shape& s) { return std::vector<std::int64_t>{s.x, s.y, s.z}; }
Value as_value(const std::vector<Shape>& v) { return join_shapes(v); }

std::int64_t to_int(const toml::node& node, const std::string& where, std::string_view key) {
  if (!node.is_integer()) wrong_type(where, key, "an integer", node);
  return node.as_integer()->get();
}

double to_double(const toml::node& node, const std::string& where, std::string_view key) {
  if (node.is_integer()) return static_cast<double>(node.as_integer()->get());
  if (!node.is_floating_point()) wrong_type(where, key, "a number", node);
  return node.as_floating_point()->get();
}

bool to_bool(const toml::node& node, const std::string& where, std::string_view key) {
  if (!node.is_boolean()) wrong_type(where, key, "true or false", node);
  return node.as_boolean()->get();
}

std::string to_string_value(const toml::node& node, const std::string& where, std::string_view key) {
  if (!node.is_string()) wrong_type(where, key, "a string", node);
  return node.as_string()->get();
}

std::vector<std::string> to_strings(const toml::node& node, const std::string& where,
                                    std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) wrong_type(where, key, "an array of strings", node);
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    if (!item.is_string()) wrong_type(where, key, "an array of strings", item);
    out.push_back(item.as_string()->get());
  }
  return out;
}

std::vector<double> to_doubles(const toml::node& node, const std::string& where,
                               std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) wrong_type(where, key, "an array of numbers", node);
  std::vector<double> out;
  for (const toml::node& item : *array) {
    if (!item.is_integer() && !item.is_floating_point())
      wrong_type(where, key, "an array of numbers", item);
    out.push_back(to_double(item, where, key));
  }
  return out;
}

std::vector<std::vector<double>> to_double_rows(const toml::node& node, const std::string& where,
                                                std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) wrong_type(where, key, "an array of rows of numbers", node);
  std::vector<std::vector<double>> out;
  for (const toml::node& row : *array) {
    if (row.as_array() == nullptr) wrong_type(where, key, "an array of rows of numbers", row);
    out.push_back(to_doubles(row, where, key));
  }
  return out;
}

Shape to_shape(const toml::node& node, const std::string& where, std::string_view key) {
  const char* expected = "a block shape [x, y, z] of positive integers";
  const toml::array* array = node.as_array();
  if (array == nullptr || array->size() < 1 || array->size() > 3) wrong_type(where, key, expected, node);
  int dims[3] = {1, 1, 1};
  for (std::size_t d = 0; d < array->size(); ++d) {
    const toml::node& item = *array->get(d);
    if (!item.is_integer()) wrong_type(where, key, expected, node);
    const std::int64_t v = item.as_integer()->get();
    if (v < 1 || v > 1024)
      throw InputError(where, std::string(key),
                       std::string(expected) + " (each at most 1024), got " + shown(node));
    dims[d] = static_cast<int>(v);
  }
  return {dims[0], dims[1], dims[2]};
}

std::vector<Shape> to_shapes(const toml::node& node, const std::string& where, std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) wrong_type(where, key, "an array of block shapes [[x, y, z], ...]", node);
  std::vector<Shape> out;
  for (const toml::node& item : *array) out.push_back(to_shape(item, where, key));
  return out;
}

}  // namespace

std::int64_t ParamTable::get_int(std::string_view key, std::optional<std::int64_t> fallback) {
  PARASOL_PARAM_READ(to_int, "an integer", as_value);
}
double ParamTable::get_double(std::string_view key, std::optional<double> fallback) {
  PARASOL_PARAM_READ(to_double, "a number", as_value);
}
bool ParamTable::get_bool(std::string_view key, std::optional<bool> fallback) {
  PARASOL_PARAM_READ(to_bool, "true or false", as_value);
}
std::string ParamTable::get_string(std::string_view key, std::optional<std::string> fallback) {
  PARASOL_PARAM_READ(to_string_value, "a string", as_value);
}
std::vector<std::string> ParamTable::get_strings(std::string_view key,
                                                 std::optional<std::vector<std::string>> fallback) {
  PARASOL_PARAM_READ(to_strings, "an array of strings", as_value);
}
std::vector<double> ParamTable::get_doubles(std::string_view key,
                                            std::optional<std::vector<double>> fallback) {
  PARASOL_PARAM_READ(to_doubles, "an array of numbers", as_value);
}
std::vector<std::vector<double>> ParamTable::get_double_rows(
    std::string_view key, std::optional<std::vector<std::vector<double>>> fallback) {
  PARASOL_PARAM_READ(to_double_rows, "an array of rows of numbers", as_value);
}
Shape ParamTable::get_shape(std::string_view key, std::optional<Shape> fallback) {
  PARASOL_PARAM_READ(to_shape, "a block shape [x, y, z]", as_value);
}
std::vector<Shape> ParamTable::get_shapes(std::string_view key,
                                          std::optional<std::vector<Shape>> fallback) {
  PARASOL_PARAM_READ(to_shapes, "an array of block shapes", as_value);
}
#undef PARASOL_PARAM_READ

void ParamTable::skip(std::string_view key) { known_.emplace(key); }

KeyValue read_value(ParamTable& t, const KeyInfo& k, const std::optional<KeyValue>& fallback,
                    const std::filesystem::path& params_path) {
  // The default in the type the key reads, or nothing for a required key.
  const auto given = [&](auto type_tag) {
    using T = decltype(type_tag);
    return fallback ? std::optional<T>(std::get<T>(*fallback)) : std::optional<T>();
  };
  const std::string_view key = k.key;
  switch (k.type) {
    case KeyType::integer: return t.get_int(key, given(std::int64_t{}));
    case KeyType::number: return t.get_double(key, given(double{}));
    case KeyType::boolean: return t.get_bool(key, given(bool{}));
    case KeyType::string:
    case KeyType::choice: return t.get_string(key, given(std::string{}));
    case KeyType::file: return get_file(t, key, params_path, given(std::string{}));
    case KeyType::strings:
    case KeyType::choices: return t.get_strings(key, given(std::vector<std::string>{}));
    case KeyType::numbers: return t.get_doubles(key, given(std::vector<double>{}));
    case KeyType::shape: return t.get_shape(key, given(Shape{}));
    case KeyType::shapes: return t.get_shapes(key, given(std::vector<Shape>{}));
    case KeyType::matrix: return t.get_double_rows(key, given(std::vector<std::vector<double>>{}));
  }
  throw Error("read_value: a key type no reader knows");
}

void ParamTable::reject_unknown_keys() const {
  std::vector<std::pair<std::string, int>> leaves;
  collect_leaves(impl_->root, "", leaves);
  for (const auto& [key, line] : leaves) {
    if (known_.count(key) != 0) continue;
    // An empty table whose name begins known keys ("[sweep]" with nothing in it) is harmless.
    const auto after = known_.lower_bound(key + ".");
    if (after != known_.end() && after->rfind(key + ".", 0) == 0) continue;
    std::string closest;
    std::size_t best = 4;  // three edits or more away is no longer a likely misspelling
    for (const std::string& candidate : known_) {
      // The lengths' difference bounds the distance from below: a 1 MB key costs no comparisons.
      const std::size_t gap = key.size() > candidate.size() ? key.size() - candidate.size()
                                                            : candidate.size() - key.size();
      if (gap >= best) continue;
      const std::size_t d = edit_distance(key, candidate);
      if (d < best) {
        best = d;
        closest = candidate;
      }
    }
    const std::string where =
        overridden_.count(key) != 0 ? "command line" : source_ + ":" + std::to_string(line);
    std::string expected = "unknown key";
    if (!closest.empty()) expected += "; did you mean " + closest + "?";
    // InputError escapes a quoted TOML key's line break and cuts a long one.
    throw InputError(where, key, expected);
  }
}

std::string get_file(ParamTable& table, std::string_view key,
                     const std::filesystem::path& params_path, std::optional<std::string> fallback) {
  std::string file = table.get_string(key, std::move(fallback));
  if (file.empty()) return file;
  if (std::filesystem::path(file).is_relative() && table.source_of(key) != "command line")
    file = (params_path.parent_path() / file).lexically_normal().string();
  // A folder, FIFO or device is refused now, naming the key: a reader would block on a FIFO, or
  // fail later in words that do not say which parameter named it. A missing file is left to the
  // reader, which says what it expected to find.
  const std::string why = not_a_regular_file(file);
  if (!why.empty() && why != kNoSuchFile)
    throw InputError(table.source_of(key), std::string(key),
                     "\"" + printable(file) + "\" " + why + "; expected a regular file");
  note_input_file(std::string(key), file);
  return file;
}

}  // namespace parasol::io
