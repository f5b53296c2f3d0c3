// Every shipped example under inputs/ runs as the docs give it, on the CPU backend, with their
// output convention: from a copy of the repository's inputs/,
// `parasol run inputs/<name>.toml -o results/<name>.h5`. The examples are found, not listed: a
// new one runs here without a line. The performance studies are cut to a CPU's size by the
// overrides in the table below, and only those need a row. tests/hdf5_layout_test.py runs the
// same files in the same order with the same cuts (it reads the table from here).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;

using test::kExe;
using test::quoted;
const fs::path kInputs = fs::path(PARASOL_SOURCE_DIR) / "inputs";

struct Cut {
  const char* name;       // inputs/<name>.toml, a performance study
  const char* overrides;  // key=value ...: its size cut for a CPU
};

// The performance studies: the same files, smaller.
const std::vector<Cut> kCuts = {
    {"fftconv-streamed", "signal.length=1048576 method.piece=262144"},
    {"laplace3d-512", "grid.nx=64 grid.ny=64 grid.nz=64 iteration.max_iterations=20"},
    {"montecarlo-9.6m", "paths.count=100000"},
    {"coulomb-bench", "lattice.nx=128 lattice.ny=128"},
    {"recurrence-256m", "ar1.length=1048576"},
    {"fftconv-study", "signal.batch=2 signal.length=65536"},
    {"tridiag-study", "heat.grids=256"},
    {"tridiag-long", "random.n=1048576"},
    {"poisson-512", "grid.nx=64 grid.ny=64 grid.nz=64"},
};

struct Example {
  std::string name;
  std::string overrides;
};

std::set<std::string> shipped_names() {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(kInputs))
    if (entry.path().extension() == ".toml") names.insert(entry.path().stem().string());
  return names;
}

// The examples whose results another example's file reads, as a quoted path ending
// `results/<name>.h5` (fftconv-3d-field.toml smooths "../results/laplace3d.h5").
std::set<std::string> read_by_others(const std::set<std::string>& names) {
  static const std::regex result_path(R"re("[^"\n]*results/([\w.-]+)\.h5")re");
  std::set<std::string> read;
  for (const std::string& name : names) {
    const std::string text = test::read_text(kInputs / (name + ".toml"));
    for (std::sregex_iterator m(text.begin(), text.end(), result_path), none; m != none; ++m)
      if (names.count((*m)[1]) != 0 && (*m)[1] != name) read.insert((*m)[1]);
  }
  return read;
}

// Every example under inputs/, in order of name, except that those whose results another reads
// run first, as the docs say to make them first; each with its cut, if it has one.
std::vector<Example> examples() {
  const std::set<std::string> names = shipped_names();
  const std::set<std::string> first = read_by_others(names);
  std::vector<Example> all;
  for (const std::string& name : names) all.push_back({name, ""});
  std::stable_partition(all.begin(), all.end(),
                        [&](const Example& e) { return first.count(e.name) != 0; });
  for (Example& e : all)
    for (const Cut& c : kCuts)
      if (e.name == c.name) e.overrides = c.overrides;
  return all;
}

// The table of runs is every shipped example once, and a cut names one of them (a study renamed
// or removed leaves no row behind).
TEST(Examples, TableListsEveryShippedExample) {
  std::set<std::string> shipped, listed, cut;
  for (const auto& entry : fs::directory_iterator(kInputs))
    if (entry.path().extension() == ".toml") shipped.insert(entry.path().stem().string());
  const std::vector<Example> all = examples();
  for (const Example& e : all) listed.insert(e.name);
  EXPECT_EQ(shipped, listed);
  EXPECT_EQ(all.size(), listed.size());
  for (const Cut& c : kCuts) {
    EXPECT_EQ(shipped.count(c.name), 1u) << "inputs/" << c.name << ".toml is not there";
    EXPECT_TRUE(cut.insert(c.name).second) << c.name << " is cut twice";
  }
}

TEST(Examples, AnExampleRunsAfterTheOneWhoseResultItReads) {
  const std::vector<Example> all = examples();
  const auto at = [&](const std::string& name) {
    return std::find_if(all.begin(), all.end(), [&](const Example& e) { return e.name == name; });
  };
  ASSERT_NE(at("laplace3d"), all.end());
  ASSERT_NE(at("fftconv-3d-field"), all.end());
  EXPECT_LT(at("laplace3d"), at("fftconv-3d-field"));
}

TEST(Examples, EveryExampleRunsOnTheCpuInTheDocsOrder) {
  const test::ScratchDir dir;
  fs::copy(kInputs, dir / "inputs", fs::copy_options::recursive);
  fs::create_directories(dir / "results");
  for (const Example& e : examples()) {
    SCOPED_TRACE(e.name);
    const std::string out = "results/" + e.name + ".h5";
    const auto r = test::run_shell("cd " + quoted(dir.path()) + " && " + kExe + " run inputs/" +
                                   e.name + ".toml --backend cpu " + e.overrides + " -o " + out);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(fs::is_regular_file(dir / out)) << r.output;
  }
}

TEST(Examples, FieldSmoothingWithoutItsFieldSaysHowToMakeIt) {
  const test::ScratchDir dir;
  fs::copy(kInputs, dir / "inputs", fs::copy_options::recursive);
  const auto r = test::run_shell("cd " + quoted(dir.path()) + " && " + kExe +
                                 " run inputs/fftconv-3d-field.toml --backend cpu -o out.h5");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("signal.file: no such file"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("parasol run inputs/laplace3d.toml -o results/laplace3d.h5"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.h5"));
}

}  // namespace
}  // namespace parasol
