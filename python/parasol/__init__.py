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
    s = parasol.laplace3d.solve((nz, ny, nx), boundary={"x_min": 1.0}, tolerance=1e-4,
                                max_iterations=10000)  # s.u, s.iterations, s.converged
    p = parasol.montecarlo.price(spots=[100.0], vols=[0.2], strike=100.0, paths=100000,
                                 steps=1)              # p.price, p.standard_error, p.delta
    v = parasol.coulomb.potential(atoms, {"origin": (0, 0, 0), "spacing": 0.5,
                                          "shape": (nz, ny, nx)})

    conv = parasol.fftconv.Convolver((4096,), h, mode="same", dtype="float32")
    y = conv.run(x_cuda, out=y_cuda)                  # device arrays in and out, no copies
    solver = parasol.tridiag.Solver((systems, n), dtype="float32")
    solver.solve(a_cuda, b_cuda, c_cuda, d_cuda, out=d_cuda); solver.check()

fftconv, tridiag and recurrence also take CUDA device arrays (PyTorch, CuPy, JAX: DLPack or
__cuda_array_interface__) and return a device array, on the producer's stream (parasol.fftconv
says more). laplace3d, montecarlo and coulomb are runs of the command line's driver: their
keywords are the solvers' declared keys (parasol.keys(solver)), read and checked as a parameter
file's, and each result is the one `parasol run` writes for the same keys.

Each runs on the GPU when one is usable and on the CPU gold solver otherwise (backend="auto",
as the command line's --backend); backend="gpu" or "cpu" asks for one. A bad parameter, key or
argument is a ValueError with the command line's message; an array of another dtype than
float32 or float64 a TypeError; any other failure a RuntimeError.
"""

import os

# method.variant = "auto" takes, where the user's autotune file holds no choice, the table shipped
# with Parasol: in a wheel it lies beside this file (the command line finds its own copy beside
# its prefix; docs/performance-study.md).
_shipped = os.path.join(os.path.dirname(__file__), "autotune.toml")
if os.path.isfile(_shipped):
    os.environ.setdefault("PARASOL_SHIPPED_AUTOTUNE", _shipped)

from ._parasol import info, keys, solvers, _run
from ._params import thread_count, toml_value
from . import coulomb, fftconv, laplace3d, montecarlo, recurrence, tridiag

__all__ = ["info", "solvers", "keys", "run", "tridiag", "recurrence", "fftconv", "laplace3d",
           "montecarlo", "coulomb"]


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
    overrides = dict(overrides or {})
    assignments = ["%s=%s" % (key, toml_value(key, value)) for key, value in overrides.items()]
    call = "parasol.run(%r, %r, backend=%r%s)" % (
        os.fspath(params), overrides, backend, ", check=True" if check else "")
    return _run(os.fspath(params), assignments, backend, bool(check), thread_count("run", threads),
                bool(verbose), call)
