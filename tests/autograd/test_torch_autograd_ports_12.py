"""More of PyTorch's own tests, translated to pyad: ``TestGradTransform`` of
``test/functorch/test_eager_transforms.py`` (``grad``/``vjp``/``jacrev``/``vmap`` on
primitives and composites, argnums, pytrees, ``has_aux``, unrelated outputs, in-place ops
and views inside a transform, nesting and composition with ordinary autograd, ``no_grad``
and ``inference_mode`` around and inside a transform, custom Functions under ``grad``),
its ``TestJac`` tests (run for both ``jacrev`` and ``jacfwd``) and a few ``TestAutogradDeviceType`` tests of ``test/test_autograd.py`` that earlier
batches left.

Each test keeps torch's name and the meaning of its assertions; ``torch.randn`` becomes a
fixed-seed NumPy draw. Expected values come from hand math (as torch's tests do) or from
torch 2.13 run on the same inputs, never from pyad's output; where torch's test compares a
transform with ``torch.autograd.grad`` the port checks the hand-derived value as well.
Some names (``test_shape``, ``test_inplace``, ``test_views``, ``test_vjp``...) are also
used by unrelated tests of other modules; here they are functorch's tests.
"""
import math

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad import Variable
from pyad.autograd import Function
from pyad.func import grad, grad_and_value, jacfwd, jacrev, jvp, vjp, vmap

from _ported_helpers import SeededRandom, assert_equal, double_default_dtype  # noqa: F401

_random = SeededRandom(12000)
randn, rand = _random.randn, _random.rand


def _np(v):
    return v.detach().numpy()


# --------------------------------------------------------------------------------
# test/functorch/test_eager_transforms.py: TestGradTransform
# --------------------------------------------------------------------------------

def test_primitive():
    x = randn()
    result = grad(pyad.sin)(x)
    assert_equal(result, np.cos(_np(x)))


def test_composite_simple():
    x = randn(2, 3, 4)
    result = grad(lambda x: pyad.flatten(x).sum())(x)
    assert_equal(result, np.ones((2, 3, 4)))


def test_fn_with_kwargs():
    def foo(x, y):
        return (x * y).sum()

    x = randn(3)
    y = randn(3)
    expected = grad(foo)(x, y)
    result = grad(foo)(x, y=y)
    assert_equal(result, expected)
    assert_equal(result, _np(y))            # d/dx sum(x * y) = y


def test_composite_complicated():
    x = randn(3)
    y = randn(3, 5)

    def foo(x, y):
        result = x @ y
        return result.sum()

    result = grad(foo)(x, y)

    x.requires_grad_()
    out = foo(x, y)
    (expected,) = pyad.autograd.grad(out, x)

    assert_equal(result, expected)
    assert_equal(result, _np(y).sum(1))     # d/dx sum(x @ y) = y @ 1


def test_composite_two_ops():
    N, C = 2, 5
    y = randn(N, C)
    targets = pyad.tensor([3, 1])

    def foo(y, targets):
        return F.cross_entropy(y, targets)

    result = grad(foo)(y, targets)

    y.requires_grad_()
    (expected,) = pyad.autograd.grad(foo(y, targets), y)

    assert_equal(result, expected)
    # hand math: (softmax(y) - onehot(targets)) / N
    e = np.exp(_np(y) - _np(y).max(1, keepdims=True))
    softmax = e / e.sum(1, keepdims=True)
    onehot = np.zeros((N, C))
    onehot[np.arange(N), [3, 1]] = 1
    assert_equal(result, (softmax - onehot) / N)


def _test_attributes(get_attr_lambda):
    x = randn(2, 3, 5)
    expected = get_attr_lambda(x)
    seen = []

    def foo(x):
        seen.append(get_attr_lambda(x))
        return x.sum()

    grad(foo)(x)
    assert seen == [expected]


def test_shape():
    _test_attributes(lambda x: x.shape)


def test_dtype():
    _test_attributes(lambda x: x.dtype)


def test_is_cuda():
    _test_attributes(lambda x: x.is_cuda)


def test_numel():
    _test_attributes(lambda x: x.numel())


def test_inplace():
    x = randn()

    def foo(x):
        return x.clone().sin_()

    result = grad(foo)(x)
    assert_equal(result, np.cos(_np(x)))


def test_inplace_on_view():
    x = randn(3)

    def foo(x):
        y = x.clone()
        y0 = y[0]
        y0.sin_()
        return y.sum()

    result = grad(foo)(x)

    x.requires_grad_()
    out = foo(x)
    (expected,) = pyad.autograd.grad(out, x)

    assert_equal(result, expected)
    assert_equal(result, [math.cos(x.data[0]), 1.0, 1.0])


def test_inplace_on_view_base():
    x = randn(3)

    def foo(x):
        y = x.clone()
        y0 = y[0]
        y.sin_()
        return y0

    result = grad(foo)(x)

    x.requires_grad_()
    out = foo(x)
    (expected,) = pyad.autograd.grad(out, x)

    assert_equal(result, expected)
    assert_equal(result, [math.cos(x.data[0]), 0.0, 0.0])


@pytest.mark.xfail(strict=True, reason="python: pyad.func.grad does not detect an in-place "
                   "change of a Variable captured from outside the transform (torch raises "
                   "'mutate a captured Tensor'); pyad/func.py has no hook on in-place ops")
