"""Option prices by Monte Carlo simulation of geometric Brownian motions, with their standard
errors and Greeks.

    p = parasol.montecarlo.price(spots=[100.0], vols=[0.2], strike=100.0,
                                 payoff="arithmetic-basket-call", paths=200000, steps=1)
    p.price, p.standard_error, p.delta, p.vega

A run of the command line's montecarlo (`parasol run` with these keys), on the GPU when there is
one and on the CPU gold solver otherwise. The CPU gold draws counter-based normals of the seed:
the same price, bit for bit, as `parasol run --backend cpu` of a parameter file with the same
keys.
"""

import numpy as np

from ._params import Keywords

__all__ = ["price", "Price"]

_KEYWORDS = Keywords(
    "montecarlo", "montecarlo.price",
    renamed={"model.kind": "model", "payoff.kind": "payoff", "paths.count": "paths"})


class Price:
    """A price and what is known of its error and sensitivities.

    price: the sample mean of the discounted payoff, in the spots' currency.
    standard_error: its standard error (sample standard deviation / sqrt(samples)).
    samples: independent samples (paths, or antithetic pairs).
    ci95: (low, high), price -+ 1.96 standard errors.
    delta, delta_standard_error: dPrice/dS_i(0), one per asset (an array), and their standard
        errors; None where not computed (the two-asset model, greeks=False, early exercise).
    vega, vega_standard_error: dPrice/dsigma for a parallel shift of every volatility; None
        where not computed (also the digital, whose payoff has no pathwise derivative).
    result: the whole result, as parasol.run returns it.
    """

    def __init__(self, result):
        self.result = result
        self.price = float(result["/estimate@price"])
        self.standard_error = float(result["/estimate@standard_error"])
        self.samples = int(result["/estimate@samples"])
        self.ci95 = (float(result["/estimate@ci95_low"]), float(result["/estimate@ci95_high"]))
        delta = result.get("/greeks@delta")
        self.delta = None if delta is None else np.atleast_1d(np.asarray(delta, dtype=float))
        error = result.get("/greeks@delta_standard_error")
        self.delta_standard_error = (None if error is None
                                     else np.atleast_1d(np.asarray(error, dtype=float)))
        vega = result.get("/greeks@vega")
        self.vega = None if vega is None else float(vega)
        error = result.get("/greeks@vega_standard_error")
        self.vega_standard_error = None if error is None else float(error)

    def __repr__(self):
        text = "montecarlo.Price(price=%.6g, standard_error=%.3g, samples=%d" % (
            self.price, self.standard_error, self.samples)
        if self.delta is not None:
            text += ", delta=%s" % np.array2string(self.delta, precision=4)
        if self.vega is not None:
            text += ", vega=%.4g" % self.vega
        return text + ")"


def price(*, model="basket", backend="auto", check=False, threads=None, **keywords):
    keywords["model"] = model
    settings = _KEYWORDS.overrides(keywords)
    return Price(_KEYWORDS.run(settings, backend=backend, check=check, threads=threads))


price.__doc__ = """The discounted expected payoff of an option by path simulation, its standard
error, and (basket model, European payoffs, greeks=True) its delta per asset and vega, by
pathwise derivatives on the same paths (likelihood ratio for the digital's delta). Returns a
Price.

model: "basket" (here the default: d assets with their own spots, vols, dividends and a
    correlation, and the payoffs with Greeks; model.kind) or "two-asset" (the course's digital
    on two correlated assets: spot, sigma, rho; no Greeks).
backend: "auto" (the GPU when there is one, else the CPU gold solver), "gpu" or "cpu".
check: also judge the estimate against its gold (a closed form where one is known) and store
    the agreement in result["/check@..."].
threads: threads of the CPU gold (default: the cores this process may use).

Every keyword is one of montecarlo's declared keys (`parasol keys montecarlo`), checked as a
parameter file's are; a bad value is a ValueError naming the argument and its key. Each is read
with the model it belongs to:
""" + _KEYWORDS.doc()
