// laplace3d's sweep study: each variant and block shape checked against the gold after a few
// sweeps and timed, on one rank or across ranks cut as `parasol run` cuts the grid.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/device_comm.hpp"
#include "comm/transport.hpp"
#include "kernels/agreement.hpp"
#include "kernels/buffer.hpp"
#include "kernels/stream.hpp"
#include "kernels/sweep_row.hpp"
#include "solvers/laplace3d/laplace3d.hpp"
#include "solvers/laplace3d/slab.hpp"

namespace parasol::laplace3d {

// What one configuration measured.
struct ShapeMeasurement {
  Agreement agreement;
  std::vector<double> seconds;  // per sweep, for each timed run
  double timed_s = 0;           // wall seconds inside the timed runs
  // Across ranks: the slowest rank's exchange seconds per sweep (timed without overlap), and the
  // share of it the overlap hid. NaN on one rank.
  double exchange_seconds = std::numeric_limits<double>::quiet_NaN();
  double hidden_fraction = std::numeric_limits<double>::quiet_NaN();
  std::string failure;  // measure_row's line, when a CUDA error failed the row
};

template <class T>
class ShapeStudy {
 public:
  // The starting field `p` describes and the gold after `check_sweeps` sweeps of it, on the
  // host. On one rank (`context` null or of one rank) the gold is kept on the device too where
  // it fits beside a grid, so each configuration is checked there and no field comes back.
  ShapeStudy(const Params& p, std::int64_t check_sweeps, comm::Context* context,
             comm::Transport transport);

  // The sweep-row protocol (kernels/sweep_row.hpp): `check_sweeps` sweeps from the starting
  // field, the first written over NaN, checked against the gold; a warm-up; then `sweeps` sweeps
  // a timed run until `repeats` is met. The timed runs march past the gold's sweep count, so
  // their last field has no gold to meet: the re-check makes the field again and checks its
  // `check_sweeps` sweeps once more, after the timing, which catches a kernel that goes wrong
  // only some of the time. Across ranks each rank checks its slab against the gold's planes,
  // then the sweeps are timed with the exchange behind the interior and again without overlap,
  // the slowest rank's compute seconds each time.
  ShapeMeasurement measure(Variant variant, const Shape& block, std::int64_t sweeps,
                           const Repeats& repeats);

  // max |initial field|: what the tolerance scales with.
  double scale() const { return scale_; }

 private:
  ShapeMeasurement measure_across_ranks(Variant variant, const Shape& block, std::int64_t sweeps,
                                        const Repeats& repeats);

  Params p_;
  std::int64_t check_sweeps_;
  comm::Context* context_;
  comm::Transport transport_;
  double scale_ = 0;
  std::vector<T> gold_;
  Stream stream_;
  DeviceBuffer<T> gold_device_;        // one rank, when it fits: the gold the checks compare with
  std::optional<SlabComm> comm_;
};

}  // namespace parasol::laplace3d
