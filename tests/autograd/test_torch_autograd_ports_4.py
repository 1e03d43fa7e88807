"""A fourth batch of PyTorch's own autograd tests (``test/test_autograd.py``, class
``TestAutograd`` of the current torch tree: hooks on nodes and accumulators, retains_grad
across in-place ops, grad-mode decorators on generators and coroutines, custom Functions
with non-Variable inputs and outputs, ``setup_context``, ``backward(inputs=...)``),
translated to pyad.

Each test keeps torch's name and the meaning of its assertions; ``torch.randn`` becomes a
fixed-seed NumPy draw, node names become pyad's ("MulBackward"). Expected values come from
torch's test (hand math) or from torch 2.13 run on the same inputs, never from pyad's
output.
"""
import gc
import math
import random
import warnings
import weakref
from functools import partial

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import Function, gradcheck, gradgradcheck
from pyad.autograd.function import once_differentiable

from _ported_helpers import SeededRandom, assert_equal, double_default_dtype  # noqa: F401

_random = SeededRandom(400)
randn, rand = _random.randn, _random.rand


def allclose(a, b):
    a = a.detach().numpy() if isinstance(a, Variable) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, Variable) else np.asarray(b)
    return np.allclose(a, b)


def var_mean(x, dim):
    return pyad.var_mean(x, dim=dim)


# --------------------------------------------------------------------------------
# grad mode
# --------------------------------------------------------------------------------

def test_grad_mode_class_decoration():
    # Decorating a class is deprecated (FutureWarning); functions and methods are fine.
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        @pyad.no_grad()
        class Foo:
            def __init__(self):
                assert not pyad.is_grad_enabled()

            def foo(self):
                # Not applied to methods
                assert pyad.is_grad_enabled()

        foo = Foo()
        foo.foo()

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")

        @pyad.no_grad()
        def foo():
            assert not pyad.is_grad_enabled()

        foo()

        class Foo2:
            @pyad.no_grad()
            def __init__(self):
                assert not pyad.is_grad_enabled()

            @pyad.no_grad()
            def foo(self):
                assert not pyad.is_grad_enabled()

        foo2 = Foo2()
        foo2.foo()
    assert len(w) == 0


def test_enable_grad_decorator_no_paren():
    x = pyad.ones(1, requires_grad=True)

    @pyad.enable_grad
    def doubler(x):
        return x * 2

    with pyad.no_grad():
        z = doubler(x)
    assert z.requires_grad


def test_set_grad_generator_functions_recursive():
    @pyad.enable_grad()
    def enable_grad_decorator_recursive(depth):
        assert pyad.is_grad_enabled()
        if depth > 0:
            no_grad_decorator_recursive(depth - 1)
            assert pyad.is_grad_enabled()

    @pyad.no_grad()
    def no_grad_decorator_recursive(depth):
        assert not pyad.is_grad_enabled()
        if depth > 0:
            enable_grad_decorator_recursive(depth - 1)
            assert not pyad.is_grad_enabled()

    def enable_grad_context_manager_recursive(depth):
        with pyad.enable_grad():
            assert pyad.is_grad_enabled()
            if depth > 0:
                no_grad_context_manager_recursive(depth - 1)
                assert pyad.is_grad_enabled()

    def no_grad_context_manager_recursive(depth):
        with pyad.no_grad():
            assert not pyad.is_grad_enabled()
            if depth > 0:
                enable_grad_context_manager_recursive(depth - 1)
                assert not pyad.is_grad_enabled()

    with pyad.enable_grad():
        assert pyad.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert pyad.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert pyad.is_grad_enabled()

    with pyad.no_grad():
        assert not pyad.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert not pyad.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert not pyad.is_grad_enabled()


def test_set_grad_coroutines():
    @pyad.no_grad()
    def coro_no_grad(n=10):
        assert not pyad.is_grad_enabled()
        for i in range(n):
            assert not pyad.is_grad_enabled()
            r = yield i
            assert not pyad.is_grad_enabled()
            assert i == r
        assert not pyad.is_grad_enabled()

    @pyad.enable_grad()
    def coro_enable_grad(n=10):
        assert pyad.is_grad_enabled()
        for i in range(n):
            assert pyad.is_grad_enabled()
            r = yield i
            assert pyad.is_grad_enabled()
            assert i == r
        assert pyad.is_grad_enabled()

    with pyad.enable_grad():
        assert pyad.is_grad_enabled()
        coro, r = coro_no_grad(), None
        try:
            while True:
                assert pyad.is_grad_enabled()
                r = coro.send(r)
                assert pyad.is_grad_enabled()
        except StopIteration:
            pass

    with pyad.no_grad():
        assert not pyad.is_grad_enabled()
        coro, r = coro_enable_grad(), None
        try:
            while True:
                assert not pyad.is_grad_enabled()
                r = coro.send(r)
                assert not pyad.is_grad_enabled()
        except StopIteration:
            pass


