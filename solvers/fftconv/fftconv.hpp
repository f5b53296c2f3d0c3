// fftconv: linear convolution and correlation of real signals with real filters, 1D, batched 1D
// and 2D, with the output shapes of scipy.signal.fftconvolve / scipy.signal.correlate.
// Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/stream.hpp"

namespace parasol::fftconv {

// scipy's modes, per axis, for a signal of length n and a filter of length k:
//   full:  n + k - 1 samples, the whole convolution;
//   same:  n samples, centred on the full output (starting at (k - 1) / 2);
//   valid: |n - k| + 1 samples, those that need no zero padding (starting at min(n, k) - 1).
//          As in scipy, the filter may be the longer one, but only if it is at least as long in
//          every axis.
enum class Mode { full, same, valid };
inline constexpr std::array kModes{Mode::full, Mode::same, Mode::valid};
std::string_view name(Mode m);  // "full", "same", "valid"
Mode parse_mode(std::string_view s);

// correlate(x, h) is convolve(x, h reversed in every axis), as in scipy.signal.correlate.
enum class Operation { convolve, correlate };
std::string_view name(Operation o);  // "convolve", "correlate"
Operation parse_operation(std::string_view s);

//   c2c:          pad, complex transforms of both, multiply and scale, inverse (the sample's way);
//   r2c:          real-to-complex transforms, half the spectrum, multiply-and-scale in one kernel;
//   overlap-save: 1D only; the signal in blocks of a length chosen for speed against the
//                 filter's spectrum computed once; streams signals larger than device memory;
//   direct:       shared-memory tiled direct sums, for short filters;
//   fused:        cuFFTDx's block FFTs, only where the build has them (fused_compiled_in). 1D:
//                 overlap-save with each block's forward transform, the multiply by the
//                 filter's spectrum and the inverse in one kernel: the signal read once and the
//                 output written once; filters of at most kFusedMostTaps taps. 2D: the row
//                 transforms with the zero padding done as the rows are loaded and the crop as
//                 they are stored (no padded image, no padded result), at a compiled length of
//                 at least the rows' circular length, up to kFusedMostRowLength; cuFFT's column
//                 transforms and the multiply between them;
//   auto:         direct or an FFT variant, by filter length and size (choose_variant).
enum class Variant { automatic, c2c, r2c, overlap_save, direct, fused };
inline constexpr std::array kVariants{Variant::c2c, Variant::r2c, Variant::overlap_save,
                                      Variant::direct, Variant::fused};
std::string_view name(Variant v);  // "auto", "c2c", "r2c", "overlap-save", "direct", "fused"
Variant parse_variant(std::string_view s);

// The extent of one signal, filter or output: rows x cols, last index fastest. 1D: rows = 1.
struct Extent {
  std::int64_t rows = 1, cols = 1;
  std::int64_t size() const { return rows * cols; }
  bool operator==(const Extent& o) const { return rows == o.rows && cols == o.cols; }
  bool operator!=(const Extent& o) const { return !(*this == o); }
};

// `batch` signals of extent `signal`, stored one after another; `filters` filters of extent
// `filter`: 1 (one filter for every signal) or `batch` (filter b for signal b).
struct Problem {
  std::int64_t batch = 1;
  Extent signal;
  std::int64_t filters = 1;
  Extent filter;
  Mode mode = Mode::full;
  Operation operation = Operation::convolve;

