// The CPU gold: poisson.hpp's multigrid written plainly, one loop nest per operation, parallel
// over z planes with OpenMP. Every cell's arithmetic is fixed and every sum runs in a fixed
// order (each plane in index order, then the planes in order), so the answer does not depend on
// the thread count.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/slab.hpp"

namespace parasol::poisson {

std::vector<Level> levels(const Params& p) {
  std::vector<Level> out{{p.nx, p.ny, p.nz, p.hx, p.hy, p.hz}};
  // Whether an axis of n cells may halve. One of one cell below meets its faces on both sides of
  // every cell: at a Dirichlet face the trilinear prolongation's ghost (−u_0) halves the
  // correction there, so an axis with one stops at 2 cells; Neumann and periodic ghosts give the
  // parent's own value, and an axis between them goes down to 1.
  const auto may_halve = [&](std::int64_t n, int axis) {
    const bool dirichlet = p.face(axis, 0).kind == FaceKind::dirichlet ||
                           p.face(axis, 1).kind == FaceKind::dirichlet;
    return n % 2 == 0 && n >= (dirichlet ? 4 : 2);
  };
  for (;;) {
    const Level& l = out.back();
    const std::int64_t n[3] = {l.nx, l.ny, l.nz};
    const double h[3] = {l.hx, l.hy, l.hz};
    // Small enough: no side longer than a cube of bottom_cells cells has (so at most that many
    // cells). The bottom sweeps of a point smoother carry a correction about √sweeps cells: 64
    // of them solve a 4³ level but not a line of 16.
    const double longest = static_cast<double>(std::max({l.nx, l.ny, l.nz}));
    if (longest * longest * longest <= static_cast<double>(p.bottom_cells)) break;
    // Of the axes that may halve, those coupled about as strongly as the strongest (1/h² within
    // 4 times its) halve; a weaker one waits until the others' spacing has grown to it. Halving
    // a weakly coupled axis would leave cells the point smoother cannot smooth across.
    double h_min = 0;
    for (int axis = 0; axis < 3; ++axis)
      if (may_halve(n[axis], axis) && (h_min == 0 || h[axis] < h_min)) h_min = h[axis];
    if (h_min == 0) break;
    int r[3];
    for (int axis = 0; axis < 3; ++axis)
      r[axis] = may_halve(n[axis], axis) && h[axis] < 2 * h_min ? 2 : 1;
    out.push_back({l.nx / r[0], l.ny / r[1], l.nz / r[2], r[0] * l.hx, r[1] * l.hy, r[2] * l.hz,
                   r[0], r[1], r[2]});
  }
  return out;
}

double ghost_weight(FaceKind k) {
  return k == FaceKind::dirichlet ? 1.0 : k == FaceKind::neumann ? -1.0 : 0.0;
}

namespace {

// One axis's share of the diagonal, in units of 1/h², for the cell at `at` of `n`.
double axis_diagonal(FaceKind lo, FaceKind hi, std::int64_t at, std::int64_t n) {
  // A periodic side of one cell is its own neighbour twice over: the axis adds nothing.
  if (lo == FaceKind::periodic) return n == 1 ? 0.0 : 2.0;
  return 2.0 + (at == 0 ? ghost_weight(lo) : 0.0) + (at == n - 1 ? ghost_weight(hi) : 0.0);
}

}  // namespace

double diagonal(const Params& p, const Level& l, std::int64_t i, std::int64_t j, std::int64_t k) {
  return p.alpha + axis_diagonal(p.x_min.kind, p.x_max.kind, i, l.nx) / (l.hx * l.hx) +
         axis_diagonal(p.y_min.kind, p.y_max.kind, j, l.ny) / (l.hy * l.hy) +
         axis_diagonal(p.z_min.kind, p.z_max.kind, k, l.nz) / (l.hz * l.hz);
}

std::vector<ChebyshevStep> chebyshev_steps(std::int64_t sweeps) {
  constexpr double kMax = 2.0, kMin = kMax / 8;
  const double theta = (kMax + kMin) / 2, delta = (kMax - kMin) / 2, sigma = theta / delta;
  std::vector<ChebyshevStep> steps;
  double rho = 1 / sigma;
  for (std::int64_t s = 0; s < sweeps; ++s) {
    if (s == 0) {
      steps.push_back({0.0, 1 / theta});
      continue;
    }
    const double next = 1 / (2 * sigma - rho);
    steps.push_back({next * rho, 2 * next / delta});
    rho = next;
  }
  return steps;
}

namespace {

using Index = std::int64_t;

// A level as this rank holds it: planes [k0, k1) of the level's nz, stored x fastest with one
// halo plane below and one above (z-neighbours from other ranks, or a periodic wrap). Levels
// gathered onto rank 0 are not held on the others.
struct Slice {
  Level l;
  Index k0 = 0, k1 = 0;
  bool held = false;
  Index planes() const { return k1 - k0; }
  std::size_t size() const { return static_cast<std::size_t>(l.nx * l.ny * (planes() + 2)); }
  std::size_t plane() const { return static_cast<std::size_t>(l.nx * l.ny); }
  // Cell (i, j, k) with k a plane of the whole level, k0 − 1 ≤ k ≤ k1.
  std::size_t at(Index i, Index j, Index k) const {
    return static_cast<std::size_t>(i + l.nx * (j + l.ny * (k - k0 + 1)));
  }
};

Slice whole(const Level& l) { return {l, 0, l.nz, true}; }

// A level's operator with homogeneous conditions, in T.
template <class T>
struct Operator {
  Slice s;
  FaceKind kind[6];
  T alpha, ih2[3];
  std::vector<T> inverse_diagonal;  // 0 where the diagonal is 0 (a cell whose equation is 0 = 0)
  bool odd_periodic = false;  // a periodic side of odd length ≥ 3: a colour meets itself

