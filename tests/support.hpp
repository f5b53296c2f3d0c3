// Shared test support: GPU presence, scratch folders, running the front end.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"

namespace parasol::test {

// Open MPI puts its session directory under $TMPDIR in a folder named by host and user alone;
// two test processes that start mpirun at the same instant race to make it, and the loser's
// orte_init fails ("mkdir ... File exists"; seen once in 2,600 tests under ctest -j2). Each test
// process gives what it launches a TMPDIR of its own, removed when the process ends.
class OwnTmpdir {
 public:
  OwnTmpdir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != 0 ? base : "/tmp") +
                          "/parasol-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return;  // launches keep the shared one
    dir_ = pattern;
    owner_ = ::getpid();
    ::setenv("TMPDIR", dir_.c_str(), 1);
  }
  ~OwnTmpdir() {
    // Only by the process that made it: a forked child that exits normally must not take the
    // folder (and the test's files in it) with it.
    std::error_code ec;
    if (!dir_.empty() && ::getpid() == owner_) std::filesystem::remove_all(dir_, ec);
  }
  OwnTmpdir(const OwnTmpdir&) = delete;
  OwnTmpdir& operator=(const OwnTmpdir&) = delete;

 private:
  std::string dir_;
  pid_t owner_ = 0;
};
inline OwnTmpdir own_tmpdir;

// GPU tests skip, saying why, on machines without a device; they never pass vacuously.
#define PARASOL_REQUIRE_GPU()                                             \
  do {                                                                    \
    std::string parasol_reason_;                                          \
    if (!::parasol::gpu_available(&parasol_reason_))                      \
      GTEST_SKIP() << "needs a CUDA device: " << parasol_reason_;         \
  } while (0)

// A fresh folder, removed with everything in it at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device entropy;
    path_ = std::filesystem::temp_directory_path() /
            ("parasol-test-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  bool empty() const { return std::filesystem::is_empty(path_); }

 private:
  std::filesystem::path path_;
};

// The parasol binary the tests run (every test program is built with its path).
#ifdef PARASOL_EXE
inline const std::string kExe = PARASOL_EXE;
#endif

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A path as one word of a shell command line (the tests' paths hold no single quote).
inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// A number attribute of a result file's `object` (an io::ResultReader, or anything with its
// attribute()).
template <class Reader>
double number(const Reader& h5, const std::string& object, const std::string& name) {
  return std::get<double>(h5.attribute(object, name));
}

// The same for a text, a whole-number and a list-of-whole-numbers attribute.
template <class Reader>
std::string text(const Reader& h5, const std::string& object, const std::string& name) {
  return std::get<std::string>(h5.attribute(object, name));
}
template <class Reader>
std::int64_t integer(const Reader& h5, const std::string& object, const std::string& name) {
  return std::get<std::int64_t>(h5.attribute(object, name));
}
template <class Reader>
std::vector<std::int64_t> integers(const Reader& h5, const std::string& object,
                                   const std::string& name) {
  return std::get<std::vector<std::int64_t>>(h5.attribute(object, name));
}

// The row of a sweep file's table that --autotune stores: the fastest (median_s) of those that
// passed their check; the row count when none did.
template <class Reader>
std::size_t fastest_passing_row(const Reader& h5) {
  const std::vector<double> seconds = h5.read_doubles("/sweep/median_s");
  const std::vector<std::int64_t> passed = h5.read_ints("/sweep/passed");
  std::size_t fastest = seconds.size();
  for (std::size_t i = 0; i < seconds.size(); ++i)
    if (passed[i] == 1 && (fastest == seconds.size() || seconds[i] < seconds[fastest])) fastest = i;
  return fastest;
}

struct CommandResult {
  int status = -1;     // exit status, or -1 when the process did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and collects what it prints.
inline CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr)
    result.output += chunk.data();
  const int raw = pclose(pipe);
  if (WIFEXITED(raw)) result.status = WEXITSTATUS(raw);
  return result;
}

// A GPU run draws a generated input on the device unless it needs the host's copy: the gold of
// --check reads it, output.input writes it. `run` (a command line up to its output) run both
// ways, with both into dir/host.h5 and with neither into dir/device.h5; true when both ran.
inline bool ran_drawn_on_host_and_on_device(const std::string& run, const ScratchDir& dir) {
  const CommandResult host =
      run_shell(run + " --check output.input=true -o " + quoted(dir / "host.h5"));
  EXPECT_EQ(host.status, 0) << host.output;
  const CommandResult device = run_shell(run + " output.input=false -o " + quoted(dir / "device.h5"));
  EXPECT_EQ(device.status, 0) << device.output;
  return host.status == 0 && device.status == 0;
}

