// Checked MPI and NCCL calls: one exception class and one macro per library, like PARASOL_CUDA.
// what() reads "context.cpp:88: MPI_Allreduce(...): MPI_ERR_TRUNCATE: message truncated".
// Status codes pass as int, so this header needs neither mpi.h nor nccl.h.
#pragma once

#include <string>

#include "kernels/error.hpp"

namespace parasol::comm {

class MpiError : public Error {
 public:
  MpiError(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class NcclError : public Error {
 public:
  NcclError(int result, const std::string& message) : Error(message), result_(result) {}
  int result() const { return result_; }

 private:
  int result_;
};

[[noreturn]] void throw_mpi(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_nccl(int result, const char* call, const char* file, int line);

}  // namespace parasol::comm

// MPI_SUCCESS and ncclSuccess are both 0.
#define PARASOL_MPI(call)                                                 \
  do {                                                                    \
    const int parasol_mpi_code_ = (call);                                 \
    if (parasol_mpi_code_ != 0)                                           \
      ::parasol::comm::throw_mpi(parasol_mpi_code_, #call, __FILE__, __LINE__); \
  } while (0)

#define PARASOL_NCCL(call)                                                                 \
  do {                                                                                     \
    const auto parasol_nccl_result_ = (call);                                              \
    if (parasol_nccl_result_ != 0)                                                         \
      ::parasol::comm::throw_nccl(static_cast<int>(parasol_nccl_result_), #call, __FILE__, \
                                  __LINE__);                                               \
  } while (0)