def test_inplace_on_captures():
    x = pyad.tensor([1.0, 2.0, 3.0])
    captured = randn(3)

    def foo(x):
        captured.copy_(x)
        return (x * captured).sum()

    with pytest.raises(RuntimeError, match="mutate a captured"):
        grad(foo)(x)


def test_nesting_simple():
    x = randn()
    result = grad(grad(pyad.sin))(x)
    assert_equal(result, -np.sin(_np(x)))


def test_manual_seed_inside_grad():
    x = randn()

    def f(x):
        pyad.manual_seed(0)
        return x * pyad.randn_like(x)

    result = grad(f)(x)
    x.requires_grad_()
    (expected,) = pyad.autograd.grad(f(x), x)
    assert_equal(result, expected)
    # d/dx (x * r) = r, the draw after manual_seed(0)
    pyad.manual_seed(0)
    assert_equal(result, pyad.randn_like(x.detach()))


def test_vjp():
    x = randn()
    out, vjp_fn = vjp(pyad.sin, x)
    assert_equal(out, np.sin(_np(x)))

    v = randn()
    (result,) = vjp_fn(v)
    assert_equal(result, _np(v) * np.cos(_np(x)))


def test_vjp_two_outputs():
    def f(x):
        return x, x

    result, vjp_fn = vjp(f, pyad.tensor(1.0))
    (g,) = vjp_fn(result)
    assert_equal(g, 2.0)


def test_composed_with_autograd():
    x = randn(requires_grad=True)

    y = grad(pyad.sin)(x)
    (result,) = pyad.autograd.grad(y, x)
    assert_equal(result, -np.sin(_np(x)))


def test_grad_of_vjp_composition():
    x = randn()
    y = randn()

    def foo(x, y):
        out, vjp_fn = vjp(pyad.sin, x)
        return grad(lambda y: vjp_fn(y)[0])(y)

    result = foo(x, y)
    assert_equal(result, np.cos(_np(x)))


def test_vjp_of_grad_composition():
    x = randn()
    y = randn()

    def foo(x, y):
        out, vjp_fn = vjp(grad(pyad.sin), x)
        return vjp_fn(y)[0]

    result = foo(x, y)
    assert_equal(result, -_np(y) * np.sin(_np(x)))


def test_grad_of_vjp_of_grad_composition():
    x = randn()
    y = randn()

    def foo(x, y):
        df, vjp_fn = vjp(grad(lambda x: -pyad.cos(x)), x)
        return grad(lambda y: vjp_fn(y)[0])(y)

    result = foo(x, y)
    assert_equal(result, np.cos(_np(x)))


def test_views():
    x = randn(requires_grad=True)
    y = randn(requires_grad=True)

    def silly_sin(x):
        x = x.view([])
        x = x.sin()
        return x

    def foo(x, y):
        z1 = grad(silly_sin)(x)
        z2 = pyad.cos(y)
        return z1 + z2

    result = foo(x, y)
    grads = pyad.autograd.grad(result, [x, y])
    assert_equal(grads[0], -np.sin(_np(x)))
    assert_equal(grads[1], -np.sin(_np(y)))


def test_view_inplace_simple():
    def foo(x):
        x = x.clone()
        x.view([]).sin_()
        return x

    x = randn(requires_grad=True)
    result = grad(foo)(x)
    assert_equal(result, np.cos(_np(x)))


def test_invalid_argnums():
    x = randn()
    y = randn()
    with pytest.raises(RuntimeError, match="but only"):
        grad(pyad.mul, argnums=-3)(x, y)
    with pytest.raises(RuntimeError, match="but only"):
        grad(pyad.mul, argnums=2)(x, y)
    with pytest.raises(RuntimeError, match="int or Tuple"):
        grad(pyad.mul, argnums=[0])(x, y)
    with pytest.raises(RuntimeError, match="must be int"):
        grad(pyad.mul, argnums=("0",))(x, y)
    with pytest.raises(RuntimeError, match="must be unique"):
        grad(pyad.mul, argnums=(0, 0))(x, y)
    with pytest.raises(RuntimeError, match="must be unique"):
        grad(pyad.mul, argnums=(0, -2))(x, y)


def test_argnums():
    x = randn()
    y = randn()
    gx = grad(pyad.mul, argnums=0)(x, y)
    assert_equal(gx, y)

    gy = grad(pyad.mul, argnums=1)(x, y)
    assert_equal(gy, x)

    (gx,) = grad(pyad.mul, argnums=(0,))(x, y)
    assert_equal(gx, y)

    gx, gy = grad(pyad.mul, argnums=(0, 1))(x, y)
    assert_equal(gx, y)
    assert_equal(gy, x)


def test_out_of_order_argnums():
    x = randn()
    y = randn()
    gy, gx = grad(pyad.mul, argnums=(1, 0))(x, y)
    assert_equal(gx, y)
    assert_equal(gy, x)


