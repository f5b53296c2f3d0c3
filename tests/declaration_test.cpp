// The solvers' declarations (kernels/declaration.hpp, solvers/<solver>/keys.cpp) against what the
// front end does with them: every key an example file's run reads is declared, the defaults the
// declaration shows are the ones read, "auto" and keys read only under another key behave as
// declared, and `parasol keys` and `parasol run FILE --help` list every declared key.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "apps/solver_run.hpp"
#include "io/param_table.hpp"
#include "io/read_keys.hpp"
#include "solvers/laplace3d/keys.hpp"
#include "solvers/laplace3d/shapes.hpp"
#include "tests/support.hpp"

namespace parasol::app {
namespace {

using test::kExe;
const std::filesystem::path kSource = PARASOL_SOURCE_DIR;

std::set<std::string> declared_keys(const Binding& b) {
  std::set<std::string> keys{"solver"};
  for (const KeyInfo& k : b.keys()) keys.insert(k.key);
  return keys;
}

TEST(Declaration, EveryKeyAnExampleRunReadsIsDeclared) {
  for (const Binding& b : bindings()) {
    if (b.keys == nullptr) continue;
    const std::set<std::string> declared = declared_keys(b);
    ASSERT_FALSE(b.examples.empty()) << b.name;
    for (std::string_view example : b.examples) {
      const std::filesystem::path path = kSource / std::string(example);
      io::ParamTable t = io::ParamTable::load(path);
      ASSERT_EQ(t.get_string("solver"), b.name) << example;
      try {
        (void)b.make_study(t, path);  // reads every run and [sweep] key the file may hold
      } catch (const InputError&) {
        // A problem only `parasol run` takes (a volume): its run's keys, read afresh.
        t = io::ParamTable::load(path);
        (void)t.get_string("solver");
        (void)b.make_run(t, path);
      }
      for (const auto& [key, value] : t.resolved())
        EXPECT_TRUE(declared.count(key) == 1) << b.name << ": " << key << " is read, not declared";
    }
  }
}

TEST(Declaration, EveryExampleTheSolversListNamesThatSolver) {
  for (const Binding& b : bindings())
    for (std::string_view example : b.examples) {
      io::ParamTable t = io::ParamTable::load(kSource / std::string(example));
      EXPECT_EQ(t.get_string("solver"), b.name) << example;
    }
}

TEST(Declaration, DefaultsShownAreTheDefaultsRead) {
  using laplace3d::Params;
  io::ParamTable t = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n",
      "defaults.toml");
  const Params p = io::read_keys(t, laplace3d::keys(), "defaults.toml");
  const Params d;
  EXPECT_EQ(p.grid.nx, 8);
  EXPECT_EQ(p.spacing, d.spacing);
  EXPECT_EQ(p.check_every, d.check_every);
  EXPECT_EQ(p.block, laplace3d::default_block(d.variant));
  for (const KeyInfo& k : infos(laplace3d::keys())) {
    if (k.key == "iteration.check_every") {
      EXPECT_EQ(k.fallback, std::to_string(d.check_every));
    }
    if (k.key == "grid.spacing") {
      EXPECT_EQ(k.fallback, "1.0");
    }
    if (k.key == "method.variant") {
      EXPECT_EQ(k.fallback, "\"zreg\"");
      EXPECT_TRUE(k.automatic);
      EXPECT_TRUE(k.gpu_only);
    }
    if (k.key == "grid.nx") {
      EXPECT_TRUE(k.required());
    }
  }
}

TEST(Declaration, AVariantsBlockDefaultsAfterTheVariant) {
  io::ParamTable t = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n"
      "[method]\nvariant = \"temporal\"\n",
      "temporal.toml");
  const laplace3d::Params p = io::read_keys(t, laplace3d::keys(), "temporal.toml");
  EXPECT_EQ(p.block, laplace3d::default_block(laplace3d::Variant::temporal));
}

