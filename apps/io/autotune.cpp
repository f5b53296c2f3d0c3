#include "apps/io/autotune.hpp"

#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

#include "apps/io/commit.hpp"
#include "kernels/error.hpp"

namespace parasol::io {
namespace fs = std::filesystem;

namespace {

// Said after every complaint about the file's contents: it is a cache, so deleting it is safe.
constexpr const char* kRemedy =
    "; fix or delete the file (`parasol sweep --autotune` writes it anew)";

std::string join_extent(const std::vector<std::int64_t>& extent) {
  std::string text;
  for (std::int64_t n : extent) text += (text.empty() ? "" : "x") + std::to_string(n);
  return text;
}

// One [[choice]] table being read: every complaint names the file, the table's line and the key.
class Entry {
 public:
  Entry(const toml::table& table, std::string file, int line)
      : table_(table), file_(std::move(file)), line_(line) {}

  std::string string(const char* key, bool required = true) const {
    const toml::node* node = find(key, required, "a string");
    if (node == nullptr) return {};
    if (!node->is_string()) fail(key, "expected a string");
    return node->as_string()->get();
  }

  double number(const char* key) const {
    const toml::node* node = find(key, false, "a number");
    if (node == nullptr) return 0;
    if (node->is_integer()) return static_cast<double>(node->as_integer()->get());
    if (!node->is_floating_point()) fail(key, "expected a number");
    return node->as_floating_point()->get();
  }

  std::int64_t integer(const char* key) const {
    const toml::node* node = find(key, false, "an integer");
    if (node == nullptr) return 0;
    if (!node->is_integer()) fail(key, "expected an integer");
    return node->as_integer()->get();
  }

  // An array of 1 to `most` positive integers, each at most `largest`.
  std::vector<std::int64_t> extent(const char* key, std::size_t most, std::int64_t largest,
                                   const std::string& what) const {
    const toml::node* node = find(key, true, what);
    const toml::array* array = node->as_array();
    if (array == nullptr || array->empty() || array->size() > most) fail(key, "expected " + what);
    std::vector<std::int64_t> values;
    for (const toml::node& item : *array) {
      if (!item.is_integer()) fail(key, "expected " + what);
      const std::int64_t v = item.as_integer()->get();
      if (v < 1 || v > largest) fail(key, "expected " + what);
      values.push_back(v);
    }
    return values;
  }

 private:
  const toml::node* find(const char* key, bool required, const std::string& what) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr && required) fail(key, "missing; expected " + what);
    return node;
  }
  [[noreturn]] void fail(const char* key, const std::string& expected) const {
    const toml::node* node = table_.get(key);
    const int line = node != nullptr ? static_cast<int>(node->source().begin.line) : line_;
    throw InputError(file_ + ":" + std::to_string(line), std::string("choice.") + key,
                     expected + kRemedy);
  }

  const toml::table& table_;
  std::string file_;
  int line_;
};

AutotuneChoice read_choice(const toml::table& table, const std::string& file, int line) {
  const Entry e(table, file, line);
  AutotuneChoice c;
  c.line = line;
  c.key.device = e.string("device");
  c.key.compute_capability = e.string("compute_capability");
  c.key.solver = e.string("solver");
  // Past 2^40 points in a direction no device holds the grid; the bound only rejects nonsense.
  c.key.grid =
      e.extent("grid", 3, std::int64_t{1} << 40, "an array of 1 to 3 positive integers");
  c.key.precision = e.string("precision");
  c.variant = e.string("variant");
  const std::vector<std::int64_t> block =
      e.extent("block", 3, 1024, "a block shape [x, y, z] of integers from 1 to 1024");
  c.block.x = static_cast<int>(block[0]);
  c.block.y = block.size() > 1 ? static_cast<int>(block[1]) : 1;
  c.block.z = block.size() > 2 ? static_cast<int>(block[2]) : 1;
  c.gpoints_per_s = e.number("gpoints_per_s");
  c.gb_per_s = e.number("gb_per_s");
  c.percent_of_copy = e.number("percent_of_copy");
  c.timed = e.integer("timed");
  c.date = e.string("date", false);
  c.sweep_file = e.string("sweep_file", false);
  c.parasol_version = e.string("parasol_version", false);
  return c;
}

// A TOML basic string, "..." escaped as TOML requires: device names are the driver's to choose.
std::string quoted(const std::string& text) {
  std::ostringstream out;
  out << toml::toml_formatter{toml::value<std::string>(text),
                              toml::format_flags::allow_unicode_strings};
  return out.str();
}

// Measurements are written to one decimal: they are for people reading the file.
std::string decimal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string integers(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

}  // namespace

