// Inside the comm layer only: the ranks as the transports see them. Two implementations, one
// process alone (local_world.cpp) and MPI (mpi_world.cpp, in builds with MPI); Context checks
// the arguments at its boundary, so a World may take them as valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "comm/ops.hpp"
#include "comm/halo.hpp"
#include "comm/launcher.hpp"

namespace parasol::comm::detail {

enum class Scalar { f64, i64, i32 };

inline std::size_t size_of(Scalar type) {
  switch (type) {
    case Scalar::f64: return sizeof(double);
    case Scalar::i64: return sizeof(std::int64_t);
    case Scalar::i32: return sizeof(std::int32_t);
  }
  return 0;
}

// Tags above the caller's (MPI promises tags up to 32767): the two halo messages, and device
// buffers sent point to point, kept apart from the caller's host messages.
inline constexpr int kTagGoingDown = kMaxUserTag + 1;
inline constexpr int kTagGoingUp = kMaxUserTag + 2;
inline constexpr int kTagDevice = kMaxUserTag + 3;

// The operations take host pointers, or device pointers where cuda_aware() is true. send and
// recv never name this rank itself: Context and DeviceComm keep those messages.
class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;
  virtual bool mpi_running() const = 0;
  virtual bool cuda_aware() const = 0;

  virtual void barrier() = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void all_reduce(void* data, std::size_t count, Scalar type, Op op) = 0;  // in place
  virtual void all_gather(const void* mine, void* all, std::size_t bytes) = 0;
  virtual void send(const void* data, std::size_t bytes, int peer, int tag) = 0;
  virtual void recv(void* data, std::size_t bytes, int peer, int tag) = 0;
  virtual void exchange(const Neighbours& neighbours, const HaloBytes& halo) = 0;
  [[noreturn]] virtual void abort(int status) = 0;
};

std::unique_ptr<World> make_local_world();
#ifdef PARASOL_HAVE_MPI
std::unique_ptr<World> make_mpi_world();
#endif

}  // namespace parasol::comm::detail
