// Block shapes compiled for the coulomb gather kernels (threads over x and y of the lattice; the
// scatter kernel ignores them). Each is one instance per coarsening and atom source.
#pragma once

#include <vector>

#include "kernels/shape.hpp"

namespace parasol::coulomb {

// 16x16x1 lets eight points per thread cover a lattice only 128 points wide (a 128^3 volume)
// with every thread busy; a warp then spans two lattice rows.
using GatherShapes = ShapeList<Block<16, 16, 1>, Block<32, 4, 1>, Block<32, 8, 1>, Block<64, 4, 1>, Block<128, 2, 1>>;

std::vector<Shape> compiled_shapes();

}  // namespace parasol::coulomb
