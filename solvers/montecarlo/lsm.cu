// Longstaff-Schwartz on the GPU for a put on the basket value B = sum w_i S_i:
//   simulate: one thread a path (the register path code, basket_paths.cuh) keeps B at every
//     exercise date, [date][path];
//   regress: the sums of the normal equations that need no cash flow (the basis's Gram matrix and
//     the in-the-money count) for every date at once; then backward over the dates, one launch a
//     date (lsm_date_kernel) exercises each path by the later date's policy, discounts its cash
//     flow and sums the basis times it over the in-the-money paths in double (block totals into
//     the block's own slot, the slots then added in a fixed order: the same bits every run); its
//     last block solves the date's equations in double with the gold's own code
//     (regression.hpp). The host waits once, after the last date, for the policies and the
//     in-sample sums;
//   price: the fitted policy on independent paths (Philox seed of path set 1), first exercise.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/reduce.cuh"
#include "solvers/montecarlo/basket_paths.cuh"
#include "solvers/montecarlo/regression.hpp"

namespace parasol::montecarlo {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::int64_t n) { return grid_stride_blocks(n, kThreads); }

// The grid's y extent at most.
constexpr int kMaxGridY = 65535;

template <int kD>
__global__ void __launch_bounds__(kThreads)
    lsm_paths_kernel(const __grid_constant__ SmallModel m, std::uint64_t seed, std::int64_t count,
                     const int* date_of_step, float* basket) {
  for (std::int64_t p : grid_stride(count)) {
    float x[kD], z0[kD];
    walk_path<kD>(m, seed, p, x, z0, [&](std::int64_t n, const float(&xs)[kD]) {
      const int e = date_of_step[n];
      if (e < 0) return;
      float b = 0;
#pragma unroll
      for (int i = 0; i < kD; ++i) b = fmaf(m.weight[i] * m.spot[i], expf(xs[i]), b);
      basket[e * count + p] = b;
    });
  }
}

__global__ void __launch_bounds__(kThreads)
    lsm_start_kernel(const float* basket_last, std::int64_t count, float strike, float* v) {
  for (std::int64_t p : grid_stride(count)) v[p] = fmaxf(strike - basket_last[p], 0.0f);
}

template <int kNb>
__device__ inline void basis(float b, float strike, double (&phi)[kNb]) {
  const double x = static_cast<double>(b) / strike;
  phi[0] = 1;
#pragma unroll
  for (int k = 1; k < kNb; ++k) phi[k] = phi[k - 1] * x;
}

// The normal equations' sums over in-the-money paths: phi_i phi_j (i <= j, packed), phi_i v, and
// the count. The Gram matrix's sums and the count need no cash flow: kGram of them, taken for
// every date at once (gram_kernel, gram_totals_kernel) before the backward pass; the kNb sums
// phi_i v are taken date by date (lsm_date_kernel).
template <int kNb>
constexpr int kPacked = kNb * (kNb + 1) / 2;
template <int kNb>
constexpr int kGram = kPacked<kNb> + 1;

// The paths a thread of gram_kernel or lsm_date_kernel loads before it adds any (the loads in
// flight together), in the order a grid-stride loop takes them, so the sums keep that order's bits.
constexpr int kLoadsAhead = 4;

