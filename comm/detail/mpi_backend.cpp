// Device buffers through MPI. Each operation waits for the stream (the data must be there),
// then either hands MPI the device pointers (a CUDA-aware library moves them itself) or copies
// them to pinned host buffers, lets MPI move those, and copies the arrivals back. It returns
// with the data in place, so the copies back are waited for too.
#include <algorithm>

#include "comm/detail/device_backend.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"

namespace parasol::comm::detail {
namespace {

// A pinned buffer that grows to the largest message seen and stays: halos repeat every sweep.
class Staging {
 public:
  unsigned char* get(std::size_t bytes) {
    if (buffer_.size() < bytes) buffer_ = PinnedBuffer<unsigned char>(bytes);
    return buffer_.data();
  }

 private:
  PinnedBuffer<unsigned char> buffer_;
};

class MpiBackend final : public DeviceBackend {
 public:
  MpiBackend(World& world, bool staged, cudaStream_t stream, CommClock& clock)
      : world_(world), staged_(staged), stream_(stream), clock_(clock) {}

  void send(const void* d_data, std::size_t bytes, int peer) override {
    if (peer == kNoRank) return;
    wait_for_stream();
    WallSpan span(clock_.wall());
    world_.send(outgoing(d_data, bytes), bytes, peer, kTagDevice);
  }

  void recv(void* d_data, std::size_t bytes, int peer) override {
    if (peer == kNoRank) return;
    wait_for_stream();
    WallSpan span(clock_.wall());
    void* landing = staged_ ? in_.get(bytes) : d_data;
    world_.recv(landing, bytes, peer, kTagDevice);
    arrived(d_data, landing, bytes);
    finish();
  }

  void exchange(const Neighbours& n, const HaloBytes& h) override {
    wait_for_stream();
    WallSpan span(clock_.wall());
    if (!staged_) {
      world_.exchange(n, h);
      return;
    }
    // Halves of one staging buffer each way: [down | up].
    const std::size_t b = h.bytes;
    unsigned char* out = out_.get(2 * b);
    unsigned char* in = in_.get(2 * b);
    if (n.down != kNoRank) to_host(out, h.send_down, b);
    if (n.up != kNoRank) to_host(out + b, h.send_up, b);
    PARASOL_CUDA(cudaStreamSynchronize(stream_));
    world_.exchange(n, {out, in, out + b, in + b, b});
    if (n.down != kNoRank) arrived(h.recv_down, in, b);
    if (n.up != kNoRank) arrived(h.recv_up, in + b, b);
    finish();
  }

  void all_reduce(void* d_data, std::size_t count, Scalar type, Op op) override {
    wait_for_stream();
    WallSpan span(clock_.wall());
    const std::size_t bytes = count * size_of(type);
    void* data = staged_ ? out_.get(bytes) : d_data;
    if (staged_) {
      to_host(data, d_data, bytes);
      PARASOL_CUDA(cudaStreamSynchronize(stream_));
    }
    world_.all_reduce(data, count, type, op);
    arrived(d_data, data, bytes);
    finish();
  }

  void all_gather(const void* d_mine, void* d_all, std::size_t bytes) override {
    wait_for_stream();
    WallSpan span(clock_.wall());
    const std::size_t all_bytes = bytes * static_cast<std::size_t>(world_.size());
    void* landing = staged_ ? in_.get(all_bytes) : d_all;
    world_.all_gather(outgoing(d_mine, bytes), landing, bytes);
    arrived(d_all, landing, all_bytes);
    finish();
  }

  void broadcast(void* d_data, std::size_t bytes, int root) override {
    wait_for_stream();
    WallSpan span(clock_.wall());
    void* data = staged_ ? out_.get(bytes) : d_data;
    if (staged_ && world_.rank() == root) {
      to_host(data, d_data, bytes);
      PARASOL_CUDA(cudaStreamSynchronize(stream_));
    }
    world_.broadcast(data, bytes, root);
    if (world_.rank() != root) arrived(d_data, data, bytes);
    finish();
  }

 private:
  // Not counted as communication: this is the compute queued before the operation finishing.
  void wait_for_stream() { PARASOL_CUDA(cudaStreamSynchronize(stream_)); }

  void to_host(void* h_to, const void* d_from, std::size_t bytes) {
    if (bytes > 0)
      PARASOL_CUDA(cudaMemcpyAsync(h_to, d_from, bytes, cudaMemcpyDeviceToHost, stream_));
  }

  // What MPI should read for `d_data`: the device pointer itself, or a pinned copy of it.
  const void* outgoing(const void* d_data, std::size_t bytes) {
    if (!staged_) return d_data;
    unsigned char* h = out_.get(bytes);
    to_host(h, d_data, bytes);
    PARASOL_CUDA(cudaStreamSynchronize(stream_));
    return h;
  }

  // Moves what MPI received at `landing` to `d_to`, where staging put it elsewhere.
  void arrived(void* d_to, const void* landing, std::size_t bytes) {
    if (staged_ && bytes > 0)
      PARASOL_CUDA(cudaMemcpyAsync(d_to, landing, bytes, cudaMemcpyHostToDevice, stream_));
  }

  // The copies back are part of the operation, and the staging buffers are reused next time.
  void finish() {
    if (staged_) PARASOL_CUDA(cudaStreamSynchronize(stream_));
  }

  World& world_;
  bool staged_;
  cudaStream_t stream_;
  CommClock& clock_;
  Staging out_, in_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_mpi_backend(World& world, bool staged, cudaStream_t stream,
                                                CommClock& clock) {
  return std::make_unique<MpiBackend>(world, staged, stream, clock);
}

}  // namespace parasol::comm::detail
