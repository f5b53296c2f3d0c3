// fftconv's volumes through the front end: the 3D examples run on the CPU gold (the GPU where
// there is one) and pass --check; every mode's output has scipy's shape and each stored sample is
// the direct sum of the stored inputs; volumes read from files (a 2D dataset as one slice); bad
// 3D parameters exit 2 naming the key; laplace3d's field smoothed end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "io/result_reader.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
using test::number;
using test::text;
using test::integers;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

std::vector<double> seeded(std::size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> values(count);
  for (double& v : values) v = uniform(engine);
  return values;
}

struct Dims {
  std::int64_t d, r, c;
};

// Output sample (z, y, x) of the full convolution, by its definition: sum over the taps of
// h[a][b][e] x[z - a][y - b][x - e] (correlate: h reversed in every axis), x zero outside.
double full_sample(const std::vector<double>& x, Dims n, const std::vector<double>& h, Dims k,
                   bool correlate, std::int64_t z, std::int64_t y, std::int64_t c) {
  double sum = 0;
  for (std::int64_t a = 0; a < k.d; ++a)
    for (std::int64_t b = 0; b < k.r; ++b)
      for (std::int64_t e = 0; e < k.c; ++e) {
        const std::int64_t zz = z - a, yy = y - b, cc = c - e;
        if (zz < 0 || zz >= n.d || yy < 0 || yy >= n.r || cc < 0 || cc >= n.c) continue;
        const std::int64_t tap = correlate
                                     ? ((k.d - 1 - a) * k.r + (k.r - 1 - b)) * k.c + (k.c - 1 - e)
                                     : (a * k.r + b) * k.c + e;
        sum += h[static_cast<std::size_t>(tap)] * x[static_cast<std::size_t>((zz * n.r + yy) * n.c + cc)];
      }
  return sum;
}

// Every stored output sample against the direct sums of the stored inputs, at the stored offset.
void expect_direct_sums(const io::ResultReader& h5, bool correlate, double tolerance) {
  const std::vector<std::uint64_t> yd = h5.dims("/output");
  ASSERT_EQ(yd.size(), 3u);
  const std::vector<std::int64_t> n = integers(h5, "/output", "signal_extent");
  const std::vector<std::int64_t> k = integers(h5, "/output", "filter_extent");
  const std::vector<std::int64_t> at = integers(h5, "/output", "offset");
  const std::vector<double> y = h5.read_doubles("/output");
  const std::vector<double> x = h5.read_doubles("/input/signal");
  const std::vector<double> h = h5.read_doubles("/input/filter");
  std::size_t i = 0;
  double worst = 0;
  for (std::uint64_t z = 0; z < yd[0]; ++z)
    for (std::uint64_t r = 0; r < yd[1]; ++r)
      for (std::uint64_t c = 0; c < yd[2]; ++c, ++i) {
        const double want = full_sample(x, {n[0], n[1], n[2]}, h, {k[0], k[1], k[2]}, correlate,
                                         at[0] + std::int64_t(z), at[1] + std::int64_t(r),
                                         at[2] + std::int64_t(c));
        worst = std::max(worst, std::abs(y[i] - want));
      }
  EXPECT_LE(worst, tolerance);
}

class FftconvVolumeCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& params, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << params;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "r.h5") + " --force " + args);
  }
  // A small generated volume problem; `extra` adds lines at the end (into [method]).
  static std::string volume_file(const std::string& mode, const std::string& extra = "") {
    return "solver = \"fftconv\"\n[problem]\nmode = \"" + mode +
           "\"\nprecision = \"double\"\n[signal]\ndepth = 6\nrows = 7\nlength = 8\n[filter]\n"
           "kind = \"box\"\ndepth = 3\nrows = 2\nlength = 4\n[method]\n" +
           extra;
  }
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "in.h5"});
  }
  test::ScratchDir dir_;
};

TEST_F(FftconvVolumeCli, ExampleRunsAndPassesTheCheckWithAnXdmfSidecar) {
  const auto r = test::run_shell(kExe + " run " + quoted(kInputs / "fftconv-3d.toml") +
                                 " --backend cpu --check -o " + quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "convolve (same) of a volume of 64 x 64 x 64 samples (noise"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "with a 7 x 7 x 7-tap Gaussian")) << r.output;
  EXPECT_FALSE(contains(r.output, "suspect")) << r.output;
  const io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(text(h5, "/output", "variant"), "cpu-gold");
  EXPECT_EQ(text(h5, "/output", "layout"), "[z][row][col], col fastest");
  EXPECT_EQ(h5.dims("/output"), (std::vector<std::uint64_t>{64, 64, 64}));
  EXPECT_EQ(h5.dims("/input/signal"), (std::vector<std::uint64_t>{64, 64, 64}));
  EXPECT_EQ(h5.dims("/input/filter"), (std::vector<std::uint64_t>{7, 7, 7}));
  EXPECT_EQ(integers(h5, "/output", "offset"), (std::vector<std::int64_t>{3, 3, 3}));
  EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));
  EXPECT_LE(number(h5, "/check", "max_relative_difference"), number(h5, "/check", "tolerance"));
  // The filter is three normalised Gaussians' product: it sums to 1.
  double taps = 0;
  for (const double v : h5.read_doubles("/input/filter")) taps += v;
  EXPECT_NEAR(taps, 1.0, 1e-6);
  // The sidecar names the output and its grid, the output lined up with the signal.
  std::ifstream xmf(dir_ / "r.xmf");
  ASSERT_TRUE(xmf.good());
  const std::string xml((std::istreambuf_iterator<char>(xmf)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(xml, "r.h5:/output")) << xml;
  EXPECT_TRUE(contains(xml, "64 64 64")) << xml;
}

