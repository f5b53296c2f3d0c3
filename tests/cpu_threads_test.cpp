// --threads: the rule auto follows, what a count beyond the cores becomes, where the count used is
// stored; OpenMP's waiting policy; and the run's start-up accounted in /timings.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/result_reader.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::read_text;
const std::string kInputs = std::string(PARASOL_SOURCE_DIR) + "/inputs/";

TEST(AutoThreads, SharesTheCoresAmongTheRanksOnTheHost) {
  EXPECT_EQ(auto_threads(2, 1, 0), 2);
  EXPECT_EQ(auto_threads(16, 4, 0), 4);
  EXPECT_EQ(auto_threads(16, 3, 0), 5);  // the remainder stays idle rather than oversubscribed
  // Three ranks on two cores: one thread each, never none.
  EXPECT_EQ(auto_threads(2, 3, 0), 1);
  EXPECT_EQ(auto_threads(1, 1, 0), 1);
  EXPECT_EQ(auto_threads(0, 0, 0), 1);
}

TEST(AutoThreads, GivesEachThreadAtLeastItsShareOfWork) {
  EXPECT_EQ(auto_threads(16, 1, 8 * 8 * 8), 1);  // a trivial problem runs on one thread
  EXPECT_EQ(auto_threads(16, 1, kMinItemsPerThread - 1), 1);
  EXPECT_EQ(auto_threads(16, 1, 4 * kMinItemsPerThread), 4);
  EXPECT_EQ(auto_threads(16, 1, 4 * kMinItemsPerThread + kMinItemsPerThread / 2), 4);
  EXPECT_EQ(auto_threads(16, 1, 100 * kMinItemsPerThread), 16);  // then the cores are the cap
  EXPECT_EQ(auto_threads(16, 8, 100 * kMinItemsPerThread), 2);
  EXPECT_EQ(auto_threads(2, 1, 64 * 64 * 64), 2);
}

TEST(AutoThreads, ARankBoundBelowItsShareIsToldHowToGetIt) {
  // Open MPI's default for two ranks: each bound to one core of a 16-core host.
  const std::string line = bound_below_share(1, 16, 2);
  EXPECT_NE(line.find("each rank may use 1 core of this host's 16"), std::string::npos) << line;
  EXPECT_NE(line.find("--map-by slot:PE=8"), std::string::npos) << line;
  // Its share or more, or alone on the host: nothing to say.
  EXPECT_TRUE(bound_below_share(8, 16, 2).empty());
  EXPECT_TRUE(bound_below_share(2, 2, 2).empty());
  EXPECT_TRUE(bound_below_share(16, 16, 1).empty());
}

TEST(ThreadsOption, TakesAutoOrACount) {
  EXPECT_TRUE(parse_threads("auto").automatic);
  const ThreadsOption four = parse_threads("4");
  EXPECT_FALSE(four.automatic);
  EXPECT_EQ(four.count, 4);
  EXPECT_EQ(parse_threads("99999999999").count, 1'000'000);  // clamped to the cores when applied
  for (const char* bad : {"0", "-1", "", "two", "4x", "Auto"}) {
    try {
      parse_threads(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "--threads");
      EXPECT_NE(e.expected().find("auto or a whole number"), std::string::npos) << e.what();
    }
  }
}

TEST(ThreadsOption, ACountBeyondTheCoresIsClampedAndSaidSo) {
  const int cores = available_cores();
  const std::string note = apply_threads_option({false, cores + 1}, 1);
  EXPECT_NE(note.find("--threads " + std::to_string(cores + 1)), std::string::npos) << note;
  EXPECT_NE(note.find("using " + std::to_string(cores)), std::string::npos) << note;
#ifdef _OPENMP
  EXPECT_EQ(cpu_threads(), cores);
#endif
  EXPECT_EQ(apply_threads_option({false, 1}, 1), "");
  fit_cpu_threads(1);  // a count given is kept, whatever the problem
  EXPECT_EQ(cpu_threads(), 1);
  set_cpu_threads(cores);
}

TEST(ThreadsOption, AutoFitsTheProblemOnceItIsKnown) {
  EXPECT_EQ(apply_threads_option({}, 1), "");
#ifdef _OPENMP
  EXPECT_EQ(cpu_threads(), available_cores());
  fit_cpu_threads(8 * 8 * 8);
  EXPECT_EQ(cpu_threads(), 1);
  EXPECT_NE(describe_cpu_threads().find("1 CPU thread (auto"), std::string::npos)
      << describe_cpu_threads();
#endif
  set_cpu_threads(available_cores());
}

