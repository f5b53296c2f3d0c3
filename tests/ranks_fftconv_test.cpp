// `mpirun -np N parasol run` of fftconv: a batch's signals cut among 1 to 4 ranks, or one long
// signal's output cut into ranges of whole overlap-save blocks, each rank reading only its part
// of an input file; with the CPU backend every cut gives the one-rank run's bits. Runs that
// cannot be cut end in one line from rank 0 and nothing written.
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "io/result_reader.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::same_bits;

std::string batch(std::int64_t signals, const std::string& precision, const std::string& mode) {
  return "solver = \"fftconv\"\n[problem]\nmode = \"" + mode + "\"\nprecision = \"" + precision +
         "\"\n[signal]\nkind = \"noise\"\nbatch = " + std::to_string(signals) +
         "\nlength = 300\n[filter]\nlength = 31\n[output]\ninput = true\n";
}

// A batch of `batch` noise images, rows x length, with a taps x taps filter, in `same` mode.
std::string images(int batch, int rows, int length, int taps) {
  return "solver = \"fftconv\"\n[problem]\nmode = \"same\"\n[signal]\nkind = \"noise\"\n"
         "batch = " + std::to_string(batch) + "\nrows = " + std::to_string(rows) +
         "\nlength = " + std::to_string(length) + "\n[filter]\nrows = " + std::to_string(taps) +
         "\nlength = " + std::to_string(taps) + "\n[output]\ninput = true\n";
}

// One long signal: 5000 samples with 301 taps in blocks of 1024 (724 outputs each).
std::string long_signal(const std::string& precision, const std::string& mode,
                        const std::string& source = "[signal]\nlength = 5000\n") {
  return "solver = \"fftconv\"\n[problem]\nmode = \"" + mode + "\"\nprecision = \"" + precision +
         "\"\n" + source + "[filter]\nlength = 301\n[method]\nblock = 1024\n";
}

class FftconvRanks : public test::RanksTest {
 protected:
  // On the GPU, three ranks sharing it against one rank: the same bits, the same variant, and a
  // --check that passes.
  void expect_three_gpu_ranks_run_as_one(const std::string& text, const std::string& more = "") {
    const std::string args = "--backend gpu --transport mpi " + more;
    const auto one = run(0, text, "one.h5", args);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto three = run(3, text, "three.h5", "--check " + args);
    ASSERT_EQ(three.status, 0) << three.output;
    EXPECT_TRUE(same_bits(output("three.h5"), output("one.h5")));
    const io::ResultReader h1(dir_ / "one.h5"), h3(dir_ / "three.h5");
    EXPECT_EQ(std::get<std::string>(h3.attribute("/output", "variant")),
              std::get<std::string>(h1.attribute("/output", "variant")));
    EXPECT_EQ(std::get<bool>(h3.attribute("/check", "passed")), true);
  }

  std::vector<double> output(const std::string& file, const std::string& dataset = "/output") {
    return io::ResultReader(dir_ / file).read_doubles(dataset);
  }

  void expect_every_cut_alike(const std::string& text, const std::string& args = "") {
    const auto plain = run(0, text, "plain.h5", args);
    ASSERT_EQ(plain.status, 0) << plain.output;
    for (int ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::string out = "r" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--check " + args);
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(output(out), output("plain.h5")));
      io::ResultReader h5(dir_ / out), p(dir_ / "plain.h5");
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      EXPECT_EQ(h5.dims("/output"), p.dims("/output"));
      if (p.exists("/input/signal")) {
        EXPECT_TRUE(same_bits(output(out, "/input/signal"), output("plain.h5", "/input/signal")));
        EXPECT_TRUE(same_bits(output(out, "/input/filter"), output("plain.h5", "/input/filter")));
      }
      if (ranks > 1) {
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_by_rank_s"));
      }
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
};

TEST_F(FftconvRanks, ABatchCutAmongRanksGivesTheOneRankBits) {
  // 7 signals: 4+3, 3+2+2, 2+2+2+1.
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    expect_every_cut_alike(batch(7, precision, "same"));
  }
  expect_every_cut_alike(batch(4, "float", "full"));  // one signal a rank
  expect_every_cut_alike(images(5, 30, 40, 5));      // images, cut by single images
}

TEST_F(FftconvRanks, ABatchFromAFileWithAFilterEachIsReadByRows) {
  {
    io::ResultFile in(dir_ / "in.h5", true);
    std::vector<float> signals(5 * 200), filters(5 * 9);
    for (std::size_t i = 0; i < signals.size(); ++i) signals[i] = float((i * 37) % 101) / 50 - 1;
    for (std::size_t i = 0; i < filters.size(); ++i) filters[i] = float(i % 9 + 1) / 45;
    in.write_field("/x", signals.data(), {5, 200});
    in.write_field("/h", filters.data(), {5, 9});
    in.commit();
  }
  expect_every_cut_alike(
      "solver = \"fftconv\"\n[problem]\nmode = \"valid\"\n[signal]\nsource = \"file\"\n"
      "file = \"in.h5\"\ndataset = \"/x\"\n[filter]\nkind = \"file\"\nfile = \"in.h5\"\n"
      "dataset = \"/h\"\n[output]\ninput = true\n");
}

