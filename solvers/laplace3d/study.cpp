#include "solvers/laplace3d/study.hpp"

#include <functional>
#include <string>
#include <utility>

#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "solvers/laplace3d/check.hpp"
#include "solvers/laplace3d/slab.hpp"

namespace parasol::laplace3d {

template <class T>
ShapeStudy<T>::ShapeStudy(const Params& p, std::int64_t check_sweeps, comm::Context* context,
                          comm::Transport transport)
    : p_(p), check_sweeps_(check_sweeps), context_(context), transport_(transport) {
  gold_ = initial_field<T>(p_);
  scale_ = max_magnitude(gold_);
  std::vector<T> scratch = gold_;
  for (std::int64_t it = 0; it < check_sweeps_; ++it) {
    gold_sweep(p_.grid, gold_.data(), scratch.data());
    gold_.swap(scratch);
  }
  const double gold_bytes = static_cast<double>(gold_.size() * sizeof(T));
  if ((context_ == nullptr || context_->size() == 1) &&
      fits_in_free_memory(static_cast<double>(device_bytes(p_)) + gold_bytes)) {
    gold_device_ = DeviceBuffer<T>(gold_.size());
    upload(gold_device_, gold_, stream_);
  }
}

namespace {

// "zreg 32x8x1": a row as a failure's line names it.
std::string method_of(Variant variant, const Shape& block) {
  return std::string(name(variant)) + " " + to_string(block);
}

}  // namespace

template <class T>
ShapeMeasurement ShapeStudy<T>::measure(Variant variant, const Shape& block, std::int64_t sweeps,
                                        const Repeats& repeats) {
  if (context_ != nullptr && context_->size() > 1)
    return measure_across_ranks(variant, block, sweeps, repeats);
  ShapeMeasurement m;
  // The starting field is made on the device (the values initial_field() gives), not uploaded.
  std::optional<DeviceGrid<T>> field;
  RowSteps steps;
  steps.method = method_of(variant, block);
  steps.poison = [&] {
    field.reset();  // the last row's or the timed runs' field goes before another is made
    field.emplace(p_, 0, p_.grid.nz, stream_);
    field->poison_next();
  };
  steps.run = [&] { field->sweep(variant, block, check_sweeps_); };
  steps.check = [&] {
    return gold_device_.empty()
               ? agreement(field->download(), gold_, check_sweeps_, scale_)
               : agreement<T>(device_compare(field->plane(0), gold_device_.data(),
                                             p_.grid.points(), stream_),
                              check_sweeps_, scale_);
  };
  steps.warm_up = [&] { field->sweep(variant, block, 2); };
  steps.timed = [&] { field->sweep(variant, block, sweeps); };
  steps.time = [&](const std::function<void()>& run) {
    std::vector<double> per_sweep;
    for (double seconds : timed_runs(stream_, repeats, run)) {
      per_sweep.push_back(seconds / static_cast<double>(sweeps));
      m.timed_s += seconds;
    }
    return per_sweep;
  };
  steps.recheck = [&] {
    steps.poison();
    steps.run();
    return steps.check();
  };
  RowOutcome row = measure_row(steps);
  m.agreement = std::move(row.agreement);
  m.seconds = std::move(row.seconds);
  m.failure = std::move(row.failure);
  return m;
}

template <class T>
ShapeMeasurement ShapeStudy<T>::measure_across_ranks(Variant variant, const Shape& block,
                                                     std::int64_t sweeps,
                                                     const Repeats& repeats) {
  comm::Context& context = *context_;
  Params p = p_;
  p.variant = variant;
  p.block = block;
  p.tolerance = 0;
  p.max_iterations = check_sweeps_;
  if (!comm_) {  // made and connected once: NCCL's setup is a second or so
    comm_.emplace(context, transport_);
    comm_->comm.connect(slab_part(p_.grid, context.rank(), context.size(), 1).slab.neighbours);
  }
  Params timed = p;
  timed.max_iterations = sweeps;
  ShapeMeasurement m;
  std::optional<SlabResult<T>> checked;
  RowSteps steps;
  steps.method = method_of(variant, block);
  // No poison: solve_gpu_slab makes its slab afresh from the starting values on every call.
  steps.run = [&] { checked = solve_gpu_slab<T>(p, context, comm_->comm, true); };
  steps.check = [&] {
    const std::int64_t plane = p_.grid.nx * p_.grid.ny;
    const std::vector<T> gold(gold_.begin() + checked->part.slab.begin * plane,
                              gold_.begin() + checked->part.slab.end * plane);
    return slab_agreement(context, checked->part, checked->u, gold, check_sweeps_, scale_);
  };
  // time_slab_sweeps warms each of its slabs up itself and times whole runs through `comm`.
  steps.warm_up = [] {};
  steps.time = [&](const std::function<void()>&) {
    std::vector<double> exchange;
    std::vector<double> seconds = time_slab_sweeps<T>(timed, context, comm_->comm, true, repeats,
                                                      m.timed_s);
    const std::vector<double> plain =
        time_slab_sweeps<T>(timed, context, comm_->comm, false, repeats, m.timed_s, &exchange);
    m.exchange_seconds = median(exchange);
    m.hidden_fraction = (median(plain) - median(seconds)) / m.exchange_seconds;
    return seconds;
  };
  // The timed slabs are time_slab_sweeps' own: the checked solve is run and checked again.
  steps.recheck = [&] {
    steps.run();
    return steps.check();
  };
  // Every rank is in each collective: an error on one rank must end them all.
  steps.fail_alone = false;
  RowOutcome row = measure_row(steps);
  m.agreement = std::move(row.agreement);
  m.seconds = std::move(row.seconds);
  return m;
}

template class ShapeStudy<float>;
template class ShapeStudy<double>;

}  // namespace parasol::laplace3d
