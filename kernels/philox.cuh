// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the
// counter-based generator cuRAND also provides, written out so a kernel keeps only a counter and
// a key in registers. Stream layout matches cuRAND's: curand_init(seed, subsequence, 0) then
// repeated curand4() gives philox({n, 0, subsequence_lo, subsequence_hi}, {seed_lo, seed_hi})
// for n = 0, 1, 2, ... (checked against cuRAND in tests/kernels_test.cu).
#pragma once

#include <cstdint>

#include "kernels/fast_math.cuh"

namespace parasol {

struct PhiloxCounter {
  std::uint32_t x, y, z, w;
};
struct PhiloxKey {
  std::uint32_t x, y;
};

__host__ __device__ inline void philox_mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi,
                                               std::uint32_t& lo) {
#ifdef __CUDA_ARCH__
  hi = __umulhi(a, b);
  lo = a * b;
#else
  const std::uint64_t product = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(product >> 32);
  lo = static_cast<std::uint32_t>(product);
#endif
}

__host__ __device__ inline PhiloxCounter philox4x32_10(PhiloxCounter c, PhiloxKey k) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // key increments (Weyl)
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    philox_mulhilo(kM0, c.x, hi0, lo0);
    philox_mulhilo(kM1, c.z, hi1, lo1);
    c = {hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0};
    k.x += kW0;
    k.y += kW1;
  }
  return c;
}

// Two standard normals from two uniform 32-bit words by Box-Muller, as cuRAND maps them
// (u in (0, 1], angle in (0, 2 pi)), with the hardware's fast logarithm, reciprocal square
// root and sine/cosine: about 2^-21 absolute error in the logarithm, far below what a Monte
// Carlo estimate can resolve, for a third of the instructions of the correctly rounded ones.
__device__ inline float2 box_muller_fast(std::uint32_t a, std::uint32_t b) {
  constexpr float kTwoPow32Inv = 2.3283064e-10f;            // 2^-32
  constexpr float kTwoPow32InvTwoPi = 2.3283064e-10f * 6.2831855f;
  const float u = static_cast<float>(a) * kTwoPow32Inv + kTwoPow32Inv / 2;
  const float angle = static_cast<float>(b) * kTwoPow32InvTwoPi + kTwoPow32InvTwoPi / 2;
  // -2 ln u as __logf gives it: log2 u times ln 2, times -2 (exact, so folded into one product).
  // u >= 2^-33 and the floor below are normal, so the flushing variants give the same bits.
  const float t = lg2_ftz(u) * (-2.0f * 0.69314718f);
  // t * rsqrt(t) is sqrt(t); the floor keeps u == 1 (t == 0) at radius 0 rather than 0 * inf.
  const float radius = t * rsqrt_ftz(fmaxf(t, 1e-30f));
  float s, c;
  __sincosf(angle, &s, &c);
  return make_float2(s * radius, c * radius);
}

// Four standard normals from one Philox draw.
__device__ inline float4 philox_normal4(PhiloxCounter c, PhiloxKey k) {
  const PhiloxCounter r = philox4x32_10(c, k);
  const float2 a = box_muller_fast(r.x, r.y), b = box_muller_fast(r.z, r.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

}  // namespace parasol
