// solve_device_slab: the plain variant's cycles of device.cu on slabs of z planes (device_slab.hpp
// says what runs where). The order of the kernels is device.cu's, enqueued directly rather than
// captured, with the halo exchanges and the gather between them.
#include "solvers/poisson/device_slab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "comm/device_comm.hpp"
#include "comm/halo.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/poisson/kernels.cuh"
#include "solvers/poisson/slab.hpp"
#include "solvers/poisson/sources.cuh"

namespace parasol::poisson {
namespace {

// Dynamic shared memory the bottom kernel may take without opting in (device.cu's rule).
constexpr std::size_t kBottomSharedLimit = 48 * 1024;

// Planes [begin, end) of a level.
struct Planes {
  std::int64_t begin = 0, end = 0;
  std::int64_t count() const { return end - begin; }
};

template <class T>
struct SlabLevel {
  Level level;
  SlabGrid<T> grid;  // the planes held here
  bool cut = false;   // cut among the ranks, with halo planes; else whole on every rank
  // u is in `u`, or in `previous` after an odd number of Chebyshev steps (device.cu's rule).
  DeviceBuffer<T> u, b, r, previous, fmg_b;
  bool in_previous = false;
  T* current() { return in_previous ? previous.data() : u.data(); }
  T* other() { return in_previous ? u.data() : previous.data(); }
  std::size_t plane() const { return static_cast<std::size_t>(level.nx * level.ny); }
  // Values stored: the held planes and, on a cut level, the two halo planes.
  std::size_t stored() const {
    return plane() * static_cast<std::size_t>(grid.planes + (cut ? 2 : 0));
  }
  // Where the held planes start in the storage.
  std::size_t first() const { return cut ? plane() : 0; }
};

template <class T>
class SlabMultigrid {
 public:
  SlabMultigrid(const Params& p, comm::Context& context)
      : p_(p), context_(context), rank_(context.rank()), size_(context.size()),
        all_(levels(p)), results_(4) {
    for (int r = 0; r < size_; ++r) cuts_.push_back(slab_cut(p, r, size_));
    // Never the coarsest level: the bottom solve is one block over a whole level.
    const auto depth = static_cast<std::int64_t>(all_.size());
    cut_levels_ = size_ == 1 ? 0 : std::min(cuts_[0].cut_levels, depth - 1);
    for (std::size_t l = 0; l < all_.size(); ++l)
      for (int r = 0; r < size_ && cut(l); ++r) {
        const Planes h = held(l, r);
        if (h.count() < 1)
          throw Error("poisson: rank " + std::to_string(r) + " holds no planes of level " +
                      std::to_string(l) + " (" + std::to_string(all_[l].nz) + " planes)");
      }
    allocate();
    if (p.smoother == Smoother::chebyshev) {
      pre_steps_ = chebyshev_steps(p.pre_sweeps);
      post_steps_ = chebyshev_steps(p.post_sweeps);
      std::vector<double2> steps;
      for (const ChebyshevStep& s : chebyshev_steps(p.bottom_sweeps)) steps.push_back({s.c1, s.c2});
      bottom_steps_ = DeviceBuffer<double2>(steps.size());
      upload(bottom_steps_, steps, stream_);
      stream_.synchronize();
    }
  }

  std::int64_t depth() const { return static_cast<std::int64_t>(level_.size()); }

  // This rank's planes of the grid (slab_cut), x fastest.
  void upload_source(const std::vector<T>& f) {
    SlabLevel<T>& top = level_[0];
    const Planes mine = own();
    const auto plane = top.plane();
    if (f.size() != plane * static_cast<std::size_t>(mine.count()))
      throw Error("poisson: the source holds " + std::to_string(f.size()) + " values for " +
                  std::to_string(plane * static_cast<std::size_t>(mine.count())) + " cells");
    put_own_planes(top.b, f.data());
    finish_source();
  }

