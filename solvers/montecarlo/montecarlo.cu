// montecarlo GPU solver: the path kernel, its two sources of normals, and the payoff sums.
//
// host-rng (the course's method): cuRAND's host API fills device memory with 2 x steps normals
// per sample, laid out so that a warp's reads of one step are coalesced; the path kernel reads them.
// device-rng: each sample draws its own Philox4x32-10 stream inside the path kernel (kernels/
// philox.cuh), so normals never touch memory and every path is the same whatever the launch shape or batch.
// Both sum payoffs as integers (see PayoffSums): only per-block partial sums leave the device.
#include <curand.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/making.hpp"
#include "kernels/event.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/philox.cuh"
#include "kernels/reduce.cuh"
#include "kernels/stream.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {
namespace {

// Per-step constants, computed once on the host in double and used in float.
struct Model {
  int steps;
  float rho, alpha;           // y2 = rho y1 + alpha z
  float euler_growth;         // 1 + r dt
  float vol;                  // sigma sqrt(dt)
  float log_drift;            // (r - sigma^2 / 2) dt
  float spot, strike, band;   // band: the digital's half-width, 0.1 spot
  float discount;             // exp(-r T)
  double to_quanta;           // 2^32 / unit
};

Model model_of(const Params& p) {
  const double dt = p.maturity / static_cast<double>(p.steps);
  Model m{};
  m.steps = static_cast<int>(p.steps);
  m.rho = static_cast<float>(p.rho);
  m.alpha = static_cast<float>(std::sqrt(1.0 - p.rho * p.rho));
  m.euler_growth = static_cast<float>(1.0 + p.rate * dt);
  m.vol = static_cast<float>(p.sigma * std::sqrt(dt));
  m.log_drift = static_cast<float>((p.rate - 0.5 * p.sigma * p.sigma) * dt);
  m.spot = static_cast<float>(p.spot);
  m.strike = static_cast<float>(p.strike);
  m.band = static_cast<float>(0.1 * p.spot);
  m.discount = static_cast<float>(std::exp(-p.rate * p.maturity));
  m.to_quanta = kPayoffScale / price_unit(p);
  return m;
}

// One path of both assets. The exact step advances log-prices and takes the exponential only
// where the payoff needs the price (at the end, or at every step for the Asian average).
template <Step kStep, Payoff kPayoff>
struct Path {
  float x1, x2;        // prices (euler) or log-prices (exact)
  float average = 0;   // running sum of S1 for the Asian payoff

  __device__ explicit Path(const Model& m)
      : x1(kStep == Step::euler ? m.spot : logf(m.spot)), x2(x1) {}

  __device__ float s1() const { return kStep == Step::euler ? x1 : expf(x1); }
  __device__ float s2() const { return kStep == Step::euler ? x2 : expf(x2); }

  __device__ void advance(const Model& m, float y1, float z) {
    const float y2 = m.rho * y1 + m.alpha * z;
    if constexpr (kStep == Step::euler) {
      x1 *= m.euler_growth + m.vol * y1;
      x2 *= m.euler_growth + m.vol * y2;
    } else {
      x1 += m.log_drift + m.vol * y1;
      x2 += m.log_drift + m.vol * y2;
    }
    if constexpr (kPayoff == Payoff::asian_call) average += s1();
  }

  __device__ float payoff(const Model& m) const {
    if constexpr (kPayoff == Payoff::digital) {
      const bool inside = fabsf(s1() - m.spot) < m.band && fabsf(s2() - m.spot) < m.band;
      return inside ? m.discount : 0.0f;
    } else if constexpr (kPayoff == Payoff::european_call) {
      return m.discount * fmaxf(s1() - m.strike, 0.0f);
    } else if constexpr (kPayoff == Payoff::european_put) {
      return m.discount * fmaxf(m.strike - s1(), 0.0f);
    } else {
      return m.discount * fmaxf(average / static_cast<float>(m.steps) - m.strike, 0.0f);
    }
  }
};

// Normals for one sample, two steps (four normals: y1, z of step n, then of step n + 1) at a time.
// device-rng: Philox4x32-10 with key = seed and the sample index in the counter's high words
// (cuRAND's subsequence), so each sample has its own stream; one draw is exactly two steps.
struct PhiloxNormals {
  PhiloxCounter counter;
  PhiloxKey key;
  __device__ PhiloxNormals(unsigned long long seed, unsigned long long sample)
      : counter{0, 0, static_cast<std::uint32_t>(sample), static_cast<std::uint32_t>(sample >> 32)},
        key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)} {}
  __device__ float4 next_two(bool /*second_step_needed*/) {
    const float4 y = philox_normal4(counter, key);
    ++counter.x;  // a sample draws at most 2^31 times (steps < 2^32), so x never wraps
    return y;
  }
};

