// poisson parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
//
// The problem: α u − ∇²u = f on a box of nx × ny × nz cells (α = 0: Poisson; α > 0: Helmholtz,
// as one implicit diffusion step needs), each face Dirichlet, Neumann or periodic. The
// discretisation and the multigrid that both the CPU gold and the GPU solver implement are
// written down once, in poisson.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/precision.hpp"

namespace parasol::poisson {

// What a face holds. Dirichlet: u = value on the face. Neumann: the outward normal derivative
// ∂u/∂n = value on the face. Periodic: the opposite face is the neighbour (faces in pairs).
enum class FaceKind { dirichlet, neumann, periodic };
inline constexpr std::array kFaceKinds{FaceKind::dirichlet, FaceKind::neumann, FaceKind::periodic};
std::string_view name(FaceKind k);           // "dirichlet", "neumann", "periodic"
FaceKind parse_face_kind(std::string_view s);  // throws InputError listing the valid names

struct Face {
  FaceKind kind = FaceKind::dirichlet;
  double value = 0.0;  // constant over the face; unused where periodic
};

// The faces in the order x_min, x_max, y_min, y_max, z_min, z_max: index 2 * axis + side.
inline constexpr std::array<const char*, 6> kFaceNames{"x_min", "x_max", "y_min",
                                                       "y_max", "z_min", "z_max"};

// The source f. zero; gaussian: amplitude · exp(−|x − c|² / (2 w²)); charges: point charges,
// each smoothed into a normalised Gaussian of width w (q / (2π w²)^{3/2} · exp(...)), so f is a
// charge density; manufactured: f made from a known solution (problem.hpp) so that the
// discretisation error can be measured; file: a dataset of nx·ny·nz values in an HDF5 file.
enum class SourceKind { zero, gaussian, charges, manufactured, file };
std::string_view name(SourceKind k);
SourceKind parse_source_kind(std::string_view s);

struct Source {
  SourceKind kind = SourceKind::manufactured;
  // Positions are fractions of the box's sides (0 to 1); widths fractions of its shortest side,
  // so a source keeps its shape when the grid is refined.
  std::vector<double> centre{0.5, 0.5, 0.5};  // gaussian
  double width = 0.05;                        // gaussian, charges
  double amplitude = 1.0;                     // gaussian; manufactured: the solution's amplitude
  std::vector<std::vector<double>> charges;   // rows [x, y, z, q]
  std::string file;                           // file: the HDF5 file
  std::string dataset = "/f";                 // file: the dataset, [nz][ny][nx], x fastest
};

// The smoother. rbgs: red-black Gauss–Seidel (red: i + j + k even, global indices; a sweep is
// red then black). chebyshev: Chebyshev-accelerated Jacobi, one polynomial step a sweep
// (coefficients: chebyshev_steps in poisson.hpp).
enum class Smoother { rbgs, chebyshev };
inline constexpr std::array kSmoothers{Smoother::rbgs, Smoother::chebyshev};
std::string_view name(Smoother s);
Smoother parse_smoother(std::string_view s);

// The cycle. fmg: full multigrid first (one V-cycle a level), then V-cycles; v: V-cycles from
// u = 0.
enum class Cycle { fmg, v };
inline constexpr std::array kCycles{Cycle::fmg, Cycle::v};
std::string_view name(Cycle c);
Cycle parse_cycle(std::string_view s);

// The GPU kernels, by the names users type. plain: one kernel per smoother sweep, per
// restriction (of the residual made on the fly) and per prolongation; fused: smoother sweeps
// fused in shared memory and registers.
enum class Variant { plain, fused };
inline constexpr std::array kVariants{Variant::plain, Variant::fused};
std::string_view name(Variant v);
Variant parse_variant(std::string_view s);

using parasol::Precision;
using parasol::parse_precision;

struct Params {
  // Cells in each direction; unknowns sit at cell centres. Stored x fastest: i + nx*(j + ny*k).
  std::int64_t nx = 64, ny = 64, nz = 64;
  double hx = 1.0, hy = 1.0, hz = 1.0;  // cell sides; the box is [0, nx hx] × [0, ny hy] × [0, nz hz]
  double alpha = 0.0;                   // ≥ 0: 0 is Poisson, > 0 Helmholtz

  Face x_min, x_max, y_min, y_max, z_min, z_max;

  Source source;

  Smoother smoother = Smoother::rbgs;
  Cycle cycle = Cycle::fmg;
  std::int64_t pre_sweeps = 2, post_sweeps = 2;
  // A level no longer along any side than a cube of this many cells (so with at most this many
  // cells), or with no side left to halve, is the coarsest (levels() in poisson.hpp): it is
  // solved by `bottom_sweeps` smoother sweeps.
  std::int64_t bottom_cells = 64;
  std::int64_t bottom_sweeps = 64;
  double tolerance = 1e-10;     // stop once ‖b − A u‖_max / ‖b‖_max < tolerance (poisson.hpp)
  std::int64_t max_cycles = 20;  // V-cycles at most (after FMG)
  Precision precision = Precision::double_;
  Variant variant = Variant::plain;  // the faster at every size measured (docs/performance.md)

  // The observed order of accuracy (manufactured source only): 1 solves this grid; k solves k
  // grids, each with half the cells per side of the one before and twice the spacing.
  std::int64_t refinements = 1;
  CheckpointParams checkpoint;  // [checkpoint]: u and the reports after every N V-cycles, on a signal

  // Face `index` (0..5: x_min, x_max, y_min, y_max, z_min, z_max) and by axis (0..2) and side
  // (0: min, 1: max).
  const Face& face(int index) const;
  Face& face(int index);
  const Face& face(int axis, int side) const { return face(2 * axis + side); }

  std::int64_t cells() const { return nx * ny * nz; }

  // Throws InputError naming the offending key (its source left for the caller to fill in).
  void validate() const;
};

// Whether the problem is singular: every face Neumann or periodic and α = 0, so u is determined
// only up to a constant (problem.hpp says what is done about it).
bool singular(const Params& p);

}  // namespace parasol::poisson
