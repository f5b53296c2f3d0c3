// fftconv on volumes, on the device: direct sums, and cuFFT's 3D real transforms by overlap-save
// along z. A chunk of s output slices transforms the s + kd - 1 signal slices they reach (kd the
// filter's depth), padded to a fast length lz: circular convolution of length lz equals the
// linear one on the chunk's slices [kd - 1, kd - 1 + s), so every chunk's outputs are exact.
// Rows and columns are padded as the 2D variants pad them (fftconv.cu's header says why the
// window of the mode needs less than the full length). One chunk takes the whole volume when it
// fits the memory budget.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <optional>
#include <string>

#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/fftconv/plan_cache.hpp"
#include "solvers/fftconv/rows.cuh"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {
namespace {

template <class T>
struct Real;
template <>
struct Real<float> {
  using Complex = cufftComplex;
  static constexpr cufftType kR2C = CUFFT_R2C, kC2R = CUFFT_C2R;
  static void r2c(cufftHandle plan, float* in, Complex* out) {
    PARASOL_CUFFT(cufftExecR2C(plan, in, out));
  }
  static void c2r(cufftHandle plan, Complex* in, float* out) {
    PARASOL_CUFFT(cufftExecC2R(plan, in, out));
  }
};
template <>
struct Real<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType kR2C = CUFFT_D2Z, kC2R = CUFFT_Z2D;
  static void r2c(cufftHandle plan, double* in, Complex* out) {
    PARASOL_CUFFT(cufftExecD2Z(plan, in, out));
  }
  static void c2r(cufftHandle plan, Complex* in, double* out) {
    PARASOL_CUFFT(cufftExecZ2D(plan, in, out));
  }
};

template <class T>
using Complex = typename Real<T>::Complex;

using rows::copy_row;
using rows::kThreads;
using rows::rows_grid;
using rows::unrolled_columns;
using rows::unrolled_rows_grid;
using rows::UnrolledColumns;

// dst[z][y][x] = src[z0 + z][y][x] (reversed in every axis when `reverse`) where that is inside
// `in`, 0 elsewhere, for the `to` extent.
template <class T>
__global__ void pad_volume_kernel(const T* __restrict__ src, Extent3 in, std::int64_t z0,
                                  Extent3 to, bool reverse, T* __restrict__ dst) {
  const std::int64_t rows = to.depth * to.rows;
  const UnrolledColumns c = unrolled_columns();
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t z = row / to.rows + z0, y = row % to.rows;
    const bool inside = z >= 0 && z < in.depth && y < in.rows;
    const std::int64_t sz = reverse ? in.depth - 1 - z : z, sy = reverse ? in.rows - 1 - y : y;
    const T* source = inside ? src + (sz * in.rows + sy) * in.cols : src;
    copy_row(dst + row * to.cols, to.cols, c, [&](std::int64_t x) {
      return inside && x < in.cols ? source[reverse ? in.cols - 1 - x : x] : T(0);
    });
  }
}

template <class C, class T>
__global__ void multiply_volume_kernel(C* __restrict__ s, const C* __restrict__ h,
                                       std::int64_t n, T scale) {
  for (const std::int64_t i : grid_stride(n)) {
    const C a = s[i], b = h[i];
    s[i] = {(a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale};
  }
}

// dst[z][y][x] = full[z + from.z][y + from.y][x + from.x] for the `out` extent.
template <class T>
__global__ void crop_volume_kernel(const T* __restrict__ full, Extent3 l, Extent3 from,
                                   Extent3 out, T* __restrict__ dst) {
  const std::int64_t rows = out.depth * out.rows;
  const UnrolledColumns c = unrolled_columns();
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t z = row / out.rows, y = row % out.rows;
    const T* source = full + ((z + from.depth) * l.rows + y + from.rows) * l.cols + from.cols;
    copy_row(dst + row * out.cols, out.cols, c, [&](std::int64_t x) { return source[x]; });
  }
}

__device__ std::int64_t first_tap(std::int64_t at, std::int64_t length) {
  return at - (length - 1) > 0 ? at - (length - 1) : 0;
}
__device__ std::int64_t tap_end(std::int64_t taps, std::int64_t at) {
  return taps < at + 1 ? taps : at + 1;
}

