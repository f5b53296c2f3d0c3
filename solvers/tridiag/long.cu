// One long system cut among ranks, on the device (long.hpp): a rank's rows cut into pieces of
// about kDevicePieceRows rows, each reduced by one thread (reduce_piece's modified Thomas, in T),
// the interface across ranks on the host in double, then each thread substitutes its piece's
// first and last unknowns.
//
// The interface on the host costs, per rank, a download of 6 values a piece and an upload of 2
// (for 2^27 rows in float, 2^19 pieces: 12 MiB and 4 MiB, about 1 ms each over PCIe) and two
// sweeps over its chain of 2 rows a piece (2^20 rows in double, some 10 ms on one core), while
// the kernels move 11 values a row (6 GB for 2^27 floats: about 1.5 ms on an H200); rank 0 then
// solves 2 rows a rank. These are estimates, not yet measured: if they hold, each rank's
// interface costs more than its kernels, though it shrinks
// with the rank's rows as they do: moving the chain's reduction onto the device (a block-wide
// partition of the pieces' rows) is what would take the host out of the solve.
//
// The pieces are contiguous rows ([system][row]), so a warp's threads read rows a piece apart:
// each load of a sector feeds the next 8 (float) rows of its thread from L1. An interleaved
// layout within the rank would coalesce them.
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

// Values of a piece's interface rows: a', c', d' of its first row and of its last.
constexpr int kRowValues = 6;

// Piece p of `pieces` over `rows` rows (comm::even_planes: the first rows % pieces one longer).
struct PieceRows {
  std::int64_t begin, count;
};
__device__ inline PieceRows piece_rows(std::int64_t rows, std::int64_t pieces, std::int64_t p) {
  const std::int64_t base = rows / pieces, extra = rows % pieces;
  return {p * base + (p < extra ? p : extra), base + (p < extra ? 1 : 0)};
}

// Thread t reduces piece t % pieces of system t / pieces as reduce_piece does (partition.cpp),
// its a', c', d' written over a, c and d; its first and last rows' go to `interface` too. The
// part's own first a and last c lie outside the whole system when `outside_first` /
// `outside_last`: read as 0.
template <class T>
__global__ void reduce_pieces_kernel(T* a, const T* __restrict__ b, T* c, T* d,
                                     T* __restrict__ interface, std::int64_t rows,
                                     std::int64_t systems, std::int64_t pieces, bool outside_first,
                                     bool outside_last, unsigned long long* failure) {
  for (const std::int64_t t : grid_stride(systems * pieces)) {
    const std::int64_t s = t / pieces, p = t % pieces;
    const PieceRows piece = piece_rows(rows, pieces, p);
    const std::int64_t m = piece.count, at = s * rows + piece.begin;
    T* A = a + at;
    const T* B = b + at;
    T* C = c + at;
    T* D = d + at;
    const bool no_before = outside_first && p == 0, no_after = outside_last && p == pieces - 1;
    bool finite = true;
    // Down the piece: rows 0 and 1 divided by their diagonal, each row after eliminating the one
    // before it.
    T a_prev = 0, c_prev = 0, d_prev = 0;
    for (std::int64_t j = 0; j < m; ++j) {
      const T aj = j == 0 && no_before ? T(0) : A[j];
      const T cj = j == m - 1 && no_after ? T(0) : C[j];
      const T pivot = j < 2 ? B[j] : B[j] - aj * c_prev;
      d_prev = (j < 2 ? D[j] : D[j] - aj * d_prev) / pivot;
      a_prev = j < 2 ? aj / pivot : -aj * a_prev / pivot;
      c_prev = cj / pivot;
      A[j] = a_prev, C[j] = c_prev, D[j] = d_prev;
      finite &= isfinite(d_prev + a_prev + c_prev);
    }
    // Up the piece from its last row but one: each row's c' then couples the last unknown.
    if (m >= 3) {
      T a_next = A[m - 2], c_next = C[m - 2], d_next = D[m - 2];
      for (std::int64_t i = m - 3; i >= 1; --i) {
        const T ci = C[i];
        d_next = D[i] - ci * d_next;
        a_next = A[i] - ci * a_next;
        c_next = -ci * c_next;
        A[i] = a_next, C[i] = c_next, D[i] = d_next;
      }
      // Row 0 through row 1 (a_next, c_next, d_next now hold row 1's).
      const T c0 = C[0];
      const T pivot = T(1) - c0 * a_next;
      D[0] = (D[0] - c0 * d_next) / pivot;
      A[0] = A[0] / pivot;
      C[0] = -c0 * c_next / pivot;
      finite &= isfinite(D[0] + A[0] + C[0]);
    }
    T* out = interface + t * kRowValues;
    out[0] = A[0], out[1] = C[0], out[2] = D[0];
    out[3] = A[m - 1], out[4] = C[m - 1], out[5] = D[m - 1];
    note_failure(finite, s, failure);
  }
}

// Thread t's piece from its first and last unknowns (`ends`, two a piece): x over d.
template <class T>
__global__ void substitute_pieces_kernel(const T* __restrict__ a, const T* __restrict__ c, T* d,
                                         const T* __restrict__ ends, std::int64_t rows,
                                         std::int64_t systems, std::int64_t pieces,
                                         unsigned long long* failure) {
  for (const std::int64_t t : grid_stride(systems * pieces)) {
    const std::int64_t s = t / pieces;
    const PieceRows piece = piece_rows(rows, pieces, t % pieces);
    const std::int64_t m = piece.count, at = s * rows + piece.begin;
    const T first = ends[2 * t], last = ends[2 * t + 1];
    bool finite = isfinite(first) && isfinite(last);
    d[at] = first;
    for (std::int64_t j = 1; j < m - 1; ++j) {
      const T v = d[at + j] - a[at + j] * first - c[at + j] * last;
      d[at + j] = v;
      finite &= isfinite(v);
    }
    d[at + m - 1] = last;
    note_failure(finite, s, failure);
  }
}

