// The kinds' GPU solvers: one thread per system on the interleaved layout (thomas), periodic
// systems fused on chip (pcr-shared here, thomas-pcr and pcr-warp in kinds_periodic.cuh) or by
// Sherman-Morrison on top of the general variants, many right-hand sides by thomas-pcr on chip
// (kinds_multi_rhs.cuh), pentadiagonal and block2 systems by thomas-pcr in 2x2 blocks on chip
// (kinds_block.cuh). The per-thread kernels are written plainly: each walks its system down and
// back up as the gold does, keeping the rows it needs next in registers and the eliminated
// coefficients in a workspace.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/kinds_block.cuh"
#include "solvers/tridiag/kinds_multi_rhs.cuh"
#include "solvers/tridiag/kinds_periodic.cuh"
#include "solvers/tridiag/pcr.cuh"

namespace parasol::tridiag {
namespace {

// ---- periodic, fused: Sherman-Morrison with one elimination for both solves -----------------
// A = A' + u v^T (kinds.cpp's gold says how); thread m eliminates A' once, carrying y (A' y = d)
// and z (A' z = u) down together. The correction factor needs y[0] and z[0], which back
// substitution would give only at its end; but y[0] = sum_i (prod_{j<i} -c'[j]) y'[i], so both
// are summed on the way down (the product only shrinks on dominant rows: an underflow drops
// terms too small to matter). Then one pass back up gives x itself, as x = y - factor z
// satisfies x[i] = (y'[i] - factor z'[i]) - c'[i] x[i+1]: two passes, not three.
template <class T>
__global__ void periodic_thomas_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                       const T* __restrict__ c, const T* __restrict__ d, T* x,
                                       T* __restrict__ cp, T* __restrict__ z, std::int64_t n,
                                       std::int64_t systems, unsigned long long* failure) {
  for (const std::int64_t m : grid_stride(systems)) {
    const std::int64_t last = (n - 1) * systems + m;
    const T gamma = -b[m];
    const T a0 = a[m], c_last = c[last];
    const T corner = a0 / gamma;
    T r = T(1) / (b[m] - gamma);
    T c_prev = c[m] * r, y_prev = d[m] * r, z_prev = gamma * r;
    cp[m] = c_prev;
    x[m] = y_prev;
    z[m] = z_prev;
    T y0 = y_prev, z0 = z_prev, product = -c_prev;  // the sums and prod_{j<i} -c'[j]
    for (std::int64_t i = 1; i < n; ++i) {
      const std::int64_t g = i * systems + m;
      const T ai = a[g];
      const T bi = i < n - 1 ? b[g] : b[g] - a0 * c_last / gamma;
      r = T(1) / (bi - ai * c_prev);
      c_prev = i < n - 1 ? c[g] * r : T(0);
      y_prev = (d[g] - ai * y_prev) * r;
      z_prev = ((i < n - 1 ? T(0) : c_last) - ai * z_prev) * r;
      cp[g] = c_prev;
      x[g] = y_prev;
      z[g] = z_prev;
      y0 += product * y_prev;
      z0 += product * z_prev;
      product *= -c_prev;
    }
    // y_prev and z_prev are y[n-1] and z[n-1].
    const T factor = (y0 + corner * y_prev) / (T(1) + z0 + corner * z_prev);
    T x_next = y_prev - factor * z_prev;
    x[last] = x_next;
    bool finite = isfinite(x_next);
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t g = i * systems + m;
      x_next = (x[g] - factor * z[g]) - cp[g] * x_next;
      x[g] = x_next;
      finite &= isfinite(x_next);
    }
    note_failure(finite, m, failure);
  }
}

// ---- periodic, fused on chip: Sherman-Morrison by PCR in shared memory ------------------------
// As the general pcr-shared (tridiag.cu): `per_block` systems padded to np (a power of two) rows,
// or one system when np exceeds the block, two copies of the rows so each step needs one barrier.
// Each row carries both right-hand sides, d and u, through the same reduction; then each system's
// correction factor is read from its end rows and x = y - factor z written: a, b, c and d are
// read once and x written once (20 bytes an unknown in float).
template <class T>
struct RingRows {
  T *a, *b, *c, *d, *u;
  __device__ void store(int i, const Row<T>& r, T ui) {
    a[i] = r.a, b[i] = r.b, c[i] = r.c, d[i] = r.d, u[i] = ui;
  }
  __device__ Row<T> load(int i) const { return {a[i], b[i], c[i], d[i]}; }
};

template <class T>
__device__ inline RingRows<T> ring_rows(T* base, int count) {
  return {base, base + count, base + 2 * count, base + 3 * count, base + 4 * count};
}

template <class T>
std::size_t periodic_pcr_bytes(int rows) {
  return 2 * 5 * static_cast<std::size_t>(rows) * sizeof(T);
}

