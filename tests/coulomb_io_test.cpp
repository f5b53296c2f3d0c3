// coulomb on the CPU: reading atoms (PQR, XYZ) and its errors, the OpenDX writer, the gold solver
// against hand values, the parameter checks, the sweep's methods, and a run's steps across ranks
// as one rank takes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/dx.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/ranks.hpp"
#include "solvers/coulomb/shapes.hpp"
#include "solvers/coulomb/study.hpp"
#include "solvers/coulomb/summary.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using coulomb::Atom;
using coulomb::AtomFormat;
using coulomb::Params;

using test::contains;

class CoulombAtoms : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }
  // The InputError reading `text` gives: its source (file:line) and what it says.
  InputError error_for(const std::string& name, const std::string& text, AtomFormat format) {
    const auto path = write(name, text);
    try {
      coulomb::read_atoms(path, format);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return InputError("", "", "");
  }
  void expect_error(const std::string& text, AtomFormat format, int line, const std::string& part) {
    const std::string name = format == AtomFormat::pqr ? "bad.pqr" : "bad.xyz";
    const InputError e = error_for(name, text, format);
    EXPECT_EQ(e.source(), (dir_ / name).string() + ":" + std::to_string(line)) << text;
    EXPECT_TRUE(contains(e.expected(), part)) << e.what();
  }
  test::ScratchDir dir_;
};

void expect_atom(const Atom& a, float x, float y, float z, float q) {
  EXPECT_EQ(a.x, x);
  EXPECT_EQ(a.y, y);
  EXPECT_EQ(a.z, z);
  EXPECT_EQ(a.q, q);
}

TEST_F(CoulombAtoms, ReadsPqrWithAndWithoutChainsSkippingOtherRecords) {
  const auto path = write("m.pqr",
                          "REMARK   1 a test molecule\n"
                          "CRYST1    1.000    1.000    1.000  90.00  90.00  90.00 P 1\n"
                          "ATOM      1  N   GLY     1      21.421   3.562  16.781   0.294   1.821\n"
                          "ATOM      2  CA  GLY A   1     -22.848   3.896  16.606  -0.010   1.904\n"
                          "\n"
                          "TER\n"
                          "HETATM    3  S   DMS B 108      18.069  17.960  18.670   0.139   2.000\n"
                          "HETATM    4  O   DMS   108       1e1     -2      0.5    -0.459   1.48\r\n"
                          "END\n");
  const std::vector<Atom> atoms = coulomb::read_atoms(path, AtomFormat::pqr);
  ASSERT_EQ(atoms.size(), 4u);
  expect_atom(atoms[0], 21.421f, 3.562f, 16.781f, 0.294f);
  expect_atom(atoms[1], -22.848f, 3.896f, 16.606f, -0.010f);
  expect_atom(atoms[2], 18.069f, 17.960f, 18.670f, 0.139f);
  expect_atom(atoms[3], 10.0f, -2.0f, 0.5f, -0.459f);
}

TEST_F(CoulombAtoms, ReadsTheShippedMolecule) {
  const auto atoms = coulomb::read_atoms(
      std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs/fkbp-dmso.pqr", AtomFormat::pqr);
  EXPECT_EQ(atoms.size(), 1673u);
  double q = 0;
  for (const Atom& a : atoms) q += a.q;
  EXPECT_NEAR(q, 0.991, 1e-4) << "the sum of the file's charge column";
}

TEST_F(CoulombAtoms, MalformedPqrLinesNameTheirLine) {
  const std::string good = "ATOM      1  N   GLY     1      21.421   3.562  16.781   0.294   1.821\n";
  expect_error("REMARK x\n" + good + "ATOM      2  CA  GLY     1      22.848   3.896  16.606\n",
               AtomFormat::pqr, 3, "expected at least 10 fields");
  expect_error(good + "ATOM      2  CA  GLY     1      22.8x8   3.896  16.606  -0.010   1.904\n",
               AtomFormat::pqr, 2, "x coordinate, got \"22.8x8\"");
  expect_error(good + good + "HETATM    3  S   DMS   108      18.069  17.960  18.670   abc   2.0\n",
               AtomFormat::pqr, 3, "charge, got \"abc\"");
  expect_error("ATOM      1  N   GLY     1      21.421   nan  16.781   0.294   1.821\n",
               AtomFormat::pqr, 1, "finite number for the y coordinate, got \"nan\"");
  expect_error("ATOM      1  N   GLY     1      21.421   3.5  16.781   0.294   1e999\n",
               AtomFormat::pqr, 1, "finite number for the radius, got \"1e999\"");
  expect_error("ATOM 1 N GLY A B C 1 21.421 3.5 16.781 0.294 1.8\n", AtomFormat::pqr, 1,
               "at most 11 fields");
}

TEST_F(CoulombAtoms, EmptyAndMissingFilesAreInputErrors) {
  const InputError none = error_for("none.pqr", "REMARK nothing here\nTER\nEND\n", AtomFormat::pqr);
  EXPECT_EQ(none.source(), (dir_ / "none.pqr").string());
  EXPECT_TRUE(contains(none.expected(), "no atoms")) << none.what();
  try {
    coulomb::read_atoms(dir_ / "absent.pqr", AtomFormat::pqr);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), (dir_ / "absent.pqr").string());
    EXPECT_TRUE(contains(e.expected(), "not found")) << e.what();
  }
}

