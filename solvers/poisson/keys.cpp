#include "solvers/poisson/keys.hpp"

#include <string>

namespace parasol::poisson {

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    for (const auto& [axis, get] :
         {std::pair{"grid.nx", +[](P& p) -> std::int64_t& { return p.nx; }},
          std::pair{"grid.ny", +[](P& p) -> std::int64_t& { return p.ny; }},
          std::pair{"grid.nz", +[](P& p) -> std::int64_t& { return p.nz; }}})
      k.push_back(key<P>(axis, get,
                         "cells in this direction (unknowns at cell centres); the multigrid "
                         "halves each side while it is even (semi-coarsening), so sides of 2^m "
                         "times a small number go deepest")
                      .required()
                      .values("≥ 2")
                      .unit("cells"));
    for (const auto& [axis, get] :
         {std::pair{"grid.hx", +[](P& p) -> double& { return p.hx; }},
          std::pair{"grid.hy", +[](P& p) -> double& { return p.hy; }},
          std::pair{"grid.hz", +[](P& p) -> double& { return p.hz; }}})
      k.push_back(key<P>(axis, get, "cell side in this direction; the box is n·h long")
                      .values("> 0"));
    k.push_back(key<P>("problem.alpha", [](P& p) -> auto& { return p.alpha; },
                       "α in α u − ∇²u = f: 0 is Poisson, > 0 Helmholtz (one implicit diffusion "
                       "step of length 1/α)")
                    .values("≥ 0"));
    for (int f = 0; f < 6; ++f) {
      const std::string face = std::string("boundary.") + kFaceNames[static_cast<std::size_t>(f)];
      k.push_back(choice<P>(face + ".kind", [f](P& p) -> FaceKind& { return p.face(f).kind; },
                            kFaceKinds, parse_face_kind,
                            "this face's condition; periodic faces come in pairs (x_min with "
                            "x_max, ...)"));
      k.push_back(key<P>(face + ".value", [f](P& p) -> double& { return p.face(f).value; },
                         "Dirichlet: u on the face; Neumann: the outward normal derivative ∂u/∂n "
                         "on the face (constant over it)")
                      .only_if([f](const P& p) { return p.face(f).kind != FaceKind::periodic; },
                               face + ".kind ≠ \"periodic\""));
    }
    k.push_back(choice<P>("source.kind", [](P& p) -> auto& { return p.source.kind; },
                          std::array{SourceKind::zero, SourceKind::gaussian, SourceKind::charges,
                                     SourceKind::manufactured, SourceKind::file},
                          parse_source_kind,
                          "f: zero; a Gaussian; point charges, each smoothed into a normalised "
                          "Gaussian (f is their charge density); f of a known solution "
                          "(products of sines and cosines fitting the faces), so the "
                          "discretisation error is measured; or a dataset of an HDF5 file"));
    const auto is = [](SourceKind kind) {
      return [kind](const P& p) { return p.source.kind == kind; };
    };
    k.push_back(key<P>("source.centre", [](P& p) -> auto& { return p.source.centre; },
                       "the Gaussian's centre [x, y, z], as fractions of the box's sides")
                    .only_if(is(SourceKind::gaussian), "source.kind = \"gaussian\""));
    k.push_back(key<P>("source.width", [](P& p) -> auto& { return p.source.width; },
                       "the Gaussian's (or each charge's) standard deviation, as a fraction of "
                       "the box's shortest side")
                    .values("> 0")
                    .only_if([](const P& p) {
                      return p.source.kind == SourceKind::gaussian ||
                             p.source.kind == SourceKind::charges;
                    },
                             "source.kind = \"gaussian\" or \"charges\""));
    k.push_back(key<P>("source.amplitude", [](P& p) -> auto& { return p.source.amplitude; },
                       "the Gaussian's peak, or the manufactured solution's")
                    .only_if([](const P& p) {
                      return p.source.kind == SourceKind::gaussian ||
                             p.source.kind == SourceKind::manufactured;
                    },
                             "source.kind = \"gaussian\" or \"manufactured\""));
    k.push_back(matrix<P>(
                    "source.charges",
                    [](P& p, const std::vector<std::vector<double>>& rows) {
                      p.source.charges = rows;
                    },
                    [](const P&) { return std::optional<std::vector<std::vector<double>>>(); },
                    "the charges, one row [x, y, z, q] each: position as fractions of the box's "
                    "sides, and charge")
                    .only_if(is(SourceKind::charges), "source.kind = \"charges\""));
    k.push_back(file<P>("source.file", [](P& p) -> auto& { return p.source.file; },
                        "the HDF5 file holding f")
                    .required()
                    .only_if(is(SourceKind::file), "source.kind = \"file\""));
    k.push_back(key<P>("source.dataset", [](P& p) -> auto& { return p.source.dataset; },
                       "the dataset of f in source.file: [nz][ny][nx] values, x fastest")
                    .only_if(is(SourceKind::file), "source.kind = \"file\""));
    k.push_back(key<P>("iteration.tolerance", [](P& p) -> auto& { return p.tolerance; },
                       "stop once the relative residual max|b − A u| / max|b| < tolerance; 0 "
                       "runs every cycle")
                    .values("≥ 0"));
    k.push_back(key<P>("iteration.max_cycles", [](P& p) -> auto& { return p.max_cycles; },
                       "V-cycles at most, after the full multigrid")
                    .values("≥ 0"));
    k.push_back(choice<P>("method.cycle", [](P& p) -> auto& { return p.cycle; }, kCycles,
                          parse_cycle,
                          "fmg: full multigrid (each level solved once, coarse to fine), then "
                          "V-cycles; v: V-cycles from u = 0"));
    k.push_back(choice<P>("method.smoother", [](P& p) -> auto& { return p.smoother; }, kSmoothers,
                          parse_smoother,
                          "red-black Gauss–Seidel, or Chebyshev-accelerated Jacobi"));
    k.push_back(key<P>("method.pre_sweeps", [](P& p) -> auto& { return p.pre_sweeps; },
                       "smoother sweeps before each coarse-grid correction")
                    .values("≥ 0"));
    k.push_back(key<P>("method.post_sweeps", [](P& p) -> auto& { return p.post_sweeps; },
                       "smoother sweeps after each coarse-grid correction")
                    .values("≥ 0"));
    k.push_back(key<P>("method.bottom_cells", [](P& p) -> auto& { return p.bottom_cells; },
                       "a level no longer along any side than a cube of this many cells (or "
                       "with no side left to halve) is the coarsest, solved by "
                       "method.bottom_sweeps sweeps")
                    .at_least(1)
                    .unit("cells"));
    k.push_back(key<P>("method.bottom_sweeps", [](P& p) -> auto& { return p.bottom_sweeps; },
                       "smoother sweeps that solve the coarsest level")
                    .at_least(1));
    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; }, kVariants,
                          parse_variant,
                          "GPU kernels: plain (one kernel per sweep and transfer) or fused "
                          "(smoother sweeps fused in shared memory)")
                    .gpu_only());
    k.push_back(choice<P>("method.precision", [](P& p) -> auto& { return p.precision; },
                          std::array{Precision::single, Precision::double_}, parse_precision,
                          "arithmetic and storage precision (norms are summed in double)"));
    k.push_back(key<P>("study.refinements", [](P& p) -> auto& { return p.refinements; },
                       "with a manufactured source, solve this many grids (each coarser one "
                       "with half the cells per side) and report the observed order of "
                       "accuracy from their errors")
                    .at_least(1));
    add_checkpoint_keys<P>(k, [](P& p) -> auto& { return p.checkpoint; }, "V-cycles");
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    k.push_back(choices<S>("sweep.variants", [](S& s) -> auto& { return s.variants; }, kVariants,
                           parse_variant, "variants `parasol sweep` times"));
    k.push_back(choices<S>("sweep.smoothers", [](S& s) -> auto& { return s.smoothers; },
                           kSmoothers, parse_smoother, "smoothers `parasol sweep` times"));
    k.push_back(choices<S>("sweep.cycles", [](S& s) -> auto& { return s.cycles; }, kCycles,
                           parse_cycle, "cycle shapes `parasol sweep` times"));
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; }, "timed solves");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    MethodAxes<P> m;
    m.axes = {variant_axis<P>([](P& p) -> auto& { return p.variant; }, parse_variant, 8),
              choice_axis<P>("smoother", 10, [](P& p) -> auto& { return p.smoother; },
                             parse_smoother),
              choice_axis<P>("cycle", 6, [](P& p) -> auto& { return p.cycle; }, parse_cycle),
              // Always the parameter file's: no choice is stored for poisson.
              recorded_axis<P>("chosen_by", [](const P&) { return std::string("parameters"); })};
    return m;
  }();
  return axes;
}

}  // namespace parasol::poisson
