"""A European call priced by Monte Carlo, against Black and Scholes's closed form: the price,
its delta and its vega, each within a few of its standard errors.

    python examples/python/montecarlo.py [--backend cpu]
"""

import argparse
import math

import parasol


def normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def black_scholes_call(spot, strike, rate, vol, maturity, dividend=0.0):
    """Price, delta and vega of a European call."""
    d1 = (math.log(spot / strike) + (rate - dividend + vol * vol / 2) * maturity) / (
        vol * math.sqrt(maturity))
    d2 = d1 - vol * math.sqrt(maturity)
    price = (spot * math.exp(-dividend * maturity) * normal_cdf(d1) -
             strike * math.exp(-rate * maturity) * normal_cdf(d2))
    delta = math.exp(-dividend * maturity) * normal_cdf(d1)
    vega = spot * math.exp(-dividend * maturity) * math.sqrt(maturity) * math.exp(
        -d1 * d1 / 2) / math.sqrt(2 * math.pi)
    return price, delta, vega


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    spot, strike, rate, vol, maturity = 100.0, 105.0, 0.03, 0.25, 1.0
    # One asset: the geometric basket is the asset itself, stepped exactly in log space.
    p = parasol.montecarlo.price(spots=[spot], vols=[vol], strike=strike, rate=rate,
                                 maturity=maturity, payoff="geometric-basket", paths=200000,
                                 steps=1, seed=7, backend=args.backend)
    price, delta, vega = black_scholes_call(spot, strike, rate, vol, maturity)
    print(p)
    for name, estimate, error, exact in [("price", p.price, p.standard_error, price),
                                         ("delta", p.delta[0], p.delta_standard_error[0], delta),
                                         ("vega", p.vega, p.vega_standard_error, vega)]:
        print("%-5s %.5f +- %.5f   Black-Scholes %.5f   (%+.2f standard errors)"
              % (name, estimate, error, exact, (estimate - exact) / error))
        # Four standard errors: a correct estimator strays that far once in some 16000 runs.
        assert abs(estimate - exact) < 4 * error, name


if __name__ == "__main__":
    main()
