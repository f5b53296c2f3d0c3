// The front end as a user meets it: runs, results, and every way a parameter file can be wrong,
// each giving one clear line, exit status 2 and no output file.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "io/autotune.hpp"
#include "io/result_file.hpp"
#include "solvers/laplace3d/shapes.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
const std::string kInputs = std::string(PARASOL_SOURCE_DIR) + "/inputs/";

// A small valid file; tests append or replace lines to break it.
std::string small_params(const std::string& extra = "") {
  return "solver = \"laplace3d\"\n"
         "[grid]\nnx = 12\nny = 10\nnz = 9\n"
         "[boundary]\nx_min = 1.0\n"
         "[iteration]\nmax_iterations = 20\n" + extra;
}

std::filesystem::path write(const test::ScratchDir& dir, const std::string& name,
                            const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

class Cli : public ::testing::Test {
 protected:
  // Runs `parasol run` on a file written into the scratch folder, output there too.
  test::CommandResult run_params(const std::string& text, const std::string& args = "") {
    const auto params = write(dir_, "p.toml", text);
    return test::run_shell(kExe + " run " + quoted(params) + " -o " + quoted(dir_ / "out.h5") +
                           " --backend cpu " + args);
  }
  // An input error: status 2, one line naming what is wrong, nothing but the params file left.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(contains(r.output, part)) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.h5"));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.xmf"));
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
      EXPECT_EQ(entry.path().filename(), "p.toml") << "left behind: " << entry.path();
  }
  test::ScratchDir dir_;
};

