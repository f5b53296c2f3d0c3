// coulomb through the front end, as a user meets it: the example runs on the CPU and writes the
// potential, its XDMF sidecar and an OpenDX map that APBS's own tools read back; bad inputs give
// one line naming the file and line or key, status 2, and leave nothing behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/result_file.hpp"
#include "solvers/coulomb/params.hpp"
#include "solvers/coulomb/shapes.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
const std::filesystem::path kExample =
    std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs/coulomb.toml";
// APBS's tool that samples a DX map at listed points (Debian package apbs).
const std::filesystem::path kMultivalue = "/usr/lib/apbs/tools/bin/multivalue";

const std::string kAtom = "ATOM      1  N   GLY     1      1.000   2.000   3.000   0.500   1.800\n";

class CoulombCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& text, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << text;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "c.h5") + " " + args);
  }
  // A small lattice around the atoms in m.pqr, beside the parameter file.
  std::string small_file(const std::string& extra = "") {
    return "solver = \"coulomb\"\n[lattice]\nnx = 5\nny = 4\nnz = 3\n[atoms]\nfile = \"m.pqr\"\n" +
           extra;
  }
  void write_atoms(const std::string& text) { std::ofstream(dir_ / "m.pqr") << text; }
  // An input error: status 2, one line naming what is wrong, nothing written.
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "m.pqr"});
  }
  test::ScratchDir dir_;
};

TEST_F(CoulombCli, ExampleRunsOnTheCpuAndWritesH5XmfAndDx) {
  const auto r = test::run_shell(kExe + " run " + quoted(kExample) + " --backend cpu -o " +
                                 quoted(dir_ / "c.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "CPU gold solver")) << r.output;
  EXPECT_TRUE(contains(r.output, "1673 atoms")) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir_ / "c.xmf"));
  ASSERT_TRUE(std::filesystem::exists(dir_ / "c.dx"));

  io::ResultReader h5(dir_ / "c.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/", "solver")), "coulomb");
  EXPECT_EQ(h5.dims("/fields/potential"), (std::vector<std::uint64_t>{65, 65, 81}));
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/atoms", "count")), 1673);
  EXPECT_NEAR(std::get<double>(h5.attribute("/atoms", "total_charge")), 0.991, 1e-4);
  for (const char* name : {"compute_s",
                           "atom_evaluations_per_s"})
    EXPECT_TRUE(h5.has_attribute("/timings", name)) << name;
  // Transfers are timed on a GPU run only (the CPU backend has none).
  for (const char* name : {"host_to_device_s", "device_to_host_s"})
    EXPECT_EQ(h5.has_attribute("/timings", name),
              std::get<std::string>(h5.attribute("/provenance", "backend")) == "gpu")
        << name;
  EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "atoms.format")), "pqr");
  EXPECT_FALSE(h5.exists("/check"));
  std::ifstream xmf(dir_ / "c.xmf");
  const std::string xml((std::istreambuf_iterator<char>(xmf)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(xml, "c.h5:/fields/potential")) << xml;

  if (!std::filesystem::exists(kMultivalue))
    GTEST_SKIP() << kMultivalue << " is absent (Debian package apbs): the DX map is not read back";
  // Lattice points (so the map's interpolation is exact): corners, the middle, odd places.
  const std::vector<float> v = h5.read_floats("/fields/potential");
  const double origin[3] = {-4.125, -5.65, -4.89}, h = 0.75;
  const int picks[][3] = {{0, 0, 0}, {80, 64, 64}, {40, 32, 32}, {33, 30, 29}, {7, 50, 12},
                          {79, 1, 63}};
  std::ofstream csv(dir_ / "points.csv");
  for (const auto& p : picks)
    csv << origin[0] + h * p[0] << "," << origin[1] + h * p[1] << "," << origin[2] + h * p[2]
        << "\n";
  csv.close();
  const auto m = test::run_shell(quoted(kMultivalue) + " " + quoted(dir_ / "points.csv") + " " +
                                 quoted(dir_ / "c.dx") + " " + quoted(dir_ / "values.txt"));
  ASSERT_EQ(m.status, 0) << m.output;
  // One "x,y,z,value" line per point.
  std::ifstream values(dir_ / "values.txt");
  std::size_t n = 0;
  for (std::string line; std::getline(values, line) && n < std::size(picks); ++n) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    double x, y, z, value;
    ASSERT_TRUE(fields >> x >> y >> z >> value) << line;
    const auto& p = picks[n];
    const double want = v[static_cast<std::size_t>(p[0] + 81 * (p[1] + 65 * p[2]))];
    EXPECT_NEAR(x, origin[0] + h * p[0], 1e-5);
    EXPECT_NEAR(value, want, 1e-5 * std::abs(want)) << line;
  }
  EXPECT_EQ(n, std::size(picks)) << m.output;
}

