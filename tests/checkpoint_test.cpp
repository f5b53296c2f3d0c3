// Checkpoints and restarts, through the front end: a run of 2N steps gives, bit for bit, what a
// run of N steps that checkpoints and a restart running N more give, for every solver that
// checkpoints, on the CPU (and on the GPU where there is one), on one rank and across 2 and 3;
// a signal writes a checkpoint and stops with status 75, a second ends the run at once leaving the
// checkpoint before intact; and a damaged, truncated or mismatched checkpoint is refused with
// exit 2 and one line, nothing written.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/result_reader.hpp"
#include "tests/ranks_support.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::quoted;
using test::lines_of;
using test::same_bits;

const std::string kExe = PARASOL_EXE;

// A small laplace3d problem whose grid no slab cut divides evenly (13 planes among 2 or 3) and
// whose steps are not all multiples of its check interval: a checkpoint then falls between
// convergence checks, and the restarted run must still record the same checks.
std::string laplace3d(const std::string& precision = "float") {
  return "solver = \"laplace3d\"\n[grid]\nnx = 20\nny = 17\nnz = 13\n[boundary]\nx_min = 1.0\n"
         "z_max = 0.5\n[initial]\nseed = 7\n[iteration]\nmax_iterations = 10\ntolerance = 0\n"
         "check_every = 10\n[method]\nprecision = \"" +
         precision + "\"\n";
}

// tridiag's heat march on grids that 2 or 3 ranks cut unevenly, from a random start (every grid
// different), with fixed ends that are not zero.
std::string heat(const std::string& precision = "float") {
  return "solver = \"tridiag\"\n[problem]\nkind = \"heat\"\nprecision = \"" + precision +
         "\"\n[heat]\npoints = 37\ngrids = 7\nsteps = 10\nlambda = 0.7\ninitial = \"random\"\n"
         "left = 0.25\nright = 0.5\n";
}

// montecarlo's two-asset model in batches of 1000 paths (antithetic pairs: 500 samples a batch),
// with sample paths stored so that they are checkpointed too.
std::string montecarlo() {
  return "solver = \"montecarlo\"\n[paths]\ncount = 3000\nsteps = 16\n[payoff]\nkind = "
         "\"asian-call\"\n[method]\nbatch_paths = 1000\nantithetic = true\n[output]\n"
         "sample_paths = 7\n";
}

// poisson on a 32 × 30 × 30 grid that 2 and 3 ranks cut unevenly (15 pairs of planes), faces of
// all three kinds with a periodic z (the wrap crosses from the last rank to the first), run for
// a fixed number of V-cycles (no tolerance): `faces` replaces them (all Neumann and periodic
// for the singular case, whose mean is removed after every cycle).
std::string poisson(const std::string& precision = "double", const std::string& cycle = "fmg",
                    const std::string& smoother = "rbgs", const std::string& faces = "") {
  const std::string mixed =
      "x_min = { kind = \"dirichlet\", value = 1.0 }\nx_max = { kind = \"neumann\", value = 0.5 }\n"
      "y_min = { kind = \"neumann\", value = 0.0 }\ny_max = { kind = \"dirichlet\", value = 0.0 }\n"
      "z_min = { kind = \"periodic\" }\nz_max = { kind = \"periodic\" }\n";
  return "solver = \"poisson\"\n[grid]\nnx = 32\nny = 30\nnz = 30\n[boundary]\n" +
         (faces.empty() ? mixed : faces) +
         "[source]\nkind = \"gaussian\"\n[iteration]\ntolerance = 0\nmax_cycles = 4\n"
         "[method]\ncycle = \"" + cycle + "\"\nsmoother = \"" + smoother + "\"\nprecision = \"" +
         precision + "\"\n";
}

// The bits a result holds, whatever its precision: the field read as doubles is exact for both.
struct Bits {
  std::vector<double> field;
  std::vector<std::string> diagnostics;  // every /diagnostics attribute, as text
};

class Checkpoints : public ::testing::Test {
 protected:
  fs::path write_params(const std::string& text) {
    const fs::path path = dir_ / "p.toml";
    std::ofstream(path) << text;
    return path;
  }

  static std::string launcher(int ranks) { return test::mpi_launcher(ranks); }

  // `parasol run` of `text` writing `output` in the scratch folder, on `ranks` ranks (0: no
  // launcher), with `args` (overrides, flags); the CPU backend unless they name one.
  CommandResult run(const std::string& text, const std::string& output, const std::string& args,
                    int ranks = 0) {
    const std::string backend = args.find("--backend") == std::string::npos ? " --backend cpu" : "";
    return test::run_shell(launcher(ranks) + kExe + " run " + quoted(write_params(text)) + " -o " +
                           quoted(dir_ / output) + backend + " --quiet --force " + args);
  }

  Bits bits(const std::string& output, const std::string& field) const {
    io::ResultReader r(dir_ / output);
    Bits b;
    b.field = r.read_doubles(field);
    if (r.exists("/diagnostics"))
      for (const std::string& name : r.attribute_names("/diagnostics")) {
        const io::Value v = r.attribute("/diagnostics", name);
        b.diagnostics.push_back(name + "=" + std::visit([](const auto& x) { return text(x); }, v));
      }
    return b;
  }

  // A run of `steps_key` = 2n against one of n that checkpoints (every `every` steps, n by
  // default) and a restart of it that runs to 2n, on `restart_ranks` (-1: as many as `ranks`):
  // the same field, bit for bit, and the same diagnostics. The uninterrupted run is on as many
  // ranks as the restart.
  void expect_restart_alike(const std::string& text, const std::string& steps_key, std::int64_t n,
                            const std::string& field, const std::string& args = "",
                            int ranks = 0, std::int64_t every = 0, int restart_ranks = -1) {
    if (restart_ranks < 0) restart_ranks = ranks;
    const std::string twice = steps_key + "=" + std::to_string(2 * n);
    const CommandResult whole = run(text, "whole.h5", twice + " " + args, restart_ranks);
    ASSERT_EQ(whole.status, 0) << whole.output;
    const CommandResult first =
        run(text, "first.h5",
            steps_key + "=" + std::to_string(n) +
                " checkpoint.every=" + std::to_string(every > 0 ? every : n) + " " + args,
            ranks);
    ASSERT_EQ(first.status, 0) << first.output;
    ASSERT_TRUE(fs::exists(dir_ / "first.checkpoint.h5")) << first.output;
    const CommandResult rest =
        run(text, "rest.h5", twice + " --restart " + quoted(dir_ / "first.checkpoint.h5") + " " + args,
            restart_ranks);
    ASSERT_EQ(rest.status, 0) << rest.output;
    const Bits a = bits("whole.h5", field), b = bits("rest.h5", field);
    EXPECT_TRUE(same_bits(a.field, b.field)) << "the restarted run's field differs";
    EXPECT_EQ(a.diagnostics, b.diagnostics);
    io::ResultReader h5(dir_ / "rest.h5");
    EXPECT_EQ(std::get<std::string>(h5.attribute("/provenance", "restarted_from")),
              (dir_ / "first.checkpoint.h5").string());
  }