// One output sample per thread, the sum over the taps that meet the signal, in T. Neighbouring
// threads read neighbouring samples, and every thread of a warp the same tap.
template <class T>
__global__ void direct_volume_kernel(const T* __restrict__ x, Extent3 n,
                                     const T* __restrict__ h, Extent3 k, bool reverse,
                                     Extent3 out, Extent3 at, T* __restrict__ y) {
  const std::int64_t rows = out.depth * out.rows;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t fz = row / out.rows + at.depth, fi = row % out.rows + at.rows;
    const std::int64_t d0 = first_tap(fz, n.depth), d1 = tap_end(k.depth, fz);
    const std::int64_t m0 = first_tap(fi, n.rows), m1 = tap_end(k.rows, fi);
    for (const std::int64_t j : grid_stride(out.cols)) {
      const std::int64_t fj = j + at.cols;
      const std::int64_t c0 = first_tap(fj, n.cols), c1 = tap_end(k.cols, fj);
      T sum = T(0);
      for (std::int64_t d = d0; d < d1; ++d) {
        const std::int64_t hd = reverse ? k.depth - 1 - d : d;
        for (std::int64_t m = m0; m < m1; ++m) {
          const std::int64_t hm = reverse ? k.rows - 1 - m : m;
          const T* taps = h + (hd * k.rows + hm) * k.cols;
          const T* signal = x + ((fz - d) * n.rows + (fi - m)) * n.cols + fj;
          for (std::int64_t c = c0; c < c1; ++c)
            sum = fma(taps[reverse ? k.cols - 1 - c : c], signal[-c], sum);
        }
      }
      y[row * out.cols + j] = sum;
    }
  }
}

template <class V>
V* reserve(DeviceBuffer<V>& buffer, std::int64_t n) {
  if (static_cast<std::int64_t>(buffer.size()) < n)
    buffer = DeviceBuffer<V>(static_cast<std::size_t>(n));
  return buffer.data();
}

}  // namespace

template <class T>
struct VolumeConvolver<T>::Impl {
  PlanCache plans;
  DeviceBuffer<T> real;
  DeviceBuffer<Complex<T>> spectrum, filter_spectrum;
  std::int64_t chunks = 0;

  // What the filter spectrum in filter_spectrum was computed from, when spectra are kept
  // (keep_filter_spectra): where the filter lies, its extent, reversed or not, and the transform
  // extent.
  struct SpectrumKey {
    const T* filter = nullptr;
    Extent3 extent, transform;
    Operation operation = Operation::convolve;
    bool operator==(const SpectrumKey& o) const {
      return filter == o.filter && extent == o.extent && transform == o.transform &&
             operation == o.operation;
    }
  };
  bool keep_spectra = false;
  std::int64_t spectra_computed = 0;
  std::optional<SpectrumKey> kept;

  void direct(const VolumeProblem& p, const T* signal, const T* filter, T* output,
              cudaStream_t stream) {
    const Extent3 out = output_extent(p);
    direct_volume_kernel<<<rows_grid(out.cols, out.depth * out.rows), kThreads, 0, stream>>>(
        signal, p.signal, filter, p.filter, p.operation == Operation::correlate, out,
        output_offset(p), output);
    PARASOL_CHECK_LAUNCH(stream);
  }

  void r2c(const VolumeProblem& p, const VolumeOptions& o, const T* signal, const T* filter,
           T* output, cudaStream_t stream) {
    std::size_t budget = o.memory_budget;
    if (budget == 0) budget = current_device().free_memory / 2;
    const std::int64_t slices = volume_chunk_depth(p, static_cast<int>(sizeof(T)), budget);
    const Extent3 l = volume_transform_extent(p, slices);
    const Extent3 out = output_extent(p), at = output_offset(p);
    const std::int64_t half = l.depth * l.rows * (l.cols / 2 + 1);
    T* x = reserve(real, l.size());
    Complex<T>* x_hat = reserve(spectrum, half);
    // Looked up where they run: making one may release the cache's other plans (PlanCache).
    const auto forward = [&] {
      return plans.get_3d(Real<T>::kR2C, l.depth, l.rows, l.cols, stream);
    };
    const auto inverse = [&] {
      return plans.get_3d(Real<T>::kC2R, l.depth, l.rows, l.cols, stream);
    };
    const dim3 pad_grid = unrolled_rows_grid(l.cols, l.depth * l.rows);
    // The filter's spectrum at the chunk's lengths, once for every chunk, and once for every
    // call where it is kept.
    const SpectrumKey key{filter, p.filter, l, p.operation};
    const bool reuse = keep_spectra && kept && *kept == key;
    Complex<T>* h_hat = reserve(filter_spectrum, half);
    if (!reuse) {
      kept.reset();
      pad_volume_kernel<<<pad_grid, kThreads, 0, stream>>>(
          filter, p.filter, 0, l, p.operation == Operation::correlate, x);
      PARASOL_CHECK_LAUNCH(stream);
      Real<T>::r2c(forward(), x, h_hat);
      ++spectra_computed;
      if (keep_spectra) kept = key;
    }
    const T scale = T(1) / static_cast<T>(l.size());
    const int multiply_blocks = grid_stride_blocks(half, kThreads);
    chunks = 0;
    for (std::int64_t z0 = 0; z0 < out.depth; z0 += slices, ++chunks) {
      const std::int64_t count = std::min(slices, out.depth - z0);
      pad_volume_kernel<<<pad_grid, kThreads, 0, stream>>>(
          signal, p.signal, at.depth + z0 - (p.filter.depth - 1), l, false, x);
      PARASOL_CHECK_LAUNCH(stream);
      Real<T>::r2c(forward(), x, x_hat);
      multiply_volume_kernel<Complex<T>, T>
          <<<multiply_blocks, kThreads, 0, stream>>>(x_hat, h_hat, half, scale);
      PARASOL_CHECK_LAUNCH(stream);
      Real<T>::c2r(inverse(), x_hat, x);
      const Extent3 part{count, out.rows, out.cols};
      const dim3 crop_grid = unrolled_rows_grid(out.cols, count * out.rows);
      crop_volume_kernel<<<crop_grid, kThreads, 0, stream>>>(
          x, l, Extent3{p.filter.depth - 1, at.rows, at.cols}, part,
          output + z0 * out.rows * out.cols);
      PARASOL_CHECK_LAUNCH(stream);
    }
  }
};

