// montecarlo around its solvers: work, memory, ranks, checks and sweeps (run.hpp).
#include "solvers/montecarlo/run.hpp"

#include <algorithm>
#include <chrono>

#include "io/checkpoint.hpp"
#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"

#include "solvers/montecarlo/check.hpp"

namespace parasol::montecarlo {

double path_steps(const Params& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

double path_steps(const BasketParams& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

double sample_path_bytes(const Params& p) {
  return 2.0 * sizeof(float) * static_cast<double>(p.sample_paths) *
         static_cast<double>(p.steps + 1);
}

double host_rng_bytes(const Params& p) {
  const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
  return 2.0 * sizeof(float) * static_cast<double>(p.steps) * batch + sample_path_bytes(p);
}

bool cuts_whole_batches(const Params& p, bool gpu) { return gpu && p.variant == Variant::host_rng; }

Samples stored_rows(const Params& p, Samples part) {
  const std::int64_t first = std::min(part.first, p.sample_paths);
  const std::int64_t last = std::min(part.first + part.count, p.sample_paths);
  return {first, last - first};
}

Result whole_run(comm::Context& context, const Params& p, Result mine) {
  if (context.size() == 1) return mine;
  // What each rank adds to the run: its payoff sums and its seconds.
  struct Share {
    PayoffSums sums;
    double seconds = 0;
  };
  Share whole;
  for (const Share& s : context.all_gather(Share{mine.sums, mine.seconds})) {
    whole.sums.sum += s.sums.sum;
    whole.sums.sum_sq += s.sums.sum_sq;
    whole.sums.count += s.sums.count;
    whole.seconds = std::max(whole.seconds, s.seconds);
  }
  mine.sums = whole.sums;
  mine.estimate = estimate_from(whole.sums, price_unit(p));
  mine.seconds = whole.seconds;
  return mine;
}

namespace {

// Samples a batch holds (a sample is a path, or an antithetic pair), as the Simulator cuts them.
std::int64_t batch_samples(const Params& p) {
  return std::max<std::int64_t>(1, p.antithetic ? p.batch_paths / 2 : p.batch_paths);
}

}  // namespace

std::int64_t batch_rounds(const Params& p, int ranks, bool whole_batches) {
  const std::int64_t most = samples_of(p, 0, ranks, whole_batches).count;
  const std::int64_t batch = batch_samples(p);
  return (most + batch - 1) / batch;
}

Samples Streams::samples(const Params& p, bool whole_batches) const {
  if (count <= 0) return {0, 0};
  const Samples first_part = samples_of(p, first, ranks, whole_batches);
  const Samples last_part = samples_of(p, first + count - 1, ranks, whole_batches);
  return {first_part.first, last_part.first + last_part.count - first_part.first};
}

Result solve_in_rounds(const Params& p, bool gpu, const ProgressCallback& progress,
                       const Streams& streams, std::int64_t rounds, const Checkpoints& checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t copies = p.antithetic ? 2 : 1;
  const bool whole_batches = cuts_whole_batches(p, gpu);
  const std::int64_t batch = batch_samples(p);
  const std::size_t row = 2 * (static_cast<std::size_t>(p.steps) + 1);
  const std::int64_t total = streams.samples(p, whole_batches).count;
  Result whole;
  // Both phases even where no batch runs (a rank without samples, a restart at its end).
  whole.timings.add(kGeneratePhase, 0);
  whole.timings.add(kPathsPhase, 0);
  std::int64_t round = 0;
  if (const State* from = checkpoints.from) {
    round = from->rounds;
    whole.sums = from->sums;
    whole.sample = *from->sample;
  } else {
    whole.sample.assign(static_cast<std::size_t>(p.sample_paths) * row, 0.0f);
  }
  // Samples done before this run's, for the progress line: every stream's first `round` batches.
  std::int64_t done = 0;
  for (int s = streams.first; s < streams.first + streams.count; ++s)
    done += std::min(round * batch, samples_of(p, s, streams.ranks, whole_batches).count);
  while (round < rounds) {
    for (int s = streams.first; s < streams.first + streams.count; ++s) {
      // Whole batches from the stream's start, as one solve of its samples cuts them: host-rng's
      // generator is then set where that solve's would be.
      const Samples part = samples_of(p, s, streams.ranks, whole_batches);
      const Samples batch_part{
          part.first + round * batch,
          std::max<std::int64_t>(0, std::min(batch, part.count - round * batch))};
      if (batch_part.count == 0) continue;
      const ProgressCallback shifted = [&](const Progress& pr) {
        if (progress) progress({copies * done + pr.paths, copies * total, seconds_since(start)});
      };
      const Result r = gpu ? solve_gpu(p, shifted, batch_part) : solve_gold(p, shifted, batch_part);
      // Integers: added in any order they are the one solve's sums.
      whole.sums.sum += r.sums.sum;
      whole.sums.sum_sq += r.sums.sum_sq;
      whole.sums.count += r.sums.count;
      whole.timings.add(r.timings);
      const Samples rows = stored_rows(p, batch_part);
      std::copy(r.sample.begin() + static_cast<std::ptrdiff_t>(rows.first * row),
                r.sample.begin() + static_cast<std::ptrdiff_t>((rows.first + rows.count) * row),
                whole.sample.begin() + static_cast<std::ptrdiff_t>(rows.first * row));
      done += batch_part.count;
    }
    ++round;
    if (!checkpoints.at) continue;
    const AtSafePoint a = checkpoints.at(round);
    if (a != AtSafePoint::go_on) checkpoints.save({round, streams, whole.sums, &whole.sample});
    if (a == AtSafePoint::save_and_stop) break;
  }
  whole.estimate = estimate_from(whole.sums, price_unit(p));
  whole.seconds = seconds_since(start);
  return whole;
}

Agreement check_run(const Params& p, const Estimate& estimate, bool gpu, Samples part,
                    comm::Context& context, const ProgressCallback& progress) {
  if (!gpu) return agreement(estimate, estimate);
  return agreement(estimate, whole_run(context, p, solve_gold(p, progress, part)).estimate);
}

std::vector<Params> sweep_configurations(const Params& p) {
  std::vector<Params> configurations;
  for (Variant v : kVariants)
    for (int block : kBlockSizes) {
      Params q = p;
      q.variant = v;
      q.block = block;
      if (v == Variant::device_rng) {
        configurations.push_back(q);
        continue;
      }
      for (Ordering o : {Ordering::legacy, Ordering::dynamic}) {
        q.ordering = o;
        configurations.push_back(q);
      }
    }
  return configurations;
}

double lsm_device_bytes(const BasketParams& p) {
  const auto dates = static_cast<int>(p.exercise_schedule().size());
  return 4.0 * static_cast<double>(p.paths) * (dates + 2) + lsm_gram_bytes(p.paths, dates);
}

BasketParams basket_sweep_gold_params(BasketParams p) {
  p.paths = std::min(p.paths, kBasketSweepGoldPaths);
  return p;
}

std::vector<BasketVariant> sweep_variants(const BasketParams& p) {
  std::vector<BasketVariant> variants;
  for (BasketVariant v : kBasketVariants)
    if (v != BasketVariant::registers || p.assets() <= kRegistersUpTo) variants.push_back(v);
  return variants;
}

std::optional<Agreement> agreement_with_exact(const BasketParams& p, const Estimate& price) {
  if (p.payoff == BasketPayoff::geometric_basket)
    return agreement_with_exact(price, geometric_basket_price(p), 0.0,
                                "the geometric basket's closed form");
  if (early_exercise(p.payoff) && p.assets() == 1) {
    // 40 tree steps a simulation step: the CRR tree's error is far below the allowance.
    const double tree = binomial_put(p, 40, false);
    return agreement_with_exact(price, tree, kLsmBiasAllowance * tree,
                                "a binomial tree with the same exercise dates");
  }
  return std::nullopt;
}

Agreement check_run(const BasketParams& p, const Estimate& price, bool gpu) {
  if (std::optional<Agreement> exact = agreement_with_exact(p, price)) return *exact;
  if (!gpu) return agreement(price, price);
  return agreement(price, solve_basket_gold(p).price);
}

std::vector<std::pair<std::string, std::int64_t>> checkpoint_integers(const State& s,
                                                                      std::int64_t paths) {
  const auto half = [](Uint128 v, int shift) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> shift));
  };
  return {{"rounds", s.rounds},
          {"paths", paths},
          {"streams.ranks", s.streams.ranks},
          {"streams.first", s.streams.first},
          {"streams.count", s.streams.count},
          {"sums.sum_low", half(s.sums.sum, 0)},
          {"sums.sum_high", half(s.sums.sum, 64)},
          {"sums.sum_sq_low", half(s.sums.sum_sq, 0)},
          {"sums.sum_sq_high", half(s.sums.sum_sq, 64)},
          {"sums.count", s.sums.count}};
}

