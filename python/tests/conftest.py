"""What the Python tests share: the repository's folder, the built `parasol` executable to
compare with and its results read back, whether a GPU is here (GPU tests skip without one,
saying so), and PyTorch's CUDA tensors for the device tests."""

import os
import pathlib
import subprocess

import h5py
import numpy as np
import pytest

import parasol

ROOT = pathlib.Path(__file__).resolve().parents[2]
HAS_GPU = parasol.info()["gpu"]
requires_gpu = pytest.mark.skipif(
    not HAS_GPU, reason="no usable GPU: %s" % parasol.info().get("reason", ""))


@pytest.fixture(scope="session")
def parasol_exe():
    """The command line built from the same tree ($PARASOL_EXE, else the ci preset's)."""
    exe = pathlib.Path(os.environ.get("PARASOL_EXE", ROOT / "build" / "ci" / "apps" / "parasol"))
    if not exe.is_file():
        pytest.skip("no parasol executable at %s (./build.sh test builds it; or set PARASOL_EXE)"
                    % exe)
    return exe


@pytest.fixture
def rng():
    # Seeded, and the seed in the name: a failure is reproduced by running the test again.
    return np.random.default_rng(20240611)


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch", reason="the device tests use PyTorch's CUDA tensors")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch: the device tests need one")
    return torch


def command_line_result(exe, params, overrides, out, backend="cpu"):
    """The command line's result of a run, read whole with h5py: {"/path": dataset values,
    "/path@attribute": value}, as parasol.run returns it."""
    args = [str(exe), "run", str(params), "-o", str(out), "--backend", backend, "--quiet"]
    args += ["%s=%s" % (k, v) for k, v in overrides.items()]
    subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    found = {}
    with h5py.File(out, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                found["/" + name] = obj[()]
            for attr, value in obj.attrs.items():
                found["/" + name + "@" + attr] = value
        f.visititems(visit)
        for attr, value in f.attrs.items():
            found["/@" + attr] = value
    return found


def write_params(path, solver, settings):
    """A parameter file of `solver` with {key: value}, as TOML: what the command line reads."""
    from parasol._params import toml_value
    path.write_text('solver = "%s"\n' % solver + "".join(
        "%s = %s\n" % (key, toml_value(key, value)) for key, value in settings.items()))
    return path
