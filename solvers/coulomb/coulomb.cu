// coulomb GPU kernels: direct summation of q_i / |r - r_i| over atoms at every lattice point.
//
// Every term costs one reciprocal square root, done by the special-function unit (MUFU.RSQ) at an
// eighth of the FP32 FMA rate, so the gather kernels are built to keep everything else under it:
// per term one subtraction, one FMA for r^2, the near-atom clamp and one FMA to accumulate.
// Terms are summed in float in tiles of at most kTileAtoms atoms, each tile's sum then added to
// a running total: about sqrt(256) + sqrt(atoms / 256) roundings deep instead of sqrt(atoms).
//
// The near-atom rule, the same in every variant and in the gold: r^2 is raised to at least
// min_distance^2, so a point on top of an atom takes k q / min_distance.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/fast_math.cuh"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/shape.hpp"
#include "kernels/stream.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/shapes.hpp"

namespace parasol::coulomb {
namespace {

// Atoms (x, y, z, k q) for the constant-memory kernels: 64 KiB of constant memory holds 4096
// float4s; a little is left for the compiler.
constexpr int kConstantAtoms = 4000;
__constant__ float4 c_atoms[kConstantAtoms];

// c_atoms's address on the device: a launch's atoms are copied there on the stream, as to any
// device memory.
float4* constant_atoms() {
  void* address = nullptr;
  PARASOL_CUDA(cudaGetSymbolAddress(&address, c_atoms));
  return static_cast<float4*>(address);
}

constexpr int kTileAtoms = 256;

// Resident blocks a multiprocessor the constant-memory gathers are held to. The constant cache
// serves one address a warp at a time, and more warps walking the atoms at once made them slower:
// at 48 registers a thread, 5 blocks of 256 fit, and gather c1 on a 2048^2 slice with 4000 atoms
// took 14.7 ms on an H100 against 11.8 ms held to 4 (c2 6.19 against 5.44; c4 and c8 hold 4 or
// fewer already). docs/journal/2026-11.md, "coulomb's constant-memory gathers held to four blocks".
constexpr int kConstantBlocksPerSM = 4;

// The points a launch covers: a part of the lattice (the whole, or a rank's share), nx x ny x nz
// points held [nz][ny][nx] from its first. Positions come from the whole lattice's indices
// (j_first + j, k_first + k), so a point's position, and every sum made from it, is the same
// bits whichever part holds it.
struct Grid {
  float ox, oy, oz, h;
  std::int64_t nx, ny, nz;
  std::int64_t j_first, k_first;
  float min_r2;
};

Grid grid_of(const Params& p, const Part& part) {
  const Lattice& l = p.lattice;
  return {static_cast<float>(l.origin[0]), static_cast<float>(l.origin[1]),
          static_cast<float>(l.origin[2]), static_cast<float>(l.spacing), part.nx, part.ny,
          part.nz, part.j_first, part.k_first,
          static_cast<float>(p.min_distance * p.min_distance)};
}

// One MUFU.RSQ and nothing else: r^2 is at least min_distance^2 > 0, never denormal. The
// throughput benchmark times this same instruction.
__device__ __forceinline__ float fast_rsqrt(float x) { return rsqrt_ftz(x); }

// The same on the FMA pipe, for gather-hybrid: the classic bit-trick first guess (3.4 % off at
// worst) and three Newton steps (each squares the error: 1.7e-3, 4.5e-6, then float rounding),
// twelve FP32/integer instructions instead of one MUFU. x must be positive and normal.
__device__ __forceinline__ float soft_rsqrt(float x) {
  float y = __int_as_float(0x5f375a86 - (__float_as_int(x) >> 1));
  const float half_x = 0.5f * x;
#pragma unroll
  for (int n = 0; n < 3; ++n) y *= fmaf(-half_x, y * y, 1.5f);
  return y;
}

__device__ __forceinline__ float term(float dx, float dyz2, float min_r2, float kq) {
  return kq * fast_rsqrt(fmaxf(fmaf(dx, dx, dyz2), min_r2));
}

// Atoms from constant memory (every lane reads the same atom: a broadcast) or from a shared-
// memory tile loaded from global memory by the whole block.
enum class AtomSource { constant, shared };

// gather-hybrid: the last of each thread's C points takes soft_rsqrt. The special-function unit
// and the shared-memory loads share one issue queue (MIO), which is what the shared kernel waits
// on; the FMA pipe is two-thirds idle, so moving one root in C there shortens the queue.
template <int C, bool kHybrid>
__device__ __forceinline__ float rsqrt_for_point(int c, float x) {
  return (kHybrid && c == C - 1) ? soft_rsqrt(x) : fast_rsqrt(x);
}

// Each thread computes C points along x, BX apart so a warp's stores stay coalesced, reusing
// each atom's (dy^2 + dz^2) and its load C times. The grid covers x and y; z (one lattice plane
// per blockIdx.z, block-strided past 65535) makes the whole 3D lattice one launch.
// Resident blocks per multiprocessor asked of the compiler: all 2048 threads (32 registers each)
// up to four points per thread. The lattice is cut into many equal blocks, and every block but
// those of the last wave runs at full rate: with more blocks resident, the last wave is smaller.
template <int BX, int BY, int kPoints>
constexpr int kMinBlocks = (kPoints <= 4 ? 2048 : 1536) / (BX * BY);

// Each thread computes C points along x, BX apart so a warp's stores stay coalesced, on R rows,
// reusing each atom's load C x R times and its (dy^2 + dz^2) C times. The grid covers x and y; z
// (one lattice plane per blockIdx.z, block-strided past 65535) makes the whole 3D lattice one
// launch. The atoms may be cut into slices of slice_atoms (a multiple of kTileAtoms), one per
// group of blocks_x blocks along x: slice k sums its atoms into partial sums at
// potential + k * points.
template <int BX, int BY, int C, int R, AtomSource kSource, bool kHybrid>
__global__ void __launch_bounds__(BX* BY,
                                  (kSource == AtomSource::shared ? kMinBlocks<BX, BY, C * R> : 1))
    gather_kernel(Grid g, const float4* __restrict__ atoms, int atom_count, int slice_atoms,
                  std::int64_t blocks_x, std::int64_t blocks_y, bool accumulate,
                  float* __restrict__ potential) {
  __shared__ float4 tile[kSource == AtomSource::shared ? kTileAtoms : 1];
  const auto slice = static_cast<int>(blockIdx.x / blocks_x);
  const int atom_first = slice * slice_atoms;
  const int atom_last = min(atom_count, atom_first + slice_atoms);
  potential += static_cast<std::int64_t>(slice) * g.nx * g.ny * g.nz;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.x % blocks_x) * BX * C + threadIdx.x;
  for (std::int64_t k : block_stride_z(g.nz)) {
    const float z = g.oz + g.h * static_cast<float>(g.k_first + k);
    for (std::int64_t by : block_stride_y(blocks_y)) {
      const std::int64_t j0 = (by * BY + threadIdx.y) * R;
      float x[C], y[R], total[R][C], partial[R][C];
#pragma unroll
      for (int c = 0; c < C; ++c) x[c] = g.ox + g.h * static_cast<float>(i0 + c * BX);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        y[r] = g.oy + g.h * static_cast<float>(g.j_first + j0 + r);
#pragma unroll
        for (int c = 0; c < C; ++c) total[r][c] = partial[r][c] = 0.0f;
      }
      for (int base = atom_first; base < atom_last; base += kTileAtoms) {
        const int tile_count = min(kTileAtoms, atom_last - base);
        if constexpr (kSource == AtomSource::shared) {
          // The whole block loads the tile, in strides of its size, keeping (x, y, dz^2, k q):
          // dz^2 is the same for every thread of the block (one lattice plane).
          __syncthreads();
          for (int a = threadIdx.y * BX + threadIdx.x; a < tile_count; a += BX * BY) {
            const float4 atom = atoms[base + a];
            const float dz = z - atom.z;
            tile[a] = make_float4(atom.x, atom.y, dz * dz, atom.w);
          }
          __syncthreads();
#pragma unroll 4
          for (int a = 0; a < tile_count; ++a) {
            const float4 atom = tile[a];
#pragma unroll
            for (int r = 0; r < R; ++r) {
              const float dy = y[r] - atom.y;
              const float dyz2 = fmaf(dy, dy, atom.z);
              // A warp is one row of one plane (two with 16-wide blocks), so dyz2 is the same in
              // all its lanes (or halves): when it is already past min_distance^2 no point of the
              // row needs the clamp, and skipping it (one instruction a term) costs no divergence
              // (at most a rare split between two rows, one of them near an atom).
              if (dyz2 >= g.min_r2) {
#pragma unroll
                for (int c = 0; c < C; ++c) {
                  const float dx = x[c] - atom.x;
                  partial[r][c] = fmaf(atom.w, rsqrt_for_point<C, kHybrid>(c, fmaf(dx, dx, dyz2)),
                                       partial[r][c]);
                }
              } else {
#pragma unroll
                for (int c = 0; c < C; ++c)
                  partial[r][c] += term(x[c] - atom.x, dyz2, g.min_r2, atom.w);
              }
            }
          }
        } else {
          // The row branch above made this constant-memory loop slower (measured): kept plain.
          for (int a = 0; a < tile_count; ++a) {
            const float4 atom = c_atoms[base + a];
            const float dz = z - atom.z;
#pragma unroll
            for (int r = 0; r < R; ++r) {
              const float dy = y[r] - atom.y;
              const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
              for (int c = 0; c < C; ++c)
                partial[r][c] += term(x[c] - atom.x, dyz2, g.min_r2, atom.w);
            }
          }
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int c = 0; c < C; ++c) {
            total[r][c] += partial[r][c];
            partial[r][c] = 0.0f;
          }
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const std::int64_t j = j0 + r;
        if (j >= g.ny) continue;
#pragma unroll
        for (int c = 0; c < C; ++c) {
          const std::int64_t i = i0 + c * BX;
          if (i >= g.nx) continue;
          float* out = potential + i + g.nx * (j + g.ny * k);
          *out = accumulate ? *out + total[r][c] : total[r][c];
        }
      }
    }
  }
}

