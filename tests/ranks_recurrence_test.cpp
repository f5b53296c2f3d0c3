// `mpirun -np N parasol run`: a recurrence cut among 1 to 4 ranks with the CPU backend (the gold
// on each rank's run, the exact carry passed rank to rank) gives the one-rank run's bits: AR(1)
// series, a plain running sum and segments that cross the cuts, in float and double, uneven
// cuts, a rank with nothing and ranks of one element; a bad launch, or bad input in one rank's
// run, ends in one line from rank 0 and leaves nothing behind. On a GPU machine, ranks sharing its device give the one-rank
// reproducible bits and a fast result that passes the check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
using test::same_bits;
const std::string& kExe = test::kParasol;

std::string header(const std::string& kind, const std::string& precision,
                   const std::string& mode) {
  return "solver = \"recurrence\"\n[method]\nmode = \"" + mode + "\"\n[problem]\nkind = \"" + kind +
         "\"\nprecision = \"" + precision + "\"\n";
}

// AR(1) series of `length` steps each, stored as rows: the cuts fall inside rows.
std::string ar1(std::int64_t series, std::int64_t length, const std::string& precision,
                const std::string& mode = "reproducible") {
  return header("ar1", precision, mode) + "[ar1]\nseries = " + std::to_string(series) +
         "\nlength = " + std::to_string(length) + "\nphi_min = 0.5\nphi_max = 0.99\nx0 = 2.5\n";
}

// s, u, offsets and initial values from in.h5.
std::string from_file(const std::string& precision, const std::string& mode = "reproducible") {
  return header("file", precision, mode) +
         "[input]\nfile = \"in.h5\"\noffsets = \"offsets\"\ninitial = \"initial\"\n";
}

class RecurrenceRanks : public test::RanksTest {
 protected:
  // recurrence's field is v.
  template <class T>
  std::vector<T> field(const std::string& output, const std::string& dataset = "/fields/v") {
    return RanksTest::field<T>(output, dataset);
  }

  // A running sum (s = 1) and a damped stretch, in segments of 0, 1, 7, 23 and 9 elements: with
  // 40 elements among 2 to 4 ranks, segments cross every cut.
  void write_plain_scan() {
    const std::vector<std::int64_t> offsets{0, 0, 1, 8, 31, 40};
    std::vector<double> s(40), u(40);
    for (std::size_t i = 0; i < s.size(); ++i) {
      s[i] = i < 31 ? 1.0 : 0.75;
      u[i] = std::sin(0.7 * static_cast<double>(i)) + 0.1;
    }
    const std::vector<double> initial{5.0, -1.0, 0.5, 0.0, 3.0};
    io::ResultFile file(dir_ / "in.h5", true);
    file.write_field("/s", s.data(), {s.size()});
    file.write_field("/u", u.data(), {u.size()});
    file.write_column("/offsets", offsets);
    file.write_field("/initial", initial.data(), {initial.size()});
    file.commit();
  }

  // The run of `text` on 1..4 ranks (those in `counts`) against the plain run's bits, v and the
  // inputs stored beside it.
  template <class T>
  void expect_one_rank_bits(const std::string& text, const std::vector<int>& counts) {
    const auto plain = run(0, text, "plain.h5");
    ASSERT_EQ(plain.status, 0) << plain.output;
    for (const int ranks : counts) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::string out = "r" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--check");
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field<T>(out), field<T>("plain.h5")));
      EXPECT_TRUE(same_bits(field<T>(out, "/input/s"), field<T>("plain.h5", "/input/s")));
      EXPECT_TRUE(same_bits(field<T>(out, "/input/u"), field<T>("plain.h5", "/input/u")));
      io::ResultReader h5(dir_ / out);
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      if (ranks > 1) {
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_s"));
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
        EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/method", "ranks")), ranks);
      }
      // Rank 0 alone speaks: one summary.
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
};

TEST_F(RecurrenceRanks, AR1SeriesCutInsideRowsGiveTheOneRankBits) {
  // 3 series of 13 steps: 39 elements cut 20+19, 13+13+13 and 10+10+10+9.
  expect_one_rank_bits<float>(ar1(3, 13, "float"), {1, 2, 3, 4});
  expect_one_rank_bits<double>(ar1(3, 13, "double", "fast"), {2, 4});
}

TEST_F(RecurrenceRanks, APlainScanWithSegmentsAcrossTheCutsGivesTheOneRankBits) {
  write_plain_scan();
  expect_one_rank_bits<double>(from_file("double"), {1, 2, 3, 4});
  expect_one_rank_bits<float>(from_file("float", "fast"), {3});
}

TEST_F(RecurrenceRanks, RanksOfOneElementAndRanksOfNoneGiveTheOneRankBits) {
  // One series of 4 steps on 4 ranks: one element each; of 3 on 4: the last rank has none.
  expect_one_rank_bits<double>(ar1(1, 4, "double"), {4});
  expect_one_rank_bits<float>(ar1(1, 3, "float"), {4});
}

// Rows of s and u in a file (one segment each) cut inside rows: each rank reads just its run
// of elements, and the result is the one-rank run's.
TEST_F(RecurrenceRanks, RowsFromAFileCutInsideRowsGiveTheOneRankBits) {
  // 3 rows of 13: 39 elements cut 20+19, 13+13+13 and 10+10+10+9.
  std::vector<double> s(39), u(39);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s[i] = 0.5 + 0.01 * static_cast<double>(i % 13);
    u[i] = std::cos(0.3 * static_cast<double>(i));
  }
  const std::vector<double> initial{1.0, -2.0, 0.25};
  {
    io::ResultFile file(dir_ / "in.h5", true);
    file.write_field("/s", s.data(), {3, 13});
    file.write_field("/u", u.data(), {3, 13});
    file.write_field("/initial", initial.data(), {3});
    file.commit();
  }
  expect_one_rank_bits<double>(header("file", "double", "reproducible") +
                                   "[input]\nfile = \"in.h5\"\ninitial = \"initial\"\n",
                               {2, 3, 4});
}

