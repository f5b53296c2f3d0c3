// The basket model's European payoffs on the GPU, two ways of correlating the normals:
//   basket-registers: one thread a path, L in the constant cache, L z in registers (d <= 16);
//   basket-cublas: per batch of paths and block of steps, a Philox kernel writes z (d x columns),
//     one cublasSgemm forms y = L z, and an element-wise kernel advances the log-prices.
// Both draw normal (s, n, i) from the same Philox counter (basket_paths.cuh), so they simulate the
// same paths and differ only by float rounding. Each path writes its payoff and Greeks to a
// row-per-quantity buffer, reduced in double by add_moments in the same order on every run.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/making.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/reduce.cuh"
#include "solvers/montecarlo/basket_paths.cuh"

namespace parasol::montecarlo {
namespace {

constexpr int kThreads = 256;

// Sum and sum of squares of one row per blockIdx.y, in double, added into the block's own slots
// (row 2q and 2q + 1 of kMomentSlots, column blockIdx.x). One launch never has two blocks on one
// slot and launches are ordered on the stream, so no atomics are needed and every addition
// happens in the same order on every run: a double atomicAdd's order varies with scheduling,
// which changed a basket-cublas price in its last bit from one run to the next.
__global__ void __launch_bounds__(kThreads)
    moments_kernel(const float* values, std::int64_t count, double* slots, bool first) {
  const float* row = values + blockIdx.y * count;
  double sum = 0, sum_sq = 0;
  for (std::int64_t i : grid_stride(count)) {
    const double v = row[i];
    sum += v;
    sum_sq += v * v;
  }
  sum = block_reduce<kThreads>(sum, Sum{});
  __syncthreads();  // block_reduce's shared slots are reused
  sum_sq = block_reduce<kThreads>(sum_sq, Sum{});
  if (first) zero_slots_past_grid(slots, 2 * static_cast<int>(blockIdx.y), 2);
  if (threadIdx.x != 0) return;
  double* const mine = slots + (2 * blockIdx.y) * kMomentSlots + blockIdx.x;
  mine[0] = first ? sum : mine[0] + sum;
  mine[kMomentSlots] = first ? sum_sq : mine[kMomentSlots] + sum_sq;
}

// totals[r] = the sum of row r's kMomentSlots slots, one block a row, in block_reduce's fixed order.
__global__ void __launch_bounds__(kThreads)
    slot_totals_kernel(const double* slots, double* totals) {
  const double sum =
      slot_row_total<kThreads>(slots + static_cast<std::int64_t>(blockIdx.x) * kMomentSlots);
  if (threadIdx.x == 0) totals[blockIdx.x] = sum;
}

template <int kD>
__global__ void __launch_bounds__(kThreads)
    registers_kernel(const __grid_constant__ SmallModel m, std::uint64_t seed, std::int64_t first,
                     std::int64_t count, bool greeks, float* values) {
  const AssetConstants a{m.log_spot, m.spot, m.weight, m.sigma, m.drift};
  for (std::int64_t p : grid_stride(count)) {
    float x[kD], z0[kD];
    walk_path<kD>(m, seed, first + p, x, z0, [](std::int64_t, const float(&)[kD]) {});
    // The unrolled register arrays are read at a run-time asset index only here, once a path.
    float score[kD];
#pragma unroll
    for (int i = 0; i < kD; ++i) {
      float u = 0;
#pragma unroll
      for (int k = 0; k < kD; ++k) u = fmaf(m.l_inv_t[i * kRegistersUpTo + k], z0[k], u);
      score[i] = u;
    }
    european_outputs(
        m.payoff, m.d, m.steps, m.strike, m.discount, m.maturity, a,
        [&](int i) {
          float v = 0;
#pragma unroll
          for (int k = 0; k < kD; ++k) v = k == i ? x[k] : v;
          return v;
        },
        [&](int i) {
          float v = 0;
#pragma unroll
          for (int k = 0; k < kD; ++k) v = k == i ? score[k] : v;
          return v;
        },
        greeks, values + p, count);
  }
}

// Step 0's correlated normals y = L z0 of samples [0, count), d x count, from the path code.
template <int kD>
__global__ void __launch_bounds__(kThreads)
    first_step_kernel(const __grid_constant__ SmallModel m, std::uint64_t seed, std::int64_t count,
                      float* y) {
  for (std::int64_t p : grid_stride(count)) {
    float x[kD], z0[kD];
    walk_path<kD>(m, seed, p, x, z0, [](std::int64_t, const float(&)[kD]) {});
#pragma unroll
    for (int i = 0; i < kD; ++i) {
      if (i >= m.d) break;
      float v = 0;
#pragma unroll
      for (int k = 0; k <= i; ++k) v = fmaf(m.l[i * kRegistersUpTo + k], z0[k], v);
      y[i + static_cast<std::int64_t>(m.d) * p] = v;
    }
  }
}

// z for steps [n0, n0 + steps_here) of samples [first, first + count): column (n - n0) * count + p
// of a d-row column-major matrix. One thread per (path, draw); draws of a column are adjacent
// threads, so a column's writes are contiguous. The thread's indices are taken apart in `Index`:
// 32-bit where they fit (the host checks), since a 64-bit division costs several times the
// Philox draw it locates.
template <class Index>
__global__ void __launch_bounds__(kThreads)
    normals_kernel(int d, int padded, std::int64_t steps, std::uint64_t seed, std::int64_t first,
                   std::int64_t count, std::int64_t n0, std::int64_t steps_here, float* z) {
  const std::int64_t k0 = n0 * padded, k1 = (n0 + steps_here < steps ? n0 + steps_here : steps) * padded;
  const std::int64_t j0 = k0 / 4, draws = (k1 + 3) / 4 - j0;
  const auto index_draws = static_cast<Index>(draws);
  const auto index_padded = static_cast<Index>(padded);
  for (std::int64_t t : grid_stride(count * draws)) {
    const auto it = static_cast<Index>(t);
    const Index p = it / index_draws, jj = it - p * index_draws;
    const std::int64_t j = j0 + static_cast<std::int64_t>(jj);
    const float4 v = basket_draw(seed, first + static_cast<std::int64_t>(p), j);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const std::int64_t k = 4 * j + c;
      if (k < k0 || k >= k1) continue;
      const auto ik = static_cast<Index>(k);
      const Index n = ik / index_padded;
      const auto i = static_cast<int>(ik - n * index_padded);
      if (i < d)
        z[i + d * ((static_cast<std::int64_t>(n) - n0) * count + static_cast<std::int64_t>(p))] =
            component(v, c);
    }
  }
}

// normals_kernel where d is a multiple of 4 (d == padded): each draw's four normals are four
// adjacent rows of one column, written with one 16-byte store; the d / 4 draws of a column are
// adjacent threads. The same draws land in the same places as normals_kernel's.
template <class Index>
__global__ void __launch_bounds__(kThreads)
    normals_columns_kernel(int d, std::uint64_t seed, std::int64_t first, std::int64_t count,
                           std::int64_t n0, std::int64_t steps_here, float4* z) {
  const auto per_column = static_cast<Index>(d / 4);
  const auto columns = static_cast<Index>(steps_here);
  const auto draws = per_column * columns;  // of one path
  const std::int64_t j0 = n0 * (d / 4);
  for (std::int64_t t : grid_stride(count * static_cast<std::int64_t>(draws))) {
    const auto it = static_cast<Index>(t);
    const Index p = it / draws, jj = it - p * draws;
    const Index n = jj / per_column, c = jj - n * per_column;
    z[(static_cast<std::int64_t>(n) * count + static_cast<std::int64_t>(p)) * (d / 4) + c] =
        basket_draw(seed, first + static_cast<std::int64_t>(p), j0 + static_cast<std::int64_t>(jj));
  }
}

// x += drift + vol * y for each of `steps_here` columns blocks of y; the asset of an element
// taken apart in `Index`, as in normals_kernel.
template <class Index>
__global__ void __launch_bounds__(kThreads)
    advance_kernel(int d, std::int64_t count, std::int64_t steps_here, const float* drift,
                   const float* vol, const float* y, float* x) {
  const std::int64_t size = static_cast<std::int64_t>(d) * count;
  const auto index_d = static_cast<Index>(d);
  for (std::int64_t e : grid_stride(size)) {
    const auto i = static_cast<int>(static_cast<Index>(e) % index_d);
    const float step_drift = drift[i], step_vol = vol[i];
    float v = x[e];
    for (std::int64_t t = 0; t < steps_here; ++t) v += fmaf(step_vol, y[e + t * size], step_drift);
    x[e] = v;
  }
}

// Whether every index a kernel above takes apart fits 32 bits.
bool fits_32_bits(std::int64_t largest) { return largest < (std::int64_t{1} << 32); }

__global__ void __launch_bounds__(kThreads)
    outputs_kernel(BasketPayoff payoff, int d, std::int64_t steps, float strike, float discount,
                   float maturity, AssetConstants a, const float* x, const float* score,
                   std::int64_t count, bool greeks, float* values) {
  for (std::int64_t p : grid_stride(count)) {
    const float* xp = x + static_cast<std::int64_t>(d) * p;
    const float* sp = score == nullptr ? nullptr : score + static_cast<std::int64_t>(d) * p;
    european_outputs(
        payoff, d, steps, strike, discount, maturity, a, [&](int i) { return xp[i]; },
        [&](int i) { return sp == nullptr ? 0.0f : sp[i]; }, greeks, values + p, count);
  }
}

int blocks_for(std::int64_t n) { return grid_stride_blocks(n, kThreads); }

template <class F>
void with_register_width(int d, F&& f) {
  if (d <= 1) f(std::integral_constant<int, 1>{});
  else if (d <= 2) f(std::integral_constant<int, 2>{});
  else if (d <= 4) f(std::integral_constant<int, 4>{});
  else if (d <= 8) f(std::integral_constant<int, 8>{});
  else f(std::integral_constant<int, 16>{});
}

// A cuBLAS handle set up so that the same GEMM on the same device gives the same bits on every
// run (/method@reproducible): no atomics (split reductions would add in a varying order), full
// fp32 products (CUBLAS_DEFAULT_MATH; no TF32, whose 10-bit mantissas would also need their
// accuracy shown), and a workspace of a fixed size owned here, bound after the stream (setting
// the stream resets it), so the algorithm cuBLAS picks does not follow the memory free at the
// time. The GEMMs are plain cublasSgemm: the Ex/Lt forms choose by heuristics we would then
// have to pin as well.
class BlasHandle {
 public:
  explicit BlasHandle(cudaStream_t stream)
      : workspace_(while_making("cuBLAS's workspace of 32 MiB", [] {
          return DeviceBuffer<unsigned char>(kWorkspaceBytes);
        })) {
    while_making("a cuBLAS handle", [&] {
      PARASOL_CUBLAS(cublasCreate(&handle_));
      try {
        PARASOL_CUBLAS(cublasSetStream(handle_, stream));
        PARASOL_CUBLAS(cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()));
        PARASOL_CUBLAS(cublasSetAtomicsMode(handle_, CUBLAS_ATOMICS_NOT_ALLOWED));
        PARASOL_CUBLAS(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
      } catch (...) {
        cublasDestroy(handle_);
        throw;
      }
    });
  }
  ~BlasHandle() { cublasDestroy(handle_); }
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  // cuBLAS's documented recommendation for Hopper (32 MiB; 4 MiB suffices before it).
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
  DeviceBuffer<unsigned char> workspace_;
  cublasHandle_t handle_ = nullptr;
};

// L^-T of a lower-triangular row-major factor, row-major, in double.
std::vector<double> inverse_transpose(const std::vector<double>& l, int d) {
  const auto n = static_cast<std::size_t>(d);
  std::vector<double> inv(n * n, 0.0);  // L^-1, lower
  for (int c = 0; c < d; ++c)
    for (int i = c; i < d; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (int k = c; k < i; ++k) s -= l[i * n + k] * inv[k * n + c];
      inv[i * n + c] = s / l[i * n + i];
    }
  std::vector<double> t(n * n);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) t[i * n + j] = inv[j * n + i];
  return t;
}

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

}  // namespace

