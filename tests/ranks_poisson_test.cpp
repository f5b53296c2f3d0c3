// `mpirun -np N parasol run`: poisson cut into slabs of z planes among 2 and 3 ranks on the CPU
// gives the one-rank run's bits: mixed faces with a periodic z (the wrap crosses from the last
// rank to the first), a grid deep enough that two levels are cut before the rest are gathered
// onto rank 0, the singular case (the compatibility shift and the means summed across ranks),
// Chebyshev in float, a source read by planes from a file, semi-coarsened levels (an axis halving
// alone, a cut level keeping its planes, grids too thin for blocks of planes); uneven cuts
// throughout. A grid with
// fewer planes than ranks is one line from rank 0 and nothing written. With --backend gpu (ranks
// sharing a GPU where there are fewer): the plain variant on 2 and 3 ranks gives the one-rank GPU
// run's bits and passes --check against the gold, for each face kind in z (the halos and the
// wrap), rbgs and Chebyshev, float and double, FMG and V-cycles, a checkpoint and restart across
// ranks, the source made on the device (its shift, the discretisation errors and the order study
// the one rank's too); the default variant gives way to plain across ranks, and fused asked for
// by name is one line naming method.variant.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cmath>

#include "io/result_file.hpp"
#include "io/result_reader.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

using test::quoted;
using test::same_bits;
const std::string& kExe = test::kParasol;

std::string problem(int nx, int ny, int nz, const std::string& faces, const std::string& extra) {
  return "solver = \"poisson\"\n[grid]\nnx = " + std::to_string(nx) + "\nny = " +
         std::to_string(ny) + "\nnz = " + std::to_string(nz) + "\n[boundary]\n" + faces + extra;
}

// Dirichlet and Neumann in x and y, periodic in z.
const std::string kMixed =
    "x_min = { kind = \"dirichlet\", value = 0.0 }\nx_max = { kind = \"neumann\", value = 0.0 }\n"
    "y_min = { kind = \"neumann\", value = 0.0 }\ny_max = { kind = \"dirichlet\", value = 0.0 }\n"
    "z_min = { kind = \"periodic\" }\nz_max = { kind = \"periodic\" }\n";

class PoissonRanks : public test::RanksTest {
 protected:
  template <class T>
  void expect_one_rank_bits(const std::string& text, const std::vector<int>& counts) {
    const auto plain = run(0, text, "plain.h5");
    ASSERT_EQ(plain.status, 0) << plain.output;
    io::ResultReader one(dir_ / "plain.h5");
    for (const int ranks : counts) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::string out = "r" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--check");
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field<T>(out), field<T>("plain.h5")));
      io::ResultReader h5(dir_ / out);
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/method", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      // The cycle history is the whole run's, the same on every rank count.
      EXPECT_EQ(std::get<std::vector<double>>(h5.attribute("/diagnostics", "residual_l2")),
                std::get<std::vector<double>>(one.attribute("/diagnostics", "residual_l2")));
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
};

TEST_F(PoissonRanks, MixedFacesWithAPeriodicZGiveTheOneRankBits) {
  // 30 planes in 15 pairs: 8 + 7 pairs on two ranks, 5 each on three; level 1 (3600 cells) is
  // gathered onto rank 0. The 16 × 15 × 15 grid of the order study has one level, cut by plane.
  expect_one_rank_bits<double>(
      problem(32, 30, 30, kMixed, "[study]\nrefinements = 2\n[iteration]\ntolerance = 1e-10\n"),
      {2, 3});
}

TEST_F(PoissonRanks, TwoCutLevelsBeforeTheGatherGiveTheOneRankBits) {
  // 128 × 64 × 40: level 1 (40960 cells) is cut too, so the planes go in blocks of four; 10
  // blocks cut 4 + 3 + 3 among three ranks.
  expect_one_rank_bits<double>(
      problem(128, 64, 40, kMixed, "[source]\nkind = \"gaussian\"\n[iteration]\nmax_cycles = 3\n"),
      {3});
}