  Operator(const Params& p, const Slice& slice) : s(slice) {
    const Level& l = s.l;
    for (int f = 0; f < 6; ++f) kind[f] = p.face(f).kind;
    alpha = static_cast<T>(p.alpha);
    ih2[0] = static_cast<T>(1 / (l.hx * l.hx));
    ih2[1] = static_cast<T>(1 / (l.hy * l.hy));
    ih2[2] = static_cast<T>(1 / (l.hz * l.hz));
    if (s.held) {
      inverse_diagonal.resize(s.size());
      for (Index k = s.k0; k < s.k1; ++k)
        for (Index j = 0; j < l.ny; ++j)
          for (Index i = 0; i < l.nx; ++i) {
            const double d = diagonal(p, l, i, j, k);
            inverse_diagonal[s.at(i, j, k)] = d == 0 ? T(0) : static_cast<T>(1 / d);
          }
    }
    const Index n[3] = {l.nx, l.ny, l.nz};
    for (int axis = 0; axis < 3; ++axis)
      odd_periodic = odd_periodic || (kind[2 * axis] == FaceKind::periodic && n[axis] % 2 == 1 &&
                                      n[axis] >= 3);
  }

  // The neighbour beyond face `f` of a cell whose value is `own`; `wrapped` is the cell at the
  // other end (periodic).
  T ghost(int f, T own, T wrapped) const {
    return kind[f] == FaceKind::dirichlet ? -own : kind[f] == FaceKind::neumann ? own : wrapped;
  }

