#include "kernels/kernel_log.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>

#include "kernels/error.hpp"
#include "kernels/shape.hpp"

namespace parasol {

namespace {

KernelLog* active_log = nullptr;

std::int64_t round_up(std::int64_t value, std::int64_t unit) {
  return unit > 0 ? (value + unit - 1) / unit * unit : value;
}

// "detail::reduce_partials_kernel<T>" -> "reduce_partials_kernel".
std::string base_name(const char* written) {
  std::string name(written);
  name = name.substr(0, name.find('<'));
  const std::size_t scope = name.rfind("::");
  if (scope != std::string::npos) name = name.substr(scope + 2);
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  return name;
}

}  // namespace

Occupancy theoretical_occupancy(const KernelUse& use, const SmLimits& limits) {
  Occupancy o;
  const int warp = std::max(1, limits.warp_size);
  const int max_warps = limits.max_threads_per_sm / warp;
  const int warps_per_block = static_cast<int>((use.block_threads + warp - 1) / warp);
  if (use.block_threads <= 0 || max_warps <= 0) {
    o.limiter = "warps";
    return o;
  }
  constexpr int kUnlimited = std::numeric_limits<int>::max();
  struct Bound {
    const char* resource;
    int blocks;
  };
  // Warp slots and the block count per multiprocessor.
  Bound by_warps{"warps", warps_per_block > max_warps ? 0 : max_warps / warps_per_block};
  Bound by_blocks{"blocks per SM", limits.max_blocks_per_sm};
  // Registers: allocated per warp in units, and a warp's registers come from one sub-partition's
  // file, so a sub-partition holds a whole number of warps.
  Bound by_registers{"registers", kUnlimited};
  if (use.registers > 0) {
    const std::int64_t per_warp =
        round_up(static_cast<std::int64_t>(use.registers) * warp, limits.register_unit);
    const int parts = std::max(1, limits.sub_partitions);
    const std::int64_t warps_per_part = (limits.registers_per_sm / parts) / per_warp;
    const bool fits_block = static_cast<std::int64_t>(use.registers) * use.block_threads <=
                            limits.registers_per_block;
    by_registers.blocks =
        fits_block ? static_cast<int>(warps_per_part * parts / warps_per_block) : 0;
  }
  // Shared memory: what the block asks for plus what the system reserves for each block, in
  // allocation units, out of the multiprocessor's whole.
  Bound by_shared{"shared memory", kUnlimited};
  const std::int64_t asked = use.static_shared + use.dynamic_shared;
  if (asked > 0) {
    const std::int64_t per_block =
        round_up(asked + limits.reserved_shared_per_block, limits.shared_unit);
    by_shared.blocks = asked > limits.shared_per_block ? 0
                                                       : static_cast<int>(limits.shared_per_sm / per_block);
  }
  const Bound bounds[] = {by_registers, by_shared, by_warps, by_blocks};
  int blocks = kUnlimited;
  for (const Bound& b : bounds) blocks = std::min(blocks, b.blocks);
  for (const Bound& b : bounds)
    if (b.blocks == blocks) o.limiter += (o.limiter.empty() ? "" : " and ") + std::string(b.resource);
  o.blocks_per_sm = blocks;
  o.warps_per_sm = blocks * warps_per_block;
  o.fraction = static_cast<double>(o.warps_per_sm) / max_warps;
  return o;
}

SmLimits current_sm_limits() {
  int device = 0;
  PARASOL_CUDA(cudaGetDevice(&device));
  const auto attribute = [device](cudaDeviceAttr a) {
    int value = 0;
    PARASOL_CUDA(cudaDeviceGetAttribute(&value, a, device));
    return value;
  };
  SmLimits l;
  l.multiprocessors = attribute(cudaDevAttrMultiProcessorCount);
  l.warp_size = attribute(cudaDevAttrWarpSize);
  l.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  l.max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
  l.registers_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
  l.registers_per_block = attribute(cudaDevAttrMaxRegistersPerBlock);
  l.shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  l.shared_per_block = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  l.reserved_shared_per_block = attribute(cudaDevAttrReservedSharedMemoryPerBlock);
  return l;
}

KernelLog::KernelLog() {
  if (active_log != nullptr) throw Error("KernelLog: another log is recording");
  active_log = this;
}

KernelLog::~KernelLog() { active_log = nullptr; }

std::vector<KernelRecord> KernelLog::take() {
  seen_.clear();
  std::vector<KernelRecord> records;
  records.swap(records_);
  return records;
}

bool kernel_log_active() { return active_log != nullptr; }

void record_launch(const char* name, const void* kernel, const LaunchDims& grid,
                   const LaunchDims& block, std::size_t dynamic_shared) {
  KernelLog* log = active_log;
  if (log == nullptr) return;
  const std::int64_t grid_blocks =
      static_cast<std::int64_t>(grid.x) * grid.y * static_cast<std::int64_t>(grid.z);
  const std::int64_t threads = static_cast<std::int64_t>(block.x) * block.y * block.z;
  const auto dynamic = static_cast<std::int64_t>(dynamic_shared);
  for (const KernelLog::Seen& s : log->seen_) {
    if (s.kernel == kernel && s.grid_blocks == grid_blocks && s.block_threads == threads &&
        s.dynamic_shared == dynamic) {
      ++log->records_[s.record].launches;
      return;
    }
  }
  if (!log->have_limits_) {
    log->limits_ = current_sm_limits();
    log->have_limits_ = true;
  }
  cudaFuncAttributes a{};
  PARASOL_CUDA(cudaFuncGetAttributes(&a, kernel));
  KernelRecord r;
  r.name = base_name(name);
  r.block = to_string(Shape{static_cast<int>(block.x), static_cast<int>(block.y),
                            static_cast<int>(block.z)});
  r.block_threads = threads;
  r.grid_blocks = grid_blocks;
  r.launches = 1;
  r.registers = a.numRegs;
  r.local_bytes = static_cast<std::int64_t>(a.localSizeBytes);
  r.static_shared = static_cast<std::int64_t>(a.sharedSizeBytes);
  r.dynamic_shared = dynamic;
  r.max_threads_per_block = a.maxThreadsPerBlock;
  const Occupancy o = theoretical_occupancy(
      {static_cast<int>(threads), a.numRegs, r.static_shared, r.dynamic_shared}, log->limits_);
  // The runtime's count is the one the launch lives by (it knows the shared-memory carveout);
  // the calculator's rules name what limits it.
  int blocks = 0;
  PARASOL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel,
                                                             static_cast<int>(threads),
                                                             dynamic_shared));
  r.blocks_per_sm = blocks;
  const int warps_per_block =
      static_cast<int>((threads + log->limits_.warp_size - 1) / log->limits_.warp_size);
  const int max_warps = log->limits_.max_threads_per_sm / log->limits_.warp_size;
  r.occupancy = max_warps > 0 ? static_cast<double>(blocks * warps_per_block) / max_warps : 0;
  r.limiter = o.limiter;
  const double resident = static_cast<double>(blocks) * log->limits_.multiprocessors;
  r.waves = resident > 0 ? static_cast<double>(grid_blocks) / resident : 0;
  log->seen_.push_back({kernel, grid_blocks, threads, dynamic, log->records_.size()});
  log->records_.push_back(std::move(r));
}

}  // namespace parasol
