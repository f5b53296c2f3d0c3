// DeviceSeries: a series uploaded once and solved many times, as a sweep and a benchmark need.
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

template <class T>
DeviceSeries<T>::DeviceSeries(const Series<T>& series, cudaStream_t stream)
    : n_(series.size()), segments_(series.segments()), stream_(stream) {
  check_series(series);
  s_ = DeviceBuffer<T>(series.s.size());
  u_ = DeviceBuffer<T>(series.u.size());
  v_ = DeviceBuffer<T>(series.s.size());
  initial_ = DeviceBuffer<T>(series.initial.size());
  offsets_ = DeviceBuffer<std::int64_t>(series.offsets.size());
  upload(s_, series.s, stream_);
  upload(u_, series.u, stream_);
  upload(initial_, series.initial, stream_);
  upload(offsets_, series.offsets, stream_);
  // The series is the caller's pageable memory: the copies must have read it before it can go.
  PARASOL_CUDA(cudaStreamSynchronize(stream_));
}

template <class T>
void DeviceSeries<T>::poison() {
  fill_bytes(v_, 0xFF, stream_);
}

template <class T>
void DeviceSeries<T>::solve(ScanMode mode) {
  if (!solver_ || solver_->mode() != mode) solver_ = std::make_unique<Solver<T>>(mode);
  solver_->solve(s_.data(), u_.data(), offsets_.data(), initial_.data(), n_, segments_, v_.data(),
                 stream_);
}

template <class T>
std::vector<T> DeviceSeries<T>::download() const {
  return parasol::download(v_, stream_);
}

template class DeviceSeries<float>;
template class DeviceSeries<double>;

}  // namespace parasol::recurrence
