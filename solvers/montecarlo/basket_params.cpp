#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "kernels/validate.hpp"
#include "solvers/montecarlo/basket.hpp"

namespace parasol::montecarlo {
namespace {

constexpr NameTable<BasketPayoff, 8> kBasketPayoffNames{
    {{BasketPayoff::geometric_basket, "geometric-basket"},
     {BasketPayoff::arithmetic_basket_call, "arithmetic-basket-call"},
     {BasketPayoff::arithmetic_basket_put, "arithmetic-basket-put"},
     {BasketPayoff::best_of_call, "best-of-call"},
     {BasketPayoff::worst_of_call, "worst-of-call"},
     {BasketPayoff::digital_basket_call, "digital-basket-call"},
     {BasketPayoff::american_put, "american-put"},
     {BasketPayoff::bermudan_put, "bermudan-put"}}};
constexpr NameTable<BasketVariant, 3> kBasketVariantNames{
    {{BasketVariant::automatic, "auto"},
     {BasketVariant::registers, "basket-registers"},
     {BasketVariant::cublas, "basket-cublas"}}};

// "row 2, column 3" for entry (i, j), counted from 1 as people count rows.
std::string entry(int i, int j) {
  return "row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1);
}

void require_per_asset(const std::vector<double>& v, std::size_t d, const char* key) {
  require(v.size() == d, key,
          "expected one value per asset (" + std::to_string(d) + ", as model.spots), got " +
              std::to_string(v.size()));
}

}  // namespace

std::string_view name(BasketPayoff p) { return lookup_name(kBasketPayoffNames, p); }
BasketPayoff parse_basket_payoff(std::string_view s) {
  return lookup_value(kBasketPayoffNames, s, "payoff");
}
bool early_exercise(BasketPayoff p) {
  return p == BasketPayoff::american_put || p == BasketPayoff::bermudan_put;
}
std::string_view name(BasketVariant v) { return lookup_name(kBasketVariantNames, v); }
BasketVariant parse_basket_variant(std::string_view s) {
  return lookup_value(kBasketVariantNames, s, "variant");
}

std::vector<double> cholesky(const std::vector<double>& c, int d, const char* key) {
  const auto n = static_cast<std::size_t>(d);
  require(c.size() == n * n, key,
          "expected a " + std::to_string(d) + " x " + std::to_string(d) +
              " matrix (one row and column per asset), got " + std::to_string(c.size()) +
              " numbers");
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) {
      const double x = c[i * n + j];
      require(std::isfinite(x), key, "expected finite numbers, got " + shown(x) + " at " + entry(i, j));
    }
  // Symmetric to a few ulps of a correlation: a matrix typed with 15 digits passes, one whose
  // halves disagree in a printed digit does not.
  for (int i = 0; i < d; ++i) {
    require(c[i * n + i] == 1.0, key,
            "expected 1 on the diagonal, got " + shown(c[i * n + i]) + " at " + entry(i, i));
    for (int j = 0; j < i; ++j)
      require(std::abs(c[i * n + j] - c[j * n + i]) <= 1e-12, key,
              "expected a symmetric matrix, got " + shown(c[i * n + j]) + " at " + entry(i, j) +
                  " and " + shown(c[j * n + i]) + " at " + entry(j, i));
  }
  std::vector<double> l(n * n, 0.0);
  for (int j = 0; j < d; ++j) {
    double pivot = c[j * n + j];
    for (int k = 0; k < j; ++k) pivot -= l[j * n + k] * l[j * n + k];
    // A pivot this close to zero leaves the factor's last columns as rounding noise: the matrix
    // is singular to working precision, and correlated normals drawn from it would be wrong.
    require(pivot > 1e-12, key,
            "expected a positive definite matrix; pivot " + std::to_string(j + 1) + " of its Cholesky factor is " +
                shown(pivot));
    const double root = std::sqrt(pivot);
    l[j * n + j] = root;
    for (int i = j + 1; i < d; ++i) {
      double x = c[i * n + j];
      for (int k = 0; k < j; ++k) x -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = x / root;
    }
  }
  return l;
}

