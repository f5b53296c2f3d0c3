// Outputs under faults: a full disk, two runs racing for one path, outputs that are not regular
// files, sidecars committed with their result, and temporaries left by killed runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

using test::read_text;

// What a call threw: "InputError: ...", "Error: ...", or "" when it threw nothing.
std::string outcome_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& e) {
    return std::string("InputError: ") + e.what();
  } catch (const Error& e) {
    return std::string("Error: ") + e.what();
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// A full disk, simulated: a forked child whose files may not grow past `limit` bytes, with
// SIGXFSZ ignored so that write() fails with EFBIG as it fails with ENOSPC on a full disk. The
// child reports outcome_of(body) through a pipe and ends with exit(), so that process-exit
// handlers run as they do in `parasol` (HDF5's own turned a full disk into a segfault there).

struct ChildOutcome {
  bool exited = false;  // false: killed by a signal (the crash this guards against)
  int signal = 0;
  std::string message;
};

ChildOutcome in_child_with_file_limit(rlim_t limit, const std::function<void()>& body) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error(std::strerror(errno));
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::strerror(errno));
  if (child == 0) {
    close(pipe_fds[0]);
    signal(SIGXFSZ, SIG_IGN);
    const rlimit small{limit, limit};
    setrlimit(RLIMIT_FSIZE, &small);
    std::string message;
    try {
      message = outcome_of(body);
    } catch (...) {
      message = "unexpected exception";
    }
    if (write(pipe_fds[1], message.data(), message.size()) < 0) _exit(3);
    close(pipe_fds[1]);
    std::exit(0);
  }
  close(pipe_fds[1]);
  ChildOutcome outcome;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    outcome.message.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  outcome.exited = WIFEXITED(status);
  outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return outcome;
}

void expect_one_line_error(const ChildOutcome& o, const std::string& part) {
  EXPECT_TRUE(o.exited) << "the child died of signal " << o.signal;
  EXPECT_EQ(o.message.rfind("Error: ", 0), 0u) << o.message;
  EXPECT_EQ(o.message.find('\n'), std::string::npos) << o.message;
  EXPECT_NE(o.message.find(part), std::string::npos) << o.message;
}

constexpr rlim_t kOneMiB = rlim_t{1} << 20;

TEST(FullDisk, FieldPastTheLimitIsOneLineAndLeavesNothing) {
  const test::ScratchDir dir;
  for (const char* compression : {"none", "deflate"}) {
    SCOPED_TRACE(compression);
    const ChildOutcome o = in_child_with_file_limit(kOneMiB, [&] {
      ResultFile out(dir / "out.h5", false, parse_compression(compression));
      out.add_sidecar(dir / "out.xmf", "<Xdmf/>");
      out.set_attribute("/", "solver", std::string("laplace3d"));
      std::vector<float> u(std::size_t{1} << 22);  // 16 MiB of noise, which no filter shrinks
      for (std::size_t i = 0; i < u.size(); ++i) u[i] = static_cast<float>((i * 2654435761u) % 1000003);
      out.write_field("/fields/u", u.data(), {64, 256, 256});
      out.commit();
    });
    expect_one_line_error(o, (dir / "out.h5").string() + ": H5Dwrite(/fields/u): failed (File too large)");
    EXPECT_TRUE(dir.empty()) << "left behind: " << entries(dir.path()).front();
  }
}

TEST(FullDisk, SidecarPastTheLimitTakesItsResultWithIt) {
  const test::ScratchDir dir;
  const ChildOutcome o = in_child_with_file_limit(kOneMiB, [&] {
    ResultFile out(dir / "out.h5", false);
    const float u[3] = {1, 2, 3};
    out.write_field("/fields/u", u, {3});
    out.add_sidecar(dir / "out.dx", std::string(3 * kOneMiB, '7'));
    out.commit();
  });
  expect_one_line_error(o, (dir / "out.dx").string() + ": writing ");
  EXPECT_NE(o.message.find("File too large"), std::string::npos) << o.message;
  EXPECT_TRUE(dir.empty()) << "left behind: " << entries(dir.path()).front();
}

