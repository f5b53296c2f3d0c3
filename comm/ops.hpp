// What the public API and the backends (comm/detail/) share: the reductions and the message
// tags left to callers. Kept apart from context.hpp so the backends need not include it.
#pragma once

namespace parasol::comm {

enum class Op { sum, max, min };

// Message tags from 0 up to this are the caller's; halo exchanges use tags above.
inline constexpr int kMaxUserTag = 32000;

}  // namespace parasol::comm
