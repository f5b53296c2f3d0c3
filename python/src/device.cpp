// Device arrays in and out, without copies: parasol.fftconv's device path and its stateful
// Convolver (python/parasol/fftconv.py). The Python side chooses the stream (the producer's, or
// the one the caller names) and exports each array for it: a DLPack capsule made by
// __dlpack__(stream=...), or an object with __cuda_array_interface__. Here those become device
// pointers, the solver's Convolver runs on them on that stream, and the output is a device array
// that owns its DeviceBuffer and exports itself through DLPack. Nothing is copied and nothing
// waits: the output is ready on the stream the call ran on.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/stream.hpp"
#include "kernels/scan.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/recurrence/recurrence.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::python {
namespace {

using CudaArray = nb::ndarray<nb::device::cuda>;

// One array on a device, as the solver reads it: C order, its values where they are.
struct DeviceOperand {
  void* data = nullptr;
  std::vector<std::int64_t> shape;
  DType dtype = DType::f32;
  int device = 0;
  CudaArray keep;  // holds a DLPack producer's tensor while the call uses it
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t k = 0; k < shape.size(); ++k)
    text += std::to_string(shape[k]) + (shape.size() == 1 || k + 1 < shape.size() ? "," : "");
  return text + ")";
}

[[noreturn]] void type_error(const std::string& text) { throw nb::type_error(text.c_str()); }

// The solver reads and writes rows one after another: a view with other strides would need a
// copy, which this path promises not to make. Extents of one take any stride.
void require_c_order(const std::vector<std::int64_t>& shape,
                     const std::vector<std::int64_t>& strides, const char* fn, const char* arg) {
  std::int64_t expected = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1 && strides[k] != expected) {
      std::string given;
      for (std::int64_t s : strides) given += (given.empty() ? "" : ", ") + std::to_string(s);
      type_error(std::string(fn) + ": " + arg + " is not C-contiguous (shape " +
                 shape_text(shape) + ", strides in elements (" + given +
                 ")); device arrays are used in place, without copies: pass a contiguous one "
                 "(torch: x.contiguous(), CuPy: cupy.ascontiguousarray(x))");
    }
    expected *= shape[k];
  }
}

DType device_dtype(const std::string& given, bool f32, bool f64, const char* fn, const char* arg) {
  if (f32) return DType::f32;
  if (f64) return DType::f64;
  type_error(std::string(fn) + ": " + arg + " has dtype " + given +
             "; expected float32 or float64 (convert it first, e.g. x.to(torch.float32))");
}

// `exported`: a DLPack capsule, an object with __cuda_array_interface__ (version 2 or 3), or the
// view tuple below.
DeviceOperand device_operand(nb::handle exported, const char* fn, const char* arg) {
  DeviceOperand o;
  std::vector<std::int64_t> strides;
  std::string dtype_text;
  bool f32 = false, f64 = false;
  if (nb::isinstance<nb::tuple>(exported)) {
    // (pointer, shape, strides in elements, typestr, device): a tensor read from its own
    // attributes by parasol._device.export for a call on its producer's current stream.
    const nb::tuple view = nb::borrow<nb::tuple>(exported);
    o.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(view[0]));
    for (nb::handle n : nb::borrow<nb::tuple>(view[1])) o.shape.push_back(nb::cast<std::int64_t>(n));
    for (nb::handle n : nb::borrow<nb::tuple>(view[2])) strides.push_back(nb::cast<std::int64_t>(n));
    dtype_text = nb::cast<std::string>(view[3]);
    f32 = dtype_text == "<f4";
    f64 = dtype_text == "<f8";
    o.device = nb::cast<int>(view[4]);
  } else if (nb::hasattr(exported, "__cuda_array_interface__")) {
    const nb::dict cai = nb::cast<nb::dict>(exported.attr("__cuda_array_interface__"));
    const nb::tuple data = nb::cast<nb::tuple>(cai["data"]);
    o.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
    for (nb::handle n : nb::cast<nb::tuple>(cai["shape"])) o.shape.push_back(nb::cast<std::int64_t>(n));
    dtype_text = nb::cast<std::string>(cai["typestr"]);
    f32 = dtype_text == "<f4";
    f64 = dtype_text == "<f8";
    const std::int64_t item = f64 ? 8 : 4;
    if (cai.contains("strides") && !cai["strides"].is_none()) {
      for (nb::handle s : nb::cast<nb::tuple>(cai["strides"]))
        strides.push_back(nb::cast<std::int64_t>(s) / item);
    } else {
      strides.assign(o.shape.size(), 0);
      std::int64_t step = 1;
      for (std::size_t k = o.shape.size(); k-- > 0;) strides[k] = step, step *= o.shape[k];
    }
    cudaPointerAttributes where{};
    if (o.data != nullptr) PARASOL_CUDA(cudaPointerGetAttributes(&where, o.data));
    if (o.data != nullptr && where.type != cudaMemoryTypeDevice &&
        where.type != cudaMemoryTypeManaged)
      type_error(std::string(fn) + ": " + arg +
                 "'s __cuda_array_interface__ points to memory that is not on a device");
    o.device = where.device;
  } else {
    if (!nb::try_cast(exported, o.keep, /*convert=*/false))
      type_error(std::string(fn) + ": " + arg + " is not a CUDA device array (DLPack)");
    for (std::size_t k = 0; k < o.keep.ndim(); ++k) {
      o.shape.push_back(static_cast<std::int64_t>(o.keep.shape(k)));
      strides.push_back(o.keep.stride(k));
    }
    o.data = o.keep.data();
    o.device = o.keep.device_id();
    f32 = o.keep.dtype() == nb::dtype<float>();
    f64 = o.keep.dtype() == nb::dtype<double>();
    const nb::dlpack::dtype t = o.keep.dtype();
    dtype_text = (t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) ? "float"
                  : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)  ? "int"
                  : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt) ? "uint"
                                                                                      : "code" +
                                                                        std::to_string(t.code)) +
                 std::to_string(t.bits);
  }
  o.dtype = device_dtype(dtype_text, f32, f64, fn, arg);
  require_c_order(o.shape, strides, fn, arg);
  return o;
}