  // f made here (sources.cuh) on the planes this rank holds of the grid (every plane where the
  // grid is not cut), compatible where singular (the planes' sums meeting across the ranks where
  // it is cut), then as upload_source. No host array, no gather. Returns the shift.
  double make_source() {
    SlabLevel<T>& top = level_[0];
    const DeviceRecipe r = made().recipe();
    const double shift =
        singular(p_) ? device_compatibility_shift(p_, static_cast<const LevelGrid<T>&>(top.grid),
                                                  top.level, r, top.grid.k0, top.grid.planes,
                                                  top.cut ? &context_ : nullptr, stream_)
                     : 0.0;
    enqueue_source(top.grid, top.grid.planes, r, shift, top.b.data(), stream_);
    finish_source();
    return shift;
  }

  // After solve: u − u* over the grid, each rank its held planes, the planes' sums meeting across
  // the ranks where the grid is cut (sources.cuh). Collective.
  DiscretisationError manufactured_error() {
    const SlabLevel<T>& top = level_[0];
    return device_discretisation_error(p_, top.grid, made().exact(), top.grid.k0, top.grid.planes,
                                       top.u.data(), top.cut ? &context_ : nullptr, stream_);
  }

  Outcome solve(const CycleCallback& on_cycle, const Checkpoints<T>* checkpoints) {
    const auto start = std::chrono::steady_clock::now();
    const double exchange_before = halos_ ? halos_->seconds() : 0.0;
    Outcome out;
    out.levels = depth();
    out.b_max = b_max_;
    out.b_l2 = b_l2_;
    const double max_scale = b_max_ > 0 ? b_max_ : 1.0, l2_scale = b_l2_ > 0 ? b_l2_ : 1.0;
    double previous_l2 = 1.0;
    const auto record = [&](std::pair<double, double> norms) {
      CycleReport c;
      c.residual_max = norms.first / max_scale;
      c.residual_l2 = norms.second / l2_scale;
      c.factor = previous_l2 > 0 ? c.residual_l2 / previous_l2 : 0.0;
      previous_l2 = c.residual_l2;
      out.cycles.push_back(c);
      if (on_cycle)
        on_cycle(static_cast<std::int64_t>(out.cycles.size()) - (p_.cycle == Cycle::fmg ? 1 : 0), c,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return c.residual_max < p_.tolerance;
    };
    const bool fmg = p_.cycle == Cycle::fmg;
    const auto at_safe_point = [&] {
      if (checkpoints == nullptr || !checkpoints->at) return false;
      const AtSafePoint a =
          checkpoints->at(static_cast<std::int64_t>(out.cycles.size()) - (fmg ? 1 : 0));
      if (a == AtSafePoint::go_on) return false;
      std::vector<T> u;
      download(u);
      checkpoints->save(State<T>{u.data(), static_cast<std::int64_t>(u.size()), out.cycles});
      return a == AtSafePoint::save_and_stop;
    };
    bool met = false, stuck = false, stopped = false;
    const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
    if (from != nullptr) {
      const auto cells = static_cast<std::int64_t>(level_[0].plane()) * own().count();
      if (from->points != cells || from->cycles.size() < (fmg ? 1u : 0u))
        throw Error("poisson: a checkpoint's " + std::to_string(from->points) + " values and " +
                    std::to_string(from->cycles.size()) + " cycles for " + std::to_string(cells) +
                    " cells" + (fmg ? " after FMG" : ""));
      put_own_planes(level_[0].u, from->u);
      stream_.synchronize();
      out.cycles = from->cycles;
      if (!out.cycles.empty()) previous_l2 = out.cycles.back().residual_l2;
      met = !out.cycles.empty() && out.cycles.back().residual_max < p_.tolerance;
      stuck = !met && p_.tolerance > 0 && stagnated(out.cycles, fmg);
    } else if (fmg) {
      fmg_cycle();
      met = record(finish_cycle());
      stopped = at_safe_point();
    }
    for (std::int64_t v = from != nullptr ? from->step(fmg) : 0;
         v < p_.max_cycles && !met && !stuck && !stopped; ++v) {
      cycle_from(0, level_[0].b.data());
      met = record(finish_cycle());
      stuck = !met && p_.tolerance > 0 && stagnated(out.cycles, fmg);
      stopped = at_safe_point();
    }
    out.stop = met ? StopReason::tolerance : stuck ? StopReason::stagnated : StopReason::max_iterations;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (halos_) out.device_exchange_seconds = halos_->seconds() - exchange_before;
    return out;
  }

  // This rank's planes of the finest u.
  void download(std::vector<T>& u) {
    const SlabLevel<T>& top = level_[0];
    const Planes mine = own();
    const std::size_t plane = top.plane();
    const std::size_t cells = plane * static_cast<std::size_t>(mine.count());
    if (u.size() != cells) u = huge_vector<T>(cells);  // huge pages before the first touch
    const std::size_t at = top.cut ? top.first() : plane * static_cast<std::size_t>(mine.begin);
    parasol::download(top.u, at, u.data(), u.size(), stream_);
  }

 private:
  const DeviceSource& made() {
    if (!source_) source_.emplace(p_, stream_);
    return *source_;
  }

  // FMG's right-hand sides from level 0's, every level's boundary data, b's norms; u = 0.
  void finish_source() {
    SlabLevel<T>& top = level_[0];
    // FMG's sources: the mean of the children, level by level, then every level's boundary data.
    for (std::size_t l = 1; l < level_.size(); ++l)
      restrict_into(l - 1, l == 1 ? top.b.data() : level_[l - 1].fmg_b.data(),
                    level_[l].fmg_b.data());
    for (std::size_t l = 0; l < level_.size(); ++l) {
      SlabLevel<T>& d = level_[l];
      T* b = l == 0 ? d.b.data() : d.fmg_b.data();
      boundary_terms_kernel<<<grid_of_cells(d), kCellBlock, 0, stream_>>>(
          d.grid, boundary_terms(p_, d.level), b);
      PARASOL_CHECK_LAUNCH(stream_);
    }
    const auto n = reduce_fine<Reading::field>(top.b.data(), false);
    b_max_ = n.first;
    b_l2_ = n.second;
    PARASOL_CUDA(cudaMemsetAsync(top.u.data(), 0, top.u.bytes(), stream_));
    stream_.synchronize();
  }

  bool cut(std::size_t l) const { return static_cast<std::int64_t>(l) < cut_levels_; }

  // This rank's planes of the grid.
  Planes own() const {
    const SlabCut& c = cuts_[static_cast<std::size_t>(rank_)];
    return {c.begin, c.end};
  }

  // Rank r's planes of level l: its blocks of the grid's planes on a cut level (slab_cut makes
  // them whole blocks under each plane of the cut levels), the whole level below them.
  Planes held(std::size_t l, int r) const {
    const Level& level = all_[l];
    if (!cut(l)) return {0, level.nz};
    const SlabCut& c = cuts_[static_cast<std::size_t>(r)];
    const std::int64_t block = p_.nz / level.nz;
    if (c.begin % block != 0 || c.end % block != 0)
      throw Error("poisson: planes [" + std::to_string(c.begin) + ", " + std::to_string(c.end) +
                  ") of rank " + std::to_string(r) + " are not whole blocks of " +
                  std::to_string(block) + " under level " + std::to_string(l));
    return {c.begin / block, c.end / block};
  }

  void allocate() {
    level_.resize(all_.size());
    const std::size_t bottom = all_.size() - 1;
    for (std::size_t l = 0; l < all_.size(); ++l) {
      SlabLevel<T>& d = level_[l];
      d.level = all_[l];
      d.cut = cut(l);
      const Planes h = held(l, rank_);
      d.grid = SlabGrid<T>(grid_of<T>(p_, all_[l]), static_cast<int>(h.begin),
                           static_cast<int>(h.count()), d.cut);
      const std::size_t n = d.stored();
      d.u = DeviceBuffer<T>(n);
      d.b = DeviceBuffer<T>(n);
      // r: the finest level's residual norms, and the level whose residual is gathered.
      if (l == 0 || (l < bottom && d.cut && !cut(l + 1))) d.r = DeviceBuffer<T>(n);
      if (p_.smoother == Smoother::chebyshev || odd_periodic(p_, all_[l]))
        d.previous = DeviceBuffer<T>(n);
      if (l > 0) d.fmg_b = DeviceBuffer<T>(n);
      // Halo planes are read before any exchange fills them only where a kernel's result is not
      // used; zeros keep them finite.
      fill_bytes(d.u, 0, stream_);
      fill_bytes(d.b, 0, stream_);
      if (!d.r.empty()) fill_bytes(d.r, 0, stream_);
      if (!d.previous.empty()) fill_bytes(d.previous, 0, stream_);
      if (!d.fmg_b.empty()) fill_bytes(d.fmg_b, 0, stream_);
    }
    scratch_ = DeviceBuffer<T>(static_cast<std::size_t>(all_.back().cells()));
    if (cut_levels_ > 0)
      gathered_ = DeviceBuffer<T>(static_cast<std::size_t>(all_[static_cast<std::size_t>(cut_levels_ - 1)].cells()));
    const SlabLevel<T>& top = level_[0];
    partials_ = DeviceBuffer<SumMax>(static_cast<std::size_t>(
        per_plane_partials(top.level.nx, top.level.ny) * top.grid.planes));
    totals_ = DeviceBuffer<SumMax>(static_cast<std::size_t>(top.grid.planes));
    stream_.synchronize();
    if (cut_levels_ > 0) {  // collective: every rank has the same cut levels
      halos_.emplace(context_, comm::Transport::automatic, stream_.get());
      halos_->connect(neighbours());
    }
  }

  dim3 grid_of_cells(const SlabLevel<T>& d) const {
    return cell_grid(d.level.nx, d.level.ny, d.grid.planes);
  }

  // `values`, this rank's planes of the grid, into level 0's field: its held planes where level 0
  // is cut; gathered from every rank where it is whole.
  void put_own_planes(DeviceBuffer<T>& field, const T* values) {
    const SlabLevel<T>& top = level_[0];
    const Planes mine = own();
    const std::size_t plane = top.plane();
    if (top.cut) {
      upload(field, top.first(), values, plane * static_cast<std::size_t>(mine.count()), stream_);
      stream_.synchronize();
      return;
    }
    std::vector<T> whole(plane * static_cast<std::size_t>(top.level.nz));
    std::copy_n(values, plane * static_cast<std::size_t>(mine.count()),
                whole.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::size_t>(mine.begin)));
    std::vector<Planes> ranges;
    for (const SlabCut& c : cuts_) ranges.push_back({c.begin, c.end});
    all_gather_planes(whole, plane, ranges);
    upload(field, whole, stream_);
    stream_.synchronize();
  }

