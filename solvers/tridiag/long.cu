// One long system cut among ranks, on the device (long.hpp): a rank's rows cut into pieces of
// about kDevicePieceRows rows, each reduced by one thread (reduce_piece's modified Thomas, in T);
// the interface rows (two a piece) gathered on the device into a chain, which the same kernels
// reduce again in double while it holds two pieces or more; the last chain, a few hundred rows
// at most, across ranks on the host in double (interface_across); then each level substitutes
// its pieces' first and last unknowns, the rank's rows last.
//
// Coalescing: a piece's rows are contiguous ([system][row]), so neighbouring threads walk rows a
// piece (256 rows, 1 KiB in float) apart; a thread reading its own rows made each warp load touch
// 32 sectors for 32 values. Each warp stages its lanes' pieces through shared memory instead, a
// tile at a time: the next 64 contiguous bytes of each array from each lane's piece, loaded by
// groups of 64 / sizeof(T) lanes reading one piece's run each (16 lanes in float, two runs a warp
// load), after which each lane walks its own rows in shared memory (Staging: padded so that the
// walk touches 32 banks). The arithmetic and its order per piece are those of the kernels that
// read global memory directly, row for row, so a piece's values keep their bits. 64 bytes, two
// sectors, is a guess not yet measured against 128 (which would halve the threads a
// multiprocessor holds: the staging is what limits it, 272 bytes a thread in float).
//
// What the solve moves, a rank of R rows in T (S = sizeof(T)), pieces P = R / 256:
//   reduce, down each piece:   reads a, b, c, d; writes a', c', d' (7 S a row)
//   reduce, up each piece:     reads a', c', d' again, the last tile still staged (3 S a row);
//                              writes the piece's first and last rows to the chain (6 doubles a piece)
//   each further chain level:  the same on 2 P rows in double (unit diagonal, nothing read for b),
//                              2 P / 256 pieces the next: 2^27 rows give chains of 2^20, 2^13 and
//                              64 rows, each a 128th of the one before
//   exchange:                  one download of the last chain (3 doubles a row, under 512 rows a
//                              system), the host's two sweeps over it, its two end rows to rank 0
//                              through comm/ (6 doubles a system) and two values back, one upload
//                              of the chain's values (1 double a row)
//   substitute, each level:    reads a', c', d' (the up sweep recomputed from the down sweep's
//                              values rather than stored: 3 S a row fewer written), writes x (1 S)
// In all 14 S a row against the 5 S a row (a, b, c, d read, x written) of the byte floor: the
// partition method reads its reduced rows twice more.
#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/seeded_draws.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/random_rows.hpp"

