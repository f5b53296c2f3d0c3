// What a library was making when it failed: a cuFFT plan, a cuBLAS handle, a cuRAND generator.
// cuFFT reports device memory it could not get as CUFFT_INTERNAL_ERROR, so the device's free and
// total memory at that moment are the evidence a bare status lacks. Defined in error.cpp beside
// the messages they extend.
#pragma once

#include <cstddef>
#include <string>

#include "kernels/error.hpp"

namespace parasol {

// " while making WHAT; device memory free 1.2 GB of 141 GB".
std::string making_context(const std::string& what, std::size_t free_bytes,
                           std::size_t total_bytes);
// The same with the current device's free and total memory now (cudaMemGetInfo), or a note
// saying why they could not be read.
std::string making_context(const std::string& what);

// Runs `make`; a library error it throws goes up as the same class with making_context(what)
// added: "plan_cache.cpp:49: cufftMakePlanMany64: CUFFT_INTERNAL_ERROR while making a C2C plan
// of 4096 x 65536 float, batch 1; device memory free 1.2 GB of 141 GB". Other errors pass as
// they are.
template <class Make>
auto while_making(const std::string& what, Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const CufftError& e) {
    throw CufftError(e.what() + making_context(what));
  } catch (const CublasError& e) {
    throw CublasError(e.what() + making_context(what));
  } catch (const CurandError& e) {
    throw CurandError(e.what() + making_context(what));
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    throw CudaError(e.code(), e.what() + making_context(what));
  }
}

}  // namespace parasol