  // Every rank's planes of a host array, each at its place, onto every rank (each rank's in turn
  // broadcast by it); planes outside `ranges` are left as they are.
  void all_gather_planes(std::vector<T>& whole, std::size_t plane, const std::vector<Planes>& ranges) {
    if (size_ == 1) return;
    for (int r = 0; r < size_; ++r) {
      const Planes& h = ranges[static_cast<std::size_t>(r)];
      context_.broadcast_bytes(whole.data() + plane * static_cast<std::size_t>(h.begin),
                               plane * static_cast<std::size_t>(h.count()) * sizeof(T), r);
    }
  }

  // Level l's field (held planes, stored with halos) whole into `gathered_`, on every rank: this
  // rank's planes copied to their place, then each rank's broadcast by it, device to device on the
  // kernels' stream through `halos_` (before, staged through the host with a wait: a 64^3 level's
  // megabyte once a cycle, the host idle while the device waited for it).
  void gather(std::size_t l, const T* field) {
    const SlabLevel<T>& d = level_[l];
    const std::size_t plane = d.plane();
    const Planes mine = held(l, rank_);
    copy_on_device(gathered_.data() + plane * static_cast<std::size_t>(mine.begin),
                   field + d.first(), plane * static_cast<std::size_t>(mine.count()), stream_);
    for (int r = 0; r < size_; ++r) {
      const Planes h = held(l, r);
      halos_->broadcast(gathered_.data() + plane * static_cast<std::size_t>(h.begin),
                        plane * static_cast<std::size_t>(h.count()), r);
    }
  }

