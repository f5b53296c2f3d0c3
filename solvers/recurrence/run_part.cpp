#include "solvers/recurrence/run_part.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "comm/over_ranks.hpp"
#include "kernels/finite.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/printable.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/problems.hpp"

namespace parasol::recurrence {

const char* size_key(const Params& p) { return p.problem == Problem::ar1 ? "ar1" : "input.file"; }

template <class T>
MemoryNeed host_need(const Params& p, std::int64_t elements) {
  return {size_key(p), std::to_string(elements) + " elements need",
          (3.0 * sizeof(T) + 16.0) * static_cast<double>(elements), false};
}

template <class T>
MemoryNeed device_need(const Params& p, const Series<T>& series) {
  const std::int64_t n = series.offsets.empty() ? 0 : series.offsets.back();
  return {size_key(p),
          std::to_string(n) + " elements in " + std::string(name(p.precision)) + " need",
          1.01 * bytes_per_solve(n, sizeof(T)) +
              static_cast<double>(sizeof(std::int64_t) + sizeof(T)) *
                  static_cast<double>(series.segments() + 1),
          true};
}

std::pair<bool, std::string> reproducibility(const Params& p, bool gpu, int ranks) {
  if (!gpu)
    return {true, "the CPU gold runs the recurrence in order, the carry passed rank to rank"};
  if (p.mode == ScanMode::reproducible)
    return {true, "the reproducible scan composes tiles in a fixed tree, across ranks too"};
  return {false, ranks > 1 ? "the fast scan across ranks agrees within tolerance, not in bits"
                           : "the fast scan's look-back composes tiles in the order they finish"};
}

std::string v_layout(const std::vector<std::uint64_t>& dims) {
  return dims.size() == 2 ? "[segment][t], t fastest: row k is segment k"
                          : "[element]: segment k is elements offsets[k] to offsets[k + 1] - 1 "
                            "(/input/offsets)";
}

template <class T>
std::vector<Attribute> sweep_attributes(const Series<T>& series, double bytes, double chain) {
  return {{"bytes_per_element", bytes / static_cast<double>(series.size())},
          {"elements", series.size()},
          {"segments", series.segments()},
          {"tile_chain", chain},
          {"check_tolerance", tolerance<T>(chain)}};
}

template <class T>
RunPart<T>::RunPart(const Params& p, bool gpu, bool host_copy, int rank, int ranks,
                    const std::function<void(std::int64_t)>& require_host)
    : p_(p), gpu_(gpu), ranks_(ranks) {
  RunSeries<T> r = run_series<T>(p, gpu, host_copy, rank, ranks, require_host);
  series_ = std::move(r.series);
  part_ = std::move(r.part);
  drawn_ = r.drawn;
}

template <class T>
const char* RunPart<T>::decomposition() const {
  return cut_for(gpu_, p_.mode) == Cut::tiles ? "runs of whole scan tiles" : "runs of elements";
}

template <class T>
PhaseTimer RunPart<T>::solve(comm::Context& context, const ShowGold& show) {
  // Across ranks, this rank's run, with the carries exchanged: the exchange leads the phases.
  PhaseTimer t;
  if (across()) t.add(phase::exchange, 0);
  if (gpu_) {
    Result<T> r = across() ? solve_gpu_part(*part_, p_.mode, context, drawn())
                           : solve_gpu(series_, p_.mode, drawn());
    v_ = std::move(r.v);
    t.add(r.timings);
  } else {
    const auto start = std::chrono::steady_clock::now();
    double exchange = 0;
    if (across()) gold_ = solve_gold_part(*part_, context, &exchange);
    else show("element", [&](const ProgressCallback& pr) { gold_ = solve_gold(series_, pr); });
    t.add(phase::compute, seconds_since(start) - exchange);
    if (across()) t.add(phase::exchange, exchange);
    v_.assign(gold_.begin(), gold_.end());
  }
  compute_ = t.seconds(phase::compute);
  require_finite("recurrence: the output v", v_);
  // The range of v over every rank, for rank 0's summary (which waits on no one).
  range_ = {INFINITY, -INFINITY};
  for (const T x : v_) {
    range_.first = std::min(range_.first, static_cast<double>(x));
    range_.second = std::max(range_.second, static_cast<double>(x));
  }
  if (across()) {
    range_ = {context.all_reduce(range_.first, comm::Op::min),
              context.all_reduce(range_.second, comm::Op::max)};
    // The reproducible scan's two steps on the device, the slowest rank's each.
    steps_ = {max_over_ranks(context, t.seconds(kTileTotals)),
              max_over_ranks(context, t.seconds(kPrefixedScan))};
  }
  // They are compute's parts, which summary() says apart: not phases of the run.
  t.drop(kTileTotals);
  t.drop(kPrefixedScan);
  return t;
}

template <class T>
Summary RunPart<T>::summary() const {
  Summary s;
  const double rate = static_cast<double>(elements()) / compute_;
  s.timings = {{"gelements_per_s", 1e-9 * rate},
               {"gb_per_s", 1e-9 * bytes_per_solve(elements(), sizeof(T)) / compute_}};
  s.series = {{"problem", std::string(name(p_.problem))},
              {"elements", elements()},
              {"segments", series_.segments()}};
  if (p_.problem != Problem::ar1) s.series.push_back({"input_file", p_.input.file});
  if (across()) {
    // How a run learns what the runs before it ended on (ranks.hpp).
    const char* carry =
        !gpu_ ? "the exact value the rank before ended on, passed rank to rank"
        : p_.mode == ScanMode::reproducible
            ? "every rank's tile totals gathered and scanned by each rank as one rank would"
            : "an exclusive scan across ranks of each run's composed map";
    s.method.push_back({"carry", std::string(carry)});
    if (gpu_ && p_.mode == ScanMode::reproducible) {
      s.timings.push_back({std::string(kTileTotals) + "_s", steps_.first});
      s.timings.push_back({std::string(kPrefixedScan) + "_s", steps_.second});
    }
  }
  s.line = formatted("v from %.6g to %.6g; %.3g s, %.3f Gelements/s", range_.first, range_.second,
                     compute_, 1e-9 * rate);
  return s;
}

template <class T>
Agreement RunPart<T>::check(comm::Context& context, const ShowGold& show) {
  if (!across()) {
    if (gold_.empty())
      show("gold element",
           [&](const ProgressCallback& progress) { gold_ = solve_gold(series_, progress); });
    return agreement(v_, gold_, series_);
  }
  // Each rank judges its run by the gold's values there (the one-rank gold's bits). A CPU run's
  // result is the gold already; a GPU run's gold is made by every rank, as it is collective (a
  // run may be empty, so whether gold_ is empty cannot decide it).
  if (gpu_) gold_ = solve_gold_part(*part_, context);
  return agreement_part(*part_, v_, gold_, context);
}

template MemoryNeed host_need<float>(const Params&, std::int64_t);
template MemoryNeed host_need<double>(const Params&, std::int64_t);
template MemoryNeed device_need<float>(const Params&, const Series<float>&);
template MemoryNeed device_need<double>(const Params&, const Series<double>&);
template std::vector<Attribute> sweep_attributes<float>(const Series<float>&, double, double);
template std::vector<Attribute> sweep_attributes<double>(const Series<double>&, double, double);
template class RunPart<float>;
template class RunPart<double>;

}  // namespace parasol::recurrence
