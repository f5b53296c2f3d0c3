"""First-order linear recurrences, v[t] = s[t] v[t-1] + u[t], on host or device arrays.

NumPy arrays (or anything numpy.asarray takes) in, a NumPy array out. CUDA device arrays
(PyTorch, CuPy, JAX: DLPack or __cuda_array_interface__) in, a device array out, on the
producer's stream, s and u read where they are (parasol._device says which stream).
"""

from . import _device
from ._parasol import recurrence as _native

__all__ = ["linear", "Solver"]


def linear(s, u, v0=0.0, *, backend="auto", mode="fast", stream=None, out=None):
    """v with v[t] = s[t] v[t-1] + u[t] along the last axis, v[-1] = v0: one series [n] or
    independent series [series, n]. v0: a number, or one per series. float32 or float64, s and
    u of one dtype; v has it too. v has the unit of u (s is dimensionless).

    backend: "auto" (the GPU when there is one, else the CPU gold: the loop in long double),
        "gpu" or "cpu".
    mode: the GPU's device-wide scan, "fast" or "reproducible" (the same bits on any device).

    Device arrays (C-contiguous, on one device) are solved there on `stream` (default: the
    producer's current stream), into a new device array or into `out` (a device array of s's
    shape and dtype, written in place: u itself will do) and returned. v0 may be a number, a
    host array, or a device array of one value per series. The call returns when the scan is
    done: its offsets and starting values are uploaded from the host and freed after it
    (Solver keeps them and returns at once). backend="cpu" refuses device arrays.
    """
    call = _device.device_call("recurrence.linear", [("s", s), ("u", u)], backend, stream, out)
    if call is None:
        if _device.device_of(v0) is not None:
            raise TypeError("recurrence.linear: v0 is on a device but s and u are host arrays; "
                            "expected all on one device (or all on the host)")
        return _native.linear(s, u, v0, backend=backend, mode=mode)
    stream_handle, (s_x, u_x, out_x) = call
    v0_on_device = _device.device_of(v0) is not None
    if not v0_on_device:
        import numpy
        v0 = numpy.asarray(v0, dtype=_dtype_of(s))
    v = _native._linear_device(s_x, u_x, _device.export(v0, stream_handle) if v0_on_device else v0,
                               v0_on_device, mode, stream_handle, out_x)
    return out if out is not None else v


def _dtype_of(array):
    """The NumPy dtype a device array's values have (float32 or float64), for a host v0."""
    typestr = getattr(array, "__cuda_array_interface__", {}).get("typestr")
    if typestr is not None:
        return typestr
    return "float64" if "float64" in str(array.dtype) else "float32"


class Solver:
    """Runs series of one shape many times on a device, without waiting: the series' offsets
    are uploaded once, the scan's workspace kept, and run() enqueues the scan alone (and the
    starting values' upload when they come from the host).

        solver = parasol.recurrence.Solver((series, n), dtype="float32")
        v = solver.run(s, u, v0)         # device arrays of that shape; v a new device array
        solver.run(s, u, v0, out=u)      # into u, in place

    shape: (n,) or (series, n). dtype: float32 or float64. mode: "fast" or "reproducible".
    device: the CUDA device (default: the current one). Its buffers serve one run at a time:
    runs on one stream follow each other; runs on different streams must be ordered by the
    caller.
    """

    def __init__(self, shape, dtype="float64", *, mode="fast", device=None):
        from .fftconv import _dtype_name
        if isinstance(shape, int):
            shape = (shape,)
        self._native = _native._Solver([int(e) for e in shape], _dtype_name(dtype), mode,
                                       -1 if device is None else int(device))

    shape = property(lambda self: tuple(self._native.shape))
    dtype = property(lambda self: self._native.dtype)
    mode = property(lambda self: self._native.mode)
    device = property(lambda self: self._native.device)

    def run(self, s, u, v0=0.0, out=None, *, stream=None):
        """v for C-contiguous device arrays s and u of this shape, dtype and device, from v0 (a
        number, a host array or a device array of one value per series), into `out` when given
        (returned as is; u itself will do) or a new device array. Runs on `stream` (default:
        s's producer's current stream) and returns without waiting."""
        call = _device.device_call("recurrence.Solver.run", [("s", s), ("u", u)], "gpu",
                                   stream, out)
        if call is None:
            raise TypeError("recurrence.Solver.run: s and u are host arrays; a Solver runs on "
                            "device arrays (parasol.recurrence.linear takes host arrays)")
        handle, (s_x, u_x, out_x) = call
        v0_on_device = _device.device_of(v0) is not None
        if not v0_on_device:
            import numpy
            v0 = numpy.asarray(v0, dtype=self.dtype)
        v = self._native.run(s_x, u_x, _device.export(v0, handle) if v0_on_device else v0,
                             v0_on_device, out_x, handle)
        return out if out is not None else v

    __call__ = run
