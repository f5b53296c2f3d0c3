// Every tridiag variant against the gold, at sizes that break kernels (1, primes, one either side
// of a warp, a block and the variants' limits, one huge system) and batch sizes of 1, 3 and 64,
// in float and double; the outputs start as NaN so an unwritten value cannot pass. Then the
// failures the Solver must report, several solves before one check, every chunk and thread
// count, and the heat march against the exact decay of a sine mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/tridiag.hpp"
#include "tests/support.hpp"

namespace parasol::tridiag {
namespace {

using Case = std::tuple<Variant, std::int64_t, std::int64_t>;  // variant, n, systems

}  // namespace

void PrintTo(Variant v, std::ostream* out) { *out << name(v); }

namespace {

constexpr std::int64_t kMostUnknowns = 4000000;  // per case: keeps the suite to seconds

// The rejections the API documents (params.hpp, tridiag.hpp, docs/parameters.md): anything else
// resolve_launch refuses is a bug, or a limit that needs documenting.
bool documented_rejection(const Launch& l, const Dims& dims, int element_bytes) {
  if (dims.layout != required_layout(l.variant)) return true;
  if (l.threads < 32 || l.threads > 1024 || l.threads % 32 != 0) return true;
  int chunk = l.chunk;
  switch (l.variant) {
    case Variant::pcr_warp:
      if (dims.n > kPcrWarpMaxRows) return true;
      if (chunk == 0) {  // n <= 32 x chunk: the smallest that holds the system
        chunk = *std::find_if(kWarpChunks.begin(), kWarpChunks.end(),
                              [&](int c) { return 32 * std::int64_t{c} >= dims.n; });
      } else if (std::find(kWarpChunks.begin(), kWarpChunks.end(), chunk) == kWarpChunks.end() ||
                 32 * std::int64_t{chunk} < dims.n) {
        return true;
      }
      break;
    case Variant::pcr_shared: return dims.n > kPcrSharedMaxRows || chunk != 0;
    case Variant::thomas: return chunk != 0;
    case Variant::thomas_pcr:
      if (chunk == 0) return false;  // picked from n: always one that runs
      if (std::find(kThomasPcrChunks.begin(), kThomasPcrChunks.end(), chunk) ==
          kThomasPcrChunks.end())
        return true;
      break;
    case Variant::thomas_scan:
      if (chunk == 0) chunk = kThomasScanDefaultChunk;
      if (std::find(kThomasScanChunks.begin(), kThomasScanChunks.end(), chunk) ==
          kThomasScanChunks.end())
        return true;
      return l.threads > thomas_scan_max_threads(chunk, element_bytes);
  }
  // A block that holds whole systems keeps its rows in registers: max_chunk_threads.
  return whole_system_block({l.variant, l.threads, chunk}, dims.n) >
         max_chunk_threads(chunk, element_bytes);
}

// Whether resolve_launch takes the launch; a refusal must be an InputError the API documents.
bool accepted(const Launch& l, const Dims& dims, int element_bytes) {
  const std::string what = std::string(name(l.variant)) + " n " + std::to_string(dims.n) +
                           " threads " + std::to_string(l.threads) + " chunk " +
                           std::to_string(l.chunk) + (element_bytes == 8 ? " double" : " float");
  try {
    const Launch resolved = resolve_launch(l, dims, element_bytes);
    EXPECT_FALSE(documented_rejection(l, dims, element_bytes))
        << what << " accepted, which the documentation says cannot run";
    EXPECT_TRUE(l.chunk == 0 || resolved.chunk == l.chunk) << what;
    return true;
  } catch (const InputError& e) {
    EXPECT_TRUE(documented_rejection(l, dims, element_bytes))
        << "undocumented rejection of " << what << ": " << e.what();
    EXPECT_TRUE(e.key() == "method.variant" || e.key() == "method.threads" ||
                e.key() == "method.chunk")
        << e.what();
    return false;
  }
}

template <class T>
bool accepted(const Launch& l, const Dims& dims) {
  return accepted(l, dims, static_cast<int>(sizeof(T)));
}

// The batch on the device, and an output full of NaN: for tests that drive a Solver by hand
// (several batches to one solver, x in place of d). tridiag::DeviceBatch is tested below.
template <class T>
struct Uploaded {
  Uploaded(const Batch<T>& batch, cudaStream_t stream)
      : size(static_cast<std::size_t>(batch.dims.size())), a(size), b(size), c(size), d(size), x(size) {
    upload(a, batch.a, stream);
    upload(b, batch.b, stream);
    upload(c, batch.c, stream);
    upload(d, batch.d, stream);
    fill_bytes(x, 0xFF, stream);
  }
  std::vector<T> download(const DeviceBuffer<T>& from, cudaStream_t stream) const {
    return parasol::download(from, stream);
  }
  void solve(Solver<T>& solver, cudaStream_t stream) {
    solver.solve(a.data(), b.data(), c.data(), d.data(), x.data(), stream);
  }
  std::size_t size;
  DeviceBuffer<T> a, b, c, d, x;
};

// x against the gold of `batch` (both in its layout) by the one agreement (check.hpp); when it
// fails, the first elements past the tolerance are named.
template <class T>
void expect_near_gold(const std::vector<T>& x, const Batch<T>& batch,
                      const std::vector<double>& gold, const std::string& what) {
  ASSERT_EQ(x.size(), gold.size()) << what;
  const Agreement a = agreement(x, gold, condition_bound(batch), batch.dims.n);
  ASSERT_TRUE(a.judged()) << what << ": the test's systems are diagonally dominant";
  EXPECT_TRUE(a.passed()) << what << ": " << a.description << "; tolerance " << a.tolerance;
  if (a.passed()) return;
  const double scale = max_magnitude(gold);
  int named = 0;
  for (std::size_t k = 0; k < x.size() && named < 3; ++k)
    if (!(std::abs(static_cast<double>(x[k]) - gold[k]) / scale <= a.tolerance)) {
      ADD_FAILURE() << what << ": element " << k << " gpu " << x[k] << " gold " << gold[k];
      ++named;
    }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Variant v : kVariants)
    for (std::int64_t n : {1, 2, 3, 31, 32, 33, 255, 256, 1000, 4096, 100000})
      for (std::int64_t systems : {1, 3, 64})
        if (n * systems <= kMostUnknowns) cases.emplace_back(v, n, systems);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [v, n, systems] = info.param;
  std::string text = std::string(name(v)) + "_n" + std::to_string(n) + "_m" + std::to_string(systems);
  for (char& ch : text)
    if (ch == '-') ch = '_';
  return text;
}

class TridiagVsGold : public ::testing::TestWithParam<Case> {
 protected:
  template <class T>
  void check() {
    const auto& [v, n, systems] = GetParam();
    const Dims dims{n, systems, required_layout(v)};
    const Launch launch{v, 256, 0};
    SCOPED_TRACE(test::kSeed);
    if (!accepted<T>(launch, dims)) {
      EXPECT_THROW((Solver<T>{launch, dims}), InputError);
      return;
    }
    const Batch<T> batch = random_batch<T>(dims, test::kSeed);
    const std::vector<double> gold = solve_gold(batch);
    // The Solver into a separate, NaN-filled output.
    Stream stream;
    Uploaded<T> device(batch, stream);
    Solver<T> solver(launch, dims);
    device.solve(solver, stream);
    solver.check(stream);
    expect_near_gold(device.download(device.x, stream), batch, gold, "Solver");
    // solve_gpu, which may solve in place of d.
    expect_near_gold(solve_gpu(launch, batch).x, batch, gold, "solve_gpu");
  }
};

TEST_P(TridiagVsGold, Float) {
  PARASOL_REQUIRE_GPU();
  check<float>();
}

TEST_P(TridiagVsGold, Double) {
  PARASOL_REQUIRE_GPU();
  check<double>();
}

INSTANTIATE_TEST_SUITE_P(All, TridiagVsGold, ::testing::ValuesIn(all_cases()), case_name);

// A size each variant takes, with several systems.
Dims dims_for(Variant v) { return {v == Variant::pcr_warp ? 100 : 300, 7, required_layout(v)}; }

class TridiagVariant : public ::testing::TestWithParam<Variant> {};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) {
  std::string text(name(info.param));
  for (char& ch : text)
    if (ch == '-') ch = '_';
  return text;
}

