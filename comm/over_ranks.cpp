#include "comm/over_ranks.hpp"

#include <cmath>

namespace parasol::comm {

double wait_for_ranks(comm::Context& context) {
  const double before = context.comm_seconds();
  context.barrier();
  return context.comm_seconds() - before;
}

double max_over_ranks(comm::Context& context, double mine) {
  if (context.size() == 1) return mine;
  const bool nan = context.all_reduce(std::int64_t{std::isnan(mine)}, comm::Op::max) > 0;
  const double largest = context.all_reduce(std::isnan(mine) ? 0.0 : mine, comm::Op::max);
  return nan ? NAN : largest;
}

FieldDifference over_ranks(comm::Context& context, const FieldDifference& mine,
                           std::uint64_t my_points, std::uint64_t points) {
  if (context.size() == 1) return mine;
  const double squares = context.all_reduce(
      mine.rms * mine.rms * static_cast<double>(my_points), comm::Op::sum);
  FieldDifference d;
  d.max_abs = max_over_ranks(context, mine.max_abs);
  d.rms = std::isnan(d.max_abs) || std::isnan(squares)
              ? NAN
              : (points == 0 ? 0.0 : std::sqrt(squares / static_cast<double>(points)));
  return d;
}

}  // namespace parasol::comm
