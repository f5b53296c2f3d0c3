// recurrence through the front end, as a user meets it: the example runs (on the CPU gold solver
// here, or the GPU where there is one) and stores v beside its inputs; smoothing and file problems
// read HDF5 files the test writes; bad parameters and bad input files give one line naming the
// file and the key or dataset, status 2, and leave nothing behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
using test::number;
using test::integer;
const std::filesystem::path kExample =
    std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs/recurrence.toml";

class RecurrenceCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& text, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << text;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "r.h5") + " " + args);
  }
  // A small AR(1) problem; `extra` adds lines at the end (into [ar1] unless it opens a table).
  static std::string ar1_file(const std::string& extra = "") {
    return "solver = \"recurrence\"\n[problem]\nkind = \"ar1\"\n[ar1]\nseries = 3\nlength = 50\n" +
           extra;
  }
  // An HDF5 input file beside the parameter file, written by `fill`.
  template <class Fill>
  void write_input(const std::string& name, Fill&& fill) {
    io::ResultFile file(dir_ / name, true);
    fill(file);
    file.commit();
  }
  // An input error: status 2, one line naming what is wrong, nothing written.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "in.h5"});
  }
  test::ScratchDir dir_;
};

TEST_F(RecurrenceCli, ExampleRunsWithAutoBackendAndStoresVBesideItsInputs) {
  // No --backend: auto, the CPU gold solver on a machine without a device.
  const auto r = test::run_shell(kExe + " run " + quoted(kExample) + " --check -o " +
                                 quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  if (!gpu_available()) {
    EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  }
  EXPECT_TRUE(contains(r.output, "AR(1), 16 series x 262144 steps")) << r.output;
  EXPECT_TRUE(contains(r.output, "Gelements/s")) << r.output;
  EXPECT_TRUE(contains(r.output, "max relative to scale")) << r.output;

  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/", "solver")), "recurrence");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "problem.kind")), "ar1");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "method.mode")), "fast");
  EXPECT_EQ(number(h5, "/parameters", "ar1.phi"), 0.95);
  EXPECT_EQ(integer(h5, "/series", "elements"), 16 * 262144);
  EXPECT_EQ(integer(h5, "/series", "segments"), 16);
  for (const char* name : {"compute_s",
                           "gelements_per_s", "gb_per_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", name)) << name;
  // Transfers are timed on a GPU run only (the CPU backend has none).
  for (const char* name : {"host_to_device_s", "device_to_host_s"})
    EXPECT_EQ(h5.has_attribute("/timings", name),
              std::get<std::string>(h5.attribute("/provenance", "backend")) == "gpu")
        << name;
  EXPECT_LE(number(h5, "/check", "max_relative_to_scale"), number(h5, "/check", "tolerance"));
  EXPECT_EQ(std::get<std::string>(h5.attribute("/check", "gold_precision")), "long double");

  const std::vector<std::uint64_t> rows{16, 262144};
  EXPECT_EQ(h5.dims("/fields/v"), rows);
  EXPECT_EQ(h5.dims("/input/s"), rows);
  EXPECT_EQ(h5.dims("/input/u"), rows);
  EXPECT_TRUE(h5.is_chunked("/fields/v"));
  const std::vector<std::int64_t> offsets = h5.read_ints("/input/offsets");
  ASSERT_EQ(offsets.size(), 17u);
  EXPECT_EQ(offsets[1], 262144);
  EXPECT_EQ(h5.read_doubles("/input/initial"), std::vector<double>(16, 0.0));
  // The stored v follows the stored inputs: v[t] = s[t] v[t-1] + u[t] from v[-1] = x0 = 0 in every
  // series, to float round-off (of values of magnitude 3 to 10).
  const std::vector<float> v = h5.read_floats("/fields/v");
  const std::vector<float> s = h5.read_floats("/input/s");
  const std::vector<float> u = h5.read_floats("/input/u");
  for (std::size_t k = 0; k < 16; ++k) {
    const std::size_t first = k * 262144;
    EXPECT_EQ(v[first], u[first]) << "series " << k;
    for (std::size_t t = first + 1; t < first + 1000; ++t)
      ASSERT_NEAR(v[t], s[t] * v[t - 1] + u[t], 1e-4) << t;
  }
  EXPECT_EQ(s[12345], 0.95f);
}

TEST_F(RecurrenceCli, HelpAnswers) {
  const auto r = test::run_shell(kExe + " run " + quoted(kExample) + " --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Usage")) << r.output;
  EXPECT_TRUE(contains(r.output, "--check")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(RecurrenceCli, TimeVaryingCoefficientAndDoublePrecision) {
  const auto r = run_file(ar1_file(), "ar1.phi_min=-0.5 ar1.phi_max=0.9 ar1.phi=0.5 --check");
  expect_input_error(r, "command line: ar1.phi: give either ar1.phi (one coefficient) or");
  const std::string varying = "solver = \"recurrence\"\n[problem]\nprecision = \"double\"\n"
                              "[ar1]\nseries = 2\nlength = 300\nphi_min = -0.5\nphi_max = 0.9\n";
  const auto ok = run_file(varying, "--check");
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_TRUE(contains(ok.output, "phi uniform in (-0.5, 0.9)")) << ok.output;
  io::ResultReader h5(dir_ / "r.h5");
  const std::vector<double> s = h5.read_doubles("/input/s");
  ASSERT_EQ(s.size(), 600u);
  EXPECT_TRUE(std::all_of(s.begin(), s.end(), [](double x) { return x > -0.5 && x < 0.9; }));
  EXPECT_NE(s[0], s[1]);
  EXPECT_FALSE(h5.has_attribute("/parameters", "ar1.phi"));
  EXPECT_EQ(number(h5, "/parameters", "ar1.phi_max"), 0.9);
  EXPECT_LE(number(h5, "/check", "max_relative_to_scale"), 1e-15);
}

TEST_F(RecurrenceCli, BadParametersNameTheirKey) {
  expect_input_error(run_file(ar1_file("sigam = 2\n")),
                     "p.toml:7: ar1.sigam: unknown key; did you mean ar1.sigma?");
  expect_input_error(run_file(ar1_file(), "ar1.phi=1.5"),
                     "command line: ar1.phi: expected a number in [-1, 1], got 1.5");
  expect_input_error(run_file(ar1_file(), "ar1.series=0"),
                     "command line: ar1.series: expected a positive integer, got 0");
  expect_input_error(run_file(ar1_file(), "method.mode=quick"), "command line: method.mode: ");
  expect_input_error(run_file(ar1_file(), "method.mode=quick"), "\"quick\" is not one of");
  expect_input_error(run_file(ar1_file(), "problem.kind=ar2"),
                     "problem.kind: problem \"ar2\" is not one of \"ar1\", \"smoothing\", \"file\"");
  expect_input_error(run_file(ar1_file(), "problem.precision=half"),
                     "problem.precision: precision \"half\" is not one of \"float\", \"double\"");
  expect_input_error(run_file(ar1_file(), "ar1.phi_min=0.5"), "p.toml: ar1.phi_max: missing");
  expect_input_error(run_file(ar1_file("phi = 0.5\n"), "ar1.phi_min=0.5 ar1.phi_max=0.7"),
                     "p.toml:7: ar1.phi: give either ar1.phi (one coefficient) or ar1.phi_min");
  expect_input_error(run_file(ar1_file(), "ar1.seed=-1"), "ar1.seed: expected an integer >= 0");
  // Float series: a start or noise past float's range is refused, not carried as infinity.
  expect_input_error(run_file(ar1_file(), "ar1.x0=1e39"),
                     "command line: ar1.x0: expected a magnitude of at most");
  expect_input_error(run_file(ar1_file(), "ar1.sigma=1e36"),
                     "command line: ar1.sigma: expected a magnitude of at most");
  expect_input_error(run_file(ar1_file("[sweep]\nrepeats = 0\n")),
                     "sweep.repeats: expected a positive integer, got 0");
  // The ar1 file switched to smoothing on the command line: its ar1 keys are refused first.
  expect_input_error(run_file(ar1_file(), "problem.kind=smoothing"),
                     "p.toml:5: ar1.series: not read when problem.kind = \"smoothing\"");
  const std::string smoothing = "solver = \"recurrence\"\n[problem]\nkind = \"smoothing\"\n";
  expect_input_error(run_file(smoothing), "p.toml: input.file: expected the name of an HDF5 file");
  expect_input_error(run_file(smoothing, "input.file=in.h5 smoothing.alpha=1.5"),
                     "smoothing.alpha: expected a number in (0, 1], got 1.5");
}

TEST_F(RecurrenceCli, AKeyTheKindDoesNotReadIsRefusedNotDropped) {
  // smoothing.alpha is read only by smoothing: with ar1 it is refused, naming what leaves it
  // unread, rather than accepted out of range and dropped in silence.
  const auto r = run_file(ar1_file(), "smoothing.alpha=7");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "command line: smoothing.alpha: not read when problem.kind = "
                                 "\"ar1\"\n"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.h5"));
  // The ar1 keys likewise with a file problem: the first one the file sets is named.
  const std::vector<double> ones(10, 1.0);
  write_input("in.h5", [&](io::ResultFile& f) {
    f.write_field("/s", ones.data(), {10});
    f.write_field("/u", ones.data(), {10});
  });
  const auto file = run_file(ar1_file("[input]\nfile = \"in.h5\"\n"), "problem.kind=file --force");
  EXPECT_EQ(file.status, 2) << file.output;
  EXPECT_TRUE(contains(file.output, "p.toml:5: ar1.series: not read when problem.kind = \"file\""))
      << file.output;
}

TEST_F(RecurrenceCli, SmoothsEachRowOfADataset) {
  // Three rows of 100: a step from 0 to 2 at t = 1, a constant, and a ramp.
  std::vector<double> y(300);
  for (int t = 0; t < 100; ++t) {
    y[t] = t == 0 ? 0.0 : 2.0;
    y[100 + t] = -1.5;
    y[200 + t] = t;
  }
  write_input("in.h5", [&](io::ResultFile& f) { f.write_field("/series/y", y.data(), {3, 100}); });
  const std::string params = "solver = \"recurrence\"\n[problem]\nkind = \"smoothing\"\n"
                             "precision = \"double\"\n[smoothing]\nalpha = 0.2\n"
                             "[input]\nfile = \"in.h5\"\ny = \"series/y\"\n";
  const auto r = run_file(params, "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "exponential smoothing (alpha 0.2) of 3 series")) << r.output;
  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(h5.dims("/fields/v"), (std::vector<std::uint64_t>{3, 100}));
  // The file as given, and as read: resolved against the parameter file's folder.
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "input.file")), "in.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/series", "input_file")),
            (dir_ / "in.h5").lexically_normal().string());
  const std::vector<double> v = h5.read_doubles("/fields/v");
  // v[-1] = y[0], so v[0] = y[0]; the step's response is 2 (1 - 0.8^t); a constant stays put.
  for (int t = 0; t < 100; ++t) {
    EXPECT_NEAR(v[t], 2 * (1 - std::pow(0.8, t)), 1e-14) << t;
    EXPECT_NEAR(v[100 + t], -1.5, 1e-15) << t;
  }
  // The ramp lags by (1 - alpha) / alpha = 4 once the start has died away.
  EXPECT_NEAR(v[299], 99 - 4, 1e-6);
  EXPECT_EQ(h5.read_doubles("/input/initial"), (std::vector<double>{0.0, -1.5, 0.0}));
}

