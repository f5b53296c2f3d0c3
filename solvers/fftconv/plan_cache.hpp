// cuFFT plans kept for reuse: making a plan costs far more than executing it (it allocates a
// work area and may compile kernels), so a convolver makes each transform shape once. A plan
// that cannot be made is tried once more after the cache's other plans are released; then the
// failure names the plan and the device memory free.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "kernels/making.hpp"

namespace parasol::fftconv {

// Makes something with `make`; when that fails with a cuFFT error (cuFFT reports device memory
// it could not get as CUFFT_INTERNAL_ERROR, which a parallel ctest on one GPU meets), calls
// `release` to give back what is held and tries once more. A second failure goes up.
template <class Make, class Release>
auto make_or_retry_once(Make&& make, Release&& release) -> decltype(make()) {
  try {
    return make();
  } catch (const CufftError&) {
    release();
  }
  return make();
}

// "a C2C plan of 4096 x 65536 float, batch 8" (rank, type, dims, precision, batch; `stride` > 0:
// down columns `stride` apart).
std::string describe_plan(cufftType type, int rank, const long long* dims, std::int64_t batch,
                          std::int64_t stride = 0);

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
  // Destroys every cached plan, giving back their work areas, and waits for the device. A
  // handle from an earlier get() is invalid after it: callers look plans up where they use them.
  void release();

 private:
  // type, depth (0: a 1D or 2D plan; -1: a column plan), rows, cols, batch.
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  // stride 0: packed; otherwise rank 1, `stride` apart, one transform a value apart.
  cufftHandle made(const Key& key, int rank, long long* dims, std::int64_t batch,
                   cudaStream_t stream, std::int64_t stride = 0);
  std::map<Key, cufftHandle> plans_;
};

}  // namespace parasol::fftconv
