// cuFFT plans kept for reuse: making a plan costs far more than executing it (it allocates a
// work area and may compile kernels), so a convolver makes each transform shape once.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <array>
#include <cstdint>
#include <map>
#include <tuple>

namespace parasol::fftconv {

class PlanCache {
 public:
  PlanCache() = default;
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;
  ~PlanCache();

  // A plan for `batch` transforms of `type` over rows x cols points (rows = 1: 1D), packed
  // layout (real data [rows][cols], half spectra [rows][cols / 2 + 1]), bound to `stream`.
  cufftHandle get(cufftType type, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                  cudaStream_t stream);
  // One 3D transform of depth x rows x cols points, packed as above (cols fastest).
  cufftHandle get_3d(cufftType type, std::int64_t depth, std::int64_t rows, std::int64_t cols,
                     cudaStream_t stream);
  // `columns` transforms of `length` points down the columns of a [length][columns] array
  // (stride `columns`, one apart), complex to complex.
  cufftHandle get_columns(cufftType type, std::int64_t length, std::int64_t columns,
                          cudaStream_t stream);
  std::size_t size() const { return plans_.size(); }

 private:
  // type, depth (0: a 1D or 2D plan; -1: a column plan), rows, cols, batch.
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  // stride 0: packed; otherwise rank 1, `stride` apart, one transform a value apart.
  cufftHandle made(const Key& key, int rank, long long* dims, std::int64_t batch,
                   cudaStream_t stream, std::int64_t stride = 0);
  std::map<Key, cufftHandle> plans_;
};

}  // namespace parasol::fftconv