TEST_F(RecurrenceCli, SolvesSegmentsReadFromAFile) {
  // Three segments of 2, 0 and 3 elements with their own initial values.
  const std::vector<double> s{0.5, 2, -1, 0.25, 4};
  const std::vector<double> u{1, 1, 3, -2, 0.5};
  const std::vector<double> initial{10, 20, -8};
  write_input("in.h5", [&](io::ResultFile& f) {
    f.write_field("/s", s.data(), {5});
    f.write_field("/u", u.data(), {5});
    f.write_column("/offsets", std::vector<std::int64_t>{0, 2, 2, 5});
    f.write_field("/x0", initial.data(), {3});
  });
  const std::string params = "solver = \"recurrence\"\n[problem]\nkind = \"file\"\n"
                             "precision = \"double\"\n[input]\nfile = \"in.h5\"\n"
                             "offsets = \"offsets\"\ninitial = \"x0\"\n";
  const auto r = run_file(params, "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "5 elements in 3 segments")) << r.output;
  {
    io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(h5.dims("/fields/v"), (std::vector<std::uint64_t>{5}));
    const double v1 = 0.5 * 10 + 1;
    const double v3 = -1 * -8 + 3;
    const double v4 = 0.25 * v3 - 2;
    EXPECT_EQ(h5.read_doubles("/fields/v"),
              (std::vector<double>{v1, 2 * v1 + 1, v3, v4, 4 * v4 + 0.5}));
    EXPECT_EQ(h5.read_ints("/input/offsets"), (std::vector<std::int64_t>{0, 2, 2, 5}));
    EXPECT_EQ(h5.read_doubles("/input/initial"), initial);
    EXPECT_EQ(integer(h5, "/series", "segments"), 3);
    EXPECT_EQ(number(h5, "/check", "max_abs_difference"), 0.0);
  }

  // Without offsets, 2D s and u are one segment per row, from 0 without initial values.
  write_input("in.h5", [&](io::ResultFile& f) {
    f.write_field("/s", s.data(), {1, 5});
    f.write_field("/u", u.data(), {1, 5});
  });
  const auto rows = run_file("solver = \"recurrence\"\n[problem]\nkind = \"file\"\n"
                             "[input]\nfile = \"in.h5\"\n", "--force");
  ASSERT_EQ(rows.status, 0) << rows.output;
  io::ResultReader h5_rows(dir_ / "r.h5");
  EXPECT_EQ(h5_rows.read_floats("/fields/v")[0], 1.0f);
}

// A result file is itself an input for the file problem, and solving it again gives the same v.
TEST_F(RecurrenceCli, AResultIsAnInputForTheFileProblem) {
  const auto first = run_file(ar1_file("phi = 0.7\nx0 = 2.5\n"), "problem.precision=double");
  ASSERT_EQ(first.status, 0) << first.output;
  std::filesystem::rename(dir_ / "r.h5", dir_ / "in.h5");
  const auto again = run_file("solver = \"recurrence\"\n[problem]\nkind = \"file\"\n"
                              "precision = \"double\"\n[input]\nfile = \"in.h5\"\n"
                              "s = \"input/s\"\nu = \"input/u\"\ninitial = \"input/initial\"\n");
  ASSERT_EQ(again.status, 0) << again.output;
  io::ResultReader before(dir_ / "in.h5"), after(dir_ / "r.h5");
  EXPECT_EQ(after.dims("/fields/v"), (std::vector<std::uint64_t>{3, 50}));
  EXPECT_EQ(after.read_doubles("/input/initial"), std::vector<double>(3, 2.5));
  EXPECT_EQ(after.read_doubles("/fields/v"), before.read_doubles("/fields/v"));
}

TEST_F(RecurrenceCli, BadInputFilesNameTheFileAndDataset) {
  const std::string in = (dir_ / "in.h5").string();
  const std::string file_problem = "solver = \"recurrence\"\n[problem]\nkind = \"file\"\n"
                                   "[input]\nfile = \"in.h5\"\n";
  expect_input_error(run_file(file_problem), in + ": no such file");

  std::vector<double> values(24, 0.5);
  write_input("in.h5", [&](io::ResultFile& f) {
    f.write_field("/s", values.data(), {4});
    f.write_field("/u", values.data(), {3});
    f.write_field("/cube", values.data(), {2, 3, 4});
    f.write_field("/grid", values.data(), {4, 6});
    f.write_field("/group/y", values.data(), {4});
    f.write_column("/offsets", std::vector<std::int64_t>{0, 3, 4, 5});
    f.write_column("/text", std::vector<std::string>{"a", "b"});
  });
  expect_input_error(run_file(file_problem, "input.u=nope"),
                     in + ": /nope: no such dataset (input.u)");
  expect_input_error(run_file(file_problem, "input.u=group"),
                     in + ": /group: expected a dataset, found a group (input.u)");
  expect_input_error(run_file(file_problem), in + ": /u: has shape [3] but /s has [4]");
  expect_input_error(run_file(file_problem, "input.s=cube"),
                     in + ": /cube: expected a dataset of rank 1 or 2, got rank 3 (2 x 3 x 4)");
  expect_input_error(run_file(file_problem, "input.s=text"),
                     in + ": /text: expected a dataset of numbers (input.s)");
  expect_input_error(run_file(file_problem, "input.u=s input.offsets=offsets"),
                     in + ": input: offsets end at 5; expected 4, the number of elements");
  expect_input_error(run_file(file_problem, "input.s=grid input.u=grid input.offsets=offsets"),
                     "command line: input.offsets: offsets need 1D s and u; /grid is [4 x 6]");
  expect_input_error(run_file(file_problem, "input.u=s input.initial=s"),
                     in + ": /s: holds 4 values; expected one per segment, 1 (input.initial)");
  const std::string smoothing = "solver = \"recurrence\"\n[problem]\nkind = \"smoothing\"\n"
                                "[input]\nfile = \"in.h5\"\n";
  expect_input_error(run_file(smoothing), in + ": /y: no such dataset (input.y)");
  expect_input_error(run_file(smoothing, "input.y=cube"), "expected a dataset of rank 1 or 2");

  values[2] = NAN;
  write_input("in.h5", [&](io::ResultFile& f) { f.write_field("/y", values.data(), {24}); });
  expect_input_error(run_file(smoothing), in + ": /y: holds nan at element 2; expected finite");

  std::ofstream(dir_ / "in.h5") << "not HDF5\n";
  expect_input_error(run_file(smoothing), in + ": cannot be read as HDF5");
}

TEST_F(RecurrenceCli, SweepWithoutADeviceSaysSo) {
  if (gpu_available()) GTEST_SKIP() << "a device is present";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0 --backend gpu -o " +
                                 quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(RecurrenceCli, GpuRunAgreesWithTheGoldInBothModes) {
  PARASOL_REQUIRE_GPU();
  for (const std::string mode : {"fast", "reproducible"})
    for (const std::string precision : {"float", "double"}) {
      const auto r = test::run_shell(kExe + " run " + quoted(kExample) +
                                     " --backend gpu --check --force method.mode=" + mode +
                                     " problem.precision=" + precision + " -o " +
                                     quoted(dir_ / "r.h5"));
      ASSERT_EQ(r.status, 0) << r.output;
      io::ResultReader h5(dir_ / "r.h5");
      EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
      EXPECT_LE(number(h5, "/check", "max_relative_to_scale"), number(h5, "/check", "tolerance"))
          << mode << " " << precision;
    }
}

// A GPU run draws a generated AR(1) series on the device unless it needs the host's copy (the
// gold of --check reads it; output.input writes it): so a run with --check and output.input
// draws on the host, one with neither on the device. In the reproducible mode (the same bits
// every run) the two must give the same v, bit for bit, in float and double, for a fixed and a
// time-varying coefficient, with series of an odd length, so that a Box-Muller pair straddles
// two series' ends.
TEST_F(RecurrenceCli, GpuRunDrawingOnTheDeviceGivesTheHostDrawnRunsBits) {
  PARASOL_REQUIRE_GPU();
  for (const std::string precision : {"float", "double"})
    for (const std::string coefficient : {"phi = 0.9\n", "phi_min = 0.5\nphi_max = 0.99\n"})
      for (const std::string seed : {"1", "46"}) {
        std::ofstream(dir_ / "p.toml")
            << "solver = \"recurrence\"\n[problem]\nkind = \"ar1\"\nprecision = \"" << precision
            << "\"\n[ar1]\nseries = 5\nlength = 100003\nsigma = 1.5\nseed = " << seed << "\n"
            << coefficient << "[method]\nmode = \"reproducible\"\n";
        test::expect_device_draws_give_host_bits<io::ResultReader>(
            kExe + " run " + quoted(dir_ / "p.toml") + " --backend gpu --force", dir_, "/input/u",
            "/fields/v", precision + ", " + coefficient + "seed " + seed);
      }
}

TEST_F(RecurrenceCli, GpuSweepTimesBothModes) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0 sweep.repeats=3 -o " +
                                 quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  EXPECT_EQ(h5.read_strings("/sweep/mode"), (std::vector<std::string>{"fast", "reproducible"}));
  EXPECT_EQ(h5.read_ints("/sweep/passed"), (std::vector<std::int64_t>{1, 1}));
  // The reproducible mode is what its name says, whatever the fast one did.
  EXPECT_EQ(h5.read_ints("/sweep/repeatable")[1], 1);
  for (const double rate : h5.read_doubles("/sweep/gb_per_s")) EXPECT_GT(rate, 0.0);
}

}  // namespace
}  // namespace parasol
