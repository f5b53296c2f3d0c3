#include "solvers/laplace3d/study.hpp"

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

template <class T>
ShapeMeasurement ShapeStudy<T>::measure(Variant variant, const Shape& block, std::int64_t sweeps,
                                        const Repeats& repeats) {
  if (context_ != nullptr && context_->size() > 1)
    return measure_across_ranks(variant, block, sweeps, repeats);
  // The starting field is made on the device (the values initial_field() gives), not uploaded.
  DeviceGrid<T> field(p_, 0, p_.grid.nz, stream_);
  field.sweep(variant, block, check_sweeps_);
  ShapeMeasurement m;
  m.agreement = gold_device_.empty()
                    ? agreement(field.download(), gold_, check_sweeps_, scale_)
                    : agreement<T>(device_compare(field.plane(0), gold_device_.data(),
                                                  p_.grid.points(), stream_),
                                   check_sweeps_, scale_);
  field.sweep(variant, block, 2);  // warm-up
  for (double seconds : timed_runs(stream_, repeats, [&] { field.sweep(variant, block, sweeps); })) {
    m.seconds.push_back(seconds / static_cast<double>(sweeps));
    m.timed_s += seconds;
  }
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
    comm_stream_.emplace(Stream::high_priority());
    comm_.emplace(context, transport_, comm_stream_->get());
    comm_->connect(slab_part(p_.grid, context.rank(), context.size(), 1).slab.neighbours);
  }
  const SlabResult<T> checked = solve_gpu_slab<T>(p, context, *comm_, true);
  const std::int64_t plane = p_.grid.nx * p_.grid.ny;
  const std::vector<T> gold(gold_.begin() + checked.part.slab.begin * plane,
                            gold_.begin() + checked.part.slab.end * plane);
  ShapeMeasurement m;
  m.agreement = slab_agreement(context, checked.part, checked.u, gold, check_sweeps_, scale_);
  p.max_iterations = sweeps;
  std::vector<double> exchange;
  m.seconds = time_slab_sweeps<T>(p, context, *comm_, true, repeats, m.timed_s);
  const std::vector<double> plain =
      time_slab_sweeps<T>(p, context, *comm_, false, repeats, m.timed_s, &exchange);
  m.exchange_seconds = median(exchange);
  m.hidden_fraction = (median(plain) - median(m.seconds)) / m.exchange_seconds;
  return m;
}

template class ShapeStudy<float>;
template class ShapeStudy<double>;

}  // namespace parasol::laplace3d
