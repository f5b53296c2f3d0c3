"""parasol.info, solvers, keys and run: the command line's answers, as Python values; run()'s
result against the command line's for the same parameters, bit for bit."""

import numpy as np
import pytest

import parasol
from conftest import HAS_GPU, ROOT, command_line_result, requires_gpu

LAPLACE = str(ROOT / "inputs" / "laplace3d.toml")
SMALL_LAPLACE = {"grid.nx": 12, "grid.ny": 10, "grid.nz": 9, "iteration.max_iterations": 20,
                 "iteration.check_every": 5}


def test_info_names_the_build_and_the_gpu_or_why_none():
    info = parasol.info()
    assert info["version"]
    assert info["cpu_cores"] >= 1
    if info["gpu"]:
        assert info["device"]["name"]
    else:
        assert info["reason"]


def test_the_shipped_autotune_table_comes_with_the_package():
    # method.variant = "auto" falls back on it; the package names it to the module unless the
    # environment named another first.
    import os
    shipped = os.path.join(os.path.dirname(parasol.__file__), "autotune.toml")
    assert os.path.isfile(shipped)
    with open(shipped) as f:
        assert 'format = "parasol-autotune-2"' in f.read()
    assert os.environ.get("PARASOL_SHIPPED_AUTOTUNE")


def test_solvers_lists_every_registered_solver_with_its_examples():
    solvers = parasol.solvers()
    for name in ("laplace3d", "montecarlo", "coulomb", "tridiag", "recurrence", "fftconv", "poisson"):
        assert name in solvers
        assert solvers[name]["summary"]
        for example in solvers[name]["examples"]:
            assert (ROOT / example).is_file(), example


def test_keys_are_the_declared_ones():
    keys = {k["key"]: k for k in parasol.keys("laplace3d")}
    assert keys["grid.nx"]["type"] == "integer"
    assert keys["grid.nx"]["default"] is None  # required
    assert keys["iteration.tolerance"]["default"] == "0.0"
    assert keys["method.variant"]["gpu_only"]
    # Every solver that declares its keys lists them; the others say they do not yet.
    for name, solver in parasol.solvers().items():
        if solver["declares_keys"]:
            assert parasol.keys(name)
        else:
            with pytest.raises(ValueError, match="does not declare its keys"):
                parasol.keys(name)


def test_keys_of_an_unknown_solver_is_a_value_error_listing_the_solvers():
    with pytest.raises(ValueError, match='unknown solver "laplace"; expected one of .*"laplace3d"'):
        parasol.keys("laplace")


def test_run_returns_datasets_and_attributes():
    r = parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu")
    u = r["/fields/u"]
    assert u.dtype == np.float32
    assert u.shape == (9, 10, 12)
    assert r["/diagnostics@iterations"] == 20
    assert r["/provenance@backend"] == "cpu"
    assert np.all(u[:, :, 0] == 1.0)  # the x_min face, fixed at 1


def test_run_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu")
    assert list(tmp_path.iterdir()) == []


def test_run_overrides_of_every_type():
    r = parasol.run(LAPLACE, dict(SMALL_LAPLACE, **{"method.precision": "double",
                                                     "iteration.tolerance": 0.0,
                                                     "boundary.x_min": 2}), backend="cpu")
    assert r["/fields/u"].dtype == np.float64
    assert np.all(r["/fields/u"][:, :, 0] == 2.0)


def test_a_misspelt_key_is_a_value_error_naming_it_with_a_guess():
    with pytest.raises(ValueError, match=r"grid\.nxx: unknown key; did you mean grid\.nx\?"):
        parasol.run(LAPLACE, {"grid.nxx": 12}, backend="cpu")


def test_a_bad_value_is_a_value_error_naming_the_key():
    with pytest.raises(ValueError, match=r"grid\.nx: expected an integer of at least 3.*got -3"):
        parasol.run(LAPLACE, {"grid.nx": -3}, backend="cpu")


