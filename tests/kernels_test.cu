// The shared device layer: error reporting, shapes, launch geometry, reductions.
#include <gtest/gtest.h>

#include <cublas_v2.h>
#include <cufft.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/philox.cuh"
#include "kernels/reduce.cuh"
#include "kernels/shape.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "kernels/transpose.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

TEST(Errors, CudaErrorCarriesCallFileLineAndMessage) {
  try {
    PARASOL_CUDA(cudaErrorInvalidValue);
    FAIL() << "PARASOL_CUDA must throw on an error";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernels_test.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_NE(what.find("invalid argument"), std::string::npos) << what;
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_FALSE(e.sticky());
  }
}

TEST(Errors, StickyErrorsSayTheProcessMustEnd) {
  try {
    throw_cuda(cudaErrorIllegalAddress, "cudaMemcpy(h, d, n, kind)", "/src/solver.cu", 212);
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("solver.cu:212: cudaMemcpy(h, d, n, kind): cudaErrorIllegalAddress"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("must end"), std::string::npos) << what;
    EXPECT_TRUE(e.sticky());
  }
}

TEST(Errors, LibraryErrorsNameTheirStatus) {
  EXPECT_THROW(PARASOL_CUFFT(CUFFT_INVALID_SIZE), CufftError);
  try {
    PARASOL_CURAND(CURAND_STATUS_OUT_OF_RANGE);
  } catch (const CurandError& e) {
    EXPECT_NE(std::string(e.what()).find("CURAND_STATUS_OUT_OF_RANGE"), std::string::npos);
  }
  try {
    PARASOL_CUBLAS(CUBLAS_STATUS_NOT_INITIALIZED);
  } catch (const CublasError& e) {
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(PARASOL_CUFFT(CUFFT_SUCCESS));
}

TEST(Errors, InputErrorNamesSourceKeyAndExpectation) {
  const InputError e("inputs/a.toml:3", "grid.nx", "expected a positive integer");
  EXPECT_STREQ(e.what(), "inputs/a.toml:3: grid.nx: expected a positive integer");
  EXPECT_STREQ(e.with_source("command line").what(),
               "command line: grid.nx: expected a positive integer");
}

TEST(Shapes, DispatchFindsTheInstanceOrListsTheCompiledOnes) {
  using List = ShapeList<Block<32, 4, 1>, Block<64, 2, 1>>;
  int launched = 0;
  dispatch_shape("test", List{}, Shape{64, 2, 1}, [&](auto b) { launched = decltype(b)::x; });
  EXPECT_EQ(launched, 64);
  try {
    dispatch_shape("test/kernel", List{}, Shape{48, 4, 1}, [](auto) {});
    FAIL() << "an uncompiled shape must be refused";
  } catch (const UnsupportedShape& e) {
    EXPECT_STREQ(e.what(), "test/kernel: block 48x4x1 is not compiled in; compiled: 32x4x1 64x2x1");
  }
}

TEST(Launch, GridsAreCappedAtTheDeviceLimits) {
  const BlockCount blocks = blocks_to_cover(1000, 70000 * 4 + 1, 3, Shape{32, 4, 1});
  EXPECT_EQ(blocks.x, 32);
  EXPECT_EQ(blocks.y, 70001);
  const dim3 grid = grid_for(blocks);
  EXPECT_EQ(grid.y, 65535u);
  EXPECT_EQ(grid.z, 3u);
}

TEST(Launch, BlockLimitsAreChecked) {
  DeviceInfo d;
  d.max_threads_per_block = 1024;
  d.max_block = {1024, 1024, 64};
  EXPECT_NO_THROW(check_block_limits({32, 32, 1}, d, "method.block"));
  EXPECT_THROW(check_block_limits({32, 8, 128}, d, "method.block"), InputError);
  EXPECT_THROW(check_block_limits({64, 32, 1}, d, "method.block"), InputError);
  EXPECT_THROW(check_block_limits({0, 4, 1}, d, "method.block"), InputError);
}

__global__ void small_kernel(float* out) { out[threadIdx.x] = 1.0f; }

// A cap on resident blocks by padding shared memory: met exactly where the kernel would hold
// more, nothing where it holds no more already, and the padded launch runs.
TEST(Launch, SharedMemoryPaddingCapsResidentBlocks) {
  PARASOL_REQUIRE_GPU();
  const auto* kernel = reinterpret_cast<const void*>(small_kernel);
  constexpr int kThreads = 128;
  const int free_blocks = max_active_blocks(kernel, kThreads);
  ASSERT_GE(free_blocks, 4) << "a 128-thread kernel of few registers";
  for (int cap = 2; cap < free_blocks; ++cap) {
    const std::size_t padding = smem_to_cap_blocks(kernel, kThreads, cap);
    if (padding == 0) continue;  // past the default 48 KiB a block on this device
    EXPECT_EQ(max_active_blocks(kernel, kThreads, padding), cap) << cap;
  }
  const std::size_t four = smem_to_cap_blocks(kernel, kThreads, 4);
  EXPECT_GT(four, 0u);
  EXPECT_EQ(smem_to_cap_blocks(kernel, kThreads, free_blocks), 0u);
  EXPECT_EQ(smem_to_cap_blocks(kernel, kThreads, free_blocks + 1), 0u);
  EXPECT_EQ(smem_to_cap_blocks(kernel, kThreads, 0), 0u);
  DeviceBuffer<float> out(kThreads);
  Stream stream;
  small_kernel<<<1, kThreads, four, stream.get()>>>(out.data());
  PARASOL_CHECK_LAUNCH(stream.get());
  EXPECT_EQ(download(out, stream.get())[kThreads - 1], 1.0f);
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// The device's clock cycles in `seconds`, for spin_kernel.
long long clock_cycles(double seconds) {
  int clock_khz = 0, device = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  return static_cast<long long>(1e3 * clock_khz * seconds);
}

// Timed runs in batches: the count, then until the minimum time, never past at_most; one time
// per run, each the run's own (a spin of known length, not the batch's).
TEST(TimedRuns, BatchesKeepTheCountsAndTimeEachRun) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  const long long cycles = clock_cycles(50e-6);
  std::int64_t calls = 0;
  const auto run = [&] {
    ++calls;
    spin_kernel<<<1, 1, 0, stream.get()>>>(cycles);
    PARASOL_CHECK_LAUNCH(stream.get());
  };
  run();  // warm-up
  calls = 0;
  std::vector<double> s = timed_runs(stream.get(), Repeats{3, 0}, run);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(s.size(), 3u);
  calls = 0;
  s = timed_runs(stream.get(), Repeats{2, 0.02, 100000}, run);
  EXPECT_EQ(static_cast<std::int64_t>(s.size()), calls);
  double total = 0;
  for (double x : s) {
    EXPECT_GT(x, 20e-6);
    EXPECT_LT(x, 5e-3);
    total += x;
  }
  EXPECT_GE(total, 0.02);
  EXPECT_LT(total, 0.02 + static_cast<double>(kTimedBatch) * 5e-3);
  calls = 0;
  s = timed_runs(stream.get(), Repeats{1, 100.0, 40}, run);
  EXPECT_EQ(calls, 40) << "never past at_most";
  EXPECT_EQ(s.size(), 40u);
}

// Work enqueued between runs runs once after each, outside the runs' timing: a spin ten times a
// run's length between them leaves each run's time alone.
TEST(TimedRuns, WorkBetweenRunsIsOutsideTheirTiming) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  const long long cycles = clock_cycles(50e-6);
  std::int64_t runs = 0, betweens = 0;
  const auto spin = [&](long long length) {
    spin_kernel<<<1, 1, 0, stream.get()>>>(length);
    PARASOL_CHECK_LAUNCH(stream.get());
  };
  spin(cycles);  // warm-up
  const std::vector<double> s = timed_runs_between(
      stream.get(), Repeats{45, 0}, [&] {
        ++runs;
        spin(cycles);
      },
      [&] {
        ++betweens;
        spin(10 * cycles);
      });
  EXPECT_EQ(runs, 45);
  EXPECT_EQ(betweens, 45);
  ASSERT_EQ(s.size(), 45u);
  EXPECT_LT(median(s), 5 * 50e-6) << "a run's time holds none of the work between";
}

