// Device-wide scans in one pass over memory: tiles take their ids from an atomic counter and find
// their prefix by decoupled look-back, so no tile waits on one that may not have started.
// This header is plain C++ (host classes can own a ScanWorkspace and call the sums); the generic
// scan over any type and operator is in scan/device.cuh (with its warp, block and look-back levels
// beside it), for .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/buffer.hpp"

namespace parasol {

enum class ScanKind { inclusive, exclusive };

// fast: one pass; a float result may differ in its last bits from run to run, because a tile
//       combines whichever predecessors' results are ready when it looks back.
// reproducible: the same bits every run on a device, whatever the timing. Tile totals, then one
//       scan of the totals, then the tiles again: the input is read twice (12 bytes per element
//       instead of 8 for a float sum).
enum class ScanMode { fast, reproducible };
std::string_view name(ScanMode m);  // "fast", "reproducible"
ScanMode parse_scan_mode(std::string_view s);

// Scratch for the tile counter and tile states; grows on demand and is reused, so repeated scans
// allocate once. Cleared by every scan before it starts (no stale counter between launches).
class ScanWorkspace {
 public:
  // At least `bytes`, 256-byte aligned.
  void* reserve(std::size_t bytes) {
    if (bytes > storage_.size()) storage_ = DeviceBuffer<unsigned char>(bytes);
    return storage_.data();
  }

 private:
  DeviceBuffer<unsigned char> storage_;
};

// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, out[0] = 0).
// T is int, long long, float or double; n may exceed 2^31. `out` may be `in`. Integer sums wrap
// as unsigned arithmetic does and are exact otherwise.
template <class T>
void device_sum_scan(const T* in, T* out, std::int64_t n, ScanKind kind, ScanMode mode,
                     ScanWorkspace& workspace, cudaStream_t stream);

}  // namespace parasol
