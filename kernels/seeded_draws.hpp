// Host-side random draws for generated inputs: one std::mt19937_64 stream per (seed, stream), so
// a generated series or signal is the same whichever others are drawn beside it.
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

}  // namespace parasol
