// The cuRAND host functions Parasol calls, opened at the first of them
// (kernels/vendor_library.hpp): montecarlo's curand generators. Its device functions
// (curand_kernel.h) are headers and need no library.
#include <curand.h>

#include "kernels/vendor_library.hpp"

#define PARASOL_CURAND_FUNCTIONS(F)                                                            \
  F(curandStatus_t, curandCreateGenerator,                                                     \
    (curandGenerator_t * generator, curandRngType_t rng_type), (generator, rng_type))          \
  F(curandStatus_t, curandDestroyGenerator, (curandGenerator_t generator), (generator))        \
  F(curandStatus_t, curandSetStream, (curandGenerator_t generator, cudaStream_t stream),       \
    (generator, stream))                                                                       \
  F(curandStatus_t, curandSetPseudoRandomGeneratorSeed,                                        \
    (curandGenerator_t generator, unsigned long long seed), (generator, seed))                 \
  F(curandStatus_t, curandSetGeneratorOffset,                                                  \
    (curandGenerator_t generator, unsigned long long offset), (generator, offset))             \
  F(curandStatus_t, curandSetGeneratorOrdering,                                                \
    (curandGenerator_t generator, curandOrdering_t order), (generator, order))                 \
  F(curandStatus_t, curandGenerateSeeds, (curandGenerator_t generator), (generator))           \
  F(curandStatus_t, curandGenerateNormal,                                                      \
    (curandGenerator_t generator, float* outputPtr, size_t n, float mean, float stddev),       \
    (generator, outputPtr, n, mean, stddev))

PARASOL_VENDOR_LIBRARY("cuRAND", PARASOL_VENDOR_SONAME("libcurand", CURAND_VER_MAJOR),
                       PARASOL_CUDA_LIBRARY_DIR, PARASOL_CURAND_FUNCTIONS)
