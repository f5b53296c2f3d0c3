// XDMF sidecars: a small XML file beside an HDF5 result that lets ParaView and VisIt open a 3D
// field on a uniform grid directly.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

namespace parasol::io {

struct XdmfField {
  std::string dataset_path;       // e.g. "/fields/u"
  std::string name;               // attribute name shown in the viewer, e.g. "u"
  int precision_bytes = 4;        // 4 (float) or 8 (double)
};

struct UniformGrid3 {
  std::array<std::uint64_t, 3> points{};  // nx, ny, nz (the dataset is [nz][ny][nx])
  std::array<double, 3> origin{};         // x, y, z
  std::array<double, 3> spacing{1, 1, 1}; // dx, dy, dz
};

// The XML text; `h5_file_name` is written as given (a name relative to the sidecar's folder
// keeps the pair movable).
std::string xdmf_text(const std::string& h5_file_name, const UniformGrid3& grid,
                      const XdmfField& field);

// The sidecar's path for a result file: "out.h5" -> "out.xmf".
std::filesystem::path xdmf_path_for(const std::filesystem::path& h5_path);

}  // namespace parasol::io
