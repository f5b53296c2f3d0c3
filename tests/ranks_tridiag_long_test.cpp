// `mpirun -np N parasol run` of one long tridiagonal system (or a few) whose rows are cut among
// the ranks (system.cut = "rows"): on the CPU each rank's rows are one piece, so N ranks give
// solve_partitioned(batch, N)'s bits, uneven cuts included, and the result is within the bound
// of the gold (--check); on the GPU each rank's rows are cut again into pieces of 256 rows, so
// one and two ranks agree with the host's partition method on their whole cut within T's bound.
// A cut leaving a rank fewer than two rows is one line and exit 2.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "io/result_reader.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/partition.hpp"
#include "solvers/tridiag/tridiag.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::same_bits;

constexpr std::uint64_t kSeed = 20261128;

std::string drawn(std::int64_t n, std::int64_t systems, const std::string& precision) {
  return "solver = \"tridiag\"\n[problem]\nkind = \"random\"\nprecision = \"" + precision +
         "\"\n[system]\ncut = \"rows\"\n[random]\nn = " + std::to_string(n) +
         "\nsystems = " + std::to_string(systems) + "\nseed = " + std::to_string(kSeed) + "\n";
}

std::string ring(std::int64_t n, std::int64_t systems) {
  return "solver = \"tridiag\"\n[problem]\nkind = \"random\"\nprecision = \"double\"\n[system]\n"
         "kind = \"periodic\"\ncut = \"rows\"\n[random]\nn = " + std::to_string(n) +
         "\nsystems = " + std::to_string(systems) + "\nseed = " + std::to_string(kSeed) + "\n";
}

std::string from_file(const std::string& precision) {
  return "solver = \"tridiag\"\n[problem]\nkind = \"file\"\nprecision = \"" + precision +
         "\"\n[system]\ncut = \"rows\"\n[input]\nfile = \"in.h5\"\n";
}

// The one-rank reference on `cut`, rounded to T as the run writes it, widened back to compare.
template <class T>
std::vector<double> reference(const tridiag::Batch<T>& batch, const std::vector<std::int64_t>& cut,
                              bool periodic = false) {
  std::vector<double> x = tridiag::solve_partitioned(batch, cut, periodic);
  for (double& v : x) v = static_cast<double>(static_cast<T>(v));
  return x;
}

class TridiagLongRanks : public test::RanksTest {
 protected:
  std::vector<double> field(const std::string& output) {
    return io::ResultReader(dir_ / output).read_doubles("/fields/x");
  }

  // `ranks` ranks (0: no launcher) give `expected`'s bits and pass --check.
  void expect_run(int ranks, const std::string& text, const std::vector<double>& expected,
                  const std::string& args = "") {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string out = "r" + std::to_string(ranks) + ".h5";
    const auto r = run(ranks, text, out, "--check " + args);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(same_bits(field(out), expected));
    io::ResultReader h5(dir_ / out);
    EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
    EXPECT_EQ(std::get<std::string>(h5.attribute("/input", "cut")), "rows");
    EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    if (ranks > 1) {
      EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
    }
  }

  template <class T>
  void expect_every_cut(std::int64_t n, std::int64_t systems, const std::string& precision) {
    SCOPED_TRACE(precision + ", n " + std::to_string(n) + ", " + std::to_string(systems) + " systems");
    const tridiag::Batch<T> batch =
        tridiag::random_batch<T>({n, systems, tridiag::Layout::contiguous}, kSeed);
    expect_run(0, drawn(n, systems, precision), reference(batch, tridiag::long_cut(n, 1, 0, "")));
    for (int ranks = 1; ranks <= 3; ++ranks)
      expect_run(ranks, drawn(n, systems, precision),
                 reference(batch, tridiag::long_cut(n, ranks, 0, "")));
  }
};

TEST_F(TridiagLongRanks, RowsCutAmongRanksGiveTheOneRankPartitionBits) {
  // 101 rows: 51 + 50, 34 + 34 + 33; 8 rows among 3 ranks: 3 + 3 + 2, the fewest a rank takes.
  expect_every_cut<double>(101, 2, "double");
  expect_every_cut<float>(101, 1, "float");
  expect_every_cut<double>(8, 3, "double");
}

// A ring's first and last pieces couple each other: the interface is a ring, solved on rank 0
// by Sherman-Morrison; the gold is the periodic kind's.
TEST_F(TridiagLongRanks, RingsCutAmongRanksGiveTheOneRankPartitionBits) {
  const std::int64_t n = 101, systems = 2;
  const tridiag::Batch<double> batch = tridiag::periodic_as_batch(tridiag::random_kind_batch<double>(
      {tridiag::Kind::periodic, n, systems, 1}, kSeed));
  expect_run(0, ring(n, systems), reference(batch, tridiag::long_cut(n, 1, 0, ""), true));
  for (int ranks = 1; ranks <= 3; ++ranks)
    expect_run(ranks, ring(n, systems), reference(batch, tridiag::long_cut(n, ranks, 0, ""), true));
}

