// The parameter reader against random and mutated TOML: whatever the text, reading it either
// works or throws an InputError whose message is one line. Seeded; the seed and the case's text
// are in a failure's message.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/param_table.hpp"
#include "kernels/error.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> example_files() {
  std::vector<std::string> texts;
  for (const auto& entry : fs::directory_iterator(fs::path(PARASOL_SOURCE_DIR) / "inputs")) {
    if (entry.path().extension() != ".toml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  return texts;
}

// Pieces that TOML gives meaning to, and values at the edges of what a reader converts.
const std::vector<std::string> kTokens{
    "[", "]", "[[", "]]", "{", "}", "=", ",", ".", "\"", "'", "\"\"\"", "'''", "#", "\n", "\r\n",
    "\t", " ", "\\", "\\u0000", "\\n", "inf", "-inf", "nan", "1e999", "-0", "0x7f", "0b101",
    "9223372036854775807", "-9223372036854775808", "99999999999999999999", "true", "false",
    "1979-05-27T07:32:00Z", "[grid]", "[method]", "[sweep]", "a.b.c", "grid.nx", "[1, 2, 3]",
    "[[1], [2]]", "{x = 1}", "\xff\xfe", std::string(1, '\0'), "\xce\x94", "solver = \"x\"\n"};

std::string mutated(const std::vector<std::string>& examples, std::mt19937_64& gen) {
  const auto pick = [&](std::size_t n) {
    return n == 0 ? std::size_t{0} : std::uniform_int_distribution<std::size_t>(0, n - 1)(gen);
  };
  std::string text = examples[pick(examples.size())];
  const int edits = 1 + static_cast<int>(pick(6));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = pick(text.size() + 1);
    switch (pick(8)) {
      case 0:  // a byte replaced by any byte
        if (!text.empty()) text[pick(text.size())] = static_cast<char>(pick(256));
        break;
      case 1:
      case 2:  // a token put in
        text.insert(at, kTokens[pick(kTokens.size())]);
        break;
      case 3:  // a stretch cut out
        text.erase(at, pick(40));
        break;
      case 4:  // cut short
        text.resize(at);
        break;
      case 5: {  // a line repeated (a key or table defined twice)
        const std::size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
        const std::size_t from = start == std::string::npos ? 0 : start + 1;
        const std::size_t end = text.find('\n', from);
        text.insert(from, text.substr(from, end == std::string::npos ? end : end - from + 1));
        break;
      }
      case 6: {  // a stretch of another example spliced in
        const std::string& other = examples[pick(examples.size())];
        const std::size_t from = pick(other.size());
        text.insert(at, other.substr(from, pick(200)));
        break;
      }
      default:  // random bytes
        for (std::size_t i = pick(16); i-- > 0;) text.insert(text.begin() + static_cast<long>(at), static_cast<char>(pick(256)));
    }
  }
  return text;
}

// The reads a solver makes, of each kind, with and without defaults.
void read_typical_keys(ParamTable& t, std::mt19937_64& gen) {
  const auto maybe = [&] { return (gen() & 1) != 0; };
  const auto attempt = [](auto read) {
    try {
      read();
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.find('\n') != std::string::npos || what.empty())
        throw std::logic_error("not one line: " + what);
    }
  };
  attempt([&] { t.get_string("solver", maybe() ? std::optional<std::string>("laplace3d") : std::nullopt); });
  attempt([&] { t.get_int("grid.nx", maybe() ? std::optional<std::int64_t>(64) : std::nullopt); });
  attempt([&] { t.get_int("lattice.nx"); });
  attempt([&] { t.get_int("signal.length", 1024); });
  attempt([&] { t.get_double("grid.spacing", 1.0); });
  attempt([&] { t.get_double("iteration.tolerance"); });
  attempt([&] { t.get_bool("output.dx", false); });
  attempt([&] { t.get_string("method.variant", std::string("auto")); });
  attempt([&] { t.get_shape("method.block", Shape{32, 8, 1}); });
  attempt([&] { t.get_shapes("sweep.blocks", std::vector<Shape>{}); });
  attempt([&] { t.get_strings("sweep.variants", std::vector<std::string>{}); });
  attempt([&] { t.get_doubles("lattice.origin", std::vector<double>{0, 0, 0}); });
  attempt([&] { t.apply_override("grid.nx=" + std::to_string(gen() % 1000)); });
  attempt([&] { t.apply_override(kTokens[gen() % kTokens.size()] + "=" + kTokens[gen() % kTokens.size()]); });
  attempt([&] { t.reject_unknown_keys(); });
  for (const auto& [key, value] : t.resolved()) (void)value, (void)t.source_of(key);
}

