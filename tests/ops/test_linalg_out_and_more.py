"""pyad.linalg's ``out=`` (every function whose torch.linalg counterpart takes it) and the
functions added to match torch.linalg (ldl_factor, ldl_factor_ex, ldl_solve). Expected
values: torch 2.13 on the same inputs."""
import warnings

import numpy as np
import pytest

import pyad
import pyad.linalg as L

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(1234)


def _sq(n=3, batch=()):
    return _rng.standard_normal(batch + (n, n)) + 4 * np.eye(n)


def _spd(n=3):
    a = _rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _sym(n=4):
    a = _rng.standard_normal((n, n))
    return a + a.T


_A = _sq()
_AB = _sq(batch=(2,))
_B = _rng.standard_normal((3, 2))
_SPD = _spd()
_TALL = _rng.standard_normal((4, 3))
_TRI = np.triu(_sq())
_V3 = _rng.standard_normal((2, 3))
_W3 = _rng.standard_normal((2, 3))
_T4 = _rng.standard_normal((4, 6, 8)) + 0.0
_T4 = (_rng.standard_normal((24, 24)) + 6 * np.eye(24)).reshape(4, 6, 8, 3)
_TS_A = (_rng.standard_normal((6, 6)) + 4 * np.eye(6)).reshape(2, 3, 6)
_TS_B = _rng.standard_normal((2, 3))
_HH_A = _rng.standard_normal((4, 3))
_HH_T = _rng.standard_normal(3)
_NS = np.array([[1., 2.], [2., 4.]])  # singular

# name -> (positional array args, other positional args, keyword args)
CASES = {
    "inv": ([_A], [], {}),
    "det": ([_AB], [], {}),
    "slogdet": ([_A], [], {}),
    "solve": ([_A, _B], [], {}),
    "cholesky": ([_SPD], [], {}),
    "cholesky_upper": ([_SPD], [], {"upper": True}),
    "qr": ([_TALL], [], {}),
    "eigh": ([_SPD], [], {}),
    "eigvalsh": ([_SPD], [], {}),
    "svd": ([_TALL], [], {"full_matrices": False}),
    "svdvals": ([_TALL], [], {}),
    "norm": ([_A], [], {}),
    "norm_fro_dim": ([_AB], ["fro", (-2, -1)], {}),
    "vector_norm": ([_AB], [3, 1], {}),
    "matrix_norm": ([_A], ["nuc"], {}),
    "cross": ([_V3, _W3], [], {}),
    "matrix_power": ([_A], [3], {}),
    "matrix_power_neg": ([_A], [-2], {}),
    "pinv": ([_TALL], [], {}),
    "lstsq": ([_TALL, _rng.standard_normal((4, 2))], [], {}),
    "solve_triangular": ([_TRI, _B], [], {"upper": True}),
    "eig": ([_A], [], {}),
    "eigvals": ([_A], [], {}),
    "multi_dot": (None, [], {}),
    "lu_factor": ([_A], [], {}),
    "lu_factor_ex": ([_A], [], {}),
    "lu": ([_TALL], [], {}),
    "lu_solve": (None, [], {}),
    "matrix_rank": ([_NS], [], {}),
    "cond": ([_A], [], {}),
    "vecdot": ([_V3, _W3], [], {}),
    "inv_ex": ([_A], [], {}),
    "solve_ex": ([_A, _B], [], {}),
    "cholesky_ex": ([_SPD], [], {}),
    "tensorinv": ([_T4], [], {"ind": 2}),
    "tensorsolve": ([_TS_A, _TS_B], [], {}),
    "householder_product": ([_HH_A, _HH_T], [], {}),
    "ldl_factor": ([_sym()], [], {}),
    "ldl_factor_ex": ([_sym()], [], {}),
    "ldl_solve": (None, [], {}),
}
_LDL_A = _sym()

_MD = [_rng.standard_normal((2, 3)), _rng.standard_normal((3, 4)), _rng.standard_normal((4, 2))]


def _fn(case):
    return case.split("_upper")[0].split("_fro_dim")[0].split("_neg")[0]


