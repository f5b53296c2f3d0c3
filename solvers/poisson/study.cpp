#include "solvers/poisson/study.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "solvers/poisson/check.hpp"
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/run.hpp"

namespace parasol::poisson {

std::vector<Params> sweep_configurations(const Params& p, const SweepParams& s) {
  std::vector<Params> configurations;
  for (Variant v : s.variants)
    for (Smoother m : s.smoothers)
      for (Cycle c : s.cycles) {
        Params q = p;
        q.variant = v;
        q.smoother = m;
        q.cycle = c;
        configurations.push_back(q);
      }
  return configurations;
}

template <class T>
CycleStudy<T>::CycleStudy(const Params& p, std::vector<double> f) : f_(std::move(f)) {
  (void)solve_gold(p, std::vector<T>(f_.begin(), f_.end()), gold_);
}

template <class T>
CycleMeasurement CycleStudy<T>::measure(const Params& q, const Repeats& repeats) const {
  const std::vector<T> source(f_.begin(), f_.end());
  std::optional<DeviceSolver<T>> solver;
  Outcome o;
  RowSteps steps;
  steps.method = std::string(name(q.variant)) + " " + cycle_text(q);
  steps.poison = [&] {
    solver.emplace(q);
    solver->upload_source(source.data());
    solver->poison();
  };
  steps.run = [&] { o = solver->solve(); };
  steps.check = [&] {
    std::vector<T> u(source.size());
    solver->download(u.data());
    return agreement(q, f_, u, gold_);
  };
  steps.time = [&](const std::function<void()>&) {
    std::vector<double> seconds;
    double total = 0;
    for (std::int64_t r = 0; repeats.more(r, total); ++r) {
      o = solver->solve();
      total += o.seconds;
      seconds.push_back(o.seconds);
    }
    return seconds;
  };
  CycleMeasurement m;
  m.row = measure_row(steps);
  m.cycles = static_cast<std::int64_t>(o.cycles.size());
  return m;
}

template class CycleStudy<float>;
template class CycleStudy<double>;

}  // namespace parasol::poisson
