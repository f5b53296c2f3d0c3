// DeviceSolver: the level hierarchy on the device and the cycles of poisson.hpp strung from the
// kernels of kernels.cuh, each cycle captured once into a CUDA graph and replayed.
#include "solvers/poisson/device.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/making.hpp"
#include "kernels/stream.hpp"
#include "solvers/poisson/kernels.cuh"
#include "solvers/poisson/sources.cuh"

namespace parasol::poisson {
namespace {

// Dynamic shared memory a block may take without opting in: the bottom level's fields in it up to
// 3,072 float cells (1,536 double), 48 times the default bottom_cells.
constexpr std::size_t kBottomSharedLimit = 48 * 1024;

// A second field per level, which sweeps that cannot write in place write into: Chebyshev's steps
// (Jacobi order) and the fused red-black sweep (a tile's neighbours still read the old values).
bool uses_second_field(const Params& p, const Level& l) {
  return p.smoother == Smoother::chebyshev || p.variant == Variant::fused || odd_periodic(p, l);
}

}  // namespace

template <class T>
std::size_t device_bytes(const Params& p) {
  const std::vector<Level> all = levels(p);
  std::size_t values = 0;
  for (std::size_t l = 0; l < all.size(); ++l) {
    const auto cells = static_cast<std::size_t>(all[l].cells());
    int fields = 2;  // u, b
    if (uses_second_field(p, all[l])) ++fields;
    if (l > 0) ++fields;                               // FMG's right-hand side
    if (l + 1 == all.size()) ++fields;                 // the bottom solve's scratch
    values += fields * cells;
  }
  // The reductions' per-plane partials and totals (kernels.cuh) and their results.
  const auto planes = static_cast<std::size_t>(p.nz);
  const auto partials = static_cast<std::size_t>(per_plane_partials(p.nx, p.ny)) * planes;
  return values * sizeof(T) + (partials + planes) * sizeof(SumMax) + 8 * sizeof(double);
}

template <class T>
struct DeviceSolver<T>::Impl {
  struct LevelData {
    Level level;
    LevelGrid<T> grid;
    // u is in `u`, or in `previous` after an odd number of sweeps that write into the other field
    // (in_previous): each graph's enqueueing follows where, from u in `u` at its start, and ends
    // with level 0's u back in `u`.
    DeviceBuffer<T> u, b, r, previous, fmg_b;  // r: level 0 only, once the benchmark asks
    bool in_previous = false;
    T* current() { return in_previous ? previous.data() : u.data(); }
    T* other() { return in_previous ? u.data() : previous.data(); }
  };

  Params p;
  Stream stream;
  std::vector<LevelData> level;
  DeviceBuffer<T> scratch;  // the bottom solve's
  DeviceBuffer<SumMax> partials, totals;  // the reductions' (kernels.cuh)
  DeviceBuffer<double> results;  // [0, 1]: norms; [2]: a mean
  DeviceBuffer<double2> bottom_steps;
  PinnedBuffer<double> host_norms;
  std::vector<ChebyshevStep> pre_steps, post_steps;
  double b_max = 0, b_l2 = 0;
  std::optional<DeviceSource> source;  // the recipe's tables, once a source is made here
  int multiprocessors = 0;
  cudaGraphExec_t fmg_graph = nullptr, v_graph = nullptr;

  explicit Impl(const Params& params) : p(params), results(4), host_norms(2) {
    p.validate();
    const std::size_t bytes = device_bytes<T>(p);
    std::size_t free_bytes = 0, total_bytes = 0;
    PARASOL_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::string what = "the poisson levels of " + std::to_string(p.nx) + " x " +
                             std::to_string(p.ny) + " x " + std::to_string(p.nz) + " " +
                             (sizeof(T) == 4 ? "float" : "double") + " (" +
                             std::to_string(bytes) + " bytes)";
    if (bytes > free_bytes)
      throw Error("poisson: cannot allocate" + making_context(what, free_bytes, total_bytes));
    while_making(what, [&] { allocate(); });
    multiprocessors = multiprocessor_count();
    if (p.smoother == Smoother::chebyshev) {
      pre_steps = chebyshev_steps(p.pre_sweeps);
      post_steps = chebyshev_steps(p.post_sweeps);
      std::vector<double2> steps;
      for (const ChebyshevStep& s : chebyshev_steps(p.bottom_sweeps)) steps.push_back({s.c1, s.c2});
      bottom_steps = DeviceBuffer<double2>(steps.size());
      upload(bottom_steps, steps, stream);
    }
    fmg_graph = capture([&] { enqueue_fmg_cycle(); });
    v_graph = capture([&] { enqueue_v_cycle(); });
    stream.synchronize();
  }