TEST_F(TridiagLongRanks, EachRankReadsItsRowsOfAFile) {
  const std::int64_t n = 29, systems = 3;
  const tridiag::Batch<double> batch =
      tridiag::random_batch<double>({n, systems, tridiag::Layout::contiguous}, kSeed + 1);
  {
    io::ResultFile in(dir_ / "in.h5", true);
    const std::vector<std::uint64_t> dims{std::uint64_t(systems), std::uint64_t(n)};
    in.write_field("/a", batch.a.data(), dims);
    in.write_field("/b", batch.b.data(), dims);
    in.write_field("/c", batch.c.data(), dims);
    in.write_field("/d", batch.d.data(), dims);
    in.commit();
  }
  for (int ranks = 1; ranks <= 3; ++ranks)
    expect_run(ranks, from_file("double"), reference(batch, tridiag::long_cut(n, ranks, 0, "")));
}

TEST_F(TridiagLongRanks, APieceOfFewerThanTwoRowsIsOneLineAndExitTwo) {
  // 5 rows among 3 ranks: 2 + 2 + 1.
  const auto r = run(3, drawn(5, 1, "double"), "out.h5");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "random.n");
  test::expect_one_line(r, "two rows a rank");
  test::expect_only_inputs(dir_, {"p.toml"});
  // Rows are cut for general systems drawn or read, never for the heat march.
  const auto heat = run(0,
                        "solver = \"tridiag\"\n[problem]\nkind = \"heat\"\n[system]\ncut = "
                        "\"rows\"\n[heat]\npoints = 37\ngrids = 1\nsteps = 2\n",
                        "out.h5");
  EXPECT_EQ(heat.status, 2) << heat.output;
  test::expect_one_line(heat, "system.cut");
  // One method: nothing for `parasol sweep` to time.
  const auto sweep = test::run_shell(test::kParasol + " sweep " +
                                     test::quoted(write_params(drawn(64, 1, "float"))) +
                                     " -o " + test::quoted(dir_ / "sweep.h5"));
  EXPECT_EQ(sweep.status, 2) << sweep.output;
  test::expect_one_line(sweep, "system.cut");
}

// On a GPU machine: 2048 rows are 8 pieces of 256 on one rank and 4 on each of two, the same
// whole cut; each rank reduces its chain of interface rows alone, so the two runs differ by
// rounding alone: both within the gold's bound (--check) and near the host's partition method
// on that cut; rings within their bound.
TEST_F(TridiagLongRanks, OnTheDeviceTwoRanksAgreeWithTheOneRankPartitionOnTheSameCut) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = 2048, systems = 2;
  const std::string args = "--backend gpu --transport mpi";
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    const auto one = run(0, drawn(n, systems, precision), "one.h5", "--check " + args);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto two = run(2, drawn(n, systems, precision), "two.h5", "--check " + args);
    ASSERT_EQ(two.status, 0) << two.output;
    const auto near_host = [&](auto zero, const std::vector<double>& x) {
      using T = decltype(zero);
      const tridiag::Batch<T> batch =
          tridiag::random_batch<T>({n, systems, tridiag::Layout::contiguous}, kSeed);
      const std::vector<double> host =
          tridiag::solve_partitioned(batch, tridiag::long_cut(n, 2, tridiag::kDevicePieceRows, ""));
      double worst = 0, scale = 0;
      for (std::size_t k = 0; k < host.size(); ++k) {
        worst = std::max(worst, std::abs(x[k] - host[k]));
        scale = std::max(scale, std::abs(host[k]));
      }
      EXPECT_LE(worst, tridiag::tolerance<T>(tridiag::condition_bound(batch), n) * scale);
    };
    for (const char* out : {"one.h5", "two.h5"}) {
      SCOPED_TRACE(out);
      if (precision == "float") near_host(0.0f, field(out));
      else near_host(0.0, field(out));
    }
  }
  // Without --check the rows are drawn on the device: the host's bits, so the same result.
  for (const int ranks : {0, 2}) {
    const auto on_device = run(ranks, drawn(n, systems, "float"), "drawn.h5", args);
    ASSERT_EQ(on_device.status, 0) << on_device.output;
    const auto on_host = run(ranks, drawn(n, systems, "float"), "host.h5", "--check " + args);
    ASSERT_EQ(on_host.status, 0) << on_host.output;
    EXPECT_TRUE(same_bits(field("drawn.h5"), field("host.h5"))) << ranks << " ranks";
  }
  // A ring the same way.
  const auto one = run(0, ring(n, systems), "ring1.h5", "--check " + args);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = run(2, ring(n, systems), "ring2.h5", "--check " + args);
  ASSERT_EQ(two.status, 0) << two.output;
  io::ResultReader h5(dir_ / "ring2.h5");
  EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
}

}  // namespace
}  // namespace parasol