TEST_F(CoulombAtoms, ReadsXyz) {
  const auto path = write("w.xyz", "\n3\nwater, charges in e\nO 0 0 0 -0.834\n"
                                   "H 0.9572 0 0 0.417\nH -0.24 0.927 0 0.417\n\n");
  const auto atoms = coulomb::read_atoms(path, AtomFormat::xyz);
  ASSERT_EQ(atoms.size(), 3u);
  expect_atom(atoms[0], 0, 0, 0, -0.834f);
  expect_atom(atoms[1], 0.9572f, 0, 0, 0.417f);
  expect_atom(atoms[2], -0.24f, 0.927f, 0, 0.417f);
}

TEST_F(CoulombAtoms, MalformedXyzNamesTheLine) {
  expect_error("3\nc\nO 0 0 0 -0.8\nH 1 0 0 0.4\n", AtomFormat::xyz, 4,
               "says 3 atoms, but the file has 2");
  expect_error("1\nc\nO 0 0 0 -0.8\nH 1 0 0 0.4\n", AtomFormat::xyz, 4,
               "says 1 atoms, but more follow: \"H 1 0 0 0.4\"");
  expect_error("2\nc\nO 0 0 0 -0.8\nH 1 0 0x 0.4\n", AtomFormat::xyz, 4,
               "z coordinate, got \"0x\"");
  expect_error("2\nc\nO 0 0 0 -0.8\nH 1 0 0\n", AtomFormat::xyz, 4, "expected 5 fields");
  expect_error("three\nc\n", AtomFormat::xyz, 1, "number of atoms (an integer >= 0), got \"three\"");
  expect_error("", AtomFormat::xyz, 0, "the file is empty");
  const InputError none = error_for("none.xyz", "0\nnothing\n", AtomFormat::xyz);
  EXPECT_TRUE(contains(none.expected(), "no atoms")) << none.what();
}

TEST(CoulombAtomsFile, FormatFromTheExtensionInAnyCase) {
  EXPECT_EQ(coulomb::format_from_extension("data/m.pqr"), AtomFormat::pqr);
  EXPECT_EQ(coulomb::format_from_extension("M.PQR"), AtomFormat::pqr);
  EXPECT_EQ(coulomb::format_from_extension("water.Xyz"), AtomFormat::xyz);
  EXPECT_EQ(coulomb::format_from_extension("m.pdb"), std::nullopt);
  EXPECT_EQ(coulomb::format_from_extension("pqr"), std::nullopt) << "a name, not an extension";
}

TEST(CoulombAtomsFile, TotalChargeSumsInDouble) {
  EXPECT_EQ(coulomb::total_charge({}), 0.0);
  // 1e8 and -1e8 cancel exactly; 0.25 survives only if the sum is not rounded to float first.
  const std::vector<Atom> atoms{{0, 0, 0, 1e8f}, {1, 0, 0, 0.25f}, {2, 0, 0, -1e8f}};
  EXPECT_EQ(coulomb::total_charge(atoms), 0.25);
}

TEST(CoulombDx, WritesApbsLayoutWithZFastest) {
  // 2x3x4, value 100 i + 10 j + k at (i, j, k): the order of the data lines shows the transpose.
  io::DxGrid grid{{1.5, -2, 0.25}, 0.5, 2, 3, 4};
  std::vector<float> v(24);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) v[static_cast<std::size_t>(i + 2 * (j + 3 * k))] = float(100 * i + 10 * j + k);
  test::ScratchDir dir;
  io::write_dx(dir / "m.dx", grid, v.data(), "two\nlines");
  std::ifstream in(dir / "m.dx");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u + 7u + 8u + 5u);
  EXPECT_EQ(lines[0], "# two");
  EXPECT_EQ(lines[1], "# lines");
  EXPECT_EQ(lines[2], "object 1 class gridpositions counts 2 3 4");
  EXPECT_EQ(lines[3], "origin 1.500000e+00 -2.000000e+00 2.500000e-01");
  EXPECT_EQ(lines[4], "delta 5.000000e-01 0.000000e+00 0.000000e+00");
  EXPECT_EQ(lines[5], "delta 0.000000e+00 5.000000e-01 0.000000e+00");
  EXPECT_EQ(lines[6], "delta 0.000000e+00 0.000000e+00 5.000000e-01");
  EXPECT_EQ(lines[7], "object 2 class gridconnections counts 2 3 4");
  EXPECT_EQ(lines[8], "object 3 class array type double rank 0 items 24 data follows");
  std::vector<double> data;
  for (std::size_t l = 9; l < 17; ++l) {
    std::istringstream fields(lines[l]);
    int count = 0;
    for (double x; fields >> x; ++count) data.push_back(x);
    EXPECT_EQ(count, 3) << lines[l];
  }
  std::size_t n = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(data[n++], 100 * i + 10 * j + k) << i << j << k;
  EXPECT_EQ(lines[9], "0.000000e+00 1.000000e+00 2.000000e+00");
  EXPECT_EQ(lines[17], "attribute \"dep\" string \"positions\"");
  EXPECT_EQ(lines[18], "object \"regular positions regular connections\" class field");
  EXPECT_EQ(lines[19], "component \"positions\" value 1");
  EXPECT_EQ(lines[20], "component \"connections\" value 2");
  EXPECT_EQ(lines[21], "component \"data\" value 3");
}

