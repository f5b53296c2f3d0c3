#include "solvers/fftconv/plan_cache.hpp"

#include <string>

#include "kernels/error.hpp"

namespace parasol::fftconv {

std::string describe_plan(cufftType type, int rank, const long long* dims, std::int64_t batch,
                          std::int64_t stride) {
  std::string kind = "an unknown", precision = "float";
  switch (type) {
    case CUFFT_C2C: kind = "a C2C"; break;
    case CUFFT_R2C: kind = "an R2C"; break;
    case CUFFT_C2R: kind = "a C2R"; break;
    case CUFFT_Z2Z: kind = "a Z2Z"; precision = "double"; break;
    case CUFFT_D2Z: kind = "a D2Z"; precision = "double"; break;
    case CUFFT_Z2D: kind = "a Z2D"; precision = "double"; break;
  }
  std::string text = kind + " plan of ";
  for (int i = 0; i < rank; ++i) text += (i == 0 ? "" : " x ") + std::to_string(dims[i]);
  text += " " + precision + ", batch " + std::to_string(batch);
  if (stride > 0) text += ", " + std::to_string(stride) + " apart";
  return text;
}

PlanCache::~PlanCache() {
  for (const auto& entry : plans_) (void)cufftDestroy(entry.second);
}

void PlanCache::release() {
  for (const auto& entry : plans_) (void)cufftDestroy(entry.second);
  plans_.clear();
  PARASOL_CUDA(cudaDeviceSynchronize());
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
    const auto type = static_cast<cufftType>(std::get<0>(key));
    const std::string what = describe_plan(type, rank, dims, batch, stride);
    const auto make = [&] {
      cufftHandle plan = 0;
      PARASOL_CUFFT(cufftCreate(&plan));
      std::size_t work_bytes = 0;
      // nullptr layouts: packed data, as documented for real and half-spectrum arrays.
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
      return plan;
    };
    const cufftHandle plan =
        while_making(what, [&] { return make_or_retry_once(make, [this] { release(); }); });
    found = plans_.emplace(key, plan).first;
  }
  PARASOL_CUFFT(cufftSetStream(found->second, stream));
  return found->second;
}

}  // namespace parasol::fftconv
