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

}  // namespace parasol