def test_set_grad_coroutines_benign_exceptions():
    class RecoverableException(Exception):
        pass

    @pyad.no_grad()
    def coro_no_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert not pyad.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert not pyad.is_grad_enabled()
                has_raised = True

    @pyad.enable_grad()
    def coro_enable_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert pyad.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert pyad.is_grad_enabled()
                has_raised = True

    with pyad.enable_grad():
        coro = coro_no_grad()
        assert next(coro) == 0
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass

    with pyad.no_grad():
        coro = coro_enable_grad()
        assert next(coro) == 0
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass


def test_set_grad_coroutines_critical_exceptions():
    class UnrecoverableException(Exception):
        pass

    class SecondaryException(Exception):
        pass

    @pyad.no_grad()
    def coro_no_grad(n=10):
        for i in range(n):
            try:
                assert not pyad.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert not pyad.is_grad_enabled()
                raise SecondaryException from None

    @pyad.enable_grad()
    def coro_enable_grad(n=10):
        for i in range(n):
            try:
                assert pyad.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert pyad.is_grad_enabled()
                raise SecondaryException from None

    with pyad.enable_grad():
        coro = coro_no_grad()
        assert next(coro) == 0
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)
        assert pyad.is_grad_enabled()

    with pyad.no_grad():
        coro = coro_enable_grad()
        assert next(coro) == 0
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)
        assert not pyad.is_grad_enabled()


def test_set_grad_coroutines_exit():
    @pyad.no_grad()
    def coro_no_grad(state):
        for i in range(10):
            try:
                assert not pyad.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert not pyad.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    @pyad.enable_grad()
    def coro_enable_grad(state):
        for i in range(10):
            try:
                assert pyad.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert pyad.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    state = set()
    with pyad.enable_grad():
        coro = coro_no_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state

    state = set()
    with pyad.no_grad():
        coro = coro_enable_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state


def test_set_grad_enabled_wraps():
    for decorator in [True, False]:
        with pyad.enable_grad():
            assert pyad.is_grad_enabled()
            if decorator:
                # This should not mutate the global grad mode!
                @pyad.set_grad_enabled(False)
                def inner_func(x):
                    return x.sin()
            else:
                def inner_func(x):
                    return x.sin()

                # Non-idiomatic: the constructor sets the mode at once ...
                obj = pyad.set_grad_enabled(False)
                assert not pyad.is_grad_enabled()
                # ... and wrapping a function consumes that global change.
                inner_func = obj(inner_func)
                assert pyad.is_grad_enabled()

            assert pyad.is_grad_enabled()
            x = pyad.zeros(1, requires_grad=True)
            assert not inner_func(x).requires_grad


# --------------------------------------------------------------------------------
# .grad access warnings, deprecated names
# --------------------------------------------------------------------------------

def test_tensor_grad_warnings():
    dummy = pyad.empty(1)

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        # Accessing .grad on leaf
        dummy.requires_grad_()
        dummy.grad
        assert len(w) == 0

        # Accessing .grad on non-leaf
        dummy = dummy.clone()
        dummy.grad
        assert len(w) == 1

        # Accessing .grad on non-leaf that retains gradients
        dummy.retain_grad()
        dummy.grad
        assert len(w) == 1


