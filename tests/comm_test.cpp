// The communication layer, run by ctest alone (one rank, no launcher, no MPI) and under mpiexec
// with 1 to 4 ranks. Host collectives against sequential answers, halo exchanges of uneven slabs
// with empty ranks, error agreement, transport rules, and on a machine with a GPU every device
// route this run can take (the others skip, saying why).
//
// Every rank runs every test. Collectives come before the checks and no check returns early
// (EXPECT, not ASSERT, after the first collective), so a failing rank cannot leave the others
// waiting in a collective it skipped.
#include <gtest/gtest.h>

#ifdef PARASOL_TEST_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/device_comm.hpp"
#include "comm/error.hpp"
#include "comm/halo.hpp"
#include "comm/launcher.hpp"
#include "comm/transport.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"

namespace parasol::comm {
namespace {

Context* g_context = nullptr;
int g_expected_ranks = 0;    // --expect-ranks=N: how many ranks the launcher was asked for
bool g_expect_plain = false;  // --expect-plain: no launcher, so MPI must stay untouched

Context& ctx() { return *g_context; }

// ---------------------------------------------------------------------------------------------
// Identity

TEST(CommContext, RanksAreWhatTheLauncherStarted) {
  Context& c = ctx();
  if (g_expected_ranks > 0) {
    EXPECT_EQ(c.size(), g_expected_ranks);
  }
  EXPECT_GE(c.rank(), 0);
  EXPECT_LT(c.rank(), c.size());
  EXPECT_EQ(c.is_root(), c.rank() == 0);
  EXPECT_FALSE(c.host().empty());
  // Ranks on one host number themselves 0..local_size-1 among themselves.
  struct Place {
    std::uint64_t host_hash;
    int local_rank, local_size;
  };
  const auto places = c.all_gather(Place{std::hash<std::string>{}(c.host()), c.local_rank(),
                                         c.local_size()});
  std::map<std::uint64_t, std::vector<int>> locals;
  for (const Place& p : places) locals[p.host_hash].push_back(p.local_rank);
  for (const Place& p : places) {
    std::vector<int> ranks = locals[p.host_hash];
    std::sort(ranks.begin(), ranks.end());
    EXPECT_EQ(static_cast<int>(ranks.size()), p.local_size);
    for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(ranks[i], static_cast<int>(i));
  }
}

TEST(CommContext, APlainRunIsOneRankThatNeverTouchesMpi) {
  if (!g_expect_plain) GTEST_SKIP() << "a launched run; --expect-plain marks the plain one";
  Context& c = ctx();
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.local_size(), 1);
  EXPECT_FALSE(c.mpi_running());
  EXPECT_FALSE(c.launch().has_value());
#ifdef PARASOL_TEST_HAVE_MPI
  int initialized = 1;
  MPI_Initialized(&initialized);
  EXPECT_EQ(initialized, 0) << "a plain run initialised MPI";
#endif
}

TEST(CommContext, ALaunchedRunRunsMpi) {
  if (g_expect_plain) GTEST_SKIP() << "a plain run";
  Context& c = ctx();
  EXPECT_TRUE(c.launch().has_value());
  EXPECT_EQ(c.mpi_running(), built_with_mpi());
}

TEST(CommContext, ASecondContextIsRefused) {
  try {
    Context second;
    ADD_FAILURE() << "a second Context was made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("one per process"), std::string::npos) << e.what();
  }
}

TEST(CommContext, DevicesAreReportedInRankOrder) {
  Context& c = ctx();
  const std::vector<RankDevice> devices = c.devices();
  ASSERT_EQ(static_cast<int>(devices.size()), c.size());  // the collective is behind us
  for (int r = 0; r < c.size(); ++r) {
    EXPECT_EQ(devices[r].rank, r);
    EXPECT_FALSE(devices[r].host.empty());
  }
  const RankDevice& mine = devices[c.rank()];
  EXPECT_EQ(mine.host, c.host());
  EXPECT_EQ(mine.local_rank, c.local_rank());
  if (gpu_available()) {
    EXPECT_GE(mine.ordinal, 0);
    EXPECT_EQ(mine.uuid.rfind("GPU-", 0), 0u) << mine.uuid;
    EXPECT_EQ(mine.uuid.size(), 40u) << mine.uuid;  // "GPU-" and 8-4-4-4-12 hex digits
  } else {
    EXPECT_EQ(mine.ordinal, -1);
    EXPECT_TRUE(mine.uuid.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers

std::optional<Launch> launch_in(const std::map<std::string, std::string>& env) {
  return detect_launch([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(CommLaunch, EachLauncherIsRecognisedByItsVariables) {
  EXPECT_FALSE(launch_in({}).has_value());
  EXPECT_FALSE(launch_in({{"HOME", "/root"}}).has_value());

  const auto ompi = launch_in({{"OMPI_COMM_WORLD_SIZE", "4"}, {"PMIX_RANK", "2"}});
  ASSERT_TRUE(ompi.has_value());
  EXPECT_EQ(ompi->launcher, "Open MPI");
  EXPECT_EQ(ompi->size, 4);
  EXPECT_EQ(ompi->evidence, "OMPI_COMM_WORLD_SIZE=4");

  const auto hydra = launch_in({{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}});
  ASSERT_TRUE(hydra.has_value());
  EXPECT_EQ(hydra->size, 3);

  const auto pmix = launch_in({{"PMIX_RANK", "0"}});
  ASSERT_TRUE(pmix.has_value());
  EXPECT_EQ(pmix->launcher, "PMIx");
  EXPECT_EQ(pmix->size, 0);  // it does not say how many

  const auto mv2 = launch_in({{"MV2_COMM_WORLD_SIZE", "8"}});
  ASSERT_TRUE(mv2.has_value());
  EXPECT_EQ(mv2->size, 8);

  const auto srun = launch_in({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "64"}});
  ASSERT_TRUE(srun.has_value());
  EXPECT_EQ(srun->launcher, "Slurm");
  EXPECT_EQ(srun->size, 64);
  // A batch script's own shell has SLURM_PROCID but, without --ntasks, no task count.
  EXPECT_FALSE(launch_in({{"SLURM_PROCID", "0"}}).has_value());

  EXPECT_EQ(launch_in({{"OMPI_COMM_WORLD_SIZE", "many"}})->size, 0);
}

TEST(CommLaunch, TheRankOnItsHostIsReadWhereTheLauncherSaysIt) {
  EXPECT_EQ(launch_in({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}})
                ->local_rank,
            3);
  EXPECT_EQ(launch_in({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "64"}, {"SLURM_LOCALID", "1"}})
                ->local_rank,
            1);
  EXPECT_EQ(launch_in({{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}, {"MPI_LOCALRANKID", "0"}})->local_rank,
            0);
  // Not said, or not a number: unknown.
  EXPECT_EQ(launch_in({{"OMPI_COMM_WORLD_SIZE", "4"}})->local_rank, -1);
  EXPECT_EQ(launch_in({{"PMIX_RANK", "0"}})->local_rank, -1);
  EXPECT_EQ(launch_in({{"MV2_COMM_WORLD_SIZE", "8"}, {"MV2_COMM_WORLD_LOCAL_RANK", "-2"}})
                ->local_rank,
            -1);
}

// ---------------------------------------------------------------------------------------------
// Host collectives

TEST(CommHost, BroadcastsReachEveryRank) {
  Context& c = ctx();
  const int last = c.size() - 1;
  // A NUL inside: a string travels with its length, not up to its first zero.
  std::string expected = "from the last rank";
  expected.push_back('\0');
  expected += "and on";
  std::string text = c.rank() == last ? expected : "stale";
  c.broadcast(text, last);

  std::vector<std::int32_t> values;
  if (c.rank() == 0) values = {3, 1, 4, 1, 5, 9, 2, 6};
  c.broadcast(values);

  struct Record {
    double x;
    std::int64_t n;
  } record{c.rank() == 0 ? 2.5 : -1.0, c.rank() == 0 ? 7 : -1};
  c.broadcast(record);
  c.barrier();

  EXPECT_EQ(text, expected);
  EXPECT_EQ(values, (std::vector<std::int32_t>{3, 1, 4, 1, 5, 9, 2, 6}));
  EXPECT_EQ(record.x, 2.5);
  EXPECT_EQ(record.n, 7);
}

TEST(CommHost, AllReduceMatchesTheSequentialAnswer) {
  Context& c = ctx();
  const int r = c.rank(), n = c.size();
  // Whole numbers: a sum of doubles is then exact in any order.
  const double sum = c.all_reduce(1.0 + r, Op::sum);
  const double max = c.all_reduce(-0.5 * r, Op::max);
  const double min = c.all_reduce(-0.5 * r, Op::min);
  // Past 2^53, where a double would round: the int64 reduction must not go through one.
  const std::int64_t big = (std::int64_t{1} << 60) + r;
  const std::int64_t isum = c.all_reduce(std::int64_t{r} * 3, Op::sum);
  const std::int64_t imax = c.all_reduce(big, Op::max);
  const std::int64_t imin = c.all_reduce(big, Op::min);
  std::vector<double> v{double(r), -double(r), 10.0};
  c.all_reduce(v, Op::max);
  std::vector<std::int64_t> w{r, 1};
  c.all_reduce(w, Op::sum);

  EXPECT_EQ(sum, n * (n + 1) / 2.0);
  EXPECT_EQ(max, 0.0);
  EXPECT_EQ(min, -0.5 * (n - 1));
  EXPECT_EQ(isum, 3 * std::int64_t{n} * (n - 1) / 2);
  EXPECT_EQ(imax, (std::int64_t{1} << 60) + n - 1);
  EXPECT_EQ(imin, std::int64_t{1} << 60);
  EXPECT_EQ(v, (std::vector<double>{double(n - 1), 0.0, 10.0}));
  EXPECT_EQ(w, (std::vector<std::int64_t>{std::int64_t{n} * (n - 1) / 2, n}));
}

TEST(CommHost, AllGatherPutsEachRanksRecordInRankOrder) {
  Context& c = ctx();
  struct Record {
    std::int32_t rank;
    float value;
    char tag[5];
  };
  Record mine{c.rank(), 0.25f * static_cast<float>(c.rank()), "rnk"};
  mine.tag[3] = static_cast<char>('0' + c.rank());
  const std::vector<Record> all = c.all_gather(mine);
  ASSERT_EQ(static_cast<int>(all.size()), c.size());
  for (int r = 0; r < c.size(); ++r) {
    EXPECT_EQ(all[r].rank, r);
    EXPECT_EQ(all[r].value, 0.25f * static_cast<float>(r));
    EXPECT_EQ(all[r].tag[3], '0' + r);
  }
}

// x -> a x + b. Composition does not commute, so a scan that folds out of rank order is caught.
struct Affine {
  double a, b;
};
Affine then(const Affine& first, const Affine& second) {  // second after first
  return {second.a * first.a, second.a * first.b + second.b};
}
// Awkward binary fractions, so round-off differs with the order of the fold.
Affine map_of(int rank) { return {1.0 + 0.1 * (rank + 1) / 3.0, 0.7 / (rank + 3)}; }

TEST(CommHost, ExclusiveScanIsTheSequentialFoldBitForBit) {
  Context& c = ctx();
  const Affine identity{1.0, 0.0};
  const Scan<Affine> scan = c.exclusive_scan(map_of(c.rank()), identity, then);

  Affine before = identity, total = identity;
  for (int r = 0; r < c.size(); ++r) {
    if (r == c.rank()) before = total;
    total = then(total, map_of(r));
  }
  // Bit for bit: EXPECT_EQ, not EXPECT_NEAR.
  EXPECT_EQ(scan.before.a, before.a);
  EXPECT_EQ(scan.before.b, before.b);
  EXPECT_EQ(scan.total.a, total.a);
  EXPECT_EQ(scan.total.b, total.b);
  if (c.rank() == 0) {
    EXPECT_EQ(scan.before.a, 1.0);
    EXPECT_EQ(scan.before.b, 0.0);
  }
}

TEST(CommHost, SendReachesTheNamedRank) {
  Context& c = ctx();
  const int last = c.size() - 1;
  std::vector<double> message(1000);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = 0.5 * static_cast<double>(i);
  std::vector<double> received(message.size(), -1.0);
  // Rank 0 to the last rank; alone, rank 0 to itself (kept until received).
  if (c.rank() == 0) c.send(message.data(), message.size(), last, 7);
  if (c.rank() == last) c.recv(received.data(), received.size(), 0, 7);
  c.send(message.data(), 0, kNoRank);  // to nobody: nothing happens
  c.barrier();
  if (c.rank() == last) {
    EXPECT_EQ(received, message);
  }
}

TEST(CommHost, BadPeersAndTagsAreRefusedBeforeAnythingMoves) {
  Context& c = ctx();
  double x = 0;
  EXPECT_THROW(c.send(&x, 1, c.size()), Error);
  EXPECT_THROW(c.recv(&x, 1, -2), Error);
  EXPECT_THROW(c.send(&x, 1, 0, kMaxUserTag + 1), Error);
  EXPECT_THROW(c.broadcast(x, kNoRank), Error);
  EXPECT_THROW(c.exchange(Neighbours{c.size(), kNoRank}, Halo<double>{}), Error);
}

// ---------------------------------------------------------------------------------------------
// Slabs and halo exchanges

TEST(CommSlab, PlanesAreSharedOutEvenlyAndEmptyRanksAreSkipped) {
  EXPECT_EQ(even_planes(10, 4), (std::vector<std::int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(even_planes(2, 4), (std::vector<std::int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(even_planes(0, 1), (std::vector<std::int64_t>{0}));
  EXPECT_THROW(even_planes(5, 0), Error);

  const Slab s = even_slab(10, 2, 4);
  EXPECT_EQ(s.begin, 6);
  EXPECT_EQ(s.end, 8);
  EXPECT_EQ(s.neighbours.down, 1);
  EXPECT_EQ(s.neighbours.up, 3);

  const std::vector<std::int64_t> holes{2, 0, 0, 4, 0};
  EXPECT_EQ(slab_of(holes, 0).neighbours.down, kNoRank);
  EXPECT_EQ(slab_of(holes, 0).neighbours.up, 3);
  EXPECT_EQ(slab_of(holes, 3).neighbours.down, 0);
  EXPECT_EQ(slab_of(holes, 3).neighbours.up, kNoRank);
  EXPECT_EQ(slab_of(holes, 3).begin, 2);
  EXPECT_TRUE(slab_of(holes, 1).empty());
  EXPECT_EQ(slab_of(holes, 1).neighbours.down, kNoRank);
  EXPECT_EQ(slab_of(holes, 4).neighbours.up, kNoRank);
  EXPECT_THROW(slab_of(holes, 5), Error);
}

constexpr std::size_t kPlane = 7;  // elements a plane: a prime, so no size lines up by chance
constexpr float kUntouched = -1.0f;

float value_at(std::int64_t plane, std::size_t e) { return static_cast<float>(plane * 100 + e); }

// A decomposition to exchange halos over, for any number of ranks.
struct HaloCase {
  std::string name;
  int depth;
  bool periodic;
  std::vector<std::int64_t> planes;  // per rank
};

std::vector<HaloCase> halo_cases(int size) {
  std::vector<std::int64_t> holes;  // every other rank empty, the last one never: 2, 0, 4, 0, 6..
  for (int r = 0; r < size; ++r) holes.push_back(r % 2 == 1 && r + 1 < size ? 0 : 2 + r);
  if (size > 1 && holes.back() == 0) holes.back() = 3;
  return {
      {"even, depth 1", 1, false, even_planes(4 * size, size)},
      {"uneven, depth 2", 2, false, even_planes(2 * size + 3, size)},
      {"empty ranks between, depth 2", 2, false, holes},
      {"periodic, depth 2", 2, true, even_planes(3 * size + 1, size)},
  };
}

// One rank's planes with `depth` ghost planes each side: [ghosts | own planes | ghosts].
struct HaloField {
  Slab slab;
  std::int64_t n = 0;  // planes over all ranks
  int depth = 0;
  std::vector<float> values;

  float* own(float* base) const { return base + depth * kPlane; }
  Halo<float> halo(float* base) const {
    if (slab.empty()) return {};  // no neighbours either: nothing moves
    const std::size_t own_planes = static_cast<std::size_t>(slab.count());
    return {own(base), base, own(base) + (own_planes - depth) * kPlane,
            own(base) + own_planes * kPlane, depth * kPlane};
  }
};

HaloField field_for(const HaloCase& c, int rank) {
  HaloField f;
  f.slab = slab_of(c.planes, rank);
  for (std::int64_t p : c.planes) f.n += p;
  f.depth = c.depth;
  if (c.periodic) {  // every rank holds planes here: wrap the ends round
    const int size = static_cast<int>(c.planes.size());
    f.slab.neighbours = {(rank + size - 1) % size, (rank + 1) % size};
  }
  f.values.assign((f.slab.count() + 2 * c.depth) * kPlane, kUntouched);
  for (std::int64_t p = f.slab.begin; p < f.slab.end; ++p)
    for (std::size_t e = 0; e < kPlane; ++e)
      f.values[(p - f.slab.begin + c.depth) * kPlane + e] = value_at(p, e);
  return f;
}

// Ghosts hold the neighbours' planes (wrapped where periodic), or are untouched where there is
// no neighbour; a rank's own planes are unchanged.
void expect_halo_filled(const HaloField& f, const std::vector<float>& after,
                        const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(after.size(), f.values.size());
  if (f.slab.empty()) {
    EXPECT_EQ(after, f.values);
    return;
  }
  const auto plane_of = [&](std::int64_t p) { return ((p % f.n) + f.n) % f.n; };
  for (int j = 0; j < f.depth; ++j)
    for (std::size_t e = 0; e < kPlane; ++e) {
      const float below = after[j * kPlane + e];
      const float above = after[(f.depth + f.slab.count() + j) * kPlane + e];
      EXPECT_EQ(below, f.slab.neighbours.down == kNoRank
                           ? kUntouched
                           : value_at(plane_of(f.slab.begin - f.depth + j), e))
          << "ghost plane " << j << " below, element " << e;
      EXPECT_EQ(above, f.slab.neighbours.up == kNoRank ? kUntouched
                                                       : value_at(plane_of(f.slab.end + j), e))
          << "ghost plane " << j << " above, element " << e;
    }
  for (std::size_t i = f.depth * kPlane; i < (f.depth + f.slab.count()) * kPlane; ++i)
    EXPECT_EQ(after[i], f.values[i]) << "own element " << i << " changed";
}

TEST(CommHost, HaloExchangeFillsGhostsFromTheNeighbours) {
  Context& c = ctx();
  for (const HaloCase& hc : halo_cases(c.size())) {
    const HaloField f = field_for(hc, c.rank());
    std::vector<float> values = f.values;
    c.exchange(f.slab.neighbours, f.halo(values.data()));
    expect_halo_filled(f, values, hc.name);
  }
}

// ---------------------------------------------------------------------------------------------
// Error agreement

TEST(CommAgree, NobodyFailedMeansNoFailure) {
  EXPECT_FALSE(ctx().agree("").has_value());
}

TEST(CommAgree, EveryRankLearnsTheLowestFailingRanksMessage) {
  Context& c = ctx();
  const int n = c.size();
  // Ranks 1 and 3 fail where they exist; alone, rank 0 does.
  const bool fails = n == 1 ? c.rank() == 0 : (c.rank() == 1 || c.rank() == 3);
  const std::string mine = fails ? "rank " + std::to_string(c.rank()) + ": bad input" : "";
  const auto failure = c.agree(mine, 2 + c.rank());
  const auto rank0_failure = c.agree(c.rank() == 0 ? "rank 0 cannot write" : "", 1);

  ASSERT_TRUE(failure.has_value());
  const int lowest = n == 1 ? 0 : 1;
  EXPECT_EQ(failure->rank, lowest);
  EXPECT_EQ(failure->status, 2 + lowest);
  EXPECT_EQ(failure->failed_ranks, n == 1 ? 1 : (n > 3 ? 2 : 1));
  EXPECT_EQ(failure->message, "rank " + std::to_string(lowest) + ": bad input");
  ASSERT_TRUE(rank0_failure.has_value());
  EXPECT_EQ(rank0_failure->rank, 0);
  EXPECT_EQ(rank0_failure->message, "rank 0 cannot write");
  EXPECT_EQ(rank0_failure->status, 1);
}

// ---------------------------------------------------------------------------------------------
// Checked calls

int fails_with(int code) { return code; }

TEST(CommErrors, CheckedCallsNameTheCallAndWhereItWasMade) {
  try {
    PARASOL_MPI(fails_with(3));
    ADD_FAILURE() << "PARASOL_MPI let a failure through";
  } catch (const MpiError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), 3);
    EXPECT_EQ(what.rfind("comm_test.cpp:", 0), 0u) << what;
    EXPECT_NE(what.find(": fails_with(3): "), std::string::npos) << what;
  }
  try {
    PARASOL_NCCL(fails_with(2));
    ADD_FAILURE() << "PARASOL_NCCL let a failure through";
  } catch (const NcclError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.result(), 2);
    EXPECT_EQ(what.rfind("comm_test.cpp:", 0), 0u) << what;
    EXPECT_NE(what.find(": fails_with(2): "), std::string::npos) << what;
  }
  EXPECT_NO_THROW(PARASOL_MPI(fails_with(0)));
  EXPECT_NO_THROW(PARASOL_NCCL(fails_with(0)));
}

// ---------------------------------------------------------------------------------------------
// Transports

TEST(CommTransport, NamesConvertBothWays) {
  for (Transport t : kTransports) EXPECT_EQ(parse_transport(name(t)), t);
  for (Route r : kRoutes) EXPECT_EQ(parse_route(name(r)), r);
  EXPECT_EQ(name(Transport::automatic), "auto");
  EXPECT_EQ(name(Route::mpi_cuda_aware), "mpi-cuda-aware");
  EXPECT_EQ(name(Route::mpi_staged), "mpi-staged");
  try {
    parse_transport("ncl");
    ADD_FAILURE() << "\"ncl\" was taken";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "transport \"ncl\" is not one of \"auto\", \"nccl\", \"mpi\"");
  }
}

RouteFacts facts(int ranks, bool nccl, bool cuda_aware, bool shared) {
  RouteFacts f;
  f.ranks = ranks;
  f.mpi_running = ranks > 1;
  f.mpi_cuda_aware = cuda_aware;
  f.nccl_built = nccl;
  if (shared) f.shared_gpu = SharedGpu{0, 1, "node7", 0, "GPU-00000000-1111-2222-3333-444444444444"};
  return f;
}

TEST(CommTransport, AutoTakesNcclWhereEveryRankHasItsOwnGpu) {
  EXPECT_EQ(resolve(Transport::automatic, facts(1, true, true, false)), Route::local);
  EXPECT_EQ(resolve(Transport::automatic, facts(8, true, true, false)), Route::nccl);
  EXPECT_EQ(resolve(Transport::automatic, facts(8, true, true, true)), Route::mpi_cuda_aware);
  EXPECT_EQ(resolve(Transport::automatic, facts(8, true, false, true)), Route::mpi_staged);
  EXPECT_EQ(resolve(Transport::automatic, facts(8, false, false, false)), Route::mpi_staged);
  EXPECT_EQ(resolve(Transport::mpi, facts(8, true, true, false)), Route::mpi_cuda_aware);
  EXPECT_EQ(resolve(Transport::mpi, facts(8, true, false, false)), Route::mpi_staged);
  EXPECT_EQ(resolve(Transport::mpi, facts(1, true, false, false)), Route::local);  // no MPI
  EXPECT_EQ(resolve(Transport::nccl, facts(8, true, false, false)), Route::nccl);
  EXPECT_EQ(resolve(Transport::nccl, facts(1, true, false, false)), Route::nccl);
}

TEST(CommTransport, NcclAskedWhereItCannotRunSaysWhyInOneLine) {
  try {
    resolve(Transport::nccl, facts(4, true, false, true));
    ADD_FAILURE() << "NCCL was given two ranks on one GPU";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ranks 0 and 1 share GPU 0 (GPU-00000000-1111-2222-3333-444444444444) on "
                        "node7"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("use --transport mpi"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  try {
    resolve(Transport::nccl, facts(4, false, false, false));
    ADD_FAILURE() << "NCCL was chosen in a build without it";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("this build has no NCCL"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_route(Route::local, facts(2, true, true, false)), InputError);
  EXPECT_THROW(check_route(Route::mpi_staged, facts(1, true, true, false)), InputError);
  EXPECT_THROW(check_route(Route::mpi_cuda_aware, facts(2, true, false, false)), InputError);
  EXPECT_NO_THROW(check_route(Route::mpi_staged, facts(2, false, false, true)));
}

TEST(CommTransport, SharedGpusAreFoundByUuidNotByNumber) {
  // The same GPU numbered 0 and 1 by two processes with different CUDA_VISIBLE_DEVICES.
  const std::vector<RankDevice> shared{{0, "n1", 0, 0, "H100", "GPU-a"},
                                       {1, "n1", 1, 1, "H100", "GPU-b"},
                                       {2, "n1", 2, 0, "H100", "GPU-b"}};
  const auto s = find_shared_gpu(shared);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->first_rank, 1);
  EXPECT_EQ(s->second_rank, 2);
  EXPECT_EQ(s->uuid, "GPU-b");
  // Device 0 on two hosts is two GPUs; ranks with no GPU share nothing.
  const std::vector<RankDevice> apart{{0, "n1", 0, 0, "H100", "GPU-a"},
                                      {1, "n2", 0, 0, "H100", "GPU-c"},
                                      {2, "n3", 0, -1, "", ""},
                                      {3, "n3", 1, -1, "", ""}};
  EXPECT_FALSE(find_shared_gpu(apart).has_value());
}

// ---------------------------------------------------------------------------------------------
// Device buffers, on every route this run can take

// Every rank has a device, or the GPU tests skip on all of them together.
bool gpus_everywhere(std::string& reason) {
  const bool mine = gpu_available(&reason);
  return ctx().all_reduce(std::int64_t{mine ? 1 : 0}, Op::min) == 1;
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& values, cudaStream_t stream) {
  DeviceBuffer<T> d(values.size());
  if (!values.empty())
    PARASOL_CUDA(cudaMemcpyAsync(d.data(), values.data(), d.bytes(), cudaMemcpyHostToDevice,
                                 stream));
  return d;
}

// Every halo case's exchange through `comm` fills each rank's ghosts from its neighbours.
void expect_exchanges_fill_halos(DeviceComm& comm, cudaStream_t stream) {
  for (const HaloCase& hc : halo_cases(ctx().size())) {
    const HaloField f = field_for(hc, ctx().rank());
    DeviceBuffer<float> d = upload(f.values, stream);
    comm.exchange(f.slab.neighbours, f.halo(d.data()));
    expect_halo_filled(f, download(d, stream), hc.name);
  }
}

class CommDevice : public ::testing::TestWithParam<Route> {
 protected:
  // The route's DeviceComm, or a skip with the reason this run cannot take it: the reason is
  // the same on every rank, so all skip together.
  std::optional<DeviceComm> open(Stream& stream) {
    try {
      return DeviceComm(ctx(), GetParam(), stream);
    } catch (const InputError& e) {
      skip_reason_ = e.what();
      return std::nullopt;
    }
  }
  std::string skip_reason_;
};

TEST_P(CommDevice, HaloExchangeFillsGhostsFromTheNeighbours) {
  std::string reason;
  if (!gpus_everywhere(reason)) GTEST_SKIP() << "needs a CUDA device on every rank: " << reason;
  Stream stream;
  std::optional<DeviceComm> comm = open(stream);
  if (!comm) GTEST_SKIP() << skip_reason_;
  EXPECT_EQ(comm->route(), GetParam());
  expect_exchanges_fill_halos(*comm, stream);
  // Alone and not periodic, the local route moves nothing, and its time may round to zero.
  if (GetParam() == Route::local)
    EXPECT_GE(comm->seconds(), 0.0);
  else
    EXPECT_GT(comm->seconds(), 0.0);
}

TEST_P(CommDevice, ConnectIsNotCountedAndLeavesExchangesWorking) {
  std::string reason;
  if (!gpus_everywhere(reason)) GTEST_SKIP() << "needs a CUDA device on every rank: " << reason;
  Stream stream;
  std::optional<DeviceComm> comm = open(stream);
  if (!comm) GTEST_SKIP() << skip_reason_;
  const int r = ctx().rank(), n = ctx().size();
  const Neighbours chain{r > 0 ? r - 1 : kNoRank, r + 1 < n ? r + 1 : kNoRank};
  comm->connect(chain);
  EXPECT_EQ(comm->seconds(), 0.0);  // setup, not communication a solve did
  // The halo exchange after it still fills the ghosts from the neighbours.
  expect_exchanges_fill_halos(*comm, stream);
}

TEST_P(CommDevice, AllReduceOfDoublesAndInt64) {
  std::string reason;
  if (!gpus_everywhere(reason)) GTEST_SKIP() << "needs a CUDA device on every rank: " << reason;
  Stream stream;
  std::optional<DeviceComm> comm = open(stream);
  if (!comm) GTEST_SKIP() << skip_reason_;
  const int r = ctx().rank(), n = ctx().size();
  constexpr std::size_t kCount = 5;
  std::vector<double> x(kCount);
  std::vector<std::int64_t> big(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    x[i] = 10.0 * r + static_cast<double>(i);
    big[i] = (std::int64_t{1} << 55) + 3 * r + i;  // past 2^53: no double in the path
  }
  DeviceBuffer<double> sum = upload(x, stream), max = upload(x, stream), min = upload(x, stream);
  DeviceBuffer<std::int64_t> isum = upload(big, stream), imax = upload(big, stream);
  comm->all_reduce(sum.data(), kCount, Op::sum);
  comm->all_reduce(max.data(), kCount, Op::max);
  comm->all_reduce(min.data(), kCount, Op::min);
  comm->all_reduce(isum.data(), kCount, Op::sum);
  comm->all_reduce(imax.data(), kCount, Op::max);
  const auto h_sum = download(sum, stream), h_max = download(max, stream),
             h_min = download(min, stream);
  const auto h_isum = download(isum, stream), h_imax = download(imax, stream);
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(h_sum[i], 10.0 * n * (n - 1) / 2 + n * double(i)) << i;
    EXPECT_EQ(h_max[i], 10.0 * (n - 1) + static_cast<double>(i)) << i;
    EXPECT_EQ(h_min[i], double(i)) << i;
    EXPECT_EQ(h_isum[i], n * ((std::int64_t{1} << 55) + std::int64_t(i)) + 3 * n * (n - 1) / 2)
        << i;
    EXPECT_EQ(h_imax[i], (std::int64_t{1} << 55) + 3 * (n - 1) + std::int64_t(i)) << i;
  }
}

TEST_P(CommDevice, AllGatherBroadcastAndSend) {
  std::string reason;
  if (!gpus_everywhere(reason)) GTEST_SKIP() << "needs a CUDA device on every rank: " << reason;
  Stream stream;
  std::optional<DeviceComm> comm = open(stream);
  if (!comm) GTEST_SKIP() << skip_reason_;
  const int r = ctx().rank(), n = ctx().size(), last = n - 1;
  struct Record {
    std::int32_t rank, twice;
    double value;
  };
  DeviceBuffer<Record> mine = upload(std::vector<Record>{{r, 2 * r, 0.5 * r}}, stream);
  DeviceBuffer<Record> all(static_cast<std::size_t>(n));
  comm->all_gather(mine.data(), all.data(), 1);

  std::vector<std::int32_t> words(33, -1);
  if (r == last)
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = 7 * static_cast<int>(i);
  DeviceBuffer<std::int32_t> shared = upload(words, stream);
  comm->broadcast(shared.data(), shared.size(), last);

  // Rank 0 to the last rank; alone, a message to itself, kept until it is received.
  std::vector<double> message(257);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = 1.0 / static_cast<double>(i + 1);
  DeviceBuffer<double> out = upload(message, stream);
  DeviceBuffer<double> in = upload(std::vector<double>(message.size(), -1.0), stream);
  if (r == 0) comm->send(out.data(), out.size(), last);
  if (r == last) comm->recv(in.data(), in.size(), 0);

  const auto h_all = download(all, stream);
  for (int q = 0; q < n; ++q) {
    EXPECT_EQ(h_all[q].rank, q);
    EXPECT_EQ(h_all[q].twice, 2 * q);
    EXPECT_EQ(h_all[q].value, 0.5 * q);
  }
  const auto h_shared = download(shared, stream);
  for (std::size_t i = 0; i < h_shared.size(); ++i) EXPECT_EQ(h_shared[i], 7 * int(i)) << i;
  if (r == last) {
    EXPECT_EQ(download(in, stream), message);
  }
}

// "mpi_cuda_aware": the route is in the test's name.
std::string route_case_name(const ::testing::TestParamInfo<Route>& route) {
  std::string s(name(route.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(Routes, CommDevice, ::testing::ValuesIn(kRoutes), route_case_name);

TEST(CommDeviceTransport, AutoAndNcclResolveAsTheRulesSay) {
  std::string reason;
  if (!gpus_everywhere(reason)) GTEST_SKIP() << "needs a CUDA device on every rank: " << reason;
  Context& c = ctx();
  Stream stream;
  const bool shared = find_shared_gpu(c.devices()).has_value();
  const DeviceComm automatic(c, Transport::automatic, stream);
  if (c.size() == 1) {
    EXPECT_EQ(automatic.route(), Route::local);
  } else if (shared) {
    EXPECT_NE(automatic.route(), Route::nccl);
  } else {
    EXPECT_EQ(automatic.route() == Route::nccl, built_with_nccl());
  }
  if (shared && built_with_nccl()) {
    try {
      DeviceComm nccl(c, Transport::nccl, stream);
      ADD_FAILURE() << "NCCL was set up with two ranks on one GPU";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("share GPU"), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Output: rank 0 prints the run; the others print only their failures, marked with their rank.
// After each test the ranks compare results, so rank 0 also lists the failures seen elsewhere.

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.summary());
    std::fflush(stderr);
  }

 private:
  int rank_;
};

class FailuresOnOtherRanks : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const auto failed = ctx().all_gather(std::int32_t{info.result()->Failed() ? 1 : 0});
    std::string ranks;
    for (std::size_t r = 1; r < failed.size(); ++r)
      if (failed[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!ranks.empty())
      failures_.push_back(std::string(info.test_suite_name()) + "." + info.name() +
                          " on rank(s) " + ranks);
  }
  // Rank 0's summary covers its own tests; this adds the others'.
  void print_summary() const {
    if (failures_.empty()) return;
    std::printf("[  FAILED  ] %zu test(s) failed on other ranks, listed below:\n",
                failures_.size());
    for (const std::string& f : failures_) std::printf("[  FAILED  ] %s\n", f.c_str());
    std::fflush(stdout);
  }

 private:
  std::vector<std::string> failures_;
};

}  // namespace
}  // namespace parasol::comm

// Flags after GoogleTest's own:
//   --expect-ranks=N   the launcher was asked for N ranks
//   --expect-plain     no launcher: MPI must stay untouched
//   --abort-from=R     rank R calls abort(3) while the others wait in a barrier (ctest checks
//                      that every rank ends and the status is 3)
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int abort_from = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--expect-ranks=", 0) == 0) {
      parasol::comm::g_expected_ranks = std::stoi(arg.substr(15));
    } else if (arg == "--expect-plain") {
      parasol::comm::g_expect_plain = true;
    } else if (arg.rfind("--abort-from=", 0) == 0) {
      abort_from = std::stoi(arg.substr(13));
    } else {
      std::fprintf(stderr, "comm_test: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  try {
    parasol::comm::Context context;
    parasol::comm::g_context = &context;
    if (abort_from >= 0) {
      if (context.rank() == abort_from) context.abort(3);
      context.barrier();
      return 0;
    }
    if (parasol::gpu_available()) context.select_device();

    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (!context.is_root()) {
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new parasol::comm::RankFailurePrinter(context.rank()));
    }
    auto* elsewhere = new parasol::comm::FailuresOnOtherRanks;  // the listeners own it
    listeners.Append(elsewhere);

    const int failed = RUN_ALL_TESTS();
    if (context.is_root()) elsewhere->print_summary();
    // The run fails if any rank's did, and every rank says so with the same status.
    return static_cast<int>(context.all_reduce(std::int64_t{failed}, parasol::comm::Op::max));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "comm_test: %s\n", e.what());
    return 1;
  }
}
