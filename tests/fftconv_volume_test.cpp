// fftconv on volumes: the shapes of scipy's modes in three axes, the gold against a naive
// reference (every product of signal and filter added into the full volume, then cut to the
// mode) on integer data, where both are exact, slabs of the gold against the whole, the chunk
// depth against the memory budget; on a device, direct and r2c (whole and in chunks along z)
// against the gold in every mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/volume.hpp"
#include "tests/support.hpp"

namespace parasol::fftconv {
namespace {

VolumeProblem volume(Extent3 signal, Extent3 filter, Mode mode,
                     Operation operation = Operation::convolve) {
  VolumeProblem p;
  p.signal = signal;
  p.filter = filter;
  p.mode = mode;
  p.operation = operation;
  return p;
}

// Small integers: every product and sum is exact in double, whatever the order.
std::vector<double> integers(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-9, 9);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

using test::random_values;

// The definition, the other way round from the gold: each signal sample times each tap, added
// at their index sum in the full volume; correlation reverses the filter first; the mode's window
// cut from the full volume by scipy's rule per axis.
std::vector<double> naive(const VolumeProblem& p, const std::vector<double>& x,
                          const std::vector<double>& h) {
  const Extent3 n = p.signal, k = p.filter;
  const Extent3 full{n.depth + k.depth - 1, n.rows + k.rows - 1, n.cols + k.cols - 1};
  std::vector<double> y(static_cast<std::size_t>(full.size()), 0.0);
  const bool reverse = p.operation == Operation::correlate;
  for (std::int64_t a = 0; a < n.depth; ++a)
    for (std::int64_t b = 0; b < n.rows; ++b)
      for (std::int64_t c = 0; c < n.cols; ++c)
        for (std::int64_t d = 0; d < k.depth; ++d)
          for (std::int64_t e = 0; e < k.rows; ++e)
            for (std::int64_t f = 0; f < k.cols; ++f) {
              const std::int64_t hd = reverse ? k.depth - 1 - d : d;
              const std::int64_t he = reverse ? k.rows - 1 - e : e;
              const std::int64_t hf = reverse ? k.cols - 1 - f : f;
              y[static_cast<std::size_t>(((a + d) * full.rows + b + e) * full.cols + c + f)] +=
                  x[static_cast<std::size_t>((a * n.rows + b) * n.cols + c)] *
                  h[static_cast<std::size_t>((hd * k.rows + he) * k.cols + hf)];
            }
  // scipy's windows: full from 0; same centred, from (k - 1) / 2; valid from min(n, k) - 1.
  const auto window = [&](std::int64_t nn, std::int64_t kk) -> std::pair<std::int64_t,
                                                                          std::int64_t> {
    switch (p.mode) {
      case Mode::full: return {0, nn + kk - 1};
      case Mode::same: return {(kk - 1) / 2, nn};
      case Mode::valid: return {std::min(nn, kk) - 1, std::max(nn, kk) - std::min(nn, kk) + 1};
    }
    return {0, 0};
  };
  const auto [z0, zn] = window(n.depth, k.depth);
  const auto [y0, yn] = window(n.rows, k.rows);
  const auto [x0, xn] = window(n.cols, k.cols);
  std::vector<double> out;
  for (std::int64_t z = 0; z < zn; ++z)
    for (std::int64_t i = 0; i < yn; ++i)
      for (std::int64_t j = 0; j < xn; ++j)
        out.push_back(y[static_cast<std::size_t>(((z0 + z) * full.rows + y0 + i) * full.cols +
                                                 x0 + j)]);
  return out;
}

// Signal and filter extents: one sample, primes, odd and even, a filter longer than the signal
// in one axis, a filter larger in every axis (valid mode then keeps the filter's side).
const std::pair<Extent3, Extent3> kSizes[] = {
    {{1, 1, 1}, {1, 1, 1}}, {{7, 5, 3}, {2, 3, 5}},  {{5, 7, 11}, {3, 3, 3}},
    {{2, 3, 2}, {3, 5, 4}}, {{13, 2, 6}, {4, 1, 2}}, {{4, 4, 4}, {4, 4, 4}}};

// scipy's valid mode needs one operand at least as large as the other in every axis.
bool takes(Mode mode, const Extent3& n, const Extent3& k) {
  if (mode != Mode::valid) return true;
  return (n.depth >= k.depth && n.rows >= k.rows && n.cols >= k.cols) ||
         (k.depth >= n.depth && k.rows >= n.rows && k.cols >= n.cols);
}

TEST(FftconvVolume, ShapesFollowScipyInEveryAxis) {
  const VolumeProblem p = volume({7, 5, 6}, {3, 2, 5}, Mode::full);
  EXPECT_EQ(output_extent(p), (Extent3{9, 6, 10}));
  EXPECT_EQ(output_offset(p), (Extent3{0, 0, 0}));
  VolumeProblem same = p;
  same.mode = Mode::same;
  EXPECT_EQ(output_extent(same), (Extent3{7, 5, 6}));
  EXPECT_EQ(output_offset(same), (Extent3{1, 0, 2}));
  VolumeProblem valid = p;
  valid.mode = Mode::valid;
  EXPECT_EQ(output_extent(valid), (Extent3{5, 4, 2}));
  EXPECT_EQ(output_offset(valid), (Extent3{2, 1, 4}));
  try {
    check_problem(volume({7, 5, 3}, {3, 2, 5}, Mode::valid));
    ADD_FAILURE() << "valid accepted a filter longer in one axis only";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "mode");
  }
  EXPECT_THROW(check_problem(volume({0, 5, 3}, {1, 1, 1}, Mode::full)), InputError);
  EXPECT_THROW(check_problem(volume({2, 5, 3}, {1, 0, 1}, Mode::full)), InputError);
}

TEST(FftconvVolume, GoldIsTheNaiveSumExactlyInEveryMode) {
  std::uint64_t seed = 1;
  for (const auto& [signal, filter] : kSizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        if (!takes(mode, signal, filter)) continue;
        const VolumeProblem p = volume(signal, filter, mode, op);
        const auto x = integers(signal.size(), seed++), h = integers(filter.size(), seed++);
        const std::vector<double> gold = convolve_gold(p, x, h);
        EXPECT_EQ(static_cast<std::int64_t>(gold.size()), output_extent(p).size());
        EXPECT_EQ(gold, naive(p, x, h)) << name(mode) << " " << name(op);
      }
}

TEST(FftconvVolume, GoldOfAUnitImpulseShiftsTheSignal) {
  const VolumeProblem p = volume({3, 4, 5}, {2, 3, 2}, Mode::full);
  const auto x = integers(p.signal.size(), 7);
  std::vector<double> h(static_cast<std::size_t>(p.filter.size()), 0.0);
  h[static_cast<std::size_t>((1 * 3 + 2) * 2 + 1)] = 1.0;  // the tap at (1, 2, 1)
  const std::vector<double> y = convolve_gold(p, x, h);
  const Extent3 out = output_extent(p);
  for (std::int64_t z = 0; z < out.depth; ++z)
    for (std::int64_t i = 0; i < out.rows; ++i)
      for (std::int64_t j = 0; j < out.cols; ++j) {
        const std::int64_t a = z - 1, b = i - 2, c = j - 1;
        const bool inside = a >= 0 && a < 3 && b >= 0 && b < 4 && c >= 0 && c < 5;
        const double want = inside ? x[static_cast<std::size_t>((a * 4 + b) * 5 + c)] : 0.0;
        EXPECT_EQ(y[static_cast<std::size_t>((z * out.rows + i) * out.cols + j)], want)
            << z << " " << i << " " << j;
      }
}

TEST(FftconvVolume, GoldSlabsPutTogetherAreTheWholeBitForBit) {
  const auto x = random_values<float>(11 * 6 * 7, 3), h = random_values<float>(3 * 4 * 2, 4);
  for (Mode mode : kModes) {
    const VolumeProblem p = volume({11, 6, 7}, {3, 4, 2}, mode, Operation::correlate);
    const std::vector<double> whole = convolve_gold(p, x, h);
    const Extent3 out = output_extent(p);
    std::vector<double> slabs;
    for (std::int64_t z0 = 0; z0 < out.depth; z0 += 4) {
      const std::vector<double> slab =
          convolve_gold(p, x, h, z0, std::min<std::int64_t>(4, out.depth - z0));
      slabs.insert(slabs.end(), slab.begin(), slab.end());
    }
    EXPECT_EQ(slabs, whole) << name(mode);
  }
  EXPECT_THROW(convolve_gold(volume({3, 3, 3}, {1, 1, 1}, Mode::full), x, h), InputError);
}

TEST(FftconvVolume, ChunkDepthIsTheMostSlicesTheBudgetHolds) {
  const VolumeProblem p = volume({64, 48, 40}, {9, 9, 9}, Mode::same);
  const std::int64_t depth = output_extent(p).depth;
  EXPECT_EQ(volume_chunk_depth(p, 4, volume_chunk_bytes(p, 4, depth)), depth);
  EXPECT_EQ(volume_chunk_depth(p, 4, std::size_t{1} << 40), depth);
  for (const std::int64_t want : {1, 5, 17, 40}) {
    const std::size_t budget = volume_chunk_bytes(p, 4, want);
    const std::int64_t slices = volume_chunk_depth(p, 4, budget);
    EXPECT_GE(slices, want);
    EXPECT_LE(volume_chunk_bytes(p, 4, slices), budget);
    if (slices < depth) {
      EXPECT_GT(volume_chunk_bytes(p, 4, slices + 1), budget);
    }
  }
  EXPECT_GT(volume_chunk_bytes(p, 8, 10), volume_chunk_bytes(p, 4, 10));
  try {
    volume_chunk_depth(p, 4, volume_chunk_bytes(p, 4, 1) - 1);
    ADD_FAILURE() << "a budget below one slice was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "memory");
  }
  // A chunk transforms its slices and the filter's depth less one more, at a fast length.
  EXPECT_EQ(volume_transform_extent(p, 10).depth, good_fft_length(10 + 8));
}

TEST(FftconvVolume, VariantsAndTheChoice) {
  EXPECT_TRUE(supports_volume(Variant::direct));
  EXPECT_TRUE(supports_volume(Variant::r2c));
  EXPECT_TRUE(supports_volume(Variant::automatic));
  EXPECT_FALSE(supports_volume(Variant::c2c));
  EXPECT_FALSE(supports_volume(Variant::overlap_save));
  EXPECT_FALSE(supports_volume(Variant::fused));
  EXPECT_EQ(choose_volume_variant(volume({512, 512, 512}, {9, 9, 9}, Mode::same), 4),
            Variant::r2c);
  EXPECT_EQ(choose_volume_variant(volume({512, 512, 512}, {3, 3, 3}, Mode::same), 4),
            Variant::direct);
}

// ---------------------------------------------------------------------------------------------
// On a device.

template <class T>
class FftconvVolumeGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FftconvVolumeGpu, Precisions);

