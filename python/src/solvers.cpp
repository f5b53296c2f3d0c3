// parasol.tridiag, parasol.recurrence, parasol.fftconv: the solvers whose host API takes arrays,
// called on NumPy arrays. Each runs on the GPU when one is usable and the CPU gold solver
// otherwise (backend="auto", as the command line's --backend), and returns the caller's dtype.
#include <nanobind/stl/string.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/scan.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/recurrence/recurrence.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::python {
namespace {

// Runs `solve` with a float or a double, as the arrays are.
template <class Solve>
nb::object in_dtype(DType dtype, Solve&& solve) {
  if (dtype == DType::f32) return solve(float{});
  return solve(double{});
}

std::vector<std::size_t> shape_of(const HostArray& a) {
  std::vector<std::size_t> shape;
  for (std::size_t k = 0; k < a.ndim(); ++k) shape.push_back(a.shape(k));
  return shape;
}

std::string shape_text(const HostArray& a) {
  std::string text = "(";
  for (std::size_t k = 0; k < a.ndim(); ++k)
    text += std::to_string(a.shape(k)) + (a.ndim() == 1 || k + 1 < a.ndim() ? "," : "");
  return text + ")";
}

// What `read` returns; an InputError from it that names no source (a solver's own check: "mode
// \"middle\" is not one of ...") names the Python function instead.
template <class Read>
auto named(const char* function, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    if (!e.source().empty()) throw;
    throw e.with_source(function);
  }
}

// A 1D [n] or 2D [rows, n] array with at least one element; InputError naming it otherwise.
void require_1d_or_2d(const HostArray& a, const char* function, const char* argument) {
  if (a.ndim() != 1 && a.ndim() != 2)
    throw InputError(function, argument,
                     "expected a 1D [n] or 2D [rows, n] array, got shape " + shape_text(a));
  if (a.size() == 0)
    throw InputError(function, argument, "expected at least one element, got shape " + shape_text(a));
}

// ---- tridiag ----------------------------------------------------------------------------------

nb::object tridiag_solve(nb::handle a_in, nb::handle b_in, nb::handle c_in, nb::handle d_in,
                         const std::string& backend) {
  constexpr const char* fn = "tridiag.solve";
  const HostArray a = as_array(a_in, fn, "a"), b = as_array(b_in, fn, "b"),
                  c = as_array(c_in, fn, "c"), d = as_array(d_in, fn, "d");
  require_same_dtype({{"a", &a}, {"b", &b}, {"c", &c}, {"d", &d}}, fn);
  require_1d_or_2d(d, fn, "d");
  for (const auto& [name, x] : {std::pair{"a", &a}, {"b", &b}, {"c", &c}})
    if (shape_of(*x) != shape_of(d))
      throw InputError(fn, name, "expected the shape of d " + shape_text(d) + ", got " +
                                     shape_text(*x));
  const bool gpu = use_gpu(backend);
  tridiag::Dims dims;
  dims.n = static_cast<std::int64_t>(d.shape(d.ndim() - 1));
  dims.systems = d.ndim() == 2 ? static_cast<std::int64_t>(d.shape(0)) : 1;
  return in_dtype(dtype_of(d), [&](auto zero) {
    using T = decltype(zero);
    tridiag::Batch<T> batch{dims, values<T>(a), values<T>(b), values<T>(c), values<T>(d)};
    std::vector<T> x;
    {
      nb::gil_scoped_release unlocked;
      x = gpu ? tridiag::solve_gpu(tridiag::Launch{}, batch).x
              : rounded<T>(tridiag::solve_gold(batch));
    }
    return to_numpy(std::move(x), shape_of(d));
  });
}

// ---- recurrence -------------------------------------------------------------------------------

