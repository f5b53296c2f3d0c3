// Block shapes compiled for the coulomb gather kernels (threads over x and y of the lattice; the
// scatter kernel ignores them). Each is one instance per coarsening and atom source.
#pragma once

#include <vector>

#include "kernels/shape.hpp"

namespace parasol::coulomb {

using GatherShapes = ShapeList<Block<32, 4, 1>, Block<32, 8, 1>, Block<64, 4, 1>, Block<128, 2, 1>>;

std::vector<Shape> compiled_shapes();

}  // namespace parasol::coulomb
