// The performance study every solver shares: each sweep row's kernels with their attributes,
// occupancy and limiter (/sweep/kernels), the sweep's overhead, and --autotune with
// method.variant = "auto" for every solver with a choice to make. The kernel records and the
// autotune round trip need a device; the overhead is judged on a CPU sweep too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <variant>

#include "io/autotune.hpp"
#include "io/result_reader.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

double number(const io::ResultReader& h5, const std::string& object, const std::string& name) {
  const auto value = h5.attribute(object, name);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  ADD_FAILURE() << object << " " << name << " is not a number";
  return NAN;
}

// A solver's small shipped input, with overrides that keep its sweep to seconds.
struct StudyCase {
  const char* solver;
  const char* input;
  const char* overrides;
  bool autotunes;  // has a choice to make
};

void PrintTo(const StudyCase& c, std::ostream* out) { *out << c.solver; }

const StudyCase kCases[] = {
    {"laplace3d", "laplace3d.toml", "grid.nx=40 grid.ny=33 grid.nz=20 sweep.iterations=2 sweep.repeats=2", true},
    {"tridiag", "heat1d.toml", "heat.points=100 heat.grids=256 sweep.repeats=2 sweep.threads=[64,256]", true},
    {"recurrence", "recurrence.toml", "ar1.length=20000 sweep.repeats=2", false},
    {"montecarlo", "montecarlo.toml", "paths.count=100000 paths.steps=20 sweep.repeats=2", true},
    {"fftconv", "fftconv.toml", "sweep.repeats=2", true},
    {"coulomb", "coulomb.toml", "sweep.repeats=2", true},
};

class SweepStudy : public ::testing::TestWithParam<StudyCase> {
 protected:
  test::ScratchDir dir_;
};

// Every row of the sweep has the kernels it launched, each with attributes the device gave and an
// occupancy that the row's own columns repeat for its main kernel.
TEST_P(SweepStudy, EveryRowRecordsItsKernelsAndWhyTheyRanAsTheyDid) {
  PARASOL_REQUIRE_GPU();
  const StudyCase& c = GetParam();
  const auto out = dir_ / "s.h5";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / c.input) + " sweep.min_time=0 " + c.overrides +
                                 " -o " + quoted(out));
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.output;
  EXPECT_TRUE(contains(r.output, "limited by")) << r.output;
  EXPECT_TRUE(contains(r.output, "sweep overhead")) << r.output;
  io::ResultReader h5(out);
  const std::vector<std::int64_t> passed = h5.read_ints("/sweep/passed");
  const std::vector<double> occupancy_percent = h5.read_doubles("/sweep/occupancy_percent");
  const std::vector<std::string> main_kernel = h5.read_strings("/sweep/kernel");
  const std::vector<std::string> limiter_column = h5.read_strings("/sweep/limiter");
  ASSERT_EQ(occupancy_percent.size(), passed.size());
  EXPECT_EQ(std::get<std::string>(h5.attribute("/sweep", "kernel_columns")),
            "kernel, occupancy_percent, limiter");

  const std::vector<std::int64_t> row = h5.read_ints("/sweep/kernels/row");
  const std::vector<std::string> name = h5.read_strings("/sweep/kernels/name");
  const std::vector<std::string> block = h5.read_strings("/sweep/kernels/block");
  const std::vector<std::int64_t> threads = h5.read_ints("/sweep/kernels/block_threads");
  const std::vector<std::int64_t> grid = h5.read_ints("/sweep/kernels/grid_blocks");
  const std::vector<std::int64_t> launches = h5.read_ints("/sweep/kernels/launches");
  const std::vector<std::int64_t> registers = h5.read_ints("/sweep/kernels/registers");
  const std::vector<std::int64_t> local = h5.read_ints("/sweep/kernels/local_bytes");
  const std::vector<std::int64_t> max_threads = h5.read_ints("/sweep/kernels/max_threads_per_block");
  const std::vector<std::int64_t> blocks_per_sm = h5.read_ints("/sweep/kernels/blocks_per_sm");
  const std::vector<double> occupancy = h5.read_doubles("/sweep/kernels/occupancy");
  const std::vector<std::string> limiter = h5.read_strings("/sweep/kernels/limiter");
  const std::vector<double> waves = h5.read_doubles("/sweep/kernels/waves_per_sm");
  ASSERT_FALSE(row.empty());
  for (const auto* column : {&name, &block, &limiter})
    ASSERT_EQ(column->size(), row.size());
  for (const auto* column : {&threads, &grid, &launches, &registers, &local, &max_threads,
                             &blocks_per_sm})
    ASSERT_EQ(column->size(), row.size());
  ASSERT_EQ(occupancy.size(), row.size());
  ASSERT_EQ(waves.size(), row.size());

  for (std::size_t i = 0; i < row.size(); ++i) {
    SCOPED_TRACE(name[i] + " of row " + std::to_string(row[i]));
    ASSERT_GE(row[i], 0);
    ASSERT_LT(row[i], static_cast<std::int64_t>(passed.size()));
    EXPECT_FALSE(name[i].empty());
    EXPECT_EQ(name[i].find('<'), std::string::npos);
    EXPECT_GT(registers[i], 0);
    EXPECT_LE(registers[i], 255);
    EXPECT_GE(local[i], 0);
    EXPECT_GE(launches[i], 1);
    EXPECT_GE(grid[i], 1);
    EXPECT_GE(max_threads[i], threads[i]);
    const std::optional<Shape> shape = shape_from_string(block[i]);
    ASSERT_TRUE(shape.has_value()) << block[i];
    EXPECT_EQ(shape->threads(), threads[i]);
    EXPECT_FALSE(limiter[i].empty());
    EXPECT_LE(occupancy[i], 1.0);
    // A launch the device refused (too many registers for its block) fits no block: its row
    // failed. Every row that passed ran its kernels with at least one block resident.
    if (passed[static_cast<std::size_t>(row[i])] == 1) {
      EXPECT_GE(blocks_per_sm[i], 1);
    }
    if (blocks_per_sm[i] == 0) {
      EXPECT_EQ(occupancy[i], 0.0);
      EXPECT_EQ(waves[i], 0.0);
      continue;
    }
    EXPECT_GT(occupancy[i], 0.0);
    const double resident =
        static_cast<double>(blocks_per_sm[i]) * static_cast<double>(multiprocessor_count());
    EXPECT_NEAR(waves[i], static_cast<double>(grid[i]) / resident, 1e-9 * waves[i]);
  }
  // Every row that ran launched at least one noted kernel, and its own columns name one of them.
  for (std::size_t k = 0; k < passed.size(); ++k) {
    SCOPED_TRACE("row " + std::to_string(k));
    bool found = false;
    for (std::size_t i = 0; i < row.size(); ++i)
      if (row[i] == static_cast<std::int64_t>(k) && name[i] == main_kernel[k] &&
          std::abs(100.0 * occupancy[i] - occupancy_percent[k]) < 1e-9 &&
          limiter[i] == limiter_column[k])
        found = true;
    EXPECT_TRUE(found) << main_kernel[k];
  }
  const double fraction = number(h5, "/sweep", "sweep_overhead_fraction");
  EXPECT_GE(fraction, 0.0);
  EXPECT_LT(fraction, 1.0);
  EXPECT_GT(number(h5, "/sweep", "timed_s"), 0.0);
}