SmallModel small_model(const BasketParams& p) {
  const int d = p.assets();
  if (d > kRegistersUpTo)
    throw Error("montecarlo: the register model holds " + std::to_string(kRegistersUpTo) +
                " assets, not " + std::to_string(d));
  SmallModel m{};
  m.d = d;
  m.padded = padded_assets(d);
  m.steps = p.steps;
  const std::vector<double> l = cholesky(p.correlation, d, "model.correlation");
  const std::vector<double> t = inverse_transpose(l, d);
  const double dt = p.maturity / static_cast<double>(p.steps);
  for (int i = 0; i < d; ++i) {
    for (int k = 0; k < d; ++k) {
      m.l[i * kRegistersUpTo + k] = static_cast<float>(l[i * d + k]);
      m.l_inv_t[i * kRegistersUpTo + k] = static_cast<float>(t[i * d + k]);
    }
    m.drift[i] = static_cast<float>((p.rate - p.dividends[i] - 0.5 * p.vols[i] * p.vols[i]) * dt);
    m.vol[i] = static_cast<float>(p.vols[i] * std::sqrt(dt));
    m.sigma[i] = static_cast<float>(p.vols[i]);
    m.spot[i] = static_cast<float>(p.spots[i]);
    m.weight[i] = static_cast<float>(p.weights[i]);
    m.log_spot[i] = static_cast<float>(std::log(p.spots[i]));
  }
  m.strike = static_cast<float>(p.strike);
  m.discount = static_cast<float>(std::exp(-p.rate * p.maturity));
  m.maturity = static_cast<float>(p.maturity);
  m.payoff = p.payoff;
  return m;
}

