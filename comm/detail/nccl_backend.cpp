// Device buffers through NCCL, everything enqueued on the caller's stream; timed by events.
#include <nccl.h>

#include <future>

#include "comm/detail/device_backend.hpp"
#include "comm/error.hpp"
#include "kernels/error.hpp"

namespace parasol::comm::detail {
namespace {

ncclDataType_t nccl_type(Scalar type) {
  switch (type) {
    case Scalar::f64: return ncclFloat64;
    case Scalar::i64: return ncclInt64;
    case Scalar::i32: return ncclInt32;
  }
  return ncclInt8;
}

ncclRedOp_t nccl_op(Op op) {
  switch (op) {
    case Op::sum: return ncclSum;
    case Op::max: return ncclMax;
    case Op::min: return ncclMin;
  }
  return ncclSum;
}

class NcclBackend final : public DeviceBackend {
 public:
  static constexpr int kMaxCtas = 8;

  NcclBackend(World& world, cudaStream_t stream, CommClock& clock)
      : stream_(stream), clock_(clock) {
    ncclUniqueId id{};
    if (world.rank() == 0) PARASOL_NCCL(ncclGetUniqueId(&id));
    world.broadcast(&id, sizeof id, 0);
    int device = 0;
    PARASOL_CUDA(cudaGetDevice(&device));
    // The communicator is made on a thread of its own (NCCL's bootstrap talks over its own
    // sockets, not MPI): its 0.4 s a rank on an H200 host overlap what the caller does next
    // (a run's inputs), and the first operation waits for what is left (comm()).
    made_ = std::async(std::launch::async, [id, device, size = world.size(), rank = world.rank()] {
      PARASOL_CUDA(cudaSetDevice(device));
      // Halo exchanges run beside a solver's kernels, which fill every multiprocessor: NCCL's
      // kernels, at most kMaxCtas thread blocks, take few of them. With NCCL's default (up to
      // 32 and more) its blocks waited for the interior's to finish, and laplace3d temporal at
      // 1024^3 on two H200s hid 2 % of its exchange; with 8, 92 % (docs/journal/2026-11.md).
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.maxCTAs = kMaxCtas;
      ncclComm_t comm = nullptr;
      PARASOL_NCCL(ncclCommInitRankConfig(&comm, size, id, rank, &config));
      return comm;
    });
  }
  ~NcclBackend() override {
    if (made_.valid()) {
      try {
        comm_ = made_.get();
      } catch (...) {  // its error was the first operation's to report; none came
      }
    }
    if (comm_ == nullptr) return;
    if (teardown_left_to_exit())
      note_left_to_exit();
    else
      (void)ncclCommDestroy(comm_);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  void send(const void* d_data, std::size_t bytes, int peer) override {
    if (peer == kNoRank) return;
    clock_.begin(stream_);
    PARASOL_NCCL(ncclSend(d_data, bytes, ncclInt8, peer, comm(), stream_));
    clock_.end(stream_);
  }

  void recv(void* d_data, std::size_t bytes, int peer) override {
    if (peer == kNoRank) return;
    clock_.begin(stream_);
    PARASOL_NCCL(ncclRecv(d_data, bytes, ncclInt8, peer, comm(), stream_));
    clock_.end(stream_);
  }

  void exchange(const Neighbours& n, const HaloBytes& h) override {
    clock_.begin(stream_);
    // One group, so no order between the neighbours can deadlock. NCCL has no tags: the k-th
    // send to a peer meets that peer's k-th receive from us. When one rank is both neighbours
    // (two ranks, or one, on a periodic domain) what goes down first must land in its recv_up,
    // hence sends down then up, and receives up then down.
    PARASOL_NCCL(ncclGroupStart());
    if (n.down != kNoRank)
      PARASOL_NCCL(ncclSend(h.send_down, h.bytes, ncclInt8, n.down, comm(), stream_));
    if (n.up != kNoRank)
      PARASOL_NCCL(ncclSend(h.send_up, h.bytes, ncclInt8, n.up, comm(), stream_));
    if (n.up != kNoRank)
      PARASOL_NCCL(ncclRecv(h.recv_up, h.bytes, ncclInt8, n.up, comm(), stream_));
    if (n.down != kNoRank)
      PARASOL_NCCL(ncclRecv(h.recv_down, h.bytes, ncclInt8, n.down, comm(), stream_));
    PARASOL_NCCL(ncclGroupEnd());
    clock_.end(stream_);
  }

  void all_reduce(void* d_data, std::size_t count, Scalar type, Op op) override {
    clock_.begin(stream_);
    PARASOL_NCCL(
        ncclAllReduce(d_data, d_data, count, nccl_type(type), nccl_op(op), comm(), stream_));
    clock_.end(stream_);
  }

  void all_gather(const void* d_mine, void* d_all, std::size_t bytes) override {
    clock_.begin(stream_);
    PARASOL_NCCL(ncclAllGather(d_mine, d_all, bytes, ncclInt8, comm(), stream_));
    clock_.end(stream_);
  }

  void broadcast(void* d_data, std::size_t bytes, int root) override {
    clock_.begin(stream_);
    PARASOL_NCCL(ncclBroadcast(d_data, d_data, bytes, ncclInt8, root, comm(), stream_));
    clock_.end(stream_);
  }

 private:
  // The communicator, once made: the first call waits for its thread and rethrows its error.
  ncclComm_t comm() {
    if (made_.valid()) comm_ = made_.get();
    return comm_;
  }

  cudaStream_t stream_;
  CommClock& clock_;
  std::future<ncclComm_t> made_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_nccl_backend(World& world, cudaStream_t stream,
                                                 CommClock& clock) {
  return std::make_unique<NcclBackend>(world, stream, clock);
}

}  // namespace parasol::comm::detail
