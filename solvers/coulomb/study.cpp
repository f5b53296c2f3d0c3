// A coulomb sweep's problem (study.hpp).
#include "solvers/coulomb/study.hpp"

#include "kernels/printable.hpp"

namespace parasol::coulomb {

SweptLattice::SweptLattice(const Params& p)
    : p_(p), atoms_(read_atoms(p.atoms_file, p.atom_format)) {
  p_ = placed(p_, bounding_box(atoms_));
  for (const Method& m : sweep_methods(p_.block)) configs_.push_back(with_method(p_, m));
}

std::vector<MemoryNeed> SweptLattice::needs() const {
  return {device_need(largest(), atom_count(), whole(p_.lattice)),
          host_need(p_, false, true, static_cast<double>(p_.lattice.points()))};
}

void SweptLattice::prepare(cudaStream_t stream, const ProgressCallback& progress) {
  rsqrt_ = measure_rsqrt_throughput();
  rows_ = sampled_rows(p_.lattice, kSweepCheckStride);
  gold_ = solve_gold_with_scale_rows(p_, atoms_, rows_, progress);
  problem_.emplace(p_, atoms_, stream);
}

std::string SweptLattice::described(const std::string& device) const {
  return extent(p_.lattice) + " lattice" + placement(p_) + ", " + std::to_string(atoms_.size()) +
         " atoms on " + device + "; rsqrtf " + short_number(1e-9 * rsqrt_) + " G/s";
}

RowOutcome SweptLattice::measure(std::size_t i, const Repeats& repeats) {
  return coulomb::measure(*problem_, configs_[i], repeats, rows_, gold_);
}

std::vector<Attribute> SweptLattice::attributes() const {
  return sweep_attributes(p_, atoms_.size(), rows_.size(), rsqrt_);
}

}  // namespace parasol::coulomb
