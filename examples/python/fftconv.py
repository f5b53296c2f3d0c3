"""Convolution and correlation through FFTs, against scipy.signal in every mode.

    python examples/python/fftconv.py [--backend cpu]
"""

import argparse

import numpy as np
import scipy.signal

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = parser.parse_args()
    rng = np.random.default_rng(4)
    x, h = rng.normal(size=5000), rng.normal(size=63)
    image, kernel = rng.normal(size=(120, 90)), rng.normal(size=(7, 5))
    for mode in ("full", "same", "valid"):
        y = parasol.fftconv.convolve(x, h, mode, backend=args.backend)
        z = parasol.fftconv.correlate(image, kernel, mode, backend=args.backend)
        dy = np.max(np.abs(y - scipy.signal.fftconvolve(x, h, mode)))
        dz = np.max(np.abs(z - scipy.signal.correlate(image, kernel, mode)))
        print("%-5s convolve %s: %.3g   correlate %s: %.3g" % (mode, y.shape, dy, z.shape, dz))
        # float64 sums of at most 63 products of normals: far below 1e-10 either way.
        assert dy < 1e-10 and dz < 1e-10, (dy, dz)


if __name__ == "__main__":
    main()