namespace parasol::tridiag {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kAllLanes = 0xffffffffu;

// The rows of every system cut into pieces: comm::even_planes, the first rows % pieces one
// longer.
struct Cut {
  std::int64_t rows, systems, pieces;
};

// Thread t's piece: where its first row lies in the arrays and how many rows it holds; none
// past the last piece.
struct Piece {
  std::int64_t at;
  int count;
};
__device__ inline Piece piece_of(const Cut& cut, std::int64_t t) {
  if (t >= cut.systems * cut.pieces) return {0, 0};
  const std::int64_t s = t / cut.pieces, p = t % cut.pieces;
  const std::int64_t base = cut.rows / cut.pieces, extra = cut.rows % cut.pieces;
  return {s * cut.rows + p * base + (p < extra ? p : extra),
          static_cast<int>(base + (p < extra ? 1 : 0))};
}

// Arrays a warp stages a tile of: a, b, c, d down a piece (a', c', d' written over a, c, d);
// a', c', d' and x when substituting.
constexpr int kStaged = 4;

// One warp's tile in shared memory: rows [tile * rows, tile * rows + rows) of each lane's piece,
// 64 bytes of each array. Lane o's row k of array q lies at (q * 32 + o) * pitch + k; the pitch
// one past the tile makes a warp whose lanes each read their own row k touch 32 banks.
template <class T>
struct Staging {
  static constexpr int rows = 64 / static_cast<int>(sizeof(T));
  static constexpr int pitch = rows + 1;
  static constexpr std::size_t warp_values = std::size_t{kStaged} * kWarp * pitch;
  T* s;
  __device__ T& operator()(int array, int lane, int row) const {
    return s[(array * kWarp + lane) * pitch + row];
  }
};

extern __shared__ __align__(16) unsigned char long_staging[];

template <class T>
__device__ inline Staging<T> warp_staging() {
  return {reinterpret_cast<T*>(long_staging) + (threadIdx.x / kWarp) * Staging<T>::warp_values};
}

// Calls move(o, k, at) for row k of tile `tile` of lane o's piece, `at` its index in the arrays,
// for each such row the piece holds: a lane-group of Staging::rows lanes takes one piece's
// consecutive rows, so each load or store of the warp is 64-byte runs.
template <class T, class Move>
__device__ inline void each_staged_row(const Piece& mine, int tile, Move&& move) {
  constexpr int kRows = Staging<T>::rows;
  for (int idx = static_cast<int>(threadIdx.x % kWarp); idx < kWarp * kRows; idx += kWarp) {
    const int o = idx / kRows, k = idx % kRows;
    const std::int64_t at = __shfl_sync(kAllLanes, mine.at, o);
    const int count = __shfl_sync(kAllLanes, mine.count, o);
    const int row = tile * kRows + k;
    if (row < count) move(o, k, at + row);
  }
}

// Tiles the warp walks: enough for its longest piece.
template <class T>
__device__ inline int warp_tiles(int count) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    count = max(count, __shfl_xor_sync(kAllLanes, count, offset));
  return (count + Staging<T>::rows - 1) / Staging<T>::rows;
}

// The warps of the grid in turn, each over 32 consecutive threads' pieces; every lane takes the
// same turns (the warp shuffles and stages together), lanes past the last piece with none.
template <class Body>
__device__ inline void each_warp_of_pieces(const Cut& cut, Body&& body) {
  const std::int64_t total = cut.systems * cut.pieces;
  const auto lane = static_cast<std::int64_t>(threadIdx.x % kWarp);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane;
       first < total; first += step)
    body(first + lane, total);
}

// A level's arrays: the rows it reduces (b null: a unit diagonal, as the chains of interface
// rows have) and where their a', c', d' go (the same arrays, or others to keep the inputs).
template <class T>
struct Rows {
  const T *a, *b, *c, *d;
};
template <class T>
struct Reduced {
  T *a, *c, *d;
};
// A chain of interface rows, [system][2 * pieces]: rows 2p and 2p + 1 are piece p's first and
// last; d then holds the chain's unknowns once solved.
struct Chain {
  double *a, *c, *d;
};

