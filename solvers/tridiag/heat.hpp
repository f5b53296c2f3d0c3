// Backward-Euler time marching of the 1D heat equation on many independent grids, each step one
// batched tridiagonal solve (see Heat in params.hpp for the discretisation). Host-only API.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// The starting temperatures, [grid][point] (contiguous).
template <class T>
std::vector<T> heat_initial(const Heat& heat);

// The matrix of one step: a = c = -1, b = 2 + lambda, in `layout`; d left empty.
template <class T>
Batch<T> heat_matrix(const Heat& heat, Layout layout);

// The factor a sine mode's amplitude is multiplied by in one step (ends held at 0):
// lambda / (lambda + 4 sin^2(pi mode / (2 (points + 1)))).
double sine_decay_per_step(const Heat& heat);

template <class T>
struct HeatResult {
  std::vector<T> u;  // [grid][point] after the last step (contiguous whatever the solve's layout)
  Timings timings;
  double solve_seconds = 0;  // device time in the solves alone (excludes building right-hand sides)
};

// The gold: the same steps by the Thomas algorithm in double.
std::vector<double> march_heat_gold(const Heat& heat);

// On the GPU with the given launch; the layout is the one the variant needs.
template <class T>
HeatResult<T> march_heat_gpu(const Heat& heat, const Launch& launch);

}  // namespace parasol::tridiag