// Makes `device` current for the call and restores the caller's after it.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    PARASOL_CUDA(cudaGetDevice(&previous_));
    if (device != previous_) PARASOL_CUDA(cudaSetDevice(device));
  }
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

const char* dtype_text(DType d) { return d == DType::f32 ? "float32" : "float64"; }

// The problem of a signal and a filter of these shapes: 1D [n] with [k]; an image [rows, n]
// with [krows, k]; and, where `rows_batch`, independent rows [batch, n] with one filter [k].
fftconv::Problem problem_for(const std::vector<std::int64_t>& signal,
                             const std::vector<std::int64_t>& filter, const std::string& mode,
                             fftconv::Operation operation, bool rows_batch, const char* fn) {
  for (const auto& [name, shape] : {std::pair{"signal", &signal}, {"filter", &filter}}) {
    if (shape->size() != 1 && shape->size() != 2)
      throw InputError(fn, name, "expected a 1D [n] or 2D [rows, n] array, got shape " +
                                     shape_text(*shape));
    for (std::int64_t e : *shape)
      if (e == 0)
        throw InputError(fn, name, "expected at least one element, got shape " + shape_text(*shape));
  }
  const bool batched = rows_batch && signal.size() == 2 && filter.size() == 1;
  if (filter.size() != signal.size() && !batched)
    throw InputError(fn, "filter",
                     "expected as many dimensions as signal (" + std::to_string(signal.size()) +
                         ")" + (rows_batch ? ", or 1D with a 2D signal of rows" : "") +
                         ", got shape " + shape_text(filter));
  fftconv::Problem p;
  const auto extent = [](const std::vector<std::int64_t>& s) {
    return fftconv::Extent{s.size() == 2 ? s[0] : 1, s.back()};
  };
  if (batched) {
    p.batch = signal[0];
    p.signal = {1, signal[1]};
  } else {
    p.signal = extent(signal);
  }
  p.filter = extent(filter);
  p.operation = operation;
  try {
    p.mode = fftconv::parse_mode(mode);
    fftconv::check_problem(p);
  } catch (const InputError& e) {
    if (!e.source().empty()) throw;
    throw e.with_source(fn);
  }
  return p;
}

std::vector<std::int64_t> output_shape_of(const fftconv::Problem& p, std::size_t signal_ndim) {
  const fftconv::Extent out = fftconv::output_extent(p);
  if (signal_ndim == 1) return {out.cols};
  return {p.batch > 1 || !p.is_2d() ? p.batch : out.rows, out.cols};
}

// A new device array of `shape` owning its memory (a DeviceBuffer), for DLPack consumers.
template <class T>
std::pair<nb::object, T*> new_device_array(const std::vector<std::int64_t>& shape, int device) {
  std::int64_t size = 1;
  for (std::int64_t e : shape) size *= e;
  auto* owned = new DeviceBuffer<T>(static_cast<std::size_t>(size));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<DeviceBuffer<T>*>(p); });
  const std::vector<std::size_t> extents(shape.begin(), shape.end());
  T* data = owned->data();
  // array_api: an object with __dlpack__ and __dlpack_device__, which torch.from_dlpack,
  // cupy.from_dlpack and numpy take (a bare capsule could be consumed once and says nothing of
  // its device).
  return {nb::cast(nb::ndarray<nb::array_api, nb::device::cuda, T>(
              data, extents.size(), extents.data(), owner, nullptr, nb::dtype<T>(),
              nb::device::cuda::value, device)),
          data};
}

void require_output(const DeviceOperand& out, const std::vector<std::int64_t>& shape, DType dtype,
                    int device, const char* fn) {
  if (out.shape != shape)
    throw InputError(fn, "out", "expected shape " + shape_text(shape) + ", got " +
                                    shape_text(out.shape));
  if (out.dtype != dtype)
    type_error(std::string(fn) + ": out has dtype " + dtype_text(out.dtype) + "; expected " +
               dtype_text(dtype) + ", the signal's");
  if (out.device != device)
    throw InputError(fn, "out", "expected device " + std::to_string(device) + ", the signal's, got " +
                                    std::to_string(out.device));
}

