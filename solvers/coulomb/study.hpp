// A coulomb sweep's problem, usable without the command line: the atoms read once and the lattice
// placed around them, every configuration the sweep times, the gold at sampled rows, the atoms
// uploaded once, and the rsqrt ceiling the rows are set against. Host-only API: compiles without
// nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/sweep_row.hpp"
#include "solvers/coulomb/summary.hpp"

namespace parasol::coulomb {

class SweptLattice {
 public:
  // Reads p's atoms (an InputError naming the file and line) and places the lattice around them
  // (an InputError naming its key, the source left for the caller); the configurations are p's
  // method across sweep_methods(p.block).
  explicit SweptLattice(const Params& p);
  SweptLattice(const SweptLattice&) = delete;
  SweptLattice& operator=(const SweptLattice&) = delete;

  const Params& params() const { return p_; }  // placed
  const std::vector<Params>& configurations() const { return configs_; }
  std::int64_t atom_count() const { return static_cast<std::int64_t>(atoms_.size()); }
  // The configuration that takes the most device memory, and what the sweep needs of the device
  // (that configuration's) and of the host (the gold and its scale at every point), in order.
  const Params& largest() const { return coulomb::largest(configs_, atom_count()); }
  std::vector<MemoryNeed> needs() const;

  // On `stream`: the rsqrt ceiling measured, the rows chosen (kSweepCheckStride), their gold
  // (reported to `progress`), then the atoms uploaded.
  void prepare(cudaStream_t stream, const ProgressCallback& progress = {});

  // "65x65x65 lattice, 2 atoms on DEVICE; rsqrtf 4160 G/s", `device` naming it.
  std::string described(const std::string& device) const;
  // Why configuration `i` is left out (sweep_skip), empty when it runs; and its row measured.
  std::string skipped(std::size_t i) const { return sweep_skip(configs_[i], atoms_.size()); }
  RowOutcome measure(std::size_t i, const Repeats& repeats);
  // A run's terms (one rsqrt each), the measured rsqrt rate, and /sweep's attributes.
  double terms() const { return coulomb::terms(p_.lattice, atoms_.size()); }
  double rsqrt_per_second() const { return rsqrt_; }
  std::vector<Attribute> attributes() const;

 private:
  Params p_;
  std::vector<Atom> atoms_;
  std::vector<Params> configs_;
  double rsqrt_ = 0;
  std::vector<std::int64_t> rows_;           // the x rows each configuration is checked at
  GoldWithScale gold_;                       // the gold of those rows
  std::optional<DeviceProblem> problem_;     // the atoms, uploaded once
};

}  // namespace parasol::coulomb