  bool is_2d() const { return signal.rows > 1 || filter.rows > 1; }
};

// InputError (key "signal", "filter", "filters" or "mode") for an empty signal or filter, a
// filter count other than 1 or batch, a valid mode where neither operand is at least as large
// as the other in every axis, or sizes past 2^40 samples.
void check_problem(const Problem& p);

// The output extent of one signal, and where it starts inside the full convolution.
Extent output_extent(const Problem& p);
Extent output_offset(const Problem& p);

// The smallest length >= n whose prime factors are all 2, 3, 5 or 7: cuFFT is fastest there
// (a length with a large prime factor can be several times slower).
std::int64_t good_fft_length(std::int64_t n);

// The FFT variants convolve circularly: per axis, circular_extent is the shortest length whose
// circular convolution equals the linear one on the mode's window (the wrapped-around terms land
// outside it), shorter than the full length in `same` and `valid`; transform_extent rounds each
// up by good_fft_length. Rows are 1 in 1D.
Extent circular_extent(const Problem& p);
Extent transform_extent(const Problem& p);

// Images may take a shorter transform than the circular length. At a length L >= the window's
// extent (and the signal's and the filter's) along an axis, only the window's outputs within
// k - 1 of its ends can take wrapped-around terms (those at full-convolution index f with
// f < full - L or f >= L); the image variants (r2c, fused) recompute those by direct sums.
// image_extent picks, per axis, `shorter`'s length where it is below `usual`'s (a transform of
// at least the circular length: good_fft_length's for r2c, a compiled length for fused) and the
// wrapped outputs cost little: filters of at most kWrappedMostTaps a side, and at most
// kWrappedMostWork multiply-adds an output of the window on average. 1D problems, or where that
// does not hold, take `usual`. A cuFFT transform of a power of two runs about 1.7x faster a
// point on an H100 than one of a 7-smooth length near it (4096^2: 0.30 ms forward and inverse,
// 4116^2: 0.52 ms), which pays for the direct sums on a small filter's edges many times over.
inline constexpr std::int64_t kWrappedMostTaps = 32;
inline constexpr std::int64_t kWrappedMostWork = 16;
Extent image_extent(const Problem& p, Extent usual, Extent shorter);
// r2c's: transform_extent, or powers of two of at least the window, the signal and the filter.
Extent r2c_image_extent(const Problem& p);
// fused's on images: rows at the shortest of `lengths` (compiled, ascending) of at least the
// circular length, or of at least the window, signal and filter; columns as r2c's. Rows that
// no length holds: a length past kFusedMostRowLength.
Extent fused_image_extent(const Problem& p, const std::vector<std::int64_t>& lengths);

// A rectangle of an output window: rows [row, row + rows), columns [col, col + cols).
struct Rect {
  std::int64_t row = 0, rows = 0, col = 0, cols = 0;
  std::int64_t size() const { return rows * cols; }
  bool operator==(const Rect& o) const {
    return row == o.row && rows == o.rows && col == o.col && cols == o.cols;
  }
};
// The outputs of each image's window that a transform of extent l wraps terms into, as at most
// four rectangles (two bands of rows across the window, two of columns down it; the corners
// fall in both); none where l reaches the circular extent.
std::vector<Rect> wrapped_outputs(const Problem& p, Extent l);

// The smallest power of two >= n (n >= 1).
std::int64_t next_power_of_two(std::int64_t n);

// Reported as the CPU gold goes, every few tens of millions of multiply-adds: output samples
// done of the total.
struct Progress {
  std::int64_t done = 0, total = 0;
  double seconds = 0;  // since the convolution began
};
using ProgressCallback = std::function<void(const Progress&)>;

// CPU gold: direct sums in double. signal holds batch * signal.size() values, filter holds
// filters * filter.size(); returns batch * output_extent(p).size() values.
template <class T>
std::vector<double> convolve_gold(const Problem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter,
                                  const ProgressCallback& progress = {});

// The gold at some output samples only (indices into the batch's output, [signal][row][col]):
// what a sweep checks each configuration against, at a fraction of the whole gold's cost.
template <class T>
std::vector<double> convolve_gold_at(const Problem& p, const std::vector<T>& signal,
                                     const std::vector<T>& filter,
                                     const std::vector<std::int64_t>& outputs);

// The output samples a sweep checks: every `stride`-th of the batch's output (a stride prime to
// the transforms' powers of two and block lengths meets every position in a block), and every
// sample within the filter's extent of an edge of each output, where the signal's ends are.
std::vector<std::int64_t> sampled_outputs(const Problem& p, std::int64_t stride);

// How a streamed run meets its data. A reader fills into[0, count) with signal samples
// [offset, offset + count); a writer receives output samples [offset, offset + count) of the
// mode's output, in order.
template <class T>
using SignalReader = std::function<void(std::int64_t offset, std::int64_t count, T* into)>;
template <class T>
using OutputWriter =
    std::function<void(std::int64_t offset, std::int64_t count, const T* values)>;

// Output samples [first, first + count) of one 1D signal with one filter, by the gold: the
// signal samples they reach (zeros past its ends), fetched by `read`, convolved in valid mode.
// What a streamed run is checked against, and what a streamed run on the CPU computes; it holds
// count + taps - 1 samples whatever the signal's length.
template <class T>
std::vector<double> gold_window(const Problem& p, const std::vector<T>& filter,
                                std::int64_t first, std::int64_t count,
                                const SignalReader<T>& read);

struct Options {
  Variant variant = Variant::automatic;
  std::int64_t block = 0;  // overlap-save transform length; 0: chosen from the filter length
};

// What `auto` picks for this problem (never automatic), and the overlap-save transform length
// used when Options::block is 0. Both are pure functions of the sizes.
Variant choose_variant(const Problem& p, int element_bytes);
std::int64_t choose_block_length(std::int64_t filter_length);

// The overlap-save transform length a 1D problem runs with: o.block, or when 0 the chosen one,
// never longer than one block covering the whole output needs. InputError (key "block") when
// shorter than the filter. Each block gives block - (taps - 1) output samples, from output
// sample 0 on, whatever range of the output is computed.
std::int64_t overlap_save_block(const Problem& p, const Options& o);

// What o asks of p made explicit: with o.variant automatic, the variant auto picks
// (choose_variant) and the block length it runs with (fused: fused_block's for auto, a block
// length fused does not compile passed over; overlap-save: o.block); otherwise o itself. What a
// batch cut among ranks runs on every share, so each runs what one rank would on the whole.
Options chosen_options(const Problem& p, const Options& o, int element_bytes);

// The signals a batch cut among ranks keeps together, for a batch run with `chosen`
// (chosen_options'): 2 where fused pairs blocks of neighbouring signals in one transform (one
// filter, an odd count of blocks a signal), so a share that began at an odd signal would pair
// them otherwise and give other bits; else 1. A cut on multiples of it gives every share the
// pairs, and so the bits, of the whole batch's run.
std::int64_t batch_cut_unit(const Problem& p, const Options& chosen, int element_bytes);

// Whether a variant can take this problem (overlap-save: 1D only; fused: 1D filters of at most
// kFusedMostTaps taps, 2D rows of a circular length up to kFusedMostRowLength). Never throws.
// Whether fused is compiled in is another question
// (fused_compiled_in): a build without it says so when fused is asked for.
bool supports(Variant v, const Problem& p);

// fused: its transforms are compiled for a few lengths only (the longest common to float and
// double is 4096), and each block keeps at least half its transform for new outputs.
inline constexpr std::int64_t kFusedMostTaps = 2049;
inline constexpr std::int64_t kFusedMostRowLength = 4096;

// Whether this build has the fused variant (cuFFTDx was found when it was configured).
bool fused_compiled_in();

// The transform lengths the fused variant is compiled for, elements of this many bytes (4: float,
// 8: double), ascending; empty when it is not compiled in.
std::vector<std::int64_t> fused_block_lengths(int element_bytes);

// The transform length a problem runs fused with. 2D: the rows', o.block or when 0 the shortest
// compiled length of at least the rows' circular length (InputError, key "block", for another).
// 1D: o.block, which must be one of the compiled
// lengths and at least the filter's taps (InputError, key "block"), or when 0 the compiled length
// of at least twice the filter's overlap whose transforms cost least for a signal's outputs
// (blocks x N x a measured cost a point for N; with o.variant auto, a block length that is not
// compiled is overlap-save's and is passed over). InputError (key "variant")
// when the variant is not compiled in or the problem is not one it supports.
std::int64_t fused_block(const Problem& p, const Options& o, int element_bytes);

// Convolves data already on the device. Keeps cuFFT plans (keyed by transform shape and batch)
// and scratch buffers between calls: create one and reuse it.
template <class T>
class Convolver {
 public:
  Convolver();
  ~Convolver();
  Convolver(const Convolver&) = delete;
  Convolver& operator=(const Convolver&) = delete;