TEST(CoulombDx, ShortLastLine) {
  io::DxGrid grid{{0, 0, 0}, 1, 1, 1, 4};
  const std::vector<float> v{1, 2, 3, 4};
  const std::string text = io::dx_text(grid, v.data(), "");
  EXPECT_TRUE(contains(text, "data follows\n1.000000e+00 2.000000e+00 3.000000e+00\n"
                             "4.000000e+00\nattribute")) << text;
}

Params lattice_params(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  Params p;
  p.lattice.origin = {-1, 0.5, 2};
  p.lattice.spacing = 0.5;
  p.lattice.nx = nx;
  p.lattice.ny = ny;
  p.lattice.nz = nz;
  p.coulomb_constant = 1.5;
  p.min_distance = 0.1;
  p.atoms_file = "unused.pqr";
  return p;
}

std::size_t at(const Params& p, std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<std::size_t>(i + p.lattice.nx * (j + p.lattice.ny * k));
}

TEST(CoulombGold, OneAtomGivesKqOverR) {
  const Params p = lattice_params(5, 4, 3);
  const std::vector<Atom> atoms{{0.25f, 1.0f, 2.5f, -2.0f}};
  const std::vector<double> v = coulomb::solve_gold(p, atoms);
  ASSERT_EQ(v.size(), 60u);
  // Point (0, 0, 0) is (-1, 0.5, 2): distance sqrt(1.25^2 + 0.5^2 + 0.5^2) = sqrt(2.0625).
  EXPECT_NEAR(v[at(p, 0, 0, 0)], 1.5 * -2.0 / std::sqrt(2.0625), 1e-12);
  // Point (4, 3, 2) is (1, 2, 3): distance sqrt(0.75^2 + 1 + 0.5^2) = sqrt(1.8125).
  EXPECT_NEAR(v[at(p, 4, 3, 2)], 1.5 * -2.0 / std::sqrt(1.8125), 1e-12);
  // Point (2, 1, 1) is (0, 1, 2.5): distance 0.25.
  EXPECT_NEAR(v[at(p, 2, 1, 1)], 1.5 * -2.0 / 0.25, 1e-12);
  const std::vector<double> scale = coulomb::magnitude_scale(p, atoms);
  for (std::size_t n = 0; n < v.size(); ++n) EXPECT_NEAR(scale[n], -v[n], 1e-12);
}

TEST(CoulombGold, APointOnAnAtomTakesItsTermAtMinDistance) {
  const Params p = lattice_params(4, 4, 1);  // a 2D slice, z = 2
  // (0.5, 1.5, 2) is lattice point (3, 2, 0); the second atom is 0.05 away from point (1, 1, 0).
  const std::vector<Atom> atoms{{0.5f, 1.5f, 2.0f, 3.0f}};
  const std::vector<double> v = coulomb::solve_gold(p, atoms);
  EXPECT_DOUBLE_EQ(v[at(p, 3, 2, 0)], 1.5 * 3.0 / 0.1);
  const std::vector<Atom> near{{-0.5f, 1.0f, 2.05f, 1.0f}};
  EXPECT_NEAR(coulomb::solve_gold(p, near)[at(p, 1, 1, 0)], 1.5 / 0.1, 1e-12);
  EXPECT_NEAR(coulomb::solve_gold(p, near)[at(p, 0, 1, 0)], 1.5 / std::hypot(0.5, 0.05), 1e-5);
}

TEST(CoulombGold, IsLinearInTheAtoms) {
  const Params p = lattice_params(7, 5, 3);
  std::mt19937_64 rng(test::kSeed);
  SCOPED_TRACE(test::kSeed);
  std::uniform_real_distribution<float> position(-1.0f, 3.0f), charge(-1.0f, 1.0f);
  const Atom a{position(rng), position(rng), position(rng), charge(rng)};
  const Atom b{position(rng), position(rng), position(rng), charge(rng)};
  const auto va = coulomb::solve_gold(p, {a});
  const auto vb = coulomb::solve_gold(p, {b});
  const auto vab = coulomb::solve_gold(p, {a, b});
  const auto sa = coulomb::magnitude_scale(p, {a});
  const auto sb = coulomb::magnitude_scale(p, {b});
  const auto sab = coulomb::magnitude_scale(p, {a, b});
  for (std::size_t n = 0; n < vab.size(); ++n) {
    EXPECT_NEAR(vab[n], va[n] + vb[n], 1e-12 * sab[n]) << n;
    EXPECT_NEAR(sab[n], sa[n] + sb[n], 1e-12 * sab[n]) << n;
  }
}

TEST(CoulombGold, WithScaleIsBothInOnePass) {
  const Params p = lattice_params(9, 6, 4);
  std::mt19937_64 rng(test::kSeed);
  SCOPED_TRACE(test::kSeed);
  std::uniform_real_distribution<float> position(-1.0f, 4.0f), charge(-1.0f, 1.0f);
  std::vector<Atom> atoms(50);
  for (Atom& a : atoms) a = {position(rng), position(rng), position(rng), charge(rng)};
  const coulomb::GoldWithScale both = coulomb::solve_gold_with_scale(p, atoms);
  EXPECT_EQ(both.potential, coulomb::solve_gold(p, atoms)) << "the same sums, the same bits";
  EXPECT_EQ(both.scale, coulomb::magnitude_scale(p, atoms));
  for (std::size_t n = 0; n < both.scale.size(); ++n)
    EXPECT_LE(std::abs(both.potential[n]), both.scale[n] * (1 + 1e-15)) << n;
}

