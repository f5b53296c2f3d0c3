// tridiag's systems cut among ranks, and a run's diagnostics and check made the whole run's.
#include "solvers/tridiag/run.hpp"

#include <algorithm>
#include <optional>

#include "comm/over_ranks.hpp"
#include "kernels/error.hpp"
#include "solvers/tridiag/check.hpp"

namespace parasol::tridiag {

comm::Slab system_share(std::int64_t systems, int rank, int ranks, const std::string& key,
                        const std::string& noun) {
  if (systems < ranks)
    throw InputError("", key,
                     std::to_string(systems) + " " + noun + " cannot be cut among " +
                         std::to_string(ranks) + " ranks (each needs at least one); run fewer " +
                         "ranks or more " + noun);
  return comm::even_slab(systems, rank, ranks);
}

Heat heat_share(const Heat& heat, int rank, int ranks) {
  const comm::Slab mine = system_share(heat.grids, rank, ranks, "heat.grids", "grids");
  Heat part = heat;
  part.grids = mine.count();
  part.first_grid = mine.begin;
  return part;
}

template <class T>
Diagnostics batch_diagnostics(const std::vector<T>& x) {
  Diagnostics d;
  d.high = max_magnitude(x);
  return d;
}

template <class T>
Diagnostics heat_diagnostics(const Heat& heat, const std::vector<T>& u) {
  Diagnostics d;
  const auto [low, high] = std::minmax_element(u.begin(), u.end());
  d.low = static_cast<double>(*low);
  d.high = static_cast<double>(*high);
  const std::optional<SineDecay> decay = sine_decay(heat, u);
  d.has_decay = decay.has_value();
  if (decay) d.decay = *decay;
  return d;
}

Diagnostics combine(const std::vector<Diagnostics>& ranks) {
  Diagnostics d = ranks.at(0);
  for (const Diagnostics& r : ranks) {
    d.low = std::min(d.low, r.low);
    d.high = std::max(d.high, r.high);
    if (r.has_decay && r.decay.relative_error > d.decay.relative_error) d.decay = r.decay;
  }
  return d;
}

Diagnostics over_ranks(comm::Context& context, const Diagnostics& mine) {
  return combine(context.all_gather(mine));
}

template <class T>
Agreement march_agreement(comm::Context& context, const Heat& heat, const std::vector<T>& u,
                          const std::vector<double>& gold) {
  const FieldDifference d = comm::over_ranks(context, compare(u, gold), u.size(),
                                             static_cast<std::uint64_t>(heat.grids * heat.points));
  const double scale = comm::max_over_ranks(context, max_magnitude(gold));
  // A ring's solves are periodic ones: kind_tolerance's factor on the same bound.
  const double condition = condition_bound(heat) * (heat.ring ? kPeriodicFactor : 1);
  return agreement<T>(d, scale, condition, heat.points, heat.steps);
}

template <class T>
Agreement batch_agreement(comm::Context& context, const Batch<T>& batch, std::int64_t systems,
                          const std::vector<T>& x, const std::vector<double>& gold) {
  const std::int64_t n = batch.dims.n;
  const FieldDifference d = comm::over_ranks(context, compare(x, gold), x.size(),
                                             static_cast<std::uint64_t>(systems * n));
  const double scale = comm::max_over_ranks(context, max_magnitude(gold));
  ConditionTerms c = condition_terms(batch);
  if (context.size() > 1) {
    c.norm = context.all_reduce(c.norm, comm::Op::max);
    c.margin = context.all_reduce(c.margin, comm::Op::min);
  }
  return agreement<T>(d, scale, c.bound(), n);
}

template <class T>
Agreement kind_batch_agreement(comm::Context& context, const KindBatch<T>& batch,
                               std::int64_t systems, const std::vector<T>& x,
                               const std::vector<double>& gold) {
  const FieldDifference d =
      comm::over_ranks(context, compare(x, gold), x.size(),
                       static_cast<std::uint64_t>(systems * batch.dims.rhs_width()));
  const double scale = comm::max_over_ranks(context, max_magnitude(gold));
  ConditionTerms c = condition_terms(batch);
  if (context.size() > 1) {
    c.norm = context.all_reduce(c.norm, comm::Op::max);
    c.margin = context.all_reduce(c.margin, comm::Op::min);
  }
  return kind_agreement<T>(d, scale, batch.dims, c.bound());
}

template Agreement kind_batch_agreement<float>(comm::Context&, const KindBatch<float>&,
                                               std::int64_t, const std::vector<float>&,
                                               const std::vector<double>&);
template Agreement kind_batch_agreement<double>(comm::Context&, const KindBatch<double>&,
                                                std::int64_t, const std::vector<double>&,
                                                const std::vector<double>&);
template Diagnostics batch_diagnostics<float>(const std::vector<float>&);
template Diagnostics batch_diagnostics<double>(const std::vector<double>&);
template Diagnostics heat_diagnostics<float>(const Heat&, const std::vector<float>&);
template Diagnostics heat_diagnostics<double>(const Heat&, const std::vector<double>&);
template Agreement march_agreement<float>(comm::Context&, const Heat&, const std::vector<float>&,
                                          const std::vector<double>&);
template Agreement march_agreement<double>(comm::Context&, const Heat&, const std::vector<double>&,
                                           const std::vector<double>&);
template Agreement batch_agreement<float>(comm::Context&, const Batch<float>&, std::int64_t,
                                          const std::vector<float>&, const std::vector<double>&);
template Agreement batch_agreement<double>(comm::Context&, const Batch<double>&, std::int64_t,
                                           const std::vector<double>&, const std::vector<double>&);

}  // namespace parasol::tridiag
