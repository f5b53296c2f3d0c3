// `mpirun -np N parasol run` of montecarlo: the samples cut among 1 to 4 ranks by whole batches,
// each sample drawing the same normals whatever rank simulates it, and the integer payoff sums
// added across ranks: the estimate, its standard error and the stored sample paths are the
// one-rank run's bits, with the CPU backend here and on a device shared by three ranks.
#include <string>
#include <vector>

#include "io/result_reader.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::same_bits;

// Batches of 10 paths, 7 steps.
std::string params(std::int64_t paths, const std::string& payoff, bool antithetic,
                   std::int64_t sample_paths) {
  return "solver = \"montecarlo\"\n[paths]\ncount = " + std::to_string(paths) +
         "\nsteps = 7\n[payoff]\nkind = \"" + payoff + "\"\n[method]\nantithetic = " +
         (antithetic ? "true" : "false") + "\nbatch_paths = 10\nseed = 99\n[output]\n" +
         "sample_paths = " + std::to_string(sample_paths) + "\n";
}

class MontecarloRanks : public test::RanksTest {
 protected:
  struct Outcome {
    double price = 0, standard_error = 0;
    std::int64_t samples = 0;
    std::vector<float> sample_paths;
  };

  Outcome outcome(const std::string& output) {
    io::ResultReader h5(dir_ / output);
    Outcome o;
    o.price = std::get<double>(h5.attribute("/estimate", "price"));
    o.standard_error = std::get<double>(h5.attribute("/estimate", "standard_error"));
    o.samples = std::get<std::int64_t>(h5.attribute("/estimate", "samples"));
    o.sample_paths = h5.read_floats("/fields/sample_paths");
    return o;
  }

  // Bits, not values: the same estimate to the last bit.
  static void expect_same(const Outcome& a, const Outcome& b) {
    EXPECT_TRUE(same_bits(std::vector<double>{a.price, a.standard_error},
                          std::vector<double>{b.price, b.standard_error}))
        << a.price << " +- " << a.standard_error << " against " << b.price << " +- "
        << b.standard_error;
    EXPECT_EQ(a.samples, b.samples);
    EXPECT_TRUE(same_bits(a.sample_paths, b.sample_paths));
  }
};

TEST_F(MontecarloRanks, EveryCutGivesTheOneRankBits) {
  // The CPU gold cuts by samples: 95 paths as 48+47, 32+32+31, 24+24+24+23; antithetic, 47
  // pairs; 3 paths, so a fourth rank has none. Stored sample paths span the ranks' parts.
  struct Case {
    std::int64_t paths;
    std::string payoff;
    bool antithetic;
    std::int64_t sample_paths;
  };
  for (const Case& c : {Case{95, "asian-call", false, 23}, Case{94, "digital", true, 12},
                        Case{3, "european-put", false, 3}}) {
    const std::string text = params(c.paths, c.payoff, c.antithetic, c.sample_paths);
    const auto plain = run(0, text, "plain.h5");
    ASSERT_EQ(plain.status, 0) << plain.output;
    const Outcome one = outcome("plain.h5");
    ASSERT_EQ(one.sample_paths.size(), static_cast<std::size_t>(c.sample_paths * 8 * 2));
    for (int ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(std::to_string(c.paths) + " paths, " + c.payoff + ", " +
                   std::to_string(ranks) + " ranks");
      const std::string out = "r" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--check");
      ASSERT_EQ(r.status, 0) << r.output;
      expect_same(outcome(out), one);
      io::ResultReader h5(dir_ / out);
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      if (ranks > 1) {
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
      }
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
}

// On a GPU machine: three ranks sharing its device give the one-rank GPU run's bits with
// device-rng (Philox keyed by the global sample; 33335+33334+33334 samples) and with host-rng's
// Philox in the default ordering (whole batches, 6+6+5 of 6000 paths, the last short; each
// rank's generator set to the offset its first batch has in the one-rank run). cuRAND's XORWOW
// and MRG32k3a do not draw the same numbers from an offset as from the stream before it, so
// there the ranks' estimate is another valid one: it agrees with the gold (--check).
TEST_F(MontecarloRanks, OnTheDeviceThreeRanksGiveTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  const std::string text = params(100003, "asian-call", false, 5);
  struct Case {
    std::string method;
    bool bits;
  };
  for (const Case& c :
       {Case{"method.variant=device-rng method.block=128", true},
        Case{"method.variant=device-rng method.block=512", true},
        Case{"method.variant=host-rng method.generator=philox method.ordering=default", true},
        Case{"method.variant=host-rng method.generator=xorwow method.ordering=default", false},
        Case{"method.variant=host-rng method.generator=mrg32k3a method.ordering=dynamic", false}}) {
    SCOPED_TRACE(c.method);
    const std::string args = "--backend gpu method.batch_paths=6000 " + c.method;
    const auto one = run(0, text, "one.h5", args);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto three = run(3, text, "three.h5", "--transport mpi --check " + args);
    ASSERT_EQ(three.status, 0) << three.output;
    if (c.bits) expect_same(outcome("three.h5"), outcome("one.h5"));
    EXPECT_EQ(std::get<bool>(io::ResultReader(dir_ / "three.h5").attribute("/check", "passed")),
              true);
  }
}

TEST_F(MontecarloRanks, ABadFileIsOneLineFromRankZeroAndNothingWritten) {
  const auto r = run(3, params(95, "no-such-payoff", false, 0), "out.h5");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "payoff.kind");
  test::expect_only_inputs(dir_, {"p.toml"});
}

}  // namespace
}  // namespace parasol
