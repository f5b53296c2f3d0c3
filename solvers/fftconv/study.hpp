// fftconv's sweep study: each listed variant checked against the gold at sampled output samples
// and timed on one DeviceProblem, by the sweep-row protocol (kernels/sweep_row.hpp). Host-only API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/sweep_row.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/inputs.hpp"
#include "solvers/fftconv/operands.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/run.hpp"

namespace parasol::fftconv {

// What one variant measured: the row; or, for a variant that cannot take the problem, why
// ("fused skipped: ..."), and no row.
struct VariantMeasurement {
  RowOutcome row;
  std::string skipped;
  std::string ran = "-";  // the variant that ran (auto's pick), once the checked run has run
};

// What `parasol sweep` refuses of parameters that run otherwise: a streamed run (the sweep times
// data held on the device) and a volume. InputError naming the key, with no source.
void check_sweepable(const Params& p);

template <class T>
class VariantStudy {
 public:
  // Problem q and its operands, which `load` makes. Every variant of `variants` that can take q
  // runs once aside while `load` and the gold run on the host: on a machine whose CUDA cache is
  // empty, cuFFT compiles their kernels then, a few hundred ms a variant, and the rows' own
  // first convolutions find them compiled. `block` is method.block, for the variants that cut
  // the signal into blocks.
  VariantStudy(const Problem& q, const std::vector<Variant>& variants, std::int64_t block,
               const std::function<Operands<T>()>& load);
  // The problem p describes (problem_of), its memory on the host and the device judged
  // (Placement::fits) and its complaints said (Placement::said) by the caller.
  VariantStudy(const Params& p, const std::vector<Variant>& variants, const Placement& where);

  // The first run also makes the plans and scratch.
  VariantMeasurement measure(Variant v, const Repeats& repeats);

  const Problem& problem() const { return ops_.problem; }
  Variant chosen() const { return chosen_; }  // the variant auto picks
  // The output samples of a convolution, for the rate.
  double samples() const {
    const Problem& q = ops_.problem;
    return static_cast<double>(q.batch) * static_cast<double>(q.signal.size());
  }
  // /sweep's attributes: auto's pick, the problem, the check's tolerance and its samples.
  Attributes attributes() const;
  // What --autotune stores for variant `v`'s row: the variant that ran (auto's pick, for its
  // row), and with overlap-save the block it took.
  std::pair<std::string, std::vector<std::pair<std::string, std::string>>> choice(Variant v) const;
  // Why no listed variant can run: the problem's extents.
  std::string unable() const;

 private:
  // The operands `load` makes, the gold at the checked samples and the device's copy, for q.
  void make(const Problem& q, const std::vector<Variant>& variants,
            const std::function<Operands<T>()>& load);
  Options options_of(Variant v) const;

  std::int64_t block_;
  Operands<T> ops_;
  std::vector<std::int64_t> checked_;  // the output samples each configuration is checked at
  std::vector<double> gold_;           // the gold at those samples
  std::optional<DeviceProblem<T>> device_;
  Variant chosen_ = Variant::automatic;
};

}  // namespace parasol::fftconv
