#include "io/autotune.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

#include "io/commit.hpp"
#include "kernels/error.hpp"
#include "kernels/printable.hpp"

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

// A table's entries in the order the file gives them (toml++ keeps them sorted by key).
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (const auto& [name, value] : table) entries.emplace_back(std::string(name.str()), &value);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position pa = a.second->source().begin, pb = b.second->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
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

  // An inline table of strings ({ block = "32x8x1", chunk = "8" }), in the file's order.
  std::vector<std::pair<std::string, std::string>> strings(const char* key) const {
    std::vector<std::pair<std::string, std::string>> values;
    const toml::node* node = find(key, false, "a table of strings");
    if (node == nullptr) return values;
    const toml::table* table = node->as_table();
    if (table == nullptr) fail(key, "expected a table of strings, as { block = \"32x8x1\" }");
    for (const auto& [name, value] : in_file_order(*table)) {
      if (!value->is_string()) fail(key, "expected a table of strings, as { block = \"32x8x1\" }");
      values.emplace_back(name, value->as_string()->get());
    }
    return values;
  }

  // An inline table of numbers ({ median_s = 0.0012 }), in the file's order.
  std::vector<std::pair<std::string, double>> numbers(const char* key) const {
    std::vector<std::pair<std::string, double>> values;
    const toml::node* node = find(key, false, "a table of numbers");
    if (node == nullptr) return values;
    const toml::table* table = node->as_table();
    if (table == nullptr) fail(key, "expected a table of numbers");
    for (const auto& [name, value] : in_file_order(*table)) {
      if (value->is_integer())
        values.emplace_back(name, static_cast<double>(value->as_integer()->get()));
      else if (value->is_floating_point())
        values.emplace_back(name, value->as_floating_point()->get());
      else
        fail(key, "expected a table of numbers");
    }
    return values;
  }

  bool has(const char* key) const { return table_.get(key) != nullptr; }

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

// A choice of either format. The first (laplace3d's alone) gave the grid as `grid = [nx, ny, nz]`,
// the block as `block = [x, y, z]` and what it measured as keys of their own; they are read into
// the problem ("512x512x512"), the block axis ("128x2x1") and `measured`.
AutotuneChoice read_choice(const toml::table& table, const std::string& file, int line,
                           bool first_format) {
  const Entry e(table, file, line);
  AutotuneChoice c;
  c.line = line;
  c.key.device = e.string("device");
  c.key.compute_capability = e.string("compute_capability");
  c.key.solver = e.string("solver");
  if (first_format) {
    // Past 2^40 points in a direction no device holds the grid; the bound only rejects nonsense.
    c.key.problem = join_extent(
        e.extent("grid", 3, std::int64_t{1} << 40, "an array of 1 to 3 positive integers"));
  } else {
    c.key.problem = e.string("problem");
  }
  c.key.precision = e.string("precision");
  c.variant = e.string("variant");
  if (first_format) {
    std::vector<std::int64_t> block =
        e.extent("block", 3, 1024, "a block shape [x, y, z] of integers from 1 to 1024");
    block.resize(3, 1);
    c.axes.emplace_back("block", join_extent(block));
    for (const char* key : {"gpoints_per_s", "gb_per_s", "percent_of_copy"})
      if (e.has(key)) c.measured.emplace_back(key, e.number(key));
  } else {
    c.axes = e.strings("axes");
    c.measured = e.numbers("measured");
  }
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

// Measurements are written to 4 significant digits: they are for people reading the file. TOML
// has no NaN literal in every reader's taste, so a measurement that is not a number is left out.
std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", value);
  std::string s = text;
  // TOML floats need a digit after a point or an exponent; "%g" may give "327".
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// A bare TOML key when the name allows one, else a quoted key.
std::string key_of(const std::string& name) {
  const bool bare = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
  });
  return bare ? name : quoted(name);
}

// Makes the folder that will hold `path`, when it is missing.
void make_folder_of(const fs::path& path) {
  const fs::path folder = path.parent_path();
  std::error_code ec;
  if (folder.empty() || fs::is_directory(folder, ec)) return;
  fs::create_directories(folder, ec);
  if (ec)
    throw Error(printable(path.string()) + ": creating the folder " + printable(folder.string()) +
                ": " + ec.message());
}

}  // namespace

std::string describe(const AutotuneKey& key) {
  return key.solver + " " + key.problem + " " + key.precision + " on " + key.device +
         " (compute capability " + key.compute_capability + ")";
}

std::optional<std::string> AutotuneChoice::axis(const std::string& name) const {
  for (const auto& [axis, value] : axes)
    if (axis == name) return value;
  return std::nullopt;
}

