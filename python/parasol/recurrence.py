"""First-order linear recurrences, v[t] = s[t] v[t-1] + u[t], on host or device arrays.

NumPy arrays (or anything numpy.asarray takes) in, a NumPy array out. CUDA device arrays
(PyTorch, CuPy, JAX: DLPack or __cuda_array_interface__) in, a device array out, on the
producer's stream, s and u read where they are (parasol._device says which stream).
"""

from . import _device
from ._parasol import recurrence as _native

__all__ = ["linear"]


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
    done: its offsets and starting values are uploaded from the host and freed after it.
    backend="cpu" refuses device arrays.
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