State resume(const Params& p, const Written& written, int rank, int ranks, bool whole_batches,
             std::vector<float>& sample) {
  const auto refused = [&](const std::string& why) {
    return InputError(written.source, "", "checkpoint refused: " + why);
  };
  State from;
  // The cut the batches follow is the first run's: a path count a restart changes would cut
  // the samples of several streams elsewhere.
  Streams& streams = from.streams;
  streams = {static_cast<int>(written.integer("streams.ranks")), 0, 0};
  if (streams.ranks > 1 && written.integer("paths") != p.paths)
    throw refused("paths.count is " + std::to_string(p.paths) + " here and " +
                  std::to_string(written.integer("paths")) + " in it, whose batches follow " +
                  std::to_string(streams.ranks) + " ranks' cut of the paths");
  from.rounds = written.integer("rounds");
  const std::int64_t rounds = batch_rounds(p, streams.ranks, whole_batches);
  if (from.rounds > rounds)
    throw refused("it is past batch " + std::to_string(rounds) +
                  ", the last of paths.count = " + std::to_string(p.paths));
  const int n = written.parts, m = ranks, j = rank;
  const int first = n / m * j + std::min(j, n % m), count = n / m + (j < n % m ? 1 : 0);
  const std::size_t row = 2 * (static_cast<std::size_t>(p.steps) + 1);
  sample.assign(static_cast<std::size_t>(p.sample_paths) * row, 0.0f);
  for (int q = first; q < first + count; ++q) {
    const Streams s{static_cast<int>(written.part_integer("streams.ranks", q)),
                    static_cast<int>(written.part_integer("streams.first", q)),
                    static_cast<int>(written.part_integer("streams.count", q))};
    if (s.ranks != streams.ranks)
      throw refused("its ranks' batches follow different cuts (rank " + std::to_string(q) + "'s)");
    // A part with no streams (a rank past the count that began the run) adds nothing.
    if (s.count == 0) continue;
    if (streams.count == 0) streams.first = s.first;
    if (s.first != streams.first + streams.count)
      throw refused("its ranks' streams of batches do not follow one another (rank " +
                    std::to_string(q) + "'s)");
    streams.count += s.count;
    const auto whole = [&](const char* low, const char* high) {
      return (static_cast<Uint128>(static_cast<std::uint64_t>(written.part_integer(high, q)))
              << 64) |
             static_cast<std::uint64_t>(written.part_integer(low, q));
    };
    from.sums.sum += whole("sums.sum_low", "sums.sum_high");
    from.sums.sum_sq += whole("sums.sum_sq_low", "sums.sum_sq_high");
    from.sums.count += written.part_integer("sums.count", q);
    // Each part's stored paths are those among its streams' samples.
    const std::vector<float> part = written.sample(q);
    const Samples rows = stored_rows(p, s.samples(p, whole_batches));
    std::copy(part.begin() + static_cast<std::ptrdiff_t>(rows.first * row),
              part.begin() + static_cast<std::ptrdiff_t>((rows.first + rows.count) * row),
              sample.begin() + static_cast<std::ptrdiff_t>(rows.first * row));
  }
  from.sample = &sample;
  return from;
}