// Thread t reduces piece t % pieces of system t / pieces as reduce_piece does (partition.cpp),
// its down sweep's a', c', d' written to `out`; its first and last rows go to `next` as doubles.
// The rows' own first a and last c lie outside the whole system when `outside_first` /
// `outside_last`: read as 0.
template <class T>
__global__ void reduce_pieces_kernel(Rows<T> in, Reduced<T> out, Chain next, Cut cut,
                                     bool outside_first, bool outside_last,
                                     unsigned long long* failure) {
  constexpr int kRows = Staging<T>::rows;
  const Staging<T> st = warp_staging<T>();
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  each_warp_of_pieces(cut, [&](std::int64_t t, std::int64_t total) {
    const Piece mine = piece_of(cut, t);
    const int m = mine.count, tiles = warp_tiles<T>(m);
    const std::int64_t p = t % cut.pieces;
    const bool no_before = outside_first && p == 0, no_after = outside_last && p == cut.pieces - 1;
    bool finite = true;
    T first_a = 0, first_c = 0, first_d = 0, last_a = 0, last_c = 0, last_d = 0;
    // Down the piece: rows 0 and 1 divided by their diagonal, each row after eliminating the one
    // before it.
    T a_prev = 0, c_prev = 0, d_prev = 0;
    for (int tile = 0; tile < tiles; ++tile) {
      each_staged_row<T>(mine, tile, [&](int o, int k, std::int64_t at) {
        st(0, o, k) = in.a[at];
        st(1, o, k) = in.b != nullptr ? in.b[at] : T(1);
        st(2, o, k) = in.c[at];
        st(3, o, k) = in.d[at];
      });
      __syncwarp();
      for (int k = 0; k < kRows; ++k) {
        const int j = tile * kRows + k;
        if (j >= m) break;
        const T aj = j == 0 && no_before ? T(0) : st(0, lane, k);
        const T cj = j == m - 1 && no_after ? T(0) : st(2, lane, k);
        const T bj = st(1, lane, k), dj = st(3, lane, k);
        const T pivot = j < 2 ? bj : bj - aj * c_prev;
        d_prev = (j < 2 ? dj : dj - aj * d_prev) / pivot;
        a_prev = j < 2 ? aj / pivot : -aj * a_prev / pivot;
        c_prev = cj / pivot;
        st(0, lane, k) = a_prev, st(2, lane, k) = c_prev, st(3, lane, k) = d_prev;
        finite &= isfinite(d_prev + a_prev + c_prev);
        if (j == 0) first_a = a_prev, first_c = c_prev, first_d = d_prev;
        if (j == m - 1) last_a = a_prev, last_c = c_prev, last_d = d_prev;
      }
      __syncwarp();
      each_staged_row<T>(mine, tile, [&](int o, int k, std::int64_t at) {
        out.a[at] = st(0, o, k);
        out.c[at] = st(2, o, k);
        out.d[at] = st(3, o, k);
      });
      __syncwarp();
    }
    // Up the piece from its last row but one: each row's c' then couples the last unknown. Only
    // the piece's first row is kept (the substitution walks up again from the down sweep's
    // values); the last tile is staged still.
    T a_next = 0, c_next = 0, d_next = 0;
    for (int tile = tiles - 1; tile >= 0; --tile) {
      if (tile < tiles - 1) {
        each_staged_row<T>(mine, tile, [&](int o, int k, std::int64_t at) {
          st(0, o, k) = out.a[at];
          st(2, o, k) = out.c[at];
          st(3, o, k) = out.d[at];
        });
        __syncwarp();
      }
      for (int k = kRows - 1; k >= 0; --k) {
        const int i = tile * kRows + k;
        if (m < 3 || i > m - 2) continue;
        if (i == m - 2) {
          a_next = st(0, lane, k), c_next = st(2, lane, k), d_next = st(3, lane, k);
        } else if (i >= 1) {
          const T ci = st(2, lane, k);
          d_next = st(3, lane, k) - ci * d_next;
          a_next = st(0, lane, k) - ci * a_next;
          c_next = -ci * c_next;
        } else {
          // Row 0 through row 1 (a_next, c_next, d_next now hold row 1's).
          const T c0 = st(2, lane, k);
          const T pivot = T(1) - c0 * a_next;
          first_d = (st(3, lane, k) - c0 * d_next) / pivot;
          first_a = st(0, lane, k) / pivot;
          first_c = -c0 * c_next / pivot;
          finite &= isfinite(first_d + first_a + first_c);
        }
      }
      __syncwarp();
    }
    if (t < total) {
      next.a[2 * t] = first_a, next.c[2 * t] = first_c, next.d[2 * t] = first_d;
      next.a[2 * t + 1] = last_a, next.c[2 * t + 1] = last_c, next.d[2 * t + 1] = last_d;
      note_failure(finite, t / cut.pieces, failure);
    }
  });
}

