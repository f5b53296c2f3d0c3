// device_sum_scan against CPU scans: int and long long exactly (wrapping as unsigned arithmetic
// does), float and double within round-off (and exactly on small integers); both kinds and modes,
// lengths around tile sizes and powers of two, in place and out of place; reproducible mode's
// bits; one workspace across many launches; and a scan past 2^31 elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/scan.hpp"
#include "kernels/stream.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

constexpr ScanKind kKinds[] = {ScanKind::inclusive, ScanKind::exclusive};
constexpr ScanMode kModes[] = {ScanMode::fast, ScanMode::reproducible};

std::string kind_name(ScanKind k) { return k == ScanKind::inclusive ? "inclusive" : "exclusive"; }

// Lengths that break scans: none, one, a warp's worth, each side of the tile sizes a scan is
// likely to use (2048, 4096, 8192 elements), and each side of every power of two from 2^10 to
// 2^24 (where index arithmetic and float sums start to matter).
std::vector<std::int64_t> awkward_lengths() {
  std::vector<std::int64_t> lengths{0, 1, 2, 3, 31, 32, 33};
  for (const std::int64_t tile : {2048, 4096, 8192})
    for (const std::int64_t d : {-1, 0, 1}) lengths.push_back(tile + d);
  for (int k = 10; k <= 24; ++k)
    for (const std::int64_t d : {-1, 1}) lengths.push_back((std::int64_t(1) << k) + d);
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

// Integers over their whole range, so sums wrap; reals in (-0.25, 1), so sums grow (a slip of a
// tile shows) and both signs occur.
template <class T>
std::vector<T> random_input(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> x(static_cast<std::size_t>(n));
  for (T& v : x) {
    if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(rng());
    } else {
      v = static_cast<T>(-0.25 + 1.25 * (static_cast<double>(rng() >> 11) * 0x1.0p-53));
    }
  }
  return x;
}

// The exact scan of integers, wrapping as unsigned arithmetic does.
template <class T>
std::vector<T> integer_scan(const std::vector<T>& x, ScanKind kind) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> out(x.size());
  U sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (kind == ScanKind::exclusive) out[i] = static_cast<T>(sum);
    sum += static_cast<U>(x[i]);
    if (kind == ScanKind::inclusive) out[i] = static_cast<T>(sum);
  }
  return out;
}

// A real scan in long double, with the running sum of |x| up to and including each element.
struct RealScan {
  std::vector<long double> sum, magnitude;
};

template <class T>
RealScan real_scan(const std::vector<T>& x, ScanKind kind) {
  RealScan r;
  r.sum.resize(x.size());
  r.magnitude.resize(x.size());
  long double sum = 0, magnitude = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (kind == ScanKind::exclusive) r.sum[i] = sum;
    sum += x[i];
    magnitude += std::abs(static_cast<long double>(x[i]));
    if (kind == ScanKind::inclusive) r.sum[i] = sum;
    r.magnitude[i] = magnitude;
  }
  return r;
}

// Round-off allowed at element i, relative to the running sum of |x|: some ulps for the tree
// within a tile (64), plus the chain of tile prefixes in front of it, at most one addition per
// tile of 512 or more elements, each off by half an ulp with a random sign, so growing like the
// square root of their number. A tile counted twice or left out is off by hundreds of elements.
template <class T>
double real_tolerance(std::int64_t i) {
  return std::numeric_limits<T>::epsilon() *
         (64.0 + std::sqrt(static_cast<double>(i + 1) / 512.0) * 4.0);
}

// Copies go on the scans' stream: it does not wait for the legacy default stream, and a plain
// cudaMemcpy from pageable memory may return before its data has reached the device.
template <class T>
std::vector<T> download(const DeviceBuffer<T>& d, std::int64_t n, const Stream& stream) {
  std::vector<T> h(static_cast<std::size_t>(n));
  if (n > 0)
    PARASOL_CUDA(cudaMemcpyAsync(h.data(), d.data(), h.size() * sizeof(T),
                                 cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  return h;
}

template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h, const Stream& stream) {
  if (!h.empty())
    PARASOL_CUDA(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T),
                                 cudaMemcpyHostToDevice, stream));
  stream.synchronize();
}

// Runs one scan: out of place into an output filled with 0xFF bytes (a NaN, or -1, that no
// correct element keeps), or in place over a copy of the input.
template <class T>
std::vector<T> device_scan(const std::vector<T>& x, ScanKind kind, ScanMode mode, bool in_place,
                           ScanWorkspace& workspace, const Stream& stream) {
  const auto n = static_cast<std::int64_t>(x.size());
  DeviceBuffer<T> in(x.size()), out(x.size());
  upload(in, x, stream);
  if (in_place) {
    upload(out, x, stream);
    device_sum_scan(out.data(), out.data(), n, kind, mode, workspace, stream);
  } else {
    if (n > 0) fill_bytes(out, 0xFF, stream);
    device_sum_scan(in.data(), out.data(), n, kind, mode, workspace, stream);
  }
  stream.synchronize();
  if (!in_place) EXPECT_EQ(download(in, n, stream), x) << "the input must be left as it was";
  return download(out, n, stream);
}

