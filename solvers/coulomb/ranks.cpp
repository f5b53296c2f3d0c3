#include "solvers/coulomb/ranks.hpp"

#include <algorithm>
#include <exception>

#include "comm/over_ranks.hpp"
#include "kernels/error.hpp"
#include "solvers/coulomb/check.hpp"

namespace parasol::coulomb {

std::int64_t read_atoms_on_root(comm::Context& context, const Params& p, std::vector<Atom>& atoms) {
  std::int64_t count = -1;
  std::exception_ptr failed;
  if (context.is_root()) {
    try {
      atoms = read_atoms(p.atoms_file, p.atom_format);
      count = static_cast<std::int64_t>(atoms.size());
    } catch (...) {
      failed = std::current_exception();
    }
  }
  if (context.size() > 1) context.broadcast(count);
  if (failed) std::rethrow_exception(failed);
  if (count < 0) throw Error("rank 0 could not read the atoms");
  return count;
}

double broadcast_atoms(comm::Context& context, std::vector<Atom>& atoms) {
  if (context.size() == 1) return 0;
  const double before = context.comm_seconds();
  context.broadcast(atoms);
  return context.comm_seconds() - before;
}

Box atoms_box_on_every_rank(comm::Context& context, const std::vector<Atom>& atoms) {
  Box box;
  if (context.is_root()) box = bounding_box(atoms);
  if (context.size() > 1) context.broadcast(box);
  return box;
}

Part place_and_cut(comm::Context& context, Params& p, const std::vector<Atom>& atoms) {
  if (p.center == LatticeCenter::molecule) p = placed(p, atoms_box_on_every_rank(context, atoms));
  if (context.size() == 1) return whole(p.lattice);
  return rank_part(p.lattice, context.rank(), context.size());
}

Diagnostics diagnostics(const Result& result) {
  Diagnostics d;
  d.compute_seconds = result.timings.seconds(phase::compute);
  if (!result.potential.empty()) {
    const auto [low, high] = std::minmax_element(result.potential.begin(), result.potential.end());
    d.low = *low;
    d.high = *high;
  }
  return d;
}

Diagnostics over_ranks(comm::Context& context, const Diagnostics& mine) {
  Diagnostics d;
  d.low = context.all_reduce(mine.low, comm::Op::min);
  d.high = context.all_reduce(mine.high, comm::Op::max);
  d.compute_seconds = context.all_reduce(mine.compute_seconds, comm::Op::max);
  return d;
}

Agreement agreement(comm::Context& context, const Lattice& n, const std::vector<float>& potential,
                    const GoldWithScale& gold, double tolerance) {
  if (context.size() == 1) return agreement(potential, gold.potential, gold.scale, tolerance);
  FieldDifference d = comm::over_ranks(context, compare(potential, gold.potential),
                                       potential.size(), static_cast<std::uint64_t>(n.points()));
  double relative = comm::max_over_ranks(
      context, max_relative_to_scale(potential, gold.potential, gold.scale));
  // A NaN in either measure, on any rank, fails the whole run.
  if (std::isnan(d.max_abs) || std::isnan(relative)) {
    d = {NAN, NAN};
    relative = NAN;
  }
  return field_agreement(d, "max_relative_to_scale", "max relative to scale", relative, tolerance);
}

std::vector<float> gather_on_root(comm::Context& context, const Lattice& n,
                                  const std::vector<float>& mine) {
  const auto in_messages = [](std::size_t count, auto&& move) {
    for (std::size_t first = 0; first < count; first += kGatherMessageFloats)
      move(first, std::min(kGatherMessageFloats, count - first));
  };
  if (!context.is_root()) {
    in_messages(mine.size(), [&](std::size_t first, std::size_t count) {
      context.send(mine.data() + first, count, 0);
    });
    return {};
  }
  std::vector<float> whole(static_cast<std::size_t>(n.points()));
  std::copy(mine.begin(), mine.end(), whole.begin());
  for (int r = 1; r < context.size(); ++r) {
    const Part part = rank_part(n, r, context.size());
    float* place = whole.data() + part.first_point(n);
    in_messages(static_cast<std::size_t>(part.points()), [&](std::size_t first, std::size_t count) {
      context.recv(place + first, count, r);
    });
  }
  return whole;
}

}  // namespace parasol::coulomb