void add_moments(const float* values, int quantities, std::int64_t count, double* slots,
                 bool first, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(std::min(blocks_for(count), kMomentSlots)),
                  static_cast<unsigned>(quantities));
  moments_kernel<<<grid, kThreads, 0, stream>>>(values, count, slots, first);
  PARASOL_CHECK_LAUNCH(stream);
}

void total_slots(const double* slots, int rows, double* totals, cudaStream_t stream) {
  slot_totals_kernel<<<rows, kThreads, 0, stream>>>(slots, totals);
  PARASOL_CHECK_LAUNCH(stream);
}

struct BasketSimulator::State {
  BasketVariant variant;
  std::int64_t batch = 0;      // paths per batch
  std::int64_t step_block = 0;  // cuBLAS: steps per GEMM
  int quantities = 1;
  SmallModel small{};
  DeviceBuffer<float> values;  // quantities x batch
  DeviceBuffer<double> slots;  // 2 x quantities rows of kMomentSlots (add_moments)
  DeviceBuffer<double> sums;   // 2 x quantities: the slots' totals
  // cuBLAS path.
  std::unique_ptr<BlasHandle> blas;
  DeviceBuffer<float> l, l_inv_t, drift, vol, sigma, spot, weight, log_spot;
  DeviceBuffer<float> z, y, x, score;
  std::vector<double> host_sums;
  // time_phases: an event before each step block's normals, GEMM and advance and one after, kept
  // from run to run.
  bool time_phases = false;
  std::vector<std::array<Event, 4>> phase_events;
  std::size_t blocks_timed = 0;  // step blocks recorded in the last run
  // Records the block's event `k` (0: before its normals ... 3: after its advance).
  void mark(int k, cudaStream_t stream) {
    if (!time_phases) return;
    if (blocks_timed == phase_events.size()) phase_events.emplace_back();
    phase_events[blocks_timed][static_cast<std::size_t>(k)].record(stream);
    if (k == 3) ++blocks_timed;
  }
};

