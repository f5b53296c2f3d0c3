// tridiag's kinds on the CPU (kinds.hpp): each kind's gold against a dense solve with partial
// pivoting on small systems, random, awkward-size and ill-conditioned (but dominant); the random
// systems' dominance and their shares drawn alone; the failures the gold names; the periodic heat
// ring against its exact decay and against a periodic batch; the parameters each kind takes; and a
// batch as a run makes, reads and solves it (problem.hpp, inputs.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/precision.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/inputs.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/partition.hpp"
#include "solvers/tridiag/problem.hpp"
#include "solvers/tridiag/sweep.hpp"
#include "tests/support.hpp"

namespace parasol::tridiag {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const Kind kOtherKinds[] = {Kind::periodic, Kind::multi_rhs, Kind::pentadiagonal, Kind::block2};

// The sizes worth trying for a kind: 1, 2, 3, odd, non-powers of two (a ring needs 3).
std::vector<std::int64_t> awkward_sizes(Kind k) {
  if (k == Kind::periodic) return {3, 4, 5, 17, 33};
  return {1, 2, 3, 5, 17, 33};
}

KindDims dims_of(Kind k, std::int64_t n, std::int64_t systems) {
  return {k, n, systems, k == Kind::multi_rhs ? 3 : 1};
}

using Dense = std::vector<std::vector<double>>;

// System m's matrix, written out in full from the kind's layout (kinds.hpp).
template <class T>
Dense dense_matrix(const KindBatch<T>& batch, std::int64_t m) {
  const KindDims& k = batch.dims;
  const std::int64_t n = k.n, rows = k.rows();
  Dense A(static_cast<std::size_t>(rows), std::vector<double>(static_cast<std::size_t>(rows), 0.0));
  const auto at = [&](int band, std::int64_t j) {
    return static_cast<double>(
        batch.bands[static_cast<std::size_t>(band)][static_cast<std::size_t>(m * k.band_width() + j)]);
  };
  const auto add = [&](std::int64_t r, std::int64_t c, double v) {
    A[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] += v;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    switch (k.kind) {
      case Kind::general:
      case Kind::periodic:
        add(i, (i + n - 1) % n, at(0, i));
        add(i, i, at(1, i));
        add(i, (i + 1) % n, at(2, i));
        break;
      case Kind::multi_rhs:
        if (i > 0) add(i, i - 1, at(0, i));
        add(i, i, at(1, i));
        if (i + 1 < n) add(i, i + 1, at(2, i));
        break;
      case Kind::pentadiagonal:
        for (int q = 0; q < 5; ++q) {
          const std::int64_t col = i + q - 2;
          if (col >= 0 && col < n) add(i, col, at(q, i));
        }
        break;
      case Kind::block2:
        for (int r = 0; r < 2; ++r)
          for (int c = 0; c < 2; ++c) {
            const std::int64_t e = 4 * i + 2 * r + c;
            if (i > 0) add(2 * i + r, 2 * (i - 1) + c, at(0, e));
            add(2 * i + r, 2 * i + c, at(1, e));
            if (i + 1 < n) add(2 * i + r, 2 * (i + 1) + c, at(2, e));
          }
        break;
    }
  }
  return A;
}

// Gaussian elimination with partial pivoting: an answer that owes nothing to band order.
std::vector<double> dense_solve(Dense A, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(A[r][col]) > std::abs(A[pivot][col])) pivot = r;
    std::swap(A[col], A[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = A[r][col] / A[col][col];
      for (std::size_t c = col; c < n; ++c) A[r][c] -= f * A[col][c];
      b[r] -= f * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= A[i][c] * x[c];
    x[i] = s / A[i][i];
  }
  return x;
}

// Every system's every right-hand side solved densely, laid out as the gold's x.
template <class T>
std::vector<double> dense_answer(const KindBatch<T>& batch) {
  const KindDims& k = batch.dims;
  const std::int64_t rows = k.rows(), width = k.rhs_width();
  std::vector<double> x(static_cast<std::size_t>(k.systems * width));
  for (std::int64_t m = 0; m < k.systems; ++m) {
    const Dense A = dense_matrix(batch, m);
    for (std::int64_t r = 0; r < width / rows; ++r) {
      std::vector<double> d(static_cast<std::size_t>(rows));
      for (std::int64_t i = 0; i < rows; ++i)
        d[static_cast<std::size_t>(i)] =
            static_cast<double>(batch.d[static_cast<std::size_t>(m * width + r * rows + i)]);
      const std::vector<double> xr = dense_solve(A, d);
      std::copy(xr.begin(), xr.end(), x.begin() + m * width + r * rows);
    }
  }
  return x;
}

using test::max_abs_difference;

// Shrinks every row's dominance margin to `margin` (times the off-diagonal sum plus a little):
// still strictly dominant, but with a condition bound of thousands.
template <class T>
void squeeze(KindBatch<T>& batch, double margin) {
  const KindDims& k = batch.dims;
  const int diagonal_band = k.kind == Kind::pentadiagonal ? 2 : 1;
  for (std::int64_t m = 0; m < k.systems; ++m)
    for (std::int64_t row = 0; row < k.rows(); ++row) {
      const RowWeight w = kind_row_weight(batch, m, row);
      const std::int64_t j =
          k.kind == Kind::block2 ? 4 * (row / 2) + 3 * (row % 2) : row;
      T& b = batch.bands[static_cast<std::size_t>(diagonal_band)]
                        [static_cast<std::size_t>(m * k.band_width() + j)];
      const double size = w.off + margin;
      b = static_cast<T>(b < 0 ? -size : size);
    }
}

template <class T>
void expect_gold_matches_dense(const KindBatch<T>& batch, double bound, const std::string& what) {
  const std::vector<double> gold = solve_kind_gold(batch);
  const std::vector<double> dense = dense_answer(batch);
  ASSERT_EQ(gold.size(), dense.size()) << what;
  EXPECT_LE(max_abs_difference(gold, dense), bound) << what << ", seed " << test::kSeed;
}

TEST(TridiagKindsGold, MatchesADenseSolveOnAwkwardSizes) {
  for (const Kind kind : kOtherKinds)
    for (const std::int64_t n : awkward_sizes(kind)) {
      const KindDims dims = dims_of(kind, n, 3);
      const std::string what = std::string(name(kind)) + " n " + std::to_string(n);
      // Every row has a margin of at least 1 and entries below 1 + 5 in size: cond <= 12, so
      // both solves in double agree to a few 1e-15.
      expect_gold_matches_dense(random_kind_batch<double>(dims, test::kSeed), 1e-12, what);
      expect_gold_matches_dense(random_kind_batch<float>(dims, test::kSeed), 1e-12, what + " float");
    }
}

TEST(TridiagKindsGold, MatchesADenseSolveWhenIllConditionedButDominant) {
  for (const Kind kind : kOtherKinds) {
    KindBatch<double> batch = random_kind_batch<double>(dims_of(kind, 31, 2), test::kSeed);
    squeeze(batch, 1e-3);
    const double condition = condition_bound(batch);
    EXPECT_GT(condition, 1000) << name(kind);
    EXPECT_TRUE(std::isfinite(condition)) << name(kind);
    // Both solves are backward stable: each is off by about cond x eps relative to max|x|.
    const std::vector<double> dense = dense_answer(batch);
    expect_gold_matches_dense(batch,
                              64 * condition * std::numeric_limits<double>::epsilon() *
                                  max_magnitude(dense),
                              std::string(name(kind)) + " squeezed");
  }
}

TEST(TridiagKindsGold, RandomSystemsAreDominantAndSharesAreDrawnAlone) {
  for (const Kind kind : kOtherKinds) {
    const KindDims whole = dims_of(kind, 13, 7);
    const KindBatch<float> all = random_kind_batch<float>(whole, test::kSeed);
    const ConditionTerms terms = condition_terms(all);
    EXPECT_GE(terms.margin, 1.0) << name(kind);  // as stored in float
    // Systems 2..5 drawn alone are the whole batch's.
    KindDims part = whole;
    part.systems = 4;
    const KindBatch<float> share = random_kind_batch<float>(part, test::kSeed, 2);
    for (std::size_t q = 0; q < all.bands.size(); ++q) {
      const auto begin = all.bands[q].begin() + 2 * whole.band_width();
      EXPECT_TRUE(std::equal(share.bands[q].begin(), share.bands[q].end(), begin)) << name(kind);
    }
    EXPECT_TRUE(std::equal(share.d.begin(), share.d.end(), all.d.begin() + 2 * whole.rhs_width()))
        << name(kind);
    // Another seed, other systems.
    EXPECT_NE(random_kind_batch<float>(whole, test::kSeed + 1).d, all.d) << name(kind);
  }
}

TEST(TridiagKindsGold, ManyRightHandSidesAreSolvedEachAlone) {
  const KindBatch<double> batch = random_kind_batch<double>({Kind::multi_rhs, 20, 3, 4}, test::kSeed);
  const std::vector<double> x = solve_kind_gold(batch);
  // Right-hand side r of system m, as a periodic-free tridiagonal system of its own: the same
  // answer as a general batch of one system.
  for (std::int64_t m = 0; m < 3; ++m)
    for (int r = 0; r < 4; ++r) {
      Batch<double> one;
      one.dims = {20, 1, Layout::contiguous};
      for (int q = 0; q < 3; ++q) {
        auto& band = q == 0 ? one.a : q == 1 ? one.b : one.c;
        band.assign(batch.bands[static_cast<std::size_t>(q)].begin() + m * 20,
                    batch.bands[static_cast<std::size_t>(q)].begin() + (m + 1) * 20);
      }
      one.d.assign(batch.d.begin() + (m * 4 + r) * 20, batch.d.begin() + (m * 4 + r + 1) * 20);
      const std::vector<double> alone = solve_gold(one);
      EXPECT_EQ(std::vector<double>(x.begin() + (m * 4 + r) * 20, x.begin() + (m * 4 + r + 1) * 20),
                alone)
          << "system " << m << " rhs " << r;
    }
}

TEST(TridiagKindsGold, ZeroPivotsAndNonFiniteValuesNameTheSystem) {
  for (const Kind kind : kOtherKinds) {
    KindBatch<double> batch = random_kind_batch<double>(dims_of(kind, 6, 4), test::kSeed);
    const int diagonal = kind == Kind::pentadiagonal ? 2 : 1;
    // System 2's diagonal all zero: its first pivot (block) vanishes.
    for (std::int64_t j = 0; j < batch.dims.band_width(); ++j)
      batch.bands[static_cast<std::size_t>(diagonal)][static_cast<std::size_t>(2 * batch.dims.band_width() + j)] = 0;
    try {
      solve_kind_gold(batch);
      ADD_FAILURE() << name(kind) << ": expected a NumericalError";
    } catch (const NumericalError& e) {
      EXPECT_EQ(e.system(), 2) << name(kind);
      EXPECT_TRUE(contains(e.what(), "system 2")) << e.what();
    }
    batch = random_kind_batch<double>(dims_of(kind, 6, 4), test::kSeed);
    batch.d[static_cast<std::size_t>(batch.dims.rhs_width() + 1)] =
        std::numeric_limits<double>::quiet_NaN();
    try {
      solve_kind_gold(batch);
      ADD_FAILURE() << name(kind) << ": expected a NumericalError";
    } catch (const NumericalError& e) {
      EXPECT_EQ(e.system(), 1) << name(kind);
      EXPECT_TRUE(contains(e.what(), "non-finite")) << e.what();
    }
  }
}

TEST(TridiagKindsGold, DimsEachKindRefuses) {
  const auto refused = [](const KindDims& d, const std::string& part) {
    try {
      check_kind_dims(d, "f.h5", "input.file");
      ADD_FAILURE() << "expected an InputError: " << part;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "input.file");
      EXPECT_TRUE(contains(e.what(), part)) << e.what();
    }
  };
  refused({Kind::periodic, 2, 4, 1}, "n >= 3");
  refused({Kind::periodic, 1, 4, 1}, "n >= 3");
  refused({Kind::multi_rhs, 8, 4, 0}, "at least one right-hand side");
  refused({Kind::pentadiagonal, 8, 4, 2}, "take one right-hand side");
  EXPECT_NO_THROW(check_kind_dims({Kind::periodic, 3, 4, 1}, "", ""));
  EXPECT_NO_THROW(check_kind_dims({Kind::pentadiagonal, 1, 4, 1}, "", ""));
  EXPECT_THROW(random_kind_batch<float>({Kind::general, 4, 4, 1}, 1), Error);
}

