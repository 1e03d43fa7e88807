"""PyTorch's own autograd tests (``test/test_autograd.py``), translated to pyad. Each
test keeps torch's name; where the torch test uses ``torch.randn`` the translation uses
fixed seeds. Expected values and messages were read from torch's test
and checked against the installed torch, never taken from pyad's output."""
import warnings

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import Function, gradcheck, gradgradcheck
from pyad.autograd.function import InplaceFunction
from pyad.autograd.gradcheck import GradcheckError


def randn(*shape, requires_grad=False, seed=0):
    rng = np.random.default_rng(seed)
    return Variable(rng.standard_normal(shape), requires_grad=requires_grad)


def rand(*shape, requires_grad=False, seed=0):
    rng = np.random.default_rng(seed)
    return Variable(rng.random(shape), requires_grad=requires_grad)


def assert_equal(actual, expected):
    a = actual.detach().numpy() if isinstance(actual, Variable) else np.asarray(actual)
    e = expected.detach().numpy() if isinstance(expected, Variable) else np.asarray(expected)
    assert a.shape == e.shape
    np.testing.assert_allclose(a, e, rtol=1.3e-6, atol=1e-5)


# --------------------------------------------------------------------------------
# materialize_grads
# --------------------------------------------------------------------------------

def test_grad_materialize_grads():
    x = pyad.tensor(0.5, requires_grad=True)
    a = pyad.tensor(1.0, requires_grad=True)
    y = x * a
    dydx = pyad.autograd.grad(y, x, create_graph=True)
    d2ydx2_none = pyad.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
    d2ydx2 = pyad.autograd.grad(dydx, x, create_graph=True, allow_unused=True,
                                materialize_grads=True)
    # `allow_unused` set to True implicitly
    d3ydx3 = pyad.autograd.grad(d2ydx2, x, materialize_grads=True)
    assert d2ydx2_none[0] is None
    assert d2ydx2[0].item() == 0
    assert d3ydx3[0].item() == 0
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed when"):
        pyad.autograd.grad(y, x, allow_unused=False, materialize_grads=True)


def test_set_materialize_non_diff_grads():
    class Func(Function):
        @staticmethod
        def forward(ctx, x):
            out0 = x.clone()
            out1 = x.clone()
            ctx.mark_non_differentiable(out1)
            ctx._materialize_non_diff_grads = False
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1)
            return g0

    seen = []
    a = pyad.tensor(1.0, requires_grad=True)
    out = Func.apply(a)[0]
    out.backward()
    assert seen == [None]
    assert a.grad.item() == 1.0


def test_set_materialize_non_diff_grads_default_materializes():
    # Without the flag the non-differentiable output's gradient is zeros (torch).
    class Func(Function):
        @staticmethod
        def forward(ctx, x):
            out0 = x.clone()
            out1 = x.clone()
            ctx.mark_non_differentiable(out1)
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1)
            return g0

    seen = []
    a = pyad.tensor(1.0, requires_grad=True)
    Func.apply(a)[0].backward()
    assert isinstance(seen[0], Variable) and seen[0].item() == 0.0


def test_unused_grad_requires_grad_with_materialize():
    x = pyad.ones(10, requires_grad=True)
    y = pyad.ones(10, requires_grad=True)
    z = (x ** 2).sum()
    g = pyad.autograd.grad(z, (x, y), allow_unused=True, materialize_grads=True,
                           create_graph=False)
    assert not g[0].requires_grad
    assert not g[1].requires_grad
    assert_equal(g[1], np.zeros(10))


def test_dont_materialize_grads():
    class MyFunction(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1)
            return g0

    seen = []
    x = pyad.ones(1, requires_grad=True)
    MyFunction.apply(x)[0].sum().backward()
    assert seen == [None]


# --------------------------------------------------------------------------------
# hooks
# --------------------------------------------------------------------------------

def test_grad_nonleaf_register_hook():
    # This checks an edge case for register_hook: capture the grad of a non-leaf view,
    # without hook calls on the other views' backward.
    x = randn(5, requires_grad=True)
    x_list = x.unbind()

    x0 = x_list[0]
    hook_results = [None]

    def hook(grad):
        hook_results[0] = grad

    x0.register_hook(hook)

    x_list[0].backward()
    assert_equal(hook_results[0], np.array(1.0))
    expected_grad = np.array([1.0, 0, 0, 0, 0])
    assert_equal(x.grad, expected_grad)
    assert x_list[0].grad is None

    for i in range(1, 5, 1):
        x_list[i].backward()
        assert hook_results[0] is None
        expected_grad[i] = 1.0
        assert_equal(x.grad, expected_grad)
        assert x_list[i].grad is None


def test_grad_fn_prehooks_multiple_outputs():
    # Compute gradients without hooks
    b = rand(3, 3, requires_grad=True)
    var, mean = pyad.var_mean(b, dim=0)
    (var + mean).sum().backward()

    # Compute gradients with hooks
    a = b.detach().requires_grad_()
    counter = [0]

    def prehook(grad_output):
        gvar, gmean = grad_output
        counter[0] += 1
        return (gvar * 2, gmean * 2)

    var, mean = pyad.var_mean(a, dim=0)
    mean.grad_fn.register_prehook(prehook)
    (var + mean).sum().backward()

    assert counter[0] == 1
    assert_equal(a.grad, b.grad * 2)

    # Test with custom Function
    class DoubleMul2(Function):
        @staticmethod
        def forward(ctx, x, a, y):
            ctx.a = a
            return a * x * 2, a, a * y * 2

        @staticmethod
        def backward(ctx, g1, _a, g2):
            return ctx.a * g1 * 2, None, ctx.a * g2 * 2

    counter = [0]

    def prehook(grad_output):
        g1, ga, g2 = grad_output
        assert ga is None
        counter[0] += 1
        return (g1 * 2, None, g2 * 2)

    a = randn(3, 3, requires_grad=True)
    b = randn(3, 3, requires_grad=True, seed=1)
    k = 3
    c, _, d = DoubleMul2.apply(a, k, b)
    c.grad_fn.register_prehook(prehook)
    (c + d).sum().backward()

    assert counter[0] == 1
    assert_equal(a.grad, np.ones((3, 3)) * 4 * k)
    assert_equal(b.grad, np.ones((3, 3)) * 4 * k)