  // A run to the end that checkpoints every round and keeps three, restarted from the oldest
  // kept (two rounds before the end): the uninterrupted run's bits.
  void expect_restart_from_older_alike(const std::string& text, const std::string& field,
                                       const std::string& args, int ranks, int restart_ranks = -1) {
    if (restart_ranks < 0) restart_ranks = ranks;
    const CommandResult whole = run(text, "whole.h5", args, restart_ranks);
    ASSERT_EQ(whole.status, 0) << whole.output;
    const std::string file = "checkpoint.file=" + quoted(dir_ / "c.h5");
    const CommandResult first =
        run(text, "first.h5", "checkpoint.every=1 checkpoint.keep=3 " + file + " " + args, ranks);
    ASSERT_EQ(first.status, 0) << first.output;
    const CommandResult rest = run(text, "rest.h5",
                                   "--restart " + quoted(dir_ / "c.h5.2") + " " + file + " " + args,
                                   restart_ranks);
    ASSERT_EQ(rest.status, 0) << rest.output;
    const Bits a = bits("whole.h5", field), b = bits("rest.h5", field);
    EXPECT_TRUE(same_bits(a.field, b.field)) << "the restarted run's field differs";
    EXPECT_EQ(a.diagnostics, b.diagnostics);
  }

  static std::string text(bool v) { return v ? "1" : "0"; }
  static std::string text(std::int64_t v) { return std::to_string(v); }
  static std::string text(double v) {
    char t[40];
    std::snprintf(t, sizeof t, "%.17g", v);
    return t;
  }
  static std::string text(const std::string& v) { return v; }
  template <class V>
  static std::string text(const std::vector<V>& v) {
    std::string t;
    for (const auto& e : v) t += text(e) + ",";
    return t;
  }

  test::ScratchDir dir_;
};

// ---------------------------------------------------------------------------------------------
// The file's names and checksum.

TEST(CheckpointFile, NamesBesideTheResultAndOfEachRanksPart) {
  EXPECT_EQ(io::default_checkpoint_path("out/run.h5"), fs::path("out/run.checkpoint.h5"));
  EXPECT_EQ(io::checkpoint_part("out/c.h5", 0, 3), fs::path("out/c.h5"));
  EXPECT_EQ(io::checkpoint_part("out/c.h5", 2, 3), fs::path("out/c.rank2.h5"));
  EXPECT_EQ(io::checkpoint_part("out/c.h5", 0, 1), fs::path("out/c.h5"));
  // An older checkpoint's parts are named after its own name.
  EXPECT_EQ(io::checkpoint_part("out/c.h5.2", 1, 2), fs::path("out/c.h5.rank1.2"));
}

TEST(CheckpointFile, TheChecksumChangesWithAnyOneBit) {
  // Lengths that fill the eight lanes exactly, leave whole words over, and leave bytes over.
  for (const std::size_t bytes : {std::size_t{128}, std::size_t{136}, std::size_t{141}}) {
    std::vector<unsigned char> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 37 + 11);
    const std::string whole = io::state_checksum(data.data(), bytes);
    for (std::size_t bit = 0; bit < 8 * bytes; ++bit) {
      data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
      EXPECT_NE(io::state_checksum(data.data(), bytes), whole) << bytes << " bytes, bit " << bit;
      data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    }
    EXPECT_EQ(io::state_checksum(data.data(), bytes), whole);
    EXPECT_NE(io::state_checksum(data.data(), bytes - 1), whole) << "the length counts";
  }
}

// A whole of 10 values cut among 3 ranks as 4, 3 and 3, each part holding one halo value beside
// each neighbour (halos hold -1, not their owner's value: a reader must take every value from its
// owner), and a history every rank holds all of. Read on 2 ranks (5 and 5, with halos), and on 1.
class CheckpointPieces : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::uint64_t begin[] = {0, 4, 7, 10};
    for (int rank = 0; rank < 3; ++rank) {
      io::CheckpointWriter w(file(), "laplace3d", 12, rank, 3);
      w.file().set_attribute("/parameters", "grid.nz", std::int64_t{10});
      const std::uint64_t first = rank == 0 ? 0 : begin[rank] - 1;
      const std::uint64_t last = rank == 2 ? 10 : begin[rank + 1] + 1;
      std::vector<double> held;
      for (std::uint64_t i = first; i < last; ++i)
        held.push_back(i >= begin[rank] && i < begin[rank + 1] ? 100.0 + double(i) : -1.0);
      w.add("u", held.data(), held.size(), io::Share{10, first, begin[rank], begin[rank + 1]});
      const std::vector<double> history{1, 2, 3};
      w.add("history", history.data(), history.size(), io::Share{3, 0, 0, 3});
      w.add("mine", std::vector<double>{double(rank)});
      w.add("iterations", io::Value{std::int64_t{12}});
      w.commit(1);
    }
  }

  fs::path file() const { return dir_ / "c.h5"; }
  io::CheckpointReader read(int rank, int ranks) const {
    return io::CheckpointReader(file(), "laplace3d", rank, ranks,
                                {{"grid.nz", io::Value{std::int64_t{10}}}}, {});
  }

  test::ScratchDir dir_;
};

TEST_F(CheckpointPieces, AnotherRankCountReadsEachValueFromItsOwner) {
  // Rank 1 of 2 owns 5..9 and holds 4 below them as a halo: from parts 1 and 2.
  const io::CheckpointReader r = read(1, 2);
  EXPECT_EQ(r.written_ranks(), 3);
  EXPECT_EQ(r.step(), 12);
  EXPECT_EQ(r.doubles("u", 4, 6, 10), (std::vector<double>{104, 105, 106, 107, 108, 109}));
  EXPECT_EQ(r.doubles("history", 0, 3, 3), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.integer("iterations"), 12);
  // One rank: the whole, from all three.
  const io::CheckpointReader one = read(0, 1);
  std::vector<double> whole;
  for (int i = 0; i < 10; ++i) whole.push_back(100.0 + i);
  EXPECT_EQ(one.doubles("u", 0, 10, 10), whole);
}