def _call(lib, case, make, out=None):
    """Call ``lib.linalg.<fn>`` on the case's inputs (made by ``make`` from numpy)."""
    arrays, extra, kwargs = CASES[case]
    mod = lib.linalg
    if case.startswith("ldl"):
        pytest.importorskip("scipy")      # pyad's ldl functions use SciPy's LAPACK
    f = getattr(mod, _fn(case))
    kw = dict(kwargs)
    if out is not None:
        kw["out"] = out
    if case == "multi_dot":
        return f([make(a) for a in _MD], **kw)
    if case == "ldl_solve":
        LD, piv = mod.ldl_factor(make(_LDL_A).detach())
        return f(LD, piv, make(_B[[0, 1, 2, 0]]), **kw)
    if case == "lu_solve":
        LU, piv = mod.lu_factor(make(_A).detach())
        return f(LU, piv, make(_B), **kw)
    return f(*[make(a) for a in arrays], *extra, **kw)


def _t(a, grad=False):
    return torch.tensor(a, requires_grad=grad)


def _p(a, grad=False):
    return pyad.tensor(a, requires_grad=grad)


def _as_tuple(r):
    return tuple(r) if isinstance(r, tuple) else (r,)


def _p_dtype(t):
    return getattr(pyad, str(t.dtype).replace("torch.", ""))


def _outs(ref, shape_of=lambda t: (0,)):
    """pyad and torch out Variables/tensors with the dtypes of torch's result ``ref``."""
    refs = _as_tuple(ref)
    t_out = tuple(torch.empty(shape_of(r), dtype=r.dtype) for r in refs)
    p_out = tuple(pyad.empty(shape_of(r), dtype=_p_dtype(r)) for r in refs)
    if not isinstance(ref, tuple):
        return t_out[0], p_out[0]
    return t_out, p_out


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


# eigenvector / singular vector / Q columns are defined up to a sign (a phase): compare
# them after fixing each column's largest entry to be real positive
_SIGNED = {("eig", 1), ("eigh", 1), ("svd", 0), ("svd", 2), ("qr", 0), ("qr", 1)}