def test_prehook_ordering():
    # Hooks registered to tensor are ordered before those registered to grad_fn
    log = []

    def hook1(g):
        log.append(1)
        return g * 3

    def hook2(gs):
        log.append(2)
        return tuple(g * 2 for g in gs)

    a = pyad.tensor(1.0, requires_grad=True)
    b = a.clone()

    b.grad_fn.register_prehook(hook2)
    b.register_hook(hook1)
    b.grad_fn.register_prehook(hook2)

    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(hook1)
    acc.register_prehook(hook2)
    a.register_hook(hook1)

    b.sum().backward(retain_graph=True)
    assert log == [1, 2, 2, 1, 1, 2]

    # grad also runs hooks on accumulate grad nodes, even though the accumulate grad
    # nodes are not actually executed
    log = []
    pyad.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
    assert log == [1, 2, 2, 1, 1]

    # backward(inputs=non-leaf) retains its grad (after the Variable hooks) and runs its
    # node's pre-hooks (torch's log is [1, 2, 2])
    log = []
    b.sum().backward(inputs=(b,))
    assert log == [1, 2, 2]
    # retains_grad hooks would not observe modifications by all pre hooks because they
    # are executed after
    assert b.grad.item() == 3


# --------------------------------------------------------------------------------
# InplaceFunction, detach
# --------------------------------------------------------------------------------

def test_return_duplicate_inplace():
    class DoubleInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, grad1, grad2):
            return grad1 * 2 + grad2 * 2

    def inplace_fn(x):
        a, b = DoubleInplace.apply(x.clone())
        assert a is b
        return a + b

    x = randn(5, 5, requires_grad=True)
    gradcheck(inplace_fn, [x])
    gradgradcheck(inplace_fn, [x])

    # Can't modify leaf variables in-place
    with pytest.raises(RuntimeError):
        InplaceFunction.apply(x)
    # Functions which modify views in-place must return only one output
    with pytest.raises(RuntimeError):
        InplaceFunction.apply(x.clone()[0])


def test_return_leaf_inplace():
    class Inplace(InplaceFunction):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a, grad_a + grad_b

    x = randn(5, 5)
    y = randn(5, 5, requires_grad=True, seed=1)

    q, p = Inplace.apply(x, y)
    assert q is x
    assert q.grad_fn.__class__ is Inplace._backward_cls
    assert q.requires_grad
    q.sum().backward()
    assert_equal(y.grad, np.ones((5, 5)))


def test_inplace_function_constructor():
    # torch's InplaceFunction(inplace=False) stores the flag on the instance
    assert InplaceFunction().inplace is False
    assert InplaceFunction(True).inplace is True
    assert issubclass(InplaceFunction, Function)


def test_detach_base():
    "detaching base does not detach view"
    x = randn(10, 10, requires_grad=True)
    view = x.narrow(0, 1, 4)
    x.detach_()
    assert not x.requires_grad
    assert view.requires_grad
    assert view.grad_fn is not None
    assert view._base is x


# --------------------------------------------------------------------------------
# anomaly mode: a custom backward may write into its incoming gradient
# --------------------------------------------------------------------------------

def test_anomaly_detect_nan():
    size = 10

    class MyFunc(Function):
        @staticmethod
        def forward(ctx, inp1, inp2, fail_0th):
            ctx.fail_0th = fail_0th
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, gO):
            gI = gO.clone().expand(size)
            gI[0] = 0
            with np.errstate(invalid="ignore", divide="ignore"):
                gI[0] /= 0  # Generate a nan
            if ctx.fail_0th:
                return gI, None, None
            else:
                return None, gI, None

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    out.backward()  # Should not fail

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    with pytest.raises(RuntimeError,
                       match="Function 'MyFuncBackward' returned nan values in its 0th output."):
        with warnings.catch_warnings(record=True):
            with pyad.autograd.detect_anomaly():
                out.backward()

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, False)
    with pytest.raises(RuntimeError,
                       match="Function 'MyFuncBackward' returned nan values in its 1th output."):
        with warnings.catch_warnings(record=True):
            with pyad.autograd.detect_anomaly():
                out.backward()


def test_backward_may_write_into_incoming_grad():
    # torch: writable where the incoming gradient is a plain array (not an expanded one)
    class Scale(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            g.mul_(3.0)
            return g

    x = pyad.ones(4, requires_grad=True)
    Scale.apply(x).backward(pyad.ones(4))
    assert_equal(x.grad, np.full(4, 3.0))
    x = pyad.ones(4, requires_grad=True)
    (Scale.apply(x) * 2).sum().backward()
    assert_equal(x.grad, np.full(4, 6.0))
    x = pyad.tensor(1.0, requires_grad=True)
    Scale.apply(x).backward()
    assert x.grad.item() == 3.0
    # the gradient the user passed is the one written into, as in torch
    g = pyad.ones(4)
    x = pyad.ones(4, requires_grad=True)
    Scale.apply(x).backward(g)
    assert_equal(g, np.full(4, 3.0))


def test_write_through_expanded_variable():
    # torch: e = t.expand(n); e[0] = v writes the one shared element
    torch = pytest.importorskip("torch")
    e = pyad.ones(1).expand(4)
    e[0] = 5.0
    te = torch.ones(1, dtype=torch.float64).expand(4)
    te[0] = 5.0
    assert_equal(e, te.numpy())
    with pytest.raises(RuntimeError, match="more than one element"):
        e[...] = pyad.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError):
        te[...] = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)


