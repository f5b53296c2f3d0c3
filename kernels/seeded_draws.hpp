// Random draws for generated inputs, one stream per (seed, stream), so a generated series or
// signal is the same whichever others are drawn beside it: CounterDraws computes any word of its
// stream from the word's index, and SeededDraws turns words into uniforms and normals. Both are
// the same functions on the host and on the device (kernels/portable_math.hpp: the normals' log,
// cos and sin round alike on both), so an input drawn on either is the same input, bit for bit.
#pragma once

#include <cstdint>

#include "kernels/portable_math.hpp"

namespace parasol {

// Uniforms from a word's top 53 bits, standard normals by Box-Muller from a pair of words.
struct SeededDraws {
  // Uniform in the open interval (0, 1): k + 1/2 over 2^53, k the word's top 53 bits.
  PARASOL_HOST_DEVICE static double open_unit_of(std::uint64_t word) {
    return ((portable::Rn(top_bits(word)) + 0.5) * 0x1.0p-53).v;
  }
  // Uniform in [0, 1): k over 2^53, k the word's top 53 bits (tridiag's systems and starts).
  PARASOL_HOST_DEVICE static double unit_of(std::uint64_t word) {
    return (portable::Rn(top_bits(word)) * 0x1.0p-53).v;
  }
  // The word's top 53 bits as a double, exactly: their top 27 and low 26 bits through 32-bit
  // conversions, which x86-64's SSE2 does two at a time where it has no 64-bit one. The same
  // value as static_cast<double>(word >> 11).
  PARASOL_HOST_DEVICE static double top_bits(std::uint64_t word) {
    const std::uint64_t k = word >> 11;
    return (portable::Rn(static_cast<double>(static_cast<std::int32_t>(k >> 26))) * 0x1p26 +
            static_cast<double>(static_cast<std::int32_t>(k & 0x3ffffff)))
        .v;
  }
  struct Pair {
    double first, second;
  };
  // r = sqrt(-2 log(open_unit(radius_word))), t = 2 pi open_unit(angle_word), the pair
  // (r cos t, r sin t): with portable::log and portable::sincos, and each product and the sqrt
  // rounded to nearest, never fused, so that the pair is one function of the two words
  // everywhere (docs/generated-inputs.md).
  PARASOL_HOST_DEVICE static Pair normal_pair(std::uint64_t radius_word,
                                              std::uint64_t angle_word) {
    using portable::Rn;
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    const double radius =
        portable::sqrt_rn((Rn(-2.0) * portable::log(open_unit_of(radius_word))).v);
    const portable::SinCos angle = portable::sincos((Rn(kTwoPi) * open_unit_of(angle_word)).v);
    return {(Rn(radius) * angle.cos).v, (Rn(radius) * angle.sin).v};
  }
};

// Counter-based draws: word i of the stream of (seed, stream) is a function of i alone, so any
// stretch of the stream is made on its own, on any thread, without the words before it.
// SeededDraws::open_unit_of and normal_pair turn the words into uniforms and normals.
//
// The definition, to reproduce a stream elsewhere (all arithmetic mod 2^64): with SplitMix64's
// increment g = 0x9E3779B97F4A7C15 and its output function
//   mix(z): z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//           return z ^ (z >> 31);
// the stream's key is mix(mix(seed + g) + (stream + 1) g) and its word i is mix(key + (i + 1) g).
// That is, the words are SplitMix64's outputs from state `key`, and the key is output `stream`
// (from 0) of SplitMix64 started at its first output from state `seed`.
class CounterDraws {
 public:
  PARASOL_HOST_DEVICE CounterDraws(std::uint64_t seed, std::uint64_t stream)
      : key_(mix(mix(seed + kIncrement) + (stream + 1) * kIncrement)) {}

  PARASOL_HOST_DEVICE std::uint64_t word(std::uint64_t i) const {
    return mix(key_ + (i + 1) * kIncrement);
  }

 private:
  static constexpr std::uint64_t kIncrement = 0x9E3779B97F4A7C15;
  PARASOL_HOST_DEVICE static constexpr std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
    return z ^ (z >> 31);
  }

  std::uint64_t key_;
};

}  // namespace parasol
