// Every solver parasol_add_solver() registered is reachable everywhere a user or a maintainer
// looks: the `solver` key, `parasol solvers`, the help text, a benchmark, the parameter docs, the
// README and an example input. A solver added without one of them fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "tests/support.hpp"

namespace parasol::app {
namespace {

using test::kExe;
const std::filesystem::path kSource = PARASOL_SOURCE_DIR;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> registered() { return split(PARASOL_REGISTERED_SOLVERS, ','); }

TEST(Registry, TheBuildRegistersEverySolverOnceAndTheFrontEndKnowsThem) {
  const std::vector<std::string> names = registered();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  std::vector<std::string> bound;
  for (const Binding& b : bindings()) bound.emplace_back(b.name);
  EXPECT_EQ(bound, names);
}

// solvers/CMakeLists.txt finds the folders (cmake/solvers.cmake, parasol_add_solvers): each one
// with a CMakeLists.txt is registered, in order of name, whichever order the disk lists them in.
TEST(Registry, EverySolverFolderIsRegisteredInOrderOfName) {
  std::vector<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "solvers"))
    if (std::filesystem::is_regular_file(entry.path() / "CMakeLists.txt"))
      folders.push_back(entry.path().filename().string());
  std::sort(folders.begin(), folders.end());
  EXPECT_EQ(registered(), folders);
}

TEST(Registry, ParasolSolversListsEachOnItsOwnLine) {
  const auto r = test::run_shell(kExe + " solvers --names");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(split(r.output, '\n'), registered());
}

TEST(Registry, TheHelpTextNamesEverySolver) {
  const auto r = test::run_shell(kExe + " run --help");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const std::string& name : registered())
    EXPECT_NE(r.output.find(name + " ("), std::string::npos) << name << " missing from:\n" << r.output;
}

TEST(Registry, EverySolverHasABenchmarkTheRunnerRuns) {
  EXPECT_EQ(split(PARASOL_BENCHMARKED_SOLVERS, ','), registered());
  // The runner takes its list from the build, so it cannot fall behind it.
  EXPECT_NE(read(kSource / "bench/run_all.sh").find("solvers --names)"), std::string::npos);
}

TEST(Registry, TheDocsTheReadmeAndTheInputsCoverEverySolver) {
  const std::string parameters = read(kSource / "docs/parameters.md");
  const std::string readme = read(kSource / "README.md");
  const std::string adding = read(kSource / "docs/adding-a-solver.md");
  EXPECT_NE(adding.find("parasol_add_solver"), std::string::npos);
  for (const std::string& name : registered()) {
    EXPECT_NE(parameters.find("\n## " + name + "\n"), std::string::npos)
        << name << ": no section in docs/parameters.md";
    EXPECT_NE(readme.find("**" + name + "**"), std::string::npos) << name << ": not in README.md";
    bool example = false;
    for (const auto& entry : std::filesystem::directory_iterator(kSource / "inputs"))
      if (entry.path().extension() == ".toml" &&
          read(entry.path()).find("solver = \"" + name + "\"") != std::string::npos)
        example = true;
    EXPECT_TRUE(example) << name << ": no example in inputs/";
  }
}

}  // namespace
}  // namespace parasol::app
