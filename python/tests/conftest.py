"""What the Python tests share: the repository's folder, the built `parasol` executable to
compare with, and whether a GPU is here (GPU tests skip without one, saying so)."""

import os
import pathlib

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