def test_negative_argnums():
    x = randn()
    y = randn()
    gx = grad(pyad.mul, argnums=-2)(x, y)
    assert_equal(gx, y)

    gy = grad(pyad.mul, argnums=-1)(x, y)
    assert_equal(gy, x)

    (gx,) = grad(pyad.mul, argnums=(-2,))(x, y)
    assert_equal(gx, y)

    gx, gy = grad(pyad.mul, argnums=(-2, -1))(x, y)
    assert_equal(gx, y)
    assert_equal(gy, x)


def test_grad_pytree_inputs():
    x = randn()

    def f(a, b):
        x, y = a
        return 1 * x + 2 * y + 3 * b["foo"]

    args = ((x, x), {"foo": x})

    gx, gy = grad(f)(*args)
    assert_equal(gx, 1.0)
    assert_equal(gy, 2.0)

    ((gx, gy),) = grad(f, argnums=(0,))(*args)
    assert_equal(gx, 1.0)
    assert_equal(gy, 2.0)

    (gx, gy), gz = grad(f, argnums=(0, 1))(*args)
    assert_equal(gx, 1.0)
    assert_equal(gy, 2.0)
    assert_equal(gz["foo"], 3.0)


def test_grad_aux_tensor():
    x = randn(3)

    # torch's message reads "grad_and_value(f)(*args): output of function f should be a
    # tuple"; pyad's begins with the API's name, as all its messages do
    with pytest.raises(RuntimeError, match=r"output of function f should be a tuple"):
        grad(lambda t: [t, t], has_aux=True)(x)

    with pytest.raises(RuntimeError, match=r"output of function f should be a tuple"):
        grad(lambda t: (t, t + 2, t + 3), has_aux=True)(x)

    def f(t):
        y = t.sin()
        return y.sum(), t.cos()

    out, aux = grad(f, has_aux=True)(x)
    assert_equal(aux, np.cos(_np(x)))
    assert_equal(out, np.cos(_np(x)))


def test_grad_aux_pytree():
    def f(x):
        y = x.sin()
        return y.sum(), {"a": x.cos(), "b": [x.tan()]}

    x = randn(3)

    out, aux = grad(f, has_aux=True)(x)
    assert set(aux) == {"a", "b"} and len(aux["b"]) == 1
    assert_equal(aux["a"], np.cos(_np(x)))
    assert_equal(aux["b"][0], np.tan(_np(x)))
    assert_equal(out, np.cos(_np(x)))

    # torch: "Expected tensors, got unsupported type"; pyad says Variables
    for aux in [1, 1.0, "abc"]:
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = grad(lambda x: (x.sum(), aux), has_aux=True)(x)
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = grad(lambda x: (x.sum(), [x, aux]), has_aux=True)(x)


def test_zero_grad():
    def f(x):
        return (x["a"] ** 2.0).sum()

    inps = {
        "a": randn(10) + 3,
        "b": randn(10),
    }
    grads = grad(f)(inps)
    assert grads["a"].sum().item() != 0.0
    assert_equal(grads["a"], 2 * _np(inps["a"]))
    assert_equal(grads["b"], np.zeros(10))


def test_unrelated_grad():
    x = pyad.tensor(1.0)
    y = pyad.tensor(2.0)

    def unrelated(x):
        return y

    result = grad(unrelated)(x)
    assert_equal(result, 0.0)


def test_unrelated_vjp():
    x = pyad.tensor(1.0)
    y = pyad.tensor(2.0)
    v = pyad.tensor(1.0)

    def unrelated(x):
        return y

    out, vjp_fn = vjp(unrelated, x)
    result = vjp_fn(v)
    assert isinstance(result, tuple) and len(result) == 1
    assert_equal(result[0], 0.0)


def test_unrelated_vjp_multiple_inputs_outputs():
    w = pyad.tensor(3.0)
    x = pyad.tensor(4.0)
    y = pyad.tensor(2.0)
    v = pyad.tensor(1.0)

    def unrelated(w, x):
        return y, y, x

    out, vjp_fn = vjp(unrelated, w, x)
    result = vjp_fn((v, v, v))
    assert isinstance(result, tuple) and len(result) == 2
    assert_equal(result[0], 0.0)
    assert_equal(result[1], 1.0)


def test_unrelated_hessian():
    N = 5
    M = 3
    W = randn(N, M)

    def f(x):
        return W @ x

    x = randn(M)
    result = jacrev(jacrev(f))(x)
    assert_equal(result, np.zeros((N, M, M)))


def test_vjp_pytree_input():
    def f(x):
        return x[0] * x[1][0]

    x = randn()
    v = randn()
    out, vjp_fn = vjp(f, (x, (x, x)))
    assert_equal(out, _np(x) * _np(x))
    result = vjp_fn(v)
    ((g0, (g1, g2)),) = result
    assert_equal(g0, _np(x) * _np(v))
    assert_equal(g1, _np(x) * _np(v))
    assert_equal(g2, 0.0)


def test_vjp_pytree_output():
    def f(x):
        return x, (x, x)

    x = randn()
    v1 = randn()
    v2 = randn()
    v3 = randn()
    _, vjp_fn = vjp(f, x)
    (result,) = vjp_fn((v1, (v2, v3)))
    assert_equal(result, _np(v1) + _np(v2) + _np(v3))