template <class T>
__global__ void __launch_bounds__(1024)
    periodic_pcr_shared_kernel(const T* __restrict__ a, const T* __restrict__ b,
                               const T* __restrict__ c, const T* __restrict__ d, T* x,
                               std::int64_t n, std::int64_t systems, int np, int per_block,
                               unsigned long long* failure) {
  extern __shared__ unsigned char shared_bytes[];
  const int rows = np * per_block;
  RingRows<T> buf[2] = {ring_rows(reinterpret_cast<T*>(shared_bytes), rows),
                        ring_rows(reinterpret_cast<T*>(shared_bytes) + 5 * rows, rows)};
  const std::int64_t first_system = static_cast<std::int64_t>(blockIdx.x) * per_block;

  // A' and u (kinds.cpp's gold): b[0] - gamma and b[n-1] - a[0] c[n-1] / gamma on the
  // diagonal, gamma = -b[0], the corners moved into u = (gamma, 0, ..., 0, c[n-1]).
  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    Row<T> r = identity_row<T>();
    T ui = T(0);
    if (k < n && system < systems) {
      const std::int64_t g0 = system * n, g = g0 + k, last = g0 + n - 1;
      const T gamma = -b[g0];
      r = {k == 0 ? T(0) : a[g], b[g], k == n - 1 ? T(0) : c[g], d[g]};
      if (k == 0) {
        r.b -= gamma;
        ui = gamma;
      }
      if (k == n - 1) {
        r.b -= a[g0] * c[last] / gamma;
        ui = c[last];
      }
    }
    buf[0].store(i, r, ui);
  }
  __syncthreads();

  int from = 0;
  for (int s = 1; s < np; s *= 2, from ^= 1) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      const int k = i % np;
      const Row<T> lower = k >= s ? buf[from].load(i - s) : identity_row<T>();
      const Row<T> upper = k + s < np ? buf[from].load(i + s) : identity_row<T>();
      const Row<T> row = buf[from].load(i);
      // pcr_combine's multipliers, applied to u as to d.
      const T k1 = row.a / lower.b, k2 = row.c / upper.b;
      const T u_lower = k >= s ? buf[from].u[i - s] : T(0);
      const T u_upper = k + s < np ? buf[from].u[i + s] : T(0);
      buf[from ^ 1].store(i, pcr_combine(lower, row, upper), buf[from].u[i] - u_lower * k1 - u_upper * k2);
    }
    __syncthreads();
  }

  // y and z over d and u, then each system's factor from its end rows.
  RingRows<T>& r = buf[from];
  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    r.d[i] /= r.b[i];
    r.u[i] /= r.b[i];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    if (k >= n || system >= systems) continue;
    const int head = i - static_cast<int>(k), tail = head + static_cast<int>(n) - 1;
    const std::int64_t g0 = system * n;
    const T corner = a[g0] / -b[g0];
    const T factor = (r.d[head] + corner * r.d[tail]) / (T(1) + r.u[head] + corner * r.u[tail]);
    const T xi = r.d[i] - factor * r.u[i];
    x[g0 + k] = xi;
    note_failure(isfinite(xi), system, failure);
  }
}

// Its biggest blocks need more than the default 48 KiB of dynamic shared memory.
template <class T>
void allow_periodic_pcr_bytes() {
  static const bool done = [] {
    PARASOL_CUDA(cudaFuncSetAttribute(periodic_pcr_shared_kernel<T>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(periodic_pcr_bytes<T>(kPcrSharedMaxRows))));
    return true;
  }();
  (void)done;
}

// ---- periodic by Sherman-Morrison on a general variant (contiguous) ---------------------------
// A' differs from A only in its two corner diagonals: b' is b with those rewritten, and u is zero
// but at its ends (zeroed once, when the workspace is made).
template <class T>
__global__ void periodic_modify_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                       const T* __restrict__ c, T* __restrict__ b_modified,
                                       T* __restrict__ u, std::int64_t n, std::int64_t systems) {
  for (const std::int64_t m : grid_stride(systems)) {
    const std::int64_t first = m * n, last = first + n - 1;
    const T gamma = -b[first];
    b_modified[first] = b[first] - gamma;
    b_modified[last] = b[last] - a[first] * c[last] / gamma;
    u[first] = gamma;
    u[last] = c[last];
  }
}

// Each system's correction factor, (v . y) / (1 + v . z), before any x is rewritten.
template <class T>
__global__ void periodic_factor_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                       const T* __restrict__ y, const T* __restrict__ z,
                                       T* __restrict__ factor, std::int64_t n,
                                       std::int64_t systems) {
  for (const std::int64_t m : grid_stride(systems)) {
    const std::int64_t first = m * n, last = first + n - 1;
    const T corner = a[first] / -b[first];
    factor[m] = (y[first] + corner * y[last]) / (T(1) + z[first] + corner * z[last]);
  }
}

