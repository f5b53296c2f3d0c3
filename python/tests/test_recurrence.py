"""parasol.recurrence.linear against the loop it stands for, and its refusals."""

import numpy as np
import pytest
import scipy.signal

import parasol
from conftest import requires_gpu


def loop(s, u, v0):
    """v[t] = s[t] v[t-1] + u[t] in double, one series at a time."""
    s, u = np.atleast_2d(s).astype(np.float64), np.atleast_2d(u).astype(np.float64)
    v0 = np.broadcast_to(np.asarray(v0, np.float64), (s.shape[0],))
    v = np.empty_like(s)
    for k in range(s.shape[0]):
        before = v0[k]
        for t in range(s.shape[1]):
            before = s[k, t] * before + u[k, t]
            v[k, t] = before
    return v


@pytest.mark.parametrize("n", [1, 7, 1000])
@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_matches_the_loop(rng, n, dtype, tolerance):
    s = rng.uniform(-0.99, 0.99, (3, n)).astype(dtype)
    u = rng.normal(size=(3, n)).astype(dtype)
    v0 = np.array([0.5, -1.0, 2.0])
    v = parasol.recurrence.linear(s, u, v0, backend="cpu")
    assert v.dtype == dtype and v.shape == s.shape
    # |s| < 1: a value forgets its past, so round-off stays near one value's.
    np.testing.assert_allclose(v, loop(s, u, v0), rtol=0, atol=tolerance * 10)


def test_one_series_is_an_ar1_filter(rng):
    # With s constant, v is scipy's IIR filter 1 / (1 - phi z^-1) of u, started from v0.
    phi, v0 = 0.9, 3.0
    u = rng.normal(size=500)
    v = parasol.recurrence.linear(np.full(500, phi), u, v0, backend="cpu")
    expected, _ = scipy.signal.lfilter([1.0], [1.0, -phi], u, zi=[phi * v0])
    np.testing.assert_allclose(v, expected, rtol=0, atol=1e-12)


def test_v0_must_be_one_value_or_one_per_series():
    with pytest.raises(ValueError, match=r"v0: expected a number or one per series \(2\)"):
        parasol.recurrence.linear(np.ones((2, 5)), np.ones((2, 5)), [1.0, 2.0, 3.0], backend="cpu")


def test_integers_are_a_type_error():
    with pytest.raises(TypeError, match="recurrence.linear: s has dtype int64"):
        parasol.recurrence.linear(np.ones(5, dtype=np.int64), np.ones(5), backend="cpu")


def test_an_unknown_mode_is_a_value_error():
    with pytest.raises(ValueError, match="fast"):
        parasol.recurrence.linear(np.ones(5), np.ones(5), mode="quick", backend="cpu")


@requires_gpu
@pytest.mark.parametrize("mode", ["fast", "reproducible"])
def test_gpu_matches_the_gold(rng, mode):
    s = rng.uniform(-0.99, 0.99, (4, 100000))
    u = rng.normal(size=(4, 100000))
    gpu = parasol.recurrence.linear(s, u, 1.0, backend="gpu", mode=mode)
    np.testing.assert_allclose(gpu, parasol.recurrence.linear(s, u, 1.0, backend="cpu"),
                               rtol=0, atol=1e-9)
