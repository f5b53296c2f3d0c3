// The GPU recurrence solver against the gold: one series of awkward lengths, up to 10^8; many
// segments, empty and of one element among them; both scan modes; the reproducible mode's bits;
// outputs poisoned with NaN first, in place and out of place; the DeviceSeries a sweep times; the
// reproducible scan in runs cut on tile boundaries, as ranks run it; and every compiled scan tile
// (kernels/scan.hpp: ScanTile), the recurrence's and the float sum's, against the gold and the
// reproducible bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/scan.hpp"
#include "kernels/stream.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"
#include "tests/support.hpp"

namespace parasol::recurrence {
namespace {

constexpr ScanMode kModes[] = {ScanMode::fast, ScanMode::reproducible};

// s, u and the initial values uniform in (-1, 1); segment k has lengths[k] elements.
template <class T>
Series<T> random_series(const std::vector<std::int64_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto draw = [&] {
    return static_cast<T>(2.0 * ((static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53) - 1.0);
  };
  Series<T> series;
  series.offsets.push_back(0);
  for (const std::int64_t length : lengths) {
    series.offsets.push_back(series.offsets.back() + length);
    series.initial.push_back(draw());
  }
  const auto n = static_cast<std::size_t>(series.offsets.back());
  series.s.resize(n);
  series.u.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    series.s[i] = draw();
    series.u[i] = draw();
  }
  return series;
}

// Every element within the one tolerance (check.hpp) of the gold, relative to the magnitude
// scale; the worst is reported when one is not.
template <class T>
void expect_matches_gold(const std::vector<T>& v, const Series<T>& series) {
  ASSERT_EQ(v.size(), series.s.size());
  const std::vector<double> gold = solve_gold(series);
  const std::vector<double> scale = magnitude_scale(series);
  const Agreement a = agreement(v, gold, scale, tile_chain(series, kTileElements<T>));
  EXPECT_TRUE(a.passed()) << a.description << "; tolerance " << a.tolerance;
  if (a.passed()) return;
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double error = std::abs(static_cast<double>(v[i]) - gold[i]) / scale[i];
    if (!(error <= worst)) {  // NaN counts as the worst
      worst = error;
      at = i;
      if (std::isnan(error)) break;
    }
  }
  ADD_FAILURE() << "worst at element " << at << " of " << v.size() << ": got " << v[at]
                << ", gold " << gold[at] << ", scale " << scale[at];
}

// A spread of elements, the first and last among them, each against the gold: when the maximum
// below fails, these say whether the error is everywhere or in one place.
template <class T>
void expect_samples_match_gold(const std::vector<T>& v, const std::vector<double>& gold,
                               const std::vector<double>& scale, double chain) {
  const std::size_t n = v.size();
  const double bound = tolerance<T>(chain);
  for (const std::size_t i : {std::size_t{0}, std::size_t{1}, n / 3, n / 2, n - 2, n - 1})
    EXPECT_LE(std::abs(static_cast<double>(v[i]) - gold[i]), bound * scale[i])
        << "element " << i << ": got " << v[i] << ", gold " << gold[i];
}

std::vector<std::int64_t> many_small_segments(std::int64_t count, std::int64_t longest,
                                              std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(count));
  for (std::int64_t& length : lengths)
    length = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(longest + 1));
  return lengths;
}

// Copies on the solver's stream, which does not wait for the legacy default stream (and a plain
// cudaMemcpy from pageable memory may return before its data has reached the device).
template <class T>
void upload_on(const Stream& stream, DeviceBuffer<T>& to, const std::vector<T>& from) {
  if (!from.empty())
    PARASOL_CUDA(cudaMemcpyAsync(to.data(), from.data(), to.bytes(), cudaMemcpyHostToDevice,
                                 stream));
  stream.synchronize();
}

template <class T>
void download_on(const Stream& stream, std::vector<T>& to, const DeviceBuffer<T>& from) {
  if (!to.empty())
    PARASOL_CUDA(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToHost,
                                 stream));
  stream.synchronize();
}

