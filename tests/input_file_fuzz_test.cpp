// The HDF5 input readers against random small files: tridiag's batch, recurrence's series and
// fftconv's signal and filter, each dataset missing, a group, strings, a scalar, of a wrong rank
// or type, empty, NaN-filled, or declaring dimensions far past any memory (chunked, so the file
// stays small). Whatever the file, `parasol run` either works (status 0) or refuses it as bad
// input (status 2, one line): never a crash, std::bad_alloc or another error. Seeded; the seed,
// the case and what each dataset was are in a failure's message.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace parasol {
namespace {

using test::kExe;

// One dataset of a random shape and type, written with the plain HDF5 API (not the project's
// writer, which only writes what is valid). Returns what it made, for the failure message.
std::string write_random(hid_t file, const std::string& name, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 99);
  const int kind = pick(rng);
  if (kind < 6) return name + ": missing";
  if (kind < 10) {
    H5Gclose(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return name + ": a group";
  }
  if (kind < 14) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 8);
    const hsize_t n = 3;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t set = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char text[24] = "abcdefghijklmnopqrstuvw";
    H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text);
    H5Dclose(set);
    H5Sclose(space);
    H5Tclose(type);
    return name + ": strings";
  }
  // Numbers: a type a reader converts, or one it may refuse.
  const hid_t types[] = {H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE, H5T_NATIVE_INT8, H5T_NATIVE_INT32,
                         H5T_NATIVE_INT64, H5T_NATIVE_UINT64, H5T_NATIVE_UINT8};
  const char* type_names[] = {"float", "double", "int8", "int32", "int64", "uint64", "uint8"};
  const int t = std::uniform_int_distribution<int>(0, 6)(rng);
  const int rank = kind < 18 ? 0 : std::uniform_int_distribution<int>(1, 4)(rng);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  const bool huge = kind >= 88;
  for (hsize_t& d : dims) d = static_cast<hsize_t>(std::uniform_int_distribution<int>(0, 6)(rng));
  if (huge && rank > 0) {
    // Past any memory: 2^40 to 2^62 elements on one axis, or every axis large.
    const std::size_t axis = std::uniform_int_distribution<std::size_t>(0, dims.size() - 1)(rng);
    dims[axis] = hsize_t(1) << std::uniform_int_distribution<int>(40, 62)(rng);
    if (pick(rng) < 30)
      for (hsize_t& d : dims) d = std::max<hsize_t>(d, hsize_t(1) << 20);
  }
  std::string shape;
  for (const hsize_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  const std::string said = name + ": " + type_names[t] + " [" + shape + "]";
  const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), nullptr);
  hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  double elements = 1;
  for (const hsize_t d : dims) elements *= static_cast<double>(d);
  if (huge && rank > 0) {
    // Chunked with nothing written: the file declares the size and holds none of it.
    std::vector<hsize_t> chunk(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) chunk[i] = std::max<hsize_t>(1, std::min<hsize_t>(dims[i], 4));
    H5Pset_chunk(create, rank, chunk.data());
  }
  const hid_t set = H5Dcreate2(file, name.c_str(), types[t], space, H5P_DEFAULT, create, H5P_DEFAULT);
  H5Pclose(create);
  if (set < 0) {
    H5Sclose(space);
    return said + " (not made)";
  }
  if (!huge && elements > 0) {
    std::vector<double> values(static_cast<std::size_t>(elements));
    std::uniform_real_distribution<double> value(-3.0, 3.0);
    for (double& v : values) {
      const int special = pick(rng);
      v = special < 3 ? std::numeric_limits<double>::quiet_NaN()
          : special < 5 ? std::numeric_limits<double>::infinity()
          : special < 8 ? 0.0
          : special < 10 ? static_cast<double>(std::uniform_int_distribution<int>(0, 6)(rng))
                         : value(rng);
    }
    // HDF5 converts the doubles to the dataset's type (NaN into an integer goes out of range:
    // the conversion's exception handler is left as it is).
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  }
  H5Dclose(set);
  H5Sclose(space);
  return said;
}

// A dataset of doubles as the reader expects it: `values` written when given, else (a declared
// size past any memory) chunked with nothing written.
void write_doubles(hid_t file, const std::string& name, const std::vector<hsize_t>& dims,
                   const std::vector<double>* values, hid_t type = H5T_NATIVE_DOUBLE) {
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  if (values == nullptr) {
    const std::vector<hsize_t> chunk(dims.size(), 1);
    H5Pset_chunk(create, static_cast<int>(dims.size()), chunk.data());
  }
  const hid_t set = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, create, H5P_DEFAULT);
  if (set >= 0 && values != nullptr && !values->empty())
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data());
  if (set >= 0) H5Dclose(set);
  H5Pclose(create);
  H5Sclose(space);
}

// The sizes of one case's valid datasets, alike for all of a reader's: small, or (`huge`) past
// any memory in agreement with each other, so the readers' memory checks are reached.
struct Sizes {
  hsize_t rows = 1, cols = 1;  // tridiag's [systems][n], recurrence's and fftconv's [n] (cols)
  hsize_t taps = 1;            // fftconv's filter
  bool huge = false;
};

