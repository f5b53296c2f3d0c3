// What a user waits for: each solver's study input run end to end through `parasol run`'s driver
// on the GPU, with every phase of the run's wall time as a counter (seconds: setup, host_to_device,
// compute, device_to_host, write and the solver's own, and wall), so the phase that dominates is
// seen beside the rest. The result file is written as a run writes it (uncompressed by default).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/binding.hpp"
#include "apps/driver.hpp"
#include "io/result_reader.hpp"
#include "comm/context.hpp"

namespace parasol {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* solver;
  const char* input;  // under inputs/
};

constexpr Case kCases[] = {{"laplace3d", "laplace3d-512.toml"},
                           {"montecarlo", "montecarlo-9.6m.toml"},
                           {"coulomb", "coulomb-bench.toml"},
                           {"tridiag", "heat1d.toml"},
                           {"fftconv", "fftconv.toml"},
                           {"recurrence", "recurrence-256m.toml"}};

comm::Context& context() {
  static comm::Context c;
  return c;
}

bool is_phase(const std::string& name) {
  const auto ends = [&](const std::string& tail) {
    return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends("_s") && !ends("per_s") && !ends("_mean_s") && name != "total_s" &&
         name != "solve_s";
}

void end_to_end(benchmark::State& state, const Case& c) {
  const fs::path dir = fs::temp_directory_path() / ("parasol-run-bench-" + std::string(c.solver));
  fs::create_directories(dir);
  app::RunOptions options;
  options.params_path = fs::path(PARASOL_SOURCE_DIR) / "inputs" / c.input;
  options.output = dir / "run.h5";
  options.force = true;
  options.backend = app::Backend::gpu;
  options.command_line = std::string("run_bench ") + c.input;
  std::map<std::string, double> seconds;
  for (auto _ : state) {
    // The run's own summary lines are not the benchmark's.
    std::ostringstream quiet;
    std::streambuf* printed = std::cout.rdbuf(quiet.rdbuf());
    int status = 1;
    try {
      status = app::run_command(context(), options, {});
    } catch (const std::exception& e) {
      std::cout.rdbuf(printed);
      state.SkipWithError(e.what());
      break;
    }
    std::cout.rdbuf(printed);
    if (status != 0) {
      state.SkipWithError("the run failed");
      break;
    }
    const io::ResultReader h5(options.output);
    double wall = 0;
    for (const std::string& name : h5.attribute_names("/timings")) {
      if (!is_phase(name)) continue;
      const io::AttributeValue attribute = h5.attribute("/timings", name);
      const double* value = std::get_if<double>(&attribute);
      if (value == nullptr) continue;
      seconds[name] += *value;
      if (name == "wall_s") wall = *value;
    }
    state.SetIterationTime(wall);
  }
  for (const auto& [name, total] : seconds)
    state.counters[name] = benchmark::Counter(total, benchmark::Counter::kAvgIterations);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace parasol

int main(int argc, char** argv) {
  for (const parasol::Case& c : parasol::kCases)
    for (const parasol::app::Binding& b : parasol::app::bindings())
      if (b.name == c.solver)
        benchmark::RegisterBenchmark((std::string("run/") + c.solver).c_str(), parasol::end_to_end,
                                     c)
            ->UseManualTime()
            ->Unit(benchmark::kSecond)
            ->Iterations(3);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