TEST(TridiagKindsCheck, ToleranceCountsScalarRowsAndAPeriodicSolveTwice) {
  const double cond = 6;
  EXPECT_EQ(kind_tolerance<float>({Kind::pentadiagonal, 64, 1, 1}, cond),
            tolerance<float>(cond, 64));
  EXPECT_EQ(kind_tolerance<float>({Kind::block2, 64, 1, 1}, cond), tolerance<float>(cond, 128));
  EXPECT_EQ(kind_tolerance<double>({Kind::periodic, 64, 1, 1}, cond),
            2 * tolerance<double>(cond, 64));
  // The ring's corners count: a row of a ring whose corners are large is not dominant.
  KindBatch<double> ring = random_kind_batch<double>({Kind::periodic, 5, 1, 1}, test::kSeed);
  ring.bands[0][0] = 100;
  EXPECT_TRUE(std::isinf(condition_bound(ring)));
  // A kind's bytes: penta 7 values a row, block2 16 a block row, multi-rhs 3 + 2 rhs.
  EXPECT_EQ(kind_bytes_per_solve({Kind::pentadiagonal, 10, 2, 1}, 4), 7 * 4 * 20);
  EXPECT_EQ(kind_bytes_per_solve({Kind::block2, 10, 2, 1}, 4), 16 * 4 * 20);
  EXPECT_EQ(kind_bytes_per_solve({Kind::multi_rhs, 10, 2, 8}, 4), (3 + 16) * 4 * 20);
}

