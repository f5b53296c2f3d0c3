// AR(1) series drawn on the device, a thread per pair of steps, with ar1_pair (ar1_steps.hpp):
// the bits ar1_series draws on the host, straight into the scan's s and u.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/error.hpp"
#include "kernels/kernel_log.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "solvers/recurrence/ar1_steps.hpp"
#include "solvers/recurrence/problems.hpp"

namespace parasol::recurrence {
namespace {

constexpr int kThreads = 256;

// Pairs [first_pair, first_pair + pairs) of the series laid one after another (pair p is steps
// 2 (p mod per_series) and the one after of series p / per_series), each step kept where it
// falls in elements [first, first + count).
template <class T>
__global__ void draw_ar1_kernel(Ar1 a, std::int64_t first, std::int64_t count,
                                std::int64_t first_pair, std::int64_t pairs, T* s, T* u) {
  const std::int64_t per_series = (a.length + 1) / 2;
  for (const std::int64_t at : grid_stride(pairs)) {
    const std::int64_t p = first_pair + at;
    const std::int64_t k = p / per_series, j = 2 * (p - k * per_series);
    const CounterDraws noise(a.seed, 2 * static_cast<std::uint64_t>(k));
    const CounterDraws coefficients(a.seed, 2 * static_cast<std::uint64_t>(k) + 1);
    const Ar1Pair pair = ar1_pair(a, noise, coefficients, j);
    const std::int64_t i = k * a.length + j - first;
    if (i >= 0 && i < count) {
      s[i] = static_cast<T>(pair.s0);
      u[i] = static_cast<T>(pair.u0);
    }
    if (j + 1 < a.length && i + 1 >= 0 && i + 1 < count) {
      s[i + 1] = static_cast<T>(pair.s1);
      u[i + 1] = static_cast<T>(pair.u1);
    }
  }
}

}  // namespace

template <class T>
void draw_ar1_gpu(const Ar1& a, std::int64_t first, std::int64_t count, T* d_s, T* d_u,
                  cudaStream_t stream) {
  if (count <= 0) return;
  const std::int64_t per_series = (a.length + 1) / 2;
  const auto pair_of = [&](std::int64_t i) {
    return i / a.length * per_series + i % a.length / 2;
  };
  const std::int64_t first_pair = pair_of(first);
  const std::int64_t pairs = pair_of(first + count - 1) + 1 - first_pair;
  const int blocks = grid_stride_blocks(pairs, kThreads);
  PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, draw_ar1_kernel<T>);
  draw_ar1_kernel<T><<<blocks, kThreads, 0, stream>>>(a, first, count, first_pair, pairs, d_s, d_u);
  PARASOL_CHECK_LAUNCH(stream);
}

template void draw_ar1_gpu<float>(const Ar1&, std::int64_t, std::int64_t, float*, float*,
                                  cudaStream_t);
template void draw_ar1_gpu<double>(const Ar1&, std::int64_t, std::int64_t, double*, double*,
                                   cudaStream_t);

}  // namespace parasol::recurrence
