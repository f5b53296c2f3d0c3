// fftconv's operands in the front end: the [signal] and [filter] keys, the signal and filter they
// describe (generated, or read from HDF5 input files: whole, or for a streamed run by hyperslab
// as the convolution asks), and the same written back beside the output. Solvers do not link
// HDF5, so this stays in apps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "io/param_table.hpp"
#include "io/result_file.hpp"
#include "kernels/error.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::app::fftconv_inputs {

using fftconv::Extent;
using fftconv::Params;
using fftconv::Problem;
using fftconv::VolumeProblem;

// The operands' keys once the declared keys (fftconv::keys()) are read into p: a key the chosen
// source or kind does not read is an error, not ignored; and in a volume problem every dataset is
// read as one volume.
void settle_operand_keys(const io::ParamTable& t, Params& p);

// A failed check of an operand or a method key, said against what set it: the parameter file's
// key (the declared key the solver's word names), or for an operand read from a file, the file
// and dataset.
InputError rephrased(const io::ParamTable& t, const Params& p, const InputError& e);

// The key a size complaint is reported against: what set the signal's size.
std::string size_key(const Params& p);

// The memory problem q takes, checked against what the host has available (and with `gpu`,
// what the device has free) before any value is generated or read: InputError naming
// size_key(p). The host holds the signal, filter and output, and with `gold` the gold's output
// in double; a streamed run holds a piece at a time, and the signal only when it was generated.
// The device holds the operands, the output and about two complex spectra per signal at the
// padded full extent: the FFT variants' working set (direct needs less).
void require_memory(const io::ParamTable& t, const Params& p, const Problem& q, double element,
                    bool gpu, bool gold);

// The problem the parameters and input files describe, checked (check_problem, check_method):
// of the files only the datasets' extents are read, so its memory can be judged before any
// value is.
template <class T>
Problem problem_of(const io::ParamTable& t, const Params& p);

template <class T>
struct Operands {
  Problem problem;
  std::vector<T> signal;  // batch * signal.size() values; empty when streamed from a file, or
                          // when drawn on the device
  std::vector<T> filter;  // filters * filter.size() values
  // The signal left to be drawn on the device (fftconv::convolve_gpu from a Signal): signals
  // [first_drawn, first_drawn + problem.batch) of the batch p.signal generates.
  bool drawn = false;
  std::int64_t first_drawn = 0;
};

// Whether a run draws its generated signal on the device and never on the host: a GPU run of a
// generated, unstreamed signal that needs no host copy (no --check, whose gold reads it; no
// output.input, which writes it).
bool draws_on_device(const Params& p, bool gpu, bool check);

// The values of problem q (from problem_of), generated or read and checked to be finite. With
// `on_device` (draws_on_device) a generated signal is left to the device (Operands::drawn).
template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, bool on_device = false);

// A rank's share of a batch: signals [first, first + count) of problem q and their filters (the
// one filter, or the share's own when each signal has one), generated or read alone (only those
// rows of each file), checked to be finite. The problem returned has batch = count. With
// `on_device`, as load_operands.
template <class T>
Operands<T> load_share(const Params& p, const Problem& q, std::int64_t first, std::int64_t count,
                       bool on_device = false);

// A streamed run's signal: samples [offset, offset + count), from memory or by hyperslab from
// its file, checked to be finite as they are read.
template <class T>
class SignalSource {
 public:
  SignalSource(const Params& p, const Operands<T>& ops);
  ~SignalSource();
  void read(std::int64_t offset, std::int64_t count, T* into) const;

 private:
  const Params& p_;
  const Operands<T>& ops_;
  std::unique_ptr<io::ResultReader> file_;  // open while the run reads; null when generated
};

// "convolve (same) of 1 signal of 1048576 samples (chirp from 0 to 0.25 cycles/sample, noise
// 0.1) with a 255-tap Gaussian (sigma 42.5), float": the operands as the summary names them.
std::string describe(const Params& p, const Problem& q);

// /input/signal, /input/filter and /input's attributes. A streamed signal (from a file, or
// generated) is copied across from `source` as the output was written, in runs of whole chunks.
template <class T>
void write_inputs(io::ResultFile& out, const Params& p, const Operands<T>& ops,
                  const SignalSource<T>* source);

// The same for a batch cut among ranks, each rank in its turn: its signals' rows of
// /input/signal (and of /input/filter when each signal has its own), rank 0 the rest. `share`
// holds the rank's signals [first, first + share.problem.batch) of `whole`.
template <class T>
void write_input_share(Output& out, const Params& p, const Problem& whole, const Operands<T>& share,
                       std::int64_t first);

// How an operand or output is stored: [n] or (2D problems) [rows][cols], with a leading
// [count] for a batch; and the layout attribute that says so.
std::vector<std::uint64_t> stored_dims(std::int64_t count, const Extent& e, bool two_d);
std::string layout_of(bool batch, bool two_d, const char* item, const char* axis);

// "1000" for a 1D extent, "32 x 32" for a 2D one, "16 x 32 x 32" for a volume.
std::string extent_text(const Extent& e);
std::string extent_text(const fftconv::Extent3& e);

// Volumes (Params::is_volume): one signal and one filter, each [depth][rows][cols].

// The volume problem the parameters and input files describe, checked (check_problem); of the
// files only the datasets' extents are read. A 1D or 2D dataset is a volume one slice deep.
template <class T>
VolumeProblem volume_problem_of(const io::ParamTable& t, const Params& p);

template <class T>
struct VolumeOperands {
  VolumeProblem problem;
  std::vector<T> signal, filter;
};

// The values of volume problem q, generated or read and checked to be finite.
template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q);

// As require_memory, for a volume: the host holds the operands and output (and with `gold` the
// gold's output in double); the device the operands and output, its transforms going along z in
// chunks of what is left.
void require_volume_memory(const io::ParamTable& t, const Params& p, const VolumeProblem& q,
                           double element, bool gpu, bool gold);

// "convolve (same) of a volume of 64 x 64 x 64 samples (noise, sigma 1) with a 5 x 5 x 5-tap
// box, float".
std::string describe_volume(const Params& p, const VolumeProblem& q);

// /input/signal and /input/filter as [depth][rows][cols], and /input's attributes.
template <class T>
void write_volume_inputs(io::ResultFile& out, const Params& p, const VolumeOperands<T>& ops);

// How a volume is stored, and the layout attribute that says so.
std::vector<std::uint64_t> volume_dims(const fftconv::Extent3& e);
inline constexpr const char* kVolumeLayout = "[z][row][col], col fastest";

// An extent as an attribute: [rows, cols].
inline std::vector<std::int64_t> rows_cols(const Extent& e) { return {e.rows, e.cols}; }

// What a convolution promises of its bits: the CPU gold sums in a fixed order; on the GPU cuFFT's
// plans and the fused kernels run the same kernels in the same order for one problem, device
// model and CUDA version, with no atomics; ranks split whole signals.
Reproducibility reproducibility(bool gpu);

// /output@units: a sum of products of the two.
inline constexpr const char* kOutputUnits =
    "the signal's times the filter's (a generated filter sums to 1: the signal's)";

}  // namespace parasol::app::fftconv_inputs
