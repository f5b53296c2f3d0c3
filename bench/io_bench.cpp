// What --compression costs: each choice re-writes real result fields (through ResultFile, as a
// run does) and reads them back, beside the uncompressed default. Fields come from results of
// `parasol run`, named as FILE:DATASET; scratch files go to --out (default: the temporary folder).
//   build/iobench/bench/io_bench /tmp/l.h5:/fields/u /tmp/c.h5:/fields/potential
//       --out=/tmp/io-bench --benchmark_counters_tabular=true
// Counters: write_MBps (write and commit, as a run sees it: into the page cache), synced_MBps
// (with fsync: the disk's share too), read_MBps (from the page cache: decompression's share),
// ratio (bytes of data per byte of file) and file_MB.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/result_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace parasol;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kChoices{"none", "deflate:1", "deflate", "lz4", "lz4:bitshuffle",
                                        "zstd:1", "zstd", "zstd:5", "zfp:accuracy=1e-6",
                                        "zfp:accuracy=1e-3"};

struct Field {
  std::string label;  // "laplace3d.h5:/fields/u"
  std::vector<std::uint64_t> dims;
  std::vector<float> values;
  double float_step = 0;  // the distance between floats at the largest |value|
};

fs::path scratch = fs::temp_directory_path() / "parasol-io-bench";

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void fsync_file(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

void bench_field(benchmark::State& state, const Field* field, const std::string& choice) {
  const io::Compression c = io::parse_compression(choice);
  const fs::path path = scratch / "io_bench.h5";
  const double bytes = static_cast<double>(field->values.size() * sizeof(float));
  double write_s = 0, sync_s = 0, read_s = 0, file_bytes = 0, worst = 0;
  for (auto _ : state) {
    fs::remove(path);
    const auto start = Clock::now();
    {
      io::ResultFile out(path, true, c);
      out.write_field("/u", field->values.data(), field->dims);
      out.commit();
      file_bytes = static_cast<double>(out.file_bytes());
    }
    write_s += since(start);
    const auto synced = Clock::now();
    fsync_file(path);
    sync_s += since(synced);
    const auto read = Clock::now();
    const std::vector<float> back = io::ResultReader(path).read_floats("/u");
    read_s += since(read);
    state.SetIterationTime(since(start));
    // Judged outside the clocks: lossless choices give back every bit; zfp stays within its
    // bound, or within half a float step of the largest value where the bound is finer than
    // floats can resolve there (coulomb's potential reaches 471: steps of 3e-5).
    worst = 0;
    for (std::size_t i = 0; i < back.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<double>(back[i]) - field->values[i]));
    if (c.lossy() ? worst > std::max(c.zfp_accuracy, 0.5 * field->float_step)
                  : std::memcmp(back.data(), field->values.data(), static_cast<std::size_t>(bytes)) != 0) {
      state.SkipWithError(("read back wrong: worst error " + std::to_string(worst)).c_str());
      break;
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["write_MBps"] = 1e-6 * bytes * n / write_s;
  state.counters["synced_MBps"] = 1e-6 * bytes * n / (write_s + sync_s);
  state.counters["read_MBps"] = 1e-6 * bytes * n / read_s;
  state.counters["ratio"] = bytes / file_bytes;
  state.counters["file_MB"] = 1e-6 * file_bytes;
  state.counters["max_err"] = worst;
  fs::remove(path);
}

Field load(const std::string& spec) {
  const std::size_t colon = spec.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error(spec + ": expected FILE:DATASET");
  const fs::path file = spec.substr(0, colon);
  const std::string dataset = spec.substr(colon + 1);
  const io::ResultReader in(file);
  Field f;
  f.label = file.filename().string() + ":" + dataset;
  f.dims = in.dims(dataset);
  f.values = in.read_floats(dataset);
  float largest = 0;
  for (const float v : f.values) largest = std::max(largest, std::abs(v));
  f.float_step = static_cast<double>(std::nextafter(largest, INFINITY) - largest);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static std::vector<std::unique_ptr<Field>> fields;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--out=", 0) == 0) {
      scratch = arg.substr(6);
    } else {
      fields.push_back(std::make_unique<Field>(load(arg)));
    }
  }
  if (fields.empty()) {
    std::fprintf(stderr, "usage: io_bench FILE:DATASET... [--out=FOLDER] [benchmark flags]\n");
    return 2;
  }
  fs::create_directories(scratch);
  for (const auto& f : fields)
    for (const std::string& choice : kChoices)
      benchmark::RegisterBenchmark((f->label + "/" + choice).c_str(), bench_field, f.get(), choice)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(3);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
