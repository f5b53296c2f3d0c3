// Halos of a 1-D (slab) decomposition: who the neighbours are and what goes to them. The same
// shapes serve host arrays (Context::exchange) and device arrays (DeviceComm::exchange).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace parasol::comm {

// No neighbour on this side (the end of a non-periodic domain, or a rank that holds nothing):
// an exchange with it sends and receives nothing, as MPI_PROC_NULL does.
inline constexpr int kNoRank = -1;

struct Neighbours {
  int down = kNoRank;  // the rank holding the planes just below this rank's
  int up = kNoRank;    // ... and just above
};

// One halo exchange: `count` elements go from send_down to the down neighbour and from send_up
// to the up neighbour; as many arrive from the down neighbour into recv_down (what it sent up)
// and from the up neighbour into recv_up (what it sent down). Pointers towards an absent
// neighbour may be null.
template <class T>
struct Halo {
  static_assert(std::is_trivially_copyable_v<T>, "halos are moved as bytes");
  const T* send_down = nullptr;
  T* recv_down = nullptr;
  const T* send_up = nullptr;
  T* recv_up = nullptr;
  std::size_t count = 0;
};

// This rank's share of `n` planes.
struct Slab {
  std::int64_t begin = 0, end = 0;  // planes [begin, end) of the whole domain
  Neighbours neighbours;            // the nearest ranks below and above that hold planes
  std::int64_t count() const { return end - begin; }
  bool empty() const { return end == begin; }
};

// Planes per rank as given (some may be zero): the ranks that hold nothing are skipped, so the
// ranks that hold planes form one chain; a rank with none has no neighbours.
Slab slab_of(const std::vector<std::int64_t>& planes_per_rank, int rank);

// `n` planes as evenly as can be: the first n % size ranks get one more; with fewer planes than
// ranks the last ranks get none.
std::vector<std::int64_t> even_planes(std::int64_t n, int size);
Slab even_slab(std::int64_t n, int rank, int size);

namespace detail {

// A halo with its element type erased: what the transports move.
struct HaloBytes {
  const void* send_down = nullptr;
  void* recv_down = nullptr;
  const void* send_up = nullptr;
  void* recv_up = nullptr;
  std::size_t bytes = 0;
};

template <class T>
HaloBytes as_bytes(const Halo<T>& h) {
  return {h.send_down, h.recv_down, h.send_up, h.recv_up, h.count * sizeof(T)};
}

}  // namespace detail
}  // namespace parasol::comm
