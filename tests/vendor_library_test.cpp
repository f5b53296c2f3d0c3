// cuBLAS, cuFFT, cuRAND and NCCL opened at their first call (kernels/vendor_library.hpp): a
// process that never calls them never loads them, a call reaches the real library, and a library
// that cannot be had is one Error naming it.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <string>

#include "kernels/error.hpp"
#include "kernels/vendor_library.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using test::contains;

TEST(VendorLibrary, TheProgramStartsWithoutAnyOfThem) {
  // The dynamic linker names every library it loads; `solvers` calls none of the four.
  const auto r = test::run_shell("LD_DEBUG=libs " + std::string(PARASOL_EXE) + " solvers");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "libcudart")) << "LD_DEBUG said nothing: " << r.output;
  for (const char* library : {"libcublas", "libcufft", "libcurand", "libnccl"})
    EXPECT_FALSE(contains(r.output, library)) << library << " loaded at start";
}

TEST(VendorLibrary, ACallReachesTheRealLibrary) {
  // Needs no device: the status names are host code.
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST(VendorLibrary, ALibraryThatCannotBeOpenedIsOneErrorNamingIt) {
  try {
    open_vendor_library("cuNothing", "libparasol-absent.so.1", "/nonexistent");
    FAIL() << "opened";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "cuNothing")) << what;
    EXPECT_TRUE(contains(what, "libparasol-absent.so.1")) << what;
    EXPECT_TRUE(contains(what, "/nonexistent/libparasol-absent.so.1")) << what;
    EXPECT_TRUE(contains(what, "LD_LIBRARY_PATH")) << what;
  }
}

TEST(VendorLibrary, AMissingFunctionIsAnErrorNamingIt) {
  void* c = open_vendor_library("the C library", "libc.so.6", "");
  EXPECT_NE(vendor_symbol(c, "the C library", "malloc"), nullptr);
  try {
    vendor_symbol(c, "the C library", "parasol_no_such_function");
    FAIL() << "found";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "the C library was loaded but has no parasol_no_such_function"))
        << e.what();
  }
}

}  // namespace
}  // namespace parasol
