// Longstaff-Schwartz on the GPU for a put on the basket value B = sum w_i S_i:
//   simulate: one thread a path (the register path code, basket_paths.cuh) keeps B at every
//     exercise date, [date][path];
//   regress: backward over the dates, one kernel discounts each path's cash flow and sums the
//     normal equations' products over the in-the-money paths in double (a block reduction into
//     the block's own slot, the slots then added in a fixed order: the same bits every run); one
//     thread solves them in double with the gold's own code (regression.hpp), and a third kernel
//     exercises where the payoff beats the fitted continuation value. The host waits once, after
//     the last date, for the policies and the in-sample sums;
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

// Sums, over in-the-money paths: phi_i phi_j (i <= j, packed), phi_i v, and the count.
template <int kNb>
constexpr int kSums = kNb * (kNb + 1) / 2 + kNb + 1;

template <int kNb>
__global__ void __launch_bounds__(kThreads)
    normal_equations_kernel(const float* basket, std::int64_t count, float strike, float back,
                            float* v, double* slots) {
  double local[kSums<kNb>] = {};
  for (std::int64_t p : grid_stride(count)) {
    const float vp = v[p] * back;
    v[p] = vp;
    const float b = basket[p];
    if (strike - b <= 0) continue;
    double phi[kNb];
    basis<kNb>(b, strike, phi);
    int at = 0;
#pragma unroll
    for (int i = 0; i < kNb; ++i)
#pragma unroll
      for (int j = i; j < kNb; ++j) local[at++] += phi[i] * phi[j];
#pragma unroll
    for (int i = 0; i < kNb; ++i) local[at++] += phi[i] * vp;
    local[at] += 1;
  }
#pragma unroll
  for (int q = 0; q < kSums<kNb>; ++q) {
    const double total = block_reduce<kThreads>(local[q], Sum{});
    // This block's own slot (one launch of at most kMomentSlots blocks): no atomics, so the
    // regression and the price repeat to the bit (/method@reproducible).
    if (threadIdx.x == 0) slots[q * kMomentSlots + blockIdx.x] = total;
    __syncthreads();  // block_reduce's shared slots are reused
  }
  zero_slots_past_grid(slots, 0, kSums<kNb>);
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

// The date's regression, on the device so that the backward pass never waits on the host: the
// normal equations' sums from normal_equations_kernel's slots (each row's total in total_slots'
// order), solved by one thread with the gold's own code (solve_normal_equations), into `policy`:
// kMaxBasis coefficients, 0 past the basis, or NaN throughout where the date has no exercise.
template <int kNb>
__global__ void __launch_bounds__(kThreads) regression_kernel(const double* slots, double* policy) {
  __shared__ double sums[kSums<kNb>];
  for (int q = 0; q < kSums<kNb>; ++q) {
    const double total = slot_row_total<kThreads>(slots + q * kMomentSlots);
    if (threadIdx.x == 0) sums[q] = total;
    __syncthreads();  // block_reduce's shared slots are reused
  }
  if (threadIdx.x != 0) return;
  double a[kNb * kNb], rhs[kNb], beta[kNb];
  int at = 0;
  for (int i = 0; i < kNb; ++i)
    for (int j = i; j < kNb; ++j) a[i * kNb + j] = a[j * kNb + i] = sums[at++];
  for (int i = 0; i < kNb; ++i) rhs[i] = sums[at++];
  const bool fitted = solve_normal_equations(kNb, a, rhs, sums[at], beta);
  for (int k = 0; k < kMaxBasis; ++k) policy[k] = !fitted ? NAN : k < kNb ? beta[k] : 0.0;
}

// Exercise where the payoff beats the fitted continuation value; nothing where the date has no
// policy (NaN).
template <int kNb>
__global__ void __launch_bounds__(kThreads)
    exercise_kernel(const float* basket, std::int64_t count, float strike,
                    const double* __restrict__ fitted, float* v) {
  if (isnan(fitted[0])) return;
  Policy policy;
#pragma unroll
  for (int k = 0; k < kMaxBasis; ++k) policy.beta[k] = fitted[k];
  for (std::int64_t p : grid_stride(count)) {
    const float exercise = strike - basket[p];
    if (exercise > 0 && exercise >= continuation<kNb>(policy, basket[p], strike)) v[p] = exercise;
  }
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
    bool done = false;
    walk_path<kD>(m, seed, p, x, z0, [&](std::int64_t n, const float(&xs)[kD]) {
      const int e = date_of_step[n];
      if (done || e < 0) return;
      float b = 0;
#pragma unroll
      for (int i = 0; i < kD; ++i) b = fmaf(m.weight[i] * m.spot[i], expf(xs[i]), b);
      const float exercise = m.strike - b;
      if (exercise <= 0) return;
      bool go = e == dates - 1;
      if (!go && !isnan(policies[e * kMaxBasis])) {
        Policy policy;
#pragma unroll
        for (int k = 0; k < kMaxBasis; ++k) policy.beta[k] = policies[e * kMaxBasis + k];
        go = exercise >= continuation<kNb>(policy, b, m.strike);
      }
      if (go) {
        cash = exercise * expf(-rate_dt * static_cast<float>(n + 1));
        done = true;
      }
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

}  // namespace

// The buffers a solve needs, made once: the fitting paths' basket values at every exercise date,
// the cash flows, the reductions' slots and sums, the policies; and the schedule on the device.
struct LsmSolver::State {
  SmallModel m;
  std::vector<std::int64_t> dates;
  int e_count = 0, nb = 0;
  DeviceBuffer<int> date_of_step;
  DeviceBuffer<float> basket, v;
  DeviceBuffer<double> sums, slots, policies;
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
  s.slots = DeviceBuffer<double>(static_cast<std::size_t>(kSums<kMaxBasis> * kMomentSlots));
  s.policies = DeviceBuffer<double>(static_cast<std::size_t>(s.e_count * kMaxBasis));
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
    for (int e = e_count - 2; e >= 0; --e) {
      const auto back = static_cast<float>(
          std::exp(-p.rate * dt * static_cast<double>(dates[e + 1] - dates[e])));
      const float* b = basket.data() + e * count;
      double* policy = d_policies.data() + e * kMaxBasis;
      normal_equations_kernel<kNb>
          <<<std::min(blocks_for(count), kMomentSlots), kThreads, 0, stream>>>(
              b, count, strike, back, v.data(), slots.data());
      PARASOL_CHECK_LAUNCH(stream);
      regression_kernel<kNb><<<1, kThreads, 0, stream>>>(slots.data(), policy);
      PARASOL_CHECK_LAUNCH(stream);
      exercise_kernel<kNb><<<blocks_for(count), kThreads, 0, stream>>>(b, count, strike, policy,
                                                                       v.data());
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
