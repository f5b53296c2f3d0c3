"""parasol.coulomb.potential against the direct sum in NumPy and against the command line's
result for the same atoms and keys, bit for bit; its refusals."""

import numpy as np
import pytest

import parasol
from conftest import command_line_result, requires_gpu, write_params

K = 332.0637


def numpy_potential(atoms, origin, spacing, shape, k, min_distance):
    """V[k, j, i] = k sum q / max(r, min_distance) in double, and the sum of |terms| (the scale
    a float32 point's error is measured against: the potential itself can cancel to 0)."""
    z, y, x = np.meshgrid(*(origin[a] + spacing * np.arange(shape[2 - a]) for a in (2, 1, 0)),
                          indexing="ij")
    v, scale = np.zeros(shape), np.zeros(shape)
    for ax, ay, az, q in np.asarray(atoms, np.float64):
        term = k * q / np.maximum(np.sqrt((x - ax) ** 2 + (y - ay) ** 2 + (z - az) ** 2),
                                  min_distance)
        v += term
        scale += np.abs(term)
    return v, scale


def ions(rng, count):
    return np.column_stack([rng.uniform(0, 6, (count, 3)),
                            rng.uniform(-1, 1, count)]).astype(np.float32)


# nz = 1 is a 2D slice; 7x5x3 divides no block shape.
@pytest.mark.parametrize("shape", [(1, 9, 11), (3, 5, 7), (12, 13, 14)])
def test_matches_the_direct_sum(rng, shape):
    atoms = ions(rng, 25)
    lattice = {"origin": (-1.0, -0.5, 0.25), "spacing": 0.6, "shape": shape}
    v = parasol.coulomb.potential(atoms, lattice, coulomb_constant=K, min_distance=0.3,
                                  backend="cpu")
    reference, scale = numpy_potential(atoms, lattice["origin"], 0.6, shape, K, 0.3)
    assert v.shape == shape and v.dtype == np.float32
    # The gold sums in double and rounds once to float: half an ulp of float32 of the value,
    # bounded by the scale of the sum; the reference sums in another order.
    assert np.all(np.abs(v - reference) <= 1e-6 * scale + 1e-12)


def test_a_point_on_an_atom_takes_the_cut_off():
    atoms = np.array([[1.0, 1.0, 1.0, 2.0]])
    v = parasol.coulomb.potential(atoms, {"origin": (0, 0, 0), "spacing": 1.0, "shape": (3, 3, 3)},
                                  coulomb_constant=1.0, min_distance=0.25, backend="cpu")
    assert v[1, 1, 1] == np.float32(2.0 / 0.25)
    assert v[1, 1, 0] == np.float32(2.0)  # one spacing away


def test_a_file_of_atoms_gives_what_the_array_gives(rng, tmp_path):
    atoms = ions(rng, 8)
    path = tmp_path / "ions.xyz"
    path.write_text("8\nions\n" + "".join("Na %r %r %r %r\n" % tuple(map(float, a))
                                          for a in atoms))
    lattice = {"origin": (0.0, 0.0, 0.0), "spacing": 0.5, "shape": (4, 5, 6)}
    np.testing.assert_array_equal(parasol.coulomb.potential(path, lattice, backend="cpu"),
                                  parasol.coulomb.potential(atoms, lattice, backend="cpu"))


def test_is_the_command_lines_result_bit_for_bit(parasol_exe, tmp_path):
    pqr = parasol_exe.parents[3] / "inputs" / "fkbp-dmso.pqr"
    keys = {"lattice.origin": [10.0, 10.0, 10.0], "lattice.spacing": 2.0, "lattice.nx": 9,
            "lattice.ny": 8, "lattice.nz": 7, "atoms.file": str(pqr),
            "physics.coulomb_constant": K, "physics.min_distance": 0.5}
    cli = command_line_result(parasol_exe, write_params(tmp_path / "c.toml", "coulomb", keys),
                              {}, tmp_path / "c.h5")
    v = parasol.coulomb.potential(pqr, {"origin": (10.0, 10.0, 10.0), "spacing": 2.0,
                                        "shape": (7, 8, 9)},
                                  coulomb_constant=K, min_distance=0.5, backend="cpu")
    np.testing.assert_array_equal(v.view(np.uint8), cli["/fields/potential"].view(np.uint8))


