// A copy in the order the z-marching laplace3d kernels (zreg, smem-zreg) walk the field: what a
// sweep could reach if it did no arithmetic and read no halo. Beside the device-to-device copy it
// separates the cost of the access order from the cost of the stencil.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace parasol::bench {

// Copies the n x n x n field src to dst: blocks of 128 x 2 threads, each thread two consecutive
// rows, marching up z in chunks of `chunk` planes (one block per tile and chunk), as zreg 128x2x1
// does.
void zmarch_copy(const float* src, float* dst, std::int64_t n, std::int64_t chunk,
                 cudaStream_t stream);

}  // namespace parasol::bench