TEST_F(PoissonRanks, TheSingularProblemAndChebyshevInFloatGiveTheOneRankBits) {
  const std::string periodic =
      "x_min = { kind = \"periodic\" }\nx_max = { kind = \"periodic\" }\n"
      "y_min = { kind = \"neumann\", value = 0.5 }\ny_max = { kind = \"neumann\", value = 0.0 }\n"
      "z_min = { kind = \"neumann\", value = 0.0 }\nz_max = { kind = \"neumann\", value = 0.0 }\n";
  expect_one_rank_bits<double>(
      problem(16, 16, 22, periodic,
              "[source]\nkind = \"charges\"\ncharges = [[0.3, 0.5, 0.4, 1.0], [0.6, 0.4, 0.7, "
              "-0.5]]\n[iteration]\ntolerance = 1e-9\n"),
      {2, 3});
  expect_one_rank_bits<float>(
      problem(24, 16, 18, kMixed,
              "[source]\nkind = \"gaussian\"\n[method]\nsmoother = \"chebyshev\"\nprecision = "
              "\"float\"\n[iteration]\ntolerance = 0.0\nmax_cycles = 4\n"),
      {2, 3});
}

TEST_F(PoissonRanks, SemiCoarsenedLevelsGiveTheOneRankBits) {
  // 192 × 192 × 10: level 1 (96 × 96 × 5, 46080 cells) is cut, in blocks of two planes; level 2
  // (48 × 48 × 5) halves x and y alone and is gathered: its parents are on their ranks whole.
  // 5 blocks cut 3 + 2 and 2 + 2 + 1.
  const std::string extra = "[source]\nkind = \"gaussian\"\n[iteration]\nmax_cycles = 2\n";
  expect_one_rank_bits<double>(problem(192, 192, 10, kMixed, extra), {2, 3});
  // 192 × 192 × 5: z never halves, so level 1 (96 × 96 × 5) is cut where level 0 is, plane by
  // plane.
  expect_one_rank_bits<double>(problem(192, 192, 5, kMixed, extra), {3});
  // Too thin for blocks of two planes: 4 planes on 3 ranks (2 + 1 + 1), and a film of 2 planes
  // whose z goes to one cell on 2, are cut by single planes, and the restriction into level 1
  // gathers the fine planes onto rank 0 (a coarse plane's children are on two ranks).
  expect_one_rank_bits<double>(problem(8, 8, 4, kMixed, extra), {3});
  expect_one_rank_bits<double>(problem(64, 64, 2, kMixed, extra), {2});
  // A flat bar: 96 × 8 × 6 goes down to 3 × 2 × 3, y stopping at 2 cells (a Dirichlet face);
  // level 1 is gathered from blocks of two planes, 2 + 1 on two ranks.
  expect_one_rank_bits<double>(
      problem(96, 8, 6, kMixed, "[source]\nkind = \"gaussian\"\n[iteration]\ntolerance = 1e-10\n"),
      {2, 3});
}

TEST_F(PoissonRanks, ASourceFromAFileReadByEachRankGivesTheOneRankBits) {
  // Each rank reads only its planes of f (read_rows).
  std::vector<double> f(20 * 12 * 16);
  for (std::size_t c = 0; c < f.size(); ++c) f[c] = std::sin(0.37 * static_cast<double>(c));
  {
    io::ResultFile file(dir_ / "f.h5", true);
    file.write_field("/f", f.data(), {20, 12, 16});
    file.commit();
  }
  expect_one_rank_bits<double>(
      problem(16, 12, 20, kMixed, "[source]\nkind = \"file\"\nfile = \"f.h5\"\n"), {2, 3});
}

