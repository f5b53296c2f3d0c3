// The performance study's table: one row per variant and block shape, printed and stored.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "apps/io/result_file.hpp"
#include "kernels/shape.hpp"

namespace parasol::app {

class SweepTable {
 public:
  // `seconds` per sweep (median); rates follow from the points and bytes one sweep covers.
  void add(std::string variant, const Shape& block, double seconds, double points, double bytes,
           double copy_bytes_per_s, double max_abs_diff, bool passed);
  bool empty() const { return rows_.empty(); }
  bool all_passed() const;
  // Fixed-width text, fastest row marked.
  void print(std::ostream& out) const;
  // Columns under `group`: variant, block ("32x8x1"), median_s, gpoints_per_s, gb_per_s,
  // percent_of_copy, max_abs_diff, passed.
  void write(io::ResultFile& out, const std::string& group) const;

 private:
  struct Row {
    std::string variant;
    Shape block;
    double seconds, gpoints_per_s, gb_per_s, percent_of_copy, max_abs_diff;
    bool passed;
  };
  std::vector<Row> rows_;
};

}  // namespace parasol::app
