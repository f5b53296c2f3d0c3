// montecarlo's keys, declared once (kernels/declaration.hpp): the course's two-asset model's
// (keys(), into Params) and the basket model's (basket_keys(), into BasketParams), one file read
// by the one its model.kind picks. A key of one model that the other does not read is declared
// `only_if` on model.kind, so a file that sets it for the other model is told it is not used.
#pragma once

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/params.hpp"

namespace parasol::montecarlo {

// What `parasol sweep` times, for either model: the [sweep] table.
struct SweepParams {
  Repeats repeats{5, kSweepMinTime};  // timed estimates per row; the median is reported
};

const Keys<Params>& keys();
const Keys<BasketParams>& basket_keys();
const Keys<SweepParams>& sweep_keys();
// A file of one model reads its own keys and refuses the other's where it sets them: each
// model's keys, and the other model's, by the model's Params.
inline const Keys<Params>& keys(const Params&) { return keys(); }
inline const Keys<BasketParams>& keys(const BasketParams&) { return basket_keys(); }
inline const Keys<BasketParams>& other_keys(const Params&) { return basket_keys(); }
inline const Keys<Params>& other_keys(const BasketParams&) { return keys(); }

// The two-asset model's variant, block size and host-rng's ordering (swept and stored by
// --autotune), its batch size and host-rng's generator (recorded): /method's, a sweep's columns
// and an autotune choice's.
const MethodAxes<Params>& method_axes(const Params&);
// The basket's variant (as it runs: "auto" resolved) and batch size.
const MethodAxes<BasketParams>& method_axes(const BasketParams&);

// "device-rng, 512 threads" (with the ordering for host-rng, and its generator when asked).
std::string describe_method(const Params& p, bool generator = false);

}  // namespace parasol::montecarlo