NumericalError failure_of(Solver<double>& solver, cudaStream_t stream) {
  try {
    solver.check(stream);
  } catch (const NumericalError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a NumericalError";
  return NumericalError(-1, "none");
}

TEST_P(TridiagVariant, SolvesInPlaceOfTheRightHandSide) {
  PARASOL_REQUIRE_GPU();
  const Dims dims = dims_for(GetParam());
  const Batch<double> batch = random_batch<double>(dims, test::kSeed);
  Stream stream;
  Uploaded<double> device(batch, stream);
  Solver<double> solver({GetParam(), 128, 0}, dims);
  solver.solve(device.a.data(), device.b.data(), device.c.data(), device.d.data(),
               device.d.data(), stream);
  solver.check(stream);
  expect_near_gold(device.download(device.d, stream), batch, solve_gold(batch), "x aliasing d");
}

// A random batch drawn on the device (random_row, random_rows.hpp) is random_batch's: solving
// it gives the bits of solving the host's draws uploaded, in the variant's layout, in float and
// double, for a rank's systems further on (first_system) and systems of an odd size.
template <class T>
void expect_drawn_batch_solves_as_uploaded(Variant v) {
  for (const std::int64_t first_system : {std::int64_t{0}, std::int64_t{7}}) {
    const Dims dims{dims_for(v).n - 1, 37, required_layout(v)};
    const Batch<T> batch = random_batch<T>(dims, test::kSeed, first_system);
    const Result<T> uploaded = solve_gpu<T>({v, 128, 0}, batch);
    const Result<T> drawn = solve_gpu<T>({v, 128, 0}, dims, test::kSeed, first_system);
    ASSERT_EQ(uploaded.x.size(), drawn.x.size());
    EXPECT_EQ(std::memcmp(uploaded.x.data(), drawn.x.data(), drawn.x.size() * sizeof(T)), 0)
        << name(v) << ", first system " << first_system;
  }
}

TEST_P(TridiagVariant, RandomBatchDrawnOnTheDeviceSolvesAsTheUploadedOne) {
  PARASOL_REQUIRE_GPU();
  expect_drawn_batch_solves_as_uploaded<float>(GetParam());
  expect_drawn_batch_solves_as_uploaded<double>(GetParam());
}

TEST_P(TridiagVariant, SingularSystemsAreNamedAndTheRecordCleared) {
  PARASOL_REQUIRE_GPU();
  const Dims dims = dims_for(GetParam());
  const auto at = [&](std::int64_t m, std::int64_t r) { return static_cast<std::size_t>(dims.index(m, r)); };
  const Batch<double> good = random_batch<double>(dims, test::kSeed);
  Stream stream;
  Solver<double> solver({GetParam(), 256, 0}, dims);

  // A zero row (singular whatever the algorithm) in system 4.
  Batch<double> zero = good;
  zero.b[at(4, 0)] = 0;
  zero.c[at(4, 0)] = 0;
  {
    Uploaded<double> device(zero, stream);
    device.solve(solver, stream);
    const NumericalError e = failure_of(solver, stream);
    EXPECT_EQ(e.system(), 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("system 4"), std::string::npos) << e.what();
  }
  // The record was cleared by the throw: a good batch now checks clean, and is right.
  {
    Uploaded<double> device(good, stream);
    device.solve(solver, stream);
    EXPECT_NO_THROW(solver.check(stream));
    expect_near_gold(device.download(device.x, stream), good, solve_gold(good), "after a failure");
  }
  // A NaN in d of system 5, and in the last row of the last system.
  for (const auto& [m, r] : {std::pair<std::int64_t, std::int64_t>{5, 17}, {6, dims.n - 1}}) {
    Batch<double> nan = good;
    nan.d[at(m, r)] = std::numeric_limits<double>::quiet_NaN();
    Uploaded<double> device(nan, stream);
    device.solve(solver, stream);
    const NumericalError e = failure_of(solver, stream);
    EXPECT_EQ(e.system(), m) << e.what();
  }
  // Two failing systems: the lowest is named.
  Batch<double> two = zero;
  two.d[at(2, 3)] = std::numeric_limits<double>::infinity();
  Uploaded<double> device(two, stream);
  device.solve(solver, stream);
  EXPECT_EQ(failure_of(solver, stream).system(), 2);
}

TEST_P(TridiagVariant, SeveralSolvesThenOneCheck) {
  PARASOL_REQUIRE_GPU();
  const Dims dims = dims_for(GetParam());
  Stream stream;
  Solver<double> solver({GetParam(), 256, 0}, dims);
  std::vector<Batch<double>> batches;
  std::vector<std::unique_ptr<Uploaded<double>>> devices;
  for (std::uint64_t s = 0; s < 4; ++s) {
    batches.push_back(random_batch<double>(dims, test::kSeed + s));
    devices.push_back(std::make_unique<Uploaded<double>>(batches.back(), stream));
    devices.back()->solve(solver, stream);  // nothing waits between the solves
  }
  EXPECT_NO_THROW(solver.check(stream));
  for (std::size_t s = 0; s < batches.size(); ++s)
    expect_near_gold(devices[s]->download(devices[s]->x, stream), batches[s], solve_gold(batches[s]),
                     "solve " + std::to_string(s));

  // A failure in the second of three solves is still reported at the check after the third.
  Batch<double> bad = batches[1];
  bad.b[static_cast<std::size_t>(dims.index(3, 0))] = 0;
  bad.c[static_cast<std::size_t>(dims.index(3, 0))] = 0;
  Uploaded<double> bad_device(bad, stream);
  devices[0]->solve(solver, stream);
  bad_device.solve(solver, stream);
  devices[2]->solve(solver, stream);
  EXPECT_EQ(failure_of(solver, stream).system(), 3);
  EXPECT_NO_THROW(solver.check(stream)) << "the record is cleared";
}

// Every chunk (0 as well) and 64, 96, 256 and 1024 threads, on 5 systems of 1000 rows: long chunks
// of doubles are where a block runs out of registers.
template <class T>
void every_chunk_and_thread_count(Variant v) {
  const Dims dims{1000, 5, required_layout(v)};
  std::vector<int> chunks = compiled_chunks(v);
  chunks.insert(chunks.begin(), 0);
  const Batch<T> batch = random_batch<T>(dims, test::kSeed);
  const std::vector<double> gold = solve_gold(batch);
  Stream stream;
  int ran = 0;
  for (int threads : {64, 96, 256, 1024})  // 96: groups of 64 with 32 threads left over
    for (int chunk : chunks) {
      const Launch launch{v, threads, chunk};
      if (!accepted<T>(launch, dims)) continue;
      const std::string what = std::string(sizeof(T) == 8 ? "double, " : "float, ") +
                               std::to_string(threads) + " threads, chunk " + std::to_string(chunk);
      Uploaded<T> device(batch, stream);
      Solver<T> solver(launch, dims);
      try {
        device.solve(solver, stream);
        solver.check(stream);
      } catch (const CudaError& e) {
        ADD_FAILURE() << what << ": accepted by resolve_launch but " << e.what();
        if (e.sticky()) throw;
        continue;
      }
      expect_near_gold(device.download(device.x, stream), batch, gold, what);
      ++ran;
    }
  // pcr-warp cannot take 1000 rows; every other variant runs at each thread count at least.
  if (v == Variant::pcr_warp) {
    EXPECT_EQ(ran, 0);
  } else {
    EXPECT_GE(ran, 3);
  }
}

TEST_P(TridiagVariant, EveryChunkAndThreadCount) {
  PARASOL_REQUIRE_GPU();
  every_chunk_and_thread_count<float>(GetParam());
  every_chunk_and_thread_count<double>(GetParam());
}

// thomas-pcr past one block per system takes one pass over the input when a system's segments
// (a block each, threads a power of two) form one cluster (16 blocks at most), else three steps:
// both, on sizes that choose between them, including the benchmark's long systems.
template <class T>
void spanning_paths(std::int64_t n, std::int64_t systems, int (&ran)[3]) {
  const Dims dims{n, systems, Layout::contiguous};
  const Batch<T> batch = random_batch<T>(dims, test::kSeed);
  const std::vector<double> gold = solve_gold(batch);
  Stream stream;
  // 96 threads: not a power of two; 32 x 2: more segments than a cluster holds.
  for (const auto& [threads, chunk] : std::vector<std::pair<int, int>>{
           {128, 8}, {256, 4}, {256, 16}, {1024, 2}, {96, 8}, {32, 2}}) {
    const Launch launch{Variant::thomas_pcr, threads, chunk};
    const std::string what = std::string(sizeof(T) == 8 ? "double" : "float") + ", n " +
                             std::to_string(n) + ", " + std::to_string(threads) +
                             " threads, chunk " + std::to_string(chunk);
    Solver<T> solver(launch, dims);
    const std::int64_t segments = (n + threads * chunk - 1) / (threads * chunk);
    if (threads == 96 || segments > 16) {
      EXPECT_EQ(solver.passes(), 2) << what;
    } else if (threads == 128 && chunk == 8) {
      EXPECT_EQ(solver.passes(), 1) << what;
    }
    ++ran[solver.passes()];
    Uploaded<T> device(batch, stream);
    for (int repeat = 0; repeat < 2; ++repeat) {  // a solver solves again, from its workspace
      fill_bytes(device.x, 0xFF, stream);
      device.solve(solver, stream);
      solver.check(stream);
      expect_near_gold(device.download(device.x, stream), batch, gold, what);
    }
  }
}

TEST(TridiagSpanning, OnePassAndThreeStepsMatchTheGold) {
  PARASOL_REQUIRE_GPU();
  int ran[3] = {0, 0, 0};
  for (const auto& [n, systems] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {2049, 5}, {16384, 9}, {100000, 3}, {1 << 20, 2}}) {
    spanning_paths<float>(n, systems, ran);
    spanning_paths<double>(n, systems, ran);
  }
  EXPECT_GE(ran[1], 12);
  EXPECT_GE(ran[2], 16);
}