def test_vjp_outputs_can_any_pytree():
    x = randn(2, 3)
    t = randn(2, 3)

    for output in [None, ()]:
        with pytest.raises(RuntimeError, match=r"vjp.*Expected f to be a function that has "
                                               r"non-empty output"):
            _, vjp_fn = vjp(lambda _: output, x)
            vjp_fn(t)

    for output in [1, True, 12.2, "abc"]:
        with pytest.raises(RuntimeError, match=r"vjp.*expected f\(\*primals\) to return "
                                               r"only"):
            _, vjp_fn = vjp(lambda _: output, x)
            vjp_fn(t)

    # Check list output
    output, vjp_fn = vjp(lambda x: [x, x.sum()], x)
    (vjp_out,) = vjp_fn([t, t.sum()])
    assert isinstance(output, list) and len(output) == 2
    assert isinstance(vjp_out, Variable)
    # d/dx <[x, sum x], [t, sum t]> = t + sum(t)
    assert_equal(vjp_out, _np(t) + _np(t).sum())

    # Check dict output
    output, vjp_fn = vjp(lambda x: {"x": x, "xsum": x.sum()}, x)
    (vjp_out,) = vjp_fn({"x": t, "xsum": t.sum()})
    assert isinstance(output, dict) and len(output) == 2 and "xsum" in output
    assert isinstance(vjp_out, Variable)
    assert_equal(vjp_out, _np(t) + _np(t).sum())

    def composite_output(x):
        out = x.sum()
        return [
            (out, {"a": x, "out": [x, out]}),
        ]

    output, vjp_fn = vjp(composite_output, x)
    (vjp_out,) = vjp_fn(
        [
            (t.sum(), {"a": t, "out": [t, t.sum()]}),
        ]
    )
    assert isinstance(output, list)
    assert isinstance(output[0], tuple) and isinstance(output[0][1], dict)
    assert isinstance(vjp_out, Variable)
    assert_equal(vjp_out, 2 * _np(t) + 2 * _np(t).sum())


def test_vjp_pytree_error():
    def f(x):
        return x, (x, x)

    x = randn()
    v1 = randn()
    v2 = randn()
    v3 = randn()
    _, vjp_fn = vjp(f, x)
    with pytest.raises(RuntimeError, match="Expected pytree structure"):
        (result,) = vjp_fn(((v1, (v2, v3)),))


def test_vjp_aux_tensor():
    x = randn(3)

    with pytest.raises(RuntimeError, match=r"vjp.*output of function f should be a tuple"):
        vjp(lambda t: [t, t], x, has_aux=True)

    with pytest.raises(RuntimeError, match=r"vjp.*output of function f should be a tuple"):
        vjp(lambda t: (t, t + 2, t + 3), x, has_aux=True)

    def f(t):
        y = t.sin()
        return y, t.cos()

    out, vjp_fn, aux = vjp(f, x, has_aux=True)
    assert_equal(aux, np.cos(_np(x)))
    assert_equal(out, np.sin(_np(x)))

    v = randn(3)
    (grad_x,) = vjp_fn(v)
    assert_equal(grad_x, _np(v) * np.cos(_np(x)))


def test_vjp_aux_pytree():
    def f(x):
        y = x.sin()
        return y, {"a": x.cos(), "b": [x.tan()]}

    x = randn(3)

    out, vjp_fn, aux = vjp(f, x, has_aux=True)
    assert_equal(out, np.sin(_np(x)))
    assert set(aux) == {"a", "b"}
    assert_equal(aux["a"], np.cos(_np(x)))
    assert_equal(aux["b"][0], np.tan(_np(x)))

    v = randn(3)
    (grad_x,) = vjp_fn(v)
    assert_equal(grad_x, _np(v) * np.cos(_np(x)))

    for aux in [1, 1.0, "abc"]:
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = vjp(lambda x: (x, aux), x, has_aux=True)
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = vjp(lambda x: (x, [x, aux]), x, has_aux=True)


def test_advanced_indexing():
    def f(value):
        log_prob = pyad.ones(())
        val = pyad.zeros(()) > 0
        log_prob[val] = 0
        return value

    result = grad(f)(randn())
    assert_equal(result, 1.0)

    def f2(value):
        value = value.clone()
        value[value > 0] = 0
        return value.sum()

    x = randn(100)
    result = grad(f2)(x)
    assert_equal(result, (_np(x) <= 0).astype(np.float64))


def test_tensor_ctor_inside_grad():
    def foo(x):
        return x * pyad.tensor(2.0)

    x = pyad.tensor(3.14)
    assert_equal(grad(foo)(x), 2.0)


def test_no_grad_outside():
    x = randn(requires_grad=True)
    with pyad.no_grad():
        y = grad(pyad.sin)(x)
    assert_equal(y, np.cos(_np(x)))
    assert not y.requires_grad


def test_no_grad_inside():
    def f(x):
        with pyad.no_grad():
            shift = x ** 2
        return x ** 2 - shift

    x = randn()
    y = grad(f)(x)
    assert_equal(y, 2 * _np(x))
    y = grad(grad(f))(x)
    assert_equal(y, 2.0)

    x = randn(requires_grad=True)
    y = grad(f)(x)
    (z,) = pyad.autograd.grad(y, x)
    assert_equal(z, 2.0)


