#include "solvers/fftconv/keys.hpp"

#include <array>
#include <cstdint>

namespace parasol::fftconv {
namespace {

// The conditions the operands' keys are read under, as the keys read before them set them.
bool generated_signal(const Params& p) { return p.signal_generated(); }
bool chirp(const Params& p) { return p.signal_generated() && p.signal.kind == SignalKind::chirp; }
bool signal_file(const Params& p) { return !p.signal_generated(); }
bool generated_filter(const Params& p) { return p.filter_generated(); }
bool gaussian(const Params& p) { return p.filter.kind == FilterKind::gaussian; }
bool filter_file(const Params& p) { return !p.filter_generated(); }

constexpr const char* kGenerated = "signal.source = \"generated\"";
constexpr const char* kChirp = "signal.kind = \"chirp\"";
constexpr const char* kSignalFile = "signal.source = \"file\"";
constexpr const char* kGeneratedFilter = "filter.kind = \"gaussian\" or \"box\"";
constexpr const char* kGaussian = "filter.kind = \"gaussian\"";
constexpr const char* kFilterFile = "filter.kind = \"file\"";

// An input file's name: shown as required, but read as "" when missing, so that a key of the other
// source is refused first and Params::validate then says what the missing name should hold.
Key<Params> shown_required(Key<Params> k) {
  k.info.fallback.clear();
  return k;
}

constexpr std::array kLayouts{Layout::batch, Layout::image, Layout::volume};
constexpr std::array kAllVariants{Variant::automatic, Variant::c2c, Variant::r2c,
                                  Variant::overlap_save, Variant::direct, Variant::fused};

}  // namespace

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    k.push_back(choice<P>("problem.mode", [](P& p) -> auto& { return p.mode; }, kModes,
                          parse_mode, "the output's extent (above; scipy's default is full)"));
    k.push_back(choice<P>("problem.operation", [](P& p) -> auto& { return p.operation; },
                          std::array{Operation::convolve, Operation::correlate}, parse_operation,
                          "correlate reverses the filter in every axis"));
    k.push_back(choice<P>("problem.precision", [](P& p) -> auto& { return p.precision; },
                          std::array{Precision::single, Precision::double_}, parse_precision,
                          "storage and arithmetic on the GPU (the gold sums in double); input "
                          "files are converted"));

