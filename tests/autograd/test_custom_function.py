"""Custom autograd Functions: new style, static forward(ctx, ...) and
backward(ctx, ...) called through ``Fn.apply``; mark_dirty on views, the Function
contract (None for non-Variable outputs, vjp, setup_context) run on pyad and, when torch
is installed, on torch too."""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import Function, gradcheck, gradgradcheck, once_differentiable
from _torch_compare import LIBS, both, raises_in_both, torch


def leaf(values=(0.5, 1.0, 2.0), requires_grad=True, dtype=np.float64):
    return Variable(np.array(values, dtype=dtype), requires_grad=requires_grad)


# --------------------------------------------------------------------------------
# Functions used below
# --------------------------------------------------------------------------------

class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2.0 * x


class Exp(Function):
    # saves its output
    @staticmethod
    def forward(ctx, x):
        y = pyad.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class MulAdd(Function):
    # two inputs and a non-Variable argument; backward written with pyad ops
    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.save_for_backward(a, b)
        ctx.alpha = alpha
        return a * b + alpha * a * a

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = grad * (b + 2.0 * ctx.alpha * a) if ctx.needs_input_grad[0] else None
        gb = grad * a if ctx.needs_input_grad[1] else None
        return ga, gb, None


class SinCosLike(Function):
    # two outputs: (tanh(x), x * x)
    @staticmethod
    def forward(ctx, x):
        t = pyad.tanh(x)
        ctx.save_for_backward(x, t)
        return t, x * x

    @staticmethod
    def backward(ctx, g_t, g_sq):
        x, t = ctx.saved_tensors
        return g_t * (1.0 - t * t) + g_sq * 2.0 * x


class TanhOnce(Function):
    @staticmethod
    def forward(ctx, x):
        y = pyad.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        # raw NumPy on purpose
        return grad.data * (1.0 - y.data ** 2)


# --------------------------------------------------------------------------------
# Basics
# --------------------------------------------------------------------------------

def test_apply_runs_forward_and_backward():
    x = leaf()
    y = Square.apply(x)
    np.testing.assert_array_equal(y.data, x.data ** 2)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2 * x.data)


def test_grad_fn_is_named_after_the_function():
    y = Square.apply(leaf())
    assert y.grad_fn.name() == "SquareBackward"
    assert "grad_fn=<SquareBackward>" in repr(y)
    assert MulAdd.apply(leaf(), leaf(), 1.0).grad_fn.name() == "MulAddBackward"


def test_grad_fn_next_functions_point_to_inputs():
    a, b = leaf(), leaf(requires_grad=False)
    y = MulAdd.apply(a * 1.0, b, 2.0)
    (n0, _), (n1, _), (n2, _) = y.grad_fn.next_functions
    assert n0.name() == "MulBackward"
    assert n1 is None and n2 is None


@pytest.mark.parametrize("fn, inputs", [
    (Square.apply, lambda: (leaf(),)),
    (Exp.apply, lambda: (leaf(),)),
    (lambda a, b: MulAdd.apply(a, b, 0.7), lambda: (leaf(), leaf((1.5, -0.5, 0.3)))),
    (SinCosLike.apply, lambda: (leaf((0.3, -0.8, 1.1)),)),
], ids=["Square", "Exp", "MulAdd", "two_outputs"])
def test_custom_function_passes_gradcheck(fn, inputs):
    assert gradcheck(fn, inputs())


@pytest.mark.parametrize("fn, inputs", [
    (Square.apply, lambda: (leaf(),)),
    (Exp.apply, lambda: (leaf(),)),
    (lambda a, b: MulAdd.apply(a, b, 0.7), lambda: (leaf(), leaf((1.5, -0.5, 0.3)))),
    (SinCosLike.apply, lambda: (leaf((0.3, -0.8, 1.1)),)),
], ids=["Square", "Exp", "MulAdd", "two_outputs"])
def test_backward_written_with_pyad_ops_is_twice_differentiable(fn, inputs):
    assert gradgradcheck(fn, inputs())


def test_custom_function_second_derivative_matches_hand_math():
    x = leaf((0.5, 1.0))
    (g,) = pyad.grad(Exp.apply(x).sum(), x, create_graph=True)
    (h,) = pyad.grad(g.sum(), x)
    np.testing.assert_allclose(h.data, np.exp(x.data), rtol=1e-12)


