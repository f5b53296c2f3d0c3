// fftconv through the front end, as a user meets it: the examples run (on the CPU gold here, or
// the GPU where there is one) and store the output beside its inputs; input files in every
// layout; a streamed run writes the same output piece by piece, from memory or the input file;
// bad parameters and bad input files give one line naming the file and the key or dataset,
// status 2, and leave nothing behind; without a device the GPU-only paths fail with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "apps/options.hpp"
#include "io/result_file.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/keys.hpp"
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

template <class T>
std::vector<T> seeded(std::size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> values(count);
  for (T& v : values) v = static_cast<T>(uniform(engine));
  return values;
}

class FftconvCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& params, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << params;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "r.h5") + " " + args);
  }
  // A small generated problem; `extra` adds lines at the end (into [filter] unless it opens a
  // table).
  static std::string chirp_file(const std::string& extra = "") {
    return "solver = \"fftconv\"\n[problem]\nmode = \"same\"\n[signal]\nkind = \"chirp\"\n"
           "length = 1000\nnoise = 0.1\n[filter]\nlength = 15\n" +
           extra;
  }
  // Signal and filter from in.h5, datasets x and h.
  static std::string file_params(const std::string& extra = "") {
    return "solver = \"fftconv\"\n[problem]\nprecision = \"double\"\n[signal]\nsource = \"file\"\n"
           "file = \"in.h5\"\ndataset = \"x\"\n[filter]\nkind = \"file\"\nfile = \"in.h5\"\n"
           "dataset = \"h\"\n" +
           extra;
  }
  // An HDF5 input file beside the parameter file, written by `fill`.
  template <class Fill>
  void write_input(Fill&& fill) {
    io::ResultFile file(dir_ / "in.h5", true);
    fill(file);
    file.commit();
  }
  // An input error: status 2, one line naming what is wrong, nothing written.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "in.h5"});
  }
  void expect_nothing_left() { test::expect_only_inputs(dir_, {"p.toml", "in.h5"}); }
  test::ScratchDir dir_;
};

TEST_F(FftconvCli, AFilterPastTheHostsMemoryIsRefusedAtOnce) {
  // 2^31 - 1 taps: 8.6 GB of float, made from 17 GB of double taps.
  if (app::host_memory_bytes() > 26e9) GTEST_SKIP() << "the filter fits this host's memory";
  const auto start = std::chrono::steady_clock::now();
  expect_input_error(run_file(chirp_file(), "filter.length=2147483647"),
                     "command line: filter.length: the filter and its making need about ");
  expect_input_error(run_file(chirp_file(), "filter.length=2147483647 method.streamed=true"),
                     "command line: filter.length: the filter and its making need about ");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0)
      << "refused before the filter is made";
}

