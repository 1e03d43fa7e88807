"""Ports of PyTorch's dtype-rule tests to pyad: ``test/test_type_promotion.py``
(TestTypePromotion, CPU: result_type, promote_types, can_cast, Python numbers vs 0-d vs
dimensioned Variables, int/float/complex/bool mixes, in-place ops that cannot cast,
comparisons, division of integers, the default dtype) and the dtype-inference parts of
``test/test_tensor_creation_ops.py`` (tensor()/as_tensor() from Python data,
arange/linspace/logspace/full/eye/*_like/empty/zeros with and without ``dtype=``,
set_default_dtype).

The tests keep torch's names and the meaning of their assertions.  Each expectation is
either the literal of torch's test or torch itself run on the same inputs (the ``both``
helper runs one lambda with ``m = pyad`` and with ``m = torch`` and compares dtypes,
values and whether it raised), never pyad's own output.  torch's
``float_double_default_dtype`` decorator becomes the ``default_dtype`` parametrisation,
which sets pyad's and torch's default together.
"""
import itertools
import operator

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------

def dname(d):
    """One name for a torch dtype, a NumPy dtype or a pyad dtype: 'float32', 'bool'...

    torch's complex32 reads as complex64: pyad has no complex32 and answers complex64
    where torch answers complex32 (a float16 operand or default dtype with a complex
    number), a documented decision (docs/porting.md, "No complex32")."""
    if isinstance(d, torch.dtype):
        name = str(d).replace("torch.", "")
        return "complex64" if name == "complex32" else name
    return np.dtype(d).name


# torch's assertEqual tolerances by dtype (rtol, atol), for the few results torch itself
# computes in a different order (linspace/logspace)
_TORCH_TOL = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
              "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def T(name):
    return getattr(torch, name)


def P(name):
    return getattr(pyad, name)


@pytest.fixture(params=["float32", "float64"], ids=["default_float", "default_double"])
def default_dtype(request):
    """torch's @float_double_default_dtype: the test runs under each default dtype, set
    in pyad and in torch alike."""
    old_p, old_t = pyad.get_default_dtype(), torch.get_default_dtype()
    pyad.set_default_dtype(P(request.param))
    torch.set_default_dtype(T(request.param))
    yield request.param
    pyad.set_default_dtype(old_p)
    torch.set_default_dtype(old_t)


def _values(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype == torch.complex32:         # (NumPy has none: compare as complex64)
            return x.to(torch.complex64).numpy()
        return x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    a = np.asarray(x.detach().data if isinstance(x, pyad.Variable) else x)
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def both(fn, values=True, close=False):
    """fn(pyad) against fn(torch): both raise, or both give a result of the same dtype
    (and, with ``values``, the same values: exactly, or with ``close`` within torch's
    assertEqual tolerance for the dtype); returns pyad's result."""
    try:
        theirs = fn(torch)
    except Exception as e:            # noqa: BLE001 - torch's outcome is the reference
        theirs = e
    if isinstance(theirs, Exception):
        with pytest.raises(Exception):
            fn(pyad)
        return None
    ours = fn(pyad)
    if isinstance(theirs, torch.dtype):
        assert dname(ours) == dname(theirs)
        return ours
    if isinstance(theirs, (bool, int, float, complex)):
        assert ours == theirs and type(ours) is type(theirs)
        return ours
    assert isinstance(ours, pyad.Variable)
    assert dname(ours.dtype) == dname(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if values and close and dname(theirs.dtype) in _TORCH_TOL:
        rtol, atol = _TORCH_TOL[dname(theirs.dtype)]
        np.testing.assert_allclose(_values(ours), _values(theirs), rtol=rtol, atol=atol)
    elif values:
        np.testing.assert_array_equal(_values(ours), _values(theirs))
    return ours


MATH_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32",
               "float64", "bool"]          # torch.testing.get_all_math_dtypes('cpu')
COMPLEX_DTYPES = ["complex64", "complex128"]
ALL_DTYPES = MATH_DTYPES + COMPLEX_DTYPES + ["bfloat16"]


# ------------------------------------------------------------------------------------
# TestTypePromotion
# ------------------------------------------------------------------------------------

def test_inplace(default_dtype):
    # in-place operations don't promote: int.add_(float) is an error
    int_tensor = pyad.ones([4, 4, 4], dtype=pyad.int32)
    with pytest.raises(RuntimeError, match="can't be cast to"):
        int_tensor.add_(1.5)
    expected = pyad.ones([4, 4, 4], dtype=pyad.int32)
    long_tensor = pyad.ones([4, 4, 4], dtype=pyad.int64)
    int_tensor.add_(long_tensor)
    int_tensor.add_(1)
    three = expected + 2
    np.testing.assert_array_equal(int_tensor.data, three.data)
    assert int_tensor.dtype == pyad.int32

    # bool is a category of its own: uint8 cannot cast to bool
    bool_tensor = pyad.tensor([1, 1, 1], dtype=pyad.bool)
    uint8_tensor = pyad.tensor([1, 1, 1], dtype=pyad.uint8)
    with pytest.raises(RuntimeError, match="can't be cast to"):
        bool_tensor.add_(uint8_tensor)

    # demotion from signed to unsigned is allowed (unlike NumPy)
    int16_tensor = pyad.tensor([1, 1, 1], dtype=pyad.int16)
    uint8_tensor *= int16_tensor
    assert uint8_tensor.dtype == pyad.uint8
    np.testing.assert_array_equal(uint8_tensor.data, [1, 1, 1])


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("self_dtype, other", [("int32", 1.5), ("int64", 2.5),
                                               ("uint8", 0.5), ("bool", 1),
                                               ("float32", 1j), ("int16", 1j)])
def test_inplace_scalar_cannot_cast(op, self_dtype, other):
    # (the test_inplace rule across the in-place forms and categories, against torch)
    def f(m):
        x = m.ones(3, dtype=getattr(m, self_dtype))
        return getattr(x, op)(other)
    both(f)


def test_unsinged(default_dtype):
    dont_promote = pyad.ones(3, dtype=pyad.uint8) + 5
    assert dont_promote.dtype == pyad.uint8


def test_int_promotion(default_dtype):
    a = pyad.ones([4, 4, 4], dtype=pyad.int32)
    b = pyad.ones([4, 4, 4], dtype=pyad.int64)
    c = a + b
    np.testing.assert_array_equal(c.data, (b + b).data)
    assert c.dtype == pyad.int64


def test_float_promotion(default_dtype):
    a = pyad.ones([4, 4, 4], dtype=pyad.float32)
    b = pyad.ones([4, 4, 4], dtype=pyad.float64)
    for c in (a + b, b + a):
        np.testing.assert_array_equal(c.data, (b + b).data)
        assert c.dtype == pyad.float64


def test_complex_promotion(default_dtype):
    a = pyad.ones([4, 4, 4], dtype=pyad.complex64)
    b = pyad.ones([4, 4, 4], dtype=pyad.complex128)
    for c in (a + b, b + a):
        np.testing.assert_array_equal(c.data, (b + b).data)
        assert c.dtype == pyad.complex128
    a = pyad.randn(3, dtype=pyad.complex64)
    assert (a * 5).dtype == pyad.complex64
    # not a "wrapped number"
    other = pyad.tensor(5.5, dtype=pyad.float64)
    assert (a + other).dtype == pyad.complex64


def test_complex_scalar_mult_tensor_promotion(default_dtype):
    a = 1j * pyad.ones(2)
    a = a + 1j
    b = pyad.tensor([2j, 2j])
    np.testing.assert_array_equal(a.data, b.data)
    assert a.dtype == b.dtype
    # and the dtype is torch's default complex dtype
    assert dname(a.dtype) == dname((1j * torch.ones(2) + 1j).dtype)


def test_add_wrapped(default_dtype):
    a = pyad.ones([4, 4, 4], dtype=pyad.int32)
    c = a + 1
    np.testing.assert_array_equal(c.data, (a + a).data)
    assert c.dtype == pyad.int32


def test_int_to_float(default_dtype):
    a = pyad.ones([4, 4, 4], dtype=pyad.int32)
    b = pyad.ones([4, 4, 4], dtype=pyad.float32)
    assert (a + b).dtype == pyad.float32


def test_from_issue(default_dtype):
    a = pyad.rand(3, dtype=pyad.float32)
    u = pyad.tensor([0, 0, 1], dtype=pyad.uint8)
    assert (a * 5).dtype == pyad.float32
    assert (u + 1).dtype == pyad.uint8
    assert (u + 1000).dtype == pyad.uint8     # integer overflow
    # not a "wrapped number"
    other = pyad.tensor(5.5, dtype=pyad.float64)
    assert (u + 5.5).dtype == pyad.get_default_dtype()
    assert (u + other).dtype == pyad.float64
    # adding a 0-dim Variable to a float doesn't promote to double unless the first type
    # was integral
    assert (a + other).dtype == pyad.float32


def test_from_issue_overflow_values():
    # (u + 1000) wraps in uint8 as torch's does
    both(lambda m: m.tensor([0, 0, 1], dtype=m.uint8) + 1000)


def test_half(default_dtype):
    # torch 2.x computes half on CPU: the half + number stays half, a 0-d default-dtype
    # Variable of a higher category does not widen it... but one of the same category
    # does not either (torch's test's CUDA branch, which now holds on CPU too)
    half = pyad.tensor(5.5, dtype=pyad.float16)
    assert (half + 2.2).dtype == pyad.float16
    assert (half + 100000).dtype == pyad.float16      # inf
    default_tensor = pyad.tensor(100000.0)
    assert dname((half + default_tensor).dtype) == dname(
        (torch.tensor(5.5, dtype=torch.float16) + torch.tensor(100000.0)).dtype)
    both(lambda m: m.tensor(5.5, dtype=m.float16) + 100000)


def _complex_scalar_tensor_test(s, t):
    """torch's complex_scalar_tensor_test, for pyad's s and t: a complex scalar with a
    floating Variable gives the complex type of the Variable's value type (complex64
    for bfloat16), with an integer Variable the 0-d Variable's dtype or, for a Python
    complex, the default complex dtype."""
    if pyad.is_floating_point(t):
        expected = {"float64": pyad.complex128}.get(dname(t.dtype), pyad.complex64)
    elif isinstance(s, pyad.Variable):
        expected = s.dtype
    else:
        expected = pyad.complex128 if pyad.get_default_dtype() == pyad.float64 else \
            pyad.complex64
    assert (s * t).dtype == expected
    assert (t * s).dtype == expected
    assert pyad.result_type(s, t) == expected
    assert pyad.result_type(t, s) == expected


def test_complex_promotion_scalars(default_dtype):
    # (the complex-scalar half of test_complex_promotion; its complex32 scalar is left
    # out: pyad has no complex32)
    rng = np.random.default_rng(6)

    def make(shape, dtype):
        return pyad.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                           if dtype.startswith("complex") else rng.standard_normal(shape),
                           dtype=P(dtype))
    s = make((), "complex64")
    for t_dtype in ("float16", "float64", "int64"):
        t = make((3,), t_dtype)
        _complex_scalar_tensor_test(s, t)
        _complex_scalar_tensor_test(s.item(), t)
    s = make((), "complex128")
    for t_dtype in ("float32",):        # (bfloat16: test_bfloat16_arithmetic)
        t = make((3,), t_dtype)
        _complex_scalar_tensor_test(s, t)
        _complex_scalar_tensor_test(s.item(), t)
    # the same against torch, operand by operand
    for s_dtype, t_dtype in itertools.product(COMPLEX_DTYPES, ["float16", "float32",
                                                               "float64", "int64", "bool"]):
        both(lambda m: m.result_type(m.tensor(1 + 2j, dtype=getattr(m, s_dtype)),
                                     m.ones(3, dtype=getattr(m, t_dtype))))
        both(lambda m: (1 + 2j) * m.ones(3, dtype=getattr(m, t_dtype)))