// --autotune stores the sweep's fastest passing row; method.variant = "auto" runs it, checks
// against the gold and says where it came from.
TEST_P(SweepStudy, AutotuneStoresWhatRunAutoUses) {
  PARASOL_REQUIRE_GPU();
  const StudyCase& c = GetParam();
  const auto autotune = dir_ / "autotune.toml";
  const std::string tuned = " --autotune-file " + quoted(autotune);
  const std::string input = quoted(kInputs / c.input) + " sweep.min_time=0 " + c.overrides;
  auto r = test::run_shell(kExe + " sweep " + input + " --autotune" + tuned + " -o " +
                           quoted(dir_ / "s.h5"));
  if (!c.autotunes) {
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "nothing to choose between")) << r.output;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.output;
  const io::AutotuneFile file = io::AutotuneFile::load(autotune);
  ASSERT_EQ(file.choices().size(), 1u);
  const io::AutotuneChoice choice = file.choices()[0];
  EXPECT_EQ(choice.key.solver, c.solver);
  EXPECT_FALSE(choice.key.problem.empty());
  EXPECT_TRUE(contains(r.output, "autotune: " + choice.describe())) << r.output;
  ASSERT_FALSE(choice.measured.empty());
  EXPECT_EQ(choice.measured[0].first, "median_s");
  {
    // The stored variant is the fastest passing row's (auto's pick, for fftconv's auto row).
    io::ResultReader h5(dir_ / "s.h5");
    const auto variants = h5.read_strings("/sweep/variant");
    const auto seconds = h5.read_doubles("/sweep/median_s");
    const std::size_t fastest = test::fastest_passing_row(h5);
    ASSERT_LT(fastest, variants.size());
    EXPECT_NEAR(choice.measured[0].second, seconds[fastest], 1e-3 * seconds[fastest])
        << "within the 4 digits stored";
    if (variants[fastest] != "auto") {
      EXPECT_EQ(choice.variant, variants[fastest]);
    }
  }

  r = test::run_shell(kExe + " run " + input + " method.variant=auto --check" + tuned + " -o " +
                      quoted(dir_ / "auto.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "(auto, from " + autotune.string() + ")")) << r.output;
  io::ResultReader h5(dir_ / "auto.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "chosen_by")), "autotune");
  EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));

  // Another device's choice is not this one's: a note on stderr, one line, and the defaults.
  r = test::run_shell("(" + kExe + " run " + input + " method.variant=auto" +
                      " --autotune-file " + quoted(dir_ / "empty.toml") + " -o " +
                      quoted(dir_ / "default.h5") + " 2>&1 >/dev/null)");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "no choice for " + std::string(c.solver))) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