// The lowest failing system the kernels recorded, as a NumericalError; nothing when none.
void check_failure(const DeviceBuffer<unsigned long long>& failure, const std::string& where,
                   cudaStream_t stream) {
  unsigned long long first = kNoFailure;
  PARASOL_CUDA(cudaMemcpyAsync(&first, failure.data(), sizeof first, cudaMemcpyDeviceToHost,
                               stream));
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  if (first == kNoFailure) return;
  const auto system = static_cast<std::int64_t>(first);
  throw NumericalError(system, "tridiag, one system across ranks: system " +
                                   std::to_string(system) + " met a zero pivot or a non-finite " +
                                   "value " + where +
                                   " (the partition method does not pivot: the system must be "
                                   "diagonally dominant or otherwise safe to eliminate in order)");
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

// A rank's rows ([system][row], `part` giving n, first_row, periodic and dims; its arrays unread)
// solved on the device, a, b, c and d made there by `fill(a, b, c, d, stream)`, timed as the
// upload.
template <class T, class Fill>
LongResult<T> solve_long_with(comm::Context& context, const RowsPart<T>& part, int threads,
                              Fill&& fill) {
  const Dims& dims = part.batch.dims;
  const std::int64_t rows = dims.n, systems = dims.systems;
  if (rows < 2)
    throw Error("tridiag::solve_long_gpu: a rank needs two rows at least, got " +
                std::to_string(rows));
  const auto pieces = static_cast<std::int64_t>(pieces_of(rows, kDevicePieceRows).size());
  const auto size = static_cast<std::size_t>(dims.size());
  const auto threads_total = static_cast<std::size_t>(systems * pieces);
  // A ring's first and last rows couple each other: nothing lies outside it.
  const bool outside_first = !part.periodic && part.first_row == 0;
  const bool outside_last = !part.periodic && part.first_row + rows == part.n;
  Stream stream;
  EventTimer h2d(stream.get()), reduce(stream.get()), substitute(stream.get()), d2h(stream.get());
  LongResult<T> result;

  h2d.start();
  DeviceBuffer<T> a(size), b(size), c(size), d(size);
  fill(a, b, c, d, stream.get());
  h2d.stop();
  DeviceBuffer<T> interface(threads_total * kRowValues), ends(threads_total * 2);
  DeviceBuffer<unsigned long long> failure(1);
  fill_bytes(failure, 0xFF, stream.get());

  const int blocks = grid_stride_blocks(systems * pieces, threads);
  reduce.start();
  reduce_pieces_kernel<T><<<blocks, threads, 0, stream.get()>>>(
      a.data(), b.data(), c.data(), d.data(), interface.data(), rows, systems, pieces,
      outside_first, outside_last, failure.data());
  PARASOL_CHECK_LAUNCH(stream.get());
  reduce.stop();

  // The interface rows leave the device, meet the other ranks' on rank 0 and come back: timed
  // as the exchange, transfers included.
  const auto exchanging = std::chrono::steady_clock::now();
  const std::vector<T> rows_t = download(interface, stream.get());
  check_failure(failure, "reducing its pieces", stream.get());
  const std::vector<double> mine(rows_t.begin(), rows_t.end());
  const std::vector<double> values = interface_across(context, mine, systems, pieces, part.periodic);
  std::vector<T> values_t(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) values_t[k] = static_cast<T>(values[k]);
  upload(ends, values_t, stream.get());
  PARASOL_CUDA(cudaStreamSynchronize(stream.get()));
  result.timings.exchange =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - exchanging).count();

  substitute.start();
  substitute_pieces_kernel<T><<<blocks, threads, 0, stream.get()>>>(
      a.data(), c.data(), d.data(), ends.data(), rows, systems, pieces, failure.data());
  PARASOL_CHECK_LAUNCH(stream.get());
  substitute.stop();
  d2h.start();
  result.x = download(d, stream.get());
  d2h.stop();
  check_failure(failure, "substituting its pieces' ends", stream.get());
  result.timings.device = {h2d.seconds(), reduce.seconds() + substitute.seconds(), d2h.seconds()};
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
  return solve_long_with<T>(
      context, part, threads,
      [&](DeviceBuffer<T>& a, DeviceBuffer<T>& b, DeviceBuffer<T>& c, DeviceBuffer<T>& d,
          cudaStream_t stream) {
        constexpr int kThreads = 256;
        const std::int64_t values = mine.count() * systems;
        const int blocks = grid_stride_blocks(values, kThreads);
        random_rows_kernel<T><<<blocks, kThreads, 0, stream>>>(CounterDraws(seed, 0), n,
                                                               mine.begin, mine.count(), systems,
                                                               a.data(), b.data(), c.data(),
                                                               d.data());
        PARASOL_CHECK_LAUNCH(stream);
      });
}

template LongResult<float> solve_long_gpu<float>(comm::Context&, const RowsPart<float>&, int);
template LongResult<double> solve_long_gpu<double>(comm::Context&, const RowsPart<double>&, int);
template LongResult<float> solve_long_gpu<float>(comm::Context&, std::int64_t, std::int64_t,
                                                 std::uint64_t, const comm::Slab&, int);
template LongResult<double> solve_long_gpu<double>(comm::Context&, std::int64_t, std::int64_t,
                                                   std::uint64_t, const comm::Slab&, int);

}  // namespace parasol::tridiag
