// tridiag's sweep: the launches timed on one batch, each variant's listed threads and chunks
// made concrete for it, with why a variant or a launch is left out. Host-only API.
#pragma once

#include <string>
#include <vector>

#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// Whether a chunk is one a sweep may list: 0 (picked from n), or one compiled for some variant.
bool listable_chunk(int chunk);

// The chunks timed for a variant: those `listed` that it takes (0 always), or every one compiled
// for it when none is listed; {0} for a variant compiled with none.
std::vector<int> chunks_for(Variant v, const std::vector<int>& listed);

// One row of the sweep: a launch resolved for the batch, or why a variant has none.
struct Configuration {
  Launch launch;
  std::string skipped;  // the variant can take none of the listed launches
  std::string note;     // some listed launches skipped, said before its first row
};

// Each distinct launch of each variant once (chunk 0 resolves to one of the others), for
// `threads` x chunks_for(variant, `chunks`) on dims.n x dims.systems (the layout is the
// variant's own); element_bytes as resolve_launch takes it.
std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks, const Dims& dims,
                                              int element_bytes);

}  // namespace parasol::tridiag