void BasketParams::validate() const {
  require(paths >= 2, "paths.count", "expected an integer of at least 2, got " + std::to_string(paths));
  require(steps >= 1 && steps <= (std::int64_t{1} << 24), "paths.steps",
          "expected a positive integer up to 2^24, got " + std::to_string(steps));
  require(std::isfinite(maturity) && maturity > 0, "model.maturity",
          "expected a positive number of years, got " + shown(maturity));
  require(std::isfinite(rate), "model.rate", "expected a finite number, got " + shown(rate));
  const std::size_t d = spots.size();
  require(d >= 1 && d <= static_cast<std::size_t>(kMaxAssets), "model.spots",
          "expected 1 to " + std::to_string(kMaxAssets) + " prices, got " + std::to_string(d));
  require_per_asset(vols, d, "model.vols");
  require_per_asset(dividends, d, "model.dividends");
  require_per_asset(weights, d, "model.weights");
  for (std::size_t i = 0; i < d; ++i) {
    require(std::isfinite(spots[i]) && spots[i] > 0, "model.spots",
            "expected positive prices, got " + shown(spots[i]) + " for asset " + std::to_string(i + 1));
    require(std::isfinite(vols[i]) && vols[i] > 0 && vols[i] < 5, "model.vols",
            "expected volatilities in (0, 5), got " + shown(vols[i]) + " for asset " + std::to_string(i + 1));
    require(std::isfinite(dividends[i]), "model.dividends",
            "expected finite yields, got " + shown(dividends[i]) + " for asset " + std::to_string(i + 1));
    require(std::isfinite(weights[i]) && weights[i] >= 0, "model.weights",
            "expected weights >= 0, got " + shown(weights[i]) + " for asset " + std::to_string(i + 1));
  }
  double total = 0;
  for (double w : weights) total += w;
  require(total > 0, "model.weights", "expected at least one positive weight");
  cholesky(correlation, static_cast<int>(d), "model.correlation");
  require(std::isfinite(strike) && strike > 0, "payoff.strike",
          "expected a positive price, got " + shown(strike));
  if (payoff == BasketPayoff::bermudan_put) {
    require(!exercise_steps.empty(), "payoff.exercise_steps",
            "expected the steps at which exercise is allowed (bermudan-put)");
    for (std::size_t k = 0; k < exercise_steps.size(); ++k)
      require(exercise_steps[k] >= 1 && exercise_steps[k] <= steps &&
                  (k == 0 || exercise_steps[k] > exercise_steps[k - 1]),
              "payoff.exercise_steps",
              "expected increasing steps from 1 to paths.steps (" + std::to_string(steps) +
                  "), got " + std::to_string(exercise_steps[k]) + " at position " + std::to_string(k + 1));
    require(exercise_steps.back() == steps, "payoff.exercise_steps",
            "expected the last exercise at maturity, step " + std::to_string(steps));
  } else {
    require(exercise_steps.empty(), "payoff.exercise_steps",
            "is for bermudan-put only, not " + std::string(name(payoff)));
  }
  require(basis_degree >= 1 && basis_degree <= 4, "method.basis_degree",
          "expected 1 to 4, got " + std::to_string(basis_degree));
  require(batch_paths >= 1, "method.batch_paths",
          "expected a positive integer, got " + std::to_string(batch_paths));
  if (variant == BasketVariant::registers)
    require(static_cast<int>(d) <= kRegistersUpTo, "method.variant",
            "basket-registers holds up to " + std::to_string(kRegistersUpTo) +
                " assets; use basket-cublas or auto for " + std::to_string(d));
}

std::vector<std::int64_t> BasketParams::exercise_schedule() const {
  if (payoff == BasketPayoff::bermudan_put) return exercise_steps;
  std::vector<std::int64_t> every;
  if (payoff == BasketPayoff::american_put)
    for (std::int64_t n = 1; n <= steps; ++n) every.push_back(n);
  return every;
}

BasketVariant BasketParams::resolved_variant() const {
  if (variant != BasketVariant::automatic) return variant;
  return assets() <= kRegistersUpTo ? BasketVariant::registers : BasketVariant::cublas;
}

}  // namespace parasol::montecarlo