TEST_F(CheckpointPieces, AsManyRanksReadTheirOwnPartAsWritten) {
  // Rank 1 of 3 reads its own part, halos as it wrote them.
  const io::CheckpointReader r = read(1, 3);
  EXPECT_EQ(r.doubles("u", 3, 5, 10), (std::vector<double>{-1, 104, 105, 106, -1}));
  EXPECT_EQ(r.doubles("mine", 1), std::vector<double>{1});
}

TEST_F(CheckpointPieces, WhatOnlyAsManyRanksCanReadIsRefusedNamingBothCounts) {
  const io::CheckpointReader r = read(0, 2);
  try {
    (void)r.doubles("mine", 1);
    ADD_FAILURE() << "a rank's own array was read on another rank count";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("written by 3 ranks, and this run has 2: its `mine` is "
                                         "each rank's own (restart on 3 ranks)"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)r.doubles("u", 0, 6, 12);
    ADD_FAILURE() << "a whole of another size was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a piece of 10 values, and this run's whole has 12"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CheckpointPieces, AMissingPartIsRefusedNamingIt) {
  fs::remove(io::checkpoint_part(file(), 2, 3));
  try {
    (void)read(0, 2);
    ADD_FAILURE() << "a checkpoint without its rank 2's part was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(io::checkpoint_part(file(), 2, 3).string()),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// 2N steps = N, checkpoint, restart, N more.

TEST_F(Checkpoints, Laplace3dCpuRestartGivesTheSameBits) {
  expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u");
}

TEST_F(Checkpoints, Laplace3dCpuDoubleRestartGivesTheSameBits) {
  expect_restart_alike(laplace3d("double"), "iteration.max_iterations", 20, "/fields/u");
}

TEST_F(Checkpoints, Laplace3dGpuRestartGivesTheSameBits) {
  PARASOL_REQUIRE_GPU();
  for (const char* variant : {"zreg", "temporal"}) {
    SCOPED_TRACE(variant);
    expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u",
                         std::string("--backend gpu method.variant=") + variant);
  }
}

TEST_F(Checkpoints, TridiagHeatCpuRestartGivesTheSameBits) {
  for (const char* precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    // 2N and N steps report progress at different intervals: the checkpoint's step is its own.
    expect_restart_alike(heat(precision), "heat.steps", 23, "/fields/u");
  }
}

TEST_F(Checkpoints, TridiagHeatGpuRestartGivesTheSameBits) {
  PARASOL_REQUIRE_GPU();
  for (const char* variant : {"thomas-pcr", "pcr-shared"}) {
    SCOPED_TRACE(variant);
    expect_restart_alike(heat(), "heat.steps", 23, "/fields/u",
                         std::string("--backend gpu method.variant=") + variant);
  }
}

// The estimate is in /estimate: compared as the field's stand-in, with the stored paths.
TEST_F(Checkpoints, MontecarloCpuRestartGivesTheSameBits) {
  // 3000 paths are three batches of 1000.
  expect_restart_alike(montecarlo(), "paths.count", 3000, "/fields/sample_paths", "", 0, 3);
  EXPECT_EQ(std::get<double>(io::ResultReader(dir_ / "whole.h5").attribute("/estimate", "price")),
            std::get<double>(io::ResultReader(dir_ / "rest.h5").attribute("/estimate", "price")));
  EXPECT_EQ(
      std::get<double>(io::ResultReader(dir_ / "whole.h5").attribute("/estimate", "standard_error")),
      std::get<double>(io::ResultReader(dir_ / "rest.h5").attribute("/estimate", "standard_error")));
}

TEST_F(Checkpoints, MontecarloGpuRestartGivesTheSameBits) {
  PARASOL_REQUIRE_GPU();
  expect_restart_alike(montecarlo(), "paths.count", 3000, "/fields/sample_paths",
                       "--backend gpu method.variant=\"device-rng\"", 0, 3);
  EXPECT_EQ(std::get<double>(io::ResultReader(dir_ / "whole.h5").attribute("/estimate", "price")),
            std::get<double>(io::ResultReader(dir_ / "rest.h5").attribute("/estimate", "price")));
  // host-rng's cuRAND stream does not resume to the same numbers: refused, naming the key.
  const CommandResult r = run(montecarlo(), "host.h5",
                              "--backend gpu method.variant=\"host-rng\" checkpoint.every=1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("method.variant"), std::string::npos) << r.output;
}

// N V-cycles, a checkpoint, a restart and N more: the 2N-cycle run's u and its whole history
// of residuals and factors, after FMG or from V-cycles alone, in both precisions and smoothers.
TEST_F(Checkpoints, PoissonCpuRestartGivesTheSameBits) {
  for (const char* precision : {"double", "float"})
    for (const char* cycle : {"fmg", "v"}) {
      SCOPED_TRACE(std::string(precision) + " " + cycle);
      expect_restart_alike(poisson(precision, cycle), "iteration.max_cycles", 3, "/fields/u");
    }
  SCOPED_TRACE("chebyshev");
  expect_restart_alike(poisson("float", "fmg", "chebyshev"), "iteration.max_cycles", 2,
                       "/fields/u");
}

TEST_F(Checkpoints, PoissonSingularRestartGivesTheSameBits) {
  const std::string neumann =
      "x_min = { kind = \"neumann\", value = 0.0 }\nx_max = { kind = \"neumann\", value = 0.0 }\n"
      "y_min = { kind = \"periodic\" }\ny_max = { kind = \"periodic\" }\n"
      "z_min = { kind = \"periodic\" }\nz_max = { kind = \"periodic\" }\n";
  expect_restart_alike(poisson("double", "fmg", "rbgs", neumann), "iteration.max_cycles", 3,
                       "/fields/u");
}

// A restart may set a tolerance (a key it may change) that the checkpoint's last cycle meets: it
// stops there at once, converged, as the uninterrupted run with that tolerance does.
TEST_F(Checkpoints, PoissonRestartToAToleranceMetStopsWhereTheWholeRunDoes) {
  const CommandResult probe = run(poisson(), "probe.h5", "");
  ASSERT_EQ(probe.status, 0) << probe.output;
  const std::vector<double> max = std::get<std::vector<double>>(
      io::ResultReader(dir_ / "probe.h5").attribute("/diagnostics", "residual_max"));
  ASSERT_EQ(max.size(), 5u);  // FMG and four V-cycles
  ASSERT_LT(max[3], max[2]);
  // Met first by V-cycle 3.
  const std::string tolerance = "iteration.tolerance=" + text(std::sqrt(max[2] * max[3]));
  const CommandResult whole = run(poisson(), "whole.h5", tolerance);
  ASSERT_EQ(whole.status, 0) << whole.output;
  const CommandResult first = run(poisson(), "first.h5", "iteration.max_cycles=3 checkpoint.every=3");
  ASSERT_EQ(first.status, 0) << first.output;
  const CommandResult rest = run(poisson(), "rest.h5",
                                 tolerance + " --restart " + quoted(dir_ / "first.checkpoint.h5"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  const Bits a = bits("whole.h5", "/fields/u"), b = bits("rest.h5", "/fields/u");
  EXPECT_TRUE(same_bits(a.field, b.field)) << "the restarted run's field differs";
  EXPECT_EQ(a.diagnostics, b.diagnostics);
  io::ResultReader h5(dir_ / "rest.h5");
  EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/diagnostics", "cycles")), 3);
  EXPECT_EQ(std::get<std::string>(h5.attribute("/diagnostics", "stop_reason")), "tolerance");
}

// The device solver's own bits (its norms are reduced in a tree, not the gold's plane order):
// a restart uploads u and replays the same V-cycle graph, so N + N cycles are the 2N run's.
TEST_F(Checkpoints, PoissonGpuRestartGivesTheSameBits) {
  PARASOL_REQUIRE_GPU();
  for (const char* variant : {"plain", "fused"})
    for (const char* cycle : {"fmg", "v"}) {
      SCOPED_TRACE(std::string(variant) + " " + cycle);
      expect_restart_alike(poisson("float", cycle), "iteration.max_cycles", 3, "/fields/u",
                           std::string("--backend gpu method.variant=") + variant);
    }
}

TEST_F(Checkpoints, ABasketRunIsRefusedARestart) {
  const CommandResult r =
      run(test::read_text(std::string(PARASOL_SOURCE_DIR) + "/inputs/montecarlo-basket.toml"),
          "out.h5", "--restart " + quoted(dir_ / "none.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("a basket run writes no checkpoints"), std::string::npos) << r.output;
}

class CheckpointsAcrossRanks : public Checkpoints {
 protected:
  void SetUp() override {
#ifndef PARASOL_TEST_MPIEXEC
    GTEST_SKIP() << "this build has no MPI: runs across ranks are not built";
#endif
  }
};

TEST_F(CheckpointsAcrossRanks, Laplace3dCpuOn2And3RanksRestartsToTheSameBits) {
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u", "", ranks);
    // Each rank wrote its own part, beside rank 0's.
    for (int r = 1; r < ranks; ++r)
      EXPECT_TRUE(fs::exists(io::checkpoint_part(dir_ / "first.checkpoint.h5", r, ranks)));
  }
}

TEST_F(CheckpointsAcrossRanks, TridiagHeatOn2And3RanksRestartsToTheSameBits) {
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expect_restart_alike(heat(), "heat.steps", 23, "/fields/u", "", ranks);
  }
}

TEST_F(CheckpointsAcrossRanks, MontecarloOn2And3RanksRestartsToTheSameBits) {
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expect_restart_from_older_alike(montecarlo(), "/fields/sample_paths", "paths.count=9000", ranks);
  }
}

TEST_F(CheckpointsAcrossRanks, Laplace3dFromAnOlderCheckpointOn3Ranks) {
  expect_restart_from_older_alike(laplace3d(), "/fields/u", "iteration.max_iterations=12", 3);
}

TEST_F(CheckpointsAcrossRanks, PoissonCpuOn2And3RanksRestartsToTheSameBits) {
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expect_restart_alike(poisson(), "iteration.max_cycles", 3, "/fields/u", "", ranks);
    for (int r = 1; r < ranks; ++r)
      EXPECT_TRUE(fs::exists(io::checkpoint_part(dir_ / "first.checkpoint.h5", r, ranks)));
  }
  // Restarted from FMG's checkpoint (step 0) and from a V-cycle's, in float.
  expect_restart_from_older_alike(poisson("float"), "/fields/u", "iteration.max_cycles=2", 3);
}

TEST_F(CheckpointsAcrossRanks, Laplace3dGpuOn2RanksRestartsToTheSameBits) {
  PARASOL_REQUIRE_GPU();
  expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u",
                       "--backend gpu method.variant=temporal", 2);
}

// A checkpoint written on one rank count continues on another: each rank reads its slab's planes
// (halos too) or its grids from whichever parts own them, and as every cut gives the one-rank
// run's bits, so does the restart. The counts cut 13 planes, 30 planes in blocks and 7 grids
// unevenly; 1 is a run with no launcher.
const std::vector<std::pair<int, int>> kOtherCounts{{2, 3}, {3, 1}, {1, 2}, {3, 2}};

std::string counts_text(const std::pair<int, int>& c) {
  return "written on " + std::to_string(c.first) + ", restarted on " + std::to_string(c.second);
}

// A rank count for run(): one rank runs without a launcher.
int launched(int ranks) { return ranks == 1 ? 0 : ranks; }

TEST_F(CheckpointsAcrossRanks, Laplace3dRestartsOnAnotherRankCountToTheSameBits) {
  for (const auto& c : kOtherCounts) {
    SCOPED_TRACE(counts_text(c));
    expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u", "",
                         launched(c.first), 0, launched(c.second));
  }
  SCOPED_TRACE("double");
  expect_restart_alike(laplace3d("double"), "iteration.max_iterations", 20, "/fields/u", "", 3, 0,
                       2);
}

TEST_F(CheckpointsAcrossRanks, PoissonRestartsOnAnotherRankCountToTheSameBits) {
  for (const auto& c : kOtherCounts) {
    SCOPED_TRACE(counts_text(c));
    expect_restart_alike(poisson(), "iteration.max_cycles", 2, "/fields/u", "", launched(c.first),
                         0, launched(c.second));
  }
  SCOPED_TRACE("float, V-cycles alone");
  expect_restart_alike(poisson("float", "v"), "iteration.max_cycles", 2, "/fields/u", "", 2, 0, 3);
}

TEST_F(CheckpointsAcrossRanks, TridiagHeatRestartsOnAnotherRankCountToTheSameBits) {
  for (const auto& c : kOtherCounts) {
    SCOPED_TRACE(counts_text(c));
    expect_restart_alike(heat(), "heat.steps", 23, "/fields/u", "", launched(c.first), 0,
                         launched(c.second));
  }
  SCOPED_TRACE("double");
  expect_restart_alike(heat("double"), "heat.steps", 23, "/fields/u", "", 2, 0, 3);
}

TEST_F(CheckpointsAcrossRanks, Laplace3dGpuRestartsOnAnotherRankCountToTheSameBits) {
  PARASOL_REQUIRE_GPU();
  // temporal's halos are four planes deep: the restart's come from their owners.
  expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u",
                       "--backend gpu method.variant=temporal", 2, 0, 3);
  expect_restart_alike(laplace3d(), "iteration.max_iterations", 35, "/fields/u",
                       "--backend gpu method.variant=zreg", 3, 0, 1);
}

