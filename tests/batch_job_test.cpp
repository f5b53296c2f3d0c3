// The front end in a scheduler's batch job: output into a file, no terminal, ended by a signal.
// Every line is in the log as it is printed, progress comes as plain lines, a signal's end is
// said on one line and leaves nothing behind, and every command-line mistake is one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "apps/progress.hpp"
#include "apps/ranks.hpp"
#include "kernels/error.hpp"
#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;
using test::contains;
using test::quoted;
using test::lines_of;
const std::string kLaplace = std::string(PARASOL_SOURCE_DIR) + "/inputs/laplace3d.toml";

// Progress lines as a log gets them: "  iteration 40/100000  max|du| ...".
std::size_t progress_lines(const std::string& log) {
  const auto lines = lines_of(log);
  return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("  iteration ", 0) == 0 && contains(l, " left");
  }));
}

// A long CPU run: a 160^3 grid on one thread, 10^5 iterations with no tolerance to stop them,
// a convergence check (and so a progress report) every 5 iterations.
std::vector<std::string> long_run(const test::ScratchDir& dir, const std::string& progress) {
  return {kExe, "run", kLaplace, "-o", (dir / "out.h5").string(), "grid.nx=160", "grid.ny=160",
          "grid.nz=160", "iteration.max_iterations=100000", "iteration.tolerance=0",
          "iteration.check_every=5", "--backend", "cpu", "--threads", "1", "--progress", progress};
}

class BatchJob : public ::testing::Test {
 protected:
  test::ScratchDir out_;  // the run's output folder: nothing may be left in it
  test::ScratchDir logs_;
};

TEST_F(BatchJob, SigtermMidRunIsSaidInTheLogAndLeavesNothing) {
  const test::SignalledRun r =
      test::signal_when_logged(long_run(out_, "0.5"), logs_ / "job.log", "  iteration ", SIGTERM);
  ASSERT_TRUE(r.saw) << "no progress line reached the log:\n" << r.log;
  // The documented status: dead of SIGTERM (a shell reports 128 + 15 = 143).
  EXPECT_TRUE(WIFSIGNALED(r.wait_status) && WTERMSIG(r.wait_status) == SIGTERM)
      << "wait status " << r.wait_status << "\n" << r.log;
  // The header was not lost in a buffer, progress came as whole lines, and the end is said.
  EXPECT_TRUE(contains(r.log, "laplace3d: 160x160x160 float, CPU gold solver")) << r.log;
  EXPECT_GE(progress_lines(r.log), 1u) << r.log;
  EXPECT_FALSE(contains(r.log, "\r")) << "a redrawn line in a log:\n" << r.log;
  const auto lines = lines_of(r.log);
  ASSERT_FALSE(lines.empty());
  const std::string& last = lines.back();
  EXPECT_EQ(last.rfind("parasol: interrupted by SIGTERM at iteration ", 0), 0u) << r.log;
  EXPECT_TRUE(contains(last, " of 100000 after ")) << last;
  EXPECT_TRUE(contains(last, " s; nothing written")) << last;
  EXPECT_TRUE(out_.empty()) << "the run left its result or a temporary behind";
}

TEST_F(BatchJob, EverySignalThatEndsARunIsHandledAlike) {
  // SIGUSR1 (Slurm's warning ahead of a time limit) ends a process by default, as the others do.
  for (const int signal_number : {SIGUSR1, SIGINT, SIGHUP}) {
    const std::string name = signal_number == SIGUSR1 ? "SIGUSR1"
                             : signal_number == SIGINT ? "SIGINT"
                                                       : "SIGHUP";
    SCOPED_TRACE(name);
    const test::SignalledRun r = test::signal_when_logged(long_run(out_, "0"), logs_ / "job.log",
                                                          "  iteration ", signal_number);
    ASSERT_TRUE(r.saw) << r.log;
    EXPECT_TRUE(WIFSIGNALED(r.wait_status) && WTERMSIG(r.wait_status) == signal_number) << r.log;
    EXPECT_TRUE(contains(r.log, "parasol: interrupted by " + name + " at iteration ")) << r.log;
    EXPECT_TRUE(out_.empty());
  }
}