def test_bfloat16():
    # (the promote_types half of torch's test_bfloat16; the arithmetic half is
    # test_bfloat16_arithmetic below)
    for dtype in ALL_DTYPES:
        if dtype in ("float16", "float32", "float64", "complex64", "complex128"):
            # bfloat16 with float16 is float32
            expected = P(dtype) if dtype != "float16" else pyad.float32
        else:
            expected = pyad.bfloat16
        assert pyad.promote_types(P(dtype), pyad.bfloat16) == expected
        assert pyad.promote_types(pyad.bfloat16, P(dtype)) == expected


def test_bfloat16_arithmetic():
    # with a number
    bf = pyad.tensor(5.5, dtype=pyad.bfloat16)
    for scalar in (2.2, 5, 100000):   # bf + 100000 is inf
        assert (bf + scalar).dtype == pyad.bfloat16
        np.testing.assert_array_equal(_values(scalar + bf), _values(bf + scalar))
        both(lambda m: m.tensor(5.5, dtype=m.bfloat16) + scalar)
    for scalar in (complex(1, 1), complex(-2, 0), complex(0, -3)):
        assert (bf + scalar).dtype == pyad.complex64
        np.testing.assert_array_equal((bf + scalar).data, (scalar + bf).data)
        both(lambda m: m.tensor(5.5, dtype=m.bfloat16) + scalar)
    # with a Variable
    for dtype in ALL_DTYPES:
        t = pyad.tensor(1, dtype=P(dtype))
        np.testing.assert_array_equal(_values(bf + t), _values(t + bf))
        both(lambda m: m.tensor(5.5, dtype=m.bfloat16) + m.tensor(1, dtype=getattr(m, dtype)))
    # a complex number with a bfloat16 Variable (test_complex_promotion's special case)
    t = pyad.tensor([1.0, 2.0, 3.0], dtype=pyad.bfloat16)
    _complex_scalar_tensor_test(pyad.tensor(1 + 2j, dtype=pyad.complex128), t)
    _complex_scalar_tensor_test(1 + 2j, t)


def test_alternate_result(default_dtype):
    f = pyad.tensor([1, 1, 1, 1], dtype=pyad.float32)
    o = pyad.tensor([0, 0, 0, 0], dtype=pyad.int64)
    with pytest.raises(RuntimeError, match="can't be cast to"):
        pyad.add(f, f, out=o)
    d = pyad.tensor([1, 1, 1, 1], dtype=pyad.float64)
    pyad.add(f, f, out=d)
    assert d.dtype == pyad.float64
    np.testing.assert_array_equal((f + f).data, d.data)