// Every fitting date's Gram sums and in-the-money count, before the backward pass: date
// first_date + blockIdx.y, block blockIdx.x's totals (block_reduce_each) into column blockIdx.x
// of the date's kGram rows of `gram` (gridDim.x doubles a row). Its grid in x is
// lsm_date_kernel's, so each thread takes the same paths in the same order, and each sum gets
// the bits it would get beside the others. Each thread loads kLoadsAhead paths before it adds any.
template <int kNb>
__global__ void __launch_bounds__(kThreads)
    gram_kernel(const float* basket, std::int64_t count, float strike, int first_date,
                double* gram) {
  const std::int64_t e = first_date + static_cast<std::int64_t>(blockIdx.y);
  const float* date = basket + e * count;
  double local[kGram<kNb>] = {};
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
       first < count; first += kLoadsAhead * stride) {
    float bs[kLoadsAhead];
#pragma unroll
    for (int k = 0; k < kLoadsAhead; ++k) {
      const std::int64_t p = first + k * stride;
      bs[k] = p < count ? date[p] : strike;  // past the end: out of the money
    }
#pragma unroll
    for (int k = 0; k < kLoadsAhead; ++k) {
      if (strike - bs[k] <= 0) continue;
      double phi[kNb];
      basis<kNb>(bs[k], strike, phi);
      int at = 0;
#pragma unroll
      for (int i = 0; i < kNb; ++i)
#pragma unroll
        for (int j = i; j < kNb; ++j) local[at++] += phi[i] * phi[j];
      local[at] += 1;
    }
  }
  block_reduce_each<kThreads>(local, Sum{});
  if (threadIdx.x != 0) return;
  double* const rows = gram + e * kGram<kNb> * gridDim.x;
#pragma unroll
  for (int q = 0; q < kGram<kNb>; ++q) rows[q * gridDim.x + blockIdx.x] = local[q];
}

// Each fitting date's (first_date + blockIdx.y) Gram row blockIdx.x totalled as slot_row_total
// totals a row (the columns past the grid, 0), into `totals` (kGram a date): what the date's
// regression takes of them, ready before the backward pass.
template <int kNb>
__global__ void __launch_bounds__(kThreads)
    gram_totals_kernel(const double* gram, int columns, int first_date, double* totals) {
  const std::int64_t e = first_date + static_cast<std::int64_t>(blockIdx.y);
  const double* row = gram + (e * kGram<kNb> + blockIdx.x) * columns;
  double sum = 0;
  for (int i = static_cast<int>(threadIdx.x); i < kMomentSlots; i += kThreads)
    sum += i < columns ? row[i] : 0.0;
  sum = block_reduce<kThreads>(sum, Sum{});
  if (threadIdx.x == 0) totals[e * kGram<kNb> + blockIdx.x] = sum;
}

struct Policy {
  double beta[kMaxBasis];
};

template <int kNb>
__device__ inline double continuation(const Policy& policy, float b, float strike) {
  double phi[kNb];
  basis<kNb>(b, strike, phi);
  double c = 0;
#pragma unroll
  for (int k = 0; k < kNb; ++k) c += policy.beta[k] * phi[k];
  return c;
}

// A date's policy from the device: kMaxBasis coefficients, NaN first where it has none.
__device__ inline bool load_policy(const double* fitted, Policy& policy) {
  if (fitted == nullptr || isnan(fitted[0])) return false;
#pragma unroll
  for (int k = 0; k < kMaxBasis; ++k) policy.beta[k] = fitted[k];
  return true;
}

// Exercise where the payoff beats the fitted continuation value.
template <int kNb>
__device__ inline float exercised(const Policy& policy, float b, float strike, float v) {
  const float exercise = strike - b;
  return exercise > 0 && exercise >= continuation<kNb>(policy, b, strike) ? exercise : v;
}

// lsm_date_kernel's resident blocks a multiprocessor: its 1024 blocks in two waves on 132 of
// them. The register cap this sets spills only in the last block's regression, done once.
constexpr int kDateBlocksPerSm = 4;

