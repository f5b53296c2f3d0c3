// fftconv on volumes: linear convolution and correlation of one real 3D signal with one real 3D
// filter, in scipy.signal.fftconvolve's modes per axis (full, same, valid), on the CPU (the gold)
// and on the device (direct sums, or cuFFT's 3D real transforms in chunks along z when the
// padded volume would not fit a memory budget). Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "solvers/fftconv/fftconv.hpp"

namespace parasol::fftconv {

// depth x rows x cols, cols fastest.
struct Extent3 {
  std::int64_t depth = 1, rows = 1, cols = 1;
  std::int64_t size() const { return depth * rows * cols; }
  bool operator==(const Extent3& o) const {
    return depth == o.depth && rows == o.rows && cols == o.cols;
  }
  bool operator!=(const Extent3& o) const { return !(*this == o); }
};

struct VolumeProblem {
  Extent3 signal, filter;
  Mode mode = Mode::full;
  Operation operation = Operation::convolve;
};

// InputError (key "signal", "filter" or "mode") for an empty signal or filter, a valid mode
// where neither operand is at least as large as the other in every axis, or sizes past 2^40.
void check_problem(const VolumeProblem& p);
// The output's extent, and where it starts inside the full convolution, per axis as for 1D.
Extent3 output_extent(const VolumeProblem& p);
Extent3 output_offset(const VolumeProblem& p);

// CPU gold: direct sums in double. signal holds p.signal.size() values, filter p.filter.size();
// returns output_extent(p).size() values. Output slices [z0, z0 + slices) alone (slices -1: to
// the last), so a large volume can be judged a slab at a time: the slabs of a volume put
// together are the whole volume's gold, bit for bit.
template <class T>
std::vector<double> convolve_gold(const VolumeProblem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter, std::int64_t z0 = 0,
                                  std::int64_t slices = -1);

// The volume variants: direct (shared-memory-free direct sums, for small filters) and r2c (3D
// real transforms of the padded volume, overlap-save along z in chunks). automatic: by filter
// size. Others are InputErrors (key "variant").
bool supports_volume(Variant v);
Variant choose_volume_variant(const VolumeProblem& p, int element_bytes);

// r2c: output slices per chunk along z so that a chunk's padded volume, its spectrum, the
// filter's spectrum and cuFFT's work area fit in `budget` bytes: every slice when the whole
// volume fits. At least 1; InputError (key "memory") when not even one slice fits.
std::int64_t volume_chunk_depth(const VolumeProblem& p, int element_bytes, std::size_t budget);

// The transform lengths a chunk of `slices` output slices takes: slices + kd - 1 along z, rows and
// columns as the 2D variants pad them, each a fast length (good_fft_length).
Extent3 volume_transform_extent(const VolumeProblem& p, std::int64_t slices);

// Device memory a chunk of `slices` output slices takes, the filter's spectrum and cuFFT's work
// area estimated (three padded-volume buffers).
std::size_t volume_chunk_bytes(const VolumeProblem& p, int element_bytes, std::int64_t slices);

struct VolumeOptions {
  Variant variant = Variant::automatic;
  // r2c: the device memory the transforms may take; 0: half the free device memory.
  std::size_t memory_budget = 0;
};

// Convolves a volume already on the device (signal, filter, output: device pointers). Keeps its
// cuFFT plans between calls. Returns the variant that ran; InputError for a malformed problem or
// a variant volumes do not take.
template <class T>
class VolumeConvolver {
 public:
  VolumeConvolver();
  ~VolumeConvolver();
  VolumeConvolver(const VolumeConvolver&) = delete;
  VolumeConvolver& operator=(const VolumeConvolver&) = delete;
  Variant convolve(const VolumeProblem& p, const VolumeOptions& o, const T* signal,
                   const T* filter, T* output, cudaStream_t stream);
  // Chunks the last r2c convolution took along z (1: the whole volume at once).
  std::int64_t last_chunks() const;
  // Keeps r2c's filter spectrum between calls, as the plans are kept: a call with the same filter
  // pointer, extent, operation and transform extent as the call that computed it reuses it. Only
  // for a caller that owns the filter and never changes its values while this object lives (the
  // benchmark, convolve_volume_gpu). Off by default, since a pointer says nothing of the values.
  void keep_filter_spectra();
  // Filter spectra computed so far (a reuse of a kept one is not counted).
  std::int64_t spectra_computed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Upload, convolve, download (for the tests and the front end). The output is filled with NaN
// before the run, so a sample left unwritten cannot pass a check. With `timings`, a first
// convolution makes the cuFFT plans and the filter's spectrum (phase setup), and a second is
// timed alone (compute): setup, host_to_device, compute and device_to_host are added to it.
template <class T>
std::vector<T> convolve_volume_gpu(const VolumeProblem& p, const VolumeOptions& o,
                                   const std::vector<T>& signal, const std::vector<T>& filter,
                                   Variant* ran = nullptr, std::int64_t* chunks = nullptr,
                                   PhaseTimer* timings = nullptr);

}  // namespace parasol::fftconv
