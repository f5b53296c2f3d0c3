// saxpy's host API (compiles without nvcc): the problem, made rather than read; the gold; and the
// device-resident handle every solver's has, so that a sweep times only run().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/buffer.hpp"
#include "solvers/saxpy/params.hpp"

namespace parasol::saxpy {

std::vector<float> initial_x(std::int64_t n);  // x[i] = sin(i), y[i] = cos(i): made, not read
std::vector<float> initial_y(std::int64_t n);
std::vector<double> solve_gold(const Params& p);  // gold.cpp: one loop, in double

class DeviceProblem {
 public:
  DeviceProblem(const Params& p, cudaStream_t stream);  // x and y uploaded once
  void run(int threads);            // y <- a x + y0, from the uploaded y0 each time
  void poison();                    // y filled with NaN: an element run() misses cannot pass
  std::vector<float> download() const;
  cudaStream_t stream() const { return stream_; }

 private:
  float a_;
  std::int64_t n_;
  cudaStream_t stream_;
  DeviceBuffer<float> x_, y0_, y_;
};

}  // namespace parasol::saxpy
