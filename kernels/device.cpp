#include "kernels/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/stream.hpp"

namespace parasol {

void load_kernels_eagerly() {
  // POSIX setenv with overwrite 0 leaves a value the user chose.
  (void)setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

ContextWarmup::ContextWarmup() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  thread_ = std::thread([device] {
    // Errors are the thread's own (CUDA keeps them per thread): cleared, not reported twice.
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(nullptr);
    (void)cudaGetLastError();
  });
}

ContextWarmup::ContextWarmup(int local_rank) {
  thread_ = std::thread([local_rank] {
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 &&
        cudaSetDevice(local_rank % count) == cudaSuccess)
      (void)cudaFree(nullptr);
    (void)cudaGetLastError();
  });
}

int device_for_local_rank(int local_rank) {
  int count = 0;
  PARASOL_CUDA(cudaGetDeviceCount(&count));
  if (count <= 0) throw Error("no CUDA device is visible to this process");
  return local_rank % count;
}

ContextWarmup::~ContextWarmup() {
  if (thread_.joinable()) thread_.join();
}

bool gpu_available(std::string* reason) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    // Without a driver CUDA reports an "insufficient" driver; say plainly what the user has.
    if (reason != nullptr)
      *reason = std::string("no usable CUDA device (") + cudaGetErrorName(err) + ": " +
                cudaGetErrorString(err) + ")";
    return false;
  }
  if (count == 0) {
    if (reason != nullptr) *reason = "no CUDA device found";
    return false;
  }
  return true;
}

std::string DeviceInfo::compute_capability() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

void release_device_context() { PARASOL_CUDA(cudaDeviceReset()); }

DeviceInfo current_device() {
  DeviceInfo info;
  PARASOL_CUDA(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop{};
  PARASOL_CUDA(cudaGetDeviceProperties(&prop, info.ordinal));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  info.max_block = {prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2]};
  PARASOL_CUDA(cudaMemGetInfo(&info.free_memory, &info.total_memory));
  PARASOL_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
  PARASOL_CUDA(cudaDriverGetVersion(&info.driver_version));
  return info;
}

bool fits_in_free_memory(double bytes) {
  return bytes < 0.9 * static_cast<double>(current_device().free_memory);
}

int multiprocessor_count() {
  int device = 0, count = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void check_block_limits(const Shape& block, const DeviceInfo& device, const std::string& key) {
  const Shape& max = device.max_block;
  if (block.x < 1 || block.y < 1 || block.z < 1)
    throw InputError("", key, "block dimensions must be positive, got " + to_string(block));
  if (block.x > max.x || block.y > max.y || block.z > max.z)
    throw InputError("", key,
                     "block " + to_string(block) + " is over this device's per-dimension limits " +
                         to_string(max));
  if (block.threads() > device.max_threads_per_block)
    throw InputError("", key,
                     "block " + to_string(block) + " has " + std::to_string(block.threads()) +
                         " threads; this device allows at most " +
                         std::to_string(device.max_threads_per_block));
}

double measure_copy_bandwidth(std::size_t bytes, int repeats) {
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  Stream stream;
  // Copy speed does not depend on the data, but nothing here is timed on untouched memory.
  PARASOL_CUDA(cudaMemsetAsync(src.data(), 0x5A, bytes, stream));
  PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  std::vector<double> seconds;
  EventTimer timer(stream);
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    PARASOL_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    timer.stop();
    seconds.push_back(timer.seconds());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return 2.0 * static_cast<double>(bytes) / seconds[seconds.size() / 2];
}

}  // namespace parasol