  // The ranks holding the planes just below and just above this rank's (none past the ends).
  comm::Neighbours neighbours() const {
    comm::Neighbours nb;
    nb.down = rank_ > 0 ? rank_ - 1 : comm::kNoRank;
    nb.up = rank_ < size_ - 1 ? rank_ + 1 : comm::kNoRank;
    return nb;
  }

  // Fills the halo planes of `field` at level l (cut there): the neighbouring ranks' planes, and
  // past a periodic z face the plane at the other end (the first rank and the last swap theirs:
  // the first sends before it receives, the last the other way round). Device to device through
  // `halos_` on the kernels' stream (NCCL, or MPI as comm/transport.hpp resolves it), ordered
  // after the kernels before it and before those after it: nothing is staged through the host and
  // the host does not wait. (Staged through pageable host memory with a wait each, as they were
  // before, two H200s ran 512^3 at 0.27-0.44x the speed of one.)
  void exchange(std::size_t l, T* field) {
    SlabLevel<T>& d = level_[l];
    if (!d.cut) return;
    const std::size_t plane = d.plane();
    const auto planes = static_cast<std::size_t>(d.grid.planes);
    // The storage: halo plane below, the held planes, halo plane above.
    T* const recv_down = field;
    T* const send_down = field + plane;
    T* const send_up = field + plane * planes;
    T* const recv_up = field + plane * (planes + 1);
    const comm::Neighbours nb = neighbours();
    comm::Halo<T> h;
    h.count = plane;
    if (nb.down != comm::kNoRank) {
      h.send_down = send_down;
      h.recv_down = recv_down;
    }
    if (nb.up != comm::kNoRank) {
      h.send_up = send_up;
      h.recv_up = recv_up;
    }
    halos_->exchange(nb, h);
    if (p_.z_min.kind != FaceKind::periodic) return;
    const int last = size_ - 1;
    if (rank_ == 0) {
      halos_->send(send_down, plane, last);
      halos_->recv(recv_down, plane, last);
    } else if (rank_ == last) {
      halos_->recv(recv_up, plane, 0);
      halos_->send(send_up, plane, 0);
    }
  }

