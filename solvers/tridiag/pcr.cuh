// One step of parallel cyclic reduction, and PCR over a group of rows held one per thread, by
// warp shuffles or through shared memory.
#pragma once

namespace parasol::tridiag {

// a x[i-s] + b x[i] + c x[i+s] = d, for the stride s of the current step.
template <class T>
struct Row {
  T a, b, c, d;
};

// A row that couples to nothing: stands in for neighbours past either end.
template <class T>
__device__ inline Row<T> identity_row() {
  return {T(0), T(1), T(0), T(0)};
}

// Eliminates x[i-s] and x[i+s] from `row` with its neighbours at stride s, leaving a row in
// x[i-2s], x[i], x[i+2s]. A row at an end has a (or c) already 0, so an identity neighbour
// changes nothing.
template <class T>
__device__ inline Row<T> pcr_combine(const Row<T>& lower, const Row<T>& row, const Row<T>& upper) {
  const T k1 = row.a / lower.b;
  const T k2 = row.c / upper.b;
  return {-lower.a * k1, row.b - lower.c * k1 - upper.a * k2, -upper.c * k2,
          row.d - lower.d * k1 - upper.d * k2};
}

template <class T>
__device__ inline Row<T> shuffle_up(const Row<T>& r, int s, int width) {
  return {__shfl_up_sync(0xffffffffu, r.a, s, width), __shfl_up_sync(0xffffffffu, r.b, s, width),
          __shfl_up_sync(0xffffffffu, r.c, s, width), __shfl_up_sync(0xffffffffu, r.d, s, width)};
}

template <class T>
__device__ inline Row<T> shuffle_down(const Row<T>& r, int s, int width) {
  return {__shfl_down_sync(0xffffffffu, r.a, s, width),
          __shfl_down_sync(0xffffffffu, r.b, s, width),
          __shfl_down_sync(0xffffffffu, r.c, s, width),
          __shfl_down_sync(0xffffffffu, r.d, s, width)};
}

// PCR over `width` (a power of two up to 32) consecutive lanes, lane k holding row k; every
// lane of the warp takes part. Returns this lane's unknown.
template <class T>
__device__ inline T warp_pcr(Row<T> row, int width) {
  const int k = threadIdx.x % width;
  for (int s = 1; s < width; s *= 2) {
    Row<T> lower = shuffle_up(row, s, width);
    Row<T> upper = shuffle_down(row, s, width);
    if (k < s) lower = identity_row<T>();
    if (k + s >= width) upper = identity_row<T>();
    row = pcr_combine(lower, row, upper);
  }
  return row.d / row.b;
}

// Rows of a block's groups in shared memory, one array per coefficient.
template <class T>
struct SharedRows {
  T* a;
  T* b;
  T* c;
  T* d;
  __device__ void store(int i, const Row<T>& r) {
    a[i] = r.a;
    b[i] = r.b;
    c[i] = r.c;
    d[i] = r.d;
  }
  __device__ Row<T> load(int i) const { return {a[i], b[i], c[i], d[i]}; }
};

// PCR over groups of `width` consecutive threads (a power of two), thread k of a group holding
// row k; every thread of the block takes part, so it synchronises the block. Needs blockDim.x
// rows of shared memory.
template <class T>
__device__ inline T block_pcr(Row<T> row, int width, SharedRows<T> smem) {
  if (width <= 32) return warp_pcr(row, width);
  const int t = threadIdx.x;
  const int k = t % width;
  for (int s = 1; s < width; s *= 2) {
    smem.store(t, row);
    __syncthreads();
    const Row<T> lower = k >= s ? smem.load(t - s) : identity_row<T>();
    const Row<T> upper = k + s < width ? smem.load(t + s) : identity_row<T>();
    __syncthreads();
    row = pcr_combine(lower, row, upper);
  }
  return row.d / row.b;
}

}  // namespace parasol::tridiag