TEST_F(FftconvVolumeCli, EveryModeHasScipysShapeAndTheDirectSums) {
  // 6 x 7 x 8 with 3 x 2 x 4: full 8 x 8 x 11, same 6 x 7 x 8, valid 4 x 6 x 5.
  const std::vector<std::pair<std::string, std::vector<std::uint64_t>>> modes{
      {"full", {8, 8, 11}}, {"same", {6, 7, 8}}, {"valid", {4, 6, 5}}};
  for (const auto& [mode, dims] : modes)
    for (const char* operation : {"convolve", "correlate"}) {
      SCOPED_TRACE(mode + " " + operation);
      const auto r = run_file(volume_file(mode), std::string("--check problem.operation=") +
                                                      operation + " filter.kind=gaussian");
      ASSERT_EQ(r.status, 0) << r.output;
      const io::ResultReader h5(dir_ / "r.h5");
      EXPECT_EQ(h5.dims("/output"), dims);
      EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));
      expect_direct_sums(h5, std::string(operation) == "correlate", 1e-12);
    }
}

TEST_F(FftconvVolumeCli, VolumesFromFilesAgreeWithTheDirectSums) {
  // A [5][6][7] volume with a [2][3][3] filter, and with a [3][2] one read as one slice.
  const std::vector<double> x = seeded(210, 1), h = seeded(18, 2), flat = seeded(6, 3);
  {
    io::ResultFile f(dir_ / "in.h5", true);
    f.write_field("/x", x.data(), {5, 6, 7});
    f.write_field("/h", h.data(), {2, 3, 3});
    f.write_field("/flat", flat.data(), {3, 2});
    f.commit();
  }
  const std::string params =
      "solver = \"fftconv\"\n[problem]\nmode = \"full\"\nprecision = \"double\"\n[signal]\n"
      "source = \"file\"\nfile = \"in.h5\"\ndataset = \"x\"\nlayout = \"volume\"\n[filter]\n"
      "kind = \"file\"\nfile = \"in.h5\"\n";
  for (const auto& [dataset, dims] :
       std::vector<std::pair<std::string, std::vector<std::uint64_t>>>{{"h", {6, 8, 9}},
                                                                       {"flat", {5, 8, 8}}}) {
    SCOPED_TRACE(dataset);
    const auto r = run_file(params + "dataset = \"" + dataset + "\"\n", "--check");
    ASSERT_EQ(r.status, 0) << r.output;
    const io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(h5.dims("/output"), dims);
    EXPECT_EQ(h5.dims("/input/filter").size(), 3u);
    expect_direct_sums(h5, false, 1e-12);
  }
}

TEST_F(FftconvVolumeCli, BadVolumeParametersNameTheKey) {
  expect_input_error(run_file(volume_file("same"), "signal.depth=0"),
                     "signal.depth: expected a positive integer, got 0");
  expect_input_error(run_file(volume_file("same"), "filter.depth=-2"), "filter.depth");
  expect_input_error(run_file(volume_file("same"), "signal.batch=2"),
                     "signal.batch: a volume is one signal");
  expect_input_error(run_file(volume_file("same", "variant = \"overlap-save\"\n")),
                     "method.variant: volumes run direct or r2c");
  expect_input_error(run_file(volume_file("same", "variant = \"fused\"\n")), "method.variant");
  expect_input_error(run_file(volume_file("same", "block = 256\n")),
                     "method.block: volumes take no block length");
  expect_input_error(run_file(volume_file("same", "streamed = true\n")), "method.");
  // valid: the filter deeper than the signal but narrower: neither is larger in every axis.
  expect_input_error(run_file(volume_file("valid"), "filter.depth=7"),
                     "problem.mode: valid needs one operand at least as large");
  // A file volume with a filter dataset said to be an image.
  const std::vector<double> x = seeded(60, 1), h = seeded(4, 2);
  {
    io::ResultFile f(dir_ / "in.h5", true);
    f.write_field("/x", x.data(), {3, 4, 5});
    f.write_field("/h", h.data(), {2, 2});
    f.write_field("/v", x.data(), {60});
    f.commit();
  }
  const std::string from_file =
      "solver = \"fftconv\"\n[signal]\nsource = \"file\"\nfile = \"in.h5\"\ndataset = \"x\"\n"
      "layout = \"volume\"\n[filter]\nkind = \"file\"\nfile = \"in.h5\"\n";
  expect_input_error(run_file(from_file + "dataset = \"h\"\nlayout = \"image\"\n"),
                     "filter.layout: the other operand is a volume");
  // valid mode against a file's extents, known once its dataset is opened: a 1D dataset is a
  // volume one slice deep and one row high.
  expect_input_error(run_file(from_file + "dataset = \"v\"\n", "problem.mode=valid"),
                     "problem.mode: valid needs one operand at least as large as the other in "
                     "every axis; the signal is 3 x 4 x 5 and the filter 1 x 1 x 60");
}