  // Level l + 1's `coarse` = R `fine` (level l's): on the rank where level l + 1 is cut too, from
  // level l gathered onto every rank where it is not.
  // Every kernel takes a field's storage, halo planes included: for_each_held's indices count them.
  void restrict_into(std::size_t l, const T* fine, T* coarse) {
    const SlabLevel<T>& f = level_[l];
    const SlabLevel<T>& c = level_[l + 1];
    SlabGrid<T> from = f.grid;
    if (f.cut && !c.cut) {
      gather(l, fine);
      from = SlabGrid<T>(grid_of<T>(p_, f.level), 0, static_cast<int>(f.level.nz), false);
      fine = gathered_.data();
    }
    with_halving(c.grid, [&](auto halves) {
      restrict_kernel<decltype(halves)::value>
          <<<grid_of_cells(c), kCellBlock, 0, stream_>>>(from, c.grid, fine, coarse);
    });
    PARASOL_CHECK_LAUNCH(stream_);
  }

  void smooth(std::size_t l, const T* b, std::int64_t sweeps, const std::vector<ChebyshevStep>& steps) {
    SlabLevel<T>& d = level_[l];
    const dim3 grid = grid_of_cells(d);
    if (p_.smoother == Smoother::chebyshev) {
      for (std::int64_t s = 0; s < sweeps; ++s) {
        exchange(l, d.current());
        chebyshev_kernel<<<grid, kCellBlock, 0, stream_>>>(
            d.grid, d.current(), d.other(), b, static_cast<T>(steps[static_cast<std::size_t>(s)].c1),
            static_cast<T>(steps[static_cast<std::size_t>(s)].c2), s == 0);
        PARASOL_CHECK_LAUNCH(stream_);
        d.in_previous = !d.in_previous;
      }
      return;
    }
    const bool jacobi_colours = odd_periodic(p_, d.level);
    const dim3 halves = colour_grid(d.level.nx, d.level.ny, d.grid.planes);
    for (std::int64_t s = 0; s < sweeps; ++s)
      for (int colour = 0; colour < 2; ++colour) {
        exchange(l, d.current());
        if (jacobi_colours) {
          // The values from before the half sweep, halos included, as the fused pass reads them.
          copy_on_device(d.other(), d.current(), d.stored(), stream_);
          colour_from_kernel<<<halves, kCellBlock, 0, stream_>>>(d.grid, d.other(), d.current(),
                                                                 b, colour);
        } else {
          rbgs_kernel<<<halves, kCellBlock, 0, stream_>>>(d.grid, d.current(), b, colour);
        }
        PARASOL_CHECK_LAUNCH(stream_);
      }
  }

