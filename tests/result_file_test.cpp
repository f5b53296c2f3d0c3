#include "io/result_file.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "kernels/error.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

// Each test writes into a folder of its own, removed afterwards, so "the folder is empty" is a
// precise check for leftover temporaries and a second run starts clean.
class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    folder_ = fs::temp_directory_path() /
              ("parasol_result_file_test_" + std::to_string(getpid()) + "_" + test);
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }

  const fs::path& folder() const { return folder_; }
  fs::path out() const { return folder_ / "out.h5"; }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path folder_;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Seeded values, plus the ones a careless conversion would alter: signed zero, infinities,
// a NaN with payload and a subnormal.
template <class T>
std::vector<T> random_field(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<T> dist(-1e3, 1e3);
  std::vector<T> values(count);
  for (T& v : values) v = dist(gen);
  const T specials[] = {T(-0.0), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::denorm_min()};
  for (std::size_t i = 0; i < std::size(specials) && i < count; ++i)
    values[i * 7 % count] = specials[i];
  return values;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

std::uint64_t product(const std::vector<std::uint64_t>& dims) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : dims) n *= d;
  return n;
}

// The chunk shape and filter count of a dataset, straight from HDF5.
struct Layout {
  std::vector<hsize_t> chunk;
  int filters = 0;
};

Layout layout_of(const fs::path& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(d);
  Layout layout;
  layout.chunk.resize(8);
  const int rank = H5Pget_chunk(dcpl, 8, layout.chunk.data());
  layout.chunk.resize(rank > 0 ? static_cast<std::size_t>(rank) : 0);
  layout.filters = H5Pget_nfilters(dcpl);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return layout;
}