TEST_F(FftconvVolumeCli, TheSweepRefusesAVolumeNamingTheKey) {
  std::ofstream(dir_ / "p.toml") << volume_file("same");
  const auto r = test::run_shell(kExe + " sweep " + quoted(dir_ / "p.toml") + " sweep.min_time=0 -o " +
                                 quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "signal.depth: parasol sweep times 1D and 2D problems"))
      << r.output;
}

TEST_F(FftconvVolumeCli, LaplaceFieldSmoothedEndToEnd) {
  // The field as inputs/laplace3d.toml makes it (fewer iterations: the smoothing does not care).
  const auto field = test::run_shell(kExe + " run " + quoted(kInputs / "laplace3d.toml") +
                                     " --backend cpu iteration.max_iterations=50 -o " +
                                     quoted(dir_ / "laplace3d.h5"));
  ASSERT_EQ(field.status, 0) << field.output;
  const auto r = test::run_shell(kExe + " run " + quoted(kInputs / "fftconv-3d-field.toml") +
                                 " --backend cpu --check signal.file=" +
                                 quoted(dir_ / "laplace3d.h5") + " -o " + quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "/fields/u")) << r.output;
  EXPECT_TRUE(contains(r.output, "5 x 5 x 5-tap box")) << r.output;
  const io::ResultReader smoothed(dir_ / "s.h5");
  const io::ResultReader u(dir_ / "laplace3d.h5");
  ASSERT_EQ(smoothed.dims("/output"), u.dims("/fields/u"));
  EXPECT_TRUE(std::get<bool>(smoothed.attribute("/check", "passed")));
  // An interior sample is the mean of the field over its 5^3 neighbourhood.
  const std::vector<double> y = smoothed.read_doubles("/output");
  const std::vector<double> f = u.read_doubles("/fields/u");
  const std::vector<std::uint64_t> n = u.dims("/fields/u");
  const auto at = [&](std::uint64_t z, std::uint64_t row, std::uint64_t c) {
    return (z * n[1] + row) * n[2] + c;
  };
  for (const std::uint64_t z : {2u, 17u, 61u}) {
    double mean = 0;
    for (int a = -2; a <= 2; ++a)
      for (int b = -2; b <= 2; ++b)
        for (int e = -2; e <= 2; ++e) mean += f[at(z + a, 9 + b, 3 + e)];
    EXPECT_NEAR(y[at(z, 9, 3)], mean / 125, 1e-6) << z;
  }
  std::ifstream xmf(dir_ / "s.xmf");
  EXPECT_TRUE(xmf.good());
}

// On a device: every volume variant in both precisions and every mode against the gold, the
// variant that ran and (r2c) its chunks stored; the stored output is the direct sums of the
// stored inputs; a memory budget that forces chunks along z is not a key, so chunking is the
// solver tests' (fftconv_volume_test).
TEST_F(FftconvVolumeCli, GpuRunAgreesWithTheGoldInEveryVariant) {
  PARASOL_REQUIRE_GPU();
  for (const std::string precision : {"float", "double"})
    for (const std::string variant : {"auto", "direct", "r2c"})
      for (const std::string mode : {"full", "same", "valid"}) {
        SCOPED_TRACE(precision + " " + variant + " " + mode);
        const auto r = test::run_shell(
            kExe + " run " + quoted(kInputs / "fftconv-3d.toml") +
            " --backend gpu --check --force signal.depth=37 signal.rows=29 signal.length=41 "
            "filter.depth=5 filter.rows=4 filter.length=7 problem.operation=correlate "
            "problem.precision=" + precision + " method.variant=" + variant +
            " problem.mode=" + mode + " -o " + quoted(dir_ / "r.h5"));
        ASSERT_EQ(r.status, 0) << r.output;
        const io::ResultReader h5(dir_ / "r.h5");
        EXPECT_EQ(text(h5, "/provenance", "backend"), "gpu");
        const std::string ran = text(h5, "/output", "variant");
        if (variant != "auto") {
          EXPECT_EQ(ran, variant);
        }
        EXPECT_EQ(h5.has_attribute("/output", "chunks"), ran == "r2c");
        EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed"))) << r.output;
        EXPECT_LE(number(h5, "/check", "max_relative_difference"),
                  number(h5, "/check", "tolerance"));
        expect_direct_sums(h5, true, precision == "float" ? 1e-4 : 1e-10);
      }
}

}  // namespace
}  // namespace parasol
