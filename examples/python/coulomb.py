"""The Coulomb potential of a few charges on a lattice, against the direct sum in NumPy.

    python examples/python/coulomb.py [--backend cpu]
"""

import argparse

import numpy as np

import parasol


def numpy_potential(atoms, origin, spacing, shape, k=332.0637, min_distance=0.5):
    """V[k, j, i] = k sum q / max(r, min_distance), in double."""
    z, y, x = np.meshgrid(*(origin[a] + spacing * np.arange(shape[2 - a]) for a in (2, 1, 0)),
                          indexing="ij")
    v = np.zeros(shape)
    for ax, ay, az, q in atoms.astype(np.float64):
        r = np.sqrt((x - ax) ** 2 + (y - ay) ** 2 + (z - az) ** 2)
        v += k * q / np.maximum(r, min_distance)
    return v


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    rng = np.random.default_rng(3)
    # 40 ions in a 10 Å box, charges +-1 e; float32, as the solver holds them.
    atoms = np.column_stack([rng.uniform(0, 10, (40, 3)),
                             rng.choice([-1.0, 1.0], 40)]).astype(np.float32)
    lattice = {"origin": (-2.0, -2.0, -2.0), "spacing": 0.5, "shape": (28, 29, 30)}
    v = parasol.coulomb.potential(atoms, lattice, coulomb_constant=332.0637, min_distance=0.5,
                                  backend=args.backend)
    reference = numpy_potential(atoms, lattice["origin"], lattice["spacing"], lattice["shape"])
    # float32 sums of 40 terms: a few ulps of the largest term's size at each point.
    scale = 332.0637 * 40 / 0.5
    difference = np.max(np.abs(v - reference))
    print("potential %s %s, kcal/(mol e): from %.1f to %.1f; max |parasol - numpy| %.3g"
          % (v.shape, v.dtype, v.min(), v.max(), difference))
    assert v.shape == lattice["shape"] and difference < 1e-5 * scale, difference


if __name__ == "__main__":
    main()
