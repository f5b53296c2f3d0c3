// `mpirun -np N parasol run`: laplace3d cut among 1 to 4 ranks with the CPU backend (its gold on
// each rank's slab, halos through MPI) gives the one-rank run's bits, uneven cuts and ranks of
// one plane included; bad launches end in one line from rank 0 and leave nothing behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "io/result_file.hpp"
#include "kernels/device.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
using test::same_bits;
const std::string& kExe = test::kParasol;

// The parameter file of the runs: a grid whose nz the tests choose.
std::string params(std::int64_t nz, const std::string& precision = "float") {
  return "solver = \"laplace3d\"\n[grid]\nnx = 13\nny = 10\nnz = " + std::to_string(nz) +
         "\n[boundary]\nx_min = 1.0\nz_max = -0.5\n[iteration]\nmax_iterations = 60\n"
         "check_every = 7\ntolerance = 1e-9\n[method]\nprecision = \"" + precision + "\"\n";
}

class Ranks : public test::RanksTest {};

TEST_F(Ranks, EveryCutGivesTheOneRankBits) {
  // 37 planes: cuts of 19+18, 13+12+12 and 10+9+9+9; 4 planes among 4 ranks: one each, the
  // first and last holding only the grid's boundary planes.
  for (const std::int64_t nz : {37, 4}) {
    for (const std::string precision : {"float", "double"}) {
      const std::string text = params(nz, precision);
      const auto plain = run(0, text, "plain.h5");
      ASSERT_EQ(plain.status, 0) << plain.output;
      for (int ranks = 1; ranks <= 4; ++ranks) {
        SCOPED_TRACE("nz " + std::to_string(nz) + ", " + precision + ", " +
                     std::to_string(ranks) + " ranks");
        const std::string out = "r" + std::to_string(ranks) + ".h5";
        const auto r = run(ranks, text, out, "--check");
        ASSERT_EQ(r.status, 0) << r.output;
        if (precision == "float") EXPECT_TRUE(same_bits(field<float>(out), field<float>("plain.h5")));
        else EXPECT_TRUE(same_bits(field<double>(out), field<double>("plain.h5")));
        io::ResultReader h5(dir_ / out);
        EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
        EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
        EXPECT_EQ(h5.attribute("/diagnostics", "iterations"),
                  io::ResultReader(dir_ / "plain.h5").attribute("/diagnostics", "iterations"));
        if (ranks > 1) {
          EXPECT_TRUE(h5.has_attribute("/timings", "exchange_s"));
          EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
        }
        // Rank 0 alone speaks: one summary.
        EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
      }
    }
  }
}

// On a GPU machine: ranks share its device through MPI (NCCL refuses two ranks on one GPU), every
// variant, overlapped and not, against the one-rank GPU run's bits.
TEST_F(Ranks, EveryVariantOnTheDeviceGivesTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  const std::string text = params(70);
  for (const std::string variant :
       {"zreg", "zreg-vec", "smem-zreg", "temporal", "block3d", "zmarch"}) {
    const std::string gpu = "--backend gpu method.variant=" + variant + " ";
    const auto one = test::run_shell(kExe + " run " + quoted(write_params(text)) + " -o " +
                                     quoted(dir_ / "one.h5") + " --force " + gpu);
    ASSERT_EQ(one.status, 0) << one.output;
    for (const std::string overlap : {"", "--no-overlap"}) {
      SCOPED_TRACE(variant + " " + overlap);
      const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                     quoted(write_params(text)) + " -o " +
                                     quoted(dir_ / "three.h5") + " --force --transport mpi " +
                                     gpu + overlap);
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field<float>("three.h5"), field<float>("one.h5")));
    }
  }
}

// temporal writes the planes its neighbours need first and exchanges them behind the rest of its
// pass: whole passes (check_every 8) and passes with single sweeps after them (check_every 7), on
// slabs long enough for it and on a middle slab too short (7 planes), which exchanges after its
// pass while its neighbours overlap.
TEST_F(Ranks, TemporalOverlappedGivesTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  for (const auto& [nz, ranks] : {std::pair<int, int>{70, 4}, {20, 3}}) {
    for (const char* every : {"8", "7"}) {
      const std::string text = params(nz);
      const std::string gpu =
          std::string("--backend gpu method.variant=temporal iteration.check_every=") + every + " ";
      const auto one = test::run_shell(kExe + " run " + quoted(write_params(text)) + " -o " +
                                       quoted(dir_ / "one.h5") + " --force " + gpu);
      ASSERT_EQ(one.status, 0) << one.output;
      SCOPED_TRACE("nz " + std::to_string(nz) + " on " + std::to_string(ranks) +
                   " ranks, check_every " + every);
      const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " " +
                                     std::to_string(ranks) + " " + kExe + " run " +
                                     quoted(write_params(text)) + " -o " +
                                     quoted(dir_ / "many.h5") + " --force --transport mpi " + gpu);
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field<float>("many.h5"), field<float>("one.h5")));
    }
  }
}

TEST_F(Ranks, MoreRanksThanPlanesIsOneLineFromRankZeroAndNothingWritten) {
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 4 " + kExe + " run " +
                                 quoted(write_params(params(3))) + " -o " +
                                 quoted(dir_ / "out.h5") + " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "grid.nz: 3 planes cannot be cut among 4 ranks");
  test::expect_only_inputs(dir_, {"p.toml"});
}

TEST_F(Ranks, AGpuRunWithoutADeviceIsOneLineAndNothingWritten) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "this machine has a device";
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 2 " + kExe + " run " +
                                 quoted(write_params(params(9))) + " -o " +
                                 quoted(dir_ / "out.h5") + " --backend gpu");
  EXPECT_EQ(r.status, 1) << r.output;
  test::expect_one_line(r, "--backend gpu");
  test::expect_only_inputs(dir_, {"p.toml"});
}

