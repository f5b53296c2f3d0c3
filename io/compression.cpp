#include "io/compression.hpp"

#include <H5PLpublic.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

#include "io/hdf5_calls.hpp"
#include "kernels/error.hpp"

namespace parasol::io {
namespace {

// Deflate at 4 keeps nearly all of level 9's ratio at a fraction of its time. Blosc's levels for
// lz4 and zstd: docs/compression.md has the measurements behind these.
constexpr int kDeflateLevel = 4;
constexpr int kLz4Level = 5;
constexpr int kZstdLevel = 2;

// Registered HDF5 filter ids (support.hdfgroup.org's list) and the Debian packages that have them.
constexpr H5Z_filter_t kBloscFilter = 32001;
constexpr H5Z_filter_t kZfpFilter = 32013;

struct Plugin {
  H5Z_filter_t id;
  const char* name;
  const char* package;
};
constexpr Plugin kPlugins[] = {
    {kBloscFilter, "Blosc", "hdf5-filter-plugin-blosc-serial"},
    {kZfpFilter, "ZFP", "hdf5-filter-plugin-zfp-serial"},
    {32004, "LZ4", "hdf5-filter-plugin"},
    {307, "BZip2", "hdf5-filter-plugin"},
    {32000, "LZF", "hdf5-plugin-lzf"},
};

// Blosc's compressor codes (blosc.h) and its shuffle codes, which hdf5-blosc passes on.
constexpr unsigned kBloscLz4 = 1, kBloscZstd = 5;

// H5Z-ZFP's generic interface: cd_values[0] is the mode (3: fixed accuracy), [2..3] the bound as
// the two halves of a double (H5Zzfp_plugin.h's H5Pset_zfp_accuracy_cdata).
constexpr unsigned kZfpModeAccuracy = 3;

const Plugin* plugin_for(H5Z_filter_t id) {
  for (const Plugin& p : kPlugins)
    if (p.id == id) return &p;
  return nullptr;
}

[[noreturn]] void refuse(std::string_view text) {
  throw InputError("command line", "--compression",
                   "expected one of " + std::string(kCompressionForms) + "; got \"" +
                       std::string(text) + "\"");
}

// "1".."9" as an int, or 0 when `word` is not one such digit.
int level_from(std::string_view word) {
  if (word.size() == 1 && word[0] >= '1' && word[0] <= '9') return word[0] - '0';
  return 0;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// The shortest text that reads back as the same double ("1e-06", "0.001").
std::string shortest(double value) {
  for (int digits = 1; digits <= 17; ++digits) {
    std::ostringstream out;
    out.precision(digits);
    out << value;
    if (std::strtod(out.str().c_str(), nullptr) == value) return out.str();
  }
  return std::to_string(value);
}

Plugin plugin_needed(const Compression& c) {
  return *plugin_for(c.filter == Compression::Filter::zfp ? kZfpFilter : kBloscFilter);
}

// Blosc splits each chunk between this many threads (c-blosc 1.x reads BLOSC_NTHREADS on every
// call, and hdf5-blosc offers no other way in); a value the user set is kept.
void share_blosc_between_cores() {
  static const bool shared = [] {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setenv("BLOSC_NTHREADS", std::to_string(cores).c_str(), /*overwrite=*/0);
    return true;
  }();
  (void)shared;
}

}  // namespace

bool operator==(const Compression& a, const Compression& b) {
  return a.filter == b.filter && a.level == b.level && a.shuffle == b.shuffle &&
         a.zfp_accuracy == b.zfp_accuracy;
}

Compression parse_compression(std::string_view text) {
  using Filter = Compression::Filter;
  using Shuffle = Compression::Shuffle;
  Compression c;
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '9') {
    if (text[0] == '0') return c;
    return {Filter::deflate, text[0] - '0', Shuffle::byte, 0};
  }
  const std::vector<std::string_view> parts = split(text, ':');
  const std::string_view filter = parts[0];
  if (filter == "none" && parts.size() == 1) return c;
  if (filter == "deflate" && parts.size() <= 2) {
    c = {Filter::deflate, kDeflateLevel, Shuffle::byte, 0};
    if (parts.size() == 2 && (c.level = level_from(parts[1])) == 0) refuse(text);
    return c;
  }
  if ((filter == "lz4" || filter == "zstd") && parts.size() <= 3) {
    const bool lz4 = filter == "lz4";
    c = {lz4 ? Filter::lz4 : Filter::zstd, lz4 ? kLz4Level : kZstdLevel, Shuffle::byte, 0};
    bool level_given = false, shuffle_given = false;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      if (const int level = level_from(parts[i]); level != 0 && !level_given) {
        c.level = level;
        level_given = true;
      } else if (parts[i] == "bitshuffle" && !shuffle_given) {
        c.shuffle = Shuffle::bit;
        shuffle_given = true;
      } else {
        refuse(text);
      }
    }
    return c;
  }
  const std::string_view accuracy = "accuracy=";
  if (filter == "zfp" && parts.size() == 2 && parts[1].substr(0, accuracy.size()) == accuracy) {
    const std::string bound(parts[1].substr(accuracy.size()));
    char* end = nullptr;
    errno = 0;
    const double value = bound.empty() ? 0 : std::strtod(bound.c_str(), &end);
    if (bound.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value <= 0)
      throw InputError("command line", "--compression",
                       "expected zfp:accuracy=BOUND with BOUND a positive number (the largest "
                       "absolute error allowed, e.g. 1e-6); got \"" + std::string(text) + "\"");
    return {Filter::zfp, 0, Shuffle::none, value};
  }
  refuse(text);
}