// A NaN put in d at (system, row): the solver, taking `passes` over the input, names that system.
void expect_nan_named(const Launch& launch, const Dims& dims, std::int64_t system,
                      std::int64_t row, int passes) {
  Batch<double> batch = random_batch<double>(dims, test::kSeed);
  batch.d[static_cast<std::size_t>(dims.index(system, row))] =
      std::numeric_limits<double>::quiet_NaN();
  Stream stream;
  Solver<double> solver(launch, dims);
  ASSERT_EQ(solver.passes(), passes);
  Uploaded<double> device(batch, stream);
  device.solve(solver, stream);
  EXPECT_EQ(failure_of(solver, stream).system(), system);
}

TEST(TridiagSpanning, OnePassNamesAFailingSystem) {
  PARASOL_REQUIRE_GPU();
  expect_nan_named({Variant::thomas_pcr, 128, 8}, {16384, 9, Layout::contiguous}, 6, 5000, 1);
}

// In three steps a chunk takes the next chunk's first unknown from the next thread, which past
// a system's end belongs to the next system: a NaN there must not be blamed on this one.
TEST(TridiagSpanning, ThreeStepsNameTheSystemThatFailed) {
  PARASOL_REQUIRE_GPU();
  // 2001 chunks of 8 a system: system 6 starts inside a block of 96 threads, not at its edge.
  expect_nan_named({Variant::thomas_pcr, 96, 8}, {16008, 9, Layout::contiguous}, 6, 0, 2);
}

