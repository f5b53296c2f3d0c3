// poisson's analytic sources and the manufactured solution's error, made on the device where the
// GPU runs, so that a run holds no host array of f or u* (DeviceSolver::make_source and the slab
// solver's; device.hpp, device_slab.hpp).
//
// What is the host's to the bit, and why:
// - f. Each cell's value is source_recipe's (problem.hpp) formula with the recipe's doubles (the
//   mode tables, the centre, 2w², each charge's factor, all made once on the host and uploaded),
//   every operation a round-to-nearest intrinsic in make_source's order (__dmul_rn, __dadd_rn:
//   nvcc would otherwise fuse a multiply and an add, which the host, built without FMA in its
//   target, does not), then rounded to T as the host's copy into T rounds. The manufactured and
//   zero kinds are the host's bits. gaussian and charges call exp, and CUDA's exp (1 ulp) is not
//   glibc's (correctly rounded in nearly every case): each exp may differ by an ulp, so f by an
//   ulp or two of its terms' magnitude in double, and in float nearly always not at all. Making
//   them equal would take the host's exp ported to the device, whose glibc picks an FMA variant by
//   CPU at run time: not a fixed target to port.
// - The singular problem's shift. Each plane's compensated sum of f plus its boundary terms, in
//   cell order, is taken by one thread (the host's order is sequential and compensated sums are
//   not associative), each value recomputed from the recipe rather than read back: the host's
//   bits for the kinds whose f is. The planes' sums then meet on the host, over zeros across
//   ranks, and are added by problem.hpp's compensated_sum: the host's shift, to the bit. A plane
//   of 512² is a quarter million dependent additions on one thread: milliseconds, where the host
//   took the whole grid's make and sum in seconds.
// - The discretisation error. max |u − u*| is the host's to the bit (a max does not depend on
//   order); the squares are summed per plane by plane_partials' tree (kernels.cuh), not in cell
//   order, then in plane order as the host does: the rms agrees with discretisation_error's to
//   a few ulps (each plane's sum of n terms in another order: well under n ulps of it), and is the
//   same on any number of ranks.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "comm/over_ranks.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "solvers/poisson/compensated.hpp"
#include "solvers/poisson/kernels.cuh"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

// A SourceRecipe as a kernel takes it, its tables on the device; h the grid's spacings.
struct DeviceRecipe {
  SourceKind kind = SourceKind::zero;
  double scale = 0, two_width2 = 1;
  double cx = 0, cy = 0, cz = 0;
  double hx = 1, hy = 1, hz = 1;
  const double* charges = nullptr;  // 4 a charge: x, y, z, factor
  int charge_count = 0;
  const double* x_mode = nullptr;
  const double* y_mode = nullptr;
  const double* z_mode = nullptr;
};

// The coordinate of cell i's centre: (i + ½) h, as on_cells in problem.cpp.
__device__ __forceinline__ double cell_centre(int i, double h) {
  return __dmul_rn(__dadd_rn(static_cast<double>(i), 0.5), h);
}

// exp(−((x−a)² + (y−b)² + (z−c)²) / 2w²), the squares added x, y, z as the host adds them.
__device__ __forceinline__ double gaussian_at(double x, double y, double z, double a, double b,
                                              double c, double two_width2) {
  const double dx = __dsub_rn(x, a), dy = __dsub_rn(y, b), dz = __dsub_rn(z, c);
  const double r2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
  return exp(__ddiv_rn(-r2, two_width2));
}

// make_source's value at cell (i, j, k) of the grid, in double.
__device__ __forceinline__ double source_at(const DeviceRecipe& r, int i, int j, int k) {
  switch (r.kind) {
    case SourceKind::manufactured:
      return __dmul_rn(__dmul_rn(__dmul_rn(r.scale, r.x_mode[i]), r.y_mode[j]), r.z_mode[k]);
    case SourceKind::gaussian:
      return __dmul_rn(r.scale, gaussian_at(cell_centre(i, r.hx), cell_centre(j, r.hy),
                                            cell_centre(k, r.hz), r.cx, r.cy, r.cz, r.two_width2));
    case SourceKind::charges: {
      const double x = cell_centre(i, r.hx), y = cell_centre(j, r.hy), z = cell_centre(k, r.hz);
      double f = 0.0;
      for (int n = 0; n < r.charge_count; ++n) {
        const double* c = r.charges + 4 * n;
        f = __dadd_rn(f, __dmul_rn(c[3], gaussian_at(x, y, z, c[0], c[1], c[2], r.two_width2)));
      }
      return f;
    }
    default:
      return 0.0;
  }
}

