// The autotune file: for each device, solver, problem size and precision, the variant and the
// values of the solver's other axes (block, threads, chunk, coarsening...) that
// `parasol sweep --autotune` measured fastest, so `parasol run` with method.variant = "auto" can
// use them. A small TOML file, one [[choice]] per key, written whole under a temporary name and
// renamed into place. Variants and axis values are stored as users type them, so a solver that
// gains a variant or an axis needs no change here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parasol::io {

// What a choice is for. Two keys are the same only when every field is.
struct AutotuneKey {
  std::string device;              // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // "9.0"
  std::string solver;              // "laplace3d"
  // The problem's size class, made by the solver from the sizes that sway its choice (each
  // binding's autotune_problem(); docs/performance-study.md lists them): "512x512x512" for
  // laplace3d's grid, "n=1024,systems=65536" for tridiag...
  std::string problem;
  std::string precision;           // "float"
  friend bool operator==(const AutotuneKey& a, const AutotuneKey& b) {
    return a.device == b.device && a.compute_capability == b.compute_capability &&
           a.solver == b.solver && a.problem == b.problem && a.precision == b.precision;
  }
};

// "laplace3d 512x512x512 float on NVIDIA H100 80GB HBM3 (compute capability 9.0)"
std::string describe(const AutotuneKey& key);

struct AutotuneChoice {
  AutotuneKey key;
  std::string variant;  // as users type it, e.g. "zreg"
  // The solver's other axes, in its sweep's order, as users type them: {"block", "128x2x1"},
  // {"chunk", "8"}.
  std::vector<std::pair<std::string, std::string>> axes;
  // What the sweep measured for it (median_s, the rate, the roofline's columns), and when: for
  // people reading the file, not for the lookup.
  std::vector<std::pair<std::string, double>> measured;
  std::int64_t timed = 0;  // configurations the sweep checked and timed
  std::string date;        // UTC, ISO 8601
  std::string sweep_file;  // the sweep's result file
  std::string parasol_version;
  int line = 0;  // where it was read from (0 when not read from a file), for messages

  // The value of `axis`, or nullopt when the choice has none.
  std::optional<std::string> axis(const std::string& axis) const;
  // "zreg, block 128x2x1"
  std::string describe() const;
};

class AutotuneFile {
 public:
  // Reads `path`; a file that does not exist holds no choices. Throws InputError naming the file
  // (with the line and key when there is one) when it is not a valid autotune file.
  static AutotuneFile load(const std::filesystem::path& path);

  // The choice for `key`, if the file has one.
  std::optional<AutotuneChoice> find(const AutotuneKey& key) const;
  // Adds `choice`, replacing the one with the same key where it stands.
  void put(AutotuneChoice choice);
  // Writes every choice atomically, creating the file's folder if need be.
  void save() const;
  // Puts `choice` in the file at `path`: read, put and saved under an exclusive lock (flock) on
  // "<path>.lock" beside it, so sweeps storing at once each keep their choice; without the lock
  // the later save drops what the earlier stored between its read and its write.
  static void store(const std::filesystem::path& path, AutotuneChoice choice);

  const std::vector<AutotuneChoice>& choices() const { return choices_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit AutotuneFile(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
  std::vector<AutotuneChoice> choices_;
};

// Where the autotune file is: `given` (--autotune-file) when not empty, else
// $PARASOL_AUTOTUNE_FILE, else $XDG_CACHE_HOME/parasol/autotune.toml, else
// $HOME/.cache/parasol/autotune.toml. InputError when none of them can be had.
std::filesystem::path autotune_path(const std::filesystem::path& given);

// The autotune file that comes with Parasol: choices `parasol sweep --autotune --autotune-file
// share/parasol/autotune.toml` measured on the devices it was run on, which method.variant =
// "auto" takes where the user's own file holds none for the key. $PARASOL_SHIPPED_AUTOTUNE when
// set (set but empty: none), else share/parasol/autotune.toml under the folder above the running
// executable's (<prefix>/bin/parasol finds <prefix>/share/parasol/autotune.toml; the build tree
// keeps a copy the same way). Empty when there is none.
std::filesystem::path shipped_autotune_path();

// InputError naming the file when a choice could not be stored at `path`: the file read-only, a
// folder on its way not a folder, or the folder that would hold it not writable. The sweep calls
// it before timing anything, so an unwritable store does not cost a whole sweep.
void require_storable(const std::filesystem::path& path);

// The file's `format` key: a file of another format is refused rather than misread. Files of
// the first format (laplace3d's alone: `grid` and `block` arrays) are still read.
inline constexpr const char* kAutotuneFormat = "parasol-autotune-2";
inline constexpr const char* kAutotuneFormatV1 = "parasol-autotune-1";

}  // namespace parasol::io
