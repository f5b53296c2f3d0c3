// Inputs that would cost more than they say: HDF5 files that declare datasets larger than memory,
// memory limits narrower than the machine (ulimit -v), and the one helper that quotes a user's
// text in messages.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "io/commit.hpp"
#include "io/host_memory.hpp"
#include "io/input_file.hpp"
#include "kernels/error.hpp"
#include "kernels/printable.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;

using test::contains;

// A file of a few KB whose dataset "a" declares [1000000 x 1000000] floats: chunked, with no
// chunk ever written, so HDF5 stores nothing of it.
void write_declared_giant(const fs::path& path) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[2] = {1000000, 1000000}, chunk[2] = {64, 64};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  const hid_t dataset =
      H5Dcreate2(file, "a", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dclose(dataset);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
}

template <class Read>
std::string input_error(Read&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(InputFaults, DeclaredGiantDatasetsAreRefusedBeforeAnyRead) {
  const test::ScratchDir dir;
  write_declared_giant(dir / "giant.h5");
  ASSERT_LT(fs::file_size(dir / "giant.h5"), 16384u);
  const auto in = io::open_input_file((dir / "giant.h5").string(), "input.file");
  for (const std::string& m :
       {input_error([&] { (void)in->read_dataset<float>("a"); }),
        input_error([&] { (void)in->read_rows<double>("a", 0, 1000000); }),
        input_error([&] { io::naming_key("signal.dataset", [&] { return in->read_dataset<float>("a"); }); })}) {
    EXPECT_TRUE(contains(m, "giant.h5: /a: holds [1000000 x 1000000] values, which need about "))
        << m;
    EXPECT_TRUE(contains(m, "GiB of host memory")) << m;
  }
  EXPECT_TRUE(contains(input_error([&] {
                         io::naming_key("signal.dataset",
                                        [&] { return in->read_dataset<float>("a"); });
                       }),
                       "(signal.dataset)"));
  // A few rows of it are a fair request: only those are allocated (and read as HDF5's fill).
  EXPECT_EQ(in->read_rows<float>("a", 5, 1).size(), 1000000u);
}

TEST(InputFaults, DeclaredGiantBatchThroughTheFrontEndIsExitTwoNamingTheKey) {
  const test::ScratchDir dir;
  write_declared_giant(dir / "giant.h5");
  const auto r = test::run_shell(
      "{ timeout 60 " + std::string(PARASOL_EXE) + " run '" + PARASOL_SOURCE_DIR +
      "/inputs/tridiag-file.toml' --backend cpu input.file='" + (dir / "giant.h5").string() +
      "' input.b=a input.c=a input.d=a -o '" + (dir / "out.h5").string() + "' 2>&1 >/dev/null; }");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_TRUE(contains(r.output, "input.")) << r.output;
  EXPECT_TRUE(contains(r.output, "GiB")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.h5"));
}

// Under ulimit -v the memory a process may take is what its address space has left, however much
// the machine has free.
TEST(InputFaults, AvailableMemoryHonoursTheAddressSpaceLimit) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    const double before = io::available_host_bytes();
    // 256 MiB more than the child maps now.
    FILE* status = std::fopen("/proc/self/status", "r");
    char line[256];
    double mapped_kib = 0;
    while (status != nullptr && std::fgets(line, sizeof line, status) != nullptr)
      if (std::sscanf(line, "VmSize: %lf kB", &mapped_kib) == 1) break;
    if (status != nullptr) std::fclose(status);
    const rlim_t limit = static_cast<rlim_t>(mapped_kib * 1024) + (rlim_t{256} << 20);
    const rlimit as{limit, limit};
    setrlimit(RLIMIT_AS, &as);
    const double after = io::available_host_bytes();
    const double results[2] = {before, after};
    if (write(fds[1], results, sizeof results) != sizeof results) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  double results[2] = {0, 0};
  ASSERT_EQ(read(fds[0], results, sizeof results), static_cast<ssize_t>(sizeof results));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_LE(results[1], 300.0 * (1 << 20)) << "before the limit: " << results[0];
  EXPECT_GT(results[1], 100.0 * (1 << 20));
  const std::string m = input_error([] {
    io::require_host_memory("a.toml", "grid", "the grid needs", 1e18);
  });
  EXPECT_TRUE(contains(m, "a.toml: grid: the grid needs about ")) << m;
}

TEST(InputFaults, QuotedTextIsEscapedAndCut) {
  EXPECT_EQ(printable("a\nb\tc\x1b"), "a\\nb\\tc\\x1b");
  EXPECT_EQ(printable(std::string(200, 'x'), 80), std::string(80, 'x') + "\xe2\x80\xa6");
  // Never cut inside a UTF-8 character: "Å" is two bytes.
  const std::string cut = printable(std::string(79, 'x') + "\xc3\x85" + "yyy", 80);
  EXPECT_EQ(cut, std::string(79, 'x') + "\xe2\x80\xa6");
  const InputError e("dir/a\nb.toml", std::string(5000, 'k'), "unknown key");
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_LT(what.size(), 120u) << what;
  EXPECT_TRUE(contains(what, "dir/a\\nb.toml: kkk")) << what;
}

TEST(InputFaults, TemporaryNamesFitBesideAnyLegalName) {
  for (const std::size_t length : {1u, 200u, 230u, 239u, 255u}) {
    const std::string name(length, 'n');
    const std::string prefix = io::temporary_prefix(name);
    // A process id and a count follow: at most 10 digits each and a dash.
    EXPECT_LE(prefix.size() + 21, 255u) << length;
    EXPECT_EQ(prefix.rfind("." + name.substr(0, std::min<std::size_t>(length, 200)), 0), 0u);
  }
  EXPECT_NE(io::temporary_prefix(std::string(250, 'n') + "a"),
            io::temporary_prefix(std::string(250, 'n') + "b"));
}

}  // namespace
}  // namespace parasol
