// fftconv's one definition of agreement with the gold, used by the tests, `parasol run --check`
// (whole and streamed), `parasol sweep` and the benchmarks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {

// How deep each output sample's round-off runs, in the units the tolerance counts: the levels
// of butterflies in the longest transform any variant takes for this problem, ceil(log2) of the
// full convolution's size, (n + k - 1) per axis (c2c and r2c transform each axis at a 7-smooth
// length no longer than the next power of two above that, shorter in same and valid modes;
// overlap-save's blocks are shorter still); or, for a long filter, a quarter of sqrt(taps),
// since a sum of k products taken one after another (the direct variant's, and the gold's own)
// rounds like a random walk of k steps. At least 1.
inline double round_off_depth(const Problem& p) {
  Problem full = p;
  full.mode = Mode::full;
  const double size = static_cast<double>(output_extent(full).size());
  const double taps = static_cast<double>(p.filter.size());
  return std::max({1.0, std::ceil(std::log2(size)), std::sqrt(taps) / 4});
}

// The largest difference from the gold allowed, relative to max |gold|: 8 ulps of T per level of
// round_off_depth. An FFT convolution rounds at every level of its transforms, forward and
// inverse, and each level adds a fraction of an ulp relative to the output's scale (the FFT's
// normwise error bound is proportional to log2 n times the unit round-off). A model radix-2
// convolution on uniform random data, at every size the tests use (up to 2^20 samples and 2000
// taps), measured 0.1 to 0.4 ulps per level in float and up to 1 in double, whose gold (direct
// sums in double) rounds as much as the result; sums taken one after another (the direct
// variant's, and the double gold's own) measured 0.2 to 0.5 sqrt(taps) ulps. 8 per level, and
// 2 sqrt(taps), leave cuFFT's mixed and Bluestein radices a margin of four times or more, while a
// wrong index, a block missed or a spectrum left unscaled is off by a good fraction of max |gold|:
// millions of ulps.
inline constexpr double kUlpsPerLevel = 8;

template <class T>
double tolerance(const Problem& p) {
  return kUlpsPerLevel * std::numeric_limits<T>::epsilon() * round_off_depth(p);
}

// Volumes by the same rule: the levels of the full convolution's 3D transform (a chunk's along z
// are fewer), or a quarter of sqrt(taps) for the direct sums.
inline double round_off_depth(const VolumeProblem& p) {
  VolumeProblem full = p;
  full.mode = Mode::full;
  const double size = static_cast<double>(output_extent(full).size());
  const double taps = static_cast<double>(p.filter.size());
  return std::max({1.0, std::ceil(std::log2(size)), std::sqrt(taps) / 4});
}

template <class T>
double tolerance(const VolumeProblem& p) {
  return kUlpsPerLevel * std::numeric_limits<T>::epsilon() * round_off_depth(p);
}

// An output judged by its difference from the gold relative to max |gold|.
inline Agreement relative_agreement(const FieldDifference& d, double relative, double tolerance) {
  Agreement a = field_agreement(d, "max_relative_difference", "max relative to max|gold|",
                                relative, tolerance);
  a.gold = "the CPU gold (direct sums in double)";
  return a;
}

// The difference from the gold, gathered piece by piece: a streamed output is never whole.
class GoldDifference {
 public:
  template <class T>
  void add(const T* result, const std::vector<double>& gold) {
    for (std::size_t i = 0; i < gold.size(); ++i) {
      const double e = static_cast<double>(result[i]) - gold[i];
      nan_ = nan_ || std::isnan(e);
      max_abs_ = std::max(max_abs_, std::abs(e));
      sum_sq_ += e * e;
      scale_ = std::max(scale_, std::abs(gold[i]));
    }
    count_ += static_cast<double>(gold.size());
  }

  // NaN anywhere makes both NaN: it must not pass as agreement.
  FieldDifference difference() const {
    if (nan_) return {NAN, NAN};
    return {max_abs_, count_ > 0 ? std::sqrt(sum_sq_ / count_) : 0.0};
  }

  // max |result - gold| / max |gold|: transforms spread their rounding over the whole output, so
  // it is judged against the output's scale, not sample by sample. Against an all-zero gold (a
  // zero signal) there is no scale, and the difference itself is judged.
  double relative() const {
    const double d = difference().max_abs;
    return scale_ > 0 ? d / scale_ : d;
  }

  Agreement agreement(double tolerance) const {
    return relative_agreement(difference(), relative(), tolerance);
  }

  // Another part's difference added to this one's (a rank's, say): as if each had been added.
  void merge(const GoldDifference& other) {
    nan_ = nan_ || other.nan_;
    max_abs_ = std::max(max_abs_, other.max_abs_);
    sum_sq_ += other.sum_sq_;
    scale_ = std::max(scale_, other.scale_);
    count_ += other.count_;
  }

 private:
  double max_abs_ = 0, sum_sq_ = 0, scale_ = 0, count_ = 0;
  bool nan_ = false;
};

// A sweep checks each configuration at every kSweepCheckStride-th output sample and at the
// samples near the output's edges (sampled_outputs), against the gold at those samples alone:
// one seventeenth of the gold's sums. 17 is prime to every power of two and to the 7-smooth
// transform and block lengths, so the samples fall on every position within a block, and a
// block missed, a wrong index or an unscaled spectrum moves nearly every sample. `parasol run
// --check` and the tests judge the whole output.
inline constexpr std::int64_t kSweepCheckStride = 17;

// The whole output of problem p against its gold, judged by tolerance<T>(p). Outputs of another
// size than the gold's never agree.
template <class T>
Agreement agreement(const std::vector<T>& output, const std::vector<double>& gold,
                    const Problem& p) {
  if (output.size() != gold.size()) return relative_agreement({NAN, NAN}, NAN, tolerance<T>(p));
  GoldDifference d;
  d.add(output.data(), gold);
  return d.agreement(tolerance<T>(p));
}

// The output at the samples `outputs` lists (sampled_outputs) against the gold there
// (convolve_gold_at), judged by tolerance<T>(p), relative to max |gold| over those samples.
template <class T>
Agreement agreement_at(const std::vector<T>& output, const std::vector<std::int64_t>& outputs,
                       const std::vector<double>& gold, const Problem& p) {
  std::vector<T> picked;
  picked.reserve(outputs.size());
  for (std::int64_t o : outputs) {
    if (o < 0 || static_cast<std::size_t>(o) >= output.size())
      return relative_agreement({NAN, NAN}, NAN, tolerance<T>(p));
    picked.push_back(output[static_cast<std::size_t>(o)]);
  }
  return agreement(picked, gold, p);
}

// A volume's output against its gold, by tolerance<T>(p).
template <class T>
Agreement agreement(const std::vector<T>& output, const std::vector<double>& gold,
                    const VolumeProblem& p) {
  if (output.size() != gold.size()) return relative_agreement({NAN, NAN}, NAN, tolerance<T>(p));
  GoldDifference d;
  d.add(output.data(), gold);
  return d.agreement(tolerance<T>(p));
}

}  // namespace parasol::fftconv
