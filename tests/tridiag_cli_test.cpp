// tridiag through the front end, as a user meets it: the heat example runs (on the CPU gold
// solver when there is no device) and writes the temperatures; a batch read from an HDF5 file is
// solved and checked; bad parameters and bad input files give one line naming the file and key,
// status 2, and leave nothing behind; a singular system is a run error (status 1), also leaving
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "io/result_file.hpp"
#include "solvers/tridiag/tridiag.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

constexpr double kPi = 3.14159265358979323846;
using test::kExe;
using test::contains;
using test::quoted;
using test::number;
const std::filesystem::path kExample =
    std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs/heat1d.toml";

// A small file-mode parameter file: the batch in in.h5 beside it.
std::string file_params(const std::string& extra = "") {
  return "solver = \"tridiag\"\n[problem]\nkind = \"file\"\n[input]\nfile = \"in.h5\"\n" + extra;
}

class TridiagCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& text, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << text;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "x.h5") + " " + args);
  }
  // The heat example, small enough to take a moment on the CPU; overrides or options after.
  test::CommandResult run_example(const std::string& args) {
    return test::run_shell(kExe + " run " + quoted(kExample) +
                           " heat.grids=16 heat.points=100 heat.steps=20 -o " +
                           quoted(dir_ / "h.h5") + " " + args);
  }
  // Writes a batch as the four datasets [systems][n] an input file holds, under `prefix`.
  template <class T>
  void write_input(const tridiag::Batch<T>& batch, const std::string& prefix = "/") {
    io::ResultFile in(dir_ / "in.h5", true);
    const std::vector<std::uint64_t> dims{std::uint64_t(batch.dims.systems),
                                          std::uint64_t(batch.dims.n)};
    in.write_field(prefix + "a", batch.a.data(), dims);
    in.write_field(prefix + "b", batch.b.data(), dims);
    in.write_field(prefix + "c", batch.c.data(), dims);
    in.write_field(prefix + "d", batch.d.data(), dims);
    in.commit();
  }
  // Nothing but the inputs is left in the folder.
  void expect_nothing_written() { test::expect_only_inputs(dir_, {"p.toml", "in.h5"}); }
  // An input error: status 2, one line naming what is wrong, nothing written.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "in.h5"});
  }
  test::ScratchDir dir_;
};

TEST_F(TridiagCli, HeatExampleRunsAndReportsTheSineDecay) {
  const auto r = run_example("");  // --backend auto: the CPU gold solver on a machine without a GPU
  ASSERT_EQ(r.status, 0) << r.output;
  std::string reason;
  if (!gpu_available(&reason)) {
    EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  }
  EXPECT_TRUE(contains(r.output, "sine mode 1 decayed by")) << r.output;
  EXPECT_TRUE(contains(r.output, "Gunknowns/s")) << r.output;

  io::ResultReader h5(dir_ / "h.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/", "solver")), "tridiag");
  EXPECT_EQ(h5.dims("/fields/u"), (std::vector<std::uint64_t>{16, 100}));
  for (const char* name : {"compute_s", "solve_s",
                           "unknowns_per_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", name)) << name;
  // Transfers are timed on a GPU run only (the CPU backend has none).
  for (const char* name : {"host_to_device_s", "device_to_host_s"})
    EXPECT_EQ(h5.has_attribute("/timings", name),
              std::get<std::string>(h5.attribute("/provenance", "backend")) == "gpu")
        << name;
  EXPECT_GT(number(h5, "/timings", "unknowns_per_s"), 0.0);
  // The decay of the sine mode against the exact factor, in double (the example's precision):
  // 20 steps of cond(A) ~ 2100 leave round-off near 1e-11.
  const double exact = number(h5, "/diagnostics", "exact_sine_decay");
  EXPECT_NEAR(exact, std::pow(number(h5, "/diagnostics", "decay_per_step"), 20), 1e-15);
  EXPECT_NEAR(number(h5, "/diagnostics", "sine_decay"), exact, 1e-9 * exact);
  EXPECT_LE(number(h5, "/diagnostics", "sine_decay_relative_error"), 1e-9);
  // Every point is the sine times the decay.
  const std::vector<double> u = h5.read_doubles("/fields/u");
  for (int j : {0, 37, 99})
    EXPECT_NEAR(u[static_cast<std::size_t>(5 * 100 + j)],
                exact * std::sin(kPi * (j + 1) / 101.0), 1e-10);
  // The overrides and the defaults are stored: the fully resolved parameters.
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/parameters", "heat.grids")), 16);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "method.variant")), "thomas-pcr");
  EXPECT_FALSE(h5.exists("/check"));
}

