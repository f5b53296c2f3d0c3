// A sweep's results: one row per configuration, printed fixed-width with the fastest passing row
// marked, and stored under a group as one dataset per column plus `passed` (1 or 0).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "io/result_file.hpp"

namespace parasol::app {

class ResultsTable {
 public:
  // `name` is the dataset; numbers print right-aligned in `width` with `precision` digits in
  // printf's `conversion` ('f' or 'g'), multiplied by `print_scale` (seconds stored, ms shown).
  struct Column {
    std::string name, header;
    int width = 10;
    int precision = 2;
    char conversion = 'f';
    double print_scale = 1.0;
  };
  using Cell = std::variant<std::string, std::int64_t, double>;

  explicit ResultsTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // One cell per column, each column keeping one type; `seconds` ranks the rows.
  void add(std::vector<Cell> cells, double seconds, bool passed = true);
  bool empty() const { return rows_.empty(); }
  bool all_passed() const;
  void print(std::ostream& out) const;
  void write(io::ResultFile& out, const std::string& group) const;

 private:
  struct Row {
    std::vector<Cell> cells;
    double seconds;
    bool passed;
  };
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

}  // namespace parasol::app
