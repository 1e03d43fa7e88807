"""pyad.stft / pyad.istft (and the Variable methods) against torch.stft / torch.istft
(torch 2.13) on the same float64 inputs: values for odd and even n_fft, hops that do not
divide the length, short windows, both padding modes, normalized, two-sided and complex
signals, batched 2-D input; gradients by gradcheck (first and second order) and against
torch's; torch's errors and warnings."""
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X1 = RNG.standard_normal(37)
X2 = RNG.standard_normal((3, 29))


def _both(x):
    return torch.tensor(x), pyad.tensor(x)


def _win(kind, n):
    if kind is None:
        return None, None
    t = getattr(torch, kind + "_window")(n, dtype=torch.float64)
    return t, pyad.tensor(t.numpy())


def _close(p, t, tol=1e-12):
    np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


STFT_CASES = [
    # n_fft, hop, win_length, window, center, pad_mode, normalized, onesided
    (8, None, None, "hann", True, "reflect", False, None),
    (9, 4, None, "hann", True, "reflect", False, None),
    (8, 3, 6, "hamming", True, "constant", False, None),
    (7, 5, 5, "hann", False, "reflect", True, None),
    (10, 3, None, None, True, "reflect", False, False),
    (6, 1, 3, None, True, "constant", True, None),
    (16, 7, 11, "blackman", False, "reflect", False, False),
]


@pytest.mark.parametrize("x", [X1, X2], ids=["1d", "2d"])
@pytest.mark.parametrize("case", STFT_CASES)
def test_stft_values(x, case):
    n_fft, hop, win_length, window, center, pad_mode, normalized, onesided = case
    tw, pw = _win(window, win_length or n_fft)
    tx, px = _both(x)
    kw = dict(hop_length=hop, win_length=win_length, center=center, pad_mode=pad_mode,
              normalized=normalized, onesided=onesided, return_complex=True)
    t = torch.stft(tx, n_fft, window=tw, **kw)
    p = pyad.stft(px, n_fft, window=pw, **kw)
    assert tuple(p.shape) == tuple(t.shape)
    assert p.dtype == pyad.complex128
    _close(p, t)
    _close(px.stft(n_fft, window=pw, **kw), t)


def test_stft_complex_input_and_window():
    z = X1 + 1j * RNG.standard_normal(37)
    tz, pz = _both(z)
    for n_fft, hop in ((8, 3), (9, 2)):
        _close(pyad.stft(pz, n_fft, hop, return_complex=True),
               torch.stft(tz, n_fft, hop, return_complex=True))
    cw = np.hanning(8) * np.exp(0.3j * np.arange(8))
    tx, px = _both(X2)
    t = torch.stft(tx, 8, 2, window=torch.tensor(cw))          # return_complex inferred
    p = pyad.stft(px, 8, 2, window=pyad.tensor(cw))
    assert tuple(p.shape) == tuple(t.shape) == (3, 8, 15)
    _close(p, t)


