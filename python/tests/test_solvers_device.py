"""tridiag.solve and recurrence.linear on device arrays: PyTorch CUDA tensors in, device arrays
out, on the producer's stream, the inputs read in place and `out` written in place (pointer
identity). The GPU tests skip without PyTorch or a device; the refusals are checked here through
__cuda_array_interface__, which the extension judges before it touches the device."""

import numpy as np
import pytest

import parasol
from test_fftconv_device import FakeDeviceArray
from test_recurrence import loop
from test_tridiag import banded_reference, dominant_systems


def host(y, torch):
    return torch.from_dlpack(y).cpu().numpy()


# ---- on a GPU ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_tridiag_device_matches_scipy(rng, torch, dtype, tolerance):
    a, b, c, d = dominant_systems(rng, 17, 300, dtype)
    x = parasol.tridiag.solve(*(torch.from_numpy(v).cuda() for v in (a, b, c, d)))
    assert x.__dlpack_device__()[0] == 2  # kDLCUDA: the solution stayed on the device
    np.testing.assert_allclose(host(x, torch), banded_reference(a, b, c, d), rtol=0,
                               atol=tolerance)


def test_tridiag_device_writes_out_in_place(rng, torch):
    a, b, c, d = (torch.from_numpy(v).cuda() for v in dominant_systems(rng, 4, 50, np.float64))
    expected = host(parasol.tridiag.solve(a, b, c, d), torch)
    coefficients = [v.data_ptr() for v in (a, b, c)]
    pointer = d.data_ptr()
    x = parasol.tridiag.solve(a, b, c, d, out=d)  # x may be d: the solver allows it
    assert x is d and d.data_ptr() == pointer
    assert [v.data_ptr() for v in (a, b, c)] == coefficients
    np.testing.assert_array_equal(d.cpu().numpy(), expected)


def test_tridiag_device_zero_pivot_names_the_system(torch):
    zeros = torch.zeros((3, 8), dtype=torch.float64, device="cuda")
    with pytest.raises(RuntimeError, match="system 0"):
        parasol.tridiag.solve(zeros, zeros, zeros, torch.ones_like(zeros))


@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_recurrence_device_matches_the_loop(rng, torch, dtype, tolerance):
    s = rng.uniform(-0.99, 0.99, (5, 3000)).astype(dtype)
    u = rng.normal(size=(5, 3000)).astype(dtype)
    v0 = np.array([0.5, -1.0, 2.0, 0.0, 3.0])
    v = parasol.recurrence.linear(torch.from_numpy(s).cuda(), torch.from_numpy(u).cuda(), v0)
    assert v.__dlpack_device__()[0] == 2
    np.testing.assert_allclose(host(v, torch), loop(s, u, v0), rtol=0, atol=tolerance)


def test_recurrence_device_into_u_with_device_v0(rng, torch):
    s = torch.from_numpy(rng.uniform(-0.9, 0.9, (3, 500))).cuda()
    u = torch.from_numpy(rng.normal(size=(3, 500))).cuda()
    v0 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, device="cuda")
    expected = loop(s.cpu().numpy(), u.cpu().numpy(), v0.cpu().numpy())
    pointer = u.data_ptr()
    v = parasol.recurrence.linear(s, u, v0, out=u, mode="reproducible")
    assert v is u and u.data_ptr() == pointer
    np.testing.assert_allclose(u.cpu().numpy(), expected, rtol=0, atol=1e-12)