def test_volatile_deprecated():
    v = randn(3, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert not v.volatile
    assert "volatile" in str(w[0].message)


def test_saved_variables_deprecated():
    class MyFunction(Function):
        @staticmethod
        def forward(ctx, tensor1, tensor2):
            ctx.save_for_backward(tensor1, tensor2)
            return tensor1 + tensor2

        @staticmethod
        def backward(ctx, grad_output):
            var1, var2 = ctx.saved_variables
            return (grad_output, grad_output)

    with warnings.catch_warnings(record=True) as warns:
        warnings.simplefilter("always")
        x = randn(3, 3, requires_grad=True)
        y = randn(3, 3, requires_grad=True)
        MyFunction.apply(x, y).sum().backward()

    assert any("deprecated" in str(w.message) and "saved_variables" in str(w.message)
               for w in warns)


def test_backward_create_graph_makes_no_cycle_and_does_not_warn():
    # torch's test_backward_create_graph_warns checks the UserWarning "Using backward()
    # with create_graph=True will create a reference cycle between the parameter and its
    # gradient". pyad deliberately differs: its gradient's graph reaches the leaf only
    # through the accumulator's weak reference, so there is no such cycle and no warning
    # (docs/graph-semantics.md). This checks both halves of that claim.
    b = randn(3, requires_grad=True)
    c = b * b
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        c.backward(pyad.ones_like(c), create_graph=True)
    assert not any("create_graph=True" in str(w.message) for w in ws)
    assert_equal(b.grad, 2 * b)
    assert b.grad.grad_fn is not None
    ref = weakref.ref(b)
    gc.disable()
    try:
        del b, c
        assert ref() is None            # freed by reference counting alone: no cycle
    finally:
        gc.enable()


# --------------------------------------------------------------------------------
# custom Functions
# --------------------------------------------------------------------------------

def test_custom_function_non_tensor_inputs_outputs():
    class MyFunction(Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale

            # Save scale
            ctx.scale = scale
            ctx.save_for_backward(t1, t2, t3)
            return scale, t4, None, True, t5, "bar", t1

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            # Verify grads
            assert len(grads) == 7
            assert grads[0] is None
            assert grads[2] is None
            assert grads[3] is None
            assert grads[5] is None

            scale = ctx.scale
            var1, var2, var3 = ctx.saved_tensors
            return (
                grads[1] * scale + grads[4] * var2 * scale + grads[6],
                grads[1] * var3 * scale + grads[4] * var1 * scale,
                None,
                grads[1] * var2 * scale + grads[4] * scale,
            )

    t1 = rand(10, requires_grad=True)
    t2 = rand(10, requires_grad=True)
    t3 = rand(10)
    scale = random.Random(0).randint(1, 10)
    res = MyFunction.apply(t1, t2, scale, t3)
    assert res[0] == scale
    assert_equal(res[1], (t1 + t2 * t3) * scale)
    assert res[2] is None
    assert res[3] is True
    assert_equal(res[4], (t1 * t2 + t3) * scale)
    assert res[5] == "bar"
    assert_equal(res[6], t1)

    # Validate running backward.
    pyad.autograd.backward([res[1].sum(), res[4].sum(), res[6].sum()])
    assert t1.grad is not None
    assert t2.grad is not None
    assert t3.grad is None

    # Test gradcheck
    def foo(t1, t2, t3):
        res = MyFunction.apply(t1, t2, scale, t3)
        return res[1], res[4], res[6]

    assert gradcheck(foo, (t1, t2, t3))


def test_custom_function_no_tensors():
    class MyFunction(Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale
            return scale, t4, None, True, t5, "bar", t1

        @staticmethod
        @once_differentiable
        def backward(ctx, *args):
            return (args[0], args[1], None, args[2])

    rng = random.Random(1)
    t1 = rng.random()
    t2 = rng.random()
    t3 = rng.random()
    scale = rng.randint(0, 10)
    res = MyFunction.apply(t1, t2, scale, t3)
    assert res[0] == scale
    assert res[1] == pytest.approx((t1 + t2 * t3) * scale)
    assert res[2] is None
    assert res[3] is True
    assert res[4] == pytest.approx((t1 * t2 + t3) * scale)
    assert res[5] == "bar"
    assert res[6] == t1


def test_unrelated_inputs():
    # grad(grad)check runs even if there is an unrelated (but differentiable) input
    def my_function(x, y):
        return x * x

    x = rand(10, requires_grad=True)
    y = rand(10, requires_grad=True)

    assert gradcheck(my_function, (x, y))
    assert gradgradcheck(my_function, (x, y))


def test_custom_function_setup_context_simple():
    class MySquare(Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            return gO * 2 * x

    x = randn(requires_grad=True)
    y = MySquare.apply(x)
    (gx,) = pyad.autograd.grad(y, x)
    assert_equal(gx, 2 * x)


def test_custom_function_setup_context_multi_output():
    # Multiple outputs with some non-Variable outputs.
    class MySquare(Function):
        @staticmethod
        def forward(x):
            two_x = x.item() * 2
            return x ** 2, two_x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            _, two_x = output
            ctx.two_x = two_x

        @staticmethod
        @once_differentiable
        def backward(ctx, gO, _):
            return gO * ctx.two_x

    x = randn(requires_grad=True)
    y, _ = MySquare.apply(x)
    (gx,) = pyad.autograd.grad(y, x)
    assert_equal(gx, 2 * x)


def test_custom_function_setup_context_multi_input():
    class MyReshape(Function):
        @staticmethod
        def forward(x, shape, scale_forward, scale_backward):
            return x.reshape(shape) * scale_forward

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, shape, scale_forward, scale_backward = inputs
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape

        @staticmethod
        def backward(ctx, gO):
            return gO.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    class MyReshapeRef(Function):
        @staticmethod
        def forward(ctx, x, shape, scale_forward, scale_backward):
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape
            return x.reshape(shape) * scale_forward

        @staticmethod
        def backward(ctx, gO):
            return gO.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    def check(x, shape, scale_forward, scale_backward):
        y = MyReshape.apply(x, shape, scale_forward, scale_backward).sum()
        (gx,) = pyad.autograd.grad(y, x)

        y_expected = MyReshapeRef.apply(x, shape, scale_forward, scale_backward).sum()
        (gx_expected,) = pyad.autograd.grad(y_expected, x)

        assert_equal(y, y_expected)
        assert_equal(gx, gx_expected)
        # hand math: d/dx sum(reshape(x) * f) with the custom backward is scale_backward
        assert_equal(gx, pyad.ones_like(x) * scale_backward)

    check(randn(24, requires_grad=True), (3, 8), 7, 11)
    check(randn(2, 3, 4, requires_grad=True), (6, 4), -1, 2)


def test_grad_unreachable_discovery():
    # Nodes are not executed when an input is unreachable.
    class MyFunc(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, x):
            pytest.fail("This node should not be executed!")

    x = MyFunc.apply(randn(1, requires_grad=True) * 2)
    y = randn(1, requires_grad=True)
    (gY,) = pyad.autograd.grad(x, (y,), allow_unused=True)
    assert gY is None

    x = MyFunc.apply(randn(1, requires_grad=True) * 2)
    y = randn(1, requires_grad=True)
    z = randn(1, requires_grad=True)
    (gY, gZ) = pyad.autograd.grad(x + z, (y, z), allow_unused=True)
    assert gY is None
    assert gZ is not None

    x = MyFunc.apply(randn(1, requires_grad=True) * 2)
    y = randn(1, requires_grad=True)
    pyad.autograd.backward(x, inputs=(y,))  # allow_unused is implicitly True!
    assert y.grad is None


# --------------------------------------------------------------------------------
# grad / backward calls
# --------------------------------------------------------------------------------

def test_accumulate_grad_with_zero_numel_grad():
    a = rand(4, 0, requires_grad=True)
    b = rand(4, 1, requires_grad=True)
    c = a + b
    assert c.shape == (4, 0)
    c.sum().backward()

    assert_equal(b.grad, pyad.zeros(4, 1))
    assert_equal(a.grad, pyad.zeros(4, 0))


def test_grad_empty_inputs():
    x = pyad.tensor([1.0], requires_grad=True)
    # The stored test expects ValueError("grad requires non-empty inputs."); torch 2.13
    # raises RuntimeError("`inputs` argument to `grad()` cannot be empty."). torch 2.13
    # wins on the type; pyad's message carries both wordings.
    with pytest.raises(RuntimeError, match="grad requires non-empty inputs"):
        pyad.autograd.grad(2 * x, [], grad_outputs=pyad.tensor([1.0]))
    with pytest.raises(RuntimeError, match=r"`inputs` argument to `grad\(\)` cannot be empty"):
        pyad.autograd.grad(2 * x, [], grad_outputs=pyad.tensor([1.0]))


def test_grad_batched_grad():
    x = randn(2, 2, requires_grad=True)

    out = x.clone()  # Size([2, 2])
    batched_grad = pyad.arange(3).expand(2, 2, 3).transpose(0, 2)  # Size([3, 2, 2])
    (grad,) = pyad.autograd.grad(out, (x,), (batched_grad,), is_grads_batched=True)
    assert_equal(grad, pyad.arange(3).expand(2, 2, 3).transpose(0, 2).to(dtype=grad.dtype))

    # Detect shape mismatch
    grad_out = pyad.ones(2, 2)
    with pytest.raises(RuntimeError, match="If `is_grads_batched=True`, we interpret the first"):
        pyad.autograd.grad(outputs=out, grad_outputs=(grad_out,), inputs=(x,),
                           is_grads_batched=True)

    # Scalar outputs
    out = x.sum()  # Size([])
    batched_grad = pyad.arange(3)  # Size([3])
    (grad,) = pyad.autograd.grad(out, (x,), (batched_grad,), is_grads_batched=True)
    assert_equal(grad, pyad.arange(3).expand(2, 2, 3).transpose(0, 2).to(dtype=grad.dtype))

    # Scalar and sized-1 are a mismatch, as in the non-batched case.
    grad_out = pyad.ones(2).unsqueeze(1)
    with pytest.raises(RuntimeError, match="If `is_grads_batched=True`, we interpret the first"):
        pyad.autograd.grad(outputs=out, grad_outputs=(grad_out,), inputs=(x,),
                           is_grads_batched=True)


def test_backward_with_inputs():
    x = randn(2, 2, requires_grad=True)
    y = randn(2, 2, requires_grad=True)

    def fn():
        return x ** 2 + y * x + y ** 2

    gradient = pyad.ones(2, 2)
    x_grad_expected = 2 * x + y
    y_grad_expected = x + 2 * y

    @pyad.no_grad()
    def reset_grad():
        x.grad.zero_()
        y.grad.zero_()

    pyad.autograd.backward(fn(), gradient, inputs=[x, y])
    assert_equal(x.grad, x_grad_expected)
    assert_equal(y.grad, y_grad_expected)

    reset_grad()
    pyad.autograd.backward(fn(), gradient, inputs=[x])
    assert_equal(x.grad, x_grad_expected)
    assert_equal(y.grad, pyad.zeros(2, 2))

    reset_grad()
    pyad.autograd.backward(fn(), gradient, inputs=[y])
    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, pyad.zeros(2, 2))

    reset_grad()
    pyad.autograd.backward(fn(), gradient, inputs=y)
    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, pyad.zeros(2, 2))

    reset_grad()
    with pytest.raises(RuntimeError, match="cannot be empty"):
        pyad.autograd.backward(fn(), gradient, inputs=[])


def test_backward_with_scalar_input():
    x = randn(requires_grad=True)
    out = x ** 2
    out.backward(inputs=x)
    assert_equal(x.grad, 2 * x)


def test_backward_with_nonleaf_inputs():
    x = randn(2, 2, requires_grad=True)
    x_nonleaf = x * 1
    y = randn(2, 2, requires_grad=True)
    z = randn(2, 2, requires_grad=True)

    out = x_nonleaf ** 2 + y * x_nonleaf + y ** 2

    out.backward(pyad.ones(2, 2), create_graph=True, inputs=[x, y, x_nonleaf])
    x_grad_expected = 2 * x + y
    y_grad_expected = x + 2 * y
    x_non_leaf_expected = 2 * x_nonleaf + y

    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, x_grad_expected)
    assert_equal(x_nonleaf.grad, x_non_leaf_expected)

    # backward has no allow_unused flag: an input outside the graph keeps grad None.
    out.backward(pyad.ones(2, 2), create_graph=True, inputs=[z])
    assert z.grad is None


def test_diagonal_expanded_v():
    value = float(rand(1).item())
    v_expanded = pyad.tensor(value).expand(10)
    a = rand(10, 10, requires_grad=True)
    (result,) = pyad.autograd.grad(a.diagonal(), a, v_expanded)
    assert_equal(result, pyad.eye(10) * value)


def test_select_expanded_v():
    v_expanded = rand(10).expand(10, 10)
    a = rand(10, 10, 10, requires_grad=True)
    (result,) = pyad.autograd.grad(a[0], a, v_expanded)
    expected = np.zeros((10, 10, 10))
    expected[0] = v_expanded.numpy()
    assert_equal(result, expected)


def test_slice_expanded_v():
    v_expanded = rand(10, 1).expand(2, 10, 10)
    a = rand(10, 10, 10, requires_grad=True)
    (result,) = pyad.autograd.grad(a[3:5], a, v_expanded)
    expected = np.zeros((10, 10, 10))
    expected[3:5] = v_expanded.numpy()
    assert_equal(result, expected)


# --------------------------------------------------------------------------------
# hooks: tensor hooks, node pre/post hooks, accumulate-grad hooks
# --------------------------------------------------------------------------------

def _get_mul2(use_custom_function):
    if use_custom_function:
        class Mul2(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, gO):
                return gO * 2

        return Mul2.apply
    return lambda x: x * 2


def test_grad_fn_prehooks():
    for use_custom_function in (True, False):
        mul2 = _get_mul2(use_custom_function)

        a = pyad.tensor([1.0], requires_grad=True)
        b = mul2(a)

        post_counter = [0]
        pre_counter = [0]

        def posthook(grad_input, grad_output):
            assert pre_counter[0] == 3
            assert allclose(grad_output[0], pyad.ones(1) * 8)
            assert allclose(grad_input[0], pyad.ones(1) * 16)
            post_counter[0] += 1
            return grad_input

        def prehook(grad_output):
            pre_counter[0] += 1
            return (grad_output[0] * 2,)

        # register posthook x 2
        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_hook(posthook)
        # register prehook x 3
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: None)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: x)
        b.grad_fn.register_prehook(lambda x: None)

        b.sum().backward()

        assert post_counter[0] == 2
        assert pre_counter[0] == 3

        # Return None
        a = rand(3, 3, requires_grad=True)
        b = mul2(a)

        def prehook(grad_output):
            pre_counter[0] += 1
            return None

        b.grad_fn.register_prehook(prehook)
        b.sum().backward()
        assert pre_counter[0] == 4
        assert allclose(a.grad, pyad.ones(3, 3) * 2)


