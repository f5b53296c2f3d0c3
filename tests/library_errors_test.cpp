// A library failing while it makes something (a cuFFT plan, a cuBLAS handle) says what it was
// making and how much device memory there was; fftconv's plan cache retries once after giving
// back what it holds. Both are pure enough to judge without a device.
#include <gtest/gtest.h>

#include <string>

#include "kernels/error.hpp"
#include "kernels/making.hpp"
#include "solvers/fftconv/plan_cache.hpp"

namespace parasol {
namespace {

TEST(LibraryErrors, MakingContextNamesWhatAndTheMemory) {
  EXPECT_EQ(making_context("a C2C plan of 4096 x 65536 float, batch 1", 1'234'000'000,
                           141'000'000'000),
            " while making a C2C plan of 4096 x 65536 float, batch 1; device memory free 1.23 GB "
            "of 141 GB");
  EXPECT_EQ(making_context("a cuBLAS handle", 512'000'000, 80'000'000'000),
            " while making a cuBLAS handle; device memory free 512 MB of 80 GB");
}

TEST(LibraryErrors, WhileMakingKeepsTheClassAndAddsTheContext) {
  try {
    while_making("an R2C plan", [] { throw_cufft(CUFFT_INTERNAL_ERROR, "cufftMakePlanMany64", "plan_cache.cpp", 49); });
    FAIL() << "no exception";
  } catch (const CufftError& e) {
    const std::string what = e.what();
    // The library's own message first, then what was being made and the memory (on a machine
    // without a device, a note that it could not be read).
    EXPECT_EQ(what.rfind("plan_cache.cpp:49: cufftMakePlanMany64: CUFFT_INTERNAL_ERROR while "
                         "making an R2C plan; device memory ",
                         0),
              0u)
        << what;
  }
  // Other errors pass untouched.
  EXPECT_THROW(while_making("x", [] { throw InputError("f", "k", "bad"); }), InputError);
  EXPECT_EQ(while_making("x", [] { return 7; }), 7);
}

TEST(LibraryErrors, DescribePlanSaysKindSizesPrecisionAndBatch) {
  const long long dims2[2] = {4096, 65536};
  EXPECT_EQ(fftconv::describe_plan(CUFFT_C2C, 2, dims2, 8),
            "a C2C plan of 4096 x 65536 float, batch 8");
  const long long dims3[3] = {64, 128, 256};
  EXPECT_EQ(fftconv::describe_plan(CUFFT_D2Z, 3, dims3, 1),
            "a D2Z plan of 64 x 128 x 256 double, batch 1");
  const long long dims1[1] = {1000};
  EXPECT_EQ(fftconv::describe_plan(CUFFT_Z2Z, 1, dims1, 513, 513),
            "a Z2Z plan of 1000 double, batch 513, 513 apart");
}

// The plan cache's rule: one failure releases what is held and tries again.
TEST(LibraryErrors, PlanIsRetriedOnceAfterTheCacheIsReleased) {
  int calls = 0, releases = 0;
  const auto fails_until_released = [&] {
    ++calls;
    if (releases == 0) throw_cufft(CUFFT_INTERNAL_ERROR, "cufftMakePlanMany64", "plan_cache.cpp", 49);
    return 42;
  };
  EXPECT_EQ(fftconv::make_or_retry_once(fails_until_released, [&] { ++releases; }), 42);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(releases, 1);

  // Fails again after the release: the second failure goes up, and nothing is tried a third time.
  calls = releases = 0;
  const auto always_fails = [&]() -> int {
    ++calls;
    throw_cufft(CUFFT_INTERNAL_ERROR, "cufftMakePlanMany64", "plan_cache.cpp", 49);
  };
  EXPECT_THROW(fftconv::make_or_retry_once(always_fails, [&] { ++releases; }), CufftError);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(releases, 1);

  // Succeeds at once: nothing is released.
  calls = releases = 0;
  EXPECT_EQ(fftconv::make_or_retry_once([&] { return ++calls; }, [&] { ++releases; }), 1);
  EXPECT_EQ(releases, 0);

  // Errors other than cuFFT's (a bad input, say) are not retried.
  calls = releases = 0;
  EXPECT_THROW(fftconv::make_or_retry_once(
                   [&]() -> int {
                     ++calls;
                     throw InputError("f", "k", "bad");
                   },
                   [&] { ++releases; }),
               InputError);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(releases, 0);
}

}  // namespace
}  // namespace parasol