def test_mixed_type_backward(default_dtype):
    f = pyad.ones([3, 3], dtype=pyad.float32, requires_grad=True)
    ten = pyad.tensor([10.0], dtype=pyad.float64)
    tens = f * ten
    s = (tens + 2).sum()
    s.backward()
    np.testing.assert_array_equal(f.grad.data, tens.data)
    assert f.grad.dtype == pyad.float32

    # the gradient of a mixed-dtype op comes back in each input's dtype
    for func in ["add", "sub", "rsub", "mul", "div"]:
        for dtype1, dtype2 in itertools.product(["float32", "float64"],
                                                ["float32", "float64", "int32", "int64"]):
            x = pyad.ones(10, requires_grad=True, dtype=P(dtype1))
            y = pyad.ones(10, dtype=P(dtype2))
            getattr(pyad, func)(x, y).sum().backward()
            tx = torch.ones(10, requires_grad=True, dtype=T(dtype1))
            getattr(torch, func)(tx, torch.ones(10, dtype=T(dtype2))).sum().backward()
            assert dname(x.grad.dtype) == dname(tx.grad.dtype)
            np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


def _test_tensor(m, dtype, remove_zeros=False, seed=0):
    """torch's _get_test_tensor, drawn with NumPy so that pyad and torch get the same
    values."""
    rng = np.random.default_rng(seed)
    shape = (5, 5, 5)
    if dtype == "bool":
        a = rng.integers(int(remove_zeros), 2, shape).astype(bool)
    elif dtype.startswith(("float", "complex", "bfloat")):
        a = rng.standard_normal(shape).astype(np.float32)
        if remove_zeros:
            a[np.abs(a) < 0.05] = 5
        return m.tensor(a).to(getattr(m, dtype))
    else:
        a = rng.integers(-5 if not dtype.startswith("uint") else 0, 10, shape)
        if remove_zeros:
            a[a == 0] = 5
    return m.tensor(a).to(getattr(m, dtype))


@pytest.mark.parametrize("dt1", MATH_DTYPES + COMPLEX_DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rsub"])
def test_many_promotions(dt1, op):
    # torch.<op>(first, second) is torch.<op> of both cast to promote_types(dt1, dt2);
    # the results against torch on the same values, contiguous and not
    for dt2, non_contiguous in itertools.product(MATH_DTYPES + COMPLEX_DTYPES,
                                                 [True, False]):
        common = dname(torch.promote_types(T(dt1), T(dt2)))
        assert dname(pyad.promote_types(P(dt1), P(dt2))) == common

        def f(m):
            first = _test_tensor(m, dt1, seed=1)
            second = _test_tensor(m, dt2, op == "div", seed=2)
            if non_contiguous:
                first, second = first.transpose(0, 2), second.transpose(2, 1)
            result = getattr(m, op)(first, second)
            expected = getattr(m, op)(first.to(getattr(m, common)),
                                      second.to(getattr(m, common)))
            assert dname(result.dtype) == dname(expected.dtype)
            return result
        ours = both(f, values=False)
        if ours is not None:
            theirs = f(torch)
            np.testing.assert_allclose(_values(ours), _values(theirs),
                                       rtol=1e-3 if "float16" in common else 1e-6)


def test_non_promoting_ops(default_dtype):
    x = pyad.ones(4, dtype=pyad.float64)
    with pytest.raises(RuntimeError):
        pyad.lerp(x, pyad.ones(4, dtype=pyad.float32), 1)


def test_non_promoting_ops_out(default_dtype):
    # (the out= half of test_non_promoting_ops)
    x = pyad.ones(4, dtype=pyad.float64)
    with pytest.raises(RuntimeError):
        pyad.neg(pyad.ones(4, dtype=pyad.float32), out=x)


def test_alpha_mismatch(default_dtype):
    x = pyad.ones(4, dtype=pyad.int32)
    with pytest.raises(RuntimeError, match="alpha must not be"):
        pyad.add(x, x, alpha=1.1)
    x = x.to(pyad.bool)
    with pytest.raises(RuntimeError, match="alpha must not be"):
        pyad.add(x, x, alpha=1.1)
    np.testing.assert_array_equal((x + x).data, pyad.add(x, x, alpha=True).data)


def test_booleans(default_dtype):
    onedim = pyad.tensor([True])
    np.testing.assert_array_equal((onedim + onedim).data, onedim.data)
    assert (onedim + onedim).dtype == pyad.bool
    np.testing.assert_array_equal((onedim + True).data, onedim.data)
    assert (onedim + True).dtype == pyad.bool
    for a, b in [(True, True), (False, False), (False, True)]:
        r = pyad.add(a, b)
        assert r.item() is (a or b) and r.dtype == pyad.bool
    r = pyad.add(pyad.tensor(True), pyad.tensor(True), alpha=True)
    assert r.dtype == pyad.bool and r.item() is True


def test_booleans_alpha_true_with_integers(default_dtype):
    # (the error half of test_booleans)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
        pyad.add(1, 1, alpha=True)


def test_create_bool_tensors(default_dtype):
    expected = [0]
    r = pyad.arange(False, True)
    assert r.dtype == pyad.int64 and r.tolist() == expected
    r = pyad.arange(True)
    assert r.dtype == pyad.int64 and r.tolist() == expected
    r = pyad.arange(False, True, 0.5)
    assert r.dtype == pyad.get_default_dtype() and r.tolist() == [0, 0.5]
    r = pyad.arange(False, False)
    assert r.dtype == pyad.int64 and r.shape == (0,)
    for fn in ("linspace", "logspace"):
        a = getattr(pyad, fn)(False, True, 100)
        b = getattr(pyad, fn)(0, 1, 100)
        assert a.dtype == b.dtype == pyad.get_default_dtype()
        np.testing.assert_array_equal(a.data, b.data)
    r = pyad.scalar_tensor(False)
    assert r.dtype == pyad.get_default_dtype() and r.shape == () and r.item() == 0.0


def test_result_type(default_dtype):
    i32 = pyad.int32
    assert pyad.result_type(pyad.tensor(1, dtype=i32), 1) == i32
    assert pyad.result_type(1, pyad.tensor(1, dtype=i32)) == i32
    assert pyad.result_type(1, 1.0) == pyad.get_default_dtype()
    assert pyad.result_type(pyad.tensor(1), 1.0) == pyad.get_default_dtype()
    assert pyad.result_type(pyad.tensor(1, dtype=pyad.int64),
                            pyad.tensor([1, 1], dtype=i32)) == i32
    assert pyad.result_type(pyad.tensor([1.0, 1.0], dtype=pyad.float32), 1.0) == pyad.float32
    assert pyad.result_type(pyad.tensor(1.0, dtype=pyad.float32),
                            pyad.tensor(1, dtype=pyad.float64)) == pyad.float64


@pytest.mark.parametrize("dt0", MATH_DTYPES + COMPLEX_DTYPES)
def test_result_type_dtype_pairs(dt0):
    # (torch's newer test_result_type: Variable, 0-d Variable and Python number of each
    # dtype against each other; a + b has the dtype result_type names, or both raise;
    # bfloat16's arithmetic is test_bfloat16_arithmetic)
    for dt1 in MATH_DTYPES + COMPLEX_DTYPES:
        def operands(m):
            a = m.tensor((0, 1), dtype=getattr(m, dt0))
            a1 = m.tensor(1, dtype=getattr(m, dt0))
            b = m.tensor((1, 0), dtype=getattr(m, dt1))
            b1 = m.tensor(1, dtype=getattr(m, dt1))
            return (a, a1, a1.item()), (b, b1, b1.item())
        for i, j in itertools.product(range(3), range(3)):
            if i == 2 and j == 2:
                continue            # Python's own arithmetic
            both(lambda m: operands(m)[0][i] + operands(m)[1][j])
            both(lambda m: m.result_type(operands(m)[0][i], operands(m)[1][j]))
            if i == j:
                r = operands(pyad)
                try:
                    res = r[0][i] + r[1][j]
                except RuntimeError:
                    continue
                assert res.dtype == pyad.promote_types(P(dt0), P(dt1))


def test_result_type_tensor_vs_scalar(default_dtype):
    def spot(a, b, res_dtype):
        assert pyad.result_type(a, b) == res_dtype
        assert pyad.result_type(b, a) == res_dtype

    t = pyad.tensor
    spot(t([1, 2], dtype=pyad.float16), t(1, dtype=pyad.int64), pyad.float16)
    spot(t(1, dtype=pyad.float32), t([1, 2], dtype=pyad.float64), pyad.float64)
    spot(t(1, dtype=pyad.int32), 1, pyad.int32)
    spot(t(1), 1.0, pyad.get_default_dtype())
    spot(t(1, dtype=pyad.int64), t([1, 1], dtype=pyad.int32), pyad.int32)
    spot(t([1.0, 1.0], dtype=pyad.float32), 1.0, pyad.float32)
    spot(t([1.0, 1.0], dtype=pyad.complex64), t(1.0, dtype=pyad.complex128), pyad.complex64)
    spot(t([1.0, 1.0], dtype=pyad.complex128), t(1.0, dtype=pyad.complex64), pyad.complex128)
    spot(t([1, 1], dtype=pyad.bool), 1.0, pyad.get_default_dtype())


_OPERANDS = [
    ("dim_int8", lambda m: m.tensor([1, 2], dtype=m.int8)),
    ("dim_uint8", lambda m: m.tensor([1, 2], dtype=m.uint8)),
    ("dim_bool", lambda m: m.tensor([True, False])),
    ("dim_f16", lambda m: m.tensor([1.0, 2.0], dtype=m.float16)),
    ("dim_f64", lambda m: m.tensor([1.0, 2.0], dtype=m.float64)),
    ("dim_c64", lambda m: m.tensor([1.0, 2.0], dtype=m.complex64)),
    ("zero_int16", lambda m: m.tensor(3, dtype=m.int16)),
    ("zero_bool", lambda m: m.tensor(True)),
    ("zero_f64", lambda m: m.tensor(1.5, dtype=m.float64)),
    ("zero_f16", lambda m: m.tensor(1.5, dtype=m.float16)),
    ("zero_c128", lambda m: m.tensor(1j, dtype=m.complex128)),
    ("py_bool", lambda m: True),
    ("py_int", lambda m: 3),
    ("py_float", lambda m: 2.5),
    ("py_complex", lambda m: 1 + 2j),
]


@pytest.mark.parametrize("a", _OPERANDS, ids=[o[0] for o in _OPERANDS])
def test_result_type_table(a, default_dtype):
    # (test_result_type's rule over Python numbers, 0-d and dimensioned Variables of
    # every category, under both default dtypes, against torch.result_type and the
    # dtype of a + b)
    for b in _OPERANDS:
        def rt(m):
            return m.result_type(a[1](m), b[1](m))
        if not isinstance(a[1](torch), torch.Tensor) and not isinstance(b[1](torch),
                                                                        torch.Tensor):
            continue        # torch.result_type(number, number) is tested above
        both(rt)
        both(lambda m: a[1](m) + b[1](m))


def test_can_cast(default_dtype):
    assert pyad.can_cast(pyad.float64, pyad.float32)
    assert not pyad.can_cast(pyad.float32, pyad.int32)


@pytest.mark.parametrize("src", ALL_DTYPES)
def test_can_cast_table(src):
    for dst in ALL_DTYPES:
        assert pyad.can_cast(P(src), P(dst)) == torch.can_cast(T(src), T(dst)), (src, dst)


_VALUE_FOR_TYPE = {"uint8": 1 << 5, "int8": 1 << 5, "int16": 1 << 10, "int32": 1 << 20,
                   "int64": 1 << 35, "float16": 1 << 10, "float32": 1 << 20,
                   "float64": 1 << 35}
_CMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
        "eq": operator.eq, "ne": operator.ne}


