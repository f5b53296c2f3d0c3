// The keys every solver's [sweep] table shares: how often and how long each configuration is
// timed (kernels/timed_runs.hpp's Repeats).
#pragma once

#include <string>

#include "kernels/agreement.hpp"
#include "kernels/declaration.hpp"
#include "kernels/timed_runs.hpp"

namespace parasol {

// Seconds of timed device time a sweep gives each configuration by default (sweep.min_time):
// Google Benchmark's rule and default of timing until a minimum time, so a configuration of a
// millisecond gets as steady a median as one of a second, and a sweep spends most of its wall
// time measuring rather than preparing (docs/performance-study.md).
inline constexpr double kSweepMinTime = 0.5;

// sweep.repeats and sweep.min_time into the Repeats `field(s)` returns; `runs` names what is
// repeated ("timed repeats", "timed runs per row, after one warm-up").
template <class S, class Field>
void add_repeat_keys(Keys<S>& keys, Field field, const std::string& runs) {
  keys.push_back(key<S>("sweep.repeats", [field](S& s) -> auto& { return field(s).at_least; },
                        runs + " at least; the median is reported")
                     .at_least(1));
  Key<S> min_time = key<S>(
      "sweep.min_time", [field](S& s) -> auto& { return field(s).min_seconds; },
      "`parasol sweep` on a GPU: after `sweep.repeats` timed runs, more until their device time "
      "adds up to this (Google Benchmark's rule), so a fast configuration is timed long enough "
      "for a steady median; 0 times exactly `sweep.repeats`");
  auto inner = min_time.set;
  min_time.set = [inner](S& s, const KeyValue& v) {
    const double seconds = std::get<double>(v);
    if (!(seconds >= 0 && seconds <= 3600))
      throw InputError("", "", "expected seconds from 0 to 3600, got " + short_number(seconds));
    inner(s, v);
  };
  keys.push_back(std::move(min_time).unit("s").values("0 to 3600"));
}

}  // namespace parasol