  // signal, filter and output are device pointers holding batch * signal.size(),
  // filters * filter.size() and batch * output_extent(p).size() values. InputError when the
  // problem is malformed or the variant cannot take it. Returns the variant that ran.
  Variant convolve(const Problem& p, const Options& o, const T* signal, const T* filter,
                   T* output, cudaStream_t stream);

  // One long 1D signal (batch 1) with one filter, by overlap-save, in pieces: read(offset, count,
  // host) must fill host[0, count) with signal samples [offset, offset + count); write(offset,
  // count, host) receives output samples [offset, offset + count) of the mode's output, in order.
  // Device memory holds about `piece` samples at a time (0: 2^24), whatever the signal length.
  // `first_output` and `outputs` (-1: to the end) choose a range of the output, a rank's share:
  // first_output must be a multiple of a block's outputs (overlap_save_block - taps + 1), so
  // each block is the one the whole output has.
  using Reader = SignalReader<T>;
  using Writer = OutputWriter<T>;
  void convolve_streamed(const Problem& p, const Options& o, const std::vector<T>& filter,
                         const Reader& read, const Writer& write, cudaStream_t stream,
                         std::int64_t piece = 0, std::int64_t first_output = 0,
                         std::int64_t outputs = -1);

  // Output samples [first_output, first_output + outputs) of one 1D signal's convolution by o
  // (overlap-save or fused, explicit), from x holding its samples [x_begin, x_end) on the
  // device, into output; the conditions are convolve_range_gpu's.
  void convolve_range(const Problem& p, const Options& o, const T* x, std::int64_t x_begin,
                      std::int64_t x_end, const T* filter, std::int64_t first_output,
                      std::int64_t outputs, T* output, cudaStream_t stream);