@pytest.mark.parametrize("name", list(_CMP))
def test_comparison_ops_with_type_promotion(name, default_dtype):
    for dt1, dt2 in itertools.product(_VALUE_FOR_TYPE, _VALUE_FOR_TYPE):
        val1, val2 = _VALUE_FOR_TYPE[dt1], _VALUE_FOR_TYPE[dt2]
        for shape in ([1], []):
            t1 = pyad.tensor([val1] if shape else val1, dtype=P(dt1))
            t2 = pyad.tensor([val2] if shape else val2, dtype=P(dt2))
            expected = _CMP[name](val1, val2)
            for res in (getattr(pyad, name)(t1, t2), _CMP[name](t1, t2)):
                assert res.dtype == pyad.bool
                assert res.tolist() == ([expected] if shape else expected), (dt1, dt2)
            assert t1.dtype == P(dt1) and t2.dtype == P(dt2)


@pytest.mark.parametrize("name", list(_CMP))
def test_comparison_ops_with_type_promotion_out(name):
    # (the out= half of test_comparison_ops_with_type_promotion: a bool out of one
    # element, resized to the result)
    for dt1, dt2 in itertools.product(_VALUE_FOR_TYPE, _VALUE_FOR_TYPE):
        val1, val2 = _VALUE_FOR_TYPE[dt1], _VALUE_FOR_TYPE[dt2]
        t1 = pyad.tensor([val1], dtype=P(dt1))
        t2 = pyad.tensor([val2], dtype=P(dt2))
        res = getattr(pyad, name)(t1, t2, out=pyad.empty(1, dtype=pyad.bool))
        assert res.dtype == pyad.bool
        assert res.tolist() == [_CMP[name](val1, val2)]


def test_lt_with_type_promotion(default_dtype):
    for dt in MATH_DTYPES:
        for x in (pyad.tensor([0], dtype=P(dt)), pyad.tensor(0, dtype=P(dt))):
            for actual in (x < 0.5, x < pyad.tensor(0.5)):
                assert actual.dtype == pyad.bool
                assert bool(actual.data.all())


def test_complex_assertraises():
    # ordering comparisons with a complex operand raise; == and != do not
    dtypes = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64",
              "complex64", "complex128"]
    for name, op in _CMP.items():
        for dt1, dt2 in itertools.product(dtypes, dtypes):
            u = pyad.tensor([1], dtype=P(dt1))
            v = pyad.tensor([2], dtype=P(dt2))
            if (dt1.startswith("complex") or dt2.startswith("complex")) and \
                    name not in ("eq", "ne"):
                with pytest.raises(RuntimeError):
                    op(u, v)
            else:
                assert op(u, v).tolist() == [op(1, 2)]


def test_promote_types(default_dtype):
    assert pyad.promote_types(pyad.float32, pyad.int32) == pyad.float32
    assert pyad.promote_types(pyad.float32, pyad.float64) == pyad.float64
    assert pyad.promote_types(pyad.int32, pyad.uint8) == pyad.int32


