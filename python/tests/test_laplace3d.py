"""parasol.laplace3d.solve against the Jacobi iteration in NumPy and against the command line's
result for the same keys, bit for bit; its keywords as the declared keys, and its refusals."""

import numpy as np
import pytest

import parasol
from conftest import command_line_result, requires_gpu, write_params


def numpy_jacobi(shape, faces, sweeps, interior=0.0):
    """Jacobi sweeps of the six-neighbour mean in double; faces as the solver sets them (x
    faces win over y where they meet, y over z: so z first, x last)."""
    u = np.full(shape, interior, dtype=np.float64)
    for face, index in (("z_min", np.s_[0]), ("z_max", np.s_[-1]),
                        ("y_min", np.s_[:, 0]), ("y_max", np.s_[:, -1]),
                        ("x_min", np.s_[:, :, 0]), ("x_max", np.s_[:, :, -1])):
        u[index] = faces.get(face, 0.0)
    for _ in range(sweeps):
        nxt = u.copy()
        nxt[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] +
                                 u[1:-1, 2:, 1:-1] + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]) / 6
        u = nxt
    return u


# 3 is the smallest grid with an interior; 9x10x13 divides no block shape.
@pytest.mark.parametrize("shape", [(3, 3, 3), (9, 10, 13)])
def test_matches_numpy_jacobi_in_double(shape):
    faces = {"x_min": 1.0, "y_max": -0.5, "z_min": 0.25}
    s = parasol.laplace3d.solve(shape, boundary=faces, max_iterations=17, interior="constant",
                                interior_value=0.5, precision="double", backend="cpu")
    assert s.u.shape == shape and s.u.dtype == np.float64
    assert s.iterations == 17 and not s.converged
    # Six adds and a divide of values <= 1 a sweep, perhaps in another order: a few ulps each.
    np.testing.assert_allclose(s.u, numpy_jacobi(shape, faces, 17, 0.5), rtol=0, atol=1e-13)


def test_stops_at_the_tolerance_and_says_so():
    s = parasol.laplace3d.solve((12, 12, 12), boundary={"x_min": 1.0}, tolerance=1e-3,
                                max_iterations=5000, check_every=10, backend="cpu")
    assert s.converged and s.last_change < 1e-3
    assert s.iterations < 5000 and s.iterations % 10 == 0
    assert s.diagnostics["stop_reason"]
    assert s.u.dtype == np.float32
    assert "converged=True" in repr(s)


def test_is_the_command_lines_result_bit_for_bit(parasol_exe, tmp_path):
    keys = {"grid.nx": 14, "grid.ny": 11, "grid.nz": 9, "boundary.x_max": 2.0,
            "boundary.y_min": 0.5, "iteration.max_iterations": 30, "iteration.tolerance": 1e-6,
            "iteration.check_every": 7, "initial.seed": 9}
    cli = command_line_result(parasol_exe, write_params(tmp_path / "l.toml", "laplace3d", keys),
                              {}, tmp_path / "l.h5")
    s = parasol.laplace3d.solve((9, 11, 14), boundary={"x_max": 2.0, "y_min": 0.5},
                                max_iterations=30, tolerance=1e-6, check_every=7, seed=9,
                                backend="cpu")
    np.testing.assert_array_equal(s.u.view(np.uint8), cli["/fields/u"].view(np.uint8))
    for name in ("iterations", "last_change", "converged"):
        assert s.diagnostics[name] == cli["/diagnostics@" + name], name


def test_keywords_are_the_declared_keys():
    declared = {k["key"] for k in parasol.keys("laplace3d")}
    keywords = parasol.laplace3d._KEYWORDS.key_of
    assert set(keywords.values()) | {"grid.nx", "grid.ny", "grid.nz"} | {
        "boundary." + f for f in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")} == {
            k for k in declared if not k.startswith("sweep.")}
    assert keywords["tolerance"] == "iteration.tolerance"
    # The docstring is the declarations': each keyword with its key and help.
    for k in parasol.keys("laplace3d"):
        if k["key"] in keywords.values():
            assert k["key"] in parasol.laplace3d.solve.__doc__


