// Batches on the host and on the device: the same systems in another layout, and DeviceBatch.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/transpose.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

template <class T>
std::vector<T> relayout(const std::vector<T>& v, const Dims& from, Layout to) {
  if (from.layout == to) return v;
  const Dims target{from.n, from.systems, to};
  std::vector<T> out(v.size());
  // A system's rows go to places no other system's take: the systems are shared among threads.
#pragma omp parallel for schedule(static)
  for (std::int64_t m = 0; m < from.systems; ++m)
    for (std::int64_t i = 0; i < from.n; ++i)
      out[static_cast<std::size_t>(target.index(m, i))] =
          v[static_cast<std::size_t>(from.index(m, i))];
  return out;
}

template <class T>
Batch<T> relayout(const Batch<T>& batch, Layout to) {
  return {{batch.dims.n, batch.dims.systems, to},
          relayout(batch.a, batch.dims, to),
          relayout(batch.b, batch.dims, to),
          relayout(batch.c, batch.dims, to),
          relayout(batch.d, batch.dims, to)};
}

template <class U>
DeviceBuffer<U> upload_relaid(const std::vector<U>& values, const Dims& from, Layout to,
                              cudaStream_t stream) {
  const auto size = static_cast<std::size_t>(from.size());
  if (values.size() != size)
    throw Error("tridiag::upload_relaid: " + std::to_string(values.size()) +
                " values for n x systems = " + std::to_string(size));
  DeviceBuffer<U> out(size);
  if (from.layout == to) {
    upload(out, values, stream);
  } else {
    // contiguous is [system][row] and interleaved [row][system]: each is the other transposed.
    DeviceBuffer<U> staged(size);
    upload(staged, values, stream);
    const bool rows_are_systems = from.layout == Layout::contiguous;
    transpose(staged.data(), out.data(), rows_are_systems ? from.systems : from.n,
              rows_are_systems ? from.n : from.systems, stream);
  }
  // `values` may be pageable and `staged` is freed here: the copy and the reorder must be done.
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  return out;
}

template <class T>
DeviceBatch<T>::DeviceBatch(const Batch<T>& batch, Layout layout, cudaStream_t stream)
    : dims_{batch.dims.n, batch.dims.systems, layout}, stream_(stream) {
  const auto size = static_cast<std::size_t>(dims_.size());
  if (batch.a.size() != size || batch.b.size() != size || batch.c.size() != size ||
      batch.d.size() != size)
    throw Error("tridiag::DeviceBatch: a, b, c and d must each hold n x systems = " +
                std::to_string(size) + " elements");
  a_ = upload_relaid(batch.a, batch.dims, layout, stream_);
  b_ = upload_relaid(batch.b, batch.dims, layout, stream_);
  c_ = upload_relaid(batch.c, batch.dims, layout, stream_);
  d_ = upload_relaid(batch.d, batch.dims, layout, stream_);
  x_ = DeviceBuffer<T>(size);
}

template <class T>
void DeviceBatch<T>::poison() {
  fill_bytes(x_, 0xFF, stream_);
}

template <class T>
void DeviceBatch<T>::solve(const Launch& launch) {
  const bool same = solver_ && launch.variant == asked_.variant &&
                    launch.threads == asked_.threads && launch.chunk == asked_.chunk;
  if (!same) {
    solver_.reset();  // its workspace freed before the next is allocated
    solver_ = std::make_unique<Solver<T>>(launch, dims_);
    asked_ = launch;
  }
  solver_->solve(a_.data(), b_.data(), c_.data(), d_.data(), x_.data(), stream_);
}

template <class T>
void DeviceBatch<T>::check() {
  if (solver_) solver_->check(stream_);
}

template <class T>
std::vector<T> DeviceBatch<T>::download() const {
  return relayout(parasol::download(x_, stream_), dims_, Layout::contiguous);
}

template <class T>
const Launch& DeviceBatch<T>::launch() const {
  if (!solver_) throw Error("tridiag::DeviceBatch: no solve yet, so no launch");
  return solver_->launch();
}

#define PARASOL_TRIDIAG_BATCH(T)                                                   \
  template std::vector<T> relayout<T>(const std::vector<T>&, const Dims&, Layout); \
  template Batch<T> relayout<T>(const Batch<T>&, Layout);                          \
  template class DeviceBatch<T>;                                                   \
  template DeviceBuffer<T> upload_relaid<T>(const std::vector<T>&, const Dims&, Layout, cudaStream_t);
PARASOL_TRIDIAG_BATCH(float)
PARASOL_TRIDIAG_BATCH(double)
#undef PARASOL_TRIDIAG_BATCH

}  // namespace parasol::tridiag