std::string case_name(ScanMode mode, std::int64_t n) {
  return std::string(name(mode)) + ", n " + std::to_string(n) + ", seed " +
         std::to_string(test::kSeed);
}

template <class T>
class RecurrenceGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RecurrenceGpu, Precisions);

TYPED_TEST(RecurrenceGpu, OneSeriesMatchesTheGoldAtAwkwardLengths) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(2), std::int64_t(4095),
                               std::int64_t(4096), std::int64_t(4097), (std::int64_t(1) << 20) + 1})
    for (const ScanMode mode : kModes) {
      SCOPED_TRACE(case_name(mode, n));
      const Series<T> series = random_series<T>({n}, test::kSeed + static_cast<std::uint64_t>(n));
      const Result<T> result = solve_gpu(series, mode);
      expect_matches_gold(result.v, series);
      EXPECT_GE(result.timings.seconds(phase::compute), 0.0);
    }
}

TYPED_TEST(RecurrenceGpu, EmptyAndOneElementSegmentsMatchTheGold) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  // Empty segments first, last and between; one-element segments; segments across the likely
  // tile sizes.
  const std::vector<std::int64_t> lengths{0, 0, 1, 0, 1, 1, 5, 0, 4095, 1, 4097, 0, 8193, 2, 1, 0};
  const Series<T> series = random_series<T>(lengths, test::kSeed);
  for (const ScanMode mode : kModes) {
    SCOPED_TRACE(case_name(mode, series.size()));
    expect_matches_gold(solve_gpu(series, mode).v, series);
  }
}

TYPED_TEST(RecurrenceGpu, ManySmallSegmentsMatchTheGold) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  // 10^5 segments of 0 to 50 elements: most tiles hold many segment starts, some none.
  const Series<T> series =
      random_series<T>(many_small_segments(100000, 50, test::kSeed), test::kSeed + 1);
  for (const ScanMode mode : kModes) {
    SCOPED_TRACE(case_name(mode, series.size()));
    expect_matches_gold(solve_gpu(series, mode).v, series);
  }
}

// The solver on series already on the device: outputs filled with NaN bytes first, so an element
// never written fails; then in place (v over u), which the API allows.
TYPED_TEST(RecurrenceGpu, SolverWritesEveryElementInAndOutOfPlace) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<std::int64_t> lengths = many_small_segments(3000, 40, test::kSeed);
  lengths.insert(lengths.begin() + 1000, (std::int64_t(1) << 18) + 7);  // a long one among them
  const Series<T> series = random_series<T>(lengths, test::kSeed + 2);
  const auto n = static_cast<std::size_t>(series.size());
  Stream stream;
  DeviceBuffer<T> s(n), u(n), v(n), initial(series.initial.size());
  DeviceBuffer<std::int64_t> offsets(series.offsets.size());
  const auto upload = [&](auto& to, const auto& from) { upload_on(stream, to, from); };
  const auto download = [&](const DeviceBuffer<T>& from) {
    std::vector<T> to(n);
    download_on(stream, to, from);
    return to;
  };
  upload(s, series.s);
  upload(offsets, series.offsets);
  upload(initial, series.initial);
  for (const ScanMode mode : kModes) {
    SCOPED_TRACE(case_name(mode, series.size()));
    Solver<T> solver(mode);
    EXPECT_EQ(solver.mode(), mode);
    upload(u, series.u);
    fill_bytes(v, 0xFF, stream);
    solver.solve(s.data(), u.data(), offsets.data(), initial.data(), series.size(),
                 series.segments(), v.data(), stream);
    stream.synchronize();
    expect_matches_gold(download(v), series);
    EXPECT_EQ(download(u), series.u) << "out of place, u must be left as it was";

    solver.solve(s.data(), u.data(), offsets.data(), initial.data(), series.size(),
                 series.segments(), u.data(), stream);
    stream.synchronize();
    SCOPED_TRACE("in place");
    expect_matches_gold(download(u), series);
  }
}