TYPED_TEST(FftconvVolumeGpu, EveryVariantMatchesTheGoldInEveryMode) {
  PARASOL_REQUIRE_GPU();
  constexpr int kBytes = static_cast<int>(sizeof(TypeParam));
  std::uint64_t seed = 10;
  for (const auto& [signal, filter] : kSizes)
    for (Mode mode : kModes)
      for (Operation op : {Operation::convolve, Operation::correlate}) {
        if (!takes(mode, signal, filter)) continue;
        const VolumeProblem p = volume(signal, filter, mode, op);
        const auto x = random_values<TypeParam>(signal.size(), seed++);
        const auto h = random_values<TypeParam>(filter.size(), seed++);
        const std::vector<double> gold = convolve_gold(p, x, h);
        for (Variant v : {Variant::direct, Variant::r2c, Variant::automatic}) {
          Variant ran = Variant::automatic;
          const auto y = convolve_volume_gpu(p, VolumeOptions{v, 0}, x, h, &ran);
          EXPECT_EQ(ran, v == Variant::automatic ? choose_volume_variant(p, kBytes) : v);
          const Agreement a = agreement(y, gold, p);
          EXPECT_LE(a.value, a.tolerance) << name(v) << " " << name(mode) << " " << name(op)
                                          << ": " << a.description;
        }
      }
}