TEST(FullDisk, MetadataPastTheLimitFailsByCommitAtTheLatest) {
  const test::ScratchDir dir;
  const ChildOutcome o = in_child_with_file_limit(kOneMiB, [&] {
    ResultFile out(dir / "out.h5", false);
    // Attributes live in HDF5's metadata cache until a flush: 2 MiB of them fail there.
    for (int g = 0; g < 40; ++g)
      out.set_attribute("/notes/" + std::to_string(g), "text", std::string(50000, 'n'));
    out.commit();
  });
  expect_one_line_error(o, (dir / "out.h5").string() + ": H5");
  EXPECT_NE(o.message.find("File too large"), std::string::npos) << o.message;
  EXPECT_TRUE(dir.empty()) << "left behind: " << entries(dir.path()).front();
}

TEST(FullDisk, WriteFileAtomicallyPastTheLimitLeavesNothing) {
  const test::ScratchDir dir;
  const ChildOutcome o = in_child_with_file_limit(kOneMiB, [&] {
    write_file_atomically(dir / "big.xmf", std::string(2 * kOneMiB, 'x'));
  });
  expect_one_line_error(o, "big.xmf: writing ");
  EXPECT_TRUE(dir.empty());
}

// ---------------------------------------------------------------------------------------------
// Two runs, one path.