def test_custom_function_matches_torch_function():
    torch = pytest.importorskip("torch")

    class TMulAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, alpha):
            ctx.save_for_backward(a, b)
            ctx.alpha = alpha
            return a * b + alpha * a * a

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * (b + 2.0 * ctx.alpha * a), grad * a, None

    av, bv = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.5])
    a, b = leaf(av), leaf(bv)
    ta = torch.tensor(av, requires_grad=True)
    tb = torch.tensor(bv, requires_grad=True)
    y = pyad.tanh(MulAdd.apply(a, b, 0.3)).sum()
    ty = torch.tanh(TMulAdd.apply(ta, tb, 0.3)).sum()
    np.testing.assert_allclose(y.item(), ty.item(), rtol=1e-12)
    y.backward()
    ty.backward()
    np.testing.assert_allclose(a.grad.data, ta.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(b.grad.data, tb.grad.numpy(), rtol=1e-10)


def test_forward_runs_without_recording():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad_enabled"] = pyad.is_grad_enabled()
            y = x * 2.0
            seen["inner_requires_grad"] = y.requires_grad
            seen["inner_grad_fn"] = y.grad_fn
            seen["input_is_variable"] = isinstance(x, Variable)
            return y

        @staticmethod
        def backward(ctx, g):
            seen["backward_arg_is_variable"] = isinstance(g, Variable)
            return g * 2.0

    x = leaf()
    y = Probe.apply(x)
    assert y.grad_fn.name() == "ProbeBackward"
    y.sum().backward()
    assert seen == {"grad_enabled": False, "inner_requires_grad": False, "inner_grad_fn": None,
                    "input_is_variable": True, "backward_arg_is_variable": True}


def test_apply_under_no_grad_records_nothing():
    with pyad.no_grad():
        y = Square.apply(leaf())
    assert not y.requires_grad and y.grad_fn is None


def test_apply_on_inputs_not_requiring_grad_records_nothing():
    y = Square.apply(leaf(requires_grad=False))
    assert not y.requires_grad and y.grad_fn is None


def test_output_returned_as_input_leaves_input_history_intact():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    x = leaf()
    y = Identity.apply(x)
    assert x.is_leaf and x.grad_fn is None
    assert y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 3.0))


# --------------------------------------------------------------------------------
# ctx: saved tensors, needs_input_grad, attributes, non-Variable arguments
# --------------------------------------------------------------------------------

def test_saved_tensors_returns_saved_variables():
    seen = {}

    class Save(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, None, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            saved = ctx.saved_tensors
            seen["saved"] = saved
            return g * saved[2], g * saved[0]

    a, b = leaf(), leaf((3.0, 4.0, 5.0))
    Save.apply(a, b).sum().backward()
    saved = seen["saved"]
    assert len(saved) == 3 and saved[1] is None
    np.testing.assert_array_equal(saved[0].data, a.data)
    np.testing.assert_array_equal(saved[2].data, b.data)
    np.testing.assert_array_equal(a.grad.data, b.data)


def test_save_for_backward_rejects_non_variables():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(np.ones(3))
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError):
        Bad.apply(leaf())


def test_modifying_saved_input_in_place_raises_on_backward():
    x = leaf()
    h = x * 1.0
    y = Square.apply(h)
    h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    assert "SquareBackward" in str(info.value)


def test_modifying_saved_output_in_place_raises_on_backward():
    y = Exp.apply(leaf())
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_tensors_freed_after_backward():
    x = leaf()
    y = Square.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_saved_tensors_retained_with_retain_graph():
    x = leaf()
    y = Square.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, 4 * x.data)


@pytest.mark.parametrize("a_rg, b_rg", [(True, True), (True, False), (False, True)])
def test_needs_input_grad_reflects_inputs(a_rg, b_rg):
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["forward"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen["backward"] = ctx.needs_input_grad
            return g, g, None

    a, b = leaf(requires_grad=a_rg), leaf(requires_grad=b_rg)
    Probe.apply(a, b, 2.0).sum().backward()
    assert seen["forward"] == (a_rg, b_rg, False)
    assert seen["backward"] == (a_rg, b_rg, False)


def test_ctx_attributes_carry_to_backward():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, k, mode):
            ctx.k = k
            ctx.mode = mode
            ctx.shape = x.shape
            return x * k

        @staticmethod
        def backward(ctx, g):
            assert ctx.mode == "fast" and ctx.shape == (3,)
            return g * ctx.k, None, None

    x = leaf()
    Scale.apply(x, 5.0, "fast").sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 5.0))


def test_non_variable_arguments_pass_through_unchanged():
    seen = {}

    class Args(Function):
        @staticmethod
        def forward(ctx, x, n, arr, flag, nothing):
            seen.update(n=n, arr=arr, flag=flag, nothing=nothing)
            return x * n

        @staticmethod
        def backward(ctx, g):
            return g * 3, None, None, None, None

    arr = np.arange(2)
    x = leaf()
    Args.apply(x, 3, arr, True, None).sum().backward()
    assert seen["n"] == 3 and seen["arr"] is arr and seen["flag"] is True
    assert seen["nothing"] is None
    np.testing.assert_array_equal(x.grad.data, np.full(3, 3.0))


