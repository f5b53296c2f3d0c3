#include "solvers/poisson/inputs.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "io/input_file.hpp"
#include "kernels/error.hpp"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

std::vector<double> source_planes(const Params& p, std::int64_t z_begin, std::int64_t z_end) {
  if (p.source.kind != SourceKind::file) return make_source(p, z_begin, z_end);
  const char* key = "source.dataset";
  const std::string& file = p.source.file;
  const auto n = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  const std::vector<std::uint64_t> dims{n(p.nz), n(p.ny), n(p.nx)};
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "source.file");
  const std::vector<std::uint64_t> found =
      io::naming_key(key, [&] { return h5->dataset_dims<double>(p.source.dataset, {3}); });
  if (found != dims)
    throw InputError("", key,
                     "expected a dataset of " + io::shape_text(dims) +
                         " values ([nz][ny][nx], the grid's cells), got " + io::shape_text(found) +
                         " in " + file);
  std::vector<double> f = io::naming_key(key, [&] {
    return h5->read_rows<double>(p.source.dataset, n(z_begin), n(z_end - z_begin), {3});
  });
  const std::uint64_t plane = dims[1] * dims[2];
  for (std::size_t c = 0; c < f.size(); ++c)
    if (!std::isfinite(f[c]))
      throw InputError("", key,
                       "expected finite values of f, found " + std::to_string(f[c]) +
                           " at cell " + std::to_string(n(z_begin) * plane + c) + " of " + file);
  return f;
}

std::vector<double> compatible_source(const Params& p) {
  std::vector<double> f = source_planes(p, 0, p.nz);
  make_compatible(p, f);
  return f;
}

}  // namespace parasol::poisson