  void settle(SlabLevel<T>& d) {
    if (!d.in_previous) return;
    copy_on_device(d.u, d.previous.data(), d.u.size(), stream_);
    d.in_previous = false;
  }

  // b of level l + 1 = R (b - A u) of level l: the residual made where it is restricted, as
  // device.cu does, where level l + 1 is held as level l is; stored in r and gathered where level
  // l is cut and level l + 1 is not (the same numbers: r is rounded to T either way).
  void restrict_residual(std::size_t l, const T* b) {
    SlabLevel<T>& fine = level_[l];
    SlabLevel<T>& coarse = level_[l + 1];
    exchange(l, fine.current());
    if (fine.cut == coarse.cut) {
      with_halving(coarse.grid, [&](auto halves) {
        residual_restrict_kernel<decltype(halves)::value>
            <<<grid_of_cells(coarse), kCellBlock, 0, stream_>>>(fine.grid, coarse.grid,
                                                                fine.current(), b, coarse.b.data());
      });
      PARASOL_CHECK_LAUNCH(stream_);
      return;
    }
    residual_kernel<<<grid_of_cells(fine), kCellBlock, 0, stream_>>>(fine.grid, fine.current(), b,
                                                                     fine.r.data());
    PARASOL_CHECK_LAUNCH(stream_);
    restrict_into(l, fine.r.data(), coarse.b.data());
  }

  void solve_bottom(const T* b, bool from_zero) {
    SlabLevel<T>& d = level_.back();
    BottomPlan plan;
    plan.sweeps = static_cast<int>(p_.bottom_sweeps);
    plan.from_zero = from_zero;
    plan.singular = singular(p_);
    plan.chebyshev = p_.smoother == Smoother::chebyshev;
    plan.steps = bottom_steps_.data();
    const std::size_t shared = 4 * static_cast<std::size_t>(d.level.cells()) * sizeof(T);
    plan.in_shared = shared <= kBottomSharedLimit;
    // The bottom level is whole on every rank: its grid is the one-rank one.
    bottom_kernel<<<1, kBottomThreads, plan.in_shared ? shared : 0, stream_>>>(
        static_cast<const LevelGrid<T>&>(d.grid), d.u.data(), d.previous.data(), b, scratch_.data(), plan);
    PARASOL_CHECK_LAUNCH(stream_);
  }

  // device.cu's cycle_from: the V-cycle at level `top` on A u = b_top.
  void cycle_from(std::size_t top, const T* b_top) {
    const std::size_t bottom = level_.size() - 1;
    if (top == bottom) {
      solve_bottom(b_top, false);
      return;
    }
    for (std::size_t l = top; l < bottom; ++l) {
      const T* b = l == top ? b_top : level_[l].b.data();
      smooth(l, b, p_.pre_sweeps, pre_steps_);
      restrict_residual(l, b);
      if (l + 1 < bottom) {
        SlabLevel<T>& c = level_[l + 1];
        c.in_previous = false;
        PARASOL_CUDA(cudaMemsetAsync(c.u.data(), 0, c.u.bytes(), stream_));
      }
    }
    solve_bottom(level_[bottom].b.data(), true);
    for (std::size_t l = bottom; l-- > top;) {
      SlabLevel<T>& d = level_[l];
      SlabLevel<T>& c = level_[l + 1];
      exchange(l + 1, c.current());
      with_halving(c.grid, [&](auto halves) {
        prolong_correct_kernel<decltype(halves)::value>
            <<<grid_of_cells(d), kCellBlock, 0, stream_>>>(d.grid, c.grid, d.current(),
                                                          c.current());
      });
      PARASOL_CHECK_LAUNCH(stream_);
      smooth(l, l == top ? b_top : d.b.data(), p_.post_sweeps, post_steps_);
    }
    settle(level_[top]);
  }

