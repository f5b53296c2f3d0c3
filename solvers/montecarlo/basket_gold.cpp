// The basket model's CPU gold: one obvious loop per path in double, and the closed forms and the
// tree it is itself tested against (tests/montecarlo_basket_test.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "kernels/error.hpp"
#include "solvers/montecarlo/analytic.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/counter_normals.hpp"
#include "solvers/montecarlo/regression.hpp"

namespace parasol::montecarlo {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The model's constants, in the form a step uses them.
struct Model {
  int d;
  double dt, root_dt, discount;
  std::vector<double> l;      // Cholesky factor, row-major lower triangle
  std::vector<double> drift;  // (r - q_i - sigma_i^2/2) dt
  std::vector<double> vol;    // sigma_i sqrt(dt)
  explicit Model(const BasketParams& p)
      : d(p.assets()),
        dt(p.maturity / static_cast<double>(p.steps)),
        root_dt(std::sqrt(dt)),
        discount(std::exp(-p.rate * p.maturity)),
        l(cholesky(p.correlation, p.assets(), "model.correlation")) {
    for (int i = 0; i < d; ++i) {
      drift.push_back((p.rate - p.dividends[i] - 0.5 * p.vols[i] * p.vols[i]) * dt);
      vol.push_back(p.vols[i] * root_dt);
    }
  }
  // x_i += drift_i + vol_i (L z)_i: one step of the log-prices x_i = log(S_i / S_i(0)).
  void step(const double* z, double* x) const {
    for (int i = 0; i < d; ++i) {
      double y = 0;
      for (int k = 0; k <= i; ++k) y += l[i * d + k] * z[k];
      x[i] += drift[i] + vol[i] * y;
    }
  }
};

double basket_value(const BasketParams& p, const double* x) {
  double b = 0;
  for (int i = 0; i < p.assets(); ++i) b += p.weights[i] * p.spots[i] * std::exp(x[i]);
  return b;
}

// A European payoff at maturity and its pathwise derivatives g_i = d payoff / d S_i(T)
// (undiscounted); the digital's are zero (its delta is by likelihood ratio).
double payoff_and_gradient(const BasketParams& p, const double* x, double* g) {
  const int d = p.assets();
  const double k = p.strike;
  std::fill(g, g + d, 0.0);
  switch (p.payoff) {
    case BasketPayoff::geometric_basket: {
      double log_g = 0;
      for (int i = 0; i < d; ++i) log_g += p.weights[i] * (std::log(p.spots[i]) + x[i]);
      const double geo = std::exp(log_g);
      if (geo <= k) return 0;
      for (int i = 0; i < d; ++i) g[i] = p.weights[i] * geo / (p.spots[i] * std::exp(x[i]));
      return geo - k;
    }
    case BasketPayoff::arithmetic_basket_call:
    case BasketPayoff::arithmetic_basket_put: {
      const double b = basket_value(p, x);
      const bool call = p.payoff == BasketPayoff::arithmetic_basket_call;
      const double value = call ? b - k : k - b;
      if (value <= 0) return 0;
      for (int i = 0; i < d; ++i) g[i] = call ? p.weights[i] : -p.weights[i];
      return value;
    }
    case BasketPayoff::best_of_call:
    case BasketPayoff::worst_of_call: {
      const bool best = p.payoff == BasketPayoff::best_of_call;
      int pick = 0;
      double s = p.spots[0] * std::exp(x[0]);
      for (int i = 1; i < d; ++i) {
        const double si = p.spots[i] * std::exp(x[i]);
        if (best ? si > s : si < s) {
          s = si;
          pick = i;
        }
      }
      if (s <= k) return 0;
      g[pick] = 1;
      return s - k;
    }
    case BasketPayoff::digital_basket_call: return basket_value(p, x) > k ? 1.0 : 0.0;
    case BasketPayoff::american_put:
    case BasketPayoff::bermudan_put: break;
  }
  throw Error("montecarlo: " + std::string(name(p.payoff)) + " is not a European payoff");
}

BasketResult european_gold(const BasketParams& p) {
  const auto start = Clock::now();
  const Model m(p);
  const int d = m.d;
  const std::uint64_t key = gold_key(p.seed, 0);
  const bool digital = p.payoff == BasketPayoff::digital_basket_call;
  std::vector<double> x(d), z(d), z0(d), g(d), score(d);
  Moments price, vega;
  std::vector<Moments> delta(p.greeks ? d : 0);
  for (std::int64_t s = 0; s < p.paths; ++s) {
    std::fill(x.begin(), x.end(), 0.0);
    for (std::int64_t n = 0; n < p.steps; ++n) {
      gold_normals(p, key, s, n, z.data());
      if (n == 0) z0 = z;
      m.step(z.data(), x.data());
    }
    const double f = m.discount * payoff_and_gradient(p, x.data(), g.data());
    price.add(f);
    if (!p.greeks) continue;
    if (digital) {
      // Likelihood ratio: the first step's correlated draw y = L z0 has density N(0, C), and
      // d log p / d S_i(0) = (C^-1 y)_i / (sigma_i sqrt(dt) S_i(0)) = (L^-T z0)_i / (...).
      for (int i = d - 1; i >= 0; --i) {
        double u = z0[i];
        for (int k = i + 1; k < d; ++k) u -= m.l[k * d + i] * score[k];
        score[i] = u / m.l[i * d + i];
      }
      for (int i = 0; i < d; ++i) delta[i].add(f * score[i] / (m.vol[i] * p.spots[i]));
      continue;
    }
    // Pathwise: dS_i(T)/dS_i(0) = S_i(T)/S_i(0); dS_i(T)/dsigma_i = S_i(T) (W_i(T) - sigma_i T)
    // with W_i(T) = (x_i - drift_i T/dt) / sigma_i the asset's Brownian motion at maturity.
    double v = 0;
    for (int i = 0; i < d; ++i) {
      const double st = p.spots[i] * std::exp(x[i]);
      delta[i].add(m.discount * g[i] * st / p.spots[i]);
      const double w = (x[i] - m.drift[i] * static_cast<double>(p.steps)) / p.vols[i];
      v += g[i] * st * (w - p.vols[i] * p.maturity);
    }
    vega.add(m.discount * v);
  }
  BasketResult r;
  r.price = price.estimate();
  for (const Moments& dm : delta) r.delta.push_back(dm.estimate());
  if (p.greeks && !digital) r.vega = vega.estimate();
  r.seconds = since(start);
  r.timings.add(kSimulatePhase, r.seconds);
  return r;
}

// Basis functions (B/K)^k at one basket value.
void basis_at(double b, double strike, int size, double* phi) {
  const double x = b / strike;
  phi[0] = 1;
  for (int k = 1; k < size; ++k) phi[k] = phi[k - 1] * x;
}

double continuation(const std::vector<double>& beta, const double* phi) {
  double c = 0;
  for (std::size_t k = 0; k < beta.size(); ++k) c += beta[k] * phi[k];
  return c;
}

BasketResult lsm_gold(const BasketParams& p) {
  const auto start = Clock::now();
  const Model m(p);
  const int d = m.d, nb = basis_size(p);
  const std::vector<std::int64_t> dates = p.exercise_schedule();
  const std::size_t e_count = dates.size();
  const auto paths = static_cast<std::size_t>(p.paths);
  const double k = p.strike;
  std::vector<double> x(d), z(d), phi(nb);

  // The fitting paths' basket values at every exercise date, [date][path].
  std::vector<double> b(e_count * paths);
  const std::uint64_t fit_key = gold_key(p.seed, 0);
  for (std::size_t s = 0; s < paths; ++s) {
    std::fill(x.begin(), x.end(), 0.0);
    std::size_t e = 0;
    for (std::int64_t n = 0; n < p.steps; ++n) {
      gold_normals(p, fit_key, static_cast<std::int64_t>(s), n, z.data());
      m.step(z.data(), x.data());
      if (e < e_count && dates[e] == n + 1) b[e++ * paths + s] = basket_value(p, x.data());
    }
  }
  BasketResult r;
  r.timings.add(kSimulatePhase, since(start));

  // Backward induction: v holds each path's cash flow discounted to the current date.
  const auto regress_start = Clock::now();
  std::vector<double> v(paths);
  for (std::size_t s = 0; s < paths; ++s) v[s] = std::max(k - b[(e_count - 1) * paths + s], 0.0);
  r.policy.assign(e_count, {});
  for (std::size_t e = e_count - 1; e-- > 0;) {
    const double back = std::exp(-p.rate * m.dt * static_cast<double>(dates[e + 1] - dates[e]));
    std::vector<double> a(nb * nb, 0.0), rhs(nb, 0.0);
    double count = 0;
    for (std::size_t s = 0; s < paths; ++s) {
      v[s] *= back;
      const double bs = b[e * paths + s];
      if (k - bs <= 0) continue;
      basis_at(bs, k, nb, phi.data());
      for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) a[i * nb + j] += phi[i] * phi[j];
        rhs[i] += phi[i] * v[s];
      }
      count += 1;
    }
    r.policy[e] = regression_coefficients(a, rhs, count);
    if (r.policy[e].empty()) continue;
    for (std::size_t s = 0; s < paths; ++s) {
      const double exercise = k - b[e * paths + s];
      if (exercise <= 0) continue;
      basis_at(b[e * paths + s], k, nb, phi.data());
      if (exercise >= continuation(r.policy[e], phi.data())) v[s] = exercise;
    }
  }
  Moments in_sample;
  const double to_now = std::exp(-p.rate * m.dt * static_cast<double>(dates[0]));
  for (std::size_t s = 0; s < paths; ++s) in_sample.add(v[s] * to_now);
  r.in_sample = in_sample.estimate();
  r.timings.add(kRegressPhase, since(regress_start));

  // The fitted policy on independent paths: exercise at the first date it says to.
  const auto price_start = Clock::now();
  const std::uint64_t price_key = gold_key(p.seed, 1);
  Moments out;
  for (std::size_t s = 0; s < paths; ++s) {
    std::fill(x.begin(), x.end(), 0.0);
    std::size_t e = 0;
    double cash = 0;
    for (std::int64_t n = 0; n < p.steps && e < e_count; ++n) {
      gold_normals(p, price_key, static_cast<std::int64_t>(s), n, z.data());
      m.step(z.data(), x.data());
      if (dates[e] != n + 1) continue;
      const double exercise = k - basket_value(p, x.data());
      const bool last = e + 1 == e_count;
      if (exercise > 0 && !r.policy[e].empty()) basis_at(k - exercise, k, nb, phi.data());
      if (exercise > 0 && (last || (!r.policy[e].empty() &&
                                    exercise >= continuation(r.policy[e], phi.data())))) {
        cash = exercise * std::exp(-p.rate * m.dt * static_cast<double>(n + 1));
        break;
      }
      ++e;
    }
    out.add(cash);
  }
  r.price = out.estimate();
  r.timings.add(kPricePhase, since(price_start));
  r.seconds = since(start);
  return r;
}

}  // namespace