TEST_F(Cli, HelpAnswersEverywhere) {
  for (const std::string sub : {"", " run", " sweep", " info"}) {
    const auto r = test::run_shell(kExe + sub + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_TRUE(contains(r.output, "Usage")) << r.output;
  }
  EXPECT_TRUE(contains(test::run_shell(kExe + " run --help").output, "--check"));
  EXPECT_TRUE(contains(test::run_shell(kExe + " sweep --help").output, "--autotune"));
  EXPECT_EQ(test::run_shell(kExe + " frobnicate").status, 2);
}

TEST_F(Cli, RunWritesAResultWithParametersProvenanceTimingsAndCheck) {
  const auto r = run_params(small_params(), "grid.nx=11 --check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir_ / "out.h5"));
  ASSERT_TRUE(std::filesystem::exists(dir_ / "out.xmf"));
  io::ResultReader h5(dir_ / "out.h5");
  EXPECT_EQ(h5.dims("/fields/u"), (std::vector<std::uint64_t>{9, 10, 11}));
  // The override and the defaults are stored: the fully resolved parameters.
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/parameters", "grid.nx")), 11);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "method.variant")), "zreg");
  EXPECT_EQ(std::get<double>(h5.attribute("/parameters", "iteration.tolerance")), 0.0);
  for (const char* name : {"parasol_version", "git_describe", "date", "host", "backend"})
    EXPECT_TRUE(h5.has_attribute("/provenance", name)) << name;
  EXPECT_TRUE(h5.has_attribute("/timings", "compute_s"));
  // A CPU run has no transfers to time.
  for (const char* name : {"host_to_device_s", "device_to_host_s"})
    EXPECT_FALSE(h5.has_attribute("/timings", name)) << name;
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/diagnostics", "iterations")), 20);
  // The committed file's size, a whole number of bytes.
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/timings", "bytes_written")),
            static_cast<std::int64_t>(std::filesystem::file_size(dir_ / "out.h5")));
  EXPECT_TRUE(contains(r.output, " kB written at ")) << r.output;
  // A float run against the double gold: float round-off, not zero and not large.
  const double max_abs = std::get<double>(h5.attribute("/check", "max_abs_difference"));
  EXPECT_GT(max_abs, 0.0);
  EXPECT_LT(max_abs, 1e-5);
  const std::vector<float> u = h5.read_floats("/fields/u");
  EXPECT_EQ(u.size(), 9u * 10u * 11u);
  EXPECT_EQ(u[0], 1.0f);  // the x_min face
}

TEST_F(Cli, DefaultExampleRunsOnTheCpu) {
  const auto r = test::run_shell(kExe + " run " + kInputs + "laplace3d.toml --backend cpu -o " +
                                 quoted(dir_ / "example.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  // "converged" only with its criterion, and the error that remains beside it.
  EXPECT_TRUE(contains(r.output, "converged: max|du| ")) << r.output;
  EXPECT_TRUE(contains(r.output, "error bound ≈ ")) << r.output;
  io::ResultReader h5(dir_ / "example.h5");
  EXPECT_TRUE(std::get<bool>(h5.attribute("/diagnostics", "converged")));
  EXPECT_TRUE(h5.is_chunked("/fields/u"));
  EXPECT_FALSE(h5.is_compressed("/fields/u")) << "the default writes at the disk's speed";
}

TEST_F(Cli, CompressionZeroWritesUncompressedAndOutOfRangeIsRefused) {
  const auto r = test::run_shell(kExe + " run " + kInputs + "laplace3d.toml --backend cpu -o " +
                                 quoted(dir_ / "plain.h5") + " --compression 0");
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "plain.h5");
  EXPECT_TRUE(h5.is_chunked("/fields/u"));
  EXPECT_FALSE(h5.is_compressed("/fields/u"));
  for (const char* level : {"10", "-1", "fast"}) {
    const auto bad = run_params(small_params(), std::string("--compression ") + level);
    EXPECT_EQ(bad.status, 2) << level << ": " << bad.output;
    EXPECT_TRUE(contains(bad.output, "--compression")) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.h5")) << level;
  }
}

TEST_F(Cli, ExistingOutputIsKeptUnlessForced) {
  ASSERT_EQ(run_params(small_params()).status, 0);
  const auto first = std::filesystem::last_write_time(dir_ / "out.h5");
  const auto again = run_params(small_params());
  EXPECT_EQ(again.status, 2) << again.output;
  EXPECT_TRUE(contains(again.output, "--force")) << again.output;
  EXPECT_EQ(std::filesystem::last_write_time(dir_ / "out.h5"), first);
  EXPECT_EQ(run_params(small_params(), "--force").status, 0);
}

TEST_F(Cli, MissingFile) {
  const auto r = test::run_shell(kExe + " run " + quoted(dir_ / "none.toml") + " -o " +
                                 quoted(dir_ / "out.h5"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "none.toml: no such parameter file")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(Cli, SyntaxErrorWithLine) {
  expect_input_error(run_params(small_params("nz = = 3\n")), "p.toml:10: TOML syntax error");
}

TEST_F(Cli, MissingKey) {
  expect_input_error(run_params("solver = \"laplace3d\"\n[grid]\nnx = 5\nny = 5\n"),
                     "p.toml: grid.nz: missing; expected an integer");
}

TEST_F(Cli, MissingSolver) {
  expect_input_error(run_params("[grid]\nnx = 5\n"), "solver: missing; expected a string");
}

TEST_F(Cli, UnknownSolver) {
  expect_input_error(run_params("solver = \"laplace2d\"\n"), "unknown solver \"laplace2d\"");
}

TEST_F(Cli, WrongType) {
  expect_input_error(run_params(small_params("[method]\nblock = \"32x8\"\n")),
                     "p.toml:11: method.block: expected a block shape [x, y, z] of positive integers, got a string");
}

TEST_F(Cli, MisspeltKey) {
  expect_input_error(run_params(small_params("check_evry = 5\n")),
                     "p.toml:10: iteration.check_evry: unknown key; did you mean iteration.check_every?");
}

TEST_F(Cli, NegativeAndZeroSizes) {
  std::string text = small_params();
  expect_input_error(run_params(text.replace(text.find("nx = 12"), 7, "nx = -12")),
                     "p.toml:3: grid.nx: expected an integer of at least 3");
  expect_input_error(run_params(small_params(), "grid.nz=0"),
                     "command line: grid.nz: expected an integer of at least 3");
  expect_input_error(run_params(small_params(), "iteration.max_iterations=0"),
                     "command line: iteration.max_iterations: expected a positive integer");
}

TEST_F(Cli, BadEnumName) {
  expect_input_error(run_params(small_params(), "method.variant=zrge"),
                     "command line: method.variant: variant \"zrge\" is not one of");
}

TEST_F(Cli, BlockNotCompiledIn) {
  expect_input_error(run_params(small_params(), "method.block=[48,4,1]"),
                     "method.block: block 48x4x1 is not compiled in for zreg; compiled: 32x4x1");
}

TEST_F(Cli, EachVariantRunsItsDefaultBlockWhenTheFileNamesNone) {
  for (const char* variant : {"zmarch", "block3d", "zreg", "zreg-vec", "smem-zreg", "temporal"}) {
    const auto r = run_params(small_params(), std::string("--force method.variant=") + variant);
    EXPECT_EQ(r.status, 0) << variant << ": " << r.output;
  }
  // A block the file names is kept and checked, whatever the variant.
  std::filesystem::remove(dir_ / "out.h5");
  std::filesystem::remove(dir_ / "out.xmf");
  expect_input_error(run_params(small_params(), "method.variant=temporal method.block=[64,4,1]"),
                     "method.block: block 64x4x1 is not compiled in for temporal");
}

TEST_F(Cli, GridTooLargeForMemory) {
  // 10^5 cubed points is petabytes: no host or device holds it.
  expect_input_error(run_params(small_params(), "grid.nx=100000 grid.ny=100000 grid.nz=100000"),
                     "grid: the grid needs about");
}

TEST_F(Cli, GridTooLargeForTheDevice) {
  PARASOL_REQUIRE_GPU();
  const auto params = write(dir_, "p.toml", small_params());
  const auto r = test::run_shell(kExe + " run " + quoted(params) + " -o " + quoted(dir_ / "out.h5") +
                                 " --backend gpu grid.nx=100000 grid.ny=100000 grid.nz=1000");
  expect_input_error(r, "on the device");
}

TEST_F(Cli, ValuesPastThePrecisionsRangeAreRefused) {
  // 1e39 is no float; six boundary values of 1e38 would add up past float's range in an update.
  expect_input_error(run_params(small_params(), "boundary.x_min=1e39"),
                     "boundary.x_min: expected a magnitude of at most");
  expect_input_error(run_params(small_params(), "initial.interior=\"constant\" initial.value=-1e38"),
                     "initial.value: expected a magnitude of at most");
  // In double both fit.
  const auto r = run_params(small_params(), "boundary.x_min=1e39 method.precision=double");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(Cli, CpuSweepTimesTheGoldAtEachThreadCount) {
  // A sweep file made without a GPU: the CPU solver at 1 and 2 threads, each checked.
  const auto params = write(dir_, "p.toml", small_params());
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 --backend cpu --threads 2 -o " +
                                 quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  EXPECT_EQ(h5.read_ints("/sweep/threads"), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(h5.read_ints("/sweep/passed"), (std::vector<std::int64_t>{1, 1}));
  for (const double rate : h5.read_doubles("/sweep/gpoints_per_s")) EXPECT_GT(rate, 0.0);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/sweep", "backend")), "cpu");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/sweep", "rate_column")), "gpoints_per_s");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/sweep", "axis_columns")), "backend, threads");
}

TEST_F(Cli, MisspeltOverride) {
  expect_input_error(run_params(small_params(), "grid.nxx=4"),
                     "command line: grid.nxx: unknown key; did you mean grid.nx?");
}

TEST_F(Cli, MissingOutputFolder) {
  const auto params = write(dir_, "p.toml", small_params());
  const auto r = test::run_shell(kExe + " run " + quoted(params) + " --backend cpu -o " +
                                 quoted(dir_ / "no" / "such" / "out.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no"));
}

TEST_F(Cli, InterruptedRunLeavesNothing) {
  // Long enough to be interrupted mid-computation: 10^6 iterations of a 40^3 grid.
  const auto params = write(dir_, "p.toml", small_params());
  const std::string command = kExe + " run " + quoted(params) + " --backend cpu -o " +
                              quoted(dir_ / "out.h5") +
                              " grid.nx=40 grid.ny=40 grid.nz=40 iteration.max_iterations=1000000";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command + " > /dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  // Wait until the run has opened its temporary output, then interrupt it.
  bool started = false;
  for (int i = 0; i < 200 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
      started = started || entry.path().filename() != "p.toml";
  }
  EXPECT_TRUE(started) << "the run never opened its output";
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    EXPECT_EQ(entry.path().filename(), "p.toml") << "left behind: " << entry.path();
}

TEST_F(Cli, GpuBackendWithoutADeviceSaysSo) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto params = write(dir_, "p.toml", small_params());
  const auto r = test::run_shell(kExe + " run " + quoted(params) + " --backend gpu -o " +
                                 quoted(dir_ / "out.h5"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.output, "--backend gpu: no usable CUDA device")) << r.output;
}

TEST_F(Cli, AutoBackendRunsTheGpuWhenPresentAndAgreesWithTheGold) {
  PARASOL_REQUIRE_GPU();
  const auto params = write(dir_, "p.toml", small_params());
  for (const std::string variant : {"zmarch", "block3d", "zreg"}) {
    const std::string block = variant == "block3d" ? "[32,4,4]" : "[32,8,1]";
    const auto r = test::run_shell(kExe + " run " + quoted(params) + " --force --check -o " +
                                   quoted(dir_ / "out.h5") + " method.variant=" + variant +
                                   " method.block=" + block);
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "out.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
    EXPECT_TRUE(h5.has_attribute("/provenance", "device_name"));
    EXPECT_LT(std::get<double>(h5.attribute("/check", "max_abs_difference")), 1e-5);
  }
}

TEST_F(Cli, SweepTablesEveryVariantAndShape) {
  PARASOL_REQUIRE_GPU();
  const auto params = write(dir_, "p.toml", small_params("[sweep]\niterations = 3\nrepeats = 3\n"));
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 -o " + quoted(dir_ / "s.h5") +
                                 " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fastest")) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  const auto variants = h5.read_strings("/sweep/variant");
  std::size_t rows = 0;  // one per variant and compiled shape
  for (laplace3d::Variant v : laplace3d::kVariants) rows += laplace3d::compiled_shapes(v).size();
  EXPECT_EQ(variants.size(), rows);
  for (std::int64_t passed : h5.read_ints("/sweep/passed")) EXPECT_EQ(passed, 1);
}