TEST_F(TridiagCli, HeatCheckAgainstTheGoldInDouble) {
  const auto r = run_example("--backend cpu --check heat.initial=random heat.left=1 heat.right=0.5");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "sine mode")) << "no decay to report with ends held at 1 and 0.5";
  io::ResultReader h5(dir_ / "h.h5");
  EXPECT_EQ(number(h5, "/check", "max_abs_difference"), 0.0);  // the CPU run is the gold
  EXPECT_TRUE(h5.has_attribute("/check", "tolerance"));
  const std::vector<double> u = h5.read_doubles("/fields/u");
  ASSERT_EQ(u.size(), 1600u);
  // Ends at 1 and 0.5 pull the random start up from [0, 1) near them.
  EXPECT_GT(u[0], 0.5);
  EXPECT_FALSE(h5.exists("/diagnostics/sine_decay"));
}

TEST_F(TridiagCli, HelpSaysHowToRun) {
  auto r = test::run_shell(kExe + " --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "run")) << r.output;
  EXPECT_TRUE(contains(r.output, "sweep")) << r.output;
  r = test::run_shell(kExe + " run --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--check")) << r.output;
  EXPECT_TRUE(contains(r.output, "--backend")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(TridiagCli, MisspeltKeyIsNamed) {
  expect_input_error(run_file("solver = \"tridiag\"\n[heat]\npoints = 10\ngrids = 2\nsteps = 1\n"
                              "lamda = 0.5\n"),
                     "p.toml:6: heat.lamda: unknown key; did you mean heat.lambda?");
}

TEST_F(TridiagCli, TheShippedFileExampleRunsAsTheReadmeSays) {
  // inputs/tridiag-systems.h5 ships beside it: a fresh checkout runs it as it is.
  const auto r = test::run_shell(kExe + " run " + std::string(PARASOL_SOURCE_DIR) +
                                 "/inputs/tridiag-file.toml --backend cpu --check -o " +
                                 quoted(dir_ / "t.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "t.h5");
  EXPECT_EQ(h5.dims("/fields/x"), (std::vector<std::uint64_t>{64, 256}));
  EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
}

TEST_F(TridiagCli, BadValuesNameTheirKey) {
  const std::string heat = "solver = \"tridiag\"\n[heat]\npoints = 200\ngrids = 2\nsteps = 1\n";
  expect_input_error(run_file(heat, "heat.lambda=0"), "command line: heat.lambda: expected a positive");
  expect_input_error(run_file(heat, "heat.steps=-1"), "command line: heat.steps:");
  // An end value float cannot carry through lambda u + u[-1] (fine in double).
  expect_input_error(run_file(heat, "heat.left=1e38"),
                     "command line: heat.left: expected a magnitude of at most");
  expect_input_error(run_file(heat, "heat.lambda=1e39"), "command line: heat.lambda:");
  expect_input_error(run_file(heat, "heat.points=0"), "command line: heat.points:");
  expect_input_error(run_file(heat, "method.threads=48"),
                     "command line: method.threads: expected a multiple of 32");
  expect_input_error(run_file(heat, "method.chunk=3"),
                     "command line: method.chunk: chunk 3 is not compiled in for thomas-pcr; compiled: 2 4 8 16");
  expect_input_error(run_file(heat, "method.variant=pcr-warp"),
                     "p.toml:3: heat.points: pcr-warp solves at most 128 points");
  expect_input_error(run_file(heat, "method.variant=pcr_warp"),
                     "command line: method.variant: variant \"pcr_warp\" is not one of");
  expect_input_error(run_file(heat, "heat.initial=cosine"), "command line: heat.initial:");
  expect_input_error(run_file(heat, "problem.precision=half"), "command line: problem.precision:");
  expect_input_error(run_file(heat, "input.file=x.h5"),
                     "command line: input.file: not read when problem.kind = \"heat\"");
  expect_input_error(run_file(heat, "sweep.threads=[64,48]"),
                     "command line: sweep.threads: expected multiples of 32");
  expect_input_error(run_file(heat, "sweep.chunks=[3]"), "command line: sweep.chunks:");
  expect_input_error(run_file("solver = \"tridiag\"\n[heat]\ngrids = 2\nsteps = 1\n"), "heat.points");
}

TEST_F(TridiagCli, FileModeSolvesABatchFromHdf5) {
  const tridiag::Dims dims{50, 4, tridiag::Layout::contiguous};
  const tridiag::Batch<double> batch = tridiag::random_batch<double>(dims, test::kSeed);
  write_input(batch, "/systems/");
  const std::string datasets =
      "a = \"systems/a\"\nb = \"systems/b\"\nc = \"systems/c\"\nd = \"systems/d\"\n";
  auto r = run_file(file_params(datasets), "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "4 systems of 50 rows")) << r.output;
  const std::vector<double> gold = tridiag::solve_gold(batch);
  {
    io::ResultReader h5(dir_ / "x.h5");
    EXPECT_EQ(h5.dims("/fields/x"), (std::vector<std::uint64_t>{4, 50}));
    // Float unless asked: the coefficients read as float move x by cond(A) <= 6 float ulps.
    const std::vector<float> x = h5.read_floats("/fields/x");
    for (std::size_t k = 0; k < x.size(); ++k) ASSERT_NEAR(x[k], gold[k], 1e-6) << k;
    EXPECT_LE(number(h5, "/check", "max_relative_difference"), 1e-7);
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/input", "systems")), 4);
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/input", "n")), 50);
    EXPECT_EQ(std::get<std::string>(h5.attribute("/input", "file")), (dir_ / "in.h5").string());
  }
  r = run_file(file_params(datasets), "--force problem.precision=double method.variant=thomas");
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "x.h5");
  EXPECT_EQ(h5.read_doubles("/fields/x"), gold);
}

TEST_F(TridiagCli, FileModeChecksTheLaunchAgainstTheFilesSize) {
  write_input(tridiag::random_batch<float>({300, 2, tridiag::Layout::contiguous}, test::kSeed));
  expect_input_error(run_file(file_params(), "method.variant=pcr-warp"),
                     "method.variant: pcr-warp solves systems of up to 128 rows");
}

TEST_F(TridiagCli, FileModeInputErrorsNameTheFileAndDataset) {
  write_input(tridiag::random_batch<double>({6, 3, tridiag::Layout::contiguous}, test::kSeed));
  const std::string in = (dir_ / "in.h5").string();
  expect_input_error(run_file(file_params("d = \"rhs\"\n")),
                     in + ": input.d: no dataset \"rhs\" in the file");
  {
    io::ResultFile other(dir_ / "in.h5", true);
    const std::vector<double> values(18, 1.0);
    for (const char* name : {"a", "b", "c"}) other.write_field(name, values.data(), {3, 6});
    other.write_field("d", values.data(), {6, 3});
    other.write_field("flat", values.data(), {18});
    other.commit();
  }
  expect_input_error(run_file(file_params()),
                     in + ": input.d: dataset \"d\" is [6 x 3] but \"a\" is [3 x 6]");
  expect_input_error(run_file(file_params("b = \"flat\"\n")),
                     in + ": input.b: dataset \"flat\" is [18]; expected [systems][n]");
  // What the key names must be a dataset of numbers: not a group, strings or the file's root.
  {
    io::ResultFile other(dir_ / "in.h5", true);
    const std::vector<double> values(18, 1.0);
    for (const char* name : {"a", "b", "c", "d", "/group/x"}) other.write_field(name, values.data(), {3, 6});
    other.write_column("text", std::vector<std::string>{"a", "b", "c"});
    other.commit();
  }
  expect_input_error(run_file(file_params("c = \"group\"\n")),
                     in + ": input.c: dataset \"group\": expected a dataset, found a group");
  expect_input_error(run_file(file_params("a = \"text\"\n")),
                     in + ": input.a: dataset \"text\": expected a dataset of numbers");
  expect_input_error(run_file(file_params("d = \"/\"\n")), in + ": input.d: dataset \"/\": ");
  expect_input_error(run_file(file_params("b = \"a/x\"\n")), in + ": input.b: no dataset \"a/x\"");
  std::filesystem::remove(dir_ / "in.h5");
  expect_input_error(run_file(file_params()), in + ": no such file");
  expect_input_error(run_file("solver = \"tridiag\"\n[problem]\nkind = \"file\"\n"),
                     "input.file: missing");
  expect_input_error(run_file(file_params("[heat]\npoints = 5\n")),
                     "p.toml:7: heat.points: not read when problem.kind = \"file\"");
}

TEST_F(TridiagCli, SingularSystemIsARunErrorAndLeavesNothing) {
  const tridiag::Dims dims{8, 4, tridiag::Layout::contiguous};
  tridiag::Batch<double> batch = tridiag::random_batch<double>(dims, test::kSeed);
  // Row 0 of system 2 all zeros: singular, whatever the algorithm.
  batch.b[static_cast<std::size_t>(dims.index(2, 0))] = 0;
  batch.c[static_cast<std::size_t>(dims.index(2, 0))] = 0;
  write_input(batch);
  for (const std::string backend : {"cpu", "auto"}) {
    std::ofstream(dir_ / "p.toml") << file_params();
    const auto r = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend " +
                                   backend + " -o " + quoted(dir_ / "x.h5"));
    EXPECT_EQ(r.status, 1) << r.output;
    const std::string last = r.output.substr(r.output.rfind('\n', r.output.size() - 2) + 1);
    EXPECT_TRUE(contains(last, "parasol: " + (dir_ / "in.h5").string() + ": ")) << r.output;
    EXPECT_TRUE(contains(last, "system 2")) << r.output;
    EXPECT_TRUE(contains(last, "do not pivot")) << r.output;
    if (backend == "cpu") {
      EXPECT_TRUE(contains(last, "system 2: zero pivot at row 0")) << r.output;
    }
    expect_nothing_written();
  }
}

TEST_F(TridiagCli, SweepWithoutADeviceSaysSo) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0 --backend gpu heat.grids=4 -o " +
                                 quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(TridiagCli, GpuRunsAgreeWithTheGold) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"pcr-shared", "pcr-warp", "thomas-pcr", "thomas", "thomas-scan"}) {
    // The example's long steps in double; in float shorter steps (lambda 0.5, cond(A) <= 9),
    // since at the example's the decay is only as good as cond(A) ~ 2100 float ulps a step.
    for (const std::string precision : {"double", "float"}) {
      const auto r = test::run_shell(
          kExe + " run " + quoted(kExample) +
          " --backend gpu --check --force heat.points=100 heat.grids=64 heat.steps=20 "
          "method.variant=" + variant + " problem.precision=" + precision +
          (precision == "float" ? " heat.lambda=0.5" : "") + " -o " + quoted(dir_ / "h.h5"));
      ASSERT_EQ(r.status, 0) << r.output;
      io::ResultReader h5(dir_ / "h.h5");
      EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
      EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "variant")), variant);
      EXPECT_LE(number(h5, "/check", "max_relative_difference"), number(h5, "/check", "tolerance"))
          << variant << " " << precision;
      EXPECT_LE(number(h5, "/diagnostics", "sine_decay_relative_error"),
                precision == "float" ? 1e-5 : 1e-9)
          << variant << " " << precision;
    }
  }
}