// The counterexample: one thread per atom adds its term into every lattice point with atomics,
// so every point is a contended read-modify-write and the order of the sums is arbitrary.
__global__ void scatter_kernel(Grid g, const float4* __restrict__ atoms, int atom_count,
                               float* potential) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= atom_count) return;
  const float4 atom = atoms[a];
  for (std::int64_t k = 0; k < g.nz; ++k) {
    const float dz = g.oz + g.h * static_cast<float>(g.k_first + k) - atom.z;
    for (std::int64_t j = 0; j < g.ny; ++j) {
      const float dy = g.oy + g.h * static_cast<float>(g.j_first + j) - atom.y;
      const float dyz2 = fmaf(dy, dy, dz * dz);
      float* row = potential + g.nx * (j + g.ny * k);
      for (std::int64_t i = 0; i < g.nx; ++i)
        atomicAdd(row + i, term(g.ox + g.h * static_cast<float>(i) - atom.x, dyz2, g.min_r2, atom.w));
    }
  }
}


// Adds the slices' partial sums in slice order (the same bits every run), into the potential
// when `accumulate` (a later launch of a run's atoms).
__global__ void sum_slices_kernel(const float* __restrict__ partial, int slices, std::int64_t points,
                                  bool accumulate, float* __restrict__ potential) {
  for (std::int64_t i : grid_stride(points)) {
    float sum = partial[i];
    for (int k = 1; k < slices; ++k) sum += partial[i + k * points];
    potential[i] = accumulate ? potential[i] + sum : sum;
  }
}

