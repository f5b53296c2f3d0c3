"""parasol.fftconv against scipy.signal.fftconvolve on a batch of rows, in one run:

    python python/bench/vs_scipy.py [--rows 4096] [--n 4096] [--taps 63]

Each row of a float32 [rows, n] signal convolved with one filter of `taps` ("same"). SciPy on
the host (fftconvolve along axis 1, its best of 3); Parasol's Convolver on a PyTorch CUDA tensor
(device time by CUDA events, median of 20 after a warm-up), and parasol.fftconv.convolve on the
NumPy arrays (host wall, transfers included; median of --host-calls after one warm-up, to set
beside bench/fftconv_bench's fftconv/host-api case: the same problem through the C++ call).
Prints the times, the ratios and the largest difference from SciPy. Needs a CUDA device, PyTorch
and SciPy.
"""

import argparse
import statistics
import time

import numpy as np
import scipy.signal
import torch

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--taps", type=int, default=63)
    parser.add_argument("--host-calls", type=int, default=9)
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    x = rng.normal(size=(args.rows, args.n)).astype(np.float32)
    h = rng.normal(size=args.taps).astype(np.float32)

    scipy_s = []
    for _ in range(3):
        t0 = time.perf_counter()
        gold = scipy.signal.fftconvolve(x, h[None, :], mode="same", axes=1)
        scipy_s.append(time.perf_counter() - t0)
    scipy_best = min(scipy_s)

    conv = parasol.fftconv.Convolver(x.shape, h, mode="same", dtype="float32")
    x_d = torch.from_numpy(x).cuda()
    out = torch.empty(conv.output_shape, device="cuda")
    for _ in range(3):
        conv.run(x_d, out=out)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    device_s = []
    for _ in range(20):
        start.record()
        conv.run(x_d, out=out)
        stop.record()
        stop.synchronize()
        device_s.append(start.elapsed_time(stop) * 1e-3)
    device_median = statistics.median(device_s)
    diff = float(np.max(np.abs(out.cpu().numpy() - gold)))

    parasol.fftconv.convolve(x, h[None, :], "same")  # cuFFT's library loaded, as a warm process
    host_s = []
    for _ in range(args.host_calls):
        t0 = time.perf_counter()
        y = parasol.fftconv.convolve(x, h[None, :], "same")
        host_s.append(time.perf_counter() - t0)
    host_best = min(host_s)
    host_median = statistics.median(host_s)
    host_diff = float(np.max(np.abs(y - gold)))

    print("fftconv same, %d rows x %d ⊛ %d, float32" % (args.rows, args.n, args.taps))
    print("| call | seconds | × SciPy | max |diff| vs SciPy |")
    print("|---|---|---|---|")
    print("| scipy.signal.fftconvolve (host, best of 3) | %.4f | 1 | — |" % scipy_best)
    print("| Convolver.run, device tensors (median of 20) | %.6f | %.0f | %.2e |"
          % (device_median, scipy_best / device_median, diff))
    print("| fftconv.convolve, NumPy in and out (best of %d) | %.4f | %.1f | %.2e |"
          % (args.host_calls, host_best, scipy_best / host_best, host_diff))
    # Beside bench/fftconv_bench's fftconv/host-api/4096x4096-same (the C++ call of the same
    # problem, copies included) run in the same session: the ratio is the Python cost.
    print("fftconv.convolve NumPy call: median %.2f ms of %d" % (1e3 * host_median, args.host_calls))


if __name__ == "__main__":
    main()