BasketSimulator::BasketSimulator(const BasketParams& p, cudaStream_t stream)
    : p_(p), stream_(stream), s_(std::make_unique<State>()) {
  p_.validate();
  if (early_exercise(p_.payoff))
    throw Error("montecarlo: BasketSimulator prices European payoffs; " +
                std::string(name(p_.payoff)) + " goes through Longstaff-Schwartz");
  State& s = *s_;
  const int d = p_.assets();
  s.variant = p_.resolved_variant();
  s.quantities = european_quantities(p_);
  s.batch = std::min(p_.paths, p_.batch_paths);
  s.values = DeviceBuffer<float>(static_cast<std::size_t>(s.quantities * s.batch));
  s.slots = DeviceBuffer<double>(static_cast<std::size_t>(2 * s.quantities * kMomentSlots));
  s.sums = DeviceBuffer<double>(static_cast<std::size_t>(2 * s.quantities));
  s.host_sums.assign(static_cast<std::size_t>(2 * s.quantities), 0.0);
  // Poisoned once: a path the kernels never wrote would turn the sums to NaN, not pass unseen.
  fill_bytes(s.values, 0xFF, stream_);
  if (s.variant == BasketVariant::registers) {
    s.small = small_model(p_);
    return;
  }
  const std::vector<double> l = cholesky(p_.correlation, d, "model.correlation");
  const double dt = p_.maturity / static_cast<double>(p_.steps);
  std::vector<double> drift, vol, log_spot;
  for (int i = 0; i < d; ++i) {
    drift.push_back((p_.rate - p_.dividends[i] - 0.5 * p_.vols[i] * p_.vols[i]) * dt);
    vol.push_back(p_.vols[i] * std::sqrt(dt));
    log_spot.push_back(std::log(p_.spots[i]));
  }
  const auto put = [&](DeviceBuffer<float>& to, const std::vector<double>& from) {
    const std::vector<float> f = to_float(from);
    to = DeviceBuffer<float>(f.size());
    upload(to, f, stream_);
    PARASOL_CUDA(cudaStreamSynchronize(stream_));  // `f` dies here
  };
  put(s.l, l);
  put(s.drift, drift);
  put(s.vol, vol);
  put(s.sigma, p_.vols);
  put(s.spot, p_.spots);
  put(s.weight, p_.weights);
  put(s.log_spot, log_spot);
  const bool digital = p_.greeks && p_.payoff == BasketPayoff::digital_basket_call;
  if (digital) put(s.l_inv_t, inverse_transpose(l, d));
  // Steps per GEMM: z and y each at most 2^25 floats (128 MiB) a block.
  const std::int64_t columns = std::max<std::int64_t>(1, (std::int64_t{1} << 25) / (d * s.batch));
  s.step_block = std::min(p_.steps, columns);
  const auto block_size = static_cast<std::size_t>(d * s.batch * s.step_block);
  s.z = DeviceBuffer<float>(block_size);
  s.y = DeviceBuffer<float>(block_size);
  s.x = DeviceBuffer<float>(static_cast<std::size_t>(d * s.batch));
  if (digital) s.score = DeviceBuffer<float>(static_cast<std::size_t>(d * s.batch));
  s.blas = std::make_unique<BlasHandle>(stream_);
}