TEST(CoulombGold, ReportsProgressBandByBandUpToEveryPoint) {
  // 2^26 terms a band: 1024 atoms on rows of 1024 points make a band 64 rows, or four rows a
  // thread if that is more. One row more than a band is two bands.
  const std::int64_t band = std::max(64, 4 * cpu_threads());
  Params p = lattice_params(1024, band + 1, 1);
  p.lattice.spacing = 0.01;
  const std::vector<Atom> atoms(1024, Atom{0.5f, 0.5f, 3.0f, 0.25f});
  std::vector<coulomb::Progress> reports;
  const std::vector<double> v =
      coulomb::solve_gold(p, atoms, [&](const coulomb::Progress& pr) { reports.push_back(pr); });
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].done, band * 1024);
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GT(reports[i].done, reports[i - 1].done);
    EXPECT_EQ(reports[i].done % 1024, 0) << "whole rows";
  }
  EXPECT_EQ(reports.back().done, p.lattice.points());
  EXPECT_EQ(reports.back().total, p.lattice.points());
  EXPECT_EQ(v, coulomb::solve_gold(p, atoms)) << "progress changes nothing";
}

TEST(CoulombPart, RanksCutPlanesOrRowsEvenlyInOneRunEach) {
  // 11 planes among 4 ranks: 3, 3, 3, 2, one after the other, each a run of the lattice's order.
  const Params p = lattice_params(7, 5, 11);
  std::int64_t next = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const coulomb::Part part = coulomb::rank_part(p.lattice, rank, 4);
    EXPECT_EQ(part.nz, rank < 3 ? 3 : 2);
    EXPECT_EQ(part.k_first, 3 * rank);
    EXPECT_EQ(part.ny, 5);
    EXPECT_EQ(part.first_point(p.lattice), next);
    next += part.points();
  }
  EXPECT_EQ(next, p.lattice.points());
  // A 2D slice is cut in rows: 7 among 3 ranks, 3, 2, 2.
  const Params slice = lattice_params(9, 7, 1);
  const coulomb::Part last = coulomb::rank_part(slice.lattice, 2, 3);
  EXPECT_EQ(last.j_first, 5);
  EXPECT_EQ(last.ny, 2);
  EXPECT_EQ(last.nz, 1);
  EXPECT_EQ(last.first_point(slice.lattice), 45);
}

TEST(CoulombPart, MoreRanksThanPlanesOrRowsNamesTheKey) {
  const auto key = [](const Params& p, int ranks) {
    try {
      (void)coulomb::rank_part(p.lattice, 0, ranks);
    } catch (const InputError& e) {
      return e.key();
    }
    return std::string();
  };
  EXPECT_EQ(key(lattice_params(5, 4, 3), 3), "");
  EXPECT_EQ(key(lattice_params(5, 4, 3), 4), "lattice.nz");
  EXPECT_EQ(key(lattice_params(5, 4, 1), 5), "lattice.ny");
}

TEST(CoulombGold, EveryPartGivesTheWholeLatticesBitsAtItsPoints) {
  std::mt19937_64 rng(test::kSeed);
  SCOPED_TRACE(test::kSeed);
  std::uniform_real_distribution<float> position(-1.0f, 4.0f), charge(-1.0f, 1.0f);
  std::vector<Atom> atoms(40);
  for (Atom& a : atoms) a = {position(rng), position(rng), position(rng), charge(rng)};
  for (const Params& p : {lattice_params(7, 5, 11), lattice_params(9, 7, 1)}) {
    const coulomb::GoldWithScale whole = coulomb::solve_gold_with_scale(p, atoms);
    for (int ranks = 1; ranks <= 4; ++ranks)
      for (int rank = 0; rank < ranks; ++rank) {
        const coulomb::Part part = coulomb::rank_part(p.lattice, rank, ranks);
        const auto first = whole.potential.begin() + part.first_point(p.lattice);
        const std::vector<double> expected(first, first + part.points());
        EXPECT_EQ(coulomb::solve_gold(p, atoms, part), expected) << rank << " of " << ranks;
        EXPECT_EQ(coulomb::solve_gold_with_scale(p, atoms, part).potential, expected);
      }
  }
}

TEST(CoulombCheck, MeasuresEachPointAgainstItsScale) {
  // Point 1 cancels to 0: its error of 1e-6 is measured against its scale of 1, not against 0.
  const std::vector<double> gold{2.0, 0.0, -4.0}, scale{2.0, 1.0, 4.0};
  const std::vector<float> result{2.0f, 1e-6f, -4.0f};
  const Agreement a = coulomb::agreement(result, gold, scale, coulomb::tolerance(coulomb::Variant::gather));
  EXPECT_EQ(a.measure, "max_relative_to_scale");
  EXPECT_NEAR(a.value, 1e-6, 1e-12);
  EXPECT_TRUE(a.passed());
  EXPECT_EQ(a.values[0].first, "max_abs_difference");
  const std::vector<float> off{2.0f, 0.0f, -4.0001f};  // 2.5e-5 of its scale
  EXPECT_FALSE(coulomb::agreement(off, gold, scale, coulomb::tolerance(coulomb::Variant::gather)).passed());
  EXPECT_TRUE(coulomb::agreement(off, gold, scale, coulomb::tolerance(coulomb::Variant::scatter)).passed());
  const std::vector<float> nan{2.0f, NAN, -4.0f};
  EXPECT_FALSE(coulomb::agreement(nan, gold, scale, 1.0).passed()) << "NaN never agrees";
}

