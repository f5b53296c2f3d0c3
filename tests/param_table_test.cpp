// Parameter files: every way a file or an override can be wrong gets one clear line naming the
// file, the key and what was expected.
#include <gtest/gtest.h>

#include <fstream>

#include "io/param_table.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol::io {
namespace {

constexpr const char* kFile = R"(solver = "laplace3d"

[grid]
nx = 64
ny = 32
spacing = 0.5

[method]
block = [32, 8, 1]
variant = "zreg"
)";

// The message of the InputError that `f` throws, or a failure.
template <class F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

using test::contains;

TEST(ParamTable, ReadsTypedValuesAndDefaults) {
  ParamTable t = ParamTable::parse(kFile, "a.toml");
  EXPECT_EQ(t.get_string("solver"), "laplace3d");
  EXPECT_EQ(t.get_int("grid.nx"), 64);
  EXPECT_EQ(t.get_double("grid.ny"), 32.0);  // an integer where a number is wanted is fine
  EXPECT_EQ(t.get_double("grid.spacing"), 0.5);
  EXPECT_EQ(t.get_int("grid.nz", 7), 7);
  EXPECT_EQ(t.get_shape("method.block"), (Shape{32, 8, 1}));
  EXPECT_EQ(t.get_string("method.variant"), "zreg");
  EXPECT_NO_THROW(t.reject_unknown_keys());
  EXPECT_EQ(std::get<std::int64_t>(t.resolved().at("grid.nz")), 7);
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(t.resolved().at("method.block")),
            (std::vector<std::int64_t>{32, 8, 1}));
}

TEST(ParamTable, MissingFileIsNamed) {
  const std::string m = input_error([] { ParamTable::load("/nonexistent/params.toml"); });
  EXPECT_TRUE(contains(m, "/nonexistent/params.toml")) << m;
  EXPECT_TRUE(contains(m, "no such parameter file")) << m;
}

TEST(ParamTable, FolderIsNamedAsOne) {
  const test::ScratchDir dir;
  const std::string m = input_error([&] { ParamTable::load(dir.path()); });
  EXPECT_TRUE(contains(m, dir.path().string() + ": is a folder; expected a TOML parameter file")) << m;
}

// A table quoted back, a key with a line break, a multi-line string: every message one line.
TEST(ParamTable, MessagesStayOnOneLine) {
  constexpr const char* kLines = R"(solver = "laplace3d"
[grid]
nx = 1
ny = 2
nz = 3
[method]
variant = """a
b"""
"odd\nkey" = 1
)";
  ParamTable t = ParamTable::parse(kLines, "lines.toml");
  std::vector<std::string> messages{
      input_error([&] { t.get_int("grid"); }),
      input_error([&] { t.get_int("method.variant"); }),
      input_error([&] { t.apply_override("no\nequals"); }),
      input_error([&] { ParamTable::parse("[a]\nx = 1\n[a]\ny = 2\n", "twice.toml"); }),
  };
  t.get_int("grid.nx");
  t.get_int("grid.ny");
  t.get_int("grid.nz");
  t.get_string("solver");
  t.get_string("method.variant");
  messages.push_back(input_error([&] { t.reject_unknown_keys(); }));
  for (const std::string& m : messages) {
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_TRUE(contains(messages[0], "expected an integer, got a table (nx = 1 ny = 2")) << messages[0];
  // A key's line break is shown escaped: the message stays one line and says what the key is.
  EXPECT_TRUE(contains(messages.back(), "odd\\nkey: unknown key")) << messages.back();
}

TEST(ParamTable, SyntaxErrorGivesTheLine) {
  const std::string m = input_error([] { ParamTable::parse("a = 1\n[grid]\nnx = = 3\n", "bad.toml"); });
  EXPECT_TRUE(contains(m, "bad.toml:3")) << m;
  EXPECT_TRUE(contains(m, "TOML syntax error")) << m;
}

TEST(ParamTable, MissingKeySaysWhatWasExpected) {
  ParamTable t = ParamTable::parse(kFile, "a.toml");
  const std::string m = input_error([&] { t.get_int("grid.nz"); });
  EXPECT_EQ(m, "a.toml: grid.nz: missing; expected an integer");
}

TEST(ParamTable, WrongTypeShowsTheValueAndItsLine) {
  ParamTable t = ParamTable::parse("[grid]\nnx = \"big\"\n", "a.toml");
  const std::string m = input_error([&] { t.get_int("grid.nx"); });
  EXPECT_EQ(m, "a.toml:2: grid.nx: expected an integer, got a string ('big')");
  ParamTable u = ParamTable::parse("x = 1.5\n", "a.toml");
  EXPECT_TRUE(contains(input_error([&] { u.get_int("x"); }), "got a floating-point number (1.5)"));
}