// Thread t's piece from its first and last unknowns (`ends`, two a piece, [system][2 * pieces]),
// walking up it again as the reduction did to recover each row's a', c', d' against those two:
// x over `x` (which may be r.d).
template <class T>
__global__ void substitute_pieces_kernel(Reduced<T> r, const double* ends, T* x, Cut cut,
                                         unsigned long long* failure) {
  constexpr int kRows = Staging<T>::rows;
  const Staging<T> st = warp_staging<T>();
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  each_warp_of_pieces(cut, [&](std::int64_t t, std::int64_t total) {
    const Piece mine = piece_of(cut, t);
    const int m = mine.count, tiles = warp_tiles<T>(m);
    const T first = t < total ? static_cast<T>(ends[2 * t]) : T(0);
    const T last = t < total ? static_cast<T>(ends[2 * t + 1]) : T(0);
    bool finite = isfinite(first) && isfinite(last);
    T a_next = 0, c_next = 0, d_next = 0;
    for (int tile = tiles - 1; tile >= 0; --tile) {
      each_staged_row<T>(mine, tile, [&](int o, int k, std::int64_t at) {
        st(0, o, k) = r.a[at];
        st(1, o, k) = r.c[at];
        st(2, o, k) = r.d[at];
      });
      __syncwarp();
      for (int k = kRows - 1; k >= 0; --k) {
        const int i = tile * kRows + k;
        if (i >= m) continue;
        T v;
        if (i == m - 1) {
          v = last;
        } else if (i == 0) {
          v = first;
        } else {
          if (i == m - 2) {
            a_next = st(0, lane, k), c_next = st(1, lane, k), d_next = st(2, lane, k);
          } else {
            const T ci = st(1, lane, k);
            d_next = st(2, lane, k) - ci * d_next;
            a_next = st(0, lane, k) - ci * a_next;
            c_next = -ci * c_next;
          }
          v = d_next - a_next * first - c_next * last;
          finite &= isfinite(v);
        }
        st(3, lane, k) = v;
      }
      __syncwarp();
      each_staged_row<T>(mine, tile, [&](int o, int k, std::int64_t at) { x[at] = st(3, o, k); });
      __syncwarp();
    }
    if (t < total) note_failure(finite, t / cut.pieces, failure);
  });
}

// The lowest failing system the kernels recorded, as a NumericalError; nothing when none.
void check_failure(const DeviceBuffer<unsigned long long>& failure, const std::string& where,
                   cudaStream_t stream) {
  unsigned long long first = kNoFailure;
  download(failure, &first, 1, stream);
  if (first == kNoFailure) return;
  const auto system = static_cast<std::int64_t>(first);
  throw NumericalError(system, "tridiag, one system across ranks: system " +
                                   std::to_string(system) + " met a zero pivot or a non-finite " +
                                   "value " + where +
                                   " (the partition method does not pivot: the system must be "
                                   "diagonally dominant or otherwise safe to eliminate in order)");
}

std::int64_t piece_count(std::int64_t rows) {
  return static_cast<std::int64_t>(pieces_of(rows, kDevicePieceRows).size());
}

// The levels the device reduces: the rank's rows, then each chain of interface rows while it
// holds two pieces or more. Rows a system and pieces of each.
std::vector<Cut> levels_of(std::int64_t rows, std::int64_t systems) {
  std::vector<Cut> levels{{rows, systems, piece_count(rows)}};
  for (std::int64_t chain = 2 * levels.back().pieces; piece_count(chain) >= 2;
       chain = 2 * levels.back().pieces)
    levels.push_back({chain, systems, piece_count(chain)});
  return levels;
}

// Shared memory a block of `threads` stages through, and the kernels allowed it (past 48 KiB
// a kernel must ask). InputError naming method.threads when the device holds less.
template <class T>
std::size_t staging_bytes(int threads) {
  if (threads < kWarp || threads % kWarp != 0)
    throw InputError("", "method.threads",
                     "a multiple of 32 for one long system's kernels, got " +
                         std::to_string(threads));
  const std::size_t bytes = static_cast<std::size_t>(threads / kWarp) *
                            Staging<T>::warp_values * sizeof(T);
  int device = 0, most = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  PARASOL_CUDA(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(most))
    throw InputError("", "method.threads",
                     "at most " +
                         std::to_string(static_cast<std::size_t>(most) /
                                        (Staging<T>::warp_values * sizeof(T)) * kWarp) +
                         " threads a block for one long system on this device (each stages " +
                         std::to_string(Staging<T>::warp_values * sizeof(T) / kWarp) +
                         " bytes in shared memory), got " + std::to_string(threads));
  const auto attribute = static_cast<int>(bytes);
  PARASOL_CUDA(cudaFuncSetAttribute(reduce_pieces_kernel<T>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, attribute));
  PARASOL_CUDA(cudaFuncSetAttribute(substitute_pieces_kernel<T>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, attribute));
  return bytes;
}

}  // namespace