Estimate Moments::estimate() const {
  Estimate e;
  e.samples = static_cast<std::int64_t>(count);
  e.price = count > 0 ? sum / count : NAN;
  if (count < 2) {
    e.standard_error = NAN;
    return e;
  }
  const double variance = std::max((sum_sq - sum * e.price) / (count - 1), 0.0);
  e.standard_error = std::sqrt(variance / count);
  return e;
}

std::vector<double> regression_coefficients(const std::vector<double>& a,
                                            const std::vector<double>& b, double count) {
  const int n = static_cast<int>(b.size());
  std::vector<double> m = a, y = b, beta(b.size());
  if (!solve_normal_equations(n, m.data(), y.data(), count, beta.data())) return {};
  return beta;
}

std::uint64_t gold_key(std::uint64_t seed, int path_set) {
  // Set 0 is the course gold's key, so a one-asset basket follows its first asset.
  const std::uint64_t key = mix64(seed + kGolden);
  return path_set == 0 ? key : mix64(key ^ 0xD1B54A32D192ED03ull);
}

void gold_normals(const BasketParams& p, std::uint64_t key, std::int64_t s, std::int64_t n,
                  double* z) {
  // Pairs of assets share one Box-Muller draw: (cos, sin) of the course gold's layout, whose
  // counter for d = 1 or 2 is the course model's 2 (s steps + n).
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const int d = p.assets();
  const std::int64_t pairs = (d + 1) / 2;
  for (std::int64_t j = 0; j < pairs; ++j) {
    const auto counter = 2 * static_cast<std::uint64_t>((s * p.steps + n) * pairs + j);
    const double radius = std::sqrt(-2.0 * std::log(open_unit_at(key, counter)));
    const double angle = kTwoPi * open_unit_at(key, counter + 1);
    z[2 * j] = radius * std::cos(angle);
    if (2 * j + 1 < d) z[2 * j + 1] = radius * std::sin(angle);
  }
}

