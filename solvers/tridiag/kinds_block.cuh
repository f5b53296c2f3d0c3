// Block-tridiagonal systems with 2x2 blocks on chip by thomas-pcr's partition method (chunk.cuh,
// chunked_kernel in tridiag.cu) with every coefficient a 2x2 block and every unknown a pair: a
// thread eliminates its chunk of K block rows by block Thomas, the chunks' interface rows are
// reduced by block PCR over the system's group of threads, and each chunk substitutes back. The
// rows are read once and x written once; nothing of the elimination leaves the chip.
//
// A pentadiagonal system is solved the same way as a 2x2-block one: rows 2I and 2I+1 make block
// row I, with unknowns X_I = (x[2I], x[2I+1]), so
//   A_I = [e a; 0 e'],  B_I = [b c; a' b'],  C_I = [f 0; c' f']
// (unprimed row 2I's, primed row 2I+1's), and an odd n gets one row x = 0 more.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/kinds_chunk.cuh"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

// A 2x2 block, row-major [p q; r s], and a pair.
template <class T>
struct Mat2 {
  T p, q, r, s;
};
template <class T>
struct Vec2 {
  T x, y;
};

template <class T>
__device__ inline Mat2<T> operator*(const Mat2<T>& m, const Mat2<T>& n) {
  return {m.p * n.p + m.q * n.r, m.p * n.q + m.q * n.s, m.r * n.p + m.s * n.r,
          m.r * n.q + m.s * n.s};
}
template <class T>
__device__ inline Vec2<T> operator*(const Mat2<T>& m, const Vec2<T>& v) {
  return {m.p * v.x + m.q * v.y, m.r * v.x + m.s * v.y};
}
template <class T>
__device__ inline Mat2<T> operator-(const Mat2<T>& m, const Mat2<T>& n) {
  return {m.p - n.p, m.q - n.q, m.r - n.r, m.s - n.s};
}
template <class T>
__device__ inline Vec2<T> operator-(const Vec2<T>& u, const Vec2<T>& v) {
  return {u.x - v.x, u.y - v.y};
}
template <class T>
__device__ inline Mat2<T> operator-(const Mat2<T>& m) {
  return {-m.p, -m.q, -m.r, -m.s};
}
template <class T>
__device__ inline Mat2<T> inverse(const Mat2<T>& m) {
  const T inv = T(1) / (m.p * m.s - m.q * m.r);
  return {m.s * inv, -m.q * inv, -m.r * inv, m.p * inv};
}
template <class T>
__device__ inline Mat2<T> identity2() {
  return {T(1), T(0), T(0), T(1)};
}
template <class T>
__device__ inline Mat2<T> zero2() {
  return {T(0), T(0), T(0), T(0)};
}

// A X[i-s] + B X[i] + C X[i+s] = D.
template <class T>
struct BlockRow {
  Mat2<T> a, b, c;
  Vec2<T> d;
};

// X[i] = D - A X_before - C X_last (Substitution in blocks).
template <class T>
struct BlockSubstitution {
  Mat2<T> a, c;
  Vec2<T> d;
};

template <class T, int K>
struct BlockChunk {
  Mat2<T> a[K], c[K];
  Vec2<T> d[K];

  // Chunk::eliminate in blocks, each division a multiplication by the pivot block's inverse
  // from the left.
  __device__ void eliminate(const Mat2<T> (&b)[K]) {
    Mat2<T> r = inverse(b[0]);
    a[0] = r * a[0];
    c[0] = r * c[0];
    d[0] = r * d[0];
#pragma unroll
    for (int i = 1; i < K; ++i) {
      r = inverse(b[i] - a[i] * c[i - 1]);
      d[i] = r * (d[i] - a[i] * d[i - 1]);
      a[i] = -(r * (a[i] * a[i - 1]));
      c[i] = r * c[i];
    }
#pragma unroll
    for (int i = K - 3; i >= 0; --i) {
      d[i] = d[i] - c[i] * d[i + 1];
      a[i] = a[i] - c[i] * a[i + 1];
      c[i] = -(c[i] * c[i + 1]);
    }
  }

  __device__ BlockSubstitution<T> first() const {
    if constexpr (K == 1) return {zero2<T>(), -identity2<T>(), {T(0), T(0)}};  // X_first is X_last
    else return {a[0], c[0], d[0]};
  }

  __device__ BlockRow<T> interface_row(const BlockSubstitution<T>& next) const {
    const Mat2<T> cl = c[K - 1];
    return {a[K - 1], identity2<T>() - cl * next.a, -(cl * next.c), d[K - 1] - cl * next.d};
  }

  __device__ void solution(const Vec2<T>& before, const Vec2<T>& last, Vec2<T> (&x)[K]) const {
#pragma unroll
    for (int i = 0; i < K; ++i)
      x[i] = i == K - 1 ? last : d[i] - a[i] * before - c[i] * last;
  }
};