TEST(Commit, OfTwoWritersToOnePathTheSecondIsToldAndTheFirstKept) {
  const test::ScratchDir dir;
  const double first = 1, second = 2;
  ResultFile a(dir / "out.h5", false);
  ResultFile b(dir / "out.h5", false);  // both passed the up-front check: the race is on
  a.write_field("/u", &first, {1});
  b.write_field("/u", &second, {1});
  a.commit();
  try {
    b.commit();
    FAIL() << "the second commit replaced the first";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), (dir / "out.h5").string());
    EXPECT_NE(std::string(e.what()).find("exists (use --force)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ResultReader(dir / "out.h5").read_doubles("/u"), std::vector<double>{1});
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.h5"});
}

TEST(Commit, WithForceTheLastWriterWins) {
  const test::ScratchDir dir;
  const double first = 1, second = 2;
  ResultFile a(dir / "out.h5", true);
  ResultFile b(dir / "out.h5", true);
  a.write_field("/u", &first, {1});
  b.write_field("/u", &second, {1});
  a.commit();
  b.commit();
  EXPECT_EQ(ResultReader(dir / "out.h5").read_doubles("/u"), std::vector<double>{2});
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.h5"});
}

TEST(Commit, TwoProcessesCommittingAtOnceMakeOneWinner) {
  const test::ScratchDir dir;
  for (int round = 0; round < 5; ++round) {
    fs::remove(dir / "out.h5");
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    std::fflush(nullptr);
    std::vector<pid_t> children;
    for (int writer = 0; writer < 2; ++writer) {
      const pid_t child = fork();
      ASSERT_GE(child, 0);
      if (child == 0) {
        close(go[1]);
        int status = 4;
        try {
          ResultFile out(dir / "out.h5", false);
          const double value = writer;
          out.write_field("/u", &value, {1});
          char byte;
          if (read(go[0], &byte, 1) != 0) _exit(5);  // both wait for the pipe to close
          out.commit();
          status = 0;
        } catch (const InputError& e) {
          status = std::string(e.what()).find("exists (use --force)") != std::string::npos ? 2 : 6;
        } catch (...) {
        }
        _exit(status);
      }
      children.push_back(child);
    }
    close(go[0]);
    close(go[1]);  // both go
    std::vector<int> statuses;
    for (const pid_t child : children) {
      int status = 0;
      waitpid(child, &status, 0);
      statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    std::sort(statuses.begin(), statuses.end());
    EXPECT_EQ(statuses, (std::vector<int>{0, 2})) << "round " << round;
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.h5"});
  }
}

// ---------------------------------------------------------------------------------------------
// Outputs that are not regular files, force or not.

TEST(OutputPath, DevicesFifosFoldersLinksToThemAndEmptyPathsAreRefused) {
  const test::ScratchDir dir;
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_directory(dir / "folder");
  fs::create_symlink("/dev/null", dir / "to-null");
  fs::create_symlink(dir / "folder", dir / "to-folder");
  const std::vector<std::string> before = entries(dir.path());
  const std::vector<std::pair<fs::path, std::string>> cases{
      {"/dev/null", "/dev/null: is a device"},
      {dir / "fifo", "fifo: is a FIFO"},
      {dir / "folder", "folder: is a folder"},
      {dir / "to-null", "to-null: is a device"},
      {dir / "to-folder", "to-folder: is a folder"},
      {"", "the path is empty"},
      {dir / "folder" / "", "expected a file name"},
  };
  for (const bool force : {false, true}) {
    for (const auto& [path, part] : cases) {
      SCOPED_TRACE(path.string() + (force ? " with force" : ""));
      for (const auto& call : std::vector<std::function<void()>>{
               [&, p = path] { ResultFile(p, force); },
               [&, p = path] {
                 ResultFile out(dir / "out.h5", force);
                 out.add_sidecar(p, "<Xdmf/>");
               },
               [&, p = path] {
                 ResultFile out(dir / "out.h5", force);
                 out.declare_sidecar(p);
               },
               [&, p = path] { write_file_atomically(p, "x"); }}) {
        const std::string what = outcome_of(call);
        EXPECT_EQ(what.rfind("InputError: ", 0), 0u) << what;
        EXPECT_NE(what.find(part), std::string::npos) << what;
      }
    }
  }
  EXPECT_EQ(entries(dir.path()), before);
  EXPECT_EQ(read_text("/dev/null"), "");
}

// ---------------------------------------------------------------------------------------------
// Sidecars commit with their result.

TEST(Sidecars, CommitWithTheResultAndNotBefore) {
  const test::ScratchDir dir;
  const float u[2] = {1, 2};
  ResultFile out(dir / "out.h5", false);
  out.declare_sidecar(dir / "out.xmf");
  out.write_field("/fields/u", u, {2});
  out.add_sidecar(dir / "out.xmf", "<Xdmf>u</Xdmf>");
  out.add_sidecar(dir / "out.dx", "object 1");
  for (const std::string& name : entries(dir.path())) EXPECT_EQ(name.front(), '.') << name;
  out.commit();
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"out.dx", "out.h5", "out.xmf"}));
  EXPECT_EQ(read_text(dir / "out.xmf"), "<Xdmf>u</Xdmf>");
  EXPECT_EQ(read_text(dir / "out.dx"), "object 1");
}

TEST(Sidecars, AnExistingOneIsRefusedUpFrontWithoutForce) {
  const test::ScratchDir dir;
  { std::ofstream(dir / "out.xmf") << "old"; }
  ResultFile out(dir / "out.h5", false);
  const std::string declared = outcome_of([&] { out.declare_sidecar(dir / "out.xmf"); });
  EXPECT_NE(declared.find("InputError: " + (dir / "out.xmf").string() + ": exists (use --force)"),
            std::string::npos)
      << declared;
  const std::string added = outcome_of([&] { out.add_sidecar(dir / "out.xmf", "new"); });
  EXPECT_NE(added.find("exists (use --force)"), std::string::npos) << added;
  EXPECT_EQ(read_text(dir / "out.xmf"), "old");
}

TEST(Sidecars, WithForceStaleOnesOfTheSameOutputGo) {
  const test::ScratchDir dir;
  for (const char* name : {"out.h5", "out.xmf", "out.dx", "other.xmf"})
    std::ofstream(dir / name) << "old";
  ResultFile out(dir / "out.h5", true);
  out.set_attribute("/", "solver", std::string("montecarlo"));
  out.add_sidecar(dir / "out.xmf", "new");
  out.commit();
  // out.dx belonged to the old result and would describe a field the new one lacks.
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"other.xmf", "out.h5", "out.xmf"}));
  EXPECT_EQ(read_text(dir / "out.xmf"), "new");
  EXPECT_EQ(read_text(dir / "other.xmf"), "old");
}

