// Why a launch ran as it did: each kernel's registers, spills and shared memory (the CUDA
// runtime's function attributes), the occupancy they allow and the resource that limits it (the
// CUDA occupancy calculator's rules), and the grid's waves over the device. No profiler needed.
//
// A KernelLog records, while it exists, every launch noted with PARASOL_NOTE_LAUNCH beside it:
//
//   PARASOL_NOTE_LAUNCH(grid, block, shared, zreg_kernel<B::x, B::y>);
//   zreg_kernel<B::x, B::y><<<grid, block, shared, stream>>>(...);
//
// `parasol sweep` holds one while it measures each configuration. Without a log a note costs one
// test of a pointer; with one, a kernel's attributes are asked for once per block size, shared
// memory and grid, and later launches only add to its count. Launches made inside vendor
// libraries (cuFFT, cuRAND) are not noted. One log at a time, on the thread that launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace parasol {

// What bounds resident blocks on one multiprocessor: the device's properties the occupancy
// calculator reads (cudaDeviceProp's names in comments).
struct SmLimits {
  int multiprocessors = 0;          // multiProcessorCount
  int warp_size = 32;               // warpSize
  int max_threads_per_sm = 0;       // maxThreadsPerMultiProcessor
  int max_blocks_per_sm = 0;        // maxBlocksPerMultiProcessor
  int registers_per_sm = 0;         // regsPerMultiprocessor
  int registers_per_block = 0;      // regsPerBlock
  std::int64_t shared_per_sm = 0;   // sharedMemPerMultiprocessor
  std::int64_t shared_per_block = 0;          // sharedMemPerBlockOptin: the most one block may ask
  std::int64_t reserved_shared_per_block = 0;  // reservedSharedMemPerBlock (1 KiB from sm_80)
  // Allocation granularities the calculator uses for every architecture since sm_50: registers
  // in units of 256 per warp over 4 sub-partitions, shared memory in 128-byte units.
  int register_unit = 256;
  int sub_partitions = 4;
  std::int64_t shared_unit = 128;
};

// What one launch asks of a multiprocessor.
struct KernelUse {
  int block_threads = 0;
  int registers = 0;  // per thread
  std::int64_t static_shared = 0, dynamic_shared = 0;
};

// Theoretical occupancy: resident blocks per multiprocessor, the share of its warps they fill,
// and the resource that allows no more ("registers", "shared memory", "warps", "blocks per SM";
// several joined by " and " when they bind alike).
struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double fraction = 0;  // of the multiprocessor's warp slots, 0..1
  std::string limiter;
};

// The calculator's rules on `limits`; no device needed. A launch that cannot fit at all
// (too many threads, registers or shared bytes for one block) has 0 blocks, limited by that.
Occupancy theoretical_occupancy(const KernelUse& use, const SmLimits& limits);

// The current device's limits.
SmLimits current_sm_limits();

// One kernel as a configuration launched it.
struct KernelRecord {
  std::string name;       // as written at the launch, without template arguments: "zreg_kernel"
  std::string block;      // "32x8x1"
  std::int64_t block_threads = 0;
  std::int64_t grid_blocks = 0;  // all blocks of the grid
  std::int64_t launches = 0;     // how often this kernel, block, shared size and grid ran
  int registers = 0;             // per thread (cudaFuncAttributes::numRegs)
  std::int64_t local_bytes = 0;  // per thread: spills and local arrays (localSizeBytes)
  std::int64_t static_shared = 0, dynamic_shared = 0;  // bytes per block
  int max_threads_per_block = 0;  // the most this kernel can launch with (maxThreadsPerBlock)
  int blocks_per_sm = 0;          // resident, by cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0;           // theoretical: resident warps over the SM's warp slots, 0..1
  std::string limiter;            // what allows no more blocks (see Occupancy)
  double waves = 0;               // grid blocks over (resident blocks per SM x SMs)
};

// A grid or block's extent, as dim3 holds it (this header needs no CUDA header).
struct LaunchDims {
  unsigned x = 1, y = 1, z = 1;
};

// Records noted launches while it exists. Not copyable; one at a time.
class KernelLog {
 public:
  KernelLog();
  ~KernelLog();
  KernelLog(const KernelLog&) = delete;
  KernelLog& operator=(const KernelLog&) = delete;
  // What was recorded, in the order first launched; the log is left empty.
  std::vector<KernelRecord> take();

 private:
  friend void record_launch(const char*, const void*, const LaunchDims&, const LaunchDims&,
                            std::size_t);
  // What makes a launch the same as one recorded: its entry, grid, block and shared size.
  struct Seen {
    const void* kernel;
    std::int64_t grid_blocks, block_threads, dynamic_shared;
    std::size_t record;
  };
  std::vector<KernelRecord> records_;
  std::vector<Seen> seen_;
  SmLimits limits_;
  bool have_limits_ = false;
};

// Whether a KernelLog is recording now.
bool kernel_log_active();

// Adds a launch to the active log: `kernel` is the kernel's host entry (what <<<>>> launches).
void record_launch(const char* name, const void* kernel, const LaunchDims& grid,
                   const LaunchDims& block, std::size_t dynamic_shared);

// The same from a launch's own values: `grid` and `block` are dim3s.
template <class Kernel, class Dim3>
void note_launch(const char* name, Kernel kernel, const Dim3& grid, const Dim3& block,
                 std::size_t dynamic_shared) {
  record_launch(name, reinterpret_cast<const void*>(kernel), {grid.x, grid.y, grid.z},
                {block.x, block.y, block.z}, dynamic_shared);
}

}  // namespace parasol

// Written next to a launch with the same grid, block and dynamic shared bytes, and the kernel
// as launched (template arguments and all). Its arguments are read only while a log records.
#define PARASOL_NOTE_LAUNCH(grid, block, dynamic_shared, ...)                             \
  do {                                                                                    \
    if (::parasol::kernel_log_active())                                                   \
      ::parasol::note_launch(#__VA_ARGS__, __VA_ARGS__, dim3(grid), dim3(block),          \
                             static_cast<std::size_t>(dynamic_shared));                   \
  } while (0)
