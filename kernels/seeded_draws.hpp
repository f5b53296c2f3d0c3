// Host-side random draws for generated inputs, one stream per (seed, stream), so a generated
// series or signal is the same whichever others are drawn beside it: SeededDraws reads a
// std::mt19937_64 in order; CounterDraws computes any word of its stream from the word's index.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace parasol {

// Uniforms from the engine's top 53 bits, standard normals by Box-Muller (both of each pair
// used, in order).
class SeededDraws {
 public:
  SeededDraws(std::uint64_t seed, std::uint64_t stream) {
    std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(stream),
                      static_cast<std::uint32_t>(stream >> 32)};
    engine_.seed(seq);
  }

  // Uniform in the open interval (0, 1): k + 1/2 over 2^53, k in [0, 2^53).
  double open_unit() { return open_unit_of(engine_()); }

  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const std::uint64_t radius_word = engine_();
    const auto [first, second] = normal_pair(radius_word, engine_());
    spare_ = second;
    has_spare_ = true;
    return first;
  }

  // The same draws in two steps, so that the arithmetic can be shared among threads: the
  // engine's next words, one after another (normal() takes two per pair of normals), and what
  // open_unit() and normal() make of them.
  std::uint64_t word() { return engine_(); }
  static double open_unit_of(std::uint64_t word) {
    return (static_cast<double>(word >> 11) + 0.5) * 0x1.0p-53;
  }
  // Uniform in [0, 1): k over 2^53, k the word's top 53 bits (tridiag's systems and starts).
  static double unit_of(std::uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; }
  struct Pair {
    double first, second;
  };
  static Pair normal_pair(std::uint64_t radius_word, std::uint64_t angle_word) {
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    const double radius = std::sqrt(-2.0 * std::log(open_unit_of(radius_word)));
    const double angle = kTwoPi * open_unit_of(angle_word);
    return {radius * std::cos(angle), radius * std::sin(angle)};
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0;
  bool has_spare_ = false;
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
  CounterDraws(std::uint64_t seed, std::uint64_t stream)
      : key_(mix(mix(seed + kIncrement) + (stream + 1) * kIncrement)) {}

  std::uint64_t word(std::uint64_t i) const { return mix(key_ + (i + 1) * kIncrement); }

 private:
  static constexpr std::uint64_t kIncrement = 0x9E3779B97F4A7C15;
  static constexpr std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
    return z ^ (z >> 31);
  }

  std::uint64_t key_;
};

}  // namespace parasol