def test_grad_fn_prehooks_remove_hooks():
    for use_custom_function in (True, False):
        mul2 = _get_mul2(use_custom_function)

        # Simply remove hooks
        a = rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook(grad_output):
            counter[0] += 1
            return None

        handle = b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        handle.remove()
        b.sum().backward()
        assert allclose(a.grad, pyad.ones(3, 3) * 2)
        assert counter[0] == 1

        # Remove hooks during backward
        a = rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook1(grad_output):
            handle2.remove()
            # Remove hook that is already removed is OK
            handle3.remove()
            return None

        def prehook2(grad_output):
            counter[0] += 1
            return None

        # Hooks that registered first run first
        b.grad_fn.register_prehook(prehook1)
        handle2 = b.grad_fn.register_prehook(prehook2)
        handle3 = b.grad_fn.register_prehook(prehook2)
        handle3.remove()
        b.sum().backward()
        assert allclose(a.grad, pyad.ones(3, 3) * 2)
        assert counter[0] == 1


def test_retains_grad_can_always_observe_tensor_prehook():
    def tensor_prehook(g):
        return g * 2

    a = pyad.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.register_hook(tensor_prehook)
    b.retain_grad()
    b.register_hook(tensor_prehook)

    b.clone().backward()
    assert b.grad.item() == 4

    a = pyad.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.retain_grad()
    b.register_hook(tensor_prehook)

    b.clone().backward()
    assert b.grad.item() == 2


