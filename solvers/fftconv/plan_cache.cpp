#include "solvers/fftconv/plan_cache.hpp"

#include "kernels/error.hpp"

namespace parasol::fftconv {

PlanCache::~PlanCache() {
  for (const auto& entry : plans_) (void)cufftDestroy(entry.second);
}

cufftHandle PlanCache::get(cufftType type, std::int64_t rows, std::int64_t cols,
                           std::int64_t batch, cudaStream_t stream) {
  long long dims[2] = {rows, cols};
  const int rank = rows > 1 ? 2 : 1;
  return made(Key{static_cast<int>(type), 0, rows, cols, batch}, rank,
              rank == 2 ? dims : dims + 1, batch, stream);
}

cufftHandle PlanCache::get_3d(cufftType type, std::int64_t depth, std::int64_t rows,
                              std::int64_t cols, cudaStream_t stream) {
  long long dims[3] = {depth, rows, cols};
  return made(Key{static_cast<int>(type), depth, rows, cols, 1}, 3, dims, 1, stream);
}

cufftHandle PlanCache::get_columns(cufftType type, std::int64_t length, std::int64_t columns,
                                   cudaStream_t stream) {
  long long dims[1] = {length};
  return made(Key{static_cast<int>(type), -1, length, columns, columns}, 1, dims, columns, stream,
              columns);
}

cufftHandle PlanCache::made(const Key& key, int rank, long long* dims, std::int64_t batch,
                            cudaStream_t stream, std::int64_t stride) {
  auto found = plans_.find(key);
  if (found == plans_.end()) {
    cufftHandle plan = 0;
    PARASOL_CUFFT(cufftCreate(&plan));
    std::size_t work_bytes = 0;
    // nullptr layouts: packed data, as documented for real and half-spectrum arrays.
    const auto type = static_cast<cufftType>(std::get<0>(key));
    long long embed[1] = {dims[0]};
    const cufftResult result =
        stride == 0 ? cufftMakePlanMany64(plan, rank, dims, nullptr, 1, 0, nullptr, 1, 0, type,
                                          batch, &work_bytes)
                    : cufftMakePlanMany64(plan, rank, dims, embed, stride, 1, embed, stride, 1,
                                          type, batch, &work_bytes);
    if (result != CUFFT_SUCCESS) {
      (void)cufftDestroy(plan);
      throw_cufft(result, "cufftMakePlanMany64", __FILE__, __LINE__);
    }
    found = plans_.emplace(key, plan).first;
  }
  PARASOL_CUFFT(cufftSetStream(found->second, stream));
  return found->second;
}

}  // namespace parasol::fftconv