template <class T>
__global__ void periodic_correct_kernel(const T* __restrict__ factor, const T* __restrict__ z,
                                        T* x, std::int64_t n, std::int64_t systems,
                                        unsigned long long* failure) {
  for (const std::int64_t k : grid_stride(n * systems)) {
    const std::int64_t m = k / n;
    const T xk = x[k] - factor[m] * z[k];
    x[k] = xk;
    note_failure(isfinite(xk), m, failure);
  }
}

// ---- multi-rhs: one elimination, rhs right-hand sides ----------------------------------------
// Interleaved: row i of right-hand side r of system m at (r n + i) systems + m. Down the rows,
// each row's pivot and c' are made once and applied to every right-hand side.
template <class T>
__global__ void multi_rhs_thomas_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                        const T* __restrict__ c, const T* __restrict__ d, T* x,
                                        T* __restrict__ cp, std::int64_t n, std::int64_t systems,
                                        int rhs, unsigned long long* failure) {
  const std::int64_t stride = n * systems;  // from one right-hand side's row to the next's
  for (const std::int64_t m : grid_stride(systems)) {
    T c_prev = T(0), a_i = T(0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t g = i * systems + m;
      a_i = i > 0 ? a[g] : T(0);
      const T r = T(1) / (b[g] - a_i * c_prev);
      c_prev = i < n - 1 ? c[g] * r : T(0);
      cp[g] = c_prev;
      for (int k = 0; k < rhs; ++k) {
        const std::int64_t gk = k * stride + g;
        x[gk] = (d[gk] - (i > 0 ? a_i * x[gk - systems] : T(0))) * r;
      }
    }
    bool finite = true;
    for (int k = 0; k < rhs; ++k) finite &= isfinite(x[k * stride + (n - 1) * systems + m]);
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t g = i * systems + m;
      const T cpi = cp[g];
      for (int k = 0; k < rhs; ++k) {
        const std::int64_t gk = k * stride + g;
        const T xi = x[gk] - cpi * x[gk + systems];
        x[gk] = xi;
        finite &= isfinite(xi);
      }
    }
    note_failure(finite, m, failure);
  }
}

// ---- multi-rhs, on chip: PCR in shared memory, every right-hand side with one reduction -------
// As pcr-shared: `per_block` systems padded to np rows (or one system), two copies of the rows.
// The matrix is reduced once; each step's two multipliers are applied to all rhs right-hand
// sides, which lie rhs x rows after the matrix's three arrays. Contiguous: right-hand side r of
// system m at (m rhs + r) n.
std::size_t multi_rhs_pcr_bytes(int rows, int rhs, std::size_t element_bytes) {
  return 2 * static_cast<std::size_t>(3 + rhs) * static_cast<std::size_t>(rows) * element_bytes;
}

// Hopper's opt-in dynamic shared memory per block (227 KiB).
constexpr std::size_t kMaxSharedBytes = 227 * 1024;

template <class T>
__global__ void __launch_bounds__(1024)
    multi_rhs_pcr_shared_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                const T* __restrict__ c, const T* __restrict__ d, T* x,
                                std::int64_t n, std::int64_t systems, int rhs, int np,
                                int per_block, unsigned long long* failure) {
  extern __shared__ unsigned char shared_bytes[];
  const int rows = np * per_block;
  const std::size_t copy = static_cast<std::size_t>(3 + rhs) * rows;
  T* const base = reinterpret_cast<T*>(shared_bytes);
  // Coefficient q (a, b, c, then the right-hand sides) of row i in copy `which`.
  const auto at = [&](int which, int q, int i) -> T& { return base[which * copy + q * rows + i]; };
  const std::int64_t first_system = static_cast<std::int64_t>(blockIdx.x) * per_block;

  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    const bool inside = k < n && system < systems;
    const std::int64_t g = system * n + k;
    at(0, 0, i) = inside && k > 0 ? a[g] : T(0);
    at(0, 1, i) = inside ? b[g] : T(1);
    at(0, 2, i) = inside && k < n - 1 ? c[g] : T(0);
    for (int r = 0; r < rhs; ++r) at(0, 3 + r, i) = inside ? d[(system * rhs + r) * n + k] : T(0);
  }
  __syncthreads();

  int from = 0;
  for (int s = 1; s < np; s *= 2, from ^= 1) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      const int k = i % np;
      const bool has_lower = k >= s, has_upper = k + s < np;
      const Row<T> lower = has_lower ? Row<T>{at(from, 0, i - s), at(from, 1, i - s), at(from, 2, i - s), T(0)}
                                     : identity_row<T>();
      const Row<T> upper = has_upper ? Row<T>{at(from, 0, i + s), at(from, 1, i + s), at(from, 2, i + s), T(0)}
                                     : identity_row<T>();
      const Row<T> row{at(from, 0, i), at(from, 1, i), at(from, 2, i), T(0)};
      const T k1 = row.a / lower.b, k2 = row.c / upper.b;
      const Row<T> next = pcr_combine(lower, row, upper);
      at(from ^ 1, 0, i) = next.a;
      at(from ^ 1, 1, i) = next.b;
      at(from ^ 1, 2, i) = next.c;
      for (int r = 0; r < rhs; ++r)
        at(from ^ 1, 3 + r, i) = at(from, 3 + r, i) - (has_lower ? at(from, 3 + r, i - s) * k1 : T(0)) -
                                 (has_upper ? at(from, 3 + r, i + s) * k2 : T(0));
    }
    __syncthreads();
  }

  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    const std::int64_t system = first_system + i / np, k = i % np;
    if (k >= n || system >= systems) continue;
    bool finite = true;
    for (int r = 0; r < rhs; ++r) {
      const T xi = at(from, 3 + r, i) / at(from, 1, i);
      x[(system * rhs + r) * n + k] = xi;
      finite &= isfinite(xi);
    }
    note_failure(finite, system, failure);
  }
}

