// docs/adding-a-solver.md against this example: each code block of the page opens with the path
// it shows (`// solvers/saxpy/check.hpp`, `# tests/CMakeLists.txt`), and its text is that file's
// here, under tests/example_solver/, verbatim (a line `// ...` or `# ...` stands for lines left
// out); and every file of the example is named on the page. So the page cannot show code that
// does not build, and the example cannot change without the page.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace parasol {
namespace {

const std::filesystem::path kSource = PARASOL_SOURCE_DIR;
const std::filesystem::path kExample = kSource / "tests/example_solver";

struct Snippet {
  int line = 0;       // of the page, where the block opens
  std::string path;   // the file it shows, relative to the project's tree
  std::vector<std::string> pieces;  // its text, cut where lines are left out
};

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<Snippet> snippets(const std::string& page) {
  std::vector<Snippet> all;
  std::istringstream in(page);
  std::string line;
  int number = 0;
  std::optional<Snippet> open;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      if (open) {
        all.push_back(*open);
        open.reset();
      } else if (line.size() > 3) {  // a block of code, not of a table or output
        open = Snippet{number, "", {""}};
        header = true;
      }
      continue;
    }
    if (!open) continue;
    const std::string text = trimmed(line);
    if (header) {
      header = false;
      const std::size_t marker = text.rfind("// ", 0) == 0 ? 3 : text.rfind("# ", 0) == 0 ? 2 : 0;
      if (marker > 0) open->path = text.substr(marker, text.find(' ', marker) - marker);
      continue;
    }
    if (text == "// ..." || text == "# ...") open->pieces.emplace_back();
    else open->pieces.back() += line + "\n";
  }
  return all;
}

TEST(SaxpyDoc, EverySnippetIsTheExamplesOwnText) {
  const std::string page = test::read_text(kSource / "docs/adding-a-solver.md");
  const std::vector<Snippet> found = snippets(page);
  ASSERT_GE(found.size(), 8u) << "the page's code blocks were not found";
  for (const Snippet& s : found) {
    SCOPED_TRACE("docs/adding-a-solver.md:" + std::to_string(s.line) + " " + s.path);
    ASSERT_FALSE(s.path.empty()) << "a code block that does not open with the path it shows";
    const std::filesystem::path file = kExample / s.path;
    ASSERT_TRUE(std::filesystem::exists(file)) << file << " is not in the example";
    const std::string text = test::read_text(file);
    std::size_t at = 0;
    for (const std::string& piece : s.pieces) {
      if (piece.empty()) continue;
      const std::size_t where = text.find(piece, at);
      EXPECT_NE(where, std::string::npos) << "not in " << file << " (after offset " << at
                                          << "):\n" << piece;
      if (where != std::string::npos) at = where + piece.size();
    }
  }
}

TEST(SaxpyDoc, ThePageNamesEveryFileOfTheExample) {
  const std::string page = test::read_text(kSource / "docs/adding-a-solver.md");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kExample)) {
    if (!entry.is_regular_file()) continue;
    const std::filesystem::path relative = entry.path().lexically_relative(kExample);
    if (relative == "CMakeLists.txt") continue;  // the example's own glue, no part of a solver
    ++files;
    EXPECT_TRUE(test::contains(page, entry.path().filename().string()))
        << relative << " is not named in docs/adding-a-solver.md";
  }
  EXPECT_GE(files, 15);
}

}  // namespace
}  // namespace parasol