// ---- one call: parasol.fftconv.convolve / correlate on device arrays ---------------------------

nb::object convolve_device(nb::handle signal_in, nb::handle filter_in, const std::string& mode,
                           const std::string& operation_name, std::uintptr_t stream_handle,
                           nb::handle out_in) {
  const fftconv::Operation operation = fftconv::parse_operation(operation_name);
  const std::string function = "fftconv." + operation_name;
  const char* fn = function.c_str();
  const DeviceOperand signal = device_operand(signal_in, fn, "signal");
  const DeviceOperand filter = device_operand(filter_in, fn, "filter");
  if (filter.dtype != signal.dtype)
    type_error(function + ": filter has dtype " + dtype_text(filter.dtype) + " but signal has " +
               dtype_text(signal.dtype) + "; expected one dtype, float32 or float64, for both");
  if (filter.device != signal.device)
    throw InputError(fn, "filter", "expected device " + std::to_string(signal.device) +
                                       ", the signal's, got " + std::to_string(filter.device));
  const fftconv::Problem p = problem_for(signal.shape, filter.shape, mode, operation, false, fn);
  const std::vector<std::int64_t> shape = output_shape_of(p, signal.shape.size());
  const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
  DeviceGuard on(signal.device);
  const auto run = [&](auto zero) -> nb::object {
    using T = decltype(zero);
    nb::object result = nb::none();
    T* y = nullptr;
    if (out_in.is_none()) {
      auto made = new_device_array<T>(shape, signal.device);
      result = std::move(made.first);
      y = made.second;
    } else {
      const DeviceOperand out = device_operand(out_in, fn, "out");
      require_output(out, shape, signal.dtype, signal.device, fn);
      y = static_cast<T*>(out.data);
    }
    // A Convolver per call: its plans are made here and freed after. The stateful
    // parasol.fftconv.Convolver keeps them.
    fftconv::Convolver<T> convolver;
    {
      nb::gil_scoped_release unlocked;
      convolver.convolve(p, fftconv::Options{}, static_cast<const T*>(signal.data),
                         static_cast<const T*>(filter.data), y, stream);
    }
    return result;
  };
  return signal.dtype == DType::f32 ? run(float{}) : run(double{});
}

// ---- tridiag.solve and recurrence.linear on device arrays -------------------------------------

// Operands of one call: one dtype, one device, the shape of the first; InputError or TypeError
// naming the first that differs.
void require_alike(const std::vector<std::pair<const char*, const DeviceOperand*>>& operands,
                   const char* fn) {
  const auto& [first_name, first] = operands.front();
  if (first->shape.size() != 1 && first->shape.size() != 2)
    throw InputError(fn, first_name, "expected a 1D [n] or 2D [rows, n] array, got shape " +
                                         shape_text(first->shape));
  for (std::int64_t e : first->shape)
    if (e == 0)
      throw InputError(fn, first_name,
                       "expected at least one element, got shape " + shape_text(first->shape));
  for (const auto& [name, o] : operands) {
    if (o->dtype != first->dtype)
      type_error(std::string(fn) + ": " + name + " has dtype " + dtype_text(o->dtype) + " but " +
                 first_name + " has " + dtype_text(first->dtype) +
                 "; expected one dtype, float32 or float64, for all");
    if (o->device != first->device)
      throw InputError(fn, name, "expected device " + std::to_string(first->device) + ", " +
                                     first_name + "'s, got " + std::to_string(o->device));
    if (o->shape != first->shape)
      throw InputError(fn, name, "expected the shape of " + std::string(first_name) + " " +
                                     shape_text(first->shape) + ", got " + shape_text(o->shape));
  }
}

// The output: `out` checked against the call's shape, dtype and device, or a new device array.
template <class T>
std::pair<nb::object, T*> output_for(nb::handle out_in, const DeviceOperand& like, const char* fn) {
  if (out_in.is_none()) return new_device_array<T>(like.shape, like.device);
  const DeviceOperand out = device_operand(out_in, fn, "out");
  require_output(out, like.shape, like.dtype, like.device, fn);
  return {nb::none(), static_cast<T*>(out.data)};
}

// x = A^-1 d on the device, in place of nothing: the coefficients are read where they are and x
// written into `out` or a new array (x may be d itself: the solver allows it). The solver's
// workspace and its record of failures are made per call and freed after, and cudaFree waits
// for the device; check() waits for the stream anyway, to report a zero pivot by its system.
nb::object tridiag_device(nb::handle a_in, nb::handle b_in, nb::handle c_in, nb::handle d_in,
                          std::uintptr_t stream_handle, nb::handle out_in) {
  constexpr const char* fn = "tridiag.solve";
  const DeviceOperand d = device_operand(d_in, fn, "d");
  const DeviceOperand a = device_operand(a_in, fn, "a"), b = device_operand(b_in, fn, "b"),
                      c = device_operand(c_in, fn, "c");
  require_alike({{"d", &d}, {"a", &a}, {"b", &b}, {"c", &c}}, fn);
  tridiag::Dims dims;
  dims.n = d.shape.back();
  dims.systems = d.shape.size() == 2 ? d.shape[0] : 1;
  const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
  DeviceGuard on(d.device);
  const auto run = [&](auto zero) -> nb::object {
    using T = decltype(zero);
    auto [result, x] = output_for<T>(out_in, d, fn);
    tridiag::Solver<T> solver(tridiag::Launch{}, dims);
    {
      nb::gil_scoped_release unlocked;
      solver.solve(static_cast<const T*>(a.data), static_cast<const T*>(b.data),
                   static_cast<const T*>(c.data), static_cast<const T*>(d.data), x, stream);
      solver.check(stream);
    }
    return result;
  };
  return d.dtype == DType::f32 ? run(float{}) : run(double{});
}