// thomas-scan on systems longer than its tiles, where heads and tails carry the tiles' ends: a
// NaN inside a tile and one at a system's first row, which a tile holds inside (not at its
// start), are each blamed on their own system.
TEST(TridiagScan, NamesAFailingSystem) {
  PARASOL_REQUIRE_GPU();
  expect_nan_named({Variant::thomas_scan, 128, 8}, {16384, 9, Layout::contiguous}, 6, 5000, 1);
  expect_nan_named({Variant::thomas_scan, 96, 8}, {16008, 9, Layout::contiguous}, 6, 0, 1);
}

// Weakly dominant systems (the heat equation's -1, 2 + lambda, -1 with a small lambda): a row's
// dependence on rows a tile away does not vanish (0.99^4080 is 2e-18, far from underflow), so no
// boundary between tiles can be settled by its neighbours alone and the tiles' own interface
// system (tile_ends_kernel) gives every tile's ends. Against the gold in double, by launch, with
// the tolerance the condition bound (4 + lambda) / lambda sets.
TEST(TridiagScan, WeakDominanceSolvesTheTilesInterface) {
  PARASOL_REQUIRE_GPU();
  const double lambda = 1e-4;  // cond(A) about 4 / lambda
  for (const auto& [n, systems] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {100000, 3}, {16384, 5}, {1 << 20, 1}}) {
    Batch<double> batch = random_batch<double>({n, systems, Layout::contiguous}, test::kSeed);
    for (std::size_t i = 0; i < batch.b.size(); ++i) {
      batch.a[i] = -1;
      batch.b[i] = 2 + lambda;
      batch.c[i] = -1;
    }
    const std::vector<double> gold = solve_gold(batch);
    Stream stream;
    for (const auto& [threads, chunk] : std::vector<std::pair<int, int>>{{256, 16}, {128, 4}, {64, 8}}) {
      const Launch launch{Variant::thomas_scan, threads, chunk};
      Uploaded<double> device(batch, stream);
      Solver<double> solver(launch, batch.dims);
      device.solve(solver, stream);
      solver.check(stream);
      expect_near_gold(device.download(device.x, stream), batch, gold,
                       "n " + std::to_string(n) + " systems " + std::to_string(systems) +
                           " threads " + std::to_string(threads) + " chunk " +
                           std::to_string(chunk));
    }
  }
}

