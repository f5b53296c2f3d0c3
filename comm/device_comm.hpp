// Device buffers between ranks, on one stream: point to point, halo exchanges, all-reduce,
// all-gather and broadcast, through NCCL or MPI as the Transport resolves (transport.hpp).
// Host-only API: no nvcc, no mpi.h, no nccl.h.
//
// Every operation is collective over the ranks it names and ordered on the stream: work
// enqueued on the stream after it sees its results, and the buffers it reads must hold their
// data by the time the stream reaches it. With NCCL the call returns at once and the transfer
// runs on the stream; with MPI the call first waits for the stream, then moves the data and
// returns with it in place.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "comm/context.hpp"
#include "comm/halo.hpp"
#include "comm/transport.hpp"

namespace parasol::comm {

class DeviceComm {
 public:
  // Collective over the Context's ranks: gathers every rank's device, resolves `asked` and
  // sets NCCL up where it is chosen. Each rank's device must be current (Context::
  // select_device) and stays so for this object's life. Throws InputError where `asked` cannot
  // be had (nccl without NCCL, or with two ranks on one GPU).
  DeviceComm(Context& context, Transport asked, cudaStream_t stream);
  // Exactly `route`, for tests and benchmarks that compare routes; InputError where this run
  // cannot take it (check_route).
  DeviceComm(Context& context, Route route, cudaStream_t stream);
  ~DeviceComm();
  DeviceComm(DeviceComm&&) noexcept;
  DeviceComm& operator=(DeviceComm&&) noexcept;
  DeviceComm(const DeviceComm&) = delete;
  DeviceComm& operator=(const DeviceComm&) = delete;

  Route route() const;  // name(route()) goes into the result file
  cudaStream_t stream() const;

  // Point to point; the receiver names the sender. kNoRank as the peer does nothing.
  void send_bytes(const void* d_data, std::size_t bytes, int peer);
  void recv_bytes(void* d_data, std::size_t bytes, int peer);
  template <class T>
  void send(const T* d_data, std::size_t count, int peer) {
    send_bytes(d_data, count * sizeof(T), peer);
  }
  template <class T>
  void recv(T* d_data, std::size_t count, int peer) {
    recv_bytes(d_data, count * sizeof(T), peer);
  }

  // Both neighbours at once (NCCL: one group; MPI: four non-blocking calls). Device pointers.
  template <class T>
  void exchange(const Neighbours& neighbours, const Halo<T>& halo) {
    exchange_bytes(neighbours, detail::as_bytes(halo));
  }

  // Makes the connections to these neighbours now, with a one-byte exchange each way, so that the
  // first exchange of a timed loop does not pay for them (NCCL connects to a peer lazily, at its
  // first operation with it: about a second on two H200s). Collective over the neighbours; not
  // counted in seconds().
  void connect(const Neighbours& neighbours);

  // In place, element by element over the ranks.
  void all_reduce(double* d_values, std::size_t count, Op op);
  void all_reduce(std::int64_t* d_values, std::size_t count, Op op);

  // d_all receives size() * count records, rank 0's first.
  template <class T>
  void all_gather(const T* d_mine, T* d_all, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "all_gather moves plain records as bytes");
    all_gather_bytes(d_mine, d_all, count * sizeof(T));
  }
  void all_gather_bytes(const void* d_mine, void* d_all, std::size_t bytes_per_rank);

  void broadcast_bytes(void* d_data, std::size_t bytes, int root = 0);
  template <class T>
  void broadcast(T* d_data, std::size_t count, int root = 0) {
    broadcast_bytes(d_data, count * sizeof(T), root);
  }

  // Seconds spent in the operations above since construction: device time between events
  // around each NCCL operation, wall time of each MPI one (after its wait for the stream, which
  // is the compute before it). Waits for operations still on the stream.
  double seconds();

 private:
  void exchange_bytes(const Neighbours& neighbours, const detail::HaloBytes& halo);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// For a process that ends once its work is done (`parasol run`): the communicators destroyed
// from this call on are left to the process's exit. NCCL's teardown waited half a second a
// communicator for its proxy thread on an H200 host (ncclCommAbort a whole second), which the
// process's end does not. communicators_left_to_exit() says whether one was: the device's
// context is then left to the exit too, since the communicator still holds memory in it.
void leave_communicators_to_exit();
bool communicators_left_to_exit();

}  // namespace parasol::comm