// v[t] = s[t] v[t-1] + u[t] on the device: s and u read where they are, v written into `out` or
// a new array (v may be u itself). The series' offsets and their starting values are a few
// numbers a series, uploaded here unless v0 is a device array of one value per series already;
// they and the scan's workspace are freed after the call, and cudaFree waits for the device.
nb::object recurrence_device(nb::handle s_in, nb::handle u_in, nb::handle v0_in,
                             bool v0_on_device, const std::string& mode_name,
                             std::uintptr_t stream_handle, nb::handle out_in) {
  constexpr const char* fn = "recurrence.linear";
  const DeviceOperand s = device_operand(s_in, fn, "s");
  const DeviceOperand u = device_operand(u_in, fn, "u");
  require_alike({{"s", &s}, {"u", &u}}, fn);
  ScanMode mode;
  try {
    mode = parse_scan_mode(mode_name);
  } catch (const InputError& e) {
    if (!e.source().empty()) throw;
    throw e.with_source(fn);
  }
  const std::int64_t series = s.shape.size() == 2 ? s.shape[0] : 1;
  const std::int64_t length = s.shape.back();
  DeviceOperand d_v0;
  HostArray h_v0;
  if (v0_on_device) {
    d_v0 = device_operand(v0_in, fn, "v0");
    if (d_v0.shape != std::vector<std::int64_t>{series})
      throw InputError(fn, "v0", "expected a number or one per series (" +
                                     std::to_string(series) + "), got shape " +
                                     shape_text(d_v0.shape));
    if (d_v0.dtype != s.dtype)
      type_error(std::string(fn) + ": v0 has dtype " + dtype_text(d_v0.dtype) + " but s has " +
                 dtype_text(s.dtype) + "; expected one dtype, float32 or float64, for all");
    if (d_v0.device != s.device)
      throw InputError(fn, "v0", "expected device " + std::to_string(s.device) +
                                     ", s's, got " + std::to_string(d_v0.device));
  } else {
    h_v0 = as_array(v0_in, fn, "v0");
    if (h_v0.ndim() > 1 ||
        (h_v0.ndim() == 1 && static_cast<std::int64_t>(h_v0.shape(0)) != series))
      throw InputError(fn, "v0", "expected a number or one per series (" +
                                     std::to_string(series) + "), got " +
                                     std::to_string(h_v0.size()) + " values");
  }
  const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
  DeviceGuard on(s.device);
  const auto run = [&](auto zero) -> nb::object {
    using T = decltype(zero);
    auto [result, v] = output_for<T>(out_in, s, fn);
    std::vector<std::int64_t> offsets;
    for (std::int64_t k = 0; k <= series; ++k) offsets.push_back(k * length);
    DeviceBuffer<std::int64_t> d_offsets(offsets.size());
    DeviceBuffer<T> initial(v0_on_device ? 0 : static_cast<std::size_t>(series));
    std::vector<T> initial_values;
    if (!v0_on_device) {
      std::vector<T> given;
      if (dtype_of(h_v0) == DType::f32) {
        const std::vector<float> v = values<float>(h_v0);
        given.assign(v.begin(), v.end());
      } else {
        const std::vector<double> v = values<double>(h_v0);
        given.assign(v.begin(), v.end());
      }
      initial_values =
          given.size() == 1 ? std::vector<T>(static_cast<std::size_t>(series), given[0]) : given;
    }
    recurrence::Solver<T> solver(mode);
    {
      nb::gil_scoped_release unlocked;
      upload(d_offsets, offsets, stream);
      if (!v0_on_device) upload(initial, initial_values, stream);
      const T* d_initial = v0_on_device ? static_cast<const T*>(d_v0.data) : initial.data();
      solver.solve(static_cast<const T*>(s.data), static_cast<const T*>(u.data), d_offsets.data(),
                   d_initial, length * series, series, v, stream);
      // The host's offsets and starting values are read by the copies above before they go.
      PARASOL_CUDA(cudaStreamSynchronize(stream));
    }
    return result;
  };
  return s.dtype == DType::f32 ? run(float{}) : run(double{});
}

// ---- their stateful forms: the workspace made once, each solve enqueued without waiting ------

DType dtype_named(const std::string& dtype, const char* fn) {
  if (dtype == "float32") return DType::f32;
  if (dtype == "float64") return DType::f64;
  type_error(std::string(fn) + ": dtype " + dtype + "; expected float32 or float64");
}