// One launch a date e, backward from the last but one, so the backward pass never waits on the
// host and takes one launch a date:
//   1. each path exercises at date e + 1 by that date's policy (`next_policy`, fitted by the
//      launch before; none at the last date), and its cash flow is discounted to date e;
//   2. the sums phi_i v over date e's in-the-money paths, in double: each block's totals
//      (block_reduce_each) into its own column of `slots` (one launch of at most kMomentSlots
//      blocks, no atomics, so the policy and the price repeat to the bit);
//   3. the last block to finish adds each row of these in total_slots' order, and its thread 0
//      solves the normal equations, with the date's Gram totals (`gram`, gram_totals_kernel's),
//      by the gold's own code (solve_normal_equations) into `policy`: kMaxBasis coefficients, 0
//      past the basis, or NaN throughout where the date has no exercise.
// `done` counts the finished blocks; the last one sets it back to 0 for the next launch. Each
// thread loads kLoadsAhead paths before it adds any (the loads in flight together), in the order a
// grid-stride loop takes them.
template <int kNb>
__global__ void __launch_bounds__(kThreads, kDateBlocksPerSm)
    lsm_date_kernel(const float* __restrict__ basket, const float* __restrict__ next_basket,
                    std::int64_t count, float strike, float back, const double* next_policy,
                    const double* __restrict__ gram, float* __restrict__ v, double* slots,
                    unsigned* done, double* policy) {
  Policy fitted;
  const bool exercise = load_policy(next_policy, fitted);
  double local[kNb] = {};  // the sums phi_i v
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
       first < count; first += kLoadsAhead * stride) {
    float vs[kLoadsAhead], bs[kLoadsAhead], next[kLoadsAhead];
#pragma unroll
    for (int k = 0; k < kLoadsAhead; ++k) {
      const std::int64_t p = first + k * stride;
      if (p >= count) break;
      vs[k] = v[p];
      bs[k] = basket[p];
      if (exercise) next[k] = next_basket[p];
    }
#pragma unroll
    for (int k = 0; k < kLoadsAhead; ++k) {
      const std::int64_t p = first + k * stride;
      if (p >= count) break;
      float vp = vs[k];
      if (exercise) vp = exercised<kNb>(fitted, next[k], strike, vp);
      vp *= back;
      v[p] = vp;
      if (strike - bs[k] <= 0) continue;
      double phi[kNb];
      basis<kNb>(bs[k], strike, phi);
#pragma unroll
      for (int i = 0; i < kNb; ++i) local[i] += phi[i] * vp;
    }
  }
  block_reduce_each<kThreads>(local, Sum{});
  __shared__ bool last;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < kNb; ++i) slots[i * kMomentSlots + blockIdx.x] = local[i];
    __threadfence();  // the slots seen by every block before the count is
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Each row's total as slot_row_total makes it (the columns past the grid, 0). The other
  // blocks' slots are read from L2: they are not in this block's L1.
#pragma unroll
  for (int i = 0; i < kNb; ++i) {
    double sum = 0;
    for (int c = static_cast<int>(threadIdx.x); c < kMomentSlots; c += kThreads)
      sum += c < static_cast<int>(gridDim.x) ? __ldcg(slots + i * kMomentSlots + c) : 0.0;
    local[i] = sum;
  }
  block_reduce_each<kThreads>(local, Sum{});
  if (threadIdx.x != 0) return;
  *done = 0;
  double a[kNb * kNb], rhs[kNb], beta[kNb];
  int at = 0;
  for (int i = 0; i < kNb; ++i)
    for (int j = i; j < kNb; ++j) a[i * kNb + j] = a[j * kNb + i] = gram[at++];
  for (int i = 0; i < kNb; ++i) rhs[i] = local[i];
  const bool solved = solve_normal_equations<kNb>(a, rhs, gram[at], beta);
  for (int k = 0; k < kMaxBasis; ++k) policy[k] = !solved ? NAN : k < kNb ? beta[k] : 0.0;
}

// The first date's exercise, after the backward pass: nothing where it has no policy.
template <int kNb>
__global__ void __launch_bounds__(kThreads)
    exercise_kernel(const float* basket, std::int64_t count, float strike,
                    const double* __restrict__ policy, float* v) {
  Policy fitted;
  if (!load_policy(policy, fitted)) return;
  for (std::int64_t p : grid_stride(count)) v[p] = exercised<kNb>(fitted, basket[p], strike, v[p]);
}