def test_no_grad_mixed():
    def f(x):
        with pyad.no_grad():
            shift = x ** 2
        return x ** 2 - shift

    x = randn(requires_grad=True)
    with pyad.no_grad():
        y = grad(f)(x)

    assert_equal(y, 2 * _np(x))
    assert not y.requires_grad


def test_no_grad_nested_simple():
    def h(x):
        with pyad.no_grad():
            shift = grad(lambda x: 0.25 * x ** 4)(x)
        return x ** 3 - shift

    x = pyad.tensor(1.5, requires_grad=True)
    y = grad(h)(x)
    assert_equal(y, 3 * 1.5 ** 2)

    (z,) = pyad.autograd.grad(y, x)
    assert_equal(z, 6 * 1.5)


def test_no_grad_nested_complicated():
    def f(x):
        with pyad.no_grad():
            shift = x ** 3
        return x ** 3 - shift

    def g(x):
        r1 = grad(f)(x)
        with pyad.no_grad():
            shift = grad(f)(x)
        return r1 - shift

    x = randn(requires_grad=True)
    y = grad(g)(x)
    # The only differential part of g is x ** 3
    assert_equal(y, 6 * _np(x))

    (z,) = pyad.autograd.grad(y, x)
    assert_equal(z, 6.0)


def test_no_grad_value():
    def h(x):
        with pyad.no_grad():
            gvalue, value = grad_and_value(lambda x: x ** 3)(x)
        return x ** 3 - value

    x = pyad.tensor(1.6, requires_grad=True)
    y = grad(h)(x)
    assert_equal(y, 3 * 1.6 ** 2)

    (z,) = pyad.autograd.grad(y, x)
    assert_equal(z, 6 * 1.6)


def test_no_grad_outside_vjp():
    def h(x):
        return x ** 2

    x = pyad.tensor(2.0, requires_grad=True)
    with pyad.no_grad():
        out, vjp_fn = vjp(h, x)
        (y,) = vjp_fn(pyad.tensor(1.0))

    assert_equal(y, 4.0)
    assert not y.requires_grad
    assert not out.requires_grad


def test_no_grad_outside_vjp_fn():
    def h(x):
        return x ** 2

    x = pyad.tensor(3.14, requires_grad=True)
    out, vjp_fn = vjp(h, x)
    with pyad.no_grad():
        (y,) = vjp_fn(pyad.tensor(1.0))

    assert_equal(y, 2 * 3.14)
    assert not y.requires_grad
    assert out.requires_grad

    (z,) = pyad.autograd.grad(out, x)
    assert_equal(z, 2 * 3.14)


def test_no_grad_outside_vjp_only():
    def h(x):
        return x ** 2

    x = pyad.tensor(3.14, requires_grad=True)
    with pyad.no_grad():
        out, vjp_fn = vjp(h, x)
    (y,) = vjp_fn(pyad.tensor(1.0))

    assert_equal(y, 2 * 3.14)
    assert not out.requires_grad

    # This one is a little weird... (torch's comment: the vjp_fn called with grad mode
    # on records its backward pass)
    assert y.requires_grad

    (z,) = pyad.autograd.grad(y, x)
    assert_equal(z, 2.0)


def test_inference_mode_outside_grad():
    x = randn(3)
    with pyad.inference_mode():
        y = grad(lambda x: (x ** 2).sum())(x)
    assert_equal(y, 2 * _np(x))


def test_inference_mode_nograd_outside_grad():
    x = randn(3)
    with pyad.inference_mode():
        with pyad.no_grad():
            y = grad(lambda x: (x ** 2).sum())(x)
    assert_equal(y, 2 * _np(x))


def test_inference_mode_outside_vjp():
    x = randn(3)
    with pyad.inference_mode():
        out, vjp_fn = vjp(lambda x: (x ** 2).sum(), x)
        (y,) = vjp_fn(pyad.tensor(1.0))
    assert_equal(y, 2 * _np(x))


def test_inference_mode_outside_jvp():
    x = randn(3)
    t = pyad.ones(3)
    with pyad.inference_mode():
        _, y = jvp(lambda x: (x ** 2).sum(), (x,), (t,))
    assert_equal(y, (2 * _np(x)).sum())


def test_inference_mode_outside_jacrev():
    x = randn(3)
    with pyad.inference_mode():
        y = jacrev(lambda x: x ** 2)(x)
    assert_equal(y, np.diag(2 * _np(x)))


def test_inference_mode_outside_vmap_grad():
    xs = randn(5, 3)
    with pyad.inference_mode():
        ys = vmap(grad(lambda x: (x ** 2).sum()))(xs)
    assert_equal(ys, 2 * _np(xs))


def test_inference_mode_outside_grad_vmap():
    x = randn(3)
    with pyad.inference_mode():
        y = grad(lambda x: vmap(lambda x: (x ** 2).sum())(x).sum())(x)
    assert_equal(y, 2 * _np(x))


def test_inference_mode_nested_grad():
    x = randn()
    with pyad.inference_mode():
        y = grad(grad(lambda x: x ** 3))(x)
    assert_equal(y, 6 * _np(x))


def test_inference_mode_jacrev_grad():
    x = randn(3)
    with pyad.inference_mode():
        H = jacrev(grad(lambda x: (x ** 3).sum()))(x)
    assert_equal(H, np.diag(6 * _np(x)))