// A 1D [n] or 2D [rows, n] shape with at least one element, for a solver made for it.
void require_solver_shape(const std::vector<std::int64_t>& shape, const char* fn) {
  bool empty = false;
  for (std::int64_t e : shape) empty = empty || e <= 0;
  if ((shape.size() != 1 && shape.size() != 2) || empty)
    throw InputError(fn, "shape", "expected (n,) or (rows, n) with n, rows >= 1, got " +
                                      shape_text(shape));
}

// An operand of a run of a solver made for `shape`, `dtype` and `device`.
void require_made_for(const DeviceOperand& o, const std::vector<std::int64_t>& shape, DType dtype,
                      int device, const char* fn, const char* arg, const char* what) {
  if (o.shape != shape)
    throw InputError(fn, arg, "expected shape " + shape_text(shape) + ", the " + what +
                                  "'s, got " + shape_text(o.shape));
  if (o.dtype != dtype)
    type_error(std::string(fn) + ": " + arg + " has dtype " + dtype_text(o.dtype) + "; expected " +
               dtype_text(dtype) + ", the " + what + "'s");
  if (o.device != device)
    throw InputError(fn, arg, "expected device " + std::to_string(device) + ", the " + what +
                                  "'s, got " + std::to_string(o.device));
}

int device_or_current(int device) {
  if (device < 0) PARASOL_CUDA(cudaGetDevice(&device));
  return device;
}

// parasol.tridiag.Solver: tridiag::Solver's workspace and failure record made once for a shape;
// solve() enqueues on the caller's stream and returns, check() waits and raises on a zero pivot.
class TridiagSolver {
 public:
  TridiagSolver(std::vector<std::int64_t> shape, const std::string& dtype, int device)
      : shape_(std::move(shape)), dtype_(dtype_named(dtype, "tridiag.Solver")) {
    require_solver_shape(shape_, "tridiag.Solver");
    device_ = device_or_current(device);
    tridiag::Dims dims;
    dims.n = shape_.back();
    dims.systems = shape_.size() == 2 ? shape_[0] : 1;
    DeviceGuard on(device_);
    if (dtype_ == DType::f32) f32_ = std::make_unique<tridiag::Solver<float>>(tridiag::Launch{}, dims);
    else f64_ = std::make_unique<tridiag::Solver<double>>(tridiag::Launch{}, dims);
  }

  nb::object solve(nb::handle a_in, nb::handle b_in, nb::handle c_in, nb::handle d_in,
                   nb::handle out_in, std::uintptr_t stream_handle) {
    constexpr const char* fn = "tridiag.Solver.solve";
    const DeviceOperand d = device_operand(d_in, fn, "d"), a = device_operand(a_in, fn, "a"),
                        b = device_operand(b_in, fn, "b"), c = device_operand(c_in, fn, "c");
    for (const auto& [name, o] : {std::pair{"d", &d}, {"a", &a}, {"b", &b}, {"c", &c}})
      require_made_for(*o, shape_, dtype_, device_, fn, name, "Solver");
    const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
    DeviceGuard on(device_);
    const auto run = [&](auto& solver, auto zero) -> nb::object {
      using T = decltype(zero);
      auto [result, x] = output_for<T>(out_in, d, fn);
      solver.solve(static_cast<const T*>(a.data), static_cast<const T*>(b.data),
                   static_cast<const T*>(c.data), static_cast<const T*>(d.data), x, stream);
      return result;
    };
    return f32_ ? run(*f32_, float{}) : run(*f64_, double{});
  }

  void check(std::uintptr_t stream_handle) {
    const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
    DeviceGuard on(device_);
    nb::gil_scoped_release unlocked;
    if (f32_) f32_->check(stream);
    else f64_->check(stream);
  }

  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::string dtype() const { return dtype_text(dtype_); }
  int device() const { return device_; }

 private:
  std::vector<std::int64_t> shape_;
  DType dtype_;
  int device_ = 0;
  std::unique_ptr<tridiag::Solver<float>> f32_;
  std::unique_ptr<tridiag::Solver<double>> f64_;
};

// parasol.recurrence.Solver: the series' offsets uploaded once, the scan's workspace and a buffer
// of starting values kept; run() enqueues the starting values' upload and the scan on the
// caller's stream and returns. Its buffers serve one run at a time: runs on one stream follow
// each other; runs on different streams must be ordered by the caller.
class RecurrenceSolver {
 public:
  RecurrenceSolver(std::vector<std::int64_t> shape, const std::string& dtype,
                   const std::string& mode, int device)
      : shape_(std::move(shape)), dtype_(dtype_named(dtype, "recurrence.Solver")) {
    constexpr const char* fn = "recurrence.Solver";
    require_solver_shape(shape_, fn);
    try {
      mode_ = parse_scan_mode(mode);
    } catch (const InputError& e) {
      if (!e.source().empty()) throw;
      throw e.with_source(fn);
    }
    device_ = device_or_current(device);
    series_ = shape_.size() == 2 ? shape_[0] : 1;
    std::vector<std::int64_t> offsets;
    for (std::int64_t k = 0; k <= series_; ++k) offsets.push_back(k * shape_.back());
    DeviceGuard on(device_);
    offsets_ = DeviceBuffer<std::int64_t>(offsets.size());
    upload(offsets_, offsets, nullptr);
    PARASOL_CUDA(cudaStreamSynchronize(nullptr));
    const std::size_t element = dtype_ == DType::f32 ? sizeof(float) : sizeof(double);
    initial_ = DeviceBuffer<unsigned char>(static_cast<std::size_t>(series_) * element);
    if (dtype_ == DType::f32) f32_ = std::make_unique<recurrence::Solver<float>>(mode_);
    else f64_ = std::make_unique<recurrence::Solver<double>>(mode_);
  }

