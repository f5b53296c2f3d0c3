// Device-wide sums of int, long long, float and double through the generic scan.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

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

  static constexpr int kVectorWidth = 16 / int(sizeof(T));
  using Vector = std::conditional_t<sizeof(T) == 4, uint4, ulonglong2>;
  __device__ bool vectors_aligned() const {
    return reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  }
  __device__ void load_vector(std::int64_t i, T (&run)[kVectorWidth]) const {
    const Vector w = *reinterpret_cast<const Vector*>(in + i);
    memcpy(run, &w, sizeof w);
  }
  __device__ void store_vector(std::int64_t i, const T (&run)[kVectorWidth]) const {
    Vector w;
    memcpy(&w, run, sizeof w);
    *reinterpret_cast<Vector*>(out + i) = w;
  }
};

// The tiles compiled for each sum. The reproducible scan's shape is part of its documented order
// (scan.hpp): 16 elements of 4 bytes (8 of 8) a thread, 256 threads, 64 bytes a thread a tile.
// Only float has fast candidates beside the shipped tile: the one a benchmark times (2^28 floats,
// bench/recurrence_bench), whose numbers say which to ship; each is one kernel a kind. Registers
// (ptxas -v, sm_90, CUDA 13.0), blocks a multiprocessor, and the input they hold at once:
//   256x16: shipped; 40 registers, 6 blocks, 96 KB.
//   256x16v: a quarter of the load and store instructions; 45 registers cost it a block (80 KB),
//     256x16v-min6 asks it back (38).
//   256x24v: 64 registers, 4 blocks, 96 KB in fewer, longer tiles.
//   256x32, 256x32v, 128x32v: 61-64 registers, 4 (8 of 128) blocks, 128 KB: the most in flight,
//     and the look-back's fixed cost a tile spread over twice the bytes.
//   512x16v-min3: 40 registers, 3 blocks, 96 KB in tiles twice as long.
//   128x24v: CUB's sm_90 tuning for a float sum (CUDA 13.0, tuning_scan.cuh); 72 registers, 7
//     blocks, 84 KB.
template <class T>
using ReproducibleSumTile = Tile<256, sizeof(T) == 4 ? 16 : 8>;
template <class T>
struct SumTiles {
  using Fast = TileList<ReproducibleSumTile<T>>;
  using Reproducible = TileList<ReproducibleSumTile<T>>;
};
template <>
struct SumTiles<float> {
  using Fast = TileList<Tile<256, 16>, Tile<256, 16, true>, Tile<256, 16, true, 6>,
                        Tile<256, 24, true>, Tile<256, 32>, Tile<256, 32, true>,
                        Tile<128, 32, true>, Tile<512, 16, true, 3>, Tile<128, 24, true>>;
  using Reproducible = TileList<Tile<256, 16>, Tile<256, 16, true>>;
};

// The shipped picks, a fast and a reproducible tile for each memory class (scan.hpp): the tile
// tuned on an H100 below 4 TB/s; from 4 TB/s the fastest candidate of bench/recurrence_bench on
// an H200 (2026-11-28, 2^28 floats, copy 527.7 Gelem/s in the same run: 128x32v 419.7 Gelem/s,
// 79.2 % of copy, against the H100's 256x16 at 394.0, 74.4 %, and CUB's 390.3). The reproducible
// tile is fixed by its documented order; its 16-byte form was no faster (346.3 against 348.6).
struct ShippedTiles {
  ScanTile fast, reproducible;
};
// The integers' sums compile only their documented tile (SumTiles): they keep it everywhere.
constexpr ShippedTiles kSumTiles[3][kMemoryClasses] = {
    /* float */ {/* below 4 TB/s */ {{256, 16}, {256, 16}},
                 /* from 4 TB/s */ {{128, 32, true}, {256, 16}}},
    /* int */ {/* below 4 TB/s */ {{256, 16}, {256, 16}},
               /* from 4 TB/s */ {{256, 16}, {256, 16}}},
    /* 8-byte elements */ {/* below 4 TB/s */ {{256, 8}, {256, 8}},
                           /* from 4 TB/s */ {{256, 8}, {256, 8}}}};

// Look-back pauses measured best for the float sum of 2^28 elements on an H200 (62 % of copy
// bandwidth without them, 75 % with; docs/journal/2026-11.md).
constexpr lookback::Pauses kSumPauses{2200, 300};

template <class T>
const char* sum_name() {
  if constexpr (std::is_same_v<T, float>) return "device_sum_scan<float>";
  else if constexpr (std::is_same_v<T, double>) return "device_sum_scan<double>";
  else if constexpr (std::is_same_v<T, int>) return "device_sum_scan<int>";
  else return "device_sum_scan<long long>";
}

// Peak memory bandwidth, bytes/s, from the device's attributes: two transfers a clock (DDR).
double peak_memory_bandwidth(int device) {
  int khz = 0, bits = 0;
  PARASOL_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
  return 2.0 * 1e3 * khz * bits / 8.0;
}

}  // namespace