TEST(TridiagKindsHeat, RingSineModeDecaysByTheExactFactor) {
  Heat h;
  h.ring = true;
  h.points = 40;
  h.grids = 3;
  h.steps = 25;
  h.lambda = 0.7;
  h.mode = 3;
  const std::vector<double> u = march_heat_gold(h);
  const std::optional<SineDecay> decay = sine_decay(h, u);
  ASSERT_TRUE(decay.has_value());
  const double s = std::sin(3.14159265358979323846 * 3 / 40);
  EXPECT_DOUBLE_EQ(decay->per_step, 0.7 / (0.7 + 4 * s * s));
  EXPECT_LE(decay->relative_error, 1e-12);
}

TEST(TridiagKindsHeat, RingStepIsAPeriodicSolve) {
  Heat h;
  h.ring = true;
  h.points = 11;
  h.grids = 4;
  h.steps = 1;
  h.initial = Initial::random;
  h.lambda = 0.3;
  const KindBatch<double> ring = heat_ring_step<double>(h);
  EXPECT_EQ(ring.dims.kind, Kind::periodic);
  EXPECT_EQ(ring.dims.n, h.points);
  EXPECT_EQ(ring.dims.systems, h.grids);
  const std::vector<double> marched = march_heat_gold(h), solved = solve_kind_gold(ring);
  EXPECT_LE(max_abs_difference(marched, solved), 1e-14);
}

