// montecarlo parameters: a plain struct with defaults and validate(); no TOML, no CUDA.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/shape.hpp"

namespace parasol::montecarlo {

// The models a file may price (model.kind): the course's two correlated assets (Params, below),
// or a basket of d assets (BasketParams, basket.hpp).
enum class ModelKind { two_asset, basket };
inline constexpr std::array kModelKinds{ModelKind::two_asset, ModelKind::basket};
std::string_view name(ModelKind m);  // "two-asset", "basket"
ModelKind parse_model_kind(std::string_view s);

// The GPU methods, by the names users type.
enum class Variant { host_rng, device_rng };
inline constexpr std::array kVariants{Variant::host_rng, Variant::device_rng};
std::string_view name(Variant v);  // "host-rng", "device-rng"
Variant parse_variant(std::string_view s);

// One time step of geometric Brownian motion.
enum class Step { euler, exact };  // S(1 + r dt + sigma sqrt(dt) y), or S exp((r - sigma^2/2) dt + sigma sqrt(dt) y)
std::string_view name(Step s);     // "euler", "exact"
Step parse_step(std::string_view s);

enum class Payoff { digital, european_call, european_put, asian_call };
std::string_view name(Payoff p);  // "digital", "european-call", "european-put", "asian-call"
Payoff parse_payoff(std::string_view s);

// host-rng: the cuRAND host generator and the order its output is laid out in.
enum class Generator { xorwow, philox, mrg32k3a };
std::string_view name(Generator g);  // "xorwow", "philox", "mrg32k3a"
Generator parse_generator(std::string_view s);
enum class Ordering { legacy, dynamic };  // CURAND_ORDERING_PSEUDO_DEFAULT / _DYNAMIC
std::string_view name(Ordering o);        // "default", "dynamic"
Ordering parse_ordering(std::string_view s);

// Two correlated assets, each dS = r S dt + sigma S dW, with dW2 = rho dW1 + sqrt(1 - rho^2) dZ:
// the Oxford course's model. Single-asset payoffs use the first asset.
struct Params {
  std::int64_t paths = 960000;
  std::int64_t steps = 100;
  double maturity = 1.0;  // T, years
  double rate = 0.05;     // r
  double sigma = 0.1;
  double rho = 0.5;
  double spot = 1.0;      // S(0), both assets
  double strike = 1.0;    // K for calls and puts
  Step step = Step::euler;
  Payoff payoff = Payoff::digital;
  // Pairs of paths driven by y and -y; each pair counts as one sample of the estimator.
  bool antithetic = false;
  std::uint64_t seed = 1234;

  Variant variant = Variant::device_rng;
  int block = 512;                       // threads per block; fastest on an H100 (docs/journal/2026-11.md)
  std::int64_t batch_paths = 1 << 20;    // paths per launch: bounds memory for any path count
  Generator generator = Generator::xorwow;
  Ordering ordering = Ordering::dynamic;

  std::int64_t sample_paths = 0;  // paths whose every step is stored, for plotting

  CheckpointParams checkpoint;  // [checkpoint]: running sums every N batches, on a signal

  // The model these parameters are of: always the course's, which is what a file prices unless
  // its model.kind says "basket" (then it is read into BasketParams).
  ModelKind kind = ModelKind::two_asset;

  // Throws InputError naming the offending key (its source left for the caller).
  void validate() const;
};

// Threads per block compiled for the path kernels.
using BlockSizes = ValueList<64, 128, 256, 512>;
inline constexpr std::array kBlockSizes = BlockSizes::values;

}  // namespace parasol::montecarlo
