// Device-wide scans in one pass over memory: tiles take their ids from an atomic counter and find
// their prefix by decoupled look-back, so no tile waits on one that may not have started.
// This header is plain C++ (host classes can own a ScanWorkspace and call the sums); the generic
// scan over any type and operator is in scan/device.cuh (with its warp, block and look-back levels
// beside it), for .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// A scan's tile: threads a block, items a thread, and whether a thread moves its items 16 bytes
// at a time (vectors) or one element a lane at a time. A scan compiles a few tiles (its
// candidates, scan.cu and recurrence.cu) and dispatches the one asked for at run time; the
// default ({}: no threads) is the shipped pick for the device's class. The fast scan may take
// any compiled tile. The reproducible scan's tile shape is part of the order its documented bits
// follow (tile totals, then their scan), so it takes only the shape it documents, by either load
// path and register budget: all move the same values into the same arithmetic.
// min_blocks: blocks a multiprocessor asked of the compiler (0: none, registers as it likes).
struct ScanTile {
  int threads = 0, items = 0;
  bool vectors = false;
  int min_blocks = 0;
  bool is_default() const { return threads == 0; }
  long long elements() const { return static_cast<long long>(threads) * items; }
  friend bool operator==(const ScanTile& a, const ScanTile& b) {
    return a.threads == b.threads && a.items == b.items && a.vectors == b.vectors &&
           a.min_blocks == b.min_blocks;
  }
  friend bool operator!=(const ScanTile& a, const ScanTile& b) { return !(a == b); }
};
// "256x16", "256x16v" (16-byte vectors), "256x16-min4" (4 blocks asked), "default"
std::string to_string(const ScanTile& t);

// Devices by peak memory bandwidth (memory clock x bus width, from the device's attributes), the
// classes the scans' shipped tiles are chosen by: a look-back scan must keep more bytes in
// flight a multiprocessor the faster memory answers (Little's law), so one tile may not serve
// both. below_4tbs: H100 SXM (3.35 TB/s peak, 3.0 copy) and slower; from_4tbs: H200 (4.8 peak,
// 4.2-4.3 copy).
enum class MemoryClass { below_4tbs, from_4tbs };
inline constexpr int kMemoryClasses = 2;
std::string_view name(MemoryClass c);  // "below 4 TB/s", "from 4 TB/s"
MemoryClass memory_class_of(double peak_bytes_per_second);
MemoryClass current_memory_class();  // the current device's, looked up once per device

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
// `tile`: one of sum_scan_tiles<T>(mode), or the default; another throws InputError naming the
// compiled ones.
template <class T>
void device_sum_scan(const T* in, T* out, std::int64_t n, ScanKind kind, ScanMode mode,
                     ScanWorkspace& workspace, cudaStream_t stream, ScanTile tile = {});

// The tiles compiled for a sum of T in a mode, and the shipped pick for a class of device (what
// ScanTile{} resolves to on it).
template <class T>
std::vector<ScanTile> sum_scan_tiles(ScanMode mode);
template <class T>
ScanTile default_sum_tile(ScanMode mode, MemoryClass memory);
// Blocks of a tile's main kernel (the look-back pass; the reproducible scan's last) that a
// multiprocessor of the current device holds at once: with the tile's bytes, what it can have in
// flight.
template <class T>
int sum_scan_blocks_per_multiprocessor(ScanMode mode, ScanTile tile);

}  // namespace parasol
