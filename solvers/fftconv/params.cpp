#include "solvers/fftconv/params.hpp"

#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "kernels/validate.hpp"
#include "solvers/fftconv/keys.hpp"

namespace parasol::fftconv {
namespace {

constexpr NameTable<Source, 2> kSourceNames{
    {{Source::generated, "generated"}, {Source::file, "file"}}};
constexpr NameTable<SignalKind, 2> kSignalKindNames{
    {{SignalKind::noise, "noise"}, {SignalKind::chirp, "chirp"}}};
constexpr NameTable<FilterKind, 3> kFilterKindNames{
    {{FilterKind::gaussian, "gaussian"}, {FilterKind::box, "box"}, {FilterKind::file, "file"}}};
constexpr NameTable<Layout, 3> kLayoutNames{
    {{Layout::batch, "batch"}, {Layout::image, "image"}, {Layout::volume, "volume"}}};

std::string positive(std::int64_t value) {
  return "expected a positive integer, got " + std::to_string(value);
}

std::string extent_text(std::int64_t rows, std::int64_t length) {
  return rows == 1 ? std::to_string(length)
                   : std::to_string(rows) + " x " + std::to_string(length);
}

std::string extent_text(std::int64_t depth, std::int64_t rows, std::int64_t length) {
  return depth == 1 ? extent_text(rows, length)
                    : std::to_string(depth) + " x " + extent_text(rows, length);
}

// Frequencies past half the sampling rate alias back below it: not the chirp asked for.
void require_frequency(double f, const char* key) {
  require(std::isfinite(f) && f >= 0 && f <= 0.5, key,
          "expected cycles per sample in [0, 0.5], got " + shown(f));
}

}  // namespace

std::string_view name(Source s) { return lookup_name(kSourceNames, s); }
Source parse_source(std::string_view s) { return lookup_value(kSourceNames, s, "source"); }
std::string_view name(SignalKind k) { return lookup_name(kSignalKindNames, k); }
SignalKind parse_signal_kind(std::string_view s) {
  return lookup_value(kSignalKindNames, s, "signal kind");
}
std::string_view name(FilterKind k) { return lookup_name(kFilterKindNames, k); }
FilterKind parse_filter_kind(std::string_view s) {
  return lookup_value(kFilterKindNames, s, "filter kind");
}
std::string_view name(Layout l) { return lookup_name(kLayoutNames, l); }
Layout parse_layout(std::string_view s) { return lookup_value(kLayoutNames, s, "layout"); }

void Params::validate() const {
  if (signal_generated()) {
    require(signal.batch >= 1, "signal.batch", positive(signal.batch));
    require(signal.depth >= 1, "signal.depth", positive(signal.depth));
    require(signal.rows >= 1, "signal.rows", positive(signal.rows));
    require(signal.length >= 1, "signal.length", positive(signal.length));
    // Divided, not multiplied, so the product cannot overflow before it is compared.
    require(signal.rows <= kMostSamples / signal.length &&
                signal.depth <= kMostSamples / (signal.rows * signal.length) &&
                signal.batch <= kMostSamples / (signal.depth * signal.rows * signal.length),
            "signal",
            "expected at most 2^40 samples in all, got " + std::to_string(signal.batch) +
                " signals of " + extent_text(signal.depth, signal.rows, signal.length));
    // A transform of n samples has spectra up to n times the largest sample, and normals run
    // to a few sigma (a chirp adds its noise to its amplitude): in float those must stay in
    // range (1e35 would pass as a sample and come back as infinity).
    const bool single = precision == Precision::single;
    const double headroom = 16.0 * static_cast<double>(signal.depth) *
                            static_cast<double>(signal.rows) * static_cast<double>(signal.length);
    require_representable(signal.amplitude, "signal.amplitude", single, headroom);
    if (signal.kind == SignalKind::chirp) {
      require_frequency(signal.f0, "signal.f0");
      require_frequency(signal.f1, "signal.f1");
      require(std::isfinite(signal.noise) && signal.noise >= 0, "signal.noise",
              "expected a number >= 0, got " + shown(signal.noise));
      require_representable(signal.noise, "signal.noise", single, headroom);
    }
  } else {
    require(!signal.file.empty(), "signal.file",
            "expected the name of an HDF5 file holding the signal");
    require(!signal.dataset.empty(), "signal.dataset", "expected the name of a dataset");
  }

  if (filter_generated()) {
    require(filter.depth >= 1, "filter.depth", positive(filter.depth));
    require(filter.rows >= 1, "filter.rows", positive(filter.rows));
    require(filter.length >= 1, "filter.length", positive(filter.length));
    require(filter.rows <= kMostSamples / filter.length &&
                filter.depth <= kMostSamples / (filter.rows * filter.length),
            "filter",
            "expected at most 2^40 taps, got " +
                extent_text(filter.depth, filter.rows, filter.length));
    if (filter.kind == FilterKind::gaussian)
      require(std::isfinite(filter.sigma) && filter.sigma >= 0, "filter.sigma",
              "expected a number of samples >= 0 (0: a sixth of the taps), got " +
                  shown(filter.sigma));
  } else {
    require(!filter.file.empty(), "filter.file",
            "expected the name of an HDF5 file holding the filter");
    require(!filter.dataset.empty(), "filter.dataset", "expected the name of a dataset");
  }

  const bool may_overlap_save = variant == Variant::overlap_save || variant == Variant::automatic;
  const bool takes_block = may_overlap_save || variant == Variant::fused;
  require(block >= 0, "method.block",
          "expected 0 (chosen from the filter length) or a transform length, got " +
              std::to_string(block));
  require(block == 0 || takes_block, "method.block",
          "only overlap-save and fused take a block length; method.variant is \"" +
              std::string(name(variant)) + "\"");
  require(piece >= 0, "method.piece",
          "expected 0 (the solver's default) or a number of samples, got " +
              std::to_string(piece));
  require(piece == 0 || streamed, "method.piece",
          "only a streamed run (method.streamed = true) takes a piece length");
  require(!streamed || may_overlap_save, "method.variant",
          "a streamed run is overlap-save; expected \"overlap-save\" or \"auto\", got \"" +
              std::string(name(variant)) + "\"");

  if (is_volume()) {
    require(!signal_generated() || signal.batch == 1, "signal.batch",
            "a volume is one signal; expected 1, got " + std::to_string(signal.batch));
    require(!streamed, "method.streamed", "a volume runs whole; expected false");
    require(supports_volume(variant), "method.variant",
            "volumes run direct or r2c; expected \"direct\", \"r2c\" or \"auto\", got \"" +
                std::string(name(variant)) + "\"");
    require(block == 0, "method.block",
            "volumes take no block length; expected 0, got " + std::to_string(block));
    if (signal_generated() && filter_generated()) {
      try {
        check_problem(generated_volume(*this));
      } catch (const InputError& e) {
        throw InputError("", file_key(e.key()), e.expected());
      }
    }
    return;
  }

  // With both operands generated their sizes are known here; a file's are checked once read.
  if (signal_generated() && filter_generated()) {
    Problem p;
    p.batch = signal.batch;
    p.signal = {signal.rows, signal.length};
    p.filter = {filter.rows, filter.length};
    p.mode = mode;
    p.operation = operation;
    try {
      check_problem(p);
    } catch (const InputError& e) {
      throw InputError("", file_key(e.key()), e.expected());
    }
    check_method(*this, p);
  }
}

VolumeProblem generated_volume(const Params& params) {
  VolumeProblem p;
  p.signal = {params.signal.depth, params.signal.rows, params.signal.length};
  p.filter = {params.filter.depth, params.filter.rows, params.filter.length};
  p.mode = params.mode;
  p.operation = params.operation;
  return p;
}

void check_method(const Params& params, const Problem& p) {
  // fused says itself why it cannot run: not compiled in, a filter too long, a block length not
  // compiled in.
  if (params.variant == Variant::fused) {
    try {
      (void)fused_block(p, Options{params.variant, params.block},
                        params.precision == Precision::single ? 4 : 8);
    } catch (const InputError& e) {
      throw InputError("", file_key(e.key()), e.expected());
    }
  }
  require(supports(params.variant, p), "method.variant",
          std::string(name(params.variant)) + " takes 1D problems only; the signal is " +
              extent_text(p.signal.rows, p.signal.cols) + " and the filter " +
              extent_text(p.filter.rows, p.filter.cols));
  // Each block of the transform length keeps block - (taps - 1) new outputs: at least one.
  require(params.block == 0 || params.block >= p.filter.cols, "method.block",
          "expected 0 (chosen) or at least the filter's " + std::to_string(p.filter.cols) +
              " taps, got " + std::to_string(params.block));
  require(!params.streamed || (p.batch == 1 && p.filters == 1 && !p.is_2d()), "method.streamed",
          "a streamed run takes one 1D signal and one 1D filter; got " +
              std::to_string(p.batch) + " of " + extent_text(p.signal.rows, p.signal.cols) +
              " samples and " + std::to_string(p.filters) + " of " +
              extent_text(p.filter.rows, p.filter.cols) + " taps");
}

}  // namespace parasol::fftconv