TEST(CoulombCheck, TheGoldRoundedToFloatAgreesWithItself) {
  const Params p = lattice_params(7, 5, 3);
  const std::vector<Atom> atoms{{0.25f, 1.0f, 2.5f, -2.0f}, {1.0f, 0.0f, 3.0f, 1.7f}};
  const coulomb::GoldWithScale gold = coulomb::solve_gold_with_scale(p, atoms);
  const std::vector<float> rounded(gold.potential.begin(), gold.potential.end());
  EXPECT_TRUE(coulomb::agreement(rounded, gold.potential, gold.scale,
                                 coulomb::kRoundedGoldTolerance).passed());
}

// The key validate() names for `p`, or "" when it accepts it.
std::string rejected_key(const Params& p) {
  try {
    p.validate();
  } catch (const InputError& e) {
    return e.key();
  }
  return "";
}

TEST(CoulombParams, ValidateNamesTheKey) {
  const Params good = lattice_params(8, 8, 1);
  EXPECT_EQ(rejected_key(good), "");
  auto with = [&](auto change) {
    Params p = good;
    change(p);
    return rejected_key(p);
  };
  EXPECT_EQ(with([](Params& p) { p.lattice.nx = 0; }), "lattice.nx");
  EXPECT_EQ(with([](Params& p) { p.lattice.ny = -3; }), "lattice.ny");
  EXPECT_EQ(with([](Params& p) { p.lattice.nz = 0; }), "lattice.nz");
  EXPECT_EQ(with([](Params& p) { p.lattice.nx = p.lattice.ny = p.lattice.nz = 1 << 14; }),
            "lattice");
  EXPECT_EQ(with([](Params& p) { p.lattice.nx = p.lattice.ny = std::int64_t(1) << 40; }), "lattice");
  EXPECT_EQ(with([](Params& p) { p.lattice.spacing = 0; }), "lattice.spacing");
  EXPECT_EQ(with([](Params& p) { p.lattice.spacing = INFINITY; }), "lattice.spacing");
  EXPECT_EQ(with([](Params& p) { p.lattice.origin[2] = NAN; }), "lattice.origin");
  EXPECT_EQ(with([](Params& p) { p.atoms_file.clear(); }), "atoms.file");
  EXPECT_EQ(with([](Params& p) { p.coulomb_constant = NAN; }), "physics.coulomb_constant");
  EXPECT_EQ(with([](Params& p) { p.min_distance = 0; }), "physics.min_distance");
  EXPECT_EQ(with([](Params& p) { p.coarsening = 3; }), "method.coarsening");
  EXPECT_EQ(with([](Params& p) { p.block = {32, 4, 2}; }), "method.block");
  EXPECT_EQ(with([](Params& p) { p.block = {48, 4, 1}; }), "method.block");
  EXPECT_EQ(with([](Params& p) { p.block = {8, 16, 1}; }), "method.block");
  EXPECT_EQ(with([](Params& p) { p.block = {32, 64, 1}; }), "method.block");
  EXPECT_EQ(with([](Params& p) { p.block = {256, 1, 1}; }), "method.block") << "not compiled";
  for (const Shape b : coulomb::compiled_shapes())
    EXPECT_EQ(with([&](Params& p) { p.block = b; }), "") << to_string(b);
  for (int c : coulomb::kCoarsenings) EXPECT_EQ(with([&](Params& p) { p.coarsening = c; }), "");
}

TEST(CoulombPlacement, TheBoxsCentreAndAMarginRoundedUpToWholeSpacings) {
  Params p = lattice_params(5, 4, 1);
  p.center = coulomb::LatticeCenter::molecule;
  const coulomb::Box box{{-1.0, 2.0, 3.0}, {2.0, 2.3, 3.0}};
  // No margin: the points as given, centred; the slice passes through the box's middle in z.
  Params given = coulomb::placed(p, box);
  EXPECT_EQ(coulomb::extent(given.lattice), "5x4x1");
  EXPECT_DOUBLE_EQ(given.lattice.origin[0], 0.5 - 0.5 * p.lattice.spacing * 4);
  EXPECT_DOUBLE_EQ(given.lattice.origin[1], 2.15 - 0.5 * p.lattice.spacing * 3);
  EXPECT_DOUBLE_EQ(given.lattice.origin[2], 3.0);
  // Margin 0 at spacing 0.5: x spans exactly 6 spacings (7 points, not 8 by rounding), y's 0.3
  // rounds up to one spacing, z's flat box is one point.
  p.lattice.spacing = 0.5;
  p.margin = 0.0;
  Params tight = coulomb::placed(p, box);
  EXPECT_EQ(coulomb::extent(tight.lattice), "7x2x1");
  EXPECT_DOUBLE_EQ(tight.lattice.origin[0], -1.0);
  EXPECT_DOUBLE_EQ(tight.lattice.origin[1], 2.15 - 0.25);
  EXPECT_DOUBLE_EQ(tight.lattice.origin[2], 3.0);
  // The far corner covers the box plus the margin on every side.
  p.margin = 1.25;
  const coulomb::Lattice n = coulomb::placed(p, box).lattice;
  const std::int64_t points[3] = {n.nx, n.ny, n.nz};
  for (int a = 0; a < 3; ++a) {
    EXPECT_LE(n.origin[a], box.low[a] - 1.25 + 1e-12) << a;
    EXPECT_GE(n.origin[a] + n.spacing * static_cast<double>(points[a] - 1),
              box.high[a] + 1.25 - 1e-12) << a;
  }
  // lattice.center = "origin" leaves the lattice as given.
  p.center = coulomb::LatticeCenter::origin;
  EXPECT_EQ(coulomb::extent(coulomb::placed(p, box).lattice), "5x4x1");
  // A margin that asks for more points than a lattice may have names lattice.margin.
  p.center = coulomb::LatticeCenter::molecule;
  p.margin = 1e30;
  try {
    coulomb::placed(p, box);
    ADD_FAILURE() << "placed a lattice of more than 2^40 points";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "lattice.margin") << e.what();
  }
}

