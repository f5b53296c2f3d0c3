// fftconv's runs on volumes (Params::is_volume): one 3D signal with one 3D filter, direct or r2c
// on the GPU or by the CPU gold, the output written as a [z][row][col] dataset with an XDMF
// sidecar. fftconv_binding.cpp hands volume problems here.
#pragma once

#include <filesystem>
#include <memory>

#include "apps/binding.hpp"
#include "io/param_table.hpp"
#include "solvers/fftconv/params.hpp"

namespace parasol::app::fftconv_volume {

// p is read and validated (p.is_volume()).
std::unique_ptr<Run> make_run(io::ParamTable& t, fftconv::Params p);

}  // namespace parasol::app::fftconv_volume