def test_refusals_name_the_argument():
    good = {"shape": (2, 2, 2)}
    with pytest.raises(ValueError, match=r"coulomb\.potential: atoms: expected an array of "
                                         r"shape \(n, 4\).*\(3, 3\)"):
        parasol.coulomb.potential(np.ones((3, 3)), good, backend="cpu")
    with pytest.raises(TypeError, match=r"coulomb\.potential: atoms has dtype complex128"):
        parasol.coulomb.potential(np.ones((3, 4), complex), good, backend="cpu")
    with pytest.raises(ValueError, match=r"coulomb\.potential: atoms: expected finite values.*"
                                         r"row 1"):
        parasol.coulomb.potential([[0, 0, 0, 1], [0, 0, np.nan, 1]], good, backend="cpu")
    with pytest.raises(ValueError, match=r"coulomb\.potential: lattice: expected a shape"):
        parasol.coulomb.potential(np.ones((1, 4)), {"spacing": 1.0}, backend="cpu")
    with pytest.raises(ValueError, match=r"coulomb\.potential: lattice: unknown entry 'size'"):
        parasol.coulomb.potential(np.ones((1, 4)), {"shape": (2, 2, 2), "size": 3})
    with pytest.raises(ValueError, match=r"^coulomb\.potential: lattice\['shape'\] "
                                         r"\(lattice\.n[xyz]\): expected"):
        parasol.coulomb.potential(np.ones((1, 4)), {"shape": (2, 0, 2)}, backend="cpu")
    with pytest.raises(ValueError, match=r"^coulomb\.potential: lattice\['spacing'\] "
                                         r"\(lattice\.spacing\)"):
        parasol.coulomb.potential(np.ones((1, 4)), {"shape": (2, 2, 2), "spacing": -1.0},
                                  backend="cpu")
    with pytest.raises(ValueError, match=r"^coulomb\.potential: min_distance "
                                         r"\(physics\.min_distance\)"):
        parasol.coulomb.potential(np.ones((1, 4)), good, min_distance=0.0, backend="cpu")
    with pytest.raises(ValueError, match=r"^coulomb\.potential: .*no-such\.pqr: atoms file not "
                                         r"found"):
        parasol.coulomb.potential("no-such.pqr", good, backend="cpu")


@requires_gpu
def test_gpu_agrees_with_the_direct_sum(rng):
    atoms = ions(rng, 300)
    lattice = {"origin": (0.0, 0.0, 0.0), "spacing": 0.4, "shape": (15, 16, 17)}
    v = parasol.coulomb.potential(atoms, lattice, coulomb_constant=K, min_distance=0.3,
                                  backend="gpu")
    reference, scale = numpy_potential(atoms, (0.0, 0.0, 0.0), 0.4, lattice["shape"], K, 0.3)
    # float32 sums over 300 atoms on the GPU: a few ulps per term of the scale.
    assert np.all(np.abs(v - reference) <= 1e-5 * scale)


@requires_gpu
def test_gpu_is_the_command_lines_gpu_result_bit_for_bit(parasol_exe, tmp_path):
    pqr = parasol_exe.parents[3] / "inputs" / "fkbp-dmso.pqr"
    keys = {"lattice.origin": [0.0, 0.0, 0.0], "lattice.spacing": 1.5, "lattice.nx": 33,
            "lattice.ny": 24, "lattice.nz": 5, "atoms.file": str(pqr),
            "physics.coulomb_constant": K}
    cli = command_line_result(parasol_exe, write_params(tmp_path / "c.toml", "coulomb", keys),
                              {}, tmp_path / "c.h5", backend="gpu")
    v = parasol.coulomb.potential(pqr, {"origin": (0.0, 0.0, 0.0), "spacing": 1.5,
                                        "shape": (5, 24, 33)},
                                  coulomb_constant=K, backend="gpu")
    # gather-shared sums each point's atoms in the file's order: the same bits every run.
    np.testing.assert_array_equal(v.view(np.uint8), cli["/fields/potential"].view(np.uint8))
