// `parasol sweep --profile`: ncu's raw CSV read from a captured sample, and the refusal without
// ncu. Running ncu itself needs a device and Nsight Compute.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "io/result_reader.hpp"
#include "apps/profile.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol::app {
namespace {

const std::filesystem::path kSource = PARASOL_SOURCE_DIR;
using test::kExe;

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Profile, ReadsNcusRawCsvPastTheApplicationsOutput) {
  const std::vector<KernelProfile> launches =
      parse_ncu_csv(read(kSource / "tests/data/ncu_raw_sample.csv"));
  ASSERT_EQ(launches.size(), 3u);  // the units line is not a launch
  const KernelProfile& k = launches[0];
  EXPECT_NE(k.kernel.find("zreg_kernel<64, 4, float>"), std::string::npos) << k.kernel;
  EXPECT_NE(k.kernel.find("const T3 *, T3 *"), std::string::npos) << "commas inside quotes";
  EXPECT_DOUBLE_EQ(k.duration_ns, 412576.0);  // "412,576": the separator dropped
  EXPECT_DOUBLE_EQ(k.achieved_occupancy_percent, 49.21);
  EXPECT_DOUBLE_EQ(k.dram_throughput_percent, 91.34);
  // The largest stall per issue; `selected` is not a stall.
  EXPECT_EQ(k.top_stall, "long_scoreboard");
  EXPECT_DOUBLE_EQ(k.top_stall_value, 5.61);
  EXPECT_EQ(launches[2].top_stall, "mio_throttle");
  // The longest launch stands for the configuration.
  const std::optional<KernelProfile> l = longest(launches);
  ASSERT_TRUE(l.has_value());
  EXPECT_DOUBLE_EQ(l->duration_ns, 1208352.0);
  EXPECT_EQ(l->top_stall, "mio_throttle");
}

TEST(Profile, SampledStallColumnsAndMissingMetricsAlsoRead) {
  const std::string text =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
      "\"smsp__pcsamp_warps_issue_stalled_long_scoreboard\","
      "\"smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued\","
      "\"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle\","
      "\"smsp__pcsamp_warps_issue_stalled_selected\"\n"
      "\"\",\"\",\"usecond\",\"\",\"\",\"\",\"\"\n"
      "\"0\",\"paths_kernel\",\"2.5\",\"10\",\"900\",\"40\",\"1000\"\n";
  const std::vector<KernelProfile> launches = parse_ncu_csv(text);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].top_stall, "math_pipe_throttle");
  EXPECT_TRUE(std::isnan(launches[0].achieved_occupancy_percent)) << "not asked: NaN";
  EXPECT_TRUE(std::isnan(launches[0].dram_throughput_percent));
}

TEST(Profile, OutputWithoutAHeaderOrWithRaggedRowsIsRefused) {
  EXPECT_THROW(parse_ncu_csv("==PROF== ERR_NVGPUCTRPERM: no permission to profile\n"), Error);
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"k\",\"extra\"\n"), Error);
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Block Size\"\n"), Error) << "no kernel names";
  EXPECT_TRUE(parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n").empty());
  EXPECT_FALSE(longest({}).has_value());
}

TEST(Profile, FindsProgramsOnPathAsAShellWould) {
  test::ScratchDir dir;
  const auto tool = dir / "ncu";
  std::ofstream(tool) << "#!/bin/sh\n";
  const std::string old = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", ("/nonexistent:" + dir.path().string()).c_str(), 1);
  EXPECT_FALSE(find_on_path("ncu").has_value()) << "not executable";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  EXPECT_EQ(find_on_path("ncu"), tool);
  EXPECT_FALSE(find_on_path("no-such-tool").has_value());
  setenv("PATH", old.c_str(), 1);
}

TEST(Profile, WithoutNcuTheSweepStopsAtOnceWithOneLine) {
  test::ScratchDir dir;
  const auto params = dir / "p.toml";
  std::ofstream(params) << "solver = \"laplace3d\"\n[grid]\nnx = 12\nny = 10\nnz = 9\n"
                           "[iteration]\nmax_iterations = 20\n";
  const auto r = test::run_shell("PATH=" + dir.path().string() + " " + kExe + " sweep '" +
                                 params.string() + "' --profile -o '" + (dir / "s.h5").string() +
                                 "'");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--profile: needs Nsight Compute's ncu on PATH"), std::string::npos)
      << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.h5"));
}

TEST(Profile, OnTheCpuBackendTheSweepIsRefusedWithOneLine) {
  test::ScratchDir dir;
  const auto params = dir / "p.toml";
  std::ofstream(params) << "solver = \"laplace3d\"\n[grid]\nnx = 12\nny = 10\nnz = 9\n"
                           "[iteration]\nmax_iterations = 20\n";
  const auto r = test::run_shell(kExe + " sweep '" + params.string() + "' --backend cpu --profile -o '" +
                                 (dir / "s.h5").string() + "'");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--profile: profiles GPU kernels; not with --backend cpu"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.h5"));
}

// On a device with Nsight Compute: the best and the worst rows profiled and stored.
TEST(Profile, SweepProfilesTheBestAndTheWorstRow) {
  PARASOL_REQUIRE_GPU();
  if (!find_on_path("ncu")) GTEST_SKIP() << "needs Nsight Compute's ncu on PATH";
  test::ScratchDir dir;
  const auto params = dir / "p.toml";
  std::ofstream(params) << "solver = \"laplace3d\"\n[grid]\nnx = 64\nny = 64\nnz = 64\n"
                           "[iteration]\nmax_iterations = 20\n[sweep]\niterations = 3\nrepeats = 3\n"
                           "min_time = 0\n";
  const auto r = test::run_shell(kExe + " sweep '" + params.string() + "' --profile -o '" +
                                 (dir / "s.h5").string() + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("profile: best: achieved occupancy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("profile: worst: achieved occupancy"), std::string::npos) << r.output;
  io::ResultReader h5(dir / "s.h5");
  EXPECT_EQ(h5.read_strings("/sweep/profile/which"), (std::vector<std::string>{"best", "worst"}));
  const auto rows = h5.read_ints("/sweep/profile/row");
  const auto variants = h5.read_strings("/sweep/variant");
  ASSERT_EQ(rows.size(), 2u);
  for (std::int64_t row : rows) EXPECT_LT(row, static_cast<std::int64_t>(variants.size()));
  for (double occupancy : h5.read_doubles("/sweep/profile/achieved_occupancy_percent")) {
    EXPECT_GT(occupancy, 0.0);
    EXPECT_LE(occupancy, 100.0);
  }
  for (double dram : h5.read_doubles("/sweep/profile/dram_throughput_percent")) EXPECT_GE(dram, 0.0);
  for (const std::string& stall : h5.read_strings("/sweep/profile/top_stall_reason"))
    EXPECT_FALSE(stall.empty());
  for (const std::string& kernel : h5.read_strings("/sweep/profile/kernel"))
    EXPECT_NE(kernel.find("_kernel"), std::string::npos) << kernel;
}

}  // namespace
}  // namespace parasol::app
