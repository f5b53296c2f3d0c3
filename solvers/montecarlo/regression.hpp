// Longstaff-Schwartz's regression at one exercise date, one definition for the gold (host) and the
// GPU (one thread of lsm.cu's regression kernel): the normal equations A beta = b solved in double
// by Gaussian elimination with partial pivoting. Every product is rounded on its own and never
// fused into an FMA (nvcc fuses a * b + c by default, the host's baseline x86-64 cannot), so the
// device's coefficients are the host's to the bit.
#pragma once

#include <cmath>

#include "kernels/host_device.hpp"

namespace parasol::montecarlo {

// The most basis functions a regression takes: (B/K)^k, k = 0..4.
inline constexpr int kMaxBasis = 5;

// a * b, rounded to nearest, as its own operation.
PARASOL_HOST_DEVICE inline double unfused_product(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// beta[0..n) from the n x n Gram matrix `a` (row-major, sums over `count` in-the-money paths;
// overwritten) and `b` (overwritten), n <= kMaxBasis. False, with beta untouched, when there are
// too few paths to fit (count < 2n) or A is singular to working precision: no exercise at that
// date. Every index is known once the loops of n are unrolled, so the device keeps A in registers.
template <int n>
PARASOL_HOST_DEVICE inline bool solve_normal_equations(double* a, double* b, double count,
                                                       double* beta) {
  if (count < 2.0 * n) return false;
  // A is a Gram matrix of monomials in B/K (in (0, 1] for an in-the-money put), well enough
  // conditioned at degree 4 or less.
  const double scale = a[0];  // the constant basis function's own sum: the path count
  PARASOL_UNROLL
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    double largest = std::fabs(a[c * n + c]);
    PARASOL_UNROLL
    for (int i = c + 1; i < n; ++i)
      if (std::fabs(a[i * n + c]) > largest) {
        pivot = i;
        largest = std::fabs(a[i * n + c]);
      }
    // Relative to that sum: below this the columns are dependent to working precision.
    if (largest <= unfused_product(1e-13, scale)) return false;
    PARASOL_UNROLL
    for (int i = c + 1; i < n; ++i) {
      if (i != pivot) continue;
      PARASOL_UNROLL
      for (int j = 0; j < n; ++j) {
        const double t = a[c * n + j];
        a[c * n + j] = a[i * n + j];
        a[i * n + j] = t;
      }
      const double t = b[c];
      b[c] = b[i];
      b[i] = t;
    }
    PARASOL_UNROLL
    for (int i = c + 1; i < n; ++i) {
      const double f = a[i * n + c] / a[c * n + c];
      PARASOL_UNROLL
      for (int j = c; j < n; ++j) a[i * n + j] -= unfused_product(f, a[c * n + j]);
      b[i] -= unfused_product(f, b[c]);
    }
  }
  PARASOL_UNROLL
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    PARASOL_UNROLL
    for (int j = i + 1; j < n; ++j) s -= unfused_product(a[i * n + j], beta[j]);
    beta[i] = s / a[i * n + i];
  }
  return true;
}

// The same for an n known at run time, 1 <= n <= kMaxBasis.
PARASOL_HOST_DEVICE inline bool solve_normal_equations(int n, double* a, double* b, double count,
                                                       double* beta) {
  switch (n) {
    case 1: return solve_normal_equations<1>(a, b, count, beta);
    case 2: return solve_normal_equations<2>(a, b, count, beta);
    case 3: return solve_normal_equations<3>(a, b, count, beta);
    case 4: return solve_normal_equations<4>(a, b, count, beta);
    default: return solve_normal_equations<kMaxBasis>(a, b, count, beta);
  }
}

}  // namespace parasol::montecarlo