# --------------------------------------------------------------------------------
# gradcheck
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("fast_mode", [True, False])
def test_gradcheck_check_no_differentiable_outputs(fast_mode):
    # When none of the outputs are differentiable, but numerical gradient is not zero
    x = pyad.ones((1,), requires_grad=True)
    with pytest.raises(RuntimeError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda x: pyad.tensor([x]), x, fast_mode=fast_mode)
    assert not gradcheck(lambda x: pyad.tensor([x]), x, raise_exception=False,
                         fast_mode=fast_mode)
    # succeed when no outputs at all
    assert gradcheck(lambda x: (), (x,), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_gradcheck_output_shape_or_dtype_depend_on_values(fast_mode):
    def fn(x):
        if pyad.all(x >= 1):
            return pyad.cat([x, x])
        else:
            return x

    a = pyad.ones(1, dtype=pyad.float64, requires_grad=True)
    with pytest.raises(AssertionError,
                       match="return outputs with the same shape when inputs are perturbed"):
        gradcheck(fn, (a,), fast_mode=fast_mode)

    def fn2(x):
        if pyad.all(x >= 1):
            return x.to(pyad.float32)
        else:
            return x

    with pytest.raises(AssertionError,
                       match="return outputs with the same dtype when inputs are perturbed"):
        gradcheck(fn2, (a,), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_gradcheck_undefined_grad(fast_mode):
    # when encounter runtime error while running backward
    def fn(x):
        def hook(x):
            if x is None:
                raise RuntimeError("x is undefined")

        y = x.clone()
        y.register_hook(hook)
        return y

    x = pyad.ones(1, dtype=pyad.float64, requires_grad=True)
    with pytest.warns(UserWarning,
                      match="Backwards compatibility: New undefined gradient support checking "
                            "feature"):
        with pytest.raises(GradcheckError,
                           match="Expected backward function to handle undefined output grads"):
            gradcheck(fn, (x,), fast_mode=fast_mode)
        assert not gradcheck(fn, (x,), raise_exception=False, fast_mode=fast_mode)


# --------------------------------------------------------------------------------
# custom Functions
# --------------------------------------------------------------------------------

def test_custom_function_local_inplace():
    class MyFn(Function):
        @staticmethod
        def forward(ctx, inp, inplace):
            view = inp.clone()[:3]
            if inplace:
                view += 2
            return view

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    base = rand(10, requires_grad=True)

    foo = MyFn.apply(base, False)
    assert foo.grad_fn.__class__.__name__ == "MyFnBackward"

    foo = MyFn.apply(base, True)
    assert foo.grad_fn.__class__.__name__ == "MyFnBackward"


def test_setup_context_when_forward_has_default_args():
    class PowFunction(Function):
        @staticmethod
        def forward(x, y=3):
            return pyad.pow(x, y)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            y = ctx.y
            return gO * y * pyad.pow(x, y - 1), None

    class PowFunctionWithClassmethod(Function):
        @classmethod
        def forward(cls, x, y=3):
            return pyad.pow(x, y)

        @classmethod
        def setup_context(cls, ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @classmethod
        def backward(cls, ctx, gO):
            (x,) = ctx.saved_tensors
            y = ctx.y
            return gO * y * pyad.pow(x, y - 1), None

    x = pyad.tensor(2.0, requires_grad=True)
    y = pyad.tensor(8.0)
    y_expected = pyad.tensor(12.0)

    y1 = PowFunction.apply(x)
    (y1_expected,) = pyad.autograd.grad(y1, x)

    y2 = PowFunctionWithClassmethod.apply(x)
    (y2_expected,) = pyad.autograd.grad(y2, x)

    assert_equal(y, y1)
    assert_equal(y_expected, y1_expected)
    assert_equal(y, y2)
    assert_equal(y_expected, y2_expected)


# --------------------------------------------------------------------------------
# in-place on views, grad assignment
# --------------------------------------------------------------------------------

def test_inplace_on_view_non_contig():
    root = pyad.ones((2, 3, 2)).select(2, 1).t().requires_grad_(True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    assert root.grad.tolist() == [[1, 2], [1, 1], [1, 1]]


def test_grad_assignment():
    x = randn(5, 5)

    # Tests that the wrong type raises
    with pytest.raises(TypeError, match="expected to be a Tensor or None"):
        x.grad = 0

    # Tests that the wrong shape raises
    with pytest.raises(RuntimeError):
        x.grad = randn(2, 2)

    # Tests that the wrong dtype raises
    with pytest.raises(RuntimeError):
        x.grad = Variable(np.ones((5, 5), dtype=np.int64))
    with pytest.raises(RuntimeError):
        x.grad = randn(5, 5).to(pyad.float32)

    # Tests that self-assignment raises
    with pytest.raises(RuntimeError):
        x.grad = x

    # Tests that a (non-CPU) device mismatch raises: covered by tests/test_dlpack.py's
    # CuPy tests (skipped without a GPU).

    # Tests that grad can be assigned a tensor and then reset
    g = randn(5, 5, seed=1)
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None


# --------------------------------------------------------------------------------
# ops: searchsorted, nanmedian, isin, unsafe_split / unsafe_chunk, atan2, cholesky
# --------------------------------------------------------------------------------

def test_integer_outputs():
    inp = rand(4, requires_grad=True)

    out = inp.argmax()
    assert out.dtype == np.int64
    assert not out.requires_grad

    out = inp.argmin()
    assert not out.requires_grad

    out = inp.argsort()
    assert not out.requires_grad

    val = rand(1)
    out = pyad.searchsorted(inp, val)
    assert out.dtype == np.int64
    assert not out.requires_grad

    val = pyad.rand((), requires_grad=True)        # torch's: inputs that require grad
    out = pyad.searchsorted(inp, val)
    assert out.dtype == np.int64
    assert not out.requires_grad

    bins = pyad.linspace(0, 1.0, steps=100)
    out = pyad.bucketize(rand(3), bins)
    assert out.dtype == np.int64
    assert not out.requires_grad

    bins = pyad.linspace(0, 1.0, steps=100, requires_grad=True)
    vals = pyad.rand(5, 5, requires_grad=True)
    out = pyad.bucketize(vals, bins)
    assert out.dtype == np.int64
    assert not out.requires_grad

    out = inp.count_nonzero()
    assert not out.requires_grad

    val = pyad.empty(5).requires_grad_()
    out = val.count_nonzero()
    assert not out.requires_grad

    out, idx = inp.max(dim=0)
    assert not idx.requires_grad
    assert idx.dtype == np.int64

    out, idx = inp.unique(return_inverse=True)
    assert not idx.requires_grad

    # the rest of torch's test: unique / unique_consecutive, with and without dim, give
    # values that require grad and integer outputs that do not
    def assert_only_first_requires_grad(res):
        if not isinstance(res, tuple):
            res = (res,)
        assert res[0].requires_grad
        for out in res[1:]:
            if out is not None:
                assert not out.requires_grad

    for sort in [True, False]:
        for return_inverse in [True, False]:
            for return_counts in [True, False]:
                res = pyad.unique(inp, sorted=sort, return_inverse=return_inverse,
                                  return_counts=return_counts)
                assert_only_first_requires_grad(res)

                res = pyad.unique(inp, sorted=sort, return_inverse=return_inverse,
                                  return_counts=return_counts, dim=0)
                assert_only_first_requires_grad(res)

                res = pyad.unique_consecutive(inp, return_inverse=return_inverse,
                                              return_counts=return_counts)
                assert_only_first_requires_grad(res)

                res = pyad.unique_consecutive(inp, return_inverse=return_inverse,
                                              return_counts=return_counts, dim=0)
                assert_only_first_requires_grad(res)
    # (torch's test also calls the internal torch._unique, torch._VF.unique_dim and
    # torch._unique2, which pyad does not have: pyad.unique covers their outputs.)


def test_searchsorted_matches_torch():
    torch = pytest.importorskip("torch")
    seq = np.array([[1.0, 3.0, 5.0, 7.0, 9.0], [2.0, 4.0, 6.0, 8.0, 10.0]])
    values = np.array([[3.0, 6.0, 9.0], [3.0, 6.0, 9.0]])
    for right in (False, True):
        for out_int32 in (False, True):
            ours = pyad.searchsorted(pyad.tensor(seq), pyad.tensor(values), right=right,
                                     out_int32=out_int32)
            theirs = torch.searchsorted(torch.tensor(seq), torch.tensor(values), right=right,
                                        out_int32=out_int32)
            assert ours.dtype == np.dtype(str(theirs.dtype).replace("torch.", ""))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # side= and a scalar value; a 1-D sequence with N-D values
    ours = pyad.searchsorted(pyad.tensor(seq[0]), 5.0, side="right")
    theirs = torch.searchsorted(torch.tensor(seq[0]), 5.0, side="right")
    assert ours.item() == theirs.item() and ours.shape == tuple(theirs.shape)
    ours = pyad.searchsorted(pyad.tensor(seq[0]), pyad.tensor(values))
    theirs = torch.searchsorted(torch.tensor(seq[0]), torch.tensor(values))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # sorter
    unsorted = np.array([5.0, 1.0, 9.0, 3.0, 7.0])
    sorter = np.argsort(unsorted)
    ours = pyad.searchsorted(pyad.tensor(unsorted), pyad.tensor(values[0]),
                             sorter=pyad.tensor(sorter))
    theirs = torch.searchsorted(torch.tensor(unsorted), torch.tensor(values[0]),
                                sorter=torch.tensor(sorter))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # bucketize
    for right in (False, True):
        ours = pyad.bucketize(pyad.tensor(values), pyad.tensor(seq[0]), right=right)
        theirs = torch.bucketize(torch.tensor(values), torch.tensor(seq[0]), right=right)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_searchsorted_bad_input():
    torch = pytest.importorskip("torch")
    seq = pyad.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match="searchsorted"):
        pyad.searchsorted(seq, pyad.tensor([[1.0], [2.0], [3.0]]))
    with pytest.raises(RuntimeError):
        torch.searchsorted(torch.tensor(seq.numpy()), torch.tensor([[1.0], [2.0], [3.0]]))
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        pyad.searchsorted(seq[0], 1.0, right=True, side="left")
    with pytest.raises(RuntimeError):
        torch.searchsorted(torch.tensor([1.0, 2.0]), 1.0, right=True, side="left")
    # side wins over right=False (torch)
    assert pyad.searchsorted(seq[0], 1.0, right=False, side="right").item() == 1
    with pytest.raises(RuntimeError, match="bucketize"):
        pyad.bucketize(pyad.tensor([1.0]), seq)


def test_min_max_median_backprops_to_all_values():
    for f in [pyad.min, pyad.max, pyad.median, pyad.nanmedian]:
        x1 = pyad.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], requires_grad=True)
        x2 = pyad.tensor([float("nan"), float("nan"), float("nan")], requires_grad=True)
        for x in [x1, x2]:
            y = f(x)
            y.backward()
            assert x.grad.sum().item() == pytest.approx(1.0)
            assert (x.grad == 1 / 3).sum().item() == 3


def test_nanmedian_matches_torch():
    torch = pytest.importorskip("torch")
    nan = float("nan")
    # no ties and no all-NaN slices along a dim: torch's index there is its
    # implementation's (nth_element) choice
    cases = [
        np.array([3.0, nan, 1.0, 2.0]),
        np.array([[1.0, nan, 3.0, 2.0], [nan, 7.0, 6.0, nan], [5.0, 4.0, 8.0, nan]]),
        np.array([[2.0, 1.0], [0.5, -1.0]]),
        np.array(4.0),
        np.array([nan, 1.0]),
    ]
    for data in cases:
        dims = [None] + list(range(-data.ndim, data.ndim)) if data.ndim else [None, 0, -1]
        for dim in dims:
            for keepdim in (False, True):
                if dim is None and keepdim:
                    continue
                x = pyad.tensor(data, requires_grad=True)
                t = torch.tensor(data, requires_grad=True)
                if dim is None:
                    ours, theirs = pyad.nanmedian(x), torch.nanmedian(t)
                else:
                    ours, oi = pyad.nanmedian(x, dim, keepdim=keepdim)
                    theirs, ti = torch.nanmedian(t, dim, keepdim=keepdim)
                    np.testing.assert_array_equal(oi.numpy(), ti.numpy())
                    assert oi.dtype == np.int64
                np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
                g = np.arange(1.0, 1.0 + ours.numel()).reshape(tuple(ours.shape))
                ours.backward(pyad.tensor(g))
                theirs.backward(torch.tensor(g))
                np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    # all NaN: NaN, and the gradient shared by all (torch's evenly_distribute_backward)
    x = pyad.tensor([nan, nan], dtype=pyad.float64, requires_grad=True)
    y = pyad.nanmedian(x)
    assert np.isnan(y.item())
    y.backward()
    assert_equal(x.grad, np.array([0.5, 0.5]))
    # the values of a slice of NaN only
    v, i = pyad.nanmedian(pyad.tensor([[nan, nan], [1.0, nan]]), 1)
    assert np.isnan(v[0].item()) and v[1].item() == 1.0 and i[1].item() == 0
    x = pyad.tensor([3.0, nan, 1.0, 2.0, 0.5], dtype=pyad.float64, requires_grad=True)
    gradcheck(lambda v: pyad.nanmedian(v), (x,))
    gradcheck(lambda v: pyad.nanmedian(v.reshape(1, 5), 1)[0], (x,))
    gradgradcheck(lambda v: pyad.nanmedian(v), (x,))
    assert x.nanmedian().item() == 1.0
    with pytest.raises(IndexError, match="nanmedian"):
        pyad.nanmedian(pyad.zeros((2, 0)), 1)
    with pytest.raises(IndexError):
        pyad.nanmedian(pyad.zeros(3), 1)


def test_non_differentiable_ops():
    # Just make sure the op doesn't raise an error and resulting tensor has
    # requires_grad=False.
    x = pyad.tensor([[1, 2], [3, 4.0]], requires_grad=True)
    out = pyad.isin(x, pyad.tensor([2, 3]))
    assert not out.requires_grad

    x = randn(3, 3, requires_grad=True)
    out = pyad.signbit(x)
    assert not out.requires_grad


def test_isin_matches_torch():
    torch = pytest.importorskip("torch")
    elements = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 2.0]])
    tests = np.array([2.0, 5.0, 7.0])
    for invert in (False, True):
        for assume_unique in (False, True):
            ours = pyad.isin(pyad.tensor(elements), pyad.tensor(tests), invert=invert,
                             assume_unique=assume_unique)
            theirs = torch.isin(torch.tensor(elements), torch.tensor(tests), invert=invert,
                                assume_unique=assume_unique)
            assert ours.dtype == np.bool_
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours = pyad.isin(pyad.tensor(elements), 2.0)
    theirs = torch.isin(torch.tensor(elements), 2.0)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours = pyad.isin(2.0, pyad.tensor(tests))
    theirs = torch.isin(2.0, torch.tensor(tests))
    assert ours.item() == theirs.item()
    with pytest.raises(TypeError):
        pyad.isin(2.0, 3.0)


