"""parasol.fftconv.convolve on NumPy arrays against the C++ API's host call for the same problem,
host wall per call, both in this one process and alternating call by call, so that the state of
the host's memory (page faults, huge pages, caches) is the same for both.

    python python/bench/host_call.py [--rows 4096] [--n 4096] [--taps 63] [--calls 25]

The C++ call (the native fftconv._HostCallTimer, the binding's own code) convolves float32 arrays held in
std::vectors into a fresh output, as bench/fftconv_bench's fftconv/host-api does, on the same plans
as the Python call, which takes NumPy arrays and returns a new one. After one warm-up call of each
(the context, cuFFT, the plans), prints the medians and best of --calls calls each and their
ratio. Loads nothing else (no PyTorch, no SciPy). Needs a CUDA device.
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
    parser.add_argument("--calls", type=int, default=25)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, size=(args.rows, args.n)).astype(np.float32)
    h = rng.uniform(-1, 1, size=(1, args.taps)).astype(np.float32)
    cpp = parasol._parasol.fftconv._HostCallTimer(args.rows, args.n, args.taps)
    parasol.fftconv.convolve(x, h, "same", backend="gpu")
    cpp.time()
    python_s, cpp_s = [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        parasol.fftconv.convolve(x, h, "same", backend="gpu")
        python_s.append(time.perf_counter() - t0)
        cpp_s.append(cpp.time())
    p, c = statistics.median(python_s), statistics.median(cpp_s)
    print("fftconv.convolve, %d x %d ⊛ 1 x %d same, float32, host arrays in and out, %d calls each:"
          % (args.rows, args.n, args.taps, args.calls))
    print("  C++ API   median %6.2f ms  best %6.2f ms" % (1e3 * c, 1e3 * min(cpp_s)))
    print("  Python    median %6.2f ms  best %6.2f ms" % (1e3 * p, 1e3 * min(python_s)))
    print("  Python / C++: %.3f (medians), %.3f (best)" % (p / c, min(python_s) / min(cpp_s)))


if __name__ == "__main__":
    main()