TEST_F(CoulombCli, CheckStoresTheDifferenceFromTheGold) {
  write_atoms(kAtom + "HETATM    2  O   DMS     2      2.000   2.500   3.000  -0.500   1.500\n");
  const auto r = run_file(small_file(), "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "c.dx")) << "output.dx defaults to false";
  io::ResultReader h5(dir_ / "c.h5");
  EXPECT_EQ(h5.dims("/fields/potential"), (std::vector<std::uint64_t>{3, 4, 5}));
  // On the CPU the result is the gold rounded to float.
  EXPECT_LE(std::get<double>(h5.attribute("/check", "max_relative_to_scale")), 1e-7);
  EXPECT_TRUE(h5.has_attribute("/check", "max_abs_difference"));
  EXPECT_TRUE(h5.has_attribute("/check", "rms_difference"));
  // Defaults: origin 0, spacing 0.5, k = 1. Point (2, 3, 2) is (1, 1.5, 1).
  const std::vector<float> v = h5.read_floats("/fields/potential");
  EXPECT_NEAR(v[2 + 5 * (3 + 4 * 2)], 0.5 / std::sqrt(4.25) - 0.5 / std::sqrt(6.0), 1e-7);
}

TEST_F(CoulombCli, MalformedAtomsNameTheFileAndLine) {
  write_atoms("REMARK 1\n" + kAtom + "ATOM      2  CA  GLY     1      1.0   two   3.0   0.1   1.8\n");
  expect_input_error(run_file(small_file()),
                     (dir_ / "m.pqr").string() + ":3: expected a number for the y coordinate, got \"two\"");
}

TEST_F(CoulombCli, MissingAtomsFile) {
  expect_input_error(run_file(small_file()), (dir_ / "m.pqr").string() + ": atoms file not found");
}

TEST_F(CoulombCli, BadParametersNameTheirKey) {
  write_atoms(kAtom);
  expect_input_error(run_file(small_file("[physics]\nmin_distanse = 0.2\n")),
                     "p.toml:9: physics.min_distanse: unknown key; did you mean physics.min_distance?");
  expect_input_error(run_file(small_file(), "method.block=[48,4,1]"),
                     "command line: method.block:");
  expect_input_error(run_file(small_file(), "method.coarsening=3"),
                     "command line: method.coarsening: expected one of 1, 2, 4, 8");
  // Terms are float: k q / r must fit at the nearest distance taken.
  expect_input_error(run_file(small_file(), "physics.coulomb_constant=1e39"),
                     "command line: physics.coulomb_constant: expected a magnitude of at most");
  expect_input_error(run_file(small_file(), "lattice.spacing=1e38"), "lattice: expected");
  expect_input_error(run_file(small_file(), "lattice.origin=[1,2]"),
                     "command line: lattice.origin: expected three numbers");
  expect_input_error(run_file(small_file(), "method.variant=gather_coarse"),
                     "method.variant: variant \"gather_coarse\" is not one of");
  expect_input_error(run_file(small_file(), "atoms.file=m.dat"),
                     "atoms.format: missing; the extension of \"m.dat\" does not say");
}

// Two atoms whose box is x 1..2, y 2..2.5, z 3..3: its centre is (1.5, 2.25, 3).
const std::string kTwoAtoms =
    kAtom + "HETATM    2  O   DMS     2      2.000   2.500   3.000  -0.500   1.500\n";

std::vector<double> origin_of(const io::ResultReader& h5) {
  return std::get<std::vector<double>>(h5.attribute("/fields/potential", "origin"));
}

TEST_F(CoulombCli, LatticeCentredOnTheMoleculeAndSizedByItsMargin) {
  write_atoms(kTwoAtoms);
  // Box + 2 x 1 Å at 0.5 Å: 3, 2.5 and 2 Å, so 6, 5 and 4 spacings, 7, 6 and 5 points; the
  // centre less half of each span puts point (0, 0, 0) at (0, 1, 2).
  const std::string centred = "solver = \"coulomb\"\n[lattice]\ncenter = \"molecule\"\n"
                              "margin = 1.0\n[atoms]\nfile = \"m.pqr\"\n";
  const auto r = run_file(centred);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "7x6x5 lattice at spacing 0.5, centred on the atoms from (0, 1, 2)"))
      << r.output;
  std::vector<float> v;
  {
    io::ResultReader h5(dir_ / "c.h5");
    EXPECT_EQ(h5.dims("/fields/potential"), (std::vector<std::uint64_t>{5, 6, 7}));
    const std::vector<double> origin = origin_of(h5);
    ASSERT_EQ(origin.size(), 3u);
    EXPECT_NEAR(origin[0], 0.0, 1e-12);
    EXPECT_NEAR(origin[1], 1.0, 1e-12);
    EXPECT_NEAR(origin[2], 2.0, 1e-12);
    EXPECT_EQ(std::get<std::string>(h5.attribute("/fields/potential", "center")), "molecule");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/parameters", "lattice.center")), "molecule");
    v = h5.read_floats("/fields/potential");
  }
  // The same lattice written out by hand gives the same potential, bit for bit.
  const auto by_hand = run_file(
      "solver = \"coulomb\"\n[lattice]\norigin = [0, 1, 2]\nnx = 7\nny = 6\nnz = 5\n"
      "[atoms]\nfile = \"m.pqr\"\n",
      "--force");
  ASSERT_EQ(by_hand.status, 0) << by_hand.output;
  io::ResultReader h5(dir_ / "c.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/fields/potential", "center")), "origin");
  EXPECT_EQ(h5.read_floats("/fields/potential"), v);
}