TYPED_TEST(FftconvVolumeGpu, ChunksAlongZAgreeWithTheWholeVolume) {
  PARASOL_REQUIRE_GPU();
  constexpr int kBytes = static_cast<int>(sizeof(TypeParam));
  for (Mode mode : kModes) {
    const VolumeProblem p = volume({37, 20, 23}, {5, 3, 4}, mode, Operation::correlate);
    const auto x = random_values<TypeParam>(p.signal.size(), 31);
    const auto h = random_values<TypeParam>(p.filter.size(), 32);
    const std::vector<double> gold = convolve_gold(p, x, h);
    std::int64_t chunks = 0;
    const auto whole = convolve_volume_gpu(p, VolumeOptions{Variant::r2c, 0}, x, h, nullptr,
                                           &chunks);
    EXPECT_EQ(chunks, 1);
    for (const std::int64_t slices : {1, 3, 8}) {
      const std::size_t budget = volume_chunk_bytes(p, kBytes, slices);
      const auto chunked =
          convolve_volume_gpu(p, VolumeOptions{Variant::r2c, budget}, x, h, nullptr, &chunks);
      const std::int64_t depth = volume_chunk_depth(p, kBytes, budget);
      EXPECT_EQ(chunks, (output_extent(p).depth + depth - 1) / depth);
      EXPECT_GT(chunks, 1) << slices;
      const Agreement a = agreement(chunked, gold, p);
      EXPECT_LE(a.value, a.tolerance) << name(mode) << " " << slices << ": " << a.description;
      const Agreement b = agreement(whole, gold, p);
      EXPECT_LE(b.value, b.tolerance) << name(mode) << ": " << b.description;
    }
  }
}