  nb::object run(nb::handle s_in, nb::handle u_in, nb::handle v0_in, bool v0_on_device,
                 nb::handle out_in, std::uintptr_t stream_handle) {
    constexpr const char* fn = "recurrence.Solver.run";
    const DeviceOperand s = device_operand(s_in, fn, "s"), u = device_operand(u_in, fn, "u");
    require_made_for(s, shape_, dtype_, device_, fn, "s", "Solver");
    require_made_for(u, shape_, dtype_, device_, fn, "u", "Solver");
    DeviceOperand d_v0;
    HostArray h_v0;
    if (v0_on_device) {
      d_v0 = device_operand(v0_in, fn, "v0");
      require_made_for(d_v0, {series_}, dtype_, device_, fn, "v0", "series count and Solver");
    } else {
      h_v0 = as_array(v0_in, fn, "v0");
      if (h_v0.ndim() > 1 || (h_v0.ndim() == 1 && static_cast<std::int64_t>(h_v0.shape(0)) != series_))
        throw InputError(fn, "v0", "expected a number or one per series (" +
                                       std::to_string(series_) + "), got " +
                                       std::to_string(h_v0.size()) + " values");
    }
    const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
    DeviceGuard on(device_);
    const auto run = [&](auto& solver, auto zero) -> nb::object {
      using T = decltype(zero);
      auto [result, v] = output_for<T>(out_in, s, fn);
      const T* d_initial = reinterpret_cast<const T*>(initial_.data());
      if (v0_on_device) {
        d_initial = static_cast<const T*>(d_v0.data);
      } else {
        std::vector<T> given;
        if (dtype_of(h_v0) == DType::f32) {
          const std::vector<float> values_given = values<float>(h_v0);
          given.assign(values_given.begin(), values_given.end());
        } else {
          const std::vector<double> values_given = values<double>(h_v0);
          given.assign(values_given.begin(), values_given.end());
        }
        if (given.size() == 1) given.assign(static_cast<std::size_t>(series_), given[0]);
        // From pageable memory: staged before the call returns, so `given` may go.
        upload(reinterpret_cast<T*>(initial_.data()), given.data(), given.size(), stream);
      }
      solver.solve(static_cast<const T*>(s.data), static_cast<const T*>(u.data), offsets_.data(),
                   d_initial, series_ * shape_.back(), series_, v, stream);
      return result;
    };
    return f32_ ? run(*f32_, float{}) : run(*f64_, double{});
  }

  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::string dtype() const { return dtype_text(dtype_); }
  std::string mode() const { return std::string(name(mode_)); }
  int device() const { return device_; }

 private:
  std::vector<std::int64_t> shape_;
  DType dtype_;
  ScanMode mode_ = ScanMode::fast;
  int device_ = 0;
  std::int64_t series_ = 1;
  DeviceBuffer<std::int64_t> offsets_;
  DeviceBuffer<unsigned char> initial_;
  std::unique_ptr<recurrence::Solver<float>> f32_;
  std::unique_ptr<recurrence::Solver<double>> f64_;
};

// ---- the stateful form: plans and the filter's spectrum made once, run many times -------------

class Engine {
 public:
  virtual ~Engine() = default;
  virtual void run(const void* signal, void* output, cudaStream_t stream) = 0;
  virtual nb::object new_output(const std::vector<std::int64_t>& shape, int device, void** data) = 0;
};

template <class T>
class EngineOf final : public Engine {
 public:
  // filter: `filter_values` from the host, or `d_filter` on the device (copied: the Convolver
  // keeps the filter's spectrum, so it must own the values behind the pointer).
  EngineOf(const fftconv::Problem& p, const std::vector<T>& filter_values, const void* d_filter,
           cudaStream_t stream)
      : problem_(p), filter_(static_cast<std::size_t>(p.filters * p.filter.size())) {
    if (d_filter != nullptr)
      copy_on_device(filter_, static_cast<const T*>(d_filter), filter_.size(), stream);
    else
      upload(filter_, filter_values.data(), filter_.size(), stream);
    convolver_.keep_filter_spectra();
    // One convolution of zeros makes the cuFFT plans and the filter's spectrum now, so every
    // run() after enqueues the variant's kernels alone.
    DeviceBuffer<T> x(static_cast<std::size_t>(p.batch * p.signal.size()));
    DeviceBuffer<T> y(static_cast<std::size_t>(p.batch * fftconv::output_extent(p).size()));
    PARASOL_CUDA(cudaMemsetAsync(x.data(), 0, x.bytes(), stream));
    convolver_.convolve(problem_, options_, x.data(), filter_.data(), y.data(), stream);
    PARASOL_CUDA(cudaStreamSynchronize(stream));
  }
  void run(const void* signal, void* output, cudaStream_t stream) override {
    convolver_.convolve(problem_, options_, static_cast<const T*>(signal), filter_.data(),
                        static_cast<T*>(output), stream);
  }
  nb::object new_output(const std::vector<std::int64_t>& shape, int device, void** data) override {
    auto [array, y] = new_device_array<T>(shape, device);
    *data = y;
    return array;
  }