def test_recurrence_device_runs_on_the_callers_stream(rng, torch):
    s = torch.from_numpy(rng.uniform(-0.9, 0.9, 4000).astype(np.float32)).cuda()
    u = torch.from_numpy(rng.normal(size=4000).astype(np.float32)).cuda()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    v = parasol.recurrence.linear(s, u, 0.0, stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(host(v, torch), loop(s.cpu().numpy(), u.cpu().numpy(), 0.0)[0],
                               rtol=0, atol=1e-4)


# ---- without a device: arrays described by __cuda_array_interface__ ---------------------------

def test_tridiag_refuses_shapes_that_differ():
    with pytest.raises(ValueError, match=r"tridiag\.solve: b: expected the shape of d \(4,\), "
                                         r"got \(5,\)"):
        parasol.tridiag.solve(FakeDeviceArray((4,)), FakeDeviceArray((5,)),
                              FakeDeviceArray((4,)), FakeDeviceArray((4,)))


def test_tridiag_refuses_integers_and_mixed_dtypes():
    with pytest.raises(TypeError, match=r"tridiag\.solve: d has dtype <i8; expected float32"):
        parasol.tridiag.solve(*[FakeDeviceArray((4,))] * 3, FakeDeviceArray((4,), "<i8"))
    with pytest.raises(TypeError, match=r"tridiag\.solve: c has dtype float64 but d has float32"):
        parasol.tridiag.solve(FakeDeviceArray((4,)), FakeDeviceArray((4,)),
                              FakeDeviceArray((4,), "<f8"), FakeDeviceArray((4,)))


def test_tridiag_refuses_a_strided_array_and_a_3d_one():
    with pytest.raises(TypeError, match=r"tridiag\.solve: a is not C-contiguous"):
        parasol.tridiag.solve(FakeDeviceArray((8, 50), strides=(800, 8)),
                              *[FakeDeviceArray((8, 50))] * 3)
    with pytest.raises(ValueError, match=r"tridiag\.solve: d: expected a 1D \[n\] or 2D"):
        parasol.tridiag.solve(*[FakeDeviceArray((2, 3, 4))] * 4)


def test_tridiag_refuses_host_and_device_arrays_together():
    with pytest.raises(TypeError, match=r"tridiag\.solve: a is a host array but d is on a "
                                        r"device"):
        parasol.tridiag.solve(np.ones(4), *[FakeDeviceArray((4,))] * 3)


def test_tridiag_on_the_cpu_backend_refuses_device_arrays():
    with pytest.raises(ValueError, match='tridiag.solve: backend="cpu" cannot take device '
                                         'arrays: d'):
        parasol.tridiag.solve(*[FakeDeviceArray((4,))] * 4, backend="cpu")


def test_host_arrays_take_no_out():
    with pytest.raises(TypeError, match=r"tridiag\.solve: out is for device arrays"):
        parasol.tridiag.solve(*[np.ones(4)] * 4, out=FakeDeviceArray((4,)))
    with pytest.raises(TypeError, match=r"recurrence\.linear: out is for device arrays"):
        parasol.recurrence.linear(np.ones(4), np.ones(4), out=np.ones(4))


def test_recurrence_refusals():
    s = FakeDeviceArray((3, 10))
    with pytest.raises(ValueError, match=r"recurrence\.linear: u: expected the shape of s"):
        parasol.recurrence.linear(s, FakeDeviceArray((3, 11)))
    with pytest.raises(ValueError,
                       match=r"recurrence\.linear: scan mode \"exact\" is not one of"):
        parasol.recurrence.linear(s, s, mode="exact")
    with pytest.raises(ValueError, match=r"recurrence\.linear: v0: expected a number or one per "
                                         r"series \(3\), got 2 values"):
        parasol.recurrence.linear(s, s, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"recurrence\.linear: v0: expected a number or one per "
                                         r"series \(3\), got shape \(2,\)"):
        parasol.recurrence.linear(s, s, FakeDeviceArray((2,)))
    with pytest.raises(TypeError, match=r"recurrence\.linear: v0 is on a device but s and u are "
                                        r"host arrays"):
        parasol.recurrence.linear(np.ones(3), np.ones(3), FakeDeviceArray((1,)))
    with pytest.raises(TypeError, match=r"recurrence\.linear: out is a host array"):
        parasol.recurrence.linear(s, s, out=np.ones((3, 10)))


# ---- the stateful forms ----------------------------------------------------------------------

def test_tridiag_solver_runs_many_times_into_out_without_waiting(rng, torch):
    a, b, c, d = dominant_systems(rng, 9, 130, np.float32)
    solver = parasol.tridiag.Solver(d.shape, dtype="float32")
    assert solver.shape == (9, 130) and solver.dtype == "float32"
    a_d, b_d, c_d, d_d = (torch.from_numpy(v).cuda() for v in (a, b, c, d))
    out = torch.full(d.shape, float("nan"), device="cuda")
    for _ in range(3):  # the workspace is reused; every solve gives the same answer
        x = solver.solve(a_d, b_d, c_d, d_d, out=out)
    solver.check()
    assert x is out
    np.testing.assert_allclose(out.cpu().numpy(), banded_reference(a, b, c, d), rtol=0,
                               atol=1e-5)


def test_tridiag_solver_check_names_the_failed_system(torch):
    solver = parasol.tridiag.Solver((4, 16))
    ones = torch.ones((4, 16), dtype=torch.float64, device="cuda")
    b = ones.clone()
    b[2, 5] = 0.0  # a zero pivot in system 2, where elimination meets it (a = c = 0)
    solver.solve(torch.zeros_like(ones), b, torch.zeros_like(ones), ones)
    with pytest.raises(RuntimeError, match="system 2"):
        solver.check()


def test_recurrence_solver_runs_with_host_and_device_v0(rng, torch):
    s = rng.uniform(-0.9, 0.9, (4, 2000))
    u = rng.normal(size=(4, 2000))
    solver = parasol.recurrence.Solver(s.shape, mode="reproducible")
    s_d, u_d = torch.from_numpy(s).cuda(), torch.from_numpy(u).cuda()
    v = solver.run(s_d, u_d, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(host(v, torch), loop(s, u, [1.0, 2.0, 3.0, 4.0]), rtol=0,
                               atol=1e-12)
    v0 = torch.tensor([-1.0, 0.0, 1.0, 0.5], dtype=torch.float64, device="cuda")
    pointer = u_d.data_ptr()
    w = solver.run(s_d, u_d, v0, out=u_d)
    assert w is u_d and u_d.data_ptr() == pointer
    np.testing.assert_allclose(u_d.cpu().numpy(), loop(s, u, v0.cpu().numpy()), rtol=0,
                               atol=1e-12)


def test_solver_refusals_before_the_device():
    with pytest.raises(ValueError, match=r"tridiag\.Solver: shape: expected \(n,\) or "
                                         r"\(rows, n\)"):
        parasol.tridiag.Solver((2, 3, 4))
    with pytest.raises(TypeError, match=r"tridiag\.Solver: dtype int32; expected float32"):
        parasol.tridiag.Solver((8,), dtype="int32")
    with pytest.raises(ValueError, match=r"recurrence\.Solver: scan mode \"exact\""):
        parasol.recurrence.Solver((8,), mode="exact")
    with pytest.raises(ValueError, match=r"recurrence\.Solver: shape"):
        parasol.recurrence.Solver((0, 8))


def test_a_solver_takes_device_arrays_only():
    class Unbuilt(parasol.tridiag.Solver):
        def __init__(self):  # no device here to make it on: the check comes first anyway
            pass

    with pytest.raises(TypeError, match=r"tridiag\.Solver\.solve: the arrays are host arrays"):
        Unbuilt().solve(*[np.ones(4)] * 4)

    class UnbuiltRecurrence(parasol.recurrence.Solver):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match=r"recurrence\.Solver\.run: s and u are host arrays"):
        UnbuiltRecurrence().run(np.ones(4), np.ones(4))