@pytest.mark.parametrize("name", ["unsafe_split", "unsafe_chunk"])
def test_unsafe_split_chunk(name):
    torch = pytest.importorskip("torch")
    data = np.arange(12.0).reshape(6, 2)
    arg = 2 if name == "unsafe_split" else 3
    x = pyad.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    ours = getattr(pyad, name)(x, arg, 0)
    theirs = getattr(torch, name)(t, arg, 0)
    assert len(ours) == len(theirs)
    for o, th in zip(ours, theirs):
        np.testing.assert_array_equal(o.detach().numpy(), th.detach().numpy())
    # the outputs are not views: modifying one in place is allowed (torch's point)
    ours[0].mul_(2.0)
    theirs[0].mul_(2.0)
    sum(((i + 1) * o).sum() for i, o in enumerate(ours)).backward()
    sum(((i + 1) * o).sum() for i, o in enumerate(theirs)).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    # the pieces share the input's memory: torch's input changes too
    np.testing.assert_array_equal(x.detach().numpy(), t.detach().numpy())
    method = getattr(x, name)(arg, dim=0)
    assert len(method) == len(theirs)
    gradcheck(lambda v: getattr(pyad, name)(v, arg, 0), (pyad.tensor(data, requires_grad=True),))


def test_atan2_zero_gradient():
    # torch's test_atan2: the gradient at (0, 0) is zero (no NaN)
    a = pyad.tensor([0.0, 0.0, 1.0], requires_grad=True)
    b = pyad.tensor([0.0, 1.0, 0.0], requires_grad=True)
    pyad.atan2(a, b).sum().backward()
    torch = pytest.importorskip("torch")
    ta = torch.tensor([0.0, 0.0, 1.0], requires_grad=True)
    tb = torch.tensor([0.0, 1.0, 0.0], requires_grad=True)
    torch.atan2(ta, tb).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), tb.grad.numpy())
    assert not np.isnan(a.grad.numpy()).any()


