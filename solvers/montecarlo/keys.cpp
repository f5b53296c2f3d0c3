#include "solvers/montecarlo/keys.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/validate.hpp"

namespace parasol::montecarlo {
namespace {

constexpr const char* kTwoAsset = "model.kind = \"two-asset\"";
constexpr const char* kBasket = "model.kind = \"basket\"";

// The keys both models read alike, declared once for either Params.
template <class P>
void add_shared_keys(Keys<P>& k) {
  k.push_back(key<P>("model.maturity", [](P& p) -> auto& { return p.maturity; }, "T, years")
                  .values("> 0"));
  k.push_back(key<P>("model.rate", [](P& p) -> auto& { return p.rate; },
                     "r, continuously compounded; every payoff is discounted by exp(−rT)"));
}

// payoff.exercise_steps: whole numbers read as TOML numbers into BasketParams' int64 steps.
Key<BasketParams> exercise_steps_key() {
  Key<BasketParams> k;
  k.info.key = "payoff.exercise_steps";
  k.info.type = KeyType::numbers;
  k.info.values = "(increasing integers, the last `paths.steps`)";
  k.info.fallback = "none";
  k.info.help = "bermudan-put only: the steps at which exercise is allowed";
  k.fallback = [](const BasketParams&) { return std::optional<KeyValue>(std::vector<double>{}); };
  k.set = [](BasketParams& p, const KeyValue& v) {
    p.exercise_steps.clear();
    for (double x : std::get<std::vector<double>>(v)) {
      if (x != std::floor(x) || std::abs(x) > 1e15)
        throw InputError("", "", "expected integers, got " + shown(x));
      p.exercise_steps.push_back(static_cast<std::int64_t>(x));
    }
  };
  return k;
}

}  // namespace

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    const auto two_asset = [](const P& p) { return p.kind == ModelKind::two_asset; };
    k.push_back(choice<P>("model.kind", [](P& p) -> auto& { return p.kind; }, kModelKinds,
                          parse_model_kind,
                          "which model: the course's two assets (the keys read with "
                          "model.kind = \"two-asset\"), or a basket of d assets (those read with "
                          "model.kind = \"basket\")"));
    k.push_back(key<P>("paths.count", [](P& p) -> auto& { return p.paths; },
                       "paths simulated; even with `method.antithetic` (a pair is two paths and "
                       "one sample)")
                    .required()
                    .values("≥ 1")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("paths.steps", [](P& p) -> auto& { return p.steps; },
                       "time steps to maturity")
                    .required()
                    .values("≥ 1")
                    .only_if(two_asset, kTwoAsset));
    add_shared_keys(k);
    k.push_back(key<P>("model.sigma", [](P& p) -> auto& { return p.sigma; },
                       "volatility of both assets")
                    .values("> 0")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("model.rho", [](P& p) -> auto& { return p.rho; },
                       "correlation of the two assets' Brownian increments")
                    .values("in [−1, 1]")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("model.spot", [](P& p) -> auto& { return p.spot; }, "S(0) of both assets")
                    .values("> 0")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(choice<P>("payoff.kind", [](P& p) -> auto& { return p.payoff; },
                          std::array{Payoff::digital, Payoff::european_call, Payoff::european_put,
                                     Payoff::asian_call},
                          parse_payoff,
                          "digital: e^{−rT} when both |S1(T) − spot| and |S2(T) − spot| are "
                          "below 0.1 spot, else 0; european-call: e^{−rT} max(S1(T) − K, 0); "
                          "european-put: e^{−rT} max(K − S1(T), 0); asian-call: e^{−rT} max(mean "
                          "of S1(t_1) … S1(t_N) − K, 0) (t_0 excluded)")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("payoff.strike", [](P& p) -> auto& { return p.strike; },
                       "K of the calls and the put")
                    .values("> 0")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(choice<P>("method.variant", [](P& p) -> auto& { return p.variant; }, kVariants,
                          parse_variant,
                          "GPU method; `\"auto\"`: the variant, block and ordering `parasol sweep "
                          "--autotune` chose for these paths, steps and payoff on this device")
                    .gpu_only()
                    .or_auto()
                    .only_if(two_asset, kTwoAsset));
    k.push_back(choice<P>("method.step", [](P& p) -> auto& { return p.step; },
                          std::array{Step::euler, Step::exact}, parse_step,
                          "time step: Euler, or exact in log space")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("method.antithetic", [](P& p) -> auto& { return p.antithetic; },
                       "pair every path driven by (y1, z) with its mirror driven by (−y1, −z); "
                       "the pair's sample is the mean of their two payoffs, so there are "
                       "`paths.count / 2` samples")
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("method.seed", [](P& p) -> auto& { return p.seed; },
                       "seed of the normals (cuRAND's host generator for host-rng; for "
                       "device-rng the key of the Philox4x32-10 streams, the same streams "
                       "cuRAND's Philox gives; in the CPU gold solver, counter-based normals "
                       "(Box–Muller on SplitMix64 of seed, sample and step), so a sample draws "
                       "the same whatever part of the run it is simulated in: GPU and CPU agree "
                       "in distribution, not path by path)")
                    .values("≥ 0")
                    .only_if(two_asset, kTwoAsset));
    std::string sizes;
    for (int b : kBlockSizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
    k.push_back(key<P>("method.block", [](P& p) -> auto& { return p.block; },
                       "threads per block of the path kernels (the compiled sizes)")
                    .values(sizes)
                    .gpu_only()
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("method.batch_paths", [](P& p) -> auto& { return p.batch_paths; },
                       "paths per launch: bounds device memory whatever `paths.count` is; even "
                       "with `method.antithetic`")
                    .values("≥ 1")
                    .gpu_only()
                    .only_if(two_asset, kTwoAsset));
    k.push_back(choice<P>("method.generator", [](P& p) -> auto& { return p.generator; },
                          std::array{Generator::xorwow, Generator::philox, Generator::mrg32k3a},
                          parse_generator, "host-rng: cuRAND host generator")
                    .gpu_only()
                    .only_if(two_asset, kTwoAsset));
    k.push_back(choice<P>("method.ordering", [](P& p) -> auto& { return p.ordering; },
                          std::array{Ordering::legacy, Ordering::dynamic}, parse_ordering,
                          "host-rng: cuRAND's `CURAND_ORDERING_PSEUDO_DEFAULT` or `_DYNAMIC`")
                    .gpu_only()
                    .only_if(two_asset, kTwoAsset));
    k.push_back(key<P>("output.sample_paths", [](P& p) -> auto& { return p.sample_paths; },
                       "paths stored at every time in `/fields/sample_paths`, for plotting: the "
                       "first path of each of the first `sample_paths` samples")
                    .values("0 … min(samples, 10000)")
                    .only_if(two_asset, kTwoAsset));
    add_checkpoint_keys<P>(k, [](P& p) -> auto& { return p.checkpoint; },
                           "batches", two_asset, kTwoAsset);
  });
}

const Keys<BasketParams>& basket_keys() {
  using B = BasketParams;
  return declared_once<B>([](Keys<B>& k) {
    const auto basket = [](const B& p) { return p.kind == ModelKind::basket; };
    k.push_back(key<B>("paths.count", [](B& p) -> auto& { return p.paths; }, "paths simulated")
                    .required()
                    .values("≥ 2")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("paths.steps", [](B& p) -> auto& { return p.steps; },
                       "time steps to maturity")
                    .required()
                    .values("1 to 2²⁴")
                    .only_if(basket, kBasket));
    add_shared_keys(k);
    k.push_back(key<B>("model.spots", [](B& p) -> auto& { return p.spots; },
                       "S_i(0); its length is d (1 to " + std::to_string(kMaxAssets) + ")")
                    .required()
                    .values("> 0")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("model.vols", [](B& p) -> auto& { return p.vols; }, "sigma_i, one per asset")
                    .required()
                    .values("in (0, 5)")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("model.dividends", [](B& p) -> auto& { return p.dividends; },
                       "q_i, continuous dividend yields, one per asset")
                    .default_from([](const B& p) { return std::vector<double>(p.spots.size(), 0.0); })
                    .shown_default("zeros")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("model.weights", [](B& p) -> auto& { return p.weights; },
                       "w_i of the basket payoffs, one per asset")
                    .default_from([](const B& p) {
                      const std::size_t d = std::max<std::size_t>(p.spots.size(), 1);
                      return std::vector<double>(p.spots.size(), 1.0 / static_cast<double>(d));
                    })
                    .shown_default("1/d each")
                    .values("≥ 0")
                    .only_if(basket, kBasket));
    // Read before model.correlation, which is not read when the file gives the matrix this way;
    // read_correlation reads the dataset (a file and a dataset name resolved together).
    k.push_back(file<B>("model.correlation_file", [](B& p) -> auto& { return p.correlation_file; },
                        "C from a d × d dataset of an HDF5 file instead, `\"file.h5:/dataset\"` "
                        "(relative to the parameter file), with the same checks, reported "
                        "against this key")
                    .shown_default("none")
                    .only_if(basket, kBasket));
    k.push_back(matrix<B>("model.correlation",
                          [](B& p, const std::vector<std::vector<double>>& rows) {
                            const std::size_t d = p.spots.size();
                            std::vector<double> c;
                            for (const std::vector<double>& row : rows) {
                              if (row.size() != d)
                                throw InputError("", "",
                                                 "expected rows of " + std::to_string(d) +
                                                     " numbers (one per asset), got a row of " +
                                                     std::to_string(row.size()));
                              c.insert(c.end(), row.begin(), row.end());
                            }
                            p.correlation = std::move(c);
                          },
                          [](const B& p) -> std::optional<std::vector<std::vector<double>>> {
                            if (p.spots.size() != 1) return std::nullopt;
                            return std::vector<std::vector<double>>{{1.0}};
                          },
                          "C: symmetric, unit diagonal, finite, positive definite; refused naming "
                          "the first failing Cholesky pivot (a pivot ≤ 1e−12 is singular to "
                          "working precision)")
                    .values("(d × d)")
                    .shown_default("[[1.0]] for one asset; required for more")
                    .only_if([basket](const B& p) { return basket(p) && p.correlation_file.empty(); },
                             std::string(kBasket) + " without model.correlation_file"));
    k.push_back(choice<B>("payoff.kind", [](B& p) -> auto& { return p.payoff; }, kBasketPayoffs,
                          parse_basket_payoff,
                          "the payoff (below)")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("payoff.strike", [](B& p) -> auto& { return p.strike; }, "K")
                    .values("> 0")
                    .only_if(basket, kBasket));
    k.push_back(exercise_steps_key().only_if(basket, kBasket));
    k.push_back(choice<B>("method.variant", [](B& p) -> auto& { return p.variant; },
                          std::array{BasketVariant::automatic, BasketVariant::registers,
                                     BasketVariant::cublas},
                          parse_basket_variant,
                          "GPU method for European payoffs (below); auto: registers up to " +
                              std::to_string(kRegistersUpTo) + " assets, cuBLAS above")
                    .gpu_only()
                    .only_if(basket, kBasket));
    k.push_back(key<B>("method.seed", [](B& p) -> auto& { return p.seed; },
                       "the key of the normals: the CPU gold's counter-based normals (for d = 1 "
                       "the course gold's first asset's, so a one-asset basket follows the course "
                       "model path for path), the GPU's Philox streams")
                    .values("≥ 0")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("method.batch_paths", [](B& p) -> auto& { return p.batch_paths; },
                       "paths per launch; basket-cublas also sizes its GEMM blocks by it (steps "
                       "per GEMM: 2²⁵ / (d × batch), at least 1)")
                    .values("≥ 1")
                    .gpu_only()
                    .only_if(basket, kBasket));
    k.push_back(key<B>("method.greeks", [](B& p) -> auto& { return p.greeks; },
                       "delta of every asset and vega, European payoffs")
                    .only_if(basket, kBasket));
    k.push_back(key<B>("method.basis_degree", [](B& p) -> auto& { return p.basis_degree; },
                       "Longstaff–Schwartz: the regression's basis is 1, B/K, …, (B/K)^degree")
                    .values("1 … 4")
                    .only_if(basket, kBasket));
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; },
                       "`parasol sweep`: timed runs per row (after one warm-up)");
  });
}