def test_a_missing_file_is_a_value_error():
    with pytest.raises(ValueError, match="no-such.toml"):
        parasol.run(ROOT / "inputs" / "no-such.toml", backend="cpu")


def test_a_bad_backend_is_a_value_error():
    with pytest.raises(ValueError, match='backend: expected "auto", "gpu" or "cpu", got "cuda"'):
        parasol.run(LAPLACE, SMALL_LAPLACE, backend="cuda")


def test_an_override_of_an_unknown_type_is_a_type_error():
    with pytest.raises(TypeError, match="grid.nx"):
        parasol.run(LAPLACE, {"grid.nx": object()}, backend="cpu")


def test_gpu_without_a_device_is_a_runtime_error():
    if parasol.info()["gpu"]:
        pytest.skip("a GPU is here")
    with pytest.raises(RuntimeError, match='backend="gpu"'):
        parasol.run(LAPLACE, SMALL_LAPLACE, backend="gpu")


# Attributes that differ between any two runs: when, how long, and how it was called.
VARIES = ("/timings", "/provenance@", "/@")


@pytest.mark.parametrize("params, overrides", [
    ("laplace3d.toml", SMALL_LAPLACE),
    ("recurrence.toml", {"ar1.series": 3, "ar1.length": 1000}),
    ("heat1d.toml", {"heat.points": 33, "heat.grids": 5, "heat.steps": 4}),
    ("fftconv.toml", {"signal.length": 3000, "filter.length": 31}),
])
def test_run_gives_the_command_lines_bits(parasol_exe, tmp_path, params, overrides):
    mine = parasol.run(ROOT / "inputs" / params, overrides, backend="cpu")
    theirs = command_line_result(parasol_exe, ROOT / "inputs" / params, overrides,
                                 tmp_path / "cli.h5")
    datasets = [k for k in theirs if "@" not in k]
    assert datasets
    for key in datasets:
        value = theirs[key]
        if value.dtype.kind in "fiu":
            assert mine[key].dtype == value.dtype, key
            # The same code on the same input: the same bits, NaNs in the same places.
            np.testing.assert_array_equal(mine[key].view(np.uint8), value.view(np.uint8),
                                          err_msg=key)
    for key, value in theirs.items():
        if "@" in key and not key.startswith(VARIES) and not isinstance(value, (bytes, str)):
            assert key in mine, key
            np.testing.assert_array_equal(mine[key], value, err_msg=key)


def test_run_is_quiet_unless_asked(capfd):
    parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu")
    assert capfd.readouterr().out == ""
    parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu", verbose=True)
    assert "laplace3d: 12x10x9 float, CPU gold solver" in capfd.readouterr().out


def test_run_with_check_stores_the_agreement():
    r = parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu", check=True)
    assert r["/check@passed"]
    assert r["/check@tolerance"] > 0


def test_auto_runs_the_cpu_gold_without_a_gpu():
    if HAS_GPU:
        pytest.skip("a GPU is here: auto runs it")
    r = parasol.run(LAPLACE, SMALL_LAPLACE)
    assert r["/provenance@backend"] == "cpu"
    np.testing.assert_array_equal(r["/fields/u"],
                                  parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu")["/fields/u"])


@requires_gpu
@pytest.mark.parametrize("params, overrides", [
    ("laplace3d.toml", SMALL_LAPLACE),
    ("heat1d.toml", {"heat.points": 33, "heat.grids": 5, "heat.steps": 4}),
])
def test_a_gpu_run_agrees_with_the_gold(params, overrides):
    r = parasol.run(ROOT / "inputs" / params, overrides, backend="gpu", check=True)
    assert r["/provenance@backend"] == "gpu"
    assert r["/check@passed"]


def test_threads_give_the_same_bits():
    one = parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu", threads=1)
    two = parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu", threads=2)
    np.testing.assert_array_equal(one["/fields/u"], two["/fields/u"])
    with pytest.raises(ValueError, match="threads: expected a positive integer"):
        parasol.run(LAPLACE, SMALL_LAPLACE, backend="cpu", threads=0)