  ~Impl() {
    if (fmg_graph != nullptr) (void)cudaGraphExecDestroy(fmg_graph);
    if (v_graph != nullptr) (void)cudaGraphExecDestroy(v_graph);
  }

  void allocate() {
    const std::vector<Level> all = poisson::levels(p);
    level.resize(all.size());
    for (std::size_t l = 0; l < all.size(); ++l) {
      LevelData& d = level[l];
      d.level = all[l];
      d.grid = grid_of<T>(p, all[l]);
      const auto cells = static_cast<std::size_t>(all[l].cells());
      d.u = DeviceBuffer<T>(cells);
      d.b = DeviceBuffer<T>(cells);
      if (uses_second_field(p, all[l])) d.previous = DeviceBuffer<T>(cells);
      if (l > 0) d.fmg_b = DeviceBuffer<T>(cells);
    }
    scratch = DeviceBuffer<T>(static_cast<std::size_t>(all.back().cells()));
    partials = DeviceBuffer<SumMax>(static_cast<std::size_t>(per_plane_partials(p.nx, p.ny) * p.nz));
    totals = DeviceBuffer<SumMax>(static_cast<std::size_t>(p.nz));
  }

  std::size_t bottom() const { return level.size() - 1; }
  static constexpr const T* kNone = nullptr;  // a field a reduction does not read

