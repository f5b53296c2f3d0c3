#include "bench/zmarch_copy.hpp"

#include "kernels/error.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"

namespace parasol::bench {
namespace {

constexpr int kX = 128, kY = 2, kRows = 2;

__global__ void __launch_bounds__(kX* kY)
    zmarch_copy_kernel(const float* __restrict__ src, float* __restrict__ dst, std::int64_t n,
                       std::int64_t chunk) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kX + threadIdx.x;
  const std::int64_t j0 = (static_cast<std::int64_t>(blockIdx.y) * kY + threadIdx.y) * kRows;
  const std::int64_t k0 = blockIdx.z * chunk, k1 = min(k0 + chunk, n);
  if (i >= n) return;
  for (std::int64_t k = k0; k < k1; ++k) {
    float v[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      if (j0 + r < n) v[r] = src[i + n * (j0 + r) + n * n * k];
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      if (j0 + r < n) dst[i + n * (j0 + r) + n * n * k] = v[r];
  }
}

}  // namespace

void zmarch_copy(const float* src, float* dst, std::int64_t n, std::int64_t chunk,
                 cudaStream_t stream) {
  const dim3 blocks(static_cast<unsigned>(ceil_div(n, kX)),
                    static_cast<unsigned>(ceil_div(n, kY * kRows)),
                    static_cast<unsigned>(ceil_div(n, chunk)));
  zmarch_copy_kernel<<<blocks, dim3(kX, kY), 0, stream>>>(src, dst, n, chunk);
  PARASOL_CHECK_LAUNCH(stream);
}

}  // namespace parasol::bench
