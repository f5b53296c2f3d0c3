// fftconv's runs below the front end (solvers/fftconv/run.hpp), on the CPU and one rank: a part
// made, solved and judged with what its caller gives (memory refused, complaints said, progress
// shown), a streamed part's pieces handed on in order, what a run records of its output, and a
// volume's part; and what a sweep refuses (study.hpp).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "solvers/fftconv/run.hpp"
#include "solvers/fftconv/study.hpp"
#include "tests/support.hpp"

namespace parasol::fftconv {
namespace {

// A chirp of `length` samples with a 31-tap Gaussian: seconds of gold on a CPU.
Params short_signal(std::int64_t length) {
  Params p;
  p.mode = Mode::same;
  p.signal.kind = SignalKind::chirp;
  p.signal.length = length;
  p.signal.noise = 0.05;
  return p;
}

// One rank on the CPU, with or without a check after.
Placement one_rank(bool check) {
  Placement where;
  where.check = check;
  return where;
}

std::vector<std::string> names(const Attributes& attributes) {
  std::vector<std::string> out;
  for (const auto& [name, value] : attributes) out.push_back(name);
  return out;
}

std::vector<std::string> phases(const PhaseTimer& timings) {
  std::vector<std::string> out;
  for (const auto& [phase, seconds] : timings.phases()) out.push_back(phase);
  return out;
}

TEST(FftconvRun, AStreamedPartHandsOnThePiecesOfTheWholeRunsOutputInOrder) {
  const Params whole_params = short_signal(5000);
  const Problem q = problem_of<float>(whole_params);
  RunPart<float> whole(whole_params, q, {whole_params.variant, whole_params.block},
                       one_rank(true));
  PhaseTimer whole_timings;
  whole.solve(whole_timings, {});
  comm::Context context;
  EXPECT_TRUE(whole.check(context).passed());

  Params streamed_params = whole_params;
  streamed_params.streamed = true;
  RunPart<float> streamed(streamed_params, q, {streamed_params.variant, streamed_params.block},
                          one_rank(true));
  std::vector<float> pieces;
  int finished = 0;
  PhaseTimer timings;
  streamed.solve(timings, {[&](std::int64_t offset, std::int64_t count, const float* values) {
                             // Each piece starts where the last ended.
                             EXPECT_EQ(offset, static_cast<std::int64_t>(pieces.size()));
                             pieces.insert(pieces.end(), values, values + count);
                           },
                           [&] { ++finished; }});
  EXPECT_EQ(finished, 1);
  EXPECT_TRUE(streamed.output().empty());  // nothing held whole
  // The CPU's pieces are the gold's windows, rounded: the whole gold's samples, bit for bit.
  EXPECT_EQ(pieces, whole.output());
  // Judged as they came, against the same gold.
  EXPECT_TRUE(streamed.check(context).passed());
  // A streamed run's phases say its reading and writing apart; its total is a rate's seconds.
  EXPECT_EQ(phases(timings), (std::vector<std::string>{"read", "compute", "write", "check"}));
  EXPECT_EQ(names(streamed.summary().second),
            (std::vector<std::string>{"gsamples_per_s", "total_s"}));
  EXPECT_EQ(names(whole.summary().second), (std::vector<std::string>{"gsamples_per_s"}));
  EXPECT_FALSE(whole.grid().has_value());  // a sidecar shows a volume's output alone
}

// On the device a streamed part runs overlap-save in pieces of method.piece, each judged against
// the gold's window as it comes; a whole run's output is judged after. Both pass, and across
// the pieces the output is the whole output (every sample written once, in order).
TEST(FftconvRun, OnTheDeviceAStreamedPartAndAWholeRunBothAgreeWithTheGold) {
  PARASOL_REQUIRE_GPU();
  Params p = short_signal(100003);  // a prime: the last piece and the last block are short
  p.variant = Variant::overlap_save;
  const Problem q = problem_of<float>(p);
  Placement where = one_rank(true);
  where.gpu = true;
  RunPart<float> whole(p, q, {p.variant, p.block}, where);
  PhaseTimer timings;
  whole.solve(timings, {});
  comm::Context context;
  EXPECT_TRUE(whole.check(context).passed());

  p.streamed = true;
  p.piece = 16384;
  RunPart<float> streamed(p, q, {p.variant, p.block}, where);
  std::int64_t next = 0;
  streamed.solve(timings, {[&](std::int64_t offset, std::int64_t count, const float*) {
                             EXPECT_EQ(offset, next);
                             next = offset + count;
                           },
                           [] {}});
  EXPECT_EQ(next, 100003);
  EXPECT_TRUE(streamed.check(context).passed());
  EXPECT_EQ(streamed.method(), "overlap-save streamed");
}

TEST(FftconvRun, TheCallerJudgesTheMemoryAndSeesTheProgress) {
  const Params p = short_signal(3000);
  const Problem q = problem_of<float>(p);
  Placement where = one_rank(false);
  std::vector<MemoryNeed> judged;
  where.fits = [&](const std::vector<MemoryNeed>& needs) { judged = needs; };
  std::vector<std::string> shown;
  where.shown = [&](const char* what, const std::function<void(const ProgressCallback&)>& body) {
    shown.push_back(what);
    body([](const Progress& pr) { EXPECT_LE(pr.done, pr.total); });
  };
  RunPart<float> part(p, q, {p.variant, p.block}, where);
  // The CPU gold's needs, as memory_needs lists them, before any operand is made.
  const std::vector<MemoryNeed> expected = memory_needs(p, q, sizeof(float), false, true);
  ASSERT_EQ(judged.size(), expected.size());
  for (std::size_t i = 0; i < judged.size(); ++i) EXPECT_EQ(judged[i].key, expected[i].key);
  PhaseTimer timings;
  part.solve(timings, {});
  EXPECT_EQ(shown, (std::vector<std::string>{"gold output sample"}));
}

TEST(FftconvRun, TheOutputsAttributesSayWhatRanAndWhereItLies) {
  Params p = short_signal(2000);
  const Problem q = problem_of<float>(p);
  RunPart<float> part(p, q, {p.variant, p.block}, one_rank(false));
  const Attributes a = part.output_attributes();
  EXPECT_EQ(names(a), (std::vector<std::string>{"mode", "operation", "batch", "filters",
                                                "signal_extent", "filter_extent", "variant",
                                                "layout", "offset", "units"}));
  EXPECT_EQ(std::get<std::string>(a[6].second), "cpu-gold");
  // "same": the output starts (taps - 1) / 2 into the full convolution.
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(a[8].second), (std::vector<std::int64_t>{0, 15}));
  EXPECT_EQ(part.output_dims(), (std::vector<std::uint64_t>{2000}));
  EXPECT_EQ(part.what().rfind("convolve (same) of 1 signal of 2000 samples", 0), 0u)
      << part.what();