TEST(Streams, HighPriorityTakesTheDevicesGreatestPriority) {
  PARASOL_REQUIRE_GPU();
  int least = 0, greatest = 0;
  PARASOL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  const Stream plain, urgent = Stream::high_priority();
  int p_plain = 0, p_urgent = 0;
  PARASOL_CUDA(cudaStreamGetPriority(plain, &p_plain));
  PARASOL_CUDA(cudaStreamGetPriority(urgent, &p_urgent));
  EXPECT_EQ(p_plain, least);
  EXPECT_EQ(p_urgent, greatest);
  // Work on it runs like any stream's.
  DeviceBuffer<int> x(4);
  PARASOL_CUDA(cudaMemsetAsync(x.data(), 0, x.bytes(), urgent));
  urgent.synchronize();
}

// Reductions over sizes that break kernels: 1, a prime, block +- 1, and many blocks.
class DeviceReduce : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(DeviceReduce, SumAndMaxMatchTheHost) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = GetParam();
  std::mt19937_64 rng(test::kSeed + static_cast<std::uint64_t>(n));
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> host(static_cast<std::size_t>(n));
  for (double& x : host) x = uniform(rng);
  DeviceBuffer<double> data(host.size());
  PARASOL_CUDA(cudaMemcpy(data.data(), host.data(), data.bytes(), cudaMemcpyHostToDevice));
  Stream stream;
  DeviceReducer<double> reducer;
  long double sum = 0;
  double max = -INFINITY;
  for (double x : host) {
    sum += x;
    max = std::max(max, x);
  }
  const double gpu_sum = reducer.reduce(n, ValueOf<double>{data.data()}, Sum{}, stream);
  const double gpu_max = reducer.reduce(n, ValueOf<double>{data.data()}, Max{}, stream);
  EXPECT_NEAR(gpu_sum, static_cast<double>(sum), 1e-12 * static_cast<double>(n));
  EXPECT_EQ(gpu_max, max);
  // The same input gives the same bits.
  EXPECT_EQ(reducer.reduce(n, ValueOf<double>{data.data()}, Sum{}, stream), gpu_sum);
}

