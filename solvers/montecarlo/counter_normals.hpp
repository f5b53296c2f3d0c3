// The CPU gold's counter-based uniforms: SplitMix64's finaliser on (key, counter), so any draw of
// any sample can be made alone. The course model's gold and the basket gold both draw from it.
#pragma once

#include <cstdint>

namespace parasol::montecarlo {

// SplitMix64's finaliser: a bijection of 64-bit words that scatters nearby inputs.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// Uniform in (0, 1) for counter `n` under `key`: k + 1/2 over 2^53 from the top 53 bits.
inline double open_unit_at(std::uint64_t key, std::uint64_t n) {
  return (static_cast<double>(mix64(key + kGolden * (n + 1)) >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace parasol::montecarlo