BasketSimulator::~BasketSimulator() = default;

BasketVariant BasketSimulator::variant() const { return s_->variant; }

void BasketSimulator::correlate(std::int64_t columns) {
  State& s = *s_;
  const int d = p_.assets();
  const float one = 1.0f, zero = 0.0f;
  // y = L z: L is row-major lower, i.e. column-major L^T: op = transpose gives L.
  PARASOL_CUBLAS(cublasSgemm(s.blas->get(), CUBLAS_OP_T, CUBLAS_OP_N, d,
                             static_cast<int>(columns), d, &one, s.l.data(), d, s.z.data(), d,
                             &zero, s.y.data(), d));
}

void BasketSimulator::time_phases(bool on) { s_->time_phases = on; }

BasketSimulator::PhaseSeconds BasketSimulator::phase_seconds() const {
  const State& s = *s_;
  const auto between = [](const Event& a, const Event& b) {
    b.synchronize();
    float ms = 0.0f;
    PARASOL_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
    return 1e-3 * static_cast<double>(ms);
  };
  PhaseSeconds t;
  for (std::size_t k = 0; k < s.blocks_timed; ++k) {
    const std::array<Event, 4>& e = s.phase_events[k];
    t.normals += between(e[0], e[1]);
    t.correlation += between(e[1], e[2]);
    t.advance += between(e[2], e[3]);
  }
  return t;
}