INSTANTIATE_TEST_SUITE_P(Sizes, DeviceReduce,
                         ::testing::Values(1, 2, 31, 255, 256, 257, 65537, 1000003, 33554433));

// block_reduce_each's N sums behind one barrier, a shuffle carrying two values: each value's
// bits are block_reduce's own.
template <int kThreads, int kN>
__global__ void __launch_bounds__(kThreads) each_against_one_kernel(const double* in, double* one, double* each) {
  double values[kN];
  const double* mine = in + (blockIdx.x * kThreads + threadIdx.x) * kN;
  for (int q = 0; q < kN; ++q) {
    values[q] = mine[q];
    const double total = block_reduce<kThreads>(mine[q], Sum{});
    if (threadIdx.x == 0) one[blockIdx.x * kN + q] = total;
    __syncthreads();  // block_reduce's shared slots are reused
  }
  block_reduce_each<kThreads>(values, Sum{});
  if (threadIdx.x == 0)
    for (int q = 0; q < kN; ++q) each[blockIdx.x * kN + q] = values[q];
}

template <int kThreads, int kN>
void expect_each_as_one() {
  constexpr int kBlocks = 37;
  std::mt19937_64 rng(test::kSeed + kThreads + kN);
  // Magnitudes 2^-20 to 2^20, so that the order of the additions shows in the bits.
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<double> host(static_cast<std::size_t>(kBlocks) * kThreads * kN);
  for (double& x : host) x = std::ldexp(uniform(rng), exponent(rng));
  DeviceBuffer<double> in(host.size()), one(kBlocks * kN), each(kBlocks * kN);
  PARASOL_CUDA(cudaMemcpy(in.data(), host.data(), in.bytes(), cudaMemcpyHostToDevice));
  fill_bytes(one, 0xFF);  // NaN: a total never written fails the comparison
  fill_bytes(each, 0x7F);
  each_against_one_kernel<kThreads, kN><<<kBlocks, kThreads>>>(in.data(), one.data(), each.data());
  PARASOL_CUDA(cudaGetLastError());
  PARASOL_CUDA(cudaDeviceSynchronize());
  std::vector<double> by_one(one.size()), by_each(each.size());
  PARASOL_CUDA(cudaMemcpy(by_one.data(), one.data(), one.bytes(), cudaMemcpyDeviceToHost));
  PARASOL_CUDA(cudaMemcpy(by_each.data(), each.data(), each.bytes(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < by_one.size(); ++i) {
    ASSERT_TRUE(std::isfinite(by_one[i])) << i;
    EXPECT_EQ(std::memcmp(&by_one[i], &by_each[i], sizeof(double)), 0)
        << kThreads << " threads, " << kN << " values: block " << i / kN << " value " << i % kN
        << ": " << by_one[i] << " against " << by_each[i];
  }
}

TEST(BlockReduce, AllAtOnceGivesEachValueItsOwnBits) {
  PARASOL_REQUIRE_GPU();
  expect_each_as_one<256, 1>();
  expect_each_as_one<256, 2>();
  expect_each_as_one<256, 7>();
  expect_each_as_one<256, 11>();
  expect_each_as_one<256, 16>();
  expect_each_as_one<96, 15>();  // three warps
  expect_each_as_one<1024, 21>();
}

TEST(DeviceReduceMax, ANaNEverywhereIsNotReportedAsSmall) {
  PARASOL_REQUIRE_GPU();
  DeviceBuffer<float> data(1000);
  fill_bytes(data, 0xFF);  // NaN
  Stream stream;
  DeviceReducer<float> reducer;
  const float max = reducer.reduce(1000, ValueOf<float>{data.data()}, Max{}, stream);
  EXPECT_TRUE(std::isnan(max));
}

// A sweep's check on the device: the host's compare() to the rms's rounding, NaN kept, and bit
// for bit equality of whole arrays and of odd byte counts at odd addresses.
TEST(DeviceCompare, MatchesTheHostsComparisonAndKeepsNaN) {
  PARASOL_REQUIRE_GPU();
  const std::size_t n = 1000003;
  std::mt19937_64 rng(test::kSeed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> gold(n);
  std::vector<float> result(n);
  for (std::size_t i = 0; i < n; ++i) {
    gold[i] = uniform(rng);
    result[i] = static_cast<float>(gold[i]);
  }
  DeviceBuffer<double> d_gold(n);
  DeviceBuffer<float> d_result(n);
  Stream stream;
  upload(d_gold, gold, stream);
  upload(d_result, result, stream);
  const FieldDifference host = compare(result, gold);
  const FieldDifference device =
      device_compare(d_result.data(), d_gold.data(), static_cast<std::int64_t>(n), stream);
  EXPECT_EQ(device.max_abs, host.max_abs);
  EXPECT_NEAR(device.rms, host.rms, 1e-12 * host.rms);
  const FieldDifference self =
      device_compare(d_gold.data(), d_gold.data(), static_cast<std::int64_t>(n), stream);
  EXPECT_EQ(self.max_abs, 0.0);
  EXPECT_EQ(self.rms, 0.0);
  result[n - 1] = NAN;
  upload(d_result, result, stream);
  const FieldDifference bad =
      device_compare(d_result.data(), d_gold.data(), static_cast<std::int64_t>(n), stream);
  EXPECT_TRUE(std::isnan(bad.max_abs));
  EXPECT_TRUE(std::isnan(bad.rms));
}

// Relative to a scale point by point, as the host takes it: the same largest ratio, a zero scale
// needing an exact match, and a NaN anywhere reported.
TEST(DeviceCompare, ScaledMatchesTheHostsMaxRelativeToScale) {
  PARASOL_REQUIRE_GPU();
  const std::size_t n = 300007;
  std::mt19937_64 rng(test::kSeed);
  std::uniform_real_distribution<double> uniform(-1, 1), positive(0.5, 2);
  std::vector<double> gold(n), scale(n);
  std::vector<float> result(n);
  for (std::size_t i = 0; i < n; ++i) {
    gold[i] = uniform(rng);
    scale[i] = positive(rng);
    result[i] = static_cast<float>(gold[i]);
  }
  scale[17] = 0;
  result[17] = static_cast<float>(gold[17] = 0.25);  // exact where the scale is 0
  DeviceBuffer<double> d_gold(n), d_scale(n);
  DeviceBuffer<float> d_result(n);
  Stream stream;
  upload(d_gold, gold, stream);
  upload(d_scale, scale, stream);
  const auto compared = [&] {
    upload(d_result, result, stream);
    return device_compare_scaled(d_result.data(), d_gold.data(), d_scale.data(),
                                 static_cast<std::int64_t>(n), stream);
  };
  ScaledComparison c = compared();
  EXPECT_EQ(c.max_relative, max_relative_to_scale(result, gold, scale));
  EXPECT_GT(c.max_relative, 0.0);
  EXPECT_EQ(c.difference.max_abs, compare(result, gold).max_abs);
  result[17] = 0.5f;
  EXPECT_TRUE(std::isinf(compared().max_relative)) << "a zero scale must match exactly";
  result[17] = 0.25f;
  result[n - 1] = NAN;
  c = compared();
  EXPECT_TRUE(std::isnan(c.max_relative));
  EXPECT_TRUE(std::isnan(c.difference.max_abs));
}

TEST(DeviceCompare, SameBitsTellsOneFlippedBitAnywhere) {
  PARASOL_REQUIRE_GPU();
  const std::size_t n = 65537;
  std::vector<unsigned char> bytes(n);
  std::mt19937_64 rng(test::kSeed);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  DeviceBuffer<unsigned char> a(n), b(n);
  Stream stream;
  upload(a, bytes, stream);
  upload(b, bytes, stream);
  BitComparer comparer;
  EXPECT_TRUE(comparer.same(a.data(), b.data(), n, stream));
  EXPECT_TRUE(comparer.same(a.data() + 1, b.data() + 1, n - 2, stream)) << "odd bytes";
  for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
    std::vector<unsigned char> flipped = bytes;
    flipped[at] ^= 0x10;
    upload(b, flipped, stream);
    EXPECT_FALSE(comparer.same(a.data(), b.data(), n, stream)) << at;
    EXPECT_EQ(comparer.same(a.data() + 1, b.data() + 1, n - 2, stream), at == 0 || at == n - 1)
        << at;
  }
}

// Comparisons counted on the device without waiting add up until taken, and a take starts the
// count again; unaligned byte ranges are counted too.
TEST(DeviceCompare, DifferencesAddUpOnTheDeviceUntilTaken) {
  PARASOL_REQUIRE_GPU();
  const std::size_t n = 100001 * 4;
  std::vector<unsigned char> bytes(n);
  std::mt19937_64 rng(test::kSeed);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  std::vector<unsigned char> flipped = bytes;
  flipped[0] ^= 1;
  flipped[n / 2] ^= 2;
  flipped[n - 1] ^= 4;
  DeviceBuffer<unsigned char> a(n), b(n);
  Stream stream;
  upload(a, bytes, stream);
  upload(b, flipped, stream);
  BitComparer comparer;
  EXPECT_EQ(comparer.take_differences(stream), 0u) << "nothing compared yet";
  comparer.add_differences(a.data(), a.data(), n, stream);
  EXPECT_EQ(comparer.take_differences(stream), 0u);
  comparer.add_differences(a.data(), b.data(), n, stream);      // 3 words differ
  comparer.add_differences(a.data(), b.data(), n / 2, stream);  // the first only
  comparer.add_differences(a.data() + 1, b.data() + 1, n - 2, stream);  // bytes: the middle one
  EXPECT_EQ(comparer.take_differences(stream), 5u);
  EXPECT_EQ(comparer.take_differences(stream), 0u) << "a take starts again";
}

// A sampled check's gather: the values at any indices, in the indices' order, repeats and the
// last element included.
TEST(DeviceCompare, DownloadAtGathersTheIndexedValues) {
  PARASOL_REQUIRE_GPU();
  const std::size_t n = 100003;
  std::vector<double> values(n);
  std::mt19937_64 rng(test::kSeed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (double& v : values) v = uniform(rng);
  const std::vector<std::int64_t> at = {static_cast<std::int64_t>(n - 1), 0, 17, 17, 5000, 99999};
  DeviceBuffer<double> d_values(n);
  DeviceBuffer<std::int64_t> d_at(at.size());
  Stream stream;
  upload(d_values, values, stream);
  upload(d_at, at, stream);
  const std::vector<double> picked =
      download_at(d_values.data(), d_at.data(), static_cast<std::int64_t>(at.size()), stream);
  ASSERT_EQ(picked.size(), at.size());
  for (std::size_t k = 0; k < at.size(); ++k)
    EXPECT_EQ(picked[k], values[static_cast<std::size_t>(at[k])]) << k;
  EXPECT_TRUE(download_at(d_values.data(), d_at.data(), 0, stream).empty());
}

// Every value lands at its transposed place, for extents that fill no tile evenly, a single row
// or column, and more tiles than the grid has blocks; the output is poisoned first.
TEST(Transpose, EveryValueLandsAtItsTransposedPlace) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 1}, {1, 77}, {77, 1}, {33, 65}, {64, 32}, {1000, 3}, {3001, 517}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const auto n = static_cast<std::size_t>(rows * cols);
    std::vector<double> in(n);
    for (std::size_t k = 0; k < n; ++k) in[k] = static_cast<double>(k) + 0.5;
    DeviceBuffer<double> d_in(n), d_out(n);
    upload(d_in, in, stream);
    fill_bytes(d_out, 0xFF, stream);
    transpose(d_in.data(), d_out.data(), rows, cols, stream);
    const std::vector<double> out = download(d_out, stream);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(out[static_cast<std::size_t>(c * rows + r)],
                  in[static_cast<std::size_t>(r * cols + c)])
            << r << ", " << c;
  }
  // float too, and back again gives the input.
  std::vector<float> in(45 * 37);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k) * 0.25f;
  DeviceBuffer<float> d_in(in.size()), d_t(in.size()), d_back(in.size());
  upload(d_in, in, stream);
  transpose(d_in.data(), d_t.data(), 45, 37, stream);
  transpose(d_t.data(), d_back.data(), 37, 45, stream);
  EXPECT_EQ(download(d_back, stream), in);
}