// host-rng: normals in device memory, row 2n + which (y1 or z of step n), column = sample in the
// batch, so a warp's reads of one row are coalesced.
struct StoredNormals {
  const float* z;
  std::int64_t stride;  // samples in the batch
  std::int64_t at;      // this sample's element of the current row
  __device__ float4 next_two(bool second_step_needed) {
    float4 y;
    y.x = z[at];
    y.y = z[at + stride];
    y.z = second_step_needed ? z[at + 2 * stride] : 0.0f;
    y.w = second_step_needed ? z[at + 3 * stride] : 0.0f;
    at += 4 * stride;
    return y;
  }
};

// Accumulates one thread's payoffs as integer quanta (order-free, so reproducible). Trivial, so
// the block reduction can hold it in shared memory; `Quanta{}` is zero.
struct Quanta {
  Uint128 sum, sum_sq;
  __device__ void add(float payoff, double to_quanta) {
    const unsigned long long q = __double2ull_rn(static_cast<double>(payoff) * to_quanta);
    sum += q;
    sum_sq += static_cast<Uint128>(q) * q;
  }
  friend __device__ Quanta operator+(const Quanta& a, const Quanta& b) {
    return {a.sum + b.sum, a.sum_sq + b.sum_sq};
  }
};

// The block's sums, added into this block's slot of `partials` (slots persist across batches;
// one launch never has two blocks with the same index, so no atomics are needed).
template <int kThreads>
__device__ void add_block_partials(const Quanta& mine, Uint128* partials) {
  const Quanta block = block_reduce<kThreads>(mine, Sum{});
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] += block.sum;
    partials[2 * blockIdx.x + 1] += block.sum_sq;
  }
}

// The path kernel: samples [first, first + count) of the run, grid-stride. `sample_out`, when
// set, receives both assets at every time of the first `sample_paths` samples (the + path).
template <int kThreads, Step kStep, Payoff kPayoff, bool kAntithetic, bool kDeviceRng>
__global__ void __launch_bounds__(kThreads)
    paths_kernel(Model m, std::int64_t first, std::int64_t count, unsigned long long seed,
                 const float* __restrict__ normals, Uint128* partials, float* sample_out,
                 std::int64_t sample_paths) {
  Quanta quanta{};
  for (const std::int64_t s : grid_stride(count)) {
    const std::int64_t sample = first + s;
    auto source = [&] {
      if constexpr (kDeviceRng) return PhiloxNormals(seed, static_cast<unsigned long long>(sample));
      else return StoredNormals{normals, count, s};
    }();
    Path<kStep, kPayoff> plus(m), minus(m);
    float* record = sample < sample_paths ? sample_out + sample * 2 * (m.steps + 1) : nullptr;
    if (record != nullptr) {
      record[0] = plus.s1();
      record[1] = plus.s2();
    }
    // Two steps per draw; the recording and non-recording marches are compiled apart, so
    // the paths nobody plots carry no per-step test.
    const auto march = [&](auto recording) {
      const auto step = [&](int n, float y1, float z) {
        plus.advance(m, y1, z);
        if constexpr (kAntithetic) minus.advance(m, -y1, -z);
        if constexpr (decltype(recording)::value) {
          record[2 * (n + 1)] = plus.s1();
          record[2 * (n + 1) + 1] = plus.s2();
        }
      };
      int n = 0;
      for (; n + 1 < m.steps; n += 2) {
        const float4 y = source.next_two(true);
        step(n, y.x, y.y);
        step(n + 1, y.z, y.w);
      }
      if (n < m.steps) {
        const float4 y = source.next_two(false);
        step(n, y.x, y.y);
      }
    };
    if (record != nullptr)
      march(std::true_type{});
    else
      march(std::false_type{});
    float payoff = plus.payoff(m);
    if constexpr (kAntithetic) payoff = 0.5f * (payoff + minus.payoff(m));
    quanta.add(payoff, m.to_quanta);
  }
  add_block_partials<kThreads>(quanta, partials);
}

// Chooses the compiled instance for the run-time choices.
template <int kThreads, bool kDeviceRng>
auto pick_kernel(const Params& p) {
  using Kernel = void (*)(Model, std::int64_t, std::int64_t, unsigned long long, const float*,
                          Uint128*, float*, std::int64_t);
  const auto by_payoff = [&](auto step) -> Kernel {
    constexpr Step S = decltype(step)::value;
    const auto by_anti = [&](auto payoff) -> Kernel {
      constexpr Payoff P = decltype(payoff)::value;
      return p.antithetic ? paths_kernel<kThreads, S, P, true, kDeviceRng>
                          : paths_kernel<kThreads, S, P, false, kDeviceRng>;
    };
    switch (p.payoff) {
      case Payoff::digital: return by_anti(std::integral_constant<Payoff, Payoff::digital>{});
      case Payoff::european_call: return by_anti(std::integral_constant<Payoff, Payoff::european_call>{});
      case Payoff::european_put: return by_anti(std::integral_constant<Payoff, Payoff::european_put>{});
      case Payoff::asian_call: return by_anti(std::integral_constant<Payoff, Payoff::asian_call>{});
    }
    throw Error("montecarlo: unknown payoff");
  };
  return p.step == Step::euler ? by_payoff(std::integral_constant<Step, Step::euler>{})
                               : by_payoff(std::integral_constant<Step, Step::exact>{});
}

