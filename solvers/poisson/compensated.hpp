// Kahan–Babuška (Neumaier) summation one value at a time: the compensated sum of a singular
// problem's mean, taken by the host (problem.cpp) and by the device (sources.cuh) with the same
// operations in the same order. Only additions, subtractions and comparisons: nothing a compiler
// may fuse, so the two give the same bits.
#pragma once

#include <cmath>

#include "kernels/host_device.hpp"

namespace parasol::poisson {

struct CompensatedSum {
  double sum = 0, compensation = 0;
  PARASOL_HOST_DEVICE void add(double v) {
    const double t = sum + v;
    compensation += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  PARASOL_HOST_DEVICE double total() const { return sum + compensation; }
};

}  // namespace parasol::poisson
