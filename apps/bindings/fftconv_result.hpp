// What fftconv's runs write of their problem and operands (solvers/fftconv/inputs.hpp makes
// them): the problem's attributes, and /input's signal, filter and sources, for a whole run, a
// batch cut among ranks and a volume.
#pragma once

#include <cstdint>
#include <string>

#include "apps/binding.hpp"
#include "io/result_file.hpp"
#include "solvers/fftconv/inputs.hpp"

namespace parasol::app::fftconv_result {

// The problem as /output and /sweep record it: its mode, operation and shape.
void write_problem(io::ResultFile& out, const std::string& group, const fftconv::Problem& q);

// /input's attributes: where the signal and the filter came from.
void write_sources(io::ResultFile& out, const fftconv::Params& p);

// /input/signal, /input/filter and /input's attributes. A streamed signal (from a file, or
// generated) is copied across from `source` as the output was written, in runs of whole chunks.
template <class T>
void write_inputs(io::ResultFile& out, const fftconv::Params& p, const fftconv::Operands<T>& ops,
                  const fftconv::SignalSource<T>* source);

// The same for a batch cut among ranks, each rank in its turn: its signals' rows of
// /input/signal (and of /input/filter when each signal has its own), rank 0 the rest. `share`
// holds the rank's signals [first, first + share.problem.batch) of `whole`.
template <class T>
void write_input_share(Output& out, const fftconv::Params& p, const fftconv::Problem& whole,
                       const fftconv::Operands<T>& share, std::int64_t first);

// /input/signal and /input/filter of a volume as [depth][rows][cols], and /input's attributes.
template <class T>
void write_volume_inputs(io::ResultFile& out, const fftconv::Params& p,
                         const fftconv::VolumeOperands<T>& ops) {
  if (p.write_input) {
    out.write_field("/input/signal", ops.signal.data(), fftconv::volume_dims(ops.problem.signal));
    out.set_attribute("/input/signal", "layout", std::string(fftconv::kVolumeLayout));
    out.write_field("/input/filter", ops.filter.data(), fftconv::volume_dims(ops.problem.filter));
    out.set_attribute("/input/filter", "layout", std::string(fftconv::kVolumeLayout));
  }
  write_sources(out, p);
}

// What a convolution promises of its bits: the CPU gold sums in a fixed order; on the GPU cuFFT's
// plans and the fused kernels run the same kernels in the same order for one problem, device
// model and CUDA version, with no atomics; ranks split whole signals.
inline Reproducibility reproducibility(bool gpu) {
  return {true, fftconv::reproducibility_because(gpu)};
}

}  // namespace parasol::app::fftconv_result