curandRngType_t rng_type(Generator g) {
  switch (g) {
    case Generator::xorwow: return CURAND_RNG_PSEUDO_XORWOW;
    case Generator::philox: return CURAND_RNG_PSEUDO_PHILOX4_32_10;
    case Generator::mrg32k3a: return CURAND_RNG_PSEUDO_MRG32K3A;
  }
  throw Error("montecarlo: unknown generator");
}

// RAII cuRAND host-API generator.
class RandGenerator {
 public:
  // `offset`: normals to skip, where a part of the run starts in the whole run's stream.
  RandGenerator(const Params& p, cudaStream_t stream, unsigned long long offset) {
    // Making it allocates its state: a failure says which generator and the memory free.
    while_making("a cuRAND " + std::string(name(p.generator)) + " generator", [&] {
      PARASOL_CURAND(curandCreateGenerator(&gen_, rng_type(p.generator)));
      try {
        PARASOL_CURAND(curandSetPseudoRandomGeneratorSeed(gen_, p.seed));
        PARASOL_CURAND(curandSetGeneratorOffset(gen_, offset));
        PARASOL_CURAND(curandSetGeneratorOrdering(
            gen_, p.ordering == Ordering::dynamic ? CURAND_ORDERING_PSEUDO_DYNAMIC
                                                  : CURAND_ORDERING_PSEUDO_DEFAULT));
        PARASOL_CURAND(curandSetStream(gen_, stream));
        // Sets up the generator's state now, so the first batch's timing is generation alone.
        PARASOL_CURAND(curandGenerateSeeds(gen_));
      } catch (...) {
        curandDestroyGenerator(gen_);
        throw;
      }
    });
  }
  RandGenerator(const RandGenerator&) = delete;
  RandGenerator& operator=(const RandGenerator&) = delete;
  ~RandGenerator() { curandDestroyGenerator(gen_); }
  curandGenerator_t get() const { return gen_; }

 private:
  curandGenerator_t gen_ = nullptr;
};

using Kernel = void (*)(Model, std::int64_t, std::int64_t, unsigned long long, const float*,
                        Uint128*, float*, std::int64_t);

// The compiled instance for p's block size and variant.
Kernel kernel_for(const Params& p) {
  const bool device_rng = p.variant == Variant::device_rng;
  Kernel kernel = nullptr;
  dispatch_value("montecarlo/" + std::string(name(p.variant)), "threads per block", BlockSizes{},
                 p.block, [&](auto threads) {
                   constexpr int B = decltype(threads)::value;
                   kernel = device_rng ? pick_kernel<B, true>(p) : pick_kernel<B, false>(p);
                 });
  return kernel;
}

}  // namespace

struct Simulator::State {
  Model model;
  Kernel kernel;
  std::int64_t first, last;  // the samples run: [first, last) of the whole run's
  std::int64_t batch;        // samples per launch
  int blocks;
  DeviceBuffer<Uint128> partials;      // sum and sum of squares per block
  PinnedBuffer<Uint128> host_partials; // the same on the host, copied at the end of each run
  DeviceBuffer<float> sample, normals;
  std::unique_ptr<RandGenerator> generator;  // host-rng only
  Event start, done;
  // host-rng: around each batch's generation, read after the run rather than stalling it.
  std::vector<std::pair<Event, Event>> generation;
  Event batch_done[2];  // the last two batches, for progress one batch behind
};

