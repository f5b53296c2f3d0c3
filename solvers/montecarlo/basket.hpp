// montecarlo's basket model: d correlated geometric Brownian motions with their own spot,
// volatility and dividend yield, basket payoffs with their Greeks, and Bermudan/American puts by
// Longstaff-Schwartz. Host-only API: compiles without nvcc. The course's two-asset model
// (params.hpp, montecarlo.hpp) is separate and unchanged.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {

enum class BasketPayoff {
  geometric_basket,        // max(prod S_i^w_i - K, 0)
  arithmetic_basket_call,  // max(sum w_i S_i - K, 0)
  arithmetic_basket_put,   // max(K - sum w_i S_i, 0)
  best_of_call,            // max(max_i S_i - K, 0)
  worst_of_call,           // max(min_i S_i - K, 0)
  digital_basket_call,     // 1 if sum w_i S_i > K: its delta by likelihood ratio
  american_put,            // on sum w_i S_i, exercise at every step
  bermudan_put,            // on sum w_i S_i, exercise at the given dates
};
inline constexpr std::array kBasketPayoffs{
    BasketPayoff::geometric_basket,      BasketPayoff::arithmetic_basket_call,
    BasketPayoff::arithmetic_basket_put, BasketPayoff::best_of_call,
    BasketPayoff::worst_of_call,         BasketPayoff::digital_basket_call,
    BasketPayoff::american_put,          BasketPayoff::bermudan_put};
std::string_view name(BasketPayoff p);  // "geometric-basket", "arithmetic-basket-call", ...
BasketPayoff parse_basket_payoff(std::string_view s);
bool early_exercise(BasketPayoff p);  // american-put, bermudan-put

// How the GPU correlates the normals: L z in registers inside the path kernel (small d), or one
// cuBLAS GEMM per block of paths and steps (large d); `automatic` picks by d (kRegistersUpTo).
enum class BasketVariant { automatic, registers, cublas };
inline constexpr std::array kBasketVariants{BasketVariant::registers, BasketVariant::cublas};
std::string_view name(BasketVariant v);  // "auto", "basket-registers", "basket-cublas"
BasketVariant parse_basket_variant(std::string_view s);

// The register kernel holds L's rows for up to this many assets; auto uses it up to here and
// cuBLAS above. Where the two cross on an H100 is measured by bench/pricer_bench.cu.
inline constexpr int kRegistersUpTo = 16;
inline constexpr int kMaxAssets = 1024;

// Each asset i: dS_i = (r - q_i) S_i dt + sigma_i S_i dW_i, d<W_i, W_j> = C_ij dt, stepped
// exactly in log space: S_i *= exp((r - q_i - sigma_i^2/2) dt + sigma_i sqrt(dt) (L z)_i) with
// C = L L^T and z independent standard normals.
struct BasketParams {
  std::int64_t paths = 100000;
  std::int64_t steps = 50;
  double maturity = 1.0;
  double rate = 0.05;
  std::vector<double> spots{1.0}, vols{0.2}, dividends{0.0}, weights{1.0};
  std::vector<double> correlation{1.0};  // d x d, row-major
  // "file.h5:/dataset" holding the correlation instead (read_correlation reads it); empty: none.
  std::string correlation_file;
  BasketPayoff payoff = BasketPayoff::geometric_basket;
  double strike = 1.0;
  // bermudan-put: the steps (1..steps) at which exercise is allowed; the last must be `steps`.
  std::vector<std::int64_t> exercise_steps;
  bool greeks = true;      // delta per asset and vega, European payoffs
  int basis_degree = 3;    // Longstaff-Schwartz: polynomial in the basket value, 1..4
  std::uint64_t seed = 1234;
  BasketVariant variant = BasketVariant::automatic;
  // Paths per launch: 2^18 fill an H100 with the register kernel's blocks about twice over, and
  // bound basket-cublas's normals (d x batch x its steps per GEMM, at most 2^25 floats a block).
  std::int64_t batch_paths = 1 << 18;
  ModelKind kind = ModelKind::basket;  // what these parameters are of (model.kind picked them)

  int assets() const { return static_cast<int>(spots.size()); }
  // Throws InputError naming the key: sizes, signs, and the correlation matrix (symmetric, unit
  // diagonal, finite, positive definite: the first failing Cholesky pivot).
  void validate() const;
  // The exercise steps in effect: every step (american-put), the given ones (bermudan-put).
  std::vector<std::int64_t> exercise_schedule() const;
  // The variant that runs: `variant`, or by d when automatic.
  BasketVariant resolved_variant() const;
};

// Cholesky factor of a d x d row-major correlation matrix, in double: lower triangle, row-major.
// Throws InputError naming `key`: wrong size, a non-finite entry, not symmetric, a diagonal not
// 1, or the first pivot that is not positive ("not positive definite: pivot 3 is -0.2").
std::vector<double> cholesky(const std::vector<double>& c, int d, const char* key);

// A basket run's phases beside kernels/phase_timer.hpp's: its paths simulated (a European
// payoff's whole run); with early exercise, then the policy fitted backwards through the exercise
// dates (Longstaff-Schwartz's in-sample price with it) and the paths that price out of sample.
inline constexpr char kSimulatePhase[] = "simulate";
inline constexpr char kRegressPhase[] = "regress";
inline constexpr char kPricePhase[] = "price";

