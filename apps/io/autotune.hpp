// The autotune file: for each device, solver, grid and precision, the variant and block shape that
// `parasol sweep --autotune` measured fastest, so `parasol run` with method.variant = "auto" can
// use them. A small TOML file, one [[choice]] per key, written whole under a temporary name and
// renamed into place. Variants are stored by the names users type, so a solver that gains a
// variant needs no change here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernels/shape.hpp"

namespace parasol::io {

// What a choice is for. Two keys are the same only when every field is.
struct AutotuneKey {
  std::string device;              // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // "9.0"
  std::string solver;              // "laplace3d"
  std::vector<std::int64_t> grid;  // points in each direction, {nx, ny, nz}
  std::string precision;           // "float"
  friend bool operator==(const AutotuneKey& a, const AutotuneKey& b) {
    return a.device == b.device && a.compute_capability == b.compute_capability &&
           a.solver == b.solver && a.grid == b.grid && a.precision == b.precision;
  }
};

// "laplace3d 512x512x512 float on NVIDIA H100 80GB HBM3 (compute capability 9.0)"
std::string describe(const AutotuneKey& key);

struct AutotuneChoice {
  AutotuneKey key;
  std::string variant;  // as users type it, e.g. "zreg"
  Shape block;
  // What the sweep measured for it, and when: for people reading the file, not for the lookup.
  double gpoints_per_s = 0, gb_per_s = 0, percent_of_copy = 0;
  std::int64_t timed = 0;  // configurations the sweep checked and timed
  std::string date;        // UTC, ISO 8601
  std::string sweep_file;  // the sweep's result file
  std::string parasol_version;
  int line = 0;  // where it was read from (0 when not read from a file), for messages
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

// The file's `format` key: a file of another format is refused rather than misread.
inline constexpr const char* kAutotuneFormat = "parasol-autotune-1";

}  // namespace parasol::io
