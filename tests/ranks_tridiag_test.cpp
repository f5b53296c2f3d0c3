// `mpirun -np N parasol run` of tridiag: the systems (heat's grids, or a file's batch) cut among
// 1 to 4 ranks, each system whole on one rank, give the one-rank run's bits, uneven cuts and one
// system a rank included; each rank reads only its rows of an input file. Too many ranks is one
// line from rank 0 and nothing written.
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "io/result_reader.hpp"
#include "solvers/tridiag/tridiag.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::same_bits;

std::string heat(std::int64_t grids, const std::string& initial, const std::string& precision) {
  return "solver = \"tridiag\"\n[problem]\nkind = \"heat\"\nprecision = \"" + precision +
         "\"\n[heat]\npoints = 37\ngrids = " + std::to_string(grids) +
         "\nsteps = 9\nlambda = 0.7\ninitial = \"" + initial + "\"\nleft = 0.25\n";
}

std::string file(const std::string& precision) {
  return "solver = \"tridiag\"\n[problem]\nkind = \"file\"\nprecision = \"" + precision +
         "\"\n[input]\nfile = \"in.h5\"\n";
}

class TridiagRanks : public test::RanksTest {
 protected:
  void write_input(std::int64_t systems, std::int64_t n) {
    const tridiag::Batch<double> batch =
        tridiag::random_batch<double>({n, systems, tridiag::Layout::contiguous}, 20261123);
    io::ResultFile in(dir_ / "in.h5", true);
    const std::vector<std::uint64_t> dims{std::uint64_t(systems), std::uint64_t(n)};
    in.write_field("/a", batch.a.data(), dims);
    in.write_field("/b", batch.b.data(), dims);
    in.write_field("/c", batch.c.data(), dims);
    in.write_field("/d", batch.d.data(), dims);
    in.commit();
  }

  std::vector<double> field(const std::string& output, const std::string& name) {
    return io::ResultReader(dir_ / output).read_doubles(name);
  }

  // Every rank count from 1 to 4 against the plain run, checked; `args` picks the backend.
  void expect_every_cut_alike(const std::string& text, const std::string& name,
                              const std::string& args = "") {
    const auto plain = run(0, text, "plain.h5", args);
    ASSERT_EQ(plain.status, 0) << plain.output;
    const std::vector<double> one = field("plain.h5", name);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::string out = "r" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--check " + args);
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field(out, name), one));
      io::ResultReader h5(dir_ / out);
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      io::ResultReader p(dir_ / "plain.h5");
      for (const char* diagnostic : {"u_min", "u_max", "sine_decay"}) {
        if (!p.has_attribute("/diagnostics", diagnostic)) continue;
        EXPECT_EQ(h5.attribute("/diagnostics", diagnostic), p.attribute("/diagnostics", diagnostic))
            << diagnostic;
      }
      if (ranks > 1) {
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
      }
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
};

TEST_F(TridiagRanks, HeatGridsCutAmongRanksGiveTheOneRankBits) {
  // 7 grids: 4+3, 3+2+2, 2+2+2+1; 4 grids among 4 ranks: one each. A random start draws each
  // grid's values where the whole problem does; a sine start reports its decay.
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    expect_every_cut_alike(heat(7, "random", precision), "/fields/u");
    expect_every_cut_alike(heat(4, "sine", precision), "/fields/u");
  }
}

TEST_F(TridiagRanks, AFileBatchCutAmongRanksGivesTheOneRankBits) {
  write_input(11, 29);
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    expect_every_cut_alike(file(precision), "/fields/x");
  }
  write_input(4, 300);  // one system a rank
  expect_every_cut_alike(file("double"), "/fields/x");
}

// On a GPU machine: three ranks sharing its device, each variant, against the one-rank GPU run.
TEST_F(TridiagRanks, OnTheDeviceThreeRanksGiveTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  write_input(13, 100);
  for (const std::string variant : {"thomas", "pcr-shared", "pcr-warp", "thomas-pcr", "thomas-scan"}) {
    SCOPED_TRACE(variant);
    const std::string args = "--backend gpu --transport mpi method.variant=" + variant;
    const auto one = run(0, file("float"), "one.h5", args);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto three = run(3, file("float"), "three.h5", "--check " + args);
    ASSERT_EQ(three.status, 0) << three.output;
    EXPECT_TRUE(same_bits(field("three.h5", "/fields/x"), field("one.h5", "/fields/x")));
    const auto heat_one = run(0, heat(10, "random", "float"), "h1.h5", args);
    ASSERT_EQ(heat_one.status, 0) << heat_one.output;
    const auto heat_three = run(3, heat(10, "random", "float"), "h3.h5", "--check " + args);
    ASSERT_EQ(heat_three.status, 0) << heat_three.output;
    EXPECT_TRUE(same_bits(field("h3.h5", "/fields/u"), field("h1.h5", "/fields/u")));
  }
}

// Each kind drawn from a seed: a rank draws only its systems (counter-based), so every cut gives
// the one-rank bits; the heat ring the same with its grids.
TEST_F(TridiagRanks, KindsAndRingsCutAmongRanksGiveTheOneRankBits) {
  for (const std::string kind : {"general", "periodic", "multi-rhs", "pentadiagonal", "block2"}) {
    SCOPED_TRACE(kind);
    expect_every_cut_alike("solver = \"tridiag\"\n[problem]\nkind = \"random\"\n[system]\nkind = \"" +
                               kind + "\"\n" + (kind == "multi-rhs" ? "rhs = 3\n" : "") +
                               "[random]\nn = 23\nsystems = 7\nseed = 5\n",
                           "/fields/x");
  }
  expect_every_cut_alike("solver = \"tridiag\"\n[problem]\nkind = \"heat\"\n[system]\nkind = "
                         "\"periodic\"\n[heat]\npoints = 37\ngrids = 7\nsteps = 9\nlambda = 0.7\n"
                         "initial = \"random\"\n",
                         "/fields/u");
}

TEST_F(TridiagRanks, MoreRanksThanSystemsIsOneLineFromRankZeroAndNothingWritten) {
  const auto r = run(4, heat(3, "sine", "float"), "out.h5");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "heat.grids: 3 grids cannot be cut among 4 ranks");
  test::expect_only_inputs(dir_, {"p.toml"});

  write_input(2, 10);
  const auto f = run(3, file("float"), "out.h5");
  EXPECT_EQ(f.status, 2) << f.output;
  test::expect_one_line(f, "2 systems cannot be cut among 3 ranks");
  test::expect_only_inputs(dir_, {"p.toml", "in.h5"});
}

}  // namespace
}  // namespace parasol