TEST_F(CoulombCli, LatticeCentredOnTheMoleculeKeepsTheGivenPoints) {
  write_atoms(kTwoAtoms);
  // 5x4x3 points at 0.5 Å span 2, 1.5 and 1 Å about (1.5, 2.25, 3): from (0.5, 1.5, 2.5).
  const auto r = run_file(small_file(), "lattice.center=molecule");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "5x4x3 lattice at spacing 0.5, centred on the atoms from (0.5, 1.5, 2.5)"))
      << r.output;
  io::ResultReader h5(dir_ / "c.h5");
  EXPECT_EQ(h5.dims("/fields/potential"), (std::vector<std::uint64_t>{3, 4, 5}));
  const std::vector<double> origin = origin_of(h5);
  ASSERT_EQ(origin.size(), 3u);
  EXPECT_NEAR(origin[0], 0.5, 1e-12);
  EXPECT_NEAR(origin[1], 1.5, 1e-12);
  EXPECT_NEAR(origin[2], 2.5, 1e-12);
}

TEST_F(CoulombCli, LatticePlacementKeysThatContradictEachOtherAreRefused) {
  write_atoms(kTwoAtoms);
  expect_input_error(run_file(small_file(), "lattice.margin=5"),
                     "command line: lattice.margin: not read when lattice.center = \"origin\"");
  expect_input_error(run_file(small_file(), "lattice.center=molecule lattice.origin=[0,0,0]"),
                     "command line: lattice.origin: not read when lattice.center = \"molecule\"");
  // The margin sets the points: giving them too is one or the other.
  expect_input_error(run_file(small_file(), "lattice.center=molecule lattice.margin=5"),
                     "lattice.nx: not read when it is read only with no lattice.margin");
  const std::string no_points =
      "solver = \"coulomb\"\n[lattice]\ncenter = \"molecule\"\n[atoms]\nfile = \"m.pqr\"\n";
  expect_input_error(run_file(no_points), "lattice.nx");
  expect_input_error(run_file(no_points, "lattice.margin=-1"),
                     "command line: lattice.margin: expected a distance >= 0, got -1");
  expect_input_error(run_file(no_points, "lattice.margin=1e30"),
                     "command line: lattice.margin: expected a margin that leaves fewer than 2^40");
  expect_input_error(run_file(small_file(), "lattice.center=mol"),
                     "command line: lattice.center:");
}

