// tridiag's sweep configurations, and its batch kept on the device.
#include "solvers/tridiag/sweep.hpp"

#include <algorithm>

#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "solvers/tridiag/check.hpp"

namespace parasol::tridiag {

bool listable_chunk(int chunk) {
  for (Variant v : kVariants) {
    const std::vector<int> chunks = compiled_chunks(v);
    if (std::find(chunks.begin(), chunks.end(), chunk) != chunks.end()) return true;
  }
  return chunk == 0;
}

std::vector<int> chunks_for(Variant v, const std::vector<int>& listed) {
  std::vector<int> compiled = compiled_chunks(v);
  if (compiled.empty()) compiled = {0};
  if (listed.empty() || compiled == std::vector<int>{0}) return compiled;
  std::vector<int> chosen;
  for (int c : listed)
    if (c == 0 || std::find(compiled.begin(), compiled.end(), c) != compiled.end())
      chosen.push_back(c);
  return chosen;
}

std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks, const Dims& dims,
                                              int element_bytes) {
  std::vector<Configuration> out;
  for (Variant v : variants) {
    const Dims vdims{dims.n, dims.systems, required_layout(v)};
    std::vector<Launch> launches;
    std::vector<std::string> skipped;
    for (int t : threads)
      for (int chunk : chunks_for(v, chunks)) {
        try {
          const Launch l = resolve_launch({v, t, chunk}, vdims, element_bytes);
          if (std::none_of(launches.begin(), launches.end(), [&](const Launch& o) {
                return o.threads == l.threads && o.chunk == l.chunk;
              }))
            launches.push_back(l);
        } catch (const InputError& e) {
          skipped.push_back(std::to_string(t) + " threads, chunk " + std::to_string(chunk) +
                            ": " + e.expected());
        }
      }
    if (launches.empty()) {
      out.push_back({{v, 0, 0},
                     std::string(name(v)) + " skipped: " +
                         (skipped.empty() ? "no chunk listed for it" : skipped.front()),
                     ""});
      continue;
    }
    for (const Launch& l : launches) out.push_back({l, "", ""});
    if (!skipped.empty())
      out[out.size() - launches.size()].note =
          std::string(name(v)) + ": " + std::to_string(skipped.size()) + " launch" +
          (skipped.size() == 1 ? "" : "es") + " skipped (first: " + skipped.front() + ")";
  }
  return out;
}

template <class T>
ResidentBatches<T>::ResidentBatches(const Batch<T>& batch, const std::vector<double>& gold,
                                    double condition, cudaStream_t stream)
    : batch_(batch), gold_(gold), condition_(condition), scale_(max_magnitude(gold)),
      stream_(stream) {}

template <class T>
typename ResidentBatches<T>::Resident& ResidentBatches<T>::in(Layout layout) {
  for (Resident& r : residents_)
    if (r.batch.dims().layout == layout) return r;
  const double batch_bytes = bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T)));
  const double gold_bytes = static_cast<double>(gold_.size() * sizeof(double));
  if (!residents_.empty() && !fits_in_free_memory(2 * batch_bytes + gold_bytes)) residents_.clear();
  residents_.push_back({DeviceBatch<T>(batch_, layout, stream_), {}});
  Resident& r = residents_.back();
  // The gold, and its copy before it is reordered, beside the batch.
  if (fits_in_free_memory(2 * gold_bytes))
    r.gold = upload_relaid(gold_, batch_.dims, layout, stream_);
  return r;
}

template <class T>
Agreement ResidentBatches<T>::agreement(const Resident& resident) const {
  const DeviceBatch<T>& device = resident.batch;
  if (resident.gold.empty())
    return tridiag::agreement(device.download(), gold_, condition_, batch_.dims.n);
  return tridiag::agreement<T>(
      device_compare(device.x(), resident.gold.data(), batch_.dims.size(), device.stream()),
      scale_, condition_, batch_.dims.n);
}

template class ResidentBatches<float>;
template class ResidentBatches<double>;

template <class T>
ResidentKindBatch<T>::ResidentKindBatch(const KindBatch<T>& batch, cudaStream_t stream)
    : batch_(batch), stream_(stream) {}

template <class T>
void ResidentKindBatch<T>::poison(const KindSolver<T>& solver) {
  const Layout layout = solver.layout();
  if (bands_.empty() || layout != layout_) {
    bands_.clear();
    pointers_.clear();
    d_ = {};
    x_ = {};
    const KindDims& k = batch_.dims;
    for (const std::vector<T>& band : batch_.bands) {
      bands_.push_back(
          upload_relaid(band, {k.band_width(), k.systems, Layout::contiguous}, layout, stream_));
      pointers_.push_back(bands_.back().data());
    }
    d_ = upload_relaid(batch_.d, {k.rhs_width(), k.systems, Layout::contiguous}, layout, stream_);
    x_ = DeviceBuffer<T>(batch_.d.size());
    layout_ = layout;
  }
  fill_bytes(x_, 0xFF, stream_);
}

template <class T>
void ResidentKindBatch<T>::solve(KindSolver<T>& solver) {
  solver.solve(pointers_.data(), d_.data(), x_.data(), stream_);
}

template <class T>
std::vector<T> ResidentKindBatch<T>::x() const {
  const KindDims& k = batch_.dims;
  return relayout(download(x_, stream_), {k.rhs_width(), k.systems, layout_}, Layout::contiguous);
}

template class ResidentKindBatch<float>;
template class ResidentKindBatch<double>;

}  // namespace parasol::tridiag