TEST_F(Cli, SweepChecksOverridesLikeRun) {
  const auto params = write(dir_, "p.toml", small_params());
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 -o " + quoted(dir_ / "s.h5") +
                                 " sweep.repeets=3");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "command line: sweep.repeets: unknown key; did you mean sweep.repeats?"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "s.h5"));
}

TEST_F(Cli, AutoVariantOnTheCpuRunsTheGold) {
  // The gold solver has no variants: "auto" is looked up only for a GPU run.
  const auto r = run_params(small_params("[method]\nvariant = \"auto\"\n"),
                            "--autotune-file " + quoted(dir_ / "none.toml"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  io::ResultReader h5(dir_ / "out.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "method.variant")), "auto");
  EXPECT_FALSE(h5.exists("/method"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "none.toml"));
}

TEST_F(Cli, AutoVariantIsAmongTheNamesAndLeavesTheFilesBlockUnchecked) {
  expect_input_error(run_params(small_params(), "method.variant=zrge"),
                     "variant \"zrge\" is not one of \"zmarch\", \"block3d\", \"zreg\", ");
  expect_input_error(run_params(small_params(), "method.variant=zrge"), ", or \"auto\"");
  // The choice brings its own block, so one written for block3d does not stop "auto".
  const auto r = run_params(small_params("[method]\nvariant = \"zreg\"\nblock = [32, 4, 4]\n"),
                            "method.variant=auto");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(Cli, SweepAutotuneWithoutADeviceFailsCleanly) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto params = write(dir_, "p.toml", small_params());
  // The default place, under XDG_CACHE_HOME: nothing may be created there by a failed sweep.
  const auto r = test::run_shell("PARASOL_AUTOTUNE_FILE= XDG_CACHE_HOME=" + quoted(dir_ / "cache") +
                                 " " + kExe + " sweep " + quoted(params) + " sweep.min_time=0 --autotune -o " +
                                 quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    EXPECT_EQ(entry.path().filename(), "p.toml") << "left behind: " << entry.path();
}

TEST_F(Cli, SweepAutotuneRefusesACorruptFileBeforeTiming) {
  const auto params = write(dir_, "p.toml", small_params());
  const auto autotune =
      write(dir_, "autotune.toml", "format = \"parasol-autotune-1\"\n[[choice]\n");
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 --autotune" +
                                 " --autotune-file " + quoted(autotune) + " -o " +
                                 quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, autotune.string() + ":2: not a valid autotune file")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "s.h5"));
}

TEST_F(Cli, SweepAutotuneNeedsAChoiceToMake) {
  // recurrence's sweep times its two scan modes, which differ in what they promise (bits that
  // repeat), not only in speed: there is nothing for --autotune to choose. Its parameters are
  // read (and would be refused) first.
  const auto params = write(dir_, "r.toml",
                            "solver = \"recurrence\"\n[ar1]\nlength = 1000\n");
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 --autotune" +
                                 " --autotune-file " + quoted(dir_ / "autotune.toml"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "r.toml:1: solver: --autotune stores the fastest of a solver's"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "the recurrence sweep has nothing to choose between")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "autotune.toml"));
}

