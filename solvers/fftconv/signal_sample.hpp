// A generated signal's samples as one function of their place (docs/generated-inputs.md), the
// same on the host (generate_samples, signals.cpp, on every core) and on the device (signals.cu),
// bit for bit: kernels/portable_math.hpp's cos and the draws' log, sin and cos round alike on
// both, and every operation here is rounded to nearest, never fused (portable::Rn).
#pragma once

#include <cstdint>

#include "kernels/portable_math.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/fftconv/params.hpp"

namespace parasol::fftconv {

// What a sample of Signal depends on, without the strings (a kernel's argument).
struct SampleRule {
  bool chirp = false;  // the chirp's value added
  bool noisy = false;  // a normal drawn and added, times `scale`
  std::int64_t size = 1;    // samples in one signal: depth x rows x length
  std::int64_t length = 1;  // a row's; the chirp sweeps along each row
  double amplitude = 1, f0 = 0, f1 = 0, scale = 0;
  std::uint64_t seed = 1;
};

inline SampleRule sample_rule(const Signal& s) {
  SampleRule r;
  r.chirp = s.kind == SignalKind::chirp;
  r.noisy = s.kind == SignalKind::noise || s.noise > 0;
  r.size = s.depth * s.rows * s.length;
  r.length = s.length;
  r.amplitude = s.amplitude;
  r.f0 = s.f0;
  r.f1 = s.f1;
  r.scale = s.kind == SignalKind::noise ? s.amplitude : s.noise;
  r.seed = s.seed;
  return r;
}

// The chirp at sample t of a row. The phase is reduced to a fraction of a cycle before the
// cosine: at t = 2^26 it is some 10^7 cycles, and cos of so large an argument would lose digits
// that the fraction keeps.
PARASOL_HOST_DEVICE inline double chirp_at(const SampleRule& r, std::int64_t t) {
  using portable::Rn;
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const Rn time = static_cast<double>(t);
  const Rn cycles =
      Rn(r.f0) * time + (Rn(r.f1) - r.f0) * time * time / (2.0 * static_cast<double>(r.length));
  return (Rn(r.amplitude) * portable::cos((kTwoPi * (cycles - portable::floor_of(cycles.v))).v))
      .v;
}

struct SamplePair {
  double first, second;
};

// Samples 2q and 2q + 1 of a signal (counted over its depth x rows x length) whose normals are
// `draws`' words: one Box-Muller pair, words 2q and 2q + 1, serves both. The second is past the
// signal's end when 2q + 1 = size (an odd size), and then unused.
PARASOL_HOST_DEVICE PARASOL_INLINE_DRAW inline SamplePair sample_pair(const SampleRule& r,
                                                                      const CounterDraws& draws,
                                                                      std::int64_t q) {
  using portable::Rn;
  const std::int64_t i = 2 * q;
  Rn first = 0.0, second = 0.0;
  if (r.chirp) {  // the same for every pair of a loop: no branch inside it once unswitched
    const std::int64_t t = i % r.length, next = t + 1 == r.length ? 0 : t + 1;
    first = chirp_at(r, t);
    second = chirp_at(r, next);
  }
  if (r.noisy) {
    const auto w = static_cast<std::uint64_t>(i);
    const SeededDraws::Pair normals = SeededDraws::normal_pair(draws.word(w), draws.word(w + 1));
    first = first + Rn(r.scale) * normals.first;
    second = second + Rn(r.scale) * normals.second;
  }
  return {first.v, second.v};
}

}  // namespace parasol::fftconv
