// fftconv's operands in the front end: the HDF5 input files the solver's operands
// (solvers/fftconv/operands.hpp) are read from, a solver's complaint said against its key, the
// memory they take checked against the host's and the device's, what the summary calls them, and
// the same written back beside the output. Solvers do not link HDF5, so the files' reading stays
// in apps.
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
#include "solvers/fftconv/operands.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::app::fftconv_inputs {

using fftconv::Extent;
using fftconv::Params;
using fftconv::Problem;
using fftconv::VolumeProblem;
using fftconv::draws_on_device;
using fftconv::extent_text;
using fftconv::kOutputUnits;
using fftconv::kVolumeLayout;
using fftconv::layout_of;
using fftconv::Operands;
using fftconv::rows_cols;
using fftconv::SignalSource;
using fftconv::stored_dims;
using fftconv::volume_dims;
using fftconv::VolumeOperands;

// The HDF5 input files operands are read from (io/input_file.hpp): a missing one named by its
// key, and one that is another run's result by the docs' convention with the command that makes
// it; every value read checked finite.
template <class T>
const fftconv::OperandFiles<T>& operand_files();

// A failed check of an operand or a method key, said against what set it: the parameter file's
// key (the declared key the solver's word names), or for an operand read from a file, the file
// and dataset.
InputError rephrased(const io::ParamTable& t, const Params& p, const InputError& e);

// The memory problem q takes, checked against what the host has available (and with `gpu`,
// what the device has free) before any value is generated or read: InputError naming
// fftconv::size_key(p). The host holds the signal, filter and output, and with `gold` the gold's
// output in double; a streamed run holds a piece at a time, and the signal only when it was generated.
// The device holds the operands, the output and about two complex spectra per signal at the
// padded full extent: the FFT variants' working set (direct needs less).
void require_memory(const io::ParamTable& t, const Params& p, const Problem& q, double element,
                    bool gpu, bool gold);

// The problem the parameters and input files describe, checked (check_problem, check_method):
// of the files only the datasets' extents are read, so its memory can be judged before any
// value is.
template <class T>
Problem problem_of(const io::ParamTable& t, const Params& p);

// fftconv's load_operands and load_share (operands.hpp) from the HDF5 input files.
template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, bool on_device = false) {
  return fftconv::load_operands(p, q, operand_files<T>(), on_device);
}
template <class T>
Operands<T> load_share(const Params& p, const Problem& q, std::int64_t first, std::int64_t count,
                       bool on_device = false) {
  return fftconv::load_share(p, q, operand_files<T>(), first, count, on_device);
}

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

// Volumes (Params::is_volume): one signal and one filter, each [depth][rows][cols].

// The volume problem the parameters and input files describe, checked (check_problem); of the
// files only the datasets' extents are read. A 1D or 2D dataset is a volume one slice deep.
template <class T>
VolumeProblem volume_problem_of(const io::ParamTable& t, const Params& p);

// The values of volume problem q, generated or read from the HDF5 input files.
template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q) {
  return fftconv::load_volume(p, q, operand_files<T>());
}

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

// What a convolution promises of its bits: the CPU gold sums in a fixed order; on the GPU cuFFT's
// plans and the fused kernels run the same kernels in the same order for one problem, device
// model and CUDA version, with no atomics; ranks split whole signals.
Reproducibility reproducibility(bool gpu);

}  // namespace parasol::app::fftconv_inputs
