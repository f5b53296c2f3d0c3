// The cuBLAS functions Parasol calls, opened at the first of them (kernels/vendor_library.hpp):
// montecarlo's basket-cublas variant, and the names of its status codes.
#include <cublas_v2.h>

#include "kernels/vendor_library.hpp"

#define PARASOL_CUBLAS_FUNCTIONS(F)                                                           \
  F(cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle), (handle))                     \
  F(cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle), (handle))                      \
  F(cublasStatus_t, cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t stream),         \
    (handle, stream))                                                                         \
  F(cublasStatus_t, cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode),            \
    (handle, mode))                                                                           \
  F(cublasStatus_t, cublasSetAtomicsMode, (cublasHandle_t handle, cublasAtomicsMode_t mode),  \
    (handle, mode))                                                                           \
  F(cublasStatus_t, cublasSetWorkspace_v2,                                                    \
    (cublasHandle_t handle, void* workspace, size_t workspace_bytes),                         \
    (handle, workspace, workspace_bytes))                                                     \
  F(cublasStatus_t, cublasSgemm_v2,                                                           \
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, \
     int k, const float* alpha, const float* A, int lda, const float* B, int ldb,             \
     const float* beta, float* C, int ldc),                                                   \
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))                   \
  F(const char*, cublasGetStatusName, (cublasStatus_t status), (status))                      \
  F(const char*, cublasGetStatusString, (cublasStatus_t status), (status))

PARASOL_VENDOR_LIBRARY("cuBLAS", PARASOL_VENDOR_SONAME("libcublas", CUBLAS_VER_MAJOR),
                       PARASOL_CUDA_LIBRARY_DIR, PARASOL_CUBLAS_FUNCTIONS)
