// `parasol sweep --profile`: the best and the worst configuration of a sweep run again under
// Nsight Compute (ncu), as a child process, for what the CUDA runtime alone cannot tell: achieved
// occupancy, DRAM throughput and the reason warps most often stalled. Host code only; ncu does
// the measuring.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace parasol::app {

// The metrics asked of ncu, beside its WarpStateStats section (the stall reasons).
inline constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kDramThroughput = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kDuration = "gpu__time_duration.sum";

// One profiled kernel launch, from a row of ncu's raw CSV page. NaN where ncu gave no value.
struct KernelProfile {
  std::string kernel;                       // as ncu names it (demangled, with its arguments)
  double duration_ns = 0;
  double achieved_occupancy_percent = 0;    // of the SM's warp slots, over the active cycles
  double dram_throughput_percent = 0;       // of the peak, over the kernel's time
  std::string top_stall;                    // "long_scoreboard", ... ("" when none was given)
  double top_stall_value = 0;               // its warps stalled per issue (or its samples)
};

// The rows of `ncu --csv --page raw` output: a header line of column names (the metrics among
// them), a line of units, then one line per profiled launch. Lines before the header (ncu's
// "==PROF==" notes, the application's own output) are skipped. The top stall is the largest of
// the stall-reason columns (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio, or
// smsp__pcsamp_warps_issue_stalled_<reason>), `selected` (not a stall) left out. Throws Error
// when there is no header or a row's fields do not match it.
std::vector<KernelProfile> parse_ncu_csv(const std::string& text);

// The launch that took longest, whose figures stand for the configuration.
std::optional<KernelProfile> longest(const std::vector<KernelProfile>& launches);

// `program` found in the folders of $PATH, as a shell would.
std::optional<std::filesystem::path> find_on_path(const std::string& program);

}  // namespace parasol::app
