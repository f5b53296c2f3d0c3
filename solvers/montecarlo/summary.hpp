// What a montecarlo run says, for the front end and anything else that runs the solver: the
// model in words, the problem class a tuned choice is stored under, the memory a run takes before
// it is made, what a basket run refuses, the estimate's and Greeks' attributes and summary lines,
// and what every run promises of its bits. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {

// "9600000 paths x 256 steps, basket, log-euler step, antithetic".
std::string describe_model(const Params& p);
// "65536 paths x 64 steps, 4 assets, arithmetic-basket-call".
std::string describe_model(const BasketParams& p);

// The problem class a tuned choice is stored under: paths and steps exactly, and what picks the
// kernel (payoff, step, antithetic): "paths=9600000,steps=256,basket,log-euler,antithetic".
std::string problem_class(const Params& p);
// A basket's: "paths=65536,steps=64,assets=4,arithmetic-basket-call" (not autotuned today).
std::string problem_class(const BasketParams& p);

// What a run's GPU method is, in words, for its summary: the two-asset model's describe_method
// with host-rng's generator ("host-rng, 512 threads, mrg32k3a dynamic ordering"); a basket's
// "Longstaff-Schwartz" for an early-exercise payoff, else its variant as it runs ("auto" resolved).
std::string run_method(const Params& p);
std::string run_method(const BasketParams& p);

// A run's memory, in the order it is checked; an error names `key` at the source of `source_key`
// and says "<what> about ..." (`what` ends in its verb), then `hint`.
struct MemoryNeed {
  std::string source_key, key, what;
  double bytes = 0;
  bool device = false;
  std::string hint;
};
// A two-asset run's on the device: the stored sample paths and, for host-rng, its normals for a
// batch (2 x steps floats for each of min(batch_paths, paths) paths).
std::vector<MemoryNeed> device_needs(const Params& p);
// A two-asset run's: on the GPU (`gpu`) device_needs; on the host the stored paths (twice when a
// GPU run is `check`ed against the gold) and, on the CPU or as --check's gold, the gold's sums
// over this rank's `samples`.
std::vector<MemoryNeed> run_needs(const Params& p, bool gpu, bool check, std::int64_t samples);
// A basket run's: Longstaff-Schwartz on the GPU keeps every fitting path's basket value at every
// exercise date.
std::vector<MemoryNeed> basket_needs(const BasketParams& p, bool gpu);

// A two-asset run that writes checkpoints refuses host-rng on the GPU, as an InputError naming
// method.variant (no source: the caller's table has it): resuming needs draws that a batch index
// fixes, device-rng's counter-based Philox streams. cuRAND's host generator, set to a batch's
// offset, does not give the numbers one generator gave through the batches before (its dynamic
// ordering lays them out by the launch).
void refuse_checkpoints(const Params& p, bool gpu);

// What a basket run refuses before anything is made, as an InputError naming the key at fault
// (no source: the caller's table has it): a restart (`restart`: one was asked for; the key is
// "--restart" of the command line), more than one rank, and Longstaff-Schwartz on the GPU past
// kRegistersUpTo assets.
void refuse_basket_run(const BasketParams& p, bool gpu, int ranks, bool restart);

// The d x d correlation matrix at `text` ("file.h5:/dataset", model.correlation_file, the file
// already resolved), checked to be one: InputError naming model.correlation_file (with the file
// as its source where the file is at fault).
std::vector<double> read_correlation_file(const std::string& text, int d);
// b's correlation read from model.correlation_file where it names one (read_correlation_file);
// b as it is otherwise.
void read_correlation(BasketParams& b);
// A basket's correlation given both as model.correlation (`matrix`: the file sets it) and as
// model.correlation_file (`file`) refused, as an InputError naming model.correlation_file (no
// source: the caller's table has it), before either is read.
void refuse_both_correlations(bool matrix, bool file);

// A fact of a run as an attribute records it, by name (the kinds an HDF5 attribute holds).
using AttributeValue = std::variant<std::int64_t, double, std::string, std::vector<double>>;
using Attribute = std::pair<std::string, AttributeValue>;

// /estimate's price, standard error, 95% interval and samples.
std::vector<Attribute> estimate_attributes(const Estimate& e);
// /timings' total and rate, from `seconds` of `path_steps`.
std::vector<Attribute> rate_attributes(double seconds, double path_steps);
// A basket run's /estimate beyond the price: Longstaff-Schwartz's in-sample price and method.
std::vector<Attribute> basket_estimate_attributes(const BasketParams& p, const BasketResult& r);
// A basket run's /greeks: delta per asset (and vega) with their standard errors and method.
std::vector<Attribute> greeks_attributes(const BasketParams& p, const BasketResult& r);

// The stored sample paths' attributes: their layout and time step.
std::vector<Attribute> sample_attributes(const Params& p);

// What a run records once solved, by group ("/estimate", "/timings", "/greeks"), and the lines
// its summary says, in order: the price, a basket's in-sample price and Greeks, the rate.
struct Report {
  std::vector<std::pair<std::string, std::vector<Attribute>>> attributes;
  std::vector<std::string> lines;
};
Report report(const Params& p, const Result& r);
Report report(const BasketParams& p, const BasketResult& r);

// A sweep's gold: its estimate, and the paths it simulated (0 where a closed form judges).
struct SweepGold {
  Estimate estimate;
  std::int64_t paths = 0;
};
// A sweep's /sweep: its path-steps a run, the gold's paths and estimate, and the check's
// tolerance in standard errors.
std::vector<Attribute> sweep_attributes(const Params& p, const SweepGold& gold);
// A basket sweep's: its path-steps a run, its assets and the check's tolerance.
std::vector<Attribute> sweep_attributes(const BasketParams& p, const SweepGold& gold);
// A sweep's header line: the model on `device`, and the two-asset model's gold ("; gold 0.417900
// +- 0.0005 on 1048576 paths"); a basket's gold goes unsaid.
std::string describe_sweep(const Params& p, const std::string& device, const SweepGold& gold);
std::string describe_sweep(const BasketParams& p, const std::string& device, const SweepGold& gold);

// The summary's line of the price: "price 0.417900 +- 0.0005 (standard error), 95% CI [...]".
std::string price_line(const Estimate& e);
// Its last line: "1.234 s, 0.567 Gpath-steps/s".
std::string rate_line(double seconds, double path_steps);
// A basket run's lines between them: the in-sample price, the first delta and vega.
std::vector<std::string> basket_lines(const BasketParams& p, const BasketResult& r);

// Every estimate of a run (price and standard error; a basket's in-sample price and Greeks too)
// is finite, or the run ends naming the first that is not (kernels/finite.hpp).
void require_finite_estimates(const Result& r);
void require_finite_estimates(const BasketResult& r);

// Why every montecarlo run repeats its bits (both models, any variant, backend or rank count):
// the single-asset solvers add integer quanta (in any order, across ranks too), the basket
// reductions add per-block slots in a fixed order, and basket-cublas's GEMM runs without atomics
// on a fixed workspace (solvers/montecarlo/basket.cu).
inline constexpr const char* kReproducibleBecause =
    "counter-based draws of the seed; sums of integer quanta or of per-block slots in a fixed "
    "order, whatever the threads or ranks";

}  // namespace parasol::montecarlo