  template <class Enqueue>
  cudaGraphExec_t capture(Enqueue&& enqueue) {
    for (LevelData& d : level) d.in_previous = false;
    PARASOL_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      enqueue();
    } catch (...) {
      (void)cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) (void)cudaGraphDestroy(graph);
      throw;
    }
    PARASOL_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    PARASOL_CUDA(made);
    return exec;
  }

  void replay(cudaGraphExec_t graph) {
    PARASOL_CUDA(cudaGraphLaunch(graph, stream));
    PARASOL_CHECK_LAUNCH(stream);
  }

  // --- the pieces of a cycle, enqueued on the stream ---

  void smooth(std::size_t l, const T* b, std::int64_t sweeps, const std::vector<ChebyshevStep>& steps) {
    LevelData& d = level[l];
    const dim3 grid = cell_grid(d.level.nx, d.level.ny, d.level.nz);
    if (p.smoother == Smoother::chebyshev) {
      // The fused pass holds a smoothing's first two steps, whose second's previous iterate is the
      // pass's input; a third step would need the second's previous iterate stored as well, so
      // other sweep counts run the steps one by one.
      if (p.variant == Variant::fused && sweeps == 2) {
        fused_pass(d, b,
                   ChebyshevPass<T>{static_cast<T>(steps[0].c2), static_cast<T>(steps[1].c1),
                                    static_cast<T>(steps[1].c2)});
        return;
      }
      for (std::int64_t s = 0; s < sweeps; ++s) {
        chebyshev_kernel<<<grid, kCellBlock, 0, stream>>>(d.grid, d.current(), d.other(), b,
                                                           static_cast<T>(steps[s].c1),
                                                           static_cast<T>(steps[s].c2), s == 0);
        PARASOL_CHECK_LAUNCH(stream);
        d.in_previous = !d.in_previous;
      }
      return;
    }
    if (p.variant == Variant::fused || odd_periodic(p, d.level)) {
      for (std::int64_t s = 0; s < sweeps; ++s) fused_pass(d, b, RedBlackPass<T>{});
      return;
    }
    for (std::int64_t s = 0; s < sweeps; ++s)
      for (int colour = 0; colour < 2; ++colour) {
        rbgs_kernel<<<colour_grid(d.level.nx, d.level.ny, d.level.nz), kCellBlock, 0, stream>>>(
            d.grid, d.current(), b, colour);
        PARASOL_CHECK_LAUNCH(stream);
      }
  }

  // One fused pass (kernels.cuh), into the other field. Tiles of the inner kFusedX - 2 by
  // kFusedY - 2 columns; their z range cut into chunks until the grid holds about sixteen blocks a
  // multiprocessor (each runs 512 threads: four waves or more, where one wave and a quarter left
  // the second three quarters idle and held 512^3's pass to 11 % of the memory's rate), but no
  // more chunks than a quarter of the planes: a
  // chunk's two extra planes of the first half-step then cost at most about half a pass's reads.
  template <class Pass>
  void fused_pass(LevelData& d, const T* b, Pass pass) {
    const std::int64_t tiles_x = ceil_div(d.level.nx, kFusedX - 2);
    const std::int64_t tiles_y = ceil_div(d.level.ny, kFusedY - 2);
    const std::int64_t wanted = ceil_div(16 * static_cast<std::int64_t>(multiprocessors), tiles_x * tiles_y);
    const std::int64_t chunks_wanted = std::clamp<std::int64_t>(wanted, 1, ceil_div(d.level.nz, 4));
    const std::int64_t z_chunk = ceil_div(d.level.nz, chunks_wanted);
    const std::int64_t chunks = ceil_div(d.level.nz, z_chunk);
    const dim3 grid(static_cast<unsigned>(std::min(tiles_x, kMaxGridX)),
                    static_cast<unsigned>(std::min(tiles_y, kMaxGridY)),
                    static_cast<unsigned>(std::min(chunks, kMaxGridZ)));
    fused_pass_kernel<<<grid, dim3(kFusedX, kFusedY, 1), 0, stream>>>(
        pass, d.grid, tiles_x, tiles_y, static_cast<int>(z_chunk), chunks, d.current(), b,
        d.other());
    PARASOL_CHECK_LAUNCH(stream);
    d.in_previous = !d.in_previous;
  }

  // u back in `u` (a device copy where the sweeps left it in `previous`).
  void settle(LevelData& d) {
    if (!d.in_previous) return;
    copy_on_device(d.u, d.previous.data(), d.u.size(), stream);
    d.in_previous = false;
  }

  // b of level l + 1 = R (b - A u) of level l, the residual made where it is restricted (both
  // variants: written to r and read back, it cost a 512^3 V-cycle two fine fields' traffic).
  void restrict_residual(std::size_t l, const T* b) {
    LevelData& fine = level[l];
    LevelData& coarse = level[l + 1];
    const Level& c = coarse.level;
    with_halving(coarse.grid, [&](auto halves) {
      residual_restrict_kernel<decltype(halves)::value>
          <<<cell_grid(c.nx, c.ny, c.nz), kCellBlock, 0, stream>>>(fine.grid, coarse.grid,
                                                                  fine.current(), b,
                                                                  coarse.b.data());
    });
    PARASOL_CHECK_LAUNCH(stream);
  }

  void restrict_field(std::size_t l, const T* fine, T* coarse) {
    const LevelData& c = level[l + 1];
    with_halving(c.grid, [&](auto halves) {
      restrict_kernel<decltype(halves)::value>
          <<<cell_grid(c.level.nx, c.level.ny, c.level.nz), kCellBlock, 0, stream>>>(
              level[l].grid, c.grid, fine, coarse);
    });
    PARASOL_CHECK_LAUNCH(stream);
  }

  // The bottom level's u is always in `u`: only the one-block solve writes it.
  void solve_bottom(const T* b, bool from_zero) {
    LevelData& d = level[bottom()];
    BottomPlan plan;
    plan.sweeps = static_cast<int>(p.bottom_sweeps);
    plan.from_zero = from_zero;
    plan.singular = singular(p);
    plan.chebyshev = p.smoother == Smoother::chebyshev;
    plan.steps = bottom_steps.data();
    const std::size_t shared = 4 * static_cast<std::size_t>(d.level.cells()) * sizeof(T);
    plan.in_shared = shared <= kBottomSharedLimit;
    bottom_kernel<<<1, kBottomThreads, plan.in_shared ? shared : 0, stream>>>(
        d.grid, d.u.data(), d.previous.data(), b, scratch.data(), plan);
    PARASOL_CHECK_LAUNCH(stream);
  }

  // The V-cycle of poisson.hpp at level `top` on A u = b_top: from u = 0 below the top level, from
  // the u there at the top, which ends in `u`.
  void cycle_from(std::size_t top, const T* b_top) {
    if (top == bottom()) {
      solve_bottom(b_top, false);
      return;
    }
    for (std::size_t l = top; l < bottom(); ++l) {
      const T* b = l == top ? b_top : level[l].b.data();
      smooth(l, b, p.pre_sweeps, pre_steps);
      restrict_residual(l, b);
      if (l + 1 < bottom()) {
        LevelData& c = level[l + 1];
        c.in_previous = false;
        PARASOL_CUDA(cudaMemsetAsync(c.u.data(), 0, c.u.bytes(), stream));
      }
    }
    solve_bottom(level[bottom()].b.data(), true);
    for (std::size_t l = bottom(); l-- > top;) {
      LevelData& d = level[l];
      LevelData& c = level[l + 1];
      with_halving(c.grid, [&](auto halves) {
        prolong_correct_kernel<decltype(halves)::value>
            <<<cell_grid(d.level.nx, d.level.ny, d.level.nz), kCellBlock, 0, stream>>>(
                d.grid, c.grid, d.current(), c.current());
      });
      PARASOL_CHECK_LAUNCH(stream);
      smooth(l, l == top ? b_top : d.b.data(), p.post_sweeps, post_steps);
    }
    settle(level[top]);
  }

  // planes_finish_kernel's result from level 0's per-plane totals of x (and b).
  template <Reading kRead>
  void reduce_fine(const T* x, const T* b, bool mean, double* out) {
    const LevelData& d = level[0];
    const int planes = static_cast<int>(d.level.nz);
    enqueue_plane_totals<kRead>(d.grid, 0, planes, x, b, partials.data(), totals.data(), stream);
    planes_finish_kernel<><<<1, kCellThreads, 0, stream>>>(
        totals.data(), planes, mean, static_cast<double>(d.level.cells()), out);
    PARASOL_CHECK_LAUNCH(stream);
  }

  // The solution's mean to 0 (singular problems), then the residual's norms into host_norms, the
  // residual made where it is reduced.
  void finish_cycle() {
    LevelData& d = level[0];
    const Level& n = d.level;
    if (singular(p)) {
      reduce_fine<Reading::value>(d.u.data(), kNone, true, results.data() + 2);
      subtract_kernel<<<cell_grid(n.nx, n.ny, n.nz), kCellBlock, 0, stream>>>(d.grid, d.u.data(),
                                                                               results.data() + 2);
      PARASOL_CHECK_LAUNCH(stream);
    }
    reduce_fine<Reading::residual>(d.u.data(), d.b.data(), false, results.data());
    enqueue_download(host_norms.data(), results.data(), 2, stream);
  }

  // r = b - A u on the finest level, stored: the benchmark's sweep (a solve makes its residuals
  // where they are restricted or reduced, and holds no r).
  void enqueue_fine_residual() {
    LevelData& d = level[0];
    if (d.r.size() == 0) d.r = DeviceBuffer<T>(d.u.size());
    residual_kernel<<<cell_grid(d.level.nx, d.level.ny, d.level.nz), kCellBlock, 0, stream>>>(
        d.grid, d.u.data(), d.b.data(), d.r.data());
    PARASOL_CHECK_LAUNCH(stream);
  }

  void enqueue_v_cycle() {
    cycle_from(0, level[0].b.data());
    finish_cycle();
  }

  // FMG: the bottom on its own right-hand side from 0, then each finer level from the trilinear
  // prolongation of the one below and one V-cycle on its own right-hand side.
  void enqueue_fmg_cycle() {
    const auto rhs = [&](std::size_t l) -> const T* {
      return l == 0 ? level[0].b.data() : level[l].fmg_b.data();
    };
    solve_bottom(rhs(bottom()), true);
    for (std::size_t l = bottom(); l-- > 0;) {
      LevelData& d = level[l];
      const LevelData& c = level[l + 1];
      d.in_previous = false;
      with_halving(c.grid, [&](auto halves) {
        prolong_trilinear_kernel<decltype(halves)::value>
            <<<cell_grid(d.level.nx, d.level.ny, d.level.nz), kCellBlock, 0, stream>>>(
                d.grid, c.grid, ghost_data(p, c.level), d.u.data(), c.u.data());
      });
      PARASOL_CHECK_LAUNCH(stream);
      cycle_from(l, rhs(l));
    }
    finish_cycle();
  }

  // b_0 = f + boundary terms; FMG's b_l = R^l f + boundary terms at level l; u = 0.
  void upload_source(const T* f) {
    parasol::upload(level[0].b, f, level[0].b.size(), stream);
    finish_source();
  }

  // f made here (sources.cuh), compatible where singular, into b_0; then as upload_source.
  double make_source() {
    LevelData& top = level[0];
    const DeviceRecipe r = made().recipe();
    const int planes = static_cast<int>(top.level.nz);
    const double shift =
        singular(p)
            ? device_compatibility_shift(p, top.grid, top.level, r, 0, planes, nullptr, stream)
            : 0.0;
    enqueue_source(top.grid, planes, r, shift, top.b.data(), stream);
    finish_source();
    return shift;
  }

  DiscretisationError manufactured_error() {
    if (p.source.kind != SourceKind::manufactured)
      throw Error("poisson: a discretisation error needs source.kind = \"manufactured\" (got \"" +
                  std::string(name(p.source.kind)) + "\")");
    const LevelData& top = level[0];
    return device_discretisation_error(p, top.grid, made().exact(), 0,
                                       static_cast<int>(top.level.nz), top.u.data(), nullptr,
                                       stream);
  }

  const DeviceSource& made() {
    if (!source) source.emplace(p, stream);
    return *source;
  }

  void finish_source() {
    LevelData& top = level[0];
    for (std::size_t l = 1; l < level.size(); ++l)
      restrict_field(l - 1, l == 1 ? top.b.data() : level[l - 1].fmg_b.data(),
                     level[l].fmg_b.data());
    for (std::size_t l = 0; l < level.size(); ++l) {
      LevelData& d = level[l];
      T* b = l == 0 ? d.b.data() : d.fmg_b.data();
      boundary_terms_kernel<<<cell_grid(d.level.nx, d.level.ny, d.level.nz), kCellBlock, 0,
                              stream>>>(d.grid, boundary_terms(p, d.level), b);
      PARASOL_CHECK_LAUNCH(stream);
    }
    reduce_fine<Reading::field>(top.b.data(), kNone, false, results.data());
    enqueue_download(host_norms.data(), results.data(), 2, stream);
    PARASOL_CUDA(cudaMemsetAsync(top.u.data(), 0, top.u.bytes(), stream));
    stream.synchronize();
    b_max = host_norms[0];
    b_l2 = host_norms[1];
  }

  Outcome solve(const Checkpoints<T>* checkpoints) {
    const auto start = std::chrono::steady_clock::now();
    Outcome out;
    out.levels = static_cast<std::int64_t>(level.size());
    out.b_max = b_max;
    out.b_l2 = b_l2;
    // Relative to b's norms; absolute where b = 0 (poisson.hpp).
    const double max_scale = b_max > 0 ? b_max : 1.0, l2_scale = b_l2 > 0 ? b_l2 : 1.0;
    double previous_l2 = 1.0;
    const auto record = [&] {
      stream.synchronize();
      CycleReport c;
      c.residual_max = host_norms[0] / max_scale;
      c.residual_l2 = host_norms[1] / l2_scale;
      c.factor = previous_l2 > 0 ? c.residual_l2 / previous_l2 : 0.0;
      previous_l2 = c.residual_l2;
      out.cycles.push_back(c);
      return c.residual_max < p.tolerance;
    };
    const bool fmg = p.cycle == Cycle::fmg;
    // After each cycle, as in the gold: u comes to the host only when a checkpoint is written.
    const auto at_safe_point = [&] {
      if (checkpoints == nullptr || !checkpoints->at) return false;
      const AtSafePoint a =
          checkpoints->at(static_cast<std::int64_t>(out.cycles.size()) - (fmg ? 1 : 0));
      if (a == AtSafePoint::go_on) return false;
      std::vector<T> u(level[0].u.size());
      parasol::download(level[0].u, u.data(), u.size(), stream);
      checkpoints->save(State<T>{u.data(), static_cast<std::int64_t>(u.size()), out.cycles});
      return a == AtSafePoint::save_and_stop;
    };
    bool met = false, stuck = false, stopped = false;
    const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
    if (from != nullptr) {
      // A V-cycle starts from the finest u alone: every coarser level from 0, and the finest
      // ends each cycle in `u`.
      if (from->points != static_cast<std::int64_t>(level[0].u.size()) ||
          from->cycles.size() < (fmg ? 1u : 0u))
        throw Error("poisson: a checkpoint's " + std::to_string(from->points) + " values and " +
                    std::to_string(from->cycles.size()) + " cycles for " +
                    std::to_string(level[0].u.size()) + " cells" + (fmg ? " after FMG" : ""));
      parasol::upload(level[0].u, from->u, level[0].u.size(), stream);
      out.cycles = from->cycles;
      if (!out.cycles.empty()) previous_l2 = out.cycles.back().residual_l2;
      met = !out.cycles.empty() && out.cycles.back().residual_max < p.tolerance;
      stuck = !met && p.tolerance > 0 && stagnated(out.cycles, fmg);
    } else if (fmg) {
      replay(fmg_graph);
      met = record();
      stopped = at_safe_point();
    } else {
      PARASOL_CUDA(cudaMemsetAsync(level[0].u.data(), 0, level[0].u.bytes(), stream));
    }
    for (std::int64_t v = from != nullptr ? from->step(fmg) : 0;
         v < p.max_cycles && !met && !stuck && !stopped; ++v) {
      replay(v_graph);
      met = record();
      stuck = !met && p.tolerance > 0 && stagnated(out.cycles, fmg);
      stopped = at_safe_point();
    }
    out.stop = met ? StopReason::tolerance : stuck ? StopReason::stagnated : StopReason::max_iterations;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

template <class T>
DeviceSolver<T>::DeviceSolver(const Params& p) : impl_(std::make_unique<Impl>(p)) {}
template <class T>
DeviceSolver<T>::~DeviceSolver() = default;

template <class T>
void DeviceSolver<T>::upload_source(const T* f) {
  impl_->upload_source(f);
}
template <class T>
double DeviceSolver<T>::make_source() {
  return impl_->make_source();
}
template <class T>
DiscretisationError DeviceSolver<T>::manufactured_error() {
  return impl_->manufactured_error();
}
template <class T>
void DeviceSolver<T>::download_rhs(T* b) {
  const auto& b0 = impl_->level[0].b;
  parasol::download(b0, b, b0.size(), impl_->stream);
}
template <class T>
Outcome DeviceSolver<T>::solve(const Checkpoints<T>* checkpoints) {
  return impl_->solve(checkpoints);
}
template <class T>
void DeviceSolver<T>::download(T* u) {
  const auto& u0 = impl_->level[0].u;
  parasol::download(u0, u, u0.size(), impl_->stream);
}
template <class T>
void DeviceSolver<T>::poison() {
  for (auto& d : impl_->level) {
    fill_bytes(d.u, 0xFF, impl_->stream);
    if (!d.previous.empty()) fill_bytes(d.previous, 0xFF, impl_->stream);
  }
  impl_->stream.synchronize();
}
template <class T>
void DeviceSolver<T>::poison_source() {
  fill_bytes(impl_->level[0].b, 0xFF, impl_->stream);
  impl_->stream.synchronize();
}
template <class T>
cudaStream_t DeviceSolver<T>::stream() const {
  return impl_->stream;
}
template <class T>
void DeviceSolver<T>::enqueue_fmg() {
  impl_->replay(impl_->fmg_graph);
}
template <class T>
void DeviceSolver<T>::enqueue_v_cycle() {
  impl_->replay(impl_->v_graph);
}
template <class T>
void DeviceSolver<T>::enqueue_fine_sweep() {
  impl_->enqueue_fine_residual();
}
template <class T>
std::int64_t DeviceSolver<T>::levels() const {
  return static_cast<std::int64_t>(impl_->level.size());
}

template std::size_t device_bytes<float>(const Params&);
template std::size_t device_bytes<double>(const Params&);
template class DeviceSolver<float>;
template class DeviceSolver<double>;

}  // namespace parasol::poisson
