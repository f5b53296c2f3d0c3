// load_kernels_eagerly: EAGER unless the user chose a module loading of their own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/device.hpp"

namespace {

std::string loading() {
  const char* value = std::getenv("CUDA_MODULE_LOADING");
  return value != nullptr ? value : "(unset)";
}

TEST(ModuleLoading, EagerWhenTheUserSetNothing) {
  ASSERT_EQ(unsetenv("CUDA_MODULE_LOADING"), 0);
  parasol::load_kernels_eagerly();
  EXPECT_EQ(loading(), "EAGER");
}

TEST(ModuleLoading, TheUsersChoiceStands) {
  ASSERT_EQ(setenv("CUDA_MODULE_LOADING", "LAZY", 1), 0);
  parasol::load_kernels_eagerly();
  EXPECT_EQ(loading(), "LAZY");
  ASSERT_EQ(unsetenv("CUDA_MODULE_LOADING"), 0);
}

}  // namespace
