// recurrence's series as a run holds it (solvers/recurrence/inputs.hpp): across ranks each rank's
// run is its part of the one-rank series, the runs cover it once, and the host's memory is asked
// for before each run is made; a run drawn on the device holds no elements on the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "solvers/recurrence/inputs.hpp"

namespace parasol::recurrence {
namespace {

// Three AR(1) series of an odd length: no cut falls on a segment's end.
Params three_series(ScanMode mode) {
  Params p;
  p.ar1.series = 3;
  p.ar1.length = 5001;  // four float scan tiles (4096 each), one a rank of four
  p.mode = mode;
  return p;
}

void runs_cover_the_series_once(bool gpu, ScanMode mode) {
  const Params p = three_series(mode);
  std::vector<std::int64_t> asked;
  const RunSeries<float> one =
      run_series<float>(p, gpu, true, 0, 1, [&](std::int64_t n) { asked.push_back(n); });
  EXPECT_FALSE(one.drawn);
  EXPECT_FALSE(one.part.has_value());
  EXPECT_EQ(asked, (std::vector<std::int64_t>{3 * 5001}));
  std::vector<float> s, u;
  for (int rank = 0; rank < 4; ++rank) {
    asked.clear();
    const RunSeries<float> r =
        run_series<float>(p, gpu, true, rank, 4, [&](std::int64_t n) { asked.push_back(n); });
    ASSERT_TRUE(r.part.has_value()) << "rank " << rank;
    EXPECT_EQ(asked, (std::vector<std::int64_t>{r.part->size()})) << "rank " << rank;
    // Every rank holds the whole's offsets and initial values, for rank 0 to write.
    EXPECT_EQ(r.series.offsets, one.series.offsets) << "rank " << rank;
    EXPECT_EQ(r.series.initial, one.series.initial) << "rank " << rank;
    EXPECT_EQ(r.part->first, static_cast<std::int64_t>(s.size())) << "rank " << rank;
    s.insert(s.end(), r.part->series.s.begin(), r.part->series.s.end());
    u.insert(u.end(), r.part->series.u.begin(), r.part->series.u.end());
  }
  EXPECT_EQ(s, one.series.s);
  EXPECT_EQ(u, one.series.u);
}

TEST(RecurrenceInputs, RunsAcrossRanksCoverTheSeriesOnceCutByElements) {
  runs_cover_the_series_once(false, ScanMode::fast);
}

TEST(RecurrenceInputs, RunsAcrossRanksCoverTheSeriesOnceCutByTiles) {
  runs_cover_the_series_once(true, ScanMode::reproducible);
}

TEST(RecurrenceInputs, ADrawnRunHoldsNoElementsOnTheHost) {
  const Params p = three_series(ScanMode::fast);
  const auto none = [](std::int64_t n) { ADD_FAILURE() << "host memory asked for " << n; };
  const RunSeries<float> one = run_series<float>(p, true, false, 0, 1, none);
  EXPECT_TRUE(one.drawn);
  EXPECT_TRUE(one.series.s.empty());
  EXPECT_EQ(one.series.offsets.back(), 3 * 5001);
  const RunSeries<float> part = run_series<float>(p, true, false, 1, 2, none);
  EXPECT_TRUE(part.drawn);
  ASSERT_TRUE(part.part.has_value());
  EXPECT_TRUE(part.part->series.s.empty());
  EXPECT_GT(part.part->first, 0);
}

}  // namespace
}  // namespace parasol::recurrence