// Rows per thread. gather-hybrid takes two: that halves its shared-memory loads per term, which
// share the MIO queue with the square roots, and pays for the registers its Newton steps need.
// gather-shared measured faster with one (docs/journal/2026-11.md).
template <AtomSource kSource, bool kHybrid>
constexpr int kRowsPerThread = kSource == AtomSource::shared && kHybrid ? 2 : 1;

// How the atoms of a shared-memory variant are cut: `count` slices of `atoms` each (the last
// shorter), partial sums in `partial` (count x points) when there is more than one.
struct AtomSlices {
  int count = 1, atoms = 0;
  float* partial = nullptr;
};

// Lattice points per thread of a variant.
int points_per_thread(const Params& p) {
  if (p.variant == Variant::gather) return 1;
  return p.coarsening * (p.variant == Variant::gather_hybrid ? 2 : 1);
}

// A lattice with too few points for its threads to fill the device kWaves times over (a 128^3
// volume at 16 points a thread is 131072 threads, 1000 a multiprocessor) has its atoms cut into
// slices that separate blocks sum, then added in slice order. Many short blocks leave a short
// last wave; with few long ones, multiprocessors sit idle at the end. Measured on an H200
// (docs/journal/2026-11.md), gather-hybrid c8 on 128^3 x 20000 atoms: 86 % of the rsqrt limit
// whole, 94 % in 4 slices, 99 % in 16; on 2048^2 x 4000: 92 % whole, 98 % in 8. `p` is the whole
// lattice's even for a problem of a part of it, so a rank's points take the one-rank run's
// slices and bits.
AtomSlices plan_atom_slices(const Params& p, int atom_count) {
  constexpr double kWaves = 8;
  constexpr double kThreadsPerMultiprocessor = 2048;
  AtomSlices slices;
  slices.atoms = atom_count;
  const bool shared = p.variant == Variant::gather_shared || p.variant == Variant::gather_hybrid;
  if (!shared || atom_count <= kTileAtoms) return slices;
  const double threads = double(p.lattice.points()) / points_per_thread(p);
  const double wanted = kWaves * kThreadsPerMultiprocessor * multiprocessor_count();
  const auto count = static_cast<int>(std::clamp<double>(
      std::round(wanted / threads), 1.0, static_cast<double>(ceil_div(atom_count, kTileAtoms))));
  // Whole tiles per slice, and no empty slice.
  slices.atoms = static_cast<int>(ceil_div(ceil_div(atom_count, count), kTileAtoms)) * kTileAtoms;
  slices.count = static_cast<int>(ceil_div(atom_count, slices.atoms));
  return slices;
}

