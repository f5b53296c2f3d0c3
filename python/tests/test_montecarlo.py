"""parasol.montecarlo.price against Black and Scholes's closed forms (a few standard errors) and
against the command line's result for the same keys, bit for bit; its refusals."""

import math

import numpy as np
import pytest

import parasol
from conftest import command_line_result, requires_gpu, write_params

# Four standard errors: a correct estimator strays that far once in some 16000 runs, and the
# seeds are fixed, so a pass stays a pass.
STANDARD_ERRORS = 4


def normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def black_scholes(spot, strike, rate, vol, maturity, dividend, put):
    """Price, delta and vega of a European call or put."""
    d1 = (math.log(spot / strike) + (rate - dividend + vol * vol / 2) * maturity) / (
        vol * math.sqrt(maturity))
    d2 = d1 - vol * math.sqrt(maturity)
    grown, discount = math.exp(-dividend * maturity), math.exp(-rate * maturity)
    vega = spot * grown * math.sqrt(maturity) * math.exp(-d1 * d1 / 2) / math.sqrt(2 * math.pi)
    if put:
        return (strike * discount * normal_cdf(-d2) - spot * grown * normal_cdf(-d1),
                -grown * normal_cdf(-d1), vega)
    return spot * grown * normal_cdf(d1) - strike * discount * normal_cdf(d2), \
        grown * normal_cdf(d1), vega


# One asset: the arithmetic basket's call and put are the asset's.
@pytest.mark.parametrize("payoff, put", [("arithmetic-basket-call", False),
                                         ("arithmetic-basket-put", True)])
def test_one_asset_matches_black_scholes_with_greeks(payoff, put):
    spot, strike, rate, vol, maturity, dividend = 100.0, 95.0, 0.04, 0.3, 0.75, 0.01
    p = parasol.montecarlo.price(spots=[spot], vols=[vol], dividends=[dividend], strike=strike,
                                 rate=rate, maturity=maturity, payoff=payoff, paths=100000,
                                 steps=1, seed=11, backend="cpu")
    price, delta, vega = black_scholes(spot, strike, rate, vol, maturity, dividend, put)
    assert p.samples == 100000
    assert abs(p.price - price) < STANDARD_ERRORS * p.standard_error
    assert p.delta.shape == (1,)
    assert abs(p.delta[0] - delta) < STANDARD_ERRORS * p.delta_standard_error[0]
    assert abs(p.vega - vega) < STANDARD_ERRORS * p.vega_standard_error
    assert p.ci95[0] < p.price < p.ci95[1]


def test_a_basket_gives_a_delta_per_asset():
    p = parasol.montecarlo.price(spots=[100.0, 90.0, 110.0], vols=[0.2, 0.3, 0.25],
                                 correlation=[[1, 0.5, 0.2], [0.5, 1, 0.3], [0.2, 0.3, 1]],
                                 strike=100.0, payoff="geometric-basket", paths=20000, steps=2,
                                 backend="cpu")
    assert p.delta.shape == (3,) and np.all(p.delta > 0)
    assert p.vega > 0
    assert "delta=" in repr(p)


def test_is_the_command_lines_result_bit_for_bit(parasol_exe, tmp_path):
    keys = {"model.kind": "basket", "model.spots": [100.0, 80.0], "model.vols": [0.2, 0.35],
            "model.correlation": [[1.0, -0.3], [-0.3, 1.0]], "payoff.kind": "best-of-call",
            "payoff.strike": 90.0, "paths.count": 5000, "paths.steps": 3, "method.seed": 5}
    cli = command_line_result(parasol_exe, write_params(tmp_path / "m.toml", "montecarlo", keys),
                              {}, tmp_path / "m.h5")
    p = parasol.montecarlo.price(spots=[100.0, 80.0], vols=[0.2, 0.35],
                                 correlation=[[1.0, -0.3], [-0.3, 1.0]], payoff="best-of-call",
                                 strike=90.0, paths=5000, steps=3, seed=5, backend="cpu")
    # The same paths summed in the same order: the same bits.
    assert p.price == cli["/estimate@price"]
    assert p.standard_error == cli["/estimate@standard_error"]
    np.testing.assert_array_equal(p.delta, cli["/greeks@delta"])
    assert p.vega == cli["/greeks@vega"]


def test_the_two_asset_model_has_no_greeks():
    p = parasol.montecarlo.price(model="two-asset", paths=4000, steps=10, backend="cpu")
    assert 0 < p.price < 1 and p.standard_error > 0  # a digital paying 1
    assert p.delta is None and p.vega is None


def test_a_bad_value_is_a_value_error_naming_the_argument_and_key():
    with pytest.raises(ValueError, match=r"^montecarlo\.price: paths \(paths\.count\): expected"):
        parasol.montecarlo.price(spots=[1.0], vols=[0.2], paths=1, steps=1, backend="cpu")
    with pytest.raises(ValueError, match=r"^montecarlo\.price: payoff \(payoff\.kind\)"):
        parasol.montecarlo.price(spots=[1.0], vols=[0.2], paths=10, steps=1, payoff="call",
                                 backend="cpu")
    with pytest.raises(ValueError, match=r"^montecarlo\.price: model \(model\.kind\)"):
        parasol.montecarlo.price(model="three-asset", paths=10, steps=1, backend="cpu")


def test_a_key_of_the_other_model_is_refused():
    with pytest.raises(ValueError, match=r"^montecarlo\.price: greeks \(method\.greeks\)"):
        parasol.montecarlo.price(model="two-asset", paths=10, steps=1, greeks=True,
                                 backend="cpu")


def test_an_unknown_keyword_is_a_type_error_listing_the_keywords():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'volatility'; expected "
                                        r"one of .*vols"):
        parasol.montecarlo.price(volatility=0.2)


@requires_gpu
def test_gpu_agrees_with_black_scholes():
    p = parasol.montecarlo.price(spots=[100.0], vols=[0.2], strike=100.0, rate=0.05,
                                 payoff="arithmetic-basket-call", paths=1 << 20, steps=1,
                                 backend="gpu")
    price, delta, vega = black_scholes(100.0, 100.0, 0.05, 0.2, 1.0, 0.0, False)
    assert abs(p.price - price) < STANDARD_ERRORS * p.standard_error
    assert abs(p.delta[0] - delta) < STANDARD_ERRORS * p.delta_standard_error[0]