nb::object recurrence_linear(nb::handle s_in, nb::handle u_in, nb::handle v0_in,
                             const std::string& backend, const std::string& mode_name) {
  constexpr const char* fn = "recurrence.linear";
  const HostArray s = as_array(s_in, fn, "s"), u = as_array(u_in, fn, "u");
  require_same_dtype({{"s", &s}, {"u", &u}}, fn);
  require_1d_or_2d(s, fn, "s");
  if (shape_of(u) != shape_of(s))
    throw InputError(fn, "u", "expected the shape of s " + shape_text(s) + ", got " + shape_text(u));
  const ScanMode mode = named(fn, [&] { return parse_scan_mode(mode_name); });
  const bool gpu = use_gpu(backend);
  const std::int64_t series = s.ndim() == 2 ? static_cast<std::int64_t>(s.shape(0)) : 1;
  const auto length = static_cast<std::int64_t>(s.shape(s.ndim() - 1));
  // v0: one value for every series, or one per series; in the dtype of s (a number is a number).
  // Held for the process's life and never released: a static nb::object would drop its
  // reference in a destructor after the interpreter has finalized, without the GIL, and abort.
  static const nb::handle asarray =
      nb::object(nb::module_::import_("numpy").attr("asarray")).release();
  const HostArray v0 = as_array(asarray(v0_in, s_in.attr("dtype")), fn, "v0");
  if (v0.ndim() > 1 || (v0.ndim() == 1 && static_cast<std::int64_t>(v0.shape(0)) != series))
    throw InputError(fn, "v0", "expected a number or one per series (" + std::to_string(series) +
                                   "), got shape " + shape_text(v0));
  return in_dtype(dtype_of(s), [&](auto zero) {
    using T = decltype(zero);
    recurrence::Series<T> in;
    in.s = values<T>(s);
    in.u = values<T>(u);
    for (std::int64_t k = 0; k <= series; ++k) in.offsets.push_back(k * length);
    const std::vector<T> initial = values<T>(v0);
    in.initial = initial.size() == 1 ? std::vector<T>(static_cast<std::size_t>(series), initial[0])
                                     : initial;
    std::vector<T> v;
    {
      nb::gil_scoped_release unlocked;
      v = named(fn, [&] {
        return gpu ? recurrence::solve_gpu(in, mode).v : rounded<T>(recurrence::solve_gold(in));
      });
    }
    return to_numpy(std::move(v), shape_of(s));
  });
}

// ---- fftconv ----------------------------------------------------------------------------------

// The host calls' plans and device buffers, one set per dtype, kept from call to call (so a
// loop over same-shaped NumPy arrays makes its cuFFT plans once) and held for the process's life:
// freed at exit, when the CUDA runtime may already be gone, they would fail. One call at a time.
template <class T>
fftconv::HostConvolver<T>& host_convolver(std::unique_lock<std::mutex>& lock) {
  static std::mutex mutex;
  static auto* kept = new fftconv::HostConvolver<T>();
  lock = std::unique_lock<std::mutex>(mutex);
  return *kept;
}

nb::object fftconv_apply(fftconv::Operation operation, const char* fn, nb::handle signal_in,
                         nb::handle filter_in, const std::string& mode_name,
                         const std::string& backend) {
  const HostArray signal = as_array(signal_in, fn, "signal"),
                  filter = as_array(filter_in, fn, "filter");
  require_same_dtype({{"signal", &signal}, {"filter", &filter}}, fn);
  require_1d_or_2d(signal, fn, "signal");
  require_1d_or_2d(filter, fn, "filter");
  if (filter.ndim() != signal.ndim())
    throw InputError(fn, "filter", "expected as many dimensions as signal (" +
                                       std::to_string(signal.ndim()) + "), got shape " +
                                       shape_text(filter));
  fftconv::Problem p;
  const auto extent = [](const HostArray& a) {
    return fftconv::Extent{a.ndim() == 2 ? static_cast<std::int64_t>(a.shape(0)) : 1,
                           static_cast<std::int64_t>(a.shape(a.ndim() - 1))};
  };
  p.signal = extent(signal);
  p.filter = extent(filter);
  p.mode = named(fn, [&] { return fftconv::parse_mode(mode_name); });
  p.operation = operation;
  named(fn, [&] { fftconv::check_problem(p); });
  const bool gpu = use_gpu(backend);
  const fftconv::Extent out = fftconv::output_extent(p);
  std::vector<std::size_t> shape{static_cast<std::size_t>(out.cols)};
  if (signal.ndim() == 2) shape.insert(shape.begin(), static_cast<std::size_t>(out.rows));
  return in_dtype(dtype_of(signal), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> y;
    if (gpu) {
      // The NumPy arrays uploaded from where they lie; the output downloaded straight into the
      // array returned (its pages advised huge before their first touch).
      const CValues<T> x(signal), h(filter);
      y = huge_vector<T>(static_cast<std::size_t>(p.batch * out.size()));
      nb::gil_scoped_release unlocked;
      std::unique_lock<std::mutex> lock;
      host_convolver<T>(lock).convolve(p, fftconv::Options{}, x.data(), x.size(), h.data(),
                                       h.size(), y.data());
    } else {
      const std::vector<T> x = values<T>(signal), h = values<T>(filter);
      nb::gil_scoped_release unlocked;
      y = rounded<T>(fftconv::convolve_gold(p, x, h));
    }
    return to_numpy(std::move(y), shape);
  });
}

