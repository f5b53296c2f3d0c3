#include "apps/sweep_table.hpp"

#include <cstdio>

namespace parasol::app {

void SweepTable::add(std::string variant, const Shape& block, double seconds, double points,
                     double bytes, double copy_bytes_per_s, double max_abs_diff, bool passed) {
  const double bytes_per_s = bytes / seconds;
  rows_.push_back({std::move(variant), block, seconds, 1e-9 * points / seconds, 1e-9 * bytes_per_s,
                   100.0 * bytes_per_s / copy_bytes_per_s, max_abs_diff, passed});
}

bool SweepTable::all_passed() const {
  for (const Row& r : rows_)
    if (!r.passed) return false;
  return true;
}

void SweepTable::print(std::ostream& out) const {
  std::size_t fastest = 0;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].passed && rows_[i].seconds < rows_[fastest].seconds) fastest = i;
  char line[160];
  std::snprintf(line, sizeof line, "  %-10s %-10s %12s %10s %9s %7s %11s %s\n", "variant", "block",
                "median ms", "Gpoints/s", "GB/s", "% copy", "max|diff|", "check");
  out << line;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    std::snprintf(line, sizeof line, "  %-10s %-10s %12.4f %10.1f %9.1f %7.1f %11.3g %s%s\n",
                  r.variant.c_str(), to_string(r.block).c_str(), 1e3 * r.seconds, r.gpoints_per_s,
                  r.gb_per_s, r.percent_of_copy, r.max_abs_diff, r.passed ? "ok" : "FAILED",
                  i == fastest ? "  <- fastest" : "");
    out << line;
  }
}

void SweepTable::write(io::ResultFile& out, const std::string& group) const {
  std::vector<std::string> variant, block;
  std::vector<double> seconds, gpoints, gb, percent, diff;
  std::vector<std::int64_t> passed;
  for (const Row& r : rows_) {
    variant.push_back(r.variant);
    block.push_back(to_string(r.block));
    seconds.push_back(r.seconds);
    gpoints.push_back(r.gpoints_per_s);
    gb.push_back(r.gb_per_s);
    percent.push_back(r.percent_of_copy);
    diff.push_back(r.max_abs_diff);
    passed.push_back(r.passed ? 1 : 0);
  }
  out.write_column(group + "/variant", variant);
  out.write_column(group + "/block", block);
  out.write_column(group + "/median_s", seconds);
  out.write_column(group + "/gpoints_per_s", gpoints);
  out.write_column(group + "/gb_per_s", gb);
  out.write_column(group + "/percent_of_copy", percent);
  out.write_column(group + "/max_abs_diff", diff);
  out.write_column(group + "/passed", passed);
}

}  // namespace parasol::app