template <AtomSource kSource, bool kHybrid = false>
void launch_gather(const Params& p, const Grid& g, const float4* d_atoms, int count,
                   const AtomSlices& slices, bool accumulate, float* d_potential,
                   cudaStream_t stream) {
  const int coarsening = p.variant == Variant::gather ? 1 : p.coarsening;
  dispatch_shape("coulomb/" + std::string(name(p.variant)), GatherShapes{}, p.block, [&](auto b) {
    using B = decltype(b);
    const auto go = [&](auto c) {
      constexpr int C = decltype(c)::value;
      constexpr int R = kRowsPerThread<kSource, kHybrid>;
      BlockCount blocks = blocks_to_cover(g.nx, g.ny, 1, Shape{B::x * C, B::y * R, 1});
      const std::int64_t blocks_x = blocks.x;
      blocks.x *= slices.count;
      blocks.z = g.nz;
      // Slices write their own partial sums; only the sum of them adds into the potential.
      const bool sliced = slices.count > 1;
      const auto kernel = gather_kernel<B::x, B::y, C, R, kSource, kHybrid>;
      const std::size_t padding =
          kSource == AtomSource::constant
              ? smem_to_cap_blocks(reinterpret_cast<const void*>(kernel), B::x * B::y,
                                   kConstantBlocksPerSM)
              : 0;
      PARASOL_NOTE_LAUNCH(grid_for(blocks), dim3(B::x, B::y), padding,
                          gather_kernel<B::x, B::y, C, R, kSource, kHybrid>);
      kernel<<<grid_for(blocks), dim3(B::x, B::y), padding, stream>>>(
          g, d_atoms, count, slices.atoms, blocks_x, blocks.y, accumulate && !sliced,
          sliced ? slices.partial : d_potential);
      PARASOL_CHECK_LAUNCH(stream);
      if (sliced) {
        const std::int64_t points = g.nx * g.ny * g.nz;
        constexpr int kThreads = 256;
        PARASOL_NOTE_LAUNCH(grid_stride_blocks(points, kThreads), kThreads, 0, sum_slices_kernel);
        sum_slices_kernel<<<grid_stride_blocks(points, kThreads), kThreads, 0, stream>>>(
            slices.partial, slices.count, points, accumulate, d_potential);
        PARASOL_CHECK_LAUNCH(stream);
      }
    };
    switch (coarsening) {
      case 1: return go(std::integral_constant<int, 1>{});
      case 2: return go(std::integral_constant<int, 2>{});
      case 4: return go(std::integral_constant<int, 4>{});
      case 8: return go(std::integral_constant<int, 8>{});
      default: throw InputError("", "method.coarsening", "expected 1, 2, 4 or 8");
    }
  });
}