def test_promote_self(default_dtype):
    for dtype in ALL_DTYPES:
        assert pyad.promote_types(P(dtype), P(dtype)) == P(dtype)


@pytest.mark.parametrize("dt1", ALL_DTYPES)
def test_promote_types_table(dt1):
    # (torch.promote_types over every pair pyad has)
    for dt2 in ALL_DTYPES:
        assert dname(pyad.promote_types(P(dt1), P(dt2))) == \
            dname(torch.promote_types(T(dt1), T(dt2))), (dt1, dt2)


def test_indexing_fail(default_dtype):
    a = pyad.ones(5, 2, dtype=pyad.float64)
    b = pyad.zeros(5, dtype=pyad.int32)

    def f():
        a[:, [1]] = b.unsqueeze(-1)
    # issue 28010 (torch's message has changed from 'expected dtype' to "Index put
    # requires the source and destination dtypes match")
    with pytest.raises(RuntimeError, match="dtypes match"):
        f()


def test_indexing(default_dtype):
    x = pyad.ones(5, 2, dtype=pyad.float64)
    y = pyad.zeros(5, dtype=pyad.float64)
    x[:, [1]] = y.unsqueeze(-1)
    np.testing.assert_array_equal(x.data, [(1, 0)] * 5)
    assert x.dtype == pyad.float64

    # issue 27824
    tmp = pyad.ones(9, 9, dtype=pyad.float32)
    mask = pyad.ones(10, 10, dtype=pyad.uint8)
    result = tmp + mask[1:, 1:]
    assert result.dtype == pyad.float32
    np.testing.assert_array_equal(result.data, np.full((9, 9), 2.0, np.float32))


def test_transpose(default_dtype):
    a = pyad.tensor([[True, True], [False, True]])
    np.testing.assert_array_equal((a.t() == 0).data, (a.t() == False).data)  # noqa: E712
    np.testing.assert_array_equal((a.t() == 0).data, [[False, True], [False, False]])


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_div_promotion(dtype, default_dtype):
    # (test_true_divide in older torch): div and true_divide of integers give the default
    # dtype, equal to dividing the values cast to it
    raw = (np.random.default_rng(3).standard_normal(5) * 100).astype(np.float32)
    for op in ("div", "true_divide"):
        dividend = pyad.tensor(raw).to(P(dtype))
        divisor = pyad.arange(1, 6).to(P(dtype))
        d = pyad.get_default_dtype()
        casting = dividend.to(d) / divisor.to(d)
        r = getattr(pyad, op)(dividend, divisor)
        assert r.dtype == d
        np.testing.assert_array_equal(r.data, casting.data)
        casting = dividend.to(d) / 2
        r = getattr(pyad, op)(dividend, 2.0)
        assert r.dtype == d
        np.testing.assert_array_equal(r.data, casting.data)
        # and against torch on the same values
        both(lambda m: getattr(m, op)(m.tensor(raw).to(getattr(m, dtype)),
                                      m.arange(1, 6).to(getattr(m, dtype))))


_DIV_DTYPES = ["float32", "float64", "bool", "uint8", "int8", "int16", "int32", "int64"]


def _dividend_divisor(m, dtype):
    raw = np.random.default_rng(4).standard_normal(5).astype(np.float32) * 100
    return (m.tensor(raw).to(getattr(m, dtype)), m.arange(1, 6).to(getattr(m, dtype)))


@pytest.mark.parametrize("dtype", _DIV_DTYPES)
def test_div_promotion_out(dtype):
    for op in (pyad.div, pyad.true_divide):
        dividend, divisor = _dividend_divisor(pyad, dtype)
        if dtype not in ("float32", "float64"):
            integral_quotient = pyad.empty(5, dtype=P(dtype))
            with pytest.raises(RuntimeError):
                op(dividend, divisor, out=integral_quotient)
            with pytest.raises(RuntimeError):
                op(dividend, 2, out=integral_quotient)
        else:
            floating_quotient = pyad.empty(5, dtype=P(dtype))
            np.testing.assert_array_equal(
                (dividend / divisor).data, op(dividend, divisor, out=floating_quotient).data)
            np.testing.assert_array_equal(
                (dividend / 2).data, op(dividend, 2, out=floating_quotient).data)


@pytest.mark.parametrize("dtype", _DIV_DTYPES)
def test_div_promotion_inplace(dtype):
    for op in ("div_", "true_divide_"):
        dividend, divisor = _dividend_divisor(pyad, dtype)
        if dtype not in ("float32", "float64"):
            with pytest.raises(RuntimeError):
                getattr(dividend, op)(divisor)
            with pytest.raises(RuntimeError):
                getattr(dividend, op)(2)
        else:
            np.testing.assert_array_equal(dividend.clone().div_(divisor).data,
                                          getattr(dividend.clone(), op)(divisor).data)
            np.testing.assert_array_equal(dividend.clone().div_(2).data,
                                          getattr(dividend.clone(), op)(2).data)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integer_addcdiv_deprecated(dtype):
    t = pyad.tensor(1, dtype=P(dtype))
    with pytest.raises(RuntimeError, match="^(addcdiv_?\\(\\): )?Integer division.+is no "
                                           "longer supported"):
        pyad.addcdiv(t, t, t)
    with pytest.raises(RuntimeError, match="^(addcdiv_?\\(\\): )?Integer division.+is no "
                                           "longer supported"):
        t.addcdiv_(t, t)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integer_div_deprecated(dtype):
    # torch 2.x: / of integers is true division (no warning left to check): the
    # quotient's dtype and values against torch, and floor division keeps the dtype
    both(lambda m: m.tensor(7, dtype=getattr(m, dtype)) / m.tensor(2, dtype=getattr(m, dtype)))
    both(lambda m: m.div(m.tensor([7, 9], dtype=getattr(m, dtype)),
                         m.tensor([2, 4], dtype=getattr(m, dtype))))
    both(lambda m: m.div(m.tensor([7, 9], dtype=getattr(m, dtype)),
                         m.tensor([2, 4], dtype=getattr(m, dtype)), rounding_mode="floor"))
    both(lambda m: m.tensor([7, 9], dtype=getattr(m, dtype)) // 2)


@pytest.mark.parametrize("np_type", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                     "float16", "float32", "float64", "complex64",
                                     "complex128"])
