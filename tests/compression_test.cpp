// --compression's forms, every filter's round trip, and what a reader without the plugin is told.
#include "io/compression.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

TEST(Compression, EveryFormParsesAndItsNameReadsBack) {
  const std::vector<std::pair<std::string, std::string>> forms{
      {"none", "none"},
      {"0", "none"},
      {"4", "deflate:4"},
      {"9", "deflate:9"},
      {"deflate", "deflate:4"},
      {"deflate:1", "deflate:1"},
      {"lz4", "lz4:5"},
      {"lz4:bitshuffle", "lz4:5:bitshuffle"},
      {"lz4:9", "lz4:9"},
      {"zstd", "zstd:2"},
      {"zstd:7", "zstd:7"},
      {"zstd:bitshuffle:3", "zstd:3:bitshuffle"},
      {"zfp:accuracy=1e-6", "zfp:accuracy=1e-06"},
      {"zfp:accuracy=0.25", "zfp:accuracy=0.25"},
  };
  for (const auto& [text, canonical] : forms) {
    SCOPED_TRACE(text);
    const Compression c = parse_compression(text);
    EXPECT_EQ(name(c), canonical);
    EXPECT_EQ(parse_compression(name(c)), c);
  }
  EXPECT_EQ(parse_compression("deflate:6").shuffle, Compression::Shuffle::byte);
  EXPECT_EQ(parse_compression("zstd").shuffle, Compression::Shuffle::byte);
  EXPECT_EQ(parse_compression("lz4:bitshuffle").shuffle, Compression::Shuffle::bit);
  EXPECT_TRUE(parse_compression("zfp:accuracy=1e-3").lossy());
  EXPECT_DOUBLE_EQ(parse_compression("zfp:accuracy=1e-3").zfp_accuracy, 1e-3);
  EXPECT_FALSE(parse_compression("zstd").lossy());
}

TEST(Compression, AnythingElseIsAnInputErrorListingTheForms) {
  for (const char* text : {"", "10", "-1", "fast", "deflate:0", "deflate:10", "deflate:", "gzip",
                           "lz4:0", "lz4:bitshuffle:bitshuffle", "zstd:3:4", "zstd:", "zfp",
                           "zfp:accuracy=", "zfp:accuracy=0", "zfp:accuracy=-1e-6",
                           "zfp:accuracy=inf", "zfp:accuracy=1e-6x", "zfp:rate=8", "None",
                           "none:1"}) {
    SCOPED_TRACE(text);
    try {
      parse_compression(text);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "command line");
      EXPECT_EQ(e.key(), "--compression");
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      const bool zfp = std::string(text).rfind("zfp:accuracy=", 0) == 0;
      EXPECT_NE(what.find(zfp ? "zfp:accuracy=BOUND" : "deflate[:1-9]"), std::string::npos)
          << what;
    }
  }
}

