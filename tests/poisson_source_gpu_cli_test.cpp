// poisson's sources made on the device (solvers/poisson/sources.cuh) against the host's: for each
// analytic kind, float and double, on odd, non-cube, semi-coarsened and singular grids, the
// device's right-hand side is make_source's (and make_compatible's shift) to the bit for the zero
// and manufactured kinds, and within an ulp of exp's for gaussian and charges; a slab's planes
// from z_begin > 0 likewise, into a NaN-poisoned slab whose halos stay untouched; the device's
// discretisation error is discretisation_error's (max to the bit, rms to 1e-13); a solve from the
// source made on the device gives the bits of one from the host's uploaded; the slab solver's made
// source on one rank gives DeviceSolver's bits; and `parasol run` of the example with three grids
// (study.refinements = 3) gives the /diagnostics of the host's making and measuring.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/result_reader.hpp"
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/device_slab.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/run.hpp"
#include "tests/support.hpp"

namespace parasol::poisson {
namespace {

// The one context a process may hold: one rank, as a run without a launcher has.
comm::Context& one_rank() {
  static comm::Context context;
  return context;
}

struct Grid {
  std::string name;
  std::int64_t nx, ny, nz;
  std::array<Face, 6> faces;
  double alpha = 0.0;
};

constexpr Face D{FaceKind::dirichlet, 0.0};
constexpr Face N{FaceKind::neumann, 0.0};
constexpr Face P{FaceKind::periodic, 0.0};
constexpr Face Nv(double g) { return {FaceKind::neumann, g}; }

// Face values 0 except where named: a manufactured source asks for them, and there b is f.
std::vector<Grid> grids() {
  return {
      {"odd33x17x9", 33, 17, 9, {D, D, D, N, D, D}},
      {"noncube48x24x32", 48, 24, 32, {D, N, N, D, P, P}},
      // x and y halve, z stays at 2 cells: semi-coarsening.
      {"flat96x64x2", 96, 64, 2, {D, N, N, D, D, N}},
      {"thin64x2x2", 64, 2, 2, {D, D, P, P, N, N}},
      {"helmholtz20x12x28", 20, 12, 28, {N, N, N, N, N, N}, 2.5},
      {"singular16x8x16_periodic", 16, 8, 16, {P, P, P, P, P, P}},
      {"singular_odd7x5x3_periodic", 7, 5, 3, {P, P, P, P, P, P}},
      {"singular12x10x14_neumann", 12, 10, 14, {N, N, N, N, N, N}},
  };
}

// Neumann data on a singular grid: the shift's plane sums take the boundary terms in.
const Grid kNeumannData{
    "singular12x10x14_neumann_data", 12, 10, 14, {Nv(0.25), Nv(-0.5), Nv(0.1), N, N, Nv(0.3)}};

constexpr std::array kKinds{SourceKind::zero, SourceKind::gaussian, SourceKind::charges,
                            SourceKind::manufactured};

Params make_params(const Grid& g, SourceKind kind, Precision precision) {
  Params p;
  p.nx = g.nx;
  p.ny = g.ny;
  p.nz = g.nz;
  p.hx = 1.0 / static_cast<double>(g.nx);
  p.hy = 1.3 / static_cast<double>(g.ny);
  p.hz = 0.8 / static_cast<double>(g.nz);
  p.alpha = g.alpha;
  for (int f = 0; f < 6; ++f) p.face(f) = g.faces[static_cast<std::size_t>(f)];
  p.source.kind = kind;
  p.source.amplitude = 1.7;
  p.source.centre = {0.4, 0.55, 0.6};
  p.source.width = 0.2;
  p.source.charges = {{0.3, 0.5, 0.4, 1.0}, {0.6, 0.4, 0.7, -0.5}, {0.5, 0.5, 0.5, 0.25}};
  p.precision = precision;
  p.variant = Variant::plain;
  return p;
}

// Whether the device's values are the host's bits (sources.cuh): all but the kinds that call exp.
bool exact_kind(SourceKind k) { return k == SourceKind::zero || k == SourceKind::manufactured; }

// The kinds that call exp: CUDA's is within 1 ulp and glibc's within about half of one, so a term
// differs by 2 ulps of double at most and f by that of its terms' sum of magnitudes (8 ulps of
// the largest |f| bounds it with room for the charges' cancellations); rounding to float then
// moves a value by at most one float ulp. A wrong formula or index differs by far more.
template <class T>
double exp_tolerance(double value, double largest) {
  return std::numeric_limits<T>::epsilon() * std::abs(value) +
         8 * std::numeric_limits<double>::epsilon() * largest;
}

double largest(const std::vector<double>& f) {
  double m = 0;
  for (double v : f) m = std::max(m, std::abs(v));
  return m;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The host's right-hand side as DeviceSolver holds it: make_source, make_compatible, each value
// rounded to T, then its boundary terms added in double and rounded again where they are not 0
// (boundary_terms_kernel's rule).
template <class T>
std::vector<T> host_rhs(const Params& p, double& shift, std::vector<double>& f) {
  f = make_source(p);
  shift = make_compatible(p, f);
  std::vector<double> add(f.size(), 0.0);
  add_boundary_terms(p, levels(p).front(), add);
  std::vector<T> b(f.size());
  for (std::size_t c = 0; c < f.size(); ++c) {
    const T v = static_cast<T>(f[c]);
    b[c] = add[c] != 0.0 ? static_cast<T>(static_cast<double>(v) + add[c]) : v;
  }
  return b;
}

template <class T>
void expect_rhs_made_as_the_host_makes_it(const Params& p, const std::string& what) {
  double host_shift = 0;
  std::vector<double> f;
  const std::vector<T> host = host_rhs<T>(p, host_shift, f);
  DeviceSolver<T> solver(p);
  solver.poison_source();  // NaN: a cell make_source never wrote cannot pass
  const double shift = solver.make_source();
  std::vector<T> device(host.size());
  solver.download_rhs(device.data());
  const double big = largest(f);
  if (exact_kind(p.source.kind)) {
    EXPECT_EQ(std::memcmp(&shift, &host_shift, sizeof shift), 0)
        << what << ": shift " << shift << " against " << host_shift;
    EXPECT_TRUE(same_bits(device, host)) << what;
  } else {
    EXPECT_NEAR(shift, host_shift, 8 * std::numeric_limits<double>::epsilon() * big) << what;
    for (std::size_t c = 0; c < host.size(); ++c)
      ASSERT_NEAR(device[c], host[c], exp_tolerance<T>(host[c], big)) << what << ", cell " << c;
  }
  for (std::size_t c = 0; c < device.size(); ++c)
    ASSERT_FALSE(std::isnan(static_cast<double>(device[c]))) << what << ", cell " << c;
}

template <class T>
void expect_slab_planes_made_as_the_host_makes_them(const Params& p, const std::string& what) {
  // A part that starts past plane 0 and stops short of the last where the grid allows.
  const std::int64_t z_begin = p.nz >= 3 ? p.nz / 3 : 1;
  const std::int64_t z_end = p.nz >= 3 ? p.nz - 1 : p.nz;
  std::vector<double> whole = make_source(p);
  const double shift = make_compatible(p, whole);
  const std::vector<double> f = make_source(p, z_begin, z_end);
  const std::vector<T> device = device_source_planes<T>(p, z_begin, z_end, shift);
  ASSERT_EQ(device.size(), f.size()) << what;
  std::vector<T> host(f.size());
  for (std::size_t c = 0; c < f.size(); ++c)
    host[c] = static_cast<T>(shift != 0.0 ? f[c] - shift : f[c]);
  if (exact_kind(p.source.kind)) {
    EXPECT_TRUE(same_bits(device, host)) << what;
  } else {
    const double big = largest(whole);
    for (std::size_t c = 0; c < host.size(); ++c)
      ASSERT_NEAR(device[c], host[c], exp_tolerance<T>(host[c], big)) << what << ", cell " << c;
  }
}

std::string case_text(const Grid& g, SourceKind k, Precision pr) {
  return g.name + " " + std::string(name(k)) + " " + std::string(name(pr));
}

TEST(PoissonDeviceSource, EveryKindIsMadeAsTheHostMakesIt) {
  PARASOL_REQUIRE_GPU();
  std::vector<Grid> all = grids();
  all.push_back(kNeumannData);
  for (const Grid& g : all)
    for (SourceKind k : kKinds) {
      // The manufactured solution is 0 on every face: it asks for face values 0.
      if (k == SourceKind::manufactured && g.name == kNeumannData.name) continue;
      expect_rhs_made_as_the_host_makes_it<float>(make_params(g, k, Precision::single),
                                                  case_text(g, k, Precision::single));
      expect_rhs_made_as_the_host_makes_it<double>(make_params(g, k, Precision::double_),
                                                   case_text(g, k, Precision::double_));
    }
}

TEST(PoissonDeviceSource, ASlabsPlanesAreMadeAsTheHostMakesThem) {
  PARASOL_REQUIRE_GPU();
  for (const Grid& g : grids())
    for (SourceKind k : kKinds) {
      expect_slab_planes_made_as_the_host_makes_them<float>(make_params(g, k, Precision::single),
                                                            case_text(g, k, Precision::single));
      expect_slab_planes_made_as_the_host_makes_them<double>(
          make_params(g, k, Precision::double_), case_text(g, k, Precision::double_));
    }
}

// Two cycles: any u will do, the error is of what the solve left.
template <class T>
void expect_error_as_the_host_measures_it(const Grid& g, Precision pr) {
  Params p = make_params(g, SourceKind::manufactured, pr);
  p.tolerance = 0;
  p.max_cycles = 2;
  DeviceSolver<T> solver(p);
  (void)solver.make_source();
  solver.poison();
  (void)solver.solve();
  std::vector<T> u(static_cast<std::size_t>(p.cells()));
  solver.download(u.data());
  const DiscretisationError host =
      discretisation_error(p, u, manufactured_solution(p), one_rank(), 0);
  const DiscretisationError device = solver.manufactured_error();
  const std::string what = case_text(g, SourceKind::manufactured, pr);
  EXPECT_EQ(device.max, host.max) << what;
  // Each plane's squares summed by a tree, not in cell order (sources.cuh).
  EXPECT_NEAR(device.rms, host.rms, 1e-13 * host.rms) << what;
  EXPECT_GT(host.max, 0.0) << what;
}

TEST(PoissonDeviceSource, TheErrorIsMeasuredAsTheHostMeasuresIt) {
  PARASOL_REQUIRE_GPU();
  for (const Grid& g : grids()) {
    expect_error_as_the_host_measures_it<float>(g, Precision::single);
    expect_error_as_the_host_measures_it<double>(g, Precision::double_);
  }
}

// f the same bits, so the solve is: the made source changes no GPU result of these kinds.
template <class T>
void expect_made_solve_like_uploaded(const Params& base, const std::string& what) {
  Params p = base;
  p.tolerance = 0;
  p.max_cycles = 3;
  double shift = 0;
  std::vector<double> f;
  (void)host_rhs<T>(p, shift, f);
  const std::vector<T> source(f.begin(), f.end());
  DeviceSolver<T> uploaded(p);
  uploaded.upload_source(source.data());
  uploaded.poison();
  const Outcome a = uploaded.solve();
  std::vector<T> ua(source.size()), ub;
  uploaded.download(ua.data());
  const DeviceSolve made = solve_made_on_device<T>(p, &ub, one_rank());
  EXPECT_TRUE(same_bits(ub, ua)) << what;
  ASSERT_EQ(made.outcome.cycles.size(), a.cycles.size()) << what;
  for (std::size_t c = 0; c < a.cycles.size(); ++c)
    EXPECT_EQ(made.outcome.cycles[c].residual_l2, a.cycles[c].residual_l2) << what;
  EXPECT_EQ(made.shift, shift) << what;
  EXPECT_EQ(made.error.has_value(), p.source.kind == SourceKind::manufactured) << what;
}

TEST(PoissonDeviceSource, ASolveFromTheMadeSourceIsOneFromTheUploadedSource) {
  PARASOL_REQUIRE_GPU();
  for (const Grid& g : grids())
    for (Variant v : kVariants) {
      Params p = make_params(g, SourceKind::manufactured, Precision::double_);
      p.variant = v;
      expect_made_solve_like_uploaded<double>(p, g.name + " " + std::string(name(v)));
      p.precision = Precision::single;
      expect_made_solve_like_uploaded<float>(p, g.name + " float " + std::string(name(v)));
    }
}

// The slab solver on one rank runs DeviceSolver's plain kernels on whole levels: the same source,
// solve, shift and error, to the bit, for every kind (the exp kinds' values are the one kernel's).
template <class T>
void expect_slab_made_like_device(const Params& base, const std::string& what) {
  Params p = base;
  p.tolerance = 0;
  p.max_cycles = 2;
  std::vector<T> u_device, u_slab;
  const DeviceSolve device = solve_made_on_device<T>(p, &u_device, one_rank());
  const DeviceSolve slab = solve_device_slab_made<T>(p, one_rank(), &u_slab);
  EXPECT_TRUE(same_bits(u_slab, u_device)) << what;
  EXPECT_EQ(slab.shift, device.shift) << what;
  ASSERT_EQ(slab.error.has_value(), device.error.has_value()) << what;
  if (device.error) {
    EXPECT_EQ(slab.error->max, device.error->max) << what;
    EXPECT_EQ(slab.error->rms, device.error->rms) << what;
  }
}

TEST(PoissonDeviceSource, TheSlabSolversMadeSourceOnOneRankGivesTheDeviceSolversBits) {
  PARASOL_REQUIRE_GPU();
  for (const Grid& g : grids())
    for (SourceKind k : kKinds) {
      expect_slab_made_like_device<double>(make_params(g, k, Precision::double_),
                                           case_text(g, k, Precision::double_));
      expect_slab_made_like_device<float>(make_params(g, k, Precision::single),
                                          case_text(g, k, Precision::single));
    }
}

// A file's source is read, not made: refused by name on any machine.
TEST(PoissonDeviceSource, AFileSourceHasNoRecipe) {
  Params p = make_params(grids()[0], SourceKind::file, Precision::double_);
  EXPECT_THROW((void)source_recipe(p), Error);
}

// Through the front end: inputs/poisson.toml (64³, three grids) on the GPU, against the host's
// making and measuring of the same three solves (run.hpp's solve and refinement_errors' way).
const std::string kExe = PARASOL_EXE;
const std::filesystem::path kInputs = std::filesystem::path(PARASOL_SOURCE_DIR) / "inputs";

// inputs/poisson.toml as Params.
Params example() {
  Params p;
  p.nx = p.ny = p.nz = 64;
  p.hx = p.hy = p.hz = 0.015625;
  p.alpha = 0.0;
  p.face(0) = D;
  p.face(1) = D;
  p.face(2) = D;
  p.face(3) = N;
  p.face(4) = P;
  p.face(5) = P;
  p.source.kind = SourceKind::manufactured;
  p.tolerance = 1e-10;
  p.max_cycles = 20;
  p.cycle = Cycle::fmg;
  p.smoother = Smoother::rbgs;
  p.pre_sweeps = p.post_sweeps = 2;
  p.precision = Precision::double_;
  p.refinements = 3;
  return p;
}

TEST(PoissonDeviceSourceCli, ThreeGridsGiveTheHostsDiagnostics) {
  PARASOL_REQUIRE_GPU();
  const test::ScratchDir dir;
  const auto r = test::run_shell(kExe + " run '" + (kInputs / "poisson.toml").string() +
                                 "' --backend gpu -o '" + (dir / "r.h5").string() + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  io::ResultReader h5(dir / "r.h5");
  const auto number = [&](const char* a) {
    return std::get<double>(h5.attribute("/diagnostics", a));
  };
  const auto series = [&](const char* a) {
    return std::get<std::vector<double>>(h5.attribute("/diagnostics", a));
  };
  const Params p = example();
  std::vector<DiscretisationError> errors;
  for (std::int64_t g = 0; g < p.refinements; ++g) {
    const Params q = coarser(p, g);
    std::vector<double> f = make_source(q);
    make_compatible(q, f);
    std::vector<double> u;
    const Outcome o = solve(q, f, u, true, one_rank());
    if (g == 0) {
      EXPECT_EQ(series("residual_l2").size(), o.cycles.size());
      EXPECT_EQ(std::get<std::int64_t>(h5.attribute("/diagnostics", "levels")), o.levels);
    }
    errors.push_back(discretisation_error(q, u, manufactured_solution(q), one_rank(), 0));
  }
  const OrderStudy host = order_study(p, errors);
  EXPECT_EQ(number("error_max"), errors[0].max);
  EXPECT_NEAR(number("error_rms"), errors[0].rms, 1e-13 * errors[0].rms);
  EXPECT_EQ(series("refinement_error_max"), host.error_max);
  const std::vector<double> orders = series("observed_orders");
  ASSERT_EQ(orders.size(), host.orders.size());
  for (std::size_t i = 0; i < orders.size(); ++i) EXPECT_NEAR(orders[i], host.orders[i], 1e-12);
  EXPECT_NEAR(number("observed_order"), 2.0, 0.1);
}

}  // namespace
}  // namespace parasol::poisson
