// The Thomas algorithm's two sweeps written as maps that compose, so that scans across threads
// and thread blocks can run them (thomas-scan).
//
// Down: row i eliminated is  x[i] + c'[i] x[i+1] = d'[i], from row i-1's by
//   c'[i] = c[i] / (b[i] - a[i] c'[i-1]),   d'[i] = (d[i] - a[i] d'[i-1]) / (b[i] - a[i] c'[i-1]).
// On a homogeneous state (u, v, w) with c' = u / w and d' = v / w the step is linear,
//   u' = c w,   v' = -a v + d w,   w' = -a u + b w,
// so rows compose as 3 x 3 matrices, of a shape with seven entries (u and w never depend on v).
// A state's scale does not matter, so compositions are rescaled by powers of two (exactly) to
// stay within range.
//
// Up: x[i] = d'[i] - c'[i] x[i+1], an affine map of x[i+1]; maps compose as pairs.
//
// A map that takes in a system's first row (down) or last row (up) does not depend on what came
// before it in its sweep. It says so (`closed`), and composing with it drops the earlier map
// instead of multiplying it by zero, so that a NaN in one system cannot reach another as 0 * NaN.
#pragma once

#include <cstdint>

namespace parasol::tridiag {

// 2^-e for |x| in [2^e, 2^(e+1)): a factor that brings x near 1 without rounding. 1 for zero,
// subnormal, infinite or NaN x.
__device__ inline float power_of_two_scale(float x) {
  const int e = (__float_as_uint(x) >> 23) & 0xff;
  if (e == 0 || e == 0xff) return 1.0f;
  return __uint_as_float(static_cast<unsigned>(e < 253 ? 254 - e : 1) << 23);
}
__device__ inline double power_of_two_scale(double x) {
  const long long e = (__double_as_longlong(x) >> 52) & 0x7ff;
  if (e == 0 || e == 0x7ff) return 1.0;
  return __longlong_as_double((e < 2045 ? 2046 - e : 1) << 52);
}

// u' = p u + q w,  v' = r u + s v + t w,  w' = m u + n w.
template <class T>
struct DownMap {
  T p, q, r, s, t, m, n;
  int closed;  // a system starts inside: the result is (q, t, n) whatever the state before

  __device__ static DownMap identity() { return {1, 0, 0, 1, 0, 0, 1, 0}; }

  // Rescaled so that max(|m|, |n|), the pivot's scale, is near 1.
  __device__ void rescale() {
    const T f = power_of_two_scale(fmax(fabs(m), fabs(n)));
    p *= f, q *= f, r *= f, s *= f, t *= f, m *= f, n *= f;
  }

  // One row (a, b, c, d): u' = c w, v' = -a v + d w, w' = -a u + b w. `first`: the row starts a
  // system (its a is taken as 0, and the map is closed).
  __device__ static DownMap row(T a, T b, T c, T d, bool first) {
    if (first) return {T(0), c, T(0), T(0), d, T(0), b, 1};
    return {T(0), c, T(0), -a, d, -a, b, 0};
  }

  // The eliminated row (c', d') before a thread's or a tile's first row, from the composed map
  // of everything before it (closed but for the very first thread, whose first row starts a
  // system and ignores it).
  __device__ void eliminated(T& c_prime, T& d_prime) const {
    const T inv = T(1) / n;
    c_prime = closed ? q * inv : T(0);
    d_prime = closed ? t * inv : T(0);
  }
};

// Composition for the scans: `earlier` then `later`.
template <class T>
struct DownPolicy {
  using Value = DownMap<T>;
  __device__ Value identity() const { return Value::identity(); }
  __device__ Value combine(const Value& e, const Value& l) const {
    if (l.closed) return l;
    Value o{l.p * e.p + l.q * e.m,
            l.p * e.q + l.q * e.n,
            l.r * e.p + l.s * e.r + l.t * e.m,
            l.s * e.s,
            l.r * e.q + l.s * e.t + l.t * e.n,
            l.m * e.p + l.n * e.m,
            l.m * e.q + l.n * e.n,
            e.closed};
    o.rescale();
    return o;
  }
};

// x_before = y + h X + q x_after, X an unknown carried along (thomas-scan: the unknown before
// a tile, whose value the tile does not wait for).
template <class T>
struct UpMap {
  T q, y, h;
  int closed;  // a system ends inside: q is 0 and nothing depends on x_after

  __device__ static UpMap identity() { return {1, 0, 0, 0}; }

  // This map applied to x_after = `after`'s result: the map from `after`'s x_after.
  __device__ UpMap then(const UpMap& after) const {
    if (closed) return *this;
    return {after.closed ? T(0) : q * after.q, y + q * after.y, h + q * after.h, after.closed};
  }
};

// The up sweep runs from the end, so `earlier` is the map nearer the end: the result is
// `later` applied to what `earlier` gives.
template <class T>
struct UpPolicy {
  using Value = UpMap<T>;
  __device__ Value identity() const { return Value::identity(); }
  __device__ Value combine(const Value& e, const Value& l) const { return l.then(e); }
};

}  // namespace parasol::tridiag