// ---- pentadiagonal: cuPentBatch's elimination, one thread per system --------------------------
// Row i becomes x[i] + alpha[i] x[i+1] + beta[i] x[i+2] = z[i] (z into x); the two rows before it
// stay in registers on the way down, the two after it on the way back up.
template <class T>
__global__ void penta_thomas_kernel(const T* __restrict__ e, const T* __restrict__ a,
                                    const T* __restrict__ b, const T* __restrict__ c,
                                    const T* __restrict__ f, const T* __restrict__ d, T* x,
                                    T* __restrict__ alpha, T* __restrict__ beta, std::int64_t n,
                                    std::int64_t systems, unsigned long long* failure) {
  for (const std::int64_t m : grid_stride(systems)) {
    T alpha2 = T(0), beta2 = T(0), z2 = T(0);  // row i - 2's
    T alpha1 = T(0), beta1 = T(0), z1 = T(0);  // row i - 1's
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t g = i * systems + m;
      const T ei = i >= 2 ? e[g] : T(0), ai = i >= 1 ? a[g] : T(0);
      const T ci = i + 1 < n ? c[g] : T(0), fi = i + 2 < n ? f[g] : T(0);
      const T gamma = ai - ei * alpha2;
      const T r = T(1) / (b[g] - ei * beta2 - gamma * alpha1);
      const T alpha0 = (ci - gamma * beta1) * r, beta0 = fi * r;
      const T z0 = (d[g] - ei * z2 - gamma * z1) * r;
      alpha[g] = alpha0;
      beta[g] = beta0;
      x[g] = z0;
      alpha2 = alpha1, beta2 = beta1, z2 = z1;
      alpha1 = alpha0, beta1 = beta0, z1 = z0;
    }
    T x1 = z1, x2 = T(0);  // x[i + 1] and x[i + 2]
    bool finite = isfinite(x1);
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t g = i * systems + m;
      const T xi = x[g] - alpha[g] * x1 - beta[g] * x2;
      x[g] = xi;
      finite &= isfinite(xi);
      x2 = x1;
      x1 = xi;
    }
    note_failure(finite, m, failure);
  }
}

// ---- block2: block Thomas, one thread per system ----------------------------------------------
// Interleaved: value q of block row i's 2x2 block at (4 i + q) systems + m, component r of its
// pair at (2 i + r) systems + m. C' into the workspace, d' into x.
template <class T>
__global__ void block2_thomas_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                     const T* __restrict__ c, const T* __restrict__ d, T* x,
                                     T* __restrict__ cp, std::int64_t n, std::int64_t systems,
                                     unsigned long long* failure) {
  for (const std::int64_t m : grid_stride(systems)) {
    T c0 = T(0), c1 = T(0), c2 = T(0), c3 = T(0);  // C'[i - 1]
    T y0 = T(0), y1 = T(0);                        // d'[i - 1]
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t g = 4 * i * systems + m, h = 2 * i * systems + m;
      T p0 = b[g], p1 = b[g + systems], p2 = b[g + 2 * systems], p3 = b[g + 3 * systems];
      T r0 = d[h], r1 = d[h + systems];
      if (i > 0) {
        const T a0 = a[g], a1 = a[g + systems], a2 = a[g + 2 * systems], a3 = a[g + 3 * systems];
        p0 -= a0 * c0 + a1 * c2;
        p1 -= a0 * c1 + a1 * c3;
        p2 -= a2 * c0 + a3 * c2;
        p3 -= a2 * c1 + a3 * c3;
        r0 -= a0 * y0 + a1 * y1;
        r1 -= a2 * y0 + a3 * y1;
      }
      const T inv = T(1) / (p0 * p3 - p1 * p2);
      const T q0 = p3 * inv, q1 = -p1 * inv, q2 = -p2 * inv, q3 = p0 * inv;  // P^-1
      if (i < n - 1) {
        const T k0 = c[g], k1 = c[g + systems], k2 = c[g + 2 * systems], k3 = c[g + 3 * systems];
        c0 = q0 * k0 + q1 * k2;
        c1 = q0 * k1 + q1 * k3;
        c2 = q2 * k0 + q3 * k2;
        c3 = q2 * k1 + q3 * k3;
      } else {
        c0 = c1 = c2 = c3 = T(0);
      }
      cp[g] = c0;
      cp[g + systems] = c1;
      cp[g + 2 * systems] = c2;
      cp[g + 3 * systems] = c3;
      y0 = q0 * r0 + q1 * r1;
      y1 = q2 * r0 + q3 * r1;
      x[h] = y0;
      x[h + systems] = y1;
    }
    bool finite = isfinite(y0) && isfinite(y1);
    for (std::int64_t i = n - 2; i >= 0; --i) {
      const std::int64_t g = 4 * i * systems + m, h = 2 * i * systems + m;
      const T x0 = x[h] - (cp[g] * y0 + cp[g + systems] * y1);
      const T x1 = x[h + systems] - (cp[g + 2 * systems] * y0 + cp[g + 3 * systems] * y1);
      x[h] = x0;
      x[h + systems] = x1;
      finite &= isfinite(x0) && isfinite(x1);
      y0 = x0;
      y1 = x1;
    }
    note_failure(finite, m, failure);
  }
}

}  // namespace