// One solver, one workspace, series of different sizes one after another.
TYPED_TEST(RecurrenceGpu, OneSolverServesSeriesOfEverySize) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  Stream stream;
  for (const ScanMode mode : kModes) {
    Solver<T> solver(mode);
    for (const std::int64_t n : {std::int64_t(1) << 20, std::int64_t(17), std::int64_t(100003),
                                 std::int64_t(1), std::int64_t(1) << 20}) {
      SCOPED_TRACE(case_name(mode, n));
      const Series<T> series = random_series<T>({n / 2, 0, n - n / 2}, test::kSeed + n);
      DeviceBuffer<T> s(series.s.size()), u(series.u.size()), v(series.s.size());
      DeviceBuffer<T> initial(series.initial.size());
      DeviceBuffer<std::int64_t> offsets(series.offsets.size());
      upload_on(stream, s, series.s);
      upload_on(stream, u, series.u);
      upload_on(stream, initial, series.initial);
      upload_on(stream, offsets, series.offsets);
      fill_bytes(v, 0xFF, stream);
      solver.solve(s.data(), u.data(), offsets.data(), initial.data(), series.size(),
                   series.segments(), v.data(), stream);
      stream.synchronize();
      std::vector<T> got(series.s.size());
      download_on(stream, got, v);
      expect_matches_gold(got, series);
    }
  }
}

// The handle the sweep times: uploaded once, solved in both modes one after another, v read back
// whole; the reproducible mode gives the same bits again, and the series is left as it was.
TYPED_TEST(RecurrenceGpu, DeviceSeriesSolvesRepeatedlyInEitherMode) {
  PARASOL_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<std::int64_t> lengths = many_small_segments(2000, 40, test::kSeed);
  lengths.push_back((std::int64_t(1) << 17) + 3);
  const Series<T> series = random_series<T>(lengths, test::kSeed + 4);
  Stream stream;
  DeviceSeries<T> device(series, stream);
  EXPECT_EQ(device.size(), series.size());
  EXPECT_EQ(device.segments(), series.segments());
  std::vector<T> reproducible;
  for (const ScanMode mode : {ScanMode::fast, ScanMode::reproducible, ScanMode::fast,
                              ScanMode::reproducible}) {
    SCOPED_TRACE(case_name(mode, series.size()));
    device.poison();
    device.solve(mode);
    const std::vector<T> v = device.download();
    expect_matches_gold(v, series);
    if (mode != ScanMode::reproducible) continue;
    if (reproducible.empty()) {
      reproducible = v;
    } else {
      EXPECT_EQ(std::memcmp(v.data(), reproducible.data(), v.size() * sizeof(T)), 0);
    }
  }
  for (int r = 0; r < 3; ++r) device.solve(ScanMode::fast);  // as timed: nothing between
  expect_matches_gold(device.download(), series);
}

TEST(RecurrenceGpuDeviceSeries, RefusesABadSeries) {
  PARASOL_REQUIRE_GPU();
  Series<float> series = random_series<float>({3, 4}, test::kSeed);
  series.offsets.back() = 6;  // the series has 7 elements
  Stream stream;
  EXPECT_THROW(DeviceSeries<float>(series, stream), InputError);
}

TEST(RecurrenceGpuReproducible, SameBitsEveryRun) {
  PARASOL_REQUIRE_GPU();
  // One long series and many short ones: both the look-back and the segment flags in play.
  std::vector<std::int64_t> lengths = many_small_segments(20000, 50, test::kSeed);
  lengths.push_back((std::int64_t(1) << 22) + 1);
  const Series<float> series = random_series<float>(lengths, test::kSeed + 3);
  const std::vector<float> first = solve_gpu(series, ScanMode::reproducible).v;
  expect_matches_gold(first, series);
  for (int run = 1; run < 5; ++run) {
    const std::vector<float> again = solve_gpu(series, ScanMode::reproducible).v;
    ASSERT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0)
        << "run " << run << " differs from run 0";
  }
}