TEST(Philox, MatchesTheKnownAnswer) {
  // Random123's known-answer test for philox4x32-10: counter 0, key 0.
  const PhiloxCounter r = philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r.x, 0x6627e8d5u);
  EXPECT_EQ(r.y, 0xe169c58du);
  EXPECT_EQ(r.z, 0xbc57ac4cu);
  EXPECT_EQ(r.w, 0x9b00dbd8u);
}

__global__ void philox_against_curand_kernel(unsigned long long seed, unsigned long long subsequence,
                                             int draws, uint4* ours, uint4* theirs) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, subsequence, 0, &state);
  const PhiloxKey key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  for (int n = 0; n < draws; ++n) {
    theirs[n] = curand4(&state);
    const PhiloxCounter c = philox4x32_10(
        {static_cast<std::uint32_t>(n), 0, static_cast<std::uint32_t>(subsequence),
         static_cast<std::uint32_t>(subsequence >> 32)},
        key);
    ours[n] = make_uint4(c.x, c.y, c.z, c.w);
  }
}

TEST(Philox, StreamsMatchCurand) {
  PARASOL_REQUIRE_GPU();
  constexpr int kDraws = 37;
  DeviceBuffer<uint4> ours(kDraws), theirs(kDraws);
  for (const auto& [seed, subsequence] :
       {std::pair<unsigned long long, unsigned long long>{0, 0}, {1234, 7}, {0x123456789abcdefull, 5000000017ull}}) {
    philox_against_curand_kernel<<<1, 1>>>(seed, subsequence, kDraws, ours.data(), theirs.data());
    PARASOL_CHECK_LAUNCH(nullptr);
    std::vector<uint4> a(kDraws), b(kDraws);
    PARASOL_CUDA(cudaMemcpy(a.data(), ours.data(), ours.bytes(), cudaMemcpyDeviceToHost));
    PARASOL_CUDA(cudaMemcpy(b.data(), theirs.data(), theirs.bytes(), cudaMemcpyDeviceToHost));
    for (int n = 0; n < kDraws; ++n)
      ASSERT_TRUE(a[n].x == b[n].x && a[n].y == b[n].y && a[n].z == b[n].z && a[n].w == b[n].w)
          << "seed " << seed << ", subsequence " << subsequence << ", draw " << n;
  }
}

