// Every kind x each of its variants x float and double against the kind's gold, at awkward sizes
// (1, 2, 3, odd, non-powers of two, a warp either side) and batch sizes 1, 3 and 64, on outputs
// that start as NaN; periodic rings fused on chip, multi-rhs thomas-pcr and pentadiagonal and
// block2 thomas-pcr at every chunk compiled in; then ill-conditioned but dominant systems, the failures a KindSolver names,
// several solves before one check, variants refused for a kind, and the periodic heat ring
// against its gold and its exact decay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/partition.hpp"
#include "tests/support.hpp"

namespace parasol::tridiag {
namespace {

using Case = std::tuple<Kind, Variant, std::int64_t, std::int64_t>;  // kind, variant, n, systems

KindDims dims_of(Kind k, std::int64_t n, std::int64_t systems) {
  return {k, n, systems, k == Kind::multi_rhs ? 5 : 1};
}

// The batch on the device in the solver's layout and x full of NaN, solved by `solver`, x read
// back contiguous: an element the solver never writes cannot pass.
template <class T>
std::vector<T> solved_on_device(KindSolver<T>& solver, const KindBatch<T>& batch, int times = 1) {
  const KindDims& k = batch.dims;
  Stream stream;
  const Layout layout = solver.layout();
  const Dims band_dims{k.band_width(), k.systems, Layout::contiguous};
  const Dims rhs_dims{k.rhs_width(), k.systems, Layout::contiguous};
  std::vector<DeviceBuffer<T>> bands;
  std::vector<const T*> pointers;
  for (const std::vector<T>& band : batch.bands) {
    bands.push_back(upload_relaid(band, band_dims, layout, stream.get()));
    pointers.push_back(bands.back().data());
  }
  const DeviceBuffer<T> d = upload_relaid(batch.d, rhs_dims, layout, stream.get());
  DeviceBuffer<T> x(batch.d.size());
  fill_bytes(x, 0xFF, stream.get());
  for (int t = 0; t < times; ++t) solver.solve(pointers.data(), d.data(), x.data(), stream.get());
  solver.check(stream.get());
  return relayout(download(x, stream.get()), {rhs_dims.n, rhs_dims.systems, layout},
                  Layout::contiguous);
}

template <class T>
void expect_near_gold(const std::vector<T>& x, const KindBatch<T>& batch,
                      const std::vector<double>& gold, const std::string& what) {
  ASSERT_EQ(x.size(), gold.size()) << what;
  const Agreement a = kind_agreement(x, gold, batch.dims, condition_bound(batch));
  ASSERT_TRUE(a.judged()) << what << ": the test's systems are diagonally dominant";
  EXPECT_TRUE(a.passed()) << what << ": " << a.description << "; tolerance " << a.tolerance;
  if (a.passed()) return;
  int named = 0;
  for (std::size_t k = 0; k < x.size() && named < 3; ++k)
    if (!(std::abs(static_cast<double>(x[k]) - gold[k]) <= a.tolerance * max_magnitude(gold))) {
      ADD_FAILURE() << what << ": element " << k << " gpu " << x[k] << " gold " << gold[k];
      ++named;
    }
}

// Whether a variant takes n at all (pcr-warp 128 rows, pcr-shared 2048; thomas-pcr for
// multi-rhs a system within 128 threads of 16 rows, the smaller block all_cases launches, and
// for pentadiagonal and block2 within 128 threads of 8 block rows).
bool fits(Kind k, Variant v, std::int64_t n) {
  const std::int64_t block_rows = k == Kind::pentadiagonal ? (n + 1) / 2 : n;
  return !(v == Variant::pcr_warp && n > kPcrWarpMaxRows) &&
         !(v == Variant::pcr_shared && n > kPcrSharedMaxRows) &&
         !(k == Kind::multi_rhs && v == Variant::thomas_pcr && n > 128 * 16) &&
         !((k == Kind::pentadiagonal || k == Kind::block2) && v == Variant::thomas_pcr &&
           block_rows > 128 * 8);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Kind k : {Kind::periodic, Kind::multi_rhs, Kind::pentadiagonal, Kind::block2})
    for (Variant v : variants_for(k))
      for (std::int64_t n : {1, 2, 3, 5, 31, 32, 33, 100, 255, 1000, 3000})
        for (std::int64_t systems : {1, 3, 64})
          if (fits(k, v, n) && !(k == Kind::periodic && n < 3)) cases.emplace_back(k, v, n, systems);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [k, v, n, systems] = info.param;
  std::string text = std::string(name(k)) + "_" + std::string(name(v)) + "_n" +
                     std::to_string(n) + "_m" + std::to_string(systems);
  for (char& ch : text)
    if (ch == '-') ch = '_';
  return text;
}

class TridiagKindsVsGold : public ::testing::TestWithParam<Case> {
 protected:
  template <class T>
  void check() {
    const auto& [k, v, n, systems] = GetParam();
    SCOPED_TRACE(test::kSeed);
    const KindBatch<T> batch = random_kind_batch<T>(dims_of(k, n, systems), test::kSeed);
    const std::vector<double> gold = solve_kind_gold(batch);
    KindSolver<T> solver({v, 128, 0}, batch.dims);
    expect_near_gold(solved_on_device(solver, batch), batch, gold, "KindSolver");
    expect_near_gold(solve_kind_gpu<T>({v, 256, 0}, batch).x, batch, gold, "solve_kind_gpu");
  }
};

TEST_P(TridiagKindsVsGold, Float) {
  PARASOL_REQUIRE_GPU();
  check<float>();
}

TEST_P(TridiagKindsVsGold, Double) {
  PARASOL_REQUIRE_GPU();
  check<double>();
}

INSTANTIATE_TEST_SUITE_P(All, TridiagKindsVsGold, ::testing::ValuesIn(all_cases()), case_name);

// Every row's dominance margin squeezed to 1e-3 of its size: a condition bound near 1000.
template <class T>
void squeeze(KindBatch<T>& batch) {
  const KindDims& k = batch.dims;
  const int diagonal_band = k.kind == Kind::pentadiagonal ? 2 : 1;
  for (std::int64_t m = 0; m < k.systems; ++m)
    for (std::int64_t row = 0; row < k.rows(); ++row) {
      const RowWeight w = kind_row_weight(batch, m, row);
      const std::int64_t j = k.kind == Kind::block2 ? 4 * (row / 2) + 3 * (row % 2) : row;
      T& b = batch.bands[static_cast<std::size_t>(diagonal_band)]
                        [static_cast<std::size_t>(m * k.band_width() + j)];
      const double size = w.off * (1 + 1e-3) + 1e-3;
      b = static_cast<T>(b < 0 ? -size : size);
    }
}

template <class T>
void ill_conditioned() {
  for (Kind k : {Kind::periodic, Kind::multi_rhs, Kind::pentadiagonal, Kind::block2})
    for (Variant v : variants_for(k)) {
      KindBatch<T> batch = random_kind_batch<T>(dims_of(k, 77, 9), test::kSeed);
      squeeze(batch);
      const std::vector<double> gold = solve_kind_gold(batch);
      KindSolver<T> solver({v, 64, 0}, batch.dims);
      expect_near_gold(solved_on_device(solver, batch), batch, gold,
                       std::string(name(k)) + " " + std::string(name(v)) + " squeezed");
    }
}

TEST(TridiagKinds, IllConditionedButDominantFloat) {
  PARASOL_REQUIRE_GPU();
  ill_conditioned<float>();
}

TEST(TridiagKinds, IllConditionedButDominantDouble) {
  PARASOL_REQUIRE_GPU();
  ill_conditioned<double>();
}

// Periodic thomas-pcr and pcr-warp fused on chip (kinds_periodic.cuh): every chunk compiled in,
// groups within a warp (shuffles) and past one (shared memory), one ring and a few a block, the
// chunk that holds row n - 1 full or padded, float and double. The cases run only where the
// launch is fused, so the fused kernel is what each one judges.
template <class T>
void periodic_fused_chunks() {
  int fused = 0;
  for (Variant v : {Variant::thomas_pcr, Variant::pcr_warp})
    for (int chunk : compiled_chunks(v))
      for (int threads : {64, 512})
        for (std::int64_t n : {3, 4, 17, 64, 100, 1000, 4096})
          for (std::int64_t systems : {1, 5}) {
            const KindDims dims = dims_of(Kind::periodic, n, systems);
            std::optional<KindSolver<T>> solver;
            try {
              solver.emplace(Launch{v, threads, chunk}, dims);
            } catch (const InputError&) {
              continue;  // a chunk too short for n, or a block too big for the chunk
            }
            if (!solver->fused_on_chip()) continue;
            ++fused;
            const KindBatch<T> batch = random_kind_batch<T>(dims, test::kSeed);
            expect_near_gold(solved_on_device(*solver, batch), batch, solve_kind_gold(batch),
                             std::string(name(v)) + "/" + std::to_string(threads) + "/c" +
                                 std::to_string(chunk) + " n " + std::to_string(n) + " x " +
                                 std::to_string(systems));
          }
  // Both variants' every chunk at several sizes: far more than one case a chunk.
  EXPECT_GE(fused, 40);
}

// Multi-rhs thomas-pcr (kinds_multi_rhs.cuh): every chunk, groups within a warp and past one,
// right-hand sides fewer than a batch, a whole batch and a batch and a part.
template <class T>
void multi_rhs_chunks() {
  int solved = 0;
  for (int chunk : compiled_chunks(Variant::thomas_pcr))
    for (int threads : {64, 256})
      for (std::int64_t n : {1, 2, 33, 100, 1000})
        for (int rhs : {1, 4, 9}) {
          const KindDims dims{Kind::multi_rhs, n, 5, rhs};
          std::optional<KindSolver<T>> solver;
          try {
            solver.emplace(Launch{Variant::thomas_pcr, threads, chunk}, dims);
          } catch (const InputError&) {
            continue;  // no block holds a system
          }
          ++solved;
          const KindBatch<T> batch = random_kind_batch<T>(dims, test::kSeed);
          const Launch& run = solver->launch();  // the nearest launch the kernel takes
          expect_near_gold(solved_on_device(*solver, batch), batch, solve_kind_gold(batch),
                           std::to_string(run.threads) + "/c" + std::to_string(run.chunk) +
                               " n " + std::to_string(n) + " rhs " + std::to_string(rhs));
        }
  EXPECT_GE(solved, 40);
}

TEST(TridiagKinds, MultiRhsChunksMatchTheGoldFloat) {
  PARASOL_REQUIRE_GPU();
  multi_rhs_chunks<float>();
}

TEST(TridiagKinds, MultiRhsChunksMatchTheGoldDouble) {
  PARASOL_REQUIRE_GPU();
  multi_rhs_chunks<double>();
}

// Pentadiagonal and block2 thomas-pcr in 2x2 blocks (kinds_block.cuh): every chunk, groups
// within a warp and past one, odd n (a pentadiagonal system's last block row half padding).
template <class T>
void block_chunks() {
  int solved = 0;
  for (Kind kind : {Kind::pentadiagonal, Kind::block2})
    for (int chunk : {2, 4, 8})
      for (int threads : {64, 256})
        for (std::int64_t n : {1, 2, 3, 33, 100, 1001})
          for (std::int64_t systems : {1, 5}) {
            const KindDims dims = dims_of(kind, n, systems);
            std::optional<KindSolver<T>> solver;
            try {
              solver.emplace(Launch{Variant::thomas_pcr, threads, chunk}, dims);
            } catch (const InputError&) {
              continue;  // no block holds a system
            }
            ++solved;
            const KindBatch<T> batch = random_kind_batch<T>(dims, test::kSeed);
            const Launch& run = solver->launch();  // the nearest launch the kernel takes
            expect_near_gold(solved_on_device(*solver, batch), batch, solve_kind_gold(batch),
                             std::string(name(kind)) + " " + std::to_string(run.threads) + "/c" +
                                 std::to_string(run.chunk) + " n " + std::to_string(n) + " x " +
                                 std::to_string(systems));
          }
  EXPECT_GE(solved, 60);
}

TEST(TridiagKinds, BlockChunksMatchTheGoldFloat) {
  PARASOL_REQUIRE_GPU();
  block_chunks<float>();
}

TEST(TridiagKinds, BlockChunksMatchTheGoldDouble) {
  PARASOL_REQUIRE_GPU();
  block_chunks<double>();
}

TEST(TridiagKinds, PeriodicFusedChunksMatchTheGoldFloat) {
  PARASOL_REQUIRE_GPU();
  periodic_fused_chunks<float>();
}

TEST(TridiagKinds, PeriodicFusedChunksMatchTheGoldDouble) {
  PARASOL_REQUIRE_GPU();
  periodic_fused_chunks<double>();
}

TEST(TridiagKinds, SeveralSolvesThenOneCheckGiveTheSameAnswer) {
  PARASOL_REQUIRE_GPU();
  for (Kind k : {Kind::periodic, Kind::multi_rhs, Kind::pentadiagonal, Kind::block2})
    for (Variant v : variants_for(k)) {
      const KindBatch<float> batch = random_kind_batch<float>(dims_of(k, 50, 5), test::kSeed);
      KindSolver<float> solver({v, 256, 0}, batch.dims);
      const std::vector<float> once = solved_on_device(solver, batch);
      EXPECT_EQ(solved_on_device(solver, batch, 3), once) << name(k) << " " << name(v);
    }
}

TEST(TridiagKinds, AFailingSystemIsNamedAndTheRecordCleared) {
  PARASOL_REQUIRE_GPU();
  for (Kind k : {Kind::periodic, Kind::multi_rhs, Kind::pentadiagonal, Kind::block2})
    for (Variant v : variants_for(k)) {
      KindBatch<double> batch = random_kind_batch<double>(dims_of(k, 40, 6), test::kSeed);
      batch.d[static_cast<std::size_t>(4 * batch.dims.rhs_width() + 7)] =
          std::numeric_limits<double>::quiet_NaN();
      KindSolver<double> solver({v, 128, 0}, batch.dims);
      try {
        solved_on_device(solver, batch);
        ADD_FAILURE() << name(k) << " " << name(v) << ": expected a NumericalError";
      } catch (const NumericalError& e) {
        EXPECT_EQ(e.system(), 4) << name(k) << " " << name(v) << ": " << e.what();
      }
      // The record was cleared: a clean batch solves.
      const KindBatch<double> clean = random_kind_batch<double>(dims_of(k, 40, 6), test::kSeed);
      EXPECT_NO_THROW(solved_on_device(solver, clean)) << name(k) << " " << name(v);
    }
}

TEST(TridiagKinds, VariantsAKindDoesNotTakeAreRefused) {
  // Refused before anything reaches the device.
  for (Kind k : {Kind::multi_rhs, Kind::pentadiagonal, Kind::block2})
    try {
      KindSolver<float> solver({Variant::thomas_scan, 256, 0}, dims_of(k, 10, 2));
      ADD_FAILURE() << name(k) << ": expected an InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "method.variant") << e.what();
    }
  EXPECT_THROW((KindSolver<float>({Variant::pcr_warp, 256, 0}, dims_of(Kind::periodic, 200, 2))),
               InputError);
  EXPECT_THROW((KindSolver<float>({Variant::thomas, 256, 0}, dims_of(Kind::periodic, 2, 2))),
               InputError);
}

TEST(TridiagKinds, HeatRingMatchesTheGoldAndDecaysExactly) {
  PARASOL_REQUIRE_GPU();
  for (Variant v : variants_for(Kind::periodic)) {
    Heat h;
    h.ring = true;
    h.points = 100;
    h.grids = 6;
    h.steps = 30;
    h.lambda = 0.5;
    h.mode = 2;
    const HeatResult<double> r = march_heat_gpu<double>(h, {v, 128, 0});
    const std::optional<SineDecay> decay = sine_decay(h, r.u);
    ASSERT_TRUE(decay.has_value()) << name(v);
    EXPECT_LE(decay->relative_error, 1e-9) << name(v);
    h.initial = Initial::random;
    const std::vector<double> gold = march_heat_gold(h);
    const HeatResult<float> f = march_heat_gpu<float>(h, {v, 128, 0});
    // Each step's tolerance (kind_tolerance's periodic factor), added over the steps.
    const double bound = 2 * tolerance<float>(condition_bound(h), h.points, h.steps);
    EXPECT_LE(compare(f.u, gold).max_abs / max_magnitude(gold), bound) << name(v);
  }
}

}  // namespace
}  // namespace parasol::tridiag