// The GPU march holds its grids in its variant's layout: contiguous ones continue on any rank
// count; thomas's interleaved one only on as many ranks, refused naming both counts.
TEST_F(CheckpointsAcrossRanks, TridiagHeatGpuRestartsOnAnotherRankCountWhereItsLayoutAllows) {
  PARASOL_REQUIRE_GPU();
  expect_restart_alike(heat(), "heat.steps", 23, "/fields/u",
                       "--backend gpu method.variant=pcr-shared", 2, 0, 3);
  const CommandResult first = run(heat(), "first.h5",
                                  "--backend gpu method.variant=thomas heat.steps=10 checkpoint.every=10", 2);
  ASSERT_EQ(first.status, 0) << first.output;
  const CommandResult r = run(heat(), "refused.h5",
                              "--backend gpu method.variant=thomas heat.steps=20 --restart " +
                                  quoted(dir_ / "first.checkpoint.h5"),
                              3);
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "written by 2 ranks, and this run has 3: it holds each rank's grids "
                           "interleaved");
  EXPECT_FALSE(fs::exists(dir_ / "refused.h5"));  // (rest.h5 is the restart above's)
}

// montecarlo keeps the cut of the run that began it: each rank runs the streams of batches of the
// parts it took over, and the integer sums, added in any order, give the first run's bits. 9000
// paths are 4500 antithetic samples, batches of 500: 5 rounds on 2 ranks, 3 on 3; the stored
// paths (1600 samples) span two ranks' samples on 3.
TEST_F(CheckpointsAcrossRanks, MontecarloRestartsOnAnotherRankCountToTheSameBits) {
  for (const auto& c : kOtherCounts) {
    SCOPED_TRACE(counts_text(c));
    expect_restart_from_older_alike(montecarlo(), "/fields/sample_paths",
                                    "paths.count=9000 output.sample_paths=1600", launched(c.first),
                                    launched(c.second));
    for (const char* estimate : {"price", "standard_error"})
      EXPECT_EQ(
          std::get<double>(io::ResultReader(dir_ / "whole.h5").attribute("/estimate", estimate)),
          std::get<double>(io::ResultReader(dir_ / "rest.h5").attribute("/estimate", estimate)))
          << estimate;
  }
}

