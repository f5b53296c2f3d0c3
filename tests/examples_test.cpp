// Every shipped example under inputs/ runs as the docs give it, on the CPU backend, in the docs'
// order and with their output convention: from a copy of the repository's inputs/,
// `parasol run inputs/<name>.toml -o results/<name>.h5`. The performance studies are cut to a
// CPU's size by the overrides in the table below, and only those; an example added without a
// row here fails, so the docs and this table list the same files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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

struct Example {
  const char* name;       // inputs/<name>.toml
  const char* overrides;  // key=value ... : a study's size cut for a CPU; empty for the rest
};

// README.md's order: laplace3d comes before fftconv-3d-field, which smooths its result.
const std::vector<Example> kExamples = {
    {"laplace3d", ""},
    {"montecarlo", ""},
    {"montecarlo-basket", ""},
    {"montecarlo-american", ""},
    {"coulomb", ""},
    {"coulomb-centred", ""},
    {"heat1d", ""},
    {"tridiag-file", ""},
    {"tridiag-periodic", ""},
    {"tridiag-rhs", ""},
    {"tridiag-penta", ""},
    {"tridiag-block2", ""},
    {"recurrence", ""},
    {"fftconv", ""},
    {"fftconv-2d", ""},
    {"fftconv-3d", ""},
    {"fftconv-3d-field", ""},
    {"poisson", ""},
    {"poisson-periodic", ""},
    // The performance studies: the same files, smaller.
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

TEST(Examples, TableListsEveryShippedExample) {
  std::set<std::string> shipped, listed;
  for (const auto& entry : fs::directory_iterator(kInputs))
    if (entry.path().extension() == ".toml") shipped.insert(entry.path().stem().string());
  for (const Example& e : kExamples) listed.insert(e.name);
  EXPECT_EQ(shipped, listed);
}

TEST(Examples, EveryExampleRunsOnTheCpuInTheDocsOrder) {
  const test::ScratchDir dir;
  fs::copy(kInputs, dir / "inputs", fs::copy_options::recursive);
  fs::create_directories(dir / "results");
  for (const Example& e : kExamples) {
    SCOPED_TRACE(e.name);
    const std::string out = std::string("results/") + e.name + ".h5";
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
