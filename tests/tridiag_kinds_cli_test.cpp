// tridiag's kinds through the front end: each kind drawn from a seed or read from HDF5 in its
// documented layout runs and checks against its gold (on the CPU here, on the GPU where there is
// one), its x shaped as its d; the heat ring reports its exact decay; and bad input (a ring of
// fewer than three rows, rhs < 1, a dataset of the wrong shape, a kind heat cannot make, a
// variant a kind does not take) exits 2 with one line, leaving nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

const std::string kExe = PARASOL_EXE;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

double number(const io::ResultReader& h5, const std::string& object, const std::string& name) {
  return std::get<double>(h5.attribute(object, name));
}

std::string random_params(const std::string& kind, const std::string& extra = "") {
  return "solver = \"tridiag\"\n[problem]\nkind = \"random\"\n[system]\nkind = \"" + kind +
         "\"\n" + extra + "[random]\nn = 21\nsystems = 5\nseed = 4\n";
}

std::string file_params(const std::string& kind, const std::string& extra = "") {
  return "solver = \"tridiag\"\n[problem]\nkind = \"file\"\nprecision = \"double\"\n[system]\n"
         "kind = \"" + kind + "\"\n" + extra + "[input]\nfile = \"in.h5\"\n";
}

class TridiagKindsCli : public ::testing::Test {
 protected:
  test::CommandResult run_file(const std::string& text, const std::string& args = "") {
    std::ofstream(dir_ / "p.toml") << text;
    return test::run_shell(kExe + " run " + quoted(dir_ / "p.toml") + " --backend cpu -o " +
                           quoted(dir_ / "x.h5") + " " + args);
  }
  // A kind's batch as the datasets of docs/hdf5-layout.md.
  void write_input(const tridiag::KindBatch<double>& batch) {
    const tridiag::KindDims& k = batch.dims;
    const auto systems = std::uint64_t(k.systems), n = std::uint64_t(k.n);
    std::vector<std::uint64_t> band{systems, n}, rhs{systems, n};
    if (k.kind == tridiag::Kind::block2) {
      band = {systems, n, 2, 2};
      rhs = {systems, n, 2};
    } else if (k.kind == tridiag::Kind::multi_rhs) {
      rhs = {systems, std::uint64_t(k.rhs), n};
    }
    const std::vector<const char*> names = k.kind == tridiag::Kind::pentadiagonal
                                               ? std::vector<const char*>{"e", "a", "b", "c", "f"}
                                               : std::vector<const char*>{"a", "b", "c"};
    io::ResultFile in(dir_ / "in.h5", true);
    for (std::size_t q = 0; q < names.size(); ++q) in.write_field(names[q], batch.bands[q].data(), band);
    in.write_field("d", batch.d.data(), rhs);
    in.commit();
  }
  void expect_input_error(const test::CommandResult& r, const std::string& part) {
    test::expect_input_error(r, part, dir_, {"p.toml", "in.h5"});
  }
  test::ScratchDir dir_;
};

TEST_F(TridiagKindsCli, EachKindDrawnFromASeedChecksAgainstItsGold) {
  const struct {
    const char* kind;
    const char* extra;
    std::vector<std::uint64_t> shape;
  } cases[] = {{"periodic", "", {5, 21}},
               {"multi-rhs", "rhs = 3\n", {5, 3, 21}},
               {"pentadiagonal", "", {5, 21}},
               {"block2", "", {5, 21, 2}}};
  for (const auto& c : cases) {
    const auto r = run_file(random_params(c.kind, c.extra), "--check");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, std::string("5 ") + c.kind + " systems of 21 rows")) << r.output;
    io::ResultReader h5(dir_ / "x.h5");
    EXPECT_EQ(h5.dims("/fields/x"), c.shape) << c.kind;
    EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true) << c.kind;
    EXPECT_EQ(std::get<std::string>(h5.attribute("/input", "kind")), c.kind);
    EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/input", "seed")), 4);
    std::filesystem::remove(dir_ / "x.h5");
  }
}

TEST_F(TridiagKindsCli, EachKindReadFromItsLayoutIsItsGold) {
  for (const tridiag::Kind kind : {tridiag::Kind::periodic, tridiag::Kind::multi_rhs,
                                   tridiag::Kind::pentadiagonal, tridiag::Kind::block2}) {
    const tridiag::KindDims dims{kind, 9, 4, kind == tridiag::Kind::multi_rhs ? 2 : 1};
    const tridiag::KindBatch<double> batch = tridiag::random_kind_batch<double>(dims, test::kSeed);
    write_input(batch);
    const std::string rhs = kind == tridiag::Kind::multi_rhs ? "rhs = 2\n" : "";
    const auto r = run_file(file_params(std::string(name(kind)), rhs), "--force");
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "x.h5");
    EXPECT_EQ(h5.read_doubles("/fields/x"), tridiag::solve_kind_gold(batch)) << name(kind);
  }
}