TEST(CoulombPlacement, TheBoundingBoxIsTheLowestAndHighestOfEachCoordinate) {
  const std::vector<Atom> atoms{{1, -2, 3, 0.5f}, {-4, 5, 0.5f, -1}, {2, 0, -6, 0}};
  const coulomb::Box box = coulomb::bounding_box(atoms);
  EXPECT_EQ(box.low, (std::array<double, 3>{-4, -2, -6}));
  EXPECT_EQ(box.high, (std::array<double, 3>{2, 5, 3}));
  EXPECT_THROW(coulomb::bounding_box({}), Error);
}

TEST(CoulombParams, NamesConvertBothWays) {
  for (coulomb::Variant v : coulomb::kVariants) EXPECT_EQ(coulomb::parse_variant(name(v)), v);
  EXPECT_EQ(name(coulomb::Variant::gather_coarse), "gather-coarse");
  EXPECT_EQ(coulomb::parse_atom_format("xyz"), AtomFormat::xyz);
  try {
    coulomb::parse_variant("gather_shared");
    ADD_FAILURE() << "accepted gather_shared";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.expected(), "\"gather-shared\"")) << e.what();
  }
}

TEST(CoulombParams, ExtentAndMethodInWords) {
  Params p = lattice_params(7, 5, 11);
  EXPECT_EQ(coulomb::extent(p.lattice), "7x5x11");
  p.variant = coulomb::Variant::gather_coarse;
  p.block = {32, 8, 1};
  p.coarsening = 4;
  EXPECT_EQ(coulomb::describe_method(p), "gather-coarse 32x8x1, 4 points per thread");
  p.variant = coulomb::Variant::gather;
  EXPECT_EQ(coulomb::describe_method(p), "gather 32x8x1") << "gather does not coarsen";
  EXPECT_EQ(coulomb::terms(p.lattice, 3), 7.0 * 5 * 11 * 3);
}

TEST(CoulombSweep, ScatterOnceThenEveryGatherBlockAndCoarsening) {
  const Params p = lattice_params(8, 8, 1);
  const std::vector<coulomb::Method> methods = coulomb::sweep_methods({64, 4, 1});
  const std::size_t shapes = coulomb::compiled_shapes().size();
  const std::size_t coarsening_variants = 3;  // gather-coarse, gather-shared, gather-hybrid
  ASSERT_EQ(methods.size(), 1 + shapes * (1 + coarsening_variants * coulomb::kCoarsenings.size()));
  EXPECT_EQ(methods[0].variant, coulomb::Variant::scatter);
  EXPECT_EQ(methods[0].block, (Shape{64, 4, 1}));
  EXPECT_EQ(methods[0].coarsening, 1);
  for (std::size_t i = 1; i < methods.size(); ++i) {
    const coulomb::Method& m = methods[i];
    EXPECT_NE(m.variant, coulomb::Variant::scatter) << i;
    if (!coulomb::coarsens(m.variant)) {
      EXPECT_EQ(m.coarsening, 1) << i;
    }
    const Params q = coulomb::with_method(p, m);
    EXPECT_EQ(q.variant, m.variant);
    EXPECT_EQ(q.block, m.block);
    EXPECT_EQ(q.coarsening, m.coarsening);
    EXPECT_EQ(rejected_key(q), "") << name(m.variant) << " " << to_string(m.block);
    for (std::size_t j = 1; j < i; ++j)
      EXPECT_FALSE(methods[j].variant == m.variant && methods[j].block == m.block &&
                   methods[j].coarsening == m.coarsening)
          << "twice: " << i << " and " << j;
  }
  EXPECT_EQ(methods[1].variant, coulomb::Variant::gather) << "in the order of kVariants";
}

TEST(CoulombCheck, ARunIsJudgedByItsVariantOnTheGpuAndByRoundingOnTheCpu) {
  Params p = lattice_params(4, 4, 4);
  p.variant = coulomb::Variant::scatter;
  EXPECT_EQ(coulomb::run_tolerance(p, 9001, true), coulomb::tolerance(p.variant, 9001));
  EXPECT_EQ(coulomb::run_tolerance(p, 9001, false), coulomb::kRoundedGoldTolerance);
}

TEST(CoulombCpu, ARunIsTheGoldRoundedToFloat) {
  const Params p = lattice_params(7, 5, 6);
  const std::vector<Atom> atoms{{0.25f, 1.0f, 2.5f, -2.0f}, {1.0f, 0.0f, 3.0f, 1.7f}};
  const coulomb::Part part = coulomb::rank_part(p.lattice, 1, 3);
  const coulomb::Result r = coulomb::solve_cpu(p, atoms, part);
  const std::vector<double> gold = coulomb::solve_gold(p, atoms, part);
  EXPECT_EQ(r.potential, std::vector<float>(gold.begin(), gold.end()));
  EXPECT_GE(r.timings.seconds(phase::compute), 0.0);
  EXPECT_EQ(r.timings.seconds(phase::host_to_device), 0.0);
  EXPECT_EQ(r.timings.seconds(phase::device_to_host), 0.0);
}

