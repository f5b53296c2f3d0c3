// How large datasets are compressed: the user's choice (--compression), its name, and what it
// takes from HDF5 (filters built in or loaded as plugins). Measured costs: docs/compression.md.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace parasol::io {

struct Compression {
  enum class Filter { none, deflate, lz4, zstd, zfp };
  enum class Shuffle { none, byte, bit };

  // The default writes at the disk's speed and needs no plugin to read: fields are large and
  // noisy in their low bits, so lossless filters save little and cost a CPU's worth of time.
  Filter filter = Filter::none;
  int level = 0;                    // deflate: 1-9; lz4 and zstd: Blosc's 1-9; others 0
  Shuffle shuffle = Shuffle::none;  // before deflate, lz4 and zstd
  double zfp_accuracy = 0;          // zfp: the largest absolute error allowed, > 0

  bool lossy() const { return filter == Filter::zfp; }
};

bool operator==(const Compression& a, const Compression& b);
inline bool operator!=(const Compression& a, const Compression& b) { return !(a == b); }

// The forms parse_compression accepts, for help texts and messages.
inline constexpr std::string_view kCompressionForms =
    "none, deflate[:1-9], lz4[:1-9][:bitshuffle], zstd[:1-9][:bitshuffle], "
    "zfp:accuracy=BOUND (lossy), or a deflate level 0-9 (0: none)";

// "none", "deflate", "deflate:6", "lz4", "lz4:bitshuffle", "zstd:3", "zfp:accuracy=1e-6", or a
// bare 0-9 (a deflate level, 0 = none: the old --compression). InputError (source "command line",
// key "--compression") listing the forms for anything else.
Compression parse_compression(std::string_view text);

// The canonical form, which parse_compression reads back: "none", "deflate:4", "lz4:5",
// "zstd:2:bitshuffle", "zfp:accuracy=1e-06".
std::string name(const Compression& c);

// Throws InputError naming the HDF5 filter plugin `c` needs and the Debian package that has it,
// when HDF5 cannot load it here.
void require_filter(const Compression& c);

// Sets the filters of `c` on a dataset's creation properties `dcpl` (already chunked) for
// elements of `type` (a file datatype). Returns false when `c` does not apply to that type and
// nothing was set: zfp is for floating point only, and strings are deflated or stored as they are.
bool set_filters(hid_t dcpl, const Compression& c, hid_t type, const std::string& file,
                 const std::string& path);

// For a dataset's creation properties: "" when HDF5 can run every filter it was written with,
// else what is missing and how to install it ("the Blosc filter (HDF5 filter 32001), which this
// HDF5 cannot load: install Debian's hdf5-filter-plugin-blosc-serial ...").
std::string missing_filter(hid_t dcpl);

// Points HDF5 at Debian's plugin folder when HDF5_PLUGIN_PATH is unset and the folder is not on
// its list already. Called once by start_hdf5().
void use_installed_filter_plugins();

}  // namespace parasol::io