TEST_F(FftconvRanks, ALongSignalCutIntoBlocksGivesTheOneRankBits) {
  // 5300 outputs in full mode make 8 blocks (2+2+2+2 on 4 ranks, 3+3+2 on 3).
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    expect_every_cut_alike(long_signal(precision, "full"));
    expect_every_cut_alike(long_signal(precision, "same"));
    // Streamed: each rank's share goes through a spill file into the result, in pieces of 2000
    // samples.
    expect_every_cut_alike(long_signal(precision, "full"), "method.streamed=true method.piece=2000");
  }
  // Read from a file, piece by piece.
  {
    io::ResultFile in(dir_ / "long.h5", true);
    std::vector<double> x(5000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = double((i * 7919) % 2003) / 1001.0 - 1;
    in.write_field("/s", x.data(), {5000});
    in.commit();
  }
  const std::string from_file = long_signal(
      "double", "valid", "[signal]\nsource = \"file\"\nfile = \"long.h5\"\ndataset = \"/s\"\n");
  expect_every_cut_alike(from_file);
  expect_every_cut_alike(from_file, "method.streamed=true method.piece=1500");
}

// On a GPU machine: three ranks sharing its device. A batch gives the one-rank bits with every
// variant; a long signal's overlap-save blocks are each the one-rank run's blocks.
TEST_F(FftconvRanks, OnTheDeviceThreeRanksGiveTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"direct", "c2c", "r2c", "auto"}) {
    SCOPED_TRACE(variant);
    const std::string args = "--backend gpu --transport mpi method.variant=" + variant;
    const auto one = run(0, batch(10, "float", "same"), "one.h5", args);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto three = run(3, batch(10, "float", "same"), "three.h5", "--check " + args);
    ASSERT_EQ(three.status, 0) << three.output;
    EXPECT_TRUE(same_bits(output("three.h5"), output("one.h5")));
  }
  const std::string args = "--backend gpu --transport mpi method.variant=overlap-save";
  const auto one = run(0, long_signal("float", "full"), "one.h5", args);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto three = run(3, long_signal("float", "full"), "three.h5", "--check " + args);
  ASSERT_EQ(three.status, 0) << three.output;
  EXPECT_TRUE(same_bits(output("three.h5"), output("one.h5")));
  // Streamed, in pieces of 3000 samples: against the one-rank streamed run.
  const std::string streamed = args + " method.streamed=true method.piece=3000";
  ASSERT_EQ(run(0, long_signal("float", "full"), "one.h5", streamed).status, 0);
  const auto spilled = run(3, long_signal("float", "full"), "three.h5", "--check " + streamed);
  ASSERT_EQ(spilled.status, 0) << spilled.output;
  EXPECT_TRUE(same_bits(output("three.h5"), output("one.h5")));
}

// A batch of images cut among three ranks sharing the device, by single images: every image
// gives the bits it gives in the one-rank run, with each variant that takes images. The small
// images take cuFFT's column transforms in fused; the 1000 x 1000 ones, at a 1024-point extent
// with their edges recomputed, fused's one-pass column kernel.
TEST_F(FftconvRanks, OnTheDeviceABatchOfImagesGivesTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"fused", "r2c", "c2c", "direct", "auto"}) {
    SCOPED_TRACE(variant);
    expect_three_gpu_ranks_run_as_one(images(7, 120, 200, 9), "method.variant=" + variant);
  }
  for (const std::string variant : {"fused", "auto"}) {
    SCOPED_TRACE(variant + " at 1000 x 1000");
    expect_three_gpu_ranks_run_as_one(images(4, 1000, 1000, 31), "method.variant=" + variant);
  }
}

// One long signal with auto: each rank computes its range of the output in memory with what one
// rank runs on the whole (fused where it is compiled in, ranges cut on pairs of its blocks).
TEST_F(FftconvRanks, OnTheDeviceALongSignalWithAutoRunsTheOneRankVariantInMemory) {
  PARASOL_REQUIRE_GPU();
  for (const std::string mode : {"same", "full"}) {
    SCOPED_TRACE(mode);
    const std::string text = "solver = \"fftconv\"\n[problem]\nmode = \"" + mode +
                             "\"\n[signal]\nlength = 60000\n[filter]\nlength = 301\n";
    expect_three_gpu_ranks_run_as_one(text);
  }
}

// auto with a block length fused does not compile: one rank runs fused at a length of its own
// (the block is overlap-save's), and a batch cut among ranks must run the same, not fail on the
// block as an explicit fused would.
TEST_F(FftconvRanks, OnTheDeviceAutoWithABlockFusedDoesNotCompileRunsAsOnOneRank) {
  PARASOL_REQUIRE_GPU();
  const std::string text =
      "solver = \"fftconv\"\n[problem]\nmode = \"same\"\n[signal]\nkind = \"noise\"\n"
      "batch = 10\nlength = 3000\n[filter]\nlength = 401\n[method]\nvariant = \"auto\"\n"
      "block = 1000\n";
  expect_three_gpu_ranks_run_as_one(text);
}

TEST_F(FftconvRanks, WhatCannotBeCutIsOneLineFromRankZeroAndNothingWritten) {
  struct Case {
    std::string text, args, says;
  };
  for (const Case& c :
       {Case{batch(3, "float", "same"), "", "signal.batch: 3 signals cannot be cut among 4 ranks"},
        Case{long_signal("float", "full", "[signal]\nlength = 500\n"), "",
             "too few to cut among 4 ranks"},
        Case{batch(7, "float", "same"), "method.streamed=true",
             "method.streamed: a streamed run takes one 1D signal"},
        Case{"solver = \"fftconv\"\n[signal]\nrows = 40\nlength = 40\n[filter]\nrows = 3\n"
             "length = 3\n",
             "", "one image runs on one rank"}}) {
    SCOPED_TRACE(c.says);
    const auto r = run(4, c.text, "out.h5", c.args);
    EXPECT_EQ(r.status, 2) << r.output;
    test::expect_one_line(r, c.says);
    test::expect_only_inputs(dir_, {"p.toml"});
  }
}

}  // namespace
}  // namespace parasol
