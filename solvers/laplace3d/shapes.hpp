// Block shapes compiled for each laplace3d kernel. Each entry is one kernel instantiation per
// precision: keep the default lists short so CI builds stay lean; -DPARASOL_WIDE_SHAPES=ON
// compiles the full study lists.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/shape.hpp"
#include "solvers/laplace3d/params.hpp"

namespace parasol::laplace3d {

#ifdef PARASOL_WIDE_SHAPES
using MarchShapes = ShapeList<Block<32, 4, 1>, Block<32, 8, 1>, Block<32, 16, 1>, Block<64, 2, 1>,
                              Block<64, 4, 1>, Block<64, 8, 1>, Block<128, 1, 1>, Block<128, 2, 1>,
                              Block<128, 4, 1>, Block<256, 1, 1>, Block<256, 2, 1>>;
using Block3dShapes = ShapeList<Block<32, 4, 4>, Block<32, 8, 2>, Block<32, 8, 4>, Block<16, 8, 4>,
                                Block<64, 4, 2>, Block<64, 2, 4>, Block<128, 2, 2>>;
#else
using MarchShapes = ShapeList<Block<32, 4, 1>, Block<32, 8, 1>, Block<64, 4, 1>, Block<128, 2, 1>>;
using Block3dShapes = ShapeList<Block<32, 4, 4>, Block<32, 8, 2>, Block<16, 8, 4>>;
#endif
// Threads per block; each thread covers kSmemRows (smem-zreg) or kTemporalRows (temporal) rows.
using SmemShapes = ShapeList<Block<32, 8, 1>, Block<64, 4, 1>, Block<128, 2, 1>>;
using TemporalShapes = ShapeList<Block<64, 8, 1>, Block<128, 4, 1>, Block<32, 12, 1>>;

// Iterations per temporal pass: its time block, and so the depth of its halo across ranks.
constexpr int kTimeSteps = 4;

// The widest and tallest temporal tile, halo included (kTemporalRows rows a thread).
constexpr int kTemporalMaxTile = 128;

// Guard cells around each device copy of the field (nx: the grid's x extent). A temporal tile's
// halo reaches at most kTimeSteps points before the grid in x and y and less than a tile past
// it; those reads stay inside the allocation, and no update uses them.
inline std::int64_t temporal_guard_points(std::int64_t nx) {
  return static_cast<std::int64_t>(kTemporalMaxTile) * (nx + 1);
}

// zmarch and zreg: MarchShapes; block3d: Block3dShapes; smem-zreg: SmemShapes; temporal:
// TemporalShapes.
std::vector<Shape> compiled_shapes(Variant v);

}  // namespace parasol::laplace3d
