#include "comm/transport.hpp"

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"

namespace parasol::comm {
namespace {

constexpr NameTable<Transport, 3> kTransportNames{
    {{Transport::automatic, "auto"}, {Transport::nccl, "nccl"}, {Transport::mpi, "mpi"}}};
constexpr NameTable<Route, 4> kRouteNames{{{Route::local, "local"},
                                           {Route::nccl, "nccl"},
                                           {Route::mpi_cuda_aware, "mpi-cuda-aware"},
                                           {Route::mpi_staged, "mpi-staged"}}};

Route mpi_route(const RouteFacts& facts) {
  if (!facts.mpi_running) return Route::local;  // a plain run: one rank and no MPI to ask
  return facts.mpi_cuda_aware ? Route::mpi_cuda_aware : Route::mpi_staged;
}

}  // namespace

std::string_view name(Transport t) { return lookup_name(kTransportNames, t); }
Transport parse_transport(std::string_view s) {
  return lookup_value(kTransportNames, s, "transport");
}
std::string_view name(Route r) { return lookup_name(kRouteNames, r); }
Route parse_route(std::string_view s) { return lookup_value(kRouteNames, s, "route"); }

bool built_with_mpi() {
#ifdef PARASOL_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool built_with_nccl() {
#ifdef PARASOL_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

std::optional<SharedGpu> find_shared_gpu(const std::vector<RankDevice>& devices) {
  for (std::size_t a = 0; a < devices.size(); ++a)
    for (std::size_t b = a + 1; b < devices.size(); ++b)
      if (!devices[a].uuid.empty() && devices[a].uuid == devices[b].uuid)
        return SharedGpu{devices[a].rank, devices[b].rank, devices[a].host, devices[a].ordinal,
                         devices[a].uuid};
  return std::nullopt;
}

void check_route(Route route, const RouteFacts& facts) {
  switch (route) {
    case Route::local:
      if (facts.ranks != 1)
        throw InputError("", "route", "local: there are " + std::to_string(facts.ranks) +
                                          " ranks, and local moves nothing between them");
      return;
    case Route::mpi_cuda_aware:
    case Route::mpi_staged:
      if (!facts.mpi_running)
        throw InputError("", "route", std::string(name(route)) +
                                          ": MPI is not running (a launched run starts it)");
      if (route == Route::mpi_cuda_aware && !facts.mpi_cuda_aware)
        throw InputError("", "route", "mpi-cuda-aware: this MPI library does not take device "
                                      "pointers: use mpi-staged");
      return;
    case Route::nccl:
      if (!facts.nccl_built)
        throw InputError("", "--transport",
                         "nccl: this build has no NCCL (it is found at configure time; "
                         "PARASOL_WITH_NCCL=ON): use --transport mpi");
      if (facts.shared_gpu) {
        const SharedGpu& s = *facts.shared_gpu;
        throw InputError("", "--transport",
                         "nccl: ranks " + std::to_string(s.first_rank) + " and " +
                             std::to_string(s.second_rank) + " share GPU " +
                             std::to_string(s.ordinal) + " (" + s.uuid + ") on " + s.host +
                             "; NCCL cannot run two ranks on one GPU: use --transport mpi, or "
                             "start one rank per GPU");
      }
      return;
  }
}

Route resolve(Transport asked, const RouteFacts& facts) {
  switch (asked) {
    case Transport::automatic:
      if (facts.ranks == 1) return Route::local;
      if (facts.nccl_built && !facts.shared_gpu) return Route::nccl;
      return mpi_route(facts);
    case Transport::mpi:
      return mpi_route(facts);
    case Transport::nccl:
      check_route(Route::nccl, facts);
      return Route::nccl;
  }
  throw Error("resolve: unknown transport");
}

}  // namespace parasol::comm