def test_inference_mode_inside_grad():
    def f(x):
        with pyad.inference_mode():
            c = x ** 2
        return x - c

    x = randn(3)
    with pyad.inference_mode():
        y = grad(lambda x: f(x).sum())(x)
    assert_equal(y, np.ones(3))


def test_inference_mode_restored():
    assert not pyad.is_inference_mode_enabled()
    with pyad.inference_mode():
        assert pyad.is_inference_mode_enabled()
        grad(lambda x: (x ** 2).sum())(randn(3))
        assert pyad.is_inference_mode_enabled()
        assert not pyad.is_grad_enabled()
    assert not pyad.is_inference_mode_enabled()
    assert pyad.is_grad_enabled()


def test_inference_mode_variable_made_inside():
    # not in torch's file: test_inference_mode_nested_grad with x drawn inside the mode
    # (an inference Variable), which torch 2.13 differentiates too (6 * 0.5 = 3)
    with pyad.inference_mode():
        x = pyad.tensor(0.5)
        y = grad(grad(lambda x: x ** 3))(x)
    assert_equal(y, 3.0)


# --------------------------------------------------------------------------------
# test/functorch/test_eager_transforms.py: TestAutogradFunction
# --------------------------------------------------------------------------------

def test_set_materialize_grads():
    seen = []

    class A(Function):
        @staticmethod
        def forward(x, y):
            return x, y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.set_materialize_grads(False)

        @staticmethod
        def backward(ctx, gx, gy):
            seen.append((gx is not None, gy is None))
            return gx, gy

    def f(y, x):
        x, y = A.apply(x, y)
        return x ** 2

    x = pyad.tensor(2.0)
    y = pyad.tensor(3.0)
    # grad differentiates w.r.t. arg 0 by default
    assert_equal(grad(f)(y, x), 0.0)
    assert_equal(grad(grad(f))(y, x), 0.0)
    assert seen and all(gx and gy_none for gx, gy_none in seen)
    # and with respect to x, where the gradient flows (2 x, then 2)
    assert_equal(grad(f, argnums=1)(y, x), 4.0)
    assert_equal(grad(grad(f, argnums=1), argnums=1)(y, x), 2.0)


# --------------------------------------------------------------------------------
# test/functorch/test_eager_transforms.py: TestGradTransform.test_log_softmax, TestJac
# --------------------------------------------------------------------------------

def test_log_softmax():
    x = randn(3, 5)
    v = randn(5)

    def foo(x, v):
        _, vjp_fn = vjp(lambda t: pyad.log_softmax(t, dim=-1), x)
        return vjp_fn(v)[0]

    result = vmap(foo, (0, None))(x, v)

    # hand math: v - softmax(x) * sum(v)
    e = np.exp(_np(x) - _np(x).max(-1, keepdims=True))
    softmax = e / e.sum(-1, keepdims=True)
    assert_equal(result, _np(v) - softmax * _np(v).sum())


jacrev_and_jacfwd = pytest.mark.parametrize("jacapi", [jacrev, jacfwd],
                                            ids=["jacrev", "jacfwd"])


@jacrev_and_jacfwd
def test_simple(jacapi):
    x = randn(3)
    y = jacapi(pyad.sin)(x)
    assert_equal(y, np.diagflat(np.cos(_np(x))))


@jacrev_and_jacfwd
def test_simple_not_flat(jacapi):
    x = randn(2, 3)
    y = jacapi(pyad.sin)(x)
    assert_equal(y, np.diagflat(np.cos(_np(x).reshape(-1))).reshape(2, 3, 2, 3))


@jacrev_and_jacfwd
def test_take(jacapi):
    x = rand(5)

    def func(x):
        y = pyad.ones(3, dtype=pyad.int64)
        z = pyad.take(x, y)
        return z

    expected = np.zeros((3, 5))
    expected[:, 1] = 1
    assert_equal(jacrev(func)(x), expected)
    assert_equal(jacapi(func)(x), expected)


@jacrev_and_jacfwd
def test_diff_numel(jacapi):
    x = randn(2, 4)

    # Variable[2, 4] -> Variable[3, 1]
    def f(x):
        return x[0, 1:].unsqueeze(-1)

    y = jacapi(f)(x)
    assert tuple(y.shape) == (3, 1, 2, 4)

    expected = np.zeros((3, 1, 2, 4))
    expected[0, 0, 0, 1] = 1
    expected[1, 0, 0, 2] = 1
    expected[2, 0, 0, 3] = 1
    assert_equal(y, expected)


@jacrev_and_jacfwd
def test_vmap_on_jac_simple(jacapi):
    x = randn(2, 3)
    y = vmap(jacapi(pyad.sin))(x)
    expected = np.stack([np.diagflat(np.cos(_np(x)[i])) for i in range(2)])
    assert_equal(y, expected)


@jacrev_and_jacfwd
def test_nested_jac_simple(jacapi):
    def foo(x):
        return x.sin().sum()

    x = randn(3)
    y = jacapi(jacapi(foo))(x)
    assert_equal(y, np.diagflat(-np.sin(_np(x))))


@jacrev_and_jacfwd
def test_multiple_args(jacapi):
    x = randn(3)
    y = randn(3)
    z = jacapi(pyad.multiply, argnums=1)(x, y)
    assert_equal(z, np.diagflat(_np(x)))