// What a reproducible run across ranks does, without the ranks: the series cut into runs on tile
// boundaries, every run's tile totals gathered in order, each run scanned from the prefixes of
// all of them. The runs together give the one-device scan's bits, whatever the number of runs,
// with segments crossing the cuts and runs that hold nothing.
template <class T>
void expect_runs_give_the_whole_bits(const Series<T>& series) {
  Stream stream;
  DeviceSeries<T> whole(series, stream);
  whole.solve(ScanMode::reproducible);
  const std::vector<T> expected = whole.download();
  for (const int runs : {1, 2, 3, 7, 40}) {
    std::vector<SeriesPart<T>> parts;
    std::vector<Map<T>> totals;
    for (int r = 0; r < runs; ++r) {
      parts.push_back(part_of(series, r, runs, Cut::tiles));
      if (parts.back().size() == 0) continue;
      DeviceSeries<T> device(parts.back().series, stream);
      const std::vector<Map<T>> mine = device.tile_totals(parts.back().continued);
      totals.insert(totals.end(), mine.begin(), mine.end());
    }
    std::vector<T> v;
    for (const SeriesPart<T>& part : parts) {
      if (part.size() == 0) continue;
      DeviceSeries<T> device(part.series, stream);
      device.solve_prefixed(totals, part.first / kTileElements<T>, part.continued);
      const std::vector<T> mine = device.download();
      v.insert(v.end(), mine.begin(), mine.end());
    }
    ASSERT_EQ(v.size(), expected.size());
    EXPECT_EQ(std::memcmp(v.data(), expected.data(), v.size() * sizeof(T)), 0)
        << runs << " runs differ from one";
  }
}

TEST(RecurrenceGpuReproducible, RunsCutOnTilesGiveTheWholeSeriesBits) {
  PARASOL_REQUIRE_GPU();
  // One long segment and many short ones, with segments across the cuts.
  std::vector<std::int64_t> lengths{100003};
  const std::vector<std::int64_t> small = many_small_segments(3000, 50, test::kSeed);
  lengths.insert(lengths.end(), small.begin(), small.end());
  expect_runs_give_the_whole_bits(random_series<float>(lengths, test::kSeed + 5));
  expect_runs_give_the_whole_bits(random_series<double>(lengths, test::kSeed + 6));
  expect_runs_give_the_whole_bits(random_series<float>({1}, test::kSeed + 7));
}

// 10^8 elements in float: four times the largest power of two above, so tile ids and the
// look-back run long. Every element is compared (the gold must run through them all anyway).
TEST(RecurrenceGpuLong, HundredMillionFloatsMatchTheGold) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = 100000000;
  const Series<float> series = random_series<float>({n}, test::kSeed);
  const std::vector<double> gold = solve_gold(series);
  const std::vector<double> scale = magnitude_scale(series);
  const double chain = tile_chain(series, kTileElements<float>);
  for (const ScanMode mode : kModes) {
    SCOPED_TRACE(case_name(mode, n));
    const Result<float> result = solve_gpu(series, mode);
    ASSERT_EQ(result.v.size(), static_cast<std::size_t>(n));
    expect_samples_match_gold(result.v, gold, scale, chain);
    const Agreement a = agreement(result.v, gold, scale, chain);
    EXPECT_TRUE(a.passed()) << a.description << "; tolerance " << a.tolerance;
  }
}