  std::size_t cached_plans() const;

  // Keeps the filters' spectra (r2c and fused) between calls, as the plans are kept: a call with
  // the same filter pointer, filter count and extent, operation and transform length as the call
  // that computed them reuses them. Only for a caller that owns the filter and never changes its
  // values while this Convolver lives (DeviceProblem, convolve_gpu): a new filter, a new
  // Convolver. Off by default, since a pointer says nothing of the values behind it.
  void keep_filter_spectra();
  // Filter spectra computed so far by r2c and fused (each reuse of a kept one is not counted).
  std::int64_t spectra_computed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <class T>
struct Result {
  std::vector<T> output;  // batch * output_extent(p).size() values
  Variant variant = Variant::automatic;  // the one that ran
  // On the device setup (a first convolution, which also makes the cuFFT plans), host_to_device,
  // compute and device_to_host; on the CPU compute alone.
  PhaseTimer timings;
};

// Upload, convolve, download.
template <class T>
Result<T> convolve_gpu(const Problem& p, const Options& o, const std::vector<T>& signal,
                       const std::vector<T>& filter);

// One call of the host API: upload `signal` (p.batch x p.signal.size() values, C order) and
// `filter` (p.filters x p.filter.size()), convolve once, download into `output` (p.batch x
// output_extent(p).size() values). Unlike convolve_gpu no run is made twice for timing. Returns
// the variant that ran.
template <class T>
Variant convolve_once(const Problem& p, const Options& o, const T* signal, std::size_t signal_size,
                      const T* filter, std::size_t filter_size, T* output);

// convolve_once made repeatable, as Python's fftconv.convolve runs on NumPy arrays: the last
// problem's cuFFT plans and device buffers are kept on its device, so a call of the same shapes
// again costs its copies and the convolution alone (CuPy and PyTorch keep their cuFFT plans
// likewise). Another problem, or another current device, starts afresh. The filter's spectrum
// is made by each call: the values behind a host pointer may change. One caller at a time.
template <class T>
class HostConvolver {
 public:
  HostConvolver();
  ~HostConvolver();
  HostConvolver(const HostConvolver&) = delete;
  HostConvolver& operator=(const HostConvolver&) = delete;

  Variant convolve(const Problem& p, const Options& o, const T* signal, std::size_t signal_size,
                   const T* filter, std::size_t filter_size, T* output);
  // Frees the plans and buffers kept.
  void clear();