def test_a_bad_value_is_a_value_error_naming_the_argument_and_key():
    with pytest.raises(ValueError, match=r"^laplace3d\.solve: shape \(grid\.nx\): expected an "
                                         r"integer of at least 3.*got 2"):
        parasol.laplace3d.solve((5, 5, 2), max_iterations=3, backend="cpu")
    with pytest.raises(ValueError, match=r"^laplace3d\.solve: tolerance \(iteration\.tolerance\)"):
        parasol.laplace3d.solve((5, 5, 5), max_iterations=3, tolerance=-1.0, backend="cpu")
    with pytest.raises(ValueError, match=r"^laplace3d\.solve: precision \(method\.precision\): .*"
                                         r"\"half\""):
        parasol.laplace3d.solve((5, 5, 5), max_iterations=3, precision="half", backend="cpu")


def test_a_missing_required_key_names_its_argument():
    with pytest.raises(ValueError, match=r"^laplace3d\.solve: max_iterations "
                                         r"\(iteration\.max_iterations\)"):
        parasol.laplace3d.solve((5, 5, 5), backend="cpu")


def test_refusals_of_the_arguments_of_its_own():
    with pytest.raises(TypeError, match=r"laplace3d\.solve: unexpected keyword argument 'tol'"):
        parasol.laplace3d.solve((5, 5, 5), max_iterations=3, tol=1e-3)
    with pytest.raises(TypeError, match=r"laplace3d\.solve: shape: expected three integers"):
        parasol.laplace3d.solve(5, max_iterations=3)
    with pytest.raises(ValueError, match=r"laplace3d\.solve: boundary: unknown face 'left'"):
        parasol.laplace3d.solve((5, 5, 5), boundary={"left": 1.0}, max_iterations=3)
    with pytest.raises(TypeError, match=r"laplace3d\.solve: boundary: expected a dict"):
        parasol.laplace3d.solve((5, 5, 5), boundary=1.0, max_iterations=3)
    with pytest.raises(ValueError, match=r"^laplace3d\.solve: threads: expected a positive"):
        parasol.laplace3d.solve((5, 5, 5), max_iterations=3, threads=0)


def test_check_stores_the_agreement_and_provenance_the_call():
    s = parasol.laplace3d.solve((6, 7, 8), max_iterations=10, backend="cpu", check=True)
    assert s.result["/check@passed"]
    assert s.result["/provenance@command_line"].startswith(
        "parasol.laplace3d.solve(grid.nz=6, grid.ny=7, grid.nx=8")


@requires_gpu
def test_gpu_agrees_with_the_gold():
    s = parasol.laplace3d.solve((20, 24, 33), boundary={"x_min": 1.0}, max_iterations=40,
                                backend="gpu", check=True)
    assert s.result["/provenance@backend"] == "gpu"
    assert s.result["/check@passed"]


@requires_gpu
def test_gpu_is_the_command_lines_gpu_result_bit_for_bit(parasol_exe, tmp_path):
    keys = {"grid.nx": 40, "grid.ny": 33, "grid.nz": 17, "boundary.x_min": 1.0,
            "iteration.max_iterations": 25, "method.variant": "zreg"}
    cli = command_line_result(parasol_exe, write_params(tmp_path / "l.toml", "laplace3d", keys),
                              {}, tmp_path / "l.h5", backend="gpu")
    s = parasol.laplace3d.solve((17, 33, 40), boundary={"x_min": 1.0}, max_iterations=25,
                                variant="zreg", backend="gpu")
    # The same kernel on the same device: the same bits.
    np.testing.assert_array_equal(s.u.view(np.uint8), cli["/fields/u"].view(np.uint8))
