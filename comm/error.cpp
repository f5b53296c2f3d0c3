#include "comm/error.hpp"

#ifdef PARASOL_HAVE_MPI
#include <mpi.h>
#endif
#ifdef PARASOL_HAVE_NCCL
#include <nccl.h>
#endif

#include <cstring>

namespace parasol::comm {
namespace {

// "file:line: call: ", the same prefix kernels/error.cpp gives CUDA's errors.
std::string where(const char* call, const char* file, int line) {
  const char* slash = std::strrchr(file, '/');
  return std::string(slash == nullptr ? file : slash + 1) + ":" + std::to_string(line) + ": " +
         call + ": ";
}

}  // namespace

void throw_mpi(int code, const char* call, const char* file, int line) {
  std::string text = "MPI error " + std::to_string(code);
#ifdef PARASOL_HAVE_MPI
  // Open MPI aborts the process when asked for an error's text outside MPI's lifetime.
  int initialized = 0, finalized = 0;
  (void)MPI_Initialized(&initialized);
  (void)MPI_Finalized(&finalized);
  char buffer[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (initialized && !finalized && MPI_Error_string(code, buffer, &length) == MPI_SUCCESS &&
      length > 0)
    text = std::string(buffer, static_cast<std::size_t>(length));
#endif
  throw MpiError(code, where(call, file, line) + text);
}

void throw_nccl(int result, const char* call, const char* file, int line) {
  std::string text = "NCCL result " + std::to_string(result);
#ifdef PARASOL_HAVE_NCCL
  text = ncclGetErrorString(static_cast<ncclResult_t>(result));
  // NCCL keeps a longer account of the last failure (which peer, which transport).
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
#endif
  throw NcclError(result, where(call, file, line) + text);
}

}  // namespace parasol::comm