// Values of a block, a row, a Substitution, as arrays for the group exchanges (kinds_chunk.cuh).
template <class T>
__device__ inline void pack(const Mat2<T>& m, T* v) {
  v[0] = m.p;
  v[1] = m.q;
  v[2] = m.r;
  v[3] = m.s;
}
template <class T>
__device__ inline Mat2<T> unpack(const T* v) {
  return {v[0], v[1], v[2], v[3]};
}

template <class T>
__device__ inline BlockRow<T> block_pcr_combine(const BlockRow<T>& lower, const BlockRow<T>& row,
                                                const BlockRow<T>& upper) {
  const Mat2<T> k1 = row.a * inverse(lower.b), k2 = row.c * inverse(upper.b);
  return {-(k1 * lower.a), row.b - k1 * lower.c - k2 * upper.a, -(k2 * upper.c),
          row.d - k1 * lower.d - k2 * upper.d};
}

// PCR in blocks over each group (group_pcr's exchanges); 14 values of blockDim.x of scratch past
// a warp. Returns this thread's row reduced to B X = D.
template <class T>
__device__ inline BlockRow<T> block_group_pcr(BlockRow<T> row, int group, T* scratch) {
  const int k = threadIdx.x % group;
  constexpr int V = 14;
  const BlockRow<T> identity{zero2<T>(), identity2<T>(), zero2<T>(), {T(0), T(0)}};
  for (int s = 1; s < group; s *= 2) {
    T v[V];
    pack(row.a, v);
    pack(row.b, v + 4);
    pack(row.c, v + 8);
    v[12] = row.d.x;
    v[13] = row.d.y;
    T below[V], above[V];
    if (group <= 32) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        below[j] = __shfl_up_sync(0xffffffffu, v[j], s, group);
        above[j] = __shfl_down_sync(0xffffffffu, v[j], s, group);
      }
    } else {
      const int t = threadIdx.x, n = blockDim.x;
#pragma unroll
      for (int j = 0; j < V; ++j) scratch[j * n + t] = v[j];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < V; ++j) {
        below[j] = k >= s ? scratch[j * n + t - s] : T(0);
        above[j] = k + s < group ? scratch[j * n + t + s] : T(0);
      }
      __syncthreads();
    }
    const BlockRow<T> lower =
        k >= s ? BlockRow<T>{unpack(below), unpack(below + 4), unpack(below + 8),
                             {below[12], below[13]}}
               : identity;
    const BlockRow<T> upper =
        k + s < group ? BlockRow<T>{unpack(above), unpack(above + 4), unpack(above + 8),
                                    {above[12], above[13]}}
                      : identity;
    row = block_pcr_combine(lower, row, upper);
  }
  return row;
}

// Block2's rows as kinds.hpp lays them out (contiguous): block row i of system m's blocks at
// 4 (m n + i), its pair at 2 (m n + i). A of row 0 and C of row n - 1 are ignored.
template <class T>
struct Block2Rows {
  const T *a, *b, *c, *d;
  T* x;
  std::int64_t n;  // block rows

  __host__ __device__ std::int64_t block_rows() const { return n; }

  // Block rows [from, from + K) of system m (rows past n: X = 0).
  template <int K>
  __device__ void load(std::int64_t m, std::int64_t from, BlockChunk<T, K>& chunk,
                       Mat2<T> (&bs)[K]) const {
    T fa[4 * K], fb[4 * K], fc[4 * K], fd[2 * K];
    const std::int64_t o = m * n;
    load_blocked<4 * K>(a + 4 * o, 4 * from, 4 * n, fa, T(0));
    load_blocked<4 * K>(b + 4 * o, 4 * from, 4 * n, fb, T(0));
    load_blocked<4 * K>(c + 4 * o, 4 * from, 4 * n, fc, T(0));
    load_blocked<2 * K>(d + 2 * o, 2 * from, 2 * n, fd, T(0));
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::int64_t i = from + j;
      chunk.a[j] = i == 0 ? zero2<T>() : unpack(fa + 4 * j);
      chunk.c[j] = i == n - 1 ? zero2<T>() : unpack(fc + 4 * j);
      bs[j] = i < n ? unpack(fb + 4 * j) : identity2<T>();
      chunk.d[j] = {fd[2 * j], fd[2 * j + 1]};
    }
  }

  // Returns whether every stored value is finite.
  template <int K>
  __device__ bool store(std::int64_t m, std::int64_t from, const Vec2<T> (&xs)[K]) const {
    T fx[2 * K];
    bool finite = true;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      fx[2 * j] = xs[j].x;
      fx[2 * j + 1] = xs[j].y;
      finite &= from + j >= n || (isfinite(xs[j].x) && isfinite(xs[j].y));
    }
    store_blocked<2 * K>(x + 2 * m * n, 2 * from, 2 * n, fx);
    return finite;
  }
};