// A restart on another count checkpoints in turn, and its checkpoint continues on a third: the
// streams a rank took over are in its part.
TEST_F(CheckpointsAcrossRanks, MontecarloRestartsTwiceOnOtherRankCountsToTheSameBits) {
  const std::string args = "paths.count=9000 output.sample_paths=1600 checkpoint.every=1 ";
  const CommandResult whole = run(montecarlo(), "whole.h5", "paths.count=9000 output.sample_paths=1600");
  ASSERT_EQ(whole.status, 0) << whole.output;
  const CommandResult first = run(montecarlo(), "first.h5",
                                  args + "checkpoint.keep=3 checkpoint.file=" + quoted(dir_ / "a.h5"), 2);
  ASSERT_EQ(first.status, 0) << first.output;
  // From round 3 of 5 on 3 ranks, checkpointing rounds 4 and 5; from round 4 on one rank.
  const CommandResult second =
      run(montecarlo(), "second.h5",
          args + "checkpoint.keep=2 checkpoint.file=" + quoted(dir_ / "b.h5") + " --restart " +
              quoted(dir_ / "a.h5.2"),
          3);
  ASSERT_EQ(second.status, 0) << second.output;
  ASSERT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "b.h5.1").attribute("/", "step")), 4);
  const CommandResult rest = run(montecarlo(), "rest.h5",
                                 "paths.count=9000 output.sample_paths=1600 --restart " +
                                     quoted(dir_ / "b.h5.1"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_TRUE(same_bits(bits("whole.h5", "/fields/sample_paths").field,
                        bits("rest.h5", "/fields/sample_paths").field));
  EXPECT_EQ(std::get<double>(io::ResultReader(dir_ / "whole.h5").attribute("/estimate", "price")),
            std::get<double>(io::ResultReader(dir_ / "rest.h5").attribute("/estimate", "price")));
}

// A path count cuts the samples: a restart whose batches follow several ranks' cut keeps it, even
// on one rank (where a run begun on one rank may run more paths).
TEST_F(CheckpointsAcrossRanks, AMontecarloRestartOfSeveralRanksCutKeepsThePathCount) {
  const CommandResult first =
      run(montecarlo(), "first.h5", "paths.count=9000 checkpoint.every=1", 2);
  ASSERT_EQ(first.status, 0) << first.output;
  const std::string before = test::read_text(dir_ / "first.checkpoint.h5");
  const CommandResult r = run(montecarlo(), "rest.h5",
                              "paths.count=12000 --restart " + quoted(dir_ / "first.checkpoint.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "paths.count is 12000 here and 9000 in it, whose batches follow 2 "
                           "ranks' cut of the paths");
  EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
  EXPECT_EQ(test::read_text(dir_ / "first.checkpoint.h5"), before);
}

// On another rank count every part is read and checked: one missing, or of another step, is
// refused naming it.
TEST_F(CheckpointsAcrossRanks, AMissingOrStalePartIsRefusedOnAnotherRankCount) {
  const std::string file = "checkpoint.file=" + quoted(dir_ / "c.h5");
  const CommandResult first = run(laplace3d(), "first.h5",
                                  "iteration.max_iterations=20 checkpoint.every=10 checkpoint.keep=2 " + file,
                                  2);
  ASSERT_EQ(first.status, 0) << first.output;
  const fs::path part = io::checkpoint_part(dir_ / "c.h5", 1, 2);
  // Rank 1's part of the checkpoint before: step 10 beside rank 0's step 20.
  fs::copy_file(io::checkpoint_part(dir_ / "c.h5.1", 1, 2), part,
                fs::copy_options::overwrite_existing);
  const std::string rest = "iteration.max_iterations=40 --restart " + quoted(dir_ / "c.h5");
  const CommandResult stale = run(laplace3d(), "rest.h5", rest, 3);
  EXPECT_EQ(stale.status, 2) << stale.output;
  test::expect_one_line(stale, "its ranks' parts are of different steps (20 in rank 0's, 10 in this)");
  fs::remove(part);
  const CommandResult missing = run(laplace3d(), "rest.h5", rest, 3);
  EXPECT_EQ(missing.status, 2) << missing.output;
  test::expect_one_line(missing, "no such file");
  EXPECT_NE(missing.output.find(part.string()), std::string::npos) << missing.output;
  EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
}

// ---------------------------------------------------------------------------------------------
// Every checkpoint.every steps, keeping the newest `keep`.

TEST_F(Checkpoints, EveryNStepsKeepsTheNewestK) {
  const CommandResult r = run(laplace3d(), "out.h5",
                              "iteration.max_iterations=40 checkpoint.every=10 checkpoint.keep=3 "
                              "checkpoint.file=" +
                                  quoted(dir_ / "c.h5"));
  ASSERT_EQ(r.status, 0) << r.output;
  // Four written (10, 20, 30, 40): the newest under the name, two older beside it.
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "c.h5").attribute("/", "step")), 40);
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "c.h5.1").attribute("/", "step")), 30);
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "c.h5.2").attribute("/", "step")), 20);
  EXPECT_FALSE(fs::exists(dir_ / "c.h5.3"));
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "out.h5").attribute("/checkpoint", "written")), 4);
}

