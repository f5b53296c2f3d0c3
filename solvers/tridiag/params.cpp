#include "solvers/tridiag/params.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "kernels/validate.hpp"

namespace parasol::tridiag {
namespace {

constexpr NameTable<Variant, 5> kVariantNames{{{Variant::pcr_shared, "pcr-shared"},
                                               {Variant::pcr_warp, "pcr-warp"},
                                               {Variant::thomas_pcr, "thomas-pcr"},
                                               {Variant::thomas, "thomas"},
                                               {Variant::thomas_scan, "thomas-scan"}}};
constexpr NameTable<Layout, 2> kLayoutNames{
    {{Layout::contiguous, "contiguous"}, {Layout::interleaved, "interleaved"}}};
constexpr NameTable<Problem, 2> kProblemNames{{{Problem::heat, "heat"}, {Problem::file, "file"}}};
constexpr NameTable<Initial, 3> kInitialNames{
    {{Initial::sine, "sine"}, {Initial::random, "random"}, {Initial::step, "step"}}};

}  // namespace

std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }
std::string_view name(Layout l) { return lookup_name(kLayoutNames, l); }
Layout parse_layout(std::string_view s) { return lookup_value(kLayoutNames, s, "layout"); }
std::string_view name(Problem p) { return lookup_name(kProblemNames, p); }
Problem parse_problem(std::string_view s) { return lookup_value(kProblemNames, s, "problem"); }
std::string_view name(Initial i) { return lookup_name(kInitialNames, i); }
Initial parse_initial(std::string_view s) { return lookup_value(kInitialNames, s, "initial"); }

std::vector<int> compiled_chunks(Variant v) {
  switch (v) {
    case Variant::pcr_warp: return {kWarpChunks.begin(), kWarpChunks.end()};
    case Variant::thomas_pcr: return {kThomasPcrChunks.begin(), kThomasPcrChunks.end()};
    case Variant::thomas_scan: return {kThomasScanChunks.begin(), kThomasScanChunks.end()};
    case Variant::pcr_shared:
    case Variant::thomas: return {};
  }
  return {};
}

// One thread walks a whole system down the interleaved layout, so neighbouring threads (systems)
// read neighbouring addresses; the block-per-system variants want each system in one piece.
Layout required_layout(Variant v) {
  return v == Variant::thomas ? Layout::interleaved : Layout::contiguous;
}

void Params::validate() const {
  if (problem == Problem::heat) {
    require(heat.points >= 1, "heat.points",
            "expected a positive integer, got " + std::to_string(heat.points));
    require(heat.grids >= 1, "heat.grids",
            "expected a positive integer, got " + std::to_string(heat.grids));
    // Checked by division so the product cannot overflow before it is compared; 2^40 unknowns
    // (4 TiB per float array) is past any device.
    constexpr std::int64_t kMostUnknowns = std::int64_t{1} << 40;
    require(heat.points < kMostUnknowns && heat.grids < kMostUnknowns / heat.points, "heat.grids",
            "expected fewer than 2^40 unknowns in all, got " + std::to_string(heat.grids) +
                " grids of " + std::to_string(heat.points) + " points");
    require(heat.steps >= 0, "heat.steps",
            "expected an integer >= 0, got " + std::to_string(heat.steps));
    require(std::isfinite(heat.lambda) && heat.lambda > 0, "heat.lambda",
            "expected a positive number (dx^2 / dt), got " + shown(heat.lambda));
    // In float the step's matrix (2 + lambda on the diagonal) and right-hand side (lambda u plus
    // an end value) must stay in range: a few of each are added in a row's elimination.
    const bool single = precision == Precision::single;
    require_representable(heat.lambda, "heat.lambda", single, 4);
    require(heat.mode >= 1, "heat.mode",
            "expected a positive integer (the sine's half-waves), got " +
                std::to_string(heat.mode));
    // The temperatures stay within the end values' and the start's range (a maximum
    // principle), and each is multiplied by lambda in the right-hand side.
    require_representable(heat.left, "heat.left", single, 4 * (1 + heat.lambda));
    require_representable(heat.right, "heat.right", single, 4 * (1 + heat.lambda));
  } else {
    require(!input.file.empty(), "input.file", "expected the name of an HDF5 file");
    const std::pair<const std::string&, const char*> datasets[] = {
        {input.a, "input.a"}, {input.b, "input.b"}, {input.c, "input.c"}, {input.d, "input.d"}};
    for (const auto& [dataset, key] : datasets)
      require(!dataset.empty(), key, "expected the name of a dataset in " + input.file);
  }

  require(threads >= 32 && threads <= 1024 && threads % 32 == 0, "method.threads",
          "expected a multiple of 32 from 32 to 1024 (whole warps), got " +
              std::to_string(threads));
  const auto check_chunk = [&](const auto& compiled, const char* meaning) {
    if (chunk != 0 && std::find(compiled.begin(), compiled.end(), chunk) == compiled.end())
      throw InputError("", "method.chunk",
                       not_compiled("chunk", chunk, name(variant),
                                    {compiled.begin(), compiled.end()}) +
                           " (" + meaning + "; 0 picks one from n)");
  };
  switch (variant) {
    case Variant::pcr_warp: check_chunk(kWarpChunks, "rows per lane"); break;
    case Variant::thomas_pcr: check_chunk(kThomasPcrChunks, "rows per thread"); break;
    case Variant::thomas_scan: check_chunk(kThomasScanChunks, "rows per thread"); break;
    case Variant::pcr_shared:
    case Variant::thomas:
      require(chunk == 0, "method.chunk",
              "expected 0: " + std::string(name(variant)) + " has no rows per thread to choose, got " +
                  std::to_string(chunk));
      break;
  }

  // What the heat problem's n already tells; a file's n is checked when the file is read.
  if (problem == Problem::heat) {
    const std::int64_t n = heat.points;
    if (variant == Variant::pcr_warp) {
      require(n <= kPcrWarpMaxRows, "heat.points",
              "pcr-warp solves at most " + std::to_string(kPcrWarpMaxRows) +
                  " points per grid (32 lanes x 4 rows), got " + std::to_string(n) +
                  "; use pcr-shared or thomas-pcr");
      require(chunk == 0 || n <= 32 * std::int64_t{chunk}, "method.chunk",
              "pcr-warp with " + std::to_string(chunk) + " rows per lane solves at most " +
                  std::to_string(32 * chunk) + " points per grid, got " + std::to_string(n));
    }
    if (variant == Variant::pcr_shared)
      require(n <= kPcrSharedMaxRows, "heat.points",
              "pcr-shared solves at most " + std::to_string(kPcrSharedMaxRows) +
                  " points per grid (one system in a block's shared memory), got " +
                  std::to_string(n) + "; use thomas-pcr");
  }
}

}  // namespace parasol::tridiag