  // (A u) at (i, j, k). Beyond a periodic z face the halo plane holds the wrap.
  T apply(const T* u, Index i, Index j, Index k) const {
    const Index nx = s.l.nx, ny = s.l.ny, nz = s.l.nz, sy = nx, sz = nx * ny;
    const Index c = static_cast<Index>(s.at(i, j, k));
    const T uc = u[c];
    const T xl = i > 0 ? u[c - 1] : ghost(0, uc, u[c + nx - 1]);
    const T xr = i < nx - 1 ? u[c + 1] : ghost(1, uc, u[c - (nx - 1)]);
    const T yl = j > 0 ? u[c - sy] : ghost(2, uc, u[c + (ny - 1) * sy]);
    const T yr = j < ny - 1 ? u[c + sy] : ghost(3, uc, u[c - (ny - 1) * sy]);
    const T zl = k > 0 || kind[4] == FaceKind::periodic ? u[c - sz] : ghost(4, uc, uc);
    const T zr = k < nz - 1 || kind[5] == FaceKind::periodic ? u[c + sz] : ghost(5, uc, uc);
    const T two = 2;
    return alpha * uc + (two * uc - xl - xr) * ih2[0] + (two * uc - yl - yr) * ih2[1] +
           (two * uc - zl - zr) * ih2[2];
  }
};

struct Norms {
  double max = 0, l2 = 0;
};

template <class T>
std::vector<T> to(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The multigrid of poisson.hpp on this rank's slices of the levels: every level on one rank, or
// levels 0 .. cut_levels − 1 cut among the ranks of `context` and the rest on rank 0 (slab.hpp).
template <class T>
class Multigrid {
 public:
  Multigrid(const Params& p, comm::Context* context, const SlabCut& cut)
      : p_(p), singular_(singular(p)), context_(context),
        rank_(context ? context->rank() : 0), size_(context ? context->size() : 1),
        cut_levels_(cut.cut_levels) {
    const std::vector<Level> all = levels(p);
    for (std::size_t l = 0; l < all.size(); ++l) {
      Slice s = slice_of(all, l, rank_);
      ops_.emplace_back(p, s);
      x_.emplace_back(s.held ? s.size() : 0, T(0));
      b_.emplace_back(s.held ? s.size() : 0, T(0));
      r_.emplace_back(s.held ? s.size() : 0, T(0));
    }
    // Whether some rank's planes split the children of a plane of the first gathered level (a
    // grid too thin for blocks, cut by single planes: slab_cut).
    const auto gathered = static_cast<std::size_t>(cut_levels_);
    for (int r = 0; size_ > 1 && gathered < all.size() && r < size_; ++r) {
      const Slice s = slice_of(all, gathered - 1, r);
      straddled_ = straddled_ || s.k0 % all[gathered].rz != 0 || s.k1 % all[gathered].rz != 0;
    }
  }

  std::size_t depth() const { return ops_.size(); }
  const Slice& slice(std::size_t l) const { return ops_[l].s; }
  // Whether level l's loops run on the threads: below about 32³ cells a parallel loop costs more
  // in its barrier than its work, and a barrier waits on a thread the OS has descheduled when
  // other programs share the cores. Each cell's arithmetic is the same either way: the bits too.
  bool threaded(std::size_t l) const { return slice(l).l.cells() >= (Index{1} << 15); }
  std::vector<T>& x(std::size_t l) { return x_[l]; }
  std::vector<T>& b(std::size_t l) { return b_[l]; }
  bool root() const { return rank_ == 0; }

  // Whether level l is cut among several ranks.
  bool cut(std::size_t l) const { return size_ > 1 && static_cast<Index>(l) < cut_levels_; }

  // Rank r's slice of level l: its blocks of planes on the cut levels; the whole level on rank
  // 0 (and nothing elsewhere) below them.
  Slice slice_of(const std::vector<Level>& all, std::size_t l, int r) const {
    const Level& level = all[l];
    if (size_ == 1) return whole(level);
    if (static_cast<Index>(l) >= cut_levels_) return {level, 0, r == 0 ? level.nz : 0, r == 0};
    // The level's planes are whole blocks of the grid's (slab_cut), p.nz / nz of them each.
    const SlabCut c = slab_cut(p_, r, size_);
    const Index block = p_.nz / level.nz;
    return {level, c.begin / block, c.end / block, true};
  }

  // Fills the halo planes of `v` at level `l` (held there): the neighbouring ranks' planes, and
  // beyond a periodic z face the plane at the other end.
  void fill_halos(const Slice& s, std::vector<T>& v, bool is_cut) {
    const std::size_t plane = s.plane();
    const bool periodic = p_.z_min.kind == FaceKind::periodic;
    if (!is_cut) {
      if (periodic) {
        std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::size_t>(s.planes())),
                    plane, v.begin());
        std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(plane), plane,
                    v.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::size_t>(s.planes() + 1)));
      }
      return;
    }
    T* data = v.data();
    const std::size_t top = plane * static_cast<std::size_t>(s.planes());
    comm::Neighbours nb;
    nb.down = rank_ > 0 ? rank_ - 1 : comm::kNoRank;
    nb.up = rank_ < size_ - 1 ? rank_ + 1 : comm::kNoRank;
    comm::Halo<T> h;
    h.count = plane;
    if (nb.down != comm::kNoRank) {
      h.send_down = data + plane;
      h.recv_down = data;
    }
    if (nb.up != comm::kNoRank) {
      h.send_up = data + top;
      h.recv_up = data + top + plane;
    }
    context_->exchange(nb, h);
    if (!periodic) return;
    // The wrap between the first rank and the last: the first sends before it receives, the
    // last the other way round, so neither waits on the other.
    const int last = size_ - 1;
    if (rank_ == 0) {
      context_->send(data + plane, plane, last, kWrapTag);
      context_->recv(data, plane, last, kWrapTag + 1);
    } else if (rank_ == last) {
      context_->recv(data + top + plane, plane, 0, kWrapTag);
      context_->send(data + top, plane, 0, kWrapTag + 1);
    }
  }
  void fill_halos(std::size_t l, std::vector<T>& v) { fill_halos(slice(l), v, cut(l)); }

  // Per plane of level l, f(first cell of the plane's run, cells) summed as `plane_sum` says,
  // for every plane of the level on every rank that holds it: this rank's planes computed here,
  // the others' added in by an all-reduce over zeros (exact), so the order is the one-rank one.
  template <class PlaneSum>
  std::vector<double> plane_totals(std::size_t l, PlaneSum plane_sum) {
    const Slice& s = slice(l);
    std::vector<double> planes(static_cast<std::size_t>(s.l.nz), 0.0);
    if (s.held) {
#pragma omp parallel for if (threaded(l))
      for (Index k = s.k0; k < s.k1; ++k)
        planes[static_cast<std::size_t>(k)] = plane_sum(s.at(0, 0, k), s.plane());
    }
    if (cut(l)) context_->all_reduce(planes, comm::Op::sum);
    return planes;
  }

  template <class V>
  Norms norms(std::size_t l, const V& v) {
    Norms n;
    const Slice& s = slice(l);
    for (Index k = s.k0; k < s.k1; ++k)
      for (std::size_t c = s.at(0, 0, k); c < s.at(0, 0, k) + s.plane(); ++c)
        n.max = std::max(n.max, std::abs(static_cast<double>(v[c])));
    if (cut(l)) n.max = context_->all_reduce(n.max, comm::Op::max);
    double sum = 0;
    for (double plane : plane_totals(l, [&](std::size_t first, std::size_t count) {
           double t = 0;
           for (std::size_t c = first; c < first + count; ++c) {
             const double x = static_cast<double>(v[c]);
             t += x * x;
           }
           return t;
         }))
      sum += plane;
    n.l2 = std::sqrt(sum);
    return n;
  }

  // Subtracts the mean (compensated sums: each plane's, then the planes') from v at level l.
  void remove_mean(std::size_t l, std::vector<T>& v) {
    const std::vector<double> planes = plane_totals(l, [&](std::size_t first, std::size_t count) {
      const auto begin = v.begin() + static_cast<std::ptrdiff_t>(first);
      return compensated_sum(std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(count)));
    });
    const T mean = static_cast<T>(compensated_sum(planes) / static_cast<double>(slice(l).l.cells()));
    const Slice& s = slice(l);
    for (Index k = s.k0; k < s.k1; ++k)
      for (std::size_t c = s.at(0, 0, k); c < s.at(0, 0, k) + s.plane(); ++c) v[c] -= mean;
  }

  // r = b − A x at level l.
  void residual(std::size_t l, std::vector<T>& r) {
    const Operator<T>& o = ops_[l];
    fill_halos(l, x_[l]);
    const T* x = x_[l].data();
    const std::vector<T>& b = b_[l];
#pragma omp parallel for if (threaded(l))
    for (Index k = o.s.k0; k < o.s.k1; ++k)
      for (Index j = 0; j < o.s.l.ny; ++j)
        for (Index i = 0; i < o.s.l.nx; ++i) {
          const std::size_t c = o.s.at(i, j, k);
          r[c] = b[c] - o.apply(x, i, j, k);
        }
  }

  void smooth(std::size_t l, std::int64_t sweeps) {
    if (p_.smoother == Smoother::rbgs) {
      for (std::int64_t s = 0; s < sweeps; ++s) {
        colour(l, 0);
        colour(l, 1);
      }
    } else {
      chebyshev(l, sweeps);
    }
  }

  // The V-cycle on A x_l = b_l from the current x_l (poisson.hpp). Ranks that do not hold
  // level l return at once.
  void vcycle(std::size_t l) {
    if (!slice(l).held) return;
    if (l + 1 == depth()) {
      bottom(l);
      return;
    }
    smooth(l, p_.pre_sweeps);
    residual(l, r_[l]);
    restrict_down(l, r_[l], b_);
    if (slice(l + 1).held) std::fill(x_[l + 1].begin(), x_[l + 1].end(), T(0));
    vcycle(l + 1);
    const std::vector<T>& coarse = coarse_values(l);
    correct(l, coarse_slice(l), coarse);
    smooth(l, p_.post_sweeps);
  }

  // FMG from the level right-hand sides `fmg_b` (b_l with the boundary data at each level).
  void fmg(const std::vector<std::vector<T>>& fmg_b) {
    const std::size_t coarsest = depth() - 1;
    if (slice(coarsest).held) {
      b_[coarsest] = fmg_b[coarsest];
      std::fill(x_[coarsest].begin(), x_[coarsest].end(), T(0));
      bottom(coarsest);
    }
    for (std::size_t l = coarsest; l-- > 0;) {
      if (!slice(l).held) continue;
      const std::vector<T>& coarse = coarse_values(l);
      interpolate(l, coarse_slice(l), coarse);
      b_[l] = fmg_b[l];
      vcycle(l);
    }
  }

  // `fine` at level l restricted into level l + 1 of `into` (the mean of the children of each
  // coarse cell, summed z, y, x in order); onto rank 0 when level l + 1 is gathered there and
  // level l is cut.
  void restrict_down(std::size_t l, const std::vector<T>& fine, std::vector<std::vector<T>>& into) {
    const Slice& f = slice(l);
    if (!f.held) return;
    if (!(cut(l) && !cut(l + 1))) {
      restrict_cells(f, fine, slice(l + 1), into[l + 1], threaded(l));
      return;
    }
    if (straddled_) {
      // A coarse plane's children on two ranks: rank 0 gathers the fine planes whole and
      // restricts them itself, the same sums in the same order.
      const Slice w = whole(f.l);
      std::vector<T> whole_fine(root() ? w.size() : 0, T(0));
      gather(w, f, fine, whole_fine, l);
      if (root()) restrict_cells(w, whole_fine, slice(l + 1), into[l + 1], threaded(l));
      return;
    }
    // The coarse planes over this rank's fine ones: whole children under each (the cut is in
    // blocks of the planes under a plane of the gathered level).
    const Level& cl = slice(l + 1).l;
    const Slice mine{cl, f.k0 / cl.rz, f.k1 / cl.rz, true};
    std::vector<T> local(mine.size(), T(0));
    restrict_cells(f, fine, mine, local, threaded(l));
    gather(slice(l + 1), mine, local, into[l + 1], l + 1);
  }

 private:
  static constexpr int kWrapTag = 101, kGatherTag = 103;

  // coarse = R fine on the coarse slice c's planes, from the fine slice f holding their children.
  static void restrict_cells(const Slice& f, const std::vector<T>& fine, const Slice& c,
                             std::vector<T>& coarse, bool threaded) {
    const Level& cl = c.l;
    const T mean = T(1.0 / cl.children());  // 1/8 on a cube: a power of 2, exact in T
#pragma omp parallel for if (threaded)
    for (Index k = c.k0; k < c.k1; ++k)
      for (Index j = 0; j < cl.ny; ++j)
        for (Index i = 0; i < cl.nx; ++i) {
          T s = 0;
          for (Index dk = 0; dk < cl.rz; ++dk)
            for (Index dj = 0; dj < cl.ry; ++dj)
              for (Index di = 0; di < cl.rx; ++di)
                s += fine[f.at(cl.rx * i + di, cl.ry * j + dj, cl.rz * k + dk)];
          coarse[c.at(i, j, k)] = s * mean;
        }
  }

  // Rank 0 collects every rank's planes of a level (`mine`, `local` on each) into `whole_level`,
  // stored as `w`: level `l`'s planes of each rank, or where level l is the first gathered one,
  // the planes over each rank's planes of the level above.
  void gather(const Slice& w, const Slice& mine, const std::vector<T>& local,
              std::vector<T>& whole_level, std::size_t l) {
    const std::size_t plane = mine.plane();
    const auto interior = [&](const std::vector<T>& v) { return v.data() + plane; };
    if (!root()) {
      context_->send(interior(local), plane * static_cast<std::size_t>(mine.planes()), 0,
                     kGatherTag);
      return;
    }
    std::copy_n(interior(local), plane * static_cast<std::size_t>(mine.planes()),
                whole_level.begin() + static_cast<std::ptrdiff_t>(w.at(0, 0, mine.k0)));
    const std::vector<Level> all = levels(p_);
    for (int r = 1; r < size_; ++r) {
      const bool cut_level = cut(l);
      const Slice theirs = slice_of(all, cut_level ? l : l - 1, r);
      const Index rz = cut_level ? 1 : w.l.rz;
      const Index k0 = theirs.k0 / rz, k1 = theirs.k1 / rz;
      context_->recv(whole_level.data() + w.at(0, 0, k0), plane * static_cast<std::size_t>(k1 - k0),
                     r, kGatherTag);
    }
  }

  // Level l + 1's x as level l's prolongations read it: its own storage, or where level l is cut
  // and l + 1 is rank 0's, the whole level broadcast from rank 0. Halos filled either way.
  const std::vector<T>& coarse_values(std::size_t l) {
    if (!(cut(l) && !cut(l + 1))) {
      fill_halos(l + 1, x_[l + 1]);
      return x_[l + 1];
    }
    const Slice w = whole(slice(l + 1).l);
    std::vector<T> interior;
    if (root())
      interior.assign(x_[l + 1].begin() + static_cast<std::ptrdiff_t>(w.plane()),
                      x_[l + 1].end() - static_cast<std::ptrdiff_t>(w.plane()));
    context_->broadcast(interior, 0);
    broadcast_.assign(w.size(), T(0));
    std::copy(interior.begin(), interior.end(),
              broadcast_.begin() + static_cast<std::ptrdiff_t>(w.plane()));
    fill_halos(w, broadcast_, false);
    return broadcast_;
  }
  Slice coarse_slice(std::size_t l) const {
    return cut(l) && !cut(l + 1) ? whole(slice(l + 1).l) : slice(l + 1);
  }

  // The coarsest level: bottom_sweeps sweeps; a singular problem's right-hand side is made
  // compatible first and the correction's free constant removed after.
  void bottom(std::size_t l) {
    if (singular_) remove_mean(l, b_[l]);
    smooth(l, p_.bottom_sweeps);
    if (singular_) remove_mean(l, x_[l]);
  }

  // x_l += trilinear prolongation of the coarse level's correction e, its ghosts homogeneous
  // (the correction's boundary data are 0).
  void correct(std::size_t l, const Slice& c, const std::vector<T>& e) {
    prolong(l, c, e, 0, [](T& x, double v) { x += static_cast<T>(v); });
  }

  // FMG's prolongation: x_l = trilinear interpolation of the coarse level's x, its ghosts with
  // the boundary data.
  void interpolate(std::size_t l, const Slice& c, const std::vector<T>& u) {
    prolong(l, c, u, 1, [](T& x, double v) { x = static_cast<T>(v); });
  }

  // Trilinear prolongation of `u` (on slice c) onto level l, HPGMG-FV's weights: along each
  // halved axis 3/4 of the parent and 1/4 of its neighbour on the child's side, along the others
  // the parent alone; summed in double; `put(x, v)` stores each fine cell's value. `data` scales
  // the ghosts' boundary data (coarse_at).
  template <class Put>
  void prolong(std::size_t l, const Slice& c, const std::vector<T>& u, double data, Put put) {
    const Slice& f = slice(l);
    const Level& cl = c.l;
    std::vector<T>& x = x_[l];
    const auto weight = [](int ratio, int offset) { return ratio == 1 ? 1.0 : offset ? 0.25 : 0.75; };
#pragma omp parallel for if (threaded(l))
    for (Index k = f.k0; k < f.k1; ++k)
      for (Index j = 0; j < f.l.ny; ++j)
        for (Index i = 0; i < f.l.nx; ++i) {
          const Index ci = i / cl.rx, cj = j / cl.ry, ck = k / cl.rz;
          // The neighbour on the child's side: the child at offset −1/4 leans to the lower one.
          const Index si = i % 2 == 0 ? -1 : 1, sj = j % 2 == 0 ? -1 : 1, sk = k % 2 == 0 ? -1 : 1;
          double v = 0;
          for (int dk = 0; dk < cl.rz; ++dk)
            for (int dj = 0; dj < cl.ry; ++dj)
              for (int di = 0; di < cl.rx; ++di) {
                const double w = weight(cl.rx, di) * weight(cl.ry, dj) * weight(cl.rz, dk);
                v += w * coarse_at(c, u, ci + di * si, cj + dj * sj, ck + dk * sk, data);
              }
          put(x[f.at(i, j, k)], v);
        }
  }

  // The coarse value at (i, j, k), any index one beyond a face standing for the ghost with the
  // boundary data times `data` (0 for a correction, whose ghosts are homogeneous): resolved x
  // first, then y, then z (poisson.hpp). Beyond a periodic z face the halo plane holds the wrap.
  double coarse_at(const Slice& c, const std::vector<T>& u, Index i, Index j, Index k,
                   double data) const {
    const Index n[3] = {c.l.nx, c.l.ny, c.l.nz};
    const double h[3] = {c.l.hx, c.l.hy, c.l.hz};
    const Index idx[3] = {i, j, k};
    for (int axis = 0; axis < 3; ++axis) {
      const int side = idx[axis] < 0 ? 0 : idx[axis] >= n[axis] ? 1 : -1;
      if (side < 0) continue;
      const Face& face = p_.face(axis, side);
      Index inside[3] = {idx[0], idx[1], idx[2]};
      if (face.kind == FaceKind::periodic) {
        if (axis == 2) continue;
        inside[axis] = side == 0 ? n[axis] - 1 : 0;
        return coarse_at(c, u, inside[0], inside[1], inside[2], data);
      }
      inside[axis] = side == 0 ? 0 : n[axis] - 1;
      const double own = coarse_at(c, u, inside[0], inside[1], inside[2], data);
      return face.kind == FaceKind::dirichlet ? 2 * data * face.value - own
                                              : own + h[axis] * data * face.value;
    }
    return static_cast<double>(u[c.at(i, j, k)]);
  }

  // Half a red-black sweep: the cells with (i + j + k) % 2 == parity, k the plane of the whole
  // level.
  void colour(std::size_t l, int parity) {
    const Operator<T>& o = ops_[l];
    std::vector<T>& x = x_[l];
    const std::vector<T>& b = b_[l];
    fill_halos(l, x);
    // Where a periodic side of odd length lets a colour meet itself, the colour reads the values
    // from before its half sweep (Jacobi order within the colour), so no order of cells matters.
    const T* from = x.data();
    if (o.odd_periodic) {
      r_[l] = x;
      from = r_[l].data();
    }
#pragma omp parallel for if (threaded(l))
    for (Index k = o.s.k0; k < o.s.k1; ++k)
      for (Index j = 0; j < o.s.l.ny; ++j)
        for (Index i = (j + k + parity) % 2; i < o.s.l.nx; i += 2) {
          const std::size_t c = o.s.at(i, j, k);
          x[c] = from[c] + (b[c] - o.apply(from, i, j, k)) * o.inverse_diagonal[c];
        }
  }

  // Chebyshev-accelerated Jacobi: `sweeps` steps of chebyshev_steps.
  void chebyshev(std::size_t l, std::int64_t sweeps) {
    const Operator<T>& o = ops_[l];
    std::vector<T>& x = x_[l];
    const std::vector<T>& b = b_[l];
    std::vector<T> previous = x, next(x.size());
    for (const ChebyshevStep& step : chebyshev_steps(sweeps)) {
      const T c1 = static_cast<T>(step.c1), c2 = static_cast<T>(step.c2);
      fill_halos(l, x);
#pragma omp parallel for if (threaded(l))
      for (Index k = o.s.k0; k < o.s.k1; ++k)
        for (Index j = 0; j < o.s.l.ny; ++j)
          for (Index i = 0; i < o.s.l.nx; ++i) {
            const std::size_t c = o.s.at(i, j, k);
            next[c] = x[c] + c1 * (x[c] - previous[c]) +
                      c2 * (b[c] - o.apply(x.data(), i, j, k)) * o.inverse_diagonal[c];
          }
      previous.swap(x);
      x.swap(next);
    }
  }

  const Params& p_;
  bool singular_;
  comm::Context* context_;  // null on one rank
  int rank_, size_;
  Index cut_levels_;
  bool straddled_ = false;  // the restriction into the first gathered level gathers the fine planes
  std::vector<Operator<T>> ops_;
  std::vector<std::vector<T>> x_, b_, r_;
  std::vector<T> broadcast_;  // a gathered level's x, whole, on every rank
};

