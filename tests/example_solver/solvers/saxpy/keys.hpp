// saxpy's keys, declared once (kernels/declaration.hpp): read by the front end and listed by
// `parasol keys saxpy`; what its sweep times; and its method's axes.
#pragma once
#include <array>

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/saxpy/params.hpp"

namespace parasol::saxpy {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  Repeats repeats{20, kSweepMinTime};
};

// The block sizes a sweep times.
inline constexpr std::array kSweptThreads{128, 256, 512, 1024};

const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The method's axes (kernels/method_axes.hpp): /method, the sweep's axis columns and cells.
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::saxpy
