// Block level of the scan layer (as CUB's block/): a block's exclusive scan of one value per
// thread, a thread's items scanned in place, prefixes applied to them, and one block scanning a
// whole range with a carry between windows. Policy: Value, identity(), combine(earlier, later).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/scan/warp.cuh"

namespace parasol::block {

// Each thread's exclusive prefix of `total` over the block (threads in kOrder), and the block's
// total. The block has `warps` whole warps, at most kMaxThreads / 32. Every thread must call it;
// it synchronises the block.
template <int kMaxThreads, ScanOrder kOrder = ScanOrder::forward, class Policy, class V>
__device__ inline void exclusive_scan(const Policy& p, const V& total, V& prefix,
                                            V& block_total, int warps = kMaxThreads / 32) {
  constexpr int kMaxWarps = kMaxThreads / 32;
  static_assert(kMaxThreads % 32 == 0 && kMaxWarps <= 32, "a block of whole warps, at most 32");
  __shared__ V warp_totals[kMaxWarps];
  const int lane = warp::scan_lane<kOrder>();
  const int my_warp = kOrder == ScanOrder::forward ? int(threadIdx.x / 32)
                                                   : warps - 1 - int(threadIdx.x / 32);
  const V inclusive = warp::inclusive_scan<Policy, V, kOrder>(p, total);
  V lane_prefix = warp::shuffle_earlier<kOrder>(inclusive, 1);
  if (lane == 31) warp_totals[my_warp] = inclusive;
  __syncthreads();
  if (threadIdx.x < 32) {
    // The warps' totals in the scan's order, by the first warp's lanes in forward order.
    const int l = threadIdx.x;
    V w = l < warps ? warp_totals[l] : p.identity();
    w = warp::inclusive_scan(p, w);
    if (l < warps) warp_totals[l] = w;
  }
  __syncthreads();
  if (my_warp == 0) {
    prefix = lane == 0 ? p.identity() : lane_prefix;
  } else {
    const V warp_prefix = warp_totals[my_warp - 1];
    prefix = lane == 0 ? warp_prefix : p.combine(warp_prefix, lane_prefix);
  }
  block_total = warp_totals[warps - 1];
  __syncthreads();  // warp_totals is reused by the next call
}

// A thread's items: loaded, scanned in place (inclusive), and their total.
template <int kItems, class Policy, class V>
__device__ inline V scan_items(const Policy& p, V (&items)[kItems]) {
#pragma unroll
  for (int j = 1; j < kItems; ++j) items[j] = p.combine(items[j - 1], items[j]);
  return items[kItems - 1];
}

// One block scans values 0..n-1 in kOrder, kThreads x kItems at a time with a carry between
// windows: visit(i, e) receives each value's exclusive prefix e (the combination of every value
// before i in kOrder). load(i) gives value i. Every thread of the block must call it.
template <int kThreads, int kItems, ScanOrder kOrder, class Policy, class Load, class Visit>
__device__ inline void scan_range(const Policy& p, std::int64_t n, Load&& load,
                                        Visit&& visit) {
  using V = typename Policy::Value;
  // Positions count in kOrder; value i sits at position i (forward) or n - 1 - i (backward).
  const auto index = [n](std::int64_t pos) {
    return kOrder == ScanOrder::forward ? pos : n - 1 - pos;
  };
  V carry = p.identity();
  for (std::int64_t base = 0; base < n; base += std::int64_t(kThreads) * kItems) {
    const std::int64_t first = base + std::int64_t(threadIdx.x) * kItems;
    V items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      items[j] = first + j < n ? load(index(first + j)) : p.identity();
    const V total = scan_items(p, items);  // inclusive, in place
    V prefix, block_total;
    exclusive_scan<kThreads>(p, total, prefix, block_total);
    const V start = p.combine(carry, prefix);
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (first + j < n) visit(index(first + j), j == 0 ? start : p.combine(start, items[j - 1]));
    carry = p.combine(carry, block_total);
  }
}

// Applies the prefix to inclusive items, giving inclusive or exclusive results.
template <bool kExclusive, int kItems, class Policy, class V>
__device__ inline void apply_prefix(const Policy& p, const V& prefix, bool prefix_is_identity,
                                    V (&items)[kItems]) {
  if constexpr (kExclusive) {
#pragma unroll
    for (int j = kItems - 1; j > 0; --j)
      items[j] = prefix_is_identity ? items[j - 1] : p.combine(prefix, items[j - 1]);
    items[0] = prefix;
  } else if (!prefix_is_identity) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) items[j] = p.combine(prefix, items[j]);
  }
}

}  // namespace parasol::block