def test_accumulate_grad_posthooks_can_observe_tensor_prehook():
    # Post hooks on accumulate see the changes tensor prehooks made to the grad
    a = pyad.tensor(1.0, requires_grad=True)
    seen = []

    def tensor_prehook(g):
        return g * 2

    def posthook(gO, gI):
        assert allclose(gI[0], a * 2)
        assert len(gO) == 0
        seen.append("post")

    def prehook(gI):
        assert allclose(gI[0], a * 2)
        assert len(gI) == 1
        seen.append("pre")

    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    a.register_hook(tensor_prehook)

    b.backward()
    assert seen == ["pre", "post"]


def test_accumulate_grad_posthooks_should_not_execute():
    def tensor_prehook(g):
        raise RuntimeError

    def posthook(gO, gI):
        raise RuntimeError

    a = pyad.tensor(1.0, requires_grad=True)
    a.register_hook(tensor_prehook)
    b = pyad.tensor(1.0, requires_grad=True)
    c = a.clone()
    acc = c.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)

    out = a + b + c
    out.sum().backward(inputs=[b])
    assert b.grad.item() == 1.0
    assert a.grad is None


def test_hook_edge_case_when_called_with_grad():
    # grad executes the tensor hooks of the next node but not
    # grad_fn pre hooks or the post hooks
    a = pyad.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2

    tensor_hook_count = [0]
    prehook_count = [0]
    posthook_count = [0]

    def reset_counts():
        tensor_hook_count[0] = 0
        prehook_count[0] = 0
        posthook_count[0] = 0

    def tensor_prehook(g):
        tensor_hook_count[0] += 1

    def prehook(g):
        prehook_count[0] += 1

    def posthook(gI, gO):
        posthook_count[0] += 1

    a.register_hook(tensor_prehook)
    b.register_hook(tensor_prehook)
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_prehook(prehook)

    pyad.autograd.grad(c, inputs=(b), retain_graph=True)
    assert tensor_hook_count[0] == 1
    assert posthook_count[0] == 0
    assert prehook_count[0] == 0
    reset_counts()

    pyad.autograd.grad(c, inputs=(a, b), retain_graph=True)
    assert tensor_hook_count[0] == 2
    assert posthook_count[0] == 1
    assert prehook_count[0] == 1
    reset_counts()

    c.backward(retain_graph=True)
    assert tensor_hook_count[0] == 2
    assert posthook_count[0] == 2
    assert prehook_count[0] == 2
    reset_counts()

    c.backward(inputs=(a, b), retain_graph=True)
    assert tensor_hook_count[0] == 2
    assert posthook_count[0] == 2
    assert prehook_count[0] == 2


