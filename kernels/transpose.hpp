// A matrix transposed on the device: data laid out row by row made column by column, for solvers
// whose kernels want another layout than the one their input comes in (tridiag's interleaved
// systems), so the host never copies a whole field only to reorder it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace parasol {

// out[c * rows + r] = in[r * cols + c] for every r < rows, c < cols; `in` and `out` are device
// arrays that do not overlap. Asynchronous on `stream`. For float and double.
template <class T>
void transpose(const T* in, T* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

}  // namespace parasol
