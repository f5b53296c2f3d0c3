"""The 3D Laplace equation by Jacobi iteration, with fixed (Dirichlet) values on the faces.

    s = parasol.laplace3d.solve((nz, ny, nx), boundary={"x_min": 1.0}, tolerance=1e-4,
                                max_iterations=10000)
    s.u, s.iterations, s.last_change, s.converged

A run of the command line's laplace3d (`parasol run` with these keys), on the GPU when there
is one and on the CPU gold solver otherwise: the same field, bit for bit, as `parasol run` of a
parameter file with the same keys and backend.
"""

from ._params import Keywords

__all__ = ["solve", "Solution"]

_FACES = ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")
_KEYWORDS = Keywords(
    "laplace3d", "laplace3d.solve",
    renamed={"initial.value": "interior_value"},
    taken=["grid.nx", "grid.ny", "grid.nz"] + ["boundary." + f for f in _FACES])


class Solution:
    """A solve's field and diagnostics.

    u: the field, shape (nz, ny, nx) (x fastest), boundary planes included; float32, or
        float64 with precision="double".
    iterations: Jacobi sweeps run.
    last_change: max |u_new - u| over the grid in the last sweep.
    converged: whether it stopped because last_change fell below the tolerance.
    diagnostics: every attribute of the result's /diagnostics (the error bound, the
        contraction, ...), by name.
    result: the whole result, as parasol.run returns it.
    """

    def __init__(self, result):
        self.result = result
        self.u = result["/fields/u"]
        self.diagnostics = {key.split("@", 1)[1]: value for key, value in result.items()
                            if key.startswith("/diagnostics@")}
        self.iterations = int(self.diagnostics["iterations"])
        self.last_change = float(self.diagnostics["last_change"])
        self.converged = bool(self.diagnostics["converged"])

    def __repr__(self):
        return "laplace3d.Solution(u=<%s %s>, iterations=%d, last_change=%g, converged=%s)" % (
            "x".join(str(n) for n in self.u.shape), self.u.dtype, self.iterations,
            self.last_change, self.converged)


def solve(shape, *, boundary=None, tolerance=None, max_iterations=None, backend="auto",
          check=False, threads=None, **keywords):
    settings = {}
    try:
        nz, ny, nx = (int(n) for n in shape)
    except (TypeError, ValueError):
        raise TypeError("laplace3d.solve: shape: expected three integers (nz, ny, nx), got %r"
                        % (shape,)) from None
    for axis, n in (("nz", nz), ("ny", ny), ("nx", nx)):
        settings["grid." + axis] = ("shape", n)
    if boundary is not None:
        if not hasattr(boundary, "items"):
            raise TypeError("laplace3d.solve: boundary: expected a dict of face values "
                            "({'x_min': 1.0, ...}), got %s" % type(boundary).__name__)
        for face, value in boundary.items():
            if face not in _FACES:
                raise ValueError("laplace3d.solve: boundary: unknown face %r; expected some of %s"
                                 % (face, ", ".join(_FACES)))
            settings["boundary." + face] = ("boundary[%r]" % face, value)
    keywords.update(tolerance=tolerance, max_iterations=max_iterations)
    settings.update(_KEYWORDS.overrides(keywords))
    return Solution(_KEYWORDS.run(settings, backend=backend, check=check, threads=threads))


solve.__doc__ = """The field u with u = the mean of its six neighbours at every interior point
and the boundary values on the faces, by Jacobi iteration from a starting interior, until the
largest update falls below `tolerance` or `max_iterations` sweeps have run. Returns a Solution:
the field u and its diagnostics (iterations, last_change, converged).

shape: (nz, ny, nx), the field's NumPy shape (x fastest), boundary planes included; each at
    least 3 (grid.nz, grid.ny, grid.nx).
boundary: {face: value} for the faces x_min, x_max, y_min, y_max, z_min, z_max (boundary.*);
    faces left out hold 0. Where faces meet, x faces win over y, y over z.
backend: "auto" (the GPU when there is one, else the CPU gold solver), "gpu" or "cpu".
check: also run the gold in double and store the agreement in result["/check@..."].
threads: threads of the CPU gold (default: the cores this process may use).

The other keywords are laplace3d's declared keys (`parasol keys laplace3d`), checked as a
parameter file's are; a bad value is a ValueError naming the argument and its key:
""" + _KEYWORDS.doc()