BasketResult solve_basket_gold(const BasketParams& p) {
  return early_exercise(p.payoff) ? lsm_gold(p) : european_gold(p);
}

double geometric_basket_price(const BasketParams& p) {
  const int d = p.assets();
  const double t = p.maturity;
  double mean = 0, variance = 0;
  for (int i = 0; i < d; ++i) {
    mean += p.weights[i] *
            (std::log(p.spots[i]) + (p.rate - p.dividends[i] - 0.5 * p.vols[i] * p.vols[i]) * t);
    for (int j = 0; j < d; ++j)
      variance += p.weights[i] * p.weights[j] * p.vols[i] * p.vols[j] * p.correlation[i * d + j] * t;
  }
  return lognormal_call(mean, variance, p.strike, std::exp(-p.rate * t));
}

double binomial_put(const BasketParams& p, int per_interval, bool american) {
  if (p.assets() != 1) throw Error("montecarlo: binomial_put prices one asset, not " +
                                   std::to_string(p.assets()));
  const std::int64_t n = p.steps * per_interval;
  const double dt = p.maturity / static_cast<double>(n);
  const double up = std::exp(p.vols[0] * std::sqrt(dt)), down = 1 / up;
  const double q = (std::exp((p.rate - p.dividends[0]) * dt) - down) / (up - down);
  const double discount = std::exp(-p.rate * dt);
  const double s0 = p.weights[0] * p.spots[0], k = p.strike;
  std::vector<bool> allowed(static_cast<std::size_t>(p.steps) + 1, false);
  for (std::int64_t e : p.exercise_schedule()) allowed[e] = true;
  std::vector<double> v(static_cast<std::size_t>(n) + 1);
  for (std::int64_t j = 0; j <= n; ++j)
    v[j] = std::max(k - s0 * std::pow(up, static_cast<double>(2 * j - n)), 0.0);
  for (std::int64_t m = n - 1; m >= 0; --m) {
    // Exercise where the schedule allows it; never at time 0, as the simulation.
    const bool exercise =
        m > 0 && (american || (m % per_interval == 0 && allowed[m / per_interval]));
    for (std::int64_t j = 0; j <= m; ++j) {
      v[j] = discount * (q * v[j + 1] + (1 - q) * v[j]);
      if (exercise) v[j] = std::max(v[j], k - s0 * std::pow(up, static_cast<double>(2 * j - m)));
    }
  }
  return v[0];
}

}  // namespace parasol::montecarlo