TEST_F(FftconvCli, ExampleRunsWithAutoBackendAndStoresTheOutputBesideItsInputs) {
  // No --backend: auto, the CPU gold solver on a machine without a device.
  const auto r = test::run_shell(kExe + " run " + quoted(kInputs / "fftconv.toml") +
                                 " --check -o " + quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  if (!gpu_available()) {
    EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  }
  EXPECT_TRUE(contains(r.output, "convolve (same) of 1 signal of 1048576 samples (chirp from"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "with a 255-tap Gaussian")) << r.output;
  EXPECT_TRUE(contains(r.output, "max relative to max|gold|")) << r.output;
  EXPECT_FALSE(contains(r.output, "suspect")) << r.output;

  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(text(h5, "/", "solver"), "fftconv");
  EXPECT_EQ(text(h5, "/parameters", "method.variant"), "auto");
  EXPECT_EQ(text(h5, "/parameters", "problem.mode"), "same");
  EXPECT_EQ(text(h5, "/output", "mode"), "same");
  EXPECT_EQ(text(h5, "/output", "operation"), "convolve");
  EXPECT_NE(text(h5, "/output", "variant"), "auto") << "the variant that ran, never auto";
  EXPECT_EQ(integers(h5, "/output", "offset"), (std::vector<std::int64_t>{0, 127}));
  EXPECT_EQ(integers(h5, "/output", "filter_extent"), (std::vector<std::int64_t>{1, 255}));
  // setup_s: the parameters, the inputs and the result file, and on a GPU the first convolution
  // (the one that makes the cuFFT plans), kept out of compute_s.
  for (const char* name :
       {"setup_s", "compute_s", "gsamples_per_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", name)) << name;
  // Transfers are timed on a GPU run only (the CPU backend has none).
  for (const char* name : {"host_to_device_s", "device_to_host_s"})
    EXPECT_EQ(h5.has_attribute("/timings", name),
              std::get<std::string>(h5.attribute("/provenance", "backend")) == "gpu")
        << name;
  EXPECT_LE(number(h5, "/check", "max_relative_difference"), number(h5, "/check", "tolerance"));
  EXPECT_EQ(text(h5, "/check", "gold_precision"), "double");
  // --check judges by the rule the tests and the sweep use (solvers/fftconv/check.hpp).
  fftconv::Problem problem;
  problem.signal = {1, 1 << 20};
  problem.filter = {1, 255};
  problem.mode = fftconv::Mode::same;
  EXPECT_EQ(number(h5, "/check", "tolerance"), fftconv::tolerance<float>(problem));
  EXPECT_TRUE(std::get<bool>(h5.attribute("/check", "passed")));

  EXPECT_EQ(h5.dims("/output"), (std::vector<std::uint64_t>{1 << 20}));
  EXPECT_EQ(h5.dims("/input/signal"), (std::vector<std::uint64_t>{1 << 20}));
  EXPECT_EQ(h5.dims("/input/filter"), (std::vector<std::uint64_t>{255}));
  EXPECT_TRUE(h5.is_chunked("/output"));
  // The stored output follows the stored inputs: same mode starts 127 samples into the full
  // convolution, so y[i] = sum of h[m] x[i + 127 - m].
  const std::vector<double> y = h5.read_doubles("/output");
  const std::vector<double> x = h5.read_doubles("/input/signal");
  const std::vector<double> h = h5.read_doubles("/input/filter");
  double taps = 0;
  for (const double v : h) taps += v;
  EXPECT_NEAR(taps, 1.0, 1e-6);
  for (const std::int64_t i : {0, 1, 126, 127, 5000, 1048000, 1048575}) {
    double sum = 0;
    for (std::int64_t m = 0; m < 255; ++m) {
      const std::int64_t t = i + 127 - m;
      if (t >= 0 && t < (1 << 20)) sum += h[m] * x[t];
    }
    EXPECT_NEAR(y[i], sum, 1e-5) << i;
  }
}

TEST_F(FftconvCli, ImageExampleAtASmallerSize) {
  const auto r = test::run_shell(
      kExe + " run " + quoted(kInputs / "fftconv-2d.toml") +
      " --backend cpu --check signal.rows=60 signal.length=70 filter.rows=7 filter.length=9 -o " +
      quoted(dir_ / "r.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 image of 60 x 70 samples (noise")) << r.output;
  EXPECT_TRUE(contains(r.output, "a 7 x 9-tap Gaussian")) << r.output;
  io::ResultReader h5(dir_ / "r.h5");
  EXPECT_EQ(text(h5, "/output", "variant"), "cpu-gold");
  EXPECT_EQ(h5.dims("/output"), (std::vector<std::uint64_t>{60, 70}));
  EXPECT_EQ(h5.dims("/input/signal"), (std::vector<std::uint64_t>{60, 70}));
  EXPECT_EQ(h5.dims("/input/filter"), (std::vector<std::uint64_t>{7, 9}));
  EXPECT_EQ(integers(h5, "/output", "offset"), (std::vector<std::int64_t>{3, 4}));
  // The CPU run is the gold, rounded to float.
  EXPECT_LE(number(h5, "/check", "max_relative_difference"), 1e-7);
  // Smoothing noise of standard deviation 1 by a normalised Gaussian leaves less of it.
  const std::vector<double> y = h5.read_doubles("/output");
  const std::vector<double> x = h5.read_doubles("/input/signal");
  const auto spread = [](const std::vector<double>& v) {
    double s = 0;
    for (const double e : v) s += e * e;
    return std::sqrt(s / static_cast<double>(v.size()));
  };
  EXPECT_LT(spread(y), 0.5 * spread(x));
}

TEST_F(FftconvCli, HelpListsFftconv) {
  const auto r = test::run_shell(kExe + " run --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fftconv")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(FftconvCli, FileInputsInEveryLayoutAgreeWithTheGold) {
  // [4][50] signals with [4][6] per-signal filters, a [9][11] image with a [3][4] filter, and a
  // batch of two [5][7] images with one filter each.
  const std::vector<double> x = seeded<double>(200, 1), h = seeded<double>(24, 2);
  const std::vector<double> image = seeded<double>(99, 3), kernel = seeded<double>(12, 4);
  const std::vector<double> images = seeded<double>(70, 5), kernels = seeded<double>(24, 6);
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", x.data(), {4, 50});
    f.write_field("/h", h.data(), {4, 6});
    f.write_field("/image", image.data(), {9, 11});
    f.write_field("/kernel", kernel.data(), {3, 4});
    f.write_field("/images", images.data(), {2, 5, 7});
    f.write_field("/kernels", kernels.data(), {2, 3, 4});
  });
  const auto expect_gold = [&](const fftconv::Problem& p, const std::vector<double>& signal,
                               const std::vector<double>& filter,
                               const std::vector<std::uint64_t>& dims) {
    io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(h5.dims("/output"), dims);
    const std::vector<double> y = h5.read_doubles("/output");
    const std::vector<double> gold = fftconv::convolve_gold(p, signal, filter);
    ASSERT_EQ(y.size(), gold.size());
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], gold[i]) << i;
  };

  fftconv::Problem p;
  p.batch = 4;
  p.signal = {1, 50};
  p.filters = 4;
  p.filter = {1, 6};
  p.mode = fftconv::Mode::valid;
  p.operation = fftconv::Operation::correlate;
  auto r = run_file(file_params(), "problem.mode=valid problem.operation=correlate");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "4 signals of 50 samples from")) << r.output;
  EXPECT_TRUE(contains(r.output, "4 filters of 6 taps from")) << r.output;
  expect_gold(p, x, h, {4, 45});
  {
    io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(h5.dims("/input/filter"), (std::vector<std::uint64_t>{4, 6}));
    EXPECT_EQ(text(h5, "/input", "signal_source"), (dir_ / "in.h5").lexically_normal().string());
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/output", "filters")), 4);
  }

  p = fftconv::Problem();
  p.signal = {9, 11};
  p.filter = {3, 4};
  r = run_file(file_params(), "--force signal.dataset=image filter.dataset=kernel "
                              "signal.layout=image filter.layout=image");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 image of 9 x 11 samples")) << r.output;
  expect_gold(p, image, kernel, {11, 14});

  p.batch = 2;
  p.signal = {5, 7};
  p.filters = 2;
  p.mode = fftconv::Mode::same;
  r = run_file(file_params(), "--force signal.dataset=images filter.dataset=kernels "
                              "problem.mode=same");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_gold(p, images, kernels, {2, 5, 7});

  // One row of the bank as the filter for every signal: a [6] dataset is one filter.
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", x.data(), {4, 50});
    f.write_field("/h", h.data(), {6});
  });
  p = fftconv::Problem();
  p.batch = 4;
  p.signal = {1, 50};
  p.filter = {1, 6};
  r = run_file(file_params(), "--force");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_gold(p, x, std::vector<double>(h.begin(), h.begin() + 6), {4, 55});
}

