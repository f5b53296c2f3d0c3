// OpenDX scalar maps, as APBS writes them (its .dx potential maps): read by APBS's tools, PyMOL,
// VMD, Chimera and UCSF ChimeraX. Text, so meant for maps of a few million points.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

namespace parasol::io {

// A regular lattice: point (i, j, k) is at origin + spacing * (i, j, k).
struct DxGrid {
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 1;
  std::int64_t nx = 1, ny = 1, nz = 1;
};

// The file's text. `values` are [nz][ny][nx], x fastest (ours); DX lists them with z fastest,
// so they are transposed on the way out. `comment` becomes "# " lines at the top.
std::string dx_text(const DxGrid& grid, const float* values, const std::string& comment);

// Writes dx_text() under a temporary name and renames it into place.
void write_dx(const std::filesystem::path& path, const DxGrid& grid, const float* values,
              const std::string& comment);

}  // namespace parasol::io
