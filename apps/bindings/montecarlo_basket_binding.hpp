// montecarlo's basket model ([model] kind = "basket") through the front end: its parameter
// schema, what a run prints, checks and writes, and its sweep over the ways of correlating the
// normals. montecarlo.cpp hands a file here when its model.kind says so; what the two models
// print, write and sweep alike is declared here too.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/solver_run.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/keys.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::app {

// Reads model.kind: true for "basket", false for the course's "two-asset" model (the default).
bool is_basket_model(io::ParamTable& t);

std::unique_ptr<Run> make_basket_run(io::ParamTable& t, const std::filesystem::path& params_path);
std::unique_ptr<Study> make_basket_study(io::ParamTable& t,
                                         const std::filesystem::path& params_path);

// A configuration measured by the sweep-row protocol (kernels/sweep_row.hpp): `run` simulates,
// `estimate` is what it found, `judge` holds that against the gold; the row's extras are the first
// estimate's price and standard error. No poison: a run starts its sums from zero itself, so no
// output is left unwritten.
Measurement measured_estimate(const std::string& method, TimeRuns time,
                              const std::function<void()>& run,
                              const std::function<montecarlo::Estimate()>& estimate,
                              const std::function<Agreement(const montecarlo::Estimate&)>& judge);

// A sweep's columns: its `axes`, the rate in Gpath-steps/s, the check in standard errors, and
// each row's price and standard error.
SweepColumns sweep_columns(std::vector<ResultsTable::Column> axes);

// /estimate's price, standard error, 95% interval and samples, and /timings' total and rate, from
// `seconds` of `path_steps`.
// Every estimate of a basket run (price, in-sample price, Greeks and their standard errors) is
// finite, or the run ends naming the first that is not (kernels/finite.hpp).
void require_all_finite(const montecarlo::BasketResult& r);

// What every montecarlo run promises of its bits (both models, any variant, backend or rank
// count): /provenance@reproducible and /method@reproducible both say it.
Reproducibility montecarlo_reproducibility();

void write_estimate(io::ResultFile& out, const montecarlo::Estimate& e, double seconds,
                    double path_steps);
// The summary's line of the price: "price 0.417900 +- 0.0005 (standard error), 95% CI [...]".
void say_price(const montecarlo::Estimate& e);
// Its last line: "1.234 s, 0.567 Gpath-steps/s".
void say_rate(double seconds, double path_steps);

}  // namespace parasol::app
