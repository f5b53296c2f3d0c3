#include "kernels/error.hpp"
#include "kernels/making.hpp"

#include <cublas_v2.h>
#include <cufft.h>
#include <curand.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "kernels/printable.hpp"

namespace parasol {
namespace {

std::string base_name(const char* file) {
  const std::string path(file);
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string where(const char* call, const char* file, int line) {
  std::ostringstream out;
  out << base_name(file) << ':' << line << ": " << call << ": ";
  return out.str();
}

// cuFFT and cuRAND have no function that names their status codes.
const char* cufft_name(int result) {
  switch (result) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
    default: return "unknown cuFFT result";
  }
}

const char* curand_name(int status) {
  switch (status) {
    case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
    case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
    case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
    case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
    case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
    case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
    case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
    case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
    default: return "unknown cuRAND status";
  }
}

std::string join_source_key(const std::string& source, const std::string& key,
                            const std::string& expected) {
  std::string message;
  if (!source.empty()) message += printable(source) + ": ";
  if (!key.empty()) message += printable(key, kQuotedMost) + ": ";
  return message + expected;
}

}  // namespace

std::string printable(std::string_view text, std::size_t most) {
  std::string out;
  out.reserve(std::min(text.size(), most == std::string_view::npos ? text.size() : most + 4));
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= most) {
      // Back to the start of a UTF-8 character: a cut inside one would print as garbage.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      return out + "\xe2\x80\xa6";
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

InputError::InputError(std::string source, std::string key, std::string expected)
    : Error(join_source_key(source, key, expected)),
      source_(std::move(source)),
      key_(std::move(key)),
      expected_(std::move(expected)) {}

InputError::InputError(std::string message) : Error(message), expected_(std::move(message)) {}

InputError InputError::with_source(std::string source) const {
  return InputError(std::move(source), key_, expected_);
}

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  // Clear the error so the next call starts clean (sticky errors stay regardless).
  (void)cudaGetLastError();
  std::string message = where(call, file, line) + cudaGetErrorName(err) + " (" +
                        cudaGetErrorString(err) + ")";
  CudaError error(err, message);
  if (error.sticky()) message += "; the CUDA context is lost, the process must end";
  throw CudaError(err, message);
}

void throw_cublas(int status, const char* call, const char* file, int line) {
  const auto s = static_cast<cublasStatus_t>(status);
  throw CublasError(where(call, file, line) + cublasGetStatusName(s) + " (" +
                    cublasGetStatusString(s) + ")");
}

void throw_cufft(int result, const char* call, const char* file, int line) {
  throw CufftError(where(call, file, line) + cufft_name(result));
}

void throw_curand(int status, const char* call, const char* file, int line) {
  throw CurandError(where(call, file, line) + curand_name(status));
}

namespace {

// "1.2 GB", "141 GB", "512 MB": three digits are enough to judge a failure by.
std::string bytes_shown(std::size_t bytes) {
  const double b = static_cast<double>(bytes);
  char text[32];
  if (b >= 1e9) std::snprintf(text, sizeof text, "%.3g GB", b * 1e-9);
  else std::snprintf(text, sizeof text, "%.3g MB", b * 1e-6);
  return text;
}

}  // namespace

std::string making_context(const std::string& what, std::size_t free_bytes,
                           std::size_t total_bytes) {
  return " while making " + what + "; device memory free " + bytes_shown(free_bytes) + " of " +
         bytes_shown(total_bytes);
}

std::string making_context(const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return " while making " + what + "; device memory unknown (cudaMemGetInfo: " +
           cudaGetErrorName(err) + ")";
  }
  return making_context(what, free_bytes, total_bytes);
}

void check_launch(cudaStream_t stream, const char* file, int line) {
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) throw_cuda(launch, "kernel launch", file, line);
#ifdef PARASOL_DEBUG_SYNC
  // A stream being captured into a graph cannot synchronise: a captured kernel's faults show
  // where the graph is launched, which is checked the same way.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) (void)cudaGetLastError();
  if (capture != cudaStreamCaptureStatusNone) return;
  const cudaError_t run = cudaStreamSynchronize(stream);
  if (run != cudaSuccess) throw_cuda(run, "kernel execution (PARASOL_DEBUG_SYNC)", file, line);
#else
  (void)stream;
#endif
}

}  // namespace parasol