// AR(1) series drawn on the device (draw_ar1_gpu) are the host's (ar1_series) bit for bit: the
// one ar1_pair on both sides, with kernels/portable_math.hpp's log, sin and cos. Float and double,
// several seeds, a fixed and a time-varying coefficient, series of odd lengths (a pair cut by a
// series' end), and runs that start and end mid-series and on an odd step (a rank's run). The
// device buffers are filled with NaN first, so an element the kernel never writes cannot pass.
template <class T>
void expect_device_draws_equal_host_draws() {
  struct Run {
    std::int64_t series, length, first, count;
  };
  const Run runs[] = {{1, 1, 0, 1},       {1, 7, 0, 7},         {3, 1001, 0, 3003},
                      {4, 999, 1500, 1997}, {6, 17, 51, 50},    {2, 65537, 65536, 65538},
                      {1, 1 << 20, 12345, (1 << 20) - 12345 - 777}};
  for (const bool varying : {false, true})
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{46}, ~std::uint64_t{0}})
      for (const Run& at : runs) {
        Ar1 a;
        a.series = at.series;
        a.length = at.length;
        a.phi = 0.9;
        a.time_varying = varying;
        a.phi_min = 0.3;
        a.phi_max = 0.99;
        a.sigma = 1.5;
        a.seed = seed;
        const Series<T> whole = ar1_series<T>(a);
        DeviceBuffer<T> s(static_cast<std::size_t>(at.count)), u(s.size());
        fill_bytes(s, 0xFF, nullptr);  // NaN
        fill_bytes(u, 0xFF, nullptr);
        draw_ar1_gpu(a, at.first, at.count, s.data(), u.data(), nullptr);
        const std::vector<T> device_s = download(s, nullptr), device_u = download(u, nullptr);
        std::int64_t differ = 0, first_differ = -1;
        for (std::int64_t i = 0; i < at.count; ++i) {
          const std::size_t w = static_cast<std::size_t>(at.first + i);
          if ((std::memcmp(&whole.s[w], &device_s[i], sizeof(T)) != 0 ||
               std::memcmp(&whole.u[w], &device_u[i], sizeof(T)) != 0) &&
              differ++ == 0)
            first_differ = i;
        }
        EXPECT_EQ(differ, 0) << (varying ? "time-varying" : "fixed") << ", seed " << seed << ", "
                             << at.series << " x " << at.length << ", elements [" << at.first
                             << ", " << at.first + at.count << "): first at " << first_differ;
      }
}

TEST(RecurrenceDraws, DeviceDrawsAreTheHostDrawsInFloat) {
  PARASOL_REQUIRE_GPU();
  expect_device_draws_equal_host_draws<float>();
}

TEST(RecurrenceDraws, DeviceDrawsAreTheHostDrawsInDouble) {
  PARASOL_REQUIRE_GPU();
  expect_device_draws_equal_host_draws<double>();
}

// A rank's run drawn on the device (DeviceSeries from ar1_run) solves to the bits of the same run
// drawn on the host and uploaded (ar1_part), in the reproducible mode; and solve_gpu of a drawn
// whole to those of the uploaded whole.
TEST(RecurrenceDraws, DrawnRunsSolveToTheUploadedRunsBits) {
  PARASOL_REQUIRE_GPU();
  Ar1 a;
  a.series = 3;
  a.length = 50001;
  a.phi = 0.95;
  a.seed = 5;
  for (int rank = 0; rank < 3; ++rank) {
    const SeriesPart<float> uploaded = ar1_part<float>(a, rank, 3, Cut::tiles);
    const SeriesPart<float> drawn = ar1_run<float>(a, rank, 3, Cut::tiles);
    EXPECT_TRUE(drawn.series.s.empty());
    EXPECT_EQ(drawn.series.offsets, uploaded.series.offsets);
    Stream stream;
    DeviceSeries<float> up(uploaded.series, stream.get());
    DeviceSeries<float> on(drawn.series, a, drawn.first, stream.get());
    ASSERT_EQ(up.size(), on.size());
    up.solve(ScanMode::reproducible);
    on.solve(ScanMode::reproducible);
    const std::vector<float> v_up = up.download(), v_on = on.download();
    EXPECT_EQ(std::memcmp(v_up.data(), v_on.data(), v_up.size() * sizeof(float)), 0)
        << "rank " << rank;
  }
  const Series<double> whole = ar1_series<double>(a);
  const Series<double> segments = ar1_segments<double>(a);
  const Result<double> uploaded = solve_gpu(whole, ScanMode::reproducible);
  const Result<double> drawn = solve_gpu(segments, ScanMode::reproducible, &a);
  ASSERT_EQ(uploaded.v.size(), drawn.v.size());
  EXPECT_EQ(std::memcmp(uploaded.v.data(), drawn.v.data(), drawn.v.size() * sizeof(double)), 0);
}