def test_retain_grad_inplace():
    a = pyad.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.sum().backward()
    assert_equal(a.grad, pyad.tensor([1.0]))

    a = pyad.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    # Inplace multiple times is OK
    a.mul_(2)
    a.mul_(2)
    a.sum().backward()
    assert_equal(a.grad, pyad.tensor([1.0]))

    # In-place over a view moves the retains_grad hook to the base's new node.
    x = pyad.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    # The grad is 1, not 4: it is the grad wrt the latest version of x.
    assert_equal(x.grad, pyad.tensor([1.0]))

    # A base that did not require grad has no hook to move.
    x = pyad.zeros(4)
    y = x.view(2, 2)
    y.add_(randn(2, 2, requires_grad=True))


def test_retains_grad_inplace_multiple_outputs():
    class DoubleMul(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    for fn in (DoubleMul.apply, partial(var_mean, dim=0)):
        b = rand(3, 3, requires_grad=True)
        var, mean = fn(b)
        var.retain_grad()
        mean.retain_grad()
        # node has two retains_grad hooks
        var.mul_(2)
        (var + mean).sum().backward()
        gvar = var.grad
        gmean = mean.grad

        a = b.detach().requires_grad_(True)
        var, mean = fn(a)
        var.mul_(2)
        out = (var + mean).sum()
        gvar_expected, gmean_expected = pyad.autograd.grad(out, inputs=(var, mean))
        assert allclose(gvar, gvar_expected)
        assert allclose(gmean, gmean_expected)
        # hand math: d(sum(var + mean)) / d var = d / d mean = ones
        assert_equal(gvar, pyad.ones_like(var))
        assert_equal(gmean, pyad.ones_like(mean))


def test_retain_grad_inplace_over_view():
    base = pyad.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()

    # Without moving the retains_grad hooks to the new grad_fn, the grad would be None
    assert_equal(view.grad, view2.grad)
    assert_equal(view.grad, pyad.tensor([1.0]))


def test_tensor_hooks_inplace():
    # The second hook registers to the new version of the Variable
    count1 = [0]
    count2 = [0]

    def fn1(grad):
        count1[0] += 1
        # x2 from mul, x2 from fn2
        assert_equal(grad, pyad.tensor([4.0]))
        return grad * 2

    def fn2(grad):
        count2[0] += 1
        assert_equal(grad, pyad.tensor([1.0]))
        return grad * 2

    a = pyad.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn1)
    b.mul_(2)
    b.register_hook(fn2)
    b.sum().backward()
    assert count1[0] == 1
    assert count2[0] == 1
    assert_equal(a.grad, pyad.tensor([8.0]))

    count3 = [0]

    def fn3(grad):
        count3[0] += 1
        assert_equal(grad, pyad.tensor([4.0]))
        return grad * 2

    a = pyad.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn3)
    # Inplace multiple times is OK
    b.mul_(2)
    b.mul_(2)
    b.sum().backward()
    assert count3[0] == 1
    assert_equal(a.grad, pyad.tensor([8.0]))