TEST_F(FftconvCli, StreamedRunWritesWhatAWholeRunWrites) {
  // Same mode past 2^22 samples, so the output goes to the file in more than one run of
  // chunks; the others past 2^20, so the CPU computes it in more than one piece.
  const std::string params = chirp_file() + "[method]\nstreamed = false\n";
  for (const std::string mode : {"full", "same", "valid"}) {
    const std::string length = mode == "same"
                                   ? " signal.length=4500001 filter.length=5 output.input=false"
                                   : " signal.length=1100001 filter.length=6";
    auto r = run_file(params, "--force problem.mode=" + mode + length);
    ASSERT_EQ(r.status, 0) << r.output;
    std::filesystem::rename(dir_ / "r.h5", dir_ / "whole.h5");
    r = run_file(params, "--force --check method.streamed=true problem.mode=" + mode + length);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "streamed")) << r.output;
    io::ResultReader whole(dir_ / "whole.h5"), streamed(dir_ / "r.h5");
    EXPECT_EQ(streamed.dims("/output"), whole.dims("/output")) << mode;
    EXPECT_EQ(streamed.read_floats("/output"), whole.read_floats("/output")) << mode;
    if (mode != "same") {
      EXPECT_EQ(streamed.read_floats("/input/signal"), whole.read_floats("/input/signal"));
    }
    EXPECT_TRUE(std::get<bool>(streamed.attribute("/output", "streamed")));
    EXPECT_EQ(text(streamed, "/output", "variant"), "cpu-gold");
    for (const char* name : {"total_s", "read_s", "write_s", "gsamples_per_s"})
      EXPECT_TRUE(streamed.has_attribute("/timings", name)) << name;
    EXPECT_LE(number(streamed, "/check", "max_relative_difference"), 1e-7);
  }
}

