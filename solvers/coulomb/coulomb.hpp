// coulomb: the electrostatic potential of point charges on a regular lattice by direct summation,
// V(r) = k sum_i q_i / |r - r_i|. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "solvers/coulomb/params.hpp"

namespace parasol::coulomb {

struct Atom {
  float x, y, z, q;
};

// Reads atoms; a malformed line is an InputError naming the file and line.
// PQR: ATOM/HETATM records, whitespace-separated, the last five fields x y z charge radius.
// XYZ: a count line, a comment line, then "element x y z charge" lines.
std::vector<Atom> read_atoms(const std::filesystem::path& file, AtomFormat format);

struct Timings {
  double host_to_device = 0, compute = 0, device_to_host = 0;
};

struct Result {
  std::vector<float> potential;  // [nz][ny][nx], x fastest
  Timings timings;
};

// The CPU gold solver, in double; magnitude_scale() gives the size each point's difference from
// it should be measured against.
std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms);

// sum_i |k q_i| / max(|r - r_i|, min_distance) at every point: the scale of each point's
// summation, against which its float error is measured (the potential itself can cancel to 0).
std::vector<double> magnitude_scale(const Params& p, const std::vector<Atom>& atoms);

// The GPU solver: p.variant with p.block and p.coarsening. The whole lattice in one launch per
// chunk of atoms, whatever its shape; a lattice too small to fill the device has its atoms
// summed in slices by separate blocks, added after in a fixed order (the same bits every run).
Result solve_gpu(const Params& p, const std::vector<Atom>& atoms);

// Measured device throughput of the reciprocal-square-root instruction (MUFU.RSQ, per second):
// the bound of these kernels, which take one per atom and lattice point.
double measure_rsqrt_throughput();

}  // namespace parasol::coulomb