// On a size every variant takes, pcr-warp's chunks too.
TEST(TridiagWarp, EveryChunkThatFits) {
  PARASOL_REQUIRE_GPU();
  const Dims dims{100, 9, Layout::contiguous};
  const Batch<double> batch = random_batch<double>(dims, test::kSeed);
  const std::vector<double> gold = solve_gold(batch);
  Stream stream;
  for (int threads : {64, 256, 1024})
    for (int chunk : {0, 1, 2, 4}) {
      const Launch launch{Variant::pcr_warp, threads, chunk};
      if (!accepted<double>(launch, dims)) continue;
      EXPECT_EQ(chunk, chunk == 0 ? 0 : 4) << "100 rows need 4 rows per lane";
      Uploaded<double> device(batch, stream);
      Solver<double> solver(launch, dims);
      device.solve(solver, stream);
      solver.check(stream);
      expect_near_gold(device.download(device.x, stream), batch, gold, std::to_string(threads));
    }
}

// The handle the sweep times: uploaded once in the variant's layout, solved again and again by
// a kept Solver, read back in [system][row] order whatever the layout on the device.
TEST_P(TridiagVariant, DeviceBatchSolvesRepeatedlyAndDownloadsContiguous) {
  PARASOL_REQUIRE_GPU();
  const Variant v = GetParam();
  const Dims dims{v == Variant::pcr_warp ? 100 : 300, 7, Layout::contiguous};
  const Batch<float> batch = random_batch<float>(dims, test::kSeed);
  const std::vector<double> gold = solve_gold(batch);
  Stream stream;
  DeviceBatch<float> device(batch, required_layout(v), stream);
  EXPECT_EQ(device.dims().layout, required_layout(v));
  for (const int threads : {128, 128, 256}) {  // the same launch twice, then another
    device.poison();
    device.solve({v, threads, 0});
    device.check();
    EXPECT_EQ(device.launch().threads, threads);
    EXPECT_EQ(device.launch().variant, v);
    expect_near_gold(device.download(), batch, gold, std::to_string(threads) + " threads");
  }
  // Timed repeats solve without a check between them; one check after covers them all.
  for (int r = 0; r < 5; ++r) device.solve({v, 256, 0});
  device.check();
  expect_near_gold(device.download(), batch, gold, "after five solves");
}

