#include "kernels/launch.hpp"

namespace parasol {

int grid_stride_blocks(std::int64_t n, int block_threads, int waves) {
  int device = 0, sms = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int threads_per_sm = 0;
  PARASOL_CUDA(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  const std::int64_t fill = static_cast<std::int64_t>(sms) * (threads_per_sm / block_threads) * waves;
  const std::int64_t needed = ceil_div(std::max<std::int64_t>(n, 1), block_threads);
  return static_cast<int>(std::max<std::int64_t>(1, std::min(fill, needed)));
}

std::size_t smem_to_cap_blocks(const void* kernel, int block_threads, int blocks) {
  if (blocks < 1 || max_active_blocks(kernel, block_threads) <= blocks) return 0;
  int device = 0, per_sm = 0, reserved = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  cudaFuncAttributes attributes{};
  PARASOL_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  // blocks + 1 blocks of (padding + static + reserved) must not fit where `blocks` do.
  const std::int64_t per_block = per_sm / (blocks + 1) + 1;
  const std::int64_t padding =
      per_block - reserved - static_cast<std::int64_t>(attributes.sharedSizeBytes);
  constexpr std::int64_t kDefaultLimit = 48 * 1024;
  if (padding <= 0 || padding > kDefaultLimit) return 0;
  const auto bytes = static_cast<std::size_t>(padding);
  return max_active_blocks(kernel, block_threads, bytes) == blocks ? bytes : 0;
}

}  // namespace parasol
