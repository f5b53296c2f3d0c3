// poisson on the GPU: each variant x smoother x precision against the CPU gold on random sources
// and awkward grids (odd sides, non-cubes, thin and flat boxes whose long axes coarsen alone, a
// side coarsened to one cell, each face kind, the singular cases), on poisoned output; the same bits run after run; plain and fused cycle for
// cycle; FMG to the discretisation error; a hierarchy too big for the device refused; the slab
// solver of the runs across ranks, on one rank, giving DeviceSolver's bits (tests/ranks_poisson_test
// cuts it among ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/poisson/check.hpp"
#include "comm/context.hpp"
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/device_slab.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"
#include "tests/support.hpp"

namespace parasol::poisson {

// Readable parameters in test listings ("fused", "rbgs") instead of raw bytes.
void PrintTo(Variant v, std::ostream* out) { *out << name(v); }
void PrintTo(Smoother s, std::ostream* out) { *out << name(s); }

namespace {

// A grid and its faces: (kind, value) from x_min to z_max; the box's sides (unequal by default:
// each axis has its own 1/h^2).
struct Problem {
  std::string name;
  std::int64_t nx, ny, nz;
  std::array<Face, 6> faces;
  double alpha = 0.0;
  std::array<double, 3> sides{1.0, 1.3, 0.8};
};

constexpr Face D(double g) { return {FaceKind::dirichlet, g}; }
constexpr Face N(double g) { return {FaceKind::neumann, g}; }
constexpr Face P{FaceKind::periodic, 0.0};

std::vector<Problem> problems() {
  return {
      {"cube32_dirichlet", 32, 32, 32, {D(0), D(0), D(0), D(0), D(0), D(0)}},
      // 48 x 24 x 32 -> 24 x 24 x 16 (y, its cells twice as long, waits) -> 12 x 12 x 8 ->
      // 6 x 6 x 4 -> 3 x 3 x 2: semi-coarsening, and a bottom with odd sides.
      {"noncube48x24x32_mixed", 48, 24, 32, {D(1.0), D(-0.5), N(0.25), N(0.0), P, P}},
      // Every side odd: one level, solved by the bottom sweeps alone, on one block.
      {"odd33x17x9_dirichlet", 33, 17, 9, {D(0.5), D(0), D(0), D(-1), D(0), D(0.25)}},
      // x coarsened alone, down to 4 x 2 x 2: y and z, their cells 40 and 25 times longer, keep
      // their 2 cells (one level, before semi-coarsening).
      {"thin64x2x2", 64, 2, 2, {D(0), D(1), P, P, N(0.5), N(-0.5)}},
      // A film of cubic cells: z, between Neumann faces, goes to one cell at once (its own
      // neighbour), then x and y halve down to 4 x 4 x 1.
      {"film128x128x2", 128, 128, 2, {D(0.5), N(0), P, P, N(0.25), N(0)}, 0.0, {1.0, 1.0, 1.0 / 64}},
      // Flat with a Dirichlet z face: z stays at 2 cells, x and y halve down to 3 x 2 x 2.
      {"flat96x64x2_mixed", 96, 64, 2, {D(1.0), N(-0.5), N(0.25), D(0), D(0), N(0.5)}},
      // z periodic and odd on every level (40 x 24 x 5 -> 20 x 24 x 5 -> 10 x 12 x 5 -> 5 x 6 x 5
      // -> 5 x 3 x 5): red meets red across the wrap on levels that are smoothed, where the plain
      // variant sweeps by the fused pass, as the gold does there, a colour from its old values.
      {"oddperiodic40x24x5", 40, 24, 5, {N(0.1), N(0), D(0), D(0.5), P, P}},
      {"helmholtz20x12x28_neumann", 20, 12, 28, {N(0.1), N(-0.2), N(0), N(0.3), N(0), N(0)}, 2.5},
      {"tiny2x2x2", 2, 2, 2, {D(1), D(0), N(0), D(0), P, P}},
      {"singular16_neumann", 16, 16, 16, {N(0), N(0), N(0), N(0), N(0), N(0)}},
      {"singular16x8x16_periodic", 16, 8, 16, {P, P, P, P, P, P}},
      // Odd periodic sides: red meets red across the wrap, and each colour reads the values from
      // before its half sweep, on the GPU's one block as in the gold.
      {"singular_odd7x5x3_periodic", 7, 5, 3, {P, P, P, P, P, P}},
  };
}

Params make_params(const Problem& pr, Variant variant, Smoother smoother, Precision precision) {
  Params p;
  p.nx = pr.nx;
  p.ny = pr.ny;
  p.nz = pr.nz;
  p.hx = pr.sides[0] / static_cast<double>(pr.nx);
  p.hy = pr.sides[1] / static_cast<double>(pr.ny);
  p.hz = pr.sides[2] / static_cast<double>(pr.nz);
  p.alpha = pr.alpha;
  for (int f = 0; f < 6; ++f) p.face(f) = pr.faces[f];
  p.source.kind = SourceKind::zero;  // the tests hand f in themselves
  p.variant = variant;
  p.smoother = smoother;
  p.precision = precision;
  return p;
}

// A seeded random source, made compatible where the problem is singular.
std::vector<double> random_source(const Params& p, unsigned seed) {
  std::mt19937 draws(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> f(static_cast<std::size_t>(p.cells()));
  for (double& v : f) v = uniform(draws);
  make_compatible(p, f);
  return f;
}

template <class T>
struct Run {
  Outcome outcome;
  std::vector<T> u;
};

template <class T>
Run<T> run_gpu(const Params& p, const std::vector<double>& f) {
  DeviceSolver<T> solver(p);
  const std::vector<T> source = rounded<T>(f);
  solver.upload_source(source.data());
  solver.poison();  // NaN in u: a cell the solve never wrote cannot pass
  Run<T> r;
  r.outcome = solver.solve();
  r.u.resize(source.size());
  solver.download(r.u.data());
  return r;
}

template <class T>
Run<T> run_gold(const Params& p, const std::vector<double>& f) {
  Run<T> r;
  r.outcome = solve_gold<T>(p, rounded<T>(f), r.u);
  return r;
}

// u from the GPU against the gold's, by poisson's one rule of agreement (check.hpp): their
// difference within what the two residuals allow.
template <class T, class G>
void expect_agreement(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                      const std::vector<G>& gold, const std::string& what) {
  const Agreement a = agreement(p, f, u, gold);
  EXPECT_TRUE(a.passed()) << what << ": " << a.measure << " " << a.value << " over "
                          << a.tolerance;
}

// Residual norms relative to b: rounding moves each by about eps times the condition number (an
// absolute 1e3 eps), and a cycle's rounding differences carry into the next, relatively small
// beside the residual while it is far above that (5 % in float, 1e-6 in double). A wrong
// cycle changes the residual by factors.
template <class T>
void expect_same_history(const Outcome& a, const Outcome& b, const std::string& what) {
  constexpr double eps = std::numeric_limits<T>::epsilon();
  const double relative = sizeof(T) == 4 ? 5e-2 : 1e-6;
  ASSERT_EQ(a.cycles.size(), b.cycles.size()) << what;
  for (std::size_t c = 0; c < a.cycles.size(); ++c) {
    const double x = a.cycles[c].residual_max, y = b.cycles[c].residual_max;
    EXPECT_NEAR(x, y, relative * std::max(x, y) + 1e3 * eps) << what << ", cycle " << c;
  }
}

using Case = std::tuple<Variant, Smoother, Precision, Problem>;

// The problem's name in test listings instead of its raw bytes.
[[maybe_unused]] void PrintTo(const Problem& p, std::ostream* out) { *out << p.name; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [variant, smoother, precision, problem] = info.param;
  return std::string(name(variant)) + "_" + std::string(name(smoother)) + "_" +
         std::string(name(precision)) + "_" + problem.name;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Variant v : kVariants)
    for (Smoother s : kSmoothers)
      for (Precision pr : {Precision::single, Precision::double_})
        for (const Problem& problem : problems()) cases.emplace_back(v, s, pr, problem);
  return cases;
}

class PoissonGpuVsGold : public ::testing::TestWithParam<Case> {};

// Three cycles (FMG and two V-cycles) where both codes run the same algorithm: the residual
// histories and the fields agree to rounding.
template <class T>
void check_cycles(const Params& base, const Problem& problem) {
  Params p = base;
  p.tolerance = 0;  // never met: both run every cycle
  p.max_cycles = 2;
  const std::vector<double> f = random_source(p, 20261128);
  const Run<T> gpu = run_gpu<T>(p, f);
  const Run<T> gold = run_gold<T>(p, f);
  EXPECT_EQ(gpu.outcome.levels, gold.outcome.levels);
  EXPECT_NEAR(gpu.outcome.b_max, gold.outcome.b_max, 1e-5 * gold.outcome.b_max);
  expect_same_history<T>(gpu.outcome, gold.outcome, problem.name);
  expect_agreement(p, f, gpu.u, gold.u, problem.name);
}

// To convergence, against the double gold taken to 1e-12: a float solve stops at its rounding
// floor, below 1e-3 of b on these grids; a double one reaches 1e-10.
template <class T>
void check_converged(const Params& base, const Problem& problem) {
  constexpr bool kFloat = sizeof(T) == 4;
  Params p = base;
  p.tolerance = kFloat ? 1e-6 : 1e-10;
  // The grids' spacings differ by up to 3x between axes (a coupling 10x stronger along one),
  // where a point smoother's cycle reduces the residual by only about 0.5-0.7: to 1e-10 takes up
  // to about 70 cycles there. The cap only bounds a runaway.
  p.max_cycles = 200;
  Params gold_params = p;
  gold_params.precision = Precision::double_;
  // The agreement rule compares residuals: a double solve against the gold to the same
  // tolerance; a float one against the gold taken further, rounding allowed for.
  gold_params.tolerance = kFloat ? 1e-12 : p.tolerance;
  const std::vector<double> f = random_source(p, 7);
  const Run<T> gpu = run_gpu<T>(p, f);
  const Run<double> gold = run_gold<double>(gold_params, f);
  ASSERT_FALSE(gpu.outcome.cycles.empty());
  EXPECT_LT(gpu.outcome.cycles.back().residual_max, kFloat ? 1e-3 : 1e-10) << problem.name;
  if (!kFloat) {
    EXPECT_EQ(gpu.outcome.stop, StopReason::tolerance) << problem.name;
  }
  expect_agreement(p, f, gpu.u, gold.u, problem.name + " converged");
}

TEST_P(PoissonGpuVsGold, MatchesGold) {
  PARASOL_REQUIRE_GPU();
  const auto& [variant, smoother, precision, problem] = GetParam();
  const Params p = make_params(problem, variant, smoother, precision);
  if (precision == Precision::single) {
    check_cycles<float>(p, problem);
    check_converged<float>(p, problem);
  } else {
    check_cycles<double>(p, problem);
    check_converged<double>(p, problem);
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoissonGpuVsGold, ::testing::ValuesIn(all_cases()), case_name);

// Same input, same bits: the norms and means are reduced in a fixed order, and nothing depends
// on the order blocks run in. Twice on one solver and once on another.
template <class T>
void check_repeats(Variant v, Smoother s) {
  const Problem problem = problems()[1];
  Params p = make_params(problem, v, s, sizeof(T) == 4 ? Precision::single : Precision::double_);
  p.max_cycles = 4;
  const std::vector<T> f = rounded<T>(random_source(p, 99));
  std::vector<std::vector<T>> fields;
  std::vector<Outcome> outcomes;
  DeviceSolver<T> first(p), second(p);
  for (DeviceSolver<T>* solver : {&first, &first, &second}) {
    solver->upload_source(f.data());
    solver->poison();
    outcomes.push_back(solver->solve());
    fields.emplace_back(f.size());
    solver->download(fields.back().data());
  }
  for (std::size_t r = 1; r < fields.size(); ++r) {
    EXPECT_EQ(std::memcmp(fields[r].data(), fields[0].data(), f.size() * sizeof(T)), 0)
        << "run " << r << " differs from run 0";
    ASSERT_EQ(outcomes[r].cycles.size(), outcomes[0].cycles.size());
    for (std::size_t c = 0; c < outcomes[0].cycles.size(); ++c) {
      EXPECT_EQ(outcomes[r].cycles[c].residual_max, outcomes[0].cycles[c].residual_max);
      EXPECT_EQ(outcomes[r].cycles[c].residual_l2, outcomes[0].cycles[c].residual_l2);
    }
  }
}

TEST(PoissonGpu, RepeatsToTheBit) {
  PARASOL_REQUIRE_GPU();
  for (Variant v : kVariants)
    for (Smoother s : kSmoothers) {
      check_repeats<float>(v, s);
      check_repeats<double>(v, s);
    }
}

// The fused kernels compute every residual and update by the same functions as the plain ones:
// their histories agree within rounding, cycle for cycle.
template <class T>
void check_fused_like_plain(Smoother s, const Problem& problem) {
  const Precision precision = sizeof(T) == 4 ? Precision::single : Precision::double_;
  Params plain = make_params(problem, Variant::plain, s, precision);
  plain.tolerance = 0;
  plain.max_cycles = 6;
  Params fused = plain;
  fused.variant = Variant::fused;
  const std::vector<double> f = random_source(plain, 5);
  const Run<T> a = run_gpu<T>(plain, f);
  const Run<T> b = run_gpu<T>(fused, f);
  expect_same_history<T>(a.outcome, b.outcome, problem.name + " " + std::string(name(s)));
  expect_agreement(plain, f, b.u, a.u, problem.name + " fused against plain");
}

TEST(PoissonGpu, FusedHistoryEqualsPlain) {
  PARASOL_REQUIRE_GPU();
  for (const Problem& problem : problems())
    for (Smoother s : kSmoothers) {
      check_fused_like_plain<float>(s, problem);
      check_fused_like_plain<double>(s, problem);
    }
}

// FMG alone reaches the discretisation error on a manufactured solution (HPGMG-FV's claim for
// FMG): within twice the error of the converged answer, on a grid fine enough that the
// discretisation error dominates float's rounding.
template <class T>
void check_fmg_reaches_discretisation_error(Smoother s) {
  Params p;
  p.nx = p.ny = p.nz = 64;
  p.hx = p.hy = p.hz = 1.0 / 64;
  p.source.kind = SourceKind::manufactured;
  p.smoother = s;
  p.precision = sizeof(T) == 4 ? Precision::single : Precision::double_;
  const std::vector<double> exact = manufactured_solution(p);
  const std::vector<T> f = rounded<T>(make_source(p));
  const auto error = [&](const std::vector<T>& u) {
    double e = 0;
    for (std::size_t c = 0; c < u.size(); ++c) e = std::max(e, std::abs(double(u[c]) - exact[c]));
    return e;
  };
  Params fmg_only = p;
  fmg_only.max_cycles = 0;  // FMG alone
  DeviceSolver<T> fmg(fmg_only);
  fmg.upload_source(f.data());
  const Outcome once = fmg.solve();
  ASSERT_EQ(once.cycles.size(), 1u);
  std::vector<T> u(f.size());
  fmg.download(u.data());
  const double fmg_error = error(u);
  p.tolerance = sizeof(T) == 4 ? 1e-5 : 1e-11;
  DeviceSolver<T> solver(p);
  solver.upload_source(f.data());
  solver.solve();
  solver.download(u.data());
  const double converged_error = error(u);
  EXPECT_GT(converged_error, 0.0);
  // Chebyshev of degree 2 smooths less than red-black Gauss–Seidel: measured 2.4 times there.
  const double within = s == Smoother::rbgs ? 2.0 : 3.0;
  EXPECT_LE(fmg_error, within * converged_error) << name(s) << ": FMG " << fmg_error
                                                 << ", converged " << converged_error;
}

TEST(PoissonGpu, FmgReachesTheDiscretisationError) {
  PARASOL_REQUIRE_GPU();
  for (Smoother s : kSmoothers) {
    check_fmg_reaches_discretisation_error<float>(s);
    check_fmg_reaches_discretisation_error<double>(s);
  }
}

// The one context a process may hold: one rank, as a run without a launcher has.
comm::Context& one_rank() {
  static comm::Context context;
  return context;
}

// The slab solver runs the plain variant's kernels in DeviceSolver's order, enqueued one by one
// rather than replayed from a graph, with every level whole on one rank: the same bits, u and
// every cycle's norms (the reductions go plane by plane in both). Across ranks it is cut, and
// tests/ranks_poisson_test.cpp holds it to these bits again.
template <class T>
void check_slab_like_device(Smoother s, const Problem& problem, Cycle cycle) {
  const Precision precision = sizeof(T) == 4 ? Precision::single : Precision::double_;
  Params p = make_params(problem, Variant::plain, s, precision);
  p.cycle = cycle;
  p.tolerance = 0;
  p.max_cycles = 3;
  const std::vector<double> f = random_source(p, 11);
  const Run<T> device = run_gpu<T>(p, f);
  Run<T> slab;
  slab.outcome = solve_device_slab<T>(p, one_rank(), rounded<T>(f), slab.u);
  const std::string what = problem.name + " " + std::string(name(s)) + " " + std::string(name(cycle));
  ASSERT_EQ(slab.u.size(), device.u.size()) << what;
  EXPECT_EQ(std::memcmp(slab.u.data(), device.u.data(), device.u.size() * sizeof(T)), 0) << what;
  EXPECT_EQ(slab.outcome.b_max, device.outcome.b_max) << what;
  EXPECT_EQ(slab.outcome.b_l2, device.outcome.b_l2) << what;
  ASSERT_EQ(slab.outcome.cycles.size(), device.outcome.cycles.size()) << what;
  for (std::size_t c = 0; c < device.outcome.cycles.size(); ++c) {
    EXPECT_EQ(slab.outcome.cycles[c].residual_max, device.outcome.cycles[c].residual_max) << what;
    EXPECT_EQ(slab.outcome.cycles[c].residual_l2, device.outcome.cycles[c].residual_l2) << what;
  }
  expect_agreement(p, f, slab.u, run_gold<T>(p, f).u, what + " against the gold");
}

TEST(PoissonGpu, SlabSolverOnOneRankGivesTheDeviceSolversBits) {
  PARASOL_REQUIRE_GPU();
  for (const Problem& problem : problems())
    for (Smoother s : kSmoothers)
      for (Cycle cycle : kCycles) {
        check_slab_like_device<float>(s, problem, cycle);
        check_slab_like_device<double>(s, problem, cycle);
      }
}

// The fused variant's pass needs its level's whole z range: on slabs it is refused by name,
// before anything is allocated (so on any machine).
TEST(PoissonGpu, SlabSolverRefusesTheFusedVariant) {
  Params p = make_params(problems()[0], Variant::fused, Smoother::rbgs, Precision::double_);
  std::vector<double> u;
  try {
    (void)solve_device_slab<double>(p, one_rank(), random_source(p, 3), u);
    FAIL() << "the fused variant ran on slabs";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "method.variant");
    EXPECT_NE(std::string(e.what()).find("plain"), std::string::npos) << e.what();
  }
}

// A hierarchy past the device's memory is refused before anything is allocated, with the bytes
// asked and the memory free.
TEST(PoissonGpu, TooBigForTheDeviceSaysHowBig) {
  PARASOL_REQUIRE_GPU();
  Params p;
  p.nx = p.ny = p.nz = 8192;  // 4.4 TB of double levels
  p.precision = Precision::double_;
  try {
    DeviceSolver<double> solver(p);
    FAIL() << "a " << device_bytes<double>(p) << "-byte hierarchy was allocated";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(device_bytes<double>(p)) + " bytes"), std::string::npos)
        << what;
    EXPECT_NE(what.find("free"), std::string::npos) << what;
  }
}

