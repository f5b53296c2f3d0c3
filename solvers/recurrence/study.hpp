// recurrence's sweep study on the device: a series resident once, each scan mode checked against
// the gold and timed, and every timed solve compared bit for bit with the mode's first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/buffer.hpp"
#include "kernels/compare.hpp"
#include "kernels/stream.hpp"
#include "kernels/sweep_row.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// What one scan mode measured.
struct ModeMeasurement {
  Agreement agreement;
  std::vector<double> seconds;  // each timed solve
  bool repeatable = true;       // every timed solve gave the first solve's bits
  std::string failure;          // measure_row's line, when a CUDA error failed the row
};

template <class T>
class ModeStudy {
 public:
  // The gold, its magnitude scale and tile chain (in double, on the host), and the series on the
  // device. The gold and the scale go beside the series, where each mode's first solve is checked
  // without coming back; room for the first result of each mode is kept there too, where each
  // timed solve's is compared with it bit for bit. Whatever does not fit is done on the host.
  explicit ModeStudy(const Series<T>& series);

  // The sweep-row protocol (kernels/sweep_row.hpp): the first solve, on v poisoned with NaN, is
  // checked and kept, one more warms up, and every timed solve after them is compared bit for
  // bit with the kept one, outside the timing: on the device, between
  // the solves and without the host waiting, over one of kRepeatSlices slices of v, the next
  // slice each time (every kRepeatSlices solves in a row cover the whole of v, and each
  // comparison reads a sixteenth of what a solve does, not two thirds); else read back whole and
  // compared on the host.
  ModeMeasurement measure(ScanMode mode, const Repeats& repeats);

  double chain() const { return chain_; }

  static constexpr std::int64_t kRepeatSlices = 16;

 private:
  std::vector<double> gold_, scale_;
  double chain_ = 0;
  Stream stream_;
  std::optional<DeviceSeries<T>> device_;
  DeviceBuffer<double> d_gold_, d_scale_;  // the gold and the scale, when they fit beside it
  DeviceBuffer<T> kept_;  // a mode's first v, when it fits beside the series
  BitComparer comparer_;
};

}  // namespace parasol::recurrence