// Where two scans first differ, for the failure message.
template <class T, class U>
std::string first_difference(const std::vector<T>& got, const std::vector<U>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (static_cast<long double>(got[i]) != static_cast<long double>(want[i]))
      return "first difference at " + std::to_string(i) + ": got " + std::to_string(got[i]) +
             ", want " + std::to_string(static_cast<long double>(want[i]));
  return "no difference";
}

template <class T>
class ScanTyped : public ::testing::Test {};
using ScanTypes = ::testing::Types<int, long long, float, double>;
TYPED_TEST_SUITE(ScanTyped, ScanTypes);

TYPED_TEST(ScanTyped, MatchesTheCpuAtAwkwardLengths) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  Stream stream;
  ScanWorkspace workspace;
  for (const std::int64_t n : awkward_lengths()) {
    const std::vector<T> x = random_input<T>(n, test::kSeed + static_cast<std::uint64_t>(n));
    for (const ScanKind kind : kKinds) {
      std::vector<T> exact;
      RealScan real;
      if constexpr (std::is_integral_v<T>) exact = integer_scan(x, kind);
      else real = real_scan(x, kind);
      for (const ScanMode mode : kModes)
        for (const bool in_place : {false, true}) {
          const std::string where = "n " + std::to_string(n) + ", " + kind_name(kind) + ", " +
                                    std::string(name(mode)) + (in_place ? ", in place" : "") +
                                    ", seed " + std::to_string(test::kSeed + n);
          SCOPED_TRACE(where);
          const std::vector<T> got = device_scan(x, kind, mode, in_place, workspace, stream);
          ASSERT_EQ(got.size(), x.size());
          if constexpr (std::is_integral_v<T>) {
            ASSERT_TRUE(got == exact) << first_difference(got, exact);
          } else {
            for (std::int64_t i = 0; i < n; ++i) {
              const long double error = std::abs(static_cast<long double>(got[i]) - real.sum[i]);
              ASSERT_LE(error, real_tolerance<T>(i) * real.magnitude[i])
                  << "element " << i << ": got " << got[i] << ", want " << real.sum[i];
            }
          }
        }
    }
  }
}

// Integers up to 2^24 are exact in float. Steps of at most 16 in random directions keep every
// sum of a run of them far below that (a few 10^5 over 2^24 steps), so any order of addition gives
// the exact answer, in every mode.
TYPED_TEST(ScanTyped, SmallIntegersAreSummedExactlyInAnyOrder) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  Stream stream;
  ScanWorkspace workspace;
  for (const std::int64_t n :
       {std::int64_t(4097), std::int64_t(1) << 20, (std::int64_t(1) << 24) + 1}) {
    std::mt19937_64 rng(test::kSeed);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (T& v : x) v = static_cast<T>(static_cast<int>(rng() % 33) - 16);
    for (const ScanKind kind : kKinds) {
      std::vector<T> want(x.size());
      long long sum = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (kind == ScanKind::exclusive) want[i] = static_cast<T>(sum);
        sum += static_cast<long long>(x[i]);
        if (kind == ScanKind::inclusive) want[i] = static_cast<T>(sum);
      }
      for (const ScanMode mode : kModes) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + kind_name(kind) + ", " +
                     std::string(name(mode)));
        const std::vector<T> got = device_scan(x, kind, mode, false, workspace, stream);
        ASSERT_TRUE(got == want) << first_difference(got, want);
      }
    }
  }
}

TEST(Scan, NothingToScanIsNoWork) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  ScanWorkspace workspace;
  for (const ScanMode mode : kModes)
    for (const ScanKind kind : kKinds) {
      EXPECT_NO_THROW(device_sum_scan<int>(nullptr, nullptr, 0, kind, mode, workspace, stream));
      EXPECT_NO_THROW(device_sum_scan<float>(nullptr, nullptr, 0, kind, mode, workspace, stream));
    }
  stream.synchronize();
}

TEST(Scan, ReproducibleModeGivesTheSameBitsEveryRun) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = std::int64_t(1) << 24;
  std::mt19937_64 rng(test::kSeed);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x)
    v = static_cast<float>(2.0 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1.0);
  Stream stream;
  ScanWorkspace workspace;
  DeviceBuffer<float> in(x.size()), out(x.size());
  upload(in, x, stream);
  std::vector<float> first;
  for (int run = 0; run < 10; ++run) {
    fill_bytes(out, 0xFF, stream);
    device_sum_scan(in.data(), out.data(), n, ScanKind::inclusive, ScanMode::reproducible,
                    workspace, stream);
    stream.synchronize();
    const std::vector<float> got = download(out, n, stream);
    if (run == 0) {
      first = got;
      const RealScan real = real_scan(x, ScanKind::inclusive);
      for (std::int64_t i = 0; i < n; ++i)
        ASSERT_LE(std::abs(static_cast<long double>(got[i]) - real.sum[i]),
                  real_tolerance<float>(i) * real.magnitude[i])
            << "element " << i;
    } else {
      ASSERT_EQ(std::memcmp(got.data(), first.data(), got.size() * sizeof(float)), 0)
          << "run " << run << " differs from run 0: " << first_difference(got, first);
    }
  }
}

