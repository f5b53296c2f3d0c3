// Every coulomb variant, block shape and coarsening against the double-precision gold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/stream.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/shapes.hpp"
#include "solvers/coulomb/study.hpp"
#include "tests/support.hpp"

namespace parasol::coulomb {
namespace {

// Atoms scattered over a box larger than the lattice, so some lie outside it.
std::vector<Atom> random_atoms(int count, const Lattice& l, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto span = [&](std::int64_t n, int axis) {
    const double lo = l.origin[static_cast<std::size_t>(axis)] - 2.0;
    const double hi = l.origin[static_cast<std::size_t>(axis)] + l.spacing * static_cast<double>(n - 1) + 2.0;
    return std::uniform_real_distribution<double>(lo, hi);
  };
  auto ux = span(l.nx, 0), uy = span(l.ny, 1), uz = span(l.nz, 2);
  std::uniform_real_distribution<double> charge(-1.0, 1.0);
  std::vector<Atom> atoms(static_cast<std::size_t>(count));
  for (Atom& a : atoms)
    a = {static_cast<float>(ux(rng)), static_cast<float>(uy(rng)), static_cast<float>(uz(rng)),
         static_cast<float>(charge(rng))};
  return atoms;
}

// Float error per point, measured against the size of that point's sum (sum |k q| / r): the
// potential itself can cancel to near zero. The tolerance is the variant's (check.hpp).
void expect_agrees(const Params& p, const std::vector<Atom>& atoms, const std::vector<float>& result) {
  const GoldWithScale gold = solve_gold_with_scale(p, atoms);
  ASSERT_EQ(result.size(), gold.potential.size());
  const Agreement a = agreement(result, gold.potential, gold.scale, tolerance(p.variant));
  EXPECT_TRUE(a.passed()) << a.description << "; tolerance " << a.tolerance;
}

void expect_matches_gold(const Params& p, const std::vector<Atom>& atoms) {
  expect_agrees(p, atoms, solve_gpu(p, atoms).potential);
}

using Case = std::tuple<Variant, Shape, int>;

std::vector<Case> all_cases() {
  const std::vector<Shape> shapes = compiled_shapes();
  std::vector<Case> cases;
  for (Variant v : kVariants)
    for (const Shape& b : shapes) {
      const bool coarse = coarsens(v);
      if (v == Variant::scatter && b != Shape{32, 8, 1}) continue;  // scatter ignores the block
      for (int c : kCoarsenings)
        if (coarse || c == 1) cases.emplace_back(v, b, c);
    }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [v, b, c] = info.param;
  std::string n = std::string(name(v)) + "_" + to_string(b) + "_c" + std::to_string(c);
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

class CoulombVsGold : public ::testing::TestWithParam<Case> {
 protected:
  Params params(std::int64_t nx, std::int64_t ny, std::int64_t nz) const {
    const auto& [v, b, c] = GetParam();
    Params p;
    p.variant = v;
    p.block = b;
    p.coarsening = c;
    p.lattice = {{-1.5, 0.25, 2.0}, 0.37, nx, ny, nz};
    p.coulomb_constant = 332.0637;
    return p;
  }
};

TEST_P(CoulombVsGold, AwkwardLatticesAndRandomAtoms) {
  PARASOL_REQUIRE_GPU();
  // 37x23x5 divides by no block or coarsening; 67x45x1 is a 2D slice; 1x1x1 a single point.
  for (const auto& [nx, ny, nz] : {std::tuple<int, int, int>{37, 23, 5}, {67, 45, 1}, {1, 1, 1}}) {
    const Params p = params(nx, ny, nz);
    SCOPED_TRACE(std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz));
    expect_matches_gold(p, random_atoms(701, p.lattice, test::kSeed));
  }
}

TEST_P(CoulombVsGold, OneAtomAndTheNearAtomRule) {
  PARASOL_REQUIRE_GPU();
  Params p = params(9, 7, 3);
  // The atom sits exactly on lattice point (4, 3, 1): that point takes k q / min_distance.
  const Lattice& l = p.lattice;
  const Atom on_point{static_cast<float>(l.origin[0] + 4 * l.spacing),
                      static_cast<float>(l.origin[1] + 3 * l.spacing),
                      static_cast<float>(l.origin[2] + 1 * l.spacing), 0.5f};
  const Result r = solve_gpu(p, {on_point});
  const double expected = p.coulomb_constant * 0.5 / p.min_distance;
  EXPECT_NEAR(r.potential[static_cast<std::size_t>(4 + 9 * (3 + 7 * 1))], expected, 1e-5 * expected);
  expect_matches_gold(p, {on_point});
}

TEST_P(CoulombVsGold, MoreAtomsThanConstantMemoryHolds) {
  PARASOL_REQUIRE_GPU();
  const Params p = params(19, 11, 2);
  expect_matches_gold(p, random_atoms(9001, p.lattice, test::kSeed + 1));
}

// Launches of four tiles each (1024 x points terms): every launch after the first adds into the
// lattice, through the sum of its atom slices (these lattices are too small to fill the device).
TEST_P(CoulombVsGold, AtomsInManyLaunches) {
  PARASOL_REQUIRE_GPU();
  const auto& [v, b, c] = GetParam();
  for (const auto& [nx, ny, nz] : {std::tuple<int, int, int>{37, 23, 5}, {5, 3, 2}}) {
    const Params p = params(nx, ny, nz);
    SCOPED_TRACE(std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz));
    const std::vector<Atom> atoms = random_atoms(4100, p.lattice, test::kSeed + 4);
    Stream stream;
    DeviceProblem problem(p, atoms, stream, 1024.0 * static_cast<double>(p.lattice.points()));
    problem.poison();
    std::vector<Progress> reports;
    problem.run(v, b, c, [&](const Progress& pr) { reports.push_back(pr); });
    expect_agrees(p, atoms, problem.download());
    // gather and gather-coarse launch constant memory's 4000 atoms at a time.
    const std::size_t launches = v == Variant::gather || v == Variant::gather_coarse ? 2 : 5;
    ASSERT_EQ(reports.size(), launches) << "a launch behind, then the end";
    EXPECT_EQ(reports.back().done, 4100);
    EXPECT_EQ(reports.back().total, 4100);
  }
}

INSTANTIATE_TEST_SUITE_P(All, CoulombVsGold, ::testing::ValuesIn(all_cases()), case_name);

TEST(CoulombGpu, OneUploadRunsEveryVariantAsASolveDoes) {
  PARASOL_REQUIRE_GPU();
  Params p;
  p.lattice = {{-1.5, 0.25, 2.0}, 0.37, 37, 23, 5};
  const std::vector<Atom> atoms = random_atoms(5000, p.lattice, test::kSeed + 5);
  Stream stream;
  DeviceProblem problem(p, atoms, stream);
  EXPECT_EQ(problem.atom_count(), 5000);
  for (Variant v : kVariants) {
    if (v == Variant::scatter) continue;  // its atomics land in any order: not the same bits
    for (int c : {1, 4}) {
      p.variant = v;
      p.coarsening = c;
      problem.poison();
      problem.run(v, p.block, c);
      const std::vector<float> once = problem.download();
      SCOPED_TRACE(std::string(name(v)) + " c" + std::to_string(c));
      EXPECT_EQ(std::memcmp(once.data(), solve_gpu(p, atoms).potential.data(),
                            once.size() * sizeof(float)),
                0);
      problem.run(v, p.block, c);  // again, over the last result
      EXPECT_EQ(std::memcmp(once.data(), problem.download().data(), once.size() * sizeof(float)), 0);
    }
  }
}

TEST(CoulombGpu, AtomSlicesGiveTheSameBitsEveryRun) {
  PARASOL_REQUIRE_GPU();
  // A small lattice with many atoms is summed in atom slices, added after in a fixed order.
  for (Variant v : {Variant::gather_shared, Variant::gather_hybrid}) {
    Params p;
    p.variant = v;
    p.lattice = {{0, 0, 0}, 0.5, 29, 13, 3};
    const std::vector<Atom> atoms = random_atoms(5000, p.lattice, test::kSeed + 3);
    const Result first = solve_gpu(p, atoms);
    for (int run = 0; run < 3; ++run) {
      const Result again = solve_gpu(p, atoms);
      ASSERT_EQ(std::memcmp(first.potential.data(), again.potential.data(),
                            first.potential.size() * sizeof(float)),
                0)
          << name(v) << " run " << run;
    }
  }
}

// A rank's part (planes of a volume, rows of a slice, cut where the row pairs of gather-hybrid
// fall apart) gives the whole lattice's bits at its points: positions from the whole lattice's
// indices, atom slices and launches planned for the whole lattice.
TEST(CoulombGpu, EveryPartGivesTheWholeLatticesBits) {
  PARASOL_REQUIRE_GPU();
  for (Variant v : kVariants) {
    if (v == Variant::scatter) continue;  // its atomics land in any order: not the same bits
    for (const Lattice& l : {Lattice{{-1.5, 0.25, 2.0}, 0.37, 70, 9, 13},
                             Lattice{{0.5, -0.75, 1.0}, 0.29, 40, 37, 1}}) {
      Params p;
      p.variant = v;
      p.lattice = l;
      const std::vector<Atom> atoms = random_atoms(600, p.lattice, test::kSeed + 6);
      const std::vector<float> whole = solve_gpu(p, atoms).potential;
      for (int ranks = 2; ranks <= 4; ++ranks)
        for (int rank = 0; rank < ranks; ++rank) {
          SCOPED_TRACE(std::string(name(v)) + " nz " + std::to_string(l.nz) + ", rank " +
                       std::to_string(rank) + " of " + std::to_string(ranks));
          const Part part = rank_part(p.lattice, rank, ranks);
          const std::vector<float> mine = solve_gpu(p, atoms, part).potential;
          ASSERT_EQ(mine.size(), static_cast<std::size_t>(part.points()));
          EXPECT_EQ(std::memcmp(mine.data(), whole.data() + part.first_point(p.lattice),
                                mine.size() * sizeof(float)),
                    0);
        }
    }
  }
}

TEST(CoulombGpu, LatticesPastTheGridLimitsInYAndZ) {
  PARASOL_REQUIRE_GPU();
  for (Variant v : {Variant::gather, Variant::gather_coarse, Variant::gather_shared, Variant::gather_hybrid}) {
    for (const auto& [ny, nz] : {std::pair<std::int64_t, std::int64_t>{300001, 1}, {1, 70001}}) {
      Params p;
      p.variant = v;
      p.block = {128, 2, 1};
      // Spacing 1e-4 keeps the lattice tens of Å long: float coordinates resolve 1e-7 of it.
      p.lattice = {{0, 0, 0}, 1e-4, 3, ny, nz};
      SCOPED_TRACE(std::string(name(v)) + " ny " + std::to_string(ny) + " nz " + std::to_string(nz));
      expect_matches_gold(p, random_atoms(40, p.lattice, test::kSeed + 2));
    }
  }
}

TEST(CoulombGpu, HybridSoftwareRsqrtIsAccurate) {
  PARASOL_REQUIRE_GPU();
  // One atom per point pattern probes the software square root over a wide range of distances:
  // a lattice 0.01 to 60 Å from a single unit charge, every term compared with the gold.
  for (int coarsening : kCoarsenings) {
    Params p;
    p.variant = Variant::gather_hybrid;
    p.coarsening = coarsening;
    p.lattice = {{0.013, 0.0, 0.0}, 0.25, 240, 3, 2};
    p.min_distance = 0.01;
    const Atom atom{0.0f, 0.0f, 0.0f, 1.0f};
    const Result r = solve_gpu(p, {atom});
    const std::vector<double> gold = solve_gold(p, {atom});
    double worst = 0;
    for (std::size_t c = 0; c < gold.size(); ++c)
      worst = std::max(worst, std::abs(double(r.potential[c]) - gold[c]) / std::abs(gold[c]));
    EXPECT_LT(worst, 1e-6) << "coarsening " << coarsening;
  }
}

TEST(CoulombGpu, RsqrtThroughputIsMeasured) {
  PARASOL_REQUIRE_GPU();
  const double rate = measure_rsqrt_throughput();
  EXPECT_GT(rate, 1e11);  // any recent GPU exceeds 100 G rsqrt/s
  EXPECT_LT(rate, 1e14);
}

// A sweep's problem on the device: the atoms uploaded once, each configuration measured by the
// sweep-row protocol against the gold at the sampled rows.
TEST(CoulombGpu, ASweptLatticeMeasuresEveryConfigurationAgainstItsRows) {
  PARASOL_REQUIRE_GPU();
  test::ScratchDir dir;
  Params p;
  p.lattice = {{-1.5, 0.25, 2.0}, 0.37, 37, 23, 5};
  p.atoms_file = (dir / "atoms.pqr").string();
  {
    std::ofstream out(p.atoms_file);
    for (const Atom& a : random_atoms(300, p.lattice, test::kSeed + 7))
      out << "ATOM      1  C   GLY     1 " << a.x << ' ' << a.y << ' ' << a.z << ' ' << a.q
          << " 1.5\n";
  }
  SweptLattice lattice(p);
  ASSERT_EQ(lattice.atom_count(), 300);
  Stream stream;
  lattice.prepare(stream);
  EXPECT_GT(lattice.rsqrt_per_second(), 1e11);
  for (std::size_t i = 0; i < lattice.configurations().size(); ++i) {
    ASSERT_EQ(lattice.skipped(i), "") << "300 atoms are far from scatter's limit";
    const RowOutcome row = lattice.measure(i, Repeats{2, 0});
    SCOPED_TRACE(describe_method(lattice.configurations()[i]));
    EXPECT_TRUE(row.failure.empty()) << row.failure;
    EXPECT_TRUE(row.agreement.passed()) << row.agreement.description;
    EXPECT_GE(row.seconds.size(), 2u);
  }
}

}  // namespace
}  // namespace parasol::coulomb
