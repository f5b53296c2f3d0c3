// saxpy on the device: one kernel and its launcher, on the handle's stream.
#include "kernels/error.hpp"
#include "kernels/kernel_log.hpp"
#include "solvers/saxpy/saxpy.hpp"

namespace parasol::saxpy {
namespace {

__global__ void saxpy_kernel(std::int64_t n, float a, const float* x, const float* y0, float* y) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], y0[i]);
}

}  // namespace

DeviceProblem::DeviceProblem(const Params& p, cudaStream_t stream)
    : a_(static_cast<float>(p.a)), n_(p.n), stream_(stream), x_(std::size_t(p.n)),
      y0_(std::size_t(p.n)), y_(std::size_t(p.n)) {
  const std::vector<float> x = initial_x(n_), y = initial_y(n_);
  upload(x_, x, stream_);
  upload(y0_, y, stream_);
  PARASOL_CUDA(cudaStreamSynchronize(stream_));  // x and y are freed on return
}

void DeviceProblem::run(int threads) {
  const dim3 grid(static_cast<unsigned>((n_ + threads - 1) / threads)), block(threads);
  PARASOL_NOTE_LAUNCH(grid, block, 0, saxpy_kernel);
  saxpy_kernel<<<grid, block, 0, stream_>>>(n_, a_, x_.data(), y0_.data(), y_.data());
  PARASOL_CHECK_LAUNCH(stream_);
}

void DeviceProblem::poison() { fill_bytes(y_, 0xFF, stream_); }

std::vector<float> DeviceProblem::download() const { return parasol::download(y_, stream_); }

}  // namespace parasol::saxpy
