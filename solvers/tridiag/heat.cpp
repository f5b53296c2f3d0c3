// The heat problem on the host: starting temperatures, the step matrix and right-hand side, the
// exact decay of a sine mode and its measure in a result, and the gold march.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/heat_start.hpp"

namespace parasol::tridiag {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The sine mode at point j: with fixed ends sin(pi mode (j + 1) / (points + 1)); on a ring
// sin(2 pi mode (j + 1) / points), an eigenvector of the ring's circulant matrix.
double sine_mode(const Heat& heat, std::int64_t j) {
  const double n = static_cast<double>(heat.points);
  return heat.ring ? std::sin(2 * kPi * heat.mode * static_cast<double>(j + 1) / n)
                   : std::sin(kPi * heat.mode * static_cast<double>(j + 1) / (n + 1));
}

}  // namespace

std::string held_by(bool gpu, Variant variant, int element_bytes) {
  if (!gpu) return "the gold's doubles";
  return std::string(element_bytes == 4 ? "float" : "double") + " in the " +
         std::string(name(required_layout(variant))) + " layout";
}

template <class T>
std::vector<T> heat_initial(const Heat& heat) {
  const std::int64_t n = heat.points;
  std::vector<T> u = huge_vector<T>(static_cast<std::size_t>(n * heat.grids));
  // A random start's point j of grid g is word (first_grid + g) n + j of its stream: a rank's
  // grids are drawn alone, on every core, as the whole problem's are (drawn_start_at).
  const CounterDraws draws(heat.seed, 0);
  constexpr std::int64_t kPointsAtOnce = std::int64_t{1} << 14;
  for_chunks(
      n * heat.grids, kPointsAtOnce,
      [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          const std::int64_t j = i % n;
          const double value = heat.initial == Initial::sine
                                   ? sine_mode(heat, j)
                                   : drawn_start_at(heat, draws, i / n, j);
          u[static_cast<std::size_t>(i)] = static_cast<T>(value);
        }
      },
      [](std::int64_t) {});
  return u;
}

template <class T>
Batch<T> heat_matrix(const Heat& heat, Layout layout) {
  Batch<T> m;
  m.dims = {heat.points, heat.grids, layout};
  const auto size = static_cast<std::size_t>(m.dims.size());
  // The ignored ends (a of the first row, c of the last) hold -1 too: a solver that reads them
  // gets a wrong answer rather than a lucky zero.
  m.a = huge_vector(size, T(-1));
  m.b = huge_vector(size, static_cast<T>(2 + heat.lambda));
  m.c = huge_vector(size, T(-1));
  return m;
}

template <class T>
Batch<T> heat_step(const Heat& heat) {
  Batch<T> batch = heat_matrix<T>(heat, Layout::contiguous);
  batch.d = heat_initial<T>(heat);
  // d = lambda u, plus the boundary values at each grid's ends; the grids on every core.
  const std::int64_t n = heat.points;
  T* d = batch.d.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t g = 0; g < heat.grids; ++g) {
    T* row = d + g * n;
    for (std::int64_t j = 0; j < n; ++j) {
      double value = heat.lambda * static_cast<double>(row[j]);
      if (j == 0) value += heat.left;
      if (j == n - 1) value += heat.right;
      row[j] = static_cast<T>(value);
    }
  }
  return batch;
}

double sine_decay_per_step(const Heat& heat) {
  // The step matrix's eigenvalue for the mode is lambda + 4 s^2.
  const double s = heat.ring ? std::sin(kPi * heat.mode / static_cast<double>(heat.points))
                             : std::sin(kPi * heat.mode / (2.0 * static_cast<double>(heat.points + 1)));
  return heat.lambda / (heat.lambda + 4 * s * s);
}

template <class T>
std::vector<double> sine_amplitudes(const std::vector<T>& u, const Heat& heat) {
  const std::int64_t n = heat.points;
  std::vector<double> s(static_cast<std::size_t>(n));
  double norm = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double v = sine_mode(heat, j);
    s[static_cast<std::size_t>(j)] = v;
    norm += v * v;
  }
  std::vector<double> amplitude(static_cast<std::size_t>(heat.grids));
  for (std::int64_t g = 0; g < heat.grids; ++g) {
    double dot = 0;
    for (std::int64_t j = 0; j < n; ++j)
      dot += static_cast<double>(u[static_cast<std::size_t>(g * n + j)]) *
             s[static_cast<std::size_t>(j)];
    amplitude[static_cast<std::size_t>(g)] = dot / norm;
  }
  return amplitude;
}

template <class T>
std::optional<SineDecay> sine_decay(const Heat& heat, const std::vector<T>& u) {
  if (heat.initial != Initial::sine || heat.left != 0 || heat.right != 0) return std::nullopt;
  const Heat one = [&] {
    Heat h = heat;
    h.grids = 1;  // every grid starts alike
    return h;
  }();
  const double start = sine_amplitudes(heat_initial<T>(one), one)[0];
  if (!(std::abs(start) > 0)) return std::nullopt;
  SineDecay decay;
  decay.per_step = sine_decay_per_step(heat);
  decay.exact = std::pow(decay.per_step, static_cast<double>(heat.steps));
  decay.measured = decay.exact;
  for (double a : sine_amplitudes(u, heat)) {
    const double error = std::abs(a / start - decay.exact) / decay.exact;
    if (!(error <= decay.relative_error)) {  // NaN counts as the worst
      decay.relative_error = error;
      decay.measured = a / start;
    }
  }
  return decay;
}