// Values reordered on the device hold the host relayout's bits, either way and for the gold in
// double beside a float batch.
TEST(TridiagDevice, UploadRelaidIsTheHostsRelayout) {
  PARASOL_REQUIRE_GPU();
  Stream stream;
  for (const Layout from : {Layout::contiguous, Layout::interleaved})
    for (const Layout to : {Layout::contiguous, Layout::interleaved}) {
      SCOPED_TRACE(std::string(name(from)) + " to " + std::string(name(to)));
      const Dims dims{37, 45, from};
      const Batch<float> batch = random_batch<float>(dims, test::kSeed);
      EXPECT_EQ(download(upload_relaid(batch.d, dims, to, stream), stream),
                relayout(batch.d, dims, to));
      const std::vector<double> gold(batch.b.begin(), batch.b.end());
      EXPECT_EQ(download(upload_relaid(gold, dims, to, stream), stream),
                relayout(gold, dims, to));
    }
  const std::vector<float> short_of_it(10);
  EXPECT_THROW(upload_relaid(short_of_it, Dims{37, 45, Layout::contiguous}, Layout::interleaved,
                             stream),
               Error);
}

TEST_P(TridiagVariant, DeviceBatchReportsAFailureAndARefusedLaunch) {
  PARASOL_REQUIRE_GPU();
  const Variant v = GetParam();
  const Dims dims{v == Variant::pcr_warp ? 100 : 300, 7, Layout::contiguous};
  Batch<double> batch = random_batch<double>(dims, test::kSeed);
  batch.b[static_cast<std::size_t>(dims.index(4, 0))] = 0;
  batch.c[static_cast<std::size_t>(dims.index(4, 0))] = 0;
  Stream stream;
  DeviceBatch<double> device(batch, required_layout(v), stream);
  device.solve({v, 256, 0});
  try {
    device.check();
    ADD_FAILURE() << "expected a NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_EQ(e.system(), 4) << e.what();
  }
  EXPECT_NO_THROW(device.check()) << "the record is cleared";
  // A launch resolve_launch refuses is refused here too, before anything runs.
  EXPECT_THROW(device.solve({v, 48, 0}), InputError);
  EXPECT_THROW(DeviceBatch<double>(batch, v == Variant::thomas ? Layout::contiguous
                                                               : Layout::interleaved,
                                   stream)
                   .solve({v, 256, 0}),
               InputError);
}

