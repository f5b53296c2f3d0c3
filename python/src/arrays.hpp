// What every function of the module shares: NumPy arrays in (float32 or float64, any strides)
// and out (owning their values), the backend a call asked for, and Parasol's errors as Python's.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace parasol::python {

namespace nb = nanobind;

// Any host array the caller gave, before its dtype is judged.
using HostArray = nb::ndarray<nb::ro, nb::device::cpu>;

// The floating types the solvers compute in.
enum class DType { f32, f64 };

// `object` as an array (numpy.asarray: lists and scalars too), of float32 or float64. TypeError
// naming `function` and `argument` and the dtype given otherwise: no silent conversion of
// integers or complex values, whose meaning a solver in floats would change.
HostArray as_array(nb::handle object, const char* function, const char* argument);
DType dtype_of(const HostArray& a);
std::string dtype_name(const HostArray& a);  // "float32", "int64", ...

// Every array of one dtype: TypeError naming the first that differs from the first argument.
void require_same_dtype(const std::vector<std::pair<const char*, const HostArray*>>& arrays,
                        const char* function);

// Whether `a`'s values already lie in C order, one after another (scalars and empty arrays too).
inline bool c_order(const HostArray& a) {
  std::int64_t step = 1;
  for (std::size_t k = a.ndim(); k-- > 0;) {
    if (a.shape(k) != 1 && a.stride(k) != step) return false;
    step *= static_cast<std::int64_t>(a.shape(k));
  }
  return true;
}

// The values of a float32 or float64 array of dtype T in C order (last index fastest), whatever
// its strides.
template <class T>
std::vector<T> values(const HostArray& a) {
  std::vector<T> out(a.size());
  const T* data = static_cast<const T*>(a.data());
  if (c_order(a)) {
    std::copy(data, data + a.size(), out.begin());
    return out;
  }
  // Walk the indices in C order; a.stride() is in elements.
  std::vector<std::size_t> index(a.ndim(), 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t at = 0;
    for (std::size_t k = 0; k < a.ndim(); ++k) at += static_cast<std::int64_t>(index[k]) * a.stride(k);
    out[i] = data[at];
    for (std::size_t k = a.ndim(); k-- > 0;) {
      if (++index[k] < a.shape(k)) break;
      index[k] = 0;
    }
  }
  return out;
}

// The values of `a` (dtype T) in C order, read in place when they already lie so (no copy: a
// NumPy array made by the caller is the usual case) and copied by values() otherwise.
template <class T>
class CValues {
 public:
  explicit CValues(const HostArray& a) : size_(a.size()) {
    if (c_order(a)) {
      data_ = static_cast<const T*>(a.data());
    } else {
      copy_ = values<T>(a);
      data_ = copy_.data();
    }
  }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::vector<T> copy_;
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

// A new NumPy array that owns `values`, of extent `shape` (C order).
template <class T>
nb::object to_numpy(std::vector<T> values, const std::vector<std::size_t>& shape) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), shape.size(), shape.data(), owner));
}

// The gold's double values rounded to T: a solver returns the caller's dtype.
template <class T>
std::vector<T> rounded(const std::vector<double>& values) {
  if constexpr (std::is_same_v<T, double>) {
    return values;
  } else {
    return std::vector<T>(values.begin(), values.end());
  }
}

// backend = "auto" | "gpu" | "cpu", as the command line's --backend: true to run on the GPU.
// "auto" takes the GPU when one is usable and the CPU gold solver otherwise, without a word;
// "gpu" without one is an Error saying why; another name an InputError.
bool use_gpu(std::string_view backend);

// Parasol's exceptions as Python's: InputError (a bad parameter, key or argument) as
// ValueError, any other parasol::Error as RuntimeError, each with its one-line message.
void register_errors();

}  // namespace parasol::python