@jacrev_and_jacfwd
def test_multiple_outputs_multiple_argnums(jacapi):
    def f(x, y):
        return 2 * x + 3 * y, 4 * x + 5 * y

    x = randn(3)
    y = randn(3)
    z = jacapi(f, argnums=(0, 1))(x, y)
    assert isinstance(z, tuple) and len(z) == 2
    assert isinstance(z[0], tuple) and len(z[0]) == 2
    assert_equal(z[0][0], 2 * np.eye(3))
    assert_equal(z[0][1], 3 * np.eye(3))
    assert_equal(z[1][0], 4 * np.eye(3))
    assert_equal(z[1][1], 5 * np.eye(3))


@jacrev_and_jacfwd
def test_multiple_outputs_single_argnums(jacapi):
    def f(x, y):
        return 2 * x + 3 * y, 4 * x + 5 * y

    x = randn(3)
    y = randn(3)

    z = jacapi(f, argnums=0)(x, y)
    assert isinstance(z, tuple) and len(z) == 2
    assert_equal(z[0], 2 * np.eye(3))
    assert_equal(z[1], 4 * np.eye(3))

    z = jacapi(f, argnums=(0,))(x, y)
    assert isinstance(z, tuple) and len(z) == 2
    assert isinstance(z[0], tuple) and len(z[0]) == 1 and len(z[1]) == 1
    assert_equal(z[0][0], 2 * np.eye(3))
    assert_equal(z[1][0], 4 * np.eye(3))


@jacrev_and_jacfwd
def test_multiple_outputs_pytree(jacapi):
    def f(x, y):
        return {"left": 2 * x + 3 * y, "right": 4 * x + 5 * y}

    x = randn(3)
    y = randn(3)
    z = jacapi(f, argnums=(0, 1))(x, y)
    assert isinstance(z, dict) and set(z) == {"left", "right"}
    assert isinstance(z["left"], tuple) and isinstance(z["right"], tuple)
    for key, (cx, cy) in (("left", (2, 3)), ("right", (4, 5))):
        assert_equal(z[key][0], cx * np.eye(3))
        assert_equal(z[key][1], cy * np.eye(3))


@jacrev_and_jacfwd
def test_multiple_inputs_pytree(jacapi):
    def f(a, b, c):
        a0, a1 = a
        return a0 + a1 * 2 + b * 3 + c * 4

    x = randn()
    args = ((x, x), x, x)

    (r0, r1), r2, r3 = jacapi(f, argnums=(0, 1, 2))(*args)
    for r, e in zip((r0, r1, r2, r3), (1.0, 2.0, 3.0, 4.0)):
        assert_equal(r, e)

    ((r0, r1),) = jacapi(f, argnums=(0,))(*args)
    assert_equal(r0, 1.0)
    assert_equal(r1, 2.0)

    r0, r1 = jacapi(f)(*args)
    assert_equal(r0, 1.0)
    assert_equal(r1, 2.0)


@jacrev_and_jacfwd
def test_dimensionality(jacapi):
    def f(x):
        return x

    x = randn()
    result = jacapi(f)(x)
    assert result.dim() == 0
    assert_equal(result, 1.0)

    x = randn(1)
    result = jacapi(f)(x)
    assert result.dim() == 2
    assert_equal(result, np.ones((1, 1)))


@jacrev_and_jacfwd
def test_aux_tensor(jacapi):
    def f(x):
        y = x.clone()
        return y, y.cos()

    x = randn(3)
    result, aux = jacapi(f, has_aux=True)(x)

    assert_equal(result, np.eye(3))
    assert_equal(aux, np.cos(_np(x)))


@jacrev_and_jacfwd
def test_aux_pytree(jacapi):
    def f(x):
        y = x.clone()
        return y, {"a": y.cos(), "b": [y.tan()]}

    x = randn(3)

    result, aux = jacapi(f, has_aux=True)(x)
    assert_equal(result, np.eye(3))
    assert set(aux) == {"a", "b"}
    assert_equal(aux["a"], np.cos(_np(x)))
    assert_equal(aux["b"][0], np.tan(_np(x)))

    # torch: "Expected tensors, got unsupported type"; pyad says Variables
    for aux in [1, 1.0, "abc"]:
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = jacapi(lambda x: (x, aux), has_aux=True)(x)
        with pytest.raises(RuntimeError, match=r"Expected Variables in aux, got unsupported "
                                               r"type"):
            _ = jacapi(lambda x: (x, [x, aux]), has_aux=True)(x)


@jacrev_and_jacfwd
def test_outputs_can_any_pytree(jacapi):
    x = randn(2, 3)

    for output in [None, ()]:
        with pytest.raises(RuntimeError, match=r"(vjp|jvp|jacrev|jacfwd).*Expected f to be a "
                                               r"function that has non-empty output"):
            jacapi(lambda _: output)(x)

    for output in [1, True, 12.2, "abc"]:
        with pytest.raises(RuntimeError, match=r"(vjp|jvp|jacrev|jacfwd).*expected "
                                               r"f\(\*primals\) to return only"):
            jacapi(lambda _: output)(x)

    # Check list output
    out = jacapi(lambda x: [x, x.sum()])(x)
    assert isinstance(out, list) and len(out) == 2
    assert_equal(out[0], np.eye(6).reshape(2, 3, 2, 3))
    assert_equal(out[1], np.ones((2, 3)))

    # Check dict output
    out = jacapi(lambda x: {"x": x, "xsum": x.sum()})(x)
    assert isinstance(out, dict) and len(out) == 2 and "xsum" in out
    assert_equal(out["xsum"], np.ones((2, 3)))

    def composite_output(x):
        out = x.sum()
        return [
            (out, {"a": x, "out": [x, out]}),
        ]

    out = jacapi(composite_output)(x)
    assert isinstance(out, list)
    assert isinstance(out[0], tuple) and isinstance(out[0][1], dict)