// The bytes asked, on the CPU: every level's u and b, the residual field where the variant
// stores it, the second field of sweeps that do not write in place (Chebyshev, the fused
// variant), FMG's right-hand sides and the bottom's scratch.
TEST(PoissonGpu, DeviceBytesCountEveryField) {
  Params p;
  p.nx = p.ny = p.nz = 16;  // levels of 4096, 512 and 64 cells
  p.bottom_cells = 64;
  p.variant = Variant::plain;
  p.smoother = Smoother::rbgs;
  // u and b on every level, FMG's right-hand side below the finest, the bottom's scratch; no
  // residual field (residuals are made where they are restricted or reduced).
  const std::size_t fixed = device_bytes<float>(p) - 4 * (2 * 4096 + 3 * 512 + 4 * 64);
  p.smoother = Smoother::chebyshev;  // a second field on every level
  EXPECT_EQ(device_bytes<float>(p), fixed + 4 * (3 * 4096 + 4 * 512 + 5 * 64));
  p.variant = Variant::fused;
  EXPECT_EQ(device_bytes<float>(p), fixed + 4 * (3 * 4096 + 4 * 512 + 5 * 64));
  p.smoother = Smoother::rbgs;  // the fused red-black pass writes into the second field
  EXPECT_EQ(device_bytes<float>(p), fixed + 4 * (3 * 4096 + 4 * 512 + 5 * 64));
  EXPECT_EQ(device_bytes<double>(p) - fixed, 2 * (device_bytes<float>(p) - fixed));
  // A periodic side of odd length (z: 16 x 16 x 5 down to 2 x 2 x 5, the same levels as between
  // Dirichlet faces): the plain variant's red-black sweeps go through the fused pass there, into a
  // second field on every level.
  Params odd;
  odd.nx = odd.ny = 16;
  odd.nz = 5;
  odd.variant = Variant::plain;
  odd.smoother = Smoother::rbgs;
  const std::size_t walled = device_bytes<float>(odd);
  odd.z_min.kind = odd.z_max.kind = FaceKind::periodic;
  EXPECT_EQ(device_bytes<float>(odd), walled + 4 * (1280 + 320 + 80 + 20));
}

}  // namespace
}  // namespace parasol::poisson
