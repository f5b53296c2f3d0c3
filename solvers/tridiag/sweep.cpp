// tridiag's sweep configurations.
#include "solvers/tridiag/sweep.hpp"

#include <algorithm>

#include "kernels/error.hpp"

namespace parasol::tridiag {

bool listable_chunk(int chunk) {
  for (Variant v : kVariants) {
    const std::vector<int> chunks = compiled_chunks(v);
    if (std::find(chunks.begin(), chunks.end(), chunk) != chunks.end()) return true;
  }
  return chunk == 0;
}

std::vector<int> chunks_for(Variant v, const std::vector<int>& listed) {
  std::vector<int> compiled = compiled_chunks(v);
  if (compiled.empty()) compiled = {0};
  if (listed.empty() || compiled == std::vector<int>{0}) return compiled;
  std::vector<int> chosen;
  for (int c : listed)
    if (c == 0 || std::find(compiled.begin(), compiled.end(), c) != compiled.end())
      chosen.push_back(c);
  return chosen;
}

std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks, const Dims& dims,
                                              int element_bytes) {
  std::vector<Configuration> out;
  for (Variant v : variants) {
    const Dims vdims{dims.n, dims.systems, required_layout(v)};
    std::vector<Launch> launches;
    std::vector<std::string> skipped;
    for (int t : threads)
      for (int chunk : chunks_for(v, chunks)) {
        try {
          const Launch l = resolve_launch({v, t, chunk}, vdims, element_bytes);
          if (std::none_of(launches.begin(), launches.end(), [&](const Launch& o) {
                return o.threads == l.threads && o.chunk == l.chunk;
              }))
            launches.push_back(l);
        } catch (const InputError& e) {
          skipped.push_back(std::to_string(t) + " threads, chunk " + std::to_string(chunk) +
                            ": " + e.expected());
        }
      }
    if (launches.empty()) {
      out.push_back({{v, 0, 0},
                     std::string(name(v)) + " skipped: " +
                         (skipped.empty() ? "no chunk listed for it" : skipped.front()),
                     ""});
      continue;
    }
    for (const Launch& l : launches) out.push_back({l, "", ""});
    if (!skipped.empty())
      out[out.size() - launches.size()].note =
          std::string(name(v)) + ": " + std::to_string(skipped.size()) + " launch" +
          (skipped.size() == 1 ? "" : "es") + " skipped (first: " + skipped.front() + ")";
  }
  return out;
}

}  // namespace parasol::tridiag
