// recurrence parameters: a plain struct with defaults and validate(); no TOML, no device code.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/precision.hpp"
#include "kernels/scan.hpp"

namespace parasol::recurrence {

// What is solved, by the names users type:
//   ar1:       `series` independent AR(1) processes, generated from a seed;
//   smoothing: exponential smoothing of each row of a dataset in an HDF5 file;
//   file:      s, u (and optionally the initial values and segment offsets) from an HDF5 file.
enum class Problem { ar1, smoothing, file };
inline constexpr std::array kProblems{Problem::ar1, Problem::smoothing, Problem::file};
std::string_view name(Problem p);  // "ar1", "smoothing", "file"
Problem parse_problem(std::string_view s);

// The precision it computes in: the kernel layer's one type (kernels/precision.hpp).
using parasol::Precision;
using parasol::parse_precision;

// x[t] = phi[t] x[t-1] + sigma eps[t], x[-1] = x0, eps standard normal: s = phi, u = sigma eps.
// phi[t] is `phi` throughout, or (time_varying) drawn at every step uniformly in
// (phi_min, phi_max). Series k draws from counter-based streams of (seed, k), so it is the same
// series whatever `series` is, and any stretch of it is drawn on its own (problems.hpp).
struct Ar1 {
  std::int64_t series = 1;
  std::int64_t length = 1 << 20;
  double phi = 0.9;
  bool time_varying = false;
  double phi_min = 0.0, phi_max = 0.0;
  double sigma = 1.0;
  double x0 = 0.0;
  std::uint64_t seed = 1;
};

// v[t] = (1 - alpha) v[t-1] + alpha y[t], v[-1] = y[0] (so v[0] = y[0]): each row of input.y.
struct Smoothing {
  double alpha = 0.1;
};

// Datasets of an HDF5 file, read by inputs.hpp.
struct Input {
  std::string file;      // resolved against the parameter file's folder
  std::string y = "y";   // smoothing: [length] (one series) or [series][length]
  std::string s = "s";   // file: [length] or [series][length]
  std::string u = "u";   // file: the same shape as s
  std::string initial;   // file: `segments` values of v[-1]; empty: zeros
  std::string offsets;   // file, 1D s and u only: segments + 1 offsets; empty: one segment (1D)
                         // or one per row (2D)
};

struct Params {
  Problem problem = Problem::ar1;
  Precision precision = Precision::single;
  Ar1 ar1;
  Smoothing smoothing;
  Input input;
  ScanMode mode = ScanMode::fast;
  bool write_input = true;  // store s, u, offsets and initial beside the result

  // Throws InputError naming the offending key (its source left for the caller). Checks what is
  // known without reading the input file.
  void validate() const;
};

// At most this many elements in one run (2^40): far past any device's memory, and small enough
// that byte counts stay exact in double.
inline constexpr std::int64_t kMostElements = std::int64_t(1) << 40;

}  // namespace parasol::recurrence
