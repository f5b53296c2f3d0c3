// Generated signals drawn on the device, a thread per pair of samples, with sample_pair
// (signal_sample.hpp): the bits generate_samples draws on the host, straight into device memory.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/error.hpp"
#include "kernels/kernel_log.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "solvers/fftconv/signal_sample.hpp"
#include "solvers/fftconv/signals.hpp"

namespace parasol::fftconv {
namespace {

constexpr int kThreads = 256;

// Pairs [first_pair, first_pair + pairs) of the batch laid one signal after another (pair p is
// samples 2 (p mod per_signal) and the one after of signal p / per_signal), each sample kept
// where it falls in the batch's samples [first, first + count).
template <class T>
__global__ void draw_signal_kernel(SampleRule rule, std::int64_t first, std::int64_t count,
                                   std::int64_t first_pair, std::int64_t pairs, T* into) {
  const std::int64_t per_signal = (rule.size + 1) / 2;
  for (const std::int64_t at : grid_stride(pairs)) {
    const std::int64_t p = first_pair + at;
    const std::int64_t b = p / per_signal, q = p - b * per_signal;
    const CounterDraws draws(rule.seed, static_cast<std::uint64_t>(b));
    const SamplePair pair = sample_pair(rule, draws, q);
    const std::int64_t i = b * rule.size + 2 * q - first;
    if (i >= 0 && i < count) into[i] = static_cast<T>(pair.first);
    if (2 * q + 1 < rule.size && i + 1 >= 0 && i + 1 < count)
      into[i + 1] = static_cast<T>(pair.second);
  }
}

}  // namespace

template <class T>
void generate_samples_gpu(const Signal& s, std::int64_t first, std::int64_t count, T* d_into,
                          cudaStream_t stream) {
  if (count <= 0) return;
  const SampleRule rule = sample_rule(s);
  const std::int64_t per_signal = (rule.size + 1) / 2;
  const auto pair_of = [&](std::int64_t i) {
    return i / rule.size * per_signal + i % rule.size / 2;
  };
  const std::int64_t first_pair = pair_of(first);
  const std::int64_t pairs = pair_of(first + count - 1) + 1 - first_pair;
  const int blocks = grid_stride_blocks(pairs, kThreads);
  PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, draw_signal_kernel<T>);
  draw_signal_kernel<T><<<blocks, kThreads, 0, stream>>>(rule, first, count, first_pair, pairs,
                                                         d_into);
  PARASOL_CHECK_LAUNCH(stream);
}

template void generate_samples_gpu<float>(const Signal&, std::int64_t, std::int64_t, float*,
                                          cudaStream_t);
template void generate_samples_gpu<double>(const Signal&, std::int64_t, std::int64_t, double*,
                                           cudaStream_t);

}  // namespace parasol::fftconv
