// saxpy's parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
// docs/adding-a-solver.md walks through this solver, the smallest that has every piece a solver
// has; its snippets are this folder's own text (tests/example_solver/tests/saxpy_doc_test.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "kernels/error.hpp"

namespace parasol::saxpy {

struct Params {
  std::int64_t n = 1 << 20;  // elements of x and y
  double a = 2.0;
  int threads = 256;         // threads per block of the GPU kernel

  void validate() const {
    if (threads < 32 || threads > 1024 || threads % 32 != 0)
      throw InputError("", "method.threads",
                       "expected a multiple of 32 up to 1024, got " + std::to_string(threads));
  }
};

}  // namespace parasol::saxpy
