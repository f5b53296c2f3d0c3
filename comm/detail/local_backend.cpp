// One rank: nothing travels. Collectives leave the data as it is; a periodic halo of one rank
// is a device-to-device copy on the stream.
#include "comm/detail/device_backend.hpp"
#include "kernels/error.hpp"

namespace parasol::comm::detail {
namespace {

class LocalBackend final : public DeviceBackend {
 public:
  LocalBackend(cudaStream_t stream, CommClock& clock) : stream_(stream), clock_(clock) {}

  // DeviceComm keeps a rank's messages to itself, so only kNoRank comes this far.
  void send(const void*, std::size_t, int) override {}
  void recv(void*, std::size_t, int) override {}

  void exchange(const Neighbours& n, const HaloBytes& h) override {
    clock_.begin(stream_);
    // What this rank sends up arrives at its up neighbour from below, and the other way round.
    if (n.down == 0) copy_on_stream(h.recv_down, h.send_up, h.bytes);
    if (n.up == 0) copy_on_stream(h.recv_up, h.send_down, h.bytes);
    clock_.end(stream_);
  }

  void all_reduce(void*, std::size_t, Scalar, Op) override {}

  void all_gather(const void* d_mine, void* d_all, std::size_t bytes) override {
    clock_.begin(stream_);
    copy_on_stream(d_all, d_mine, bytes);
    clock_.end(stream_);
  }

  void broadcast(void*, std::size_t, int) override {}

 private:
  void copy_on_stream(void* to, const void* from, std::size_t bytes) {
    if (bytes > 0 && to != from)
      PARASOL_CUDA(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream_));
  }

  cudaStream_t stream_;
  CommClock& clock_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_local_backend(cudaStream_t stream, CommClock& clock) {
  return std::make_unique<LocalBackend>(stream, clock);
}

}  // namespace parasol::comm::detail
