"""In-place ops: add_, sub_, mul_, div_, zero_, fill_, copy_, the in-place unary ops
(exp_, log_, sqrt_, tanh_, sigmoid_, relu_, neg_, pow_), ``__setitem__``,
+= -= *= /=, and the indexing twins (masked_fill_, index_fill_, index_add_, index_copy_,
scatter_, scatter_add_).

Differentiable use is on non-leaves (``z = x.clone(); z.op_(...)``): the gradient
must flow through the rewritten history to x and to the other operand."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, PYAD, standard_op_tests)
from _shape_refs import NP_REF

C34 = np.random.default_rng(13).uniform(0.5, 1.5, size=(3, 4))


def _ip(name, *consts, alpha=1):
    """z = x.clone(); z.<name>(consts...); constants given as arrays or numbers."""
    def f(L, x):
        z = L.clone(x)
        args = [L.c(c) for c in consts]
        kw = {} if alpha == 1 else {"alpha": alpha}
        return L.inplace(z, name, *args, **kw)
    return f


def _ip2(name, pre=None, alpha=1):
    """z = pre(x) (a non-leaf); z.<name>(y) with y a differentiable input too."""
    def f(L, x, y):
        z = L.clone(x) if pre is None else pre(L, x)
        kw = {} if alpha == 1 else {"alpha": alpha}
        return L.inplace(z, name, y, **kw)
    return f


IDX_REPEAT = np.array([0, 2, 0])
IDX_DISTINCT = np.array([2, 0])
SCATTER_0 = np.array([[0, 2, 1, 0], [2, 0, 0, 1]])
MASK = np.array([[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]])


def _ipi(name, *consts, pre=None, **kwargs):
    """z = pre(x) (a non-leaf; x * 1 by default); z.<name>(consts..., y...) with the
    inputs after x (y, ...) differentiable operands. NumPy: the out-of-place reference
    written back into z."""
    def f(L, x, *ys):
        z = x * 1.0 if pre is None else pre(L, x)
        args = [L.c(c) if isinstance(c, np.ndarray) else c for c in consts] + list(ys)
        if L.name == "numpy":
            z = np.asarray(z)
            z[...] = NP_REF[name[:-1]](z, *args, **kwargs)
            return z
        return getattr(z, name)(*args, **kwargs)
    return f


CASES = [
    # with constants
    Case("add__scalar", _ip("add_", 2.5), [(3, 4)]),
    Case("add__ndarray", _ip("add_", C34), [(3, 4)]),
    Case("sub__scalar", _ip("sub_", 1.5), [(3, 4)]),
    Case("mul__scalar", _ip("mul_", 3.0), [(3, 4)]),
    Case("mul__ndarray_broadcast", _ip("mul_", C34[0]), [(3, 4)]),
    Case("div__scalar", _ip("div_", 4.0), [(3, 4)]),
    Case("div__ndarray", _ip("div_", C34), [(3, 4)]),
    Case("iadd_scalar", _ip("iadd", 2.0), [(3, 4)]),
    Case("isub_ndarray", _ip("isub", C34), [(3, 4)]),
    Case("imul_scalar", _ip("imul", -2.0), [(3, 4)]),
    Case("itruediv_scalar", _ip("itruediv", 8.0), [(3, 4)]),
    Case("zero_", lambda L, x: L.inplace(L.clone(x), "zero_") + x, [(3, 4)]),
    Case("fill__scalar", lambda L, x: L.inplace(L.clone(x), "fill_", 1.5) * x, [(3, 4)]),
    Case("copy__ndarray", lambda L, x: L.inplace(L.clone(x), "copy_", L.c(C34)) * x, [(3, 4)]),
    # the other operand requires grad too
    Case("add__variable", _ip2("add_"), [(3, 4), (3, 4)]),
    Case("add__variable_alpha", _ip2("add_", alpha=2.0), [(3, 4), (3, 4)]),
    Case("add__variable_broadcast", _ip2("add_"), [(3, 4), (4,)]),
    Case("sub__variable", _ip2("sub_"), [(3, 4), (3, 1)]),
    Case("sub__variable_alpha", _ip2("sub_", alpha=0.5), [(3, 4), (3, 4)]),
    Case("mul__variable", _ip2("mul_"), [(3, 4), (3, 4)]),
    Case("mul__variable_broadcast", _ip2("mul_"), [(3, 4), (1, 4)]),
    Case("div__variable", _ip2("div_"), [(3, 4), (3, 4)]),
    Case("iadd_variable", _ip2("iadd"), [(3, 4), (4,)]),
    Case("isub_variable", _ip2("isub"), [(3, 4), (3, 4)]),
    Case("imul_variable", _ip2("imul"), [(3, 4), (3, 4)]),
    Case("itruediv_variable", _ip2("itruediv"), [(3, 4), (3, 4)]),
    Case("fill__0d_variable", _ip2("fill_"), [(3, 4), ()]),
    Case("copy__variable", _ip2("copy_"), [(3, 4), (3, 4)]),
    Case("copy__variable_broadcast", _ip2("copy_"), [(3, 4), (4,)]),
    # in-place on an op result whose backward needs its output or input
    Case("mul__after_log", _ip2("mul_", pre=lambda L, x: L.log(x)), [(3, 4), (3, 4)],
         domain="positive"),
    Case("add__after_matmul", _ip2("add_", pre=lambda L, x: L.matmul(x, L.T(x))),
         [(3, 4), (3, 3)]),
    Case("div__after_square", _ip2("div_", pre=lambda L, x: x * x), [(3, 4), (3, 4)]),
    Case("chain_of_inplace", lambda L, x, y: L.inplace(L.inplace(L.inplace(
        L.clone(x), "mul_", y), "add_", x), "imul", y), [(3, 4), (3, 4)]),
    Case("inplace_then_nonlinear", lambda L, x, y: L.sigmoid(L.inplace(L.clone(x), "mul_", y)),
         [(3, 4), (3, 4)]),
    # in-place unary ops on a non-leaf (the old value is what their backward needs)
    # the indexing twins
    Case("masked_fill__number", _ipi("masked_fill_", MASK, 0.5), [(3, 4)]),
    Case("masked_fill__variable", _ipi("masked_fill_", MASK), [(3, 4), ()], empty=False),
    Case("masked_fill__after_exp", _ipi("masked_fill_", MASK[0], -1.0,
                                        pre=lambda L, x: x * x), [(3, 4)]),
    Case("index_fill__number", _ipi("index_fill_", 1, IDX_DISTINCT, 2.0), [(3, 4)]),
    Case("index_fill__variable", _ipi("index_fill_", 0, IDX_REPEAT), [(3, 4), ()],
         empty=False),
    Case("index_add__repeats", _ipi("index_add_", 0, IDX_REPEAT), [(3, 4), (3, 4)]),
    Case("index_add__alpha", _ipi("index_add_", 1, IDX_DISTINCT, alpha=0.5,
                                  pre=lambda L, x: x * x), [(3, 4), (3, 2)]),
    Case("index_copy_", _ipi("index_copy_", 0, IDX_DISTINCT, pre=lambda L, x: x * x),
         [(3, 4), (2, 4)]),
    Case("scatter__src", _ipi("scatter_", 0, SCATTER_0), [(3, 4), (2, 4)]),
    Case("put_", _ipi("put_", np.array([[1, -1], [5, 0]]), pre=lambda L, x: x * x),
         [(3, 4), (2, 2)], zero_d=False, empty=False),
    Case("put__accumulate", _ipi("put_", np.array([3, 3, -12]), accumulate=True),
         [(3, 4), (3,)], zero_d=False, empty=False),
    Case("scatter__number", _ipi("scatter_", 0, SCATTER_0, 1.5, pre=lambda L, x: x * x),
         [(3, 4)]),
    Case("scatter_add__repeats", _ipi("scatter_add_", 1, np.array([[0, 0], [3, 3], [1, 2]]),
                                      pre=lambda L, x: x * x), [(3, 4), (3, 2)]),
    Case("exp_", lambda L, x: L.inplace(x * 0.5, "exp_"), [(3, 4)]),
    Case("log_", lambda L, x: L.inplace(x * 2.0, "log_"), [(3, 4)], domain="positive"),
    Case("sqrt_", lambda L, x: L.inplace(x * 2.0, "sqrt_"), [(3, 4)], domain="positive"),
    Case("tanh_", lambda L, x: L.inplace(x * 1.5, "tanh_"), [(3, 4)]),
    Case("sigmoid_", lambda L, x: L.inplace(x * 1.5, "sigmoid_"), [(3, 4)]),
    Case("relu_", lambda L, x: L.inplace(x * 1.5, "relu_") * x, [(3, 4)]),
    Case("neg_", lambda L, x: L.inplace(x * 1.5, "neg_") * x, [(3, 4)]),
    Case("pow__3", lambda L, x: L.inplace(x * 1.5, "pow_", 3), [(3, 4)]),
    Case("pow__half", lambda L, x: L.inplace(x * 1.5, "pow_", 0.5), [(3, 4)],
         domain="positive"),
    Case("chained_unary_inplace", lambda L, x: L.inplace(L.inplace(
        L.inplace(x * 0.5, "mul_", 2.0), "add_", 0.25), "tanh_"), [(3, 4)]),
    # __setitem__: the overwritten part gets no gradient, the value gets it
    Case("setitem_constant_row", lambda L, x: L.inplace(x * 2.0, "setitem", 1, 0.5) * x,
         [(3, 4)]),
    Case("setitem_variable_slice", lambda L, x, y: L.inplace(
        x * 2.0, "setitem", (slice(0, 2), 1), y * y), [(3, 4), (2,)]),
    Case("setitem_variable_broadcast_row", lambda L, x, y: L.inplace(
        x * 2.0, "setitem", 2, y * 3.0) * x, [(3, 4), (1,)]),
    Case("setitem_ellipsis_column", lambda L, x, y: L.inplace(
        x * 1.0, "setitem", (Ellipsis, 0), L.sigmoid(y)), [(3, 4), (3,)]),
]



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


# --------------------------------------------------------------------------------
# In-place semantics
# --------------------------------------------------------------------------------

INPLACE_CALLS = {
    "add_": lambda z: z.add_(1.0),
    "sub_": lambda z: z.sub_(1.0),
    "mul_": lambda z: z.mul_(2.0),
    "div_": lambda z: z.div_(2.0),
    "zero_": lambda z: z.zero_(),
    "fill_": lambda z: z.fill_(3.0),
    "copy_": lambda z: z.copy_(np.full((2, 3), 5.0)),
    "pyad.add_": lambda z: pyad.add_(z, 1.0),
    "pyad.mul_": lambda z: pyad.mul_(z, 2.0),
}
AUGMENTED = ["+=", "-=", "*=", "/="]


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "non_leaf"])
@pytest.mark.parametrize("name", list(INPLACE_CALLS))
def test_inplace_op_returns_self_writes_same_memory_and_bumps_version(name, requires_grad):
    x = pyad.Variable(np.arange(6.0).reshape(2, 3), requires_grad=requires_grad)
    z = x * 1.0 if requires_grad else x
    buffer = z.data
    version = z._version
    out = INPLACE_CALLS[name](z)
    assert out is z
    assert z.data is buffer
    assert z._version > version


@pytest.mark.parametrize("op", AUGMENTED)
def test_augmented_assignment_keeps_object_and_memory(op):
    x = pyad.Variable(np.arange(1.0, 7.0).reshape(2, 3))
    z = x
    buffer = x.data
    version = x._version
    expected = eval("buffer.copy() %s 2.0" % op[0])
    exec("z %s 2.0" % op)
    assert z is x and x.data is buffer
    np.testing.assert_allclose(x.data, expected, rtol=1e-15, atol=0)
    assert x._version > version


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_float32_inplace_with_float64_operand_stays_float32(name):
    z = pyad.Variable(np.ones(3, dtype=np.float32))
    other = np.array([2.0, 3.0, 4.0])
    getattr(z, name)(other)
    assert z.dtype == np.float32
    expected = {"add_": 1 + other, "sub_": 1 - other, "mul_": other, "div_": 1 / other}[name]
    np.testing.assert_array_equal(z.data, expected.astype(np.float32))   # one rounding


def test_inplace_broadcast_to_bigger_shape_raises():
    z = pyad.Variable(np.ones(3))
    with pytest.raises(RuntimeError):
        z.add_(np.ones((2, 3)))


def test_inplace_int_variable_with_float_raises():
    z = pyad.Variable(np.arange(3))
    with pytest.raises(RuntimeError):
        z.mul_(1.5)


def test_fill_with_non_0d_variable_raises():
    z = pyad.Variable(np.ones(3))
    with pytest.raises(RuntimeError, match="0-dimension"):
        z.fill_(pyad.Variable(np.ones(2)))


def test_copy_casts_source_to_destination_dtype():
    z = pyad.Variable(np.zeros(3, dtype=np.float32))
    z.copy_(pyad.Variable(np.array([1.5, 2.5, 3.5])))
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z.data, np.array([1.5, 2.5, 3.5], dtype=np.float32))


def test_copy_gradient_flows_to_source_and_not_to_overwritten_value():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    src = pyad.Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    z = x * 2.0
    z.copy_(src)
    (z * z).sum().backward()
    np.testing.assert_array_equal(src.grad.data, 2 * src.data)
    np.testing.assert_array_equal(x.grad.data, np.zeros(3))


def test_zero_gives_zero_gradient_to_previous_value():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    z = x * 3.0
    z.zero_()
    (z + x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.ones(3))


def test_inplace_on_leaf_requiring_grad_raises():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    for call in INPLACE_CALLS.values():
        if call is INPLACE_CALLS["copy_"]:
            continue
        with pytest.raises(RuntimeError, match="leaf"):
            call(x)


def test_inplace_on_leaf_requiring_grad_works_under_no_grad():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    with pyad.no_grad():
        x.mul_(2.0)
        x += 1.0
        x.sub_(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.data, [2.0, 1.0, 0.0])
    assert x.is_leaf and x.requires_grad and x.grad_fn is None


def test_inplace_on_non_leaf_records_the_inplace_op_node():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    z = x * 2.0
    first = z.grad_fn
    z.add_(1.0)
    assert z.grad_fn is not first
    assert not z.is_leaf


def test_inplace_on_plain_variable_with_grad_operand_makes_it_require_grad():
    y = pyad.Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    z = pyad.Variable(np.ones(3))
    z.mul_(y)
    assert z.requires_grad and z.grad_fn is not None
    z.sum().backward()
    np.testing.assert_array_equal(y.grad.data, np.ones(3))


@pytest.mark.parametrize("make", [lambda L, x: L.exp(x), lambda L, x: L.tanh(x),
                                  lambda L, x: L.sigmoid(x), lambda L, x: L.sqrt(x)],
                         ids=["exp", "tanh", "sigmoid", "sqrt"])
def test_inplace_on_output_saved_by_its_op_raises_on_backward_like_torch(make):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0]), requires_grad=True)
    z = make(PYAD, x)
    z.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    torch = pytest.importorskip("torch")
    from _ops_helpers import torch_lib
    T, _ = torch_lib()
    t = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    tz = make(T, t)
    tz.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tz.sum().backward()


def test_unary_inplace_on_leaf_requiring_grad_raises_but_works_under_no_grad():
    x = pyad.Variable(np.array([0.5, 1.0]), requires_grad=True)
    with pytest.raises(RuntimeError, match="exp_.*leaf"):
        x.exp_()
    with pyad.no_grad():
        x.exp_()
    np.testing.assert_allclose(x.data, np.exp([0.5, 1.0]), rtol=1e-15, atol=0)
    assert x._version == 1


def test_setitem_on_leaf_requiring_grad_raises():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="__setitem__.*leaf"):
        x[0] = 2.0


def test_setitem_without_grad_writes_in_place_and_bumps_version():
    data = np.zeros((2, 3))
    x = pyad.Variable(data)
    x[1, 1:] = np.array([4.0, 5.0])
    assert data[1, 2] == 5.0 and x._version == 1


def test_setitem_bad_index_raises_index_error_naming_setitem():
    x = pyad.Variable(np.zeros(3))
    with pytest.raises(IndexError, match="__setitem__"):
        x[5] = 1.0


def test_uniform_and_normal_fill_in_place_reproducibly():
    pyad.manual_seed(3)
    a = pyad.zeros(1000, dtype=pyad.float64).uniform_(-2.0, 2.0)
    pyad.manual_seed(3)
    b = pyad.zeros(1000, dtype=pyad.float64).uniform_(-2.0, 2.0)
    np.testing.assert_array_equal(a.data, b.data)
    assert a.data.min() >= -2.0 and a.data.max() < 2.0
    n = pyad.zeros(20000, dtype=pyad.float64).normal_(1.0, 2.0)
    assert abs(n.data.mean() - 1.0) < 0.1 and abs(n.data.std() - 2.0) < 0.1


def test_random_fill_of_a_leaf_requiring_grad_needs_no_grad():
    w = pyad.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="normal_"):
        w.normal_()
    with pyad.no_grad():
        w.normal_()
    assert w.requires_grad and w.is_leaf


def test_inplace_after_an_inplace_op_that_saved_its_output_raises_like_torch():
    # exp_ saves its output, which is x itself; modifying x again invalidates it.
    x = pyad.Variable(np.array([0.5, 1.0]), requires_grad=True)
    y = x * 1.0
    y.exp_()
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_setitem_accepts_extra_leading_unit_dims_like_torch():
    torch = pytest.importorskip("torch")
    x0, w0 = np.array([1.0, 2.0, 3.0]), np.array([10.0])
    x = pyad.Variable(x0, requires_grad=True)
    w = pyad.Variable(w0, requires_grad=True)
    y = x * 1.0
    y[1] = w * 2
    (y * y).sum().backward()
    tx = torch.tensor(x0, requires_grad=True)
    tw = torch.tensor(w0, requires_grad=True)
    ty = tx * 1.0
    ty[1] = tw * 2
    (ty * ty).sum().backward()
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(w.grad.data, tw.grad.numpy(), rtol=1e-15, atol=0)
    assert w.grad.shape == (1,)


# -- in-place through views ------------------------------------------------------------

def _view_inplace_cases():
    def row_mul_(m, x):
        y = x * 2
        y[0:2].mul_(3)
        return (y * y).sum()

    def base_changed_after_view(m, x):
        y = x * 2
        v = y[:, 1]
        y.mul_(3)                       # v's history must follow y's new history
        return (v * v).sum()

    def transposed_row_add_(m, x):
        y = x * 1.0
        y.t()[0].add_(x[:, 0])
        return (y ** 2).sum()

    def reshaped_slice_exp_(m, x):
        y = x * 1.0
        y.reshape(12)[2:5].exp_()
        return (y * x).sum()

    def view_of_view_mul_(m, x):
        y = x * 1.0
        v = y[1]
        v[1:3].mul_(x[0, :2])
        return (y * y).sum() + (v * v).sum()

    def augmented_on_view_then_setitem(m, x):
        y = x * 1.0
        v = y[1:]
        v += 1
        v *= x[1:]
        y[0] = 0.5
        return (y * v.sum()).sum()

    def scalar_view_add_(m, x):
        y = x * 1.0
        y[1, 2].add_(x[0, 0])
        return (y * y).sum()

    return [row_mul_, base_changed_after_view, transposed_row_add_, reshaped_slice_exp_,
            view_of_view_mul_, augmented_on_view_then_setitem, scalar_view_add_]


@pytest.mark.parametrize("fn", _view_inplace_cases(), ids=lambda f: f.__name__)
def test_inplace_through_views_matches_torch(fn):
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(5).uniform(0.5, 1.5, (3, 4))
    x = pyad.Variable(x0, requires_grad=True)
    tx = torch.tensor(x0, requires_grad=True)
    out, tout = fn(pyad, x), fn(torch, tx)
    out.backward()
    tout.backward()
    np.testing.assert_allclose(out.item(), tout.item(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", _view_inplace_cases(), ids=lambda f: f.__name__)
def test_inplace_through_views_passes_gradcheck(fn):
    from pyad.autograd import gradcheck
    x = pyad.Variable(np.random.default_rng(6).uniform(0.5, 1.5, (3, 4)), requires_grad=True)
    assert gradcheck(lambda v: fn(pyad, v), (x,))


def test_view_of_a_leaf_requiring_grad_cannot_be_modified_in_place():
    x = pyad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        x[0].add_(1)


def test_integer_index_gives_a_view_so_inplace_changes_the_base():
    y = pyad.zeros(3)
    y[2].fill_(7.0)
    assert y.tolist() == [0.0, 0.0, 7.0]


@pytest.mark.parametrize("op", [
    lambda v: v.t_(), lambda v: v.transpose_(0, 1), lambda v: v.swapdims_(0, 1),
    lambda v: v.swapaxes_(1, 0), lambda v: v.unsqueeze(0).squeeze_(),
    lambda v: v.unsqueeze(1).squeeze_(1), lambda v: v.unsqueeze_(-1),
], ids=["t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "squeeze_-dim",
        "unsqueeze_"])
def test_inplace_metadata_op_on_a_view_of_a_leaf_raises_like_torch(op):
    torch = pytest.importorskip("torch")
    a = np.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="view of a leaf"):
        op(torch.tensor(a, requires_grad=True)[:, :])
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        op(pyad.Variable(a, requires_grad=True)[:, :])
    # allowed under no_grad, and on a view of a non-leaf (the gradient follows the view)
    with pyad.no_grad():
        v = op(pyad.Variable(a, requires_grad=True)[:, :])
    with torch.no_grad():
        tv = op(torch.tensor(a, requires_grad=True)[:, :])
    assert v.shape == tuple(tv.shape)
    x = pyad.Variable(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    v, tv = op((x * 1)[:, :]), op((tx * 1)[:, :])
    w = np.arange(6.0).reshape(v.shape) + 1
    (v * pyad.Variable(w)).sum().backward()
    (tv * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


@pytest.mark.parametrize("value", [
    lambda L: L.tensor(np.array(3.0), requires_grad=True),
    lambda L: L.tensor(np.arange(4.0), requires_grad=True),
    lambda L: L.tensor(np.arange(5.0)),
    lambda L: 2.5,
], ids=["0d", "row", "badshape", "number"])
def test_setitem_false_does_nothing_like_torch(value):
    # torch: x[False] = v returns at once: nothing written, no version bump, v's shape
    # not checked, v gets no gradient
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    x = pyad.Variable(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = x.clone(), tx.clone()
    v, tv = value(pyad), value(torch)
    y[False] = v
    ty[False] = tv
    assert y._version == ty._version == 0
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    leaves = [x] + ([v] if isinstance(v, pyad.Variable) and v.requires_grad else [])
    tleaves = [tx] + ([tv] if isinstance(tv, torch.Tensor) and tv.requires_grad else [])
    g = pyad.autograd.grad(y.sum(), leaves, allow_unused=True)
    tg = torch.autograd.grad(ty.sum(), tleaves, allow_unused=True)
    assert [e is None for e in g] == [e is None for e in tg]
    np.testing.assert_array_equal(g[0].data, tg[0].numpy())
    # a leaf that requires grad: still nothing (torch does not reach the leaf check)
    x[False] = 1.0
    tx[False] = 1.0
    assert x._version == tx._version == 0


def test_setitem_false_still_converts_a_number_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.zeros(3, dtype=torch.int64)[False] = 1 + 1j
    with pytest.raises(RuntimeError, match="__setitem__"):
        pyad.zeros(3, dtype=pyad.int64)[False] = 1 + 1j


@pytest.mark.parametrize("key", [
    lambda L: [0, 0, 2], lambda L: L.tensor([1, 1]), lambda L: L.tensor(True),
    lambda L: L.tensor(np.ones((3, 4), bool)), lambda L: (slice(None), [0, 1, 2, 3]),
], ids=["list", "tensor", "0dbool", "mask", "slice-list"])
@pytest.mark.parametrize("dts", [("int64", "float64"), ("float64", "float32"),
                                 ("complex128", "float64"), ("bool", "int64"),
                                 ("float32", "float64-0d")])
def test_setitem_advanced_refuses_a_value_of_another_dtype_like_torch(key, dts):
    # torch's index_put casts no Variable value: RuntimeError; a basic key casts
    torch = pytest.importorskip("torch")
    xdt, vdt = dts
    vshape = () if vdt.endswith("-0d") else (4,)
    vdt = vdt.replace("-0d", "")
    a = np.zeros((3, 4), xdt)
    v = np.ones(vshape, vdt)
    y, ty = pyad.tensor(a), torch.tensor(a)
    try:
        ty[key(torch)] = torch.tensor(v)
    except RuntimeError:
        with pytest.raises(RuntimeError, match=r"__setitem__\(\): Index put requires"):
            y[key(pyad)] = pyad.tensor(v)
    else:
        # one number through a single mask: torch's masked_fill, which casts
        assert vshape == () and key(pyad).dtype == pyad.bool
        y[key(pyad)] = pyad.tensor(v)
        np.testing.assert_array_equal(y.data, ty.numpy())
    y, ty = pyad.tensor(a), torch.tensor(a)
    y[0] = pyad.tensor(v)
    ty[0] = torch.tensor(v)
    np.testing.assert_array_equal(y.data, ty.numpy())


def test_writes_into_an_expanded_variable_as_torch():
    # torch refuses in-place ops whose elements share memory with the overlap error, and
    # allows the fills (every shared element gets the same value)
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        base = lib.zeros(1, 3)
        x = base.expand(4, 3)
        for call in (lambda: x.exp_(), lambda: x.add_(1), lambda: x.copy_(lib.ones(4, 3)),
                     lambda: x.clamp_(0, 1), lambda: lib.nn.functional.relu_(x)):
            with pytest.raises(RuntimeError, match="more than one element of the written-to"):
                call()
        x.fill_(2.0)
        assert (base.numpy() == 2).all()
        x.zero_()
        assert (base.numpy() == 0).all()
    frozen = pyad.Variable(np.broadcast_to(np.zeros(3), (2, 3)))   # not a view of a Variable
    with pytest.raises(RuntimeError, match="read-only"):
        frozen.exp_()


def test_unfold_of_a_0d_variable_as_torch():
    torch = pytest.importorskip("torch")
    for size in (0, 1):
        x = pyad.tensor(0.5, requires_grad=True)
        got = x.unfold(0, size, 1)
        want = torch.tensor(0.5).unfold(0, size, 1)
        assert got.shape == tuple(want.shape) and np.array_equal(got.detach().numpy(),
                                                                 want.numpy())
        got.sum().backward()
        assert x.grad.item() == float(size)