// --backend auto across ranks runs the CPU solver only when no rank has a device, and says so.
TEST_F(Ranks, AutoWithoutADeviceOnAnyRankRunsTheCpuOnEveryRankAndSaysSo) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "this machine has a device";
  const auto r = run(2, params(9), "out.h5", "--backend auto");
  ASSERT_EQ(r.status, 0) << r.output;
  test::expect_one_line(r, "no rank can use a GPU (" + reason +
                               "); running the CPU gold solver on every rank");
  io::ResultReader h5(dir_ / "out.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "cpu");
}

// One rank without a device (CUDA_VISIBLE_DEVICES empty for it, through the launcher's
// multiple-program form) while the other has one: --backend auto refuses, naming that rank,
// rather than run the CPU solver on every rank a hundred times slower.
TEST_F(Ranks, AutoWithADeviceOnSomeRanksOnlyIsRefusedNamingTheRank) {
  PARASOL_REQUIRE_GPU();
#ifdef PARASOL_TEST_MPIEXEC
  // PARASOL_TEST_MPIEXEC ends in the launcher's flag for a count of processes ("-n", "-np").
  const std::string launch = PARASOL_TEST_MPIEXEC;
  const std::string count_flag = launch.substr(launch.find_last_of(' ') + 1);
  const std::string command = kExe + " run " + quoted(write_params(params(9))) + " -o " +
                              quoted(dir_ / "out.h5") + " --backend auto";
  for (const int lacking : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(lacking) + " without a device");
    const std::string without = "env CUDA_VISIBLE_DEVICES= " + command;
    const auto r = test::run_shell(launch + " 1 " + (lacking == 0 ? without : command) + " : " +
                                   count_flag + " 1 " + (lacking == 0 ? command : without));
    EXPECT_EQ(r.status, 2) << r.output;
    test::expect_one_line(r, "--backend auto: rank " + std::to_string(lacking) + " (");
    EXPECT_NE(r.output.find("Pass --backend cpu to run the CPU solver on every rank"), std::string::npos) << r.output;
    test::expect_only_inputs(dir_, {"p.toml"});
  }
#endif
}

// parasol sweep across ranks: laplace3d on GPUs. What runs in one process says so in one line
// from rank 0 and leaves nothing.
TEST_F(Ranks, SweepAcrossRanksRefusesWhatRunsInOneProcess) {
  const std::filesystem::path file = write_params(params(9));
  const auto sweep = [&](const std::string& args) {
    return test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 2 " + kExe + " sweep " +
                           quoted(file) + " sweep.min_time=0 -o " + quoted(dir_ / "sweep.h5") + " " + args);
  };
  auto r = sweep("--backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "mpirun: parasol sweep --backend cpu times the CPU solver in one process");
  r = sweep("--autotune --autotune-file " + quoted(dir_ / "tune.toml"));
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "mpirun: --autotune stores the choice for one device");
  r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 2 " + kExe + " sweep " +
                      quoted(std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs" /
                             "montecarlo.toml") + " sweep.min_time=0" +
                      " -o " + quoted(dir_ / "sweep.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "mpirun: parasol sweep of montecarlo times one device at a time");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "sweep.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "tune.toml"));
}

TEST_F(Ranks, SweepAcrossRanksWithoutADeviceIsOneLineAndNothingWritten) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "this machine has a device";
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 2 " + kExe + " sweep " +
                                 quoted(write_params(params(9))) + " -o " +
                                 quoted(dir_ / "sweep.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  test::expect_one_line(r, "--backend gpu");
  test::expect_only_inputs(dir_, {"p.toml"});
}

// Every configuration checked on every rank's slab and timed with and without overlap: the
// table gains the exchange, its hidden share and the rate per GPU, and the file says where it ran.
TEST_F(Ranks, SweepAcrossRanksTimesTheExchangeAndItsHiddenShare) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(
      std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " sweep " +
      quoted(write_params(params(70))) + " -o " + quoted(dir_ / "sweep.h5") +
      " --transport mpi 'sweep.variants=[\"zreg\",\"temporal\"]' sweep.iterations=8 "
      "sweep.repeats=3 sweep.min_time=0 sweep.check_iterations=9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sweep on 3 ranks"), std::string::npos) << r.output;
  io::ResultReader h5(dir_ / "sweep.h5");
  const std::vector<double> exchange = h5.read_doubles("/sweep/exchange_s");
  const std::vector<double> hidden = h5.read_doubles("/sweep/hidden_percent");
  const std::vector<double> rate = h5.read_doubles("/sweep/gpoints_per_s");
  const std::vector<double> per_gpu = h5.read_doubles("/sweep/rate_per_gpu");
  ASSERT_FALSE(exchange.empty());
  ASSERT_EQ(hidden.size(), exchange.size());
  for (std::size_t i = 0; i < exchange.size(); ++i) {
    EXPECT_GT(exchange[i], 0.0) << i;
    EXPECT_TRUE(std::isfinite(hidden[i])) << i;
    EXPECT_NEAR(per_gpu[i], rate[i] / 3, 1e-9 * rate[i]) << i;
  }
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), 3);
}

TEST_F(Ranks, AnExistingOutputIsRefusedBeforeAnyComputing) {
  ASSERT_EQ(run(0, params(9), "out.h5").status, 0);
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                 quoted(write_params(params(9))) + " -o " +
                                 quoted(dir_ / "out.h5") + " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "--force");
}

}  // namespace
}  // namespace parasol
