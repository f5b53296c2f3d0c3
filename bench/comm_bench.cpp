// Link facts between the GPUs of a run, through each route the run can take: one-way latency and
// bandwidth of a device-to-device transfer (half a ping-pong's round trip), a halo exchange with
// both neighbours (laplace3d's pattern, one plane each way), and an all-reduce of one double.
//
//   mpirun -np 2 comm_bench                  # every route this run can take, sizes 8 B .. 64 MiB
//   mpirun -np 8 comm_bench --sizes 4194304  # pairs (0,1) (2,3) ... ping-pong at once
//
// Each figure is the median of --repeats timed batches of --iterations operations, after a
// warm-up batch; the slowest rank's time is the batch's time. Rank 0 prints the table. A route
// this run cannot take (NCCL with two ranks on one GPU, CUDA-aware MPI where the library is not)
// is listed with the reason.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/device_comm.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"

namespace {

using parasol::comm::Context;
using parasol::comm::DeviceComm;
using parasol::comm::Route;
using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::size_t> sizes{8, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
  int iterations = 20;
  int repeats = 7;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw parasol::InputError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      std::string list = value();
      for (std::size_t p = 0; p < list.size();) {
        const std::size_t q = std::min(list.find(',', p), list.size());
        o.sizes.push_back(std::stoull(list.substr(p, q - p)));
        p = q + 1;
      }
    } else if (a == "--iterations") {
      o.iterations = std::stoi(value());
    } else if (a == "--repeats") {
      o.repeats = std::stoi(value());
    } else {
      throw parasol::InputError(
          "usage: comm_bench [--sizes B,B,...] [--iterations N] [--repeats N]; unknown " + a);
    }
  }
  if (o.sizes.empty() || o.iterations < 1 || o.repeats < 1)
    throw parasol::InputError("--sizes, --iterations and --repeats must be positive");
  return o;
}

// Median over repeats of the slowest rank's seconds per operation.
template <class Batch>
double time_per_operation(Context& context, cudaStream_t stream, const Options& o, Batch batch) {
  batch();  // warm-up: NCCL connects its channels on first use
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> times;
  for (int r = 0; r < o.repeats; ++r) {
    context.barrier();
    const auto start = Clock::now();
    for (int i = 0; i < o.iterations; ++i) batch();
    PARASOL_CUDA(cudaStreamSynchronize(stream));
    const double mine = std::chrono::duration<double>(Clock::now() - start).count();
    times.push_back(context.all_reduce(mine, parasol::comm::Op::max) / o.iterations);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

void run_route(Context& context, Route route, const Options& o, cudaStream_t stream) {
  const int rank = context.rank();
  const int size = context.size();
  std::string why;
  std::optional<DeviceComm> comm;
  try {
    comm.emplace(context, route, stream);
  } catch (const parasol::InputError& e) {
    why = e.what();
  }
  if (!comm) {
    if (context.is_root()) std::printf("%-15s not taken: %s\n", std::string(name(route)).c_str(), why.c_str());
    return;
  }
  const std::size_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  parasol::DeviceBuffer<std::uint8_t> send(largest), recv(largest), up(largest), down(largest);
  PARASOL_CUDA(cudaMemsetAsync(send.data(), rank + 1, largest, stream));
  PARASOL_CUDA(cudaMemsetAsync(up.data(), rank + 2, largest, stream));
  // Pairs (0,1), (2,3), ...: a rank without a partner sits the ping-pong out.
  const int partner = (rank ^ 1) < size ? (rank ^ 1) : parasol::comm::kNoRank;
  const parasol::comm::Neighbours neighbours{rank > 0 ? rank - 1 : parasol::comm::kNoRank,
                                             rank + 1 < size ? rank + 1 : parasol::comm::kNoRank};
  for (const std::size_t bytes : o.sizes) {
    const double one_way = time_per_operation(context, stream, o, [&] {
      if (partner == parasol::comm::kNoRank) return;
      if (rank % 2 == 0) {
        comm->send_bytes(send.data(), bytes, partner);
        comm->recv_bytes(recv.data(), bytes, partner);
      } else {
        comm->recv_bytes(recv.data(), bytes, partner);
        comm->send_bytes(send.data(), bytes, partner);
      }
    }) / 2;
    const double halo = time_per_operation(context, stream, o, [&] {
      comm->exchange(neighbours, parasol::comm::Halo<std::uint8_t>{send.data(), down.data(),
                                                                   up.data(), recv.data(), bytes});
    });
    if (context.is_root())
      std::printf("%-15s %12zu %12.2f %12.2f %12.2f %12.2f\n", std::string(name(route)).c_str(),
                  bytes, one_way * 1e6, static_cast<double>(bytes) / one_way / 1e9, halo * 1e6,
                  static_cast<double>(bytes) / halo / 1e9);
  }
  parasol::DeviceBuffer<double> value(1);
  PARASOL_CUDA(cudaMemsetAsync(value.data(), 0, sizeof(double), stream));
  const double reduce = time_per_operation(
      context, stream, o, [&] { comm->all_reduce(value.data(), 1, parasol::comm::Op::max); });
  if (context.is_root())
    std::printf("%-15s all-reduce of one double: %.2f us\n", std::string(name(route)).c_str(),
                reduce * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Context context;
    const Options o = parse(argc, argv);
    (void)context.select_device();
    if (context.is_root()) {
      int count = 0;
      PARASOL_CUDA(cudaGetDeviceCount(&count));
      std::printf("ranks %d, devices on rank 0's host %d; peer access:", context.size(), count);
      for (int a = 0; a < count; ++a)
        for (int b = 0; b < count; ++b)
          if (a != b) {
            int can = 0;
            PARASOL_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
            std::printf(" %d->%d %s", a, b, can ? "yes" : "no");
          }
      std::printf("\n");
      for (const auto& d : context.devices())
        std::printf("rank %d: %s device %d %s %s\n", d.rank, d.host.c_str(), d.ordinal,
                    d.name.c_str(), d.uuid.c_str());
      std::printf("%-15s %12s %12s %12s %12s %12s\n", "route", "bytes", "one-way us", "GB/s",
                  "halo us", "halo GB/s");  // halo: one message each way a link
    } else {
      (void)context.devices();
    }
    parasol::Stream stream;
    for (const Route route : {Route::nccl, Route::mpi_cuda_aware, Route::mpi_staged})
      run_route(context, route, o, stream.get());
    return 0;
  } catch (const parasol::InputError& e) {
    std::fprintf(stderr, "comm_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "comm_bench: %s\n", e.what());
    return 1;
  }
}
