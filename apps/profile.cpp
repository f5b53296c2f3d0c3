#include "apps/profile.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <unistd.h>

#include "kernels/error.hpp"

namespace parasol::app {
namespace {

// One CSV line's fields: quoted ("a, b"), with "" for a quote inside, or bare.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

// ncu writes numbers with thousands separators ("1,234.5") in some locales: they are dropped.
double number_of(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c != ',' && c != ' ') digits += c;
  if (digits.empty() || digits == "n/a") return NAN;
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  return *end == '\0' ? value : NAN;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The stall reason a column holds, or "" when it holds none.
std::string stall_reason(const std::string& column) {
  const std::string ratio = "smsp__average_warps_issue_stalled_";
  const std::string per_issue = "_per_issue_active.ratio";
  const std::string sampled = "smsp__pcsamp_warps_issue_stalled_";
  std::string reason;
  if (starts_with(column, ratio) && ends_with(column, per_issue))
    reason = column.substr(ratio.size(), column.size() - ratio.size() - per_issue.size());
  else if (starts_with(column, sampled) && !ends_with(column, "_not_issued"))
    reason = column.substr(sampled.size());
  return reason == "selected" ? "" : reason;
}

}  // namespace

std::vector<KernelProfile> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (starts_with(line, "\"ID\"") || starts_with(line, "ID,")) {
      header = fields_of(line);
      break;
    }
  }
  if (header.empty()) throw Error("ncu's output has no CSV header (a line starting \"ID\")");
  int name = -1, duration = -1, occupancy = -1, dram = -1;
  std::vector<std::pair<int, std::string>> stalls;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string& h = header[i];
    const int at = static_cast<int>(i);
    if (h == "Kernel Name") name = at;
    if (h == kDuration) duration = at;
    if (h == kAchievedOccupancy) occupancy = at;
    if (h == kDramThroughput) dram = at;
    const std::string reason = stall_reason(h);
    if (!reason.empty()) stalls.emplace_back(at, reason);
  }
  if (name < 0) throw Error("ncu's CSV header has no \"Kernel Name\" column");
  std::vector<KernelProfile> launches;
  bool units = true;  // the line after the header gives each column's unit
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r" || starts_with(line, "==")) continue;
    const std::vector<std::string> f = fields_of(line);
    if (f.size() != header.size())
      throw Error("ncu's CSV has a line of " + std::to_string(f.size()) + " fields under a header of " +
                  std::to_string(header.size()));
    if (units) {
      units = false;
      if (f[0].empty()) continue;
    }
    const auto value = [&](int column) { return column < 0 ? NAN : number_of(f[column]); };
    KernelProfile k;
    k.kernel = f[name];
    k.duration_ns = value(duration);
    k.achieved_occupancy_percent = value(occupancy);
    k.dram_throughput_percent = value(dram);
    k.top_stall_value = NAN;
    for (const auto& [column, reason] : stalls) {
      const double v = value(column);
      if (std::isfinite(v) && (k.top_stall.empty() || v > k.top_stall_value)) {
        k.top_stall = reason;
        k.top_stall_value = v;
      }
    }
    launches.push_back(k);
  }
  return launches;
}

std::optional<KernelProfile> longest(const std::vector<KernelProfile>& launches) {
  std::optional<KernelProfile> best;
  for (const KernelProfile& k : launches)
    if (!best || (std::isfinite(k.duration_ns) &&
                  (!std::isfinite(best->duration_ns) || k.duration_ns > best->duration_ns)))
      best = k;
  return best;
}

std::optional<std::filesystem::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream folders(path);
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    if (folder.empty()) folder = ".";
    const std::filesystem::path candidate = std::filesystem::path(folder) / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

}  // namespace parasol::app
