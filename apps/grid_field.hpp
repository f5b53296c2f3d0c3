// A field on a grid of z planes written a rank's planes at a time, with the XDMF sidecar that
// shows it. (Reading one from a user's file is the solver's: poisson::source_planes.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "io/xdmf.hpp"

namespace parasol::app {

// Planes [first, first + planes) of the [nz][ny][nx] field `dataset` on `grid` from `data`
// (Output::write_share), and on rank 0 the sidecar that shows it as `name`; true where the
// field's attributes are written (rank 0).
template <class T>
bool write_planes(Output& out, const std::string& dataset, const std::string& name,
                  const io::UniformGrid3& grid, std::int64_t first, std::int64_t planes,
                  const T* data) {
  const std::vector<std::uint64_t> dims{grid.points[2], grid.points[1], grid.points[0]};
  if (!out.write_share(dataset, dims, static_cast<std::uint64_t>(first),
                       static_cast<std::uint64_t>(planes), data))
    return false;
  out.add_xdmf(grid, {dataset, name, int(sizeof(T))});
  return true;
}

}  // namespace parasol::app