// The chains of interface rows, one buffer each ([a | c | d], a third each), kept between solves
// of the same rows (DeviceRows) so that a solve allocates nothing.
struct LongChains {
  std::vector<DeviceBuffer<double>> chains;
  DeviceBuffer<unsigned long long> failure{1};
};

namespace {

Chain chain_in(DeviceBuffer<double>& buffer) {
  const std::size_t third = buffer.size() / 3;
  return {buffer.data(), buffer.data() + third, buffer.data() + 2 * third};
}

// A rank's rows (`part`: n, first_row, periodic and the extent; its arrays unread) on the
// device, a, b, c, d in `in`, solved: a', c', d' into `out` (which may be `in`'s arrays), x over
// out.d. The reduction and substitution timed as compute with events, the exchange as host wall
// from the reduction's end to the values' upload.
template <class T>
PhaseTimer solve_on_device(comm::Context& context, const RowsPart<T>& part, Rows<T> in,
                           Reduced<T> out, int threads, LongChains& buffers, cudaStream_t stream) {
  const Dims& dims = part.batch.dims;
  const std::int64_t rows = dims.n, systems = dims.systems;
  if (rows < 2)
    throw Error("tridiag::solve_long_gpu: a rank needs two rows at least, got " +
                std::to_string(rows));
  const std::size_t smem = staging_bytes<T>(threads), chain_smem = staging_bytes<double>(threads);
  const std::vector<Cut> levels = levels_of(rows, systems);
  // Level l's reduction writes chain l; the last chain is the host's.
  std::vector<DeviceBuffer<double>>& chains = buffers.chains;
  chains.resize(levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const auto values = static_cast<std::size_t>(3 * 2 * levels[l].pieces * systems);
    if (chains[l].size() != values) chains[l] = DeviceBuffer<double>(values);
  }
  // A ring's first and last rows couple each other: nothing lies outside it.
  const bool outside_first = !part.periodic && part.first_row == 0;
  const bool outside_last = !part.periodic && part.first_row + rows == part.n;
  EventTimer reduce(stream), substitute(stream);
  fill_bytes(buffers.failure, 0xFF, stream);
  const auto blocks = [&](const Cut& cut) {
    return grid_stride_blocks(cut.systems * cut.pieces, threads);
  };

  reduce.start();
  reduce_pieces_kernel<T><<<blocks(levels[0]), threads, smem, stream>>>(
      in, out, chain_in(chains[0]), levels[0], outside_first, outside_last,
      buffers.failure.data());
  PARASOL_CHECK_LAUNCH(stream);
  for (std::size_t l = 1; l < levels.size(); ++l) {
    // The chain's own ends already hold 0 where they lie outside the system.
    const Chain c = chain_in(chains[l - 1]);
    reduce_pieces_kernel<double><<<blocks(levels[l]), threads, chain_smem, stream>>>(
        {c.a, nullptr, c.c, c.d}, {c.a, c.c, c.d}, chain_in(chains[l]), levels[l], false, false,
        buffers.failure.data());
    PARASOL_CHECK_LAUNCH(stream);
  }
  reduce.stop();
  PARASOL_CUDA(cudaStreamSynchronize(stream));

  // The last chain leaves the device in one copy, meets the other ranks' on rank 0 and its
  // values come back in one: timed as the exchange, transfers included.
  const auto exchanging = std::chrono::steady_clock::now();
  DeviceBuffer<double>& last = chains.back();
  const std::vector<double> chain = download(last, stream);
  check_failure(buffers.failure, "reducing its pieces", stream);
  const std::int64_t pieces = levels.back().pieces, per_system = 2 * pieces;
  const std::size_t third = chain.size() / 3;
  std::vector<double> mine(static_cast<std::size_t>(systems * pieces) * 6);
  for (std::size_t q = 0, k = 0; q < third; q += 2, k += 6) {
    mine[k] = chain[q], mine[k + 1] = chain[third + q], mine[k + 2] = chain[2 * third + q];
    mine[k + 3] = chain[q + 1], mine[k + 4] = chain[third + q + 1];
    mine[k + 5] = chain[2 * third + q + 1];
  }
  const std::vector<double> values =
      interface_across(context, mine, systems, pieces, part.periodic);
  if (values.size() != third || third != static_cast<std::size_t>(systems * per_system))
    throw Error("tridiag::solve_long_gpu: " + std::to_string(values.size()) +
                " interface values for a chain of " + std::to_string(third) + " rows");
  upload(last, 2 * third, values.data(), third, stream);  // over the chain's d (chain_in)
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  const double exchange =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - exchanging).count();