TEST(PassiveOpenMp, OnlyForCommandsThatSolveAndOnlyWhenTheUserChoseNothing) {
  const char* plain[] = {"PATH=/bin", "HOME=/root", nullptr};
  const char* run[] = {"run", "p.toml", "--backend", "cpu"};
  EXPECT_TRUE(wants_passive_openmp(4, run, plain));
  const char* sweep[] = {"sweep", "p.toml"};
  EXPECT_TRUE(wants_passive_openmp(2, sweep, plain));
  const char* chosen[] = {"PATH=/bin", "OMP_WAIT_POLICY=active", nullptr};
  EXPECT_FALSE(wants_passive_openmp(4, run, chosen));
  const char* spin[] = {"GOMP_SPINCOUNT=1000", nullptr};
  EXPECT_FALSE(wants_passive_openmp(4, run, spin));
  const char* help[] = {"--help"};
  EXPECT_FALSE(wants_passive_openmp(1, help, plain));
  const char* solvers[] = {"solvers"};
  EXPECT_FALSE(wants_passive_openmp(1, solvers, plain));
  // One thread never waits for another.
  const char* one[] = {"run", "p.toml", "--threads", "1"};
  EXPECT_FALSE(wants_passive_openmp(4, one, plain));
  const char* one_joined[] = {"run", "p.toml", "--threads=1"};
  EXPECT_FALSE(wants_passive_openmp(3, one_joined, plain));
  const char* two[] = {"run", "p.toml", "--threads", "2"};
  EXPECT_TRUE(wants_passive_openmp(4, two, plain));
}

TEST(ProcessStart, IsBeforeNowAndBeforeThisTest) {
  const auto test_began = std::chrono::steady_clock::now();
  const auto start = process_start();
  EXPECT_LE(start, test_began);
  EXPECT_GT(seconds_since(start), 0.0);
}

std::int64_t integer(const io::ResultReader& h5, const char* object, const char* name) {
  return std::get<std::int64_t>(h5.attribute(object, name));
}

// The trivial run, its stderr kept apart from its stdout.
struct TrivialRun {
  test::CommandResult stdout_;
  std::string stderr_;
};
TrivialRun run_trivial(const test::ScratchDir& dir, const std::string& args) {
  const std::string err = (dir / "stderr.txt").string();
  TrivialRun r;
  r.stdout_ = test::run_shell("(" + kExe + " run " + kInputs +
                              "laplace3d.toml grid.nx=8 grid.ny=8 grid.nz=8 --backend cpu -o '" +
                              (dir / "out.h5").string() + "' " + args + " 2>'" + err + "')");
  r.stderr_ = read_text(err);
  return r;
}

TEST(ThreadsCli, ACountBeyondTheCoresIsClampedWithOneLineAndTheRunGoesOn) {
  test::ScratchDir dir;
  const TrivialRun r = run_trivial(dir, "--threads 4096");
  ASSERT_EQ(r.stdout_.status, 0) << r.stdout_.output << r.stderr_;
  const int cores = available_cores();
  EXPECT_EQ(r.stderr_, "parasol: --threads 4096: this process may use " + std::to_string(cores) +
                           (cores == 1 ? " core" : " cores") + "; using " +
                           std::to_string(cores) + "\n");
  io::ResultReader h5(dir / "out.h5");
  EXPECT_EQ(integer(h5, "/provenance", "threads"), cores);
  EXPECT_NE(r.stdout_.output.find(std::to_string(cores) + " CPU thread"), std::string::npos)
      << r.stdout_.output;
}

TEST(ThreadsCli, AutoGivesATrivialProblemOneThreadAndStoresIt) {
  test::ScratchDir dir;
  const TrivialRun r = run_trivial(dir, "");
  ASSERT_EQ(r.stdout_.status, 0) << r.stdout_.output << r.stderr_;
  EXPECT_EQ(r.stderr_, "");
  EXPECT_NE(r.stdout_.output.find("1 CPU thread (auto"), std::string::npos) << r.stdout_.output;
  io::ResultReader h5(dir / "out.h5");
  EXPECT_EQ(integer(h5, "/provenance", "threads"), 1);
}

TEST(ThreadsCli, TheStartUpIsAPhaseAndThePhasesMakeTheWallTime) {
  test::ScratchDir dir;
  const TrivialRun r = run_trivial(dir, "--threads 1");
  ASSERT_EQ(r.stdout_.status, 0) << r.stdout_.output << r.stderr_;
  EXPECT_NE(r.stdout_.output.find(": startup "), std::string::npos) << r.stdout_.output;
  io::ResultReader h5(dir / "out.h5");
  const double startup = std::get<double>(h5.attribute("/timings", "startup_s"));
  const double wall = std::get<double>(h5.attribute("/timings", "wall_s"));
  EXPECT_GT(startup, 0.0);
  double phases = 0;
  for (const std::string& name : h5.attribute_names("/timings")) {
    const auto ends_with = [&](const std::string& end) {
      return name.size() > end.size() && name.compare(name.size() - end.size(), end.size(), end) == 0;
    };
    const bool phase = ends_with("_s") && !ends_with("_per_s") && name != "wall_s";
    if (phase) phases += std::get<double>(h5.attribute("/timings", name));
  }
  // The phases follow one another inside the wall time; what is between them is a few lines of
  // bookkeeping, so they make most of it even on a loaded machine.
  EXPECT_LE(phases, wall * (1 + 1e-9));
  EXPECT_GE(phases, 0.5 * wall) << "startup " << startup << " s of wall " << wall << " s";
}

}  // namespace
}  // namespace parasol