  p.streamed = true;
  RunPart<float> streamed(p, q, {p.variant, p.block}, one_rank(false));
  const Attributes s = streamed.output_attributes();
  EXPECT_EQ(s[9].first, "streamed");
  EXPECT_EQ(streamed.method(), "overlap-save streamed");
}

TEST(FftconvRun, AVolumeRunsOnOneRankAndAgreesWithTheGold) {
  Params p = short_signal(12);
  p.signal.rows = 10;
  p.signal.depth = 6;
  p.filter.length = 3;
  p.filter.rows = 3;
  p.filter.depth = 3;
  ASSERT_TRUE(p.is_volume());

  Placement across = one_rank(false);
  across.ranks = 2;
  across.said = [](const InputError& e) { return InputError("a.toml:7", e.key(), e.expected()); };
  try {
    VolumePart<float> refused(p, across);
    FAIL() << "a volume across ranks was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "a.toml:7");  // said by the caller, at the key that sized the volume
    EXPECT_EQ(e.key(), size_key(p));
  }

  VolumePart<float> part(p, one_rank(true));
  PhaseTimer timings;
  part.solve(timings, {});
  comm::Context context;
  EXPECT_TRUE(part.check(context).passed());
  EXPECT_EQ(part.output_dims(), (std::vector<std::uint64_t>{6, 10, 12}));  // same: the signal's
  ASSERT_TRUE(part.grid().has_value());
  EXPECT_EQ(part.grid()->points, (std::array<std::uint64_t, 3>{12, 10, 6}));
  EXPECT_EQ(part.grid()->origin, (std::array<double, 3>{0, 0, 0}));  // same: over the signal
  EXPECT_EQ(std::get<std::string>(part.output_attributes()[2].second), "cpu-gold");
}

TEST(FftconvRun, ASweepRefusesAStreamedRunAndAVolumeAtTheirKeys) {
  Params streamed = short_signal(1000);
  streamed.streamed = true;
  try {
    check_sweepable(streamed);
    FAIL() << "a streamed sweep was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.streamed");
    EXPECT_TRUE(e.source().empty());  // the front end adds the file's line
  }
  Params volume = short_signal(8);
  volume.signal.depth = 4;
  try {
    check_sweepable(volume);
    FAIL() << "a volume's sweep was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), volume_key(volume));
  }
  EXPECT_NO_THROW(check_sweepable(short_signal(1000)));
}

TEST(FftconvRun, WithNoChoiceStoredAutoRunsWhatTheProblemPicks) {
  const Params p = short_signal(1000);
  const std::string said = auto_fallback(problem_of<float>(p), sizeof(float));
  EXPECT_EQ(said, "the variant auto picks (" +
                      std::string(name(choose_variant(problem_of<float>(p), sizeof(float)))) +
                      ")");
}

}  // namespace
}  // namespace parasol::fftconv