InputError rejection(const Params& p) {
  try {
    p.validate();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", "", "");
}

TEST(TridiagKindsParams, EachKindTakesItsVariantsAndSizes) {
  Params p;
  p.problem = Problem::random;
  p.random.n = 100;
  for (const Kind kind : kOtherKinds) {
    p.kind = kind;
    for (Variant v : kVariants) {
      p.variant = v;
      const std::vector<Variant> solvers = variants_for(kind);
      const bool takes = std::find(solvers.begin(), solvers.end(), v) != solvers.end();
      if (takes && v != Variant::pcr_warp) {
        EXPECT_NO_THROW(p.validate()) << name(kind) << " " << name(v);
      } else if (!takes) {
        const InputError e = rejection(p);
        EXPECT_EQ(e.key(), "method.variant") << e.what();
        EXPECT_TRUE(contains(e.what(), std::string(name(kind)) + " systems are solved by")) << e.what();
      }
    }
    EXPECT_EQ(default_variant(kind), Variant::thomas);
    EXPECT_EQ(kind_layout(kind, Variant::thomas), Layout::interleaved);
  }
  EXPECT_EQ(default_variant(Kind::general), Params{}.variant);
  EXPECT_EQ(kind_layout(Kind::periodic, Variant::thomas_pcr), Layout::contiguous);
  for (Kind k : kKinds) EXPECT_EQ(parse_kind(name(k)), k);
  EXPECT_EQ(name(Kind::multi_rhs), "multi-rhs");
}

// The kinds' on-chip thomas-pcr hold a system within one block: a launch asked for runs as asked
// when the kernel takes it, else as the nearest one it takes, and only a system no block holds is
// refused.
TEST(TridiagKindsParams, OnChipLaunchesAreTheNearestTheKernelTakes) {
  const auto resolved = [](Kind k, std::int64_t n, Launch asked, int bytes) {
    return resolve_kind_launch(asked, {k, n, 64, k == Kind::multi_rhs ? 8 : 1}, bytes);
  };
  const auto same = [](const Launch& a, const Launch& b) {
    return a.variant == b.variant && a.threads == b.threads && a.chunk == b.chunk;
  };
  // As asked: 256 block rows of chunk 2 in 128 threads, one system a block.
  EXPECT_TRUE(same(resolved(Kind::block2, 256, {Variant::thomas_pcr, 128, 2}, 4),
                   {Variant::thomas_pcr, 128, 2}));
  // A pentadiagonal system's rows paired: 512 rows are 256 block rows.
  EXPECT_TRUE(same(resolved(Kind::pentadiagonal, 512, {Variant::thomas_pcr, 128, 2}, 4),
                   {Variant::thomas_pcr, 128, 2}));
  // Chunk 16 is not compiled for blocks: the shortest that holds a system in the same threads.
  EXPECT_TRUE(same(resolved(Kind::block2, 256, {Variant::thomas_pcr, 64, 16}, 4),
                   {Variant::thomas_pcr, 64, 4}));
  // 1024 block rows need 128 threads of chunk 8 at the least: more threads than asked.
  EXPECT_TRUE(same(resolved(Kind::block2, 1024, {Variant::thomas_pcr, 64, 0}, 4),
                   {Variant::thomas_pcr, 128, 8}));
  // A block past the registers of multi-rhs chunk 16 in float (256 threads): a shorter chunk.
  const Launch many = resolved(Kind::multi_rhs, 4096, {Variant::thomas_pcr, 512, 16}, 4);
  EXPECT_EQ(many.threads, 512);
  EXPECT_LT(many.chunk, 16);
  EXPECT_GE(many.threads * many.chunk, 4096);
  // thomas takes every size and chunk 0, untouched.
  EXPECT_TRUE(same(resolved(Kind::block2, 100000, {Variant::thomas, 256, 0}, 4),
                   {Variant::thomas, 256, 0}));
  // No block holds 100000 block rows.
  try {
    resolved(Kind::block2, 100000, {Variant::thomas_pcr, 256, 0}, 4);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.variant") << e.what();
    EXPECT_NE(std::string(e.what()).find("use thomas"), std::string::npos) << e.what();
  }
}

TEST(TridiagKindsParams, BadKindsAndSizesNameTheirKey) {
  const auto expect_rejected = [](const Params& p, const std::string& key, const std::string& part) {
    const InputError e = rejection(p);
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
  };
  Params p;
  p.problem = Problem::random;
  p.kind = Kind::periodic;
  p.variant = Variant::thomas;
  p.random.n = 2;
  expect_rejected(p, "random.n", "n >= 3");
  p.random.n = 3;
  EXPECT_NO_THROW(p.validate());
  p.kind = Kind::multi_rhs;
  p.rhs = 0;
  expect_rejected(p, "system.rhs", "positive integer");
  p.kind = Kind::pentadiagonal;
  p.rhs = 4;
  expect_rejected(p, "system.rhs", "only system.kind = \"multi-rhs\"");
  p.rhs = 1;
  p.random.systems = 0;
  expect_rejected(p, "random.systems", "positive integer");
  // Heat makes general systems or rings only; a ring holds no ends.
  Params h;
  h.kind = Kind::block2;
  h.variant = Variant::thomas;
  expect_rejected(h, "system.kind", "heat problem");
  h.kind = Kind::periodic;
  h.heat.right = 1;
  expect_rejected(h, "heat.right", "no ends");
  h.heat.right = 0;
  h.heat.points = 2;
  expect_rejected(h, "heat.points", "n >= 3");
}

}  // namespace
}  // namespace parasol::tridiag