// box_muller_fast written with the library's __logf and rsqrtf, which handle denormals: the
// flushing instructions it uses must give the same bits for every word it can be given.
__global__ void box_muller_pair_kernel(const std::uint32_t* words, int pairs, float2* fast,
                                       float2* reference) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x) {
    const std::uint32_t a = words[2 * i], b = words[2 * i + 1];
    fast[i] = box_muller_fast(a, b);
    constexpr float kTwoPow32Inv = 2.3283064e-10f;
    constexpr float kTwoPow32InvTwoPi = 2.3283064e-10f * 6.2831855f;
    const float u = static_cast<float>(a) * kTwoPow32Inv + kTwoPow32Inv / 2;
    const float angle = static_cast<float>(b) * kTwoPow32InvTwoPi + kTwoPow32InvTwoPi / 2;
    const float t = -2.0f * __logf(u);
    const float radius = t * rsqrtf(fmaxf(t, 1e-30f));
    float sn, cs;
    __sincosf(angle, &sn, &cs);
    reference[i] = make_float2(sn * radius, cs * radius);
  }
}

TEST(Philox, BoxMullerGivesTheLibraryFunctionsBits) {
  PARASOL_REQUIRE_GPU();
  std::vector<std::uint32_t> words = {0u, 0u, 0xFFFFFFFFu, 0xFFFFFFFFu, 1u, 0x80000000u,
                                      0xFFFFFF7Fu, 0x7FFFFFFFu, 0xFFFFFF80u, 12345u};
  std::mt19937 rng(7);
  while (words.size() < 2 * 100000) words.push_back(static_cast<std::uint32_t>(rng()));
  // Every word whose u lies in the last few steps below 1, where t is tiny or exactly 0.
  for (std::uint32_t a = 0xFFFFF000u; a != 0; ++a) {
    words.push_back(a);
    words.push_back(a ^ 0x5A5A5A5Au);
  }
  const int pairs = static_cast<int>(words.size() / 2);
  DeviceBuffer<std::uint32_t> d_words(words.size());
  upload(d_words, words, nullptr);
  DeviceBuffer<float2> fast(pairs), reference(pairs);
  box_muller_pair_kernel<<<64, 256>>>(d_words.data(), pairs, fast.data(), reference.data());
  PARASOL_CHECK_LAUNCH(nullptr);
  const std::vector<float2> f = download(fast, nullptr), r = download(reference, nullptr);
  for (int i = 0; i < pairs; ++i)
    ASSERT_TRUE(std::memcmp(&f[i], &r[i], sizeof(float2)) == 0)
        << "words " << words[2 * i] << ", " << words[2 * i + 1] << ": " << f[i].x << ", " << f[i].y
        << " against " << r[i].x << ", " << r[i].y;
}