def test_keyword_arguments_reach_forward():
    class Kw(Function):
        @staticmethod
        def forward(ctx, x, scale=1.0):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale

    x = leaf()
    Kw.apply(x, scale=4.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 4.0))


# --------------------------------------------------------------------------------
# Multiple outputs, mark_non_differentiable, set_materialize_grads, mark_dirty
# --------------------------------------------------------------------------------

def test_multiple_outputs_share_one_node():
    x = leaf((0.3, -0.8, 1.1))
    t, sq = SinCosLike.apply(x)
    assert t.grad_fn is sq.grad_fn
    assert t.output_nr == 0 and sq.output_nr == 1
    (t.sum() + sq.sum()).backward()
    np.testing.assert_allclose(x.grad.data, 1 - np.tanh(x.data) ** 2 + 2 * x.data)


def test_unused_output_gradient_arrives_as_zeros_by_default():
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g2"] = g2
            return g1 * 2.0 + g2 * 3.0

    x = leaf()
    a, b = Two.apply(x)
    a.sum().backward()
    assert isinstance(seen["g2"], Variable)
    np.testing.assert_array_equal(seen["g2"].data, np.zeros(3))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


def test_set_materialize_grads_false_gives_none_for_unused_outputs():
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g1"], seen["g2"] = g1, g2
            out = g1 * 2.0 if g1 is not None else None
            if g2 is not None:
                out = g2 * 3.0 if out is None else out + g2 * 3.0
            return out

    x = leaf()
    a, b = Two.apply(x)
    a.sum().backward()
    assert seen["g2"] is None
    np.testing.assert_array_equal(seen["g1"].data, np.ones(3))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


def test_mark_non_differentiable_output_does_not_require_grad_and_grad_is_zeros():
    seen = {}

    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            idx = np.argsort(x.data)
            ctx.idx = idx
            values = Variable(x.data[idx])
            order = Variable(idx.astype(np.float64))   # float, yet not differentiable
            ctx.mark_non_differentiable(order)
            return values, order

        @staticmethod
        def backward(ctx, g_values, g_order):
            seen["g_order"] = g_order
            out = np.zeros_like(g_values.data)
            out[ctx.idx] = g_values.data
            return Variable(out)

    x = leaf((2.0, 0.5, 1.0))
    values, order = SortLike.apply(x)
    assert values.requires_grad
    assert not order.requires_grad and order.grad_fn is None
    (values * Variable(np.array([1.0, 10.0, 100.0]))).sum().backward()
    np.testing.assert_array_equal(seen["g_order"].data, np.zeros(3))
    np.testing.assert_array_equal(x.grad.data, [100.0, 1.0, 10.0])


def test_integer_outputs_are_not_differentiable():
    class WithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0, Variable(np.argsort(x.data))

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2.0

    values, idx = WithIndex.apply(leaf())
    assert values.requires_grad and not idx.requires_grad


def test_mark_dirty_inplace_forward_rewrites_history():
    class AddOne_(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 1.0

    x = leaf()
    h = x * 2.0
    version = h._version
    out = AddOne_.apply(h)
    assert out is h
    assert h.grad_fn.name() == "AddOne_Backward"
    assert h._version > version
    np.testing.assert_array_equal(h.data, 2 * x.data + 1)
    (h * h).sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2 * 2 * (2 * x.data + 1))


def test_mark_dirty_invalidates_earlier_saved_value():
    class AddOne_(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf()
    h = x * 2.0
    y = pyad.exp(h) * h             # MulBackward saved h at version 0
    AddOne_.apply(h)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_mark_dirty_on_leaf_requiring_grad_raises():
    class AddOne_(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="leaf"):
        AddOne_.apply(leaf())


# --------------------------------------------------------------------------------
# Gradients returned by backward: count, shape, dtype
# --------------------------------------------------------------------------------

def test_backward_returning_too_few_gradients_raises_naming_the_function():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="TooFew.*incorrect number of gradients"):
        TooFew.apply(leaf(), leaf()).sum().backward()


def test_backward_returning_too_many_gradients_raises_naming_the_function():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="TooMany.*incorrect number of gradients"):
        TooMany.apply(leaf()).sum().backward()