template <class T>
struct KindSolver<T>::Workspace {
  DeviceBuffer<unsigned long long> failure{1};  // lowest failing system; all ones when none
  DeviceBuffer<T> first, second;  // per kind: cp and z; cp; alpha and beta; C'
  // periodic by Sherman-Morrison: the general solve, b', u, z and each system's factor.
  std::unique_ptr<Solver<T>> general;
  DeviceBuffer<T> b_modified, u, z, factor;
};

namespace {

// The launch of an on-chip kernel (a system to a group of threads within one block, the chunks
// it compiles, at most `most(chunk)` threads a block) nearest `l` (resolved by the general
// rules on `rows`): `l` when the kernel runs it; else the shortest chunk that holds a system
// within l's threads; else the longest chunk with the fewest threads that hold one. A sweep's
// launch list is the general kind's, so each of its launches runs as the nearest one the kernel
// takes (KindSolver::launch says which). InputError only when no block holds a system.
template <class Most>
Launch on_chip_launch(const Launch& l, std::int64_t rows, const std::vector<int>& chunks,
                      Most most, const std::string& what) {
  const auto runs = [&](const Launch& c) {
    const int block = whole_system_block(c, rows);
    return block > 0 && block <= most(c.chunk);
  };
  if (std::find(chunks.begin(), chunks.end(), l.chunk) != chunks.end() && runs(l)) return l;
  for (int c : chunks)
    if (runs({l.variant, l.threads, c})) return {l.variant, l.threads, c};
  for (auto c = chunks.rbegin(); c != chunks.rend(); ++c) {
    const Launch fewest{l.variant, std::max(32, system_group(rows, *c)), *c};
    if (fewest.threads <= 1024 && runs(fewest)) return fewest;
  }
  throw InputError("", "method.variant",
                   what + " solves a system within one block: " + std::to_string(rows) +
                       " rows are more than one block's threads hold (at most " +
                       std::to_string(most(chunks.back())) + " threads of chunk " +
                       std::to_string(chunks.back()) + "); use thomas");
}

}  // namespace

Launch resolve_kind_launch(const Launch& launch, const KindDims& dims, int element_bytes) {
  check_kind_dims(dims, "", "");
  const std::vector<Variant> solvers = variants_for(dims.kind);
  if (std::find(solvers.begin(), solvers.end(), launch.variant) == solvers.end())
    throw InputError("", "method.variant",
                     std::string(name(dims.kind)) + " systems are not solved by " +
                         std::string(name(launch.variant)));
  const Layout layout = kind_layout(dims.kind, launch.variant);
  const bool blocks = (dims.kind == Kind::pentadiagonal || dims.kind == Kind::block2) &&
                      launch.variant == Variant::thomas_pcr;
  // The block kernels' rows are 2x2 block rows: a pentadiagonal system's two rows make one.
  const std::int64_t kernel_rows =
      blocks && dims.kind == Kind::pentadiagonal ? (dims.n + 1) / 2 : dims.n;
  const Launch l = resolve_launch(launch, {kernel_rows, dims.systems, layout}, element_bytes);
  if (dims.kind == Kind::multi_rhs && l.variant == Variant::pcr_shared) {
    const int np = next_pow2(dims.n);
    const int rows = std::max(np, l.threads / np * np);
    const std::size_t bytes =
        multi_rhs_pcr_bytes(rows, dims.rhs, static_cast<std::size_t>(element_bytes));
    if (bytes > kMaxSharedBytes)
      throw InputError("", "method.variant",
                       "pcr-shared holds a system's matrix and its " + std::to_string(dims.rhs) +
                           " right-hand sides in shared memory, twice: " +
                           std::to_string(bytes / 1024) + " KiB for n " + std::to_string(dims.n) +
                           ", past the " + std::to_string(kMaxSharedBytes / 1024) +
                           " KiB a block may have; use thomas");
  }
  if (blocks)
    return on_chip_launch(l, kernel_rows, {BlockChunks::values.begin(), BlockChunks::values.end()},
                          [&](int c) { return block_chunk_threads(c, element_bytes); },
                          std::string(name(dims.kind)) + " thomas-pcr");
  if (dims.kind == Kind::multi_rhs && l.variant == Variant::thomas_pcr)
    return on_chip_launch(l, dims.n, {kThomasPcrChunks.begin(), kThomasPcrChunks.end()},
                          [&](int c) { return multi_rhs_chunk_threads(c, element_bytes); },
                          "multi-rhs thomas-pcr");
  return l;
}