 private:
  struct Kept;
  std::unique_ptr<Kept> kept_;
};

struct Signal;  // params.hpp

// The same with the signals not uploaded but drawn on the device: signals [first_signal,
// first_signal + p.batch) of the batch `drawn` generates (generate_samples_gpu, signals.hpp: the
// host's bits). host_to_device times the draw and the filter's upload.
template <class T>
Result<T> convolve_gpu(const Problem& p, const Options& o, const Signal& drawn,
                       std::int64_t first_signal, const std::vector<T>& filter);

// A range of one 1D signal's output in device memory, as a rank's share of a run across ranks:
// output samples [first_output, first_output + outputs) of the whole problem p (batch 1), with
// `o` as chosen_options makes it (overlap-save or fused, block explicit). `window` holds signal
// samples [x0, x0 + window.size()), at least range_window's. first_output must be a multiple of
// range_step, and the range end at one or at the output's end: every block is then the whole
// run's (fused's pairs of blocks included), and so are the bits. Upload, one untimed
// convolution (setup: plans and the filter's spectrum), one timed, download, as convolve_gpu.
template <class T>
Result<T> convolve_range_gpu(const Problem& p, const Options& o, const std::vector<T>& window,
                             std::int64_t x0, const std::vector<T>& filter,
                             std::int64_t first_output, std::int64_t outputs);

// The signal samples [first, second) that the blocks of output samples [first_output,
// first_output + outputs) read with o (whole blocks, as the whole run's), within the signal.
std::pair<std::int64_t, std::int64_t> range_window(const Problem& p, const Options& o,
                                                   int element_bytes, std::int64_t first_output,
                                                   std::int64_t outputs);

// Whether convolve_range_gpu takes o (overlap-save or fused), and the outputs a range must start
// at a multiple of: one block's outputs, two for fused (it pairs neighbouring blocks).
bool computes_ranges(const Options& o);
std::int64_t range_step(const Problem& p, const Options& o, int element_bytes);

// Convolver::convolve_streamed on a stream of its own, returning once the last piece is written.
template <class T>
void convolve_streamed(const Problem& p, const Options& o, const std::vector<T>& filter,
                       const SignalReader<T>& read, const OutputWriter<T>& write,
                       std::int64_t piece = 0, std::int64_t first_output = 0,
                       std::int64_t outputs = -1);

// Starts one convolution of `p` by each of `options`, each on a thread of its own with device
// buffers of its own (zeros: only the kernels matter), and returns at once; the future's get()
// waits for them. Where CUDA's cache is empty, cuFFT compiles kernels as a plan is made, hundreds
// of ms a transform shape: these runs compile them while the caller does its host work (makes
// the operands and the gold), so that its own first convolutions find them compiled. Nothing is
// run where twice the runs' buffers and the caller's would not fit in free memory. An option the
// problem cannot take, or one the device has no room or launch for, is left for the caller's own
// convolution to report; get() rethrows only a failure that loses the context.
template <class T>
std::future<void> warm_up_async(const Problem& p, std::vector<Options> options);

// A problem resident on the device, for the sweep and the tests: signal and filter uploaded
// once, the output allocated, and one Convolver kept (its plans, scratch and the filter's spectra:
// keep_filter_spectra), so every convolution after the first times the variant alone.
template <class T>
class DeviceProblem {
 public:
  // InputError when the problem is malformed or the values disagree with its sizes.
  DeviceProblem(const Problem& p, const std::vector<T>& signal, const std::vector<T>& filter);
  // Enqueues one convolution on stream(); returns the variant that ran. InputError when the
  // variant cannot take the problem.
  Variant convolve(const Options& o);
  // Fills the output with NaN, so a sample that a variant fails to write cannot pass.
  void poison_output();
  // The output (waits for the stream).
  std::vector<T> download() const;
  // The output samples a check reads (sampled_outputs), kept on the device; then those samples
  // alone, gathered there and brought back in that order (waits for the stream). Error when one
  // lies outside the output.
  void sample_outputs(const std::vector<std::int64_t>& outputs);
  std::vector<T> download_samples() const;
  const Problem& problem() const { return problem_; }
  cudaStream_t stream() const { return stream_.get(); }
  std::size_t cached_plans() const { return convolver_.cached_plans(); }
  std::int64_t spectra_computed() const { return convolver_.spectra_computed(); }

 private:
  Problem problem_;
  Stream stream_;
  DeviceBuffer<T> signal_, filter_, output_;
  DeviceBuffer<std::int64_t> samples_;
  Convolver<T> convolver_;
};

}  // namespace parasol::fftconv
