"""pyad.interop (issue 15, section 2): gradients across frameworks. Each bridge is
checked against the same function written in pyad (first, second and third order),
with gradcheck/gradgradcheck across the boundary in float64, and for zero copies
(data pointers on the way in and out)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck
import pyad.interop as interop


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def jax():
    jax = pytest.importorskip("jax")
    import jax.numpy  # noqa: F401
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", previous)


def leaf(values, dtype=pyad.float64, requires_grad=True):
    return pyad.tensor(values, dtype=dtype, requires_grad=requires_grad)


def grads_to_order(f, xs, order):
    """The gradients of sum(f(*xs)) w.r.t. xs up to `order`, each differentiated again
    through its sum (create_graph=True all the way)."""
    out = f(*xs).sum()
    results = []
    for _ in range(order):
        gs = pyad.autograd.grad(out, xs, create_graph=True, allow_unused=True,
                                materialize_grads=True)
        results.append([g.detach().data.copy() for g in gs])
        out = sum(g.sum() for g in gs)
    return results


X = [0.3, -1.2, 2.0, 0.0]
Y = [1.5, 0.5, -0.7, 2.2]


def pyad_reference(x, y):
    return (x.sin() * y + x * x * y.exp()).tanh()


# --------------------------------------------------------------------------------
# from_torch
# --------------------------------------------------------------------------------

def test_from_torch_matches_pyad_to_third_order(torch):
    bridged = interop.from_torch(lambda x, y: (x.sin() * y + x * x * y.exp()).tanh())
    xs = [leaf(X), leaf(Y)]
    expected = grads_to_order(pyad_reference, xs, 3)
    got = grads_to_order(bridged, xs, 3)
    for order, (e, g) in enumerate(zip(expected, got), 1):
        for ei, gi in zip(e, g):
            np.testing.assert_allclose(gi, ei, rtol=1e-12, atol=1e-12, err_msg="order %d" % order)


def test_from_torch_gradcheck_and_gradgradcheck(torch):
    bridged = interop.from_torch(lambda x, y: (x.sin() * y + x * x * y.exp()).tanh())
    xs = (leaf(X), leaf(Y))
    assert gradcheck(bridged, xs)
    assert gradgradcheck(bridged, xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_from_torch_dtypes(torch, dtype):
    bridged = interop.from_torch(torch.exp)
    x = leaf(X, dtype=getattr(pyad, dtype))
    y = bridged(x)
    assert y.dtype == np.dtype(dtype)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, np.exp(np.array(X, dtype=dtype)), rtol=1e-6)
    assert x.grad.dtype == np.dtype(dtype)


def test_from_torch_zero_copy_in_and_out(torch):
    seen = {}

    def fn(x):
        seen["in"] = x.data_ptr()
        out = x * 2
        seen["out"] = out.data_ptr()
        return out

    x = leaf(X)
    y = interop.from_torch(fn)(x)
    assert seen["in"] == x.data.ctypes.data
    assert seen["out"] == y.data.ctypes.data


def test_from_torch_several_inputs_outputs_and_pass_through_arguments(torch):
    def fn(a, scale, b, *, power):
        return a * scale, (a * b) ** power, torch.argmax(b).reshape(1)

    bridged = interop.from_torch(fn)
    a, b = leaf(X), leaf(Y)
    u, w, index = bridged(a, 3.0, b, power=2)
    assert index.dtype == np.int64 and not index.requires_grad and index.tolist() == [3]
    assert u.requires_grad and w.requires_grad
    (u.sum() + w.sum()).backward()
    a_np, b_np = np.array(X), np.array(Y)
    np.testing.assert_allclose(a.grad.data, 3.0 + 2 * a_np * b_np ** 2)
    np.testing.assert_allclose(b.grad.data, 2 * b_np * a_np ** 2)


def test_from_torch_input_without_grad_and_unused_output(torch):
    bridged = interop.from_torch(lambda a, b: (a * b, a + b))
    a, b = leaf(X), leaf(Y, requires_grad=False)
    prod, _ = bridged(a, b)
    prod.sum().backward()                     # the second output gets no gradient
    np.testing.assert_allclose(a.grad.data, Y)
    assert b.grad is None


def test_from_torch_input_the_function_ignores_gets_no_gradient(torch):
    bridged = interop.from_torch(lambda a, b: a * 2)
    a, b = leaf(X), leaf(Y)
    bridged(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.data, 2.0)
    assert b.grad is None
    g = pyad.autograd.grad(bridged(a, b).sum(), [a, b], allow_unused=True)
    assert g[1] is None


def test_from_torch_under_pyad_no_grad_records_nothing(torch):
    seen = {}

    def fn(x):
        seen["grad_enabled"] = torch.is_grad_enabled()
        seen["requires_grad"] = x.requires_grad
        return x * 2

    x = leaf(X)
    with pyad.no_grad():
        y = interop.from_torch(fn)(x)
    assert not y.requires_grad and y.grad_fn is None
    assert seen == {"grad_enabled": False, "requires_grad": False}


def test_from_torch_function_using_torch_no_grad_gives_non_differentiable_outputs(torch):
    def fn(x):
        with torch.no_grad():
            return x * 2

    y = interop.from_torch(fn)(leaf(X))
    assert not y.requires_grad


def test_from_torch_in_place_write_bumps_pyad_version(torch):
    def scale_(x):
        x.mul_(2)
        return x + 0

    a = leaf(X, requires_grad=False)
    w = leaf(Y)
    saved = w * a                             # saves a for the backward
    version = a._version
    interop.from_torch(scale_)(a)
    np.testing.assert_allclose(a.data, 2 * np.array(X))   # torch wrote into pyad's memory
    assert a._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved.sum().backward()


def test_from_torch_in_place_write_on_an_input_requiring_grad_is_refused_by_torch(torch):
    def scale_(x):
        return x.mul_(2)

    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        interop.from_torch(scale_)(leaf(X))


def test_from_torch_bad_return_and_keyword_variable(torch):
    with pytest.raises(TypeError, match=r"from_torch\(\): the function <lambda> must return"):
        interop.from_torch(lambda x: 3.0)(leaf(X))
    with pytest.raises(TypeError, match="pass Variables positionally"):
        interop.from_torch(lambda x, y: x)(leaf(X), y=leaf(Y))


# -- from_torch's views: torch.from_numpy / Tensor.numpy() on the CPU ------------------

def _pointer(array):
    return array.__array_interface__["data"][0]


def _views():
    base = np.arange(24, dtype=np.float64).reshape(4, 6) / 7 - 1
    return {
        "0-d": np.array(0.25),
        "empty": np.zeros((0, 3)),
        "transposed": base.T,
        "sliced": base[1:, ::2],
        "float32": base.astype(np.float32)[:, 1:4],
    }


@pytest.mark.parametrize("case", ["0-d", "empty", "transposed", "sliced", "float32"])
def test_from_torch_view_shares_memory_both_ways_and_differentiates(torch, case):
    data = _views()[case]
    seen = {}

    def fn(x):
        seen["in"] = x.data_ptr()
        seen["strides"] = x.stride()
        out = x.sin() * x
        seen["out"] = out.data_ptr()
        return out

    x = pyad.Variable(data, requires_grad=True)
    y = interop.from_torch(fn)(x)
    if data.size:
        assert seen["in"] == _pointer(data)
        assert seen["strides"] == tuple(s // data.itemsize for s in data.strides)
        assert seen["out"] == _pointer(y.data)
    assert y.grad_fn is not None and y.grad_fn.name() == "TorchFunctionBackward"
    t = torch.tensor(data, requires_grad=True)
    expected = t.sin() * t
    np.testing.assert_array_equal(y.data, expected.detach().numpy())
    y.sum().backward()
    expected.sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    assert x.grad.shape == data.shape and x.grad.dtype == data.dtype


def test_from_torch_negative_strides_are_copied_and_a_write_into_them_refused(torch):
    base = np.linspace(-1.0, 1.0, 5)
    data = base[::-1]
    seen = {}

    def fn(x):
        seen["in"] = x.data_ptr()
        return x.exp()

    x = pyad.Variable(data, requires_grad=True)
    y = interop.from_torch(fn)(x)
    assert seen["in"] != _pointer(data)           # torch has no negative strides: a copy
    np.testing.assert_array_equal(y.data, np.exp(data))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.exp(data))

    def write(x):
        x.mul_(2)
        return x * 1

    with pytest.raises(RuntimeError, match=r"from_torch\(\): write modified in place an "
                                           r"argument whose data torch received as a copy"):
        interop.from_torch(write)(pyad.Variable(data.copy()[::-1]))


def test_from_torch_read_only_memory_is_shared_without_warning_and_writes_refused(torch):
    import warnings
    data = np.linspace(-1.0, 1.0, 6)
    data.flags.writeable = False
    seen = {}

    def fn(x):
        seen["in"] = x.data_ptr()
        return x * x

    x = pyad.Variable(data, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # torch warns on non-writable arrays
        y = interop.from_torch(fn)(x)
    assert seen["in"] == _pointer(data)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2 * data)

    def write(x):
        x.add_(0)
        return x * 1

    with pytest.raises(RuntimeError, match="read-only"):
        interop.from_torch(write)(pyad.Variable(data))


def test_from_torch_bfloat16_crosses_without_a_copy(torch):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    data = np.array([0.5, -1.0, 2.0], dtype=ml_dtypes.bfloat16)
    seen = {}

    def fn(x):
        seen["in"], seen["dtype"] = x.data_ptr(), x.dtype
        out = x * 2
        seen["out"] = out.data_ptr()
        return out

    y = interop.from_torch(fn)(pyad.Variable(data))
    assert seen["dtype"] == torch.bfloat16 and seen["in"] == _pointer(data)
    assert y.dtype == data.dtype and seen["out"] == _pointer(y.data)
    np.testing.assert_array_equal(y.data.astype(np.float32), [1.0, -2.0, 4.0])


def test_from_torch_in_place_change_in_pyad_before_backward_is_an_error(torch):
    x = leaf(X)
    y = interop.from_torch(torch.sin)(x * 1)
    z = interop.from_torch(torch.sin)(x)
    with pyad.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    y.sum().backward()                         # its input (x * 1) was not modified
    np.testing.assert_allclose(x.grad.data, np.cos(np.array(X)))


def test_from_torch_node_frees_its_graph_and_retain_graph_keeps_it(torch):
    x = leaf(X)
    y = interop.from_torch(torch.exp)(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.data, 2 * np.exp(np.array(X)))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_from_torch_node_has_the_inputs_edges(torch):
    a, b = leaf(X), leaf(Y, requires_grad=False)
    y = interop.from_torch(lambda a, k, b: a * b * k)(a, 2.0, b)
    edges = y.grad_fn.next_functions
    assert len(edges) == 3
    assert edges[0][0].name() == "AccumulateGrad" and edges[1] == (None, 0) == edges[2]


def test_from_torch_cuda_variable_shares_memory(torch):
    cupy = pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    x = pyad.Variable(cupy.linspace(-1, 1, 5), requires_grad=True)
    seen = {}

    def fn(t):
        seen["in"], seen["device"] = t.data_ptr(), t.device.type
        return t.sin()

    y = interop.from_torch(fn)(x)
    assert seen == {"in": x.data.data.ptr, "device": "cuda"}
    y.sum().backward()
    np.testing.assert_allclose(cupy.asnumpy(x.grad.data), np.cos(np.linspace(-1, 1, 5)))


# --------------------------------------------------------------------------------
# to_torch
# --------------------------------------------------------------------------------

def torch_reference(torch):
    return lambda x, y: (x.sin() * y + x * x * y.exp()).tanh()


def test_to_torch_matches_torch_to_third_order(torch):
    bridged = interop.to_torch(pyad_reference)
    reference = torch_reference(torch)
    results = []
    for f in (bridged, reference):
        xs = [torch.tensor(X, dtype=torch.float64, requires_grad=True),
              torch.tensor(Y, dtype=torch.float64, requires_grad=True)]
        out = f(*xs).sum()
        orders = []
        for _ in range(3):
            gs = torch.autograd.grad(out, xs, create_graph=True)
            orders.append([g.detach().clone() for g in gs])
            out = sum(g.sum() for g in gs)
        results.append(orders)
    for got, expected in zip(*results):
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e, rtol=1e-12, atol=1e-12)


def test_to_torch_gradcheck_and_gradgradcheck(torch):
    bridged = interop.to_torch(pyad_reference)
    xs = (torch.tensor(X, dtype=torch.float64, requires_grad=True),
          torch.tensor(Y, dtype=torch.float64, requires_grad=True))
    assert torch.autograd.gradcheck(bridged, xs)
    assert torch.autograd.gradgradcheck(bridged, xs)


def test_to_torch_zero_copy_in_and_out(torch):
    seen = {}

    def fn(x):
        seen["in"] = x.data.ctypes.data
        out = x * 2
        seen["out"] = out.data.ctypes.data
        return out

    t = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = interop.to_torch(fn)(t)
    assert seen["in"] == t.data_ptr() and seen["out"] == out.data_ptr()


def test_to_torch_several_inputs_outputs_integers_and_pass_through(torch):
    def fn(a, scale, b):
        return a * scale, a * b, pyad.argmax(b)

    a = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    b = torch.tensor(Y, dtype=torch.float32)
    u, w, index = interop.to_torch(fn)(a, 3.0, b)
    assert index.dtype == torch.int64 and not index.requires_grad and index.item() == 3
    u.sum().backward()                        # w gets no gradient
    torch.testing.assert_close(a.grad, torch.full((4,), 3.0))
    assert b.grad is None and u.dtype == torch.float32


def test_to_torch_under_torch_no_grad(torch):
    seen = {}

    def fn(x):
        seen["grad"] = pyad.is_grad_enabled()
        return x * 2

    with torch.no_grad():
        out = interop.to_torch(fn)(torch.ones(2, requires_grad=True))
    assert not out.requires_grad and seen["grad"] is False


def test_to_torch_function_using_pyad_no_grad_gives_non_differentiable_outputs(torch):
    def fn(x):
        with pyad.no_grad():
            return x * 2

    out = interop.to_torch(fn)(torch.ones(2, requires_grad=True))
    assert not out.requires_grad


def test_from_torch_records_for_pyad_even_inside_torch_no_grad(torch):
    # torch's grad mode belongs to torch's graphs; the bridge records whenever pyad does
    x = leaf(X)
    with torch.no_grad():
        y = interop.from_torch(torch.sin)(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, np.cos(x.data))


def test_to_torch_records_for_torch_even_inside_pyad_no_grad(torch):
    t = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    with pyad.no_grad():
        out = interop.to_torch(pyad.sin)(t)
    out.sum().backward()
    torch.testing.assert_close(t.grad, torch.cos(t.detach()))


# --------------------------------------------------------------------------------
# from_jax / to_jax
# --------------------------------------------------------------------------------

def jax_reference(jax):
    jnp = jax.numpy
    return lambda x, y: jnp.tanh(jnp.sin(x) * y + x * x * jnp.exp(y))


def test_from_jax_matches_pyad_to_third_order(jax):
    bridged = interop.from_jax(jax_reference(jax))
    xs = [leaf(X), leaf(Y)]
    expected = grads_to_order(pyad_reference, xs, 3)
    got = grads_to_order(bridged, xs, 3)
    for order, (e, g) in enumerate(zip(expected, got), 1):
        for ei, gi in zip(e, g):
            np.testing.assert_allclose(gi, ei, rtol=1e-10, atol=1e-12, err_msg="order %d" % order)


def test_from_jax_gradcheck_and_gradgradcheck(jax):
    bridged = interop.from_jax(jax_reference(jax))
    xs = (leaf(X), leaf(Y))
    assert gradcheck(bridged, xs)
    assert gradgradcheck(bridged, xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_from_jax_dtypes_and_zero_copy_out(jax, dtype):
    jnp = jax.numpy
    seen = {}

    def fn(x):
        out = jnp.exp(x)
        seen["out"] = out.unsafe_buffer_pointer()
        return out

    x = leaf(X, dtype=getattr(pyad, dtype), requires_grad=False)
    y = interop.from_jax(fn)(x)              # (under jax.vjp the function sees tracers)
    assert y.dtype == np.dtype(dtype) and y.data.ctypes.data == seen["out"]
    x.requires_grad_()
    interop.from_jax(jnp.exp)(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, np.exp(np.array(X, dtype=dtype)), rtol=1e-6)


def test_from_jax_zero_copy_in_for_aligned_data(jax):
    seen = {}

    def fn(x):
        seen["in"] = x.unsafe_buffer_pointer()
        return x * 2

    raw = np.zeros(64 + 8 * 4, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    data = raw[start:start + 32].view(np.float64)
    data[:] = X
    interop.from_jax(fn)(pyad.Variable(data))
    assert seen["in"] == data.ctypes.data


def test_from_jax_several_outputs_integer_output_and_pass_through(jax):
    jnp = jax.numpy

    def fn(a, scale, b, *, power):
        return a * scale, (a * b) ** power, jnp.argmax(b)

    a, b = leaf(X), leaf(Y, requires_grad=False)
    u, w, index = interop.from_jax(fn)(a, 3.0, b, power=2)
    assert not index.requires_grad and int(index.item()) == 3
    u.sum().backward(retain_graph=True)          # u and w share one node
    np.testing.assert_allclose(a.grad.data, 3.0)
    assert b.grad is None
    g, = pyad.autograd.grad(w.sum(), a, create_graph=True)
    h, = pyad.autograd.grad(g.sum(), a)
    np.testing.assert_allclose(h.data, 2 * np.array(Y) ** 2)


def test_from_jax_under_pyad_no_grad(jax):
    with pyad.no_grad():
        y = interop.from_jax(jax.numpy.sin)(leaf(X))
    assert not y.requires_grad


def test_to_jax_matches_jax_to_second_order_and_under_jit(jax):
    jnp = jax.numpy
    bridged = interop.to_jax(lambda x, y: pyad_reference(x, y).sum())
    reference = lambda x, y: jax_reference(jax)(x, y).sum()  # noqa: E731
    x, y = jnp.array(X), jnp.array(Y)
    for transform in (lambda f: f, jax.jit):
        g = transform(jax.grad(bridged, argnums=(0, 1)))(x, y)
        e = jax.grad(reference, argnums=(0, 1))(x, y)
        for gi, ei in zip(g, e):
            np.testing.assert_allclose(np.asarray(gi), np.asarray(ei), rtol=1e-12)
        # reverse over reverse (a custom_vjp function has no forward mode, so no jacfwd)
        hess = transform(jax.jacrev(jax.grad(bridged)))(x, y)
        np.testing.assert_allclose(np.asarray(hess), np.asarray(jax.hessian(reference)(x, y)),
                                   rtol=1e-10, atol=1e-12)
    third = jax.grad(lambda x: jax.grad(lambda x: jax.grad(bridged)(x, y).sum())(x).sum())(x)
    third_ref = jax.grad(lambda x: jax.grad(lambda x: jax.grad(reference)(x, y).sum())(x).sum())(x)
    np.testing.assert_allclose(np.asarray(third), np.asarray(third_ref), rtol=1e-10, atol=1e-12)


def test_to_jax_several_outputs_and_integer_input(jax):
    jnp = jax.numpy

    def fn(a, n):
        return a * n, (a * a).sum()

    bridged = interop.to_jax(fn)
    a, n = jnp.array(X), jnp.array([1, 2, 3, 4])
    u, s = bridged(a, n)
    np.testing.assert_allclose(np.asarray(u), np.array(X) * [1, 2, 3, 4])
    g = jax.grad(lambda a: bridged(a, n)[0].sum() + bridged(a, n)[1])(a)
    np.testing.assert_allclose(np.asarray(g), np.array([1, 2, 3, 4]) + 2 * np.array(X))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_to_jax_dtypes(jax, dtype):
    jnp = jax.numpy
    bridged = interop.to_jax(lambda x: x.exp().sum())
    x = jnp.array(X, dtype=dtype)
    g = jax.grad(bridged)(x)
    assert g.dtype == np.dtype(dtype)
    np.testing.assert_allclose(np.asarray(g), np.exp(np.array(X, dtype=dtype)), rtol=1e-6)


def test_from_jax_traces_once_per_signature(jax):
    jnp = jax.numpy
    traces = []

    def fn(x, y, scale, *, power):
        traces.append(isinstance(x, jax.core.Tracer))
        return (jnp.sin(x) * y * scale) ** power

    bridged = interop.from_jax(fn)
    x, y = leaf(X), leaf(Y, requires_grad=False)
    for _ in range(3):                         # the same signature: traced once
        x.grad = None
        bridged(x, y, 2.0, power=2).sum().backward()
        expected = 2 * (np.sin(X) * np.array(Y) * 2.0) * np.cos(X) * np.array(Y) * 2.0
        np.testing.assert_allclose(x.grad.data, expected, rtol=1e-12)
    assert len(traces) == 1
    bridged(x, y, 3.0, power=2)                # another value of a static argument
    bridged(x, y, 3, power=2)                  # its type counts too (int, not float)
    bridged(x, y, 3, power=1)                  # and keyword arguments
    bridged(leaf(X[:2]), leaf(Y[:2]), 3, power=1)   # another shape
    assert len(traces) == 5
    bridged(x, leaf(Y), 3, power=1)            # y requires grad now: another trace
    assert len(traces) == 6
    with pyad.no_grad():                       # nothing recorded: fn runs eagerly
        bridged(x, y, 3, power=1)
    assert traces == [True] * 6 + [False]


def test_from_jax_argument_without_a_static_key_is_traced_per_call(jax):
    jnp = jax.numpy
    traces = []

    def fn(x, table):
        traces.append(1)
        return jnp.sin(x) * jnp.asarray(table)

    bridged = interop.from_jax(fn)
    x = leaf(X)
    for k in range(2):                         # a NumPy array has no static key
        table = np.array(Y) + k
        x.grad = None
        g, = pyad.autograd.grad(bridged(x, table).sum(), x, create_graph=True)
        np.testing.assert_allclose(g.data, np.cos(X) * table, rtol=1e-12)
        h, = pyad.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(h.data, -np.sin(X) * table, rtol=1e-12)
    assert len(traces) == 4                    # forward and VJP, per call


def test_from_jax_higher_orders_reuse_their_traces(jax):
    traces = []

    def fn(x):
        traces.append(1)
        return jax.numpy.sin(x) * x

    bridged = interop.from_jax(fn)
    for _ in range(3):
        x = leaf(X)
        gs = grads_to_order(bridged, [x], 3)
        expected = grads_to_order(lambda v: v.sin() * v, [leaf(X)], 3)
        for g, e in zip(gs, expected):
            np.testing.assert_allclose(g[0], e[0], rtol=1e-10, atol=1e-12)
    first = len(traces)
    assert first <= 8                          # (each order traces its VJP once)
    x = leaf(X)
    grads_to_order(bridged, [x], 3)
    assert len(traces) == first


def test_from_jax_function_with_python_control_flow_on_values_still_works(jax):
    # jax.jit cannot trace it (an eager jax.vjp can): the bridge falls back to tracing
    # that signature per call, to any order
    jnp = jax.numpy

    def fn(x):
        return jnp.sin(x) * 2 if x.sum() > 0 else -jnp.sin(x)

    bridged = interop.from_jax(fn)
    for values, sign in ((X, 2.0), ([-1.0, -2.0, 0.5, 0.1], -1.0)):
        for _ in range(2):
            x = leaf(values)
            g, = pyad.autograd.grad(bridged(x).sum(), x, create_graph=True)
            np.testing.assert_allclose(g.data, sign * np.cos(values), rtol=1e-12)
            h, = pyad.autograd.grad(g.sum(), x)
            np.testing.assert_allclose(h.data, -sign * np.sin(values), rtol=1e-12)


def test_to_jax_eager_calls_do_not_retrace(jax, monkeypatch):
    jnp = jax.numpy
    traced = []
    pure_callback = jax.pure_callback

    def counting(*args, **kwargs):
        traced.append(1)
        return pure_callback(*args, **kwargs)

    monkeypatch.setattr(jax, "pure_callback", counting)
    bridged = interop.to_jax(lambda x, *, k: (x.exp() * k).sum())
    x = jnp.array(X)
    for _ in range(3):
        np.testing.assert_allclose(float(bridged(x, k=2.0)), 2 * np.exp(X).sum(), rtol=1e-12)
    assert len(traced) == 1
    grad = jax.grad(lambda x: bridged(x, k=2.0))
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(grad(x)), 2 * np.exp(X), rtol=1e-12)
    after_grad = len(traced)
    grad(x)
    assert len(traced) == after_grad


# --------------------------------------------------------------------------------
# The extras are optional
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, module, extra", [
    ("from_torch", "torch", "torch"), ("to_torch", "torch", "torch"),
    ("from_jax", "jax", "jax"), ("to_jax", "jax", "jax")])
def test_missing_extra_names_it(monkeypatch, name, module, extra):
    bridge = sys.modules["pyad.interop.%s" % module]
    monkeypatch.setattr(bridge, "_" + module, None)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r'pip install "pyad\[%s\]"' % extra):
        getattr(interop, name)(lambda x: x)


def test_importing_pyad_does_not_import_torch_or_jax():
    home = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
    code = ("import sys, pyad, pyad.interop; "
            "assert 'torch' not in sys.modules and 'jax' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=home), cwd=os.path.dirname(home),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
