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
constexpr NameTable<Problem, 3> kProblemNames{
    {{Problem::heat, "heat"}, {Problem::file, "file"}, {Problem::random, "random"}}};
constexpr NameTable<Kind, 5> kKindNames{{{Kind::general, "general"},
                                         {Kind::periodic, "periodic"},
                                         {Kind::multi_rhs, "multi-rhs"},
                                         {Kind::pentadiagonal, "pentadiagonal"},
                                         {Kind::block2, "block2"}}};
constexpr NameTable<Cut, 2> kCutNames{{{Cut::systems, "systems"}, {Cut::rows, "rows"}}};
constexpr NameTable<Initial, 3> kInitialNames{
    {{Initial::sine, "sine"}, {Initial::random, "random"}, {Initial::step, "step"}}};

}  // namespace

std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }
std::string_view name(Layout l) { return lookup_name(kLayoutNames, l); }
Layout parse_layout(std::string_view s) { return lookup_value(kLayoutNames, s, "layout"); }
std::string_view name(Problem p) { return lookup_name(kProblemNames, p); }
Problem parse_problem(std::string_view s) { return lookup_value(kProblemNames, s, "problem"); }
std::string_view name(Kind k) { return lookup_name(kKindNames, k); }
Kind parse_kind(std::string_view s) { return lookup_value(kKindNames, s, "kind"); }
std::string_view name(Cut c) { return lookup_name(kCutNames, c); }
Cut parse_cut(std::string_view s) { return lookup_value(kCutNames, s, "cut"); }
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

std::vector<Variant> variants_for(Kind k) {
  switch (k) {
    case Kind::general: return {kVariants.begin(), kVariants.end()};
    case Kind::periodic:
      return {Variant::thomas, Variant::thomas_pcr, Variant::thomas_scan, Variant::pcr_shared,
              Variant::pcr_warp};
    case Kind::multi_rhs: return {Variant::thomas, Variant::thomas_pcr, Variant::pcr_shared};
    case Kind::pentadiagonal:
    case Kind::block2: return {Variant::thomas, Variant::thomas_pcr};
  }
  return {};
}

Variant default_variant(Kind k) {
  return k == Kind::general ? Params{}.variant : variants_for(k).front();
}

Layout kind_layout(Kind k, Variant v) {
  if (k == Kind::general) return required_layout(v);
  return v == Variant::thomas ? Layout::interleaved : Layout::contiguous;
}

void Params::validate() const {
  // The kind first: a variant or size is judged by what it has to solve.
  require(rhs >= 1, "system.rhs",
          "expected a positive integer (right-hand sides per system), got " + std::to_string(rhs));
  require(rhs == 1 || kind == Kind::multi_rhs, "system.rhs",
          "expected 1: only system.kind = \"multi-rhs\" takes several right-hand sides, got " +
              std::to_string(rhs));
  {
    const std::vector<Variant> solvers = variants_for(kind);
    if (std::find(solvers.begin(), solvers.end(), variant) == solvers.end()) {
      std::string names;
      for (Variant v : solvers) names += (names.empty() ? "" : ", ") + std::string(name(v));
      throw InputError("", "method.variant",
                       std::string(name(kind)) + " systems are solved by " + names + ", not " +
                           std::string(name(variant)));
    }
  }
  require(cut == Cut::systems ||
              ((kind == Kind::general || kind == Kind::periodic) && problem != Problem::heat),
          "system.cut",
          "expected \"systems\": rows are cut among ranks for general or periodic systems drawn "
          "or read (problem.kind = \"random\" or \"file\", system.kind = \"general\" or "
          "\"periodic\")");
  require(problem != Problem::heat || kind == Kind::general || kind == Kind::periodic,
          "system.kind",
          "the heat problem makes general systems (fixed ends) or periodic ones (a ring), not " +
              std::string(name(kind)) + "; use problem.kind = \"random\" or \"file\"");
  if (problem == Problem::heat && kind == Kind::periodic)
    require(heat.left == 0 && heat.right == 0, heat.left != 0 ? "heat.left" : "heat.right",
            "expected 0: a periodic heat ring has no ends to hold");
  if (problem == Problem::random) {
    require(random.n >= 1, "random.n", "expected a positive integer, got " + std::to_string(random.n));
    require(random.systems >= 1, "random.systems",
            "expected a positive integer, got " + std::to_string(random.systems));
    constexpr std::int64_t kMostUnknowns = std::int64_t{1} << 40;
    require(random.n < kMostUnknowns && random.systems < kMostUnknowns / random.n / rhs,
            "random.systems",
            "expected fewer than 2^40 unknowns in all, got " + std::to_string(random.systems) +
                " systems of " + std::to_string(random.n) + " rows");
  }
  // What the size already tells: a ring needs three distinct rows (with fewer a[0] and c[n-1]
  // land on the same unknowns as the band).
  const std::int64_t known_n =
      problem == Problem::heat ? heat.points : problem == Problem::random ? random.n : 0;
  if (kind == Kind::periodic && known_n > 0)
    require(known_n >= 3, problem == Problem::heat ? "heat.points" : "random.n",
            "periodic systems need n >= 3 (a ring of three rows at least), got " +
                std::to_string(known_n));

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
  } else if (problem == Problem::file) {
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

  // What the heat or random problem's n already tells; a file's n is checked when it is read.
  if (problem != Problem::file) {
    const std::int64_t n = known_n;
    const char* n_key = problem == Problem::heat ? "heat.points" : "random.n";
    const std::string per = problem == Problem::heat ? " points per grid" : " rows per system";
    if (variant == Variant::pcr_warp) {
      require(n <= kPcrWarpMaxRows, n_key,
              "pcr-warp solves at most " + std::to_string(kPcrWarpMaxRows) + per +
                  " (32 lanes x 4 rows), got " + std::to_string(n) +
                  "; use pcr-shared or thomas-pcr");
      require(chunk == 0 || n <= 32 * std::int64_t{chunk}, "method.chunk",
              "pcr-warp with " + std::to_string(chunk) + " rows per lane solves at most " +
                  std::to_string(32 * chunk) + per + ", got " + std::to_string(n));
    }
    if (variant == Variant::pcr_shared)
      require(n <= kPcrSharedMaxRows, n_key,
              "pcr-shared solves at most " + std::to_string(kPcrSharedMaxRows) + per +
                  " (one system in a block's shared memory), got " +
                  std::to_string(n) + "; use thomas-pcr");
  }
}

}  // namespace parasol::tridiag