std::string describe_method(const Params& p, bool generator) {
  std::string method = std::string(name(p.variant)) + ", " + std::to_string(p.block) + " threads";
  if (p.variant == Variant::host_rng)
    method += ", " + (generator ? std::string(name(p.generator)) + " " : std::string()) +
              std::string(name(p.ordering)) + " ordering";
  return method;
}

const MethodAxes<Params>& method_axes(const Params&) {
  using P = Params;
  static const MethodAxes<P> axes = [] {
    const auto host_rng = [](const P& p) { return p.variant == Variant::host_rng; };
    MethodAxes<P> m;
    m.axes = {
        variant_axis<P>([](P& p) -> auto& { return p.variant; }, parse_variant, 11),
        integer_axis<P>("block", "block", 6, [](P& p) -> auto& { return p.block; }, 1, 1024,
                        "threads per block"),
        recorded_axis<P>("batch_paths", [](const P& p) { return p.batch_paths; }),
        recorded_axis<P>("generator", [](const P& p) { return std::string(name(p.generator)); })
            .only_for(host_rng),
        choice_axis<P>("ordering", 9, [](P& p) -> auto& { return p.ordering; }, parse_ordering)
            .only_for(host_rng)};
    m.autotuned = true;
    m.validated_as = "block";
    m.describe = [](const P& p) { return describe_method(p); };
    return m;
  }();
  return axes;
}

const MethodAxes<BasketParams>& method_axes(const BasketParams&) {
  using P = BasketParams;
  static const MethodAxes<P> axes = [] {
    MethodAxis<P> variant = recorded_axis<P>(
        "variant", [](const P& p) { return std::string(name(p.resolved_variant())); });
    variant.title = "variant";
    variant.width = 17;
    MethodAxes<P> m;
    m.axes = {std::move(variant),
              recorded_axis<P>("batch_paths", [](const P& p) { return p.batch_paths; })};
    return m;
  }();
  return axes;
}

}  // namespace parasol::montecarlo
