#include "apps/keys.hpp"

#include <algorithm>
#include <vector>

namespace parasol::app {
namespace {

// "integer ≥ 3", "\"zmarch\", \"zreg\", or \"auto\"", "[x, y, z]": what a key holds, in words.
std::string holds(const KeyInfo& k) {
  if (k.type == KeyType::choice)
    return k.values + (k.automatic ? ", or \"auto\"" : "");
  if (k.type == KeyType::choices) return "array of " + k.values;
  std::string text(name(k.type));
  if (!k.values.empty()) text += " " + k.values;
  return text;
}

// A default as the docs' table shows it: TOML values in code type, words ("all") as they are.
std::string shown_default(const KeyInfo& k) {
  if (k.required()) return "required";
  const char c = k.fallback[0];
  const bool literal = c == '"' || c == '[' || c == '-' || (c >= '0' && c <= '9') ||
                       k.fallback == "true" || k.fallback == "false";
  return literal ? "`" + k.fallback + "`" : k.fallback;
}

// `help` with the condition it is read under and the GPU-only note.
std::string meaning(const KeyInfo& k) {
  std::string text = k.help;
  if (!k.read_when.empty()) text += " (read with " + k.read_when + ")";
  if (k.gpu_only) text += " (GPU runs only)";
  return text;
}

// `text` wrapped to lines of at most `width` characters, each starting with `indent`.
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

// Markdown escapes the table needs: a `|` inside a cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\";
    out += c;
  }
  return out;
}

std::vector<KeyInfo> keys_of(const Binding& b) {
  if (b.keys == nullptr)
    throw InputError("", "solver", std::string(b.name) + " does not declare its keys yet; see "
                                   "docs/parameters.md");
  return b.keys();
}

}  // namespace

const Binding& binding_named(const std::string& solver) {
  std::string known;
  for (const Binding& b : bindings()) {
    if (b.name == solver) return b;
    known += (known.empty() ? "\"" : ", \"") + std::string(b.name) + "\"";
  }
  throw InputError("command line", "solver",
                   "unknown solver \"" + solver + "\"; expected one of " + known);
}

void print_keys(std::ostream& out, const Binding& binding) {
  out << binding.name << ": " << binding.summary << "\n";
  if (!binding.examples.empty()) {
    out << "examples:";
    for (std::string_view e : binding.examples) out << " " << e;
    out << "\n";
  }
  const std::vector<KeyInfo> keys = keys_of(binding);
  for (bool sweep : {false, true}) {
    out << (sweep ? "\nkeys of `parasol sweep` ([sweep] table):\n"
                  : "\nkeys (solver = \"" + std::string(binding.name) + "\"):\n");
    for (const KeyInfo& k : keys) {
      if (k.sweep != sweep) continue;
      std::string line = k.key + "  " + holds(k);
      if (!k.unit.empty()) line += ", in " + k.unit;
      line += k.required() ? "; required" : "; default " + k.fallback;
      out << wrapped(line, 2, 100);
      out << wrapped(meaning(k), 6, 100);
    }
  }
}

void print_keys_markdown(std::ostream& out, const Binding& binding) {
  out << "| key | type | unit | default | meaning |\n|---|---|---|---|---|\n";
  out << "| `solver` | string | | required | `\"" << binding.name << "\"` |\n";
  for (const KeyInfo& k : keys_of(binding))
    out << "| `" << k.key << "` | " << cell(holds(k)) << " | " << cell(k.unit) << " | "
        << cell(shown_default(k)) << " | " << cell(meaning(k))
        << " |\n";
}

void print_solvers(std::ostream& out) {
  std::size_t width = 0;
  for (const Binding& b : bindings()) width = std::max(width, b.name.size());
  for (const Binding& b : bindings()) {
    out << b.name << std::string(width + 2 - b.name.size(), ' ') << b.summary;
    std::string examples;
    for (std::string_view e : b.examples) examples += (examples.empty() ? "" : ", ") + std::string(e);
    if (!examples.empty()) out << " (" << examples << ")";
    out << "\n";
  }
}

}  // namespace parasol::app