template <class T>
KindSolver<T>::KindSolver(const Launch& launch, const KindDims& dims)
    : launch_(resolve_kind_launch(launch, dims, sizeof(T))), dims_(dims) {
  // Nothing reaches the device before the launch is known to work.
  work_ = std::make_unique<Workspace>();
  Workspace& w = *work_;
  PARASOL_CUDA(cudaMemset(w.failure.data(), 0xFF, w.failure.bytes()));
  const auto rows = static_cast<std::size_t>(dims.n * dims.systems);
  // All on chip: no workspace.
  if (fused_on_chip() || (dims.kind != Kind::periodic && launch_.variant != Variant::thomas))
    return;
  if (launch_.variant != Variant::thomas) {  // periodic by Sherman-Morrison
    w.general = std::make_unique<Solver<T>>(launch_, Dims{dims.n, dims.systems, layout()});
    w.b_modified = DeviceBuffer<T>(rows);
    w.u = DeviceBuffer<T>(rows);
    w.z = DeviceBuffer<T>(rows);
    w.factor = DeviceBuffer<T>(static_cast<std::size_t>(dims.systems));
    PARASOL_CUDA(cudaMemset(w.u.data(), 0, w.u.bytes()));
    return;
  }
  switch (dims.kind) {
    case Kind::general:
    case Kind::periodic:
    case Kind::pentadiagonal:
      w.first = DeviceBuffer<T>(rows);
      w.second = DeviceBuffer<T>(rows);
      break;
    case Kind::multi_rhs: w.first = DeviceBuffer<T>(rows); break;
    case Kind::block2: w.first = DeviceBuffer<T>(4 * rows); break;
  }
}

template <class T>
KindSolver<T>::~KindSolver() = default;
template <class T>
KindSolver<T>::KindSolver(KindSolver&&) noexcept = default;
template <class T>
KindSolver<T>& KindSolver<T>::operator=(KindSolver&&) noexcept = default;