def test_stft_return_complex_false_returns_real_view():
    tx, px = _both(X1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.stft(tx, 8, return_complex=False)
        p = pyad.stft(px, 8, return_complex=False)
    assert tuple(p.shape) == tuple(t.shape) and p.dtype == pyad.float64
    _close(p, t)


@pytest.mark.parametrize("call,exc,match", [
    (lambda lib, x: lib.stft(x, 8), RuntimeError,
     "stft requires the return_complex parameter be given for real inputs"),
    (lambda lib, x: lib.stft(x, 60, center=False, return_complex=True), RuntimeError,
     r"expected 0 < n_fft < 37, but got n_fft=60"),
    (lambda lib, x: lib.stft(x, 0, return_complex=True), RuntimeError,
     r"expected 0 < n_fft < 37, but got n_fft=0"),
    (lambda lib, x: lib.stft(x, 8, hop_length=0, return_complex=True), RuntimeError,
     "expected hop_length > 0, but got hop_length=0"),
    (lambda lib, x: lib.stft(x, 8, win_length=9, return_complex=True), RuntimeError,
     r"expected 0 < win_length <= n_fft, but got win_length=9"),
    (lambda lib, x: lib.stft(x, 8, win_length=6, window=lib.ones(5, dtype=x.dtype),
                             return_complex=True), RuntimeError,
     "expected a 1D window .* of size equal to win_length=6, but got window with size"),
    (lambda lib, x: lib.stft(x, 8, pad_mode="bogus", return_complex=True),
     NotImplementedError, "Unrecognised padding mode bogus"),
    (lambda lib, x: lib.stft(x.reshape(1, 1, 37), 8, return_complex=True), RuntimeError,
     "expected a 1D or 2D"),
    (lambda lib, x: lib.stft(x.to(lib.complex128), 8, onesided=True, return_complex=True),
     RuntimeError, "Cannot have onesided output if window or input is complex"),
    (lambda lib, x: lib.stft(lib.arange(20), 8, return_complex=True), RuntimeError,
     "expected a .* of floating point or complex values"),
])
def test_stft_errors(call, exc, match):
    tx, px = _both(X1)
    with pytest.raises(exc, match=match):
        call(torch, tx)
    with pytest.raises(exc, match=match):
        call(pyad, px)


ISTFT_CASES = [
    # n_fft, hop, win_length, window, center, normalized, length
    (8, 2, None, "hann", True, False, None),
    (9, 3, None, "hann", True, False, None),
    (8, 3, 6, "hann", True, True, None),
    (10, 4, None, "hamming", False, False, None),
    (8, 2, None, "hann", True, False, 30),
    (8, 2, None, "hann", True, False, 41),     # longer than the signal: zero tail
    (7, 2, None, None, True, False, None),
]


@pytest.mark.parametrize("x", [X1, X2], ids=["1d", "2d"])
@pytest.mark.parametrize("case", ISTFT_CASES)
def test_istft_values(x, case):
    n_fft, hop, win_length, window, center, normalized, length = case
    tw, pw = _win(window, win_length or n_fft)
    tx, px = _both(x)
    ts = torch.stft(tx, n_fft, hop, win_length, tw, center=center, normalized=normalized,
                    return_complex=True)
    ps = pyad.tensor(ts.numpy())
    kw = dict(hop_length=hop, win_length=win_length, center=center, normalized=normalized,
              length=length)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.istft(ts, n_fft, window=tw, **kw)
        p = pyad.istft(ps, n_fft, window=pw, **kw)
        pm = ps.istft(n_fft, window=pw, **kw)
    assert tuple(p.shape) == tuple(t.shape) and p.dtype == pyad.float64
    _close(p, t, 1e-10)
    _close(pm, t, 1e-10)
    if center and length is None:     # the round trip is lossless
        _close(p, tx[..., :p.shape[-1]], 1e-10)


def test_istft_two_sided_and_return_complex():
    tw, pw = _win("hann", 8)
    tx, px = _both(X2)
    ts = torch.stft(tx, 8, 2, window=tw, onesided=False, return_complex=True)
    ps = pyad.tensor(ts.numpy())
    _close(pyad.istft(ps, 8, 2, window=pw), torch.istft(ts, 8, 2, window=tw), 1e-10)
    t = torch.istft(ts, 8, 2, window=tw, return_complex=True)
    p = pyad.istft(ps, 8, 2, window=pw, return_complex=True)
    assert p.dtype == pyad.complex128
    _close(p, t, 1e-10)


_WARNING_SCRIPT = """
import warnings, {lib}
w = {lib}.ones(4, dtype={lib}.float64)
x = {lib}.ones(16, dtype=w.dtype)
with warnings.catch_warnings(record=True) as r:
    warnings.simplefilter("always")
    for _ in range(2):
        {lib}.stft(x, 4, return_complex=True)
        {lib}.stft(x, 4, window=w, return_complex=True)
        {lib}.stft(x, 4, window=w, return_complex=False)
        s = {lib}.stft(x, 4, window=w, return_complex=True)
        {lib}.istft(s, 4)
        {lib}.istft(s, 4, window=w)
        {lib}.istft(s, 4, window=w, length=30)
        {lib}.istft(s, 4, window=w, length=10)
for m in r:
    print(m.category.__name__, str(m.message).split("): ", 1)[-1][:50])
"""

KEY_PHRASES = ["A window was not provided. A rectangular window will be applied,which",
               "stft with return_complex=False is deprecated",
               "A window was not provided. A rectangular window will be applied.Please",
               "The length of signal is shorter than the length parameter"]


def test_warnings_once_per_process_as_torch():
    # torch's TORCH_WARN_ONCE: each of these warnings is given once per process; run in
    # fresh interpreters because the test session may have given them already
    import os
    import subprocess
    import sys
    outs = []
    # run where the imported pyad lives (the checkout in development, site-packages in
    # CI), so `python -c` imports the same pyad and not an unbuilt tree
    where = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
    for lib in ("torch", "pyad"):
        out = subprocess.run([sys.executable, "-c", _WARNING_SCRIPT.format(lib=lib)],
                             capture_output=True, text=True, check=True, cwd=where).stdout
        outs.append([line.split(" ", 1)[0] + " " + line.split(" ", 1)[1][:40]
                     for line in out.splitlines()])
    assert outs[0] == outs[1]
    assert len(outs[0]) == 4
    joined = "\n".join(outs[1])
    for phrase in KEY_PHRASES:
        assert phrase[:40] in joined


def test_istft_length_pads_zeros():
    tx, px = _both(X1)
    ones_t, ones_p = torch.ones(8, dtype=torch.float64), pyad.ones(8, dtype=pyad.float64)
    ts = torch.stft(tx, 8, 2, window=ones_t, return_complex=True)
    ps = pyad.tensor(ts.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.istft(ts, 8, 2, window=ones_t, length=50)
        p = pyad.istft(ps, 8, 2, window=ones_p, length=50)
    assert tuple(p.shape) == (50,)
    _close(p, t, 1e-10)


@pytest.mark.parametrize("call,match", [
    (lambda lib, s, w: lib.istft(s.real, 8, 2, window=w),
     "istft requires a complex-valued input"),
    (lambda lib, s, w: lib.istft(s, 8, 2, window=w, center=False),
     "window overlap add min"),
    (lambda lib, s, w: lib.istft(s, 8, 2, window=w, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    (lambda lib, s, w: lib.istft(s, 8, 2, window=w, onesided=False),
     "to match n_fft when onesided=False, but got 5"),
    (lambda lib, s, w: lib.istft(s, 7, 1, window=w[:7]),
     r"to match n_fft / 2 \+ 1 when onesided=True, but got 5"),
    (lambda lib, s, w: lib.istft(s, 8, 0, window=w), r"expected 0 < hop_length <= win_length"),
    (lambda lib, s, w: lib.istft(s, 8, 2, 9, window=w), r"expected 0 < win_length <= n_fft"),
    (lambda lib, s, w: lib.istft(s, 8, 2, window=w[:7]), "Invalid window shape"),
    (lambda lib, s, w: lib.istft(s[None, None], 8, 2, window=w), "expected a"),
])
def test_istft_errors(call, match):
    tx, _ = _both(X1)
    tw, pw = _win("hann", 8)
    ts = torch.stft(tx, 8, 2, window=tw, return_complex=True)
    ps = pyad.tensor(ts.numpy())
    with pytest.raises(RuntimeError, match=match):
        call(torch, ts, tw)
    with pytest.raises(RuntimeError, match=match):
        call(pyad, ps, pw)


def _stft_fn(lib, x, w, **kw):
    return lib.stft(x, 7, 3, window=w, return_complex=True, **kw)


@pytest.mark.parametrize("center,pad_mode", [(True, "reflect"), (True, "constant"),
                                             (False, "reflect")])
def test_stft_gradcheck(center, pad_mode):
    x = pyad.tensor(RNG.standard_normal((2, 17)), requires_grad=True)
    w = pyad.tensor(RNG.standard_normal(7), requires_grad=True)

    def f(x, w):
        return pyad.view_as_real(pyad.stft(x, 7, 3, window=w, center=center,
                                           pad_mode=pad_mode, normalized=True,
                                           return_complex=True))
    assert pyad.autograd.gradcheck(f, (x, w))
    assert pyad.autograd.gradgradcheck(f, (x, w))


def test_istft_gradcheck():
    w = pyad.tensor(np.hanning(9)[:8] + 0.1, requires_grad=True)
    s = pyad.tensor(torch.stft(torch.tensor(X1[:25]), 8, 2, return_complex=True,
                               window=torch.tensor(w.detach().numpy())).numpy(),
                    requires_grad=True)

    def f(s, w):
        return pyad.istft(s, 8, 2, window=w, length=23)
    assert pyad.autograd.gradcheck(f, (s, w))
    assert pyad.autograd.gradgradcheck(f, (s, w))


def test_gradients_match_torch():
    g = RNG.standard_normal((3, 5, 10, 2))
    out = []
    for lib in (torch, pyad):
        x = lib.tensor(X2, requires_grad=True)
        w = lib.tensor(np.hanning(8) + 0.2, requires_grad=True)
        spec = lib.stft(x, 8, 3, window=w, return_complex=True)
        (lib.view_as_real(spec) * lib.tensor(g)).sum().backward(retain_graph=True)
        rec = lib.istft(spec, 8, 3, window=w, length=29)
        xg, wg = x.grad.numpy().copy(), w.grad.numpy().copy()
        x.grad = None
        w.grad = None
        (rec * lib.tensor(X2[::-1].copy())).sum().backward()
        out.append((xg, wg, x.grad.numpy(), w.grad.numpy(), rec.detach().numpy()))
    for a, b in zip(out[0], out[1]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)


def test_stft_and_istft_in_namespaces():
    assert "stft" in pyad.__all__ and "istft" in pyad.__all__
    assert pyad.functional.stft is pyad.stft and pyad.functional.istft is pyad.istft


@pytest.mark.parametrize("window_dtype", ["float32", "float64", None])
def test_stft_istft_float32_and_mixed_window_dtypes(window_dtype):
    x = X1.astype(np.float32)
    tw = None if window_dtype is None else torch.hann_window(8, dtype=getattr(torch,
                                                                              window_dtype))
    pw = None if tw is None else pyad.tensor(tw.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.stft(torch.tensor(x), 8, 2, window=tw, return_complex=True)
        p = pyad.stft(pyad.tensor(x), 8, 2, window=pw, return_complex=True)
        assert str(p.dtype) == str(t.dtype).replace("torch.", "")
        _close(p, t, 1e-5)
        ti = torch.istft(t, 8, 2, window=tw)
        pi = pyad.istft(pyad.tensor(t.numpy()), 8, 2, window=pw)
    assert str(pi.dtype) == str(ti.dtype).replace("torch.", "")
    _close(pi, ti, 1e-5)
