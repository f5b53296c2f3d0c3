// The front end against inputs that are not what they seem: an output that is one of the run's
// inputs, inputs that are folders, FIFOs, devices or symlink loops, an empty -o, oversized
// parameter files and keys, names no temporary could sit beside, and a file-size limit. Each
// refusal is one line on stderr, exit 2 for bad input and 1 otherwise, and nothing is left.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;

using test::kExe;
using test::contains;
using test::read_text;
const fs::path kInputs = fs::path(PARASOL_SOURCE_DIR) / "inputs";

std::string shell_quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The front end with its stdout thrown away, bounded in time (a FIFO must not block it): what is
// left is what it says on stderr.
test::CommandResult run_quiet(const std::string& args) {
  return test::run_shell("{ timeout 60 " + kExe + " " + args + " 2>&1 >/dev/null; }");
}

// A copy of inputs/tridiag-file.toml and the batch it reads, in `dir`.
fs::path tridiag_copy(const test::ScratchDir& dir) {
  fs::copy_file(kInputs / "tridiag-file.toml", dir / "t.toml");
  fs::copy_file(kInputs / "tridiag-systems.h5", dir / "tridiag-systems.h5");
  return dir / "t.toml";
}

TEST(IoInputs, TheParameterFileIsNeverTheOutputForceOrNot) {
  const test::ScratchDir dir;
  fs::copy_file(kInputs / "laplace3d.toml", dir / "mine.toml");
  const std::string before = read_text(dir / "mine.toml");
  fs::create_symlink("mine.toml", dir / "link.h5");
  fs::create_hard_link(dir / "mine.toml", dir / "hard.h5");
  for (const char* output : {"mine.toml", "link.h5", "hard.h5"}) {
    for (const char* force : {"", " --force"}) {
      SCOPED_TRACE(std::string(output) + force);
      const auto r = run_quiet("run " + shell_quoted(dir / "mine.toml") +
                               " --backend cpu iteration.max_iterations=2 -o " +
                               shell_quoted(dir / output) + force);
      EXPECT_EQ(r.status, 2) << r.output;
      EXPECT_EQ(lines(r.output), 1u) << r.output;
      EXPECT_TRUE(contains(r.output, (dir / output).string() + ": is the parameter file")) << r.output;
    }
  }
  EXPECT_EQ(read_text(dir / "mine.toml"), before);
  test::expect_only_inputs(dir, {"mine.toml", "link.h5", "hard.h5"});
}

