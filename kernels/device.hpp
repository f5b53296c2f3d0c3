// What the device is and what it can do: presence, properties, limits, and the measured
// device-to-device copy bandwidth (the roofline for memory-bound kernels).
#pragma once

#include <cstddef>
#include <string>
#include <thread>

#include "kernels/shape.hpp"

namespace parasol {

// Whether a usable CUDA device is present; when not, `reason` says why (no driver, no device...).
bool gpu_available(std::string* reason = nullptr);

// Asks CUDA to load every kernel when the process first touches the device (the context's
// setup) rather than at each kernel's first launch, unless the user set CUDA_MODULE_LOADING
// already. Call before any CUDA call. A lazily loaded kernel's first launch blocks the host for
// its module's load, about 2 ms for coulomb's kernels on an H200, inside whatever is being
// timed: a one-off solve's compute time, and, across ranks, a cost every rank pays that does
// not shrink with the ranks. Measured on two H200s, loading eagerly added nothing measurable to
// a run's setup (0.47 s either way).
void load_kernels_eagerly();

// Destroys this process's context on the current device (cudaDeviceReset): what the process's
// exit would do, 0.1-0.15 s on an H200, done while a run's wall is still being timed. Only for a
// process about to end: every device pointer, stream and handle dies with the context.
void release_device_context();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0, free_memory = 0;
  std::size_t l2_bytes = 0;
  int max_threads_per_block = 0;
  Shape max_block;  // per-dimension limits
  int runtime_version = 0, driver_version = 0;  // e.g. 13000 for 13.0
  std::string compute_capability() const;      // "9.0"
};

DeviceInfo current_device();

// Whether `bytes` more fit in the current device's free memory, leaving a tenth of it for what a
// solver allocates as it goes (workspaces, plans): for optional copies, such as a sweep's gold
// kept on the device, which are left out where they do not fit.
bool fits_in_free_memory(double bytes);

// The device a rank that is `local_rank` among its host's ranks runs on: its local rank modulo the
// host's visible devices (comm::Context::select_device). Throws where no device is usable.
int device_for_local_rank(int local_rank);

// The current device's multiprocessor count (cheaper than current_device()).
int multiprocessor_count();

// "13.0" from 13000.
std::string cuda_version_string(int version);

// Throws InputError naming `key` when the block is over the device's limits.
void check_block_limits(const Shape& block, const DeviceInfo& device, const std::string& key);

// Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written:
// the median of `repeats` timed copies of `bytes` each (after a warm-up copy).
double measure_copy_bandwidth(std::size_t bytes, int repeats = 20);

// The current device's context made on a thread of its own, so that the half second an H200's
// takes overlaps what the host does before its first CUDA call (reading and drawing inputs);
// that call then waits only for what is left of it. Joined when destroyed. A device that fails
// here fails again, with its message, at the caller's own first checked call.
class ContextWarmup {
 public:
  ContextWarmup();
  // The context of the device a rank that is `local_rank` on its host runs on
  // (device_for_local_rank), before that device is current: a launched rank's is made while MPI
  // initialises (a quarter of a second each on an H200 host).
  explicit ContextWarmup(int local_rank);
  ~ContextWarmup();
  ContextWarmup(const ContextWarmup&) = delete;
  ContextWarmup& operator=(const ContextWarmup&) = delete;

 private:
  std::thread thread_;
};

}  // namespace parasol