template <class T>
void KindSolver<T>::solve(const T* const* bands, const T* d, T* x, cudaStream_t stream) {
  const KindDims& dm = dims_;
  if (dm.n * dm.systems == 0) return;
  Workspace& w = *work_;
  unsigned long long* failure = w.failure.data();
  const int threads = launch_.threads;
  const int blocks = grid_stride_blocks(dm.systems, threads);
  if (fused_on_chip() && launch_.variant != Variant::pcr_shared) {
    const int group = system_group(dm.n, launch_.chunk);
    const int block = whole_system_block(launch_, dm.n);
    const std::int64_t system_blocks = ceil_div(dm.systems, block / group);
    const std::size_t bytes = periodic_chunked_bytes<T>(group, block);
    const auto launch = [&](auto kc) {
      constexpr int K = decltype(kc)::value;
      PARASOL_NOTE_LAUNCH(static_cast<unsigned>(system_blocks), block, bytes,
                          periodic_chunked_kernel<T, K>);
      periodic_chunked_kernel<T, K><<<static_cast<unsigned>(system_blocks), block, bytes, stream>>>(
          bands[0], bands[1], bands[2], d, x, dm.n, dm.systems, group, failure);
      PARASOL_CHECK_LAUNCH(stream);
    };
    const std::string kernel = "tridiag/periodic " + std::string(name(launch_.variant));
    if (launch_.variant == Variant::pcr_warp)
      dispatch_value(kernel, "chunk", WarpChunks{}, launch_.chunk, launch);
    else
      dispatch_value(kernel, "chunk", ThomasPcrChunks{}, launch_.chunk, launch);
    return;
  }
  if (fused_on_chip()) {
    allow_periodic_pcr_bytes<T>();
    const int np = next_pow2(dm.n);
    const int per_block = std::max(1, threads / np);
    const std::int64_t system_blocks = ceil_div(dm.systems, per_block);
    const std::size_t bytes = periodic_pcr_bytes<T>(np * per_block);
    PARASOL_NOTE_LAUNCH(static_cast<unsigned>(system_blocks), threads, bytes,
                        periodic_pcr_shared_kernel<T>);
    periodic_pcr_shared_kernel<T><<<static_cast<unsigned>(system_blocks), threads, bytes, stream>>>(
        bands[0], bands[1], bands[2], d, x, dm.n, dm.systems, np, per_block, failure);
    PARASOL_CHECK_LAUNCH(stream);
    return;
  }
  if ((dm.kind == Kind::pentadiagonal || dm.kind == Kind::block2) &&
      launch_.variant == Variant::thomas_pcr) {
    const auto run = [&](auto rows) {
      const int group = system_group(rows.block_rows(), launch_.chunk);
      const int block = whole_system_block(launch_, rows.block_rows());
      const std::int64_t system_blocks = ceil_div(dm.systems, block / group);
      const std::size_t bytes = block_chunked_bytes<T>(group, block);
      dispatch_value("tridiag/" + std::string(name(dm.kind)) + " thomas-pcr", "chunk",
                     BlockChunks{}, launch_.chunk, [&](auto kc) {
                       constexpr int K = decltype(kc)::value;
                       using Rows = decltype(rows);
                       PARASOL_NOTE_LAUNCH(static_cast<unsigned>(system_blocks), block, bytes,
                                           block_chunked_kernel<T, K, Rows>);
                       block_chunked_kernel<T, K, Rows>
                           <<<static_cast<unsigned>(system_blocks), block, bytes, stream>>>(
                               rows, dm.systems, group, failure);
                       PARASOL_CHECK_LAUNCH(stream);
                     });
    };
    if (dm.kind == Kind::block2)
      run(Block2Rows<T>{bands[0], bands[1], bands[2], d, x, dm.n});
    else
      run(PentaRows<T>{bands[0], bands[1], bands[2], bands[3], bands[4], d, x, dm.n});
    return;
  }
  if (dm.kind == Kind::multi_rhs && launch_.variant == Variant::thomas_pcr) {
    const int group = system_group(dm.n, launch_.chunk);
    const int block = whole_system_block(launch_, dm.n);
    const std::int64_t system_blocks = ceil_div(dm.systems, block / group);
    const std::size_t bytes = multi_rhs_chunked_bytes<T>(group, block);
    dispatch_value("tridiag/multi-rhs thomas-pcr", "chunk", ThomasPcrChunks{}, launch_.chunk,
                   [&](auto kc) {
                     constexpr int K = decltype(kc)::value;
                     PARASOL_NOTE_LAUNCH(static_cast<unsigned>(system_blocks), block, bytes,
                                         multi_rhs_chunked_kernel<T, K>);
                     multi_rhs_chunked_kernel<T, K>
                         <<<static_cast<unsigned>(system_blocks), block, bytes, stream>>>(
                             bands[0], bands[1], bands[2], d, x, dm.n, dm.systems, dm.rhs, group,
                             failure);
                     PARASOL_CHECK_LAUNCH(stream);
                   });
    return;
  }
  if (dm.kind == Kind::multi_rhs && launch_.variant == Variant::pcr_shared) {
    const int np = next_pow2(dm.n);
    const int per_block = std::max(1, threads / np);
    const std::int64_t system_blocks = ceil_div(dm.systems, per_block);
    const std::size_t bytes = multi_rhs_pcr_bytes(np * per_block, dm.rhs, sizeof(T));
    PARASOL_CUDA(cudaFuncSetAttribute(multi_rhs_pcr_shared_kernel<T>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(bytes)));
    PARASOL_NOTE_LAUNCH(static_cast<unsigned>(system_blocks), threads, bytes,
                        multi_rhs_pcr_shared_kernel<T>);
    multi_rhs_pcr_shared_kernel<T><<<static_cast<unsigned>(system_blocks), threads, bytes, stream>>>(
        bands[0], bands[1], bands[2], d, x, dm.n, dm.systems, dm.rhs, np, per_block, failure);
    PARASOL_CHECK_LAUNCH(stream);
    return;
  }
  if (w.general) {
    const T *a = bands[0], *b = bands[1], *c = bands[2];
    const std::int64_t rows = dm.n * dm.systems;
    copy_on_device(w.b_modified, b, w.b_modified.size(), stream);
    PARASOL_NOTE_LAUNCH(blocks, threads, 0, periodic_modify_kernel<T>);
    periodic_modify_kernel<T><<<blocks, threads, 0, stream>>>(a, b, c, w.b_modified.data(),
                                                              w.u.data(), dm.n, dm.systems);
    PARASOL_CHECK_LAUNCH(stream);
    w.general->solve(a, w.b_modified.data(), c, d, x, stream);
    w.general->solve(a, w.b_modified.data(), c, w.u.data(), w.z.data(), stream);
    PARASOL_NOTE_LAUNCH(blocks, threads, 0, periodic_factor_kernel<T>);
    periodic_factor_kernel<T><<<blocks, threads, 0, stream>>>(a, b, x, w.z.data(),
                                                              w.factor.data(), dm.n, dm.systems);
    PARASOL_CHECK_LAUNCH(stream);
    const int element_blocks = grid_stride_blocks(rows, threads);
    PARASOL_NOTE_LAUNCH(element_blocks, threads, 0, periodic_correct_kernel<T>);
    periodic_correct_kernel<T><<<element_blocks, threads, 0, stream>>>(
        w.factor.data(), w.z.data(), x, dm.n, dm.systems, failure);
    PARASOL_CHECK_LAUNCH(stream);
    return;
  }
  switch (dm.kind) {
    case Kind::general:  // refused by the constructor
    case Kind::periodic:
      PARASOL_NOTE_LAUNCH(blocks, threads, 0, periodic_thomas_kernel<T>);
      periodic_thomas_kernel<T><<<blocks, threads, 0, stream>>>(
          bands[0], bands[1], bands[2], d, x, w.first.data(), w.second.data(), dm.n, dm.systems,
          failure);
      break;
    case Kind::multi_rhs:
      PARASOL_NOTE_LAUNCH(blocks, threads, 0, multi_rhs_thomas_kernel<T>);
      multi_rhs_thomas_kernel<T><<<blocks, threads, 0, stream>>>(
          bands[0], bands[1], bands[2], d, x, w.first.data(), dm.n, dm.systems, dm.rhs, failure);
      break;
    case Kind::pentadiagonal:
      PARASOL_NOTE_LAUNCH(blocks, threads, 0, penta_thomas_kernel<T>);
      penta_thomas_kernel<T><<<blocks, threads, 0, stream>>>(
          bands[0], bands[1], bands[2], bands[3], bands[4], d, x, w.first.data(),
          w.second.data(), dm.n, dm.systems, failure);
      break;
    case Kind::block2:
      PARASOL_NOTE_LAUNCH(blocks, threads, 0, block2_thomas_kernel<T>);
      block2_thomas_kernel<T><<<blocks, threads, 0, stream>>>(
          bands[0], bands[1], bands[2], d, x, w.first.data(), dm.n, dm.systems, failure);
      break;
  }
  PARASOL_CHECK_LAUNCH(stream);
}

