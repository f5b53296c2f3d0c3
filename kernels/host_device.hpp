// PARASOL_HOST_DEVICE: a function both the host and the device compile (__host__ __device__ under
// nvcc, nothing in a host-only build), for headers that hold arithmetic both sides must share.
#pragma once

#if defined(__CUDACC__)
#define PARASOL_HOST_DEVICE __host__ __device__
#else
#define PARASOL_HOST_DEVICE
#endif
