"""Convolution and correlation through FFTs, on host or device arrays.

NumPy arrays (or anything numpy.asarray takes) in, NumPy arrays out, as scipy.signal's
fftconvolve and correlate. CUDA device arrays (PyTorch, CuPy, JAX: anything exporting DLPack or
__cuda_array_interface__) in, a device array out, without copies, on the producer's stream
(parasol._device says which): the output exports DLPack (torch.from_dlpack(y),
cupy.from_dlpack(y)) and is ready on that stream. Convolver plans once and runs many times.
"""

from . import _device
from ._parasol import fftconv as _native

__all__ = ["convolve", "correlate", "Convolver"]


def _apply(operation, signal, filter, mode, backend, stream, out):
    function = "fftconv." + operation
    call = _device.device_call(function, [("signal", signal), ("filter", filter)], backend,
                               stream, out)
    if call is None:
        return getattr(_native, operation)(signal, filter, mode, backend=backend)
    s, (signal_x, filter_x, out_x) = call
    y = _native._convolve_device(signal_x, filter_x, mode, operation, s, out_x)
    return out if out is not None else y


def convolve(signal, filter, mode="full", *, backend="auto", stream=None, out=None):
    """scipy.signal.fftconvolve(signal, filter, mode) for 1D or 2D arrays: mode "full", "same"
    or "valid". float32 or float64, of one dtype. The CPU gold sums directly in double; the GPU
    runs cuFFT or direct sums, whichever is faster for the sizes. On the GPU, NumPy arrays are
    uploaded from where they lie and the result downloaded into the array returned; the last
    call's cuFFT plans and device buffers are kept for the next call of the same shapes and dtype.

    Device arrays (C-contiguous, both on one device) run there on `stream` (default: the
    producer's current stream) and give a device array, or fill `out` (a device array of the
    output's shape and dtype, written in place) and return it. backend="cpu" refuses them."""
    return _apply("convolve", signal, filter, mode, backend, stream, out)


def correlate(signal, filter, mode="full", *, backend="auto", stream=None, out=None):
    """scipy.signal.correlate(signal, filter, mode) for 1D or 2D real arrays, as convolve."""
    return _apply("correlate", signal, filter, mode, backend, stream, out)


def _dtype_name(dtype):
    # numpy.float32, "float32", torch.float32, cupy's: each names itself as "...float32".
    name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
    return str(name).split(".")[-1]


class Convolver:
    """Plans once, runs many times, as nvmath-python's FFT: the cuFFT plans and the filter's
    spectrum stay on the device, and run() enqueues the convolution alone.

        conv = parasol.fftconv.Convolver((4096,), h, mode="same", dtype="float32")
        y = conv.run(x)              # x: a device array of shape (4096,); y a new device array
        conv.run(x, out=y)           # into y, in place: y's memory, no allocation

    shape: the signal's, (n,), (rows, n) for an image with a 2D filter, or (batch, n) for
    independent rows with a 1D filter. filter: a host or device array; its values are copied
    to the device now (a later change to it is not seen). dtype: float32 or float64 (default:
    the filter's). operation: "convolve" or "correlate". device: the CUDA device for a host
    filter (default: the current one); a device filter's own otherwise. stream: where the setup
    runs (default: the filter's producer's, else the legacy default stream); it is waited for.
    """

    def __init__(self, shape, filter, mode="same", *, dtype=None, operation="convolve",
                 device=None, stream=None):
        if isinstance(shape, int):
            shape = (shape,)
        on_device = _device.device_of(filter) is not None
        if dtype is None:
            dtype = filter.dtype if hasattr(filter, "dtype") else "float64"
        dtype = _dtype_name(dtype)
        if not on_device:
            import numpy
            filter = numpy.asarray(filter)
            if filter.dtype.kind == "f" and dtype in ("float32", "float64"):
                filter = filter.astype(dtype, copy=False)  # the dtype asked for, as asked
        if on_device:
            s = _device.call_stream([filter], stream)
        else:
            s = (_device.stream_handle(stream) if stream is not None else 0) or 1
        self._native = _native._Convolver(
            [int(e) for e in shape], _device.export(filter, s) if on_device else filter,
            on_device, mode, operation, dtype, -1 if device is None else int(device), s)

    @property
    def shape(self):
        return tuple(self._native.shape)

    @property
    def output_shape(self):
        return tuple(self._native.output_shape)

    @property
    def dtype(self):
        return self._native.dtype

    @property
    def device(self):
        return self._native.device

    def run(self, signal, out=None, *, stream=None):
        """The convolution of `signal` (a C-contiguous device array of this shape and dtype on
        this device), into `out` when given (returned as is) or a new device array. Runs on
        `stream` (default: the signal's producer's current stream) and returns without waiting."""
        if _device.device_of(signal) is None:
            raise TypeError("fftconv.Convolver.run: signal is a host array; a Convolver runs on "
                            "device arrays (torch.as_tensor(x, device=\"cuda\"), cupy.asarray(x)); "
                            "parasol.fftconv.convolve takes host arrays")
        if out is not None and _device.device_of(out) is None:
            raise TypeError("fftconv.Convolver.run: out is a host array; expected a device array")
        s = _device.call_stream([signal], stream)
        y = self._native.run(_device.export(signal, s),
                             None if out is None else _device.export(out, s), s)
        return out if out is not None else y

    __call__ = run