TEST_F(TridiagCli, GpuSweepTimesEveryVariant) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0" +
                                 " heat.points=100 heat.grids=256 sweep.repeats=2 "
                                 "sweep.threads=[64,256] -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  const std::vector<std::string> variants = h5.read_strings("/sweep/variant");
  for (const std::string v : {"pcr-shared", "pcr-warp", "thomas-pcr", "thomas", "thomas-scan"})
    EXPECT_NE(std::find(variants.begin(), variants.end(), v), variants.end()) << v;
  for (std::int64_t passed : h5.read_ints("/sweep/passed")) EXPECT_EQ(passed, 1);
}

}  // namespace
// A GPU run of random systems draws them on the device unless the gold of --check needs them on
// the host: the two runs must give the same x, bit for bit (each solve runs the same kernels on
// the same values), for every variant, in float and double, and several seeds.
TEST_F(TridiagCli, GpuRandomSystemsDrawnOnTheDeviceGiveTheHostDrawnRunsBits) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant :
       {"pcr-shared", "pcr-warp", "thomas-pcr", "thomas", "thomas-scan"})
    for (const std::string precision : {"float", "double"})
      for (const std::string seed : {"1", "46"}) {
        std::ofstream(dir_ / "p.toml")
            << "solver = \"tridiag\"\n[problem]\nkind = \"random\"\nprecision = \"" << precision
            << "\"\n[random]\nn = 99\nsystems = 65\nseed = " << seed << "\n";
        const std::string run = kExe + " run " + quoted(dir_ / "p.toml") +
                                " --backend gpu --force method.variant=" + variant;
        const auto host = test::run_shell(run + " --check -o " + quoted(dir_ / "host.h5"));
        ASSERT_EQ(host.status, 0) << host.output;
        const auto device = test::run_shell(run + " -o " + quoted(dir_ / "device.h5"));
        ASSERT_EQ(device.status, 0) << device.output;
        const std::vector<double> h = io::ResultReader(dir_ / "host.h5").read_doubles("/fields/x");
        const std::vector<double> d =
            io::ResultReader(dir_ / "device.h5").read_doubles("/fields/x");
        ASSERT_EQ(h.size(), d.size());
        EXPECT_EQ(std::memcmp(h.data(), d.data(), h.size() * sizeof(double)), 0)
            << variant << ", " << precision << ", seed " << seed;
      }
}

}  // namespace parasol
