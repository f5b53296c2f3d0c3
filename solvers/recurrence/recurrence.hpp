// recurrence: first-order linear recurrences v[n] = s[n] v[n-1] + u[n], solved by a device-wide
// scan of the pairs (s, u) under (s1, u1) o (s2, u2) = (s1 s2, s2 u1 + u2). One long recurrence
// or many independent ones (segments). Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/scan.hpp"

namespace parasol::recurrence {

// Segment k covers elements [offsets[k], offsets[k+1]) and starts from v[-1] = initial[k].
// offsets has segments + 1 entries, offsets[0] = 0, offsets.back() = s.size(), non-decreasing
// (empty segments allowed). One long recurrence is offsets {0, n}.
template <class T>
struct Series {
  std::vector<T> s, u;
  std::vector<std::int64_t> offsets;
  std::vector<T> initial;
  std::int64_t size() const { return static_cast<std::int64_t>(s.size()); }
  std::int64_t segments() const { return static_cast<std::int64_t>(initial.size()); }
};

// InputError (no file, key "input") when the arrays disagree in length or the offsets are not
// as above.
template <class T>
void check_series(const Series<T>& series);

// The CPU gold: the sequential loop, in long double.
template <class T>
std::vector<double> solve_gold(const Series<T>& series);

// Solves series already on the device. Pointers hold series.size() elements (s, u, v) and
// segments + 1 offsets and `segments` initial values; v may alias u.
template <class T>
class Solver {
 public:
  explicit Solver(ScanMode mode = ScanMode::fast) : mode_(mode) {}
  void solve(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
             std::int64_t n, std::int64_t segments, T* v, cudaStream_t stream);
  ScanMode mode() const { return mode_; }

 private:
  ScanMode mode_;
  ScanWorkspace workspace_;
};

struct Timings {
  double host_to_device = 0, compute = 0, device_to_host = 0;
};

template <class T>
struct Result {
  std::vector<T> v;
  Timings timings;
};

// Upload, solve, download.
template <class T>
Result<T> solve_gpu(const Series<T>& series, ScanMode mode);

// Bytes a solve must move: s and u read, v written.
inline double bytes_per_solve(std::int64_t n, int element_bytes) {
  return 3.0 * element_bytes * static_cast<double>(n);
}

}  // namespace parasol::recurrence
