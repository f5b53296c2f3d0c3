// poisson: α u − ∇²u = f by geometric multigrid. Host API (compiles without nvcc).
//
// The discretisation, which the CPU gold (gold.cpp) and the GPU solver implement exactly:
//
// - Unknowns at cell centres; f and u are handed between layers x fastest, index
//   i + nx*(j + ny*k), without ghosts.
// - The operator: (A u)_c = α u_c − Σ_axes (u_{c−1} − 2 u_c + u_{c+1}) / h², second order,
//   7 points. Beyond a face a ghost cell stands in for the missing neighbour:
//     Dirichlet  u_g = 2 g − u_0          (the mean of u_g and u_0 is g on the face)
//     Neumann    u_g = u_0 + h g          ((u_g − u_0) / h = ∂u/∂n outward = g)
//     periodic   u_g = the cell at the opposite end.
// - The boundary data g go to the right-hand side, so that A itself is the operator with
//   homogeneous conditions of the same kinds: b = f + boundary_terms (problem.hpp), A u = b.
//   A boundary cell's diagonal is α + Σ 2/h² with, per axis and face, +1/h² for Dirichlet and
//   −1/h² for Neumann (ghost_weight). Every level solves A e = r with these homogeneous
//   conditions; only FMG's level right-hand sides and its prolongation see the data (below).
// - Levels (levels()), by semi-coarsening: level 0 is the grid; in the next, some axes halve
//   their cells and double their spacing and the others keep theirs (Level's ratios rx, ry, rz:
//   2 or 1). An axis may halve while it is even and has at least 4 cells, or 2 between Neumann
//   and periodic faces (a Dirichlet ghost, −u_0, would halve the correction on a side of one
//   cell; theirs give the parent's value back). Of the axes that may, those whose spacing is
//   below twice the smallest of theirs halve (1/h² within 4 times the strongest coupling); a
//   longer-celled axis waits until the others' spacing has grown to it, so no level has cells
//   too stretched for a point smoother. Levels are made until no axis may halve or the longest
//   side is no longer than a cube of `bottom_cells` cells has (the bottom sweeps carry a
//   correction about √sweeps cells: 64 of them solve 4³, not a line of 16). On a cube of equal
//   spacings every axis halves at every level, down to the cube of bottom_cells. A thin or flat
//   box goes on coarsening its long axes (64 × 2 × 2 between periodic and Neumann faces:
//   32 × 1 × 1, then a line down to 4 × 1 × 1), where stopping at the first short side left one
//   level, smoother sweeps alone (factors 0.7 to 0.9999 a cycle).
// - Restriction: the mean of the children, 2 per halved axis and 1 per other (8 on a cube),
//   summed z, y, x in order. Prolongation: trilinear along the halved axes and the identity along
//   the others, in FMG (HPGMG-FV's choice) and in the V-cycle alike: along a halved axis a child
//   at offset ±1/4 of its parent's side takes 3/4 of the parent and 1/4 of the parent's neighbour
//   on the child's side; a neighbour beyond a face
//   is the coarse level's ghost (Dirichlet 2g − u_0, Neumann u_0 + h_coarse g, periodic wrap),
//   with the boundary data in FMG and g = 0 in the V-cycle, whose correction it adds. Piecewise
//   constant prolongation in the V-cycle (each child its parent's value) contracts the residual
//   by 0.12 a V(2,2) cycle on a cube and diverges (×1.1 a cycle) on cells of aspect 2:1 with
//   mixed faces; trilinear gives 0.10 and 0.39.
// - Smoothers (pre_sweeps before the coarse correction, post_sweeps after):
//   rbgs: a sweep updates the red cells ((i + j + k) even, global indices), then the black,
//     each u_c += (r_c) / diag_c with r = rhs − A u from the current values; where a periodic
//     side of odd length lets a colour meet itself, a colour reads the values from before its
//     half sweep (Jacobi order within the colour), so no order of cells matters;
//   chebyshev: sweep s (0-based, restarting at every smoothing) sets
//     u_{s+1} = u_s + c1_s (u_s − u_{s−1}) + c2_s D⁻¹ (rhs − A u_s)  (chebyshev_steps; c1_0 = 0),
//     every cell from the values of sweep s (Jacobi order).
// - V-cycle at level l on A e = r from e = 0: pre-smooth; r_c = R (r − A e); the coarse level's
//   V-cycle; e += P e_c; post-smooth. The coarsest level: `bottom_sweeps` smoother sweeps
//   from e = 0. The finest level is the same cycle on A u = b from the current u.
// - FMG: level right-hand sides b_l = R^l f + boundary_terms at level l's spacing (data kept, so
//   each level is the problem itself, discretised coarser); u_L = bottom sweeps on b_L; then for
//   each finer level, u_l = P_trilinear u_{l+1} and one V-cycle on A u_l = b_l. Reported as
//   cycle 0.
// - Singular problems (every face Neumann or periodic, α = 0): f is shifted by a constant so
//   that Σ b = 0 (problem.hpp); at the coarsest level the right-hand side's mean is removed
//   before, and the correction's mean after, the bottom sweeps; the solution's mean is set to 0
//   after every cycle. Means are compensated sums (the N-rank answer is the one-rank answer).
// - Convergence: after each cycle, the residual b − A u at level 0 in the max norm and the L2
//   norm (sqrt of the sum of squares), each relative to the same norm of b (absolute where
//   b = 0). factor: L2 relative residual over the previous cycle's (the first cycle's over 1,
//   the residual of u = 0). Stop when the max-norm relative residual < tolerance, or after
//   max_cycles V-cycles.
// - Norms and means are accumulated in double: each z plane's in index order, then the planes'
//   in plane order (means by compensated sums at both steps), so that any cut into slabs of
//   planes, and any thread count, gives the same bits (slab.hpp).
// - A cell whose diagonal is 0 (a one-cell level with no Dirichlet face and α = 0) is not
//   updated by a smoother: its equation is 0 = 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/convergence.hpp"
#include "solvers/poisson/params.hpp"