// The tile tables, on the host: what the benchmark rows and the tests below iterate over.
TEST(RecurrenceTiles, ShippedTilesAreCompiledAndTheReproducibleOnesFollowTheDocumentedOrder) {
  for (const MemoryClass memory : {MemoryClass::below_4tbs, MemoryClass::from_4tbs}) {
    SCOPED_TRACE(std::string(name(memory)));
    for (const ScanMode mode : kModes) {
      const auto has = [](const std::vector<ScanTile>& list, const ScanTile& t) {
        return std::find(list.begin(), list.end(), t) != list.end();
      };
      EXPECT_TRUE(has(scan_tiles<float>(mode), default_tile<float>(mode, memory)));
      EXPECT_TRUE(has(scan_tiles<double>(mode), default_tile<double>(mode, memory)));
      EXPECT_TRUE(has(sum_scan_tiles<float>(mode), default_sum_tile<float>(mode, memory)));
      EXPECT_TRUE(has(sum_scan_tiles<double>(mode), default_sum_tile<double>(mode, memory)));
      EXPECT_TRUE(has(sum_scan_tiles<int>(mode), default_sum_tile<int>(mode, memory)));
    }
  }
  // Below 4 TB/s as shipped before the candidates: 256 x 16 floats (8 doubles), the float
  // recurrence's fast scan held to four blocks a multiprocessor. From 4 TB/s the H200's picks.
  EXPECT_EQ(to_string(default_tile<float>(ScanMode::fast, MemoryClass::below_4tbs)), "256x16-min4");
  EXPECT_EQ(to_string(default_sum_tile<float>(ScanMode::fast, MemoryClass::below_4tbs)), "256x16");
  EXPECT_EQ(to_string(default_tile<float>(ScanMode::fast, MemoryClass::from_4tbs)), "512x16v-min2");
  EXPECT_EQ(to_string(default_tile<float>(ScanMode::reproducible, MemoryClass::from_4tbs)),
            "256x16v-min4");
  EXPECT_EQ(to_string(default_sum_tile<float>(ScanMode::fast, MemoryClass::from_4tbs)), "128x32v");
  EXPECT_EQ(to_string(ScanTile{}), "default");
  EXPECT_EQ(to_string(ScanTile{512, 16, true, 2}), "512x16v-min2");
  for (const ScanTile& t : scan_tiles<float>(ScanMode::reproducible))
    EXPECT_EQ(t.elements(), kTileElements<float>) << to_string(t);
  for (const ScanTile& t : scan_tiles<double>(ScanMode::reproducible))
    EXPECT_EQ(t.elements(), kTileElements<double>) << to_string(t);
  // check.hpp's tolerance counts tile boundaries of kTileElements: a fast tile's are among them.
  for (const ScanTile& t : scan_tiles<float>(ScanMode::fast))
    EXPECT_EQ(t.elements() % kTileElements<float>, 0) << to_string(t);
  for (const ScanTile& t : sum_scan_tiles<float>(ScanMode::reproducible))
    EXPECT_EQ(t.elements(), 4096) << to_string(t);
  EXPECT_GT(sum_scan_tiles<float>(ScanMode::fast).size(), 1u);
}

TEST(RecurrenceTiles, MemoryClassesSplitAtFourTerabytesPerSecond) {
  EXPECT_EQ(memory_class_of(3.35e12), MemoryClass::below_4tbs);  // H100 SXM
  EXPECT_EQ(memory_class_of(4.8e12), MemoryClass::from_4tbs);    // H200
  EXPECT_EQ(memory_class_of(2.0e12), MemoryClass::below_4tbs);
}

// 1, 31, a tile's elements less one and plus one, and 10^6 + 3: one element, less than a warp,
// each side of a tile's last element, and many tiles with a ragged end.
std::vector<std::int64_t> tile_lengths(const ScanTile& tile) {
  const auto t = static_cast<std::int64_t>(tile.elements());
  return {1, 31, t - 1, t + 1, 1000003};
}