TEST_F(FftconvCli, StreamedRunReadsTheInputFileInPieces) {
  const std::vector<float> x = seeded<float>(300000, 7);
  const std::vector<float> h = seeded<float>(33, 8);
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", x.data(), {x.size()});
    f.write_field("/h", h.data(), {h.size()});
  });
  const std::string params = file_params("[method]\nstreamed = true\n");
  const auto r = run_file(params, "problem.precision=float problem.mode=same");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 signal of 300000 samples from")) << r.output;
  io::ResultReader h5(dir_ / "r.h5");
  fftconv::Problem p;
  p.signal = {1, 300000};
  p.filter = {1, 33};
  p.mode = fftconv::Mode::same;
  const std::vector<double> gold = fftconv::convolve_gold(p, x, h);
  const std::vector<float> y = h5.read_floats("/output");
  ASSERT_EQ(y.size(), gold.size());
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], static_cast<float>(gold[i])) << i;
  // The signal is copied across as it was read.
  EXPECT_EQ(h5.read_floats("/input/signal"), x);
  EXPECT_TRUE(h5.is_chunked("/input/signal"));

  // A streamed run takes one 1D signal: a [2][n] dataset is refused by name.
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", x.data(), {2, 150000});
    f.write_field("/h", h.data(), {h.size()});
  });
  const std::string in = (dir_ / "in.h5").string();
  std::filesystem::remove(dir_ / "r.h5");
  expect_input_error(run_file(params),
                     in + ": /x: expected a dataset of rank 1, got rank 2 (2 x 150000) "
                          "(signal.dataset)");
}

TEST_F(FftconvCli, AmplitudesFloatCannotCarryAreRefused) {
  // Spectra reach the transform's length times the largest sample: 1e35 is a float, its spectra
  // are not.
  expect_input_error(run_file(chirp_file(), "signal.amplitude=1e35"),
                     "command line: signal.amplitude: expected a magnitude of at most");
  expect_input_error(run_file(chirp_file(), "signal.noise=1e36"),
                     "command line: signal.noise: expected a magnitude of at most");
}

TEST_F(FftconvCli, BadParametersNameTheirKey) {
  expect_input_error(run_file(chirp_file("lenght = 9\n")),
                     "p.toml:10: filter.lenght: unknown key; did you mean filter.length?");
  expect_input_error(run_file(chirp_file(), "problem.mode=middle"),
                     "command line: problem.mode: mode \"middle\" is not one of \"full\", "
                     "\"same\", \"valid\"");
  expect_input_error(run_file(chirp_file(), "method.variant=fft"),
                     "method.variant: variant \"fft\" is not one of \"auto\", \"c2c\"");
  expect_input_error(run_file(chirp_file(), "problem.operation=xcorr"), "problem.operation: ");
  expect_input_error(run_file(chirp_file(), "signal.length=0"),
                     "command line: signal.length: expected a positive integer, got 0");
  expect_input_error(run_file(chirp_file(), "signal.f1=0.7"),
                     "signal.f1: expected cycles per sample in [0, 0.5], got 0.7");
  expect_input_error(run_file(chirp_file(), "signal.kind=noise"),
                     "p.toml:7: signal.noise: not read when signal.kind = \"noise\"");
  expect_input_error(run_file(chirp_file(), "signal.source=file"),
                     "p.toml:5: signal.kind: not read when signal.source = \"file\"");
  expect_input_error(run_file(chirp_file("sigma = 2\n"), "filter.kind=box"),
                     "filter.sigma: not read when filter.kind = \"box\"");
  expect_input_error(run_file(chirp_file(), "signal.rows=32 signal.length=32 "
                                            "method.variant=overlap-save"),
                     "method.variant: overlap-save takes 1D problems only; the signal is 32 x 32");
  expect_input_error(run_file(chirp_file(), "signal.rows=8 filter.rows=9 problem.mode=valid"),
                     "command line: problem.mode: valid needs one operand at least as large");
  expect_input_error(run_file(chirp_file(), "signal.batch=2 method.streamed=true"),
                     "command line: method.streamed: a streamed run takes one 1D signal");
  expect_input_error(run_file(chirp_file(), "method.piece=1000"),
                     "method.piece: only a streamed run (method.streamed = true) takes a piece");
  expect_input_error(run_file(chirp_file(), "method.block=8 method.variant=overlap-save"),
                     "method.block: expected 0 (chosen) or at least the filter's 15 taps, got 8");
  expect_input_error(run_file(chirp_file(), "problem.precision=half"),
                     "problem.precision: precision \"half\" is not one of \"float\", \"double\"");
  expect_input_error(run_file(chirp_file("[sweep]\nrepeats = 0\n")),
                     "sweep.repeats: expected a positive integer, got 0");
  expect_input_error(run_file(chirp_file("[sweep]\nvariants = [\"r2c\", \"fast\"]\n")),
                     "sweep.variants: variant \"fast\" is not one of");
  expect_input_error(run_file(chirp_file(), "signal.source=file signal.kind=chirp"),
                     "signal.kind: not read when");
}