def test_atan2_zero_gradient_second_order():
    torch = pytest.importorskip("torch")
    a = pyad.zeros(2, requires_grad=True)
    b = pyad.zeros(2, requires_grad=True)
    ga, gb = pyad.autograd.grad(pyad.atan2(a, b).sum(), (a, b), create_graph=True)
    ta = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    tb = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    tga, tgb = torch.autograd.grad(torch.atan2(ta, tb).sum(), (ta, tb), create_graph=True)
    np.testing.assert_array_equal(ga.detach().numpy(), tga.detach().numpy())
    np.testing.assert_array_equal(gb.detach().numpy(), tgb.detach().numpy())


def test_linalg_cholesky_upper():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    m = rng.standard_normal((2, 4, 4))
    spd = m @ m.transpose(0, 2, 1) + 4 * np.eye(4)
    for upper in (False, True):
        x = pyad.tensor(spd, requires_grad=True)
        t = torch.tensor(spd, requires_grad=True)
        ours = pyad.linalg.cholesky(x, upper=upper)
        theirs = torch.linalg.cholesky(t, upper=upper)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
        g = rng.standard_normal(spd.shape)
        ours.backward(pyad.tensor(g))
        theirs.backward(torch.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-10)

        def f(a, upper=upper):
            a = a @ a.transpose(-2, -1) + 4 * pyad.eye(4)
            return pyad.linalg.cholesky(a, upper=upper)

        gradcheck(f, (pyad.tensor(m, requires_grad=True),))
        gradgradcheck(f, (pyad.tensor(m, requires_grad=True),))
    with pytest.raises(TypeError):
        pyad.linalg.cholesky(pyad.tensor(spd), True)  # upper is keyword-only


