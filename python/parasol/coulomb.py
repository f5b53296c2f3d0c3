"""The electrostatic potential of point charges on a regular lattice, by direct summation:
V(r) = k sum_i q_i / max(|r - r_i|, min_distance).

    atoms = np.array([[x, y, z, q], ...])                  # Å and e
    lattice = {"origin": (0.0, 0.0, 0.0), "spacing": 0.5, "shape": (nz, ny, nx)}
    v = parasol.coulomb.potential(atoms, lattice, coulomb_constant=332.0637)
    # v: (nz, ny, nx), kcal/(mol e) for charges in e and lengths in Å

A run of the command line's coulomb (`parasol run` with these keys), on the GPU when there is
one and on the CPU gold solver otherwise: the same potential, bit for bit, as `parasol run` of a
parameter file with the same atoms, keys and backend.
"""

import os

import numpy as np

from ._params import Keywords

__all__ = ["potential"]

_FUNCTION = "coulomb.potential"
_KEYWORDS = Keywords(
    "coulomb", _FUNCTION,
    renamed={"units.potential": "unit"},
    # output.dx: the map would go beside the result, in the run's temporary folder, and be
    # removed with it; parasol.run(..., {"output.dx": True}) writes one where asked.
    taken=["lattice.origin", "lattice.spacing", "lattice.nx", "lattice.ny", "lattice.nz",
           "atoms.file", "output.dx"])


def _xyz_text(atoms):
    """`atoms` (n x 4: x, y, z, q) as an XYZ file. The solver holds atoms in float32: rounded
    to it here, each value's shortest decimal reads back as exactly that float."""
    values = np.asarray(atoms)
    if values.dtype.kind not in "fiu" or values.dtype == bool:
        raise TypeError("%s: atoms has dtype %s; expected numbers (x, y, z, q per row) or the "
                        "path of a PQR or XYZ file" % (_FUNCTION, values.dtype))
    if values.ndim != 2 or values.shape[1] != 4:
        raise ValueError("%s: atoms: expected an array of shape (n, 4), rows x, y, z, q, got "
                         "shape %s" % (_FUNCTION, values.shape))
    if not np.all(np.isfinite(values)):
        raise ValueError("%s: atoms: expected finite values, got a NaN or infinity in row %d"
                         % (_FUNCTION, int(np.argwhere(~np.isfinite(values))[0][0])))
    rows = values.astype(np.float32).tolist()
    return "%d\nparasol.coulomb.potential's atoms\n" % len(rows) + "".join(
        "X %r %r %r %r\n" % tuple(row) for row in rows)


def _lattice_settings(lattice):
    if not hasattr(lattice, "keys"):
        raise TypeError("%s: lattice: expected a dict with origin, spacing and shape, got %s"
                        % (_FUNCTION, type(lattice).__name__))
    unknown = sorted(set(lattice.keys()) - {"origin", "spacing", "shape"})
    if unknown:
        raise ValueError("%s: lattice: unknown entry %r; expected origin, spacing and shape"
                         % (_FUNCTION, unknown[0]))
    if "shape" not in lattice:
        raise ValueError("%s: lattice: expected a shape (nz, ny, nx)" % _FUNCTION)
    try:
        nz, ny, nx = (int(n) for n in lattice["shape"])
    except (TypeError, ValueError):
        raise TypeError("%s: lattice['shape']: expected three integers (nz, ny, nx), got %r"
                        % (_FUNCTION, lattice["shape"])) from None
    settings = {"lattice.nz": ("lattice['shape']", nz), "lattice.ny": ("lattice['shape']", ny),
                "lattice.nx": ("lattice['shape']", nx)}
    if "origin" in lattice:
        settings["lattice.origin"] = ("lattice['origin']", [float(x) for x in lattice["origin"]])
    if "spacing" in lattice:
        settings["lattice.spacing"] = ("lattice['spacing']", lattice["spacing"])
    return settings


def potential(atoms, lattice, *, backend="auto", threads=None, **keywords):
    settings = _lattice_settings(lattice)
    files = {}
    if isinstance(atoms, (str, os.PathLike)):
        settings["atoms.file"] = ("atoms", os.path.abspath(os.fspath(atoms)))
    else:
        files["atoms.file"] = ("atoms", "atoms.xyz", _xyz_text(atoms))
    settings.update(_KEYWORDS.overrides(keywords))
    result = _KEYWORDS.run(settings, backend=backend, threads=threads, files=files)
    return result["/fields/potential"]


potential.__doc__ = """The potential V at every point of a lattice, shape (nz, ny, nx) (x
fastest), float32: k sum_i q_i / max(|r - r_i|, min_distance) over the atoms, with no solvent
and no screening. Units: k's times charge over length; coulomb_constant=332.0637 gives
kcal/(mol e) for charges in e and lengths in Å, and then unit="kT/e" divides by R T.

atoms: an array (n, 4) of rows x, y, z, q (lengths in the lattice's unit, charges in k's),
    held in float32 as the solver holds them; or the path of a PQR or XYZ file
    (atoms.file; its format from the extension, or format=).
lattice: {"origin": (x, y, z) of point [0, 0, 0], "spacing": h, "shape": (nz, ny, nx)}
    (lattice.origin, lattice.spacing, lattice.nx, ny, nz); origin and spacing default to the
    declared ones; nz = 1 is a 2D slice.
backend: "auto" (the GPU when there is one, else the CPU gold solver, in double rounded to
    float), "gpu" or "cpu".
threads: threads of the CPU gold (default: the cores this process may use).

The other keywords are coulomb's declared keys (`parasol keys coulomb`), checked as a parameter
file's are; a bad value is a ValueError naming the argument and its key:
""" + _KEYWORDS.doc()
