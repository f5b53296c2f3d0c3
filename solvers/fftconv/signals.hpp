// The operands the parameter file describes, generated: noise and chirp signals, Gaussian and
// box filters. Reading input files is the front end's (solvers do not depend on HDF5).
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/fftconv/params.hpp"

namespace parasol::fftconv {

// `s.batch` signals of s.depth x s.rows x s.length samples, one after another (length fastest;
// a chirp sweeps along each row), computed
// in double and rounded to T. Signal b's noise comes from std::mt19937_64 seeded with
// (s.seed, b) through std::seed_seq, normals by Box-Muller (both of each pair, in order): both
// are fully specified by the standard (std::normal_distribution is not), so a seed gives the
// same signals with any standard library, and signal b is the same whatever the batch is.
template <class T>
std::vector<T> generate_signal(const Signal& s);
// Signals [first, first + count) of the batch alone (a rank's share), as generate_signal makes
// them.
template <class T>
std::vector<T> generate_signals(const Signal& s, std::int64_t first, std::int64_t count);

// One filter of f.depth x f.rows x f.length taps (gaussian or box; 2D and 3D: the product of the
// 1D filters along each axis), summing to 1 before rounding to T.
template <class T>
std::vector<T> generate_filter(const Filter& f);

// exp(-(i - c)^2 / (2 sigma^2)) at i = 0 ... taps - 1, centred at c = (taps - 1) / 2 and
// normalised to sum 1.
std::vector<double> gaussian_taps(std::int64_t taps, double sigma);

// 1 / taps each: the moving average.
std::vector<double> box_taps(std::int64_t taps);

// The sigma of a Gaussian filter along an axis of `taps` taps: f.sigma, or when 0 a sixth of the
// taps, so that the taps span +-3 sigma.
double gaussian_sigma(const Filter& f, std::int64_t taps);

}  // namespace parasol::fftconv