// --backend gpu: the one-rank GPU run's bits (the plain variant, whose cycles the slabs run) on
// each rank count, the whole run's cycle history, and --check's judgement against the gold.
class PoissonRanksGpu : public PoissonRanks {
 protected:
  template <class T>
  void expect_one_rank_gpu_bits(const std::string& text, const std::vector<int>& counts) {
    const auto one = run(0, text, "gpu1.h5", "--backend gpu --check");
    ASSERT_EQ(one.status, 0) << one.output;
    io::ResultReader h1(dir_ / "gpu1.h5");
    ASSERT_EQ(std::get<std::string>(h1.attribute("/provenance", "backend")), "gpu");
    for (const int ranks : counts) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks on the GPU");
      const std::string out = "gpu" + std::to_string(ranks) + ".h5";
      const auto r = run(ranks, text, out, "--backend gpu --check");
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_TRUE(same_bits(field<T>(out), field<T>("gpu1.h5")));
      io::ResultReader h5(dir_ / out);
      EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/method", "ranks")), ranks);
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true);
      for (const char* series : {"residual_max", "residual_l2", "factor"})
        EXPECT_EQ(std::get<std::vector<double>>(h5.attribute("/diagnostics", series)),
                  std::get<std::vector<double>>(h1.attribute("/diagnostics", series)))
            << series;
      // The source made on the device by each rank for its planes, its shift from the planes'
      // sums across the ranks, and the errors reduced plane by plane: the one rank's bits.
      for (const char* fact : {"source_shift", "error_max", "error_rms"}) {
        if (h1.has_attribute("/diagnostics", fact)) {
          EXPECT_EQ(std::get<double>(h5.attribute("/diagnostics", fact)),
                    std::get<double>(h1.attribute("/diagnostics", fact)))
              << fact;
        }
      }
      const char* ladder = "refinement_error_max";
      if (h1.has_attribute("/diagnostics", ladder)) {
        EXPECT_EQ(std::get<std::vector<double>>(h5.attribute("/diagnostics", ladder)),
                  std::get<std::vector<double>>(h1.attribute("/diagnostics", ladder)));
      }
      EXPECT_EQ(test::summaries(r.output), 1u) << r.output;
    }
  }
};

const std::string kPlain = "[method]\nvariant = \"plain\"\n";

TEST_F(PoissonRanksGpu, MixedFacesWithAPeriodicZGiveTheOneRankGpuBits) {
  PARASOL_REQUIRE_GPU();
  // 15 pairs of planes cut 8 + 7 and 5 + 5 + 5; the wrap goes between the first rank and the
  // last; level 1 is gathered onto every rank. FMG, then V-cycles to 1e-10, with the order study
  // (its 16 x 15 x 15 grid solved on the same ranks, cut by single planes).
  const std::string extra =
      kPlain + "[study]\nrefinements = 2\n[iteration]\ntolerance = 1e-10\n";
  expect_one_rank_gpu_bits<double>(problem(32, 30, 30, kMixed, extra), {2, 3});
  // Chebyshev in float, V-cycles only.
  expect_one_rank_gpu_bits<float>(
      problem(24, 16, 18, kMixed,
              "[source]\nkind = \"gaussian\"\n[method]\nvariant = \"plain\"\nsmoother = "
              "\"chebyshev\"\nprecision = \"float\"\ncycle = \"v\"\n[iteration]\ntolerance = "
              "0.0\nmax_cycles = 4\n"),
      {2, 3});
}

TEST_F(PoissonRanksGpu, DirichletAndNeumannZFacesAndTwoCutLevelsGiveTheOneRankGpuBits) {
  PARASOL_REQUIRE_GPU();
  // z between a Dirichlet and a Neumann face: the first and last ranks hold ghosts, not halos.
  const std::string walls =
      "x_min = { kind = \"dirichlet\", value = 0.5 }\nx_max = { kind = \"neumann\", value = 0.0 }\n"
      "y_min = { kind = \"periodic\" }\ny_max = { kind = \"periodic\" }\n"
      "z_min = { kind = \"dirichlet\", value = 1.0 }\nz_max = { kind = \"neumann\", value = -0.5 }\n";
  // 128 x 64 x 40: two cut levels, blocks of four planes cut 4 + 3 + 3 (uneven).
  for (const char* smoother : {"rbgs", "chebyshev"}) {
    SCOPED_TRACE(smoother);
    // One [method] table a file: the precision goes in it, not in a second one.
    const auto extra = [&](const std::string& precision) {
      return "[source]\nkind = \"gaussian\"\n[method]\nvariant = \"plain\"\nsmoother = \"" +
             std::string(smoother) + "\"\nprecision = \"" + precision +
             "\"\n[iteration]\nmax_cycles = 3\n";
    };
    expect_one_rank_gpu_bits<double>(problem(128, 64, 40, walls, extra("double")), {2, 3});
    expect_one_rank_gpu_bits<float>(problem(128, 64, 40, walls, extra("float")), {3});
  }
}