TEST_F(Cli, CpuSweepAutotuneStoresTheThreadsThatRunAutoUses) {
  const auto params = write(dir_, "p.toml", small_params());
  const std::string store = " --autotune-file " + quoted(dir_ / "autotune.toml");
  const auto r = test::run_shell(kExe + " sweep " + quoted(params) +
                                 " sweep.min_time=0 --backend cpu --threads 2 --autotune" + store +
                                 " -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "autotune: cpu, threads ")) << r.output;
  const auto file = io::AutotuneFile::load(dir_ / "autotune.toml");
  ASSERT_EQ(file.choices().size(), 1u);
  const io::AutotuneChoice& choice = file.choices()[0];
  EXPECT_EQ(choice.key.solver, "laplace3d");
  EXPECT_EQ(choice.variant, "cpu");
  const int stored = std::stoi(choice.axis("threads").value_or("0"));
  EXPECT_TRUE(stored == 1 || stored == 2) << stored;  // the sweep's thread counts

  // --threads auto: the stored count, said in the summary and in /provenance@threads.
  const auto run = test::run_shell(kExe + " run " + quoted(params) + " --backend cpu" + store +
                                   " -o " + quoted(dir_ / "r.h5"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "auto: the fastest of parasol sweep --backend cpu --autotune"))
      << run.output;
  {
    io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "threads")), stored);
  }
  // Another problem has no stored choice: the auto rule, as before.
  const auto other = test::run_shell(kExe + " run " + quoted(params) + " grid.nx=7 --backend cpu" +
                                     store + " -o " + quoted(dir_ / "o.h5"));
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_FALSE(contains(other.output, "--autotune")) << other.output;
  // --threads N wins over the store.
  const auto given = test::run_shell(kExe + " run " + quoted(params) + " --backend cpu --threads 1" +
                                     store + " -o " + quoted(dir_ / "g.h5"));
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_TRUE(contains(given.output, "--threads 1")) << given.output;
}

