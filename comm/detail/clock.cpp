#include "comm/detail/clock.hpp"

#include "kernels/error.hpp"

namespace parasol::comm::detail {
namespace {

// Spans a solver has not asked about yet; past this many the oldest are waited for, so a long
// run that never reads seconds() holds a bounded number of events.
constexpr std::size_t kMaxPending = 256;

}  // namespace

void CommClock::begin(cudaStream_t stream) {
  harvest(false);
  if (!open_) {  // an open span left by an operation that threw is simply begun again
    if (spare_.empty()) {
      open_.emplace();
    } else {
      open_.emplace(std::move(spare_.front()));
      spare_.pop_front();
    }
  }
  open_->first.record(stream);
}

void CommClock::end(cudaStream_t stream) {
  open_->second.record(stream);
  pending_.push_back(std::move(*open_));
  open_.reset();
  if (pending_.size() > kMaxPending) pending_.front().second.synchronize();
}

double CommClock::seconds() {
  harvest(true);
  return seconds_;
}

void CommClock::harvest(bool wait) {
  while (!pending_.empty()) {
    auto& [start, stop] = pending_.front();
    if (wait) {
      stop.synchronize();
    } else {
      const cudaError_t done = cudaEventQuery(stop.get());
      if (done == cudaErrorNotReady) return;  // not an error: CUDA records nothing
      PARASOL_CUDA(done);
    }
    float ms = 0.0f;
    PARASOL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    seconds_ += 1e-3 * static_cast<double>(ms);
    spare_.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }
}

}  // namespace parasol::comm::detail
