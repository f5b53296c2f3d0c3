// The NCCL functions Parasol calls, opened at the first of them (kernels/vendor_library.hpp):
// the NCCL route between GPUs (detail/nccl_backend.cpp) and its error texts (error.cpp).
#include <nccl.h>

#include "kernels/vendor_library.hpp"

#define PARASOL_NCCL_FUNCTIONS(F)                                                               \
  F(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId))                       \
  F(ncclResult_t, ncclCommInitRankConfig,                                                       \
    (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config),       \
    (comm, nranks, commId, rank, config))                                                       \
  F(ncclResult_t, ncclCommDestroy, (ncclComm_t comm), (comm))                                   \
  F(const char*, ncclGetErrorString, (ncclResult_t result), (result))                           \
  F(const char*, ncclGetLastError, (ncclComm_t comm), (comm))                                   \
  F(ncclResult_t, ncclGroupStart, (), ())                                                       \
  F(ncclResult_t, ncclGroupEnd, (), ())                                                         \
  F(ncclResult_t, ncclSend,                                                                     \
    (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,    \
     cudaStream_t stream),                                                                      \
    (sendbuff, count, datatype, peer, comm, stream))                                            \
  F(ncclResult_t, ncclRecv,                                                                     \
    (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,          \
     cudaStream_t stream),                                                                      \
    (recvbuff, count, datatype, peer, comm, stream))                                            \
  F(ncclResult_t, ncclBroadcast,                                                                \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,     \
     ncclComm_t comm, cudaStream_t stream),                                                     \
    (sendbuff, recvbuff, count, datatype, root, comm, stream))                                  \
  F(ncclResult_t, ncclAllReduce,                                                                \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,               \
     ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),                                     \
    (sendbuff, recvbuff, count, datatype, op, comm, stream))                                    \
  F(ncclResult_t, ncclAllGather,                                                                \
    (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,           \
     ncclComm_t comm, cudaStream_t stream),                                                     \
    (sendbuff, recvbuff, sendcount, datatype, comm, stream))

PARASOL_VENDOR_LIBRARY("NCCL", PARASOL_VENDOR_SONAME("libnccl", NCCL_MAJOR), PARASOL_NCCL_LIBRARY_DIR,
                       PARASOL_NCCL_FUNCTIONS)