TEST_F(CoulombCli, PotentialInKtPerEIsTheSumOverRTAndSaysItsUnit) {
  write_atoms(kAtom + "HETATM    2  O   DMS     2      2.000   2.500   3.000  -0.500   1.500\n");
  const std::string physics = "[physics]\ncoulomb_constant = 332.0637\n[output]\ndx = true\n";
  const auto plain = run_file(small_file(physics));
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_TRUE(contains(plain.output, "kcal/(mol·e)")) << plain.output;
  std::vector<float> kcal;
  {
    io::ResultReader h5(dir_ / "c.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/fields/potential", "units")), "kcal/(mol·e)");
    kcal = h5.read_floats("/fields/potential");
  }
  EXPECT_TRUE(contains(test::read_text(dir_ / "c.dx"), "#   POTENTIAL (kcal/(mol·e))\n"));

  const auto kt = run_file(small_file(physics + "[units]\npotential = \"kT/e\"\ntemperature = 300\n"),
                           "--force");
  ASSERT_EQ(kt.status, 0) << kt.output;
  EXPECT_TRUE(contains(kt.output, "kT/e")) << kt.output;
  io::ResultReader h5(dir_ / "c.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/fields/potential", "units")), "kT/e");
  const std::vector<float> v = h5.read_floats("/fields/potential");
  ASSERT_EQ(v.size(), kcal.size());
  const double rt = 1.987204259e-3 * 300;  // kcal/mol at 300 K
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], kcal[i] / rt, 1e-6 * std::abs(kcal[i] / rt)) << i;  // one float rounding
  // APBS's own header line, which its tools pass over as a comment.
  const std::string dx = test::read_text(dir_ / "c.dx");
  EXPECT_TRUE(contains(dx, "#   POTENTIAL (kT/e)\n")) << dx.substr(0, 300);
  EXPECT_TRUE(contains(dx, "# temperature 300")) << dx.substr(0, 300);
}

TEST_F(CoulombCli, TemperatureIsNotReadForKcalPerMolE) {
  write_atoms(kAtom);
  expect_input_error(run_file(small_file("[units]\ntemperature = 300\n")),
                     "units.temperature: not read when units.potential = \"kcal/(mol·e)\"");
  expect_input_error(
      run_file(small_file("[units]\npotential = \"kT/e\"\ntemperature = -1\n")),
      "units.temperature");
  expect_input_error(run_file(small_file("[units]\npotential = \"V\"\n")), "kT/e");
}

TEST_F(CoulombCli, SweepWithoutADeviceSaysSo) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) +
                                 " sweep.min_time=0 --backend gpu -o " + quoted(dir_ / "s.h5"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "needs a device")) << r.output;
  EXPECT_TRUE(dir_.empty());
}

TEST_F(CoulombCli, GpuRunAgreesWithTheGold) {
  PARASOL_REQUIRE_GPU();
  for (const std::string variant : {"scatter", "gather", "gather-coarse", "gather-shared"}) {
    const auto r = test::run_shell(kExe + " run " + quoted(kExample) +
                                   " --backend gpu --check --force method.variant=" + variant +
                                   " -o " + quoted(dir_ / "c.h5"));
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "c.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "backend")), "gpu");
    EXPECT_LE(std::get<double>(h5.attribute("/check", "max_relative_to_scale")), 1e-5) << variant;
  }
}

TEST_F(CoulombCli, SweepChecksEveryVariantBlockAndCoarsening) {
  PARASOL_REQUIRE_GPU();
  const auto r = test::run_shell(kExe + " sweep " + quoted(kExample) + " sweep.min_time=0" +
                                 " lattice.nx=33 lattice.ny=17 lattice.nz=9 sweep.repeats=2 -o " +
                                 quoted(dir_ / "s.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fastest")) << r.output;
  io::ResultReader h5(dir_ / "s.h5");
  // scatter once (it has no block or coarsening), gather at each block, the three coarsening
  // variants at each block and coarsening.
  const std::vector<std::string> variants = h5.read_strings("/sweep/variant");
  const std::size_t blocks = coulomb::compiled_shapes().size();
  EXPECT_EQ(variants.size(), 1 + blocks + 3 * blocks * coulomb::kCoarsenings.size());
  EXPECT_EQ(std::count(variants.begin(), variants.end(), "scatter"), 1);
  for (double e : h5.read_doubles("/sweep/max_relative_to_scale")) EXPECT_LE(e, 5e-5);
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/sweep", "atoms")), 1673);
}

}  // namespace
}  // namespace parasol
