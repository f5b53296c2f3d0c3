#include "solvers/fftconv/plan_cache.hpp"

#include "kernels/error.hpp"

namespace parasol::fftconv {

PlanCache::~PlanCache() {
  for (const auto& entry : plans_) (void)cufftDestroy(entry.second);
}

cufftHandle PlanCache::get(cufftType type, std::int64_t rows, std::int64_t cols,
                           std::int64_t batch, cudaStream_t stream) {
  const Key key{static_cast<int>(type), rows, cols, batch};
  auto found = plans_.find(key);
  if (found == plans_.end()) {
    cufftHandle plan = 0;
    PARASOL_CUFFT(cufftCreate(&plan));
    long long dims[2] = {rows, cols};
    const int rank = rows > 1 ? 2 : 1;
    std::size_t work_bytes = 0;
    // nullptr layouts: packed data, as documented for real and half-spectrum arrays.
    const cufftResult made =
        cufftMakePlanMany64(plan, rank, rank == 2 ? dims : dims + 1, nullptr, 1, 0, nullptr, 1, 0,
                            type, batch, &work_bytes);
    if (made != CUFFT_SUCCESS) {
      (void)cufftDestroy(plan);
      throw_cufft(made, "cufftMakePlanMany64", __FILE__, __LINE__);
    }
    found = plans_.emplace(key, plan).first;
  }
  PARASOL_CUFFT(cufftSetStream(found->second, stream));
  return found->second;
}

}  // namespace parasol::fftconv
