"""Batched tridiagonal systems, against SciPy's banded solver.

    python examples/python/tridiag.py [--backend cpu]
"""

import argparse

import numpy as np
import scipy.linalg

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    systems, n = 64, 500
    # Diagonally dominant (|b| >= |a| + |c| + 1): no pivoting needed, and |x| <= |d|.
    a, c, d = (rng.uniform(-1, 1, (systems, n)) for _ in range(3))
    b = np.abs(a) + np.abs(c) + rng.uniform(1, 2, (systems, n))
    x = parasol.tridiag.solve(a, b, c, d, backend=args.backend)
    worst = 0.0
    for m in range(systems):
        ab = np.zeros((3, n))
        ab[0, 1:], ab[1], ab[2, :-1] = c[m, :-1], b[m], a[m, 1:]
        worst = max(worst, np.max(np.abs(x[m] - scipy.linalg.solve_banded((1, 1), ab, d[m]))))
    print("%d systems of %d rows, float64: max |parasol - scipy| %.3g" % (systems, n, worst))
    assert worst < 1e-12, worst


if __name__ == "__main__":
    main()