// Smoothing of rows of y (and of one series, 1D): each rank reads its run of y and the rows'
// first values, and the result is the one-rank run's.
TEST_F(RecurrenceRanks, SmoothingFromAFileGivesTheOneRankBits) {
  std::vector<double> y(39);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(0.4 * static_cast<double>(i)) + 2.0;
  for (const bool rows : {true, false}) {
    SCOPED_TRACE(rows ? "3 rows of 13" : "one series of 39");
    {
      io::ResultFile file(dir_ / "in.h5", true);
      if (rows) file.write_field("/y", y.data(), {3, 13});
      else file.write_field("/y", y.data(), {39});
      file.commit();
    }
    expect_one_rank_bits<float>(header("smoothing", "float", "reproducible") +
                                    "[input]\nfile = \"in.h5\"\n[smoothing]\nalpha = 0.3\n",
                                {2, 3, 4});
  }
}

TEST_F(RecurrenceRanks, ABadInputIsOneLineFromRankZeroAndNothingWritten) {
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                 quoted(write_params(ar1(2, 0, "float"))) + " -o " +
                                 quoted(dir_ / "out.h5") + " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "ar1.length");
  test::expect_only_inputs(dir_, {"p.toml"});
}

TEST_F(RecurrenceRanks, ANaNInTheLastRanksRunIsOneLineNamingItsElement) {
  // Each rank reads its run of 1D s and u alone: element 35 of 40 is the last rank's.
  std::vector<double> s(40, 0.5), u(40, 1.0);
  u[35] = NAN;
  {
    io::ResultFile file(dir_ / "in.h5", true);
    file.write_field("/s", s.data(), {s.size()});
    file.write_field("/u", u.data(), {u.size()});
    file.commit();
  }
  const std::string text = header("file", "double", "fast") + "[input]\nfile = \"in.h5\"\n";
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 4 " + kExe + " run " +
                                 quoted(write_params(text)) + " -o " + quoted(dir_ / "out.h5") +
                                 " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "/u: holds nan at element 35");
  test::expect_only_inputs(dir_, {"p.toml", "in.h5"});
}

// On a GPU machine: three ranks share its device through MPI. The reproducible scan gives the
// one-rank run's bits (its runs are cut on tile boundaries and scan every tile total as one rank
// does); the fast one passes the check.
TEST_F(RecurrenceRanks, ThreeRanksOnTheDeviceGiveTheOneRankReproducibleBits) {
  PARASOL_REQUIRE_GPU();
  // 2 series of 30000 steps: 15 float tiles, 30 double ones, segments across the cuts.
  for (const std::string precision : {"float", "double"}) {
    for (const std::string mode : {"reproducible", "fast"}) {
      SCOPED_TRACE(precision + " " + mode);
      const std::string text = ar1(2, 30000, precision, mode);
      const auto one = test::run_shell(kExe + " run " + quoted(write_params(text)) + " -o " +
                                       quoted(dir_ / "one.h5") + " --force --backend gpu");
      ASSERT_EQ(one.status, 0) << one.output;
      const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                     quoted(write_params(text)) + " -o " +
                                     quoted(dir_ / "three.h5") +
                                     " --force --transport mpi --backend gpu --check");
      ASSERT_EQ(r.status, 0) << r.output;
      io::ResultReader h5(dir_ / "three.h5");
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      if (mode == "reproducible") {
        if (precision == "float")
          EXPECT_TRUE(same_bits(field<float>("three.h5"), field<float>("one.h5")));
        else
          EXPECT_TRUE(same_bits(field<double>("three.h5"), field<double>("one.h5")));
      }
    }
  }
}

// Ranks on the device draw their runs of a generated series there (no --check, no
// output.input) or on the host (either): the same input, bit for bit. So the reproducible mode
// gives the same v both ways; the fast mode, whose carry across ranks takes the product of a
// run's s (brought back from the device where it was drawn there), agrees within round-off.
// One series of 200000 steps: every rank after the first continues it through its whole run.
TEST_F(RecurrenceRanks, ThreeRanksDrawingOnTheDeviceGiveTheHostDrawnRunsValues) {
  PARASOL_REQUIRE_GPU();
  for (const std::string precision : {"float", "double"}) {
    for (const std::string mode : {"reproducible", "fast"}) {
      SCOPED_TRACE(precision + " " + mode);
      const std::string run = std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                              quoted(write_params(ar1(1, 200000, precision, mode))) +
                              " --force --transport mpi --backend gpu";
      ASSERT_TRUE(test::ran_drawn_on_host_and_on_device(run, dir_));
      const std::vector<double> h = field<double>("host.h5"), d = field<double>("device.h5");
      ASSERT_EQ(h.size(), d.size());
      if (mode == "reproducible") {
        EXPECT_TRUE(same_bits(h, d));
        continue;
      }
      // The two differ only in the order the fast scan composes tiles: round-off, far below
      // 10^-4 of v's range in float. A wrong carry past a cut would be off by the size of v.
      const double relative = precision == "float" ? 1e-4 : 1e-12;
      double worst = 0, largest = 0;
      for (std::size_t i = 0; i < h.size(); ++i) {
        worst = std::max(worst, std::abs(h[i] - d[i]));
        largest = std::max(largest, std::abs(h[i]));
      }
      EXPECT_LE(worst, relative * largest) << "largest difference between host and device draws";
    }
  }
}

}  // namespace
}  // namespace parasol