void BasketSimulator::run_batch(std::int64_t first, std::int64_t count) {
  State& s = *s_;
  const int d = p_.assets();
  if (s.variant == BasketVariant::registers) {
    with_register_width(d, [&](auto width) {
      constexpr int kD = decltype(width)::value;
      registers_kernel<kD><<<blocks_for(count), kThreads, 0, stream_>>>(
          s.small, p_.seed, first, count, p_.greeks, s.values.data());
      PARASOL_CHECK_LAUNCH(stream_);
    });
    return;
  }
  const int padded = padded_assets(d);
  PARASOL_CUDA(cudaMemsetAsync(s.x.data(), 0, sizeof(float) * d * count, stream_));
  const bool digital = s.score.size() > 0;
  for (std::int64_t n0 = 0; n0 < p_.steps; n0 += s.step_block) {
    const std::int64_t here = std::min(s.step_block, p_.steps - n0);
    const std::int64_t draws = ((n0 + here) * padded + 3) / 4 - n0 * padded / 4;
    s.mark(0, stream_);
    if (d == padded && d % 4 == 0) {
      auto* z4 = reinterpret_cast<float4*>(s.z.data());
      if (fits_32_bits(count * draws))
        normals_columns_kernel<std::uint32_t><<<blocks_for(count * draws), kThreads, 0, stream_>>>(
            d, p_.seed, first, count, n0, here, z4);
      else
        normals_columns_kernel<std::int64_t><<<blocks_for(count * draws), kThreads, 0, stream_>>>(
            d, p_.seed, first, count, n0, here, z4);
    } else if (fits_32_bits(std::max(count * draws, (n0 + here) * padded + 4)))
      normals_kernel<std::uint32_t><<<blocks_for(count * draws), kThreads, 0, stream_>>>(
          d, padded, p_.steps, p_.seed, first, count, n0, here, s.z.data());
    else
      normals_kernel<std::int64_t><<<blocks_for(count * draws), kThreads, 0, stream_>>>(
          d, padded, p_.steps, p_.seed, first, count, n0, here, s.z.data());
    PARASOL_CHECK_LAUNCH(stream_);
    if (n0 == 0 && digital) {
      // The likelihood ratio's score L^-T z0, from step 0's columns, before z is overwritten.
      const float one = 1.0f, zero = 0.0f;
      PARASOL_CUBLAS(cublasSgemm(s.blas->get(), CUBLAS_OP_T, CUBLAS_OP_N, d,
                                 static_cast<int>(count), d, &one, s.l_inv_t.data(), d,
                                 s.z.data(), d, &zero, s.score.data(), d));
    }
    s.mark(1, stream_);
    correlate(here * count);
    s.mark(2, stream_);
    if (fits_32_bits(d * count))
      advance_kernel<std::uint32_t><<<blocks_for(d * count), kThreads, 0, stream_>>>(
          d, count, here, s.drift.data(), s.vol.data(), s.y.data(), s.x.data());
    else
      advance_kernel<std::int64_t><<<blocks_for(d * count), kThreads, 0, stream_>>>(
          d, count, here, s.drift.data(), s.vol.data(), s.y.data(), s.x.data());
    PARASOL_CHECK_LAUNCH(stream_);
    s.mark(3, stream_);
  }
  const float discount = static_cast<float>(std::exp(-p_.rate * p_.maturity));
  const AssetConstants a{s.log_spot.data(), s.spot.data(), s.weight.data(), s.sigma.data(),
                         s.drift.data()};
  outputs_kernel<<<blocks_for(count), kThreads, 0, stream_>>>(
      p_.payoff, d, p_.steps, static_cast<float>(p_.strike), discount,
      static_cast<float>(p_.maturity), a, s.x.data(), digital ? s.score.data() : nullptr, count,
      p_.greeks, s.values.data());
  PARASOL_CHECK_LAUNCH(stream_);
}

