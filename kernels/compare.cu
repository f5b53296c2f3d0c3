#include "kernels/compare.hpp"

#include <cmath>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/reduce.cuh"

namespace parasol {

namespace {

// What each value contributes: |e| and e^2, NaN in both when e is NaN.
struct Difference {
  double max_abs;
  double sum_sq;
};

template <class T, class G>
struct DifferenceOf {
  const T* result;
  const G* gold;
  __device__ Difference operator()(std::int64_t i) const {
    const double e = static_cast<double>(result[i]) - static_cast<double>(gold[i]);
    return {fabs(e), e * e};
  }
};

// Max of the first (a NaN wins, as Max does), sum of the second.
struct CombineDifference {
  __device__ Difference operator()(Difference a, Difference b) const {
    return {Max{}(a.max_abs, b.max_abs), a.sum_sq + b.sum_sq};
  }
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return T{0, 0};
  }
};

// The same with each point's difference relative to its scale, as max_relative_to_scale takes it
// on the host: a point whose scale is 0 must match exactly (infinity otherwise).
struct ScaledDifference {
  double max_abs;
  double sum_sq;
  double max_relative;
};

template <class T>
struct ScaledDifferenceOf {
  const T* result;
  const double* gold;
  const double* scale;
  __device__ ScaledDifference operator()(std::int64_t i) const {
    const double e = fabs(static_cast<double>(result[i]) - gold[i]);
    const double s = scale[i];
    const double relative = e != e ? e : (s > 0 ? e / s : (e == 0 ? 0.0 : HUGE_VAL));
    return {e, e * e, relative};
  }
};

struct CombineScaledDifference {
  __device__ ScaledDifference operator()(ScaledDifference a, ScaledDifference b) const {
    return {Max{}(a.max_abs, b.max_abs), a.sum_sq + b.sum_sq,
            Max{}(a.max_relative, b.max_relative)};
  }
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return T{0, 0, 0};
  }
};

// Words that differ between a and b, counted (0: the same bits).
struct WordsDiffer {
  const unsigned* a;
  const unsigned* b;
  __device__ unsigned long long operator()(std::int64_t i) const { return a[i] != b[i] ? 1 : 0; }
};

struct BytesDiffer {
  const unsigned char* a;
  const unsigned char* b;
  __device__ unsigned long long operator()(std::int64_t i) const { return a[i] != b[i] ? 1 : 0; }
};

// Adds the count of differing elements of a and b to *count: one atomic add a block.
template <class Word>
__global__ void count_differences_kernel(const Word* __restrict__ a, const Word* __restrict__ b,
                                         std::int64_t n, unsigned long long* count) {
  unsigned differ = 0;
  for (std::int64_t i : block_uniform_stride(n)) differ += i < n && a[i] != b[i] ? 1u : 0u;
  for (int offset = 16; offset > 0; offset /= 2)
    differ += __shfl_down_sync(0xffffffffu, differ, offset);
  __shared__ unsigned long long block_total;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();
  if (threadIdx.x % 32 == 0 && differ != 0)
    atomicAdd(&block_total, static_cast<unsigned long long>(differ));
  __syncthreads();
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(count, block_total);
}

template <class T>
__global__ void gather_kernel(const T* __restrict__ values, const std::int64_t* __restrict__ at,
                              std::int64_t count, T* __restrict__ out) {
  for (std::int64_t k : grid_stride(count)) out[k] = values[at[k]];
}

}  // namespace

template <class T>
std::vector<T> download_at(const T* values, const std::int64_t* at, std::int64_t count,
                           cudaStream_t stream) {
  if (count <= 0) return {};
  DeviceBuffer<T> picked(static_cast<std::size_t>(count));
  constexpr int kThreads = 256;
  gather_kernel<<<grid_stride_blocks(count, kThreads), kThreads, 0, stream>>>(values, at, count,
                                                                              picked.data());
  PARASOL_CHECK_LAUNCH(stream);
  return download(picked, stream);
}