TEST(ParamTableFuzz, MutatedExamplesReadOrFailInOneLine) {
  const std::vector<std::string> examples = example_files();
  ASSERT_GE(examples.size(), 5u);
  const std::uint64_t seed = 20261123;
  std::mt19937_64 gen(seed);
  const auto start = std::chrono::steady_clock::now();
  int parsed = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    // One case in eight is noise from scratch; the rest start from a real parameter file.
    std::string text;
    if (gen() % 8 == 0) {
      for (std::size_t n = gen() % 300; n-- > 0;) text += static_cast<char>(gen() % 256);
    } else {
      text = mutated(examples, gen);
    }
    SCOPED_TRACE("seed " + std::to_string(seed) + ", case " + std::to_string(i) + ":\n" +
                 text.substr(0, 2000));
    try {
      ParamTable t = ParamTable::parse(text, "fuzz.toml");
      ++parsed;
      read_typical_keys(t, gen);
    } catch (const InputError& e) {
      ++refused;
      const std::string what = e.what();
      ASSERT_EQ(what.find('\n'), std::string::npos) << what;
      ASSERT_FALSE(what.empty());
    } catch (const std::exception& e) {
      FAIL() << "not an InputError: " << e.what();
    }
  }
  // Both paths were exercised: a fuzzer that only ever hit syntax errors tests little.
  EXPECT_GT(parsed, 200);
  EXPECT_GT(refused, 200);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60);
}

// A command-line override made at random: keys of plain words, dots in odd places, tokens and
// raw bytes; values of TOML tokens, bare words, half-made arrays and tables, and noise.
std::string random_override(std::mt19937_64& gen) {
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen);
  };
  static const std::vector<std::string> kWords{"grid", "nx", "method", "variant", "sweep", "solver",
                                               "block", "a", "", ".", "..", "=", "\xff", " "};
  std::string key;
  for (std::size_t parts = 1 + pick(4); parts-- > 0;)
    key += (key.empty() || pick(4) == 0 ? "" : ".") +
           (pick(5) == 0 ? kTokens[pick(kTokens.size())] : kWords[pick(kWords.size())]);
  std::string value;
  for (std::size_t pieces = pick(4); pieces-- > 0;)
    value += pick(3) == 0 ? kWords[pick(kWords.size())] : kTokens[pick(kTokens.size())];
  if (pick(6) == 0)
    for (std::size_t n = pick(20); n-- > 0;) value += static_cast<char>(pick(256));
  switch (pick(8)) {
    case 0: return key;                      // no "=" at all
    case 1: return "=" + value;              // no key
    case 2: return key + "==" + value;       // "=" in the value
    default: return key + "=" + value;
  }
}

// Overrides as a user might mistype them on the command line, applied to real parameter files
// and read as a solver would: each either takes or is an InputError of one line.
TEST(ParamTableFuzz, RandomOverridesApplyOrFailInOneLine) {
  const std::vector<std::string> examples = example_files();
  const std::uint64_t seed = 20261124;
  std::mt19937_64 gen(seed);
  int taken = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    ParamTable t = ParamTable::parse(examples[gen() % examples.size()], "example.toml");
    std::vector<std::string> overrides;
    for (std::size_t n = 1 + gen() % 4; n-- > 0;) overrides.push_back(random_override(gen));
    std::string shown;
    for (const std::string& o : overrides) shown += "\n  " + o;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", case " + std::to_string(i) + ":" + shown);
    try {
      for (const std::string& o : overrides) t.apply_override(o);
      ++taken;
      read_typical_keys(t, gen);
    } catch (const InputError& e) {
      ++refused;
      const std::string what = e.what();
      ASSERT_EQ(what.find('\n'), std::string::npos) << what;
      ASSERT_FALSE(what.empty());
    } catch (const std::exception& e) {
      FAIL() << "not an InputError: " << e.what();
    }
  }
  EXPECT_GT(taken, 1000);
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace parasol::io