TEST(IoInputs, AnInputFileIsNeverTheOutputNorASidecar) {
  const test::ScratchDir dir;
  const fs::path params = tridiag_copy(dir);
  const std::string before = read_text(dir / "tridiag-systems.h5");
  const auto r = run_quiet("run " + shell_quoted(params) + " --backend cpu --force -o " +
                           shell_quoted(dir / "tridiag-systems.h5"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(contains(r.output, "is the file input.file names")) << r.output;
  EXPECT_EQ(read_text(dir / "tridiag-systems.h5"), before);

  // coulomb's potential sidecar (out.dx beside out.h5) over its own atoms file.
  fs::copy_file(kInputs / "fkbp-dmso.pqr", dir / "out.dx");
  const auto s = run_quiet("run " + shell_quoted(kInputs / "coulomb.toml") + " --backend cpu --force " +
                           "atoms.file=" + shell_quoted(dir / "out.dx") +
                           " atoms.format=pqr output.dx=true -o " + shell_quoted(dir / "out.h5"));
  EXPECT_EQ(s.status, 2) << s.output;
  EXPECT_EQ(lines(s.output), 1u) << s.output;
  EXPECT_TRUE(contains(s.output, (dir / "out.dx").string() + ": is the file atoms.file names"))
      << s.output;
  EXPECT_EQ(read_text(dir / "out.dx"), read_text(kInputs / "fkbp-dmso.pqr"));
  test::expect_only_inputs(dir, {"t.toml", "tridiag-systems.h5", "out.dx"});
}

TEST(IoInputs, AnEmptyOutputNameIsRefused) {
  const test::ScratchDir dir;
  for (const char* command : {"run", "sweep"}) {
    const auto r = test::run_shell("cd " + shell_quoted(dir.path()) + " && { timeout 60 " + kExe + " " +
                                   command + " " + shell_quoted(kInputs / "laplace3d.toml") +
                                   " --backend cpu -o '' 2>&1 >/dev/null; }");
    EXPECT_EQ(r.status, 2) << command << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(contains(r.output, "-o: expected a file name, got an empty one")) << r.output;
    EXPECT_TRUE(dir.empty());
  }
}

TEST(IoInputs, InputsThatAreNotRegularFilesAreRefusedNamingTheKey) {
  const test::ScratchDir dir;
  const fs::path params = tridiag_copy(dir);
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_symlink("loop", dir / "loop");
  const std::pair<std::string, std::string> cases[] = {
      {".", "is a folder"},
      {(dir / "fifo").string(), "is a FIFO"},
      {"/dev/zero", "is a device"},
      {(dir / "loop").string(), "is a loop of symbolic links"}};
  for (const auto& [file, why] : cases) {
    SCOPED_TRACE(file);
    const auto r = run_quiet("run " + shell_quoted(params) + " --backend cpu input.file=" + shell_quoted(file) +
                             " -o " + shell_quoted(dir / "out.h5"));
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(contains(r.output, "command line: input.file: \"" + file + "\" " + why)) << r.output;
  }
  test::expect_only_inputs(dir, {"t.toml", "tridiag-systems.h5", "fifo", "loop"});
}

TEST(IoInputs, ParameterFilesThatAreNotFilesOrAreHugeAreRefusedUnread) {
  const test::ScratchDir dir;
  ASSERT_EQ(mkfifo((dir / "fifo.toml").c_str(), 0600), 0);
  fs::create_symlink("loop.toml", dir / "loop.toml");
  {
    // Sparse: 17 MiB that take no disk.
    std::ofstream(dir / "huge.toml") << "solver = \"laplace3d\"\n";
    fs::resize_file(dir / "huge.toml", std::uintmax_t{17} << 20);
  }
  const std::pair<fs::path, std::string> cases[] = {
      {dir / "fifo.toml", "is a FIFO; expected a TOML parameter file"},
      {"/dev/zero", "is a device; expected a TOML parameter file"},
      {dir / "loop.toml", "is a loop of symbolic links; expected a TOML parameter file"},
      {dir / "huge.toml", "is larger than 16 MiB; expected a TOML parameter file"}};
  for (const auto& [params, why] : cases) {
    SCOPED_TRACE(params.string());
    const auto r = run_quiet("run " + shell_quoted(params) + " --backend cpu -o " + shell_quoted(dir / "out.h5"));
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(contains(r.output, params.string() + ": " + why)) << r.output;
  }
  test::expect_only_inputs(dir, {"fifo.toml", "loop.toml", "huge.toml"});
}

TEST(IoInputs, LongKeysAndNamesWithLineBreaksStayOnOneShortLine) {
  const test::ScratchDir dir;
  const std::string key(1 << 20, 'k');
  std::ofstream(dir / "long.toml") << read_text(kInputs / "laplace3d.toml") << "\n" << key << " = 1\n";
  const auto r = run_quiet("run " + shell_quoted(dir / "long.toml") + " --backend cpu -o " +
                           shell_quoted(dir / "out.h5"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.output), 1u);
  EXPECT_LT(r.output.size(), 400u) << r.output.substr(0, 400);
  EXPECT_TRUE(contains(r.output, std::string(40, 'k') + "\xe2\x80\xa6: unknown key"))
      << r.output.substr(0, 400);

  // A parameter file whose name holds a line break: the name is escaped, the message one line.
  const fs::path odd = dir / "a\nb.toml";
  std::ofstream(odd) << read_text(kInputs / "laplace3d.toml") << "\nno_such_key = 1\n";
  const auto o = run_quiet("run " + shell_quoted(odd) + " --backend cpu -o " + shell_quoted(dir / "out.h5"));
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(lines(o.output), 1u) << o.output;
  EXPECT_TRUE(contains(o.output, "a\\nb.toml:")) << o.output;
  test::expect_only_inputs(dir, {"long.toml", "a\nb.toml"});
}

TEST(IoInputs, AnyLegalOutputNameHasATemporaryBesideIt) {
  const test::ScratchDir dir;
  // laplace3d writes NAME.xmf beside NAME.h5: at 254 bytes that is 255, the most a name may be.
  for (const std::size_t length : {239u, 250u, 254u}) {
    const std::string name = std::string(length - 3, 'r') + ".h5";
    const auto r = run_quiet("run " + shell_quoted(kInputs / "laplace3d.toml") +
                             " --backend cpu iteration.max_iterations=2 -o " +
                             shell_quoted(dir / name));
    EXPECT_EQ(r.status, 0) << length << ": " << r.output;
    EXPECT_TRUE(fs::is_regular_file(dir / name)) << length;
    fs::remove(dir / name);
    fs::remove(dir / (std::string(length - 3, 'r') + ".xmf"));
  }
  EXPECT_TRUE(dir.empty());
  // One byte more and the sidecar's name is past NAME_MAX: refused before computing, naming it.
  const std::string stem(252, 'r');
  const auto r = run_quiet("run " + shell_quoted(kInputs / "laplace3d.toml") +
                           " --backend cpu iteration.max_iterations=2 -o " +
                           shell_quoted(dir / (stem + ".h5")));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(contains(r.output, stem + ".xmf: the name is 256 bytes; at most 255")) << r.output;
  EXPECT_TRUE(dir.empty());
}

// `ulimit -f` through prlimit, which sets the limit and execs parasol with SIGXFSZ at its default:
// parasol itself must ignore it, so the write fails as on a full disk instead of the signal
// killing it with its temporary left behind.
TEST(IoInputs, AFileSizeLimitIsAWriteFailureNamingTheFile) {
  const test::ScratchDir dir;
  const auto r = test::run_shell("{ prlimit --fsize=262144 " + kExe + " run " +
                                 shell_quoted(kInputs / "laplace3d.toml") +
                                 " --backend cpu iteration.max_iterations=2 -o " +
                                 shell_quoted(dir / "out.h5") + " 2>&1 >/dev/null; }");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(contains(r.output, "parasol: " + (dir / "out.h5").string() + ": ")) << r.output;
  EXPECT_TRUE(contains(r.output, "File too large")) << r.output;
  EXPECT_TRUE(dir.empty()) << r.output;
}

}  // namespace
}  // namespace parasol