namespace parasol::tridiag {
namespace {

// One long system's kernels (long.cu) on one rank: its rows cut into pieces of
// kDevicePieceRows, one thread each, against the host's partition method on that same cut and
// against the gold, each within the bound a batch is held to; sizes of one piece, a piece either
// side of it, uneven pieces. tests/ranks_tridiag_long_test.cpp runs them across two ranks.
template <class T>
void expect_long_near_the_partition(std::int64_t n, std::int64_t systems, int threads = 128) {
  SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + ", n " + std::to_string(n) +
               ", " + std::to_string(systems) + " systems, " + std::to_string(threads) +
               " threads");
  comm::Context context;
  const Batch<T> batch = random_batch<T>({n, systems, Layout::contiguous}, test::kSeed);
  const LongResult<T> r =
      solve_long_gpu(context, rows_part_of(batch, comm::even_slab(n, 0, 1)), threads);
  const std::vector<double> host =
      solve_partitioned(batch, long_cut(n, 1, kDevicePieceRows, "")), gold = solve_gold(batch);
  const double bound = tolerance<T>(condition_bound(batch), n);
  EXPECT_LE(compare(r.x, host).max_abs / max_magnitude(host), bound);
  EXPECT_LE(compare(r.x, gold).max_abs / max_magnitude(gold), bound);
}

TEST(TridiagLong, DevicePiecesMatchThePartitionOnTheSameCut) {
  PARASOL_REQUIRE_GPU();
  for (const std::int64_t n : {2, 3, 255, 256, 257, 511, 515, 3001, 100000})
    for (const std::int64_t systems : {1, 3}) {
      expect_long_near_the_partition<float>(n, systems);
      expect_long_near_the_partition<double>(n, systems);
    }
}

// The kernels stage 32 pieces a warp through shared memory, a tile of 64 bytes of each piece at
// a time, and reduce the chain of interface rows again on the device while it holds two pieces:
// sizes where n is no multiple of the piece (pieces of 256 and 257 rows), the pieces no multiple
// of the block or of a warp (a warp's pieces then straddle two systems), the tiles no multiple
// of a piece, and a rank long enough for two chain levels on the device (2^23 rows: chains of
// 65,632 and 512 rows before the host's 4). The reference is the host's partition method on the
// same cut, which the kernels before staging matched within the same bound.
TEST(TridiagLong, OddSizesMatchThePartitionOnTheSameCut) {
  PARASOL_REQUIRE_GPU();
  for (const int threads : {64, 128, 256}) {
    // 37 pieces + 5 rows; 293 pieces + 200 (a chain of 586 rows: 2 pieces on the device).
    for (const std::int64_t n : {256 * 37 + 5, 256 * 293 + 200})
      for (const std::int64_t systems : {1, 3}) {
        expect_long_near_the_partition<float>(n, systems, threads);
        expect_long_near_the_partition<double>(n, systems, threads);
      }
  }
  const std::int64_t n = (std::int64_t{1} << 23) + 12345;
  expect_long_near_the_partition<float>(n, 1, 256);
  expect_long_near_the_partition<double>(n, 1, 96);
}

// A block's staging past the device's shared memory is an input error naming the key.
TEST(TridiagLong, ABlockTooLargeToStageNamesTheKey) {
  PARASOL_REQUIRE_GPU();
  comm::Context context;
  const Batch<float> batch = random_batch<float>({600, 1, Layout::contiguous}, test::kSeed);
  for (const int threads : {1024, 48}) {
    try {
      solve_long_gpu(context, rows_part_of(batch, comm::even_slab(600, 0, 1)), threads);
      ADD_FAILURE() << "expected an InputError for " << threads << " threads";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "method.threads") << e.what();
    }
  }
}

