// The process in a run: its rank among the others, the GPU it uses, and host-side collectives.
// One per process, made first in main and destroyed last. A process started by a launcher
// (mpirun, srun) initialises MPI here and finalises it in the destructor; a plain run is one rank
// that never touches MPI, and every operation below is then a local one. Host-only API: neither
// nvcc nor mpi.h is needed to use it.
//
// The collectives (barrier, broadcast, all_reduce, all_gather, exclusive_scan, devices, agree)
// are called by every rank in the same order; send, recv and exchange by the ranks they name.
// MPI is called only from the thread that made the Context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/halo.hpp"
#include "comm/launcher.hpp"
#include "comm/ops.hpp"
#include "comm/transport.hpp"

namespace parasol::comm {

// What agree() tells every rank when some rank failed.
struct RankFailure {
  int rank = 0;          // the lowest rank that failed
  int status = 1;        // the exit status it asked for: every rank exits with it
  int failed_ranks = 0;  // how many failed
  std::string message;   // the lowest failing rank's message, the one line rank 0 prints
};

// What exclusive_scan() gives rank r: the fold of ranks 0..r-1 and of all ranks.
template <class T>
struct Scan {
  T before;
  T total;
};

namespace detail {
class World;
}

class Context {
 public:
  // Throws Error when another Context is alive, when MPI was finalised already, or when a
  // launcher started this process as one of several ranks and the build has no MPI.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int rank() const;
  int size() const;
  int local_rank() const;  // among the ranks on this host (MPI_COMM_TYPE_SHARED)
  int local_size() const;
  bool is_root() const { return rank() == 0; }  // rank 0 speaks for the run
  const std::string& host() const;
  bool mpi_running() const;                 // false in a plain run
  const std::optional<Launch>& launch() const;  // who started this process, if anyone did

  // Makes device local_rank % device_count current and returns its number; throws Error when
  // there is no device. Ranks beyond the host's GPU count share GPUs (the MPI route allows it).
  int select_device();
  // Every rank's current device, in rank order (ordinal -1 where a rank has none). Without
  // `look_at_devices` only the ranks' hosts: a CPU run need not load the GPU's driver (a tenth
  // of a second) to say where it ran.
  std::vector<RankDevice> devices(bool look_at_devices = true);

  void barrier();

  void broadcast_bytes(void* data, std::size_t bytes, int root = 0);
  void broadcast(std::string& text, int root = 0);
  template <class T>
  void broadcast(std::vector<T>& values, int root = 0);  // resized to the root's length
  template <class T>
  void broadcast(T& value, int root = 0);

  double all_reduce(double value, Op op);
  std::int64_t all_reduce(std::int64_t value, Op op);
  void all_reduce(std::vector<double>& values, Op op);  // element by element, in place
  void all_reduce(std::vector<std::int64_t>& values, Op op);

  // Each rank's record, in rank order, on every rank.
  template <class T>
  std::vector<T> all_gather(const T& mine);

  // Rank r gets before = combine(...combine(combine(identity, x_0), x_1)..., x_{r-1}) and
  // total, the same fold over every rank. Every rank folds the gathered records itself in rank
  // order, so the result is bit-reproducible: the same for any MPI library, reduction tree or
  // placement of ranks, and equal to a sequential loop. `combine` need not commute (composing
  // maps, say); it is meant for small records, one per rank.
  template <class T, class Combine>
  Scan<T> exclusive_scan(const T& mine, const T& identity, Combine combine);

  // Point to point between two ranks; kNoRank as the peer does nothing.
  void send_bytes(const void* data, std::size_t bytes, int peer, int tag = 0);
  void recv_bytes(void* data, std::size_t bytes, int peer, int tag = 0);
  template <class T>
  void send(const T* data, std::size_t count, int peer, int tag = 0);
  template <class T>
  void recv(T* data, std::size_t count, int peer, int tag = 0);

  // A halo exchange of host arrays with both neighbours at once (Halo says what goes where).
  template <class T>
  void exchange(const Neighbours& neighbours, const Halo<T>& halo);

  // Every rank says whether it failed (a non-empty message) and with which exit status; every
  // rank learns whether any did and gets the lowest failing rank's message and status. Call it
  // where a rank may fail alone (reading input, at the end of a run) so that all ranks leave
  // together: rank 0 prints the one line, every rank exits with the status.
  std::optional<RankFailure> agree(const std::string& my_error_or_empty, int status = 1);

  // Ends every rank at once (MPI_Abort), for failures after which the ranks cannot meet again;
  // in a plain run it is std::exit.
  [[noreturn]] void abort(int status);

  // Wall-clock seconds spent in the operations above since the Context was made.
  double comm_seconds() const;

 private:
  friend class DeviceComm;
  detail::World& world();
  void all_gather_bytes(const void* mine, void* all, std::size_t bytes);
  void exchange_bytes(const Neighbours& neighbours, const detail::HaloBytes& halo);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <class T>
void Context::broadcast(std::vector<T>& values, int root) {
  static_assert(std::is_trivially_copyable_v<T>, "broadcast moves plain records as bytes");
  std::uint64_t count = values.size();
  broadcast_bytes(&count, sizeof count, root);
  values.resize(count);
  broadcast_bytes(values.data(), count * sizeof(T), root);
}

template <class T>
void Context::broadcast(T& value, int root) {
  static_assert(std::is_trivially_copyable_v<T>, "broadcast moves plain records as bytes");
  broadcast_bytes(&value, sizeof(T), root);
}

template <class T>
std::vector<T> Context::all_gather(const T& mine) {
  static_assert(std::is_trivially_copyable_v<T>, "all_gather moves plain records as bytes");
  std::vector<T> all(static_cast<std::size_t>(size()));
  all_gather_bytes(&mine, all.data(), sizeof(T));
  return all;
}

template <class T, class Combine>
Scan<T> Context::exclusive_scan(const T& mine, const T& identity, Combine combine) {
  const std::vector<T> all = all_gather(mine);
  Scan<T> scan{identity, identity};
  for (int r = 0; r < size(); ++r) {
    if (r == rank()) scan.before = scan.total;
    scan.total = combine(scan.total, all[static_cast<std::size_t>(r)]);
  }
  return scan;
}

template <class T>
void Context::send(const T* data, std::size_t count, int peer, int tag) {
  static_assert(std::is_trivially_copyable_v<T>, "send moves plain records as bytes");
  send_bytes(data, count * sizeof(T), peer, tag);
}

template <class T>
void Context::recv(T* data, std::size_t count, int peer, int tag) {
  static_assert(std::is_trivially_copyable_v<T>, "recv moves plain records as bytes");
  recv_bytes(data, count * sizeof(T), peer, tag);
}

template <class T>
void Context::exchange(const Neighbours& neighbours, const Halo<T>& halo) {
  exchange_bytes(neighbours, detail::as_bytes(halo));
}

}  // namespace parasol::comm
