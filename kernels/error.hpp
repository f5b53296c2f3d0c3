// Errors: one exception class per library, all deriving from parasol::Error, each carrying the
// failed call, where it was made and the library's own message.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace parasol {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from a user: a parameter file, a command-line override or an input dataset.
// what() reads "FILE: KEY: what was expected"; apps print it and exit with status 2.
class InputError : public Error {
 public:
  InputError(std::string source, std::string key, std::string expected);
  explicit InputError(std::string message);  // when no file or key applies
  const std::string& source() const { return source_; }
  const std::string& key() const { return key_; }
  const std::string& expected() const { return expected_; }
  // The same error seen from further out, e.g. a Params check given the file it came from.
  InputError with_source(std::string source) const;

 private:
  std::string source_, key_, expected_;
};

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& message) : Error(message), code_(code) {}
  cudaError_t code() const { return code_; }
  // Illegal addresses and launch failures poison the context: the process must end.
  bool sticky() const;

 private:
  cudaError_t code_;
};

class CublasError : public Error { using Error::Error; };
class CufftError : public Error { using Error::Error; };
class CurandError : public Error { using Error::Error; };

[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);
// Library status codes are passed as int so this header needs none of the libraries' headers.
[[noreturn]] void throw_cublas(int status, const char* call, const char* file, int line);
[[noreturn]] void throw_cufft(int result, const char* call, const char* file, int line);
[[noreturn]] void throw_curand(int status, const char* call, const char* file, int line);

// After a kernel launch: reports a bad configuration at once and, in builds with
// PARASOL_DEBUG_SYNC, also a fault inside the kernel at the launch that caused it.
void check_launch(cudaStream_t stream, const char* file, int line);

}  // namespace parasol

#define PARASOL_CUDA(call)                                            \
  do {                                                                \
    const cudaError_t parasol_err_ = (call);                          \
    if (parasol_err_ != cudaSuccess)                                  \
      ::parasol::throw_cuda(parasol_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define PARASOL_CUBLAS(call)                                                       \
  do {                                                                             \
    const auto parasol_status_ = (call);                                           \
    if (parasol_status_ != 0)                                                      \
      ::parasol::throw_cublas(static_cast<int>(parasol_status_), #call, __FILE__, __LINE__); \
  } while (0)

#define PARASOL_CUFFT(call)                                                       \
  do {                                                                            \
    const auto parasol_result_ = (call);                                          \
    if (parasol_result_ != 0)                                                     \
      ::parasol::throw_cufft(static_cast<int>(parasol_result_), #call, __FILE__, __LINE__); \
  } while (0)

#define PARASOL_CURAND(call)                                                       \
  do {                                                                             \
    const auto parasol_status_ = (call);                                           \
    if (parasol_status_ != 0)                                                      \
      ::parasol::throw_curand(static_cast<int>(parasol_status_), #call, __FILE__, __LINE__); \
  } while (0)

#define PARASOL_CHECK_LAUNCH(stream) ::parasol::check_launch((stream), __FILE__, __LINE__)
