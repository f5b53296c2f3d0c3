#include "solvers/recurrence/study.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "kernels/device.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/problems.hpp"

namespace parasol::recurrence {

template <class T>
ModeStudy<T>::ModeStudy(const Series<T>& series) {
  GoldScaleChain g = gold_scale_chain(series, kTileElements<T>);
  gold_ = std::move(g.gold);
  scale_ = std::move(g.scale);
  chain_ = g.chain;
  device_.emplace(series, stream_);
  const double v_bytes = static_cast<double>(series.size()) * sizeof(T);
  const double gold_bytes = 2.0 * sizeof(double) * static_cast<double>(series.size());
  if (fits_in_free_memory(gold_bytes + v_bytes)) {
    d_gold_ = DeviceBuffer<double>(gold_.size());
    d_scale_ = DeviceBuffer<double>(scale_.size());
    upload(d_gold_, gold_, stream_);
    upload(d_scale_, scale_, stream_);
  }
  if (fits_in_free_memory(v_bytes)) kept_ = DeviceBuffer<T>(static_cast<std::size_t>(series.size()));
}

template <class T>
ModeMeasurement ModeStudy<T>::measure(ScanMode mode, const Repeats& repeats) {
  DeviceSeries<T>& device = *device_;
  const std::int64_t n = device.size();
  ModeMeasurement m;
  std::vector<T> first;  // on the host, where the kept copy is not on the device
  RowSteps steps;
  steps.method = std::string(name(mode));
  steps.poison = [&] { device.poison(); };
  steps.run = [&] { device.solve(mode); };
  steps.check = [&] {
    if (!d_gold_.empty())
      return agreement<T>(device_compare_scaled(device.v(), d_gold_.data(), d_scale_.data(), n,
                                                device.stream()),
                          chain_);
    return agreement(device.download(), gold_, scale_, chain_);
  };
  // The checked solve is the one every timed solve must repeat bit for bit: kept, then one more
  // solve to warm up.
  steps.warm_up = [&] {
    if (!kept_.empty())
      copy_on_device(kept_, device.v(), static_cast<std::size_t>(n), device.stream());
    else
      first = device.download();
    device.solve(mode);
  };
  steps.time = [&](const std::function<void()>& run) {
    if (kept_.empty())
      return timed_runs(device.stream(), repeats, run, [&] {
        const std::vector<T> again = device.download();
        m.repeatable = m.repeatable &&
                       std::memcmp(first.data(), again.data(), first.size() * sizeof(T)) == 0;
      });
    const std::int64_t slice = (n + kRepeatSlices - 1) / kRepeatSlices;
    std::int64_t solves = 0;
    comparer_.take_differences(device.stream());  // a count from before starts at 0
    std::vector<double> seconds = timed_runs_between(device.stream(), repeats, run, [&] {
      const std::int64_t from = (solves++ % kRepeatSlices) * slice;
      const std::int64_t count = std::min(slice, n - from);
      if (count > 0)
        comparer_.add_differences(kept_.data() + from, device.v() + from,
                                  static_cast<std::size_t>(count) * sizeof(T), device.stream());
    });
    m.repeatable = comparer_.take_differences(device.stream()) == 0;
    return seconds;
  };
  RowOutcome row = measure_row(steps);
  m.agreement = std::move(row.agreement);
  m.seconds = std::move(row.seconds);
  m.failure = std::move(row.failure);
  return m;
}

template class ModeStudy<float>;
template class ModeStudy<double>;

}  // namespace parasol::recurrence