// The C++ API's own host call for python/bench/host_call.py, in the same process as the Python
// calls it is set beside: float32 signal [rows, n] and filter [1, taps] in std::vectors made
// once, and each time() one HostConvolver call ("same") on the plans the Python calls use, into a
// fresh output as fftconv.convolve returns; its host wall in seconds. Zero values: the time does
// not depend on them.
class HostCallTimer {
 public:
  HostCallTimer(std::int64_t rows, std::int64_t n, std::int64_t taps) {
    p_.signal = {rows, n};
    p_.filter = {1, taps};
    p_.mode = fftconv::Mode::same;
    fftconv::check_problem(p_);
    x_ = huge_vector<float>(static_cast<std::size_t>(rows * n));
    h_.assign(static_cast<std::size_t>(taps), 0.0f);
  }
  double time() {
    nb::gil_scoped_release unlocked;
    const auto start = std::chrono::steady_clock::now();
    {
      std::vector<float> y =
          huge_vector<float>(static_cast<std::size_t>(p_.batch * fftconv::output_extent(p_).size()));
      std::unique_lock<std::mutex> lock;
      host_convolver<float>(lock).convolve(p_, fftconv::Options{}, x_.data(), x_.size(), h_.data(),
                                           h_.size(), y.data());
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  fftconv::Problem p_;
  std::vector<float> x_, h_;
};

}  // namespace

void bind_solvers(nb::module_& m) {
  nb::module_ tridiag = m.def_submodule("tridiag", "Batched tridiagonal systems");
  tridiag.def("solve", &tridiag_solve, nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("d"),
              nb::kw_only(), nb::arg("backend") = "auto",
              "x with a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i] along the last axis: one system "
              "of shape [n], or a batch [systems, n]. a[..., 0] and c[..., n-1] are ignored. "
              "float32 or float64, all of one dtype; x has it too. No pivoting: a zero pivot is a "
              "RuntimeError naming the system. backend: \"auto\" (the GPU when there is one, "
              "else the CPU gold, the Thomas algorithm in double), \"gpu\" or \"cpu\".");
  nb::module_ recurrence = m.def_submodule("recurrence", "First-order linear recurrences");
  recurrence.def("linear", &recurrence_linear, nb::arg("s"), nb::arg("u"), nb::arg("v0") = 0.0,
                 nb::kw_only(), nb::arg("backend") = "auto", nb::arg("mode") = "fast",
                 "v with v[t] = s[t] v[t-1] + u[t] along the last axis, v[-1] = v0: one series "
                 "[n] or independent series [series, n] (v0 a number or one per series). float32 "
                 "or float64. The CPU gold runs the loop in long double; the GPU a device-wide "
                 "scan, mode \"fast\" or \"reproducible\" (the same bits on any device).");
  nb::module_ fftconv = m.def_submodule("fftconv", "Convolution and correlation through FFTs");
  fftconv.def(
      "convolve",
      [](nb::handle signal, nb::handle filter, const std::string& mode, const std::string& backend) {
        return fftconv_apply(fftconv::Operation::convolve, "fftconv.convolve", signal, filter,
                             mode, backend);
      },
      nb::arg("signal"), nb::arg("filter"), nb::arg("mode") = "full", nb::kw_only(),
      nb::arg("backend") = "auto",
      "scipy.signal.fftconvolve(signal, filter, mode) for 1D or 2D arrays: mode \"full\", "
      "\"same\" or \"valid\". float32 or float64, of one dtype. The CPU gold sums directly in "
      "double; the GPU runs cuFFT or direct sums, whichever is faster for the sizes.");
  fftconv.def(
      "correlate",
      [](nb::handle signal, nb::handle filter, const std::string& mode, const std::string& backend) {
        return fftconv_apply(fftconv::Operation::correlate, "fftconv.correlate", signal, filter,
                             mode, backend);
      },
      nb::arg("signal"), nb::arg("filter"), nb::arg("mode") = "full", nb::kw_only(),
      nb::arg("backend") = "auto",
      "scipy.signal.correlate(signal, filter, mode) for 1D or 2D real arrays, as convolve.");
  nb::class_<HostCallTimer>(fftconv, "_HostCallTimer")
      .def(nb::init<std::int64_t, std::int64_t, std::int64_t>(), nb::arg("rows"), nb::arg("n"),
           nb::arg("taps"))
      .def("time", &HostCallTimer::time,
           "Host seconds of one C++ HostConvolver call, as fftconv.convolve makes on the GPU.");
}

}  // namespace parasol::python