namespace parasol::tridiag {
namespace {

// The partition method (partition.hpp) against the gold: the reference a long system cut among
// ranks will be judged by. Pieces of two rows (the fewest), uneven cuts, one piece.
TEST(TridiagPartition, MatchesTheGoldOnEveryCut) {
  for (const std::int64_t n : {2, 3, 8, 9, 21, 100, 1000})
    for (const int pieces : {1, 2, 3, 4, 7, 16}) {
      if (n < 2 * pieces) continue;
      const Batch<double> batch = random_batch<double>({n, 3, Layout::contiguous}, test::kSeed);
      const std::vector<double> gold = solve_gold(batch), cut = solve_partitioned(batch, pieces);
      // Both in double on rows of condition bound <= 6: a few 1e-16 apart.
      double worst = 0;
      for (std::size_t k = 0; k < gold.size(); ++k) worst = std::max(worst, std::abs(gold[k] - cut[k]));
      EXPECT_LE(worst, 1e-13) << "n " << n << " pieces " << pieces;
    }
}

TEST(TridiagPartition, TooManyPiecesAndZeroPivotsAreNamed) {
  const Batch<double> batch = random_batch<double>({7, 2, Layout::contiguous}, test::kSeed);
  try {
    solve_partitioned(batch, 4);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "pieces");
    EXPECT_NE(std::string(e.what()).find("two rows"), std::string::npos) << e.what();
  }
  Batch<double> singular = batch;
  singular.b[7] = 0;  // system 1's first pivot
  singular.c[7] = 0;
  try {
    solve_partitioned(singular, 2);
    ADD_FAILURE() << "expected a NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_EQ(e.system(), 1) << e.what();
  }
}

}  // namespace
}  // namespace parasol::tridiag