TEST_F(PoissonRanksGpu, TheSingularProblemAndThinGridsGiveTheOneRankGpuBits) {
  PARASOL_REQUIRE_GPU();
  // Neumann in z, periodic in x: the mean of u, summed plane by plane across ranks, is removed
  // after every cycle.
  const std::string periodic =
      "x_min = { kind = \"periodic\" }\nx_max = { kind = \"periodic\" }\n"
      "y_min = { kind = \"neumann\", value = 0.5 }\ny_max = { kind = \"neumann\", value = 0.0 }\n"
      "z_min = { kind = \"neumann\", value = 0.0 }\nz_max = { kind = \"neumann\", value = 0.0 }\n";
  expect_one_rank_gpu_bits<double>(
      problem(16, 16, 22, periodic,
              kPlain + "[source]\nkind = \"charges\"\ncharges = [[0.3, 0.5, 0.4, 1.0], [0.6, 0.4, "
                       "0.7, -0.5]]\n[iteration]\ntolerance = 1e-9\n"),
      {2, 3});
  // Semi-coarsened and thin: z kept on a cut level, cut by single planes, and an odd periodic z
  // (5 planes) whose colours meet across the wrap, smoothed in Jacobi order within a colour.
  const std::string extra = kPlain + "[source]\nkind = \"gaussian\"\n[iteration]\nmax_cycles = 2\n";
  expect_one_rank_gpu_bits<double>(problem(192, 192, 10, kMixed, extra), {2, 3});
  expect_one_rank_gpu_bits<double>(problem(192, 192, 5, kMixed, extra), {3});
  expect_one_rank_gpu_bits<double>(problem(8, 8, 4, kMixed, extra), {3});
  expect_one_rank_gpu_bits<double>(problem(64, 64, 2, kMixed, extra), {2});
}

// Two V-cycles on 2 ranks, a checkpoint, and a restart on 3 running two more: the uninterrupted
// four-cycle run's u and history (a checkpoint holds each rank's planes, whatever the cut).
TEST_F(PoissonRanksGpu, ACheckpointAcrossRanksRestartsToTheUninterruptedBits) {
  PARASOL_REQUIRE_GPU();
  const std::string text =
      problem(32, 30, 30, kMixed, kPlain + "[iteration]\ntolerance = 0.0\n");
  const auto whole = run(3, text, "whole.h5", "--backend gpu iteration.max_cycles=4");
  ASSERT_EQ(whole.status, 0) << whole.output;
  const auto first =
      run(2, text, "first.h5", "--backend gpu iteration.max_cycles=2 checkpoint.every=2");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto rest = run(3, text, "rest.h5",
                        "--backend gpu iteration.max_cycles=4 --restart " +
                            quoted(dir_ / "first.checkpoint.h5"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_TRUE(same_bits(field<double>("rest.h5"), field<double>("whole.h5")));
  io::ResultReader a(dir_ / "whole.h5"), b(dir_ / "rest.h5");
  EXPECT_EQ(std::get<std::vector<double>>(b.attribute("/diagnostics", "residual_l2")),
            std::get<std::vector<double>>(a.attribute("/diagnostics", "residual_l2")));
}

// The default variant (fused) gives way to plain across ranks, and says so in /method: the
// one-rank plain run's bits.
TEST_F(PoissonRanksGpu, TheDefaultVariantAcrossRanksRunsPlain) {
  PARASOL_REQUIRE_GPU();
  const std::string text = problem(32, 30, 30, kMixed, "[iteration]\nmax_cycles = 3\n");
  const auto one = run(0, text, "one.h5", "--backend gpu method.variant=plain");
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = run(2, text, "two.h5", "--backend gpu");
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_EQ(std::get<std::string>(io::ResultReader(dir_ / "two.h5").attribute("/method", "variant")),
            "plain");
  EXPECT_TRUE(same_bits(field<double>("two.h5"), field<double>("one.h5")));
}

TEST_F(PoissonRanksGpu, TheFusedVariantAcrossRanksIsOneLineNamingTheVariant) {
  PARASOL_REQUIRE_GPU();
  const auto r = run(2, problem(16, 16, 16, kMixed, "[method]\nvariant = \"fused\"\n"), "out.h5",
                     "--backend gpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "method.variant");
}

TEST_F(PoissonRanks, AGridTooThinForTheRanksIsOneLineFromRankZero) {
  // 2 planes cannot go round 3 ranks.
  const auto r = test::run_shell(std::string(PARASOL_TEST_MPIEXEC) + " 3 " + kExe + " run " +
                                 quoted(write_params(problem(8, 8, 2, kMixed, ""))) + " -o " +
                                 quoted(dir_ / "out.h5") + " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "grid.nz");
  test::expect_only_inputs(dir_, {"p.toml"});
}

}  // namespace
}  // namespace parasol