TEST(Sidecars, OneThatCannotBePlacedTakesTheWholeRunWithIt) {
  const test::ScratchDir dir;
  const float u[2] = {1, 2};
  ResultFile out(dir / "out.h5", false);
  out.write_field("/fields/u", u, {2});
  out.add_sidecar(dir / "out.xmf", "<Xdmf/>");
  { std::ofstream(dir / "out.xmf") << "another run's"; }  // appeared meanwhile
  const std::string what = outcome_of([&] { out.commit(); });
  EXPECT_NE(what.find("InputError: " + (dir / "out.xmf").string() + ": exists (use --force)"),
            std::string::npos)
      << what;
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.xmf"});
  EXPECT_EQ(read_text(dir / "out.xmf"), "another run's");
}

TEST(Sidecars, UncommittedRunLeavesNoneOfThem) {
  const test::ScratchDir dir;
  {
    ResultFile out(dir / "out.h5", false);
    out.add_sidecar(dir / "out.xmf", "<Xdmf/>");
    out.add_sidecar(dir / "out.dx", "object 1");
  }
  EXPECT_TRUE(dir.empty());
}

// ---------------------------------------------------------------------------------------------
// Temporaries of runs that were killed.

// A process id that has just ended (a child that exited at once).
pid_t ended_process() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST(Temporaries, ThoseOfEndedRunsAreRemovedWithALineAndOthersKept) {
  const test::ScratchDir dir;
  const pid_t ended = ended_process();
  const pid_t live = fork();
  if (live == 0) {
    pause();
    _exit(0);
  }
  const std::string mine = temporary_prefix("out.h5");
  const std::string dead_name = mine + std::to_string(ended) + "-0";
  const std::vector<std::string> kept{mine + std::to_string(live) + "-3",   // alive
                                      ".out.h5.tmp-elsewhere-" + std::to_string(ended) + "-0",
                                      temporary_prefix("other.h5") + std::to_string(ended) + "-0",
                                      mine + "notapid-1"};
  std::ofstream(dir / dead_name) << "partial";
  for (const std::string& name : kept) std::ofstream(dir / name) << "partial";

  testing::internal::CaptureStderr();
  {
    ResultFile out(dir / "out.h5", false);
    out.commit();
  }
  const std::string said = testing::internal::GetCapturedStderr();
  kill(live, SIGKILL);
  waitpid(live, nullptr, 0);

  EXPECT_EQ(said, "parasol: removed " + dead_name +
                      " left by an earlier run that ended (process " + std::to_string(ended) +
                      ")\n");
  std::vector<std::string> expected = kept;
  expected.push_back("out.h5");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(entries(dir.path()), expected);
}

TEST(Temporaries, ThoseOfARunKilledOutrightAreRecognised) {
  const test::ScratchDir dir;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    ResultFile out(dir / "out.h5", false);
    const float u[4] = {1, 2, 3, 4};
    out.write_field("/u", u, {4});
    out.add_sidecar(dir / "out.xmf", "<Xdmf/>");
    if (write(ready[1], "r", 1) != 1) _exit(3);
    pause();  // until SIGKILL: no destructor, no signal handler runs
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(entries(dir.path()).size(), 2u) << "the killed run's two temporaries";

  testing::internal::CaptureStderr();
  {
    ResultFile out(dir / "out.h5", false);
    out.add_sidecar(dir / "out.xmf", "<Xdmf/>");
    out.commit();
  }
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 2) << said;
  EXPECT_NE(said.find("(process " + std::to_string(child) + ")"), std::string::npos) << said;
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"out.h5", "out.xmf"}));
}

}  // namespace
}  // namespace parasol::io