 private:
  fftconv::Problem problem_;
  fftconv::Options options_;
  DeviceBuffer<T> filter_;
  fftconv::Convolver<T> convolver_;
};

class DeviceConvolver {
 public:
  // filter: a host array (numpy.asarray of it) or a device array exported for `stream`;
  // device: the filter's when it is on one, else `device` (-1: the current one).
  DeviceConvolver(std::vector<std::int64_t> shape, nb::handle filter, bool filter_on_device,
                  const std::string& mode, const std::string& operation, const std::string& dtype,
                  int device, std::uintptr_t stream_handle)
      : signal_shape_(std::move(shape)),
        dtype_(dtype == "float32" ? DType::f32 : DType::f64) {
    constexpr const char* fn = "fftconv.Convolver";
    if (dtype != "float32" && dtype != "float64")
      type_error(std::string(fn) + ": dtype " + dtype + "; expected float32 or float64");
    const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
    DeviceOperand d_filter;
    HostArray h_filter;
    std::vector<std::int64_t> filter_shape;
    if (filter_on_device) {
      d_filter = device_operand(filter, fn, "filter");
      if (d_filter.dtype != dtype_)
        type_error(std::string(fn) + ": filter has dtype " + dtype_text(d_filter.dtype) +
                   "; expected " + dtype_text(dtype_) + ", the dtype asked for");
      filter_shape = d_filter.shape;
      device_ = d_filter.device;
    } else {
      h_filter = as_array(filter, fn, "filter");
      for (std::size_t k = 0; k < h_filter.ndim(); ++k)
        filter_shape.push_back(static_cast<std::int64_t>(h_filter.shape(k)));
      if (device < 0) PARASOL_CUDA(cudaGetDevice(&device));
      device_ = device;
    }
    problem_ = problem_for(signal_shape_, filter_shape, mode, fftconv::parse_operation(operation),
                           true, fn);
    output_shape_ = output_shape_of(problem_, signal_shape_.size());
    DeviceGuard on(device_);
    const auto make = [&](auto zero) -> std::unique_ptr<Engine> {
      using T = decltype(zero);
      std::vector<T> values_on_host;
      if (!filter_on_device) {
        if (dtype_of(h_filter) == DType::f32) {
          const std::vector<float> v = values<float>(h_filter);
          values_on_host.assign(v.begin(), v.end());
        } else {
          const std::vector<double> v = values<double>(h_filter);
          values_on_host.assign(v.begin(), v.end());
        }
      }
      nb::gil_scoped_release unlocked;
      return std::make_unique<EngineOf<T>>(problem_, values_on_host,
                                           filter_on_device ? d_filter.data : nullptr, stream);
    };
    engine_ = dtype_ == DType::f32 ? make(float{}) : make(double{});
  }

  // signal and out (None: a new array) exported for `stream`; returns the new array, or None.
  nb::object run(nb::handle signal_in, nb::handle out_in, std::uintptr_t stream_handle) {
    constexpr const char* fn = "fftconv.Convolver.run";
    const DeviceOperand signal = device_operand(signal_in, fn, "signal");
    if (signal.shape != signal_shape_)
      throw InputError(fn, "signal", "expected shape " + shape_text(signal_shape_) +
                                         ", the Convolver's, got " + shape_text(signal.shape));
    if (signal.dtype != dtype_)
      type_error(std::string(fn) + ": signal has dtype " + dtype_text(signal.dtype) +
                 "; expected " + dtype_text(dtype_) + ", the Convolver's");
    if (signal.device != device_)
      throw InputError(fn, "signal", "expected device " + std::to_string(device_) +
                                         ", the Convolver's, got " + std::to_string(signal.device));
    DeviceGuard on(device_);
    nb::object result = nb::none();
    void* y = nullptr;
    if (out_in.is_none()) {
      result = engine_->new_output(output_shape_, device_, &y);
    } else {
      const DeviceOperand out = device_operand(out_in, fn, "out");
      require_output(out, output_shape_, dtype_, device_, fn);
      y = out.data;
    }
    engine_->run(signal.data, y, reinterpret_cast<cudaStream_t>(stream_handle));
    return result;
  }

  const std::vector<std::int64_t>& shape() const { return signal_shape_; }
  const std::vector<std::int64_t>& output_shape() const { return output_shape_; }
  std::string dtype() const { return dtype_text(dtype_); }
  int device() const { return device_; }

 private:
  std::vector<std::int64_t> signal_shape_, output_shape_;
  DType dtype_;
  int device_ = 0;
  fftconv::Problem problem_;
  std::unique_ptr<Engine> engine_;
};

