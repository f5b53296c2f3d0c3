// Backward-Euler time marching of the 1D heat equation on many independent grids, each step one
// batched tridiagonal solve (see Heat in params.hpp for the discretisation). Host-only API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/checkpoint_keys.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// The starting temperatures, [grid][point] (contiguous), made on every core. A random start's
// point j of grid g is SeededDraws::unit_of (uniform in [0, 1)) of word (first_grid + g) points
// + j of CounterDraws(seed, 0) (kernels/seeded_draws.hpp; docs/generated-inputs.md): a rank's
// grids are drawn alone, the same as the whole problem's.
template <class T>
std::vector<T> heat_initial(const Heat& heat);

// The matrix of one step: a = c = -1, b = 2 + lambda, in `layout`; d left empty.
template <class T>
Batch<T> heat_matrix(const Heat& heat, Layout layout);

// One step as a batch: the step matrix and the right-hand side built from the starting
// temperatures (the end values added to each grid's first and last rows), contiguous. What a
// sweep of the heat problem times.
template <class T>
Batch<T> heat_step(const Heat& heat);

// The factor a sine mode's amplitude is multiplied by in one step (ends held at 0):
// lambda / (lambda + 4 sin^2(pi mode / (2 (points + 1)))).
double sine_decay_per_step(const Heat& heat);

// The amplitude of heat.mode's sine in each grid of u ([grid][point]), by projection on the
// mode: the discrete sines are orthogonal, so this is exact for a field that is the mode alone.
template <class T>
std::vector<double> sine_amplitudes(const std::vector<T>& u, const Heat& heat);

// The sine mode's decay over the march beside the exact factor, in the grid farthest from it.
struct SineDecay {
  double measured = 0;        // amplitude after the march / amplitude at the start
  double exact = 0;           // sine_decay_per_step ^ steps
  double relative_error = 0;  // |measured - exact| / exact
  double per_step = 0;        // sine_decay_per_step
};

// The decay of u ([grid][point], after heat.steps steps) when the march keeps the mode alone: a
// sine start with both ends at 0. nullopt otherwise, or when the start is all zeros (a mode that
// is a multiple of points + 1).
template <class T>
std::optional<SineDecay> sine_decay(const Heat& heat, const std::vector<T>& u);

// Reported as the march goes, about every 1/64 of the steps.
struct Progress {
  std::int64_t steps = 0, total_steps = 0;
  double seconds = 0;  // since the march began
};
using ProgressCallback = std::function<void(const Progress&)>;

// What a checkpoint holds of a march, enough to continue it to the same bits: the temperatures
// after `steps` steps, `values` of them at `u` (not owned), in the layout the march keeps them
// in (the gold: contiguous doubles; the GPU: its variant's layout).
template <class T>
struct HeatState {
  std::int64_t steps = 0;
  const T* u = nullptr;
  std::int64_t values = 0;
};
// A march's safe points are its progress reports (every steps_per_report steps), every
// checkpoint.every steps, and its last step.
template <class T>
using HeatCheckpoints = SafePoints<HeatState<T>>;

// What a march's state holds, in the words a checkpoint stores and a restart compares: "the
// gold's doubles", or on the GPU T in its variant's layout ("float in the interleaved layout";
// `element_bytes` 4 or 8). A restart continues only from the same.
std::string held_by(bool gpu, Variant variant, int element_bytes);
// Whether that state lies [grid][point] (contiguous), so that a rank's grids lie together and a
// checkpoint of them continues on any rank count.
inline bool held_contiguous(bool gpu, Variant variant) {
  return !gpu || required_layout(variant) == Layout::contiguous;
}

// A march's device time in the solves alone, a part of compute (which builds the right-hand sides
// too); a run's rate is of these seconds (run_part.hpp).
inline constexpr char kSolves[] = "solves";

template <class T>
struct HeatResult {
  std::vector<T> u;    // [grid][point] after the last step (contiguous whatever the solve's layout)
  PhaseTimer timings;  // host_to_device, compute, kSolves, device_to_host
};

// The gold: the same steps by the Thomas algorithm in double.
std::vector<double> march_heat_gold(const Heat& heat, const ProgressCallback& progress = {},
                                    const HeatCheckpoints<double>* checkpoints = nullptr);

// On the GPU with the given launch; the layout is the one the variant needs.
template <class T>
HeatResult<T> march_heat_gpu(const Heat& heat, const Launch& launch,
                             const ProgressCallback& progress = {},
                             const HeatCheckpoints<T>* checkpoints = nullptr);

// The steps between two progress reports: 1/64 of the march, at least one.
inline std::int64_t steps_per_report(std::int64_t steps) { return steps / 64 + 1; }

}  // namespace parasol::tridiag
