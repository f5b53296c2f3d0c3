// How device buffers travel between ranks. The user asks for a Transport (`--transport
// auto|nccl|mpi`); the run resolves it to a Route, which the result file reports.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parasol::comm {

enum class Transport { automatic, nccl, mpi };
inline constexpr std::array kTransports{Transport::automatic, Transport::nccl, Transport::mpi};
std::string_view name(Transport t);           // "auto", "nccl", "mpi"
Transport parse_transport(std::string_view s);  // throws InputError listing the valid names

// What a Transport became in this run:
//   local           one rank: nothing travels, the operations are local copies;
//   nccl            NCCL, on the caller's stream;
//   mpi_cuda_aware  MPI given device pointers (the MPI library moves them itself);
//   mpi_staged      MPI on pinned host copies of the device buffers.
enum class Route { local, nccl, mpi_cuda_aware, mpi_staged };
inline constexpr std::array kRoutes{Route::local, Route::nccl, Route::mpi_cuda_aware,
                                    Route::mpi_staged};
std::string_view name(Route r);  // "local", "nccl", "mpi-cuda-aware", "mpi-staged"
Route parse_route(std::string_view s);

// What this build holds.
bool built_with_mpi();
bool built_with_nccl();

// The device a rank runs on, as Context::devices() gathers it.
struct RankDevice {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  int ordinal = -1;   // CUDA device number in this process; -1 when it has none
  std::string name;   // "NVIDIA H100 80GB HBM3"
  std::string uuid;   // "GPU-8c2f...", as nvidia-smi prints it: the same GPU has the same UUID
                      // whatever CUDA_VISIBLE_DEVICES numbers it as
};

// Two ranks on one GPU (NCCL cannot run so).
struct SharedGpu {
  int first_rank = 0, second_rank = 0;
  std::string host;
  int ordinal = 0;  // as the first rank numbers it
  std::string uuid;
};
std::optional<SharedGpu> find_shared_gpu(const std::vector<RankDevice>& devices);

// What decides the route; gathered by DeviceComm, separate so the rules can be tested alone.
struct RouteFacts {
  int ranks = 1;
  bool mpi_running = false;     // a launched run with MPI initialised
  bool mpi_cuda_aware = false;  // the MPI library takes device pointers
  bool nccl_built = false;
  std::optional<SharedGpu> shared_gpu;
};

// Throws InputError saying why when this run cannot take `route`: local needs one rank, the MPI
// routes a launched run (and, for mpi-cuda-aware, a CUDA-aware library), NCCL a build with NCCL
// and a GPU of its own for every rank.
void check_route(Route route, const RouteFacts& facts);

// auto: local with one rank; else NCCL when built and every rank has its own GPU; else MPI.
// mpi: MPI, CUDA-aware where the library says so, else staged (local in a plain one-rank run).
// nccl: NCCL, or InputError when this build has none or two ranks share a GPU.
Route resolve(Transport asked, const RouteFacts& facts);

}  // namespace parasol::comm