def test_numpy_array_binary_ufunc_promotion(np_type, default_dtype):
    # Variable + ndarray (the Variable first): the ndarray counts as a Variable of its
    # dtype, as torch's t + torch.from_numpy(a)
    for torch_type in MATH_DTYPES + COMPLEX_DTYPES:
        a = np.array((1,), dtype=np_type)
        both(lambda m: m.tensor((1,), dtype=getattr(m, torch_type)) +
             (a if m is pyad else torch.from_numpy(a)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_abs_complex_to_float(dtype):
    rng = np.random.default_rng(5)
    vals = [complex(rng.random() * k, rng.random() * k) for k in (-1, 1, -10, 10, -100, 100)
            for _ in range(10)]
    for v in (vals, []):
        a = np.array(v, dtype=dtype)
        t = pyad.tensor(v, dtype=P(dtype))
        r = pyad.abs(t)
        assert r.dtype == np.abs(a).dtype
        np.testing.assert_array_equal(r.data, np.abs(a))
        # inplace: torch's test took t.abs_() on a complex tensor; torch 2.13 refuses it
        # ("In-place abs is not supported for complex tensors") and so does pyad
        with pytest.raises(RuntimeError, match="In-place abs is not supported for complex"):
            torch.tensor(vals, dtype=T(dtype)).abs_()
        with pytest.raises(RuntimeError, match="In-place abs is not supported for complex"):
            t.abs_()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_abs_complex_to_float_out(dtype):
    # (the out= half of test_abs_complex_to_float: real outs of the right and the wrong
    # size take |z|, a complex out takes |z| + 0j, an int64 out is refused)
    vals = [1 + 2j, -3.5 + 0.5j, 10j]
    a = np.array(vals, dtype=dtype)
    t = pyad.tensor(vals, dtype=P(dtype))
    real = pyad.float32 if dtype == "complex64" else pyad.float64
    for out in (pyad.empty(3, dtype=real), pyad.empty(1, dtype=real)):
        pyad.abs(t, out=out)
        np.testing.assert_allclose(out.data, np.abs(a), rtol=1e-6)
    out = pyad.empty(1, dtype=P(dtype))
    pyad.abs(t, out=out)
    np.testing.assert_allclose(out.data, np.abs(a).astype(dtype), rtol=1e-6)
    with pytest.raises(RuntimeError):
        pyad.abs(t, out=pyad.empty(0, dtype=pyad.int64))


# ------------------------------------------------------------------------------------
# TestTensorCreation: dtype inference
# ------------------------------------------------------------------------------------

def test_tensor_factory_type_inference(default_dtype):
    d = pyad.get_default_dtype()
    dc = pyad.complex64 if d == pyad.float32 else pyad.complex128
    assert pyad.tensor(()).dtype == d
    assert pyad.tensor(5.0).dtype == d
    assert pyad.tensor(5).dtype == pyad.int64
    assert pyad.tensor(True).dtype == pyad.bool
    assert pyad.tensor(5, dtype=pyad.int32).dtype == pyad.int32
    assert pyad.tensor(((7, 5), (9, 5.0))).dtype == d
    assert pyad.tensor(((5.0, 5), (3, 5))).dtype == d
    assert pyad.tensor(((5, 3), (3, 5))).dtype == pyad.int64
    assert pyad.tensor(((5, 3 + 2j), (3, 5 + 4j))).dtype == dc
    # NumPy arrays keep their dtype
    assert pyad.tensor(np.array(())).dtype == pyad.float64
    assert pyad.tensor(np.array(5.0)).dtype == pyad.float64
    assert pyad.tensor(np.array(5)).dtype == pyad.int64
    assert pyad.tensor(np.array(5.0, dtype=np.float16)).dtype == pyad.float16
    assert pyad.tensor(np.array((5, 3), dtype=np.int16)).dtype == pyad.int16
    assert pyad.tensor(np.array((3.0, 5.0), dtype=np.float32)).dtype == pyad.float32
    assert pyad.tensor(np.array((3 + 2j, 5.0), dtype=np.complex64)).dtype == pyad.complex64
    assert pyad.tensor(np.array((3 + 2j, 5.0))).dtype == pyad.complex128


_TENSOR_DATA = [
    [1, 2, 3], [1.0, 2, 3], [True, False], [True, 2], [True, 2.5], [1, 2 + 0j],
    [[1, 2], [3, 4.5]], [], [[]], [1 + 1j, True], 7, 7.5, False, 2j,
    [np.int16(3), np.int16(4)], [np.float16(1.5), 2], [np.float64(1.5)],
    [np.float64(1.5), np.float32(2.0)], [np.int32(1), 2.5], np.float32(3.5),
    np.int8(4), np.bool_(True), [np.bool_(True), np.bool_(False)],
]


@pytest.mark.parametrize("data", _TENSOR_DATA, ids=[repr(d) for d in _TENSOR_DATA])
@pytest.mark.parametrize("factory", ["tensor", "as_tensor"])
def test_tensor_factory_inference_table(factory, data, default_dtype):
    # (the rule of test_tensor_factory_type_inference over more Python data: lists of
    # ints/floats/bools/complex, NumPy scalars inside and outside lists)
    both(lambda m: getattr(m, factory)(data))


@pytest.mark.parametrize("data", [[1, 2], [1.5, 2.5], [True, False], [1 + 2j]],
                         ids=["ints", "floats", "bools", "complex"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128", "bfloat16"])
def test_tensor_factory_explicit_dtype(data, dtype):
    both(lambda m: m.tensor(data, dtype=getattr(m, dtype)))


def test_tensor_factory_copy_dtype():
    # as_tensor with a dtype copies into it; without one it keeps the source's dtype
    source = pyad.randn(5, 5, dtype=pyad.float64)
    assert pyad.as_tensor(source).dtype == pyad.float64
    assert pyad.as_tensor(source, dtype=pyad.float32).dtype == pyad.float32
    assert pyad.tensor(source).dtype == pyad.float64
    a = np.arange(4, dtype=np.int32)
    assert pyad.as_tensor(a).dtype == pyad.int32
    assert pyad.as_tensor(a, dtype=pyad.float16).dtype == pyad.float16


def test_arange_inference():
    old = pyad.get_default_dtype()
    pyad.set_default_dtype(pyad.float32)
    try:
        tensor = pyad.tensor
        # end only
        assert pyad.arange(1.0).dtype == pyad.float32
        assert pyad.arange(tensor(1.0)).dtype == pyad.float32
        assert pyad.arange(tensor(1.0, dtype=pyad.float64)).dtype == pyad.float32
        assert pyad.arange(1).dtype == pyad.int64
        assert pyad.arange(tensor(1)).dtype == pyad.int64
        assert pyad.arange(tensor(1, dtype=pyad.int16)).dtype == pyad.int64
        # start, end, [step]
        assert pyad.arange(1.0, 3).dtype == pyad.float32
        assert pyad.arange(tensor(1.0, dtype=pyad.float64), 3).dtype == pyad.float32
        assert pyad.arange(1, 3.0).dtype == pyad.float32
        assert pyad.arange(tensor(1, dtype=pyad.int16), tensor(3.0)).dtype == pyad.float32
        assert pyad.arange(1, 3, 1.0).dtype == pyad.float32
        assert pyad.arange(tensor(1), tensor(3, dtype=pyad.int16),
                           tensor(1.0, dtype=pyad.float64)).dtype == pyad.float32
        assert pyad.arange(1, 3).dtype == pyad.int64
        assert pyad.arange(tensor(1), 3).dtype == pyad.int64
        assert pyad.arange(tensor(1), tensor(3, dtype=pyad.int16)).dtype == pyad.int64
        assert pyad.arange(1, 3, 1).dtype == pyad.int64
        assert pyad.arange(tensor(1), tensor(3), tensor(1, dtype=pyad.int16)).dtype == \
            pyad.int64
    finally:
        pyad.set_default_dtype(old)


@pytest.mark.parametrize("args", [(5,), (5.0,), (1, 4), (1, 4.0), (0, 1, 0.25), (True,),
                                  (np.int32(4),), (np.float64(2.0),), (0, 2, np.float32(0.5))],
                         ids=repr)
@pytest.mark.parametrize("dtype", [None, "int32", "float64", "float16", "uint8"])
def test_arange_dtype_table(args, dtype, default_dtype):
    both(lambda m: m.arange(*args) if dtype is None else
         m.arange(*args, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
@pytest.mark.parametrize("args", [(0, 1, 5), (0.0, 1.0, 5), (-2, 2, 4), (1, 3, 3)], ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "float32", "int64", "int32"])
def test_linspace_logspace_deduction(fn, args, dtype, default_dtype):
    # (test_linspace_deduction / test_logspace_deduction: no dtype -> the default dtype,
    # even for integer bounds; an integer dtype truncates torch's way)
    # (torch computes the points in the output dtype from both ends; the values agree
    # within torch's own assertEqual tolerance, as torch's test_linspace checks them
    # against NumPy)
    both(lambda m: getattr(m, fn)(*args) if dtype is None else
         getattr(m, fn)(*args, dtype=getattr(m, dtype)), close=True)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_full_inference(dtype):
    # torch: bool fill -> bool, int -> int64, float -> the default dtype, complex -> the
    # default's complex dtype (complex32 under float16 in torch: complex64 in pyad, the
    # documented "No complex32")
    old = pyad.get_default_dtype()
    pyad.set_default_dtype(P(dtype))
    try:
        size = (2, 2)
        assert pyad.full(size, True).dtype == pyad.bool
        assert pyad.full(size, 1).dtype == pyad.int64
        assert pyad.full(size, 1.0).dtype == P(dtype)
        ctype = pyad.complex128 if dtype == "float64" else pyad.complex64
        assert pyad.full(size, 1 + 1j).dtype == ctype
    finally:
        pyad.set_default_dtype(old)


@pytest.mark.parametrize("fill", [True, 1, 1.0, 1 + 1j, np.float32(1.5), np.int16(3)],
                         ids=repr)
def test_full_inference_against_torch(fill, default_dtype):
    both(lambda m: m.full((2, 2), fill))


@pytest.mark.parametrize("fill", [True, 7, 2.5, -1])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float64",
                                   "complex64"])
def test_full_with_dtype(fill, dtype):
    both(lambda m: m.full((3,), fill, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("dtype", [None, "bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex64",
                                   "complex128", "bfloat16"])
def test_empty_full_dtypes(fn, dtype, default_dtype):
    # (do_test_empty_full's dtype checks: the factory makes the asked dtype, the default
    # without one)
    both(lambda m: getattr(m, fn)((2, 3)) if dtype is None else
         getattr(m, fn)((2, 3), dtype=getattr(m, dtype)), values=fn != "empty")


@pytest.mark.parametrize("dtype", [None, "bool", "int64", "float16", "float64", "complex128"])
def test_eye_dtype(dtype, default_dtype):
    both(lambda m: m.eye(3) if dtype is None else m.eye(3, dtype=getattr(m, dtype)))
    both(lambda m: m.eye(2, 4) if dtype is None else m.eye(2, 4, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
@pytest.mark.parametrize("src", ["bool", "int16", "int64", "float16", "float64", "complex64"])
@pytest.mark.parametrize("dtype", [None, "float32", "int32"])
def test_like_factories_dtype(fn, src, dtype):
    # *_like keeps the source's dtype; dtype= overrides it
    def f(m):
        x = m.zeros(2, 3, dtype=getattr(m, src))
        args = (x, 1) if fn == "full_like" else (x,)
        return getattr(m, fn)(*args) if dtype is None else \
            getattr(m, fn)(*args, dtype=getattr(m, dtype))
    both(f, values=fn != "empty_like")


def test_set_default_dtype_effects():
    # set_default_dtype changes what Python floats and the float factories make, never
    # the dtype of integer data or of explicit dtypes
    old_p, old_t = pyad.get_default_dtype(), torch.get_default_dtype()
    try:
        for name in ("float64", "float32", "float16"):
            torch.set_default_dtype(T(name))
            pyad.set_default_dtype(P(name))
            assert dname(pyad.get_default_dtype()) == dname(torch.get_default_dtype())
            for make in (lambda m: m.tensor(1.5), lambda m: m.tensor([1, 2]),
                         lambda m: m.zeros(2), lambda m: m.arange(2.0),
                         lambda m: m.tensor(1j), lambda m: m.full((1,), 2.0),
                         lambda m: m.tensor([1, 2]) * 1.5, lambda m: m.tensor([1, 2]) / 2,
                         lambda m: m.linspace(0, 1, 3)):
                both(make, values=False)
        # a dtype that is not floating is refused, as torch refuses it
        with pytest.raises(TypeError):
            pyad.set_default_dtype(pyad.int64)
        both(lambda m: m.set_default_dtype(m.int64))
    finally:
        pyad.set_default_dtype(old_p)
        torch.set_default_dtype(old_t)


def test_set_default_dtype_bfloat16():
    old_p, old_t = pyad.get_default_dtype(), torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.bfloat16)
        pyad.set_default_dtype(pyad.bfloat16)
        assert dname(pyad.get_default_dtype()) == "bfloat16"
        both(lambda m: m.tensor(1.5))
        both(lambda m: m.zeros(2))
    finally:
        pyad.set_default_dtype(old_p)
        torch.set_default_dtype(old_t)


_CAT_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
               "complex64", "complex128", "bool"]


@pytest.mark.parametrize("x_dtype", _CAT_DTYPES)
def test_cat_different_dtypes(x_dtype):
    for y_dtype in _CAT_DTYPES:
        x_vals, y_vals = [1, 2, 3], [4, 5, 6]
        x = pyad.tensor(x_vals, dtype=P(x_dtype))
        y = pyad.tensor(y_vals, dtype=P(y_dtype))
        if x_dtype == "bool":
            x_vals = [1, 1, 1]
        if y_dtype == "bool":
            y_vals = [1, 1, 1]
        res_dtype = pyad.result_type(x, y)
        res = pyad.cat([x, y])
        assert res.dtype == res_dtype
        np.testing.assert_array_equal(res.data, np.array(x_vals + y_vals, dtype=res_dtype))
        # cat: full and an empty Variable
        y = pyad.tensor([], dtype=P(y_dtype))
        res_dtype = pyad.result_type(x, y)
        res = pyad.cat([x, y])
        assert res.dtype == res_dtype
        np.testing.assert_array_equal(res.data, np.array(x_vals, dtype=res_dtype))
        both(lambda m: m.cat([m.tensor([1, 2, 3], dtype=getattr(m, x_dtype)),
                              m.tensor([], dtype=getattr(m, y_dtype))]))


def test_cat_out_different_dtypes():
    dtypes = [d for d in _CAT_DTYPES if d != "bool"]
    for x_dtype, y_dtype, out_dtype in itertools.product(dtypes, dtypes, dtypes):
        out = pyad.zeros(6, dtype=P(out_dtype))
        x = pyad.tensor([1, 2, 3], dtype=P(x_dtype))
        y = pyad.tensor([4, 5, 6], dtype=P(y_dtype))
        floating = lambda d: d.startswith(("float", "complex"))
        if ((x_dtype.startswith("float") or y_dtype.startswith("float"))
                and not floating(out_dtype)) or \
                ((x_dtype.startswith("complex") or y_dtype.startswith("complex"))
                 and not out_dtype.startswith("complex")):
            with pytest.raises(TypeError):          # (torch 2.13: TypeError, as its test)
                pyad.cat([x, y], out=out)
        else:
            pyad.cat([x, y], out=out)
            assert out.dtype == P(out_dtype)
            np.testing.assert_array_equal(out.data, [1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize("dt0", ["int64", "float32", "float64", "complex64", "complex128"])
def test_unary_op_out_casting(dt0):
    for dt1 in ["int64", "float32", "float64", "complex64", "complex128"]:
        for op in ("neg", "floor", "ceil"):
            def f(m):
                t = m.tensor(1, dtype=getattr(m, dt0))
                out = m.empty(0, dtype=getattr(m, dt1))
                getattr(m, op)(t, out=out)
                return out
            both(f)


def test_computation_ignores_out():
    out = pyad.empty(0, dtype=pyad.float64)
    t = pyad.tensor(33000, dtype=pyad.float16)
    result = pyad.add(t, t, out=out)
    np.testing.assert_array_equal(result.data, (t + t).data.astype(np.float64))
    a = pyad.tensor(1.5, dtype=pyad.float16)
    b = pyad.tensor(0.666, dtype=pyad.float16)
    result = pyad.true_divide(a, b, out=out)
    np.testing.assert_array_equal(result.data, (a / b).data.astype(np.float64))
    a = pyad.tensor(5, dtype=pyad.uint8)
    b = pyad.tensor(8, dtype=pyad.uint8)
    result = pyad.sub(a, b, out=out)
    np.testing.assert_array_equal(result.data, (a - b).data.astype(np.float64))


def _clamp_cases(dtypes):
    """torch's test_clamp_type_promotion cases: (input, min, max) arrays and, per pair of
    bound kinds (Variable, 0-d Variable, number), the dtype torch's test expects."""
    dtype0, dtype1, dtype2 = dtypes
    rng = np.random.default_rng(7)

    def raw(dtype):
        if dtype == "bool":
            return rng.integers(0, 2, 4).astype(bool)
        if dtype == "int32":
            return rng.integers(0, 10, 4).astype(np.int32)
        return rng.standard_normal(4).astype(dtype)
    return raw(dtype0), raw(dtype1), raw(dtype2)


def _bounds(m, a):
    t = m.tensor(a)
    return (t, t[0], t[0].item())


def _torch_expected_type(inp, max, min):
    # torch's expected_type: "first do a maybe dimensional boundary"
    arg1, arg2 = max, min
    if isinstance(max, torch.Tensor) and max.ndim == 0:
        arg1, arg2 = min, max
    exp_type = torch.result_type(inp, arg1)
    return torch.result_type(torch.empty_like(inp, dtype=exp_type), arg2)


_CLAMP_DTYPES = list(itertools.product(["bool", "int32", "float32", "float64"], repeat=3))
# (input, min, max) dtypes where pyad's clamp with a 0-d min and a dimensioned max
# differs from torch: bool/int32 input, 0-d float64 min, float32 max give float64 (torch:
# float32, a 0-d operand does not widen within its category); float32 input, 0-d float64
# min, float64 max give float64 with the min rounded to float32 first
_CLAMP_ZERO_DIM_WIDENS = {("bool", "float64", "float32"), ("int32", "float64", "float32"),
                          ("float32", "float64", "float64")}


@pytest.mark.parametrize("dtypes", _CLAMP_DTYPES, ids="-".join)
def test_clamp_type_promotion(dtypes):
    # clamp/clamp_min/clamp_max with Variable, 0-d Variable and number bounds of mixed
    # dtypes, where the result is not bool (as torch's test), against torch on the
    # same values, in-place forms where torch's test takes them
    inp_a, min_a, max_a = _clamp_cases(dtypes)
    tinp = torch.tensor(inp_a)
    for i, j in itertools.product(range(3), range(3)):
        if type(_bounds(torch, min_a)[i]) is not type(_bounds(torch, max_a)[j]):
            continue                # torch's test: min and max of one kind
        if i == 1 and j == 1:
            continue                # 0-d pairs take the scalar overload, tested apart
        if i == 1 and j == 0 and dtypes in _CLAMP_ZERO_DIM_WIDENS:
            continue                # test_clamp_type_promotion_zero_dim_bound
        exp_type = _torch_expected_type(tinp, _bounds(torch, min_a)[i], _bounds(torch, max_a)[j])
        if exp_type == torch.bool:
            continue
        ours = both(lambda m: m.clamp(m.tensor(inp_a), _bounds(m, min_a)[i],
                                      _bounds(m, max_a)[j]))
        assert dname(ours.dtype) == dname(exp_type)
        if tinp.dtype in (torch.float32, torch.float64) or exp_type == tinp.dtype:
            both(lambda m: m.tensor(inp_a).clamp_(_bounds(m, min_a)[i], _bounds(m, max_a)[j]))
    for i in range(3):
        exp_type = torch.result_type(tinp, _bounds(torch, min_a)[i])
        if exp_type == torch.bool:
            continue
        for fn in ("clamp_min", "clamp_max"):
            ours = both(lambda m: getattr(m, fn)(m.tensor(inp_a), _bounds(m, min_a)[i]))
            assert dname(ours.dtype) == dname(exp_type)
            if tinp.dtype in (torch.float32, torch.float64) or exp_type == tinp.dtype:
                both(lambda m: getattr(m.tensor(inp_a), fn + "_")(_bounds(m, min_a)[i]))


@pytest.mark.parametrize("dtypes", sorted(_CLAMP_ZERO_DIM_WIDENS), ids="-".join)
def test_clamp_type_promotion_zero_dim_bound(dtypes):
    inp_a, min_a, max_a = _clamp_cases(dtypes)
    both(lambda m: m.clamp(m.tensor(inp_a), _bounds(m, min_a)[1], _bounds(m, max_a)[0]))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_logspace(dtype):
    # the dtype= cases of torch's test_logspace (base 2, one point, start > end)
    both(lambda m: m.logspace(1, 1, 1, 2, dtype=getattr(m, dtype)))
    both(lambda m: m.logspace(0, 2, 3, 2, dtype=getattr(m, dtype)))
    both(lambda m: m.logspace(1, 0, 2, dtype=getattr(m, dtype)))
    np.testing.assert_array_equal(pyad.logspace(0, 2, 3, 2, dtype=P(dtype)).data, [1, 2, 4])
    np.testing.assert_array_equal(pyad.logspace(1, 0, 2, dtype=P(dtype)).data, [10, 1])


_NEW_SOURCES = ["uint8", "int32", "float16", "float64", "complex64", "bool"]


@pytest.mark.parametrize("src", _NEW_SOURCES)
def test_new_methods_dtype(src):
    # Tensor.new_tensor/new_full/new_zeros/new_ones/new_empty take the source's dtype
    # (not the data's or the fill's), and dtype= overrides it (torch's test_new_tensor
    # and the new_* checks of do_test_empty_full)
    def x(m):
        return m.zeros(2, dtype=getattr(m, src))
    both(lambda m: x(m).new_tensor([1, 1]))
    both(lambda m: x(m).new_tensor([1, 1], dtype=m.int32))
    both(lambda m: x(m).new_tensor(m.tensor([1.5, 2.5], dtype=m.float64)))
    both(lambda m: x(m).new_full((2, 3), 1))
    both(lambda m: x(m).new_full((2,), True, dtype=m.float32))
    both(lambda m: x(m).new_zeros((2, 3)))
    both(lambda m: x(m).new_ones(3, dtype=m.int16))
    both(lambda m: x(m).new_empty((2,)), values=False)