  // device.cu's FMG.
  void fmg_cycle() {
    const std::size_t bottom = level_.size() - 1;
    const auto rhs = [&](std::size_t l) -> const T* {
      return l == 0 ? level_[0].b.data() : level_[l].fmg_b.data();
    };
    solve_bottom(rhs(bottom), true);
    for (std::size_t l = bottom; l-- > 0;) {
      SlabLevel<T>& d = level_[l];
      SlabLevel<T>& c = level_[l + 1];
      d.in_previous = false;
      exchange(l + 1, c.u.data());
      with_halving(c.grid, [&](auto halves) {
        prolong_trilinear_kernel<decltype(halves)::value>
            <<<grid_of_cells(d), kCellBlock, 0, stream_>>>(d.grid, c.grid, ghost_data(p_, c.level),
                                                          d.u.data(), c.u.data());
      });
      PARASOL_CHECK_LAUNCH(stream_);
      cycle_from(l, rhs(l));
    }
  }

  // The finest level's norms (max, L2) or mean (first) of x, or of b - A x: plane totals here,
  // all-reduced over zeros where the level is cut, added in plane order (kernels.cuh).
  template <Reading kRead>
  std::pair<double, double> reduce_fine(const T* x, bool mean, const T* b = nullptr) {
    const SlabLevel<T>& d = level_[0];
    const int count = d.grid.planes;
    enqueue_plane_totals<kRead>(d.grid, d.grid.k0, count, x, b, partials_.data(), totals_.data(),
                                stream_);
    std::vector<SumMax> totals(static_cast<std::size_t>(count));
    parasol::download(totals_, totals.data(), totals.size(), stream_);
    if (d.cut) {
      const auto nz = static_cast<std::size_t>(d.level.nz);
      std::vector<double> all(2 * nz, 0.0);
      for (std::size_t q = 0; q < totals.size(); ++q) {
        const std::size_t k = static_cast<std::size_t>(d.grid.k0) + q;
        all[2 * k] = totals[q].sum;
        all[2 * k + 1] = totals[q].max;
      }
      context_.all_reduce(all, comm::Op::sum);
      totals.resize(nz);
      for (std::size_t k = 0; k < nz; ++k) totals[k] = {all[2 * k], all[2 * k + 1]};
    }
    double out[2] = {0.0, 0.0};
    finish_sum(sum_planes(SumMax{0.0, 0.0}, totals.data(), static_cast<int>(totals.size())), mean,
               static_cast<double>(d.level.cells()), out);
    return {out[0], out[1]};
  }

  // device.cu's finish_cycle: the solution's mean to 0 (singular problems), then the residual's
  // norms.
  std::pair<double, double> finish_cycle() {
    SlabLevel<T>& d = level_[0];
    if (singular(p_)) {
      mean_ = reduce_fine<Reading::value>(d.u.data(), true).first;
      upload(results_, &mean_, 1, stream_);
      subtract_kernel<<<grid_of_cells(d), kCellBlock, 0, stream_>>>(d.grid, d.u.data(),
                                                                    results_.data());
      PARASOL_CHECK_LAUNCH(stream_);
      stream_.synchronize();
    }
    exchange(0, d.u.data());
    residual_kernel<<<grid_of_cells(d), kCellBlock, 0, stream_>>>(d.grid, d.u.data(), d.b.data(),
                                                                  d.r.data());
    PARASOL_CHECK_LAUNCH(stream_);
    return reduce_fine<Reading::field>(d.r.data(), false);
  }