std::vector<float4> device_atoms(const Params& p, const std::vector<Atom>& atoms) {
  std::vector<float4> out(atoms.size());
  for (std::size_t a = 0; a < atoms.size(); ++a)
    out[a] = make_float4(atoms[a].x, atoms[a].y, atoms[a].z,
                         static_cast<float>(p.coulomb_constant * atoms[a].q));
  return out;
}

// Atoms per launch: constant memory's share for gather and gather-coarse; for the others whole
// tiles adding up to about `terms` terms, so the slices of each launch are planned as a whole
// problem's would be.
int atoms_per_launch(Variant v, std::int64_t points, int count, double terms) {
  if (v == Variant::gather || v == Variant::gather_coarse) return kConstantAtoms;
  const double tiles = std::max(1.0, std::ceil(terms / static_cast<double>(points) / kTileAtoms));
  return static_cast<int>(std::min<double>(tiles * kTileAtoms, std::max(count, 1)));
}

// The slices' partial sums a launch of p with `count` atoms needs over `points` points of it
// (0 when it is not sliced).
std::size_t partial_size(const Params& p, int count, double terms, std::int64_t points) {
  const AtomSlices slices = plan_atom_slices(
      p, std::min(count, atoms_per_launch(p.variant, p.lattice.points(), count, terms)));
  return slices.count > 1 ? static_cast<std::size_t>(slices.count * points) : 0;
}

}  // namespace

DeviceProblem::DeviceProblem(const Params& p, const std::vector<Atom>& atoms, cudaStream_t stream,
                             double terms_per_launch)
    : DeviceProblem(p, atoms, whole(p.lattice), stream, terms_per_launch) {}

DeviceProblem::DeviceProblem(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                             cudaStream_t stream, double terms_per_launch)
    : p_(p),
      part_(part),
      stream_(stream),
      terms_per_launch_(terms_per_launch),
      atoms_(atoms.size()),
      potential_(static_cast<std::size_t>(part.points())),
      partial_(partial_size(p, static_cast<int>(atoms.size()), terms_per_launch, part.points())) {
  // Pageable memory: the copy has left `host` for staging memory when upload() returns.
  const std::vector<float4> host = device_atoms(p, atoms);
  upload(atoms_, host, stream_);
}

void DeviceProblem::run(Variant variant, const Shape& block, int coarsening,
                        const ProgressCallback& progress) {
  Params p = p_;
  p.variant = variant;
  p.block = block;
  p.coarsening = coarsening;
  const Grid g = grid_of(p, part_);
  const int count = static_cast<int>(atoms_.size());
  const auto wall_start = std::chrono::steady_clock::now();
  if (count == 0 || variant == Variant::scatter)
    PARASOL_CUDA(cudaMemsetAsync(potential_.data(), 0, potential_.bytes(), stream_));
  // Grown here at most once per plan larger than any before: the sweep's check run, not a
  // timed one.
  const std::size_t partial = partial_size(p, count, terms_per_launch_, part_.points());
  if (partial_.size() < partial) partial_ = DeviceBuffer<float>(partial);
  const int per_launch = atoms_per_launch(variant, p.lattice.points(), count, terms_per_launch_);
  std::size_t n = 0;  // launches enqueued
  for (int first = 0; first < count; first += per_launch, ++n) {
    const int chunk = std::min(per_launch, count - first);
    const bool accumulate = first > 0;
    const float4* d_atoms = atoms_.data() + first;
    AtomSlices slices = plan_atom_slices(p, chunk);
    slices.partial = partial_.data();
    switch (variant) {
      case Variant::scatter: {
        constexpr int kThreads = 128;
        PARASOL_NOTE_LAUNCH(static_cast<unsigned>(ceil_div(chunk, kThreads)), kThreads, 0,
                            scatter_kernel);
        scatter_kernel<<<static_cast<unsigned>(ceil_div(chunk, kThreads)), kThreads, 0, stream_>>>(
            g, d_atoms, chunk, potential_.data());
        PARASOL_CHECK_LAUNCH(stream_);
        break;
      }
      case Variant::gather:
      case Variant::gather_coarse:
        copy_on_device(constant_atoms(), d_atoms, static_cast<std::size_t>(chunk), stream_);
        launch_gather<AtomSource::constant>(p, g, nullptr, chunk, AtomSlices{1, chunk}, accumulate,
                                            potential_.data(), stream_);
        break;
      case Variant::gather_shared:
        launch_gather<AtomSource::shared>(p, g, d_atoms, chunk, slices, accumulate,
                                          potential_.data(), stream_);
        break;
      case Variant::gather_hybrid:
        launch_gather<AtomSource::shared, true>(p, g, d_atoms, chunk, slices, accumulate,
                                                potential_.data(), stream_);
        break;
    }
    if (progress) {
      // The launch before this one is waited for while this one runs.
      launched_[n % 2].record(stream_);
      if (n > 0) {
        launched_[(n - 1) % 2].synchronize();
        progress({first, count, seconds_since(wall_start)});
      }
    }
  }
  if (progress) {
    PARASOL_CUDA(cudaStreamSynchronize(stream_));
    progress({count, count, seconds_since(wall_start)});
  }
}