namespace parasol::poisson {

// One level of the hierarchy: its cells and spacing, and per axis the finer level's cells under
// each of its cells (2 where the axis halved, 1 where it kept its cells; level 0's are 1). The
// transfers between a level and the one above read their children and weights from these.
struct Level {
  std::int64_t nx = 0, ny = 0, nz = 0;
  double hx = 1, hy = 1, hz = 1;
  int rx = 1, ry = 1, rz = 1;
  std::int64_t cells() const { return nx * ny * nz; }
  int children() const { return rx * ry * rz; }
};

// Level 0 (the grid) first, the coarsest last.
std::vector<Level> levels(const Params& p);

// What a ghost adds to a boundary cell's diagonal coefficient, in units of 1/h²: Dirichlet +1
// (u_g = −u_0), Neumann −1 (u_g = u_0), periodic 0 (no ghost: a neighbour).
double ghost_weight(FaceKind k);

// The diagonal of A at cell (i, j, k) of `level`: α + Σ_axes (2 + ghost weights at that cell's
// faces) / h².
double diagonal(const Params& p, const Level& level, std::int64_t i, std::int64_t j,
                std::int64_t k);

// Chebyshev–Jacobi for D⁻¹A on [λmax/8, λmax] with λmax = 2 (Gershgorin: D⁻¹A's eigenvalues lie
// in (0, 2] for every level and face kind; HPGMG-FV's ratio of 1/8): the coefficients of sweeps
// 0 .. sweeps−1 of one smoothing, by the three-term recurrence
//   θ = (λmax + λmin)/2, δ = (λmax − λmin)/2, σ = θ/δ, ρ_0 = 1/σ;
//   sweep 0: c1 = 0, c2 = 1/θ; sweep s ≥ 1: ρ_s = 1/(2σ − ρ_{s−1}), c1 = ρ_s ρ_{s−1}, c2 = 2ρ_s/δ.
struct ChebyshevStep {
  double c1, c2;
};
std::vector<ChebyshevStep> chebyshev_steps(std::int64_t sweeps);

// One cycle's record: residual norms relative to b's, and the L2 reduction since the last.
struct CycleReport {
  double residual_max, residual_l2, factor;
};

// Whether the V-cycles have stopped reducing the residual: none of the last three left its L2
// norm below the lowest before them. Cycles take the residual down (slowly on stretched cells,
// but each to a new low) until it reaches the precision's rounding floor (about 1e-5 of b in
// float on fine grids); past it more cycles only stir the rounding, and in float may let it grow.
// Both solvers stop there, by this rule, when a tolerance is set (`fmg`: cycles[0] is FMG's).
inline bool stagnated(const std::vector<CycleReport>& cycles, bool fmg) {
  constexpr std::size_t kWithout = 3;
  const std::size_t n = cycles.size(), vcycles = n - (fmg && n > 0 ? 1 : 0);
  if (vcycles < kWithout || n <= kWithout) return false;
  double lowest = cycles[0].residual_l2;
  for (std::size_t i = 1; i < n - kWithout; ++i) lowest = std::min(lowest, cycles[i].residual_l2);
  for (std::size_t i = n - kWithout; i < n; ++i)
    if (cycles[i].residual_l2 < lowest) return false;
  return true;
}

struct Outcome {
  std::vector<CycleReport> cycles;  // FMG (when run) is cycles[0]
  StopReason stop = StopReason::max_iterations;  // tolerance met, max_cycles reached, or stagnated
  std::int64_t levels = 0;
  double seconds = 0;  // the solve alone, wall clock
  // Of those, the halo exchanges between devices across ranks (the GPU on slabs; the host's
  // exchanges are comm::Context's comm_seconds()).
  double device_exchange_seconds = 0;
  double b_max = 0, b_l2 = 0;  // norms of the right-hand side the residuals are relative to
};

// Called after each cycle with its number (FMG, when run, is 0), its record and the seconds since
// the solve began: a front end's progress line.
using CycleCallback = std::function<void(std::int64_t cycle, const CycleReport&, double seconds)>;

// What a checkpoint holds of a run, enough to continue it to the same bits: the fine level's u
// after the cycles reported in `cycles` (FMG's first, when run), this rank's planes without
// halos (`points` values it does not own), and those reports, so that the residual history, the
// factors and the stagnation rule go on as if uninterrupted. Every other array of the hierarchy
// is rebuilt by the next cycle (a V-cycle starts each coarse level from e = 0), and b is the
// problem's.
template <class T>
struct State {
  const T* u = nullptr;
  std::int64_t points = 0;
  std::vector<CycleReport> cycles;
  // V-cycles done: the step a checkpoint is of (FMG is step 0).
  std::int64_t step(bool fmg) const {
    return static_cast<std::int64_t>(cycles.size()) - (fmg && !cycles.empty() ? 1 : 0);
  }
};
// A solve's safe points: after every cycle (FMG's too), each being a convergence check.
template <class T>
using Checkpoints = SafePoints<State<T>>;

// The multigrid on the CPU, computing in T (float or double; norms in double). `f` is the
// source on the cells (problem.hpp's make_source or a file's), without boundary data: the faces
// come from `p`. For a singular problem `f` must be compatible (problem.hpp's make_compatible).
// `u` is resized and overwritten. With `checkpoints`, the solve continues from its `from` (when
// set: u and the reports of a run stopped after some cycles; FMG is not run again) and meets
// it after every cycle.
template <class T>
Outcome solve_gold(const Params& p, const std::vector<T>& f, std::vector<T>& u,
                   const CycleCallback& on_cycle = {}, const Checkpoints<T>* checkpoints = nullptr);

// The reference for tiny grids that tests judge the multigrid by: plain Gauss–Seidel in index
// order on A u = b until max|r|/max|b| < tolerance or `max_sweeps`; returns the sweeps taken.
std::int64_t solve_reference(const Params& p, const std::vector<double>& f, std::vector<double>& u,
                             double tolerance, std::int64_t max_sweeps);

// r = b − A u on level 0 (b = f + boundary terms): what the cycles report, for tests and checks.
std::vector<double> residual(const Params& p, const std::vector<double>& f,
                             const std::vector<double>& u);

}  // namespace parasol::poisson