TEST_F(ResultFileTest, FloatFieldRoundTripsBitForBit) {
  const unsigned seed = 20240611;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::uint64_t> dims{5, 7, 11};  // [nz][ny][nx], all different
  const auto u = random_field<float>(product(dims), seed);
  {
    ResultFile file(out(), false);
    file.write_field("/fields/u", u.data(), dims);
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_EQ(reader.dims("/fields/u"), dims);
  EXPECT_TRUE(same_bits(reader.read_floats("/fields/u"), u));
  EXPECT_FALSE(reader.is_chunked("/fields/u"));
}

TEST_F(ResultFileTest, DoubleFieldRoundTripsBitForBit) {
  const unsigned seed = 7;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::uint64_t> dims{3, 1, 17};
  const auto u = random_field<double>(product(dims), seed);
  {
    ResultFile file(out(), false);
    file.write_field("/fields/u", u.data(), dims);
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_EQ(reader.dims("/fields/u"), dims);
  EXPECT_TRUE(same_bits(reader.read_doubles("/fields/u"), u));
}

TEST_F(ResultFileTest, FloatFieldReadsAsDoublesExactly) {
  const std::vector<float> u{1.5f, -0.1f, 3e-39f};
  {
    ResultFile file(out(), false);
    file.write_field("/u", u.data(), {3});
    file.commit();
  }
  const std::vector<double> widened = ResultReader(out()).read_doubles("/u");
  ASSERT_EQ(widened.size(), u.size());
  for (std::size_t i = 0; i < u.size(); ++i) EXPECT_EQ(widened[i], static_cast<double>(u[i]));
}

TEST_F(ResultFileTest, LargeFieldIsChunkedCompressedAndRoundTrips) {
  const unsigned seed = 99;
  SCOPED_TRACE("seed " + std::to_string(seed));
  // 40 slabs of 64x128 floats: 32 KiB each, so 32 slabs make a 1 MiB chunk.
  const std::vector<std::uint64_t> dims{40, 64, 128};
  const auto u = random_field<float>(product(dims), seed);
  {
    ResultFile file(out(), false, parse_compression("deflate"));
    file.write_field("/fields/u", u.data(), dims);
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.is_chunked("/fields/u"));
  EXPECT_TRUE(reader.is_compressed("/fields/u"));
  EXPECT_TRUE(same_bits(reader.read_floats("/fields/u"), u));
  const Layout layout = layout_of(out(), "/fields/u");
  EXPECT_EQ(layout.chunk, (std::vector<hsize_t>{32, 64, 128}));
  EXPECT_EQ(layout.filters, 2);  // shuffle, deflate
}

// The default is made for the disk's speed: large fields chunked, no filter, so any HDF5 reads
// them without a plugin.
TEST_F(ResultFileTest, DefaultStoresLargeFieldsChunkedWithoutFilters) {
  const std::vector<std::uint64_t> dims{40, 64, 128};
  const auto u = random_field<float>(product(dims), 12);
  {
    ResultFile file(out(), false);
    EXPECT_EQ(name(file.compression()), "none");
    file.write_field("/fields/u", u.data(), dims);
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.is_chunked("/fields/u"));
  EXPECT_FALSE(reader.is_compressed("/fields/u"));
  EXPECT_FALSE(reader.has_attribute("/fields/u", "compression"));
  EXPECT_TRUE(same_bits(reader.read_floats("/fields/u"), u));
}

TEST_F(ResultFileTest, CompressionZeroStoresChunksAsTheyAre) {
  const std::vector<std::uint64_t> dims{40, 64, 128};
  const auto u = random_field<float>(product(dims), 7);
  const auto v = random_field<double>(300001, 8);
  {
    ResultFile file(out(), false, 0);
    file.write_field("/fields/u", u.data(), dims);
    file.create_dataset<double>("/streamed/v", v.size());
    file.write_slab("/streamed/v", 0, v.data(), 123457);
    file.write_slab("/streamed/v", 123457, v.data() + 123457, v.size() - 123457);
    file.commit();
  }
  const ResultReader reader(out());
  for (const char* path : {"/fields/u", "/streamed/v"}) {
    EXPECT_TRUE(reader.is_chunked(path)) << path;
    EXPECT_FALSE(reader.is_compressed(path)) << path;
    EXPECT_EQ(layout_of(out(), path).filters, 0) << path;
  }
  EXPECT_TRUE(same_bits(reader.read_floats("/fields/u"), u));
  EXPECT_TRUE(same_bits(reader.read_doubles("/streamed/v"), v));
}

TEST_F(ResultFileTest, CompressionLevelOutsideZeroToNineIsRefused) {
  for (const int level : {-1, 10}) {
    try {
      ResultFile file(out(), true, level);
      ADD_FAILURE() << "accepted level " << level;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("compression level"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(out()));
}

TEST_F(ResultFileTest, RowLargerThanAChunkIsCutAlongTheLastDimension) {
  // Rows of 2^18 doubles (2 MiB) do not fit a 1 MiB chunk whole.
  const std::vector<std::uint64_t> dims{2, std::uint64_t{1} << 18};
  const auto u = random_field<double>(product(dims), 5);
  {
    ResultFile file(out(), false);
    file.write_field("/fields/wide", u.data(), dims);
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(same_bits(reader.read_doubles("/fields/wide"), u));
  EXPECT_EQ(layout_of(out(), "/fields/wide").chunk, (std::vector<hsize_t>{1, 1 << 17}));
}

TEST_F(ResultFileTest, ChunkingStartsAt64KiElements) {
  const std::vector<float> just_below((1 << 16) - 1, 1.0f), at(1 << 16, 2.0f);
  {
    ResultFile file(out(), false);
    file.write_field("/below", just_below.data(), {just_below.size()});
    file.write_field("/at", at.data(), {at.size()});
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_FALSE(reader.is_chunked("/below"));
  EXPECT_TRUE(reader.is_chunked("/at"));
  EXPECT_EQ(reader.read_floats("/at"), at);
}

TEST_F(ResultFileTest, EmptyOrZeroSizedFieldIsRejected) {
  ResultFile file(out(), false);
  const float value = 0;
  EXPECT_THROW(file.write_field("/fields/u", &value, {4, 0, 4}), Error);
  EXPECT_THROW(file.write_field("/fields/u", &value, {}), Error);
  EXPECT_THROW(file.write_field("/fields/u", static_cast<const float*>(nullptr), {1}), Error);
  // The file is still usable afterwards.
  file.write_field("/fields/u", &value, {1, 1, 1});
  file.commit();
  EXPECT_EQ(ResultReader(out()).dims("/fields/u"), (std::vector<std::uint64_t>{1, 1, 1}));
}

TEST_F(ResultFileTest, DatasetWrittenTwiceNamesTheCallAndPath) {
  ResultFile file(out(), false);
  const double value = 1;
  file.write_field("/fields/u", &value, {1});
  try {
    file.write_field("/fields/u", &value, {1});
    FAIL() << "expected parasol::Error";
  } catch (const InputError&) {
    FAIL() << "an HDF5 failure is not an input error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("H5Dcreate2(/fields/u): failed"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("out.h5"), std::string::npos) << e.what();
  }
}

// What a call threw, or "" when it did not throw parasol::Error.
template <class Call>
std::string error_from(Call call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(ResultFileTest, PathThroughADatasetIsRefusedByName) {
  ResultFile file(out(), false);
  const double value = 1;
  file.write_field("/fields/u", &value, {1});
  const std::string field = error_from([&] { file.write_field("/fields/u/v", &value, {1}); });
  EXPECT_NE(field.find("/fields/u is not a group"), std::string::npos) << field;
  const std::string attribute = error_from([&] { file.set_attribute("/fields/u/g", "a", true); });
  EXPECT_NE(attribute.find("/fields/u is not a group"), std::string::npos) << attribute;
}

TEST_F(ResultFileTest, EveryAttributeTypeRoundTrips) {
  const std::vector<std::pair<std::string, AttributeValue>> values{
      {"flag_true", true},
      {"flag_false", false},
      {"count", std::int64_t{-9007199254740993}},  // not representable as a double
      {"big", std::numeric_limits<std::int64_t>::max()},
      {"tolerance", 1e-300},
      {"third", 1.0 / 3.0},
      {"name", std::string("zreg")},
      {"unicode", std::string("\xce\x94t = 0.5 \xc2\xb5s")},
      {"empty", std::string()},
      {"block", std::vector<std::int64_t>{32, 8, 1}},
      {"no_ints", std::vector<std::int64_t>{}},
      {"spacing", std::vector<double>{0.1, 0.25, -1e10}},
      {"no_doubles", std::vector<double>{}},
  };
  {
    ResultFile file(out(), false);
    for (const auto& [name, value] : values) file.set_attribute("/", name, value);
    file.commit();
  }
  const ResultReader reader(out());
  for (const auto& [name, value] : values) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(reader.has_attribute("/", name));
    const AttributeValue back = reader.attribute("/", name);
    EXPECT_EQ(back.index(), value.index());
    EXPECT_TRUE(back == value);
  }
  std::vector<std::string> names;
  for (const auto& entry : values) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(reader.attribute_names("/"), names);
  EXPECT_FALSE(reader.has_attribute("/", "missing"));
  EXPECT_THROW(reader.attribute("/", "missing"), Error);
}

TEST_F(ResultFileTest, AttributesGoOnNestedGroupsCreatedOnDemandAndOnDatasets) {
  const float u[2] = {1, 2};
  {
    ResultFile file(out(), false);
    file.set_attribute("/parameters/grid", "nx", std::int64_t{256});
    // Without the leading slash and with a trailing one: still /parameters/method.
    file.set_attribute("parameters/method/", "variant", std::string("zreg"));
    file.write_field("/fields/u", u, {2});
    file.set_attribute("/fields/u", "units", std::string("K"));
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.exists("/"));
  EXPECT_TRUE(reader.exists("/parameters"));
  EXPECT_TRUE(reader.exists("/parameters/grid"));
  EXPECT_TRUE(reader.exists("/parameters/method"));
  EXPECT_TRUE(reader.exists("/fields/u"));
  EXPECT_FALSE(reader.exists("/fields/v"));
  EXPECT_FALSE(reader.exists("/nowhere/deeper/still"));  // missing intermediate: false, no error
  EXPECT_FALSE(reader.exists("/fields/u/inside"));       // below a dataset: false, no error
  EXPECT_TRUE(reader.attribute("/parameters/grid", "nx") == AttributeValue(std::int64_t{256}));
  EXPECT_TRUE(reader.attribute("/parameters/method", "variant") ==
              AttributeValue(std::string("zreg")));
  EXPECT_TRUE(reader.attribute("/fields/u", "units") == AttributeValue(std::string("K")));
  EXPECT_TRUE(reader.attribute_names("/").empty());
  EXPECT_EQ(reader.attribute_names("/fields/u"), std::vector<std::string>{"units"});
  // The dataset is still a dataset (its attribute did not replace it with a group).
  EXPECT_EQ(reader.read_floats("/fields/u"), (std::vector<float>{1, 2}));
}

TEST_F(ResultFileTest, AttributeIsOverwrittenEvenWithAnotherType) {
  {
    ResultFile file(out(), false);
    file.set_attribute("/run", "status", std::string("running"));
    file.set_attribute("/run", "status", std::string("converged after 12 iterations"));
    file.set_attribute("/run", "iterations", std::int64_t{5});
    file.set_attribute("/run", "iterations", std::vector<double>{1.5, 2.5});
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.attribute("/run", "status") ==
              AttributeValue(std::string("converged after 12 iterations")));
  EXPECT_TRUE(reader.attribute("/run", "iterations") ==
              AttributeValue(std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(reader.attribute_names("/run"), (std::vector<std::string>{"iterations", "status"}));
}

TEST_F(ResultFileTest, ColumnsRoundTrip) {
  const std::vector<std::string> variants{"zmarch", "", "block3d", "pcr-shared", "\xce\xb1"};
  const std::vector<std::int64_t> iterations{0, -1, std::numeric_limits<std::int64_t>::min(), 42};
  const std::vector<double> seconds{0.5, 1e-9, -0.0, 3.25};
  {
    ResultFile file(out(), false);
    file.write_column("/timings/variant", variants);
    file.write_column("/timings/iterations", iterations);
    file.write_column("/timings/seconds", seconds);
    file.write_column("/empty/strings", std::vector<std::string>{});
    file.write_column("/empty/ints", std::vector<std::int64_t>{});
    file.write_column("/empty/doubles", std::vector<double>{});
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_EQ(reader.read_strings("/timings/variant"), variants);
  EXPECT_EQ(reader.read_ints("/timings/iterations"), iterations);
  EXPECT_TRUE(same_bits(reader.read_doubles("/timings/seconds"), seconds));
  EXPECT_EQ(reader.dims("/timings/variant"), std::vector<std::uint64_t>{5});
  EXPECT_TRUE(reader.read_strings("/empty/strings").empty());
  EXPECT_TRUE(reader.read_ints("/empty/ints").empty());
  EXPECT_TRUE(reader.read_doubles("/empty/doubles").empty());
  EXPECT_EQ(reader.dims("/empty/doubles"), std::vector<std::uint64_t>{0});
  EXPECT_THROW(reader.read_strings("/timings/seconds"), Error);
}

// Files written by other tools (h5py writes variable-length strings by default) read too.
TEST_F(ResultFileTest, ReaderAcceptsVariableLengthStrings) {
  {
    const hid_t f = H5Fcreate(out().c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(f, "note", type, scalar, H5P_DEFAULT, H5P_DEFAULT);
    const char* note = "written by h5py";
    H5Awrite(attribute, type, &note);
    const hsize_t n = 2;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t dataset =
        H5Dcreate2(f, "names", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char* names[2] = {"alpha", ""};
    H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
    H5Dclose(dataset);
    H5Sclose(space);
    H5Aclose(attribute);
    H5Sclose(scalar);
    H5Tclose(type);
    H5Fclose(f);
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.attribute("/", "note") == AttributeValue(std::string("written by h5py")));
  EXPECT_EQ(reader.read_strings("/names"), (std::vector<std::string>{"alpha", ""}));
}

// A streamed result: a dataset made at its full length, then written in parts.
TEST_F(ResultFileTest, DatasetWrittenInPartsRoundTripsBitForBit) {
  const unsigned seed = 11;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto u = random_field<float>(700001, seed);
  {
    ResultFile file(out(), false, parse_compression("deflate"));
    file.create_dataset<float>("/streamed/y", u.size());
    // Parts of awkward sizes: one ends inside a 2^18-element chunk and the next finishes it.
    std::uint64_t offset = 0;
    for (const std::uint64_t part : {1, 262142, 262146, 99999}) {
      file.write_slab("/streamed/y", offset, u.data() + offset, part);
      offset += part;
    }
    file.write_slab("/streamed/y", offset, u.data() + offset, u.size() - offset);
    file.write_slab("/streamed/y", u.size(), u.data(), 0);  // nothing, at the very end
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_EQ(reader.dims("/streamed/y"), (std::vector<std::uint64_t>{700001}));
  EXPECT_TRUE(same_bits(reader.read_floats("/streamed/y"), u));
  const Layout layout = layout_of(out(), "/streamed/y");
  EXPECT_EQ(layout.chunk, (std::vector<hsize_t>{1 << 18}));  // 1 MiB of floats
  EXPECT_EQ(layout.filters, 2);
}

TEST_F(ResultFileTest, PartsMayComeInAnyOrderAndUnwrittenElementsReadZero) {
  const std::vector<double> u{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  {
    ResultFile file(out(), false);
    // Chunked however short: a dataset written in parts may be written a part at a time.
    file.create_dataset<double>("/y", 10);
    file.write_slab("/y", 6, u.data() + 6, 4);
    file.write_slab("/y", 0, u.data(), 3);
    file.write_field("/grid", u.data(), {2, 5});
    const std::string past = error_from([&] { file.write_slab("/y", 8, u.data(), 3); });
    EXPECT_NE(past.find("/y: elements 8 + 3 are past its end, 10"), std::string::npos) << past;
    const std::string flat = error_from([&] { file.write_slab("/grid", 0, u.data(), 1); });
    EXPECT_NE(flat.find("/grid: write_slab needs a 1D dataset"), std::string::npos) << flat;
    EXPECT_THROW(file.create_dataset<float>("/none", 0), Error);
    EXPECT_THROW(file.create_dataset<float>("/y", 4), Error) << "it exists already";
    file.commit();
  }
  const ResultReader reader(out());
  EXPECT_TRUE(reader.is_chunked("/y"));
  EXPECT_EQ(reader.read_doubles("/y"), (std::vector<double>{1, 2, 3, 0, 0, 0, 7, 8, 9, 10}));
  EXPECT_FALSE(reader.exists("/none"));
}

TEST_F(ResultFileTest, ReadSlabReadsARangeWithReadDatasetsChecks) {
  const auto u = random_field<float>(100000, 17);
  const std::vector<std::int64_t> counts{4, -5, 6, 7};
  {
    ResultFile file(out(), false);
    file.write_field("/u", u.data(), {u.size()});  // chunked: 100000 elements
    file.write_field("/grid", u.data(), {3, 4});
    file.write_column("/counts", counts);
    file.write_column("/names", std::vector<std::string>{"a"});
    file.commit();
  }
  const ResultReader reader(out());
  const std::vector<float> part = reader.read_slab<float>("/u", 70001, 999);
  EXPECT_TRUE(same_bits(part, std::vector<float>(u.begin() + 70001, u.begin() + 71000)));
  const std::vector<double> widened = reader.read_slab<double>("/u", 99990, 10);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(widened[i], static_cast<double>(u[99990 + i]));
  EXPECT_TRUE(reader.read_slab<float>("/u", 100000, 0).empty());
  EXPECT_EQ(reader.read_slab<std::int64_t>("/counts", 1, 2), (std::vector<std::int64_t>{-5, 6}));
  EXPECT_EQ(reader.read_slab<double>("/counts", 3, 1), (std::vector<double>{7}));

  const auto expect_input_error = [&](auto call, const std::string& part_of_message) {
    try {
      call();
      ADD_FAILURE() << "expected InputError: " << part_of_message;
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), out().string());
      EXPECT_NE(std::string(e.what()).find(part_of_message), std::string::npos) << e.what();
    }
  };
  expect_input_error([&] { reader.read_slab<float>("/u", 99990, 11); },
                     "/u: holds 100000 elements; expected at least 99990 + 11");
  expect_input_error([&] { reader.read_slab<float>("/grid", 0, 1); },
                     "/grid: expected a dataset of rank 1, got rank 2 (3 x 4)");
  expect_input_error([&] { reader.read_slab<float>("/nope", 0, 1); }, "/nope: no such dataset");
  expect_input_error([&] { reader.read_slab<float>("/names", 0, 1); },
                     "/names: expected a dataset of numbers");
  expect_input_error([&] { reader.read_slab<std::int64_t>("/u", 0, 1); },
                     "/u: expected a dataset of integers");

  // The extent alone, with the same checks.
  EXPECT_EQ(reader.dataset_dims<float>("/grid"), (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(reader.dataset_dims<double>("/u", {1}), (std::vector<std::uint64_t>{100000}));
  expect_input_error([&] { reader.dataset_dims<float>("/grid", {1, 3}); },
                     "expected a dataset of rank 1 or 3, got rank 2 (3 x 4)");
  expect_input_error([&] { reader.dataset_dims<float>("/names"); }, "dataset of numbers");
}

// What a user's input file may hold where a solver expects numbers: each an InputError on one
// line naming the file, the dataset and what was expected, never HDF5's words.
TEST_F(ResultFileTest, UserDatasetsThatAreNotNumbersAreNamedInTheUsersWords) {
  {
    ResultFile file(out(), false);
    const double grid[6] = {1, 2, 3, 4, 5, 6};
    file.write_field("/grid", grid, {2, 3});
    file.write_column("/names", std::vector<std::string>{"a", "b"});
    file.set_attribute("/group/inner", "note", std::string("a group"));
    file.commit();
  }
  {
    // A compound dataset, as a table written by h5py or PyTables would be.
    const hid_t f = H5Fopen(out().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t type = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(type, "x", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "y", 8, H5T_NATIVE_DOUBLE);
    const hsize_t n = 2;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(f, "records", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(f);
  }
  const ResultReader reader(out());
  const std::string file = out().string();
  const std::vector<std::pair<std::function<void()>, std::string>> cases{
      {[&] { reader.read_dataset<double>("/names"); },
       file + ": /names: expected a dataset of numbers"},
      {[&] { reader.read_dataset<std::int64_t>("/names"); },
       file + ": /names: expected a dataset of integers"},
      {[&] { reader.read_dataset<double>("/records"); },
       file + ": /records: expected a dataset of numbers"},
      {[&] { reader.read_dataset<float>("/group"); },
       file + ": /group: expected a dataset, found a group"},
      {[&] { reader.dataset_dims<float>("group/inner/"); },
       file + ": /group/inner: expected a dataset, found a group"},
      {[&] { reader.read_slab<double>("/group", 0, 1); },
       file + ": /group: expected a dataset, found a group"},
      {[&] { reader.read_dataset<double>("/"); },
       file + ": /: is the file's root group; expected the path of a dataset"},
      {[&] { reader.dataset_dims<double>("//"); }, "is the file's root group"},
      {[&] { reader.read_dataset<double>(""); },
       file + ": \"\": no dataset named; expected the path of a dataset in it"},
      {[&] { reader.read_slab<double>("", 0, 1); }, "no dataset named"},
      {[&] { reader.read_dataset<double>("/grid", {1, 3}); },
       file + ": /grid: expected a dataset of rank 1 or 3, got rank 2 (2 x 3)"},
      {[&] { reader.read_dataset<double>("/grid/deeper"); }, file + ": /grid/deeper: no such dataset"},
  };
  for (const auto& [call, expected] : cases) {
    SCOPED_TRACE(expected);
    try {
      call();
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.find("H5"), std::string::npos) << what;
      EXPECT_EQ(e.source(), file);
    }
  }
}

TEST_F(ResultFileTest, ReaderOfAFolderSaysSo) {
  try {
    ResultReader reader(folder());
    FAIL() << "a folder opened as HDF5";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder, expected an HDF5 file"), std::string::npos)
        << e.what();
  }
}

// What a write costs: seconds in dataset writes, bytes of data, and the file's size once whole.
TEST_F(ResultFileTest, WriteCostsAreCountedAndLargeFieldsReportProgress) {
  // 80 MiB of floats: three 32 MiB slabs, the last one short.
  const std::vector<std::uint64_t> dims{160, 512, 256};
  const std::vector<float> u(product(dims), 0.5f);
  const std::vector<double> small{1, 2, 3};
  std::vector<std::uint64_t> done;
  std::vector<double> seconds;
  ResultFile file(out(), false);
  file.on_progress([&](std::uint64_t d, std::uint64_t total, double s) {
    EXPECT_EQ(total, u.size() * sizeof(float));
    done.push_back(d);
    seconds.push_back(s);
  });
  EXPECT_EQ(file.bytes_written(), 0u);
  EXPECT_EQ(file.write_seconds(), 0.0);
  file.write_field("/fields/u", u.data(), dims);
  file.write_column("/small", small);
  EXPECT_EQ(file.bytes_written(), u.size() * sizeof(float) + small.size() * sizeof(double));
  EXPECT_GT(file.write_seconds(), 0.0);
  EXPECT_EQ(file.file_bytes(), 0u) << "not known before commit";
  file.commit();
  EXPECT_EQ(file.file_bytes(), fs::file_size(out()));
  EXPECT_GE(file.file_bytes(), file.bytes_written()) << "no filter: every byte is on disk";
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done.back(), u.size() * sizeof(float));
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_TRUE(std::is_sorted(seconds.begin(), seconds.end()));
  EXPECT_TRUE(same_bits(ResultReader(out()).read_floats("/fields/u"), u));
}

// Several writers of one file, passing the turn: the owner makes the datasets, each other writer
// opens the temporary with a Part while the owner is suspended.
TEST_F(ResultFileTest, WritersTakingTurnsFillOneResult) {
  const std::vector<std::uint64_t> dims{7, 50, 300};  // 105000 elements: chunked
  const auto u = random_field<double>(product(dims), 31);
  const std::uint64_t plane = dims[1] * dims[2];
  // "Ranks" own planes [0, 3), [3, 5) and [5, 7).
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranks{{0, 3}, {3, 2}, {5, 2}};
  {
    ResultFile file(out(), false, parse_compression("deflate:1"));
    file.create_dataset<double>("/fields/u", dims);
    file.create_dataset<float>("/fields/small", std::vector<std::uint64_t>{2, 3});
    file.set_attribute("/", "ranks", std::int64_t{3});
    file.write_hyperslab("/fields/u", {0, 0, 0}, {ranks[0].second, dims[1], dims[2]}, u.data());
    file.suspend();
    EXPECT_THROW(file.set_attribute("/", "late", true), Error) << "not this writer's turn";
    for (std::size_t r = 1; r < ranks.size(); ++r) {
      ResultFile::Part part(file.temporary_path());
      const auto [first, count] = ranks[r];
      part.write_hyperslab("/fields/u", {first, 0, 0}, {count, dims[1], dims[2]},
                           u.data() + first * plane);
      part.set_attribute("/ranks/" + std::to_string(r), "planes", std::int64_t(count));
      part.close();
    }
    file.resume();
    const float small[3] = {1, 2, 3};
    file.write_hyperslab("/fields/small", {1, 0}, {1, 3}, small);
    EXPECT_THROW(file.write_hyperslab("/fields/small", {1, 1}, {1, 3}, small), Error);
    EXPECT_THROW(file.write_hyperslab("/fields/small", {0}, {3}, small), Error);
    file.suspend();
    file.commit();  // straight from suspended: the file is already closed
  }
  const ResultReader reader(out());
  EXPECT_TRUE(same_bits(reader.read_doubles("/fields/u"), u));
  EXPECT_TRUE(reader.is_chunked("/fields/u"));
  EXPECT_TRUE(reader.attribute("/fields/u", "compression") == AttributeValue(std::string("deflate:1")));
  EXPECT_EQ(reader.read_floats("/fields/small"), (std::vector<float>{0, 0, 0, 1, 2, 3}));
  EXPECT_TRUE(reader.attribute("/ranks/2", "planes") == AttributeValue(std::int64_t{2}));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFileTest, PartNeverDeletesAndOwnerStillCleansUp) {
  fs::path temporary;
  {
    ResultFile file(out(), false);
    temporary = file.temporary_path();
    file.suspend();
    { ResultFile::Part part(temporary); }  // dropped without close(): still not deleted
    EXPECT_TRUE(fs::exists(temporary));
    EXPECT_THROW(ResultFile::Part(folder() / "absent.h5"), Error);
  }
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_TRUE(entries().empty());
}

TEST_F(ResultFileTest, ExistingOutputWithoutForceIsAnInputErrorAndStaysUntouched) {
  { std::ofstream(out()) << "precious"; }
  try {
    ResultFile file(out(), false);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), out().string());
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(out()), "precious");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFileTest, ExistingOutputWithForceIsReplacedOnlyAtCommit) {
  { std::ofstream(out()) << "old"; }
  const double value = 4;
  ResultFile file(out(), true);
  file.write_field("/u", &value, {1});
  EXPECT_EQ(read_text(out()), "old");  // until commit, the old result is still whole
  file.commit();
  EXPECT_EQ(ResultReader(out()).read_doubles("/u"), std::vector<double>{4});
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFileTest, MissingFolderIsAnInputError) {
  const fs::path path = folder() / "no" / "such" / "out.h5";
  EXPECT_THROW(ResultFile(path, false), InputError);
  EXPECT_THROW(ResultFile(path, true), InputError);
  EXPECT_THROW(write_file_atomically(folder() / "missing" / "out.xmf", "x"), InputError);
  EXPECT_TRUE(entries().empty());
}

TEST_F(ResultFileTest, OutputPathThatIsAFolderIsAnInputError) {
  fs::create_directory(out());
  EXPECT_THROW(ResultFile(out(), true), InputError);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFileTest, ReaderReportsMissingAndForeignFiles) {
  EXPECT_THROW(ResultReader(folder() / "absent.h5"), InputError);
  { std::ofstream(out()) << "not an HDF5 file"; }
  try {
    ResultReader reader(out());
    FAIL() << "expected parasol::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(out().string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("H5Fopen"), std::string::npos) << e.what();
  }
}

TEST_F(ResultFileTest, UncommittedFileLeavesNothingBehind) {
  const auto u = random_field<float>(1000, 3);
  fs::path temporary;
  try {
    ResultFile file(out(), false);
    temporary = file.temporary_path();
    file.write_field("/fields/u", u.data(), {10, 10, 10});
    EXPECT_TRUE(fs::exists(temporary));
    throw std::runtime_error("the solver failed mid-write");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(temporary.empty());
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_TRUE(entries().empty());
}

TEST_F(ResultFileTest, CommitRenamesTheTemporaryIntoPlace) {
  ResultFile file(out(), false);
  const fs::path temporary = file.temporary_path();
  // Beside the final file (so the rename is atomic), hidden, and not the final name.
  EXPECT_TRUE(fs::equivalent(temporary.parent_path(), folder()));
  EXPECT_EQ(temporary.filename().string().front(), '.');
  EXPECT_NE(temporary.filename(), out().filename());
  EXPECT_TRUE(fs::exists(temporary));
  EXPECT_FALSE(fs::exists(out()));
  file.set_attribute("/", "solver", std::string("laplace3d"));
  file.commit();
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_TRUE(fs::exists(out()));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
  EXPECT_THROW(file.set_attribute("/", "late", true), Error);
  EXPECT_THROW(file.commit(), Error);
}

TEST_F(ResultFileTest, RelativePathInTheCurrentFolder) {
  const fs::path previous = fs::current_path();
  fs::current_path(folder());
  {
    ResultFile file("relative.h5", false);
    file.set_attribute("/", "ok", true);
    file.commit();
  }
  fs::current_path(previous);
  EXPECT_TRUE(ResultReader(folder() / "relative.h5").attribute("/", "ok") == AttributeValue(true));
  EXPECT_EQ(entries(), std::vector<std::string>{"relative.h5"});
}

TEST_F(ResultFileTest, MovedFromFileDoesNotDeleteTheMovedToFilesTemporary) {
  const double value = 1;
  std::optional<ResultFile> target;
  {
    ResultFile source(out(), false);
    source.write_field("/u", &value, {1});
    target.emplace(std::move(source));
    EXPECT_TRUE(source.temporary_path().empty());
    EXPECT_THROW(source.commit(), Error);
  }  // the moved-from source is destroyed here
  ASSERT_TRUE(fs::exists(target->temporary_path()));
  target->set_attribute("/", "after_move", true);
  target->commit();
  target.reset();
  const ResultReader reader(out());
  EXPECT_EQ(reader.read_doubles("/u"), std::vector<double>{1});
  EXPECT_TRUE(reader.attribute("/", "after_move") == AttributeValue(true));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFileTest, MovedToFileDestroyedUncommittedCleansUpOnce) {
  {
    ResultFile source(out(), false);
    ResultFile target(std::move(source));
    EXPECT_TRUE(fs::exists(target.temporary_path()));
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(ResultFileTest, WriteFileAtomicallyWritesWholeAndLeavesNoTemporary) {
  const fs::path sidecar = folder() / "out.xmf";
  std::string contents(100000, 'x');
  contents += "\nend\n";
  write_file_atomically(sidecar, contents);
  EXPECT_EQ(read_text(sidecar), contents);
  write_file_atomically(sidecar, "second");  // replaces, as a rerun's sidecar must
  EXPECT_EQ(read_text(sidecar), "second");
  write_file_atomically(sidecar, "");
  EXPECT_EQ(read_text(sidecar), "");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.xmf"});
}

TEST_F(ResultFileTest, SignalRemovesTemporariesAndTheProcessDiesOfIt) {
  const pid_t child = fork();
  ASSERT_NE(child, -1) << std::strerror(errno);
  if (child == 0) {
    // Only async-signal-safe exits from here on: the child must not run the parent's tests.
    try {
      ResultFile file(out(), false);
      remove_temporaries_on_signal();
      const float u[4] = {1, 2, 3, 4};
      file.write_field("/fields/u", u, {4});
      if (!fs::exists(file.temporary_path())) _exit(3);  // nothing to clean: a vacuous pass
      raise(SIGTERM);
    } catch (...) {
      _exit(4);
    }
    _exit(5);  // survived the signal
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace parasol::io