  substitute.start();
  for (std::size_t l = levels.size() - 1; l >= 1; --l) {
    const Chain c = chain_in(chains[l - 1]);
    substitute_pieces_kernel<double><<<blocks(levels[l]), threads, chain_smem, stream>>>(
        {c.a, c.c, c.d}, chain_in(chains[l]).d, c.d, levels[l], buffers.failure.data());
    PARASOL_CHECK_LAUNCH(stream);
  }
  substitute_pieces_kernel<T><<<blocks(levels[0]), threads, smem, stream>>>(
      out, chain_in(chains[0]).d, out.d, levels[0], buffers.failure.data());
  PARASOL_CHECK_LAUNCH(stream);
  substitute.stop();
  check_failure(buffers.failure, "substituting its pieces' ends", stream);
  PhaseTimer timings;
  timings.add(phase::compute, reduce.seconds() + substitute.seconds());
  timings.add(phase::exchange, exchange);
  return timings;
}

// random_batch's rows [first_row, first_row + rows) of each system of n rows, drawn where the
// host draws them (random_row), contiguous [system][row].
template <class T>
__global__ void random_rows_kernel(CounterDraws draws, std::int64_t n, std::int64_t first_row,
                                   std::int64_t rows, std::int64_t systems, T* a, T* b, T* c,
                                   T* d) {
  for (const std::int64_t k : grid_stride(rows * systems)) {
    const std::int64_t system = k / rows, row = k % rows;
    const RandomRow<T> drawn = random_row<T>(draws, n, system * n + first_row + row);
    a[k] = drawn.a, b[k] = drawn.b, c[k] = drawn.c, d[k] = drawn.d;
  }
}

template <class T>
void draw_rows(std::int64_t n, std::int64_t systems, std::uint64_t seed, const comm::Slab& mine,
               T* a, T* b, T* c, T* d, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::int64_t values = mine.count() * systems;
  random_rows_kernel<T><<<grid_stride_blocks(values, kThreads), kThreads, 0, stream>>>(
      CounterDraws(seed, 0), n, mine.begin, mine.count(), systems, a, b, c, d);
  PARASOL_CHECK_LAUNCH(stream);
}

// A rank's rows ([system][row], `part` giving n, first_row, periodic and dims; its arrays unread)
// solved on the device in place, a, b, c and d made there by `fill(a, b, c, d, stream)`, timed
// as the upload.
template <class T, class Fill>
LongResult<T> solve_long_with(comm::Context& context, const RowsPart<T>& part, int threads,
                              Fill&& fill) {
  const auto size = static_cast<std::size_t>(part.batch.dims.size());
  Stream stream;
  EventTimer h2d(stream.get()), d2h(stream.get());
  LongResult<T> result;
  h2d.start();
  DeviceBuffer<T> a(size), b(size), c(size), d(size);
  fill(a, b, c, d, stream.get());
  h2d.stop();
  LongChains chains;
  const PhaseTimer solved =
      solve_on_device<T>(context, part, {a.data(), b.data(), c.data(), d.data()},
                         {a.data(), c.data(), d.data()}, threads, chains, stream.get());
  d2h.start();
  result.x = download(d, stream.get());
  d2h.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(solved);
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

}  // namespace