// b = f − shift (where shift ≠ 0, as make_compatible subtracts it) rounded to T, on the planes
// the grid holds.
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    source_kernel(G<T> g, DeviceRecipe r, double shift, T* __restrict__ b) {
  for_each_held(g, [&](int i, int j, int k, std::int64_t at) {
    double v = source_at(r, i, j, k);
    if (shift != 0.0) v = __dsub_rn(v, shift);
    b[at] = static_cast<T>(v);
  });
}

// sums[q] = the compensated sum over plane first + q of f plus its boundary terms, in cell order
// (compatibility_shift's per plane): one thread a plane.
inline constexpr int kPlaneSumThreads = 32;
template <class T>
__global__ void __launch_bounds__(kPlaneSumThreads)
    compatible_plane_sums_kernel(LevelGrid<T> g, DeviceRecipe r, PerFace term, int first,
                                 int count, double* __restrict__ sums) {
  const int q = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (q >= count) return;
  const int k = first + q;
  CompensatedSum s;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      double v = source_at(r, i, j, k);
      const double add = boundary_term_at(g, term, i, j, k);
      if (add != 0.0) v = __dadd_rn(v, add);
      s.add(v);
    }
  sums[q] = s.total();
}

// Per plane of planes [first, first + count), per-block partials of (u − u*)² summed and
// max |u − u*|, as plane_partials_kernel lays them out (its grid, its tree).
template <class T, template <class> class G>
__global__ void __launch_bounds__(kCellThreads)
    error_partials_kernel(G<T> g, DeviceRecipe exact, int first, int count,
                          const T* __restrict__ u, SumMax* __restrict__ partials) {
  const unsigned step_x = gridDim.x * blockDim.x, step_y = gridDim.y * blockDim.y;
  const std::int64_t per_plane = static_cast<std::int64_t>(gridDim.x) * gridDim.y;
  for (int q = static_cast<int>(blockIdx.z); q < count; q += static_cast<int>(gridDim.z)) {
    const int k = first + q;
    SumMax acc{0.0, 0.0};
    for (unsigned j = blockIdx.y * blockDim.y + threadIdx.y; j < static_cast<unsigned>(g.ny);
         j += step_y)
      for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>(g.nx);
           i += step_x) {
        const int ii = static_cast<int>(i), jj = static_cast<int>(j);
        const double d =
            __dsub_rn(static_cast<double>(u[g.index(ii, jj, k)]), source_at(exact, ii, jj, k));
        acc.sum = __dadd_rn(acc.sum, __dmul_rn(d, d));
        acc.max = Max{}(acc.max, fabs(d));
      }
    acc = block_sum_max(acc);
    if (first_thread()) partials[q * per_plane + blockIdx.x + gridDim.x * blockIdx.y] = acc;
    __syncthreads();  // block_sum_max's shared words are reused for the next plane
  }
}

// A SourceRecipe's tables on the device, for the grid of `p`.
class DeviceSource {
 public:
  DeviceSource(const Params& p, cudaStream_t stream)
      : host_(source_recipe(p)), amplitude_(p.source.amplitude), h_{p.hx, p.hy, p.hz} {
    std::vector<double> charges;
    for (const auto& c : host_.charges) charges.insert(charges.end(), c.begin(), c.end());
    load(charges_, charges, stream);
    load(x_, host_.x_mode, stream);
    load(y_, host_.y_mode, stream);
    load(z_, host_.z_mode, stream);
    PARASOL_CUDA(cudaStreamSynchronize(stream));  // the host vectors go with this object's
  }

  // f's recipe.
  DeviceRecipe recipe() const {
    DeviceRecipe r;
    r.kind = host_.kind;
    r.scale = host_.scale;
    r.two_width2 = host_.two_width2;
    r.cx = host_.centre[0];
    r.cy = host_.centre[1];
    r.cz = host_.centre[2];
    r.hx = h_[0];
    r.hy = h_[1];
    r.hz = h_[2];
    r.charges = charges_.data();
    r.charge_count = static_cast<int>(host_.charges.size());
    r.x_mode = x_.data();
    r.y_mode = y_.data();
    r.z_mode = z_.data();
    return r;
  }