std::string name(const Compression& c) {
  const char* bitshuffle = c.shuffle == Compression::Shuffle::bit ? ":bitshuffle" : "";
  switch (c.filter) {
    case Compression::Filter::none: return "none";
    case Compression::Filter::deflate: return "deflate:" + std::to_string(c.level);
    case Compression::Filter::lz4: return "lz4:" + std::to_string(c.level) + bitshuffle;
    case Compression::Filter::zstd: return "zstd:" + std::to_string(c.level) + bitshuffle;
    case Compression::Filter::zfp: return "zfp:accuracy=" + shortest(c.zfp_accuracy);
  }
  return "none";
}

void require_filter(const Compression& c) {
  start_hdf5();
  if (c.filter == Compression::Filter::none) return;
  if (c.filter == Compression::Filter::deflate) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0)
      throw InputError("command line", "--compression",
                       name(c) + " needs HDF5 built with zlib, which this one lacks");
    return;
  }
  const Plugin p = plugin_needed(c);
  const htri_t available = H5Zfilter_avail(p.id);
  H5Eclear2(H5E_DEFAULT);
  unsigned flags = 0;
  const bool encodes = available > 0 && H5Zget_filter_info(p.id, &flags) >= 0 &&
                       (flags & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0;
  H5Eclear2(H5E_DEFAULT);
  if (!encodes)
    throw InputError("command line", "--compression",
                     name(c) + " needs the " + p.name + " HDF5 filter plugin (filter " +
                         std::to_string(p.id) + "), which HDF5 cannot load here: install "
                         "Debian's " + p.package + " (or set HDF5_PLUGIN_PATH to its folder)");
}

bool set_filters(hid_t dcpl, const Compression& c, hid_t type, const std::string& file,
                 const std::string& path) {
  const H5T_class_t type_class = H5Tget_class(type);
  if (type_class == H5T_NO_CLASS) fail(file, "H5Tget_class", path);
  switch (c.filter) {
    case Compression::Filter::none:
      return false;
    case Compression::Filter::deflate:
      // Shuffling bytes by significance first lets deflate find the slowly varying exponents.
      check(H5Pset_shuffle(dcpl), file, "H5Pset_shuffle", path);
      check(H5Pset_deflate(dcpl, static_cast<unsigned>(c.level)), file, "H5Pset_deflate", path);
      return true;
    case Compression::Filter::lz4:
    case Compression::Filter::zstd: {
      if (type_class == H5T_STRING) return false;
      share_blosc_between_cores();
      // hdf5-blosc fills [0..3] itself (versions, type size, chunk size).
      const unsigned shuffle = c.shuffle == Compression::Shuffle::bit    ? 2
                               : c.shuffle == Compression::Shuffle::byte ? 1
                                                                         : 0;
      const unsigned values[7] = {0, 0, 0, 0, static_cast<unsigned>(c.level), shuffle,
                                  c.filter == Compression::Filter::lz4 ? kBloscLz4 : kBloscZstd};
      // Optional: a chunk that Blosc cannot shrink (noise) is stored as it is, not refused.
      check(H5Pset_filter(dcpl, kBloscFilter, H5Z_FLAG_OPTIONAL, 7, values), file,
            "H5Pset_filter(blosc)", path);
      return true;
    }
    case Compression::Filter::zfp: {
      if (type_class != H5T_FLOAT) return false;
      unsigned values[4] = {kZfpModeAccuracy, 0, 0, 0};
      static_assert(sizeof(double) == 2 * sizeof(unsigned));
      std::memcpy(&values[2], &c.zfp_accuracy, sizeof(double));
      check(H5Pset_filter(dcpl, kZfpFilter, H5Z_FLAG_MANDATORY, 4, values), file,
            "H5Pset_filter(zfp)", path);
      return true;
    }
  }
  return false;
}

std::string missing_filter(hid_t dcpl) {
  const int count = H5Pget_nfilters(dcpl);
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    char stored_name[128] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &values,
                                           nullptr, sizeof stored_name, stored_name, &config);
    if (id < 0) continue;
    const htri_t available = H5Zfilter_avail(id);
    H5Eclear2(H5E_DEFAULT);
    if (available > 0) continue;
    const Plugin* p = plugin_for(id);
    const std::string what = p != nullptr ? std::string(p->name) : std::string(stored_name);
    std::string message = "the " + what + " filter (HDF5 filter " + std::to_string(id) +
                          "), which this HDF5 cannot load: ";
    message += p != nullptr ? "install Debian's " + std::string(p->package)
                            : std::string("install the plugin for it");
    return message + " (or set HDF5_PLUGIN_PATH to its folder; Python: import hdf5plugin)";
  }
  return "";
}

void use_installed_filter_plugins() {
#ifdef PARASOL_DEBIAN_PLUGIN_DIR
  // Debian's HDF5 searches its plugin folder by default; an HDF5 built elsewhere searches
  // /usr/local/hdf5/lib/plugin. A user's HDF5_PLUGIN_PATH replaces both, and is kept as it is.
  if (std::getenv("HDF5_PLUGIN_PATH") != nullptr) return;
  const std::string folder = PARASOL_DEBIAN_PLUGIN_DIR;
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return;
  unsigned entries = 0;
  if (H5PLsize(&entries) < 0) return;
  for (unsigned i = 0; i < entries; ++i) {
    char path[4096] = {};
    if (H5PLget(i, path, sizeof path) > 0 && folder == path) return;
  }
  H5PLappend(folder.c_str());
  H5Eclear2(H5E_DEFAULT);
#endif
}

}  // namespace parasol::io
