// coulomb: the electrostatic potential of point charges on a regular lattice by direct summation,
// V(r) = k sum_i q_i / |r - r_i|. Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/event.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/coulomb/params.hpp"
#include "solvers/coulomb/part.hpp"

namespace parasol::coulomb {

struct Atom {
  float x, y, z, q;
};

// Reads atoms; a malformed line is an InputError naming the file and line.
// PQR: ATOM/HETATM records, whitespace-separated, the last five fields x y z charge radius.
// XYZ: a count line, a comment line, then "element x y z charge" lines.
std::vector<Atom> read_atoms(const std::filesystem::path& file, AtomFormat format);

// The atoms file's format by its extension (".pqr", ".xyz", in any case); nullopt when the
// extension does not say.
std::optional<AtomFormat> format_from_extension(const std::filesystem::path& file);

// The atoms' bounding box: their lowest and highest x, y and z (at least one atom).
Box bounding_box(const std::vector<Atom>& atoms);

// The sum of the atoms' charges, in double.
double total_charge(const std::vector<Atom>& atoms);

// A run's work: one term, k q / r, for every atom at every lattice point.
inline double terms(const Lattice& n, std::size_t atoms) {
  return static_cast<double>(n.points()) * static_cast<double>(atoms);
}

struct Result {
  std::vector<float> potential;  // [nz][ny][nx], x fastest (of the part that was solved)
  // host_to_device (the atoms' upload), compute and device_to_host; the CPU backend's compute
  // alone.
  PhaseTimer timings;
};

// Reported as a run goes: atoms summed over the whole lattice (GPU, after each launch), or
// lattice points finished (gold, after each band of rows).
struct Progress {
  std::int64_t done = 0, total = 0;
  double seconds = 0;  // since the run began
};
using ProgressCallback = std::function<void(const Progress&)>;

// The CPU gold solver, in double; magnitude_scale() gives the size each point's difference from
// it should be measured against. With a part, that part's points alone (part.hpp): the same bits
// as the whole lattice's at those points.
std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms,
                               const ProgressCallback& progress = {});
std::vector<double> solve_gold(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                               const ProgressCallback& progress = {});

// The CPU backend's run of `part`: the gold rounded to float, its compute seconds timed on the
// host (the transfers take none).
Result solve_cpu(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                 const ProgressCallback& progress = {});

// sum_i |k q_i| / max(|r - r_i|, min_distance) at every point: the scale of each point's
// summation, against which its float error is measured (the potential itself can cancel to 0).
std::vector<double> magnitude_scale(const Params& p, const std::vector<Atom>& atoms);

// Both in one pass over the atoms, for a check: the same distances serve both sums.
struct GoldWithScale {
  std::vector<double> potential, scale;
};
GoldWithScale solve_gold_with_scale(const Params& p, const std::vector<Atom>& atoms,
                                    const ProgressCallback& progress = {});
GoldWithScale solve_gold_with_scale(const Params& p, const std::vector<Atom>& atoms,
                                    const Part& part, const ProgressCallback& progress = {});

// The same at whole x rows of the lattice only: row r is (j, k) = (r % ny, r / ny), and the
// result holds each listed row's nx points in the order listed. What a sweep checks each
// configuration against (sampled_rows), at a fraction of the whole gold's cost.
GoldWithScale solve_gold_with_scale_rows(const Params& p, const std::vector<Atom>& atoms,
                                         const std::vector<std::int64_t>& rows,
                                         const ProgressCallback& progress = {});

// The rows a sweep checks: every `stride`-th x row of the lattice and its last. A stride prime to
// the block shapes' powers of two puts the rows at every position within a block and a
// coarsened block's rows.
std::vector<std::int64_t> sampled_rows(const Lattice& n, std::int64_t stride);

// The GPU solver: p.variant with p.block and p.coarsening, through a DeviceProblem made for this
// run. The whole lattice in one launch per chunk of atoms, whatever its shape; a lattice too
// small to fill the device has its atoms summed in slices by separate blocks, added after in a
// fixed order (the same bits every run). With a part, that part's points alone, launched and
// sliced as the whole lattice's would be: the same bits at those points.
Result solve_gpu(const Params& p, const std::vector<Atom>& atoms,
                 const ProgressCallback& progress = {});
Result solve_gpu(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                 const ProgressCallback& progress = {});

// Terms (atoms x lattice points) per launch of the shared-memory and scatter kernels: about 33 ms
// on an H100 (4.16e12 rsqrt/s), so a launch's few microseconds and its read of the lattice cost
// nothing measurable, and a long run reports progress several times a second. Every problem in
// docs/journal/2026-11.md is smaller (1.7e10 and 4.2e10 terms): one launch, as it always was.
inline constexpr double kTermsPerLaunch = 137438953472.0;  // 2^37

// A problem resident on the device, for runs, the sweep and the benchmarks: the atoms (with k q
// folded in) uploaded once and the potential allocated once; run() sums with any variant, block
// and coarsening without a transfer, download() reads the potential back. The constant-memory
// variants stage their atoms through one __constant__ array: one problem runs at a time.
// A problem of a part holds that part's points alone; its atoms go in the launches and slices
// planned for the whole lattice, so each point takes the same float sums as in a whole problem.
class DeviceProblem {
 public:
  // `terms_per_launch` is kTermsPerLaunch but in tests, which cut small problems into launches.
  DeviceProblem(const Params& p, const std::vector<Atom>& atoms, cudaStream_t stream,
                double terms_per_launch = kTermsPerLaunch);
  DeviceProblem(const Params& p, const std::vector<Atom>& atoms, const Part& part,
                cudaStream_t stream, double terms_per_launch = kTermsPerLaunch);
  // The potential by `variant`, enqueued on the stream. The atoms go in launches that each add
  // into the lattice: 4000 at a time for gather and gather-coarse (constant memory's share),
  // whole 256-atom tiles of about terms_per_launch terms for the others. With `progress` the host
  // waits for each launch one launch behind, so the device never idles for it.
  void run(Variant variant, const Shape& block, int coarsening,
           const ProgressCallback& progress = {});
  // Fills the potential with NaN, so a point the next run fails to write cannot pass a check.
  void poison();
  std::vector<float> download() const;  // waits for the stream
  std::int64_t atom_count() const { return static_cast<std::int64_t>(atoms_.size()); }
  cudaStream_t stream() const { return stream_; }

 private:
  Params p_;
  Part part_;
  cudaStream_t stream_;
  double terms_per_launch_;
  DeviceBuffer<float4> atoms_;     // x, y, z, k q
  DeviceBuffer<float> potential_;  // the part's [nz][ny][nx]
  DeviceBuffer<float> partial_;    // the atom slices' partial sums, grown to the largest plan run
  Event launched_[2];              // the last two launches, for progress one launch behind
};

// Device memory a run of p takes with `atoms` atoms: the potential, the atoms and the slices'
// partial sums; of the whole lattice, or of a part.
double device_bytes(const Params& p, std::int64_t atoms);
double device_bytes(const Params& p, std::int64_t atoms, const Part& part);

// Measured device throughput of the reciprocal-square-root instruction (MUFU.RSQ, per second):
// the bound of these kernels, which take one per atom and lattice point.
double measure_rsqrt_throughput();

}  // namespace parasol::coulomb
