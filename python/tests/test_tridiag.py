"""parasol.tridiag.solve against SciPy's banded solver, and its refusals."""

import numpy as np
import pytest
import scipy.linalg

import parasol
from conftest import HAS_GPU, requires_gpu


def dominant_systems(rng, systems, n, dtype):
    """Random strictly diagonally dominant systems (|b| >= |a| + |c| + 1, signs mixed)."""
    a = rng.uniform(-1, 1, (systems, n))
    c = rng.uniform(-1, 1, (systems, n))
    b = (np.abs(a) + np.abs(c) + rng.uniform(1, 2, (systems, n))) * rng.choice([-1, 1], (systems, n))
    d = rng.uniform(-1, 1, (systems, n))
    return [x.astype(dtype) for x in (a, b, c, d)]


def banded_reference(a, b, c, d):
    """scipy.linalg.solve_banded in double, system by system."""
    x = np.empty(d.shape)
    for m in range(d.shape[0]):
        ab = np.zeros((3, d.shape[1]))
        ab[0, 1:] = c[m, :-1]
        ab[1] = b[m]
        ab[2, :-1] = a[m, 1:]
        x[m] = scipy.linalg.solve_banded((1, 1), ab, d[m].astype(np.float64))
    return x


# Sizes that break kernels: 1 row, a prime, a power of two and one past it.
@pytest.mark.parametrize("n", [1, 2, 37, 256, 257])
@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-13), (np.float32, 1e-6)])
def test_matches_scipy(rng, n, dtype, tolerance):
    a, b, c, d = dominant_systems(rng, 5, n, dtype)
    x = parasol.tridiag.solve(a, b, c, d, backend="cpu")
    assert x.dtype == dtype and x.shape == d.shape
    # Diagonally dominant: the solution is bounded by |d| / 1, so an absolute bound is relative.
    np.testing.assert_allclose(x, banded_reference(a, b, c, d), rtol=0, atol=tolerance)


def test_one_system_as_a_1d_array(rng):
    a, b, c, d = dominant_systems(rng, 1, 50, np.float64)
    x = parasol.tridiag.solve(a[0], b[0], c[0], d[0], backend="cpu")
    assert x.shape == (50,)
    np.testing.assert_allclose(x, banded_reference(a, b, c, d)[0], rtol=0, atol=1e-13)


def test_strided_and_read_only_arrays(rng):
    a, b, c, d = dominant_systems(rng, 6, 40, np.float64)
    d.setflags(write=False)
    expected = parasol.tridiag.solve(a, b, c, d, backend="cpu")
    # Fortran order and every other system: the values are taken as NumPy indexes them.
    got = parasol.tridiag.solve(np.asfortranarray(a), b, c, np.asfortranarray(d), backend="cpu")
    np.testing.assert_array_equal(got, expected)
    got = parasol.tridiag.solve(a[::2], b[::2], c[::2], d[::2], backend="cpu")
    np.testing.assert_array_equal(got, expected[::2])


@pytest.mark.parametrize("dtype", [np.int64, np.complex128, np.float16, bool])
def test_other_dtypes_are_a_type_error(dtype):
    ones = np.ones((2, 4))
    with pytest.raises(TypeError, match="tridiag.solve: a has dtype .*; expected float32 or float64"):
        parasol.tridiag.solve(ones.astype(dtype), ones, ones, ones, backend="cpu")


def test_mixed_dtypes_are_a_type_error():
    ones = np.ones(4)
    with pytest.raises(TypeError, match="c has dtype float32 but a has float64"):
        parasol.tridiag.solve(ones, ones, ones.astype(np.float32), ones, backend="cpu")


def test_shapes_that_differ_are_a_value_error():
    with pytest.raises(ValueError, match=r"tridiag.solve: b: expected the shape of d \(4,\), got \(5,\)"):
        parasol.tridiag.solve(np.ones(4), np.ones(5), np.ones(4), np.ones(4), backend="cpu")


def test_a_zero_pivot_is_a_runtime_error():
    zeros = np.zeros((2, 3))
    with pytest.raises(RuntimeError, match="system 0"):
        parasol.tridiag.solve(zeros, zeros, zeros, np.ones((2, 3)), backend="cpu")


@requires_gpu
@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_gpu_matches_the_gold(rng, dtype, tolerance):
    a, b, c, d = dominant_systems(rng, 33, 1000, dtype)
    gpu = parasol.tridiag.solve(a, b, c, d, backend="gpu")
    assert gpu.dtype == dtype
    np.testing.assert_allclose(gpu, parasol.tridiag.solve(a, b, c, d, backend="cpu"),
                               rtol=0, atol=tolerance)


def test_auto_is_the_cpu_gold_without_a_gpu(rng):
    if HAS_GPU:
        pytest.skip("a GPU is here: auto runs it")
    a, b, c, d = dominant_systems(rng, 3, 20, np.float32)
    np.testing.assert_array_equal(parasol.tridiag.solve(a, b, c, d),
                                  parasol.tridiag.solve(a, b, c, d, backend="cpu"))


def test_gpu_without_a_device_is_a_runtime_error():
    if HAS_GPU:
        pytest.skip("a GPU is here")
    with pytest.raises(RuntimeError, match='backend="gpu": no usable CUDA device'):
        parasol.tridiag.solve(np.ones(3), np.ones(3), np.ones(3), np.ones(3), backend="gpu")
