// A result that is NaN or infinite where the problem is finite (an overflow the parameters did
// not rule out) ends the run before anything is written: exit 1, one line naming the quantity.
// Every binding calls these on what it is about to report or write, once the solve is done; a
// scan of the host data costs far less than writing it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/error.hpp"

namespace parasol {

// "inf", "-inf" or "nan".
inline std::string non_finite_name(double x) {
  return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

// `quantity` ("montecarlo: price") must be finite.
inline void require_finite(const std::string& quantity, double value) {
  if (!std::isfinite(value))
    throw Error(quantity + " is " + non_finite_name(value) +
                " where the problem is finite; nothing is written");
}

// Every one of `data[0, count)` must be finite; the first that is not is named by its index.
template <class T>
void require_finite(const std::string& quantity, const T* data, std::size_t count) {
  // An OR over blocks: the common, all-finite case is one branch-free pass.
  constexpr std::size_t kBlock = 4096;
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t end = count - start < kBlock ? count : start + kBlock;
    bool bad = false;
    for (std::size_t i = start; i < end; ++i) bad |= !std::isfinite(data[i]);
    if (!bad) continue;
    for (std::size_t i = start; i < end; ++i)
      if (!std::isfinite(data[i]))
        throw Error(quantity + " is " + non_finite_name(static_cast<double>(data[i])) +
                    " at element " + std::to_string(i) + " of " + std::to_string(count) +
                    " where the problem is finite; nothing is written");
  }
}

template <class Container>
void require_finite(const std::string& quantity, const Container& values) {
  require_finite(quantity, values.data(), values.size());
}

}  // namespace parasol
