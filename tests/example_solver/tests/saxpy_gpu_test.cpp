// saxpy on the device: every block size a sweep times x awkward lengths (1, a prime, one past a
// block), against the gold on a poisoned output, judged by check.hpp.
#include <gtest/gtest.h>

#include "kernels/stream.hpp"
#include "solvers/saxpy/check.hpp"
#include "solvers/saxpy/keys.hpp"
#include "solvers/saxpy/saxpy.hpp"
#include "tests/support.hpp"

namespace parasol::saxpy {
namespace {

TEST(SaxpyGpu, EveryBlockSizeAgreesWithTheGold) {
  PARASOL_REQUIRE_GPU();
  for (const int threads : kSweptThreads)
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{100003}, std::int64_t{1025}}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(n) + " elements");
      Params p;
      p.n = n;
      p.a = 2.5;
      Stream stream;
      DeviceProblem device(p, stream.get());
      device.poison();
      device.run(threads);
      const Agreement a = agreement(p, device.download(), solve_gold(p));
      EXPECT_TRUE(a.passed()) << a.value << " > " << a.tolerance;
    }
}

}  // namespace
}  // namespace parasol::saxpy