    k.push_back(choice<P>("signal.source", [](P& p) -> auto& { return p.signal.source; },
                          kSources, parse_source,
                          "where the signals come from; the other source's keys are then an "
                          "error, not ignored"));
    k.push_back(choice<P>("signal.kind", [](P& p) -> auto& { return p.signal.kind; },
                          kSignalKinds, parse_signal_kind,
                          "generated: white Gaussian noise of standard deviation `amplitude`; or "
                          "`amplitude cos(2π (f0 t + (f1 − f0) t² / (2 length)))`, the frequency "
                          "rising linearly from f0 at t = 0 to f1 at t = length along each row, "
                          "plus white Gaussian noise of standard deviation `noise`")
                    .only_if(generated_signal, kGenerated));
    k.push_back(key<P>("signal.batch", [](P& p) -> auto& { return p.signal.batch; },
                       "generated: signals convolved at once, one after another")
                    .values("≥ 1")
                    .only_if(generated_signal, kGenerated));
    k.push_back(key<P>("signal.depth", [](P& p) -> auto& { return p.signal.depth; },
                       "generated: slices of the signal; more than 1 makes it one depth × rows × "
                       "length volume (a 3D problem; `batch` must be 1)")
                    .values("≥ 1")
                    .only_if(generated_signal, kGenerated));
    k.push_back(key<P>("signal.rows", [](P& p) -> auto& { return p.signal.rows; },
                       "generated: rows of each signal; more than 1 makes each a rows × length "
                       "image (a 2D problem)")
                    .values("≥ 1")
                    .only_if(generated_signal, kGenerated));
    k.push_back(key<P>("signal.length", [](P& p) -> auto& { return p.signal.length; },
                       "generated: samples of each signal (of each row of an image); at most "
                       "2⁴⁰ samples in all")
                    .values("≥ 1")
                    .unit("samples")
                    .only_if(generated_signal, kGenerated));
    k.push_back(key<P>("signal.amplitude", [](P& p) -> auto& { return p.signal.amplitude; },
                       "generated: the noise's standard deviation, or the chirp's amplitude")
                    .only_if(generated_signal, kGenerated));
    for (const auto& [frequency, get] :
         {std::pair{"signal.f0", +[](P& p) -> double& { return p.signal.f0; }},
          std::pair{"signal.f1", +[](P& p) -> double& { return p.signal.f1; }}})
      k.push_back(key<P>(frequency, get,
                         "chirp: cycles per sample at the first sample and at `length`")
                      .values("in [0, 0.5]")
                      .unit("cycles/sample")
                      .only_if(chirp, kChirp));
    k.push_back(key<P>("signal.noise", [](P& p) -> auto& { return p.signal.noise; },
                       "chirp: standard deviation of the noise added")
                    .values("≥ 0")
                    .only_if(chirp, kChirp));
    k.push_back(key<P>("signal.seed", [](P& p) -> auto& { return p.signal.seed; },
                       "seed of the noise: each sample is a counter-based draw indexed by its "
                       "signal and place (docs/generated-inputs.md), so a signal does not depend "
                       "on the batch, the ranks or the threads, and any stretch is drawn alone")
                    .values("≥ 0")
                    .only_if(generated_signal, kGenerated));
    k.push_back(shown_required(
        file<P>("signal.file", [](P& p) -> auto& { return p.signal.file; },
                "the HDF5 input file; a relative path is taken from the parameter file's folder "
                "(given on the command line, from the current folder)")
            .only_if(signal_file, kSignalFile)));
    k.push_back(key<P>("signal.dataset", [](P& p) -> auto& { return p.signal.dataset; },
                       "file: the dataset, `[n]` (one signal), `[batch][n]` or `[rows][cols]` "
                       "(as `signal.layout` says), or `[batch][rows][cols]` (a batch of images)")
                    .only_if(signal_file, kSignalFile));
    k.push_back(choice<P>("signal.layout", [](P& p) -> auto& { return p.signal.layout; },
                          kLayouts, parse_layout,
                          "file: whether a 2D dataset is a batch of 1D signals (one per row) or "
                          "one image; `\"volume\"`: the dataset (rank 3, `[depth][rows][cols]`) "
                          "is one volume (a 3D problem)")
                    .only_if(signal_file, kSignalFile));

