"""Every script of examples/python runs on the CPU backend and agrees with its NumPy or SciPy
reference (each asserts its own agreement and exits non-zero otherwise)."""

import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = sorted((ROOT / "examples" / "python").glob("*.py"))


def test_there_is_an_example_per_solver_with_a_python_function():
    assert {p.stem for p in EXAMPLES} >= {"laplace3d", "montecarlo", "coulomb", "tridiag",
                                          "recurrence", "fftconv"}


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_and_agrees(script):
    done = subprocess.run([sys.executable, str(script), "--backend", "cpu"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip()  # it says what it compared
