// Inside the comm layer only: how a Route moves device buffers. DeviceComm checks the arguments,
// keeps a rank's messages to itself (send and recv never name this rank) and picks the backend; each backend times its own operations on the CommClock, since only it
// knows which part of an operation is communication.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "comm/ops.hpp"
#include "comm/detail/clock.hpp"
#include "comm/detail/world.hpp"
#include "comm/halo.hpp"

namespace parasol::comm::detail {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual void send(const void* d_data, std::size_t bytes, int peer) = 0;
  virtual void recv(void* d_data, std::size_t bytes, int peer) = 0;
  virtual void exchange(const Neighbours& neighbours, const HaloBytes& halo) = 0;
  virtual void all_reduce(void* d_data, std::size_t count, Scalar type, Op op) = 0;
  virtual void all_gather(const void* d_mine, void* d_all, std::size_t bytes) = 0;
  virtual void broadcast(void* d_data, std::size_t bytes, int root) = 0;
};

// leave_communicators_to_exit (device_comm.hpp), as a backend's destructor asks it: whether to
// leave its library's teardown to the process's exit, and the note that it did.
bool teardown_left_to_exit();
void note_left_to_exit();

std::unique_ptr<DeviceBackend> make_local_backend(cudaStream_t stream, CommClock& clock);
// Through `world`: on device pointers where `staged` is false (the library is CUDA-aware),
// else through pinned host copies.
std::unique_ptr<DeviceBackend> make_mpi_backend(World& world, bool staged, cudaStream_t stream,
                                                CommClock& clock);
#ifdef PARASOL_HAVE_NCCL
// Collective: rank 0's NCCL id reaches the others through `world`.
std::unique_ptr<DeviceBackend> make_nccl_backend(World& world, cudaStream_t stream,
                                                 CommClock& clock);
#endif

}  // namespace parasol::comm::detail