@jacrev_and_jacfwd
def test_multiple_inputs_outputs_pytree(jacapi):
    def f(a, b, c):
        a0, a1 = a
        return a0 + a1 * 2, {"foo": b * 3 + c * 4}

    x = randn()
    args = ((x, x), x, x)

    (r0, r1), foo = jacapi(f)(*args)
    assert_equal(r0, 1.0)
    assert_equal(r1, 2.0)
    assert set(foo) == {"foo"}
    assert_equal(foo["foo"][0], 0.0)
    assert_equal(foo["foo"][1], 0.0)

    (((r0, r1),), foo) = jacapi(f, argnums=(0,))(*args)
    assert_equal(r0, 1.0)
    assert_equal(r1, 2.0)
    ((z0, z1),) = foo["foo"]
    assert_equal(z0, 0.0)
    assert_equal(z1, 0.0)

    (((r0, r1), rz), foo) = jacapi(f, argnums=(0, 1))(*args)
    assert_equal(r0, 1.0)
    assert_equal(r1, 2.0)
    assert_equal(rz, 0.0)
    (z0, z1), f3 = foo["foo"]
    assert_equal(z0, 0.0)
    assert_equal(z1, 0.0)
    assert_equal(f3, 3.0)


@jacrev_and_jacfwd
def test_multiple_inputs_outputs_pytree_multidim(jacapi):
    def f(dct):
        a = dct["a"]
        b = dct["b"]
        return {"c": a.sin(), "d": b.cos()}

    x = randn(3)
    args = ({"a": x, "b": x},)

    result = jacapi(f)(*args)
    assert set(result) == {"c", "d"}
    assert_equal(result["c"]["a"], np.diagflat(np.cos(_np(x))))
    assert_equal(result["c"]["b"], np.zeros((3, 3)))
    assert_equal(result["d"]["a"], np.zeros((3, 3)))
    assert_equal(result["d"]["b"], np.diagflat(-np.sin(_np(x))))


@jacrev_and_jacfwd
def test_unrelated_input(jacapi):
    def f(x, y):
        return x

    x = randn(2, 3)
    y = randn(2, 3)

    result = jacapi(f, argnums=(0, 1))(x, y)
    assert isinstance(result, tuple) and len(result) == 2
    assert_equal(result[0], np.eye(6).reshape(2, 3, 2, 3))
    assert_equal(result[1], np.zeros((2, 3, 2, 3)))


@jacrev_and_jacfwd
def test_unrelated_output(jacapi):
    y = randn(2, 3)

    def f(x):
        return y

    x = randn(2, 3)

    result = jacapi(f)(x)
    assert_equal(result, np.zeros((2, 3, 2, 3)))


@jacrev_and_jacfwd
def test_empty_output(jacapi):
    x = randn(3)
    y = randn(3)

    def f(x, y):
        return ()

    with pytest.raises(RuntimeError, match="xpected"):
        jacapi(f)(x, y)


@jacrev_and_jacfwd
def test_argnums_tuple(jacapi):
    x = randn(3)
    y = randn(3)
    z = jacapi(pyad.multiply, argnums=(0, 1))(x, y)
    assert len(z) == 2
    assert_equal(z[0], np.diagflat(_np(y)))
    assert_equal(z[1], np.diagflat(_np(x)))


# --------------------------------------------------------------------------------
# test/test_autograd.py: TestAutogradDeviceType (run on the CPU)
# --------------------------------------------------------------------------------

def test_advanced_indexing_backwards_large():
    # See https://github.com/pytorch/pytorch/issues/22843 (torch runs it on CUDA only)
    n = 1 << 16
    x = rand(n, 1, requires_grad=True)
    a = x[:, [0]]
    a.sum().backward()
    assert_equal(x.grad, np.ones((n, 1)))


def test_out_variant():
    import pyad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        foo = fwAD.make_dual(rand(2), rand(2))
        bar = rand(2)

        with pytest.raises(RuntimeError, match="out="):
            pyad.add(bar, bar, out=foo)

        with pytest.raises(RuntimeError, match="out="):
            pyad.add(foo, bar, out=bar)


def test_inference_mode_enable_grad_inside_records_no_op():
    # found while porting the inference_mode tests above: torch 2.13 gives
    # (x * 2).requires_grad == (x ** 2).requires_grad == False here
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    with pyad.inference_mode():
        with pyad.enable_grad():
            assert pyad.is_grad_enabled()
            y = x * 2
            z = x ** 2
    assert not y.requires_grad and y.grad_fn is None
    assert not z.requires_grad and z.grad_fn is None
