// The front end's output under faults, as a user meets them: a full disk, outputs that are not
// files, --compression's forms, and parameter files mangled at random. Each failure is one line
// on stderr, exit status 2 for bad input and 1 otherwise, and leaves nothing behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "io/result_file.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;

using test::kExe;
using test::contains;
using test::quoted;
const std::string kInputs = std::string(PARASOL_SOURCE_DIR) + "/inputs/";

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Runs the front end with its stdout thrown away: what is left is what it says on stderr.
test::CommandResult run_quiet(const std::string& args, const std::string& prefix = "") {
  return test::run_shell("{ " + prefix + kExe + " " + args + " 2>&1 >/dev/null; }");
}

TEST(IoCli, FullDiskIsOneLineExitOneAndLeavesNothing) {
  const test::ScratchDir dir;
  // Files may not grow past 256 KiB; SIGXFSZ ignored, so writes fail as on a full disk.
  const auto r = test::run_shell(
      "prlimit --fsize=262144 sh -c \"trap '' XFSZ; exec " + kExe + " run " + kInputs +
      "laplace3d.toml --backend cpu iteration.max_iterations=5 -o " + quoted(dir / "out.h5") +
      " >/dev/null\"");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  // Where it fails (the field's write, or the flush of its last chunk) depends on HDF5's caches.
  EXPECT_TRUE(contains(r.output, "parasol: " + (dir / "out.h5").string() + ": H5")) << r.output;
  EXPECT_TRUE(contains(r.output, ": failed (File too large)")) << r.output;
  EXPECT_TRUE(dir.empty()) << r.output;
}

TEST(IoCli, OutputsThatAreNotFilesAreRefusedBeforeComputing) {
  const test::ScratchDir dir;
  fs::create_directory(dir / "folder");
  for (const std::string& output : {std::string("/dev/null"), (dir / "folder").string()}) {
    for (const char* force : {"", " --force"}) {
      const auto r = run_quiet("run " + kInputs + "laplace3d.toml --backend cpu -o " +
                               quoted(fs::path(output)) + force);
      EXPECT_EQ(r.status, 2) << r.output;
      EXPECT_EQ(lines(r.output), 1u) << r.output;
      EXPECT_TRUE(contains(r.output, output + ": is a ")) << r.output;
    }
  }
  EXPECT_EQ(fs::directory_iterator(dir.path())->path().filename(), "folder");
  EXPECT_TRUE(fs::is_empty(dir / "folder"));
}

TEST(IoCli, CompressionTakesNamedFiltersAndRefusesOthersInOneLine) {
  const test::ScratchDir dir;
  // The Blosc plugin is a Debian package CI installs; a machine without it checks the refusals.
  std::string missing;
  try {
    io::require_filter(io::parse_compression("zstd:3"));
  } catch (const InputError& e) {
    missing = e.what();
  }
  if (missing.empty()) {
    const auto r = run_quiet("run " + kInputs +
                             "laplace3d.toml --backend cpu iteration.max_iterations=5 -o " +
                             quoted(dir / "z.h5") + " --compression zstd:3");
    ASSERT_EQ(r.status, 0) << r.output;
    const io::ResultReader h5(dir / "z.h5");
    EXPECT_TRUE(h5.is_compressed("/fields/u"));
    EXPECT_TRUE(h5.attribute("/fields/u", "compression") ==
                io::AttributeValue(std::string("zstd:3")));
  } else {
    std::cout << "zstd:3 not written here: " << missing << "\n";
  }
  for (const char* bad : {"zstd:0", "zfp", "brotli"}) {
    const auto refused = run_quiet("run " + kInputs + "laplace3d.toml --backend cpu -o " +
                                   quoted(dir / "bad.h5") + " --compression " + bad);
    EXPECT_EQ(refused.status, 2) << bad << ": " << refused.output;
    EXPECT_EQ(lines(refused.output), 1u) << refused.output;
    EXPECT_TRUE(contains(refused.output, "parasol: command line: --compression: expected one of"))
        << refused.output;
    EXPECT_FALSE(fs::exists(dir / "bad.h5"));
  }
}

// Mangled parameter files through the whole front end. Each case ends with a key no solver
// knows, so none of them computes: every run must end with status 2 and one line.
TEST(IoCli, MangledParameterFilesEndInOneLineAndStatusTwo) {
  std::vector<std::string> examples;
  for (const char* name : {"laplace3d.toml", "coulomb.toml", "fftconv.toml", "montecarlo.toml",
                           "tridiag-file.toml", "recurrence.toml", "heat1d.toml"}) {
    std::ifstream in(kInputs + name);
    std::ostringstream text;
    text << in.rdbuf();
    examples.push_back(text.str());
  }
  const std::vector<std::string> tokens{"[", "]", "=", "\"", "\n[grid]\n", "inf", "-1", "1e999",
                                        "\"\"\"", "{", "[method]\nvariant = 7\n", "\xff", "#"};
  const std::uint64_t seed = test::kSeed;
  std::mt19937_64 gen(seed);
  const test::ScratchDir dir;
  for (int i = 0; i < 40; ++i) {
    std::string text = examples[gen() % examples.size()];
    for (int edits = 1 + static_cast<int>(gen() % 3); edits-- > 0;) {
      const std::size_t at = gen() % (text.size() + 1);
      if (gen() % 2 == 0)
        text.insert(at, tokens[gen() % tokens.size()]);
      else
        text.erase(at, gen() % 30);
    }
    text += "\nfuzz_key_no_solver_reads = 1\n";
    const fs::path params = dir / "p.toml";
    std::ofstream(params, std::ios::trunc) << text;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", case " + std::to_string(i) + ":\n" + text);
    const auto r = run_quiet("run " + quoted(params) + " --backend cpu -o " + quoted(dir / "out.h5"),
                             "timeout 60 ");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(contains(r.output, "parasol: ")) << r.output;
    for (const auto& entry : fs::directory_iterator(dir.path()))
      EXPECT_EQ(entry.path().filename(), "p.toml") << "left behind: " << entry.path();
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace parasol