// The policy on independent paths: each path's cash flow at its first exercise, discounted to 0.
// `policies`: kMaxBasis coefficients per date, NaN first where a date has none.
template <int kD, int kNb>
__global__ void __launch_bounds__(kThreads)
    lsm_price_kernel(const __grid_constant__ SmallModel m, std::uint64_t seed, std::int64_t count,
                     const int* date_of_step, int dates, const double* policies, float rate_dt,
                     float* values) {
  for (std::int64_t p : grid_stride(count)) {
    float x[kD], z0[kD];
    float cash = 0;
    // The walk ends at the path's first exercise.
    walk_path<kD>(m, seed, p, x, z0, [&](std::int64_t n, const float(&xs)[kD]) {
      const int e = date_of_step[n];
      if (e < 0) return true;
      float b = 0;
#pragma unroll
      for (int i = 0; i < kD; ++i) b = fmaf(m.weight[i] * m.spot[i], expf(xs[i]), b);
      const float exercise = m.strike - b;
      if (exercise <= 0) return true;
      bool go = e == dates - 1;
      if (!go && !isnan(policies[e * kMaxBasis])) {
        Policy policy;
#pragma unroll
        for (int k = 0; k < kMaxBasis; ++k) policy.beta[k] = policies[e * kMaxBasis + k];
        go = exercise >= continuation<kNb>(policy, b, m.strike);
      }
      if (!go) return true;
      cash = exercise * expf(-rate_dt * static_cast<float>(n + 1));
      return false;
    });
    values[p] = cash;
  }
}

template <class F>
void with_widths(int d, int nb, F&& f) {
  const auto by_basis = [&](auto width) {
    switch (nb) {
      case 2: return f(width, std::integral_constant<int, 2>{});
      case 3: return f(width, std::integral_constant<int, 3>{});
      case 4: return f(width, std::integral_constant<int, 4>{});
      default: return f(width, std::integral_constant<int, 5>{});
    }
  };
  if (d <= 1) by_basis(std::integral_constant<int, 1>{});
  else if (d <= 2) by_basis(std::integral_constant<int, 2>{});
  else if (d <= 4) by_basis(std::integral_constant<int, 4>{});
  else if (d <= 8) by_basis(std::integral_constant<int, 8>{});
  else by_basis(std::integral_constant<int, 16>{});
}

// lsm_date_kernel's and gram_kernel's blocks in x: one column of slots each.
int date_blocks_for(std::int64_t paths) { return std::min(blocks_for(paths), kMomentSlots); }

}  // namespace

double lsm_gram_bytes(std::int64_t paths, int dates) {
  // At most a block of kThreads paths, and at most kMomentSlots blocks, whatever the device.
  const std::int64_t blocks = std::min<std::int64_t>(ceil_div(paths, kThreads), kMomentSlots);
  return 8.0 * kGram<kMaxBasis> * static_cast<double>(std::max(dates - 1, 0)) *
         static_cast<double>(blocks + 1);  // each block's sums, and their totals
}

// The buffers a solve needs, made once: the fitting paths' basket values at every exercise date,
// the cash flows, the reductions' slots and sums, the policies; and the schedule on the device.
struct LsmSolver::State {
  SmallModel m;
  std::vector<std::int64_t> dates;
  int e_count = 0, nb = 0;
  int date_blocks = 0;  // lsm_date_kernel's and gram_kernel's blocks (in x)
  DeviceBuffer<int> date_of_step;
  DeviceBuffer<float> basket, v;
  DeviceBuffer<double> sums, slots, gram, gram_totals, policies;
  DeviceBuffer<unsigned> done;  // lsm_date_kernel's finished blocks, 0 between launches
  PinnedBuffer<double> host_sums;
  std::vector<double> host_policies;
};

