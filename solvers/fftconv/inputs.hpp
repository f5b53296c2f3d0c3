// fftconv's operands from the parameters: the HDF5 input files they are read from (through io/,
// which this library links privately: the rest of the host API compiles and links without HDF5's
// headers), the problem they make checked, the memory it takes, and what a summary calls them.
// A complaint names its key with no source (the front end adds the parameter file's line), or
// the input file and dataset it is about.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/operands.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {

// The HDF5 input files operands are read from (io/input_file.hpp): a missing one named by its
// key, and one that is another run's result by the docs' convention with the command that makes
// it; every value read checked finite.
template <class T>
const OperandFiles<T>& operand_files();

// A failed check of an operand or a method key, said against what set it: the declared key the
// solver's word names (file_key), or for an operand read from a file, the file and dataset. An
// error that names its source already (a streamed read of the input file) is kept.
InputError rephrased(const Params& p, const InputError& e);

// The problem the parameters and input files describe, checked (check_problem, check_method): of
// the files only the datasets' extents are read, so its memory can be judged before any value is.
template <class T>
Problem problem_of(const Params& p);

// The values of problem q, generated or read from the HDF5 input files (load_operands,
// load_share).
template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, bool on_device = false) {
  return load_operands(p, q, operand_files<T>(), on_device);
}
template <class T>
Operands<T> load_share(const Params& p, const Problem& q, std::int64_t first, std::int64_t count,
                       bool on_device = false) {
  return load_share(p, q, operand_files<T>(), first, count, on_device);
}

// One amount of memory a run needs, checked before anything is made: `bytes` of the host's (or
// with `device`, the device's free memory), refused naming `key` at the source of `source_key`,
// saying "<what> about ...<hint>".
struct MemoryNeed {
  std::string source_key, key, what;
  double bytes = 0;
  bool device = false;
  std::string hint;
};

// What problem q takes, in the order it is checked: a generated filter and its making alone
// first, so a filter too long is named as such. The host holds the signal, filter and output,
// and with `gold` the gold's output in double; a streamed run holds a piece at a time, and the
// signal only when it was generated. With `gpu` the device holds the operands, the output and
// about two complex spectra per signal at the padded full extent: the FFT variants' working set
// (direct needs less).
std::vector<MemoryNeed> memory_needs(const Params& p, const Problem& q, double element, bool gpu,
                                     bool gold);

// "convolve (same) of 1 signal of 1048576 samples (chirp from 0 to 0.25 cycles/sample, noise
// 0.1) with a 255-tap Gaussian (sigma 42.5), float": the operands as the summary names them.
std::string describe(const Params& p, const Problem& q);

// Volumes (Params::is_volume): one signal and one filter, each [depth][rows][cols].

// The volume problem the parameters and input files describe, checked (check_problem); of the
// files only the datasets' extents are read. A 1D or 2D dataset is a volume one slice deep.
template <class T>
VolumeProblem volume_problem_of(const Params& p);

// The values of volume problem q, generated or read from the HDF5 input files.
template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q) {
  return load_volume(p, q, operand_files<T>());
}

// As memory_needs, for a volume: the host holds the operands and output (and with `gold` the
// gold's output in double); the device the operands and output, its transforms going along z in
// chunks of what is left.
std::vector<MemoryNeed> volume_memory_needs(const Params& p, const VolumeProblem& q,
                                            double element, bool gpu, bool gold);

// "convolve (same) of a volume of 64 x 64 x 64 samples (noise, sigma 1) with a 5 x 5 x 5-tap
// box, float".
std::string describe_volume(const Params& p, const VolumeProblem& q);

}  // namespace parasol::fftconv
