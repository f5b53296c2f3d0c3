// tridiag parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/precision.hpp"
#include "kernels/shape.hpp"

namespace parasol::tridiag {

// The GPU kernels, by the names users type.
//   pcr-shared: parallel cyclic reduction in shared memory, one system per block (several when small)
//   pcr-warp:   PCR by warp shuffles, one system per warp, `chunk` rows per lane (n <= 32 * chunk)
//   thomas-pcr: each thread eliminates its own chunk of rows, PCR solves the interface between
//               the chunks, each thread substitutes back; any n (many blocks per system when large)
//   thomas:     one thread per system on the interleaved layout
//   thomas-scan: thomas-pcr's chunks laid over the whole batch, their interface rows solved by
//               the Thomas algorithm run as block scans, in one pass with no block waiting for
//               another; any n, fastest for long systems
enum class Variant { pcr_shared, pcr_warp, thomas_pcr, thomas, thomas_scan };
inline constexpr std::array kVariants{Variant::pcr_shared, Variant::pcr_warp, Variant::thomas_pcr,
                                      Variant::thomas, Variant::thomas_scan};
// "pcr-shared", "pcr-warp", "thomas-pcr", "thomas", "thomas-scan"
std::string_view name(Variant v);
Variant parse_variant(std::string_view s);

// Where row i of system m lives: m * n + i (contiguous, system-major) or i * systems + m
// (interleaved: row i of every system side by side). thomas needs interleaved, the others
// contiguous.
enum class Layout { contiguous, interleaved };
std::string_view name(Layout l);  // "contiguous", "interleaved"
Layout parse_layout(std::string_view s);
Layout required_layout(Variant v);

// The precision it computes in: the kernel layer's one type (kernels/precision.hpp).
using parasol::Precision;
using parasol::parse_precision;

// What is solved: the heat equation marched in time, one batch read from an HDF5 file, or one
// batch of random, diagonally dominant systems drawn from a seed (docs/generated-inputs.md).
enum class Problem { heat, file, random };
std::string_view name(Problem p);  // "heat", "file", "random"
Problem parse_problem(std::string_view s);

// What kind of banded system each one is (system.kind); kinds.hpp has their layouts.
//   general:       a x[i-1] + b x[i] + c x[i+1] = d, a of row 0 and c of row n-1 ignored
//   periodic:      the same on a ring: a[0] couples x[n-1] and c[n-1] couples x[0] (n >= 3)
//   multi-rhs:     one general matrix per system and system.rhs right-hand sides, factored once
//   pentadiagonal: e x[i-2] + a x[i-1] + b x[i] + c x[i+1] + f x[i+2] = d
//   block2:        general, with 2x2 blocks for a, b, c and pairs for x and d
enum class Kind { general, periodic, multi_rhs, pentadiagonal, block2 };
inline constexpr std::array kKinds{Kind::general, Kind::periodic, Kind::multi_rhs,
                                   Kind::pentadiagonal, Kind::block2};
std::string_view name(Kind k);  // "general", "periodic", "multi-rhs", "pentadiagonal", "block2"
Kind parse_kind(std::string_view s);
// The variants that solve a kind. general: every one. periodic: thomas fused (both of
// Sherman-Morrison's solves share one elimination, per thread), pcr-shared, thomas-pcr and
// pcr-warp fused on chip (both solves and the correction in one kernel; thomas-pcr while a
// system fits a block), the others by Sherman-Morrison on top of their general solve.
// multi-rhs: thomas (one thread a system), thomas-pcr (the chunks eliminated on chip, a few
// right-hand sides at a time; n <= threads x chunk) and pcr-shared (the matrix reduced once in
// shared memory, every right-hand side with it). pentadiagonal and block2: thomas, one thread
// per system, and thomas-pcr in 2x2 blocks on chip (a pentadiagonal system's rows paired;
// n <= threads x chunk block rows).
std::vector<Variant> variants_for(Kind k);
// The variant `auto` falls back to for a kind when nothing is stored for its problem.
Variant default_variant(Kind k);
// The layout a kind's variant solves on the device (kinds.hpp): the general kind's as
// required_layout; every other kind's thomas interleaved, the rest contiguous.
Layout kind_layout(Kind k, Variant v);

// How a run across ranks cuts the problem (system.cut): whole systems to each rank (every
// solver), or every system's rows among the ranks, one long system (or a few) by the partition
// method (long.hpp): a random or file batch of general systems.
enum class Cut { systems, rows };
inline constexpr std::array kCuts{Cut::systems, Cut::rows};
std::string_view name(Cut c);  // "systems", "rows"
Cut parse_cut(std::string_view s);

// Starting temperature on each grid (all grids start alike except with `random`).
enum class Initial { sine, random, step };
std::string_view name(Initial i);  // "sine", "random", "step"
Initial parse_initial(std::string_view s);

// Backward-Euler steps of u_t = u_xx on `grids` independent grids of `points` interior points
// with fixed end values: each step solves -u[j-1] + (2 + lambda) u[j] - u[j+1] = lambda u_old[j]
// (the end values added to the first and last right-hand sides), lambda = dx^2 / dt.
struct Heat {
  std::int64_t points = 1024;  // n, unknowns per system
  std::int64_t grids = 1024;   // systems
  std::int64_t steps = 100;
  double lambda = 1.0;
  Initial initial = Initial::sine;
  int mode = 1;               // with sine: u[j] = sin(pi * mode * (j + 1) / (points + 1))
  double left = 0, right = 0;  // the fixed end values u[-1] and u[points]
  std::uint64_t seed = 1;      // with random
  // A ring (system.kind = "periodic"): point points - 1 neighbours point 0, no ends are held, and
  // the sine start is sin(2 pi mode (j + 1) / points), one of the ring's modes.
  bool ring = false;
  // These grids' place in a larger problem (a rank's part of it): the first one's index there.
  // A random start draws what that problem's grids draw.
  std::int64_t first_grid = 0;
};

// A batch from an HDF5 file: four datasets of shape [systems][n] (a, b, c, d; a[.][0] and
// c[.][n-1] are ignored).
struct FileInput {
  std::string file;  // resolved against the parameter file's folder
  std::string a = "a", b = "b", c = "c", d = "d";
  std::string e = "e", f = "f";  // pentadiagonal: the bands of x[i-2] and x[i+2]
};

// A batch drawn from a seed: counter-based, so any share of the systems is drawn alone.
struct RandomInput {
  std::int64_t n = 1024;        // rows (block rows for block2) per system
  std::int64_t systems = 1024;  // M
  std::uint64_t seed = 1;
};

struct Params {
  Problem problem = Problem::heat;
  Heat heat;
  FileInput input;
  RandomInput random;
  Kind kind = Kind::general;
  int rhs = 1;  // multi-rhs: right-hand sides per system
  Cut cut = Cut::systems;

