"""Device arrays from any producer, without copies: which arrays are on a CUDA device, which
stream a call runs on, and how each array is handed to the extension for that stream.

The stream: the caller's `stream=` (an int handle, a torch.cuda.Stream, a cupy Stream, or any
object with __cuda_stream__); else the producer's current stream (PyTorch's
torch.cuda.current_stream, CuPy's get_current_stream), else __cuda_array_interface__'s `stream`
field, else CUDA's legacy default stream. Each DLPack array is then exported with
__dlpack__(stream=that), so its producer orders its own pending work before the call's; the call
enqueues its work on that stream and returns without waiting: its output is ready there.
"""

_DL_CUDA = 2  # DLPack's kDLCUDA
_LEGACY_DEFAULT = 1  # DLPack's and CUDA's handle of the legacy default stream (cudaStreamLegacy)


def device_of(obj):
    """The CUDA device id of a device array, or None for anything else (host arrays, lists)."""
    dlpack_device = getattr(type(obj), "__dlpack_device__", None)
    if dlpack_device is not None:
        kind, ident = dlpack_device(obj)
        return int(ident) if kind == _DL_CUDA else None
    if hasattr(obj, "__cuda_array_interface__"):
        return -1  # the extension asks the pointer which device holds it
    return None


def _framework(obj):
    return type(obj).__module__.split(".")[0]


def stream_handle(stream):
    """A stream given as an int, a torch.cuda.Stream, a cupy Stream or a __cuda_stream__ object."""
    if isinstance(stream, bool):
        raise TypeError("stream: expected a CUDA stream or its handle, got %r" % (stream,))
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attribute in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError("stream: expected a CUDA stream (torch.cuda.Stream, cupy.cuda.Stream, an "
                    "object with __cuda_stream__) or its handle as an int, got %s"
                    % type(stream).__name__)


def producer_stream(obj):
    """The stream the producer of device array `obj` is working on now."""
    framework = _framework(obj)
    if framework == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the handle, no Stream object
        if raw is not None:
            return raw(obj.get_device())
        return torch.cuda.current_stream(obj.device).cuda_stream
    if framework == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    if not hasattr(type(obj), "__dlpack__") and hasattr(obj, "__cuda_array_interface__"):
        return obj.__cuda_array_interface__.get("stream") or _LEGACY_DEFAULT
    return _LEGACY_DEFAULT


def call_stream(arrays, stream):
    """The stream a call on `arrays` (device arrays; the first decides) runs on, never 0:
    DLPack reserves 0, and CUDA's 0 is the legacy default stream, handle 1, in this process."""
    handle = stream_handle(stream) if stream is not None else producer_stream(arrays[0])
    return handle or _LEGACY_DEFAULT


_TORCH_TYPESTR = {"torch.float32": "<f4", "torch.float64": "<f8"}


def export(obj, stream):
    """`obj` as the extension reads it: a DLPack capsule made for `stream`, or the object itself
    where it has __cuda_array_interface__ alone. A PyTorch tensor whose current stream is
    `stream` goes as (pointer, shape, strides, typestr, device), read from its own attributes:
    DLPack would have no pending work to order on that stream, and its export costs several
    microseconds a call, more than the rest of a small call's overhead."""
    if _framework(obj) == "torch" and stream == (producer_stream(obj) or _LEGACY_DEFAULT):
        return (obj.data_ptr(), tuple(obj.shape), obj.stride(),
                _TORCH_TYPESTR.get(str(obj.dtype), str(obj.dtype)), obj.get_device())
    if hasattr(type(obj), "__dlpack__"):
        return obj.__dlpack__(stream=stream)
    return obj


def refuse_on_cpu(function, **arrays):
    """The ValueError of backend="cpu" given device arrays: the CPU gold reads host memory."""
    names = ", ".join("%s (cuda:%s)" % (name, device) for name, device in arrays.items())
    raise ValueError(
        '%s: backend="cpu" cannot take device arrays: %s; use backend="auto" or "gpu", or '
        "copy them to the host first (x.cpu() / cupy.asnumpy(x))" % (function, names))


def device_call(function, arrays, backend, stream, out):
    """How a solver function runs on `arrays` ([(name, array)], the first decides the stream):
    None when none is on a device (the host path; `out` is refused there), else the stream and
    each array exported for it, `out` last (None when not given). Refuses a mix of host and
    device arrays, backend="cpu" with device arrays, and a host `out`."""
    on_device = {name: d for name, d in ((name, device_of(a)) for name, a in arrays)
                 if d is not None}
    if not on_device:
        if out is not None:
            raise TypeError("%s: out is for device arrays; host arrays give a new NumPy array"
                            % function)
        return None
    if backend == "cpu":
        refuse_on_cpu(function, **on_device)
    if backend not in ("auto", "gpu"):
        raise ValueError('%s: backend: expected "auto", "gpu" or "cpu", got %r'
                         % (function, backend))
    host = [name for name, _ in arrays if name not in on_device]
    if host:
        raise TypeError("%s: %s is a host array but %s is on a device; expected all of %s on "
                        "one device (or all on the host)"
                        % (function, host[0], next(iter(on_device)),
                           ", ".join(name for name, _ in arrays)))
    if out is not None and device_of(out) is None:
        raise TypeError("%s: out is a host array; expected a device array" % function)
    s = call_stream([arrays[0][1]], stream)
    exported = [export(a, s) for _, a in arrays]
    return s, exported + [None if out is None else export(out, s)]