// Every scan clears its tile counter and states before it starts: a counter left at the last
// launch's tile count would give later launches' tiles ids past the end (or stale prefixes).
TEST(Scan, OneWorkspaceServesManyLaunches) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  ScanWorkspace workspace;
  const std::int64_t big = (std::int64_t(1) << 20) + 3, small = 3 * 4096 + 5;
  const std::vector<int> x_big = random_input<int>(big, test::kSeed);
  const std::vector<int> x_small = random_input<int>(small, test::kSeed + 1);
  const std::vector<int> want_big = integer_scan(x_big, ScanKind::inclusive);
  const std::vector<int> want_small = integer_scan(x_small, ScanKind::inclusive);
  DeviceBuffer<int> in_big(x_big.size()), in_small(x_small.size());
  upload(in_big, x_big, stream);
  upload(in_small, x_small, stream);
  for (const ScanMode mode : kModes) {
    SCOPED_TRACE(std::string(name(mode)));
    // Twenty back to back on one stream, each into its own output, checked after all.
    std::vector<DeviceBuffer<int>> outs;
    for (int launch = 0; launch < 20; ++launch) {
      outs.emplace_back(x_big.size());
      fill_bytes(outs.back(), 0xFF, stream);
      device_sum_scan(in_big.data(), outs.back().data(), big, ScanKind::inclusive, mode, workspace,
                      stream);
    }
    stream.synchronize();
    for (int launch = 0; launch < 20; ++launch) {
      const std::vector<int> got = download(outs[launch], big, stream);
      ASSERT_TRUE(got == want_big)
          << "launch " << launch << ": " << first_difference(got, want_big);
    }
    // Sizes alternating, so the workspace holds more tiles than some launches use.
    for (int launch = 0; launch < 6; ++launch) {
      const bool use_big = launch % 2 == 1;
      DeviceBuffer<int> out(use_big ? x_big.size() : x_small.size());
      fill_bytes(out, 0xFF, stream);
      device_sum_scan(use_big ? in_big.data() : in_small.data(), out.data(),
                      use_big ? big : small, ScanKind::inclusive, mode, workspace, stream);
      stream.synchronize();
      const std::vector<int> got = download(out, use_big ? big : small, stream);
      const std::vector<int>& want = use_big ? want_big : want_small;
      ASSERT_TRUE(got == want) << "launch " << launch << ": " << first_difference(got, want);
    }
  }
}

__global__ void fill_kernel(int* data, std::int64_t n, int value) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    data[i] = value;
}

// 2^31 + 1000 ones, in place: indices and tile ids past int's range, and sums that wrap.
TEST(Scan, MoreThanTwoToThe31Elements) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 1000;
  std::size_t free_bytes = 0, total_bytes = 0;
  PARASOL_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (static_cast<double>(free_bytes) <= 12.0 * 1024 * 1024 * 1024)
    GTEST_SKIP() << "needs more than 12 GiB free on the device for 2^31 + 1000 ints in place; "
                 << static_cast<double>(free_bytes) / (1024.0 * 1024 * 1024) << " GiB free";
  Stream stream;
  ScanWorkspace workspace;
  DeviceBuffer<int> data(static_cast<std::size_t>(n));
  // Spots to read back: the start, either side of 2^31 (where int indices overflow and the sum
  // wraps to INT_MIN), and the end.
  const std::int64_t starts[] = {0, (std::int64_t(1) << 31) - 1000, n - 1000};
  const struct {
    ScanKind kind;
    ScanMode mode;
  } cases[] = {{ScanKind::inclusive, ScanMode::fast},
               {ScanKind::inclusive, ScanMode::reproducible},
               {ScanKind::exclusive, ScanMode::fast}};
  for (const auto& c : cases) {
    SCOPED_TRACE(kind_name(c.kind) + ", " + std::string(name(c.mode)));
    fill_kernel<<<4 * multiprocessor_count(), 256, 0, stream>>>(data.data(), n, 1);
    PARASOL_CHECK_LAUNCH(stream);
    device_sum_scan(data.data(), data.data(), n, c.kind, c.mode, workspace, stream);
    stream.synchronize();
    for (const std::int64_t start : starts) {
      std::vector<int> got(2000);
      const std::int64_t count = std::min<std::int64_t>(2000, n - start);
      got.resize(static_cast<std::size_t>(count));
      PARASOL_CUDA(cudaMemcpyAsync(got.data(), data.data() + start, got.size() * sizeof(int),
                                   cudaMemcpyDeviceToHost, stream));
      stream.synchronize();
      for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t i = start + j;
        const auto sum = static_cast<std::uint64_t>(c.kind == ScanKind::inclusive ? i + 1 : i);
        const int want = static_cast<int>(static_cast<std::uint32_t>(sum));
        ASSERT_EQ(got[j], want) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace parasol
