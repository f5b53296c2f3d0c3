// PARASOL_HOST_DEVICE: a function both the host and the device compile (__host__ __device__ under
// nvcc, nothing in a host-only build), for headers that hold arithmetic both sides must share.
#pragma once

#if defined(__CUDACC__)
#define PARASOL_HOST_DEVICE __host__ __device__
#else
#define PARASOL_HOST_DEVICE
#endif

// PARASOL_UNROLL before a loop of a PARASOL_HOST_DEVICE function: unrolled on the device (nvcc's
// `#pragma unroll`, so that arrays indexed by the loop stay in registers), as it is on the host.
#if defined(__CUDA_ARCH__)
#define PARASOL_UNROLL _Pragma("unroll")
#else
#define PARASOL_UNROLL
#endif