TEST(ParamTable, MisspeltKeyIsAnErrorWithASuggestion) {
  ParamTable t = ParamTable::parse("[grid]\nnx = 4\nnyy = 5\n", "a.toml");
  t.get_int("grid.nx");
  t.get_int("grid.ny", 3);
  const std::string m = input_error([&] { t.reject_unknown_keys(); });
  EXPECT_EQ(m, "a.toml:3: grid.nyy: unknown key; did you mean grid.ny?");
}

TEST(ParamTable, MisspeltTableIsAnError) {
  ParamTable t = ParamTable::parse("[gird]\nnx = 4\n", "a.toml");
  t.get_int("grid.nx", 3);
  const std::string m = input_error([&] { t.reject_unknown_keys(); });
  EXPECT_TRUE(contains(m, "gird.nx: unknown key; did you mean grid.nx?")) << m;
}

TEST(ParamTable, FarOffKeyGetsNoSuggestion) {
  ParamTable t = ParamTable::parse("colour = 4\n", "a.toml");
  t.get_int("grid.nx", 3);
  EXPECT_EQ(input_error([&] { t.reject_unknown_keys(); }), "a.toml:1: colour: unknown key");
}

TEST(ParamTable, EmptyKnownTableIsHarmless) {
  ParamTable t = ParamTable::parse("[sweep]\n", "a.toml");
  t.get_int("sweep.repeats", 3);
  EXPECT_NO_THROW(t.reject_unknown_keys());
}

TEST(ParamTable, OverridesAreTypedAndCheckedLikeTheFile) {
  ParamTable t = ParamTable::parse(kFile, "a.toml");
  t.apply_override("grid.nx=256");
  t.apply_override("method.variant=zmarch");  // a bare word is a string
  t.apply_override("method.block=[64,4,1]");
  t.apply_override("iteration.tolerance=1e-6");  // creates the table
  EXPECT_EQ(t.get_int("grid.nx"), 256);
  EXPECT_EQ(t.get_string("method.variant"), "zmarch");
  EXPECT_EQ(t.get_shape("method.block"), (Shape{64, 4, 1}));
  EXPECT_EQ(t.get_double("iteration.tolerance"), 1e-6);
  EXPECT_EQ(t.source_of("grid.nx"), "command line");
  EXPECT_EQ(t.source_of("grid.ny"), "a.toml:5");

  t.apply_override("grid.ny=-3x");
  EXPECT_EQ(input_error([&] { t.get_int("grid.ny"); }),
            "command line: grid.ny: expected an integer, got a string ('-3x')");
}

TEST(ParamTable, MisspeltOverrideIsAnError) {
  ParamTable t = ParamTable::parse(kFile, "a.toml");
  t.apply_override("grid.nxx=3");
  t.get_int("grid.nx");
  t.get_int("grid.ny");
  t.get_double("grid.spacing");
  t.get_string("solver");
  t.get_shape("method.block");
  t.get_string("method.variant");
  EXPECT_EQ(input_error([&] { t.reject_unknown_keys(); }),
            "command line: grid.nxx: unknown key; did you mean grid.nx?");
}

TEST(ParamTable, MalformedOverrideIsAnError) {
  ParamTable t = ParamTable::parse(kFile, "a.toml");
  EXPECT_TRUE(contains(input_error([&] { t.apply_override("grid.nx"); }), "key=value"));
  EXPECT_TRUE(contains(input_error([&] { t.apply_override("=3"); }), "key=value"));
  EXPECT_TRUE(contains(input_error([&] { t.apply_override("solver.x=3"); }), "not a table"));
}

TEST(ParamTable, BlockShapesAreChecked) {
  ParamTable t = ParamTable::parse("a = [32, 0, 1]\nb = [1, 2, 3, 4]\nc = [\"x\"]\n", "s.toml");
  EXPECT_TRUE(contains(input_error([&] { t.get_shape("a"); }), "positive integers"));
  EXPECT_TRUE(contains(input_error([&] { t.get_shape("b"); }), "[x, y, z]"));
  EXPECT_TRUE(contains(input_error([&] { t.get_shape("c"); }), "[x, y, z]"));
}

TEST(ParamTable, EditDistance) {
  EXPECT_EQ(edit_distance("grid.nx", "grid.nx"), 0u);
  EXPECT_EQ(edit_distance("grid.nxx", "grid.nx"), 1u);
  EXPECT_EQ(edit_distance("gird", "grid"), 2u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

}  // namespace
}  // namespace parasol::io
