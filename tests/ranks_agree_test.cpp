// `mpirun` with a different problem on different ranks (MPMD overrides here; a parameter file of
// the same path and different contents on another node reads the same way): every rank ends
// with status 2 before any work, rank 0 names the first differing key and the ranks, and no
// file is left. The same problem on every rank runs as before.
#include <gtest/gtest.h>

#include <string>

#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
const std::string& kExe = test::kParasol;

const std::string kParams =
    "solver = \"laplace3d\"\n[grid]\nnx = 13\nny = 10\nnz = 8\n[boundary]\nx_min = 1.0\n"
    "[iteration]\nmax_iterations = 5\n";

class RanksAgree : public test::RanksTest {
 protected:
  // Two programs of one rank each (Open MPI's MPMD `:`), each with its own overrides.
  test::CommandResult run_mpmd(const std::string& first, const std::string& second) {
    const std::string params = quoted(write_params(kParams));
    const std::string tail = " --backend cpu -o " + quoted(dir_ / "out.h5");
    return test::run_shell(launcher(1) + kExe + " run " + params + " " + first + tail +
                           " : -np 1 " + kExe + " run " + params + " " + second + tail);
  }
};

TEST_F(RanksAgree, DifferentOverridesEndEveryRankNamingTheKey) {
  const auto r = run_mpmd("grid.nx=16", "grid.nx=17");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "grid.nx: is 16 on rank 0 and 17 on rank 1");
  test::expect_only_inputs(dir_, {"p.toml"});
}

TEST_F(RanksAgree, AKeyGivenOnOneRankOnlyIsNamed) {
  const auto r = run_mpmd("", "iteration.tolerance=1e-3");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "iteration.tolerance: is ");
  test::expect_only_inputs(dir_, {"p.toml"});
}

TEST_F(RanksAgree, TheSameProblemEverywhereRuns) {
  const auto r = run_mpmd("grid.nx=16", "grid.nx=16");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out.h5")) << r.output;
}

}  // namespace
}  // namespace parasol
