// A batch as a run makes, sizes and solves it (problem.hpp).
#include "solvers/tridiag/problem.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/precision.hpp"
#include "solvers/tridiag/inputs.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/run.hpp"

namespace parasol::tridiag {

std::string extent(const Dims& dims) {
  return std::to_string(dims.systems) + " systems of " + std::to_string(dims.n) + " rows";
}

std::string extent(const KindDims& dims) {
  return std::to_string(dims.systems) + " " + std::string(name(dims.kind)) + " systems of " +
         std::to_string(dims.n) + " rows";
}

const char* size_key(const Params& p) {
  return p.problem == Problem::heat   ? "heat.grids"
         : p.problem == Problem::file ? "input.file"
                                      : "random.systems";
}

Footprint footprint(const Dims& dims, int element_bytes, bool gold) {
  const double size = static_cast<double>(dims.size());
  return {5.0 * element_bytes * size, (6.0 * element_bytes + (gold ? 7.0 * 8 : 0.0)) * size};
}

Footprint footprint(const KindDims& dims, int element_bytes, bool gold) {
  const double systems = static_cast<double>(dims.systems);
  const double coefficients = dims.bands() * static_cast<double>(dims.band_width()) * systems;
  const double rhs = static_cast<double>(dims.rhs_width()) * systems;
  return {element_bytes * (coefficients + 2 * rhs + 4 * static_cast<double>(dims.n) * systems),
          2.0 * element_bytes * (coefficients + 2 * rhs) + (gold ? 7.0 * 8 * rhs : 0.0)};
}

std::string problem_class(const Params& p, std::int64_t n, std::int64_t systems) {
  std::string size = "n=" + std::to_string(n) + ",systems=" + std::to_string(systems);
  if (p.kind != Kind::general) size += ",kind=" + std::string(name(p.kind));
  if (p.kind == Kind::multi_rhs) size += ",rhs=" + std::to_string(p.rhs);
  return size;
}

std::string method_of(const Launch& l) {
  std::string text = std::string(name(l.variant)) + ", " + std::to_string(l.threads) + " threads";
  if (l.chunk != 0) text += ", chunk " + std::to_string(l.chunk);
  return text;
}

Params with_launch(Params p, const Launch& launch) {
  p.variant = launch.variant;
  p.threads = launch.threads;
  p.chunk = launch.chunk;
  return p;
}

Launch launch_for(const Params& p, std::int64_t n, std::int64_t systems, int element_bytes) {
  // Another kind's launch as its solver makes it (KindSolver): what /method and the summary name
  // is what runs.
  if (p.kind != Kind::general)
    return resolve_kind_launch({p.variant, p.threads, p.chunk},
                               {p.kind, n, systems, p.kind == Kind::multi_rhs ? p.rhs : 1},
                               element_bytes);
  const std::vector<Variant> solvers = variants_for(p.kind);
  if (std::find(solvers.begin(), solvers.end(), p.variant) == solvers.end())
    throw InputError("", "method.variant",
                     std::string(name(p.kind)) + " systems are not solved by " +
                         std::string(name(p.variant)));
  return resolve_launch({p.variant, p.threads, p.chunk}, {n, systems, kind_layout(p.kind, p.variant)},
                        element_bytes);
}

template <class T>
BatchPart<T> random_batch_part(const RandomInput& r, int rank, int ranks, bool draw) {
  const comm::Slab mine = system_share(r.systems, rank, ranks, "random.systems", "systems");
  const Dims dims{r.n, mine.count(), Layout::contiguous};
  BatchPart<T> part;
  if (draw) part.batch = random_batch<T>(dims, r.seed, mine.begin);
  else part.batch.dims = dims;
  part.first = mine.begin;
  part.systems = r.systems;
  return part;
}

template <class T>
KindBatchPart<T> random_kind_batch_part(const RandomInput& r, Kind kind, int rhs, int rank,
                                        int ranks) {
  const comm::Slab mine = system_share(r.systems, rank, ranks, "random.systems", "systems");
  return {random_kind_batch<T>({kind, r.n, mine.count(), rhs}, r.seed, mine.begin), mine.begin,
          r.systems};
}

template <class T>
KindBatch<T> heat_ring_step(const Heat& heat) {
  Heat ring = heat;
  ring.ring = true;
  Batch<T> step = heat_step<T>(ring);
  KindBatch<T> batch;
  batch.dims = {Kind::periodic, ring.points, ring.grids, 1};
  batch.bands = {std::move(step.a), std::move(step.b), std::move(step.c)};
  batch.d = std::move(step.d);
  return batch;
}

namespace {

// The gold in double, timed as compute, and x rounded from it.
template <class T, class Gold>
Solved<T> solved_by_gold(Gold&& gold) {
  const auto start = std::chrono::steady_clock::now();
  Solved<T> s;
  s.gold = gold();
  s.x = rounded<T>(s.gold);
  s.timings.add(phase::compute, seconds_since(start));
  return s;
}

}  // namespace

template <class T>
Solved<T> solve_on(bool gpu, const Launch& launch, const Batch<T>& batch) {
  if (!gpu) return solved_by_gold<T>([&] { return solve_gold(batch); });
  const Layout layout = required_layout(launch.variant);
  Result<T> r = solve_gpu<T>(launch, relayout(batch, layout));
  const Dims dims{batch.dims.n, batch.dims.systems, layout};
  return {relayout(r.x, dims, Layout::contiguous), {}, r.timings};
}

template <class T>
Solved<T> solve_on(bool gpu, const Launch& launch, const KindBatch<T>& batch) {
  if (!gpu) return solved_by_gold<T>([&] { return solve_kind_gold(batch); });
  Result<T> r = solve_kind_gpu<T>(launch, batch);
  return {std::move(r.x), {}, r.timings};
}

template <class T>
Solved<T> solve_drawn(const Launch& launch, const Dims& dims, std::uint64_t seed,
                      std::int64_t first_system) {
  const Dims drawn{dims.n, dims.systems, required_layout(launch.variant)};
  Result<T> r = solve_gpu<T>(launch, drawn, seed, first_system);
  return {relayout(r.x, drawn, Layout::contiguous), {}, r.timings};
}

comm::Slab rows_share(std::int64_t n, int rank, int ranks, std::int64_t piece_rows,
                      const std::string& key) {
  (void)long_cut(n, ranks, piece_rows, key);
  return comm::even_slab(n, rank, ranks);
}

template <class T>
RowsPart<T> random_rows(const RandomInput& r, bool periodic, const comm::Slab& mine, bool draw) {
  if (periodic) return random_ring_rows_part<T>(r.n, r.systems, r.seed, mine);
  if (draw) return random_rows_part<T>(r.n, r.systems, r.seed, mine);
  RowsPart<T> part;
  part.n = r.n;
  part.first_row = mine.begin;
  part.batch.dims = {mine.count(), r.systems, Layout::contiguous};
  return part;
}

template <class T>
Agreement long_check(comm::Context& context, const Params& p, std::int64_t n,
                     std::int64_t systems, const std::vector<T>& x, const comm::Slab& mine) {
  const bool file = p.problem == Problem::file;
  if (p.kind == Kind::periodic) {
    const KindBatch<T> ring =
        file ? read_kind_batch_part<T>(p.input, Kind::periodic, 1, 0, 1).batch
             : random_kind_batch<T>({Kind::periodic, n, systems, 1}, p.random.seed);
    return long_agreement<T>(context, ring, x, mine);
  }
  const Batch<T> whole = file ? read_batch<T>(p.input)
                              : random_batch<T>({n, systems, Layout::contiguous}, p.random.seed);
  return long_agreement<T>(context, whole, x, mine);
}

#define PARASOL_TRIDIAG_PROBLEM(T)                                                            \
  template KindBatch<T> heat_ring_step<T>(const Heat&);                                       \
  template BatchPart<T> random_batch_part<T>(const RandomInput&, int, int, bool);               \
  template KindBatchPart<T> random_kind_batch_part<T>(const RandomInput&, Kind, int, int, int); \
  template Solved<T> solve_on<T>(bool, const Launch&, const Batch<T>&);                       \
  template Solved<T> solve_on<T>(bool, const Launch&, const KindBatch<T>&);                   \
  template Solved<T> solve_drawn<T>(const Launch&, const Dims&, std::uint64_t, std::int64_t); \
  template RowsPart<T> random_rows<T>(const RandomInput&, bool, const comm::Slab&, bool);      \
  template Agreement long_check<T>(comm::Context&, const Params&, std::int64_t, std::int64_t,  \
                                   const std::vector<T>&, const comm::Slab&);
PARASOL_TRIDIAG_PROBLEM(float)
PARASOL_TRIDIAG_PROBLEM(double)
#undef PARASOL_TRIDIAG_PROBLEM

}  // namespace parasol::tridiag
