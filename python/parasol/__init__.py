"""Parasol from Python: the solvers of the `parasol` command line, on NumPy arrays.

    import parasol
    parasol.info()                                    # the build, the CPU cores, the GPU or why none
    parasol.solvers()                                 # {name: {summary, examples, declares_keys}}
    parasol.keys("laplace3d")                         # every key a parameter file may hold
    r = parasol.run("inputs/laplace3d.toml", {"grid.nx": 32})
    r["/fields/u"], r["/diagnostics@iterations"]      # the result's datasets and attributes

    x = parasol.tridiag.solve(a, b, c, d)             # batched tridiagonal systems
    v = parasol.recurrence.linear(s, u, v0)           # v[t] = s[t] v[t-1] + u[t]
    y = parasol.fftconv.convolve(x, h, mode="same")   # scipy.signal.fftconvolve's shapes

    conv = parasol.fftconv.Convolver((4096,), h, mode="same", dtype="float32")
    y = conv.run(x_cuda, out=y_cuda)                  # device arrays in and out, no copies

fftconv also takes CUDA device arrays (PyTorch, CuPy, JAX: DLPack or __cuda_array_interface__)
and returns a device array, on the producer's stream (parasol.fftconv says more).

Each runs on the GPU when one is usable and on the CPU gold solver otherwise (backend="auto",
as the command line's --backend); backend="gpu" or "cpu" asks for one. A bad parameter, key or
argument is a ValueError with the command line's message; an array of another dtype than
float32 or float64 a TypeError; any other failure a RuntimeError.
"""

import math
import os

from ._parasol import info, keys, recurrence, solvers, tridiag
from . import fftconv
from ._parasol import _run

__all__ = ["info", "solvers", "keys", "run", "tridiag", "recurrence", "fftconv"]


def _toml_string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else "\\u%04x" % ord(c) for c in escaped) + '"'


def _toml_value(key, value):
    """An override's value as TOML, as `parasol run FILE key=value` reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (str, os.PathLike)):
        return _toml_string(os.fspath(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(key, v) for v in value) + "]"
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # a NumPy scalar
        return _toml_value(key, value.item())
    if hasattr(value, "tolist"):  # a NumPy array: a TOML array
        return _toml_value(key, value.tolist())
    raise TypeError(
        "run: override %s has type %s; expected a bool, int, float, str or a list of them"
        % (key, type(value).__name__))


def run(params, overrides=None, *, backend="auto", check=False, threads=None, verbose=False):
    """Runs a parameter file as `parasol run` does and returns its result as a dict.

    params: the parameter file (TOML), e.g. "inputs/laplace3d.toml".
    overrides: {key: value}, as the command line's key=value ({"grid.nx": 32,
        "method.variant": "zmarch"}), checked like the file.
    backend: "auto" (the GPU when there is one, else the CPU gold solver), "gpu" or "cpu".
    check: also run the gold in double and store the difference (/check@...).
    threads: threads of the CPU solvers (default: as --threads auto, the cores this process
        may use, fewer for a small problem).
    verbose: print the command line's summary and progress.

    The run goes to a temporary folder, is read back and removed: the dict maps each dataset's
    path ("/fields/u") to a NumPy array (strings: a list) and each attribute
    ("/diagnostics@iterations"; the root's "/@solver") to a number, a string or an array.
    """
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads or threads < 1):
        raise ValueError("run: threads: expected a positive integer or None (auto), got %r"
                         % (threads,))
    overrides = dict(overrides or {})
    assignments = ["%s=%s" % (key, _toml_value(key, value)) for key, value in overrides.items()]
    call = "parasol.run(%r, %r, backend=%r%s)" % (
        os.fspath(params), overrides, backend, ", check=True" if check else "")
    return _run(os.fspath(params), assignments, backend, bool(check), int(threads or 0),
                bool(verbose), call)
