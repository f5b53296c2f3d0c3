"""Batched tridiagonal systems, on host or device arrays.

NumPy arrays (or anything numpy.asarray takes) in, a NumPy array out. CUDA device arrays
(PyTorch, CuPy, JAX: DLPack or __cuda_array_interface__) in, a device array out, on the
producer's stream, the coefficients read where they are (parasol._device says which stream).
"""

from . import _device
from ._parasol import tridiag as _native

__all__ = ["solve"]


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
    solve, to report a zero pivot by its system. backend="cpu" refuses device arrays.
    """
    arrays = [("d", d), ("a", a), ("b", b), ("c", c)]
    call = _device.device_call("tridiag.solve", arrays, backend, stream, out)
    if call is None:
        return _native.solve(a, b, c, d, backend=backend)
    s, (d_x, a_x, b_x, c_x, out_x) = call
    x = _native._solve_device(a_x, b_x, c_x, d_x, s, out_x)
    return out if out is not None else x
