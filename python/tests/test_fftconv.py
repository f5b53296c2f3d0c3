"""parasol.fftconv.convolve and correlate against scipy.signal's, mode by mode."""

import numpy as np
import pytest
import scipy.signal

import parasol
from conftest import requires_gpu

MODES = ["full", "same", "valid"]


# A filter shorter, as long and longer than the signal (valid then takes the filter as the
# larger, as scipy does); odd and even lengths, so "same"'s centring is tested both ways.
@pytest.mark.parametrize("n, k", [(100, 7), (64, 8), (9, 9), (5, 12)])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_1d_convolve_matches_scipy(rng, n, k, mode, dtype, tolerance):
    x = rng.normal(size=n).astype(dtype)
    h = rng.normal(size=k).astype(dtype)
    y = parasol.fftconv.convolve(x, h, mode, backend="cpu")
    expected = scipy.signal.fftconvolve(x.astype(np.float64), h.astype(np.float64), mode)
    assert y.dtype == dtype and y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=0, atol=tolerance * np.sqrt(k))


@pytest.mark.parametrize("mode", MODES)
def test_2d_convolve_matches_scipy(rng, mode):
    x = rng.normal(size=(20, 17))
    h = rng.normal(size=(5, 4))
    y = parasol.fftconv.convolve(x, h, mode=mode, backend="cpu")
    np.testing.assert_allclose(y, scipy.signal.fftconvolve(x, h, mode), rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_correlate_matches_scipy(rng, mode):
    x = rng.normal(size=50)
    h = rng.normal(size=6)
    y = parasol.fftconv.correlate(x, h, mode, backend="cpu")
    np.testing.assert_allclose(y, scipy.signal.correlate(x, h, mode), rtol=0, atol=1e-12)


def test_lists_are_taken_as_arrays():
    y = parasol.fftconv.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], backend="cpu")
    np.testing.assert_allclose(y, [0.0, 1.0, 2.5, 4.0, 1.5])


def test_valid_with_neither_larger_is_a_value_error():
    with pytest.raises(ValueError, match="mode"):
        parasol.fftconv.convolve(np.ones((4, 10)), np.ones((6, 3)), "valid", backend="cpu")


def test_an_unknown_mode_is_a_value_error():
    with pytest.raises(ValueError, match='"same"'):
        parasol.fftconv.convolve(np.ones(10), np.ones(3), "middle", backend="cpu")


def test_integers_are_a_type_error():
    with pytest.raises(TypeError, match="fftconv.convolve: signal has dtype int64"):
        parasol.fftconv.convolve(np.arange(10), np.ones(3), backend="cpu")


def test_dimensions_that_differ_are_a_value_error():
    with pytest.raises(ValueError, match="filter: expected as many dimensions as signal"):
        parasol.fftconv.convolve(np.ones((4, 10)), np.ones(3), backend="cpu")


@requires_gpu
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n, k", [(100000, 255), (1000, 7), (300, 300)])
def test_gpu_matches_the_gold(rng, mode, n, k):
    x = rng.normal(size=n).astype(np.float32)
    h = rng.normal(size=k).astype(np.float32)
    gpu = parasol.fftconv.convolve(x, h, mode, backend="gpu")
    gold = parasol.fftconv.convolve(x.astype(np.float64), h.astype(np.float64), mode,
                                    backend="cpu")
    # fp32 FFTs: round-off grows with the transform's log length and the operands' norms.
    bound = 1e-5 * np.linalg.norm(x) * np.linalg.norm(h) / np.sqrt(min(n, k))
    np.testing.assert_allclose(gpu, gold, rtol=0, atol=bound)


def test_reversed_and_strided_views_are_read_as_numpy_indexes_them(rng):
    x = rng.normal(size=101)
    h = rng.normal(size=(2, 9))
    y = parasol.fftconv.convolve(x[::-2], h[1, ::-1], backend="cpu")
    expected = parasol.fftconv.convolve(np.ascontiguousarray(x[::-2]),
                                        np.ascontiguousarray(h[1, ::-1]), backend="cpu")
    np.testing.assert_array_equal(y, expected)


@requires_gpu
def test_gpu_reads_views_and_contiguous_arrays_alike(rng):
    # Contiguous arrays are uploaded from where they lie, views through a copy in C order: the
    # same values either way, so the same bits.
    x = rng.normal(size=(40, 301)).astype(np.float32)
    h = rng.normal(size=(3, 17)).astype(np.float32)
    y = parasol.fftconv.convolve(x[::-2, 1:], h[1:2, ::-1], "same", backend="gpu")
    expected = parasol.fftconv.convolve(np.ascontiguousarray(x[::-2, 1:]),
                                        np.ascontiguousarray(h[1:2, ::-1]), "same", backend="gpu")
    np.testing.assert_array_equal(y, expected)
    assert y.flags.c_contiguous and y.shape == (20, 300)


@requires_gpu
def test_gpu_calls_on_kept_plans_give_fresh_plans_bits(rng):
    # The second call runs on the plans and buffers the first kept, with a new filter whose
    # spectrum must be made again; the third, after a call of other shapes, on fresh ones.
    x1, x2 = (rng.normal(size=(16, 500)).astype(np.float32) for _ in range(2))
    h1, h2 = (rng.normal(size=(1, 21)).astype(np.float32) for _ in range(2))
    parasol.fftconv.convolve(x1, h1, "same", backend="gpu")
    kept = parasol.fftconv.convolve(x2, h2, "same", backend="gpu")
    parasol.fftconv.convolve(x1[:8], h1, "full", backend="gpu")
    fresh = parasol.fftconv.convolve(x2, h2, "same", backend="gpu")
    np.testing.assert_array_equal(kept, fresh)
    gold = parasol.fftconv.convolve(x2.astype(np.float64), h2.astype(np.float64), "same",
                                    backend="cpu")
    np.testing.assert_allclose(kept, gold, rtol=0, atol=1e-4)