# --------------------------------------------------------------------------------
# in-place on views torch refuses: views made inside a custom Function, outputs of
# multi-output view ops (split, chunk, unbind), views of views made under no_grad.
# pyad refuses them as torch does (same exception type and message).
# --------------------------------------------------------------------------------

CUSTOM_VIEW_ERR = "This view was created inside a custom Function"
MULTI_VIEW_ERR = "This view is the output of a function that returns multiple views."
NO_GRAD_VIEW_ERR = "A view was created in no_grad mode and is being modified inplace"


@pytest.mark.parametrize("fn_id", ["one_output", "two_output", "view_of_temp"])
@pytest.mark.parametrize("inplace", [True, False])
@pytest.mark.parametrize("make_view", [True, False])
def test_autograd_simple_views_python(fn_id, inplace, make_view):
    # torch's _do_test_autograd_simple_views_python: what a custom Function returning
    # a view allows, for each way of making the output
    bw_called = [0]
    ga_nz = [False]

    class IdOneOutput(Function):
        @staticmethod
        def forward(ctx, a, b, make_view):
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            return a

        @staticmethod
        def backward(ctx, ga):
            bw_called[0] += 1
            return ga, None, None

    class IdTwoOutput(Function):
        @staticmethod
        def forward(ctx, a, b, make_view):
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            if (ga == 0).all():
                ga_nz[0] = False
            else:
                ga_nz[0] = True
            return ga + gab, gab, None

    class ViewOfTemp(Function):
        @staticmethod
        def forward(ctx, a, make_view):
            ctx.save_for_backward(a)
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            b = a.clone()
            return b.select(0, 0)

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            (a,) = ctx.saved_tensors
            res = pyad.zeros_like(a)
            res.select(0, 0).copy_(grad)
            return res, None

    fn_id_to_inplace_on_view_err_msg = {
        "one_output": ("Output 0 of IdOneOutput is a view and is being modified inplace. "
                       "This view was created inside a custom Function"),
        "two_output": ("Output 0 of IdTwoOutput is a view and is being modified inplace. "
                       "This view is the output of a function that returns multiple views."),
        "view_of_temp": ("Output 0 of ViewOfTemp is a view and is being modified inplace. "
                         "This view was created inside a custom Function"),
    }

    # Used for special casing the tests below
    output_is_a_view = make_view or fn_id == "view_of_temp"

    def fn(a, b):
        # never modify a, b inplace for gradcheck
        a = a.clone()
        b = b.clone()
        if fn_id == "two_output":
            tmp1, tmp2 = IdTwoOutput.apply(a, b, make_view)
            if inplace:
                tmp1 += 3
                tmp2 += 3
            else:
                tmp1 = tmp1 + 3
                tmp2 = tmp2 + 3
            tmp = tmp1 * tmp2
        else:
            if fn_id == "one_output":
                tmp = IdOneOutput.apply(a, b, make_view)
            else:
                tmp = ViewOfTemp.apply(a + b, make_view)
            if inplace:
                tmp += 3
            else:
                tmp = tmp + 3

        return tmp.sum()

    a = pyad.ones(2, dtype=pyad.float64, requires_grad=True)
    b = pyad.ones(2, dtype=pyad.float64, requires_grad=True)

    err_msg = fn_id_to_inplace_on_view_err_msg[fn_id]

    if not inplace or not output_is_a_view:
        gradcheck(fn, (a, b))

    # Was the custom backward called properly
    bw_called[0] = 0
    ga_nz[0] = True  # For the case where the backward is called

    if inplace and output_is_a_view:
        with pytest.raises(RuntimeError, match=err_msg):
            fn(a, b)
    else:
        fn(a, b).abs().backward()

    expected_called = 1
    expected_ga_nz = True

    if output_is_a_view and inplace:
        expected_called = 0

    assert bw_called[0] == expected_called
    assert ga_nz[0] == expected_ga_nz


def test_autograd_inplace_view_of_view():
    x = pyad.zeros(2)
    with pyad.no_grad():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    with pytest.raises(RuntimeError,
                       match="a view of a view .* is being .* inside the no_grad block"):
        z /= 2

    x = pyad.zeros(2)
    with pyad.inference_mode():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    with pytest.raises(RuntimeError,
                       match="a view of a view .* is being .* inside the inference_mode"):
        z /= 2


def test_autograd_views_codegen():
    # view_as and unbind: which outputs are views, and which in-place changes are allowed
    def maybe_check_raise(fn, should_raise):
        if should_raise is not None:
            with pytest.raises(RuntimeError, match=should_raise):
                fn()
        else:
            fn()

    def run_test(grad_mode, requires_grad, is_view, should_raise_tuple):
        inp = pyad.rand(2, requires_grad=requires_grad).clone()
        with pyad.set_grad_enabled(grad_mode):
            out = inp.view_as(inp)
        assert out.is_view == is_view
        maybe_check_raise(lambda: out.add_(1), should_raise_tuple[0])

        inp = pyad.rand(2, requires_grad=requires_grad).clone()
        with pyad.set_grad_enabled(grad_mode):
            out = inp.unbind()
        assert out[0].is_view == is_view
        assert out[1].is_view == is_view
        maybe_check_raise(lambda: out[0].add_(1), should_raise_tuple[1])
        maybe_check_raise(lambda: out[1].add_(1), should_raise_tuple[2])

    run_test(grad_mode=True, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))
    inp_change_err = "Output {} of Unbind is a view and is being modified inplace."
    run_test(grad_mode=True, requires_grad=True, is_view=True,
             should_raise_tuple=(None, inp_change_err.format("0"), inp_change_err.format("1")))
    leaf_grad_err = "A view was created in no_grad mode and is being modified inplace"
    run_test(grad_mode=False, requires_grad=True, is_view=True,
             should_raise_tuple=(leaf_grad_err, leaf_grad_err, leaf_grad_err))
    run_test(grad_mode=False, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))