// A key read only under another key's value (only_if in solvers/fftconv/keys.cpp), set where it
// is not read, is refused naming the value that left it unread: the one its condition names, or
// where that key was not read either, the one that left that unread.
TEST_F(FftconvCli, UnreadKeysNameWhatLeftThemUnread) {
  expect_input_error(run_file(chirp_file(), "filter.kind=file filter.file=in.h5 filter.rows=3"),
                     "command line: filter.rows: not read when filter.kind = \"file\"");
  expect_input_error(run_file(file_params(), "signal.f1=0.3"),
                     "command line: signal.f1: not read when signal.source = \"file\"");
  expect_input_error(run_file(chirp_file(), "signal.layout=image"),
                     "command line: signal.layout: not read when signal.source = \"generated\"");
}

// The solver's checks name a key by its last word; the declaration says which key that is.
TEST(FftconvKeys, SolverWordsAreTheDeclaredKeys) {
  EXPECT_EQ(fftconv::file_key("block"), "method.block");
  EXPECT_EQ(fftconv::file_key("variant"), "method.variant");
  EXPECT_EQ(fftconv::file_key("mode"), "problem.mode");
  EXPECT_EQ(fftconv::file_key("streamed"), "method.streamed");
  // An operand, or a word two keys end in, is left as it is.
  EXPECT_EQ(fftconv::file_key("signal"), "signal");
  EXPECT_EQ(fftconv::file_key("length"), "length");
}