std::string AutotuneChoice::describe() const {
  std::string text = variant;
  for (const auto& [axis, value] : axes) text += ", " + axis + " " + value;
  return text;
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
  const std::string format_name =
      format != nullptr && format->is_string() ? format->as_string()->get() : "";
  if (format_name != kAutotuneFormat && format_name != kAutotuneFormatV1)
    throw InputError(shown, "format",
                     std::string("expected \"") + kAutotuneFormat + "\" (or \"" +
                         kAutotuneFormatV1 + "\"): not a parasol autotune file" + kRemedy);
  const bool first_format = format_name == kAutotuneFormatV1;
  const toml::node* choices = root.get("choice");
  if (choices == nullptr) return file;
  const toml::array* array = choices->as_array();
  if (array == nullptr || !array->is_array_of_tables())
    throw InputError(shown + ":" + std::to_string(choices->source().begin.line), "choice",
                     std::string("expected [[choice]] tables") + kRemedy);
  // A file edited by hand may repeat a key; as when storing, the later choice wins.
  for (const toml::node& node : *array)
    file.put(read_choice(*node.as_table(), shown, static_cast<int>(node.source().begin.line),
                         first_format));
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
      "# The fastest configuration `parasol sweep --autotune` measured, one [[choice]] per\n"
      "# device, solver, problem size and precision; `parasol run` uses them for method.variant = "
      "\"auto\".\n"
      "# Rewritten whole by each `parasol sweep --autotune`; delete a choice (or the file) to "
      "forget it.\n";
  text += "format = " + quoted(kAutotuneFormat) + "\n";
  for (const AutotuneChoice& c : choices_) {
    text += "\n[[choice]]\n";
    text += "device = " + quoted(c.key.device) + "\n";
    text += "compute_capability = " + quoted(c.key.compute_capability) + "\n";
    text += "solver = " + quoted(c.key.solver) + "\n";
    text += "problem = " + quoted(c.key.problem) + "\n";
    text += "precision = " + quoted(c.key.precision) + "\n";
    text += "variant = " + quoted(c.variant) + "\n";
    std::string axes;
    for (const auto& [axis, value] : c.axes)
      axes += (axes.empty() ? "" : ", ") + key_of(axis) + " = " + quoted(value);
    text += "axes = {" + (axes.empty() ? std::string() : " " + axes + " ") + "}\n";
    std::string measured;
    for (const auto& [name, value] : c.measured)
      if (std::isfinite(value))
        measured += (measured.empty() ? "" : ", ") + key_of(name) + " = " + number(value);
    text += "measured = {" + (measured.empty() ? std::string() : " " + measured + " ") + "}\n";
    text += "timed = " + std::to_string(c.timed) + "\n";
    if (!c.date.empty()) text += "date = " + quoted(c.date) + "\n";
    if (!c.sweep_file.empty()) text += "sweep_file = " + quoted(c.sweep_file) + "\n";
    if (!c.parasol_version.empty()) text += "parasol_version = " + quoted(c.parasol_version) + "\n";
  }
  make_folder_of(path_);
  write_file_atomically(path_, text);
}

void AutotuneFile::store(const fs::path& path, AutotuneChoice choice) {
  make_folder_of(path);
  const fs::path lock_path = path.string() + ".lock";
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error(printable(lock_path.string()) + ": opening the autotune file's lock failed: " +
                std::strerror(errno));
  // Closing the descriptor releases the lock, on every path out of here.
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR)
      throw Error(printable(lock_path.string()) + ": locking the autotune file failed: " +
                  std::strerror(errno));
  AutotuneFile file = load(path);
  file.put(std::move(choice));
  file.save();
}

void require_storable(const fs::path& path) {
  const std::string shown = path.string();
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) throw InputError(shown, "", "the autotune file is not a regular file");
    if (access(path.c_str(), W_OK) != 0)
      throw InputError(shown, "", "the autotune file is read-only; --autotune cannot store in it");
  }
  // The nearest folder on the way that exists: store() makes the rest.
  fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  while (stat(folder.c_str(), &st) != 0 && errno == ENOENT && folder.has_relative_path())
    folder = folder.parent_path().empty() ? fs::path(".") : folder.parent_path();
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(shown, "",
                     printable(folder.string()) + " is not a folder; --autotune cannot store here");
  if (access(folder.c_str(), W_OK) != 0)
    throw InputError(shown, "", "folder " + printable(folder.string()) +
                                    " is not writable; --autotune cannot store here");
}

fs::path shipped_autotune_path() {
  if (const char* set = std::getenv("PARASOL_SHIPPED_AUTOTUNE")) return set;
  std::error_code ec;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path shipped =
      executable.parent_path().parent_path() / "share" / "parasol" / "autotune.toml";
  return fs::is_regular_file(shipped, ec) ? shipped : fs::path();
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