  const Params& p_;
  comm::Context& context_;
  int rank_, size_;
  std::vector<Level> all_;
  std::vector<SlabCut> cuts_;     // every rank's planes of the grid
  std::int64_t cut_levels_ = 0;  // levels 0 .. cut_levels_ - 1 are cut among the ranks
  Stream stream_;
  std::vector<SlabLevel<T>> level_;
  DeviceBuffer<T> scratch_;   // the bottom solve's
  DeviceBuffer<T> gathered_;  // the last cut level whole, for the restriction below it
  DeviceBuffer<SumMax> partials_, totals_;
  DeviceBuffer<double> results_;  // [0]: a mean, for subtract_kernel
  DeviceBuffer<double2> bottom_steps_;
  // The halo exchanges' communicator on stream_, where any level is cut (set up in the
  // constructor: NCCL's connections are the run's setup, not its first cycle's).
  std::optional<comm::DeviceComm> halos_;
  std::vector<ChebyshevStep> pre_steps_, post_steps_;
  double b_max_ = 0, b_l2_ = 0, mean_ = 0;
  std::optional<DeviceSource> source_;  // the recipe's tables, once a source is made here
};

// Refused before anything is allocated.
void require_plain(const Params& p, const comm::Context& context) {
  p.validate();
  if (p.variant != Variant::plain)
    throw InputError("", "method.variant",
                     "\"plain\" for the GPU on slabs of planes: the fused variant's pass marches "
                     "each tile through a level's whole z range, and runs on one rank only (got \"" +
                         std::string(name(p.variant)) + "\" on " + std::to_string(context.size()) +
                         " ranks)");
}

}  // namespace

template <class T>
Outcome solve_device_slab(const Params& p, comm::Context& context, const std::vector<T>& f,
                          std::vector<T>& u, const CycleCallback& on_cycle,
                          const Checkpoints<T>* checkpoints) {
  require_plain(p, context);
  SlabMultigrid<T> mg(p, context);
  mg.upload_source(f);
  const Outcome out = mg.solve(on_cycle, checkpoints);
  mg.download(u);
  return out;
}

template <class T>
DeviceSolve solve_device_slab_made(const Params& p, comm::Context& context, std::vector<T>* u,
                                   const CycleCallback& on_cycle,
                                   const Checkpoints<T>* checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  require_plain(p, context);
  SlabMultigrid<T> mg(p, context);
  DeviceSolve out;
  out.shift = mg.make_source();
  out.timings.add(phase::setup, seconds_since(start));
  out.outcome = mg.solve(on_cycle, checkpoints);
  if (u != nullptr) {
    const auto copying = out.timings.time(phase::device_to_host);
    mg.download(*u);
  }
  if (p.source.kind == SourceKind::manufactured) out.error = mg.manufactured_error();
  return out;
}

template <class T>
std::vector<T> device_source_planes(const Params& p, std::int64_t z_begin, std::int64_t z_end,
                                    double shift) {
  p.validate();
  Stream stream;
  const DeviceSource source(p, stream);
  const auto planes = static_cast<int>(z_end - z_begin);
  const SlabGrid<T> g(grid_of<T>(p, levels(p).front()), static_cast<int>(z_begin), planes, true);
  const auto plane = static_cast<std::size_t>(p.nx * p.ny);
  DeviceBuffer<T> b(plane * static_cast<std::size_t>(planes + 2));
  fill_bytes(b, 0xFF, stream);  // NaN: a cell not made stays NaN
  enqueue_source(g, planes, source.recipe(), shift, b.data(), stream);
  std::vector<T> stored(b.size());
  download(b, stored.data(), stored.size(), stream);
  for (std::size_t halo : {std::size_t{0}, stored.size() - plane})
    for (std::size_t c = halo; c < halo + plane; ++c)
      if (!std::isnan(static_cast<double>(stored[c])))
        throw Error("poisson: the source's kernel wrote a halo plane (cell " + std::to_string(c) +
                    ")");
  return std::vector<T>(stored.begin() + static_cast<std::ptrdiff_t>(plane),
                        stored.end() - static_cast<std::ptrdiff_t>(plane));
}

template Outcome solve_device_slab<float>(const Params&, comm::Context&, const std::vector<float>&,
                                          std::vector<float>&, const CycleCallback&,
                                          const Checkpoints<float>*);
template Outcome solve_device_slab<double>(const Params&, comm::Context&,
                                           const std::vector<double>&, std::vector<double>&,
                                           const CycleCallback&, const Checkpoints<double>*);

template DeviceSolve solve_device_slab_made<float>(const Params&, comm::Context&,
                                                   std::vector<float>*, const CycleCallback&,
                                                   const Checkpoints<float>*);
template DeviceSolve solve_device_slab_made<double>(const Params&, comm::Context&,
                                                    std::vector<double>*, const CycleCallback&,
                                                    const Checkpoints<double>*);
template std::vector<float> device_source_planes<float>(const Params&, std::int64_t, std::int64_t,
                                                        double);
template std::vector<double> device_source_planes<double>(const Params&, std::int64_t,
                                                          std::int64_t, double);
}  // namespace parasol::poisson