Simulator::Simulator(const Params& p, cudaStream_t stream, Samples part)
    : p_(p), stream_(stream), part_(part) {
  auto s = std::make_unique<State>();
  s->model = model_of(p);
  s->kernel = kernel_for(p);
  const bool device_rng = p.variant == Variant::device_rng;
  const std::int64_t samples = p.antithetic ? p.paths / 2 : p.paths;
  s->first = std::min(samples, part.first);
  s->last = part.count < 0 ? samples : std::min(samples, s->first + part.count);
  s->batch = std::max<std::int64_t>(
      1, std::min(s->last - s->first, p.antithetic ? p.batch_paths / 2 : p.batch_paths));
  // Enough blocks to fill the device; the integer sums make the result independent of this.
  s->blocks = static_cast<int>(std::min<std::int64_t>(
      ceil_div(s->batch, p.block),
      static_cast<std::int64_t>(max_active_blocks(reinterpret_cast<const void*>(s->kernel), p.block)) *
          multiprocessor_count()));
  s->partials = DeviceBuffer<Uint128>(2 * static_cast<std::size_t>(s->blocks));
  s->host_partials = PinnedBuffer<Uint128>(s->partials.size());
  s->sample = DeviceBuffer<float>(static_cast<std::size_t>(p.sample_paths * 2 * (p.steps + 1)));
  if (!device_rng) {
    s->normals = DeviceBuffer<float>(static_cast<std::size_t>(2 * p.steps * s->batch));
    // A part starts where the whole run's stream of normals reaches its first sample.
    s->generator = std::make_unique<RandGenerator>(
        p, stream, static_cast<unsigned long long>(2 * p.steps * s->first));
    s->generation.resize(static_cast<std::size_t>(ceil_div(s->last - s->first, s->batch)));
  }
  state_ = std::move(s);
}

Simulator::~Simulator() = default;

void Simulator::run(const ProgressCallback& progress) {
  State& s = *state_;
  const auto wall_start = std::chrono::steady_clock::now();
  const std::int64_t copies = p_.antithetic ? 2 : 1;
  PARASOL_CUDA(cudaMemsetAsync(s.partials.data(), 0, s.partials.bytes(), stream_));
  s.start.record(stream_);
  std::size_t n = 0;  // batches enqueued
  for (std::int64_t first = s.first; first < s.last; first += s.batch, ++n) {
    const std::int64_t count = std::min(s.batch, s.last - first);
    if (s.generator) {
      s.generation[n].first.record(stream_);
      PARASOL_CURAND(curandGenerateNormal(s.generator->get(), s.normals.data(),
                                          static_cast<std::size_t>(2 * p_.steps * count), 0.0f, 1.0f));
      s.generation[n].second.record(stream_);
    }
    if (kernel_log_active())
      note_launch("paths_kernel", s.kernel, dim3(s.blocks), dim3(p_.block), 0);
    s.kernel<<<s.blocks, p_.block, 0, stream_>>>(s.model, first, count, p_.seed, s.normals.data(),
                                                 s.partials.data(), s.sample.data(), p_.sample_paths);
    PARASOL_CHECK_LAUNCH(stream_);
    if (progress) {
      // The batch before this one is waited for while this one runs.
      s.batch_done[n % 2].record(stream_);
      if (n > 0) {
        s.batch_done[(n - 1) % 2].synchronize();
        progress({copies * (first - s.first), copies * (s.last - s.first),
                  seconds_since(wall_start)});
      }
    }
  }
  enqueue_download(s.host_partials.data(), s.partials.data(), s.partials.size(), stream_);
  s.done.record(stream_);  // the estimate's inputs are on the host: end to end
  if (progress) {
    s.done.synchronize();
    progress({copies * (s.last - s.first), copies * (s.last - s.first),
              seconds_since(wall_start)});
  }
}

PayoffSums Simulator::sums() const {
  state_->done.synchronize();
  PayoffSums sums;
  sums.count = state_->last - state_->first;
  for (std::size_t b = 0; b < state_->host_partials.size(); b += 2) {
    sums.sum += state_->host_partials[b];
    sums.sum_sq += state_->host_partials[b + 1];
  }
  return sums;
}

Estimate Simulator::estimate() const { return estimate_from(sums(), price_unit(p_)); }

PhaseTimer Simulator::timings() const {
  const State& s = *state_;
  s.done.synchronize();
  const auto elapsed = [](const Event& from, const Event& to) {
    float ms = 0;
    PARASOL_CUDA(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return 1e-3 * static_cast<double>(ms);
  };
  double generate = 0;
  for (const auto& [before, after] : s.generation) generate += elapsed(before, after);
  PhaseTimer t;
  t.add(kGeneratePhase, generate);
  t.add(kPathsPhase, elapsed(s.start, s.done) - generate);
  return t;
}

std::vector<float> Simulator::sample() const { return download(state_->sample, stream_); }

Result solve_gpu(const Params& p, const ProgressCallback& progress, Samples part) {
  const auto wall_start = std::chrono::steady_clock::now();
  Stream stream;
  Simulator simulator(p, stream, part);
  simulator.run(progress);
  Result result;
  result.sums = simulator.sums();
  result.estimate = estimate_from(result.sums, price_unit(p));
  result.timings = simulator.timings();
  result.sample = simulator.sample();
  // Wall time, allocation and generator set-up included: what the caller waited for.
  result.seconds = seconds_since(wall_start);
  return result;
}

}  // namespace parasol::montecarlo