// The heat march: a sine mode decays by exactly sine_decay_per_step a step.
template <class T>
void expect_exact_decay(Variant v, double tolerance_per_step) {
  Heat heat;
  heat.points = 100;
  heat.grids = 33;
  heat.steps = 25;
  heat.lambda = 0.2;
  heat.mode = 3;
  const HeatResult<T> r = march_heat_gpu<T>(heat, {v, 256, 0});
  const std::vector<T> start = heat_initial<T>(heat);
  const double factor = std::pow(sine_decay_per_step(heat), static_cast<double>(heat.steps));
  ASSERT_EQ(r.u.size(), start.size());
  double worst = 0;
  for (std::size_t k = 0; k < start.size(); ++k)
    worst = std::max(worst, std::abs(static_cast<double>(r.u[k]) -
                                     factor * static_cast<double>(start[k])));
  // Relative to the mode's amplitude now; the errors of the steps at most add.
  EXPECT_LE(worst / factor, tolerance_per_step * static_cast<double>(heat.steps)) << name(v);
  EXPECT_GT(r.timings.seconds(phase::compute), 0.0);
  EXPECT_GT(r.timings.seconds(kSolves), 0.0);
  EXPECT_LE(r.timings.seconds(kSolves),  // a part of the whole, by events
            r.timings.seconds(phase::compute) * 1.01 + 1e-5);
}

TEST_P(TridiagVariant, HeatSineDecaysExactly) {
  PARASOL_REQUIRE_GPU();
  // cond(A) <= (4 + lambda) / lambda = 21 for this step.
  expect_exact_decay<float>(GetParam(), 21 * 64 * std::numeric_limits<float>::epsilon());
  expect_exact_decay<double>(GetParam(), 1e-13);
}

