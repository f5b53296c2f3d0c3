"""The 3D Laplace equation by Jacobi iteration, against the same iteration written in NumPy.

    python examples/python/laplace3d.py [--backend cpu]

A cube with one hot face (x = 0 at 1, the others at 0), the interior starting at 0: Parasol's
solve in double, and 200 Jacobi sweeps of the six-neighbour mean in NumPy from the same start.
"""

import argparse

import numpy as np

import parasol


def numpy_jacobi(shape, hot, sweeps):
    """u[k, j, i], x fastest: the x_min face at `hot`, the others and the interior at 0."""
    u = np.zeros(shape)
    u[:, :, 0] = hot
    for _ in range(sweeps):
        nxt = u.copy()
        nxt[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] +
                                 u[1:-1, 2:, 1:-1] + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]) / 6
        u = nxt
    return u


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    shape, sweeps = (24, 20, 32), 200  # (nz, ny, nx)
    s = parasol.laplace3d.solve(shape, boundary={"x_min": 1.0}, max_iterations=sweeps,
                                tolerance=0.0, interior="constant", interior_value=0.0,
                                precision="double", backend=args.backend)
    reference = numpy_jacobi(shape, 1.0, sweeps)
    difference = np.max(np.abs(s.u - reference))
    print(s)
    print("max |parasol - numpy| after %d sweeps: %.3g" % (s.iterations, difference))
    # Both add the same six doubles, perhaps in another order: a few ulps of values <= 1 a sweep.
    assert s.iterations == sweeps and difference < 1e-12, difference
    # Run to convergence: the largest update falls below the tolerance.
    converged = parasol.laplace3d.solve(shape, boundary={"x_min": 1.0}, tolerance=1e-5,
                                        max_iterations=20000, backend=args.backend)
    print(converged)
    assert converged.converged and converged.last_change < 1e-5


if __name__ == "__main__":
    main()