std::vector<double> march_heat_gold(const Heat& heat, const ProgressCallback& progress,
                                    const HeatCheckpoints<double>* checkpoints) {
  const auto started = std::chrono::steady_clock::now();
  const std::int64_t n = heat.points;
  // Every grid solves the same matrix (a = c = -1, b = 2 + lambda) at every step, so the Thomas
  // elimination is done once: r[j] = 1 / pivot[j], and c'[j] = c / pivot[j] = -r[j]. A step is
  // then d'[j] = (d[j] - a d'[j-1]) r[j] down the grid and x[j] = d'[j] - c'[j] x[j+1] back up.
  // lambda > 0 makes the matrix strictly diagonally dominant: no pivot can vanish.
  //
  // A ring is solved by Sherman-Morrison (kinds.cpp's gold): A = A' + u v^T, gamma = -(2 + lambda),
  // u = (gamma, 0, ..., 0, -1), v = (1, 0, ..., 0, 1 / (2 + lambda)); A' is the fixed-end matrix
  // with 2 (2 + lambda) and 2 + lambda + 1 / (2 + lambda) at its corners. z = A'^-1 u is the same
  // at every step, so a step is one solve with A' and x = y - (v . y) / (1 + v . z) z.
  const double diagonal = 2 + heat.lambda;
  std::vector<double> r(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < r.size(); ++j) {
    double b = diagonal;
    if (heat.ring && j == 0) b = 2 * diagonal;
    if (heat.ring && j + 1 == r.size()) b = diagonal + 1 / diagonal;
    const double pivot = j > 0 ? b - r[j - 1] : b;  // b - a c'[j-1]
    r[j] = 1 / pivot;
  }
  // One step's solve with the fixed-end (or A') pivots, in place.
  const auto solve = [&](double* v) {
    double forward = 0;  // d' of the row above
    for (std::int64_t j = 0; j < n; ++j) {
      forward = (v[j] + forward) * r[static_cast<std::size_t>(j)];
      v[j] = forward;
    }
    double below = 0;  // x of the row below
    for (std::int64_t j = n - 1; j >= 0; --j) {
      below = v[j] + r[static_cast<std::size_t>(j)] * below;
      v[j] = below;
    }
  };
  std::vector<double> z;
  double corner = 0, z_dot = 0;
  if (heat.ring) {
    z.assign(static_cast<std::size_t>(n), 0.0);
    z.front() = -diagonal;
    z.back() = -1;
    solve(z.data());
    corner = 1 / diagonal;
    z_dot = 1 + z.front() + corner * z.back();
  }
  const HeatState<double>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  std::vector<double> u = from != nullptr ? std::vector<double>(from->u, from->u + from->values)
                                          : heat_initial<double>(heat);
  // Grids are independent for the whole march: each is marched through a stretch of steps
  // while it sits in cache, and progress is reported between stretches (64 of them at most, so
  // a grid leaves the cache at most 64 times). A checkpoint's step ends a stretch too; every
  // grid's steps are the same arithmetic however they are cut.
  const std::int64_t stretch = steps_per_report(heat.steps);
  const bool checkpointing = checkpoints != nullptr && checkpoints->at;
  for (std::int64_t done = from != nullptr ? from->steps : 0; done < heat.steps;) {
    std::int64_t end = std::min((done / stretch + 1) * stretch, heat.steps);
    if (checkpointing) end = std::min(end, checkpoints->next(done, heat.steps));
    const std::int64_t steps = end - done;
#pragma omp parallel for schedule(static)
    for (std::int64_t g = 0; g < heat.grids; ++g) {
      double* v = u.data() + g * n;
      for (std::int64_t s = 0; s < steps; ++s) {
        for (std::int64_t j = 0; j < n; ++j) v[j] *= heat.lambda;
        v[0] += heat.left;
        v[n - 1] += heat.right;
        solve(v);
        if (!heat.ring) continue;
        const double factor = (v[0] + corner * v[n - 1]) / z_dot;
        for (std::int64_t j = 0; j < n; ++j) v[j] -= factor * z[static_cast<std::size_t>(j)];
      }
    }
    done = end;
    if (progress)
      progress({done, heat.steps,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
    if (!checkpointing) continue;
    const AtSafePoint a = checkpoints->at(done);
    if (a != AtSafePoint::go_on)
      checkpoints->save({done, u.data(), static_cast<std::int64_t>(u.size())});
    if (a == AtSafePoint::save_and_stop) break;
  }
  return u;
}

template std::vector<float> heat_initial<float>(const Heat&);
template std::vector<double> heat_initial<double>(const Heat&);
template Batch<float> heat_matrix<float>(const Heat&, Layout);
template Batch<double> heat_matrix<double>(const Heat&, Layout);
template Batch<float> heat_step<float>(const Heat&);
template Batch<double> heat_step<double>(const Heat&);
template std::vector<double> sine_amplitudes<float>(const std::vector<float>&, const Heat&);
template std::vector<double> sine_amplitudes<double>(const std::vector<double>&, const Heat&);
template std::optional<SineDecay> sine_decay<float>(const Heat&, const std::vector<float>&);
template std::optional<SineDecay> sine_decay<double>(const Heat&, const std::vector<double>&);

}  // namespace parasol::tridiag
