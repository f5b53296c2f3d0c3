// poisson's source as a run takes it: made from its analytic kind, or read from a user's HDF5
// file a rank's planes at a time, the dataset's extent checked against the grid's cells and its
// values against NaN and infinity. Host-only API; io/ is linked privately (inputs.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/poisson/params.hpp"

namespace parasol::poisson {

// f on planes [z_begin, z_end) of p's grid: make_source's for an analytic kind; for
// source.kind = file, those planes of source.file's source.dataset, which must be [nz][ny][nx]
// (the grid's cells) of finite values. InputError naming the file, or source.dataset without a
// source (the front end says where the key is).
std::vector<double> source_planes(const Params& p, std::int64_t z_begin, std::int64_t z_end);

// Every plane of f (source_planes), made compatible where the problem is singular
// (make_compatible): what a sweep's study solves, on one rank.
std::vector<double> compatible_source(const Params& p);

}  // namespace parasol::poisson