    k.push_back(choice<P>("filter.kind", [](P& p) -> auto& { return p.filter.kind; },
                          kFilterKinds, parse_filter_kind,
                          "a sampled Gaussian `exp(−(i − c)² / (2 sigma²))` centred at c = (taps "
                          "− 1) / 2, or a moving average (1 / taps each), each normalised to sum "
                          "1 (2D: the product of the 1D filters along each axis); or a dataset of "
                          "an HDF5 file"));
    k.push_back(key<P>("filter.depth", [](P& p) -> auto& { return p.filter.depth; },
                       "gaussian, box: slices of the filter (more than 1: a 3D filter, and a 3D "
                       "problem)")
                    .values("≥ 1")
                    .only_if(generated_filter, kGeneratedFilter));
    k.push_back(key<P>("filter.rows", [](P& p) -> auto& { return p.filter.rows; },
                       "gaussian, box: rows of the filter (more than 1: a 2D filter, and a 2D "
                       "problem)")
                    .values("≥ 1")
                    .only_if(generated_filter, kGeneratedFilter));
    k.push_back(key<P>("filter.length", [](P& p) -> auto& { return p.filter.length; },
                       "gaussian, box: taps (of each row)")
                    .values("≥ 1")
                    .unit("taps")
                    .only_if(generated_filter, kGeneratedFilter));
    k.push_back(key<P>("filter.sigma", [](P& p) -> auto& { return p.filter.sigma; },
                       "gaussian: in samples, the same in both axes; 0 takes a sixth of the taps "
                       "in each axis (so they span ±3 sigma)")
                    .values("≥ 0")
                    .unit("samples")
                    .only_if(gaussian, kGaussian));
    k.push_back(shown_required(
        file<P>("filter.file", [](P& p) -> auto& { return p.filter.file; },
                "the HDF5 file holding the filter, resolved as `signal.file` is")
            .only_if(filter_file, kFilterFile)));
    k.push_back(key<P>("filter.dataset", [](P& p) -> auto& { return p.filter.dataset; },
                       "file: `[k]` (one filter), `[filters][k]` or `[rows][cols]` (as "
                       "`filter.layout` says), or `[filters][rows][cols]`; there must be 1 "
                       "filter (for every signal) or one per signal")
                    .only_if(filter_file, kFilterFile));
    k.push_back(choice<P>("filter.layout", [](P& p) -> auto& { return p.filter.layout; },
                          kLayouts, parse_layout,
                          "file: whether a 2D dataset is a bank of 1D filters (one per row) or "
                          "one 2D filter; `\"volume\"`: one 3D filter")
                    .only_if(filter_file, kFilterFile));

    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; },
                          kAllVariants, parse_variant, "GPU method (below)")
                    .gpu_only());
    k.push_back(key<P>("method.block", [](P& p) -> auto& { return p.block; },
                       "overlap-save, fused (or auto): the transform length, at least the "
                       "filter's taps; 0 chooses one from the filter length (fused: the compiled "
                       "length whose transforms cost least for a signal's outputs, by a cost a "
                       "point measured for each length). fused takes only its compiled lengths "
                       "(1024, 2048, 4096 and 8192 in float; 1024, 2048 and 4096 in double). On "
                       "images it is fused's row length, at least the one fused chooses (0)")
                    .values("≥ 0")
                    .unit("samples")
                    .gpu_only());
    k.push_back(key<P>("method.streamed", [](P& p) -> auto& { return p.streamed; },
                       "overlap-save in pieces: the signal is read a piece at a time from host "
                       "memory (generated) or from the input file (by hyperslab), and the output "
                       "is written to the result file as it comes, never whole in memory. One 1D "
                       "signal with one 1D filter; variant `overlap-save` or `auto`"));
    k.push_back(key<P>("method.piece", [](P& p) -> auto& { return p.piece; },
                       "streamed: samples on the device at a time; 0 takes the solver's default "
                       "(2²⁴)")
                    .values("≥ 0")
                    .unit("samples")
                    .gpu_only());
    k.push_back(key<P>("output.input", [](P& p) -> auto& { return p.write_input; },
                       "also store the signal and filter under `/input`"));
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    Key<S> variants = choices<S>(
        "sweep.variants", [](S& s) -> auto& { return s.variants; }, kAllVariants, parse_variant,
        "variants `parasol sweep` times (those that cannot take the problem are skipped with a "
        "note)");
    variants.info.fallback = "[" + quoted_names(kAllVariants) + "]";
    auto inner = variants.set;
    variants.set = [inner](S& s, const KeyValue& v) {
      if (std::get<std::vector<std::string>>(v).empty())
        throw InputError("", "", "expected at least one variant");
      inner(s, v);
    };
    k.push_back(std::move(variants));
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; },
                       "timed convolutions per variant (after a warm-up)");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    MethodAxes<P> m;
    // A stored choice is a variant that ran: auto's own pick is stored as that variant.
    MethodAxis<P> variant = variant_axis<P>(
        [](P& p) -> auto& { return p.variant; },
        [](std::string_view text) {
          const Variant v = parse_variant(text);
          if (v == Variant::automatic) throw InputError("expected a variant other than auto");
          return v;
        },
        12);
    // Stored with overlap-save alone; a choice without it runs the length chosen from the filter.
    MethodAxis<P> block = integer_axis<P>("block", "", 0, [](P& p) -> auto& { return p.block; },
                                          0, INT64_MAX, "a transform length");
    variant.recorded = block.recorded = [](const P&) { return false; };
    m.axes = {std::move(variant), std::move(block)};
    m.autotuned = true;
    m.validated_as = "block";
    return m;
  }();
  return axes;
}

std::string file_key(std::string_view solver_key) {
  const std::string tail = "." + std::string(solver_key);
  std::string found;
  int matches = 0;
  for (const Key<Params>& k : keys()) {
    const std::string& key = k.info.key;
    if (key.size() > tail.size() &&
        key.compare(key.size() - tail.size(), tail.size(), tail) == 0) {
      found = key;
      ++matches;
    }
  }
  return matches == 1 ? found : std::string(solver_key);
}

}  // namespace parasol::fftconv
