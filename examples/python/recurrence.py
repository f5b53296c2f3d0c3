"""A first-order linear recurrence, against SciPy's IIR filter: v[t] = a v[t-1] + u[t] is
scipy.signal.lfilter([1], [1, -a], u) started from v[-1].

    python examples/python/recurrence.py [--backend cpu]
"""

import argparse

import numpy as np
import scipy.signal

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    rng = np.random.default_rng(2)
    series, n, a, v0 = 4, 100000, 0.999, np.array([0.0, 1.0, -2.0, 5.0])
    u = rng.normal(size=(series, n))
    v = parasol.recurrence.linear(np.full((series, n), a), u, v0, backend=args.backend)
    # lfilter's state zi is what v[-1] contributes to v[0]: a v0.
    reference = np.stack([scipy.signal.lfilter([1.0], [1.0, -a], u[k], zi=[a * v0[k]])[0]
                          for k in range(series)])
    # An AR(1) with a = 0.999 keeps about 1000 terms: values near 30, a few ulps each.
    difference = np.max(np.abs(v - reference))
    print("%d series of %d, a = %g: max |parasol - scipy| %.3g" % (series, n, a, difference))
    assert difference < 1e-9, difference


if __name__ == "__main__":
    main()