// Rows kept on the device and solved twice give the one-shot solve's bits each time: the inputs
// survive a solve, and a', c' beside them change nothing.
TEST(TridiagLong, DeviceRowsSolvedTwiceGiveTheOneShotBits) {
  PARASOL_REQUIRE_GPU();
  comm::Context context;
  const std::int64_t n = 256 * 293 + 200, systems = 2;
  const comm::Slab all = comm::even_slab(n, 0, 1);
  const std::vector<float> once = solve_long_gpu<float>(context, n, systems, test::kSeed, all).x;
  DeviceRows<float> rows(n, systems, test::kSeed, all);
  for (int time = 0; time < 2; ++time) {
    const PhaseTimer t = rows.solve(context);
    EXPECT_GT(t.seconds(phase::compute), 0);
    EXPECT_EQ(rows.x(), once) << "solve " << time;
  }
}

// A ring: every piece's ends couple, the interface a ring on the host.
template <class T>
void expect_ring_near_the_partition(std::int64_t n, std::int64_t systems) {
  SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + " ring, n " + std::to_string(n) +
               ", " + std::to_string(systems) + " systems");
  comm::Context context;
  const KindBatch<T> ring = random_kind_batch<T>({Kind::periodic, n, systems, 1}, test::kSeed);
  const Batch<T> batch = periodic_as_batch(ring);
  const LongResult<T> r =
      solve_long_gpu(context, rows_part_of(batch, comm::even_slab(n, 0, 1), true), 128);
  const std::vector<double> host =
      solve_partitioned(batch, long_cut(n, 1, kDevicePieceRows, ""), true);
  const std::vector<double> gold = solve_kind_gold(ring);
  const double bound = kind_tolerance<T>(ring.dims, condition_bound(ring));
  EXPECT_LE(compare(r.x, host).max_abs / max_magnitude(host), bound);
  EXPECT_LE(compare(r.x, gold).max_abs / max_magnitude(gold), bound);
}

TEST(TridiagLong, DevicePiecesOfARingMatchThePartitionOnTheSameCut) {
  PARASOL_REQUIRE_GPU();
  // 256 * 293 + 200: the ring's chain of 586 rows reduced on the device, its ends coupling each
  // other only on the host.
  for (const std::int64_t n : {3, 4, 255, 257, 515, 3001, 256 * 293 + 200})
    for (const std::int64_t systems : {1, 3}) {
      expect_ring_near_the_partition<float>(n, systems);
      expect_ring_near_the_partition<double>(n, systems);
    }
}

TEST(TridiagLong, ADevicePivotOfZeroNamesItsSystem) {
  PARASOL_REQUIRE_GPU();
  comm::Context context;
  Batch<float> batch = random_batch<float>({600, 3, Layout::contiguous}, test::kSeed);
  batch.b[600] = 0;  // system 1's first pivot
  try {
    solve_long_gpu(context, rows_part_of(batch, comm::even_slab(600, 0, 1)));
    ADD_FAILURE() << "expected a NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_EQ(e.system(), 1) << e.what();
  }
}

}  // namespace
}  // namespace parasol::tridiag