// A run's steps across ranks, taken by a plain process: one rank, which keeps its own.
class CoulombOneRank : public ::testing::Test {
 protected:
  comm::Context context_;
  test::ScratchDir dir_;
};

TEST_F(CoulombOneRank, ReadsTheAtomsOrRethrowsWhyNot) {
  Params p = lattice_params(4, 4, 4);
  p.atoms_file = (dir_ / "m.pqr").string();
  std::ofstream(p.atoms_file)
      << "ATOM      1  N   GLY     1      21.421   3.562  16.781   0.294   1.821\n"
         "ATOM      2  CA  GLY A   1     -22.848   3.896  16.606  -0.010   1.904\n";
  std::vector<Atom> atoms;
  EXPECT_EQ(coulomb::read_atoms_on_root(context_, p, atoms), 2);
  ASSERT_EQ(atoms.size(), 2u);
  expect_atom(atoms[1], -22.848f, 3.896f, 16.606f, -0.010f);
  p.atoms_file = (dir_ / "missing.pqr").string();
  EXPECT_THROW(coulomb::read_atoms_on_root(context_, p, atoms), InputError);
}

TEST_F(CoulombOneRank, DiagnosticsAreTheRangeAndTheComputeSeconds) {
  coulomb::Result r;
  r.potential = {0.5f, -3.0f, 2.0f};
  r.timings.add(phase::compute, 1.25);
  const coulomb::Diagnostics d = coulomb::over_ranks(context_, coulomb::diagnostics(r));
  EXPECT_EQ(d.low, -3.0);
  EXPECT_EQ(d.high, 2.0);
  EXPECT_EQ(d.compute_seconds, 1.25);
  const coulomb::Diagnostics none = coulomb::diagnostics(coulomb::Result{});
  EXPECT_TRUE(std::isnan(none.low) && std::isnan(none.high)) << "no points, no range";
}

TEST_F(CoulombOneRank, AgreementIsTheOneFieldsAndTheGatherTheWholePotential) {
  const Params p = lattice_params(7, 5, 3);
  const std::vector<Atom> atoms{{0.25f, 1.0f, 2.5f, -2.0f}, {1.0f, 0.0f, 3.0f, 1.7f}};
  const coulomb::GoldWithScale gold = coulomb::solve_gold_with_scale(p, atoms);
  std::vector<float> result(gold.potential.begin(), gold.potential.end());
  result[4] += 1e-3f;
  const double tolerance = coulomb::tolerance(coulomb::Variant::gather);
  const Agreement mine = coulomb::agreement(context_, p.lattice, result, gold, tolerance);
  const Agreement one = coulomb::agreement(result, gold.potential, gold.scale, tolerance);
  EXPECT_EQ(mine.measure, "max_relative_to_scale");
  EXPECT_EQ(mine.value, one.value);
  EXPECT_EQ(mine.values, one.values);
  EXPECT_EQ(mine.passed(), one.passed());
  EXPECT_EQ(coulomb::gather_on_root(context_, p.lattice, result), result);
}

// scatter alone is left out of a sweep, and only past kScatterSweepLimit terms.
TEST(CoulombSummary, ASweepSkipsScatterOnlyWhenItWouldTakeTooLong) {
  coulomb::Params p;
  p.lattice.nx = p.lattice.ny = p.lattice.nz = 100;  // 1e6 points
  p.variant = coulomb::Variant::scatter;
  EXPECT_EQ(coulomb::sweep_skip(p, 1000), "");
  EXPECT_NE(coulomb::sweep_skip(p, 3000).find("scatter skipped"), std::string::npos);
  p.variant = coulomb::Variant::gather;
  EXPECT_EQ(coulomb::sweep_skip(p, 3000), "");
}

TEST(CoulombSummary, OnlyScatterOnTheGpuPromisesNoBits) {
  coulomb::Params p;
  p.variant = coulomb::Variant::scatter;
  EXPECT_FALSE(coulomb::reproducibility(p, /*gpu=*/true).first);
  EXPECT_TRUE(coulomb::reproducibility(p, /*gpu=*/false).first);
  p.variant = coulomb::Variant::gather_shared;
  EXPECT_TRUE(coulomb::reproducibility(p, /*gpu=*/true).first);
}

// The potential is written in its unit: kT/e scales the sum, kcal/(mol·e) leaves it.
TEST(CoulombSummary, ThePotentialIsScaledToItsUnitOnlyWhenItDiffers) {
  coulomb::Params p;
  std::vector<float> v{1.0f, -2.0f};
  coulomb::to_unit(p, v);
  EXPECT_EQ(v, (std::vector<float>{1.0f, -2.0f}));
  p.potential_unit = coulomb::PotentialUnit::kt_per_e;
  coulomb::to_unit(p, v);
  EXPECT_FLOAT_EQ(v[0], static_cast<float>(p.potential_scale()));
}

