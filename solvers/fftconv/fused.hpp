// fftconv's fused overlap-save (the `fused` variant): each block of a signal is read once,
// transformed, multiplied by the filter's spectrum and transformed back inside one kernel, and
// its valid outputs written once, with cuFFTDx's block FFTs. Two blocks share one complex
// transform (one as its real part, the other as its imaginary part) where they share the filter:
// the filter is real, so the two convolutions stay apart in the real and imaginary parts.
// Internal to the solver: fftconv.cu calls it. Host-only; compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace parasol::fftconv::fused {

// Whether the kernels are compiled in (cuFFTDx found at build time).
bool compiled_in();

// The transform lengths compiled for T, ascending; empty when not compiled in.
template <class T>
std::vector<std::int64_t> block_lengths();

// spectra[f][0, block) (complex, as pairs of T): the full spectrum of filter f's `taps` taps
// (reversed when `reverse`) zero-padded to `block`, scaled by 1 / block, for `filters` filters.
// spectra holds 2 * filters * block values. block must be one of block_lengths<T>().
template <class T>
void filter_spectra(const T* filter, std::int64_t taps, std::int64_t filters, bool reverse,
                    std::int64_t block, T* spectra, cudaStream_t stream);

// Overlap-save over `signals` signals of n samples (x_stride apart), each cut into `blocks`
// blocks: block j of signal b holds samples first + j * step + [0, block) (zero outside
// [0, n)); its samples [overlap, block) are output samples j * step + [0, step) of that signal,
// of which those below `count` are written (out_stride apart). Filter f's spectrum serves
// signal f, or every signal when one_filter. x holds each signal's samples from x_begin on, up
// to x_end (< 0: n): a window of a longer signal (a range of its output, one signal).
// Blocks 2k and 2k + 1 of the flattened (signal, block) list share one transform when
// one_filter: the rounding of each depends on the other.
struct Blocks {
  std::int64_t signals = 1, n = 0, x_stride = 0;
  std::int64_t x_begin = 0, x_end = -1;
  std::int64_t first = 0, step = 1, blocks = 1, overlap = 0;
  std::int64_t count = 0, out_stride = 0;
  bool one_filter = true;
};

template <class T>
void convolve_blocks(const Blocks& b, std::int64_t block, const T* x, const T* spectra, T* out,
                     cudaStream_t stream);

// 2D (images): the row transforms, with the zero padding fused into the forward's load and the
// crop into the inverse's store; the column transforms, the multiply and the scale between them
// are fftconv.cu's. Two rows of one image share one complex transform of `length` points (one
// as its real part, the other as its imaginary part), the last row of an odd count alone, so an
// image's bits do not depend on the images beside it. Spectra are complex (pairs of T), rows of
// length / 2 + 1 values, `spectrum_rows` rows an image.
struct ImageRows {
  std::int64_t images = 1;
  std::int64_t rows = 0, cols = 0;  // forward: each image's extent; inverse: each output's
  std::int64_t spectrum_rows = 0;
  std::int64_t first_row = 0, first_col = 0;  // inverse: where each output starts in the result
};

// The column transforms of images' half spectra with the multiply between them, in one kernel:
// for each image's `length` rows of `width` values (the first `filled` from forward_rows, the
// rest read as zeros), each column's forward transform (cuFFTDx, a few neighbouring columns a
// block, staged through shared memory so that every load and store is a whole sector), times the
// filter's spectrum (filter_spectra: length x width values a filter) and `scale`, its inverse,
// stored back over the rows. columns_compiled: whether `length` is compiled for it.
struct ImageColumns {
  std::int64_t images = 1, width = 0, filled = 0;
  bool one_filter = true;
  double scale = 1;
};
bool columns_compiled(std::int64_t length, int element_bytes);
template <class T>
void convolve_columns(const ImageColumns& c, std::int64_t length, T* spectra,
                      const T* filter_spectra, cudaStream_t stream);

// spectra[i][y] = the half spectrum of row y of image i (images x rows x cols values from x),
// zero-padded to `length`, for y < rows; the other rows are left as they are.
template <class T>
void forward_rows(const ImageRows& r, std::int64_t length, const T* x, T* spectra,
                  cudaStream_t stream);

// out[i][y][c] = the unscaled inverse transform of half spectrum spectra[i][first_row + y] at
// first_col + c, for the images x rows x cols outputs; rows past spectrum_rows wrap around, and
// columns past the transform's length are left as they are (both are outputs that a shorter
// transform wraps terms into, recomputed by the caller).
template <class T>
void inverse_rows(const ImageRows& r, std::int64_t length, const T* spectra, T* out,
                  cudaStream_t stream);

}  // namespace parasol::fftconv::fused
