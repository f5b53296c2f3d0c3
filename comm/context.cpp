#include "comm/context.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <utility>

#include "comm/detail/clock.hpp"
#include "comm/detail/world.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"

namespace parasol::comm {
namespace {

// MPI can be initialised once in a process's life, so the Context that does it is unique.
std::atomic<bool> g_context_alive{false};

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown-host";
  return name.data();
}

std::unique_ptr<detail::World> make_world(const std::optional<Launch>& launch) {
  if (!launch) return detail::make_local_world();
#ifdef PARASOL_HAVE_MPI
  return detail::make_mpi_world();
#else
  // Started alone by a launcher (mpirun -np 1) there is nobody to talk to: a plain run.
  if (launch->size == 1) return detail::make_local_world();
  throw Error("started by " + launch->launcher + " (" + launch->evidence +
              ") but this parasol was built without MPI, so its ranks cannot talk: rebuild with "
              "MPI (Debian: libopenmpi-dev; PARASOL_WITH_MPI=ON) or run it without a launcher");
#endif
}

// "GPU-8c2f0b1e-..." as nvidia-smi prints it.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  return text;
}

// A RankDevice as fixed-size bytes, so all_gather can move it.
struct DeviceRecord {
  int rank, local_rank, ordinal;
  std::array<char, 256> host, name;
  std::array<char, 48> uuid;
};

template <std::size_t N>
void copy_text(std::array<char, N>& to, const std::string& from) {
  to.fill('\0');
  std::memcpy(to.data(), from.data(), std::min(from.size(), N - 1));
}

void check_peer(int peer, int size, const char* what) {
  if (peer != kNoRank && (peer < 0 || peer >= size))
    throw Error(std::string(what) + ": rank " + std::to_string(peer) + " is not one of the " +
                std::to_string(size) + " ranks (kNoRank for none)");
}

void check_tag(int tag, const char* what) {
  if (tag < 0 || tag > kMaxUserTag)
    throw Error(std::string(what) + ": tag " + std::to_string(tag) + " is not in 0.." +
                std::to_string(kMaxUserTag));
}

}  // namespace

struct Context::Impl {
  std::optional<Launch> launch;
  std::unique_ptr<detail::World> world;
  std::string host;
  double seconds = 0;
  // A rank's messages to itself, by tag, until received: a blocking MPI_Send to oneself would
  // wait for a receive that comes only after it.
  std::deque<std::pair<int, std::vector<unsigned char>>> to_self;
};

Context::Context() {
  if (g_context_alive.exchange(true))
    throw Error("comm::Context: there is one per process, and one is alive already");
  try {
    impl_ = std::make_unique<Impl>();
    impl_->launch = detect_launch();
    impl_->world = make_world(impl_->launch);
    impl_->host = host_name();
  } catch (...) {
    g_context_alive = false;
    throw;
  }
}

Context::~Context() {
  impl_.reset();  // MPI is finalised here, before the next Context may be made
  g_context_alive = false;
}

int Context::rank() const { return impl_->world->rank(); }
int Context::size() const { return impl_->world->size(); }
int Context::local_rank() const { return impl_->world->local_rank(); }
int Context::local_size() const { return impl_->world->local_size(); }
const std::string& Context::host() const { return impl_->host; }
bool Context::mpi_running() const { return impl_->world->mpi_running(); }
const std::optional<Launch>& Context::launch() const { return impl_->launch; }
double Context::comm_seconds() const { return impl_->seconds; }
detail::World& Context::world() { return *impl_->world; }

int Context::select_device() {
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("rank " + std::to_string(rank()) + " on " + host() + ": " + reason);
  const int ordinal = device_for_local_rank(local_rank());
  PARASOL_CUDA(cudaSetDevice(ordinal));
  return ordinal;
}

std::vector<RankDevice> Context::devices(bool look_at_devices) {
  DeviceRecord mine{};
  mine.rank = rank();
  mine.local_rank = local_rank();
  mine.ordinal = -1;
  copy_text(mine.host, host());
  if (look_at_devices && gpu_available()) {
    PARASOL_CUDA(cudaGetDevice(&mine.ordinal));
    cudaDeviceProp prop{};
    PARASOL_CUDA(cudaGetDeviceProperties(&prop, mine.ordinal));
    copy_text(mine.name, prop.name);
    copy_text(mine.uuid, uuid_text(prop.uuid));
  }
  std::vector<RankDevice> devices;
  for (const DeviceRecord& r : all_gather(mine))
    devices.push_back({r.rank, r.host.data(), r.local_rank, r.ordinal, r.name.data(),
                       r.uuid.data()});
  return devices;
}