LsmSolver::LsmSolver(const BasketParams& p, cudaStream_t stream) : p_(p), stream_(stream) {
  p.validate();
  if (p.assets() > kRegistersUpTo)
    throw InputError("", "model.spots",
                     "Longstaff-Schwartz on the GPU takes up to " +
                         std::to_string(kRegistersUpTo) + " assets, got " +
                         std::to_string(p.assets()));
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.m = small_model(p);
  s.dates = p.exercise_schedule();
  s.e_count = static_cast<int>(s.dates.size());
  s.nb = basis_size(p);
  std::vector<int> date_of_step(static_cast<std::size_t>(p.steps), -1);
  for (int e = 0; e < s.e_count; ++e) date_of_step[s.dates[e] - 1] = e;
  s.date_of_step = DeviceBuffer<int>(date_of_step.size());
  upload(s.date_of_step, date_of_step, stream);
  s.basket = DeviceBuffer<float>(static_cast<std::size_t>(s.e_count * p.paths));
  s.v = DeviceBuffer<float>(static_cast<std::size_t>(p.paths));
  s.sums = DeviceBuffer<double>(2);  // add_moments' sum and sum of squares
  s.slots = DeviceBuffer<double>(static_cast<std::size_t>(kMaxBasis * kMomentSlots));
  s.date_blocks = date_blocks_for(p.paths);
  s.gram = DeviceBuffer<double>(static_cast<std::size_t>(std::max(s.e_count - 1, 1)) *
                                kGram<kMaxBasis> * s.date_blocks);
  s.gram_totals = DeviceBuffer<double>(static_cast<std::size_t>(std::max(s.e_count - 1, 1)) *
                                       kGram<kMaxBasis>);
  s.policies = DeviceBuffer<double>(static_cast<std::size_t>(s.e_count * kMaxBasis));
  s.done = DeviceBuffer<unsigned>(1);
  fill_bytes(s.done, 0, stream);
  s.host_sums = PinnedBuffer<double>(s.sums.size());
  s.host_policies.assign(s.policies.size(), NAN);
  PARASOL_CUDA(cudaStreamSynchronize(stream));
}

LsmSolver::~LsmSolver() = default;