TEST_F(FftconvCli, BadInputFilesNameTheFileAndDataset) {
  const std::string in = (dir_ / "in.h5").string();
  expect_input_error(run_file(file_params()), in + ": signal.file: no such file");

  std::vector<double> values(64, 0.5);
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", values.data(), {4, 16});
    f.write_field("/h", values.data(), {3, 5});
    f.write_field("/one", values.data(), {5});
    f.write_field("/tall", values.data(), {8, 2});
    f.write_field("/cube", values.data(), {2, 2, 2, 2});
    f.write_field("/group/y", values.data(), {4});
    f.write_column("/empty", std::vector<double>{});
    f.write_column("/text", std::vector<std::string>{"a", "b"});
  });
  expect_input_error(run_file(file_params(), "signal.dataset=nope"),
                     in + ": /nope: no such dataset (signal.dataset)");
  expect_input_error(run_file(file_params(), "filter.dataset=group"),
                     in + ": /group: expected a dataset, found a group (filter.dataset)");
  expect_input_error(run_file(file_params()),
                     in + ": /h: expected 1 filter (for every signal) or one per signal (4), got "
                          "3 (filter.dataset)");
  expect_input_error(run_file(file_params(), "signal.dataset=empty filter.dataset=one"),
                     in + ": /empty: has shape [0]; expected at least one sample");
  expect_input_error(run_file(file_params(), "filter.dataset=empty"),
                     in + ": /empty: has shape [0]; expected at least one tap");
  expect_input_error(run_file(file_params(), "signal.dataset=cube"),
                     in + ": /cube: expected a dataset of rank 1, 2 or 3, got rank 4");
  expect_input_error(run_file(file_params(), "signal.dataset=text"),
                     in + ": /text: expected a dataset of numbers (signal.dataset)");
  // A [4][16] image against an [8][2] filter: each is longer in one axis.
  expect_input_error(run_file(file_params(), "signal.layout=image filter.dataset=tall "
                                             "filter.layout=image problem.mode=valid"),
                     "command line: problem.mode: valid needs one operand at least as large as "
                     "the other in every axis; the signal is 4 x 16 and the filter 8 x 2");

  values[9] = NAN;
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", values.data(), {64});
    f.write_field("/h", values.data(), {3});
  });
  expect_input_error(run_file(file_params()), in + ": /x: holds nan at element 9; expected finite");
  // Streamed, the samples are checked as they are read, after the run has started: the message
  // follows the run's first line, and still nothing is left behind.
  const auto streamed = run_file(file_params(), "method.streamed=true");
  EXPECT_EQ(streamed.status, 2) << streamed.output;
  EXPECT_TRUE(contains(streamed.output, in + ": /x: holds nan at element 9; expected finite"))
      << streamed.output;
  expect_nothing_left();

  std::ofstream(dir_ / "in.h5") << "not HDF5\n";
  expect_input_error(run_file(file_params()), in + ": signal.file: cannot be read as HDF5");
}

TEST_F(FftconvCli, ProblemsLargerThanTheHostAreRefusedUpFront) {
  // 2^39 samples: within the solver's limits, far past any host's memory. Refused before a
  // sample is generated, naming what sized it, whole or streamed.
  expect_input_error(run_file(chirp_file(), "signal.length=549755813888"),
                     "signal: the signal, filter and output need about ");
  expect_input_error(run_file(chirp_file(), "signal.length=549755813888 method.streamed=true"),
                     "signal: the signal and filter need about ");
  // A file's dataset is judged by its extent before its values are read.
  write_input([&](io::ResultFile& f) {
    f.create_dataset<float>("/x", std::uint64_t{1} << 39);
    const std::vector<float> h(5, 0.2f);
    f.write_field("/h", h.data(), {5});
  });
  expect_input_error(run_file(file_params(), "problem.precision=float"),
                     "signal.file: the signal, filter and output need about ");
}

TEST_F(FftconvCli, SweepOfAStreamedRunIsRefused) {
  std::ofstream(dir_ / "p.toml") << chirp_file("[method]\nstreamed = true\n");
  const auto r = test::run_shell(kExe + " sweep " + quoted(dir_ / "p.toml") + " sweep.min_time=0 -o " +
                                 quoted(dir_ / "s.h5"));
  expect_input_error(r, "method.streamed: parasol sweep times convolutions of data held on the "
                        "device; expected false");
}