TEST_F(Checkpoints, EverySecondsWritesAtTheSafePointsOnceDue) {
  // Due at once: a checkpoint at every convergence check (10, 20, 30, 40).
  const CommandResult r = run(laplace3d(), "out.h5",
                              "iteration.max_iterations=40 checkpoint.every_seconds=1e-9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "out.h5").attribute("/checkpoint", "written")), 4);
  EXPECT_EQ(std::get<std::int64_t>(io::ResultReader(dir_ / "out.checkpoint.h5").attribute("/", "step")), 40);
}

// ---------------------------------------------------------------------------------------------
// Signals.

// A long CPU run on one thread that checkpoints on a signal, progress on every check.
std::vector<std::string> long_run(const fs::path& params, const fs::path& out,
                                  const std::string& every = "0") {
  return {kExe, "run", params.string(), "-o", out.string(), "grid.nx=60", "grid.ny=60",
          "grid.nz=60", "iteration.max_iterations=1000000", "iteration.check_every=5",
          "checkpoint.file=" + (out.parent_path() / "c.h5").string(), "checkpoint.every=" + every,
          "--backend", "cpu", "--threads", "1", "--progress", "0"};
}

TEST_F(Checkpoints, Sigusr1WritesACheckpointThatRestartsToTheUninterruptedBits) {
  const fs::path params = write_params(laplace3d());
  const test::SignalledRun r =
      test::signal_when_logged(long_run(params, dir_ / "long.h5"), dir_ / "job.log",
                               "  iteration ", SIGUSR1);
  ASSERT_TRUE(r.saw) << r.log;
  // The documented status, and a last line that names the checkpoint.
  ASSERT_TRUE(WIFEXITED(r.wait_status)) << r.log;
  EXPECT_EQ(WEXITSTATUS(r.wait_status), io::kCheckpointedStatus) << r.log;
  const std::vector<std::string> lines = lines_of(r.log);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("parasol: SIGUSR1: stopped at iteration ", 0), 0u) << r.log;
  EXPECT_NE(lines.back().find("--restart " + (dir_ / "c.h5").string()), std::string::npos) << r.log;
  EXPECT_FALSE(fs::exists(dir_ / "long.h5")) << "a stopped run wrote its result";

  // Continued a few iterations past the checkpoint, it gives an uninterrupted run's bits.
  const std::int64_t step = std::get<std::int64_t>(io::ResultReader(dir_ / "c.h5").attribute("/", "step"));
  ASSERT_GT(step, 0);
  ASSERT_EQ(step % 5, 0) << "a signal is answered at a convergence check";
  const std::string grid = "grid.nx=60 grid.ny=60 grid.nz=60 iteration.check_every=5 ";
  const std::string to = "iteration.max_iterations=" + std::to_string(step + 7) + " ";
  const CommandResult whole = run(laplace3d(), "whole.h5", grid + to);
  ASSERT_EQ(whole.status, 0) << whole.output;
  const CommandResult rest =
      run(laplace3d(), "rest.h5", grid + to + "--restart " + quoted(dir_ / "c.h5"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_TRUE(same_bits(bits("whole.h5", "/fields/u").field, bits("rest.h5", "/fields/u").field));
}

// poisson answers a signal after the cycle it is in, and continues from there to the bits of an
// uninterrupted run of as many cycles.
TEST_F(Checkpoints, PoissonSigusr1WritesACheckpointThatRestartsToTheUninterruptedBits) {
  const fs::path params = write_params(poisson());
  const std::vector<std::string> args = {
      kExe, "run", params.string(), "-o", (dir_ / "long.h5").string(),
      "iteration.max_cycles=1000000", "checkpoint.file=" + (dir_ / "c.h5").string(),
      "--backend", "cpu", "--threads", "1", "--progress", "0"};
  const test::SignalledRun r = test::signal_when_logged(args, dir_ / "job.log", "  cycle ", SIGUSR1);
  ASSERT_TRUE(r.saw) << r.log;
  ASSERT_TRUE(WIFEXITED(r.wait_status)) << r.log;
  EXPECT_EQ(WEXITSTATUS(r.wait_status), io::kCheckpointedStatus) << r.log;
  const std::vector<std::string> lines = lines_of(r.log);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("parasol: SIGUSR1: stopped at V-cycle ", 0), 0u) << r.log;
  EXPECT_FALSE(fs::exists(dir_ / "long.h5")) << "a stopped run wrote its result";

  const std::int64_t step = std::get<std::int64_t>(io::ResultReader(dir_ / "c.h5").attribute("/", "step"));
  ASSERT_GT(step, 0);
  const std::string to = "iteration.max_cycles=" + std::to_string(step + 3);
  const CommandResult whole = run(poisson(), "whole.h5", to);
  ASSERT_EQ(whole.status, 0) << whole.output;
  const CommandResult rest = run(poisson(), "rest.h5", to + " --restart " + quoted(dir_ / "c.h5"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  const Bits a = bits("whole.h5", "/fields/u"), b = bits("rest.h5", "/fields/u");
  EXPECT_TRUE(same_bits(a.field, b.field));
  EXPECT_EQ(a.diagnostics, b.diagnostics);
}

// The process among `launcher`'s descendants that is rank `rank`: the one whose environment says
// so (Open MPI's OMPI_COMM_WORLD_RANK, PMIx's PMIX_RANK). The launcher itself when none does.
pid_t rank_process(pid_t launcher, int rank) {
  const std::string tags[] = {"OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0',
                              "PMIX_RANK=" + std::to_string(rank) + '\0'};
  std::vector<pid_t> next{launcher};
  // A launcher may start its ranks through a proxy of its own: a few generations down.
  for (int generation = 0; generation < 3 && !next.empty(); ++generation) {
    std::vector<pid_t> children;
    for (const pid_t parent : next) {
      std::error_code ec;
      for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(parent) + "/task", ec)) {
        std::ifstream list(task.path() / "children");
        for (pid_t child = 0; list >> child;) children.push_back(child);
      }
    }
    for (const pid_t child : children) {
      const std::string environment = test::read_text("/proc/" + std::to_string(child) + "/environ");
      for (const std::string& tag : tags)
        if (environment.rfind(tag, 0) == 0 || environment.find('\0' + tag) != std::string::npos)
          return child;
    }
    next = children;
  }
  return launcher;
}

// Under a launcher on 2 ranks, a signal to the launcher (Open MPI's mpirun forwards SIGUSR1 to
// every rank) or to one rank alone (`to_rank`): the ranks agree at the next safe point, so every
// rank stops there, each writes its part of one checkpoint, one line names it, and the launcher
// ends with status 75. Restarted, it gives the uninterrupted run's bits.
class SignalsAcrossRanks : public Checkpoints {
 protected:
  void SetUp() override {
#ifndef PARASOL_TEST_MPIEXEC
    GTEST_SKIP() << "this build has no MPI: runs across ranks are not built";
#endif
  }

  void expect_every_rank_stops(int signal_number, const std::string& signal_name, int to_rank) {
    std::vector<std::string> args;
    {
      std::istringstream words(launcher(2));
      for (std::string w; words >> w;) args.push_back(w);
    }
    for (const std::string& a : long_run(write_params(laplace3d()), dir_ / "long.h5"))
      args.push_back(a);
    const auto whom = [to_rank](pid_t started) {
      return to_rank < 0 ? started : rank_process(started, to_rank);
    };
    const test::SignalledRun r = test::signal_when_logged(
        args, dir_ / "job.log", "  iteration ", signal_number, std::chrono::seconds(60), whom);
    ASSERT_TRUE(r.saw) << r.log;
    ASSERT_TRUE(WIFEXITED(r.wait_status)) << r.log;
    EXPECT_EQ(WEXITSTATUS(r.wait_status), io::kCheckpointedStatus) << r.log;

    // One line names the checkpoint (the launcher may add its own about the status after it).
    const fs::path checkpoint = dir_ / "c.h5";
    std::vector<std::string> naming;
    for (const std::string& line : lines_of(r.log))
      if (line.find("--restart " + checkpoint.string()) != std::string::npos) naming.push_back(line);
    ASSERT_EQ(naming.size(), 1u) << r.log;
    const std::string stopped = "parasol: " + signal_name + ": stopped at iteration ";
    ASSERT_EQ(naming[0].rfind(stopped, 0), 0u) << r.log;

    // One checkpoint: both ranks' parts, of the step the line names; no result, no temporary.
    const std::int64_t step = std::stoll(naming[0].substr(stopped.size()));
    ASSERT_GT(step, 0);
    EXPECT_EQ(step % 5, 0) << "a signal is answered at a convergence check";
    for (int rank = 0; rank < 2; ++rank) {
      io::ResultReader part(io::checkpoint_part(checkpoint, rank, 2));
      EXPECT_EQ(std::get<std::int64_t>(part.attribute("/", "step")), step) << "rank " << rank;
      EXPECT_EQ(std::get<std::int64_t>(part.attribute("/", "ranks")), 2);
    }
    EXPECT_FALSE(fs::exists(dir_ / "long.h5")) << "a stopped run wrote its result";
    for (const auto& entry : fs::directory_iterator(dir_.path()))
      EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
          << entry.path() << " left behind";

    // Continued on the same ranks a few iterations past it: an uninterrupted run's bits (one
    // rank's, which every cut gives).
    const std::string to = "grid.nx=60 grid.ny=60 grid.nz=60 iteration.check_every=5 "
                           "iteration.max_iterations=" + std::to_string(step + 7) + " ";
    const CommandResult whole = run(laplace3d(), "whole.h5", to);
    ASSERT_EQ(whole.status, 0) << whole.output;
    const CommandResult rest = run(laplace3d(), "rest.h5", to + "--restart " + quoted(checkpoint), 2);
    ASSERT_EQ(rest.status, 0) << rest.output;
    EXPECT_TRUE(same_bits(bits("whole.h5", "/fields/u").field, bits("rest.h5", "/fields/u").field));
  }
};

// Whether this machine's launcher passes SIGUSR1 on to its ranks, as Open MPI's mpirun does
// unless configured not to (not every installation does: docs/clusters.md): two shell ranks,
// each answering the signal with a line. Asked once a process.
bool launcher_forwards_sigusr1(const fs::path& dir) {
  static const bool forwards = [&] {
    std::vector<std::string> args;
    std::istringstream words(test::mpi_launcher(2));
    for (std::string w; words >> w;) args.push_back(w);
    args.insert(args.end(),
                {"/bin/sh", "-c",
                 "trap 'echo forwarded; exit 0' USR1; echo ready; i=0; "
                 "while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done"});
    const test::SignalledRun r = test::signal_when_logged(args, dir / "probe.log", "ready\nready\n",
                                                          SIGUSR1, std::chrono::seconds(30));
    std::size_t answered = 0;
    for (std::size_t at = r.log.find("forwarded"); at != std::string::npos;
         at = r.log.find("forwarded", at + 1))
      ++answered;
    return r.saw && answered == 2;
  }();
  return forwards;
}

TEST_F(SignalsAcrossRanks, Sigusr1ToTheLauncherStopsEveryRankAtOneSafePoint) {
  if (!launcher_forwards_sigusr1(dir_.path()))
    GTEST_SKIP() << test::mpi_launcher(2) << "does not pass SIGUSR1 on to its ranks on this "
                 << "machine: there one signals a rank, as docs/clusters.md says, which the "
                 << "tests that signal one rank cover";
  expect_every_rank_stops(SIGUSR1, "SIGUSR1", -1);
}

// The rank that is not rank 0, which speaks for the run: the others learn of it at the safe point.
TEST_F(SignalsAcrossRanks, SigtermToOneRankStopsEveryRankAtOneSafePoint) {
  expect_every_rank_stops(SIGTERM, "SIGTERM", 1);
}

TEST_F(SignalsAcrossRanks, Sigusr1ToRank0StopsEveryRankAtOneSafePoint) {
  expect_every_rank_stops(SIGUSR1, "SIGUSR1", 0);
}

TEST_F(Checkpoints, ASecondSignalEndsTheRunAtOnceAndLeavesTheCheckpointBefore) {
  const fs::path params = write_params(laplace3d());
  // A checkpoint every 5 iterations: one is there (the log says "checkpoint" only at the end,
  // so wait for the file), then two signals in a row.
  std::vector<std::string> args = long_run(params, dir_ / "long.h5", "5");
  const std::string log = (dir_ / "job.log").string();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir_ / "c.h5") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(dir_ / "c.h5"));
  kill(child, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  const std::string text = test::read_text(dir_ / "job.log");
  // Either the second signal came before the first was answered (dead of SIGTERM) or after the
  // run had stopped (75); both leave a whole checkpoint and no temporary.
  EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) ||
              (WIFEXITED(status) && WEXITSTATUS(status) == io::kCheckpointedStatus))
      << text;
  for (const auto& entry : fs::directory_iterator(dir_.path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
        << entry.path() << " left behind";
  const CommandResult rest = run(laplace3d(), "rest.h5",
                                 "grid.nx=60 grid.ny=60 grid.nz=60 iteration.check_every=5 "
                                 "iteration.max_iterations=2000 --restart " +
                                     quoted(dir_ / "c.h5"));
  EXPECT_EQ(rest.status, 0) << rest.output;
}

// ---------------------------------------------------------------------------------------------
// Refusals: exit 2, one line naming what does not match, nothing written or overwritten.

class RefusedCheckpoints : public Checkpoints {
 protected:
  void SetUp() override {
    const CommandResult first =
        run(laplace3d(), "first.h5", "iteration.max_iterations=20 checkpoint.every=20");
    ASSERT_EQ(first.status, 0) << first.output;
    checkpoint_ = dir_ / "first.checkpoint.h5";
  }

  std::string bytes() const { return test::read_text(checkpoint_); }

  void expect_refused(const std::string& says, const std::string& args = "") {
    const std::string before = bytes();
    const CommandResult r = run(laplace3d(), "rest.h5",
                                "iteration.max_iterations=40 --restart " + quoted(checkpoint_) +
                                    " " + args);
    EXPECT_EQ(r.status, 2) << r.output;
    const std::vector<std::string> lines = lines_of(r.output);
    ASSERT_EQ(lines.size(), 1u) << r.output;
    EXPECT_NE(lines[0].find("checkpoint refused: "), std::string::npos) << r.output;
    EXPECT_NE(lines[0].find(says), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
    EXPECT_EQ(bytes(), before) << "the checkpoint was changed";
  }

  // Where the field's values lie in the file (a contiguous dataset).
  haddr_t field_offset() const {
    const hid_t file = H5Fopen(checkpoint_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t set = H5Dopen2(file, "/state/u", H5P_DEFAULT);
    const haddr_t at = H5Dget_offset(set);
    H5Dclose(set);
    H5Fclose(file);
    return at;
  }

  fs::path checkpoint_;
};

TEST_F(RefusedCheckpoints, ADamagedFieldIsRefused) {
  const haddr_t at = field_offset();
  ASSERT_NE(at, HADDR_UNDEF);
  {
    std::fstream f(checkpoint_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at + 1000));
    f.put('\x5a');
  }
  expect_refused("the checksum of its `u` does not match");
}

TEST_F(RefusedCheckpoints, ATruncatedFileIsRefused) {
  fs::resize_file(checkpoint_, fs::file_size(checkpoint_) / 2);
  expect_refused("unreadable");
}

TEST_F(RefusedCheckpoints, AnotherProblemIsRefusedNamingTheKey) {
  expect_refused("grid.nx is 21 here and 20 in it", "grid.nx=21");
  expect_refused("initial.seed is 8 here and 7 in it", "initial.seed=8");
}

TEST_F(RefusedCheckpoints, ACheckpointPastTheLastIterationIsRefused) {
  const std::string before = bytes();
  const CommandResult r = run(laplace3d(), "rest.h5",
                              "iteration.max_iterations=15 --restart " + quoted(checkpoint_));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("it is at iteration 20, past iteration.max_iterations = 15"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
  EXPECT_EQ(bytes(), before);
}

TEST_F(RefusedCheckpoints, APoissonCheckpointPastTheLastCycleIsRefused) {
  const CommandResult first = run(poisson(), "p.h5", "checkpoint.every=4");
  ASSERT_EQ(first.status, 0) << first.output;
  const std::string before = test::read_text(dir_ / "p.checkpoint.h5");
  const CommandResult r = run(poisson(), "rest.h5",
                              "iteration.max_cycles=3 --restart " + quoted(dir_ / "p.checkpoint.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  test::expect_one_line(r, "it is at V-cycle 4, past iteration.max_cycles = 3");
  EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
  EXPECT_EQ(test::read_text(dir_ / "p.checkpoint.h5"), before);
  const CommandResult other = run(poisson(), "rest.h5",
                                  "grid.ny=28 --restart " + quoted(dir_ / "p.checkpoint.h5"));
  EXPECT_EQ(other.status, 2) << other.output;
  test::expect_one_line(other, "grid.ny is 28 here and 30 in it");
}

TEST_F(RefusedCheckpoints, AnotherSolversCheckpointIsRefused) {
  const std::string tridiag =
      "solver = \"tridiag\"\n[problem]\nkind = \"heat\"\n[heat]\npoints = 9\ngrids = 3\nsteps = 4\n";
  const std::string before = bytes();
  const CommandResult r = run(tridiag, "rest.h5", "--restart " + quoted(checkpoint_));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("written by laplace3d"), std::string::npos) << r.output;
  EXPECT_EQ(bytes(), before);
}

TEST_F(RefusedCheckpoints, AMissingCheckpointIsRefused) {
  checkpoint_ = dir_ / "none.h5";
  const CommandResult r = run(laplace3d(), "rest.h5", "--restart " + quoted(checkpoint_));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("no such file"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rest.h5"));
}

}  // namespace
}  // namespace parasol
