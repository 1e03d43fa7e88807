"""The torch.Tensor surface that ported scripts hit, against torch on the same inputs:
torch's aliases (functions and methods), the older linear-algebra spellings as
functions and methods (torch.svd's V, torch.qr's some, triangular_solve's flags), and
the plumbing (data_ptr, storage_offset, is_set_to, new_empty_strided, apply_/map_,
share_memory_, the flags)."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def _np(v):
    if isinstance(v, torch.Tensor):
        return v.detach().resolve_conj().numpy()
    return np.asarray(v.detach().data)


def _pair(a, requires_grad=False):
    return (pyad.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


# -- aliases ---------------------------------------------------------------------------

ALIASES = {
    "multiply": lambda L, x, y: x.multiply(y),
    "multiply_fn": lambda L, x, y: L.multiply(x, y),
    "subtract": lambda L, x, y: x.subtract(y, alpha=2),
    "subtract_fn": lambda L, x, y: L.subtract(x, y),
    "divide": lambda L, x, y: x.divide(y),
    "divide_fn_floor": lambda L, x, y: L.divide(x, y, rounding_mode="floor"),
    "greater": lambda L, x, y: x.greater(y),
    "greater_equal": lambda L, x, y: L.greater_equal(x, y),
    "less": lambda L, x, y: x.less(y),
    "less_equal": lambda L, x, y: x.less_equal(y),
    "not_equal": lambda L, x, y: x.not_equal(y),
    "negative": lambda L, x, y: x.negative(),
    "positive": lambda L, x, y: L.positive(x),
    "absolute": lambda L, x, y: x.absolute(),
    "concatenate": lambda L, x, y: L.concatenate([x, y], axis=1),
    "row_stack": lambda L, x, y: L.row_stack([x, y]),
    "msort": lambda L, x, y: x.msort(),
    "msort_fn": lambda L, x, y: L.msort(y),
    "adjoint": lambda L, x, y: x.adjoint(),
    "mH": lambda L, x, y: x.mH,
    "H": lambda L, x, y: y.H,
    "deg2rad": lambda L, x, y: x.deg2rad(),
    "rad2deg": lambda L, x, y: x.rad2deg(),
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_aliases_match_torch_values_and_gradients(name):
    a = RNG.uniform(-2, 2, (3, 4))
    b = RNG.uniform(-2, 2, (3, 4))
    b[0, 0] = a[0, 0]                         # a tie for the comparisons
    out = []
    for L, idx in ((pyad, 0), (torch, 1)):
        x = _pair(a, True)[idx]
        y = _pair(b, True)[idx]
        r = ALIASES[name](L, x, y)
        grads = None
        if r.dtype in (pyad.float64, torch.float64):
            r.sum().backward() if r.requires_grad else None
            grads = [None if v.grad is None else _np(v.grad) for v in (x, y)]
        out.append((_np(r), grads))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    if out[1][1] is not None:
        for g, e in zip(out[0][1], out[1][1]):
            assert (g is None) == (e is None)
            if e is not None:
                np.testing.assert_allclose(g, e, rtol=1e-12)


def test_positive_is_the_input_and_refuses_bool_as_torch():
    for L in (pyad, torch):
        x = L.ones(2)
        assert L.positive(x) is x
        with pytest.raises(RuntimeError, match="bool"):
            L.positive(L.tensor([True]))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4), (0, 2)])
def test_adjoint_mh_h_shapes_and_errors_match_torch(shape):
    for attr in ("adjoint", "mH", "H"):
        outcomes = []
        for L in (pyad, torch):
            x = L.ones(*shape) if shape else L.tensor(1.0)
            try:
                with pytest.warns(UserWarning) if not shape else _nothing():
                    r = getattr(x, attr)
                    r = r() if callable(r) else r
                outcomes.append(tuple(r.shape))
            except RuntimeError:
                outcomes.append(RuntimeError)
        assert outcomes[0] == outcomes[1], (attr, shape, outcomes)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_adjoint_conjugates_complex_values_as_torch():
    z = RNG.normal(size=(2, 3)) + 1j * RNG.normal(size=(2, 3))
    p, t = _pair(z)
    np.testing.assert_array_equal(_np(p.mH), _np(t.mH))
    np.testing.assert_array_equal(_np(pyad.adjoint(p)), _np(torch.adjoint(t)))


def test_adjoint_of_a_real_variable_is_a_view():
    x = pyad.ones(2, 3)
    v = x.mH
    v[0, 1] = 5.0
    assert x[1, 0].item() == 5.0 and x._version == 1


def test_msort_of_ties_nan_and_0d_match_torch():
    a = np.array([[2.0, np.nan], [2.0, 1.0], [-1.0, 1.0]])
    p, t = _pair(a)
    np.testing.assert_array_equal(_np(p.msort()), _np(t.msort()))
    assert pyad.msort(pyad.tensor(3.0)).item() == torch.msort(torch.tensor(3.0)).item()


def test_msort_gradient_goes_to_the_sorted_positions():
    x = pyad.tensor(RNG.normal(size=(4, 3)), requires_grad=True)
    assert gradcheck(pyad.msort, (x,))
    assert gradgradcheck(pyad.msort, (x,))


def test_concatenate_and_row_stack_errors_name_the_op():
    with pytest.raises(RuntimeError, match=r"^concatenate\(\)"):
        pyad.concatenate([pyad.ones(2, 3), pyad.ones(3, 2)])
    with pytest.raises(TypeError, match=r"^row_stack\(\)"):
        pyad.row_stack(pyad.ones(2))


# -- the older linear-algebra spellings ------------------------------------------------

def _spd(n=3, batch=()):
    m = RNG.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _lower(n=3):
    return np.tril(RNG.normal(size=(n, n))) + 3 * np.eye(n)


LINALG = {
    "det": (lambda L, a, b: a.det(), [RNG.normal(size=(3, 3))]),
    "logdet": (lambda L, a, b: a.logdet(), [_spd()]),
    "slogdet": (lambda L, a, b: a.slogdet()[1], [RNG.normal(size=(2, 3, 3))]),
    "inverse": (lambda L, a, b: a.inverse(), [RNG.normal(size=(3, 3)) + 3 * np.eye(3)]),
    "pinverse": (lambda L, a, b: a.pinverse(), [RNG.normal(size=(4, 3))]),
    "pinverse_wide": (lambda L, a, b: L.pinverse(a), [RNG.normal(size=(2, 2, 4))]),
    "cholesky": (lambda L, a, b: a.cholesky(), [_spd()]),
    "cholesky_upper": (lambda L, a, b: L.cholesky(a, upper=True), [_spd(batch=(2,))]),
    "cholesky_solve": (lambda L, b, l_: b.cholesky_solve(l_),
                       [RNG.normal(size=(3, 2)), _lower()]),
    "cholesky_solve_upper": (lambda L, b, u: L.cholesky_solve(b, u, upper=True),
                             [RNG.normal(size=(3, 2)), _lower().T.copy()]),
    "cholesky_inverse": (lambda L, l_, b: l_.cholesky_inverse(), [_lower()]),
    "cholesky_inverse_upper": (lambda L, u, b: L.cholesky_inverse(u, upper=True),
                               [_lower().T.copy()]),
    "triangular_solve": (lambda L, b, a: b.triangular_solve(a).solution,
                         [RNG.normal(size=(3, 2)), RNG.normal(size=(3, 3)) + 3 * np.eye(3)]),
    "triangular_solve_lower_t": (lambda L, b, a: L.triangular_solve(b, a, upper=False,
                                                                    transpose=True)[0],
                                 [RNG.normal(size=(3, 2)), RNG.normal(size=(3, 3)) + 3 * np.eye(3)]),
    "triangular_solve_unit": (lambda L, b, a: L.triangular_solve(b, a, unitriangular=True)[0],
                              [RNG.normal(size=(2, 3, 2)), RNG.normal(size=(3, 3))]),
    # gauge-invariant functions of the factors (singular vectors have free signs)
    "svd_product": (lambda L, a, b: _svd_product(a.svd()), [RNG.normal(size=(4, 3))]),
    "svd_full": (lambda L, a, b: L.svd(a, some=False)[1], [RNG.normal(size=(3, 4))]),
    "svd_projector": (lambda L, a, b: (lambda r: r.V @ r.V.mT)(L.svd(a)),
                      [RNG.normal(size=(4, 3))]),
    "qr_r_abs": (lambda L, a, b: a.qr().R.abs(), [RNG.normal(size=(4, 3))]),
    "qr_product": (lambda L, a, b: (lambda q: q.Q @ q.R)(L.qr(a)), [RNG.normal(size=(3, 3))]),
}


def _svd_product(r):
    u, s, v = r
    return (u * s.unsqueeze(-2)) @ v.mT


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_spellings_match_torch_values_and_gradients(name):
    fn, arrays = LINALG[name]
    out = []
    for L in (pyad, torch):
        vs = [(pyad.tensor if L is pyad else torch.tensor)(a, requires_grad=True)
              for a in arrays]
        r = fn(L, vs[0], vs[1] if len(vs) > 1 else None)
        w = np.cos(np.arange(np.prod(r.shape))).reshape(tuple(r.shape))
        (r * (pyad.tensor(w) if L is pyad else torch.tensor(w))).sum().backward()
        out.append((_np(r), [_np(v.grad) for v in vs]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-9, atol=1e-10)
    for g, e in zip(out[0][1], out[1][1]):
        np.testing.assert_allclose(g, e, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("name", ["cholesky_solve", "cholesky_inverse", "triangular_solve_unit",
                                  "pinverse", "svd_product", "inverse"])
def test_linalg_spellings_pass_gradcheck(name):
    fn, arrays = LINALG[name]
    vs = tuple(pyad.tensor(a, requires_grad=True) for a in arrays)
    if name.startswith("cholesky"):
        # torch's (and pyad's) gradient w.r.t. a Cholesky factor is that of L L^H for
        # the whole matrix L, so finite differences see it only through a triangle
        inner = fn
        fn = (lambda L, a, b: inner(L, a, pyad.tril(b))) if len(vs) == 2 else \
            (lambda L, a, b: inner(L, pyad.tril(a), b))
    f = (lambda a, b: fn(pyad, a, b)) if len(vs) == 2 else (lambda a: fn(pyad, a, None))
    assert gradcheck(f, vs)
    assert gradgradcheck(f, vs)


def test_svd_returns_v_and_compute_uv_false_gives_zero_factors_as_torch():
    a = RNG.normal(size=(4, 3))
    p, t = _pair(a)
    rp, rt = p.svd(), t.svd()
    assert type(rp).__name__ == "svd" and rp._fields == ("U", "S", "V")
    np.testing.assert_allclose(_np(rp.S), _np(rt.S), rtol=1e-12)
    np.testing.assert_allclose(_np(rp.U @ pyad.diag(rp.S) @ rp.V.mT), a, atol=1e-12)
    for some in (True, False):
        shapes = [tuple(x.shape) for x in pyad.svd(p, some=some)]
        assert shapes == [tuple(x.shape) for x in torch.svd(t, some=some)]
    zp, zt = pyad.svd(p, compute_uv=False), torch.svd(t, compute_uv=False)
    assert [tuple(x.shape) for x in zp] == [tuple(x.shape) for x in zt]
    assert not np.any(_np(zp.U)) and not np.any(_np(zp.V))
    np.testing.assert_allclose(_np(zp.S), _np(zt.S), rtol=1e-12)


def test_qr_some_false_and_bad_inputs():
    p, t = _pair(RNG.normal(size=(2, 3)))
    assert [tuple(x.shape) for x in pyad.qr(p, some=False)] == \
        [tuple(x.shape) for x in torch.qr(t, some=False)]
    with pytest.raises(NotImplementedError, match=r"^qr\(\)"):
        pyad.qr(pyad.ones(3, 2), some=False)
    for name in ("svd", "qr", "cholesky", "pinverse", "cholesky_inverse"):
        with pytest.raises(RuntimeError, match=r"^%s\(\)" % name):
            getattr(pyad, name)(pyad.ones(3))
    with pytest.raises(TypeError, match=r"^svd\(\)"):
        pyad.svd("abc")


def test_triangular_solve_returns_a_copy_of_the_coefficient_as_torch():
    b, a = RNG.normal(size=(3, 1)), RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    r = pyad.triangular_solve(pyad.tensor(b), pyad.tensor(a))
    assert r._fields == ("solution", "cloned_coefficient")
    np.testing.assert_array_equal(_np(r.cloned_coefficient), a)


# -- unravel_index ---------------------------------------------------------------------

@pytest.mark.parametrize("indices, shape", [([4, 1], (2, 3)), (4, (2, 3)), ([6, -7], (2, 3)),
                                            ([[0, 5], [3, 2]], (3, 2)), ([0], 6), ([], (2, 3)),
                                            ([1], ())])
def test_unravel_index_matches_torch(indices, shape):
    got = pyad.unravel_index(pyad.tensor(indices, dtype=pyad.int64), shape)
    expected = torch.unravel_index(torch.tensor(indices, dtype=torch.int64), shape)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == pyad.int64
        np.testing.assert_array_equal(g.data, e.numpy())


def test_unravel_index_errors_match_torch():
    cases = [((pyad.tensor([1.0]), (2, 3)), (torch.tensor([1.0]), (2, 3)), TypeError),
             ((pyad.tensor([1]), (2, -3)), (torch.tensor([1]), (2, -3)), ValueError),
             ((pyad.tensor([1]), (0, 3)), (torch.tensor([1]), (0, 3)), RuntimeError)]
    for p_args, t_args, exc in cases:
        with pytest.raises(exc, match=r"^unravel_index\(\)"):
            pyad.unravel_index(*p_args)
        with pytest.raises(exc):
            torch.unravel_index(*t_args)


# -- plumbing --------------------------------------------------------------------------

def test_data_ptr_storage_offset_and_is_set_to_match_torch():
    a = np.arange(24.0).reshape(4, 6)
    p, t = _pair(a)
    views = {"whole": lambda x: x, "row": lambda x: x[2], "slice": lambda x: x[1:, 3:],
             "transpose": lambda x: x.t(), "strided": lambda x: x[::2, 1::3],
             "empty": lambda x: x[4:]}
    for name, view in views.items():
        vp, vt = view(p), view(t)
        if vt.numel():          # NumPy does not move the pointer of an empty slice
            assert vp.storage_offset() == vt.storage_offset(), name
        assert (vp.data_ptr() - p.data_ptr()) == (vt.data_ptr() - t.data_ptr()) or \
            vt.numel() == 0, name
        assert vp.is_set_to(p) == vt.is_set_to(t), name
        assert vp.is_set_to(view(p)) == vt.is_set_to(view(t)), name
    assert pyad.empty(0).data_ptr() == torch.empty(0).data_ptr() == 0
    assert p.data_ptr() == p.data.__array_interface__["data"][0]
    assert not p.is_set_to(pyad.tensor(a))
    with pytest.raises(TypeError, match=r"^is_set_to\(\)"):
        p.is_set_to(a)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool", "complex64", "complex128"])
def test_flags_match_torch(dtype):
    p = pyad.zeros(2, dtype=getattr(pyad, dtype))
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    assert p.is_signed() == t.is_signed()
    assert p.itemsize == t.itemsize == p.element_size()
    assert p.is_cpu is t.is_cpu is True
    assert p.get_device() == t.get_device() == -1
    assert p.is_conj() == t.is_conj() and p.is_neg() == t.is_neg()
    assert p.resolve_conj() is p and p.resolve_neg() is p


@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (2,)),
                                          ((2, 0), (1, 1)), ((), ()), ((3, 2), (0, 1))])
def test_new_empty_strided_matches_torch(size, stride):
    p = pyad.ones(1, dtype=pyad.float64).new_empty_strided(size, stride)
    t = torch.ones(1, dtype=torch.float64).new_empty_strided(size, stride)
    assert tuple(p.shape) == tuple(t.shape)
    if p.numel():
        assert p.stride() == t.stride()
    assert p.dtype == pyad.float64
    q = pyad.ones(1).new_empty_strided(size, stride, dtype=pyad.int32, requires_grad=False)
    assert q.dtype == pyad.int32


def test_new_empty_strided_bad_arguments_raise():
    for L in (pyad, torch):
        with pytest.raises(RuntimeError):
            L.ones(1).new_empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match=r"^new_empty_strided\(\)"):
        pyad.ones(1).new_empty_strided((2, 3), (1, -1))


def test_apply_and_map_match_torch():
    a = np.array([[1.0, -2.0], [3.0, 0.5]])
    for L in (pyad, torch):
        x = L.tensor(a)
        assert x.apply_(lambda v: v * 2 + 1) is x
        assert x._version == 1 or L is torch
        y = L.tensor([10.0, 20.0], dtype=L.float64)
        x.map_(y, lambda u, w: u + w)
        with pytest.raises(TypeError):
            x.map_(L.tensor([1.0, 2.0], dtype=L.float32), lambda u, w: u)
        np.testing.assert_array_equal(_np(x), (a * 2 + 1) + [10.0, 20.0])
        with pytest.raises(RuntimeError, match="requires grad"):
            L.ones(2, requires_grad=True).apply_(lambda v: v)
        with pytest.raises(RuntimeError):
            L.ones(3).map_(L.ones(2), lambda u, w: u)
    v = pyad.tensor(a)
    col = v[:, 1]
    col.apply_(lambda u: 0.0)                      # through a non-contiguous view
    np.testing.assert_array_equal(v.data[:, 1], 0.0)
    assert v._version == 1


def test_share_memory_moves_the_data_into_shared_memory():
    x = pyad.tensor([1.0, 2.0, 3.0])
    assert not x.is_shared()
    assert x.share_memory_() is x
    assert x.is_shared() and x.tolist() == [1.0, 2.0, 3.0]
    x.add_(1)
    assert x.tolist() == [2.0, 3.0, 4.0] and x[1:].is_shared()
    assert x.share_memory_() is x
    e = pyad.empty(0).share_memory_()
    assert e.is_shared() and e.shape == (0,)


def test_set_shares_memory_shape_and_bumps_the_version_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        x = lib.zeros(3, dtype=lib.float64)
        src = lib.arange(4.0, dtype=lib.float64)
        assert x.set_(src) is x
        assert x._version == 1 and tuple(x.shape) == (4,)
        src[0] = 7.0                                # writes through either show
        assert float(x[0]) == 7.0
        e = lib.arange(6.0, dtype=lib.float64)
        e.set_(e[2:])
        np.testing.assert_array_equal(np.asarray(e.tolist()), [2.0, 3.0, 4.0, 5.0])
        assert tuple(lib.arange(3.0).set_().shape) == (0,)
        w = lib.zeros(1, dtype=lib.float64)
        six = lib.arange(6.0, dtype=lib.float64)
        w.set_(six, 1, (2, 2), (1, 2))
        np.testing.assert_array_equal(np.asarray(w.tolist()), [[1.0, 3.0], [2.0, 4.0]])
        six[3] = -1.0                               # a view of the same memory
        assert float(w[0, 1]) == -1.0
        with pytest.raises(RuntimeError, match="out of bounds"):
            w.set_(six, 3, (2, 2), (1, 2))          # would reach element 6 of 6
        with pytest.raises(RuntimeError):
            w.set_(six, -1, (1,), (1,))
        with pytest.raises(RuntimeError, match="Could not set"):
            lib.zeros(2).set_(lib.zeros(2, dtype=lib.float64))
        leaf = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad|leaf "
                           "Variable that requires grad"):
            leaf.set_(lib.zeros(3))
        # from a source that requires grad: a result that requires grad, whose backward
        # raises (torch has no derivative for set_)
        c = lib.zeros(3)
        c.set_(leaf * 2)
        assert c.requires_grad
        with pytest.raises(RuntimeError):
            c.sum().backward()
        # on a non-leaf that requires grad, from any source: recorded too, so the old
        # history (of the old shape) is never reached through the new data
        h = leaf * 1
        h.set_(lib.zeros(2))
        assert h.requires_grad and h.grad_fn is not None and tuple(h.shape) == (2,)
        with pytest.raises(RuntimeError):
            h.sum().backward()
    with pytest.raises(TypeError, match="set_"):
        pyad.zeros(2).set_(np.zeros(2))


def test_set_on_a_view_ends_the_view_and_a_leaf_gets_a_new_accumulator():
    base = pyad.zeros(4)
    v = base[:2]
    with pyad.no_grad():
        v.set_(pyad.ones(3))
    v.mul_(2)                                       # writes its own memory, not base's
    np.testing.assert_array_equal(base.data, np.zeros(4))
    assert not v._is_view()
    p = pyad.nn.Parameter(pyad.ones(4))
    q = p * 3
    with pyad.no_grad():
        p.set_(p[1:])
    assert p.grad_fn is None and p.is_leaf
    q.sum().backward()             # the old graph's accumulator: the old shape (torch's)
    np.testing.assert_array_equal(p.grad.data, np.full(4, 3.0))
    p.grad = None
    (p * 2).sum().backward()       # the new one, of the new shape
    np.testing.assert_array_equal(p.grad.data, np.full(3, 2.0))