// Every fast tile against the gold; every reproducible tile to the bits of the shipped
// reproducible tile (and so to the gold), on one series and on many segments, with inputs
// and output 16-byte aligned (the vector path) and not (one element in: the scalar path).
template <class T>
void expect_every_tile_agrees() {
  Stream stream;
  for (const ScanMode mode : kModes)
    for (const ScanTile& tile : scan_tiles<T>(mode))
      for (const std::int64_t n : tile_lengths(tile))
        for (const std::int64_t misalign : {0, 1}) {
          SCOPED_TRACE(case_name(mode, n) + ", tile " + to_string(tile) +
                       (misalign ? ", one element off 16-byte alignment" : ""));
          std::vector<std::int64_t> lengths{n};
          if (n > 1000) lengths = {n / 3, 1, 0, n - n / 3 - 1};
          const Series<T> series =
              random_series<T>(lengths, test::kSeed + static_cast<std::uint64_t>(n));
          const auto size = static_cast<std::size_t>(series.size());
          DeviceBuffer<T> s(size + 1), u(size + 1), v(size + 1), initial(series.initial.size());
          DeviceBuffer<std::int64_t> offsets(series.offsets.size());
          const auto put = [&](DeviceBuffer<T>& to, const std::vector<T>& from) {
            PARASOL_CUDA(cudaMemcpyAsync(to.data() + misalign, from.data(), size * sizeof(T),
                                         cudaMemcpyHostToDevice, stream));
          };
          put(s, series.s);
          put(u, series.u);
          upload_on(stream, initial, series.initial);
          upload_on(stream, offsets, series.offsets);
          const auto solve = [&](Solver<T>& solver) {
            fill_bytes(v, 0xFF, stream);
            solver.solve(s.data() + misalign, u.data() + misalign, offsets.data(),
                         initial.data(), series.size(), series.segments(), v.data() + misalign,
                         stream);
            std::vector<T> got(size);
            PARASOL_CUDA(cudaMemcpyAsync(got.data(), v.data() + misalign, size * sizeof(T),
                                         cudaMemcpyDeviceToHost, stream));
            stream.synchronize();
            return got;
          };
          Solver<T> candidate(mode, tile);
          const std::vector<T> got = solve(candidate);
          expect_matches_gold(got, series);
          if (mode != ScanMode::reproducible) continue;
          Solver<T> shipped(ScanMode::reproducible);
          const std::vector<T> expected = solve(shipped);
          EXPECT_EQ(std::memcmp(got.data(), expected.data(), size * sizeof(T)), 0)
              << "the reproducible bits depend on the tile";
        }
}

TEST(RecurrenceTilesGpu, EveryFloatTileMatchesTheGoldAndTheReproducibleBits) {
  PARASOL_REQUIRE_GPU();
  expect_every_tile_agrees<float>();
}

TEST(RecurrenceTilesGpu, EveryDoubleTileMatchesTheGoldAndTheReproducibleBits) {
  PARASOL_REQUIRE_GPU();
  expect_every_tile_agrees<double>();
}

// Each tile's main kernel fits on a multiprocessor, as many blocks as it asks for at least (its
// transposes' shared memory, dynamic past 40 KB, included).
TEST(RecurrenceTilesGpu, EveryTileHoldsTheBlocksItAsksFor) {
  PARASOL_REQUIRE_GPU();
  for (const ScanMode mode : kModes) {
    for (const ScanTile& tile : scan_tiles<float>(mode))
      EXPECT_GE(blocks_per_multiprocessor<float>(mode, tile), std::max(1, tile.min_blocks))
          << name(mode) << " " << to_string(tile);
    for (const ScanTile& tile : scan_tiles<double>(mode))
      EXPECT_GE(blocks_per_multiprocessor<double>(mode, tile), std::max(1, tile.min_blocks))
          << name(mode) << " " << to_string(tile);
    for (const ScanTile& tile : sum_scan_tiles<float>(mode))
      EXPECT_GE(sum_scan_blocks_per_multiprocessor<float>(mode, tile), std::max(1, tile.min_blocks))
          << name(mode) << " " << to_string(tile);
  }
}