void DeviceProblem::poison() { fill_bytes(potential_, 0xFF, stream_); }

std::vector<float> DeviceProblem::download() const { return parasol::download(potential_, stream_); }

double device_bytes(const Params& p, std::int64_t atoms) {
  return device_bytes(p, atoms, whole(p.lattice));
}

double device_bytes(const Params& p, std::int64_t atoms, const Part& part) {
  return sizeof(float) * static_cast<double>(part.points()) +
         sizeof(float4) * static_cast<double>(atoms) +
         sizeof(float) * static_cast<double>(partial_size(p, static_cast<int>(atoms),
                                                          kTermsPerLaunch, part.points()));
}

Result solve_gpu(const Params& p, const std::vector<Atom>& atoms, const ProgressCallback& progress) {
  return solve_gpu(p, atoms, whole(p.lattice), progress);
}

Result solve_gpu(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                 const ProgressCallback& progress) {
  Stream stream;
  Result result;
  EventTimer h2d(stream);
  h2d.start();
  DeviceProblem problem(p, atoms, part, stream);
  h2d.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());

  EventTimer compute(stream);
  compute.start();
  problem.run(p.variant, p.block, p.coarsening, progress);
  compute.stop();
  result.timings.add(phase::compute, compute.seconds());

  EventTimer d2h(stream);
  d2h.start();
  result.potential = problem.download();
  d2h.stop();
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

namespace {

// Eight independent chains per thread keep the special-function unit busy; each step is one
// fast_rsqrt (its FADD partner runs on the FMA pipe, which is eight times wider).
constexpr int kChains = 8;
constexpr int kRsqrtSteps = 4096;

__global__ void rsqrt_throughput_kernel(float seed, float* sink) {
  float v[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) v[c] = seed + static_cast<float>(threadIdx.x + c);
  for (int s = 0; s < kRsqrtSteps; ++s) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = fast_rsqrt(v[c] + 1.0f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += v[c];
  if (sum == -1.0f) *sink = sum;  // never true: keeps the chains alive
}

}  // namespace

double measure_rsqrt_throughput() {
  constexpr int kThreads = 256;
  const int blocks = multiprocessor_count() * 8;
  DeviceBuffer<float> sink(1);
  Stream stream;
  rsqrt_throughput_kernel<<<blocks, kThreads, 0, stream>>>(1.0f, sink.data());  // warm-up
  PARASOL_CHECK_LAUNCH(stream);
  std::vector<double> seconds;
  EventTimer timer(stream);
  for (int r = 0; r < 7; ++r) {
    timer.start();
    rsqrt_throughput_kernel<<<blocks, kThreads, 0, stream>>>(1.0f + static_cast<float>(r), sink.data());
    PARASOL_CHECK_LAUNCH(stream);
    timer.stop();
    seconds.push_back(timer.seconds());
  }
  std::nth_element(seconds.begin(), seconds.begin() + 3, seconds.end());
  return static_cast<double>(blocks) * kThreads * kChains * kRsqrtSteps / seconds[3];
}

}  // namespace parasol::coulomb
