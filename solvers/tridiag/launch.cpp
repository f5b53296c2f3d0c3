// Which launches can solve which sizes, and the chunk picked when the user leaves it to us.
#include <algorithm>
#include <string>

#include "kernels/error.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {
namespace {

std::string list(const int* begin, const int* end) {
  std::string text;
  for (const int* c = begin; c != end; ++c) text += (text.empty() ? "" : ", ") + std::to_string(*c);
  return text;
}

}  // namespace

Launch resolve_launch(const Launch& launch, const Dims& dims, int element_bytes) {
  Launch l = launch;
  const std::string variant(name(l.variant));
  if (dims.layout != required_layout(l.variant))
    throw InputError("", "method.variant",
                     variant + " solves the " + std::string(name(required_layout(l.variant))) +
                         " layout, not " + std::string(name(dims.layout)));
  if (l.threads < 32 || l.threads > 1024 || l.threads % 32 != 0)
    throw InputError("", "method.threads",
                     "expected a multiple of 32 from 32 to 1024, got " + std::to_string(l.threads));

  switch (l.variant) {
    case Variant::pcr_warp: {
      if (dims.n > kPcrWarpMaxRows)
        throw InputError("", "method.variant",
                         "pcr-warp solves systems of up to " + std::to_string(kPcrWarpMaxRows) +
                             " rows (32 lanes x 4), not " + std::to_string(dims.n) +
                             "; thomas-pcr takes any size");
      if (l.chunk == 0) {
        l.chunk = *std::find_if(kWarpChunks.begin(), kWarpChunks.end(),
                                [&](int c) { return 32 * c >= dims.n; });
      } else if (std::find(kWarpChunks.begin(), kWarpChunks.end(), l.chunk) == kWarpChunks.end() ||
                 32 * l.chunk < dims.n) {
        throw InputError("", "method.chunk",
                         "pcr-warp needs 32 x chunk >= " + std::to_string(dims.n) +
                             " rows with chunk one of " +
                             list(kWarpChunks.data(), kWarpChunks.data() + kWarpChunks.size()) +
                             ", got " + std::to_string(l.chunk));
      }
      break;
    }
    case Variant::pcr_shared:
    case Variant::thomas:
      if (l.variant == Variant::pcr_shared && dims.n > kPcrSharedMaxRows)
        throw InputError("", "method.variant",
                         "pcr-shared solves systems of up to " + std::to_string(kPcrSharedMaxRows) +
                             " rows (one block's shared memory), not " + std::to_string(dims.n) +
                             "; thomas-pcr takes any size");
      if (l.chunk != 0)
        throw InputError("", "method.chunk",
                         variant + " takes no chunk (leave it 0), got " + std::to_string(l.chunk));
      break;
    case Variant::thomas_pcr: {
      const auto& chunks = kThomasPcrChunks;
      if (l.chunk == 0) {
        // The smallest chunk that fits a system into one block.
        const auto fits = std::find_if(chunks.begin(), chunks.end(), [&](int c) {
          const int block = whole_system_block({l.variant, l.threads, c}, dims.n);
          return block > 0 && block <= max_chunk_threads(c, element_bytes);
        });
        // None: the system spans blocks, each thread taking the longest chunk that still
        // leaves more than one block's worth (8 rows when n allows).
        if (fits != chunks.end()) {
          l.chunk = *fits;
        } else {
          l.chunk = 2;
          for (int c : {8, 4})
            if (static_cast<std::int64_t>(c) * l.threads < dims.n) {
              l.chunk = c;
              break;
            }
        }
      } else if (std::find(chunks.begin(), chunks.end(), l.chunk) == chunks.end()) {
        throw InputError("", "method.chunk",
                         "thomas-pcr takes chunk 0 (picked from n) or one of " +
                             list(chunks.data(), chunks.data() + chunks.size()) + ", got " +
                             std::to_string(l.chunk));
      }
      break;
    }
    case Variant::thomas_scan: {
      const auto& chunks = kThomasScanChunks;
      if (l.chunk == 0) {
        l.chunk = kThomasScanDefaultChunk;
      } else if (std::find(chunks.begin(), chunks.end(), l.chunk) == chunks.end()) {
        throw InputError("", "method.chunk",
                         "thomas-scan takes chunk 0 (" + std::to_string(kThomasScanDefaultChunk) +
                             ") or one of " + list(chunks.data(), chunks.data() + chunks.size()) +
                             ", got " + std::to_string(l.chunk));
      }
      if (l.threads > thomas_scan_max_threads(l.chunk, element_bytes))
        throw InputError("", "method.threads",
                         "thomas-scan with chunk " + std::to_string(l.chunk) + " in " +
                             (element_bytes == 8 ? "double" : "float") + " runs at most " +
                             std::to_string(thomas_scan_max_threads(l.chunk, element_bytes)) +
                             " threads per block, got " + std::to_string(l.threads));
      break;
    }
  }
  // Past one block per system thomas-pcr's kernels loop over chunks and size their own blocks.
  const bool chunked = l.variant == Variant::thomas_pcr || l.variant == Variant::pcr_warp;
  const int block = chunked ? whole_system_block(l, dims.n) : 0;
  if (block > max_chunk_threads(l.chunk, element_bytes))
    throw InputError("", "method.threads",
                     variant + " with chunk " + std::to_string(l.chunk) + " in " +
                         (element_bytes == 8 ? "double" : "float") + " runs at most " +
                         std::to_string(max_chunk_threads(l.chunk, element_bytes)) +
                         " threads per block, got " + std::to_string(block));
  return l;
}

}  // namespace parasol::tridiag