TEST(RecurrenceTilesGpu, ATileNotCompiledInIsRefusedWithTheList) {
  PARASOL_REQUIRE_GPU();
  const Series<float> series = random_series<float>({100}, test::kSeed);
  Stream stream;
  DeviceSeries<float> device(series, stream);
  DeviceBuffer<float> v(100), initial(1);
  DeviceBuffer<std::int64_t> offsets(2);
  upload_on(stream, offsets, series.offsets);
  upload_on(stream, initial, series.initial);
  for (const ScanMode mode : kModes) {
    Solver<float> solver(mode, ScanTile{256, 20});
    try {
      solver.solve(device.s(), device.s(), offsets.data(), initial.data(), 100, 1, v.data(),
                   stream);
      ADD_FAILURE() << "tile 256x20 was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("256x20 is not compiled in"), std::string::npos) << what;
      EXPECT_NE(what.find(to_string(scan_tiles<float>(mode).front())), std::string::npos) << what;
    }
  }
  // The reproducible scan refuses a fast tile of another shape: its bits follow its own.
  ScanWorkspace ws;
  DeviceBuffer<float> x(5000), y(5000);
  fill_bytes(x, 0, stream);
  EXPECT_THROW(device_sum_scan(x.data(), y.data(), 5000, ScanKind::inclusive,
                               ScanMode::reproducible, ws, stream, ScanTile{256, 32}),
               InputError);
}

// The float sum's every tile, inclusive and exclusive, against a long-double scan within
// scan_test's round-off (64 ulps of the running sum of |x| for the trees inside a tile, plus the
// chain of tile prefixes, half an ulp a tile of 512 or more with a random sign); the reproducible
// tiles to the shipped one's bits.
TEST(RecurrenceTilesGpu, EveryFloatSumTileMatchesALongDoubleScan) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  ScanWorkspace ws;
  for (const ScanMode mode : kModes)
    for (const ScanTile& tile : sum_scan_tiles<float>(mode))
      for (const std::int64_t n : tile_lengths(tile))
        for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
          for (const std::int64_t misalign : {0, 1}) {
            SCOPED_TRACE(case_name(mode, n) + ", tile " + to_string(tile) +
                         (kind == ScanKind::exclusive ? ", exclusive" : ", inclusive") +
                         (misalign ? ", misaligned" : ""));
            std::mt19937_64 rng(test::kSeed + static_cast<std::uint64_t>(n));
            std::vector<float> x(static_cast<std::size_t>(n));
            for (float& e : x)
              e = static_cast<float>(-0.25 + 1.25 * (static_cast<double>(rng() >> 11) * 0x1.0p-53));
            DeviceBuffer<float> in(x.size() + 1), out(x.size() + 1);
            PARASOL_CUDA(cudaMemcpyAsync(in.data() + misalign, x.data(), x.size() * sizeof(float),
                                         cudaMemcpyHostToDevice, stream));
            const auto run = [&](const ScanTile& t) {
              fill_bytes(out, 0xFF, stream);
              device_sum_scan(in.data() + misalign, out.data() + misalign, n, kind, mode, ws,
                              stream, t);
              std::vector<float> got(x.size());
              PARASOL_CUDA(cudaMemcpyAsync(got.data(), out.data() + misalign,
                                           got.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                           stream));
              stream.synchronize();
              return got;
            };
            const std::vector<float> got = run(tile);
            long double sum = 0, magnitude = 0;
            std::int64_t bad = 0, first_bad = -1;
            for (std::size_t i = 0; i < x.size(); ++i) {
              const long double before = sum;
              sum += x[i];
              magnitude += std::abs(static_cast<long double>(x[i]));
              const long double want = kind == ScanKind::inclusive ? sum : before;
              const double bound = std::numeric_limits<float>::epsilon() *
                                   (64.0 + std::sqrt(static_cast<double>(i + 1) / 512.0) * 4.0) *
                                   static_cast<double>(magnitude);
              if (!(std::abs(static_cast<double>(got[i]) - static_cast<double>(want)) <= bound) &&
                  bad++ == 0)
                first_bad = static_cast<std::int64_t>(i);
            }
            EXPECT_EQ(bad, 0) << "first at " << first_bad;
            if (mode != ScanMode::reproducible) continue;
            const std::vector<float> expected = run(ScanTile{});
            EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0)
                << "the reproducible bits depend on the tile";
          }
}

}  // namespace
}  // namespace parasol::recurrence
