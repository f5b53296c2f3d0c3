#include "arrays.hpp"

#include <nanobind/stl/string.h>

#include "kernels/device.hpp"
#include "kernels/error.hpp"

namespace parasol::python {

std::string dtype_name(const HostArray& a) {
  const nb::dlpack::dtype t = a.dtype();
  const char* kind = t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)    ? "float"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)    ? "int"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt)   ? "uint"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bool)   ? "bool"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex) ? "complex"
                                                                                           : "other";
  return kind + std::to_string(t.bits);
}

HostArray as_array(nb::handle object, const char* function, const char* argument) {
  // Held for the process's life and never released: a static nb::object would drop its
  // reference in a destructor after the interpreter has finalized, without the GIL, and abort.
  static const nb::handle asarray =
      nb::object(nb::module_::import_("numpy").attr("asarray")).release();
  const nb::object array = asarray(object);
  HostArray a;
  if (!nb::try_cast(array, a) ||
      (a.dtype() != nb::dtype<float>() && a.dtype() != nb::dtype<double>())) {
    const std::string given = nb::cast<std::string>(array.attr("dtype").attr("name"));
    throw nb::type_error((std::string(function) + ": " + argument + " has dtype " + given +
                          "; expected float32 or float64 (convert it first, e.g. "
                          "numpy.asarray(" + argument + ", dtype=numpy.float64))")
                             .c_str());
  }
  return a;
}

DType dtype_of(const HostArray& a) {
  return a.dtype() == nb::dtype<float>() ? DType::f32 : DType::f64;
}

void require_same_dtype(const std::vector<std::pair<const char*, const HostArray*>>& arrays,
                        const char* function) {
  const auto& [first_name, first] = arrays.front();
  for (const auto& [name, a] : arrays)
    if (a->dtype() != first->dtype())
      throw nb::type_error((std::string(function) + ": " + name + " has dtype " + dtype_name(*a) +
                            " but " + first_name + " has " + dtype_name(*first) +
                            "; expected one dtype, float32 or float64, for all")
                               .c_str());
}

bool use_gpu(std::string_view backend) {
  if (backend == "cpu") return false;
  if (backend != "gpu" && backend != "auto")
    throw InputError("", "backend", "expected \"auto\", \"gpu\" or \"cpu\", got \"" +
                                        std::string(backend) + "\"");
  std::string reason;
  const bool present = gpu_available(&reason);
  if (!present && backend == "gpu") throw Error("backend=\"gpu\": " + reason);
  return present;
}

void register_errors() {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace parasol::python