TEST_F(Cli, SweepAutotuneStoresWhatRunAutoUses) {
  PARASOL_REQUIRE_GPU();
  const auto params = write(dir_, "p.toml", small_params("[sweep]\niterations = 3\nrepeats = 3\n"));
  const auto autotune = dir_ / "tuned" / "autotune.toml";
  const std::string tuned = " --autotune-file " + quoted(autotune);
  auto r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 --autotune" + tuned + " -o " +
                           quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "autotune: ")) << r.output;
  const io::AutotuneFile file = io::AutotuneFile::load(autotune);
  ASSERT_EQ(file.choices().size(), 1u);
  const io::AutotuneChoice choice = file.choices()[0];
  EXPECT_EQ(choice.key.solver, "laplace3d");
  EXPECT_EQ(choice.key.problem, "12x10x9");
  EXPECT_EQ(choice.key.precision, "float");
  EXPECT_EQ(choice.key.device, current_device().name);
  {
    // The choice is the sweep's fastest row that agreed with the gold.
    io::ResultReader h5(dir_ / "s.h5");
    const auto variants = h5.read_strings("/sweep/variant");
    const auto blocks = h5.read_strings("/sweep/block");
    const std::size_t fastest = test::fastest_passing_row(h5);
    ASSERT_LT(fastest, variants.size());
    EXPECT_EQ(choice.variant, variants[fastest]);
    EXPECT_EQ(choice.axis("block"), blocks[fastest]);
    EXPECT_EQ(choice.timed, static_cast<std::int64_t>(variants.size()));
  }

  // The run uses the choice and says so in its result.
  r = test::run_shell(kExe + " run " + quoted(params) + " method.variant=auto --check" + tuned +
                      " -o " + quoted(dir_ / "auto.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  {
    io::ResultReader h5(dir_ / "auto.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "variant")), choice.variant);
    const auto block = std::get<std::vector<std::int64_t>>(h5.attribute("/method", "block"));
    ASSERT_EQ(block.size(), 3u);
    EXPECT_EQ(to_string(Shape{int(block[0]), int(block[1]), int(block[2])}), choice.axis("block"));
    EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "chosen_by")), "autotune");
    EXPECT_LT(std::get<double>(h5.attribute("/check", "max_abs_difference")), 1e-5);
  }

  // Another grid has no choice: the defaults run, whatever block the file gives, with one note
  // saying how to make a choice.
  r = test::run_shell("(" + kExe + " run " + quoted(params) + " method.variant=auto grid.nx=13" +
                      " method.block=[32,8,1]" + tuned + " -o " + quoted(dir_ / "default.h5") +
                      " 2>&1 >/dev/null)");  // stderr alone
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "no choice for laplace3d 13x10x9 float")) << r.output;
  EXPECT_TRUE(contains(r.output, "running zreg 64x4x1")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  {
    io::ResultReader h5(dir_ / "default.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "variant")), "zreg");
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(h5.attribute("/method", "block")),
              (std::vector<std::int64_t>{64, 4, 1}));
    EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "chosen_by")), "default");
  }

  // A sweep of that grid adds its choice and keeps the first.
  r = test::run_shell(kExe + " sweep " + quoted(params) + " sweep.min_time=0 grid.nx=13 --autotune" + tuned +
                      " -o " + quoted(dir_ / "s13.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  const io::AutotuneFile merged = io::AutotuneFile::load(autotune);
  ASSERT_EQ(merged.choices().size(), 2u);
  EXPECT_EQ(merged.choices()[0].key, choice.key);
}

TEST_F(Cli, RunAutoRefusesAChoiceThisBuildCannotRun) {
  PARASOL_REQUIRE_GPU();
  const DeviceInfo device = current_device();
  const auto params = write(dir_, "p.toml", small_params("[method]\nvariant = \"auto\"\n"));
  io::AutotuneFile file = io::AutotuneFile::load(dir_ / "autotune.toml");
  io::AutotuneChoice choice;
  choice.key = {device.name, device.compute_capability(), "laplace3d", "12x10x9", "float"};
  choice.variant = "warp9";  // from a build with other variants
  choice.axes = {{"block", "32x8x1"}};
  file.put(choice);
  file.save();
  const int line = io::AutotuneFile::load(dir_ / "autotune.toml").choices()[0].line;
  const auto r = test::run_shell(kExe + " run " + quoted(params) + " --autotune-file " +
                                 quoted(dir_ / "autotune.toml") + " -o " + quoted(dir_ / "out.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "autotune.toml:" + std::to_string(line) +
                                     ": choice.variant: variant \"warp9\" is not one of"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "run `parasol sweep --autotune` again")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.h5"));
}

TEST_F(Cli, InfoDescribesTheDeviceOrItsAbsence) {
  const auto r = test::run_shell(kExe + " info");
  std::string reason;
  if (gpu_available(&reason)) {
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "device-to-device copy")) << r.output;
  } else {
    // No device is no failure: info says what the CPU backend will do (tests/batch_job_test.cpp).
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "device: none")) << r.output;
  }
}

}  // namespace
}  // namespace parasol
