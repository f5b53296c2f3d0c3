// `mpirun -np N parasol run`: coulomb cut among 1 to 4 ranks with the CPU backend (the gold on
// each rank's planes of a 3D lattice, or rows of a 2D slice) gives the one-rank run's bits, and
// the same XDMF and OpenDX sidecars byte for byte, uneven cuts and ranks of one plane included;
// bad launches end in one line from rank 0 and leave nothing behind.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
using test::same_bits;
const std::string& kExe = test::kParasol;

// `count` atoms in and around a lattice of a few points a side, charges of both signs, seeded.
std::string pqr(int count) {
  std::mt19937_64 random(test::kSeed);
  std::uniform_real_distribution<double> position(-1.0, 4.0), charge(-1.0, 1.0);
  std::string text;
  char line[128];
  for (int a = 1; a <= count; ++a) {
    const double x = position(random), y = position(random), z = position(random);
    std::snprintf(line, sizeof line, "ATOM  %5d  C   GLY     1    %8.3f%8.3f%8.3f %7.4f 1.700\n",
                  a, x, y, z, charge(random));
    text += line;
  }
  return text;
}

// The parameter file of the runs: a lattice the tests choose, atoms in m.pqr beside it.
std::string params(std::int64_t nx, std::int64_t ny, std::int64_t nz, bool dx = true) {
  return "solver = \"coulomb\"\n[lattice]\nnx = " + std::to_string(nx) +
         "\nny = " + std::to_string(ny) + "\nnz = " + std::to_string(nz) +
         "\nspacing = 0.37\norigin = [-0.5, -0.25, 0.125]\n[atoms]\nfile = \"m.pqr\"\n"
         "[physics]\ncoulomb_constant = 332.0637\n[output]\ndx = " +
         (dx ? "true" : "false") + "\n";
}

// What a run left: the field and its two sidecars' text.
struct Written {
  std::vector<float> potential;
  std::string xmf, dx;
};

class CoulombRanks : public test::RanksTest {
 protected:
  void SetUp() override {
    test::RanksTest::SetUp();
    std::ofstream(dir_ / "m.pqr") << pqr(37);
  }

  std::string text_of(const std::string& name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  Written written() {
    return {io::ResultReader(dir_ / "out.h5").read_floats("/fields/potential"),
            text_of("out.xmf"), text_of("out.dx")};
  }

  // The one-rank run of `text` (no launcher), then runs under each of `ranks_list` ranks into
  // the same file names (the XDMF names its HDF5 file), each checked and compared with it.
  void expect_one_rank_bits(const std::string& text, const std::vector<int>& ranks_list,
                            const std::string& decomposition) {
    const auto plain = run(0, text, "out.h5");
    ASSERT_EQ(plain.status, 0) << plain.output;
    const Written one = written();
    ASSERT_FALSE(one.dx.empty());
    for (const int ranks : ranks_list) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const auto r = run(ranks, text, "out.h5", "--check");
      ASSERT_EQ(r.status, 0) << r.output;
      const Written many = written();
      EXPECT_TRUE(same_bits(many.potential, one.potential));
      EXPECT_EQ(many.xmf, one.xmf);
      EXPECT_TRUE(many.dx == one.dx) << "the OpenDX maps differ";
      io::ResultReader h5(dir_ / "out.h5");
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/provenance", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/atoms", "count")), 37);
      if (ranks > 1) {
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_s"));
        EXPECT_TRUE(h5.has_attribute("/timings", "exchange_mean_s"));
        EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/method", "ranks")), ranks);
        EXPECT_EQ(std::get<std::string>(h5.attribute("/method", "decomposition")), decomposition);
      }
      // Rank 0 alone speaks: one summary, and the same potential range as the plain run's.
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
      const auto range = [](const std::string& output) {
        const std::size_t at = output.find("potential from ");
        if (at == std::string::npos) return std::string();
        return output.substr(at, output.find(';', at) - at);
      };
      EXPECT_EQ(range(r.output), range(plain.output)) << r.output;
    }
  }
};

TEST_F(CoulombRanks, SlabsOfA3DLatticeGiveTheOneRankBits) {
  // 11 planes: cuts of 6+5, 4+4+3 and 3+3+3+2.
  expect_one_rank_bits(params(7, 5, 11), {1, 2, 3, 4}, "slabs of z planes");
}

TEST_F(CoulombRanks, RowsOfA2DSliceGiveTheOneRankBits) {
  // A 2D slice of 7 rows: cuts of 4+3, 3+2+2 and 2+2+2+1.
  expect_one_rank_bits(params(9, 7, 1), {1, 2, 3, 4}, "bands of y rows");
}