// `planes` (this slice's planes, x fastest, no halos) into a slice's storage.
template <class T, class V>
std::vector<T> with_halos(const Slice& s, const V& planes) {
  std::vector<T> v(s.size(), T(0));
  for (std::size_t c = 0; c < planes.size(); ++c) v[c + s.plane()] = static_cast<T>(planes[c]);
  return v;
}

template <class T>
Outcome solve(const Params& p, comm::Context* context, const SlabCut& cut, const std::vector<T>& f,
              std::vector<T>& u, const CycleCallback& on_cycle, const Checkpoints<T>* checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  Multigrid<T> mg(p, context, cut);
  const Slice& fine = mg.slice(0);
  if (f.size() != static_cast<std::size_t>(fine.l.nx * fine.l.ny * fine.planes()))
    throw Error("poisson: the source holds " + std::to_string(f.size()) + " values for " +
                std::to_string(fine.l.nx * fine.l.ny * fine.planes()) + " cells");
  Outcome out;
  out.levels = static_cast<std::int64_t>(mg.depth());
  const bool singular_problem = singular(p);

  // Each level's source (the mean of its children), and with it each level's right-hand side:
  // boundary data folded in at the level's spacing.
  std::vector<std::vector<T>> source(mg.depth());
  source[0] = with_halos<T>(fine, f);
  for (std::size_t l = 0; l + 1 < mg.depth() && p.cycle == Cycle::fmg; ++l) {
    if (mg.slice(l + 1).held) source[l + 1].assign(mg.slice(l + 1).size(), T(0));
    mg.restrict_down(l, source[l], source);
  }
  std::vector<std::vector<T>> rhs(mg.depth());
  for (std::size_t l = 0; l < mg.depth(); ++l) {
    const Slice& s = mg.slice(l);
    if (!s.held) continue;
    std::vector<double> b(source[l].begin() + static_cast<std::ptrdiff_t>(s.plane()),
                          source[l].end() - static_cast<std::ptrdiff_t>(s.plane()));
    add_boundary_terms(p, s.l, b, s.k0, s.k1);
    rhs[l] = with_halos<T>(s, b);
    if (p.cycle == Cycle::v) break;
  }

  const Norms bn = mg.norms(0, rhs[0]);
  out.b_max = bn.max;
  out.b_l2 = bn.l2;
  std::vector<T> r(fine.size());
  double previous_l2 = 1;
  const bool fmg = p.cycle == Cycle::fmg;
  const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  if (from != nullptr) {
    const std::size_t cells = static_cast<std::size_t>(fine.l.nx * fine.l.ny * fine.planes());
    if (from->points != static_cast<std::int64_t>(cells) || from->cycles.size() < (fmg ? 1u : 0u))
      throw Error("poisson: a checkpoint's " + std::to_string(from->points) + " values and " +
                  std::to_string(from->cycles.size()) + " cycles for " + std::to_string(cells) +
                  " cells" + (fmg ? " after FMG" : ""));
    // The halos are filled before any read, so the planes alone are the level's state.
    std::copy(from->u, from->u + cells, mg.x(0).begin() + static_cast<std::ptrdiff_t>(fine.plane()));
    out.cycles = from->cycles;
    if (!out.cycles.empty()) previous_l2 = out.cycles.back().residual_l2;
  }
  // After each cycle: a safe point, where the state is saved when asked, and the solve stops.
  const auto at_safe_point = [&] {
    if (checkpoints == nullptr || !checkpoints->at) return false;
    const AtSafePoint a =
        checkpoints->at(static_cast<std::int64_t>(out.cycles.size()) - (fmg ? 1 : 0));
    if (a == AtSafePoint::go_on) return false;
    const std::vector<T> planes(mg.x(0).begin() + static_cast<std::ptrdiff_t>(fine.plane()),
                                mg.x(0).end() - static_cast<std::ptrdiff_t>(fine.plane()));
    checkpoints->save(State<T>{planes.data(), static_cast<std::int64_t>(planes.size()), out.cycles});
    return a == AtSafePoint::save_and_stop;
  };
  const auto record = [&] {
    if (singular_problem) mg.remove_mean(0, mg.x(0));
    mg.residual(0, r);
    const Norms rn = mg.norms(0, r);
    CycleReport c;
    c.residual_max = bn.max > 0 ? rn.max / bn.max : rn.max;
    c.residual_l2 = bn.l2 > 0 ? rn.l2 / bn.l2 : rn.l2;
    c.factor = previous_l2 > 0 ? c.residual_l2 / previous_l2 : 0.0;
    previous_l2 = c.residual_l2;
    out.cycles.push_back(c);
    if (on_cycle)
      on_cycle(static_cast<std::int64_t>(out.cycles.size()) - (fmg ? 1 : 0), c,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return c.residual_max < p.tolerance;
  };

  bool met = false, stuck = false, stopped = false;
  if (from != nullptr) {
    // Where the uninterrupted run stood after the checkpoint's last cycle (a restart may set
    // another tolerance).
    met = !out.cycles.empty() && out.cycles.back().residual_max < p.tolerance;
    stuck = !met && p.tolerance > 0 && stagnated(out.cycles, fmg);
  } else if (fmg) {
    mg.fmg(rhs);
    met = record();
    stopped = at_safe_point();
  }
  for (std::int64_t c = from != nullptr ? from->step(fmg) : 0;
       c < p.max_cycles && !met && !stuck && !stopped; ++c) {
    mg.b(0) = rhs[0];
    mg.vcycle(0);
    met = record();
    stuck = !met && p.tolerance > 0 && stagnated(out.cycles, fmg);
    stopped = at_safe_point();
  }
  out.stop = met ? StopReason::tolerance : stuck ? StopReason::stagnated : StopReason::max_iterations;
  u.assign(mg.x(0).begin() + static_cast<std::ptrdiff_t>(fine.plane()),
           mg.x(0).end() - static_cast<std::ptrdiff_t>(fine.plane()));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

SlabCut slab_cut(const Params& p, int rank, int size) {
  const std::vector<Level> all = levels(p);
  SlabCut c;
  c.cut_levels = static_cast<std::int64_t>(all.size());
  if (size == 1) {
    c.end = p.nz;
    return c;
  }
  if (p.nz < size)
    throw InputError("", "grid.nz",
                     "expected at least one plane per rank: " + std::to_string(p.nz) +
                         " planes for " + std::to_string(size) + " ranks");
  c.cut_levels = 1;
  const auto depth = static_cast<std::int64_t>(all.size());
  const auto planes = [&](std::int64_t level) { return all[static_cast<std::size_t>(level)].nz; };
  while (c.cut_levels < depth && planes(c.cut_levels) >= size &&
         all[static_cast<std::size_t>(c.cut_levels)].cells() > kGatherCells)
    ++c.cut_levels;
  // Blocks of the grid's planes under one plane of level m, cut evenly, m the cut levels when a
  // gathered level follows (its parents need whole children under each rank) and the deepest
  // level otherwise. A level that kept its planes (rz = 1) keeps the cut of the level above.
  const auto shift = [&] { return std::min(c.cut_levels, depth - 1); };
  if (c.cut_levels > 1 && planes(shift()) < size) --c.cut_levels;
  // A grid too thin for blocks under the first gathered level (2 planes on 2 ranks, z going to
  // one cell) is cut by single planes; the restriction into that level then gathers the fine
  // planes onto rank 0 (gold.cpp).
  const std::int64_t block = planes(shift()) >= size ? p.nz / planes(shift()) : 1;
  const comm::Slab s = comm::even_slab(p.nz / block, rank, size);
  c.begin = s.begin * block;
  c.end = s.end * block;
  return c;
}

template <class T>
Outcome solve_gold(const Params& p, const std::vector<T>& f, std::vector<T>& u,
                   const CycleCallback& on_cycle, const Checkpoints<T>* checkpoints) {
  return solve(p, nullptr, slab_cut(p, 0, 1), f, u, on_cycle, checkpoints);
}

template <class T>
Outcome solve_gold_slab(const Params& p, comm::Context& context, const std::vector<T>& f,
                        std::vector<T>& u, const CycleCallback& on_cycle,
                        const Checkpoints<T>* checkpoints) {
  return solve(p, &context, slab_cut(p, context.rank(), context.size()), f, u, on_cycle,
               checkpoints);
}

template Outcome solve_gold<float>(const Params&, const std::vector<float>&, std::vector<float>&,
                                   const CycleCallback&, const Checkpoints<float>*);
template Outcome solve_gold<double>(const Params&, const std::vector<double>&, std::vector<double>&,
                                    const CycleCallback&, const Checkpoints<double>*);
template Outcome solve_gold_slab<float>(const Params&, comm::Context&, const std::vector<float>&,
                                        std::vector<float>&, const CycleCallback&,
                                        const Checkpoints<float>*);
template Outcome solve_gold_slab<double>(const Params&, comm::Context&, const std::vector<double>&,
                                         std::vector<double>&, const CycleCallback&,
                                         const Checkpoints<double>*);

std::vector<double> residual(const Params& p, const std::vector<double>& f,
                             const std::vector<double>& u) {
  const Slice s = whole(levels(p).front());
  const Operator<double> o(p, s);
  std::vector<double> x = with_halos<double>(s, u);
  if (p.z_min.kind == FaceKind::periodic) {
    std::copy_n(x.end() - static_cast<std::ptrdiff_t>(2 * s.plane()), s.plane(), x.begin());
    std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(s.plane()), s.plane(),
                x.end() - static_cast<std::ptrdiff_t>(s.plane()));
  }
  std::vector<double> r = f;
  add_boundary_terms(p, s.l, r);
  for (Index k = 0; k < s.l.nz; ++k)
    for (Index j = 0; j < s.l.ny; ++j)
      for (Index i = 0; i < s.l.nx; ++i)
        r[static_cast<std::size_t>(i + s.l.nx * (j + s.l.ny * k))] -= o.apply(x.data(), i, j, k);
  return r;
}

std::int64_t solve_reference(const Params& p, const std::vector<double>& f, std::vector<double>& u,
                             double tolerance, std::int64_t max_sweeps) {
  const Slice s = whole(levels(p).front());
  const Operator<double> o(p, s);
  std::vector<double> b = f;
  add_boundary_terms(p, s.l, b);
  double b_max = 0;
  for (double v : b) b_max = std::max(b_max, std::abs(v));
  std::vector<double> x(s.size(), 0.0);
  const std::size_t plane = s.plane();
  const auto interior = [&] {
    return std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(plane),
                               x.end() - static_cast<std::ptrdiff_t>(plane));
  };
  const bool periodic = p.z_min.kind == FaceKind::periodic;
  std::int64_t sweeps = max_sweeps;
  for (std::int64_t sweep = 1; sweep <= max_sweeps; ++sweep) {
    // Gauss–Seidel in index order: each cell from its neighbours' latest values (the periodic
    // halo planes refreshed as their planes change).
    for (Index k = 0; k < s.l.nz; ++k) {
      if (periodic) {
        std::copy_n(x.end() - static_cast<std::ptrdiff_t>(2 * plane), plane, x.begin());
        std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(plane), plane,
                    x.end() - static_cast<std::ptrdiff_t>(plane));
      }
      for (Index j = 0; j < s.l.ny; ++j)
        for (Index i = 0; i < s.l.nx; ++i) {
          const std::size_t c = s.at(i, j, k);
          x[c] += (b[c - plane] - o.apply(x.data(), i, j, k)) * o.inverse_diagonal[c];
        }
    }
    if (singular(p)) {
      const double mean = compensated_sum(interior()) / static_cast<double>(s.l.cells());
      for (std::size_t c = plane; c < x.size() - plane; ++c) x[c] -= mean;
    }
    double r_max = 0;
    for (double v : residual(p, f, interior())) r_max = std::max(r_max, std::abs(v));
    if (r_max <= tolerance * (b_max > 0 ? b_max : 1)) {
      sweeps = sweep;
      break;
    }
  }
  u = interior();
  return sweeps;
}

}  // namespace parasol::poisson