TEST_P(TridiagVariant, HeatMatchesTheGoldWithEnds) {
  PARASOL_REQUIRE_GPU();
  Heat heat;
  heat.points = 77;
  heat.grids = 10;
  heat.steps = 12;
  heat.lambda = 0.5;
  heat.initial = Initial::random;
  heat.left = 1;
  heat.right = -2;
  heat.seed = test::kSeed;
  const std::vector<double> gold = march_heat_gold(heat);
  const HeatResult<double> r = march_heat_gpu<double>(heat, {GetParam(), 64, 0});
  double worst = 0;
  for (std::size_t k = 0; k < gold.size(); ++k) worst = std::max(worst, std::abs(r.u[k] - gold[k]));
  EXPECT_LE(worst, 1e-12) << name(GetParam());

  heat.steps = 0;
  EXPECT_EQ(march_heat_gpu<double>(heat, {GetParam(), 64, 0}).u, heat_initial<double>(heat));
}

// A random or step start is made on the device (drawn_start_at, heat_start.hpp), in the
// variant's layout: after no step the march holds heat_initial's values, bit for bit, in float
// and double, for several seeds, odd sizes and a rank's grids further on (first_grid).
TEST_P(TridiagVariant, HeatStartMadeOnTheDeviceIsTheHostsBitForBit) {
  PARASOL_REQUIRE_GPU();
  for (const Initial initial : {Initial::random, Initial::step})
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{46}})
      for (const std::int64_t first_grid : {std::int64_t{0}, std::int64_t{13}}) {
        Heat heat;
        heat.points = 77;
        heat.grids = 11;
        heat.steps = 0;
        heat.initial = initial;
        heat.seed = seed;
        heat.first_grid = first_grid;
        const std::vector<float> f = march_heat_gpu<float>(heat, {GetParam(), 64, 0}).u;
        const std::vector<float> f_host = heat_initial<float>(heat);
        ASSERT_EQ(f.size(), f_host.size());
        EXPECT_EQ(std::memcmp(f.data(), f_host.data(), f.size() * sizeof(float)), 0)
            << name(GetParam()) << " seed " << seed << " first grid " << first_grid;
        const std::vector<double> d = march_heat_gpu<double>(heat, {GetParam(), 64, 0}).u;
        const std::vector<double> d_host = heat_initial<double>(heat);
        ASSERT_EQ(d.size(), d_host.size());
        EXPECT_EQ(std::memcmp(d.data(), d_host.data(), d.size() * sizeof(double)), 0)
            << name(GetParam()) << " seed " << seed << " first grid " << first_grid;
      }
}

// Progress comes in stretches of steps, in order, ending at the last step, and watching changes
// nothing in the result.
TEST_P(TridiagVariant, HeatReportsProgressBySteps) {
  PARASOL_REQUIRE_GPU();
  Heat heat;
  heat.points = 100;
  heat.grids = 20;
  heat.steps = 200;
  heat.lambda = 0.5;
  std::vector<Progress> reports;
  const HeatResult<float> watched = march_heat_gpu<float>(
      heat, {GetParam(), 128, 0}, [&](const Progress& p) { reports.push_back(p); });
  ASSERT_FALSE(reports.empty());
  EXPECT_LE(reports.size(), 65u);
  for (std::size_t k = 0; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].total_steps, 200);
    if (k > 0) {
      EXPECT_GT(reports[k].steps, reports[k - 1].steps);
      EXPECT_GE(reports[k].seconds, reports[k - 1].seconds);
    }
  }
  EXPECT_EQ(reports.back().steps, 200);
  EXPECT_EQ(watched.u, march_heat_gpu<float>(heat, {GetParam(), 128, 0}).u);
}

INSTANTIATE_TEST_SUITE_P(All, TridiagVariant, ::testing::ValuesIn(kVariants), variant_name);

TEST(TridiagHeatGpu, RefusesALaunchBeforeMarching) {
  PARASOL_REQUIRE_GPU();
  Heat heat;
  heat.points = 1000;
  heat.grids = 2;
  EXPECT_THROW(march_heat_gpu<float>(heat, {Variant::pcr_warp, 256, 0}), InputError);
}

}  // namespace
}  // namespace parasol::tridiag