std::string describe(const AutotuneKey& key) {
  return key.solver + " " + join_extent(key.grid) + " " + key.precision + " on " + key.device +
         " (compute capability " + key.compute_capability + ")";
}

AutotuneFile AutotuneFile::load(const fs::path& path) {
  AutotuneFile file(path);
  const std::string shown = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return file;
  if (fs::is_directory(status)) throw InputError(shown, "", "the autotune file is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(shown, "", "cannot read the autotune file");
  std::ostringstream text;
  text << in.rdbuf();

  toml::table root;
  try {
    root = toml::parse(text.str(), shown);
  } catch (const toml::parse_error& err) {
    throw InputError(shown + ":" + std::to_string(err.source().begin.line), "",
                     "not a valid autotune file: TOML syntax error: " +
                         std::string(err.description()) + kRemedy);
  }
  const toml::node* format = root.get("format");
  if (format == nullptr || !format->is_string() || format->as_string()->get() != kAutotuneFormat)
    throw InputError(shown, "format",
                     std::string("expected \"") + kAutotuneFormat +
                         "\": not a parasol autotune file" + kRemedy);
  const toml::node* choices = root.get("choice");
  if (choices == nullptr) return file;
  const toml::array* array = choices->as_array();
  if (array == nullptr || !array->is_array_of_tables())
    throw InputError(shown + ":" + std::to_string(choices->source().begin.line), "choice",
                     std::string("expected [[choice]] tables") + kRemedy);
  // A file edited by hand may repeat a key; as when storing, the later choice wins.
  for (const toml::node& node : *array)
    file.put(read_choice(*node.as_table(), shown, static_cast<int>(node.source().begin.line)));
  return file;
}

std::optional<AutotuneChoice> AutotuneFile::find(const AutotuneKey& key) const {
  for (const AutotuneChoice& c : choices_)
    if (c.key == key) return c;
  return std::nullopt;
}

void AutotuneFile::put(AutotuneChoice choice) {
  for (AutotuneChoice& c : choices_) {
    if (c.key == choice.key) {
      c = std::move(choice);
      return;
    }
  }
  choices_.push_back(std::move(choice));
}

void AutotuneFile::save() const {
  std::string text =
      "# The fastest variant and block shape `parasol sweep --autotune` measured, one [[choice]]\n"
      "# per device, solver, grid and precision; `parasol run` uses them for method.variant = "
      "\"auto\".\n"
      "# Rewritten whole by each `parasol sweep --autotune`; delete a choice (or the file) to "
      "forget it.\n";
  text += "format = " + quoted(kAutotuneFormat) + "\n";
  for (const AutotuneChoice& c : choices_) {
    text += "\n[[choice]]\n";
    text += "device = " + quoted(c.key.device) + "\n";
    text += "compute_capability = " + quoted(c.key.compute_capability) + "\n";
    text += "solver = " + quoted(c.key.solver) + "\n";
    text += "grid = " + integers(c.key.grid) + "\n";
    text += "precision = " + quoted(c.key.precision) + "\n";
    text += "variant = " + quoted(c.variant) + "\n";
    text += "block = " + integers({c.block.x, c.block.y, c.block.z}) + "\n";
    text += "gpoints_per_s = " + decimal(c.gpoints_per_s) + "\n";
    text += "gb_per_s = " + decimal(c.gb_per_s) + "\n";
    text += "percent_of_copy = " + decimal(c.percent_of_copy) + "\n";
    text += "timed = " + std::to_string(c.timed) + "\n";
    if (!c.date.empty()) text += "date = " + quoted(c.date) + "\n";
    if (!c.sweep_file.empty()) text += "sweep_file = " + quoted(c.sweep_file) + "\n";
    if (!c.parasol_version.empty()) text += "parasol_version = " + quoted(c.parasol_version) + "\n";
  }
  const fs::path folder = path_.parent_path();
  std::error_code ec;
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec)
      throw Error(path_.string() + ": creating the folder " + folder.string() + ": " + ec.message());
  }
  write_file_atomically(path_, text);
}

fs::path autotune_path(const fs::path& given) {
  if (!given.empty()) return given;
  const auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  if (const std::string file = variable("PARASOL_AUTOTUNE_FILE"); !file.empty()) return file;
  // The XDG base-directory specification says to ignore a relative XDG_CACHE_HOME.
  if (const fs::path cache = variable("XDG_CACHE_HOME"); cache.is_absolute())
    return cache / "parasol" / "autotune.toml";
  if (const fs::path home = variable("HOME"); !home.empty())
    return home / ".cache" / "parasol" / "autotune.toml";
  throw InputError("", "--autotune-file",
                   "neither PARASOL_AUTOTUNE_FILE, XDG_CACHE_HOME nor HOME is set; give the "
                   "autotune file's path");
}

}  // namespace parasol::io
