// One long system's staged kernels (solvers/tridiag/long.cu) against the kernels they replaced,
// which read each piece's rows straight from global memory, one thread a piece: kept here, word
// for word, as the reference. The staging moves the rows, not the arithmetic, so wherever the
// chain of interface rows is short enough for the host alone (fewer than 256 pieces a system)
// the two give the same bits, float and double, rows and rings, every block size; past that the
// device reduces the chain again and tridiag_kinds_gpu_test holds both to the host's partition
// method on the same cut.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
#include "tests/support.hpp"

namespace parasol::tridiag {
namespace {

// ---- the kernels before staging, unchanged ------------------------------------------------------

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

// ---- their solve: the interface rows through the host, as it was ------------------------------

// A rank's rows solved by the kernels above: the interface rows downloaded in T, widened, across
// ranks on the host (interface_across), narrowed on the host and uploaded.
template <class T>
std::vector<T> solve_direct(comm::Context& context, const RowsPart<T>& part) {
  const std::int64_t rows = part.batch.dims.n, systems = part.batch.dims.systems;
  const auto pieces = static_cast<std::int64_t>(pieces_of(rows, kDevicePieceRows).size());
  const auto threads_total = static_cast<std::size_t>(systems * pieces);
  const bool outside_first = !part.periodic && part.first_row == 0;
  const bool outside_last = !part.periodic && part.first_row + rows == part.n;
  Stream stream;
  const auto on_device = [&](const std::vector<T>& host) {
    DeviceBuffer<T> buffer(host.size());
    upload(buffer, host, stream.get());
    return buffer;
  };
  DeviceBuffer<T> a = on_device(part.batch.a), b = on_device(part.batch.b),
                  c = on_device(part.batch.c), d = on_device(part.batch.d);
  DeviceBuffer<T> interface(threads_total * kRowValues), ends(threads_total * 2);
  DeviceBuffer<unsigned long long> failure(1);
  fill_bytes(failure, 0xFF, stream.get());
  constexpr int kThreads = 128;
  const int blocks = grid_stride_blocks(systems * pieces, kThreads);
  reduce_pieces_kernel<T><<<blocks, kThreads, 0, stream.get()>>>(
      a.data(), b.data(), c.data(), d.data(), interface.data(), rows, systems, pieces,
      outside_first, outside_last, failure.data());
  PARASOL_CHECK_LAUNCH(stream.get());
  const std::vector<T> rows_t = download(interface, stream.get());
  const std::vector<double> mine(rows_t.begin(), rows_t.end());
  const std::vector<double> values = interface_across(context, mine, systems, pieces, part.periodic);
  std::vector<T> values_t(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) values_t[k] = static_cast<T>(values[k]);
  upload(ends, values_t, stream.get());
  substitute_pieces_kernel<T><<<blocks, kThreads, 0, stream.get()>>>(
      a.data(), c.data(), d.data(), ends.data(), rows, systems, pieces, failure.data());
  PARASOL_CHECK_LAUNCH(stream.get());
  unsigned long long first = kNoFailure;
  PARASOL_CUDA(cudaMemcpyAsync(&first, failure.data(), sizeof first, cudaMemcpyDeviceToHost,
                               stream.get()));
  PARASOL_CUDA(cudaStreamSynchronize(stream.get()));
  EXPECT_EQ(first, kNoFailure);
  return download(d, stream.get());
}

template <class T>
void expect_the_direct_bits(const RowsPart<T>& part, const std::string& what) {
  comm::Context context;
  const std::vector<T> direct = solve_direct(context, part);
  for (const int threads : {32, 128, 256}) {
    SCOPED_TRACE(what + ", " + std::to_string(threads) + " threads");
    EXPECT_EQ(solve_long_gpu(context, part, threads).x, direct);
  }
}

// 2 and 3 rows (no up sweep, one row of it), a piece of 255 and 511 rows, pieces of 256 and 257
// rows (tiles no multiple of a piece), 37 and 255 pieces (no multiple of a warp, a warp's pieces
// straddling two systems at 3 systems); 255 pieces make a chain of 510 rows, the longest the
// host takes alone.
constexpr std::int64_t kSizes[] = {2, 3, 255, 511, 515, 256 * 37 + 5, 256 * 255 + 254};

TEST(TridiagLongStaged, RowsGiveTheBitsOfTheKernelsBeforeStaging) {
  PARASOL_REQUIRE_GPU();
  for (const std::int64_t n : kSizes)
    for (const std::int64_t systems : {1, 3}) {
      const std::string what = "n " + std::to_string(n) + ", " + std::to_string(systems) + " systems";
      const comm::Slab all = comm::even_slab(n, 0, 1);
      expect_the_direct_bits(
          rows_part_of(random_batch<float>({n, systems, Layout::contiguous}, test::kSeed), all),
          "float, " + what);
      expect_the_direct_bits(
          rows_part_of(random_batch<double>({n, systems, Layout::contiguous}, test::kSeed), all),
          "double, " + what);
    }
}

TEST(TridiagLongStaged, RingsGiveTheBitsOfTheKernelsBeforeStaging) {
  PARASOL_REQUIRE_GPU();
  for (const std::int64_t n : kSizes) {
    if (n < 3) continue;  // a ring has three rows at least
    const std::int64_t systems = 3;
    const comm::Slab all = comm::even_slab(n, 0, 1);
    const auto ring = [&](auto zero) {
      using T = decltype(zero);
      return rows_part_of(
          periodic_as_batch(random_kind_batch<T>({Kind::periodic, n, systems, 1}, test::kSeed)),
          all, true);
    };
    expect_the_direct_bits(ring(0.0f), "float ring, n " + std::to_string(n));
    expect_the_direct_bits(ring(0.0), "double ring, n " + std::to_string(n));
  }
}

// A rank's middle rows (neither end of the system outside it) and its last.
TEST(TridiagLongStaged, PartsOfASystemGiveTheBitsOfTheKernelsBeforeStaging) {
  PARASOL_REQUIRE_GPU();
  const std::int64_t n = 256 * 40 + 17;
  const Batch<float> whole = random_batch<float>({n, 2, Layout::contiguous}, test::kSeed);
  for (int rank = 0; rank < 3; ++rank)
    expect_the_direct_bits(rows_part_of(whole, comm::even_slab(n, rank, 3)),
                           "rank " + std::to_string(rank) + " of 3");
}

}  // namespace
}  // namespace parasol::tridiag