INSTANTIATE_TEST_SUITE_P(EverySolver, SweepStudy, ::testing::ValuesIn(kCases),
                         [](const auto& test) { return std::string(test.param.solver); });

// A CPU sweep stores its overhead: the wall time outside the timed repeats, as a share.
TEST(SweepOverhead, CpuSweepStoresItsOverhead) {
  test::ScratchDir dir;
  const auto out = dir / "s.h5";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / "laplace3d.toml") +
                                 " sweep.min_time=0 grid.nx=64 grid.ny=64 grid.nz=32 iteration.max_iterations=20"
                                 " --backend cpu --threads 1 -o " + quoted(out));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "sweep overhead")) << r.output;
  io::ResultReader h5(out);
  const double timed = number(h5, "/sweep", "timed_s");
  const double wall = number(h5, "/sweep", "wall_s");
  const double fraction = number(h5, "/sweep", "sweep_overhead_fraction");
  EXPECT_GT(timed, 0.0);
  EXPECT_GE(wall, timed);
  EXPECT_NEAR(fraction, 1.0 - timed / wall, 1e-12);
  // Where the wall time went: before the first configuration, and over the configurations
  // (which hold the timed repeats); together no more than the wall.
  const double before = number(h5, "/sweep", "before_configurations_s");
  const double configurations = number(h5, "/sweep", "configurations_s");
  EXPECT_GT(before, 0.0);
  EXPECT_GE(configurations, timed);
  EXPECT_LE(before + configurations, wall);
  EXPECT_TRUE(contains(r.output, "before the first configuration")) << r.output;
  // The timed seconds are the rows' own: three repeats at each thread count.
  const auto median = h5.read_doubles("/sweep/median_s");
  double least = 0;
  for (double m : median) least += 3 * m;
  EXPECT_GT(timed, 0.5 * least);
  // Each row's wall time holds its repeats, and the rows' together lie within the
  // configurations' time.
  const auto row_wall = h5.read_doubles("/sweep/wall_s");
  const auto fastest = h5.read_doubles("/sweep/min_s");
  ASSERT_EQ(row_wall.size(), median.size());
  double rows_wall = 0;
  for (std::size_t i = 0; i < row_wall.size(); ++i) {
    EXPECT_GE(row_wall[i], 3 * fastest[i]) << i;
    rows_wall += row_wall[i];
  }
  EXPECT_LE(rows_wall, configurations);
  EXPECT_FALSE(h5.exists("/sweep/kernels")) << "no kernels on the CPU";
}

// sweep.min_time: each configuration timed until its repeats add up to it, after at least
// sweep.repeats of them; the header line says so.
TEST(SweepMinTime, EachConfigurationIsTimedForAtLeastTheMinimumTime) {
  PARASOL_REQUIRE_GPU();
  test::ScratchDir dir;
  const auto out = dir / "s.h5";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / "recurrence.toml") +
                                 " ar1.length=20000 sweep.repeats=2 sweep.min_time=0.05 -o " +
                                 quoted(out));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "at least 2 timed solves and 0.05 s each")) << r.output;
  io::ResultReader h5(out);
  const std::size_t rows = h5.read_doubles("/sweep/median_s").size();
  ASSERT_EQ(rows, 2u);
  EXPECT_GE(number(h5, "/sweep", "timed_s"), 0.05 * static_cast<double>(rows));
  for (double w : h5.read_doubles("/sweep/wall_s")) EXPECT_GE(w, 0.05) << "a row's wall holds its repeats";
  // Every timed solve of the reproducible scan was compared with its first, on the device, and
  // repeated its bits.
  const std::vector<std::string> mode = h5.read_strings("/sweep/mode");
  const std::vector<std::int64_t> repeatable = h5.read_ints("/sweep/repeatable");
  ASSERT_EQ(mode.size(), rows);
  for (std::size_t i = 0; i < rows; ++i) {
    if (mode[i] == "reproducible") {
      EXPECT_EQ(repeatable[i], 1);
    }
  }
}

TEST(SweepMinTime, ANegativeMinimumTimeIsABadInput) {
  test::ScratchDir dir;
  const auto out = dir / "s.h5";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / "recurrence.toml") +
                                 " sweep.min_time=-1 -o " + quoted(out));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "sweep.min_time")) << r.output;
  EXPECT_TRUE(contains(r.output, "expected seconds from 0 to 3600")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace parasol