// A kept filter spectrum is computed once and reused while the filter, its extent, the
// operation and the transform extent stay the same, giving the same bits; another filter buffer
// or the other operation computes it again, and each result agrees with its gold. Without
// keeping, every call computes it.
TYPED_TEST(FftconvVolumeGpu, KeptFilterSpectraAreComputedOncePerFilter) {
  PARASOL_REQUIRE_GPU();
  const VolumeProblem p = volume({21, 18, 33}, {4, 5, 3}, Mode::same);
  const auto x = random_values<TypeParam>(p.signal.size(), 41);
  const auto h1 = random_values<TypeParam>(p.filter.size(), 42);
  const auto h2 = random_values<TypeParam>(p.filter.size(), 43);
  DeviceBuffer<TypeParam> dx(x.size()), dh1(h1.size()), dh2(h2.size()),
      dy(static_cast<std::size_t>(output_extent(p).size()));
  upload(dx, x, nullptr);
  upload(dh1, h1, nullptr);
  upload(dh2, h2, nullptr);
  const auto run = [&](VolumeConvolver<TypeParam>& c, const VolumeProblem& q,
                       const DeviceBuffer<TypeParam>& h) {
    fill_bytes(dy, 0xFF);
    c.convolve(q, VolumeOptions{Variant::r2c, 0}, dx.data(), h.data(), dy.data(), nullptr);
    return download(dy, nullptr);
  };
  const auto expect_gold = [&](const std::vector<TypeParam>& y, const VolumeProblem& q,
                               const std::vector<TypeParam>& h, const char* what) {
    const Agreement a = agreement(y, convolve_gold(q, x, h), q);
    EXPECT_LE(a.value, a.tolerance) << what << ": " << a.description;
  };
  VolumeConvolver<TypeParam> kept;
  kept.keep_filter_spectra();
  const std::vector<TypeParam> first = run(kept, p, dh1);
  expect_gold(first, p, h1, "first");
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run(kept, p, dh1), first) << "repeat " << i;
  EXPECT_EQ(kept.spectra_computed(), 1);
  expect_gold(run(kept, p, dh2), p, h2, "another filter");
  EXPECT_EQ(kept.spectra_computed(), 2);
  VolumeProblem correlate = p;
  correlate.operation = Operation::correlate;
  expect_gold(run(kept, correlate, dh2), correlate, h2, "correlation");
  EXPECT_EQ(kept.spectra_computed(), 3);
  VolumeConvolver<TypeParam> fresh;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run(fresh, p, dh1), first);
  EXPECT_EQ(fresh.spectra_computed(), 2);
}

TEST(FftconvVolumeGpu, VariantsVolumesDoNotTakeAreInputErrors) {
  PARASOL_REQUIRE_GPU();
  const VolumeProblem p = volume({4, 4, 4}, {2, 2, 2}, Mode::full);
  const std::vector<float> x(64, 1.0f), h(8, 1.0f);
  for (Variant v : {Variant::c2c, Variant::overlap_save, Variant::fused})
    EXPECT_THROW(convolve_volume_gpu(p, VolumeOptions{v, 0}, x, h), InputError) << name(v);
  EXPECT_THROW(convolve_volume_gpu(p, VolumeOptions{Variant::r2c, 0}, x, std::vector<float>(7)),
               InputError);
}

}  // namespace
}  // namespace parasol::fftconv
