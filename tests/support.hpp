// Shared test support: GPU presence, scratch folders, running the front end.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <random>
#include <string>

#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"

namespace parasol::test {

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
