// `mpirun -np N parasol run` writing its result: with nothing filtered every rank puts its own
// part of each field into the one file at once (contiguous datasets, pwrite: io/direct_write.hpp);
// with --compression the ranks take turns through HDF5. Either way the fields are the one-rank
// run's bits, cut evenly or not. A rank whose write fails takes the run with it: every rank
// exits non-zero, rank 0 says why in one line, and nothing is left.
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "io/result_reader.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
using test::same_bits;

struct Case {
  std::string name;
  std::string params;
  std::vector<std::string> fields;  // every one at least 64 Ki elements: chunked when filtered
};

// 43 planes cut 22+21 and 15+14+14; 5 signals cut 3+2 and 2+2+1; 5 series of 14000 steps cut
// inside rows (35000 + 35000, 23334 + 23333 + 23333 elements), so a rank's part of the 2D field
// is the end of a row, whole rows and the start of one.
std::vector<Case> cases() {
  return {
      {"laplace3d",
       "solver = \"laplace3d\"\n[grid]\nnx = 41\nny = 40\nnz = 43\n[boundary]\nx_min = 1.0\n"
       "[iteration]\nmax_iterations = 3\n[method]\nprecision = \"float\"\n",
       {"/fields/u"}},
      {"fftconv",
       "solver = \"fftconv\"\n[problem]\nprecision = \"double\"\n[signal]\nkind = \"noise\"\n"
       "batch = 5\nlength = 14000\n[filter]\nlength = 31\n[output]\ninput = true\n",
       {"/output", "/input/signal"}},
      {"recurrence",
       "solver = \"recurrence\"\n[problem]\nkind = \"ar1\"\nprecision = \"float\"\n[ar1]\n"
       "series = 5\nlength = 14000\nphi_min = 0.5\nphi_max = 0.99\nx0 = 2.5\n",
       {"/fields/v", "/input/s", "/input/u"}},
  };
}

class RanksWrite : public test::RanksTest {
 protected:
  std::vector<double> values(const std::string& file, const std::string& dataset) {
    return io::ResultReader(dir_ / file).read_doubles(dataset);
  }

  // `parasol run` of `text` under the launcher, with `rank`'s files limited to `limit_kib` and
  // SIGXFSZ ignored, so that its writes past the limit fail with EFBIG as they would on a full
  // disk. Each rank prints "rank R status S" as it ends.
  test::CommandResult run_with_limit(int ranks, int rank, int limit_kib, const std::string& text) {
    const std::string parasol = test::kParasol + " run " + quoted(write_params(text)) + " -o " +
                                quoted(dir_ / "out.h5") + " --backend cpu";
    // Open MPI's and Hydra's names for the process's rank.
    std::ofstream(dir_ / "limit.sh")
        << "R=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\nif [ \"$R\" = " << rank
        << " ]; then trap '' XFSZ; ulimit -f " << limit_kib << "; fi\n"
        << parasol << " >/dev/null\necho \"rank $R status $?\"\n";
    return test::run_shell(launcher(ranks) + "bash " + quoted(dir_ / "limit.sh"));
  }
};

TEST_F(RanksWrite, EveryRankWritesItsPartAtOnceOrInTurnAndTheBitsAreOneRanks) {
  for (const Case& c : cases()) {
    const auto plain = run(0, c.params, "plain.h5");
    ASSERT_EQ(plain.status, 0) << c.name << "\n" << plain.output;
    for (const int ranks : {2, 3}) {
      for (const std::string compression : {"", "deflate:1"}) {
        SCOPED_TRACE(c.name + " on " + std::to_string(ranks) + " ranks, compression " +
                     (compression.empty() ? "none" : compression));
        const auto r = run(ranks, c.params, "many.h5",
                           compression.empty() ? "" : "--compression " + compression);
        ASSERT_EQ(r.status, 0) << r.output;
        const io::ResultReader h5(dir_ / "many.h5");
        for (const std::string& field : c.fields) {
          SCOPED_TRACE(field);
          EXPECT_TRUE(same_bits(values("many.h5", field), values("plain.h5", field)));
          EXPECT_EQ(h5.dims(field), io::ResultReader(dir_ / "plain.h5").dims(field));
          // Written at once: contiguous and plain. In turn: HDF5's chunks, filtered.
          EXPECT_EQ(h5.is_chunked(field), !compression.empty());
          EXPECT_EQ(h5.has_attribute(field, "compression"), !compression.empty());
        }
        EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
        EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
      }
    }
  }
}

// 128 x 128 x 257 doubles: rank 1's planes start past 16 MiB, so with its files limited to
// 20 MiB its pwrite() fails part of the way in. Rank 0's limit of 8 MiB fails its own write
// (its part of the field, or the file HDF5 grows to hold every rank's).
TEST_F(RanksWrite, ARankWhoseWriteFailsEndsEveryRankAndLeavesNothing) {
  const std::string text =
      "solver = \"laplace3d\"\n[grid]\nnx = 128\nny = 128\nnz = 257\n[boundary]\nx_min = 1.0\n"
      "[iteration]\nmax_iterations = 2\n[method]\nprecision = \"double\"\n";
  for (const auto& [rank, limit_kib] : {std::pair<int, int>{1, 20 * 1024}, {0, 8 * 1024}}) {
    SCOPED_TRACE("rank " + std::to_string(rank) + " limited to " + std::to_string(limit_kib) +
                 " KiB");
    const auto r = run_with_limit(2, rank, limit_kib, text);
    EXPECT_NE(r.output.find("rank 0 status 1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("rank 1 status 1"), std::string::npos) << r.output;
    test::expect_one_line(r, "File too large");
    if (rank == 1) test::expect_one_line(r, "pwrite of ");
    test::expect_only_inputs(dir_, {"p.toml", "limit.sh"});
  }
}

}  // namespace
}  // namespace parasol
