// `mpirun -np 2 parasol run`: the phases in /timings are disjoint and add up
// to /timings@wall_s (laplace3d, whose slab solve times its halo exchanges inside its loop, and
// recurrence, whose carries pass rank to rank inside its solve), on the CPU and on GPUs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>

#include "io/result_reader.hpp"
#include "kernels/device.hpp"
#include "tests/ranks_support.hpp"

namespace parasol {
namespace {

class PhasesAddUp : public test::RanksTest {
 protected:
  // The sum of the /timings phases (<phase>_s, not the whole wall, the per-rank and mean columns
  // nor the rates) against wall_s.
  void expect_phases_add_up(const std::string& output) {
    io::ResultReader h5(dir_ / output);
    const double wall = std::get<double>(h5.attribute("/timings", "wall_s"));
    double sum = 0;
    std::string phases;
    for (const std::string& name : h5.attribute_names("/timings")) {
      const bool seconds = name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0;
      const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
      if (!seconds || name == "wall_s" || has("_mean_s") || has("_by_rank_s") || has("_per_s"))
        continue;
      sum += std::get<double>(h5.attribute("/timings", name));
      phases += " " + name;
    }
    EXPECT_NE(phases.find("exchange_s"), std::string::npos) << phases;
    // 5 %: the seconds after the last phase (gathering the timings, closing the file) are not
    // a phase, and the phases are the slowest rank's, whose start-up may differ from rank 0's.
    EXPECT_NEAR(sum, wall, 0.05 * wall) << "phases:" << phases;
  }
};

TEST_F(PhasesAddUp, Laplace3dOnTwoRanks) {
  // Enough sweeps that the exchanges are a good share of the seconds (about half the solve's
  // on a CPU): counted twice, the phases would pass the wall by far more than 5 %.
  const std::string text =
      "solver = \"laplace3d\"\n[grid]\nnx = 48\nny = 48\nnz = 48\n[boundary]\nx_min = 1.0\n"
      "[iteration]\nmax_iterations = 4000\ntolerance = 0\n";
  const auto r = run(2, text, "laplace3d.h5", "--backend cpu");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_phases_add_up("laplace3d.h5");
}

// On the device the upload, the context's start, the download and the release are phases too.
TEST_F(PhasesAddUp, Laplace3dOnTwoRanksOnTheGpu) {
  PARASOL_REQUIRE_GPU();
  const std::string text =
      "solver = \"laplace3d\"\n[grid]\nnx = 96\nny = 96\nnz = 96\n[boundary]\nx_min = 1.0\n"
      "[iteration]\nmax_iterations = 4000\ntolerance = 0\n";
  const auto r = run(2, text, "laplace3d.h5", "--backend gpu");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_phases_add_up("laplace3d.h5");
}

TEST_F(PhasesAddUp, RecurrenceOnTwoRanks) {
  const std::string text =
      "solver = \"recurrence\"\n[problem]\nkind = \"ar1\"\n[ar1]\nseries = 8\nlength = 200000\n"
      "phi = 0.9\n[method]\nmode = \"reproducible\"\n";
  for (const char* backend : {"cpu", "gpu"}) {
    if (std::string(backend) == "gpu" && !gpu_available()) continue;  // the CPU case still runs
    SCOPED_TRACE(backend);
    const auto r = run(2, text, "recurrence.h5", std::string("--backend ") + backend);
    ASSERT_EQ(r.status, 0) << r.output;
    expect_phases_add_up("recurrence.h5");
  }
}

}  // namespace
}  // namespace parasol