TEST_F(BatchJob, ProgressIntervalAndQuiet) {
  const std::string run = kExe + " run " + kLaplace + " -o " + quoted(out_ / "out.h5") +
                          " grid.nx=24 grid.ny=24 grid.nz=24 iteration.max_iterations=200 "
                          "iteration.tolerance=0 iteration.check_every=10 --backend cpu --force ";
  // Off a terminal, every report with --progress 0: 20 checks, 20 lines.
  auto r = test::run_shell(run + "--progress 0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(progress_lines(r.output), 20u) << r.output;
  EXPECT_FALSE(contains(r.output, "\r")) << r.output;
  // The default interval, 10 s, is longer than this run: the log has the summary only.
  r = test::run_shell(run);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(progress_lines(r.output), 0u) << r.output;
  r = test::run_shell(run + "--progress 0 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(progress_lines(r.output), 0u) << r.output;
  EXPECT_TRUE(contains(r.output, "  wrote ")) << r.output;
}

// A phase with no progress of its own (a long setup, a write of sidecars) is not silent in a log.
TEST(Heartbeat, ALongPhaseSaysItIsStillRunningOffATerminal) {
  if (isatty(STDERR_FILENO) != 0) GTEST_SKIP() << "stderr is a terminal: heartbeats are for logs";
  app::configure_progress(0, false);  // heartbeats at their shortest interval, a second
  testing::internal::CaptureStderr();
  {
    const app::Heartbeat beat("setup");
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  }
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(said, "  setup: running for 1 s\n")) << said;
  EXPECT_GE(std::count(said.begin(), said.end(), '\n'), 2) << said;
  app::configure_progress(0, true);  // --quiet: none
  testing::internal::CaptureStderr();
  {
    const app::Heartbeat beat("setup");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  app::configure_progress(app::kDefaultProgressInterval, false);
}

// Across ranks, --backend auto never falls back to the CPU on every rank because one lacks a
// GPU (a silent slowdown of a hundred times): the run is refused, naming that rank.
TEST(AgreedBackend, RanksWithoutAGpuAmongRanksWithOneAreNamed) {
  using app::Backend;
  const std::string none = "no CUDA device found";
  const std::vector<app::RankGpu> mixed{{true, "node1", ""}, {false, "node2", none},
                                        {true, "node3", ""}, {false, "node4", none}};
  try {
    app::agree_on_backend(Backend::automatic, mixed);
    ADD_FAILURE() << "a mixed run went ahead";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--backend auto: ranks 1 (node2), 3 (node4) cannot use a GPU: no CUDA device found; "
              "the other ranks can. Pass --backend cpu to run the CPU solver on every rank, or "
              "give every rank a GPU");
  }
  try {
    app::agree_on_backend(Backend::gpu, mixed);
    ADD_FAILURE() << "a mixed run went ahead";
  } catch (const InputError& e) {
    ADD_FAILURE() << "--backend gpu without a device is a failure, not bad input: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--backend gpu: ranks 1 (node2), 3 (node4)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(app::agree_on_backend(Backend::cpu, mixed), Backend::cpu);
  const std::vector<app::RankGpu> all{{true, "node1", ""}, {true, "node2", ""}};
  EXPECT_EQ(app::agree_on_backend(Backend::automatic, all), Backend::gpu);
  EXPECT_EQ(app::agree_on_backend(Backend::gpu, all), Backend::gpu);
  const std::vector<app::RankGpu> nowhere{{false, "node1", none}, {false, "node2", none}};
  EXPECT_EQ(app::agree_on_backend(Backend::automatic, nowhere), Backend::cpu);
  EXPECT_THROW(app::agree_on_backend(Backend::gpu, nowhere), Error);
}

TEST_F(BatchJob, InfoWithoutADeviceSaysWhatWillRun) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto r = test::run_shell(kExe + " info");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "device: none (" + reason + ")")) << r.output;
  EXPECT_TRUE(contains(r.output, "CPU backend: ")) << r.output;
  EXPECT_TRUE(contains(r.output, "`parasol run` runs the CPU gold solver")) << r.output;
}

TEST_F(BatchJob, SweepByDefaultSweepsTheCpuWithoutADevice) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present";
  const auto r = test::run_shell(kExe + " sweep " + kLaplace + " -o " + quoted(out_ / "s.h5") +
                                 " grid.nx=16 grid.ny=16 grid.nz=16 iteration.max_iterations=20 "
                                 "sweep.min_time=0 --threads 2");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "parasol: " + reason + "; sweeping the CPU solver")) << r.output;
  io::ResultReader h5(out_ / "s.h5");
  EXPECT_EQ(std::get<std::string>(h5.attribute("/sweep", "backend")), "cpu");
  EXPECT_EQ(h5.read_ints("/sweep/threads"), (std::vector<std::int64_t>{1, 2}));
}

// Every command-line mistake: status 2 and one line, "parasol: ..." and where to read more.
TEST_F(BatchJob, CommandLineErrorsAreOneLine) {
  const std::string run = kExe + " run " + kLaplace + " -o " + quoted(out_ / "out.h5") + " ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {kExe + " --frobnicate", "--frobnicate"},
      {kExe, "subcommand"},
      {kExe + " frobnicate", "frobnicate"},
      {kExe + " run", "params"},
      {run + "-o " + quoted(out_ / "again.h5"), "--output"},
      {run + "--threads 0", "--threads"},
      {run + "--progress -1", "--progress"},
      {run + "--backend tpu", "--backend"},
      {kExe + " sweep " + kLaplace + " --autotune-file " + quoted(out_ / "a.toml"), "--autotune"},
  };
  for (const auto& [command, names] : cases) {
    SCOPED_TRACE(command);
    const auto r = test::run_shell(command);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_EQ(r.output.rfind("parasol: ", 0), 0u) << r.output;
    EXPECT_TRUE(contains(r.output, names)) << r.output;
    EXPECT_TRUE(contains(r.output, " --help")) << r.output;
  }
  EXPECT_TRUE(contains(test::run_shell(run + "--threads 0").output, "see parasol run --help"));
  EXPECT_TRUE(contains(test::run_shell(kExe + " --frobnicate").output, "see parasol --help"));
  EXPECT_TRUE(out_.empty());
}

TEST_F(BatchJob, HelpAndVersionStillPrintWhole) {
  auto r = test::run_shell(kExe + " --version");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(r.output.empty());
  EXPECT_FALSE(contains(r.output, "parasol: ")) << r.output;
  r = test::run_shell(kExe + " run --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--progress")) << r.output;
  EXPECT_TRUE(contains(r.output, "--quiet")) << r.output;
  EXPECT_GT(std::count(r.output.begin(), r.output.end(), '\n'), 10) << r.output;
}

}  // namespace
}  // namespace parasol