__global__ void normal_moments_kernel(int draws_per_thread, double* moments) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  double m1 = 0, m2 = 0, m4 = 0, tail = 0;
  for (int n = 0; n < draws_per_thread; ++n) {
    const float4 y = philox_normal4({static_cast<std::uint32_t>(n), 0, t, 0}, {42, 0});
    for (float v : {y.x, y.y, y.z, y.w}) {
      const double d = v;
      m1 += d;
      m2 += d * d;
      m4 += d * d * d * d;
      tail += fabs(d) > 3.0 ? 1.0 : 0.0;
    }
  }
  atomicAdd(&moments[0], m1);
  atomicAdd(&moments[1], m2);
  atomicAdd(&moments[2], m4);
  atomicAdd(&moments[3], tail);
}

TEST(Philox, NormalsHaveTheRightMomentsAndTails) {
  PARASOL_REQUIRE_GPU();
  constexpr int kThreads = 256, kBlocks = 1024, kDraws = 16;
  const double n = 4.0 * kThreads * kBlocks * kDraws;  // 16.8 million normals
  DeviceBuffer<double> moments(4);
  PARASOL_CUDA(cudaMemset(moments.data(), 0, moments.bytes()));
  normal_moments_kernel<<<kBlocks, kThreads>>>(kDraws, moments.data());
  PARASOL_CHECK_LAUNCH(nullptr);
  std::vector<double> m(4);
  PARASOL_CUDA(cudaMemcpy(m.data(), moments.data(), moments.bytes(), cudaMemcpyDeviceToHost));
  // Standard errors of the sample moments: 1/sqrt(n), sqrt(2/n), sqrt(96/n); five of them apart
  // is a failure. P(|Y| > 3) = 0.0026998, binomial standard error sqrt(p(1-p)/n).
  EXPECT_NEAR(m[0] / n, 0.0, 5 * std::sqrt(1 / n));
  EXPECT_NEAR(m[1] / n, 1.0, 5 * std::sqrt(2 / n));
  EXPECT_NEAR(m[2] / n, 3.0, 5 * std::sqrt(96 / n));
  EXPECT_NEAR(m[3] / n, 0.0026998, 5 * std::sqrt(0.0027 / n));
}

