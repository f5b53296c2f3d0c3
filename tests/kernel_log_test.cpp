// Theoretical occupancy and its limiting resource, computed on the host from device limits made
// up here (an H100's, and a small invented device), against cases worked by hand with the CUDA
// occupancy calculator's rules. The recording of real launches is judged on a device.
#include <gtest/gtest.h>

#include "kernels/error.hpp"
#include "kernels/kernel_log.hpp"

namespace parasol {
namespace {

// An H100 SXM (compute capability 9.0): 132 SMs, 2048 threads, 32 blocks, 64K registers and
// 228 KiB of shared memory per SM, 1 KiB reserved per block.
SmLimits h100() {
  SmLimits l;
  l.multiprocessors = 132;
  l.max_threads_per_sm = 2048;
  l.max_blocks_per_sm = 32;
  l.registers_per_sm = 65536;
  l.registers_per_block = 65536;
  l.shared_per_sm = 233472;
  l.shared_per_block = 232448;
  l.reserved_shared_per_block = 1024;
  return l;
}

TEST(KernelLog, FewRegistersAndNoSharedFillEveryWarpSlot) {
  // 256 threads = 8 warps: 64 warp slots / 8 = 8 blocks; 32 registers x 32 = 1024 per warp,
  // 16384 per sub-partition -> 16 warps each, 64 in all -> 8 blocks too.
  const Occupancy o = theoretical_occupancy({256, 32, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limiter, "registers and warps");
}

TEST(KernelLog, SixtyFourRegistersHalveOccupancy) {
  // 64 x 32 = 2048 registers a warp; 16384 / 2048 = 8 warps per sub-partition, 32 in all:
  // 4 blocks of 8 warps, half the 64 slots.
  const Occupancy o = theoretical_occupancy({256, 64, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(KernelLog, RegistersRoundUpToTheAllocationUnit) {
  // 40 x 32 = 1280 rounds up to 1280 (a multiple of 256); 16384 / 1280 = 12 warps per
  // sub-partition, 48 in all; 128-thread blocks (4 warps) -> 12 blocks, 48 / 64 = 75 %.
  Occupancy o = theoretical_occupancy({128, 40, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 12);
  EXPECT_DOUBLE_EQ(o.fraction, 0.75);
  EXPECT_EQ(o.limiter, "registers");
  // 37 x 32 = 1184 rounds up to 1280: the same.
  o = theoretical_occupancy({128, 37, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 12);
  // 255 registers: 8160 -> 8192 a warp, 2 warps per sub-partition, 8 in all: one 256-thread
  // block.
  o = theoretical_occupancy({256, 255, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(o.fraction, 0.125);
}

TEST(KernelLog, SharedMemoryCountsTheReservedKilobyteAndItsUnit) {
  // 48 KiB static + 1 KiB reserved = 50176 bytes a block; 233472 / 50176 = 4 blocks of 4 warps.
  Occupancy o = theoretical_occupancy({128, 32, 48 * 1024, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  EXPECT_EQ(o.limiter, "shared memory");
  // Static and dynamic add up: 20000 + 10000 + 1024 = 31024 -> 31104 in 128-byte units;
  // 233472 / 31104 = 7 blocks.
  o = theoretical_occupancy({64, 16, 20000, 10000}, h100());
  EXPECT_EQ(o.blocks_per_sm, 7);
  EXPECT_EQ(o.limiter, "shared memory");
  // More than one block may have: no block fits.
  o = theoretical_occupancy({64, 16, 0, 240000}, h100());
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_DOUBLE_EQ(o.fraction, 0.0);
  EXPECT_EQ(o.limiter, "shared memory");
}

TEST(KernelLog, SmallBlocksRunOutOfBlockSlots) {
  // 32-thread blocks: 64 warp slots would take 64 blocks, but an SM holds 32: half occupancy.
  const Occupancy o = theoretical_occupancy({32, 16, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "blocks per SM");
}

TEST(KernelLog, PartialWarpsTakeAWholeWarpSlot) {
  // 48 threads are 2 warps: 32 blocks by warps (64 / 2) and 32 by the block limit.
  const Occupancy o = theoretical_occupancy({48, 0, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_EQ(o.limiter, "warps and blocks per SM");
}

TEST(KernelLog, ABlockOverTheRegisterFileDoesNotFit) {
  // 1024 threads x 128 registers = 131072, over the 65536 a block may have.
  const Occupancy o = theoretical_occupancy({1024, 128, 0, 0}, h100());
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(KernelLog, AnInventedDeviceFollowsTheSameRules) {
  // 1024 threads, 16 blocks, 32K registers, 64 KiB shared, no reserve, 2 sub-partitions.
  SmLimits l;
  l.multiprocessors = 10;
  l.max_threads_per_sm = 1024;
  l.max_blocks_per_sm = 16;
  l.registers_per_sm = 32768;
  l.registers_per_block = 32768;
  l.shared_per_sm = 65536;
  l.shared_per_block = 49152;
  l.reserved_shared_per_block = 0;
  l.sub_partitions = 2;
  // 128 threads (4 warps), 48 registers: 1536 a warp; 16384 / 1536 = 10 warps per
  // sub-partition, 20 in all -> 5 blocks; shared 12000 -> 12032: 65536 / 12032 = 5 blocks too.
  const Occupancy o = theoretical_occupancy({128, 48, 12000, 0}, l);
  EXPECT_EQ(o.blocks_per_sm, 5);
  EXPECT_EQ(o.warps_per_sm, 20);
  EXPECT_DOUBLE_EQ(o.fraction, 20.0 / 32.0);
  EXPECT_EQ(o.limiter, "registers and shared memory");
}

TEST(KernelLog, WithoutALogNothingRecordsAndOnlyOneLogAtATime) {
  EXPECT_FALSE(kernel_log_active());
  {
    KernelLog log;
    EXPECT_TRUE(kernel_log_active());
    EXPECT_THROW({ KernelLog second; }, Error);
    EXPECT_TRUE(log.take().empty());
  }
  EXPECT_FALSE(kernel_log_active());
}

}  // namespace
}  // namespace parasol