TEST_F(FftconvCli, WithoutADeviceGpuPathsFailWithOneLine) {
  if (gpu_available()) GTEST_SKIP() << "a device is present";
  std::ofstream(dir_ / "p.toml") << chirp_file();
  auto r = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend gpu -o " +
                           quoted(dir_ / "r.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "parasol: --backend gpu: ")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  r = test::run_shell(kExe + " sweep " + quoted(dir_ / "p.toml") + " sweep.min_time=0 --backend gpu -o " +
                      quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  expect_nothing_left();
}

// ---------------------------------------------------------------------------------------------
// On a device.

TEST_F(FftconvCli, GpuRunAgreesWithTheGoldInEveryVariant) {
  PARASOL_REQUIRE_GPU();
  for (const std::string precision : {"float", "double"})
    for (const std::string variant : {"auto", "c2c", "r2c", "overlap-save", "direct", "fused"})
      for (const std::string shape : {"", "signal.batch=3 signal.rows=20 signal.length=31 "
                                          "filter.rows=5 filter.length=4"}) {
        if ((variant == "overlap-save" || variant == "fused") && !shape.empty()) continue;
        if (variant == "fused" && !fftconv::fused_compiled_in()) continue;
        const auto r = test::run_shell(
            kExe + " run " + quoted(kInputs / "fftconv.toml") +
            " --backend gpu --check --force signal.length=100003 problem.precision=" + precision +
            " method.variant=" + variant + " " + shape + " -o " + quoted(dir_ / "r.h5"));
        ASSERT_EQ(r.status, 0) << r.output;
        io::ResultReader h5(dir_ / "r.h5");
        EXPECT_EQ(text(h5, "/provenance", "backend"), "gpu");
        if (variant != "auto") {
          EXPECT_EQ(text(h5, "/output", "variant"), variant);
        }
        EXPECT_LE(number(h5, "/check", "max_relative_difference"),
                  number(h5, "/check", "tolerance"))
            << precision << " " << variant << " " << shape;
      }
}

// A GPU run draws a generated signal on the device unless it needs the host's copy (the gold of
// --check reads it; output.input writes it): so a run with --check and output.input draws on
// the host, one with neither on the device. They must give the same output, bit for bit (the GPU
// convolution runs the same kernels in the same order on the same input), for noise and chirp,
// in float and double, with signals of an odd length in a batch, so that a Box-Muller pair
// straddles two signals' ends.
TEST_F(FftconvCli, GpuRunDrawingOnTheDeviceGivesTheHostDrawnRunsBits) {
  PARASOL_REQUIRE_GPU();
  for (const std::string precision : {"float", "double"})
    for (const std::string kind : {"kind = \"noise\"\namplitude = 2.0\n",
                                   "kind = \"chirp\"\nnoise = 0.1\nf0 = 0.01\nf1 = 0.3\n"})
      for (const std::string seed : {"1", "46"}) {
        std::ofstream(dir_ / "p.toml")
            << "solver = \"fftconv\"\n[problem]\nmode = \"same\"\nprecision = \"" << precision
            << "\"\n[signal]\n" << kind << "batch = 3\nlength = 100003\nseed = " << seed
            << "\n[filter]\nlength = 31\n";
        test::expect_device_draws_give_host_bits<io::ResultReader>(
            kExe + " run " + quoted(dir_ / "p.toml") + " --backend gpu --force", dir_,
            "/input/signal", "/output", precision + ", " + kind + "seed " + seed);
      }
}

TEST_F(FftconvCli, GpuStreamedRunAgreesWithTheGold) {
  PARASOL_REQUIRE_GPU();
  const std::vector<float> x = seeded<float>(1000003, 9), h = seeded<float>(255, 10);
  write_input([&](io::ResultFile& f) {
    f.write_field("/x", x.data(), {x.size()});
    f.write_field("/h", h.data(), {h.size()});
  });
  for (const std::string mode : {"full", "same", "valid"}) {
    std::ofstream(dir_ / "p.toml") << file_params("[method]\nstreamed = true\npiece = 65536\n");
    const auto r = test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") +
                                   " --backend gpu --check --force problem.precision=float "
                                   "problem.mode=" + mode + " -o " + quoted(dir_ / "r.h5"));
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "r.h5");
    EXPECT_EQ(text(h5, "/output", "variant"), "overlap-save");
    EXPECT_LE(number(h5, "/check", "max_relative_difference"), number(h5, "/check", "tolerance"))
        << mode;
    EXPECT_EQ(h5.read_floats("/input/signal"), x);
  }
}

TEST_F(FftconvCli, GpuSweepTimesEveryVariant) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " sweep " + quoted(kInputs / "fftconv.toml") + " sweep.min_time=0" +
                                 " signal.length=65536 sweep.repeats=3 -o " +
                                 quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "auto picks")) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  // fused has a row where the build has it.
  std::vector<std::string> variants{"auto", "c2c", "r2c", "overlap-save", "direct"};
  if (fftconv::fused_compiled_in()) variants.push_back("fused");
  EXPECT_EQ(h5.read_strings("/sweep/variant"), variants);
  EXPECT_EQ(h5.read_strings("/sweep/ran")[0], text(h5, "/sweep", "auto_variant"));
  EXPECT_EQ(h5.read_ints("/sweep/passed"), std::vector<std::int64_t>(variants.size(), 1));
  for (const double rate : h5.read_doubles("/sweep/gsamples_per_s")) EXPECT_GT(rate, 0.0);
}

}  // namespace
}  // namespace parasol
