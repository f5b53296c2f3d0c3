// The cuFFT functions Parasol calls, opened at the first of them (kernels/vendor_library.hpp):
// fftconv's plans and transforms.
#include <cufft.h>

#include "kernels/vendor_library.hpp"

#define PARASOL_CUFFT_FUNCTIONS(F)                                                            \
  F(cufftResult, cufftCreate, (cufftHandle * handle), (handle))                               \
  F(cufftResult, cufftDestroy, (cufftHandle plan), (plan))                                    \
  F(cufftResult, cufftSetStream, (cufftHandle plan, cudaStream_t stream), (plan, stream))     \
  F(cufftResult, cufftMakePlanMany64,                                                         \
    (cufftHandle plan, int rank, long long int* n, long long int* inembed,                    \
     long long int istride, long long int idist, long long int* onembed,                      \
     long long int ostride, long long int odist, cufftType type, long long int batch,         \
     size_t* workSize),                                                                       \
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize)) \
  F(cufftResult, cufftExecC2C,                                                                \
    (cufftHandle plan, cufftComplex * idata, cufftComplex * odata, int direction),            \
    (plan, idata, odata, direction))                                                          \
  F(cufftResult, cufftExecR2C, (cufftHandle plan, cufftReal * idata, cufftComplex * odata),   \
    (plan, idata, odata))                                                                     \
  F(cufftResult, cufftExecC2R, (cufftHandle plan, cufftComplex * idata, cufftReal * odata),   \
    (plan, idata, odata))                                                                     \
  F(cufftResult, cufftExecZ2Z,                                                                \
    (cufftHandle plan, cufftDoubleComplex * idata, cufftDoubleComplex * odata,                \
     int direction),                                                                          \
    (plan, idata, odata, direction))                                                          \
  F(cufftResult, cufftExecD2Z,                                                                \
    (cufftHandle plan, cufftDoubleReal * idata, cufftDoubleComplex * odata),                  \
    (plan, idata, odata))                                                                     \
  F(cufftResult, cufftExecZ2D,                                                                \
    (cufftHandle plan, cufftDoubleComplex * idata, cufftDoubleReal * odata),                  \
    (plan, idata, odata))

PARASOL_VENDOR_LIBRARY("cuFFT", PARASOL_VENDOR_SONAME("libcufft", CUFFT_VER_MAJOR),
                       PARASOL_CUDA_LIBRARY_DIR, PARASOL_CUFFT_FUNCTIONS)