// A pentadiagonal system's rows (contiguous, n rows a system) as 2x2 blocks: block row I of rows
// 2I and 2I + 1. The entries outside the matrix are ignored, as the gold ignores them.
template <class T>
struct PentaRows {
  const T *e, *a, *b, *c, *f, *d;
  T* x;
  std::int64_t n;  // scalar rows

  __host__ __device__ std::int64_t block_rows() const { return (n + 1) / 2; }

  template <int K>
  __device__ void load(std::int64_t m, std::int64_t from, BlockChunk<T, K>& chunk,
                       Mat2<T> (&bs)[K]) const {
    constexpr int L = 2 * K;
    T fe[L], fa[L], fb[L], fc[L], ff[L], fd[L];
    const std::int64_t o = m * n, first = 2 * from;
    load_blocked<L>(e + o, first, n, fe, T(0));
    load_blocked<L>(a + o, first, n, fa, T(0));
    load_blocked<L>(b + o, first, n, fb, T(1));
    load_blocked<L>(c + o, first, n, fc, T(0));
    load_blocked<L>(f + o, first, n, ff, T(0));
    load_blocked<L>(d + o, first, n, fd, T(0));
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const std::int64_t i = first + j;
      if (i < 2) fe[j] = T(0);
      if (i < 1) fa[j] = T(0);
      if (i + 1 >= n) fc[j] = T(0);
      if (i + 2 >= n) ff[j] = T(0);
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int u = 2 * j, v = 2 * j + 1;
      chunk.a[j] = {fe[u], fa[u], T(0), fe[v]};
      bs[j] = {fb[u], fc[u], fa[v], fb[v]};
      chunk.c[j] = {ff[u], T(0), fc[v], ff[v]};
      chunk.d[j] = {fd[u], fd[v]};
    }
  }

  template <int K>
  __device__ bool store(std::int64_t m, std::int64_t from, const Vec2<T> (&xs)[K]) const {
    T fx[2 * K];
    bool finite = true;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      fx[2 * j] = xs[j].x;
      fx[2 * j + 1] = xs[j].y;
      finite &= 2 * (from + j) >= n || isfinite(xs[j].x);
      finite &= 2 * (from + j) + 1 >= n || isfinite(xs[j].y);
    }
    store_blocked<2 * K>(x + m * n, 2 * from, n, fx);
    return finite;
  }
};

// The chunks (block rows a thread) compiled in: longer ones would not stay in registers.
using BlockChunks = ValueList<2, 4, 8>;

// The most threads a block of block_chunked_kernel may have: a thread holds 10 values a block
// row, and 4 more while it eliminates.
constexpr int block_chunk_threads(int chunk, int element_bytes) {
  return max_chunk_threads(8 * chunk, element_bytes);
}

// Shared memory of block_chunked_kernel: block PCR's 14 values of blockDim.x when a group spans
// warps, else none.
template <class T>
std::size_t block_chunked_bytes(int group, int block) {
  return group > 32 ? 14 * sizeof(T) * static_cast<std::size_t>(block) : 0;
}

// Groups of `group` threads (a power of two, group * K >= rows.block_rows()) each solve one
// system; blockDim.x / group systems a block.
template <class T, int K, class Rows>
__global__ void __launch_bounds__(block_chunk_threads(K, sizeof(T)))
    block_chunked_kernel(Rows rows, std::int64_t systems, int group,
                         unsigned long long* failure) {
  extern __shared__ unsigned char shared_bytes[];
  T* const scratch = reinterpret_cast<T*>(shared_bytes);
  const int k = threadIdx.x % group;
  const std::int64_t system =
      static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / group) + threadIdx.x / group;
  // Threads of a system past the last take part in the exchanges on padding rows (X = 0).
  const bool active = system < systems;
  const std::int64_t nb = rows.block_rows();
  const std::int64_t row = static_cast<std::int64_t>(k) * K;

  BlockChunk<T, K> chunk;
  {
    Mat2<T> bs[K];
    rows.template load<K>(active ? system : 0, active ? row : nb, chunk, bs);
    chunk.eliminate(bs);
  }

  // The next chunk's first Substitution; the group's last chunk ends on the last block row or on
  // padding, where C is 0, so what it gets back is unused.
  const BlockSubstitution<T> own = chunk.first();
  T v[10];
  pack(own.a, v);
  pack(own.c, v + 4);
  v[8] = own.d.x;
  v[9] = own.d.y;
  group_from_next(v, group, scratch);
  const BlockSubstitution<T> next{unpack(v), unpack(v + 4), {v[8], v[9]}};

  const BlockRow<T> reduced = block_group_pcr(chunk.interface_row(next), group, scratch);
  const Vec2<T> last = inverse(reduced.b) * reduced.d;
  T before[2] = {last.x, last.y};
  group_from_previous(before, T(0), group, scratch);  // chunk 0 holds row 0, where A is 0

  if (!active) return;
  Vec2<T> xs[K];
  chunk.solution({before[0], before[1]}, last, xs);
  note_failure(rows.template store<K>(system, row, xs), system, failure);
}

}  // namespace parasol::tridiag
