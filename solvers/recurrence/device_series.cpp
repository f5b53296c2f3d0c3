// DeviceSeries: a series uploaded once and solved many times, as a sweep and a benchmark need.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "solvers/recurrence/problems.hpp"
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
DeviceSeries<T>::DeviceSeries(const Series<T>& segments, const Ar1& drawn, std::int64_t first,
                              cudaStream_t stream)
    : n_(segments.offsets.empty() ? 0 : segments.offsets.back()),
      segments_(segments.segments()),
      stream_(stream) {
  check_offsets(segments.offsets, segments.initial.size(), n_);
  s_ = DeviceBuffer<T>(static_cast<std::size_t>(n_));
  u_ = DeviceBuffer<T>(static_cast<std::size_t>(n_));
  v_ = DeviceBuffer<T>(static_cast<std::size_t>(n_));
  initial_ = DeviceBuffer<T>(segments.initial.size());
  offsets_ = DeviceBuffer<std::int64_t>(segments.offsets.size());
  draw_ar1_gpu(drawn, first, n_, s_.data(), u_.data(), stream_);
  upload(initial_, segments.initial, stream_);
  upload(offsets_, segments.offsets, stream_);
  PARASOL_CUDA(cudaStreamSynchronize(stream_));  // as the uploading constructor: ready when made
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

template <class T>
void DeviceSeries<T>::set_initial(std::int64_t k, T value) {
  upload(initial_, static_cast<std::size_t>(k), &value, 1, stream_);
  PARASOL_CUDA(cudaStreamSynchronize(stream_));
}

template <class T>
T DeviceSeries<T>::value(std::int64_t i) const {
  T value{};
  parasol::download(v_, static_cast<std::size_t>(i), &value, 1, stream_);
  return value;
}

template <class T>
void DeviceSeries<T>::prepare_prefixed(std::int64_t series_tiles) {
  const auto tiles = static_cast<std::size_t>((n_ + kTileElements<T> - 1) / kTileElements<T>);
  if (totals_.size() < tiles) {
    totals_ = DeviceBuffer<Map<T>>(tiles);
    h_totals_ = PinnedBuffer<Map<T>>(tiles);
  }
  const auto all = static_cast<std::size_t>(series_tiles);
  if (prefixes_.size() < all) {
    prefixes_ = DeviceBuffer<Map<T>>(all);
    h_prefixes_ = PinnedBuffer<Map<T>>(all);
    scratch_ = DeviceBuffer<Map<T>>(
        static_cast<std::size_t>(std::max<std::int64_t>(1, Solver<T>::tile_prefix_scratch(series_tiles))));
  }
  if (!solver_ || solver_->mode() != ScanMode::reproducible)
    solver_ = std::make_unique<Solver<T>>(ScanMode::reproducible);
}

template <class T>
Map<T>* DeviceSeries<T>::series_totals_host(std::int64_t series_tiles) {
  prepare_prefixed(series_tiles);
  return h_prefixes_.data();
}

template <class T>
void DeviceSeries<T>::tile_totals_into(bool continued, Map<T>* into) {
  const std::int64_t tiles = (n_ + kTileElements<T> - 1) / kTileElements<T>;
  prepare_prefixed(tiles);
  Solver<T>::tile_totals(s_.data(), u_.data(), offsets_.data(), initial_.data(), n_, segments_,
                         continued, totals_.data(), stream_);
  parasol::download(totals_, into, static_cast<std::size_t>(tiles), stream_);
}

template <class T>
void DeviceSeries<T>::solve_prefixed_from_host(std::int64_t series_tiles, std::int64_t first_tile,
                                               bool continued) {
  prepare_prefixed(series_tiles);
  upload(prefixes_, h_prefixes_.data(), static_cast<std::size_t>(series_tiles), stream_);
  Solver<T>::tile_prefixes(prefixes_.data(), series_tiles, scratch_.data(), stream_);
  solver_->solve_prefixed(s_.data(), u_.data(), offsets_.data(), initial_.data(), n_, segments_,
                          continued, prefixes_.data(), first_tile, v_.data(), stream_);
  PARASOL_CUDA(cudaStreamSynchronize(stream_));
}

template <class T>
std::vector<Map<T>> DeviceSeries<T>::tile_totals(bool continued) {
  const std::int64_t tiles = (n_ + kTileElements<T> - 1) / kTileElements<T>;
  prepare_prefixed(tiles);
  tile_totals_into(continued, h_totals_.data());
  return std::vector<Map<T>>(h_totals_.data(), h_totals_.data() + tiles);
}

template <class T>
void DeviceSeries<T>::solve_prefixed(const std::vector<Map<T>>& series_totals,
                                     std::int64_t first_tile, bool continued) {
  const auto all = static_cast<std::int64_t>(series_totals.size());
  std::copy(series_totals.begin(), series_totals.end(), series_totals_host(all));
  solve_prefixed_from_host(all, first_tile, continued);
}

template class DeviceSeries<float>;
template class DeviceSeries<double>;

}  // namespace parasol::recurrence
