"""What a call from Python costs: parasol.fftconv.Convolver.run on PyTorch CUDA tensors against
the C++ Convolver's own time for the same convolution, per call.

    python python/bench/call_overhead.py [--n 4096] [--taps 65] [--calls 1000]

Each Python call is timed alone by CUDA events around it on the current stream (launch and
the work of one call, as a caller who waits on each sees it), and the median of `calls` taken;
the C++ time is `calls` convolutions enqueued back to back in one loop, by events, divided by
`calls`. The difference is the binding's overhead per call: the export of the arrays (DLPack),
the checks, and the Python frames. Needs a CUDA device and PyTorch.
"""

import argparse
import statistics
import time

import numpy as np
import torch

import parasol


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--taps", type=int, default=65)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--mode", default="same")
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    h = rng.normal(size=args.taps).astype(np.float32)
    conv = parasol.fftconv.Convolver(args.n, h, mode=args.mode, dtype="float32")
    x = torch.from_numpy(rng.normal(size=args.n).astype(np.float32)).cuda()
    out = torch.empty(conv.output_shape, device="cuda")
    for _ in range(20):  # warm: the caches of the export path and the GPU's clocks
        conv.run(x, out=out)
    torch.cuda.synchronize()

    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per_call = []
    for _ in range(args.calls):
        start.record()
        conv.run(x, out=out)
        stop.record()
        stop.synchronize()
        per_call.append(start.elapsed_time(stop) * 1e-3)
    python_s = statistics.median(per_call)

    back_to_back = []
    for _ in range(20):
        torch.cuda.synchronize()
        start.record()
        for _ in range(args.calls):
            conv.run(x, out=out)
        stop.record()
        stop.synchronize()
        back_to_back.append(start.elapsed_time(stop) * 1e-3 / args.calls)
    python_loop_s = statistics.median(back_to_back)

    cpp_s = parasol._parasol.fftconv._time_cpp_convolver(
        args.n, args.taps, args.mode, args.calls) / args.calls

    print("fftconv %s, n=%d, taps=%d, float32, %d calls" % (args.mode, args.n, args.taps,
                                                             args.calls))
    print("  C++ Convolver, back to back:       %8.2f us/call" % (cpp_s * 1e6))
    print("  Python Convolver.run, back to back: %8.2f us/call" % (python_loop_s * 1e6))
    print("  Python Convolver.run, one alone:    %8.2f us/call (median)" % (python_s * 1e6))
    print("  overhead per call (back to back):   %8.2f us" % ((python_loop_s - cpp_s) * 1e6))

    # Where a call's host time goes: each step of Convolver.run alone, host clock, median of
    # batches of `calls`.
    from parasol import _device
    s = _device.call_stream([x], None)
    ex, eo = _device.export(x, s), _device.export(out, s)
    steps = {
        "device_of (signal)": lambda: _device.device_of(x),
        "call_stream": lambda: _device.call_stream([x], None),
        "export (signal)": lambda: _device.export(x, s),
        "native run (exported)": lambda: conv._native.run(ex, eo, s),
        "Convolver.run (whole)": lambda: conv.run(x, out=out),
    }
    print("  host time per step (us):")
    for name, step in steps.items():
        batches = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                step()
            batches.append((time.perf_counter() - t0) / args.calls)
            torch.cuda.synchronize()
        print("    %-24s %8.2f" % (name, statistics.median(batches) * 1e6))


if __name__ == "__main__":
    main()
