// The operands the parameter file describes, generated: noise and chirp signals, Gaussian and
// box filters. Reading input files is the front end's (solvers do not depend on HDF5).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "solvers/fftconv/params.hpp"

namespace parasol::fftconv {

// `s.batch` signals of s.depth x s.rows x s.length samples, one after another (length fastest;
// a chirp sweeps along each row), computed in double and rounded to T, on every core. Sample i
// of signal b (i counted over the signal's depth x rows x length) depends on (s.seed, b, i)
// alone, through counter-based draws (kernels/seeded_draws.hpp, whose CounterDraws defines its
// words exactly; docs/generated-inputs.md): its normal is SeededDraws::normal_pair (Box-Muller)
// of words 2q and 2q + 1 of CounterDraws(s.seed, b), q = i / 2, the pair's first for even i and
// its second for odd i. A noise sample is amplitude times that normal; a chirp sample is the
// chirp at i mod length plus `noise` times it (none drawn when noise is 0); sample_pair
// (signal_sample.hpp) is that definition, shared with the device's draws. So any stretch of any
// signal is made alone, and a seed gives the same samples whatever the batch, the ranks, the
// threads or the cut, on any machine, host or device (kernels/portable_math.hpp).
template <class T>
std::vector<T> generate_signal(const Signal& s);
// Signals [first, first + count) of the batch alone (a rank's share), as generate_signal makes
// them.
template <class T>
std::vector<T> generate_signals(const Signal& s, std::int64_t first, std::int64_t count);
// Samples [first, first + count) of generate_signal(s), counted over the whole batch laid one
// signal after another, into `into`: a stretch of a long signal (a rank's range, a streamed
// piece) made without the samples before it.
template <class T>
void generate_samples(const Signal& s, std::int64_t first, std::int64_t count, T* into);

// The same samples drawn on the device into d_into (device memory), enqueued on `stream`: the
// host's bits (sample_pair, one definition), a thread per pair of samples (signals.cu).
template <class T>
void generate_samples_gpu(const Signal& s, std::int64_t first, std::int64_t count, T* d_into,
                          cudaStream_t stream);

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
