// The sweep results table: what it prints and what it stores.
#include <gtest/gtest.h>

#include <sstream>

#include "io/result_file.hpp"
#include "apps/results_table.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol::app {
namespace {

ResultsTable sample_table() {
  ResultsTable table({{"variant", "variant", 8},
                      {"block", "block", 5},
                      {"median_s", "median ms", 10, 3, 'f', 1e3},
                      {"error", "error", 9, 2, 'g'}});
  table.add({std::string("slow"), std::int64_t{64}, 0.004, 1e-7}, 0.004);
  table.add({std::string("fast"), std::int64_t{128}, 0.001, 2e-7}, 0.001);
  table.add({std::string("wrong"), std::int64_t{256}, 0.0005, 0.5}, 0.0005, false);
  return table;
}

TEST(ResultsTable, PrintsScaledNumbersAndMarksTheFastestPassingRow) {
  std::ostringstream out;
  sample_table().print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("variant  block  median ms"), std::string::npos) << text;
  EXPECT_NE(text.find("  fast       128      1.000     2e-07  ok  <- fastest\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  wrong      256      0.500       0.5  FAILED\n"), std::string::npos) << text;
  EXPECT_FALSE(sample_table().all_passed());
}

TEST(ResultsTable, StoresOneDatasetPerColumnAndPassed) {
  test::ScratchDir dir;
  {
    io::ResultFile out(dir / "t.h5", false);
    sample_table().write(out, "/sweep");
    out.commit();
  }
  io::ResultReader in(dir / "t.h5");
  EXPECT_EQ(in.read_strings("/sweep/variant"), (std::vector<std::string>{"slow", "fast", "wrong"}));
  EXPECT_EQ(in.read_ints("/sweep/block"), (std::vector<std::int64_t>{64, 128, 256}));
  EXPECT_EQ(in.read_doubles("/sweep/median_s"), (std::vector<double>{0.004, 0.001, 0.0005}));
  EXPECT_EQ(in.read_ints("/sweep/passed"), (std::vector<std::int64_t>{1, 1, 0}));
}

TEST(ResultsTable, RejectsARowOfTheWrongLength) {
  ResultsTable table({{"a", "a"}, {"b", "b"}});
  EXPECT_THROW(table.add({1.0}, 1.0), Error);
}

}  // namespace
}  // namespace parasol::app
