"""Batched tridiagonal systems, on host or device arrays.

NumPy arrays (or anything numpy.asarray takes) in, a NumPy array out. CUDA device arrays
(PyTorch, CuPy, JAX: DLPack or __cuda_array_interface__) in, a device array out, on the
producer's stream, the coefficients read where they are (parasol._device says which stream).
"""

from . import _device
from ._parasol import tridiag as _native

__all__ = ["solve", "Solver"]


def solve(a, b, c, d, *, backend="auto", stream=None, out=None):
    """x with a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i] along the last axis: one system of
    shape [n], or a batch [systems, n]. a[..., 0] and c[..., n-1] are ignored. float32 or
    float64, all of one dtype; x has it too. No pivoting: a zero pivot (or a NaN met) is a
    RuntimeError naming the system. The values are dimensionless coefficients: x has the unit
    of d over that of b.

    backend: "auto" (the GPU when there is one, else the CPU gold, the Thomas algorithm in
        double), "gpu" or "cpu".

    Device arrays (C-contiguous, all on one device) are solved there on `stream` (default: the
    producer's current stream), into a new device array or into `out` (a device array of d's
    shape and dtype, written in place: d itself will do) and returned. The call waits for the
    solve, to report a zero pivot by its system (a Solver waits only in its check()).
    backend="cpu" refuses device arrays.
    """
    arrays = [("d", d), ("a", a), ("b", b), ("c", c)]
    call = _device.device_call("tridiag.solve", arrays, backend, stream, out)
    if call is None:
        return _native.solve(a, b, c, d, backend=backend)
    s, (d_x, a_x, b_x, c_x, out_x) = call
    x = _native._solve_device(a_x, b_x, c_x, d_x, s, out_x)
    return out if out is not None else x


class Solver:
    """Solves batches of one shape many times on a device, without waiting: the solver's
    workspace and its record of failures are made once, and solve() enqueues the solve alone.

        solver = parasol.tridiag.Solver((systems, n), dtype="float32")
        x = solver.solve(a, b, c, d)     # device arrays of that shape; x a new device array
        solver.solve(a, b, c, d, out=d)  # into d, in place
        solver.check()                   # waits; RuntimeError naming the first failed system

    shape: (n,) or (systems, n). dtype: float32 or float64. device: the CUDA device (default:
    the current one). A zero pivot or a NaN met is recorded, not raised, until check(): x of
    such a system is not an answer.
    """

    def __init__(self, shape, dtype="float64", *, device=None):
        from .fftconv import _dtype_name
        if isinstance(shape, int):
            shape = (shape,)
        self._native = _native._Solver([int(e) for e in shape], _dtype_name(dtype),
                                       -1 if device is None else int(device))

    shape = property(lambda self: tuple(self._native.shape))
    dtype = property(lambda self: self._native.dtype)
    device = property(lambda self: self._native.device)

    def solve(self, a, b, c, d, out=None, *, stream=None):
        """x for C-contiguous device arrays of this shape, dtype and device, into `out` when
        given (returned as is; d itself will do) or a new device array. Runs on `stream`
        (default: d's producer's current stream) and returns without waiting."""
        call = _device.device_call("tridiag.Solver.solve", [("d", d), ("a", a), ("b", b),
                                                            ("c", c)], "gpu", stream, out)
        if call is None:
            raise TypeError("tridiag.Solver.solve: the arrays are host arrays; a Solver runs on "
                            "device arrays (parasol.tridiag.solve takes host arrays)")
        s, (d_x, a_x, b_x, c_x, out_x) = call
        self._stream = s
        x = self._native.solve(a_x, b_x, c_x, d_x, out_x, s)
        return out if out is not None else x

    def check(self, *, stream=None):
        """Waits for `stream` (default: the last solve's) and raises RuntimeError naming the
        first system that met a zero pivot or a NaN since the last check."""
        s = _device.stream_handle(stream) if stream is not None else getattr(self, "_stream", 1)
        self._native.check(s or 1)