TEST_F(CoulombRanks, ALatticeCentredOnTheMoleculeIsPlacedAlikeOnEveryRank) {
  // Rank 0 alone reads the atoms: the others learn the box, and so the points and the origin,
  // from it before the lattice is cut.
  const std::string centred =
      "solver = \"coulomb\"\n[lattice]\ncenter = \"molecule\"\nmargin = 0.5\nspacing = 0.37\n"
      "[atoms]\nfile = \"m.pqr\"\n[physics]\ncoulomb_constant = 332.0637\n[output]\ndx = true\n";
  expect_one_rank_bits(centred, {1, 2, 3}, "slabs of z planes");
}

TEST_F(CoulombRanks, OnePlaneOrRowPerRankGivesTheOneRankBits) {
  expect_one_rank_bits(params(6, 5, 4), {4}, "slabs of z planes");
  expect_one_rank_bits(params(6, 3, 1), {3}, "bands of y rows");
}

TEST_F(CoulombRanks, WithoutAMapNoLatticeDataIsGathered) {
  const std::string text = params(5, 4, 6, false);
  ASSERT_EQ(run(0, text, "out.h5").status, 0);
  const std::vector<float> one = io::ResultReader(dir_ / "out.h5").read_floats("/fields/potential");
  const auto r = run(3, text, "out.h5", "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(same_bits(io::ResultReader(dir_ / "out.h5").read_floats("/fields/potential"), one));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.dx"));
}

TEST_F(CoulombRanks, MoreRanksThanPlanesIsOneLineFromRankZeroAndNothingWritten) {
  for (const auto& [text, expected] :
       {std::pair{params(5, 4, 3), std::string("lattice.nz: 3 planes cannot be cut among 4 ranks")},
        std::pair{params(5, 3, 1),
                  std::string("lattice.ny: 3 rows of a 2D slice cannot be cut among 4 ranks")}}) {
    const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 4 " + kExe + " run " +
                                   quoted(write_params(text)) + " -o " + quoted(dir_ / "out.h5") +
                                   " --backend cpu");
    EXPECT_EQ(r.status, 2) << r.output;
    test::expect_one_line(r, expected);
    test::expect_only_inputs(dir_, {"p.toml", "m.pqr"});
  }
}

TEST_F(CoulombRanks, AnUnreadableAtomsFileIsOneLineFromRankZeroAndNothingWritten) {
  std::ofstream(dir_ / "bad.pqr") << "ATOM      1  N   GLY     1    1.000   2.000   zz   0.5 1.8\n";
  for (const std::string file : {"missing.pqr", "bad.pqr"}) {
    std::string text = params(5, 4, 6);
    text.replace(text.find("m.pqr"), 5, file);
    const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                   quoted(write_params(text)) + " -o " + quoted(dir_ / "out.h5") +
                                   " --backend cpu");
    EXPECT_EQ(r.status, 2) << r.output;
    test::expect_one_line(r, file);
    test::expect_only_inputs(dir_, {"p.toml", "m.pqr", "bad.pqr"});
  }
}

// On a GPU machine: three ranks share its device through MPI, every variant that gives the same
// bits run after run (scatter's atomics land in any order), against the one-rank GPU run's bits:
// 600 atoms on lattices this small are summed in atom slices, planned from the whole lattice.
TEST_F(CoulombRanks, EveryVariantOnTheDeviceGivesTheOneRankBits) {
  PARASOL_REQUIRE_GPU();
  std::ofstream(dir_ / "m.pqr") << pqr(600);
  for (const std::string& text : {params(70, 9, 13), params(40, 37, 1)}) {
    for (const std::string variant :
         {"gather", "gather-coarse", "gather-shared", "gather-hybrid"}) {
      SCOPED_TRACE(variant + "\n" + text);
      const std::string gpu = "--backend gpu method.variant=" + variant + " ";
      const auto one = test::run_shell(kExe + " run " + quoted(write_params(text)) + " -o " +
                                       quoted(dir_ / "out.h5") + " --force " + gpu);
      ASSERT_EQ(one.status, 0) << one.output;
      const Written plain = written();
      const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                     quoted(write_params(text)) + " -o " + quoted(dir_ / "out.h5") +
                                     " --force --check --transport mpi " + gpu);
      ASSERT_EQ(r.status, 0) << r.output;
      const Written three = written();
      EXPECT_TRUE(same_bits(three.potential, plain.potential));
      EXPECT_TRUE(three.dx == plain.dx) << "the OpenDX maps differ";
    }
  }
}

}  // namespace
}  // namespace parasol