TEST_F(TridiagKindsCli, HeatRingDecaysByTheRingsExactFactor) {
  const auto r = run_file(
      "solver = \"tridiag\"\n[problem]\nkind = \"heat\"\nprecision = \"double\"\n[system]\n"
      "kind = \"periodic\"\n[heat]\npoints = 60\ngrids = 4\nsteps = 10\nlambda = 0.5\nmode = 2\n",
      "--check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "heat ring on 4 grids")) << r.output;
  io::ResultReader h5(dir_ / "x.h5");
  EXPECT_LE(number(h5, "/diagnostics", "sine_decay_relative_error"), 1e-12);
}

TEST_F(TridiagKindsCli, BadKindsAndShapesAreOneLineAndLeaveNothing) {
  expect_input_error(run_file(random_params("periodic"), "random.n=2"),
                     "random.n: periodic systems need n >= 3");
  expect_input_error(run_file(random_params("multi-rhs", "rhs = 0\n")),
                     "system.rhs: expected a positive integer");
  expect_input_error(run_file(random_params("pentadiagonal", "rhs = 2\n")),
                     "system.rhs: not read when");
  expect_input_error(run_file(random_params("block2"), "method.variant=thomas-scan"),
                     "method.variant: block2 systems are solved by thomas, thomas-pcr, not "
                     "thomas-scan");
  expect_input_error(run_file(random_params("cyclic")), "system.kind: kind \"cyclic\" is not one of");
  expect_input_error(
      run_file("solver = \"tridiag\"\n[system]\nkind = \"block2\"\n[heat]\npoints = 9\ngrids = 2\n"
               "steps = 1\n"),
      "system.kind: the heat problem makes general systems");
  expect_input_error(
      run_file("solver = \"tridiag\"\n[system]\nkind = \"periodic\"\n[heat]\npoints = 9\ngrids = 2\n"
               "steps = 1\nleft = 1.0\n"),
      "heat.left: expected 0: a periodic heat ring has no ends");

  const std::string in = (dir_ / "in.h5").string();
  // multi-rhs d with 2 right-hand sides where 3 are asked for.
  write_input(tridiag::random_kind_batch<double>({tridiag::Kind::multi_rhs, 6, 3, 2}, test::kSeed));
  expect_input_error(run_file(file_params("multi-rhs", "rhs = 3\n")),
                     in + ": input.d: dataset \"d\" is [3 x 2 x 6]; expected [systems][rhs][n]");
  // block2 read from plain [systems][n] datasets.
  write_input(tridiag::random_kind_batch<double>({tridiag::Kind::periodic, 6, 3, 1}, test::kSeed));
  expect_input_error(run_file(file_params("block2")),
                     in + ": input.b: dataset \"b\" is [3 x 6]; expected [systems][n][2][2]");
  // pentadiagonal without its outer bands.
  expect_input_error(run_file(file_params("pentadiagonal")), in + ": input.e: no dataset \"e\"");
  // A ring of two rows.
  write_input(tridiag::random_kind_batch<double>({tridiag::Kind::pentadiagonal, 2, 3, 1}, test::kSeed));
  expect_input_error(run_file(file_params("periodic")), in + ": input.file: periodic systems need n >= 3");
}

// A batch larger than the memory is refused by its size before anything is drawn (it had ended in
// an allocation failure, exit 1), and a batch, having nothing to continue, refuses --restart (it
// had run from the start and exited 0).
TEST_F(TridiagKindsCli, ABatchTooLargeOrRestartedIsOneLineAndLeavesNothing) {
  for (const char* kind : {"periodic", "multi-rhs", "pentadiagonal", "block2"}) {
    SCOPED_TRACE(kind);
    expect_input_error(run_file(random_params(kind), "random.systems=2000000000"),
                       "random.systems: 2000000000 " + std::string(kind) + " systems of 21 rows need");
    expect_input_error(run_file(random_params(kind), "--restart " + quoted(dir_ / "p.toml")),
                       "--restart: a batch is one solve, with nothing to continue");
  }
}

TEST_F(TridiagKindsCli, GpuRunsOfEachKindAgreeWithTheGold) {
  PARASOL_REQUIRE_GPU();
  for (const char* name : {"tridiag-periodic", "tridiag-rhs", "tridiag-penta", "tridiag-block2"})
    for (const std::string precision : {"float", "double"}) {
      const auto r = test::run_shell(kExe + " run " + quoted(kInputs / (std::string(name) + ".toml")) +
                                     " --backend gpu --check --force problem.precision=" + precision +
                                     " -o " + quoted(dir_ / "g.h5"));
      ASSERT_EQ(r.status, 0) << r.output;
      io::ResultReader h5(dir_ / "g.h5");
      EXPECT_EQ(std::get<bool>(h5.attribute("/check", "passed")), true) << name << " " << precision;
    }
}

TEST_F(TridiagKindsCli, GpuSweepTimesEachVariantOfAKind) {
  PARASOL_REQUIRE_GPU();
  const struct {
    const char* file;
    std::vector<std::string> variants;
  } cases[] = {{"tridiag-periodic", {"thomas", "thomas-pcr", "thomas-scan", "pcr-shared"}},
               {"tridiag-rhs", {"thomas"}},
               {"tridiag-penta", {"thomas"}},
               {"tridiag-block2", {"thomas"}}};
  for (const auto& c : cases) {
    const std::string size = std::string(c.file) == "tridiag-periodic" ? " heat.grids=256"
                                                                       : " random.systems=256";
    const auto r = test::run_shell(kExe + " sweep " +
                                   quoted(kInputs / (std::string(c.file) + ".toml")) +
                                   " sweep.min_time=0 sweep.repeats=2 sweep.threads=[64,256]" +
                                   size + " -o " + quoted(dir_ / "s.h5") + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.output;
    io::ResultReader h5(dir_ / "s.h5");
    const std::vector<std::string> variants = h5.read_strings("/sweep/variant");
    for (const std::string& v : c.variants)
      EXPECT_NE(std::find(variants.begin(), variants.end(), v), variants.end()) << c.file << " " << v;
    for (std::int64_t passed : h5.read_ints("/sweep/passed")) EXPECT_EQ(passed, 1) << c.file;
    std::filesystem::remove(dir_ / "s.h5");
  }
}

}  // namespace
}  // namespace parasol
