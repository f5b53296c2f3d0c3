// What the tests of `mpirun -np N parasol run` share: a scratch directory holding the parameter
// file, a run under the launcher (or without one), the lines the program printed, and a bitwise
// comparison of results.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "io/result_reader.hpp"
#include "tests/support.hpp"

namespace parasol::test {

inline const std::string kParasol = PARASOL_EXE;

// The lines the program itself printed (mpirun adds its own when a rank exits non-zero).
inline std::vector<std::string> parasol_lines(const std::string& output) {
  std::vector<std::string> lines;
  for (std::string& line : lines_of(output))
    if (line.rfind("parasol:", 0) == 0) lines.push_back(std::move(line));
  return lines;
}

// The launcher's command for `ranks` ranks, with a trailing space; empty for 0 (no launcher) and
// in builds without MPI.
inline std::string mpi_launcher(int ranks) {
#ifdef PARASOL_TEST_MPIEXEC
  if (ranks > 0) return std::string(PARASOL_TEST_MPIEXEC) + " " + std::to_string(ranks) + " ";
#endif
  (void)ranks;
  return "";
}

// How many summaries a run printed: under several ranks, rank 0 alone speaks.
inline std::size_t summaries(const std::string& output) {
  std::size_t count = 0;
  for (std::size_t at = output.find("  wrote "); at != std::string::npos;
       at = output.find("  wrote ", at + 1))
    ++count;
  return count;
}

// A run that failed as a run across ranks must: exactly one line of the program's (rank 0's),
// saying `says`.
inline void expect_one_line(const CommandResult& r, const std::string& says) {
  const std::vector<std::string> lines = parasol_lines(r.output);
  ASSERT_EQ(lines.size(), 1u) << r.output;
  EXPECT_NE(lines[0].find(says), std::string::npos) << r.output;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Skips in builds without MPI; runs `parasol run` on a parameter file in its scratch directory.
class RanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef PARASOL_TEST_MPIEXEC
    GTEST_SKIP() << "this build has no MPI: runs across ranks are not built";
#endif
  }

  std::filesystem::path write_params(const std::string& text, const std::string& name = "p.toml") {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  static std::string launcher(int ranks) { return mpi_launcher(ranks); }

  // `parasol run` of `text` under the launcher with `ranks` ranks (0: no launcher), writing
  // `output` in the scratch directory, --force, and `args`: --backend cpu unless they name one.
  CommandResult run(int ranks, const std::string& text, const std::string& output,
                    const std::string& args = "") {
    const std::string backend =
        args.find("--backend") == std::string::npos ? " --backend cpu" : "";
    return run_shell(launcher(ranks) + kParasol + " run " + quoted(write_params(text)) + " -o " +
                     quoted(dir_ / output) + backend + " --force " + args);
  }

  // A field of a result in the scratch directory (`dataset`: /fields/u by default), in the
  // run's precision T.
  template <class T>
  std::vector<T> field(const std::string& output, const std::string& dataset = "/fields/u") {
    io::ResultReader h5(dir_ / output);
    if constexpr (sizeof(T) == 4) return h5.read_floats(dataset);
    else return h5.read_doubles(dataset);
  }

  ScratchDir dir_;
};

}  // namespace parasol::test