def test_inplace_not_requires_grad():
    class MyFn(Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.view_as(inp)

        @staticmethod
        def backward(ctx, grad):
            return grad

    # Original Variable does not require grad
    a = pyad.rand(1, 2)
    # Variable being written does require grad
    b = pyad.rand(1, requires_grad=True)
    # Take an invalid view on 'a' that should raise an error
    view_a = MyFn.apply(a)
    with pytest.raises(RuntimeError, match=CUSTOM_VIEW_ERR):
        view_a += b

    # copy_
    a = pyad.rand(1, 2)
    b = pyad.rand(1, requires_grad=True)
    view_a = MyFn.apply(a)
    with pytest.raises(RuntimeError, match=CUSTOM_VIEW_ERR):
        view_a.copy_(b)

    # Functions that should throw must properly throw
    a = pyad.rand(1, 2)
    b = pyad.rand(1, requires_grad=True)
    view_a = a.unbind()[0]
    with pytest.raises(RuntimeError, match=MULTI_VIEW_ERR):
        view_a.copy_(b)

    # Sanity check that views that should work still work
    a = pyad.rand(1, 2)
    b = pyad.rand(1, requires_grad=True)
    a.select(1, 0).copy_(b)


def test_custom_function_mark_output_view_of_intermediate():
    class Func(Function):
        @staticmethod
        def forward(ctx, inp):
            out = inp.clone().view_as(inp)
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, gO):
            pass

    a = pyad.tensor([1.0], requires_grad=True)
    a_clone = a.clone()
    with pytest.raises(RuntimeError, match="received a tensor that was not an input."):
        Func.apply(a_clone)


