// tridiag's kinds beyond the general batch (system.kind): periodic systems, many right-hand
// sides sharing one matrix, pentadiagonal systems and 2x2-block tridiagonal systems. Each is a
// batch of `systems` independent systems of n rows (block rows for block2), with a random
// generator, a CPU gold in double, a GPU solver and the condition bound its check is judged by.
// Host-only API: compiles without nvcc.
//
// On the host every array is contiguous, system-major: [systems][width], width per system:
//   periodic       a, b, c, d, x: n. a[0] multiplies x[n-1] and c[n-1] multiplies x[0].
//   multi-rhs      a, b, c: n (a[0], c[n-1] ignored); d, x: rhs x n, [rhs][row] (row fastest).
//   pentadiagonal  e, a, b, c, f, d, x: n; e x[i-2] + a x[i-1] + b x[i] + c x[i+1] + f x[i+2] = d,
//                  the entries outside the matrix (e[0..1], a[0], c[n-1], f[n-2..n-1]) ignored.
//   block2         a, b, c: 4n, [row][2][2] (block row i's 2x2 block, row-major); d, x: 2n,
//                  [row][2]. A[i] x[i-1] + B[i] x[i] + C[i] x[i+1] = d[i] with pairs x[i];
//                  A[0] and C[n-1] ignored.
// On the device the per-thread (thomas) kernels take every array interleaved, [width][systems]
// (element j of system m at j * systems + m), so a warp's loads are contiguous; the rest take the
// host's layout (kind_layout in params.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

struct KindDims {
  Kind kind = Kind::periodic;
  std::int64_t n = 1;        // rows (block rows) per system
  std::int64_t systems = 1;  // M
  int rhs = 1;               // multi-rhs: right-hand sides per system
  // Coefficient arrays: a, b, c; e, a, b, c, f for pentadiagonal.
  int bands() const { return kind == Kind::pentadiagonal ? 5 : 3; }
  // Elements of one coefficient array per system.
  std::int64_t band_width() const { return kind == Kind::block2 ? 4 * n : n; }
  // Elements of d (and of x) per system.
  std::int64_t rhs_width() const {
    return kind == Kind::block2 ? 2 * n : kind == Kind::multi_rhs ? rhs * n : n;
  }
  // Scalar rows of one system's matrix: n, or 2n for block2.
  std::int64_t rows() const { return kind == Kind::block2 ? 2 * n : n; }
};

template <class T>
struct KindBatch {
  KindDims dims;
  std::vector<std::vector<T>> bands;  // dims.bands() arrays of systems x band_width(), contiguous
  std::vector<T> d;                   // systems x rhs_width(), contiguous
};

// Throws InputError naming `key` when dims cannot be solved as their kind: a periodic system of
// fewer than 3 rows, rhs < 1, or rhs > 1 for another kind than multi-rhs.
void check_kind_dims(const KindDims& dims, const std::string& source, const std::string& key);

// Random, strictly diagonally dominant systems of the kind (every scalar row's diagonal at least
// 1 more than the rest of its row, in magnitude, as stored in T; signs mixed), the same for a
// seed on every core. Row (block row) i of system m draws words w = W r to w + W - 1, r = m n + i,
// of CounterDraws(seed, kind's stream) (docs/generated-inputs.md), W the row's values; with
// `first_system`, systems [first_system, first_system + dims.systems) of such a batch, alone.
template <class T>
KindBatch<T> random_kind_batch(const KindDims& dims, std::uint64_t seed,
                               std::int64_t first_system = 0);

// The CPU gold in double, systems x rhs_width() values in the batch's layout: periodic by
// Sherman-Morrison on the Thomas algorithm (gamma = -b[0]); multi-rhs by the Thomas algorithm,
// factored once; pentadiagonal by Gaussian elimination in band order (no pivoting); block2 by
// block Thomas with explicit 2x2 inverses. NumericalError names the first failing system.
template <class T>
std::vector<double> solve_kind_gold(const KindBatch<T>& batch);

// One scalar row of system m's matrix: its diagonal entry and the sum of its other entries'
// magnitudes (the ring's corners, a pentadiagonal row's four neighbours, a block row's five),
// for the condition bound in check.hpp.
struct RowWeight {
  double diagonal = 0, off = 0;
};
template <class T>
RowWeight kind_row_weight(const KindBatch<T>& batch, std::int64_t m, std::int64_t row);

// The launch made concrete for a kind (chunk picked when 0), without the device: InputError as
// resolve_launch, or "method.variant" when the variant does not solve the kind or not at this
// size (multi-rhs pcr-shared past a block's shared memory; thomas-pcr for multi-rhs,
// pentadiagonal and block2 when no block holds a system). Those thomas-pcr kernels hold a system
// within one block: a launch they cannot run as asked (a chunk they lack, a system past the
// block, a block past their registers) runs with the nearest chunk and block they take.
Launch resolve_kind_launch(const Launch& launch, const KindDims& dims, int element_bytes);

// A solver of one kind, variant and size, holding its workspace; solves data already on the
// device, laid out as kind_layout(kind, variant) says.
template <class T>
class KindSolver {
 public:
  // Resolves the launch (resolve_kind_launch); InputError as it says.
  KindSolver(const Launch& launch, const KindDims& dims);
  ~KindSolver();
  KindSolver(KindSolver&&) noexcept;
  KindSolver& operator=(KindSolver&&) noexcept;
  // x = A^-1 d. `bands` holds dims.bands() device pointers; x must not alias d.
  void solve(const T* const* bands, const T* d, T* x, cudaStream_t stream);
  // Waits; NumericalError for the lowest system that met a zero pivot or a non-finite value.
  void check(cudaStream_t stream);
  const Launch& launch() const { return launch_; }
  const KindDims& dims() const { return dims_; }
  Layout layout() const { return kind_layout(dims_.kind, launch_.variant); }
  // Periodic systems with Sherman-Morrison's two solves and the correction in one kernel, each
  // system on chip: pcr-shared in shared memory; thomas-pcr and pcr-warp while a system's group
  // of threads fits a block (kinds_periodic.cuh). thomas fuses them per thread; thomas-scan, and
  // thomas-pcr past one block a system, solve twice and correct.
  bool fused_on_chip() const {
    if (dims_.kind != Kind::periodic) return false;
    const Variant v = launch_.variant;
    return v == Variant::pcr_shared ||
           ((v == Variant::thomas_pcr || v == Variant::pcr_warp) &&
            whole_system_block(launch_, dims_.n) > 0);
  }

 private:
  struct Workspace;
  Launch launch_;
  KindDims dims_;
  std::unique_ptr<Workspace> work_;
};

// Upload (relaid for the variant), solve, check, download: x contiguous, as the gold's.
template <class T>
Result<T> solve_kind_gpu(const Launch& launch, const KindBatch<T>& batch);

// Bytes a solve must move at the least, per the kind (bench/ and the sweep's roofline):
// periodic a, b, c, d read and x written (5 values an unknown); multi-rhs the matrix once and
// each right-hand side read and written (3 + 2 rhs values a row); pentadiagonal 7 values a row;
// block2 12 matrix and 4 vector values a block row (8 a scalar unknown).
double kind_bytes_per_solve(const KindDims& dims, int element_bytes);

}  // namespace parasol::tridiag