def test_tensor_hooks_inplace_multiple_outputs():
    class DoubleMul(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    for fn in (DoubleMul.apply, partial(var_mean, dim=0)):
        counts = [0, 0, 0]

        def fn0(grad):
            counts[0] += 1
            assert_equal(grad, pyad.ones_like(out1) * 2)

        def fn1(grad):
            counts[1] += 1
            assert_equal(grad, pyad.ones_like(out1) * 3)

        def fn2(grad):
            counts[2] += 1
            assert_equal(grad, pyad.ones_like(out1))

        b = rand(3, 3, requires_grad=True)
        out1, out2 = fn(b)
        h1 = out1.register_hook(fn0)
        h2 = out2.register_hook(fn1)
        # out1 no longer points to its old hook dict
        out1.mul_(2)
        # fn2 is registered to out1's new hook dict
        h3 = out1.register_hook(fn2)
        (out1 + out2 * 3).sum().backward()
        assert counts == [1, 1, 1]

        h1.remove()
        h2.remove()
        h3.remove()


def test_tensor_hooks_inplace_over_view():
    count = [0]

    def fn0(grad):
        pytest.fail("hook on the view's old node must not run")

    def fn1(grad):
        pytest.fail("hook on the view's old node must not run")

    def fn2(grad):
        count[0] += 1
        assert_equal(grad, pyad.tensor([1.0]))

    base = pyad.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.register_hook(fn0)
    view2.register_hook(fn1)
    view.mul_(2)
    # An explicit access updates view2's grad_fn
    view2.grad_fn
    view2.register_hook(fn2)
    (view + view2).sum().backward()
    # The hooks originally registered to the views do not fire
    assert count[0] == 1


# --------------------------------------------------------------------------------
# post-accumulate-grad hooks
# --------------------------------------------------------------------------------

def test_post_accumulate_grad_hook_on_non_leaf():
    def hook(tensor):
        tensor.sub_(1.0)

    leaf = rand(3, requires_grad=True)
    non_leaf = 2.0 * leaf

    with pytest.raises(RuntimeError,
                       match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        non_leaf.register_post_accumulate_grad_hook(hook)


def test_post_accumulate_grad_hook_multiple_hooks():
    def hook1(tensor):
        tensor.sub_(tensor.grad)

    def hook2(tensor):
        tensor.mul_(4.0)

    tensor = rand(3, requires_grad=True)
    tensor_ref = tensor.detach().clone()
    tensor.register_post_accumulate_grad_hook(hook1)
    tensor.register_post_accumulate_grad_hook(hook2)
    s = tensor.sum()
    s.backward()
    # both hooks should be called, in order
    assert_equal(tensor, 4.0 * (tensor_ref - 1.0))


def test_post_accumulate_grad_hook_multiple_tensors():
    def hook(tensor):
        tensor.sub_(tensor.grad)

    tensor1 = rand(3, requires_grad=True)
    tensor1_ref = tensor1.detach().clone()
    tensor2 = rand(5, requires_grad=True)
    tensor2_ref = tensor2.detach().clone()
    tensor1.register_post_accumulate_grad_hook(hook)
    tensor2.register_post_accumulate_grad_hook(hook)
    tensor1.sum().backward()
    tensor2.sum().backward()
    # both tensors should have been modified
    assert_equal(tensor1, tensor1_ref - 1.0)
    assert_equal(tensor2, tensor2_ref - 1.0)


def test_post_accumulate_grad_hook_returns_not_None():
    def bad_hook(tensor):
        return tensor.grad

    tensor = rand(2, 3, requires_grad=True)
    tensor.register_post_accumulate_grad_hook(bad_hook)
    # should error!
    with pytest.raises(RuntimeError, match="hooks should return None."):
        tensor.sum().backward()


def test_post_accumulate_grad_hook_gets_cleaned_up():
    def fun_stuff_with_hook():
        thing_to_put_in_hook = rand(3)

        def hook(tensor):
            tensor.sub_(tensor.grad)
            tensor.add_(thing_to_put_in_hook)

        tensor = rand(3, requires_grad=True)
        tensor.register_post_accumulate_grad_hook(hook)
        tensor.sum().backward()
        ref = weakref.ref(thing_to_put_in_hook)
        gc.collect()
        return tensor, ref

    gc.disable()
    try:
        tensor, ref = fun_stuff_with_hook()
        assert ref() is not None  # kept alive by tensor
        del tensor
        gc.collect()
        assert ref() is None  # cleaned up with the tensor
    finally:
        gc.enable()


def test_post_accumulate_grad_hook_ordering():
    tensor = rand(3, requires_grad=True)

    def pre_hook(grad):
        return grad.sub(2.0)

    def acc_grad_node_pre_hook(grad_out):
        return (grad_out[0].div(5.0),)

    def post_acc_grad_hook(tensor):
        tensor.grad.add_(0.5)

    def acc_grad_node_post_hook(grad_in, grad_out):
        tensor.grad = grad_out[0].mul(10)

    acc_grad = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    tensor.register_hook(pre_hook)
    acc_grad.register_prehook(acc_grad_node_pre_hook)
    tensor.register_post_accumulate_grad_hook(post_acc_grad_hook)
    acc_grad.register_hook(acc_grad_node_post_hook)
    tensor.sum().backward()

    # the hooks run in the order of:
    #   1. tensor prehook
    #   2. acc_grad prehook
    #   3. tensor post acc_grad hook
    #   4. acc_grad posthook
    # so that would be ((1 - 2) / 5 + 0.5) * 10 = 3
    assert_equal(tensor.grad, pyad.tensor([3.0, 3.0, 3.0]))
