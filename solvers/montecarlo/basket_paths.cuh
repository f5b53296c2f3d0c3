// The basket model on the device, shared by the European kernels (basket.cu) and
// Longstaff-Schwartz (lsm.cu): the model's constants, where each normal comes from, a path's
// steps with the Cholesky factor in registers, and the payoffs with their Greeks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/philox.cuh"
#include "kernels/reduce.cuh"
#include "solvers/montecarlo/basket.hpp"

namespace parasol::montecarlo {

// Normals per path-step in the Philox stream: d for one or two assets (one draw of four normals
// covers several steps), d rounded up to a multiple of four above (whole draws per step). Normal
// (s, n, i) is component k % 4 of draw k / 4 of sample s's stream, k = n * padded + i: the same
// for the register kernel and the cuBLAS path, so both variants simulate the same paths.
inline int padded_assets(int d) { return d <= 2 ? d : (d + 3) / 4 * 4; }

__device__ inline float4 basket_draw(std::uint64_t seed, std::int64_t s, std::int64_t draw) {
  const auto j = static_cast<std::uint64_t>(draw), sample = static_cast<std::uint64_t>(s);
  return philox_normal4({static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(j >> 32),
                         static_cast<std::uint32_t>(sample), static_cast<std::uint32_t>(sample >> 32)},
                        {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

__device__ inline float component(float4 v, int c) {
  return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

// The seed each path set draws from: set 1 is Longstaff-Schwartz's independent pricing paths.
inline std::uint64_t device_seed(std::uint64_t seed, int path_set) {
  return path_set == 0 ? seed : seed ^ 0xA0761D6478BD642Full;
}

// Everything a step and a payoff read, for up to kRegistersUpTo assets: passed by value, so
// every thread reads it through the constant cache (each entry is the same for the whole warp).
struct SmallModel {
  int d, padded;
  std::int64_t steps;
  float l[kRegistersUpTo * kRegistersUpTo];      // Cholesky factor, row-major, zero above
  float l_inv_t[kRegistersUpTo * kRegistersUpTo];  // L^-T, for the likelihood-ratio score
  float drift[kRegistersUpTo];   // (r - q_i - sigma_i^2/2) dt
  float vol[kRegistersUpTo];     // sigma_i sqrt(dt)
  float sigma[kRegistersUpTo];
  float spot[kRegistersUpTo];
  float weight[kRegistersUpTo];
  float log_spot[kRegistersUpTo];
  float strike, discount, maturity;
  BasketPayoff payoff;
};

// The host's double factor and constants, rounded to float, padded with zeros past d.
SmallModel small_model(const BasketParams& p);

// The normals of one step (kD >= 4: whole draws) into z[0, kD).
template <int kD>
__device__ inline void step_normals(const SmallModel& m, std::uint64_t seed, std::int64_t s,
                                    std::int64_t n, float (&z)[kD]) {
  static_assert(kD % 4 == 0, "whole draws per step");
  // Past d the factor's columns are zero, but 0 times an unset register may be NaN.
#pragma unroll
  for (int i = 0; i < kD; ++i) z[i] = 0;
#pragma unroll
  for (int c = 0; c < kD / 4; ++c) {
    if (4 * c >= m.d) break;
    const float4 v = basket_draw(seed, s, n * (m.padded / 4) + c);
    z[4 * c] = v.x;
    z[4 * c + 1] = v.y;
    z[4 * c + 2] = v.z;
    z[4 * c + 3] = v.w;
  }
}

// x_i += drift_i + vol_i (L z)_i for i < kD; L's zero padding leaves x_i at 0 for i >= d.
template <int kD>
__device__ inline void advance(const SmallModel& m, const float (&z)[kD], float (&x)[kD]) {
#pragma unroll
  for (int i = 0; i < kD; ++i) {
    float y = 0;
#pragma unroll
    for (int k = 0; k <= i; ++k) y = fmaf(m.l[i * kRegistersUpTo + k], z[k], y);
    x[i] += fmaf(m.vol[i], y, m.drift[i]);
  }
}

// visit(n, x), and whether the walk goes on: a visit that returns a bool ends it with false.
template <class Visit, class X>
__device__ inline bool visited(Visit& visit, std::int64_t n, const X& x) {
  if constexpr (std::is_same_v<decltype(visit(n, x)), bool>) {
    return visit(n, x);
  } else {
    visit(n, x);
    return true;
  }
}

// Visits every step of sample s: advances x and calls visit(n, x) after step n (0-based), with
// z0 the first step's independent normals; a visit that returns a bool stops the walk with false
// (a path exercised: a warp whose paths are all done draws no more). For one or two assets a draw
// of four normals covers 4 / d steps.
template <int kD, class Visit>
__device__ inline void walk_path(const SmallModel& m, std::uint64_t seed, std::int64_t s,
                                 float (&x)[kD], float (&z0)[kD], Visit&& visit) {
#pragma unroll
  for (int i = 0; i < kD; ++i) x[i] = 0, z0[i] = 0;
  if constexpr (kD <= 2) {
    constexpr int kPerDraw = 4 / kD;
    for (std::int64_t n = 0; n < m.steps; n += kPerDraw) {
      const float4 v = basket_draw(seed, s, n / kPerDraw);
#pragma unroll
      for (int g = 0; g < kPerDraw; ++g) {
        if (n + g >= m.steps) break;
        float z[kD];
#pragma unroll
        for (int i = 0; i < kD; ++i) z[i] = component(v, g * kD + i);
        if (n == 0 && g == 0) {
#pragma unroll
          for (int i = 0; i < kD; ++i) z0[i] = z[i];
        }
        advance<kD>(m, z, x);
        if (!visited(visit, n + g, x)) return;
      }
    }
  } else {
    for (std::int64_t n = 0; n < m.steps; ++n) {
      float z[kD];
      step_normals<kD>(m, seed, s, n, z);
      if (n == 0) {
#pragma unroll
        for (int i = 0; i < kD; ++i) z0[i] = z[i];
      }
      advance<kD>(m, z, x);
      if (!visited(visit, n, x)) return;
    }
  }
}

// A European payoff and its Greeks from the log-returns x_i = log(S_i(T)/S_i(0)), read through
// `x(i)` and, for the digital's likelihood ratio, the score (C^-1 L z0)_i = (L^-T z0)_i through
// `score(i)`. Writes values[q * stride]: q = 0 the discounted payoff, 1 its vega, 2 + i the delta
// of asset i (only q = 0 without greeks). Generic over where x lives (registers or memory) and
// over the asset-indexed constants (`at`): the register kernel passes the SmallModel, the cuBLAS
// path device arrays.
struct AssetConstants {
  const float* log_spot;
  const float* spot;
  const float* weight;
  const float* sigma;
  const float* drift;  // per step
};

template <class X, class Score>
__device__ inline void european_outputs(BasketPayoff payoff, int d, std::int64_t steps,
                                        float strike, float discount, float maturity,
                                        const AssetConstants& a, X x, Score score, bool greeks,
                                        float* values, std::int64_t stride) {
  float f = 0;
  // The payoff's derivative in each S_i(T) is g_i = scale * weight_i for the basket payoffs
  // (times G / S_i(T) for the geometric), or 1 for the one asset best-of/worst-of picks.
  float scale = 0;
  int pick = -1;
  switch (payoff) {
    case BasketPayoff::geometric_basket: {
      float log_g = 0;
      for (int i = 0; i < d; ++i) log_g = fmaf(a.weight[i], a.log_spot[i] + x(i), log_g);
      const float geo = expf(log_g);
      if (geo > strike) f = geo - strike, scale = geo;
      break;
    }
    case BasketPayoff::arithmetic_basket_call:
    case BasketPayoff::arithmetic_basket_put:
    case BasketPayoff::digital_basket_call: {
      float b = 0;
      for (int i = 0; i < d; ++i) b = fmaf(a.weight[i] * a.spot[i], expf(x(i)), b);
      if (payoff == BasketPayoff::arithmetic_basket_call && b > strike) f = b - strike, scale = 1;
      if (payoff == BasketPayoff::arithmetic_basket_put && b < strike) f = strike - b, scale = -1;
      if (payoff == BasketPayoff::digital_basket_call && b > strike) f = 1;
      break;
    }
    case BasketPayoff::best_of_call:
    case BasketPayoff::worst_of_call: {
      const bool best = payoff == BasketPayoff::best_of_call;
      float s = 0;
      for (int i = 0; i < d; ++i) {
        const float si = a.spot[i] * expf(x(i));
        if (i == 0 || (best ? si > s : si < s)) s = si, pick = i;
      }
      if (s > strike) f = s - strike;
      else pick = -1;
      break;
    }
    case BasketPayoff::american_put:
    case BasketPayoff::bermudan_put: break;
  }
  values[0] = discount * f;
  if (!greeks) return;
  const bool digital = payoff == BasketPayoff::digital_basket_call;
  float vega = 0;
  for (int i = 0; i < d; ++i) {
    const float st = a.spot[i] * expf(x(i));
    float g = 0;  // d payoff / d S_i(T)
    if (payoff == BasketPayoff::geometric_basket) g = scale * a.weight[i] / st;
    else if (pick >= 0) g = i == pick ? 1.0f : 0.0f;
    else g = scale * a.weight[i];
    float delta;
    if (digital) {
      delta = discount * f * score(i) / (a.sigma[i] * sqrtf(maturity / static_cast<float>(steps)) * a.spot[i]);
    } else {
      delta = discount * g * st / a.spot[i];
      const float w = (x(i) - a.drift[i] * static_cast<float>(steps)) / a.sigma[i];
      vega = fmaf(g * st, w - a.sigma[i] * maturity, vega);
    }
    values[(2 + i) * stride] = delta;
  }
  values[stride] = digital ? 0.0f : discount * vega;
}

// The quantities a European path writes: the payoff, and with greeks its vega and d deltas.
inline int european_quantities(const BasketParams& p) { return p.greeks ? 2 + p.assets() : 1; }

// Per-block slots of add_moments: a reduction's partial sums land in slots of their own and are
// added in a fixed order, so a price repeats to the bit (/method@reproducible).
inline constexpr int kMomentSlots = 1024;

// Sums and sums of squares, in double, of `quantities` rows of `count` floats (row q at
// values + q * count), into `slots`: rows 2q and 2q + 1 of kMomentSlots doubles each. The `first`
// call writes every slot (those no block of it fills, 0), so none need zeroing before it; the
// calls after it add into them. total_slots gives the sums.
void add_moments(const float* values, int quantities, std::int64_t count, double* slots,
                 bool first, cudaStream_t stream);

// The sum of one row of kMomentSlots slots by the `kThreads` threads of a block, in a fixed order
// (each thread's stride, then block_reduce's tree): total_slots' order, for any kernel that
// needs a row's total without a launch of its own. The total is thread 0's.
template <int kThreads>
__device__ inline double slot_row_total(const double* row) {
  double sum = 0;
  for (int i = static_cast<int>(threadIdx.x); i < kMomentSlots; i += kThreads) sum += row[i];
  return block_reduce<kThreads>(sum, Sum{});
}

// In a launch whose block b writes column b of `rows` rows of kMomentSlots slots (from row
// `first_row`), the columns past the grid set to 0 by the blocks together, so that total_slots
// may add every column without a cudaMemsetAsync before the launch. Device code.
__device__ inline void zero_slots_past_grid(double* slots, int first_row, int rows) {
  for (unsigned c = gridDim.x + blockIdx.x + threadIdx.x * gridDim.x; c < kMomentSlots;
       c += blockDim.x * gridDim.x)
    for (int r = first_row; r < first_row + rows; ++r) slots[r * kMomentSlots + c] = 0;
}
// totals[r] = the sum of row r of `slots` (kMomentSlots doubles a row), in a fixed order.
void total_slots(const double* slots, int rows, double* totals, cudaStream_t stream);

}  // namespace parasol::montecarlo