TEST(CoulombSummary, OneRankPlacesAroundTheMoleculeAndKeepsTheWholeLattice) {
  comm::Context context;
  coulomb::Params p;
  p.center = coulomb::LatticeCenter::molecule;
  p.atoms_file = "molecule.pqr";  // validated with the placement, not read
  const std::vector<coulomb::Atom> atoms{{1, 2, 3, 1.0f}, {3, 4, 5, -1.0f}};
  const coulomb::Params given = p;
  const coulomb::Part part = coulomb::place_and_cut(context, p, atoms);
  EXPECT_EQ(part.points(), p.lattice.points());
  EXPECT_EQ(p.lattice.origin, coulomb::placed(given, coulomb::bounding_box(atoms)).lattice.origin);
  EXPECT_NE(p.lattice.origin, given.lattice.origin);
}

// A run's memory: the device's first on the GPU, then the host's, with the whole lattice more on
// the rank that gathers an OpenDX map.
TEST(CoulombSummary, ARunNeedsTheDeviceFirstThenTheHostWithAnyGather) {
  const Params p = lattice_params(8, 6, 4);
  const coulomb::Part part = coulomb::rank_part(p.lattice, 1, 2);
  const std::vector<coulomb::MemoryNeed> gpu = coulomb::run_needs(p, 10, part, true, true, true);
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_TRUE(gpu[0].device);
  EXPECT_EQ(gpu[0].bytes, coulomb::device_need(p, 10, part).bytes);
  EXPECT_FALSE(gpu[1].device);
  EXPECT_EQ(gpu[1].bytes, coulomb::host_need(p, false, true, static_cast<double>(part.points()),
                                             static_cast<double>(p.lattice.points()))
                              .bytes);
  const std::vector<coulomb::MemoryNeed> cpu = coulomb::run_needs(p, 10, part, false, false, false);
  ASSERT_EQ(cpu.size(), 1u);
  EXPECT_EQ(cpu[0].bytes,
            coulomb::host_need(p, true, false, static_cast<double>(part.points())).bytes);
}

// A part is a block of the [nz][ny][nx] field: where it starts, and its extent.
TEST(CoulombPart, APartIsABlockOfTheField) {
  const coulomb::Lattice n = lattice_params(8, 6, 4).lattice;
  const coulomb::Part slab = coulomb::rank_part(n, 1, 2);
  EXPECT_EQ(slab.offset(), (std::vector<std::uint64_t>{2, 0, 0}));
  EXPECT_EQ(slab.count(), (std::vector<std::uint64_t>{2, 6, 8}));
  const coulomb::Lattice slice = lattice_params(8, 6, 1).lattice;
  const coulomb::Part band = coulomb::rank_part(slice, 2, 3);
  EXPECT_EQ(band.offset(), (std::vector<std::uint64_t>{0, 4, 0}));
  EXPECT_EQ(band.count(), (std::vector<std::uint64_t>{1, 2, 8}));
}

TEST_F(CoulombOneRank, OneRankBroadcastsNothing) {
  std::vector<Atom> atoms{{1, 2, 3, 0.5f}};
  EXPECT_EQ(coulomb::broadcast_atoms(context_, atoms), 0.0);
  ASSERT_EQ(atoms.size(), 1u);
  expect_atom(atoms[0], 1, 2, 3, 0.5f);
}

// A sweep's problem as far as the host takes it: the atoms read, the lattice placed around them,
// every configuration, the memory of the largest, and the refusals with their evidence.
TEST_F(CoulombOneRank, ASweptLatticeReadsPlacesAndListsItsConfigurations) {
  Params p = lattice_params(4, 4, 4);
  p.center = coulomb::LatticeCenter::molecule;
  p.atoms_file = (dir_ / "m.pqr").string();
  std::ofstream(p.atoms_file)
      << "ATOM      1  N   GLY     1       1.000   2.000   3.000   0.500   1.821\n"
         "ATOM      2  CA  GLY A   1       3.000   4.000   5.000  -0.500   1.904\n";
  const coulomb::SweptLattice lattice(p);
  const std::vector<Atom> atoms = coulomb::read_atoms(p.atoms_file, p.atom_format);
  EXPECT_EQ(lattice.atom_count(), 2);
  EXPECT_EQ(lattice.params().lattice.origin,
            coulomb::placed(p, coulomb::bounding_box(atoms)).lattice.origin);
  const std::vector<coulomb::Method> methods = coulomb::sweep_methods(p.block);
  ASSERT_EQ(lattice.configurations().size(), methods.size());
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const Params& c = lattice.configurations()[i];
    EXPECT_EQ(c.variant, methods[i].variant);
    EXPECT_EQ(c.lattice.origin, lattice.params().lattice.origin) << "each on the placed lattice";
    EXPECT_EQ(lattice.skipped(i), coulomb::sweep_skip(c, 2));
  }
  const Params& largest = lattice.largest();
  for (const Params& c : lattice.configurations())
    EXPECT_LE(coulomb::device_bytes(c, 2), coulomb::device_bytes(largest, 2));
  const std::vector<coulomb::MemoryNeed> needs = lattice.needs();
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_TRUE(needs[0].device && !needs[1].device) << "the device first";
  EXPECT_EQ(lattice.terms(), coulomb::terms(lattice.params().lattice, 2));
  EXPECT_TRUE(contains(lattice.described("a device"), "2 atoms on a device; rsqrtf"));

  p.atoms_file = (dir_ / "missing.pqr").string();
  try {
    coulomb::SweptLattice none(p);
    ADD_FAILURE() << "a missing atoms file was read";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.source(), "missing.pqr")) << "the file is the evidence";
  }
}

}  // namespace
}  // namespace parasol