// A sweep over variants and block shapes times each variant with the blocks compiled for it that
// sweep.blocks lists (all of them when it lists none); a listed block none of the listed variants
// compiles is refused at its key, before anything is timed.
TEST(Declaration, SweptBlocksAreTheCompiledOnesListed) {
  using laplace3d::Variant;
  const laplace3d::Params p;
  laplace3d::SweepParams s;
  s.variants = {Variant::zreg, Variant::block3d};
  std::size_t all = 0;
  for (Variant v : s.variants) all += laplace3d::compiled_shapes(v).size();
  EXPECT_EQ(laplace3d::sweep_configurations(p, s).size(), all);
  const Shape block = laplace3d::compiled_shapes(Variant::block3d).front();
  s.blocks = {block};
  const std::vector<laplace3d::Params> listed = laplace3d::sweep_configurations(p, s);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].variant, Variant::block3d);
  EXPECT_EQ(listed[0].block, block);

  io::ParamTable t = io::ParamTable::parse("[sweep]\nblocks = [[1, 2, 3]]\n", "s.toml");
  EXPECT_NO_THROW(laplace3d::require_compiled(s));
  s.variants = {Variant::zreg};
  try {
    app::sourced(t, [&] { laplace3d::require_compiled(s); });
    ADD_FAILURE() << "a block no listed variant compiles was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.toml:2: sweep.blocks: block " + to_string(block) +
                                         " is not compiled in for any listed variant"),
              std::string::npos)
        << e.what();
  }
}

TEST(Declaration, AutoIsTakenWhereDeclaredAndRefusedElsewhere) {
  io::ParamTable t = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n"
      "[method]\nvariant = \"auto\"\n",
      "auto.toml");
  std::vector<std::string> automatic;
  (void)io::read_keys(t, laplace3d::keys(), "auto.toml", &automatic);
  EXPECT_EQ(automatic, std::vector<std::string>{"method.variant"});

  io::ParamTable u = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n"
      "[method]\nprecision = \"auto\"\n",
      "auto.toml");
  try {
    (void)io::read_keys(u, laplace3d::keys(), "auto.toml");
    FAIL() << "precision = \"auto\" was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.precision");
    EXPECT_NE(std::string(e.what()).find("auto.toml:9"), std::string::npos) << e.what();
  }
}

TEST(Declaration, AKeyTheRunDoesNotReadIsRefusedNotDropped) {
  io::ParamTable t = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n"
      "[initial]\ninterior = \"constant\"\nvalue = 0.5\nseed = 7\n",
      "unread.toml");
  try {
    (void)io::read_keys(t, laplace3d::keys(), "unread.toml");
    FAIL() << "a seed with a constant interior was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "initial.seed");
    EXPECT_NE(std::string(e.what()).find(
                  "unread.toml:11: initial.seed: not read when initial.interior = \"constant\""),
              std::string::npos)
        << e.what();
  }
}

TEST(Declaration, OutOfRangeIntegersNameTheirKeyAndSource) {
  io::ParamTable t = io::ParamTable::parse(
      "solver = \"laplace3d\"\n[grid]\nnx = 8\nny = 9\nnz = 10\n[iteration]\nmax_iterations = 3\n"
      "[initial]\nseed = -4\n",
      "seed.toml");
  try {
    (void)io::read_keys(t, laplace3d::keys(), "seed.toml");
    FAIL() << "a negative seed was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "initial.seed");
    EXPECT_NE(std::string(e.what()).find("expected an integer >= 0, got -4"), std::string::npos)
        << e.what();
  }
}

TEST(Declaration, KeysAndRunHelpListEveryDeclaredKey) {
  for (const Binding& b : bindings()) {
    if (b.keys == nullptr) continue;
    const auto keys = test::run_shell(kExe + " keys " + std::string(b.name));
    ASSERT_EQ(keys.status, 0) << keys.output;
    const auto help =
        test::run_shell(kExe + " run " + (kSource / std::string(b.examples.at(0))).string() +
                        " --help");
    ASSERT_EQ(help.status, 0) << help.output;
    EXPECT_NE(help.output.find("--output"), std::string::npos) << help.output;
    for (const KeyInfo& k : b.keys()) {
      EXPECT_NE(keys.output.find("  " + k.key + "  "), std::string::npos) << k.key;
      EXPECT_NE(help.output.find("  " + k.key + "  "), std::string::npos) << k.key;
    }
  }
  const auto unknown = test::run_shell(kExe + " keys heat9d");
  EXPECT_EQ(unknown.status, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown solver \"heat9d\""), std::string::npos) << unknown.output;
}

TEST(Declaration, SolversListsWhatEachSolvesAndItsExamples) {
  const auto r = test::run_shell(kExe + " solvers");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const Binding& b : bindings()) {
    EXPECT_NE(r.output.find(std::string(b.name) + "  "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(std::string(b.summary)), std::string::npos) << r.output;
    for (std::string_view e : b.examples)
      EXPECT_NE(r.output.find(std::string(e)), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace parasol::app
