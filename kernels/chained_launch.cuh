// Kernels launched back to back on a stream, the later one started while the earlier finishes
// (programmatic dependent launch, compute capability 9.0 and up): the later kernel's launch
// latency and first blocks overlap the earlier one's last wave. The later kernel must call
// wait_for_earlier_grid() before it reads anything the earlier one wrote; the earlier one may
// call let_later_grid_start() once its blocks are all running, to start the later one sooner.
// On older devices the launch is an ordinary one and both calls do nothing.
#pragma once

#include <cuda_runtime.h>

#include "kernels/error.hpp"

namespace parasol {

__device__ inline void wait_for_earlier_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ inline void let_later_grid_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Whether the current device takes chained launches.
inline bool chained_launch_supported() {
  int device = 0, major = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

// kernel<<<grid, block, smem, stream>>>(args...), chained to the kernel before it on the stream
// when `chained`.
template <class... Params, class... Args>
void launch_chained(bool chained, void (*kernel)(Params...), dim3 grid, dim3 block,
                    std::size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = chained ? 1 : 0;
  PARASOL_CUDA(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace parasol