void Context::barrier() {
  detail::WallSpan span(impl_->seconds);
  world().barrier();
}

void Context::broadcast_bytes(void* data, std::size_t bytes, int root) {
  if (root == kNoRank) throw Error("broadcast: the root must be a rank");
  check_peer(root, size(), "broadcast");
  detail::WallSpan span(impl_->seconds);
  world().broadcast(data, bytes, root);
}

void Context::broadcast(std::string& text, int root) {
  std::uint64_t length = text.size();
  broadcast_bytes(&length, sizeof length, root);
  text.resize(length);
  broadcast_bytes(text.data(), length, root);
}

double Context::all_reduce(double value, Op op) {
  detail::WallSpan span(impl_->seconds);
  world().all_reduce(&value, 1, detail::Scalar::f64, op);
  return value;
}

std::int64_t Context::all_reduce(std::int64_t value, Op op) {
  detail::WallSpan span(impl_->seconds);
  world().all_reduce(&value, 1, detail::Scalar::i64, op);
  return value;
}

void Context::all_reduce(std::vector<double>& values, Op op) {
  detail::WallSpan span(impl_->seconds);
  world().all_reduce(values.data(), values.size(), detail::Scalar::f64, op);
}

void Context::all_reduce(std::vector<std::int64_t>& values, Op op) {
  detail::WallSpan span(impl_->seconds);
  world().all_reduce(values.data(), values.size(), detail::Scalar::i64, op);
}

void Context::all_gather_bytes(const void* mine, void* all, std::size_t bytes) {
  detail::WallSpan span(impl_->seconds);
  world().all_gather(mine, all, bytes);
}

void Context::send_bytes(const void* data, std::size_t bytes, int peer, int tag) {
  check_peer(peer, size(), "send");
  check_tag(tag, "send");
  detail::WallSpan span(impl_->seconds);
  if (peer == rank()) {
    const auto* first = static_cast<const unsigned char*>(data);
    impl_->to_self.emplace_back(tag, std::vector<unsigned char>(first, first + bytes));
    return;
  }
  world().send(data, bytes, peer, tag);
}

void Context::recv_bytes(void* data, std::size_t bytes, int peer, int tag) {
  check_peer(peer, size(), "recv");
  check_tag(tag, "recv");
  detail::WallSpan span(impl_->seconds);
  if (peer == rank()) {
    auto& mailbox = impl_->to_self;
    const auto it = std::find_if(mailbox.begin(), mailbox.end(),
                                 [&](const auto& message) { return message.first == tag; });
    if (it == mailbox.end())
      throw Error("recv: rank " + std::to_string(rank()) + " sent itself nothing with tag " +
                  std::to_string(tag) + " (a message to oneself is sent before it is received)");
    if (it->second.size() != bytes)
      throw Error("recv: " + std::to_string(bytes) + " bytes expected, rank " +
                  std::to_string(rank()) + " sent itself " + std::to_string(it->second.size()));
    if (bytes > 0) std::memcpy(data, it->second.data(), bytes);
    mailbox.erase(it);
    return;
  }
  world().recv(data, bytes, peer, tag);
}

void Context::exchange_bytes(const Neighbours& neighbours, const detail::HaloBytes& halo) {
  check_peer(neighbours.down, size(), "exchange");
  check_peer(neighbours.up, size(), "exchange");
  detail::WallSpan span(impl_->seconds);
  world().exchange(neighbours, halo);
}

std::optional<RankFailure> Context::agree(const std::string& my_error_or_empty, int status) {
  struct Vote {
    int failed, status;
  };
  const std::vector<Vote> votes = all_gather(Vote{my_error_or_empty.empty() ? 0 : 1, status});
  std::optional<RankFailure> failure;
  for (int r = 0; r < size(); ++r) {
    const Vote& v = votes[static_cast<std::size_t>(r)];
    if (!v.failed) continue;
    if (!failure) failure = RankFailure{r, v.status, 0, {}};
    ++failure->failed_ranks;
  }
  if (!failure) return std::nullopt;
  if (failure->rank == rank()) failure->message = my_error_or_empty;
  broadcast(failure->message, failure->rank);
  return failure;
}

void Context::abort(int status) {
  world().abort(status);
  std::_Exit(status);  // not reached: [[noreturn]] is not seen through the virtual call
}

}  // namespace parasol::comm
