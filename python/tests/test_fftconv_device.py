"""fftconv on device arrays: PyTorch CUDA tensors in, device arrays out, without copies, on the
producer's stream. The GPU tests skip, saying why, without PyTorch or a CUDA device; the refusal
of a non-contiguous or wrong-dtype array is checked here through __cuda_array_interface__, which
the extension reads before it touches the device."""

import numpy as np
import pytest

import parasol

MODES = ["full", "same", "valid"]


def fp32_bound(x, h):
    # fp32 FFTs: round-off grows with the transform's log length and the operands' norms, as
    # test_fftconv's GPU test bounds it.
    return 1e-5 * np.linalg.norm(x) * np.linalg.norm(h) / np.sqrt(min(x.shape[-1], h.shape[-1]))


def host(y, torch):
    return torch.from_dlpack(y).cpu().numpy()


@pytest.mark.parametrize("mode", MODES)
def test_device_1d_matches_the_host_path(rng, torch, mode):
    x = rng.normal(size=4099).astype(np.float32)
    h = rng.normal(size=33).astype(np.float32)
    y = parasol.fftconv.convolve(torch.from_numpy(x).cuda(), torch.from_numpy(h).cuda(), mode)
    assert y.__dlpack_device__()[0] == 2  # kDLCUDA: the output stayed on the device
    gold = parasol.fftconv.convolve(x.astype(np.float64), h.astype(np.float64), mode,
                                    backend="cpu")
    np.testing.assert_allclose(host(y, torch), gold, rtol=0, atol=fp32_bound(x, h))


def test_device_2d_and_correlate_match_scipy(rng, torch):
    signal = pytest.importorskip("scipy.signal")
    x = rng.normal(size=(40, 50))
    h = rng.normal(size=(5, 7))
    y = parasol.fftconv.correlate(torch.from_numpy(x).cuda(), torch.from_numpy(h).cuda(), "same")
    np.testing.assert_allclose(host(y, torch), signal.correlate(x, h, "same"), rtol=0, atol=1e-10)


def test_convolver_runs_batched_rows_into_out_in_place(rng, torch):
    x = rng.normal(size=(6, 4096)).astype(np.float32)
    h = rng.normal(size=65).astype(np.float32)
    conv = parasol.fftconv.Convolver(x.shape, h, mode="same", dtype="float32")
    assert conv.output_shape == (6, 4096)
    x_d = torch.from_numpy(x).cuda()
    out = torch.full((6, 4096), float("nan"), device="cuda")
    for _ in range(3):  # the plans and the spectrum are reused; every run gives the same answer
        y = conv.run(x_d, out=out)
    assert y is out
    assert out.data_ptr() == torch.from_dlpack(conv.run(x_d, out=out)).data_ptr()
    for row in range(6):
        gold = parasol.fftconv.convolve(x[row].astype(np.float64), h.astype(np.float64), "same",
                                        backend="cpu")
        np.testing.assert_allclose(out[row].cpu().numpy(), gold, rtol=0,
                                   atol=fp32_bound(x[row], h))


def test_a_new_output_is_taken_by_torch_without_a_copy(rng, torch):
    x = torch.from_numpy(rng.normal(size=1000)).cuda()
    h = torch.from_numpy(rng.normal(size=9)).cuda()
    y = parasol.fftconv.convolve(x, h)
    t = torch.from_dlpack(y)
    assert t.device.type == "cuda" and t.dtype == torch.float64 and t.shape == (1008,)
    assert t.data_ptr() == torch.from_dlpack(y).data_ptr()  # both views of the one buffer


