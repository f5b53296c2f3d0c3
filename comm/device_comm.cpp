#include "comm/device_comm.hpp"

#include <atomic>
#include <deque>
#include <string>

#include "comm/detail/clock.hpp"
#include "comm/detail/device_backend.hpp"
#include "comm/detail/world.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"

namespace parasol::comm {
namespace detail {
namespace {
std::atomic<bool> g_leave_to_exit{false}, g_left_to_exit{false};
}  // namespace

bool teardown_left_to_exit() { return g_leave_to_exit; }
void note_left_to_exit() { g_left_to_exit = true; }

}  // namespace detail

void leave_communicators_to_exit() { detail::g_leave_to_exit = true; }
bool communicators_left_to_exit() { return detail::g_left_to_exit; }

namespace {

// Gathers what decides a route. Collective: every rank's device goes to every rank.
RouteFacts gather_facts(Context& context, detail::World& world) {
  RouteFacts facts;
  facts.ranks = context.size();
  facts.mpi_running = world.mpi_running();
  facts.mpi_cuda_aware = world.cuda_aware();
  facts.nccl_built = built_with_nccl();
  facts.shared_gpu = find_shared_gpu(context.devices());
  return facts;
}

std::unique_ptr<detail::DeviceBackend> make_backend(Route route, detail::World& world,
                                                    cudaStream_t stream,
                                                    detail::CommClock& clock) {
  switch (route) {
    case Route::local: return detail::make_local_backend(stream, clock);
    case Route::mpi_cuda_aware: return detail::make_mpi_backend(world, false, stream, clock);
    case Route::mpi_staged: return detail::make_mpi_backend(world, true, stream, clock);
    case Route::nccl:
#ifdef PARASOL_HAVE_NCCL
      return detail::make_nccl_backend(world, stream, clock);
#else
      break;  // check_route refused it already
#endif
  }
  throw Error("DeviceComm: route " + std::string(name(route)) + " is not in this build");
}

}  // namespace

struct DeviceComm::Impl {
  Context* context;
  Route route;
  cudaStream_t stream;
  // The backend keeps a reference to the clock: both live here, the clock first.
  detail::CommClock clock;
  std::unique_ptr<detail::DeviceBackend> backend;
  // A rank's messages to itself, copied when sent and until received: no route's transport
  // delivers a blocking send to the sender itself.
  std::deque<DeviceBuffer<unsigned char>> to_self;
  double not_counted = 0;  // seconds of connect(), left out of seconds()

  Impl(Context& c, Route r, cudaStream_t s) : context(&c), route(r), stream(s) {
    backend = make_backend(route, context->world(), stream, clock);
  }

  void check_peer(int peer, const char* what) const {
    if (peer != kNoRank && (peer < 0 || peer >= context->size()))
      throw Error(std::string("DeviceComm::") + what + ": rank " + std::to_string(peer) +
                  " is not one of the " + std::to_string(context->size()) +
                  " ranks (kNoRank for none)");
  }
};

DeviceComm::DeviceComm(Context& context, Transport asked, cudaStream_t stream) {
  const Route route = resolve(asked, gather_facts(context, context.world()));
  impl_ = std::make_unique<Impl>(context, route, stream);
}

DeviceComm::DeviceComm(Context& context, Route route, cudaStream_t stream) {
  check_route(route, gather_facts(context, context.world()));
  impl_ = std::make_unique<Impl>(context, route, stream);
}

DeviceComm::~DeviceComm() = default;
DeviceComm::DeviceComm(DeviceComm&&) noexcept = default;
DeviceComm& DeviceComm::operator=(DeviceComm&&) noexcept = default;

Route DeviceComm::route() const { return impl_->route; }
cudaStream_t DeviceComm::stream() const { return impl_->stream; }

void DeviceComm::send_bytes(const void* d_data, std::size_t bytes, int peer) {
  impl_->check_peer(peer, "send");
  if (peer != impl_->context->rank()) {
    impl_->backend->send(d_data, bytes, peer);
    return;
  }
  DeviceBuffer<unsigned char> copy(bytes);
  impl_->clock.begin(impl_->stream);
  if (bytes > 0)
    PARASOL_CUDA(cudaMemcpyAsync(copy.data(), d_data, bytes, cudaMemcpyDeviceToDevice,
                                 impl_->stream));
  impl_->clock.end(impl_->stream);
  impl_->to_self.push_back(std::move(copy));
}

void DeviceComm::recv_bytes(void* d_data, std::size_t bytes, int peer) {
  impl_->check_peer(peer, "recv");
  if (peer != impl_->context->rank()) {
    impl_->backend->recv(d_data, bytes, peer);
    return;
  }
  auto& mailbox = impl_->to_self;
  const std::string me = "rank " + std::to_string(peer);
  if (mailbox.empty())
    throw Error("DeviceComm::recv: " + me +
                " sent itself nothing (a message to oneself is sent before it is received)");
  if (mailbox.front().bytes() != bytes)
    throw Error("DeviceComm::recv: " + std::to_string(bytes) + " bytes expected, " + me +
                " sent itself " + std::to_string(mailbox.front().bytes()));
  impl_->clock.begin(impl_->stream);
  if (bytes > 0)
    PARASOL_CUDA(cudaMemcpyAsync(d_data, mailbox.front().data(), bytes, cudaMemcpyDeviceToDevice,
                                 impl_->stream));
  impl_->clock.end(impl_->stream);
  mailbox.pop_front();  // cudaFree waits for the copy
}

void DeviceComm::exchange_bytes(const Neighbours& neighbours, const detail::HaloBytes& halo) {
  impl_->check_peer(neighbours.down, "exchange");
  impl_->check_peer(neighbours.up, "exchange");
  impl_->backend->exchange(neighbours, halo);
}

void DeviceComm::all_reduce(double* d_values, std::size_t count, Op op) {
  impl_->backend->all_reduce(d_values, count, detail::Scalar::f64, op);
}

void DeviceComm::all_reduce(std::int64_t* d_values, std::size_t count, Op op) {
  impl_->backend->all_reduce(d_values, count, detail::Scalar::i64, op);
}

void DeviceComm::all_gather_bytes(const void* d_mine, void* d_all, std::size_t bytes_per_rank) {
  impl_->backend->all_gather(d_mine, d_all, bytes_per_rank);
}

void DeviceComm::broadcast_bytes(void* d_data, std::size_t bytes, int root) {
  if (root == kNoRank) throw Error("DeviceComm::broadcast: the root must be a rank");
  impl_->check_peer(root, "broadcast");
  impl_->backend->broadcast(d_data, bytes, root);
}

void DeviceComm::connect(const Neighbours& neighbours) {
  const double before = impl_->clock.seconds();
  DeviceBuffer<unsigned char> bytes(4);
  PARASOL_CUDA(cudaMemsetAsync(bytes.data(), 0, bytes.bytes(), impl_->stream));
  exchange_bytes(neighbours, detail::as_bytes(Halo<unsigned char>{bytes.data(), bytes.data() + 1,
                                                                  bytes.data() + 2,
                                                                  bytes.data() + 3, 1}));
  PARASOL_CUDA(cudaStreamSynchronize(impl_->stream));
  impl_->not_counted += impl_->clock.seconds() - before;
}

double DeviceComm::seconds() { return impl_->clock.seconds() - impl_->not_counted; }

}  // namespace parasol::comm