def test_backward_may_return_extra_nones():
    class ExtraNone(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0, None, None

    x = leaf()
    ExtraNone.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


def test_backward_returning_wrong_shape_raises_naming_function_and_index():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, Variable(np.ones(4))

    with pytest.raises(RuntimeError, match="BadShape") as info:
        BadShape.apply(leaf(), leaf()).sum().backward()
    assert "1" in str(info.value)     # the index of the bad gradient


def test_backward_returning_broadcast_shape_is_summed_to_input_shape():
    class Broad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            return Variable(np.ones((2, 3)))      # input is (3,): expandable

    x = leaf()
    Broad.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


@pytest.mark.parametrize("in_dtype, out_dtype", [(np.float64, np.float32),
                                                 (np.float32, np.float64)])
def test_backward_returning_wrong_dtype_is_cast_to_input_dtype(in_dtype, out_dtype):
    class BadDtype(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            return Variable((g.data * 2.0).astype(out_dtype))

    x = leaf(dtype=in_dtype)
    BadDtype.apply(x).sum().backward()
    assert x.grad.dtype == in_dtype
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0, dtype=in_dtype))


def test_backward_returning_non_variable_garbage_raises_naming_the_function():
    class Garbage(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            return "not a gradient"

    with pytest.raises(TypeError, match="Garbage"):
        Garbage.apply(leaf()).sum().backward()


def test_gradient_for_input_not_requiring_grad_is_ignored():
    class Both(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g * 1.0, g * 1.0

    a, b = leaf(), leaf(requires_grad=False)
    Both.apply(a, b).sum().backward()
    assert b.grad is None
    np.testing.assert_array_equal(a.grad.data, np.ones(3))


# --------------------------------------------------------------------------------
# once_differentiable
# --------------------------------------------------------------------------------

def test_once_differentiable_backward_runs():
    x = leaf((0.3, -0.8, 1.1))
    TanhOnce.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, 1 - np.tanh(x.data) ** 2, rtol=1e-12)


def test_once_differentiable_passes_gradcheck():
    assert gradcheck(TanhOnce.apply, (leaf((0.3, -0.8, 1.1)),))


def test_once_differentiable_backward_runs_with_grad_disabled():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            seen["enabled"] = pyad.is_grad_enabled()
            return g * 2.0

    x = leaf()
    (g,) = pyad.grad(Probe.apply(x).sum(), x, create_graph=True)
    assert seen["enabled"] is False
    np.testing.assert_array_equal(g.data, np.full(3, 2.0))


def test_double_differentiation_through_once_differentiable_raises():
    x = leaf((0.3, -0.8, 1.1))
    (g,) = pyad.grad(TanhOnce.apply(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        pyad.grad(g.sum(), x)


def test_double_backward_through_once_differentiable_raises():
    x = leaf((0.3, -0.8, 1.1))
    TanhOnce.apply(x).sum().backward(create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        x.grad.sum().backward()


def test_once_differentiable_keeps_function_name():
    assert TanhOnce.backward.__name__ == "backward"


def test_backward_may_return_a_python_number_meaning_a_filled_gradient():
    class Shift(Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1.0

        @staticmethod
        def backward(ctx, g):
            return 2.0

    x = Variable(np.ones(3), requires_grad=True)
    Shift.apply(x).sum().backward()
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


def test_backward_returning_a_string_raises_naming_the_function():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return "oops"

    x = Variable(np.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match="BadBackward.*str"):
        Bad.apply(x).sum().backward()


# -- mark_dirty on views and on values that are not inputs -----------------------------

def _add_b(lib):
    class AddB(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 10, g * 100

    return AddB


def test_mark_dirty_on_a_view_input_keeps_the_custom_backward():
    def scenario(lib):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        out = _add_b(lib).apply(x.clone().view_as(x), b)
        out.sum().backward()
        return x.grad, b.grad

    both(scenario, ([10.0, 10.0], [100.0, 100.0]))


def test_mark_dirty_on_a_view_of_an_intermediate_records_on_the_base():
    def scenario(lib):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        b = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = _add_b(lib).apply(y[0], b)
        y.sum().backward()
        return x.grad, b.grad, out.requires_grad

    both(scenario, ([[10.0] * 3, [1.0] * 3], [100.0] * 3, True))


def test_mark_dirty_of_a_value_not_returned_raises():
    def scenario(lib):
        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        NotReturned.apply(lib.ones(2, requires_grad=True) * 1)

    raises_in_both(scenario, RuntimeError, "dirty")


def test_mark_dirty_of_a_non_input_warns():
    for lib in LIBS:
        class Fresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g

        with pytest.warns(UserWarning, match="not an input"):
            Fresh.apply(lib.ones(2, requires_grad=True))


# -- mark_dirty with save_for_backward on a view: no reference cycle -------------------

def test_mark_dirty_and_save_for_backward_on_a_view_make_no_cycle():
    class Scale(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        leaf = pyad.ones(2, 2, dtype=pyad.float64, requires_grad=True)
        base = leaf * 1
        view = base[0]
        out = Scale.apply(view)
        refs = [weakref.ref(o) for o in (base, view, out, out.grad_fn)]
        del base, view, out
        assert [r() for r in refs] == [None] * 4
    finally:
        if was_enabled:
            gc.enable()


def test_saved_dirty_view_output_unpacks_with_the_functions_history():
    # The saved (modified) view is output 0 of the Function: differentiating the
    # backward w.r.t. it reaches the Function's node, as the math says.
    class Square(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(x)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors         # y = x^2; dy/dx = 2x = 2 sqrt(y)
            return g * 2 * y.sqrt()

    leaf = pyad.tensor([[3.0, 4.0]], dtype=pyad.float64, requires_grad=True)
    out = Square.apply((leaf * 1)[0])
    out.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [[6.0, 8.0]])


# -- the Function contract: backward inputs, outputs, vjp, setup_context ---------------

def test_backward_receives_none_for_a_non_variable_output():
    def scenario(lib):
        seen = []

        class WithInt(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 3

            @staticmethod
            def backward(ctx, g, g_int):
                seen.append(g_int)
                return g * 2

        x = lib.ones(2, requires_grad=True)
        a, n = WithInt.apply(x)
        a.sum().backward()
        return seen[0], n, x.grad

    both(scenario, (None, 3, [2.0, 2.0]))


def test_an_output_returned_twice_is_one_object_on_the_last_slot():
    def scenario(lib):
        seen = []

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                return out, out

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1, g2))
                return g1 + 3 * g2

        x = lib.ones(2, requires_grad=True)
        a, b = Twice.apply(x)
        a.sum().backward()
        return a is b, a.output_nr, seen[0][0], seen[0][1], x.grad

    both(scenario, (True, 1, [0.0, 0.0], [1.0, 1.0], [3.0, 3.0]))


def test_defining_both_backward_and_vjp_raises():
    def scenario(lib):
        class Both(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        Both.apply(lib.ones(2, requires_grad=True)).sum().backward()

    raises_in_both(scenario, RuntimeError, "both 'backward' and 'vjp'")


def test_vjp_alone_defines_the_backward():
    def scenario(lib):
        class OnlyVjp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 5

        x = lib.ones(2, requires_grad=True)
        OnlyVjp.apply(x).sum().backward()
        return x.grad

    both(scenario, [5.0, 5.0])


def test_setup_context_style_functions():
    def scenario(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(x, output)

            @staticmethod
            def backward(ctx, g):
                x, out = ctx.saved_tensors
                return g * ctx.k + 0 * x * out, None

        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y = Scale.apply(x, 3.0)
        gx, = lib.autograd.grad(y.sum(), x, create_graph=True)
        return y, gx

    both(scenario, ([3.0, 3.0], [3.0, 3.0]))


def test_saved_variables_is_deprecated():
    class Keep(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            with pytest.warns(DeprecationWarning, match="saved_tensors"):
                x, = ctx.saved_variables
            return g * 2

    x = pyad.ones(2, requires_grad=True)
    Keep.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


# -- a gradient returned for an input that is not a Variable ---------------------------

def _scale_function(lib, grad_for_k):
    base = pyad.autograd.Function if lib is pyad else torch.autograd.Function

    class Scale(base):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = 2.0 if k is None else k
            return x * ctx.k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, (g if grad_for_k else None)
    return Scale


@pytest.mark.parametrize("k", [2.0, 3, None])
def test_function_returning_a_gradient_for_a_non_variable_input_raises(k):
    # torch: "function ScaleBackward returned a gradient different than None at
    # position 2, but the corresponding forward input was not a Variable"
    for lib in [pyad] + ([torch] if torch is not None else []):
        Scale = _scale_function(lib, True)
        if lib is pyad:
            x = pyad.Variable(np.ones(3), requires_grad=True)
        else:
            x = torch.ones(3, dtype=torch.float64, requires_grad=True)
        out = Scale.apply(x, k)
        with pytest.raises(RuntimeError, match="returned a gradient different than None at "
                                               "position 2, but the corresponding forward "
                                               "input was not a Variable"):
            out.sum().backward()
        assert x.grad is None


def test_function_returning_none_for_a_non_variable_input_is_fine():
    Scale = _scale_function(pyad, False)
    x = pyad.Variable(np.ones(3), requires_grad=True)
    Scale.apply(x, 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 2.0])