def test_the_producers_stream_is_honoured(rng, torch):
    n = 1 << 20
    x = rng.normal(size=n).astype(np.float32)
    h = rng.normal(size=31).astype(np.float32)
    expected = parasol.fftconv.convolve(x, h, "same", backend="gpu")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # Made and used on `side`: a call on another stream could read x before it is written.
        torch.cuda._sleep(50_000_000)  # keeps `side` busy, so a race would show
        x_d = torch.from_numpy(x).pin_memory().cuda(non_blocking=True)
        h_d = torch.from_numpy(h).cuda()
        conv = parasol.fftconv.Convolver(n, h_d, mode="same")
        out = torch.empty(n, device="cuda")
        conv.run(x_d, out=out)
        y = parasol.fftconv.convolve(x_d, h_d, "same")
        done = torch.cuda.Event()
        done.record(side)
    done.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=0, atol=fp32_bound(x, h))
    with torch.cuda.stream(side):
        np.testing.assert_allclose(torch.from_dlpack(y).cpu().numpy(), expected, rtol=0,
                                   atol=fp32_bound(x, h))


def test_an_explicit_stream_is_used(rng, torch):
    x = rng.normal(size=5000).astype(np.float32)
    h = rng.normal(size=17).astype(np.float32)
    s = torch.cuda.Stream()
    x_d, h_d = torch.from_numpy(x).cuda(), torch.from_numpy(h).cuda()
    y = parasol.fftconv.convolve(x_d, h_d, stream=s)
    s.synchronize()
    np.testing.assert_allclose(torch.from_dlpack(y).cpu().numpy(),
                               parasol.fftconv.convolve(x, h, backend="gpu"), rtol=0,
                               atol=fp32_bound(x, h))


def test_device_arrays_on_the_cpu_backend_are_refused(torch):
    x = torch.ones(100, device="cuda")
    with pytest.raises(ValueError, match='backend="cpu" cannot take device arrays'):
        parasol.fftconv.convolve(x, torch.ones(5, device="cuda"), backend="cpu")


def test_a_non_contiguous_device_array_is_a_type_error(torch):
    x = torch.ones((8, 100), device="cuda")[:, ::2]
    with pytest.raises(TypeError, match="signal is not C-contiguous"):
        parasol.fftconv.convolve(x, torch.ones((2, 2), device="cuda"))


def test_out_of_another_shape_is_a_value_error(torch):
    conv = parasol.fftconv.Convolver(100, np.ones(5, np.float32), mode="same")
    with pytest.raises(ValueError, match=r"out: expected shape \(100,\)"):
        conv.run(torch.ones(100, device="cuda"), out=torch.empty(99, device="cuda"))


# ---- without a device: arrays described by __cuda_array_interface__ -----------------------------

class FakeDeviceArray:
    """An array that says it is on a device; the extension judges its description before it
    reads any memory, so a bad one is refused without a device."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (0, False), "version": 3, "stream": None}


def test_a_strided_device_array_is_a_type_error_naming_the_fix():
    with pytest.raises(TypeError, match=r"signal is not C-contiguous.*x\.contiguous\(\)"):
        parasol.fftconv.convolve(FakeDeviceArray((8, 50), strides=(800, 8)),
                                 FakeDeviceArray((2, 2)))


def test_a_device_array_of_integers_is_a_type_error():
    with pytest.raises(TypeError, match="fftconv.convolve: signal has dtype <i8; expected float32"):
        parasol.fftconv.convolve(FakeDeviceArray((100,), typestr="<i8"), FakeDeviceArray((5,)))


def test_a_device_array_with_a_host_filter_is_a_type_error():
    with pytest.raises(TypeError, match="filter is a host array but signal is on a device"):
        parasol.fftconv.convolve(FakeDeviceArray((100,)), np.ones(5, np.float32))


def test_the_cpu_backend_refuses_a_device_array_before_reading_it():
    with pytest.raises(ValueError, match='backend="cpu" cannot take device arrays: signal'):
        parasol.fftconv.convolve(FakeDeviceArray((100,)), FakeDeviceArray((5,)), backend="cpu")


def test_a_host_signal_to_a_convolver_run_is_a_type_error():
    class Unbuilt(parasol.fftconv.Convolver):
        def __init__(self):  # no device here to plan on: run()'s check comes first anyway
            pass

    with pytest.raises(TypeError, match="signal is a host array; a Convolver runs on device"):
        Unbuilt().run(np.ones(100, np.float32))
