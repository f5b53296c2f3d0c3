// log, sin and cos in double precision that give the same bits on the host and on the device, so
// that an input drawn on either is the same input (kernels/seeded_draws.hpp). The C library's
// functions and CUDA's round differently from each other and from one version to the next; these
// are written with +, -, *, / and sqrt alone, each correctly rounded in IEEE 754 on both sides,
// and with no multiply-add fused: on the device every operation is a round-to-nearest intrinsic
// (__dadd_rn, __dmul_rn, ... are never contracted into an fma), and on the host the operators
// as written. A host build must not contract either: GCC does not on x86-64 without FMA in the
// target; where the target has it (-march=native), a file that includes this one must be
// compiled with -ffp-contract=off and PARASOL_FP_CONTRACT_OFF defined, or it does not compile
// (parasol_exact_arithmetic in kernels/CMakeLists.txt sets both on the files that draw).
//
// The algorithms are fdlibm's (Sun Microsystems, 1993; FreeBSD's msun today), with their
// polynomial coefficients: log by reduction to 2^k (1 + f), sqrt(2)/2 <= 1 + f < sqrt(2), and a
// polynomial in s = f / (2 + f); sin and cos by Cody-Waite reduction by pi/2 in three parts (pi/2
// to 151 bits: no cancellation near a multiple of pi/2 loses the result) and the branch-free
// kernels of FreeBSD's k_sin.c and k_cos.c. Each keeps fdlibm's error below 1 ulp; against glibc
// they differ by at most 1 ulp (tests/portable_math_test.cpp checks that over the ranges below).
// Every branch of fdlibm that only saves time is left out, so that a loop over many values can
// run in vector registers: no call into a library, and selects rather than branches.
//
// Ranges: log for 0 < x < 2^969 (x 2^54 finite; the draws take it on (0, 1]); sin and cos for
// 0 <= x < 2^19 (the draws take them on [0, 2 pi)): the reduction's quadrant is an int and its
// first part of pi/2 has 33 bits, so n pi/2 is exact for n < 2^20.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/host_device.hpp"

// On the one function a loop of draws calls (a pair of samples or steps): inlined into the loop
// whatever its size, so that the loop can run in vector registers (GCC will not vectorise a
// loop around a call).
#define PARASOL_INLINE_DRAW __attribute__((always_inline))

#if defined(__FMA__) && !defined(__CUDA_ARCH__) && !defined(PARASOL_FP_CONTRACT_OFF)
#error "kernels/portable_math.hpp: the target has FMA; compile with -ffp-contract=off and define PARASOL_FP_CONTRACT_OFF (kernels/CMakeLists.txt, parasol_exact_arithmetic)"
#endif

namespace parasol::portable {

// A double whose +, -, * and / round to nearest and are never fused, on either side: the
// polynomials below read as written and mean the same on both.
struct Rn {
  double v;
  PARASOL_HOST_DEVICE constexpr Rn(double x) : v(x) {}  // NOLINT: implicit, for the constants
};

PARASOL_HOST_DEVICE inline Rn operator+(Rn a, Rn b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a.v, b.v);
#else
  return a.v + b.v;
#endif
}
PARASOL_HOST_DEVICE inline Rn operator-(Rn a, Rn b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a.v, b.v);
#else
  return a.v - b.v;
#endif
}
PARASOL_HOST_DEVICE inline Rn operator*(Rn a, Rn b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a.v, b.v);
#else
  return a.v * b.v;
#endif
}
PARASOL_HOST_DEVICE inline Rn operator/(Rn a, Rn b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a.v, b.v);
#else
  return a.v / b.v;
#endif
}
PARASOL_HOST_DEVICE inline Rn operator-(Rn a) { return -a.v; }  // exact

// sqrt rounded to nearest (IEEE 754 requires it of both; __dsqrt_rn whatever -prec-sqrt says).
PARASOL_HOST_DEVICE inline double sqrt_rn(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return __builtin_sqrt(x);
#endif
}