// The C++ API's own time for what Convolver.run does, for python/bench/call_overhead.py: one
// float32 signal of n samples, a filter of `taps`, `calls` convolutions enqueued back to back
// on one stream after one untimed (plans, spectrum); returns their seconds, by CUDA events.
double time_cpp_convolver(std::int64_t n, std::int64_t taps, const std::string& mode,
                          std::int64_t calls) {
  fftconv::Problem p;
  p.signal = {1, n};
  p.filter = {1, taps};
  p.mode = fftconv::parse_mode(mode);
  fftconv::check_problem(p);
  nb::gil_scoped_release unlocked;
  Stream stream;
  DeviceBuffer<float> x(static_cast<std::size_t>(n)), h(static_cast<std::size_t>(taps)),
      y(static_cast<std::size_t>(fftconv::output_extent(p).size()));
  PARASOL_CUDA(cudaMemsetAsync(x.data(), 0, x.bytes(), stream.get()));
  PARASOL_CUDA(cudaMemsetAsync(h.data(), 0, h.bytes(), stream.get()));
  fftconv::Convolver<float> convolver;
  convolver.keep_filter_spectra();
  const fftconv::Options o;
  convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
  EventTimer timer(stream.get());
  timer.start();
  for (std::int64_t i = 0; i < calls; ++i)
    convolver.convolve(p, o, x.data(), h.data(), y.data(), stream.get());
  timer.stop();
  return timer.seconds();
}

}  // namespace

void bind_device(nb::module_& m) {
  nb::module_ fftconv = nb::borrow<nb::module_>(m.attr("fftconv"));
  fftconv.def("_convolve_device", &convolve_device, nb::arg("signal"), nb::arg("filter"),
              nb::arg("mode"), nb::arg("operation"), nb::arg("stream"), nb::arg("out").none(),
              "fftconv.convolve/correlate on exported device arrays (parasol.fftconv calls it).");
  nb::borrow<nb::module_>(m.attr("tridiag"))
      .def("_solve_device", &tridiag_device, nb::arg("a"), nb::arg("b"), nb::arg("c"),
           nb::arg("d"), nb::arg("stream"), nb::arg("out").none(),
           "tridiag.solve on exported device arrays (parasol.tridiag calls it).");
  nb::borrow<nb::module_>(m.attr("recurrence"))
      .def("_linear_device", &recurrence_device, nb::arg("s"), nb::arg("u"), nb::arg("v0"),
           nb::arg("v0_on_device"), nb::arg("mode"), nb::arg("stream"), nb::arg("out").none(),
           "recurrence.linear on exported device arrays (parasol.recurrence calls it).");
  nb::class_<TridiagSolver>(nb::borrow<nb::module_>(m.attr("tridiag")), "_Solver")
      .def(nb::init<std::vector<std::int64_t>, const std::string&, int>(), nb::arg("shape"),
           nb::arg("dtype"), nb::arg("device"))
      .def("solve", &TridiagSolver::solve, nb::arg("a"), nb::arg("b"), nb::arg("c"),
           nb::arg("d"), nb::arg("out").none(), nb::arg("stream"))
      .def("check", &TridiagSolver::check, nb::arg("stream"))
      .def_prop_ro("shape", &TridiagSolver::shape)
      .def_prop_ro("dtype", &TridiagSolver::dtype)
      .def_prop_ro("device", &TridiagSolver::device);
  nb::class_<RecurrenceSolver>(nb::borrow<nb::module_>(m.attr("recurrence")), "_Solver")
      .def(nb::init<std::vector<std::int64_t>, const std::string&, const std::string&, int>(),
           nb::arg("shape"), nb::arg("dtype"), nb::arg("mode"), nb::arg("device"))
      .def("run", &RecurrenceSolver::run, nb::arg("s"), nb::arg("u"), nb::arg("v0"),
           nb::arg("v0_on_device"), nb::arg("out").none(), nb::arg("stream"))
      .def_prop_ro("shape", &RecurrenceSolver::shape)
      .def_prop_ro("dtype", &RecurrenceSolver::dtype)
      .def_prop_ro("mode", &RecurrenceSolver::mode)
      .def_prop_ro("device", &RecurrenceSolver::device);
  fftconv.def("_time_cpp_convolver", &time_cpp_convolver, nb::arg("n"), nb::arg("taps"),
              nb::arg("mode"), nb::arg("calls"),
              "Seconds of `calls` float32 convolutions by the C++ Convolver, back to back.");
  nb::class_<DeviceConvolver>(fftconv, "_Convolver")
      .def(nb::init<std::vector<std::int64_t>, nb::handle, bool, const std::string&,
                    const std::string&, const std::string&, int, std::uintptr_t>(),
           nb::arg("shape"), nb::arg("filter"), nb::arg("filter_on_device"), nb::arg("mode"),
           nb::arg("operation"), nb::arg("dtype"), nb::arg("device"), nb::arg("stream"))
      .def("run", &DeviceConvolver::run, nb::arg("signal"), nb::arg("out").none(),
           nb::arg("stream"))
      .def_prop_ro("shape", &DeviceConvolver::shape)
      .def_prop_ro("output_shape", &DeviceConvolver::output_shape)
      .def_prop_ro("dtype", &DeviceConvolver::dtype)
      .def_prop_ro("device", &DeviceConvolver::device);
}

}  // namespace parasol::python
