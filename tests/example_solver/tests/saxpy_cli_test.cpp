// saxpy through its front end, end to end: the example file runs on the CPU (and the GPU where
// there is one), writes y and passes --check; `parasol keys saxpy` lists every declared key; a
// bad value is one line naming the file and the key, status 2, nothing left behind; and the
// shipped `parasol` does not know the solver.
#include <gtest/gtest.h>

#include <fstream>

#include "apps/binding.hpp"
#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::contains;
using test::kExe;
using test::number;
using test::quoted;
const std::filesystem::path kExample =
    std::filesystem::path(PARASOL_SOURCE_DIR) / "tests/example_solver/inputs/saxpy.toml";

class SaxpyCli : public ::testing::Test {
 protected:
  test::ScratchDir dir_;
};

TEST_F(SaxpyCli, TheExampleRunsOnTheCpuAndPassesItsCheck) {
  const auto r = test::run_shell(kExe + " run " + quoted(kExample) + " --backend cpu --check -o " +
                                 quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1048576 elements; CPU gold solver")) << r.output;
  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(test::text(h5, "/", "solver"), "saxpy");
  const std::vector<float> y = h5.read_floats("/fields/y");
  ASSERT_EQ(y.size(), 1048576u);
  EXPECT_EQ(y[0], 1.0f);  // 2.5 sin 0 + cos 0
  EXPECT_LE(number(h5, "/check", "max_abs_difference"), number(h5, "/check", "tolerance"));
  EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));
}

TEST_F(SaxpyCli, KeysListsEveryDeclaredKey) {
  const auto r = test::run_shell(kExe + " keys saxpy");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* key :
       {"problem.n", "problem.a", "method.threads", "sweep.repeats", "sweep.min_time"})
    EXPECT_TRUE(contains(r.output, key)) << key << " missing from:\n" << r.output;
  EXPECT_TRUE(contains(r.output, "elements of x and y")) << r.output;
}

TEST_F(SaxpyCli, ABadValueIsOneLineNamingTheFileAndTheKey) {
  std::ofstream(dir_ / "p.toml") << "solver = \"saxpy\"\n[problem]\nn = 0\n";
  const auto r = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                                 quoted(dir_ / "r.h5"));
  test::expect_input_error(r, "p.toml:3: problem.n", dir_, {"p.toml"});
  // Params::validate()'s refusal, given the file by the front end.
  std::ofstream(dir_ / "p.toml") << "solver = \"saxpy\"\n[method]\nthreads = 33\n";
  const auto v = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend gpu -o " +
                                 quoted(dir_ / "r.h5"));
  test::expect_input_error(v, "method.threads: expected a multiple of 32 up to 1024, got 33", dir_,
                           {"p.toml"});
}

// The registry this program links is the shipped `parasol`'s (apps/CMakeLists.txt); the front
// end of the tests has every shipped solver and saxpy after them.
TEST_F(SaxpyCli, OnlyTheFrontEndOfTheTestsKnowsIt) {
  std::string shipped;
  for (const app::Binding& b : app::bindings()) {
    EXPECT_NE(b.name, "saxpy");
    shipped += std::string(b.name) + "\n";
  }
  const auto r = test::run_shell(kExe + " solvers --names");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, shipped + "saxpy\n");
}

TEST_F(SaxpyCli, GpuRunAndSweepPassTheirChecks) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " run " + quoted(kExample) + " --backend gpu --check -o " +
                                 quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));
  const auto s = test::run_shell(kExe + " sweep " + quoted(kExample) +
                                 " sweep.repeats=3 sweep.min_time=0 -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(s.status, 0) << s.output;
  io::ResultReader sweep(dir_ / "s.h5");
  EXPECT_EQ(sweep.read_ints("/sweep/threads"), (std::vector<std::int64_t>{128, 256, 512, 1024}));
  EXPECT_EQ(sweep.read_ints("/sweep/passed"), (std::vector<std::int64_t>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace parasol
