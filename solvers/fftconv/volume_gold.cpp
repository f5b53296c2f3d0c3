// The volumes' host side: their checks and shapes, the CPU gold, and the choices of variant and
// chunk depth, all decided by the sizes alone.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {
namespace {

std::string shown(const Extent3& e) {
  return std::to_string(e.depth) + " x " + std::to_string(e.rows) + " x " +
         std::to_string(e.cols);
}

bool within_limit(const Extent3& e) {
  return e.depth <= kMostSamples && e.rows <= kMostSamples / e.depth &&
         e.cols <= kMostSamples / (e.depth * e.rows);
}

// One axis of the modes: through the 1D problem's own rules, so the shapes have one definition.
Problem axis(const VolumeProblem& p, std::int64_t n, std::int64_t k) {
  Problem a;
  a.signal = {1, n};
  a.filter = {1, k};
  a.mode = p.mode;
  return a;
}

}  // namespace

void check_problem(const VolumeProblem& p) {
  if (p.signal.depth < 1 || p.signal.rows < 1 || p.signal.cols < 1)
    throw InputError("", "signal",
                     "expected at least one sample in each axis, got " + shown(p.signal));
  if (p.filter.depth < 1 || p.filter.rows < 1 || p.filter.cols < 1)
    throw InputError("", "filter",
                     "expected at least one tap in each axis, got " + shown(p.filter));
  if (!within_limit(p.signal))
    throw InputError("", "signal", "expected at most 2^40 samples, got " + shown(p.signal));
  if (!within_limit(p.filter))
    throw InputError("", "filter", "expected at most 2^40 taps, got " + shown(p.filter));
  if (p.mode == Mode::valid) {
    const Extent3 &n = p.signal, &k = p.filter;
    const bool signal_larger = n.depth >= k.depth && n.rows >= k.rows && n.cols >= k.cols;
    const bool filter_larger = k.depth >= n.depth && k.rows >= n.rows && k.cols >= n.cols;
    if (!signal_larger && !filter_larger)
      throw InputError("", "mode",
                       "valid needs one operand at least as large as the other in every axis; "
                       "the signal is " + shown(n) + " and the filter " + shown(k));
  }
  if (!within_limit(output_extent(p)))
    throw InputError("", "signal",
                     "expected at most 2^40 output samples, got " + shown(output_extent(p)));
}

Extent3 output_extent(const VolumeProblem& p) {
  return {output_extent(axis(p, p.signal.depth, p.filter.depth)).cols,
          output_extent(axis(p, p.signal.rows, p.filter.rows)).cols,
          output_extent(axis(p, p.signal.cols, p.filter.cols)).cols};
}

Extent3 output_offset(const VolumeProblem& p) {
  return {output_offset(axis(p, p.signal.depth, p.filter.depth)).cols,
          output_offset(axis(p, p.signal.rows, p.filter.rows)).cols,
          output_offset(axis(p, p.signal.cols, p.filter.cols)).cols};
}

// y[Z][I][J] = sum over d, m, c of h[d][m][c] x[Z - d][I - m][J - c], x zero outside the signal,
// at the full convolution's (Z, I, J) = offset + (z, i, j); correlation reads h reversed in every
// axis. The filter loops are clipped to the taps that meet the signal, as in 1D and 2D; each
// output is summed in the same order whatever slab it is computed in.
template <class T>
std::vector<double> convolve_gold(const VolumeProblem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter, std::int64_t z0,
                                  std::int64_t slices) {
  check_problem(p);
  const Extent3 n = p.signal, k = p.filter, out = output_extent(p), start = output_offset(p);
  if (static_cast<std::int64_t>(signal.size()) != n.size())
    throw InputError("", "signal", "holds " + std::to_string(signal.size()) +
                                       " values; expected depth x rows x cols = " +
                                       std::to_string(n.size()));
  if (static_cast<std::int64_t>(filter.size()) != k.size())
    throw InputError("", "filter", "holds " + std::to_string(filter.size()) +
                                       " values; expected depth x rows x cols = " +
                                       std::to_string(k.size()));
  if (slices < 0) slices = out.depth - z0;
  if (z0 < 0 || slices < 0 || z0 + slices > out.depth)
    throw Error("fftconv: volume gold: output slices [" + std::to_string(z0) + ", " +
                std::to_string(z0 + slices) + ") asked of " + std::to_string(out.depth));
  const bool reversed = p.operation == Operation::correlate;
  const auto first_tap = [](std::int64_t at, std::int64_t length) {
    return std::max<std::int64_t>(0, at - (length - 1));
  };
  std::vector<double> y(static_cast<std::size_t>(slices * out.rows * out.cols));
  for (std::int64_t z = 0; z < slices; ++z) {
    const std::int64_t fz = start.depth + z0 + z;
    const std::int64_t d_first = first_tap(fz, n.depth), d_end = std::min(k.depth, fz + 1);
    for (std::int64_t i = 0; i < out.rows; ++i) {
      const std::int64_t fi = start.rows + i;
      const std::int64_t m_first = first_tap(fi, n.rows), m_end = std::min(k.rows, fi + 1);
      for (std::int64_t j = 0; j < out.cols; ++j) {
        const std::int64_t fj = start.cols + j;
        const std::int64_t c_first = first_tap(fj, n.cols), c_end = std::min(k.cols, fj + 1);
        double sum = 0;
        for (std::int64_t d = d_first; d < d_end; ++d) {
          const std::int64_t hd = reversed ? k.depth - 1 - d : d;
          for (std::int64_t m = m_first; m < m_end; ++m) {
            const std::int64_t hm = reversed ? k.rows - 1 - m : m;
            const T* h = filter.data() + (hd * k.rows + hm) * k.cols;
            const T* x = signal.data() + ((fz - d) * n.rows + (fi - m)) * n.cols + fj;
            for (std::int64_t c = c_first; c < c_end; ++c)
              sum += static_cast<double>(h[reversed ? k.cols - 1 - c : c]) *
                     static_cast<double>(x[-c]);
          }
        }
        y[static_cast<std::size_t>((z * out.rows + i) * out.cols + j)] = sum;
      }
    }
  }
  return y;
}