// The package that would give a plugin, when HDF5 cannot load it here: the only reason a
// round trip may skip.
std::string missing_package(const Compression& c) {
  try {
    require_filter(c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

#define PARASOL_REQUIRE_PLUGIN(c)                                      \
  do {                                                                 \
    const std::string parasol_missing_ = missing_package(c);           \
    if (!parasol_missing_.empty()) GTEST_SKIP() << parasol_missing_;   \
  } while (0)

template <class T>
std::vector<T> noisy_field(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<T> dist(-1e3, 1e3);
  std::vector<T> values(count);
  for (T& v : values) v = dist(gen);
  const T specials[] = {T(-0.0), std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min()};
  for (std::size_t i = 0; i < std::size(specials) && i < count; ++i)
    values[i * 13 % count] = specials[i];
  return values;
}

// Smooth, as solvers' fields are (zfp's ratio depends on it), with noise in the last bits.
template <class T>
std::vector<T> smooth_field(const std::vector<std::uint64_t>& dims, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> noise(-1e-7, 1e-7);
  std::uint64_t count = 1;
  for (const std::uint64_t d : dims) count *= d;
  std::vector<T> values(count);
  for (std::uint64_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(std::sin(1e-3 * static_cast<double>(i)) * 3.0 + noise(gen));
  return values;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Shapes that break chunking: a small contiguous one, one that no chunk divides (71,961 elements,
// over the 64 Ki threshold), a prime-length 1D field, and rows too long for one chunk.
const std::vector<std::vector<std::uint64_t>> kShapes{
    {3, 5, 7}, {33, 17, 129}, {300007}, {3, 300001}};

class RoundTrip : public ::testing::TestWithParam<std::string> {};

template <class T>
void expect_lossless_round_trip(const Compression& c, const test::ScratchDir& dir) {
  unsigned seed = 2026;
  for (const auto& dims : kShapes) {
    std::uint64_t count = 1;
    for (const std::uint64_t d : dims) count *= d;
    const auto u = noisy_field<T>(count, ++seed);
    const fs::path path = dir / ("f" + std::to_string(seed) + "_" + std::to_string(sizeof(T)) + ".h5");
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(count) + " elements");
    {
      ResultFile file(path, false, c);
      file.write_field("/u", u.data(), dims);
      file.commit();
    }
    const ResultReader reader(path);
    EXPECT_EQ(reader.dims("/u"), dims);
    if constexpr (std::is_same_v<T, float>) {
      EXPECT_TRUE(same_bits(reader.read_floats("/u"), u));
    } else {
      EXPECT_TRUE(same_bits(reader.read_doubles("/u"), u));
    }
    const bool filtered = c.filter != Compression::Filter::none && count >= (1u << 16);
    EXPECT_EQ(reader.is_compressed("/u"), filtered);
    EXPECT_EQ(reader.has_attribute("/u", "compression"), filtered);
    if (filtered) {
      EXPECT_TRUE(reader.attribute("/u", "compression") == AttributeValue(name(c)));
    }
  }
}

TEST_P(RoundTrip, LosslessFiltersKeepEveryBitOfFloatsAndDoubles) {
  const Compression c = parse_compression(GetParam());
  PARASOL_REQUIRE_PLUGIN(c);
  const test::ScratchDir dir;
  expect_lossless_round_trip<float>(c, dir);
  expect_lossless_round_trip<double>(c, dir);
}

INSTANTIATE_TEST_SUITE_P(Filters, RoundTrip,
                         ::testing::Values("none", "deflate:1", "deflate:6", "lz4",
                                           "lz4:bitshuffle", "zstd", "zstd:4:bitshuffle"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           for (char& ch : n)
                             if (ch == ':') ch = '_';
                           return n;
                         });

template <class T>
void expect_within_bound(double bound, const test::ScratchDir& dir) {
  unsigned seed = 77;
  for (const auto& dims : kShapes) {
    const auto u = smooth_field<T>(dims, ++seed);
    const fs::path path = dir / ("z" + std::to_string(seed) + "_" + std::to_string(sizeof(T)) +
                                 "_" + std::to_string(bound) + ".h5");
    const Compression c = parse_compression("zfp:accuracy=" + std::to_string(bound));
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(u.size()) + " elements");
    {
      ResultFile file(path, false, c);
      file.write_field("/u", u.data(), dims);
      file.commit();
    }
    const ResultReader reader(path);
    const std::vector<double> back = reader.read_doubles("/u");
    ASSERT_EQ(back.size(), u.size());
    double worst = 0;
    for (std::size_t i = 0; i < u.size(); ++i)
      worst = std::max(worst, std::abs(back[i] - static_cast<double>(u[i])));
    EXPECT_LE(worst, bound);
    if (u.size() >= (1u << 16)) {
      EXPECT_TRUE(reader.attribute("/u", "compression") == AttributeValue(name(c)));
      EXPECT_TRUE(reader.attribute("/u", "zfp_accuracy") == AttributeValue(c.zfp_accuracy));
      // Lossy for a reason: a bound well above the type's precision must shrink a smooth field
      // well below its size (1e-6 is close to a float's own resolution at 3, so it saves little).
      if (bound >= 1e-3) {
        EXPECT_LT(fs::file_size(path), u.size() * sizeof(T) / 2);
      }
    }
  }
}

TEST(Zfp, FixedAccuracyStaysWithinItsBoundAndSaysSo) {
  PARASOL_REQUIRE_PLUGIN(parse_compression("zfp:accuracy=1e-6"));
  const test::ScratchDir dir;
  for (const double bound : {1e-6, 1e-3}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    expect_within_bound<float>(bound, dir);
    expect_within_bound<double>(bound, dir);
  }
}

TEST(Zfp, IntegerAndStringColumnsAreStoredAsTheyAre) {
  const Compression c = parse_compression("zfp:accuracy=1e-3");
  PARASOL_REQUIRE_PLUGIN(c);
  const test::ScratchDir dir;
  std::vector<std::int64_t> counts(100000);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<std::int64_t>(i * i);
  {
    ResultFile file(dir / "c.h5", false, c);
    file.write_column("/counts", counts);
    file.commit();
  }
  const ResultReader reader(dir / "c.h5");
  EXPECT_EQ(reader.read_ints("/counts"), counts);
  EXPECT_FALSE(reader.is_compressed("/counts"));
}

// ---------------------------------------------------------------------------------------------
// Readers and writers without the plugin. HDF5 reads HDF5_PLUGIN_PATH once, when it starts, so
// these run plugin_probe (tests/plugin_probe.cpp) with the variable set to an empty folder.

test::CommandResult run_child_without_plugins(const test::ScratchDir& dir, const std::string& action,
                                              const fs::path& file) {
  fs::create_directories(dir / "no-plugins");
  return test::run_shell("HDF5_PLUGIN_PATH='" + (dir / "no-plugins").string() + "' '" +
                         std::string(PARASOL_PLUGIN_PROBE) + "' " + action + " '" +
                         file.string() + "'");
}

TEST(Plugins, DefaultResultReadsWithoutAnyPlugin) {
  const test::ScratchDir dir;
  const auto u = noisy_field<float>(200000, 3);
  {
    ResultFile file(dir / "plain.h5", false);
    file.write_field("/u", u.data(), {u.size()});
    file.commit();
  }
  const auto r = run_child_without_plugins(dir, "read", dir / "plain.h5");
  EXPECT_NE(r.output.find("read 200000 values"), std::string::npos) << r.output;
}

TEST(Plugins, ReaderWithoutThePluginNamesItAndItsPackage) {
  struct Case {
    const char* compression;
    const char* plugin;
    const char* package;
  };
  for (const Case& c : {Case{"zstd", "Blosc", "hdf5-filter-plugin-blosc-serial"},
                        Case{"lz4:bitshuffle", "Blosc", "hdf5-filter-plugin-blosc-serial"},
                        Case{"zfp:accuracy=1e-6", "ZFP", "hdf5-filter-plugin-zfp-serial"}}) {
    SCOPED_TRACE(c.compression);
    const Compression compression = parse_compression(c.compression);
    PARASOL_REQUIRE_PLUGIN(compression);
    const test::ScratchDir dir;
    const auto u = smooth_field<float>({200000}, 5);
    {
      ResultFile file(dir / "packed.h5", false, compression);
      file.write_field("/u", u.data(), {u.size()});
      file.commit();
    }
    const auto r = run_child_without_plugins(dir, "read", dir / "packed.h5");
    EXPECT_NE(r.output.find("Error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("the " + std::string(c.plugin) + " filter"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(c.package), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("packed.h5: /u"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("H5D"), std::string::npos) << "HDF5's words: " << r.output;
    EXPECT_EQ(r.output.find("InputError"), std::string::npos) << r.output;
  }
}

TEST(Plugins, WriterWithoutThePluginIsAnInputErrorNamingThePackage) {
  const test::ScratchDir dir;
  const auto r = run_child_without_plugins(dir, "write zstd:3", dir / "out.h5");
  EXPECT_NE(r.output.find("InputError: command line: --compression: zstd:3 needs the Blosc"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("hdf5-filter-plugin-blosc-serial"), std::string::npos) << r.output;
  const auto zfp = run_child_without_plugins(dir, "write zfp:accuracy=0.5", dir / "out.h5");
  EXPECT_NE(zfp.output.find("hdf5-filter-plugin-zfp-serial"), std::string::npos) << zfp.output;
  const auto deflate = run_child_without_plugins(dir, "write deflate", dir / "out.h5");
  EXPECT_NE(deflate.output.find("created"), std::string::npos) << "deflate is built in: "
                                                               << deflate.output;
  EXPECT_FALSE(fs::exists(dir / "out.h5"));
}

}  // namespace
}  // namespace parasol::io