PARASOL_HOST_DEVICE inline std::int64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
PARASOL_HOST_DEVICE inline double double_of(std::int64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(b);
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// The largest integer not above x, for |x| < 2^62: exact, and without the C library (whose floor
// is a call on x86-64 without SSE 4.1).
PARASOL_HOST_DEVICE inline double floor_of(double x) {
  const double t = static_cast<double>(static_cast<std::int64_t>(x));  // towards 0: exact
  return t > x ? t - 1.0 : t;
}

// Natural logarithm, fdlibm's e_log.c with its last choice of two equivalent forms fixed on the
// one it calls the more accurate.
PARASOL_HOST_DEVICE inline double log(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000: k ln2_hi exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  // x is scaled by 2^54 (exactly) first, so that a subnormal x is normal; every x alike, so no
  // select (which x86-64's SSE2 vector unit cannot do on these lanes), and the exponent takes
  // the 54 back. The bits are unsigned (x > 0): SSE2 has no 64-bit arithmetic shift.
  const auto bits = static_cast<std::uint64_t>(bits_of(x * 0x1p54));
  const std::uint64_t mantissa = bits & 0x000fffffffffffffu;
  // i is 2^52 where the mantissa is at least sqrt(2)'s (its top 20 bits at least 0x6a09c): that
  // x is halved and its exponent raised.
  const std::uint64_t i = (mantissa + (std::uint64_t{0x95f64} << 32)) & (std::uint64_t{1} << 52);
  const std::int32_t k = static_cast<std::int32_t>(bits >> 52) - 1023 - 54 +
                         static_cast<std::int32_t>(i >> 52);
  const auto reduced = static_cast<std::int64_t>(mantissa | (i ^ (std::uint64_t{0x3ff} << 52)));
  const Rn f = Rn(double_of(reduced)) - 1.0;  // exact (Sterbenz)
  const Rn s = f / (2.0 + f);
  const Rn dk = static_cast<double>(k);
  const Rn z = s * s;
  const Rn w = z * z;
  const Rn t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const Rn t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const Rn r = t2 + t1;
  const Rn hfsq = 0.5 * f * f;
  return (dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f)).v;
}

namespace detail {

// sin(x + y) for |x + y| <= pi/4, y the tail of x (FreeBSD's k_sin.c with iy = 1).
PARASOL_HOST_DEVICE inline Rn kernel_sin(Rn x, Rn y) {
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  const Rn z = x * x;
  const Rn w = z * z;
  const Rn r = kS2 + z * (kS3 + z * kS4) + z * w * (kS5 + z * kS6);
  const Rn v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * kS1);
}

// cos(x + y) for |x + y| <= pi/4 (FreeBSD's k_cos.c).
PARASOL_HOST_DEVICE inline Rn kernel_cos(Rn x, Rn y) {
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  const Rn z = x * x;
  Rn w = z * z;
  const Rn r = z * (kC1 + z * (kC2 + z * kC3)) + w * w * (kC4 + z * (kC5 + z * kC6));
  const Rn hz = 0.5 * z;
  w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));
}

// x - n pi/2 as head + tail, n the nearest integer to x / (pi/2) (fdlibm's e_rem_pio2.c, its
// three rounds always taken: pi/2 = p1 + p2 + p3 + p3t, p1 to p3 of 33 bits each, so every
// n p is exact and each round's error is carried into the next).
struct Reduced {
  Rn head, tail;
  int quadrant;
};
PARASOL_HOST_DEVICE inline Reduced reduce_half_pi(double x) {
  constexpr double kInvPio2 = 6.36619772367581382433e-01;
  constexpr double kPio2_1 = 1.57079632673412561417e+00;
  constexpr double kPio2_2 = 6.07710050630396597660e-11, kPio2_2t = 2.02226624879595063154e-21;
  constexpr double kPio2_3 = 2.02226624871116645580e-21, kPio2_3t = 8.47842766036889956997e-32;
  const int n = static_cast<int>((Rn(x) * kInvPio2 + 0.5).v);  // x >= 0: truncation rounds
  const Rn fn = static_cast<double>(n);
  // fdlibm's first round subtracts n times the rest of pi/2 after kPio2_1 as one double; that
  // rest is kPio2_2 + kPio2_2t, so the second round, taken always, does it more exactly.
  Rn r = Rn(x) - fn * kPio2_1;  // exact
  Rn t = r;
  Rn w = fn * kPio2_2;
  r = t - w;
  w = fn * kPio2_2t - ((t - r) - w);
  t = r;
  w = fn * kPio2_3;
  r = t - w;
  w = fn * kPio2_3t - ((t - r) - w);
  const Rn head = r - w;
  return {head, (r - head) - w, n};
}

}  // namespace detail

struct SinCos {
  double sin, cos;
};

// sin x and cos x from one reduction.
PARASOL_HOST_DEVICE inline SinCos sincos(double x) {
  const detail::Reduced a = detail::reduce_half_pi(x);
  const double s = detail::kernel_sin(a.head, a.tail).v;
  const double c = detail::kernel_cos(a.head, a.tail).v;
  // sin(r + n pi/2) for n mod 4 = 0..3 is sin r, cos r, -sin r, -cos r; cos one quadrant on.
  const int q = a.quadrant & 3;
  const double sin_x = (q & 1) ? c : s;
  const double cos_x = (q & 1) ? s : c;
  return {(q & 2) ? -sin_x : sin_x, ((q + 1) & 2) ? -cos_x : cos_x};
}

PARASOL_HOST_DEVICE inline double sin(double x) { return sincos(x).sin; }
PARASOL_HOST_DEVICE inline double cos(double x) { return sincos(x).cos; }

}  // namespace parasol::portable