  Variant variant = Variant::thomas_pcr;
  int threads = 256;  // threads per block
  int chunk = 0;      // rows per thread for pcr-warp and thomas-pcr; 0 picks one from n
  Precision precision = Precision::single;

  CheckpointParams checkpoint;  // [checkpoint], for heat: the march every N steps, on a signal

  // Throws InputError naming the offending key (its source left for the caller). Checks what is
  // known without reading the input file: counts, lambda, and the launch's own limits.
  void validate() const;
};

// Rows per thread compiled in: pcr-warp takes 1, 2 or 4; thomas-pcr 2 to 16; thomas-scan 4 to 16.
using WarpChunks = ValueList<1, 2, 4>;
using ThomasPcrChunks = ValueList<2, 4, 8, 16>;
using ThomasScanChunks = ValueList<4, 8, 16>;
inline constexpr std::array kWarpChunks = WarpChunks::values;
inline constexpr std::array kThomasPcrChunks = ThomasPcrChunks::values;
inline constexpr std::array kThomasScanChunks = ThomasScanChunks::values;
inline constexpr int kThomasScanDefaultChunk = 16;  // fastest on an H100 (docs/journal/2026-11.md)
// The chunks compiled in for a variant; empty for those that take none (chunk 0 only).
std::vector<int> compiled_chunks(Variant v);
// The most threads per block a chunk size allows: each thread holds three values per row in
// registers while it eliminates, so long chunks (and doubles) need smaller blocks.
constexpr int max_chunk_threads(int chunk, int element_bytes) {
  const int bytes = chunk * element_bytes;
  return bytes <= 32 && !(element_bytes == 8 && chunk == 4) ? 1024 : bytes <= 64 ? 512 : 256;
}
// The same for thomas-scan, whose threads hold four values a row until the down sweep is done.
constexpr int thomas_scan_max_threads(int chunk, int element_bytes) {
  return element_bytes == 4 && chunk <= 8 ? 512 : 256;
}

// The largest n each variant takes (thomas-pcr and thomas take any n).
inline constexpr std::int64_t kPcrWarpMaxRows = 32 * 4;
inline constexpr std::int64_t kPcrSharedMaxRows = 2048;

}  // namespace parasol::tridiag
