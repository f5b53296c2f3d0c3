// fftconv parameters: a plain struct with defaults and validate(); no TOML, no device code.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/precision.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {

// The precision it computes in: the kernel layer's one type (kernels/precision.hpp).
using parasol::Precision;
using parasol::parse_precision;

// Where the signals come from: generated from the parameters, or a dataset of an HDF5 file.
enum class Source { generated, file };
inline constexpr std::array kSources{Source::generated, Source::file};
std::string_view name(Source s);  // "generated", "file"
Source parse_source(std::string_view s);

// Generated signals:
//   noise: white Gaussian noise, standard deviation `amplitude`;
//   chirp: amplitude cos(2 pi (f0 t + (f1 - f0) t^2 / (2 length))), the frequency sweeping
//          linearly from f0 at t = 0 to f1 at t = length (cycles per sample) along each row,
//          plus white Gaussian noise of standard deviation `noise`.
enum class SignalKind { noise, chirp };
inline constexpr std::array kSignalKinds{SignalKind::noise, SignalKind::chirp};
std::string_view name(SignalKind k);  // "noise", "chirp"
SignalKind parse_signal_kind(std::string_view s);

// Filters: a sampled Gaussian or a moving average (separable products of the 1D ones when 2D),
// each normalised to sum 1, or a dataset of an HDF5 file.
enum class FilterKind { gaussian, box, file };
inline constexpr std::array kFilterKinds{FilterKind::gaussian, FilterKind::box, FilterKind::file};
std::string_view name(FilterKind k);  // "gaussian", "box", "file"
FilterKind parse_filter_kind(std::string_view s);

// What a dataset holds: a 2D one, one row per signal (or filter) of a batch, or one image; a 3D
// one, a batch of images [batch][rows][cols], or (volume) one volume [depth][rows][cols]. A 1D
// dataset is always one signal. A volume problem (see Params::is_volume) reads every dataset as
// one volume, a 1D or 2D one as a volume one slice deep.
enum class Layout { batch, image, volume };
std::string_view name(Layout l);  // "batch", "image", "volume"
Layout parse_layout(std::string_view s);

// `batch` signals of rows x length samples (length fastest; rows 1 for 1D signals), or one volume
// of depth x rows x length samples (depth > 1: batch must be 1). Signal b
// draws its noise from the counter-based stream (seed, b), sample by sample (signals.hpp), so it is
// the same signal whatever `batch` is, and any stretch of it is drawn alone.
struct Signal {
  Source source = Source::generated;
  SignalKind kind = SignalKind::noise;
  std::int64_t batch = 1;
  std::int64_t depth = 1;
  std::int64_t rows = 1;
  std::int64_t length = 1 << 20;
  double amplitude = 1.0;
  double f0 = 0.0, f1 = 0.25;  // chirp: cycles per sample at the first sample and at `length`
  double noise = 0.0;          // chirp: standard deviation of the noise added
  std::uint64_t seed = 1;
  // file: read by inputs.hpp.
  std::string file;            // resolved against the parameter file's folder
  std::string dataset = "signal";
  Layout layout = Layout::batch;
};

// One filter of rows x length taps (depth x rows x length for a volume), or (file) one per signal.
struct Filter {
  FilterKind kind = FilterKind::gaussian;
  std::int64_t depth = 1;
  std::int64_t rows = 1;
  std::int64_t length = 31;
  double sigma = 0.0;  // gaussian: in samples, in both axes; 0: a sixth of the taps in each axis
  std::string file;
  std::string dataset = "filter";
  Layout layout = Layout::batch;
};

struct Params {
  Mode mode = Mode::full;  // scipy's default
  Operation operation = Operation::convolve;
  Precision precision = Precision::single;
  Signal signal;
  Filter filter;
  Variant variant = Variant::automatic;
  std::int64_t block = 0;   // overlap-save transform length; 0: chosen from the filter length
  // Overlap-save in pieces from host memory or the input file, the output written to the result
  // file as it comes: one 1D signal of any length with one filter.
  bool streamed = false;
  std::int64_t piece = 0;   // streamed: samples on the device at a time; 0: the solver's default
  bool write_input = true;  // store the signal and filter beside the output

  // Throws InputError naming the offending key (its source left for the caller). Checks what is
  // known without reading an input file; the front end checks the rest once it has read it.
  void validate() const;

  bool signal_generated() const { return signal.source == Source::generated; }
  bool filter_generated() const { return filter.kind != FilterKind::file; }
  // A volume problem: one 3D signal with one 3D filter (a generated operand deeper than one
  // slice, or a file's dataset read as a volume). Volumes run direct or r2c (VolumeConvolver).
  bool is_volume() const {
    return (signal_generated() ? signal.depth > 1 : signal.layout == Layout::volume) ||
           (filter_generated() ? filter.depth > 1 : filter.layout == Layout::volume);
  }
};

// The volume problem the generated operands describe (file operands' extents are read by
// inputs.hpp): depth x rows x length each.
VolumeProblem generated_volume(const Params& params);

// The checks that need the problem's sizes, known once any input file is read: the variant takes
// the problem, a block length fits the filter, and a streamed run has one 1D signal and filter.
// InputError naming the key (method.variant, method.block, method.streamed).
void check_method(const Params& params, const Problem& p);

// At most this many samples in a signal batch, a filter bank or an output (2^40), as
// check_problem says: far past any device's memory.
inline constexpr std::int64_t kMostSamples = std::int64_t{1} << 40;

}  // namespace parasol::fftconv