namespace parasol::tridiag {
namespace {

// One long system cut among ranks (long.hpp), what one process can judge: the cut, a rank's
// rows drawn alone, and the solve on one rank. tests/ranks_tridiag_long_test.cpp runs it across
// ranks.
TEST(TridiagLong, TheCutIsEvenAmongRanksThenEvenAmongEachRanksPieces) {
  EXPECT_EQ(pieces_of(7, 0), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(pieces_of(100, 256), (std::vector<std::int64_t>{100}));  // fewer rows than a piece
  EXPECT_EQ(pieces_of(1000, 256), (std::vector<std::int64_t>{334, 333, 333}));
  EXPECT_EQ(long_cut(101, 3, 0, "random.n"), (std::vector<std::int64_t>{34, 34, 33}));
  // 2048 rows: 8 pieces of 256 on one rank, 4 on each of two: the same whole cut.
  EXPECT_EQ(long_cut(2048, 1, 256, ""), long_cut(2048, 2, 256, ""));
  const std::vector<std::int64_t> cut = long_cut(1300, 2, 256, "");  // 650: 2 pieces of 325
  EXPECT_EQ(cut, (std::vector<std::int64_t>{325, 325, 325, 325}));
  try {
    long_cut(5, 3, 0, "random.n");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "random.n");
    EXPECT_TRUE(contains(e.what(), "leaves rank 2 1")) << e.what();
  }
}

TEST(TridiagLong, AnyCutMatchesTheEvenCutItEquals) {
  const Batch<double> batch = random_batch<double>({50, 2, Layout::contiguous}, test::kSeed);
  EXPECT_EQ(solve_partitioned(batch, 4), solve_partitioned(batch, comm::even_planes(50, 4)));
  // An uneven cut of its own is within the gold's bound too.
  const std::vector<double> gold = solve_gold(batch);
  const std::vector<double> cut = solve_partitioned(batch, {2, 30, 3, 15});
  for (std::size_t k = 0; k < gold.size(); ++k) EXPECT_NEAR(cut[k], gold[k], 1e-13) << k;
  try {
    solve_partitioned(batch, {25, 1, 24});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "pieces");
  }
  EXPECT_THROW(solve_partitioned(batch, {25, 24}), InputError);  // 49 rows of 50
}

// Rings cut into pieces: the interface is a ring too (Sherman-Morrison), two rows with one piece.
TEST(TridiagLong, RingsByThePartitionMethodMatchThePeriodicGold) {
  for (const std::int64_t n : {3, 4, 8, 21, 100})
    for (const int pieces : {1, 2, 3, 7}) {
      if (n < 2 * pieces) continue;
      const Batch<double> ring = periodic_as_batch(
          random_kind_batch<double>({Kind::periodic, n, 3, 1}, test::kSeed));
      const std::vector<double> gold =
          solve_kind_gold(random_kind_batch<double>({Kind::periodic, n, 3, 1}, test::kSeed));
      const std::vector<double> cut = solve_partitioned(ring, comm::even_planes(n, pieces), true);
      double worst = 0;
      for (std::size_t k = 0; k < gold.size(); ++k) worst = std::max(worst, std::abs(gold[k] - cut[k]));
      // Both in double on rows of condition bound <= 6, Sherman-Morrison twice the rounding.
      EXPECT_LE(worst, 1e-13) << "n " << n << " pieces " << pieces;
    }
}

TEST(TridiagLong, ARanksRowsAreTheWholeBatchsRowsDrawnAlone) {
  const std::int64_t n = 37, systems = 3;
  const Batch<float> whole = random_batch<float>({n, systems, Layout::contiguous}, test::kSeed);
  for (int rank = 0; rank < 3; ++rank) {
    const comm::Slab mine = comm::even_slab(n, rank, 3);
    const RowsPart<float> drawn = random_rows_part<float>(n, systems, test::kSeed, mine);
    const RowsPart<float> taken = rows_part_of(whole, mine);
    EXPECT_EQ(drawn.first_row, mine.begin);
    EXPECT_EQ(drawn.batch.dims.n, mine.count());
    EXPECT_EQ(drawn.batch.a, taken.batch.a);
    EXPECT_EQ(drawn.batch.b, taken.batch.b);
    EXPECT_EQ(drawn.batch.c, taken.batch.c);
    EXPECT_EQ(drawn.batch.d, taken.batch.d);
  }
}

// Many pieces on one rank, as the device cuts them: the rank's chain of interface rows reduced
// to two and substituted back gives the interface solve_partitioned solves whole, to rounding;
// rings too.
TEST(TridiagLong, AChainOfPiecesInterfaceRowsSolvesAsTheWholeInterface) {
  comm::Context context;
  for (const bool periodic : {false, true})
    for (const std::int64_t n : {4, 9, 200, 1001}) {
      const std::int64_t systems = 2;
      const Batch<double> batch =
          periodic ? periodic_as_batch(random_kind_batch<double>({Kind::periodic, n, systems, 1},
                                                                 test::kSeed))
                   : random_batch<double>({n, systems, Layout::contiguous}, test::kSeed);
      const std::vector<std::int64_t> cut = pieces_of(n, 2 + n / 9);
      const auto pieces = static_cast<std::int64_t>(cut.size());
      std::vector<double> mine;
      std::vector<ReducedPiece> reduced;
      for (std::int64_t s = 0; s < systems; ++s) {
        std::int64_t begin = 0;
        for (const std::int64_t rows : cut) {
          std::vector<double> a(rows), b(rows), c(rows), d(rows);
          for (std::int64_t j = 0; j < rows; ++j) {
            const std::int64_t i = begin + j;
            const auto k = static_cast<std::size_t>(s * n + i);
            a[j] = i > 0 || periodic ? batch.a[k] : 0.0;
            b[j] = batch.b[k];
            c[j] = i < n - 1 || periodic ? batch.c[k] : 0.0;
            d[j] = batch.d[k];
          }
          reduced.push_back(reduce_piece(a.data(), b.data(), c.data(), d.data(), rows));
          const ReducedPiece& r = reduced.back();
          const auto last = static_cast<std::size_t>(rows - 1);
          mine.insert(mine.end(), {r.a[0], r.c[0], r.d[0], r.a[last], r.c[last], r.d[last]});
          begin += rows;
        }
      }
      const std::vector<double> ends = interface_across(context, mine, systems, pieces, periodic);
      std::vector<double> x(static_cast<std::size_t>(n * systems));
      for (std::int64_t s = 0, at = 0; s < systems; ++s)
        for (std::int64_t p = 0, begin = 0; p < pieces; ++p, ++at) {
          const auto q = static_cast<std::size_t>(at);
          substitute_piece(reduced[q], ends[2 * q], ends[2 * q + 1], begin,
                           &x[static_cast<std::size_t>(s * n + begin)]);
          begin += cut[static_cast<std::size_t>(p)];
        }
      const std::vector<double> whole = solve_partitioned(batch, cut, periodic);
      for (std::size_t k = 0; k < x.size(); ++k)
        EXPECT_NEAR(x[k], whole[k], 1e-13) << "n " << n << (periodic ? " ring" : "") << " at " << k;
    }
}

TEST(TridiagLong, OneRanksSolveIsTheOnePiecePartitionsBits) {
  comm::Context context;
  for (const std::int64_t n : {2, 3, 4, 57}) {
    const Batch<double> batch = random_batch<double>({n, 2, Layout::contiguous}, test::kSeed);
    const LongResult<double> r = solve_long(context, rows_part_of(batch, comm::even_slab(n, 0, 1)));
    EXPECT_EQ(r.x, solve_partitioned(batch, 1)) << "n " << n;
    if (n < 3) continue;
    const RowsPart<double> ring = random_ring_rows_part<double>(n, 2, test::kSeed, {0, n, {}});
    EXPECT_EQ(solve_long(context, ring).x, solve_partitioned(ring.batch, {n}, true)) << "n " << n;
  }
  Batch<double> singular = random_batch<double>({6, 2, Layout::contiguous}, test::kSeed);
  singular.b[6] = 0;  // system 1's first pivot
  try {
    solve_long(context, rows_part_of(singular, comm::even_slab(6, 0, 1)));
    ADD_FAILURE() << "expected a NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_EQ(e.system(), 1) << e.what();
  }
}

// A batch as a run makes and solves it (problem.hpp): on the CPU the gold, kept, and x rounded
// from it, for a general batch and for each kind.
TEST(TridiagProblem, ACpuSolveIsTheGoldKeptAndRounded) {
  const Batch<float> batch = random_batch<float>({17, 5, Layout::contiguous}, 3);
  const Solved<float> s = solve_on(false, Launch{}, batch);
  EXPECT_EQ(s.gold, solve_gold(batch));
  EXPECT_EQ(s.x, rounded<float>(s.gold));
  for (Kind k : kOtherKinds) {
    const KindBatch<float> kinds = random_kind_batch<float>(dims_of(k, 17, 5), 3);
    const Solved<float> r = solve_on(false, Launch{}, kinds);
    EXPECT_EQ(r.gold, solve_kind_gold(kinds)) << name(k);
    EXPECT_EQ(r.x, rounded<float>(r.gold)) << name(k);
  }
}

TEST(TridiagProblem, AKindsLaunchRefusesAVariantThatDoesNotSolveIt) {
  Params p;
  p.kind = Kind::multi_rhs;
  p.variant = Variant::pcr_warp;
  try {
    (void)launch_for(p, 64, 10, 4);
    ADD_FAILURE() << "pcr-warp does not solve multi-rhs systems";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.variant");
    EXPECT_TRUE(contains(e.expected(), "multi-rhs systems are not solved by pcr-warp"))
        << e.expected();
  }
  // A kind's thomas solves the interleaved layout, and a general pcr-warp picks its chunk.
  p.variant = Variant::thomas;
  EXPECT_EQ(launch_for(p, 64, 10, 4).variant, Variant::thomas);
  p.kind = Kind::general;
  p.variant = Variant::pcr_warp;
  EXPECT_NE(launch_for(p, 64, 10, 4).chunk, 0);
  // Another kind's launch is the one its solver runs (resolve_kind_launch), so that /method and
  // the summary name it: block2's block kernels lack chunk 16 and run 64 threads of chunk 4.
  p.kind = Kind::block2;
  p.variant = Variant::thomas_pcr;
  p.threads = 64;
  p.chunk = 16;
  const Launch l = launch_for(p, 256, 64, 4);
  EXPECT_EQ(l.threads, 64);
  EXPECT_EQ(l.chunk, 4);
}

TEST(TridiagProblem, ExtentFootprintAndProblemClassSayTheKind) {
  EXPECT_EQ(extent(Dims{1024, 4096}), "4096 systems of 1024 rows");
  EXPECT_EQ(extent(KindDims{Kind::block2, 8, 3, 1}), "3 block2 systems of 8 rows");
  // Five arrays of floats on the device; six, and seven doubles a value for the gold, on the host.
  const Footprint f = footprint(Dims{10, 3}, 4, true);
  EXPECT_EQ(f.device, 5.0 * 4 * 30);
  EXPECT_EQ(f.host, (6.0 * 4 + 7.0 * 8) * 30);
  Params p;
  EXPECT_EQ(problem_class(p, 1024, 65536), "n=1024,systems=65536");
  p.kind = Kind::multi_rhs;
  p.rhs = 8;
  EXPECT_EQ(problem_class(p, 16, 2), "n=16,systems=2,kind=multi-rhs,rhs=8");
  EXPECT_EQ(method_of({Variant::thomas_pcr, 256, 8}), "thomas-pcr, 256 threads, chunk 8");
}

// inputs/tridiag-systems.h5's a, b, c and d read as a general batch, as one rank's share of it,
// and as periodic systems: the same values.
TEST(TridiagInputs, ABatchItsSharesAndItsRingHoldTheFilesValues) {
  FileInput input;
  input.file = std::string(PARASOL_SOURCE_DIR) + "/inputs/tridiag-systems.h5";
  const Batch<double> whole = read_batch<double>(input);
  ASSERT_GE(whole.dims.systems, 2);
  const BatchPart<double> second = read_batch_part<double>(input, 1, 2);
  EXPECT_EQ(second.systems, whole.dims.systems);
  EXPECT_EQ(second.first, (whole.dims.systems + 1) / 2);
  const auto at = static_cast<std::ptrdiff_t>(second.first * whole.dims.n);
  EXPECT_TRUE(std::equal(second.batch.d.begin(), second.batch.d.end(), whole.d.begin() + at));
  const KindBatch<double> ring = read_kind_batch_part<double>(input, Kind::periodic, 1, 0, 1).batch;
  EXPECT_EQ(ring.bands[1], whole.b);
  EXPECT_EQ(ring.d, whole.d);
  input.d = "no-such-dataset";
  try {
    (void)read_batch<double>(input);
    ADD_FAILURE() << "a missing dataset is an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "input.d");
  }
}

// The batch a sweep times (sweep.hpp), made on the host: the run's batch, its memory judged before
// the gold, and only the launches of variants that solve its kind.
TEST(TridiagSweptBatch, AKindsBatchItsGoldAndTheLaunchesOfItsVariants) {
  Params p;
  p.problem = Problem::random;
  p.kind = Kind::multi_rhs;
  p.rhs = 3;
  p.random.n = 40;
  p.random.systems = 6;
  SweepParams s;
  s.variants = {Variant::pcr_warp, Variant::thomas};
  s.threads = {64};
  std::string judged;
  const SweptBatch<double> batch(p, s, [&](const Footprint& f, const std::string& what) {
    EXPECT_GT(f.device, 0);
    judged = what;
  });
  EXPECT_EQ(judged, "6 multi-rhs systems of 40 rows");
  EXPECT_EQ(batch.described(), "6 multi-rhs systems of 40 rows x 3 right-hand sides");
  EXPECT_EQ(batch.unknowns(), 6.0 * 3 * 40);
  ASSERT_EQ(batch.configurations().size(), 1u);  // pcr-warp solves no multi-rhs system
  EXPECT_EQ(batch.configurations()[0].launch.variant, Variant::thomas);
  EXPECT_EQ(batch.tolerance(), kind_tolerance<double>(batch.dims(), batch.condition()));
  EXPECT_TRUE(contains(batch.unsolvable(), "(thomas, thomas-pcr, pcr-shared solve them)")) << batch.unsolvable();
}

// What a sweep's header and /sweep say of the batch, and the configurations as Params.
TEST(TridiagSweptBatch, SaysItsPrecisionItsBytesAndItsLaunchesAsParams) {
  Params p;
  p.problem = Problem::random;
  p.random.n = 40;
  p.random.systems = 6;
  SweepParams s;
  s.variants = {Variant::thomas, Variant::pcr_shared};
  s.threads = {64};
  const SweptBatch<float> batch(p, s, [](const Footprint&, const std::string&) {});
  EXPECT_EQ(batch.header(), batch.described() + ", float");
  const Attributes a = batch.attributes();
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a[0].first, "bytes_per_solve");
  EXPECT_EQ(std::get<double>(a[0].second), batch.bytes_per_solve());
  const std::vector<Params> configs = batch.launch_params(p);
  ASSERT_EQ(configs.size(), batch.configurations().size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    EXPECT_EQ(configs[i].variant, batch.configurations()[i].launch.variant);
    EXPECT_EQ(configs[i].threads, batch.configurations()[i].launch.threads);
  }
}

// A kind's sweep rows are the launches its solver runs: block2's thomas-pcr asked for chunks 8
// and 16 in 64 threads runs chunk 8 and, for 16 (not compiled for blocks), chunk 4: two rows,
// each named as it runs.
TEST(TridiagSweptBatch, AKindsRowsNameTheLaunchesThatRun) {
  Params p;
  p.problem = Problem::random;
  p.kind = Kind::block2;
  p.random.n = 256;
  p.random.systems = 4;
  SweepParams s;
  s.variants = {Variant::thomas_pcr};
  s.threads = {64};
  s.chunks = {8, 16};
  const SweptBatch<float> batch(p, s, [](const Footprint&, const std::string&) {});
  std::vector<int> chunks;
  for (const Configuration& c : batch.configurations()) {
    EXPECT_EQ(c.launch.variant, Variant::thomas_pcr);
    EXPECT_EQ(c.launch.threads, 64);
    chunks.push_back(c.launch.chunk);
  }
  EXPECT_EQ(chunks, (std::vector<int>{8, 4}));
}

}  // namespace
}  // namespace parasol::tridiag
