// montecarlo's basket model ([model] kind = "basket") through the front end: its parameter
// schema, what a run prints, checks and writes, and its sweep over the ways of correlating the
// normals. montecarlo.cpp hands a file here when its model.kind says so.
#pragma once

#include <filesystem>
#include <memory>

#include "apps/binding.hpp"

namespace parasol::app {

// Reads model.kind: true for "basket", false for the course's "two-asset" model (the default).
bool is_basket_model(io::ParamTable& t);

std::unique_ptr<Run> make_basket_run(io::ParamTable& t, const std::filesystem::path& params_path);
std::unique_ptr<Study> make_basket_study(io::ParamTable& t,
                                         const std::filesystem::path& params_path);

}  // namespace parasol::app