bool supports_volume(Variant v) {
  return v == Variant::direct || v == Variant::r2c || v == Variant::automatic;
}

// Direct sums cost a multiply-add per tap per output; the transforms a few passes over memory
// whatever the taps. Without a volume sweep yet, the 2D crossover (a filter row restarting the
// sums costs as in 2D) is taken.
Variant choose_volume_variant(const VolumeProblem& p, int element_bytes) {
  const std::int64_t crossover = 192 / (element_bytes == 4 ? 1 : 2);
  return p.filter.size() <= crossover ? Variant::direct : Variant::r2c;
}

// A chunk of s output slices transforms s + kd - 1 signal slices (overlap-save along z), padded
// to a fast length; rows and columns are padded as the 2D variants pad them. Three buffers of
// the padded volume's size in complex values: the chunk's spectrum (its real data in place), the
// filter's spectrum, and cuFFT's work area (at most about one more).
Extent3 volume_transform_extent(const VolumeProblem& p, std::int64_t slices) {
  const Extent3 out = output_extent(p), at = output_offset(p);
  const auto length = [](std::int64_t n, std::int64_t k, std::int64_t start, std::int64_t count) {
    return good_fft_length(std::max(n + k - 1 - start, start + count));
  };
  return {good_fft_length(slices + p.filter.depth - 1),
          length(p.signal.rows, p.filter.rows, at.rows, out.rows),
          length(p.signal.cols, p.filter.cols, at.cols, out.cols)};
}

std::size_t volume_chunk_bytes(const VolumeProblem& p, int element_bytes, std::int64_t slices) {
  const Extent3 l = volume_transform_extent(p, slices);
  const double complex_values = double(l.depth) * double(l.rows) * double(l.cols / 2 + 1);
  return static_cast<std::size_t>(3 * complex_values * 2 * element_bytes);
}

std::int64_t volume_chunk_depth(const VolumeProblem& p, int element_bytes, std::size_t budget) {
  check_problem(p);
  const std::int64_t depth = output_extent(p).depth;
  if (volume_chunk_bytes(p, element_bytes, depth) <= budget) return depth;
  // Fewer slices never take more memory: the largest count that fits, by bisection.
  std::int64_t fits = 0, fails = depth;
  while (fails - fits > 1) {
    const std::int64_t mid = fits + (fails - fits) / 2;
    (volume_chunk_bytes(p, element_bytes, mid) <= budget ? fits : fails) = mid;
  }
  if (fits == 0)
    throw InputError("", "memory",
                     "one output slice of the " + shown(output_extent(p)) + " volume needs " +
                         std::to_string(volume_chunk_bytes(p, element_bytes, 1)) +
                         " bytes of transforms; the budget is " + std::to_string(budget));
  return fits;
}

template std::vector<double> convolve_gold<float>(const VolumeProblem&, const std::vector<float>&,
                                                  const std::vector<float>&, std::int64_t,
                                                  std::int64_t);
template std::vector<double> convolve_gold<double>(const VolumeProblem&,
                                                   const std::vector<double>&,
                                                   const std::vector<double>&, std::int64_t,
                                                   std::int64_t);

}  // namespace parasol::fftconv
