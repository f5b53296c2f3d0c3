#include "io/xdmf.hpp"

#include <cstdlib>
#include <sstream>

#include "kernels/error.hpp"

namespace parasol::io {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// The shortest of 15 or 17 significant digits that reads back as the same double: 0.1 stays
// "0.1", and a spacing like 1/3 keeps every bit, so the viewer's grid matches the solver's.
std::string number(double value) {
  std::ostringstream out;
  out.precision(15);
  out << value;
  if (std::strtod(out.str().c_str(), nullptr) == value) return out.str();
  out.str("");
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

std::string xdmf_text(const std::string& h5_file_name, const UniformGrid3& grid,
                      const XdmfField& field) {
  if (field.precision_bytes != 4 && field.precision_bytes != 8)
    throw Error("XDMF field " + field.name + ": precision_bytes is " +
                std::to_string(field.precision_bytes) + "; expected 4 or 8");
  for (const std::uint64_t n : grid.points)
    if (n == 0) throw Error("XDMF field " + field.name + ": the grid has a dimension of 0 points");

  // XDMF lists dimensions slowest first, matching the C-order dataset [nz][ny][nx]; the CoRect
  // geometry's origin and spacing follow the same z, y, x order.
  const auto& [nx, ny, nz] = grid.points;
  const std::string dims =
      std::to_string(nz) + " " + std::to_string(ny) + " " + std::to_string(nx);
  const std::string origin = number(grid.origin[2]) + " " + number(grid.origin[1]) + " " +
                             number(grid.origin[0]);
  const std::string spacing = number(grid.spacing[2]) + " " + number(grid.spacing[1]) + " " +
                              number(grid.spacing[0]);

  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n"
      << "<Xdmf Version=\"3.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"" << escaped(field.name) << "\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
      << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "        <DataItem Name=\"Origin\" Format=\"XML\" NumberType=\"Float\" Precision=\"8\""
         " Dimensions=\"3\">"
      << origin << "</DataItem>\n"
      << "        <DataItem Name=\"Spacing\" Format=\"XML\" NumberType=\"Float\" Precision=\"8\""
         " Dimensions=\"3\">"
      << spacing << "</DataItem>\n"
      << "      </Geometry>\n"
      << "      <Attribute Name=\"" << escaped(field.name)
      << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "        <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\""
      << field.precision_bytes << "\" Dimensions=\"" << dims << "\">"
      << escaped(h5_file_name + ":" + field.dataset_path) << "</DataItem>\n"
      << "      </Attribute>\n"
      << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";
  return out.str();
}

std::filesystem::path xdmf_path_for(const std::filesystem::path& h5_path) {
  std::filesystem::path sidecar = h5_path;
  return sidecar.replace_extension(".xmf");
}

}  // namespace parasol::io