template <class T>
VolumeConvolver<T>::VolumeConvolver() : impl_(std::make_unique<Impl>()) {}
template <class T>
VolumeConvolver<T>::~VolumeConvolver() = default;
template <class T>
std::int64_t VolumeConvolver<T>::last_chunks() const {
  return impl_->chunks;
}
template <class T>
void VolumeConvolver<T>::keep_filter_spectra() {
  impl_->keep_spectra = true;
}
template <class T>
std::int64_t VolumeConvolver<T>::spectra_computed() const {
  return impl_->spectra_computed;
}

template <class T>
Variant VolumeConvolver<T>::convolve(const VolumeProblem& p, const VolumeOptions& o,
                                     const T* signal, const T* filter, T* output,
                                     cudaStream_t stream) {
  check_problem(p);
  if (!supports_volume(o.variant))
    throw InputError("", "variant",
                     "volumes run \"auto\", \"direct\" or \"r2c\", not \"" +
                         std::string(name(o.variant)) + "\"");
  const Variant v = o.variant == Variant::automatic
                        ? choose_volume_variant(p, static_cast<int>(sizeof(T)))
                        : o.variant;
  if (v == Variant::direct) impl_->direct(p, signal, filter, output, stream);
  else impl_->r2c(p, o, signal, filter, output, stream);
  return v;
}

template <class T>
std::vector<T> convolve_volume_gpu(const VolumeProblem& p, const VolumeOptions& o,
                                   const std::vector<T>& signal, const std::vector<T>& filter,
                                   Variant* ran, std::int64_t* chunks, PhaseTimer* timings) {
  check_problem(p);
  if (static_cast<std::int64_t>(signal.size()) != p.signal.size() ||
      static_cast<std::int64_t>(filter.size()) != p.filter.size())
    throw InputError("", "signal",
                     "expected " + std::to_string(p.signal.size()) + " signal and " +
                         std::to_string(p.filter.size()) + " filter values, got " +
                         std::to_string(signal.size()) + " and " + std::to_string(filter.size()));
  Stream stream;
  EventTimer h2d(stream.get()), setup(stream.get()), compute(stream.get()), d2h(stream.get());
  h2d.start();
  DeviceBuffer<T> x(signal.size()), h(filter.size()),
      y(static_cast<std::size_t>(output_extent(p).size()));
  upload(x, signal, stream.get());
  upload(h, filter, stream.get());
  h2d.stop();
  VolumeConvolver<T> convolver;
  convolver.keep_filter_spectra();  // h is this call's, and never changes
  if (timings) {
    // cuFFT plans and the filter's spectrum are made on first use, the plans on the host while
    // the device waits: a first run makes them, so compute times the convolution alone.
    setup.start();
    convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
    setup.stop();
  }
  fill_bytes(y, 0xFF, stream.get());  // NaN: a sample left unwritten cannot pass a check
  compute.start();
  const Variant v = convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
  compute.stop();
  if (ran) *ran = v;
  if (chunks) *chunks = v == Variant::r2c ? convolver.last_chunks() : 1;
  d2h.start();
  std::vector<T> out = download(y, stream.get());
  d2h.stop();
  if (timings) {
    timings->add(phase::setup, setup.seconds());
    timings->add(phase::host_to_device, h2d.seconds());
    timings->add(phase::compute, compute.seconds());
    timings->add(phase::device_to_host, d2h.seconds());
  }
  return out;
}

template class VolumeConvolver<float>;
template class VolumeConvolver<double>;
template std::vector<float> convolve_volume_gpu(const VolumeProblem&, const VolumeOptions&,
                                                const std::vector<float>&,
                                                const std::vector<float>&, Variant*,
                                                std::int64_t*, PhaseTimer*);
template std::vector<double> convolve_volume_gpu(const VolumeProblem&, const VolumeOptions&,
                                                 const std::vector<double>&,
                                                 const std::vector<double>&, Variant*,
                                                 std::int64_t*, PhaseTimer*);

}  // namespace parasol::fftconv