void BasketSimulator::run() {
  State& s = *s_;
  s.blocks_timed = 0;
  for (std::int64_t first = 0; first < p_.paths; first += s.batch) {
    const std::int64_t count = std::min(s.batch, p_.paths - first);
    run_batch(first, count);
    add_moments(s.values.data(), s.quantities, count, s.slots.data(), first == 0, stream_);
  }
  total_slots(s.slots.data(), 2 * s.quantities, s.sums.data(), stream_);
}

BasketResult BasketSimulator::result() const {
  State& s = *s_;
  download(s.sums, s.host_sums.data(), s.host_sums.size(), stream_);
  const auto moments = [&](int q) {
    return Moments{static_cast<double>(p_.paths), s.host_sums[2 * q], s.host_sums[2 * q + 1]}
        .estimate();
  };
  BasketResult r;
  r.price = moments(0);
  if (p_.greeks) {
    if (p_.payoff != BasketPayoff::digital_basket_call) r.vega = moments(1);
    for (int i = 0; i < p_.assets(); ++i) r.delta.push_back(moments(2 + i));
  }
  return r;
}

std::vector<float> BasketSimulator::correlated_normals(std::int64_t count) {
  State& s = *s_;
  const int d = p_.assets();
  count = std::min(count, s.batch);
  if (s.variant == BasketVariant::cublas) {
    normals_kernel<std::int64_t>
        <<<blocks_for(count * ((padded_assets(d) + 3) / 4 + 1)), kThreads, 0, stream_>>>(
            d, padded_assets(d), p_.steps, p_.seed, 0, count, 0, 1, s.z.data());
    PARASOL_CHECK_LAUNCH(stream_);
    correlate(count);
    std::vector<float> y(static_cast<std::size_t>(d * count));
    download(s.y, y.data(), y.size(), stream_);
    return y;
  }
  DeviceBuffer<float> y(static_cast<std::size_t>(d * count));
  with_register_width(d, [&](auto width) {
    constexpr int kD = decltype(width)::value;
    SmallModel one_step = s.small;
    one_step.steps = 1;  // step 0 draws from the same counters whatever the step count
    first_step_kernel<kD><<<blocks_for(count), kThreads, 0, stream_>>>(one_step, p_.seed, count,
                                                                       y.data());
    PARASOL_CHECK_LAUNCH(stream_);
  });
  return download(y, stream_);
}

BasketResult solve_basket_gpu(const BasketParams& p, cudaStream_t stream) {
  if (early_exercise(p.payoff)) return solve_lsm_gpu(p, stream);
  const auto start = std::chrono::steady_clock::now();
  BasketSimulator simulator(p, stream);
  simulator.run();
  BasketResult r = simulator.result();
  r.seconds = seconds_since(start);
  r.timings.add(kSimulatePhase, r.seconds);
  return r;
}

}  // namespace parasol::montecarlo