template <class T>
void KindSolver<T>::check(cudaStream_t stream) {
  Workspace& w = *work_;
  unsigned long long first = kNoFailure;
  download(w.failure, &first, 1, stream);
  if (first != kNoFailure) {
    PARASOL_CUDA(cudaMemsetAsync(w.failure.data(), 0xFF, w.failure.bytes(), stream));
    PARASOL_CUDA(cudaStreamSynchronize(stream));
  }
  // Both records cleared before either is reported: the general solve's names its own failure.
  if (w.general) w.general->check(stream);
  if (first == kNoFailure) return;
  const auto system = static_cast<std::int64_t>(first);
  throw NumericalError(system, "tridiag " + std::string(name(dims_.kind)) + " " +
                                   std::string(name(launch_.variant)) + ": system " +
                                   std::to_string(system) +
                                   " met a zero pivot or a non-finite value (these solvers do "
                                   "not pivot: the system must be diagonally dominant or "
                                   "otherwise safe to eliminate in order)");
}

template <class T>
Result<T> solve_kind_gpu(const Launch& launch, const KindBatch<T>& batch) {
  const KindDims& dims = batch.dims;
  KindSolver<T> solver(launch, dims);
  const Layout layout = solver.layout();
  Stream stream;
  Result<T> result;
  EventTimer h2d(stream.get()), compute(stream.get()), d2h(stream.get());
  const Dims band_dims{dims.band_width(), dims.systems, Layout::contiguous};
  const Dims rhs_dims{dims.rhs_width(), dims.systems, Layout::contiguous};
  h2d.start();
  std::vector<DeviceBuffer<T>> bands;
  std::vector<const T*> pointers;
  for (const std::vector<T>& band : batch.bands) {
    bands.push_back(upload_relaid(band, band_dims, layout, stream.get()));
    pointers.push_back(bands.back().data());
  }
  const DeviceBuffer<T> d = upload_relaid(batch.d, rhs_dims, layout, stream.get());
  DeviceBuffer<T> x(batch.d.size());
  h2d.stop();
  compute.start();
  solver.solve(pointers.data(), d.data(), x.data(), stream.get());
  compute.stop();
  std::vector<T> laid_out(batch.d.size());
  d2h.start();
  enqueue_download(laid_out.data(), x.data(), x.size(), stream.get());
  d2h.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(phase::device_to_host, d2h.seconds());
  solver.check(stream.get());
  // In the interleaved layout the "rows" of relayout are each system's values.
  result.x = relayout(laid_out, {rhs_dims.n, rhs_dims.systems, layout}, Layout::contiguous);
  return result;
}

template class KindSolver<float>;
template class KindSolver<double>;
template Result<float> solve_kind_gpu(const Launch&, const KindBatch<float>&);
template Result<double> solve_kind_gpu(const Launch&, const KindBatch<double>&);

}  // namespace parasol::tridiag
