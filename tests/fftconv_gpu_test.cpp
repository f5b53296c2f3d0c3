// fftconv on the device: every variant against the CPU gold, on random signals and filters of
// awkward sizes, in every mode, batched and 2D; overlap-save against r2c; streaming in pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "tests/support.hpp"

namespace parasol::fftconv {
namespace {

template <class T>
std::vector<T> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

template <class T>
std::vector<T> download(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  if (!h.empty())
    PARASOL_CUDA(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  if (!h.empty())
    PARASOL_CUDA(cudaMemcpy(d.data(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

// Runs one variant into a NaN-poisoned output and returns what it wrote.
template <class T>
std::vector<T> run(Convolver<T>& convolver, const Problem& p, Variant v,
                   const std::vector<T>& signal, const std::vector<T>& filter,
                   std::int64_t block = 0) {
  Stream stream;
  DeviceBuffer<T> x = upload(signal), h = upload(filter);
  DeviceBuffer<T> y(static_cast<std::size_t>(p.batch * output_extent(p).size()));
  fill_bytes(y, 0xFF, stream.get());
  Options o;
  o.variant = v;
  o.block = block;
  EXPECT_EQ(convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get()), v);
  stream.synchronize();
  return download(y);
}

// max |got - gold| / max |gold|: transforms spread rounding evenly over the output, so the
// error is judged against the output's scale, not sample by sample.
template <class T>
double relative_error(const std::vector<T>& got, const std::vector<double>& gold) {
  EXPECT_EQ(got.size(), gold.size());
  double scale = 0, worst = 0;
  for (double g : gold) scale = std::max(scale, std::abs(g));
  for (std::size_t i = 0; i < std::min(got.size(), gold.size()); ++i) {
    const double d = std::abs(static_cast<double>(got[i]) - gold[i]);
    if (!(d <= worst)) worst = std::isnan(d) ? INFINITY : d;
  }
  return worst / std::max(scale, 1e-300);
}

template <class T>
double tolerance() {
  return sizeof(T) == 4 ? 2e-5 : 1e-12;
}

template <class T>
void expect_all_variants_match_gold(const Problem& p, std::uint64_t seed) {
  const auto signal = random_values<T>(p.batch * p.signal.size(), seed);
  const auto filter = random_values<T>(p.filters * p.filter.size(), seed + 1);
  const std::vector<double> gold = convolve_gold(p, signal, filter);
  Convolver<T> convolver;
  for (Variant v : kVariants) {
    if (!supports(v, p)) continue;
    const double err = relative_error(run(convolver, p, v, signal, filter), gold);
    EXPECT_LE(err, tolerance<T>())
        << name(v) << " " << name(p.mode) << " " << name(p.operation) << " batch " << p.batch
        << " signal " << p.signal.rows << "x" << p.signal.cols << " filter " << p.filter.rows
        << "x" << p.filter.cols << " filters " << p.filters;
  }
}

template <class T>
class FftconvGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FftconvGpu, Precisions);

TYPED_TEST(FftconvGpu, OneDimensionalEveryModeAndAwkwardSize) {
  PARASOL_REQUIRE_GPU();
  // Signal and filter lengths: 1, primes, odd and even, filter longer than the signal, a filter
  // longer than one direct-sum chunk.
  const std::pair<std::int64_t, std::int64_t> sizes[] = {
      {1, 1}, {1, 5}, {7, 1}, {2, 3}, {31, 7}, {1000, 33}, {4096, 64},
      {997, 1001}, {6007, 333}, {10007, 2}, {12289, 700}};
  std::uint64_t seed = 1;
  for (const auto& [n, k] : sizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        Problem p;
        p.signal = {1, n};
        p.filter = {1, k};
        p.mode = mode;
        p.operation = op;
        expect_all_variants_match_gold<TypeParam>(p, seed++);
      }
}

TYPED_TEST(FftconvGpu, BatchedWithOneFilterAndWithAFilterEach) {
  PARASOL_REQUIRE_GPU();
  for (std::int64_t filters : {std::int64_t(1), std::int64_t(13)})
    for (Mode mode : kModes) {
      Problem p;
      p.batch = 13;
      p.signal = {1, 517};
      p.filters = filters;
      p.filter = {1, 63};
      p.mode = mode;
      expect_all_variants_match_gold<TypeParam>(p, 100 + filters);
    }
}

TYPED_TEST(FftconvGpu, TwoDimensionalEveryMode) {
  PARASOL_REQUIRE_GPU();
  const std::pair<Extent, Extent> sizes[] = {{{1, 1}, {1, 1}},     {{5, 1}, {3, 1}},
                                             {{37, 61}, {5, 7}},   {{64, 64}, {31, 31}},
                                             {{3, 101}, {3, 3}},   {{17, 19}, {23, 29}},
                                             {{130, 45}, {2, 11}}};
  std::uint64_t seed = 200;
  for (const auto& [signal, filter] : sizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        Problem p;
        p.batch = 2;
        p.signal = signal;
        p.filter = filter;
        p.filters = 2;
        p.mode = mode;
        p.operation = op;
        expect_all_variants_match_gold<TypeParam>(p, seed++);
      }
}

TYPED_TEST(FftconvGpu, OverlapSaveMatchesR2cOnALongSignalAtEveryBlockLength) {
  PARASOL_REQUIRE_GPU();
  Problem p;
  p.signal = {1, 300007};
  p.filter = {1, 257};
  p.mode = Mode::same;
  const auto signal = random_values<TypeParam>(p.signal.size(), 7);
  const auto filter = random_values<TypeParam>(p.filter.size(), 8);
  Convolver<TypeParam> convolver;
  const auto reference = run(convolver, p, Variant::r2c, signal, filter);
  std::vector<double> as_double(reference.begin(), reference.end());
  for (std::int64_t block : {257, 258, 1000, 4096, 16384, 0})
    EXPECT_LE(relative_error(run(convolver, p, Variant::overlap_save, signal, filter, block),
                             as_double),
              tolerance<TypeParam>())
        << "block " << block;
}

TYPED_TEST(FftconvGpu, StreamedPiecesMatchTheWholeSignalInEveryMode) {
  PARASOL_REQUIRE_GPU();
  for (Mode mode : kModes) {
    Problem p;
    p.signal = {1, 100003};
    p.filter = {1, 129};
    p.mode = mode;
    p.operation = Operation::correlate;
    const auto signal = random_values<TypeParam>(p.signal.size(), 11);
    const auto filter = random_values<TypeParam>(p.filter.size(), 12);
    const std::vector<double> gold = convolve_gold(p, signal, filter);
    std::vector<TypeParam> streamed(gold.size(), std::nan(""));
    std::int64_t next_read_end = 0, next_write = 0, pieces = 0;
    Convolver<TypeParam> convolver;
    Stream stream;
    Options o;
    o.block = 1024;
    convolver.convolve_streamed(
        p, o, filter,
        [&](std::int64_t offset, std::int64_t count, TypeParam* host) {
          EXPECT_GE(offset, 0);
          EXPECT_LE(offset + count, p.signal.cols);
          EXPECT_GE(offset + count, next_read_end);  // reads move forward
          next_read_end = offset + count;
          std::copy_n(signal.begin() + offset, count, host);
        },
        [&](std::int64_t offset, std::int64_t count, const TypeParam* host) {
          EXPECT_EQ(offset, next_write);  // writes in order, no gaps
          next_write = offset + count;
          ++pieces;
          std::copy_n(host, count, streamed.begin() + offset);
        },
        stream.get(), 5000);
    EXPECT_EQ(next_write, static_cast<std::int64_t>(gold.size()));
    EXPECT_GT(pieces, 10);
    EXPECT_LE(relative_error(streamed, gold), tolerance<TypeParam>()) << name(mode);
  }
}

TEST(FftconvGpu, PlansAreMadeOnceAndReused) {
  PARASOL_REQUIRE_GPU();
  Problem p;
  p.signal = {1, 5000};
  p.filter = {1, 100};
  const auto signal = random_values<float>(p.signal.size(), 1);
  const auto filter = random_values<float>(p.filter.size(), 2);
  Convolver<float> convolver;
  run(convolver, p, Variant::r2c, signal, filter);
  const std::size_t plans = convolver.cached_plans();
  EXPECT_GT(plans, 0u);
  for (int i = 0; i < 3; ++i) run(convolver, p, Variant::r2c, signal, filter);
  EXPECT_EQ(convolver.cached_plans(), plans);
}

TEST(FftconvGpu, AutoRunsWhatChooseVariantPicks) {
  PARASOL_REQUIRE_GPU();
  for (std::int64_t k : {5, 200, 2000}) {
    Problem p;
    p.signal = {1, 50000};
    p.filter = {1, k};
    const auto signal = random_values<float>(p.signal.size(), 3);
    const auto filter = random_values<float>(p.filter.size(), 4);
    DeviceBuffer<float> x = upload(signal), h = upload(filter);
    DeviceBuffer<float> y(static_cast<std::size_t>(output_extent(p).size()));
    fill_bytes(y, 0xFF);
    Convolver<float> convolver;
    const Variant ran = convolver.convolve(p, Options{}, x.data(), h.data(), y.data(), nullptr);
    EXPECT_EQ(ran, choose_variant(p, 4));
    EXPECT_LE(relative_error(download(y), convolve_gold(p, signal, filter)), 2e-5);
  }
}

TEST(FftconvGpu, BadProblemsAreInputErrors) {
  PARASOL_REQUIRE_GPU();
  DeviceBuffer<float> buffer(1024);
  Convolver<float> convolver;
  const auto attempt = [&](const Problem& p, Variant v) {
    Options o;
    o.variant = v;
    convolver.convolve(p, o, buffer.data(), buffer.data(), buffer.data(), nullptr);
  };
  Problem empty;
  empty.signal = {1, 0};
  EXPECT_THROW(attempt(empty, Variant::r2c), InputError);
  Problem mismatched;
  mismatched.batch = 3;
  mismatched.filters = 2;
  mismatched.signal = {1, 10};
  EXPECT_THROW(attempt(mismatched, Variant::direct), InputError);
  Problem image;
  image.signal = {8, 8};
  image.filter = {3, 3};
  EXPECT_THROW(attempt(image, Variant::overlap_save), InputError);
  Problem short_block;
  short_block.signal = {1, 100};
  short_block.filter = {1, 50};
  Options o;
  o.variant = Variant::overlap_save;
  o.block = 32;
  EXPECT_THROW(convolver.convolve(short_block, o, buffer.data(), buffer.data(), buffer.data(),
                                  nullptr),
               InputError);
}

}  // namespace
}  // namespace parasol::fftconv
