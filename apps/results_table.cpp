#include "apps/results_table.hpp"

#include <cstdio>

#include "kernels/error.hpp"

namespace parasol::app {

void ResultsTable::add(std::vector<Cell> cells, double seconds, bool passed) {
  if (cells.size() != columns_.size())
    throw Error("results table: a row of " + std::to_string(cells.size()) + " cells for " +
                std::to_string(columns_.size()) + " columns");
  rows_.push_back({std::move(cells), seconds, passed});
}

bool ResultsTable::all_passed() const {
  for (const Row& r : rows_)
    if (!r.passed) return false;
  return true;
}

namespace {

std::string padded(const std::string& text, int width, bool left) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, left ? "%-*s" : "%*s", width, text.c_str());
  return buffer;
}

std::string formatted(const ResultsTable::Cell& cell, const ResultsTable::Column& c) {
  if (const auto* text = std::get_if<std::string>(&cell)) return padded(*text, c.width, true);
  char buffer[64];
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) {
    std::snprintf(buffer, sizeof buffer, "%*lld", c.width, static_cast<long long>(*integer));
  } else {
    const char format[] = {'%', '*', '.', '*', c.conversion, '\0'};
    std::snprintf(buffer, sizeof buffer, format, c.width, c.precision,
                  std::get<double>(cell) * c.print_scale);
  }
  return buffer;
}

}  // namespace

void ResultsTable::print(std::ostream& out) const {
  std::size_t fastest = rows_.size();
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].passed && (fastest == rows_.size() || rows_[i].seconds < rows_[fastest].seconds))
      fastest = i;
  std::string line = " ";
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const bool text = !rows_.empty() && std::holds_alternative<std::string>(rows_[0].cells[c]);
    line += " " + padded(columns_[c].header, columns_[c].width, text);
  }
  out << line << "  check\n";
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    line = " ";
    for (std::size_t c = 0; c < columns_.size(); ++c)
      line += " " + formatted(rows_[i].cells[c], columns_[c]);
    out << line << (rows_[i].passed ? "  ok" : "  FAILED") << (i == fastest ? "  <- fastest" : "")
        << "\n";
  }
}

void ResultsTable::write(io::ResultFile& out, const std::string& group) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::string path = group + "/" + columns_[c].name;
    if (rows_.empty()) continue;
    if (std::holds_alternative<std::string>(rows_[0].cells[c])) {
      std::vector<std::string> values;
      for (const Row& r : rows_) values.push_back(std::get<std::string>(r.cells[c]));
      out.write_column(path, values);
    } else if (std::holds_alternative<std::int64_t>(rows_[0].cells[c])) {
      std::vector<std::int64_t> values;
      for (const Row& r : rows_) values.push_back(std::get<std::int64_t>(r.cells[c]));
      out.write_column(path, values);
    } else {
      std::vector<double> values;
      for (const Row& r : rows_) values.push_back(std::get<double>(r.cells[c]));
      out.write_column(path, values);
    }
  }
  std::vector<std::int64_t> passed;
  for (const Row& r : rows_) passed.push_back(r.passed ? 1 : 0);
  if (!rows_.empty()) out.write_column(group + "/passed", passed);
}

}  // namespace parasol::app
