"""parasol.fftconv.convolve on NumPy arrays, host wall per call, in a process that loads nothing
else (no PyTorch, no SciPy), to set beside bench/fftconv_bench's fftconv/host-api case: the same
problem through the C++ call, copies included.

    python python/bench/host_call.py [--rows 4096] [--n 4096] [--taps 63] [--calls 15]

Prints the median and the best of --calls calls after one warm-up (the context, cuFFT, the plans).
Needs a CUDA device.
"""

import argparse
import statistics
import time

import numpy as np

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--taps", type=int, default=63)
    parser.add_argument("--calls", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, size=(args.rows, args.n)).astype(np.float32)
    h = rng.uniform(-1, 1, size=(1, args.taps)).astype(np.float32)
    parasol.fftconv.convolve(x, h, "same", backend="gpu")
    seconds = []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        parasol.fftconv.convolve(x, h, "same", backend="gpu")
        seconds.append(time.perf_counter() - t0)
    print("fftconv.convolve, %d x %d ⊛ 1 x %d same, float32, NumPy in and out: median %.2f ms, "
          "best %.2f ms of %d" % (args.rows, args.n, args.taps, 1e3 * statistics.median(seconds),
                                   1e3 * min(seconds), args.calls))


if __name__ == "__main__":
    main()