std::string_view name(ScanMode m) { return lookup_name(kScanModeNames, m); }
ScanMode parse_scan_mode(std::string_view s) { return lookup_value(kScanModeNames, s, "scan mode"); }

std::string to_string(const ScanTile& t) {
  if (t.is_default()) return "default";
  return std::to_string(t.threads) + "x" + std::to_string(t.items) + (t.vectors ? "v" : "") +
         (t.min_blocks > 0 ? "-min" + std::to_string(t.min_blocks) : "");
}

std::string_view name(MemoryClass c) {
  return c == MemoryClass::from_4tbs ? "from 4 TB/s" : "below 4 TB/s";
}

MemoryClass memory_class_of(double peak_bytes_per_second) {
  return peak_bytes_per_second >= 4e12 ? MemoryClass::from_4tbs : MemoryClass::below_4tbs;
}

MemoryClass current_memory_class() {
  // One entry a device ordinal: 0 until looked up (two attribute reads), then the class + 1.
  constexpr int kDevices = 64;
  static std::atomic<int> known[kDevices];
  int device = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  if (device < 0 || device >= kDevices) return memory_class_of(peak_memory_bandwidth(device));
  std::atomic<int>& entry = known[device];
  int c = entry.load(std::memory_order_relaxed);
  if (c == 0) {
    c = 1 + static_cast<int>(memory_class_of(peak_memory_bandwidth(device)));
    entry.store(c, std::memory_order_relaxed);
  }
  return static_cast<MemoryClass>(c - 1);
}

template <class T>
std::vector<ScanTile> sum_scan_tiles(ScanMode mode) {
  return mode == ScanMode::fast ? compiled_tiles(typename SumTiles<T>::Fast{})
                                : compiled_tiles(typename SumTiles<T>::Reproducible{});
}

template <class T>
ScanTile default_sum_tile(ScanMode mode, MemoryClass memory) {
  const int row = std::is_same_v<T, float> ? 0 : sizeof(T) == 4 ? 1 : 2;
  const ShippedTiles& t = kSumTiles[row][static_cast<int>(memory)];
  return mode == ScanMode::fast ? t.fast : t.reproducible;
}

template <class T>
void device_sum_scan(const T* in, T* out, std::int64_t n, ScanKind kind, ScanMode mode,
                     ScanWorkspace& workspace, cudaStream_t stream, ScanTile tile) {
  if (n <= 0) return;
  if (tile.is_default()) tile = default_sum_tile<T>(mode, current_memory_class());
  const SumPolicy<T> policy{in, out};
  if (mode == ScanMode::fast)
    dispatch_tile(std::string(sum_name<T>()) + ", fast", typename SumTiles<T>::Fast{}, tile,
                  [&](auto t) {
                    device_scan_in<ScanMode::fast, decltype(t)>(policy, n, kind, workspace,
                                                                stream, kSumPauses);
                  });
  else
    dispatch_tile(std::string(sum_name<T>()) + ", reproducible",
                  typename SumTiles<T>::Reproducible{}, tile, [&](auto t) {
                    device_scan_in<ScanMode::reproducible, decltype(t)>(policy, n, kind,
                                                                        workspace, stream);
                  });
}

template <class T>
int sum_scan_blocks_per_multiprocessor(ScanMode mode, ScanTile tile) {
  if (tile.is_default()) tile = default_sum_tile<T>(mode, current_memory_class());
  using P = SumPolicy<T>;
  int blocks = 0;
  if (mode == ScanMode::fast)
    dispatch_tile(std::string(sum_name<T>()) + ", fast", typename SumTiles<T>::Fast{}, tile,
                  [&](auto t) {
                    blocks = blocks_per_multiprocessor<ScanMode::fast, decltype(t), P>();
                  });
  else
    dispatch_tile(std::string(sum_name<T>()) + ", reproducible",
                  typename SumTiles<T>::Reproducible{}, tile, [&](auto t) {
                    blocks = blocks_per_multiprocessor<ScanMode::reproducible, decltype(t), P>();
                  });
  return blocks;
}

#define PARASOL_SUM_SCAN(T)                                                                   \
  template void device_sum_scan(const T*, T*, std::int64_t, ScanKind, ScanMode, ScanWorkspace&, \
                                cudaStream_t, ScanTile);                                        \
  template std::vector<ScanTile> sum_scan_tiles<T>(ScanMode);                                   \
  template ScanTile default_sum_tile<T>(ScanMode, MemoryClass);                                \
  template int sum_scan_blocks_per_multiprocessor<T>(ScanMode, ScanTile);
PARASOL_SUM_SCAN(int)
PARASOL_SUM_SCAN(long long)
PARASOL_SUM_SCAN(float)
PARASOL_SUM_SCAN(double)
#undef PARASOL_SUM_SCAN

}  // namespace parasol