// 2 KiB of static shared memory per block, so the recorded attributes have something to show.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) staged_copy_kernel(const float* in, float* out, int n) {
  __shared__ float stage[512];
  const int i = blockIdx.x * kThreads + threadIdx.x;
  stage[threadIdx.x % 512] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = stage[threadIdx.x % 512] * 2.0f;
}

// The kernel log against what the runtime says of the same kernel, and the counting of repeats.
TEST(KernelLog, RecordsEachKernelOnceWithTheRuntimesAttributes) {
  PARASOL_REQUIRE_GPU();
  constexpr int kThreads = 256;
  const int n = 1 << 20;
  DeviceBuffer<float> in(n), out(n);
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kThreads));
  std::vector<KernelRecord> records;
  {
    KernelLog log;
    for (int r = 0; r < 3; ++r) {
      PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, staged_copy_kernel<kThreads>);
      staged_copy_kernel<kThreads><<<blocks, kThreads>>>(in.data(), out.data(), n);
      PARASOL_CHECK_LAUNCH(0);
    }
    // Another grid is another record.
    PARASOL_NOTE_LAUNCH(blocks / 2, kThreads, 128, staged_copy_kernel<kThreads>);
    staged_copy_kernel<kThreads><<<blocks / 2, kThreads, 128>>>(in.data(), out.data(), n / 2);
    PARASOL_CHECK_LAUNCH(0);
    records = log.take();
    EXPECT_TRUE(log.take().empty());
  }
  PARASOL_CUDA(cudaDeviceSynchronize());
  // Without a log, a note records nothing and costs nothing.
  PARASOL_NOTE_LAUNCH(blocks, kThreads, 0, staged_copy_kernel<kThreads>);
  ASSERT_EQ(records.size(), 2u);
  cudaFuncAttributes a{};
  PARASOL_CUDA(cudaFuncGetAttributes(&a, staged_copy_kernel<kThreads>));
  const KernelRecord& k = records[0];
  EXPECT_EQ(k.name, "staged_copy_kernel");
  EXPECT_EQ(k.block, "256x1x1");
  EXPECT_EQ(k.block_threads, kThreads);
  EXPECT_EQ(k.grid_blocks, static_cast<std::int64_t>(blocks));
  EXPECT_EQ(k.launches, 3);
  EXPECT_EQ(k.registers, a.numRegs);
  EXPECT_EQ(k.static_shared, 2048);
  EXPECT_EQ(k.dynamic_shared, 0);
  EXPECT_EQ(k.local_bytes, static_cast<std::int64_t>(a.localSizeBytes));
  EXPECT_EQ(k.max_threads_per_block, kThreads);  // __launch_bounds__
  EXPECT_EQ(k.blocks_per_sm, max_active_blocks(reinterpret_cast<const void*>(
                                                   staged_copy_kernel<kThreads>),
                                               kThreads));
  // The calculator's rules give the runtime's count for this kernel.
  const Occupancy o = theoretical_occupancy({kThreads, a.numRegs, 2048, 0}, current_sm_limits());
  EXPECT_EQ(o.blocks_per_sm, k.blocks_per_sm);
  EXPECT_EQ(k.limiter, o.limiter);
  EXPECT_DOUBLE_EQ(k.occupancy, o.fraction);
  EXPECT_NEAR(k.waves, double(blocks) / (k.blocks_per_sm * multiprocessor_count()), 1e-12);
  EXPECT_EQ(records[1].grid_blocks, static_cast<std::int64_t>(blocks / 2));
  EXPECT_EQ(records[1].dynamic_shared, 128);
  EXPECT_EQ(records[1].launches, 1);
}

TEST(Device, CopyBandwidthIsMeasured) {
  PARASOL_REQUIRE_GPU();
  const double bandwidth = measure_copy_bandwidth(std::size_t{64} << 20, 5);
  EXPECT_GT(bandwidth, 1e10);  // any GPU copies faster than 10 GB/s
  const DeviceInfo d = current_device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.total_memory, 0u);
}

TEST(Device, AbsenceIsReportedWithAReason) {
  std::string reason;
  if (gpu_available(&reason)) GTEST_SKIP() << "a device is present; this checks the no-device path";
  EXPECT_FALSE(reason.empty());
}

}  // namespace
}  // namespace parasol