RankPart::RankPart(const Params& p, bool gpu, int rank, int ranks)
    : p_(p), gpu_(gpu), rank_(rank), ranks_(ranks), streams_{ranks, rank, 1} {}

std::set<std::string> RankPart::restart_may_change() const {
  if (ranks_ == 1) return {"paths.count"};
  return {};
}

void RankPart::use_checkpoints(bool enabled, const io::CheckpointReader* restart) {
  if (enabled) refuse_checkpoints(p_, gpu_);
  if (restart == nullptr) return;
  const io::CheckpointReader& r = *restart;
  const std::uint64_t size = sample_dims(p_)[0] * sample_dims(p_)[1] * 2;
  const Written written{r.path().string(), r.written_ranks(),
                        [&r](const std::string& name) { return r.integer(name); },
                        [&r](const std::string& name, int part) { return r.integer(name, part); },
                        [&r, size](int part) { return r.floats("sample", size, part); }};
  from_ = montecarlo::resume(p_, written, rank_, ranks_, whole_batches(), sample_);
  streams_ = from_->streams;
}

void RankPart::save(io::CheckpointWriter& w, const State& s) const {
  for (const auto& [name, value] : checkpoint_integers(s, p_.paths)) w.add(name, value);
  w.add("sample", *s.sample);
}

std::string RankPart::decomposition() const {
  return whole_batches() ? "whole batches of samples, by global sample index"
                         : "samples by global sample index";
}

Result RankPart::solve(const ProgressCallback& progress, const Checkpoints& points) const {
  if (!points.at)
    return gpu_ ? solve_gpu(p_, progress, samples()) : solve_gold(p_, progress, samples());
  return solve_in_rounds(p_, gpu_, progress, streams_, rounds(), points);
}

RankPart::SampleField RankPart::stored(const Result& r) const {
  const Samples rows = ranks_ == 1 ? Samples{0, p_.sample_paths} : stored_rows(p_, samples());
  SampleField f;
  f.dims = sample_dims(p_);
  f.first = static_cast<std::uint64_t>(rows.first);
  f.count = static_cast<std::uint64_t>(rows.count);
  f.values = r.sample.data() + rows.first * 2 * (p_.steps + 1);
  f.attributes = sample_attributes(p_);
  return f;
}

std::vector<std::uint64_t> sample_dims(const Params& p) {
  return {static_cast<std::uint64_t>(p.sample_paths), static_cast<std::uint64_t>(p.steps) + 1, 2};
}

}  // namespace parasol::montecarlo
