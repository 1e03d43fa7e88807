"""pyad.fft against torch.fft on the same inputs: values, dtypes, gradients of real
losses (including the Hermitian handling of rfft/irfft/hfft), gradcheck and
gradgradcheck in float64, argument handling and error types."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2026)


def _data(shape, complex_, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if complex_:
        a = a + 1j * RNG.standard_normal(shape)
        return a.astype(np.complex64 if dtype == np.float32 else np.complex128)
    return a.astype(dtype)


# (name, f(M, x) with M = pyad.fft or torch.fft, input shape, complex input)
CASES = [
    ("fft_real", lambda M, x: M.fft(x), (5,), False),
    ("fft_complex", lambda M, x: M.fft(x), (3, 6), True),
    ("fft_n_pad_dim0", lambda M, x: M.fft(x, n=7, dim=0), (4, 3), True),
    ("fft_n_trim_ortho", lambda M, x: M.fft(x, n=3, norm="ortho"), (2, 5), False),
    ("fft_forward_norm", lambda M, x: M.fft(x, norm="forward"), (6,), True),
    ("ifft_real", lambda M, x: M.ifft(x), (2, 5), False),
    ("ifft_complex_n", lambda M, x: M.ifft(x, n=8, norm="ortho"), (3, 6), True),
    ("ifft_forward_norm", lambda M, x: M.ifft(x, norm="forward"), (4,), True),
    ("rfft_even", lambda M, x: M.rfft(x), (2, 6), False),
    ("rfft_odd_dim0", lambda M, x: M.rfft(x, dim=0), (7, 2), False),
    ("rfft_n_ortho", lambda M, x: M.rfft(x, n=9, norm="ortho"), (5,), False),
    ("rfft_forward", lambda M, x: M.rfft(x, n=4, norm="forward"), (6,), False),
    ("irfft_default", lambda M, x: M.irfft(x), (2, 4), True),
    ("irfft_odd_n", lambda M, x: M.irfft(x, n=7), (4,), True),
    ("irfft_even_n_ortho", lambda M, x: M.irfft(x, n=6, norm="ortho"), (3, 4), True),
    ("irfft_pad_forward", lambda M, x: M.irfft(x, n=12, dim=0, norm="forward"), (3, 2), True),
    ("irfft_real_input", lambda M, x: M.irfft(x, n=5), (3,), False),
    ("hfft_default", lambda M, x: M.hfft(x), (2, 4), True),
    ("hfft_odd_ortho", lambda M, x: M.hfft(x, n=5, norm="ortho"), (4,), True),
    ("hfft_forward", lambda M, x: M.hfft(x, n=8, norm="forward"), (3,), True),
    ("ihfft", lambda M, x: M.ihfft(x), (2, 6), False),
    ("ihfft_n_ortho", lambda M, x: M.ihfft(x, n=5, norm="ortho"), (4,), False),
    ("fft2_real", lambda M, x: M.fft2(x), (2, 3, 4), False),
    ("fft2_complex_s", lambda M, x: M.fft2(x, s=(4, 2)), (3, 3), True),
    ("ifft2_ortho", lambda M, x: M.ifft2(x, norm="ortho"), (3, 4), True),
    ("rfft2", lambda M, x: M.rfft2(x), (3, 4), False),
    ("rfft2_s_dims", lambda M, x: M.rfft2(x, s=(5, 3), dim=(0, 2)), (4, 2, 4), False),
    ("irfft2", lambda M, x: M.irfft2(x), (3, 3), True),
    ("irfft2_s_odd", lambda M, x: M.irfft2(x, s=(4, 5), norm="forward"), (3, 3), True),
    ("fftn_all", lambda M, x: M.fftn(x), (2, 3, 4), True),
    ("fftn_s_only", lambda M, x: M.fftn(x, s=(3, 5)), (2, 4, 4), False),
    ("fftn_s_minus_one", lambda M, x: M.fftn(x, s=(-1, 2), dim=(2, 0)), (3, 2, 4), True),
    ("ifftn_dim", lambda M, x: M.ifftn(x, dim=(0, -1), norm="forward"), (2, 3, 4), True),
    ("rfftn_all", lambda M, x: M.rfftn(x), (2, 3, 4), False),
    ("rfftn_dims_unsorted", lambda M, x: M.rfftn(x, dim=(2, 0), norm="ortho"), (3, 2, 5), False),
    ("irfftn_all", lambda M, x: M.irfftn(x), (2, 3, 3), True),
    ("irfftn_s", lambda M, x: M.irfftn(x, s=(3, 7)), (2, 4, 3), True),
    ("irfftn_s_last_default", lambda M, x: M.irfftn(x, s=(2, -1), norm="ortho"), (3, 4), True),
    ("hfftn", lambda M, x: M.hfftn(x), (3, 3), True),
    ("hfft2_s", lambda M, x: M.hfft2(x, s=(2, 5)), (2, 3, 3), True),
    ("ihfftn", lambda M, x: M.ihfftn(x), (3, 4), False),
    ("ihfft2_ortho", lambda M, x: M.ihfft2(x, norm="ortho"), (2, 3, 5), False),
    ("fft_then_ifft", lambda M, x: M.ifft(M.fft(x) * M.fft(x)), (6,), False),
    ("irfft_of_rfft", lambda M, x: M.irfft(M.rfft(x) * M.rfft(x), n=7), (7,), False),
]
IDS = [c[0] for c in CASES]


def _weights(shape, complex_):
    # fixed weights for a real loss that depends on every output part
    rng = np.random.default_rng(abs(hash(shape)) % (2 ** 32))
    w = rng.standard_normal(shape)
    return (w + 1j * rng.standard_normal(shape)) if complex_ else w


def _loss_pyad(y, w):
    if y.dtype.kind == "c":
        return (y.real * pyad.as_tensor(w.real.astype(y.real.dtype))).sum() + (
            y.imag * pyad.as_tensor(w.imag.astype(y.real.dtype))).sum() + (y.abs() ** 2).sum()
    return (y * pyad.as_tensor(w.real.astype(y.dtype))).sum() + (y ** 2).sum()


def _loss_torch(y, w):
    if y.is_complex():
        rd = y.real.dtype
        return ((y.real * torch.tensor(w.real).to(rd)).sum()
                + (y.imag * torch.tensor(w.imag).to(rd)).sum() + (y.abs() ** 2).sum())
    return (y * torch.tensor(w.real).to(y.dtype)).sum() + (y ** 2).sum()


def _tol(dtype):
    return (1e-4, 1e-4) if dtype in (np.float32, np.complex64) else (1e-10, 1e-10)


def _compare(f, a, transpose=False):
    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a.copy(), requires_grad=True)
    xin, tin = (x.mT, t.mT) if transpose else (x, t)
    y = f(pyad.fft, xin)
    yt = f(torch.fft, tin)
    assert str(yt.dtype).split(".")[1] == str(y.dtype)
    assert tuple(y.shape) == tuple(yt.shape)
    rtol, atol = _tol(a.dtype)
    np.testing.assert_allclose(y.data, yt.detach().resolve_conj().numpy(), rtol=rtol, atol=atol)
    w = _weights(tuple(y.shape), y.dtype.kind == "c")
    _loss_pyad(y, w).backward()
    _loss_torch(yt, w).backward()
    assert x.grad.dtype == a.dtype
    np.testing.assert_allclose(x.grad.data, t.grad.resolve_conj().numpy(), rtol=rtol * 10,
                               atol=atol * 10)


@pytest.mark.parametrize("name,f,shape,complex_", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_and_gradients_vs_torch(name, f, shape, complex_, dtype):
    _compare(f, _data(shape, complex_, dtype))


@pytest.mark.parametrize("name,f,shape,complex_", [c for c in CASES if len(c[2]) >= 2],
                         ids=[c[0] for c in CASES if len(c[2]) >= 2])
def test_non_contiguous_vs_torch(name, f, shape, complex_):
    # the transposed view of a (..., b, a) array: the op sees `shape`, non-contiguous
    s = shape[:-2] + (shape[-1], shape[-2])
    _compare(f, _data(s, complex_), transpose=True)


@pytest.mark.parametrize("name,f,shape,complex_", CASES, ids=IDS)
def test_gradcheck_gradgradcheck(name, f, shape, complex_):
    x = pyad.Variable(_data(shape, complex_), requires_grad=True)
    fn = lambda v: f(pyad.fft, v)   # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_abs_loss_real_input_vs_torch():
    a = _data((3, 8), False)
    for name in ("fft", "rfft", "ihfft", "fft2", "rfftn"):
        x = pyad.Variable(a.copy(), requires_grad=True)
        t = torch.tensor(a.copy(), requires_grad=True)
        getattr(pyad.fft, name)(x).abs().sum().backward()
        getattr(torch.fft, name)(t).abs().sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
        x = pyad.Variable(a.copy(), requires_grad=True)
        t = torch.tensor(a.copy(), requires_grad=True)
        (getattr(pyad.fft, name)(x).real ** 2).sum().backward()
        (getattr(torch.fft, name)(t).real ** 2).sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


def test_irfft_hermitian_gradient_non_hermitian_input():
    # imaginary parts of the DC/Nyquist entries are ignored by the value, and the
    # gradient is torch's (doubled interior entries, nothing for the ignored parts)
    a = _data((5,), True)
    for n in (8, 9):
        x = pyad.Variable(a.copy(), requires_grad=True)
        t = torch.tensor(a.copy(), requires_grad=True)
        y, yt = pyad.fft.irfft(x, n=n), torch.fft.irfft(t, n=n)
        np.testing.assert_allclose(y.data, yt.detach().resolve_conj().numpy(), rtol=1e-12,
                                   atol=1e-12)
        w = RNG.standard_normal(n)
        (y * pyad.as_tensor(w)).sum().backward()
        (yt * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_integer_and_bool_inputs_promote():
    for a in (np.arange(6), np.array([True, False, True])):
        y = pyad.fft.fft(pyad.as_tensor(a))
        yt = torch.fft.fft(torch.tensor(a))
        assert y.dtype == np.complex64 and yt.dtype == torch.complex64
        np.testing.assert_allclose(y.data, yt.numpy(), rtol=1e-6, atol=1e-6)
    y = pyad.fft.irfft(pyad.as_tensor(np.arange(4)))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.data, torch.fft.irfft(torch.arange(4)).numpy(), atol=1e-6)


def test_numpy_input_and_zero_d():
    a = _data((4,), True)
    np.testing.assert_allclose(pyad.fft.fft(a).data, torch.fft.fft(torch.tensor(a)).numpy())
    z = np.array(1.5)
    y, yt = pyad.fft.fftn(z), torch.fft.fftn(torch.tensor(z))
    assert y.shape == () and y.dtype == np.complex128 and yt.shape == ()
    assert y.item() == yt.item()
    y, yt = pyad.fft.fftn(_data((2, 3), False), dim=()), torch.fft.fftn(torch.ones(2, 3), dim=())
    assert y.shape == (2, 3) and y.dtype.kind == "c" and tuple(yt.shape) == (2, 3)


def test_empty_batch():
    a = np.zeros((0, 4))
    y = pyad.fft.rfft(pyad.Variable(a, requires_grad=True))
    assert y.shape == (0, 3) and y.dtype == np.complex128
    y = pyad.fft.irfft(pyad.Variable(np.zeros((0, 3), np.complex64)))
    assert y.shape == (0, 4) and y.dtype == np.float32


def test_float32_stays_single():
    a = _data((2, 6), False, np.float32)
    assert pyad.fft.fft(a).dtype == np.complex64
    assert pyad.fft.rfftn(a).dtype == np.complex64
    assert pyad.fft.irfft(pyad.fft.rfft(a)).dtype == np.float32
    assert pyad.fft.hfft(_data((4,), True, np.float32)).dtype == np.float32


@pytest.mark.parametrize("call,exc", [
    (lambda M, x: M.fft(x, norm="bad"), RuntimeError),
    (lambda M, x: M.fft(x, n=0), RuntimeError),
    (lambda M, x: M.fft(x, n=-2), RuntimeError),
    (lambda M, x: M.fft(x, dim=2), IndexError),
    (lambda M, x: M.fft(x, dim=-3), IndexError),
    (lambda M, x: M.rfft(x.to(M is torch.fft and torch.complex64 or np.complex64)),
     RuntimeError),
    (lambda M, x: M.ihfft(x.to(M is torch.fft and torch.complex128 or np.complex128)),
     RuntimeError),
    (lambda M, x: M.rfftn(x.to(M is torch.fft and torch.complex128 or np.complex128)),
     RuntimeError),
    (lambda M, x: M.fftn(x, s=(3,), dim=(0, 1)), RuntimeError),
    (lambda M, x: M.fftn(x, dim=(0, 0)), RuntimeError),
    (lambda M, x: M.fftn(x, s=(2, 2, 2)), RuntimeError),
    (lambda M, x: M.fftn(x, s=(0, 2)), RuntimeError),
    (lambda M, x: M.fft2(x[0]), IndexError),
    (lambda M, x: M.rfftn(x, dim=()), RuntimeError),
    (lambda M, x: M.irfft(x[:, :1]), RuntimeError),
    (lambda M, x: M.irfftn(x, s=(2, 0)), RuntimeError),
    (lambda M, x: M.fft(x[0, 0]), IndexError),
    (lambda M, x: M.fft(x, dim=(0,)), TypeError),
    (lambda M, x: M.fft(x, norm=1), TypeError),
    (lambda M, x: M.fft(x, n=2.0), TypeError),
])
def test_errors_match_torch(call, exc):
    a = _data((4, 6), False)
    with pytest.raises(exc):
        call(torch.fft, torch.tensor(a))
    with pytest.raises(exc):
        call(pyad.fft, pyad.Variable(a))


def test_error_messages_name_the_function():
    with pytest.raises(RuntimeError, match="rfft expects a real input"):
        pyad.fft.rfft(np.ones(3, np.complex128))
    with pytest.raises(RuntimeError, match=r"fft\(\): Invalid number of data points \(0\)"):
        pyad.fft.fft(np.ones(3), n=0)
    with pytest.raises(IndexError, match=r"ifft\(\): Dimension out of range"):
        pyad.fft.ifft(np.ones(3), dim=1)
    with pytest.raises(RuntimeError, match="Invalid normalization mode"):
        pyad.fft.fft(np.ones(3), norm="nope")


@pytest.mark.parametrize("n", [0, 1, 4, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1, 3])
def test_fftfreq_rfftfreq(n, d):
    for name in ("fftfreq", "rfftfreq"):
        y, yt = getattr(pyad.fft, name)(n, d), getattr(torch.fft, name)(n, d)
        assert y.dtype == np.float32 and y.shape == tuple(yt.shape)
        np.testing.assert_array_equal(y.data, yt.numpy())
        y = getattr(pyad.fft, name)(n, d, dtype=pyad.float64)
        yt = getattr(torch.fft, name)(n, d, dtype=torch.float64)
        assert y.dtype == np.float64
        np.testing.assert_array_equal(y.data, yt.numpy())


def test_fftfreq_options_and_errors():
    y = pyad.fft.fftfreq(4, dtype=pyad.float64, requires_grad=True)
    assert y.requires_grad and y.is_leaf and y.dtype == np.float64
    y = pyad.fft.rfftfreq(4, device="cpu")
    assert str(y.device) == "cpu" and not y.requires_grad
    with pytest.raises(NotImplementedError):
        torch.fft.fftfreq(4, dtype=torch.complex64)
    with pytest.raises(NotImplementedError):
        pyad.fft.fftfreq(4, dtype=pyad.complex64)
    for name in ("fftfreq", "rfftfreq"):
        with pytest.raises(RuntimeError):
            getattr(torch.fft, name)(5, dtype=torch.int64)
        with pytest.raises(RuntimeError, match="floating point or complex dtype"):
            getattr(pyad.fft, name)(5, dtype=pyad.int64)
        with pytest.raises(TypeError):
            getattr(torch.fft, name)(5.0)
        with pytest.raises(TypeError):
            getattr(pyad.fft, name)(5.0)
        with pytest.raises(RuntimeError):
            getattr(torch.fft, name)(-4)
        with pytest.raises(RuntimeError):
            getattr(pyad.fft, name)(-4)
    for n in (-1, -2, -3):
        y, yt = pyad.fft.rfftfreq(n), torch.fft.rfftfreq(n)
        np.testing.assert_array_equal(y.data, yt.numpy())
        assert np.signbit(y.data).tolist() == np.signbit(yt.numpy()).tolist()


@pytest.mark.parametrize("shape,dim", [((5,), None), ((4, 5), None), ((4, 5), 1),
                                       ((3, 4, 5), (0, 2)), ((4, 5), -2)])
def test_fftshift_ifftshift(shape, dim):
    a = RNG.standard_normal(shape)
    for name in ("fftshift", "ifftshift"):
        x = pyad.Variable(a.copy(), requires_grad=True)
        t = torch.tensor(a.copy(), requires_grad=True)
        y, yt = getattr(pyad.fft, name)(x, dim=dim), getattr(torch.fft, name)(t, dim=dim)
        np.testing.assert_array_equal(y.data, yt.detach().resolve_conj().numpy())
        w = RNG.standard_normal(shape)
        (y * pyad.as_tensor(w)).sum().backward()
        (yt * torch.tensor(w)).sum().backward()
        np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    x = pyad.Variable(a, requires_grad=True)
    assert gradgradcheck(lambda v: pyad.fft.fftshift(v, dim=dim) ** 2, (x,))
    with pytest.raises(IndexError):
        torch.fft.fftshift(torch.tensor(a), dim=len(shape))
    with pytest.raises(IndexError):
        pyad.fft.fftshift(a, dim=len(shape))


def test_shift_errors_match_torch():
    for dim in ((), None):
        with pytest.raises(RuntimeError):
            torch.fft.fftshift(torch.ones(()) if dim is None else torch.ones(2), dim=dim)
        with pytest.raises(RuntimeError, match="fftshift"):
            pyad.fft.fftshift(pyad.ones(()) if dim is None else pyad.ones(2), dim=dim)
    with pytest.raises(IndexError):
        torch.fft.ifftshift(torch.ones(()), dim=0)
    with pytest.raises(IndexError):
        pyad.fft.ifftshift(pyad.ones(()), dim=0)


def test_shift_round_trip_and_freq_order():
    for n in (4, 5):
        f = pyad.fft.fftfreq(n)
        np.testing.assert_array_equal(pyad.fft.ifftshift(pyad.fft.fftshift(f)).data, f.data)
        np.testing.assert_array_equal(pyad.fft.fftshift(f).data,
                                      torch.fft.fftshift(torch.fft.fftfreq(n)).numpy())


def test_second_order_vs_torch():
    a = _data((6,), False)
    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a.copy(), requires_grad=True)
    y = (pyad.fft.rfft(x).abs() ** 3).sum()
    yt = (torch.fft.rfft(t).abs() ** 3).sum()
    g, = pyad.autograd.grad(y, x, create_graph=True)
    gt, = torch.autograd.grad(yt, t, create_graph=True)
    np.testing.assert_allclose(g.data, gt.detach().numpy(), rtol=1e-10)
    (g ** 2).sum().backward()
    (gt ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-9)


def test_namespace():
    assert pyad.fft.__name__ == "pyad.fft"
    for name in pyad.fft.__all__:
        assert hasattr(torch.fft, name), name
        assert callable(getattr(pyad.fft, name))


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
       "irfftn", "hfftn", "ihfftn"]


def _random_call(rng):
    name = str(rng.choice(ONE_D + N_D))
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(v) for v in rng.integers(1, 6, ndim))
    a = rng.standard_normal(shape)
    if rng.random() < 0.5:
        a = a + 1j * rng.standard_normal(shape)
    kw = {"norm": [None, "backward", "ortho", "forward"][int(rng.integers(0, 4))]}
    if name in ONE_D:
        if rng.random() < 0.5:
            kw["n"] = int(rng.integers(1, 8))
        if rng.random() < 0.5:
            kw["dim"] = int(rng.integers(-ndim, ndim))
    elif rng.random() < 0.5:
        k = 2 if name.endswith("2") else int(rng.integers(1, ndim + 1))
        if k <= ndim:
            kw["s"] = tuple(int(v) for v in rng.integers(1, 7, k))
            if rng.random() < 0.5:
                kw["dim"] = tuple(int(v) for v in rng.permutation(ndim)[:k])
    elif rng.random() < 0.5 and not name.endswith("2"):
        k = int(rng.integers(1, ndim + 1))
        kw["dim"] = tuple(int(v) for v in rng.permutation(ndim)[:k])
    return name, a, kw


@pytest.mark.parametrize("seed", range(4))
def test_random_calls_match_torch(seed):
    """Random transforms, shapes, n/s/dim/norm and input kinds: the same error type, or
    the same values and gradients of a real loss, as torch."""
    rng = np.random.default_rng(seed)
    for _ in range(60):
        name, a, kw = _random_call(rng)
        x = pyad.Variable(a.copy(), requires_grad=True)
        t = torch.tensor(a.copy(), requires_grad=True)
        try:
            yt = getattr(torch.fft, name)(t, **kw)
        except Exception as exc:  # noqa: BLE001 -- the type is what is compared
            with pytest.raises(type(exc)):
                getattr(pyad.fft, name)(x, **kw)
            continue
        y = getattr(pyad.fft, name)(x, **kw)
        assert str(y.dtype) == _tdtype_fft(yt) and tuple(y.shape) == tuple(yt.shape)
        np.testing.assert_allclose(y.data, yt.detach().resolve_conj().numpy(), rtol=1e-9,
                                   atol=1e-10, err_msg="%s %s" % (name, kw))
        w = rng.standard_normal(tuple(y.shape))
        (y.abs() * pyad.as_tensor(w) + (y.real if y.dtype.kind == "c" else y)).sum().backward()
        (yt.abs() * torch.tensor(w) + (yt.real if yt.is_complex() else yt)).sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.resolve_conj().numpy(), rtol=1e-7,
                                   atol=1e-8, err_msg="%s %s" % (name, kw))


def _tdtype_fft(t):
    return str(t.dtype).split(".")[1]