Sizes random_sizes(std::mt19937_64& rng) {
  Sizes z;
  std::uniform_int_distribution<int> small(1, 9);
  z.huge = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
  z.rows = static_cast<hsize_t>(small(rng));
  z.cols = static_cast<hsize_t>(small(rng));
  if (z.huge) {
    z.rows = hsize_t(1) << std::uniform_int_distribution<int>(0, 30)(rng);
    z.cols = hsize_t(1) << std::uniform_int_distribution<int>(36, 50)(rng);
  }
  z.taps = std::min<hsize_t>(z.cols, static_cast<hsize_t>(small(rng)));
  return z;
}

// `name` of `reader` as it should be, at sizes `z`.
std::string write_valid(hid_t file, const std::string& reader, const std::string& name,
                        const Sizes& z, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> value(0.5, 1.5);
  const auto values = [&](hsize_t n, double plus) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = value(rng) + plus;
    return v;
  };
  std::vector<hsize_t> dims{z.cols};
  std::vector<double> v;
  if (reader == "tridiag") {
    dims = {z.rows, z.cols};
    if (!z.huge) v = values(z.rows * z.cols, name == "b" ? 4.0 : 0.0);  // diagonally dominant
  } else if (reader == "recurrence" && (name == "offsets" || name == "initial")) {
    // One segment of the whole series, or (small) cuts at random places.
    std::vector<double> offsets{0.0};
    if (!z.huge)
      for (hsize_t i = 1; i < z.cols; ++i)
        if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) offsets.push_back(static_cast<double>(i));
    offsets.push_back(static_cast<double>(z.cols));
    if (name == "offsets") {
      write_doubles(file, name, {offsets.size()}, &offsets, H5T_NATIVE_INT64);
      return name + ": valid int64 [" + std::to_string(offsets.size()) + "]";
    }
    v = values(offsets.size() - 1, 0.0);
    dims = {v.size()};
  } else {
    if (name == "h") dims = {z.taps};
    if (!z.huge || name == "h") v = values(dims[0], 0.0);
  }
  const bool unwritten = v.empty();
  write_doubles(file, name, dims, unwritten ? nullptr : &v);
  std::string shape;
  for (const hsize_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  return name + ": valid [" + shape + "]" + (unwritten ? " (declared, not written)" : "");
}

struct Reader {
  const char* name;
  std::vector<std::string> datasets;  // what the parameters below name, in in.h5
  std::string params;
};

const Reader kReaders[] = {
    {"tridiag",
     {"a", "b", "c", "d"},
     "solver = \"tridiag\"\n[problem]\nkind = \"file\"\n[input]\nfile = \"in.h5\"\na = \"a\"\n"
     "b = \"b\"\nc = \"c\"\nd = \"d\"\n"},
    {"recurrence",
     {"s", "u", "offsets", "initial"},
     "solver = \"recurrence\"\n[problem]\nkind = \"file\"\n[input]\nfile = \"in.h5\"\ns = \"s\"\n"
     "u = \"u\"\noffsets = \"offsets\"\ninitial = \"initial\"\n"},
    {"fftconv",
     {"x", "h"},
     "solver = \"fftconv\"\n[signal]\nsource = \"file\"\nfile = \"in.h5\"\ndataset = \"x\"\n"
     "[filter]\nkind = \"file\"\nfile = \"in.h5\"\ndataset = \"h\"\n"},
};

class InputFileFuzz : public ::testing::TestWithParam<Reader> {};

TEST_P(InputFileFuzz, OnlyInputErrors) {
  const Reader& reader = GetParam();
  // Each case is a run of the program: 60 keep the test to seconds.
  constexpr int kCases = 60;
  std::mt19937_64 rng(test::kSeed);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the making of odd files is expected to complain
  int refused = 0, solved = 0;
  for (int c = 0; c < kCases; ++c) {
    test::ScratchDir dir;
    std::string made;
    const hid_t file = H5Fcreate((dir / "in.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    // Mostly valid files with one dataset (or, now and then, each) made at random: a file
    // wrong everywhere is refused at its first dataset, and the checks after it never run.
    const Sizes sizes = random_sizes(rng);
    const bool all_random = std::uniform_int_distribution<int>(0, 4)(rng) == 0;
    const std::size_t odd =
        std::uniform_int_distribution<std::size_t>(0, reader.datasets.size())(rng);  // size(): none
    for (std::size_t i = 0; i < reader.datasets.size(); ++i) {
      const std::string& name = reader.datasets[i];
      made += "\n  " + (all_random || i == odd ? write_random(file, name, rng)
                                                : write_valid(file, reader.name, name, sizes, rng));
    }
    H5Fclose(file);
    std::ofstream(dir / "p.toml") << reader.params;
    const auto r = test::run_shell(kExe + " run '" + (dir / "p.toml").string() +
                                   "' --backend cpu --quiet -o '" + (dir / "out.h5").string() + "'");
    SCOPED_TRACE("seed " + std::to_string(test::kSeed) + ", case " + std::to_string(c) + ":" + made);
    ASSERT_TRUE(r.status == 0 || r.status == 2) << r.output;
    solved += r.status == 0;
    if (r.status == 2) {
      ++refused;
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
      EXPECT_EQ(r.output.find("bad_alloc"), std::string::npos) << r.output;
      EXPECT_FALSE(std::filesystem::exists(dir / "out.h5"));
    }
  }
  EXPECT_GT(refused, 0) << "no case was refused: the files are not odd enough";
  EXPECT_GT(solved, 0) << "no case was solved: the valid files are not valid";
}

std::string reader_name(const ::testing::TestParamInfo<Reader>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Readers, InputFileFuzz, ::testing::ValuesIn(kReaders), reader_name);

}  // namespace
}  // namespace parasol