def _fix_phase(a, rows=False):
    a = np.asarray(a)
    if rows:
        return _fix_phase(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    idx = np.argmax(np.abs(a), axis=-2)[..., None, :]
    piv = np.take_along_axis(a, idx, axis=-2)
    return a * (np.abs(piv) / piv)


def _compare(case, got, want):
    got, want = _as_tuple(got), _as_tuple(want)
    assert len(got) == len(want)
    fn = _fn(case)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = _np(g), _np(w)
        assert g.shape == w.shape, (i, g.shape, w.shape)
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        if (fn, i) in _SIGNED:
            rows = fn == "svd" and i == 2 or fn == "qr" and i == 1
            g, w = _fix_phase(g, rows), _fix_phase(w, rows)
        if fn == "eig" and i == 0 or fn == "eigvals":
            g, w = np.sort_complex(g), np.sort_complex(w)
        if fn == "eig" and i == 1:
            continue            # eigenvalue order is LAPACK's; checked through A V = V diag(w)
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("case", list(CASES))
def test_out_matches_torch_and_returns_out(case):
    ref = _call(torch, case, _t)
    t_out, p_out = _outs(ref)
    t_res = _call(torch, case, _t, out=t_out)
    p_res = _call(pyad, case, _p, out=p_out)
    if isinstance(t_out, tuple):
        assert isinstance(p_res, tuple)
        assert all(a is b for a, b in zip(p_res, p_out))
        assert all(a is b for a, b in zip(t_res, t_out))
    else:
        assert p_res is p_out
    _compare(case, p_out, t_out)
    if _fn(case) == "eig":
        w, v = (_np(x) for x in p_out)
        np.testing.assert_allclose(_A @ v, v * w[..., None, :], rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("case", list(CASES))
def test_out_of_another_shape_is_resized_with_torch_warning(case):
    ref = _call(torch, case, _t)
    t_out, p_out = _outs(ref, shape_of=lambda r: (7,))

    def run(lib, make, out):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            _call(lib, case, make, out=out)
        # the same warnings (torch resizes multi-output outs in its own order)
        return sorted(str(x.message).split(" (Triggered internally")[0] for x in w
                      if "was resized" in str(x.message))

    t_warn, p_warn = run(torch, _t, t_out), run(pyad, _p, p_out)
    assert len(p_warn) == len(t_warn) and len(t_warn) >= 1
    assert p_warn == t_warn
    _compare(case, p_out, t_out)


@pytest.mark.parametrize("case", list(CASES))
def test_out_of_another_dtype_is_refused_as_torch(case):
    ref = _call(torch, case, _t)
    refs = _as_tuple(ref)
    # the first output, in float32 where it is float64 (or int32 where int64)
    bad = {torch.float64: torch.float32, torch.int64: torch.int32, torch.int32: torch.int64,
           torch.complex128: torch.complex64}[refs[0].dtype]
    t_out = [torch.empty(0, dtype=r.dtype) for r in refs]
    p_out = [pyad.empty(0, dtype=_p_dtype(r)) for r in refs]
    t_out[0] = torch.empty(0, dtype=bad)
    p_out[0] = pyad.empty(0, dtype=_p_dtype(t_out[0]))
    t_out = tuple(t_out) if isinstance(ref, tuple) else t_out[0]
    p_out = tuple(p_out) if isinstance(ref, tuple) else p_out[0]
    try:
        _call(torch, case, _t, out=t_out)
        t_err = None
    except RuntimeError as e:
        t_err = e
    if t_err is None:
        _call(pyad, case, _p, out=p_out)
        _compare(case, p_out, t_out)
    else:
        with pytest.raises(RuntimeError):
            _call(pyad, case, _p, out=p_out)


@pytest.mark.parametrize("other", ["int64", "complex128", "float16"])
@pytest.mark.parametrize("case", list(CASES))
def test_out_of_other_dtypes_is_taken_or_refused_as_torch(case, other):
    ref = _call(torch, case, _t)
    refs = _as_tuple(ref)
    if refs[0].dtype == getattr(torch, other):
        pytest.skip("the result's own dtype")
    t_out = [torch.empty(0, dtype=r.dtype) for r in refs]
    p_out = [pyad.empty(0, dtype=_p_dtype(r)) for r in refs]
    t_out[0] = torch.empty(0, dtype=getattr(torch, other))
    p_out[0] = pyad.empty(0, dtype=getattr(pyad, other))
    t_out = tuple(t_out) if isinstance(ref, tuple) else t_out[0]
    p_out = tuple(p_out) if isinstance(ref, tuple) else p_out[0]
    try:
        _call(torch, case, _t, out=t_out)
        t_err = None
    except RuntimeError as e:
        t_err = e
    if t_err is None:
        _call(pyad, case, _p, out=p_out)
        got, want = _np(_as_tuple(p_out)[0]), _np(_as_tuple(t_out)[0])
        assert got.dtype == want.dtype
        tol = 1e-3 if other == "float16" else 1e-7
        np.testing.assert_allclose(np.sort_complex(got.ravel()) if case == "eigvals" else got,
                                   np.sort_complex(want.ravel()) if case == "eigvals" else want,
                                   rtol=tol, atol=1e-10)
    else:
        with pytest.raises(RuntimeError):
            _call(pyad, case, _p, out=p_out)


@pytest.mark.parametrize("case", ["slogdet", "qr", "inv"])
def test_out_of_the_wrong_kind_is_refused_as_torch(case):
    ref = _call(torch, case, _t)
    if isinstance(ref, tuple):
        t_bad, p_bad = torch.empty(0, dtype=torch.float64), pyad.empty(0, dtype=pyad.float64)
    else:
        t_bad = (torch.empty(0, dtype=torch.float64),) * 2
        p_bad = (pyad.empty(0, dtype=pyad.float64), pyad.empty(0, dtype=pyad.float64))
    with pytest.raises(TypeError):
        _call(torch, case, _t, out=t_bad)
    with pytest.raises(TypeError):
        _call(pyad, case, _p, out=p_bad)


@pytest.mark.parametrize("case", list(CASES))
def test_out_is_refused_when_an_input_requires_grad(case):
    ref = _call(torch, case, _t)
    t_out, p_out = _outs(ref)
    try:
        _call(torch, case, lambda a: _t(a, True), out=t_out)
        t_err = None
    except RuntimeError as e:
        t_err = str(e)
    if t_err is None:
        # torch's composite functions copy the result into out, in the graph
        _call(pyad, case, lambda a: _p(a, True), out=p_out)
        _compare(case, p_out, t_out)
        for p_o, t_o in zip(_as_tuple(p_out), _as_tuple(t_out)):
            assert p_o.requires_grad == t_o.requires_grad
        return
    assert "don't support automatic differentiation" in t_err
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        _call(pyad, case, lambda a: _p(a, True), out=p_out)
    # with grad mode off, it is written
    with torch.no_grad():
        _call(torch, case, lambda a: _t(a, True), out=t_out)
    with pyad.no_grad():
        _call(pyad, case, lambda a: _p(a, True), out=p_out)
    _compare(case, p_out, t_out)


@pytest.mark.parametrize("name", ["matrix_exp", "vander", "diagonal"])
def test_functions_torch_gives_no_out_take_none(name):
    arg = np.ones(3) if name == "vander" else _A
    with pytest.raises(TypeError):
        getattr(torch.linalg, name)(_t(arg), out=torch.empty(0, dtype=torch.float64))
    with pytest.raises(TypeError):
        getattr(L, name)(_p(arg), out=pyad.empty(0, dtype=pyad.float64))


def test_out_is_in_the_signatures():
    import inspect
    for name in L._OUT_FUNCTIONS + ("matmul",):
        assert "out" in inspect.signature(getattr(L, name)).parameters, name


@pytest.mark.parametrize("name,args", [("norm", ()), ("matrix_norm", ("nuc",)),
                                       ("cond", ())])
def test_composite_out_copy_is_differentiable_as_torch(name, args):
    t_a, p_a = _t(_A, True), _p(_A, True)
    t_out, p_out = torch.empty(0, dtype=torch.float64), pyad.empty(0, dtype=pyad.float64)
    getattr(torch.linalg, name)(t_a, *args, out=t_out)
    getattr(L, name)(p_a, *args, out=p_out)
    (t_out * 3).backward()
    (p_out * 3).backward()
    np.testing.assert_allclose(_np(p_a.grad), _np(t_a.grad), rtol=1e-7, atol=1e-10)


# -- ldl_factor, ldl_factor_ex, ldl_solve (new) ------------------------------------------

def _ldl_inputs(kind):
    rng = np.random.default_rng(7)
    if kind == "real":
        a = rng.standard_normal((5, 5))
        return a + a.T, False
    if kind == "batch":
        a = rng.standard_normal((2, 3, 4, 4))
        return a + np.swapaxes(a, -1, -2), False
    if kind == "float32":
        a = rng.standard_normal((4, 4)).astype(np.float32)
        return a + a.T, False
    if kind == "nonsym":              # only the lower triangle is read
        return rng.standard_normal((4, 4)), False
    c = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    if kind == "hermitian":
        return c + c.conj().T, True
    return c + c.T, False           # complex symmetric


_KINDS = ["real", "batch", "float32", "nonsym", "hermitian", "complex_symmetric"]


@pytest.mark.parametrize("kind", _KINDS)
def test_ldl_factor_matches_torch(kind):
    pytest.importorskip("scipy")
    a, herm = _ldl_inputs(kind)
    t = torch.linalg.ldl_factor(torch.tensor(a), hermitian=herm)
    p = L.ldl_factor(pyad.tensor(a), hermitian=herm)
    assert type(p).__name__ == "ldl_factor" and p._fields == ("LD", "pivots")
    assert p.LD.dtype == _p_dtype(t.LD) and p.pivots.dtype == pyad.int32
    np.testing.assert_array_equal(_np(p.pivots), _np(t.pivots))
    tol = 1e-5 if kind == "float32" else 1e-12
    np.testing.assert_allclose(_np(p.LD), _np(t.LD), rtol=tol, atol=tol)
    te = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=herm)
    pe = L.ldl_factor_ex(pyad.tensor(a), hermitian=herm)
    assert pe._fields == ("LD", "pivots", "info")
    np.testing.assert_array_equal(_np(pe.info), _np(te.info))
    assert pe.info.dtype == pyad.int32 and tuple(pe.info.shape) == tuple(te.info.shape)


@pytest.mark.parametrize("kind", _KINDS)
def test_ldl_solve_matches_torch(kind):
    pytest.importorskip("scipy")
    a, herm = _ldl_inputs(kind)
    rng = np.random.default_rng(3)
    b = rng.standard_normal(a.shape[:-1] + (2,)).astype(a.dtype)
    t = torch.linalg.ldl_solve(*torch.linalg.ldl_factor(torch.tensor(a), hermitian=herm),
                               torch.tensor(b), hermitian=herm)
    p = L.ldl_solve(*L.ldl_factor(pyad.tensor(a), hermitian=herm), pyad.tensor(b),
                    hermitian=herm)
    assert p.dtype == _p_dtype(t) and tuple(p.shape) == tuple(t.shape)
    tol = 1e-4 if kind == "float32" else 1e-10
    np.testing.assert_allclose(_np(p), _np(t), rtol=tol, atol=tol)


def test_ldl_solve_broadcasts_batch_dims_as_torch():
    pytest.importorskip("scipy")
    a, _ = _ldl_inputs("real")
    b = np.random.default_rng(4).standard_normal((3, 5, 2))
    t = torch.linalg.ldl_solve(*torch.linalg.ldl_factor(torch.tensor(a)), torch.tensor(b))
    p = L.ldl_solve(*L.ldl_factor(pyad.tensor(a)), pyad.tensor(b))
    np.testing.assert_allclose(_np(p), _np(t), rtol=1e-10, atol=1e-12)


def test_ldl_factor_ex_reports_a_singular_d_and_ldl_factor_raises():
    pytest.importorskip("scipy")
    z = np.zeros((2, 2))
    te = torch.linalg.ldl_factor_ex(torch.tensor(z))
    pe = L.ldl_factor_ex(pyad.tensor(z))
    np.testing.assert_array_equal(_np(pe.info), _np(te.info))
    np.testing.assert_array_equal(_np(pe.pivots), _np(te.pivots))
    with pytest.raises(RuntimeError):
        torch.linalg.ldl_factor(torch.tensor(z))
    with pytest.raises(RuntimeError):
        L.ldl_factor(pyad.tensor(z))
    with pytest.raises(L.LinAlgError):
        L.ldl_factor_ex(pyad.tensor(z), check_errors=True)


@pytest.mark.parametrize("bad", ["nonsquare", "int", "half"])
def test_ldl_factor_bad_inputs_raise_as_torch(bad):
    arr = {"nonsquare": np.ones((2, 3)), "int": np.ones((2, 2), np.int64),
           "half": np.ones((2, 2), np.float16)}[bad]
    with pytest.raises(Exception) as t_err:
        torch.linalg.ldl_factor(torch.tensor(arr))
    with pytest.raises(t_err.type):
        L.ldl_factor(pyad.tensor(arr))


def test_ldl_solve_dtype_mismatch_raises_as_torch():
    pytest.importorskip("scipy")
    a, _ = _ldl_inputs("real")
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.linalg.ldl_solve(*torch.linalg.ldl_factor(torch.tensor(a)),
                               torch.ones(5, 1, dtype=torch.float32))
    with pytest.raises(RuntimeError, match="same dtype"):
        L.ldl_solve(*L.ldl_factor(pyad.tensor(a)), pyad.ones(5, 1, dtype=pyad.float32))


def test_ldl_has_no_derivative_as_torch():
    pytest.importorskip("scipy")
    a, _ = _ldl_inputs("real")
    t_a, p_a = _t(a, True), _p(a, True)
    t, p = torch.linalg.ldl_factor(t_a), L.ldl_factor(p_a)
    assert p.LD.requires_grad == t.LD.requires_grad
    assert not p.pivots.requires_grad and not t.pivots.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        t.LD.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        p.LD.sum().backward()
    b = np.ones((5, 2))
    t_b, p_b = _t(b, True), _p(b, True)
    tx = torch.linalg.ldl_solve(t.LD.detach(), t.pivots, t_b)
    px = L.ldl_solve(p.LD.detach(), p.pivots, p_b)
    assert px.requires_grad == tx.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        tx.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        px.sum().backward()
    # out=: torch copies the result into out in the graph (no refusal); backward raises
    t_o, p_o = torch.empty(0, dtype=torch.float64), pyad.empty(0, dtype=pyad.float64)
    torch.linalg.ldl_solve(t.LD.detach(), t.pivots, t_b, out=t_o)
    L.ldl_solve(p.LD.detach(), p.pivots, p_b, out=p_o)
    assert p_o.requires_grad and t_o.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        t_o.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        p_o.sum().backward()


def test_every_torch_linalg_function_is_in_pyad_linalg():
    names = [n for n in dir(torch.linalg) if not n.startswith("_")
             and callable(getattr(torch.linalg, n))]
    assert [n for n in names if not hasattr(L, n)] == []
    for n in ("ldl_factor", "ldl_factor_ex", "ldl_solve"):
        assert n in L.__all__ and ">>>" in getattr(L, n).__doc__
