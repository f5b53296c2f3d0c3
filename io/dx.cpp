#include "io/dx.hpp"

#include <cstdio>
#include <sstream>

#include "io/commit.hpp"

namespace parasol::io {

std::string dx_text(const DxGrid& grid, const float* values, const std::string& comment) {
  std::string text;
  char line[160];
  std::istringstream comment_lines(comment);
  for (std::string c; std::getline(comment_lines, c);) text += "# " + c + "\n";

  const long long nx = grid.nx, ny = grid.ny, nz = grid.nz;
  const double h = grid.spacing;
  std::snprintf(line, sizeof line, "object 1 class gridpositions counts %lld %lld %lld\n", nx, ny,
                nz);
  text += line;
  std::snprintf(line, sizeof line, "origin %.6e %.6e %.6e\n", grid.origin[0], grid.origin[1],
                grid.origin[2]);
  text += line;
  const double deltas[3][3] = {{h, 0, 0}, {0, h, 0}, {0, 0, h}};
  for (const auto& d : deltas) {
    std::snprintf(line, sizeof line, "delta %.6e %.6e %.6e\n", d[0], d[1], d[2]);
    text += line;
  }
  std::snprintf(line, sizeof line, "object 2 class gridconnections counts %lld %lld %lld\n", nx,
                ny, nz);
  text += line;
  std::snprintf(line, sizeof line,
                "object 3 class array type double rank 0 items %lld data follows\n",
                nx * ny * nz);
  text += line;

  // Three values a line, as APBS writes them; z varies fastest in DX.
  text.reserve(text.size() + static_cast<std::size_t>(nx * ny * nz) * 14 + 512);
  int on_line = 0;
  for (long long i = 0; i < nx; ++i)
    for (long long j = 0; j < ny; ++j)
      for (long long k = 0; k < nz; ++k) {
        std::snprintf(line, sizeof line, "%12.6e", static_cast<double>(values[i + nx * (j + ny * k)]));
        text += line;
        text += ++on_line == 3 ? "\n" : " ";
        if (on_line == 3) on_line = 0;
      }
  if (on_line != 0) text.back() = '\n';
  text +=
      "attribute \"dep\" string \"positions\"\n"
      "object \"regular positions regular connections\" class field\n"
      "component \"positions\" value 1\n"
      "component \"connections\" value 2\n"
      "component \"data\" value 3\n";
  return text;
}

void write_dx(const std::filesystem::path& path, const DxGrid& grid, const float* values,
              const std::string& comment) {
  write_file_atomically(path, dx_text(grid, values, comment));
}

}  // namespace parasol::io
