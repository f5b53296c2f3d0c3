// Comparisons made where the data is: a device result against a device gold, and two device
// arrays bit for bit, so that a sweep checks each configuration without bringing its output back
// to the host.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/reduce.hpp"

namespace parasol {

// max and rms of |result[i] - gold[i]| over n values, taken in double as compare() takes them on
// the host (both NaN when a NaN is met), reduced on the device in a fixed order; waits for the
// stream. For a float or double result against a gold of its own type or in double.
template <class T, class G>
FieldDifference device_compare(const T* result, const G* gold, std::int64_t n,
                               cudaStream_t stream);

// device_compare's differences, and the largest |result[i] - gold[i]| / scale[i], as
// max_relative_to_scale (agreement.hpp) takes it on the host: NaN anywhere makes both NaN, and a
// point whose scale is 0 must match exactly. gold and scale in double; waits for the stream.
struct ScaledComparison {
  FieldDifference difference;
  double max_relative = 0;
};
template <class T>
ScaledComparison device_compare_scaled(const T* result, const double* gold, const double* scale,
                                       std::int64_t n, cudaStream_t stream);

// values[at[k]] for the `count` device indices at[0..count), gathered on the device and brought
// back (waits for the stream): a check of sampled outputs moves the samples, not the output.
// Every index must lie within values.
template <class T>
std::vector<T> download_at(const T* values, const std::int64_t* at, std::int64_t count,
                           cudaStream_t stream);

// Whether `bytes` bytes at two device addresses hold the same bits; waits for the stream. It holds
// its reduction's scratch, made at the first comparison (so one can be held before a device is
// known to be there), and a check after every timed run allocates nothing.
class BitComparer {
 public:
  bool same(const void* a, const void* b, std::size_t bytes, cudaStream_t stream);

  // The same without waiting: enqueues the comparison, its differing words (or bytes, for
  // unaligned ranges) added to a count kept on the device; take_differences() waits for the
  // stream and returns the count since the last take, clearing it. Between timed runs
  // (timed_runs_between) the host never stops for a comparison.
  void add_differences(const void* a, const void* b, std::size_t bytes, cudaStream_t stream);
  unsigned long long take_differences(cudaStream_t stream);

 private:
  std::optional<DeviceReducer<unsigned long long>> differ_;  // words that differ, counted
  DeviceBuffer<unsigned long long> count_;  // add_differences' count, made at its first call
};

}  // namespace parasol