template std::vector<float> download_at(const float*, const std::int64_t*, std::int64_t,
                                        cudaStream_t);
template std::vector<double> download_at(const double*, const std::int64_t*, std::int64_t,
                                         cudaStream_t);

template <class T, class G>
FieldDifference device_compare(const T* result, const G* gold, std::int64_t n,
                               cudaStream_t stream) {
  if (n == 0) return {0, 0};
  DeviceReducer<Difference> reducer;
  const Difference d = reducer.reduce(n, DifferenceOf<T, G>{result, gold}, CombineDifference{}, stream);
  if (std::isnan(d.max_abs) || std::isnan(d.sum_sq)) return {NAN, NAN};
  return {d.max_abs, std::sqrt(d.sum_sq / static_cast<double>(n))};
}

template <class T>
ScaledComparison device_compare_scaled(const T* result, const double* gold, const double* scale,
                                       std::int64_t n, cudaStream_t stream) {
  if (n == 0) return {{0, 0}, 0};
  DeviceReducer<ScaledDifference> reducer;
  const ScaledDifference d = reducer.reduce(n, ScaledDifferenceOf<T>{result, gold, scale},
                                            CombineScaledDifference{}, stream);
  if (std::isnan(d.max_abs) || std::isnan(d.sum_sq)) return {{NAN, NAN}, NAN};
  return {{d.max_abs, std::sqrt(d.sum_sq / static_cast<double>(n))}, d.max_relative};
}

template ScaledComparison device_compare_scaled(const float*, const double*, const double*,
                                                std::int64_t, cudaStream_t);
template ScaledComparison device_compare_scaled(const double*, const double*, const double*,
                                                std::int64_t, cudaStream_t);

template FieldDifference device_compare(const float*, const float*, std::int64_t, cudaStream_t);
template FieldDifference device_compare(const float*, const double*, std::int64_t, cudaStream_t);
template FieldDifference device_compare(const double*, const double*, std::int64_t, cudaStream_t);

bool BitComparer::same(const void* a, const void* b, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return true;
  if (!differ_) differ_.emplace();
  const bool words = bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(a) % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(b) % 4 == 0;
  const unsigned long long differ =
      words ? differ_->reduce(static_cast<std::int64_t>(bytes / 4),
                             WordsDiffer{static_cast<const unsigned*>(a),
                                         static_cast<const unsigned*>(b)},
                             Sum{}, stream)
            : differ_->reduce(static_cast<std::int64_t>(bytes),
                             BytesDiffer{static_cast<const unsigned char*>(a),
                                         static_cast<const unsigned char*>(b)},
                             Sum{}, stream);
  return differ == 0;
}

void BitComparer::add_differences(const void* a, const void* b, std::size_t bytes,
                                  cudaStream_t stream) {
  if (count_.empty()) {
    count_ = DeviceBuffer<unsigned long long>(1);
    fill_bytes(count_, 0, stream);
  }
  if (bytes == 0) return;
  constexpr int kThreads = 256;
  const bool words = bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(a) % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(b) % 4 == 0;
  const auto n = static_cast<std::int64_t>(words ? bytes / 4 : bytes);
  const int blocks = grid_stride_blocks(n, kThreads);
  if (words) {
    PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, count_differences_kernel<unsigned>);
    count_differences_kernel<unsigned><<<blocks, kThreads, 0, stream>>>(
        static_cast<const unsigned*>(a), static_cast<const unsigned*>(b), n, count_.data());
  } else {
    PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, count_differences_kernel<unsigned char>);
    count_differences_kernel<unsigned char><<<blocks, kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), n,
        count_.data());
  }
  PARASOL_CHECK_LAUNCH(stream);
}

unsigned long long BitComparer::take_differences(cudaStream_t stream) {
  if (count_.empty()) return 0;
  unsigned long long count = 0;
  download(count_, &count, 1, stream);
  fill_bytes(count_, 0, stream);
  return count;
}

}  // namespace parasol
