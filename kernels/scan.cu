// Device-wide sums of int, long long, float and double through the generic scan.
#include <type_traits>

#include "kernels/name_table.hpp"
#include "kernels/scan/device.cuh"

namespace parasol {
namespace {

constexpr NameTable<ScanMode, 2> kScanModeNames{
    {{ScanMode::fast, "fast"}, {ScanMode::reproducible, "reproducible"}}};

// Integers add as unsigned: overflow wraps (defined) instead of being undefined behaviour.
template <class T>
struct SumPolicy {
  using Value = T;
  static constexpr bool kNeverAllOnes = std::is_floating_point_v<T>;
  const T* in;
  T* out;
  __device__ T identity() const { return T(0); }
  __device__ T combine(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
  __device__ T load(std::int64_t i) const { return in[i]; }
  template <int K>
  __device__ void prepare(std::int64_t, std::int64_t, T (&)[K]) const {}
  __device__ void store(std::int64_t i, const T& v) const { out[i] = v; }
};

// 16 elements of 4 bytes (8 of 8) per thread: 64 bytes per thread per tile.
template <class T>
constexpr int kSumItems = sizeof(T) == 4 ? 16 : 8;

// Look-back pauses measured best for the float sum of 2^28 elements on an H200 (62 % of copy
// bandwidth without them, 75 % with; docs/journal/2026-11.md).
constexpr lookback::Pauses kSumPauses{2200, 300};

}  // namespace

std::string_view name(ScanMode m) { return lookup_name(kScanModeNames, m); }
ScanMode parse_scan_mode(std::string_view s) { return lookup_value(kScanModeNames, s, "scan mode"); }

template <class T>
void device_sum_scan(const T* in, T* out, std::int64_t n, ScanKind kind, ScanMode mode,
                     ScanWorkspace& workspace, cudaStream_t stream) {
  device_scan<256, kSumItems<T>>(SumPolicy<T>{in, out}, n, kind, mode, workspace, stream,
                                 kSumPauses);
}

template void device_sum_scan(const int*, int*, std::int64_t, ScanKind, ScanMode, ScanWorkspace&,
                              cudaStream_t);
template void device_sum_scan(const long long*, long long*, std::int64_t, ScanKind, ScanMode,
                              ScanWorkspace&, cudaStream_t);
template void device_sum_scan(const float*, float*, std::int64_t, ScanKind, ScanMode,
                              ScanWorkspace&, cudaStream_t);
template void device_sum_scan(const double*, double*, std::int64_t, ScanKind, ScanMode,
                              ScanWorkspace&, cudaStream_t);

}  // namespace parasol