def test_autograd_python_custom_function_inplace():
    bw_called = [0]

    # I) Single output
    class MyAdder(Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            return grad, grad

    a = pyad.ones(2, requires_grad=True)
    b = pyad.ones(2, requires_grad=True)

    # No extra inplace
    c = MyAdder.apply(a.clone(), b)
    c.sum().backward()
    assert bw_called[0] == 1

    # With extra inplace on the output
    bw_called[0] = 0
    c = MyAdder.apply(a.clone(), b)
    c += 2
    c.sum().backward()
    assert bw_called[0] == 1

    # The input is a view
    bw_called[0] = 0
    c = MyAdder.apply(a.clone().view_as(a), b)
    c.sum().backward()
    assert bw_called[0] == 1

    # Should not give non-inputs to mark_dirty
    class MyAdderBad(Function):
        @staticmethod
        def forward(ctx, a, b):
            c = 3 * a
            c.add_(b)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            grad = 3 * grad
            return grad, grad

    a = pyad.ones(2, requires_grad=True)
    b = pyad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        MyAdderBad.apply(a.clone(), b)
    assert len(w) == 1
    assert "mark_dirty() received a tensor that was not an input" in str(w[0].message)

    # II) Multiple outputs
    class MyBadAdder(Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            return ga + gab, ga + gab

    # No extra inplace
    bw_called[0] = 0
    c, d = MyBadAdder.apply(a.clone(), b)
    (c * d).sum().backward()
    assert bw_called[0] == 1

    # With extra inplace on the output
    bw_called[0] = 0
    c, d = MyBadAdder.apply(a.clone(), b)
    c += 2
    (c * d).sum().backward()
    assert bw_called[0] == 1

    # The input is a view
    inplace_on_view_err = ("your Function modifies inplace an input that is a view of "
                           "another Tensor")
    with pytest.raises(RuntimeError, match=inplace_on_view_err):
        c, d = MyBadAdder.apply(a.clone().view_as(a), b)

    # III) Inplace + other op
    class MyOutPlaceAdder(Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a.clone(), a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            return ga + gab, ga + 2 * gab

    # We don't reuse the input
    def fn(a, b):
        orig_a = a.clone().view_as(a)
        c, d = MyOutPlaceAdder.apply(orig_a, b)
        return (c * d).sum()

    bad_mark_dirty_err = ("Some elements marked as dirty during the forward method were not "
                          "returned as output.")
    with pytest.raises(RuntimeError, match=bad_mark_dirty_err):
        fn(a, b)


def test_inplace_on_view_multiple_outputs():
    root = pyad.arange(9.0, dtype=pyad.float64).reshape(3, 3).requires_grad_()
    x = root.clone()
    v1 = x.unbind()
    with pytest.raises(RuntimeError):
        v1[0].mul_(2)


def test_inplace_on_view_of_multiple_output_view():
    a = pyad.rand(10, dtype=pyad.float64, requires_grad=True).clone()
    b = a.unbind(0)
    c = b[0].view_as(b[0])
    with pytest.raises(RuntimeError):
        c.mul_(2)


def test_inplace_multiple_output_view_of_view():
    a = pyad.rand(10, dtype=pyad.float64, requires_grad=True).clone()
    b = a.view_as(a)
    c = b.unbind(0)
    with pytest.raises(RuntimeError):
        c[0].mul_(2)


def test_inplace_on_view_multi_output_unsafe():
    for f in [lambda t: t.unsafe_split(1),
              lambda t: t.unsafe_split_with_sizes((1, 1, 1)),
              lambda t: t.unsafe_chunk(3)]:
        a = randn(3, 3, requires_grad=True)
        b = a + a
        s1, s2, s3 = f(b)
        s1.mul_(s2)
        s1.sum().backward()
        # d/da sum(2a0 * 2a1) = (4 a1, 4 a0, 0): the same computation without views
        rows = a.detach().numpy()
        expected = np.stack([4 * rows[1], 4 * rows[0], np.zeros(3)])
        assert_equal(a.grad, expected)


def test_inplace_on_view_multi_output_safe():
    for f in [lambda t: t.split(1),
              lambda t: t.split_with_sizes((1, 1, 1)),
              lambda t: t.chunk(3)]:
        a = randn(3, 3, requires_grad=True)
        b = a + a
        s1, s2, s3 = f(b)
        with pytest.raises(RuntimeError, match=MULTI_VIEW_ERR):
            s1.mul_(s2)


def test_multi_output_views_under_no_grad_and_without_grad_are_allowed():
    # torch: the check is made only while autograd records
    a = pyad.rand(3, 2, requires_grad=True).clone()
    s = a.split(1)
    with pyad.no_grad():
        s[0].mul_(2)
    x = pyad.rand(3, 2)
    x.split(1)[0].mul_(2)


def test_multi_output_nodes():
    torch = pytest.importorskip("torch")
    x = pyad.rand(6, 2, requires_grad=True).clone()
    t = torch.rand(6, 2, requires_grad=True).clone()
    for name, ours, theirs in [
            ("SplitBackward", x.split(2), t.split(2)),
            ("SplitWithSizesBackward", x.split([3, 3]), t.split([3, 3])),
            ("SplitBackward", x.chunk(3), t.chunk(3)),
            ("UnbindBackward", x.unbind(), t.unbind()),
            ("UnsafeSplitBackward", x.unsafe_split(2), t.unsafe_split(2)),
            ("UnsafeSplitWithSizesBackward", x.unsafe_split_with_sizes([3, 3]),
             t.unsafe_split_with_sizes([3, 3])),
            ("UnsafeSplitBackward", x.unsafe_chunk(3), t.unsafe_chunk(3)),
            ("VarMeanBackward", pyad.var_mean(x, 0), torch.var_mean(t, 0)),
            ("StdMeanBackward", pyad.std_mean(x, 0), torch.std_mean(t, 0))]:
        assert type(ours[0].grad_fn).__name__ == name
        assert type(theirs[0].grad_fn).__name__ == name + "0"
        assert ours[0].grad_fn is ours[-1].grad_fn
        assert [o.output_nr for o in ours] == list(range(len(ours)))
    # gradients through one and through all outputs
    data = np.random.default_rng(5).standard_normal((6, 2))
    for k in range(3):
        xs = pyad.tensor(data, requires_grad=True)
        ts = torch.tensor(data, requires_grad=True)
        (pyad.var_mean(xs, 0)[0] * (k + 1) + pyad.std_mean(xs, 0)[1]).sum().backward()
        (torch.var_mean(ts, 0)[0] * (k + 1) + torch.std_mean(ts, 0)[1]).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), ts.grad.numpy())
        xs = pyad.tensor(data, requires_grad=True)
        ts = torch.tensor(data, requires_grad=True)
        xs.unbind()[k].sum().backward()
        ts.unbind()[k].sum().backward()
        np.testing.assert_array_equal(xs.grad.numpy(), ts.grad.numpy())
    xs = pyad.tensor(data, requires_grad=True)
    gradcheck(lambda v: v.split(4), (xs,))
    gradgradcheck(lambda v: pyad.var_mean(v, 1), (xs,))
    gradgradcheck(lambda v: v.unbind(1), (xs,))


def test_custom_function_input_returned_as_is_is_a_view():
    class Id(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    a = pyad.ones(2, requires_grad=True).clone()
    o = Id.apply(a)
    assert o.is_view and o._base is a
    with pytest.raises(RuntimeError,
                       match="Output 0 of Id is a view and is being modified inplace. "
                             "This view was created inside a custom Function"):
        o += 1
    with pyad.no_grad():
        o += 1                        # allowed without recording, as torch
    assert_equal(a, np.full(2, 2.0))


def test_multi_output_view_after_base_inplace_matches_without_views():
    # Deliberate difference (docs/graph-semantics.md): torch raises when a split/unbind
    # view is used after its base changed in place; pyad rebuilds the view from the
    # base, which gives the gradient of the same computation written without views.
    data = np.random.default_rng(7).standard_normal((4, 3))
    a = pyad.tensor(data, requires_grad=True)
    x = a * 1.0
    first, second = x.split(2)
    x.mul_(3.0)
    (first * first).sum().backward()
    b = pyad.tensor(data, requires_grad=True)
    y = (b * 1.0) * 3.0
    (y[0:2] * y[0:2]).sum().backward()
    assert_equal(a.grad, b.grad.numpy())
    c = pyad.tensor(data, requires_grad=True)
    z = c * 1.0
    rows = z.unbind()
    z.add_(z.detach())
    rows[1].sum().backward()
    expected = np.zeros((4, 3))
    expected[1] = 1.0
    assert_equal(c.grad, expected)


def test_custom_function_view_after_its_base_changed_is_refused():
    # torch: using a custom Function's view output after it (under no_grad) or its base
    # was modified in place raises ("its base or another view of its base has been
    # modified inplace"), since replaying the view would override the custom backward
    class IdView(Function):
        @staticmethod
        def forward(ctx, a):
            return a.narrow(0, 0, 2)

        @staticmethod
        def backward(ctx, g):
            r = pyad.zeros(4, dtype=g.dtype)
            r[:2] = g
            return r

    msg = ("Output 0 of IdView is a view and its base or another view of its base has been "
           "modified inplace. This view was created inside a custom Function")
    x = pyad.ones(4, dtype=pyad.float64, requires_grad=True).clone()
    o = IdView.apply(x)
    with pyad.no_grad():
        o.mul_(2)
    with pytest.raises(RuntimeError, match=msg):
        o.grad_fn
    x = pyad.ones(4, dtype=pyad.float64, requires_grad=True).clone()
    o = IdView.apply(x)
    x.mul_(2)
    with pytest.raises(RuntimeError, match=msg):
        o.sum().backward()
    # unchanged: the custom backward runs
    leaf = pyad.ones(4, dtype=pyad.float64, requires_grad=True)
    IdView.apply(leaf.clone()).sum().backward()
    assert_equal(leaf.grad, np.array([1.0, 1.0, 0.0, 0.0]))

    class Id(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = pyad.ones(2, dtype=pyad.float64, requires_grad=True).clone()
    o = Id.apply(x)
    x.mul_(3)
    with pytest.raises(RuntimeError, match="Output 0 of Id is a view and its base"):
        o.sum().backward()
