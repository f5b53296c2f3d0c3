// /provenance@reproducible and @reproducible_because on every solver's example run on the CPU:
// each says its bits repeat, gives its reason, and keeps its word: a second run gives the same
// bits in its main result.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "io/result_reader.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

struct Example {
  const char* file;
  const char* overrides;  // to keep the run to a second or so on a CPU
  const char* result;     // the main result's dataset, or an /estimate attribute ("@price")
};

// Every solver's example (montecarlo's two models, tridiag's two problems).
const Example kExamples[] = {
    {"laplace3d.toml", "grid.nx=24 grid.ny=24 grid.nz=24 iteration.max_iterations=50", "/fields/u"},
    {"coulomb.toml", "lattice.nx=20 lattice.ny=16 lattice.nz=16 output.dx=false",
     "/fields/potential"},
    {"fftconv.toml", "signal.length=65536", "/output"},
    {"montecarlo.toml", "paths.count=20000", "@price"},
    {"montecarlo-basket.toml", "paths.count=4096", "@price"},
    {"recurrence.toml", "ar1.length=4096", "/fields/v"},
    {"heat1d.toml", "", "/fields/u"},
    {"tridiag-file.toml", "", "/fields/x"},
};

std::vector<double> result_of(const std::filesystem::path& file, const std::string& result) {
  io::ResultReader h5(file);
  if (result[0] == '@') return {std::get<double>(h5.attribute("/estimate", result.substr(1)))};
  return h5.read_doubles(result);
}

class Reproducible : public ::testing::TestWithParam<Example> {
 protected:
  test::CommandResult run(const std::string& output) {
    const Example& e = GetParam();
    return test::run_shell(kExe + " run '" + (kInputs / e.file).string() + "' " + e.overrides +
                           " --backend cpu --quiet -o '" + (dir_ / output).string() + "'");
  }
  test::ScratchDir dir_;
};

TEST_P(Reproducible, ProvenanceSaysSoAndTheBitsRepeat) {
  const auto first = run("a.h5");
  ASSERT_EQ(first.status, 0) << first.output;
  {
    io::ResultReader h5(dir_ / "a.h5");
    ASSERT_TRUE(h5.has_attribute("/provenance", "reproducible"));
    // Every CPU solver promises its bits: the gold sums in a fixed order.
    EXPECT_TRUE(std::get<bool>(h5.attribute("/provenance", "reproducible")));
    EXPECT_FALSE(std::get<std::string>(h5.attribute("/provenance", "reproducible_because")).empty());
    if (h5.has_attribute("/method", "reproducible")) {  // montecarlo's, from the same place
      EXPECT_EQ(std::get<bool>(h5.attribute("/method", "reproducible")),
                std::get<bool>(h5.attribute("/provenance", "reproducible")));
    }
  }
  const auto second = run("b.h5");
  ASSERT_EQ(second.status, 0) << second.output;
  const std::vector<double> a = result_of(dir_ / "a.h5", GetParam().result);
  const std::vector<double> b = result_of(dir_ / "b.h5", GetParam().result);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
}

std::string example_name(const ::testing::TestParamInfo<Example>& info) {
  std::string name = info.param.file;
  name = name.substr(0, name.find('.'));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Examples, Reproducible, ::testing::ValuesIn(kExamples), example_name);

}  // namespace
}  // namespace parasol