BasketResult LsmSolver::run() {
  State& s = *s_;
  const BasketParams& p = p_;
  const cudaStream_t stream = stream_;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const SmallModel& m = s.m;
  const std::vector<std::int64_t>& dates = s.dates;
  const int e_count = s.e_count;
  const int nb = s.nb;
  const std::int64_t count = p.paths;
  const double dt = p.maturity / static_cast<double>(p.steps);
  const auto strike = static_cast<float>(p.strike);
  DeviceBuffer<float>& basket = s.basket;
  DeviceBuffer<float>& v = s.v;
  DeviceBuffer<double>& sums = s.sums;
  DeviceBuffer<double>& slots = s.slots;
  DeviceBuffer<double>& gram = s.gram;
  DeviceBuffer<double>& gram_totals = s.gram_totals;
  DeviceBuffer<double>& d_policies = s.policies;
  PinnedBuffer<double>& host_sums = s.host_sums;
  std::vector<double>& policies = s.host_policies;
  BasketResult r;
  r.policy.assign(static_cast<std::size_t>(e_count), {});

  with_widths(p.assets(), nb, [&](auto width, auto basis_width) {
    constexpr int kD = decltype(width)::value;
    constexpr int kNb = decltype(basis_width)::value;
    lsm_paths_kernel<kD><<<blocks_for(count), kThreads, 0, stream>>>(
        m, device_seed(p.seed, 0), count, s.date_of_step.data(), basket.data());
    PARASOL_CHECK_LAUNCH(stream);
    lsm_start_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
        basket.data() + (e_count - 1) * count, count, strike, v.data());
    PARASOL_CHECK_LAUNCH(stream);
    PARASOL_CUDA(cudaStreamSynchronize(stream));
    r.timings.add(kSimulatePhase, seconds_since(start));

    // Every date's policy stays on the device: NaN throughout until its regression (the last
    // date has none), read by the exercise and the pricing kernels.
    std::fill(policies.begin(), policies.end(), NAN);
    upload(d_policies, policies, stream);
    const auto regress_start = Clock::now();
    const int date_blocks = s.date_blocks;
    for (int first = 0; first < e_count - 1; first += kMaxGridY) {
      const int dates_now = std::min(e_count - 1 - first, kMaxGridY);
      gram_kernel<kNb><<<dim3(date_blocks, dates_now), kThreads, 0, stream>>>(
          basket.data(), count, strike, first, gram.data());
      PARASOL_CHECK_LAUNCH(stream);
      gram_totals_kernel<kNb><<<dim3(kGram<kNb>, dates_now), kThreads, 0, stream>>>(
          gram.data(), date_blocks, first, gram_totals.data());
      PARASOL_CHECK_LAUNCH(stream);
    }
    for (int e = e_count - 2; e >= 0; --e) {
      const auto back = static_cast<float>(
          std::exp(-p.rate * dt * static_cast<double>(dates[e + 1] - dates[e])));
      const double* next_policy =
          e + 1 < e_count - 1 ? d_policies.data() + (e + 1) * kMaxBasis : nullptr;
      lsm_date_kernel<kNb><<<date_blocks, kThreads, 0, stream>>>(
          basket.data() + e * count, basket.data() + (e + 1) * count, count, strike, back,
          next_policy, gram_totals.data() + static_cast<std::int64_t>(e) * kGram<kNb>,
          v.data(), slots.data(), s.done.data(), d_policies.data() + e * kMaxBasis);
      PARASOL_CHECK_LAUNCH(stream);
    }
    if (e_count > 1) {
      exercise_kernel<kNb><<<blocks_for(count), kThreads, 0, stream>>>(
          basket.data(), count, strike, d_policies.data(), v.data());
      PARASOL_CHECK_LAUNCH(stream);
    }
    // In-sample: the cash flows, discounted from the first date to 0.
    add_moments(v.data(), 1, count, slots.data(), true, stream);
    total_slots(slots.data(), 2, sums.data(), stream);
    download(sums, host_sums.data(), 2, stream);
    download(d_policies, policies.data(), policies.size(), stream);
    for (int e = 0; e < e_count; ++e)
      if (!std::isnan(policies[e * kMaxBasis]))
        r.policy[e].assign(policies.begin() + e * kMaxBasis, policies.begin() + e * kMaxBasis + nb);
    const double to_now = std::exp(-p.rate * dt * static_cast<double>(dates[0]));
    r.in_sample = Moments{static_cast<double>(count), host_sums[0] * to_now,
                          host_sums[1] * to_now * to_now}
                      .estimate();
    r.timings.add(kRegressPhase, seconds_since(regress_start));

    const auto price_start = Clock::now();
    lsm_price_kernel<kD, kNb><<<blocks_for(count), kThreads, 0, stream>>>(
        m, device_seed(p.seed, 1), count, s.date_of_step.data(), e_count, d_policies.data(),
        static_cast<float>(p.rate * dt), v.data());
    PARASOL_CHECK_LAUNCH(stream);
    add_moments(v.data(), 1, count, slots.data(), true, stream);
    total_slots(slots.data(), 2, sums.data(), stream);
    download(sums, host_sums.data(), 2, stream);
    r.price = Moments{static_cast<double>(count), host_sums[0], host_sums[1]}.estimate();
    r.timings.add(kPricePhase, seconds_since(price_start));
  });
  r.seconds = seconds_since(start);
  return r;
}

BasketResult solve_lsm_gpu(const BasketParams& p, cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  LsmSolver solver(p, stream);
  const double setup = seconds_since(start);
  BasketResult r = solver.run();
  r.timings.add(kSimulatePhase, setup);  // the buffers' making, with the paths they hold
  r.seconds += setup;
  return r;
}

}  // namespace parasol::montecarlo