// Greeks of a European basket payoff: delta by pathwise derivatives (likelihood ratio for the
// digital), vega the derivative by a parallel shift of every volatility (pathwise; absent for
// the digital).
struct BasketResult {
  Estimate price;
  std::vector<Estimate> delta;  // one per asset; empty without greeks
  Estimate vega;                // samples 0 when not computed
  // Longstaff-Schwartz: `price` is the out-of-sample estimate (the policy fitted on one set of
  // paths, priced on an independent one: low-biased); `in_sample` prices the fitting paths
  // (high-biased by foresight).
  Estimate in_sample;
  std::vector<std::vector<double>> policy;  // per exercise step: regression coefficients
  PhaseTimer timings;  // simulate; with early exercise regress and price too
  double seconds = 0;  // the wall time the caller waited, set-up included: a rate's seconds
};

// Sums of a per-path quantity and its square, in double: what the gold adds path by path and
// what the GPU's block sums come back as.
struct Moments {
  double count = 0, sum = 0, sum_sq = 0;
  void add(double x) {
    count += 1;
    sum += x;
    sum_sq += x * x;
  }
  Estimate estimate() const;  // mean and its standard error
};

// Longstaff-Schwartz's regression at one exercise date on the host: the normal equations
// A beta = b (A: `basis` x `basis` row-major, sums over `count` in-the-money paths) solved in
// double by solve_normal_equations (regression.hpp), which the GPU runs on the device. Empty
// when there are too few paths to fit, or A is singular to working precision: no exercise at
// that date.
std::vector<double> regression_coefficients(const std::vector<double>& a,
                                            const std::vector<double>& b, double count);
// The basis at the basket value: (B/K)^k, k = 0..degree.
inline int basis_size(const BasketParams& p) { return p.basis_degree + 1; }

// The CPU gold: double arithmetic, counter-based normals of (seed, sample, step, asset) so any
// sample can be simulated alone; normal (s, n, i) is normals_at's first normal of the course
// model when d = 1, so a one-asset basket follows the course model's first asset exactly.
BasketResult solve_basket_gold(const BasketParams& p);
// European basket payoffs on the GPU, set up once (the factor, the buffers, cuBLAS's handle) so
// a sweep or a benchmark times only run(). Every run() repeats the same paths.
class BasketSimulator {
 public:
  BasketSimulator(const BasketParams& p, cudaStream_t stream);
  ~BasketSimulator();
  BasketSimulator(const BasketSimulator&) = delete;
  BasketSimulator& operator=(const BasketSimulator&) = delete;
  // Enqueues the whole estimate on the stream: every batch of paths, its payoffs and Greeks, and
  // their sums in double on the device.
  void run();
  // The last run's estimates (waits for the stream).
  BasketResult result() const;
  // Step 0's correlated normals L z of samples [0, count) (count at most a batch), d x count,
  // asset fastest: what the variant's path code draws, for tests of the correlation.
  std::vector<float> correlated_normals(std::int64_t count);
  BasketVariant variant() const;  // the one that runs
  const BasketParams& params() const { return p_; }
  // basket-cublas: with `on`, each step block's normals, correlation GEMM and advance in the runs
  // that follow sit between events, and phase_seconds() is their device time in the last run
  // (waits for the stream), so the GEMM's rate inside the simulation can be set beside cuBLAS's
  // own. Zeros for the register variant or when not timed.
  struct PhaseSeconds {
    double normals = 0, correlation = 0, advance = 0;
  };
  void time_phases(bool on);
  PhaseSeconds phase_seconds() const;

 private:
  void run_batch(std::int64_t first, std::int64_t count);
  void correlate(std::int64_t columns);  // cuBLAS: y = L z over `columns` columns
  struct State;  // basket.cu
  BasketParams p_;
  cudaStream_t stream_;
  std::unique_ptr<State> s_;
};

// The bytes of Longstaff-Schwartz's Gram sums on the GPU (lsm.cu), at most: for each exercise
// date but the last, 16 doubles for each block of its reductions and 16 for their totals.
double lsm_gram_bytes(std::int64_t paths, int dates);

// Longstaff-Schwartz on the GPU (lsm.cu): the fitting paths' basket values at every exercise
// date kept on the device, the normal equations' sums formed and solved in double there each
// date (the gold's own elimination, regression.hpp), then the policy priced on independent
// paths. Up to kRegistersUpTo assets. Set up once (its buffers), so that a benchmark times only
// run(); every run() gives the same bits.
class LsmSolver {
 public:
  LsmSolver(const BasketParams& p, cudaStream_t stream);
  ~LsmSolver();
  LsmSolver(const LsmSolver&) = delete;
  LsmSolver& operator=(const LsmSolver&) = delete;
  BasketResult run();

 private:
  struct State;  // lsm.cu
  BasketParams p_;
  cudaStream_t stream_;
  std::unique_ptr<State> s_;
};
// One solve, its set-up counted in its simulate phase.
BasketResult solve_lsm_gpu(const BasketParams& p, cudaStream_t stream);

// The GPU solver: p.resolved_variant(); Longstaff-Schwartz (LsmSolver) for early exercise.
BasketResult solve_basket_gpu(const BasketParams& p, cudaStream_t stream = nullptr);

// The gold's normals for path `s`, step `n`, assets 0..d-1 (for tests of their correlation).
void gold_normals(const BasketParams& p, std::uint64_t key, std::int64_t s, std::int64_t n,
                  double* z);
std::uint64_t gold_key(std::uint64_t seed, int path_set);  // path_set 0: fitting/pricing, 1: independent

// Closed forms and the tree (analytic.hpp has the formulas): the geometric basket call's price,
// and a Bermudan put on one asset by a CRR binomial tree with `per_interval` tree steps between
// simulation steps, exercise allowed at the schedule's steps (every tree step when `american`).
double geometric_basket_price(const BasketParams& p);
double binomial_put(const BasketParams& p, int per_interval, bool american);

}  // namespace parasol::montecarlo