template <class T>
LongResult<T> solve_long_gpu(comm::Context& context, const RowsPart<T>& part, int threads) {
  const std::size_t size = part.batch.a.size();
  if (part.batch.b.size() != size || part.batch.c.size() != size || part.batch.d.size() != size ||
      size != static_cast<std::size_t>(part.batch.dims.size()))
    throw Error("tridiag::solve_long_gpu: a, b, c and d must each hold the part's rows x systems");
  return solve_long_with<T>(context, part, threads,
                            [&](DeviceBuffer<T>& a, DeviceBuffer<T>& b, DeviceBuffer<T>& c,
                                DeviceBuffer<T>& d, cudaStream_t stream) {
                              upload(a, part.batch.a, stream);
                              upload(b, part.batch.b, stream);
                              upload(c, part.batch.c, stream);
                              upload(d, part.batch.d, stream);
                            });
}

template <class T>
LongResult<T> solve_long_gpu(comm::Context& context, std::int64_t n, std::int64_t systems,
                             std::uint64_t seed, const comm::Slab& mine, int threads) {
  RowsPart<T> part;  // its extent alone: the rows are drawn on the device
  part.n = n;
  part.first_row = mine.begin;
  part.batch.dims = {mine.count(), systems, Layout::contiguous};
  return solve_long_with<T>(context, part, threads,
                            [&](DeviceBuffer<T>& a, DeviceBuffer<T>& b, DeviceBuffer<T>& c,
                                DeviceBuffer<T>& d, cudaStream_t stream) {
                              draw_rows(n, systems, seed, mine, a.data(), b.data(), c.data(),
                                        d.data(), stream);
                            });
}

template <class T>
DeviceRows<T>::DeviceRows(std::int64_t n, std::int64_t systems, std::uint64_t seed,
                          const comm::Slab& mine)
    : chains_(std::make_unique<LongChains>()) {
  part_.n = n;
  part_.first_row = mine.begin;
  part_.batch.dims = {mine.count(), systems, Layout::contiguous};
  const auto size = static_cast<std::size_t>(part_.batch.dims.size());
  a_ = DeviceBuffer<T>(size), b_ = DeviceBuffer<T>(size), c_ = DeviceBuffer<T>(size);
  d_ = DeviceBuffer<T>(size);
  ra_ = DeviceBuffer<T>(size), rc_ = DeviceBuffer<T>(size), x_ = DeviceBuffer<T>(size);
  draw_rows(n, systems, seed, mine, a_.data(), b_.data(), c_.data(), d_.data(), stream_.get());
  PARASOL_CUDA(cudaStreamSynchronize(stream_.get()));
}

template <class T>
DeviceRows<T>::~DeviceRows() = default;

template <class T>
PhaseTimer DeviceRows<T>::solve(comm::Context& context, int threads) {
  return solve_on_device<T>(context, part_, {a_.data(), b_.data(), c_.data(), d_.data()},
                            {ra_.data(), rc_.data(), x_.data()}, threads, *chains_,
                            stream_.get());
}

template <class T>
std::vector<T> DeviceRows<T>::x() const {
  return download(x_, stream_.get());
}

template class DeviceRows<float>;
template class DeviceRows<double>;
template LongResult<float> solve_long_gpu<float>(comm::Context&, const RowsPart<float>&, int);
template LongResult<double> solve_long_gpu<double>(comm::Context&, const RowsPart<double>&, int);
template LongResult<float> solve_long_gpu<float>(comm::Context&, std::int64_t, std::int64_t,
                                                 std::uint64_t, const comm::Slab&, int);
template LongResult<double> solve_long_gpu<double>(comm::Context&, std::int64_t, std::int64_t,
                                                   std::uint64_t, const comm::Slab&, int);

}  // namespace parasol::tridiag