  // The manufactured solution u* (source.kind = manufactured): the same modes, scaled by the
  // amplitude, as manufactured_solution multiplies them.
  DeviceRecipe exact() const {
    DeviceRecipe r = recipe();
    r.scale = amplitude_;
    return r;
  }

 private:
  static void load(DeviceBuffer<double>& to, const std::vector<double>& from, cudaStream_t s) {
    if (from.empty()) return;
    to = DeviceBuffer<double>(from.size());
    upload(to, from, s);
  }

  SourceRecipe host_;
  double amplitude_;
  double h_[3];
  DeviceBuffer<double> charges_, x_, y_, z_;
};

// b's held planes (`planes` of them, the grid's) = f − shift, rounded to T, enqueued.
template <class T, template <class> class G>
void enqueue_source(const G<T>& g, int planes, const DeviceRecipe& r, double shift, T* b,
                    cudaStream_t stream) {
  source_kernel<<<cell_grid(g.nx, g.ny, planes), kCellBlock, 0, stream>>>(g, r, shift, b);
  PARASOL_CHECK_LAUNCH(stream);
}

// The singular problem's shift (compatibility_shift's bits) from planes [first, first + count)
// of level 0 made here; `across` (the planes are cut among the context's ranks) adds the other
// ranks' planes over zeros. Collective when `across`. Waits.
template <class T>
double device_compatibility_shift(const Params& p, const LevelGrid<T>& g, const Level& level0,
                                  const DeviceRecipe& r, int first, int count,
                                  comm::Context* across, cudaStream_t stream) {
  DeviceBuffer<double> sums(static_cast<std::size_t>(count));
  const unsigned blocks = static_cast<unsigned>((count + kPlaneSumThreads - 1) / kPlaneSumThreads);
  compatible_plane_sums_kernel<<<blocks, kPlaneSumThreads, 0, stream>>>(
      g, r, boundary_terms(p, level0), first, count, sums.data());
  PARASOL_CHECK_LAUNCH(stream);
  std::vector<double> planes(static_cast<std::size_t>(p.nz), 0.0);
  download(sums, planes.data() + first, static_cast<std::size_t>(count), stream);
  if (across != nullptr && across->size() > 1) across->all_reduce(planes, comm::Op::sum);
  return compensated_sum(planes) / static_cast<double>(p.cells());
}

// u − u* over planes [first, first + count) of level 0 (held in u as `g` addresses them): the
// per-plane partials and totals here, the planes' squares added in plane order on the host,
// over zeros across ranks where `across`, as discretisation_error adds them. Collective when
// `across`. Waits.
template <class T, template <class> class G>
DiscretisationError device_discretisation_error(const Params& p, const G<T>& g,
                                                const DeviceRecipe& exact, int first, int count,
                                                const T* u, comm::Context* across,
                                                cudaStream_t stream) {
  const dim3 grid = plane_partials_grid(g.nx, g.ny, count);
  DeviceBuffer<SumMax> partials(static_cast<std::size_t>(per_plane_partials(g.nx, g.ny) * count));
  DeviceBuffer<SumMax> totals(static_cast<std::size_t>(count));
  error_partials_kernel<<<grid, dim3(kCellX, kCellY, 1), 0, stream>>>(g, exact, first, count, u,
                                                                      partials.data());
  PARASOL_CHECK_LAUNCH(stream);
  plane_totals_kernel<><<<static_cast<unsigned>(std::min(count, 65535)), kCellThreads, 0, stream>>>(
      partials.data(), static_cast<int>(grid.x * grid.y), count, totals.data());
  PARASOL_CHECK_LAUNCH(stream);
  std::vector<SumMax> mine(static_cast<std::size_t>(count));
  download(totals, mine.data(), mine.size(), stream);
  std::vector<double> squares(static_cast<std::size_t>(p.nz), 0.0);
  DiscretisationError e;
  for (std::size_t q = 0; q < mine.size(); ++q) {
    squares[static_cast<std::size_t>(first) + q] = mine[q].sum;
    e.max = std::max(e.max, mine[q].max);
  }
  if (across != nullptr && across->size() > 1) {
    e.max = comm::max_over_ranks(*across, e.max);
    across->all_reduce(squares, comm::Op::sum);
  }
  double sum = 0;
  for (double s : squares) sum += s;
  e.rms = std::sqrt(sum / static_cast<double>(p.cells()));
  return e;
}

}  // namespace parasol::poisson