// The same for a run whose device and host draws must agree to the bit: the host-drawn file
// holds the drawn `input` (a dataset), the device-drawn one does not, and `output` is the same
// in both, bit for bit. `what` names the case in a failure. `Reader` is io::ResultReader.
template <class Reader>
void expect_device_draws_give_host_bits(const std::string& run, const ScratchDir& dir,
                                        const std::string& input, const std::string& output,
                                        const std::string& what) {
  if (!ran_drawn_on_host_and_on_device(run, dir)) return;
  Reader h(dir / "host.h5"), d(dir / "device.h5");
  ASSERT_TRUE(h.exists(input)) << what;  // the host path drew it
  EXPECT_FALSE(d.exists(input)) << what;
  const std::vector<double> from_host = h.read_doubles(output);
  const std::vector<double> from_device = d.read_doubles(output);
  ASSERT_EQ(from_host.size(), from_device.size()) << what;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < from_host.size(); ++i)
    differ += std::memcmp(&from_host[i], &from_device[i], sizeof(double)) != 0;
  EXPECT_EQ(differ, 0u) << what << ": of " << from_host.size() << " values of " << output;
}

// `text` cut at its line breaks (a last line without one counts too).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A run as a batch job makes one: `args` (the program first; no shell) with stdout and stderr
// both going to `log`. Once the log holds `wait_for` (or after `patience`), the run gets
// `signal_number`, or with `whom` the process it names given the run's (one rank of those a
// launcher started, say). Returns waitpid's status: WIFSIGNALED and WTERMSIG say how it ended.
struct SignalledRun {
  int wait_status = 0;
  bool saw = false;  // the log held `wait_for` before the signal was sent
  std::string log;   // all the run printed
};
inline SignalledRun signal_when_logged(const std::vector<std::string>& args,
                                       const std::filesystem::path& log,
                                       const std::string& wait_for, int signal_number,
                                       std::chrono::seconds patience = std::chrono::seconds(60),
                                       const std::function<pid_t(pid_t)>& whom = {}) {
  // Made before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string log_path = log.string();
  std::error_code ignored;
  std::filesystem::remove(log, ignored);  // an earlier run's log is not this one's
  SignalledRun r;
  const pid_t child = fork();
  if (child < 0) return r;
  if (child == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(127);
    close(fd);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_text(log).find(wait_for) != std::string::npos) {
      r.saw = true;
      break;
    }
    if (waitpid(child, &r.wait_status, WNOHANG) == child) {  // ended before it was due
      r.log = read_text(log);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(whom ? whom(child) : child, signal_number);
  waitpid(child, &r.wait_status, 0);
  r.log = read_text(log);
  return r;
}

// Only the files named in `inputs` are in `dir`: a failed run left nothing behind.
inline void expect_only_inputs(const ScratchDir& dir, std::initializer_list<const char*> inputs) {
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    bool input = false;
    for (const char* kept : inputs) input = input || name == kept;
    EXPECT_TRUE(input) << "left behind: " << entry.path();
  }
}

// A run refused for bad input: exit status 2, one line of output that contains `part`, and
// nothing in `dir` but its `inputs`.
inline void expect_input_error(const CommandResult& r, const std::string& part,
                               const ScratchDir& dir, std::initializer_list<const char*> inputs) {
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(part), std::string::npos) << r.output << "\nexpected to contain: " << part;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  expect_only_inputs(dir, inputs);
}

// `n` values drawn uniformly from [-1, 1) by a 64-bit Mersenne Twister seeded with `seed`, in T.
template <class T>
std::vector<T> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

// max |a[i] - b[i]| over the shorter of the two.
inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// Seeded so a failure can be reproduced; the seed goes into the failure message via SCOPED_TRACE.
inline constexpr std::uint64_t kSeed = 20261121;

// The CPU solvers' thread count set for one scope, put back after it.
class Threads {
 public:
  explicit Threads(int n) : before_(cpu_threads()) { set_cpu_threads(n); }
  ~Threads() { set_cpu_threads(before_); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int before_;
};

}  // namespace parasol::test
