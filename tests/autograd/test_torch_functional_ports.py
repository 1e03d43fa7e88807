"""PyTorch's own tests of ``torch.autograd.functional`` (``test/autograd/test_functional.py``),
translated to ``pyad.autograd.functional``.

Each test keeps torch's name and the meaning of its assertions (the base-tensor variant;
torch's LoggingTensor variants test a torch subclass and have no pyad counterpart).
Messages are torch's with "Tensor" read as "Variable" where pyad says so. Where the stored
test and the installed torch 2.13 disagree, torch 2.13 wins.
"""
import numpy as np
import pytest

import pyad
from pyad.autograd import functional as autogradF
from pyad.autograd import gradcheck, gradgradcheck

_SEED = [1000]


def rand(*shape, dtype=None, requires_grad=False):
    _SEED[0] += 1
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    data = np.random.default_rng(_SEED[0]).random(shape)
    return pyad.tensor(data, dtype=dtype or pyad.get_default_dtype(),
                       requires_grad=requires_grad)


def randn(*shape, dtype=None, requires_grad=False):
    _SEED[0] += 1
    data = np.random.default_rng(_SEED[0]).standard_normal(shape)
    return pyad.tensor(data, dtype=dtype or pyad.get_default_dtype(),
                       requires_grad=requires_grad)


def _assert_same_struct(res, base):
    # base and res are Variables or tuples of Variables with the same sizes
    if isinstance(base, pyad.Variable):
        assert isinstance(res, pyad.Variable)
        assert base.size() == res.size()
    elif isinstance(base, tuple):
        assert isinstance(res, tuple) and len(base) == len(res)
        for el_base, el_res in zip(base, res):
            assert isinstance(el_base, pyad.Variable) and isinstance(el_res, pyad.Variable)
            assert el_base.size() == el_res.size()
    else:
        raise RuntimeError("The base given to `_assert_same_struct` doesn't have the right "
                           "structure.")


def _assert_interleaved_struct(res, base1, base2):
    V = pyad.Variable
    if isinstance(base1, V) and isinstance(base2, V):
        assert isinstance(res, V) and res.size() == base1.size() + base2.size()
    elif isinstance(base1, tuple) and isinstance(base2, V):
        assert isinstance(res, tuple) and len(res) == len(base1)
        for el_res, el_base1 in zip(res, base1):
            assert el_res.size() == el_base1.size() + base2.size()
    elif isinstance(base1, V) and isinstance(base2, tuple):
        assert isinstance(res, tuple) and len(res) == len(base2)
        for el_res, el_base2 in zip(res, base2):
            assert el_res.size() == base1.size() + el_base2.size()
    elif isinstance(base1, tuple) and isinstance(base2, tuple):
        assert isinstance(res, tuple) and len(res) == len(base1)
        for el_res, el_base1 in zip(res, base1):
            assert isinstance(el_res, tuple) and len(el_res) == len(base2)
            for el_el_res, el_base2 in zip(el_res, base2):
                assert el_el_res.size() == el_base1.size() + el_base2.size()
    else:
        raise RuntimeError("The bases given to `_assert_interleaved_struct` don't have the "
                           "right structure.")


def assert_equal(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_equal(x, y)
        return
    np.testing.assert_allclose(np.asarray(a.detach().data), np.asarray(
        b.detach().data if isinstance(b, pyad.Variable) else b), rtol=1.3e-6, atol=1e-5)


# -- vjp -------------------------------------------------------------------------------

def test_vjp_err_check():
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = rand(4)
    v = pyad.ones(3)
    with pytest.raises(TypeError, match="The inputs given to vjp must be either a"):
        autogradF.vjp(foo, (inp, 2), v)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "vjp must"):
        autogradF.vjp(bar, inp, v)
    with pytest.raises(RuntimeError, match="The vector v can only be None if the "
                                           "user-provided function returns"):
        autogradF.vjp(foo, inp)
    with pytest.raises(RuntimeError, match="The given v should contain a single"):
        autogradF.vjp(foo, inp, (pyad.ones_like(inp), pyad.ones_like(inp)))
    with pytest.raises(RuntimeError, match="v has invalid size: should be"):
        autogradF.vjp(foo, inp, v[:2])
    res = autogradF.vjp(foo, inp, v)[1]
    _assert_same_struct(res, inp)


def test_vjp_err_check_strict():
    def foo(a):
        return a.detach()

    def bar(a):
        # a non-leaf that requires grad but is not connected to the input
        return a.long().float().requires_grad_().clone()

    inp = rand(4)
    v = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.vjp(foo, inp, v, strict=True)
    res = autogradF.vjp(foo, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0

    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                                           "independent of input 0"):
        autogradF.vjp(bar, inp, v, strict=True)
    res = autogradF.vjp(bar, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0

    def foo(a):                                   # the Jacobian does not depend on the input
        return a.clone()

    inp.requires_grad_()
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function is "
                                           "independent of input 0."):
        autogradF.vjp(foo, inp, v, create_graph=True, strict=True)
    res = autogradF.vjp(foo, inp, v, create_graph=True, strict=False)
    _assert_same_struct(res[1], inp)
    assert_equal(res[1], v)


def test_vjp_no_grad():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(4, 4)
    v = pyad.ones(4)
    with pyad.no_grad():
        res = autogradF.vjp(reducer, inputs, v)
    assert res[0].grad_fn is None and res[1].grad_fn is None
    assert not np.array_equal(res[1].data, np.zeros((4, 4)))

    inputs.requires_grad_()
    v.requires_grad_()
    with pyad.no_grad():
        res = autogradF.vjp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert not np.array_equal(res[1].detach().data, np.zeros((4, 4)))


def test_vjp_output():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(4, 4)
    v = pyad.ones(4)
    res = autogradF.vjp(reducer, inputs, v)
    _assert_same_struct(res[1], inputs)
    assert res[0].grad_fn is None and res[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y

    inputs = (rand(2), rand(2))
    v = pyad.ones(2)
    out, vjp_val = autogradF.vjp(adder, inputs, v)
    _assert_same_struct(vjp_val, inputs)
    assert out.grad_fn is None and vjp_val[0].grad_fn is None and vjp_val[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y, x + y

    inputs = (rand(2), rand(2))
    v = (pyad.tensor([1.0, 0.0]), pyad.tensor([1.0, 0.0]))
    out, vjp_val = autogradF.vjp(adder, inputs, v)
    _assert_same_struct(vjp_val, inputs)
    assert out[0].grad_fn is None and out[1].grad_fn is None
    assert vjp_val[0].grad_fn is None and vjp_val[1].grad_fn is None


def test_vjp_scalar():
    def reducer(x):
        return x.sum()

    inputs = rand(4, 4)
    v = pyad.ones([])
    res = autogradF.vjp(reducer, inputs, v)
    _assert_same_struct(res[0], v)
    _assert_same_struct(res[1], inputs)
    res = autogradF.vjp(reducer, inputs)
    _assert_same_struct(res[0], v)
    _assert_same_struct(res[1], inputs)

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = rand([])
    v = pyad.ones(4)
    res = autogradF.vjp(expander, inputs, v)
    _assert_same_struct(res[0], v)
    _assert_same_struct(res[1], inputs)


def test_vjp_create_graph():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(2, 2, dtype=pyad.double)
    v = pyad.ones(2, dtype=pyad.double)
    inputs.requires_grad_()
    v.requires_grad_()
    res = autogradF.vjp(reducer, inputs, v, create_graph=True)
    _assert_same_struct(res[1], inputs)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    gradcheck(lambda inp, v: autogradF.vjp(reducer, inputs, v, create_graph=True),
              (inputs, v))
    gradgradcheck(lambda inp, v: autogradF.vjp(reducer, inputs, v, create_graph=True),
                  (inputs, v))

    def adder(x, y):
        return 2 * x + 3 * y, x * y

    inputs = (rand(2, dtype=pyad.double, requires_grad=True),
              rand(2, dtype=pyad.double, requires_grad=True))
    v = (pyad.tensor([1.0, 0.0], dtype=pyad.double, requires_grad=True),
         pyad.tensor([1.0, 0.0], dtype=pyad.double, requires_grad=True))
    assert gradcheck(lambda *args: autogradF.vjp(adder, args[:2], args[2:],
                                                 create_graph=True)[1], inputs + v)
    assert gradgradcheck(lambda *args: autogradF.vjp(adder, args[:2], args[2:],
                                                     create_graph=True)[1], inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]
        x = x.cos()
        val, grad = autogradF.vjp(adder, (x, y), v, create_graph=True)
        return (val[0].exp() + val[1].exp() + grad[0].exp() + grad[1].exp() + x.exp()
                + y.exp())

    assert gradcheck(foo, inputs + v)
    assert gradgradcheck(foo, inputs + v)


# -- jvp -------------------------------------------------------------------------------

def test_jvp_err_check():
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = rand(4)
    v = rand(4)
    with pytest.raises(TypeError, match="The inputs given to jvp must be either a"):
        autogradF.jvp(foo, (inp, 2), v)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "jvp must"):
        autogradF.jvp(bar, inp, v)
    with pytest.raises(RuntimeError, match="The vector v can only be None if the input to "
                                           "the user-provided function"):
        autogradF.jvp(foo, inp)
    with pytest.raises(RuntimeError, match="The given v should contain a single"):
        autogradF.jvp(foo, inp, (v, v))
    with pytest.raises(RuntimeError, match="v has invalid size: should be"):
        autogradF.jvp(foo, inp, v[:2])
    res = autogradF.jvp(foo, inp, v)[1]
    _assert_same_struct(res, foo(inp))


def test_jvp_err_check_strict():
    def foo(a):
        return a.detach()

    def bar(a):
        return a.long().float().requires_grad_().clone()

    inp = rand(4)
    v = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.jvp(foo, inp, v, strict=True)
    res = autogradF.jvp(foo, inp, v, strict=False)
    _assert_same_struct(res[1], res[0])
    assert res[1].abs().sum().item() == 0.0

    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                                           "independent of input 0"):
        autogradF.jvp(bar, inp, v, strict=True)
    res = autogradF.jvp(bar, inp, v, strict=False)
    _assert_same_struct(res[1], res[0])
    assert res[1].abs().sum().item() == 0.0

    def foo(a):
        return a.clone()

    inp.requires_grad_()
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function is "
                                           "independent of input 0."):
        autogradF.jvp(foo, inp, v, create_graph=True, strict=True)
    res = autogradF.jvp(foo, inp, v, create_graph=True, strict=False)
    _assert_same_struct(res[1], inp)
    assert_equal(res[1], v)


def test_jvp_no_grad():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    with pyad.no_grad():
        res = autogradF.jvp(reducer, inputs, v)
    assert res[0].grad_fn is None and res[1].grad_fn is None
    assert not np.array_equal(res[1].data, np.zeros(4))

    inputs.requires_grad_()
    v.requires_grad_()
    with pyad.no_grad():
        res = autogradF.jvp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert not np.array_equal(res[1].detach().data, np.zeros(4))


def test_jvp_output():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    res = autogradF.jvp(reducer, inputs, v)
    _assert_same_struct(res[1], res[0])
    assert res[0].grad_fn is None and res[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y

    inputs = (rand(2), rand(2))
    v = (pyad.ones(2), pyad.ones(2))
    out, jvp_val = autogradF.jvp(adder, inputs, v)
    _assert_same_struct(jvp_val, out)
    assert out.grad_fn is None and jvp_val.grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y, x + y

    inputs = (rand(2), rand(2))
    v = (pyad.tensor([1.0, 0.0]), pyad.tensor([1.0, 0.0]))
    out, jvp_val = autogradF.jvp(adder, inputs, v)
    _assert_same_struct(jvp_val, out)
    assert out[0].grad_fn is None and out[1].grad_fn is None
    assert jvp_val[0].grad_fn is None and jvp_val[1].grad_fn is None


def test_jvp_scalar():
    def reducer(x):
        return x.sum()

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    res = autogradF.jvp(reducer, inputs, v)
    _assert_same_struct(res[0], pyad.zeros([]))
    _assert_same_struct(res[1], res[0])

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = rand([])
    v = pyad.ones([])
    res = autogradF.jvp(expander, inputs, v)
    _assert_same_struct(res[0], pyad.zeros(4))
    _assert_same_struct(res[1], res[0])
    res = autogradF.jvp(expander, inputs)
    _assert_same_struct(res[0], pyad.zeros(4))
    _assert_same_struct(res[1], res[0])


def test_jvp_create_graph():
    def reducer(x):
        return x.sum(dim=1)

    inputs = rand(2, 2, dtype=pyad.double)
    v = pyad.ones(2, 2, dtype=pyad.double)
    inputs.requires_grad_()
    v.requires_grad_()
    res = autogradF.jvp(reducer, inputs, v, create_graph=True)
    _assert_same_struct(res[1], res[0])
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert gradcheck(lambda inp, v: autogradF.jvp(reducer, inp, v, create_graph=True),
                     (inputs, v))
    assert gradgradcheck(lambda inp, v: autogradF.jvp(reducer, inp, v, create_graph=True),
                         (inputs, v))

    def adder(x, y):
        return 2 * x + 3 * y, x * y

    inputs = (rand(2, dtype=pyad.double, requires_grad=True),
              rand(2, dtype=pyad.double, requires_grad=True))
    v = (pyad.tensor([1.0, 0.0], dtype=pyad.double, requires_grad=True),
         pyad.tensor([1.0, 0.0], dtype=pyad.double, requires_grad=True))
    assert gradcheck(lambda *args: autogradF.jvp(adder, args[:2], args[2:],
                                                 create_graph=True)[1], inputs + v)
    assert gradgradcheck(lambda *args: autogradF.jvp(adder, args[:2], args[2:],
                                                     create_graph=True)[1], inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]
        x = x.cos()
        val, grad = autogradF.jvp(adder, (x, y), v, create_graph=True)
        return (val[0].exp() + val[1].exp() + grad[0].exp() + grad[1].exp() + x.exp()
                + y.exp())

    assert gradcheck(foo, inputs + v)
    assert gradgradcheck(foo, inputs + v)


# -- jacobian --------------------------------------------------------------------------

@pytest.mark.parametrize("api", ["jacobian", "hessian"])
def test_vectorize_raises_no_warnings(api, recwarn):
    # torch's test_jacobian_vectorize_raises_no_warnings / test_hessian_...
    def foo(a):
        return (a ** 2).sum()

    getattr(autogradF, api)(foo, randn(3), vectorize=True)
    assert len(recwarn) == 0


@pytest.mark.parametrize("vectorize", [True, False])
def test_jacobian_err_check(vectorize):
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = rand(4)
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a"):
        autogradF.jacobian(foo, (inp, 2), vectorize=vectorize)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "jacobian must"):
        autogradF.jacobian(bar, inp, vectorize=vectorize)
    res = autogradF.jacobian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(res, foo(inp), inp)

    def foo(a, b):
        return b, 3 * a.narrow(0, 0, 3)

    inp = (rand(4), rand(5))
    res = autogradF.jacobian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(res, foo(*inp), inp)


def test_jacobian_err_check_strict():
    def foo(a):
        return a.detach()

    def bar(a):
        return a.long().float().requires_grad_().clone()

    inp = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.jacobian(foo, inp, strict=True)
    res = autogradF.jacobian(foo, inp, strict=False)
    _assert_interleaved_struct(res, foo(inp), inp)
    assert res.abs().sum().item() == 0.0

    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is "
                                           "independent of input 0."):
        autogradF.jacobian(bar, inp, strict=True)
    res = autogradF.jacobian(bar, inp, strict=False)
    _assert_interleaved_struct(res, foo(inp), inp)
    assert res.abs().sum().item() == 0.0

    def foo(a):
        return a.clone()

    inp.requires_grad_()
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function is "
                                           "independent of input 0."):
        autogradF.jacobian(foo, inp, create_graph=True, strict=True)
    res = autogradF.jacobian(foo, inp, create_graph=True, strict=False)
    _assert_interleaved_struct(res, inp, inp)
    assert_equal(res, np.eye(4))


def test_jacobian_err_check_strict_vectorize():
    with pytest.raises(RuntimeError, match="not supported together"):
        autogradF.jacobian(lambda x: x, rand(4), strict=True, vectorize=True)


def test_jacobian_no_grad():
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = rand(4, 4)
    with pyad.no_grad():
        res = autogradF.jacobian(exp_reducer, inputs)
    assert res.grad_fn is None
    assert not np.array_equal(res.data, np.zeros((4, 4, 4)))
    with pyad.no_grad():
        res = autogradF.jacobian(exp_reducer, inputs, create_graph=True)
    assert res.grad_fn is not None
    assert not np.array_equal(res.detach().data, np.zeros((4, 4, 4)))


@pytest.mark.parametrize("vectorize", [True, False])
def test_jacobian_output(vectorize):
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = rand(4, 4)
    res = autogradF.jacobian(exp_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, exp_reducer(inputs), inputs)
    assert res.grad_fn is None

    def identity(x):
        return x.clone()

    inputs = rand(4)
    res = autogradF.jacobian(identity, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, identity(inputs), inputs)
    assert res.grad_fn is None
    assert_equal(res, np.eye(4))

    def add_exp_reducer(x, y):
        return (x + y.exp()).sum(dim=1)

    inputs = (rand(4, 4), rand(4, 4))
    res = autogradF.jacobian(add_exp_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, add_exp_reducer(*inputs), inputs)
    assert res[0].grad_fn is None and res[1].grad_fn is None


@pytest.mark.parametrize("vectorize", [True, False])
def test_jacobian_scalar(vectorize):
    def reducer(x):
        return x.sum()

    inputs = rand(4, 4)
    res = autogradF.jacobian(reducer, inputs, vectorize=vectorize)
    _assert_same_struct(res, inputs)

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = rand([])
    res = autogradF.jacobian(expander, inputs, vectorize=vectorize)
    _assert_same_struct(res, pyad.zeros(4))


@pytest.mark.parametrize("vectorize", [True, False])
def test_jacobian_create_graph(vectorize):
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = rand(4, 4, dtype=pyad.double, requires_grad=True)
    res = autogradF.jacobian(exp_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(res, exp_reducer(inputs), inputs)
    assert res.grad_fn is not None
    assert gradcheck(lambda inp: autogradF.jacobian(exp_reducer, inp, create_graph=True,
                                                    vectorize=vectorize), inputs)
    assert gradgradcheck(lambda inp: autogradF.jacobian(exp_reducer, inp, create_graph=True,
                                                        vectorize=vectorize), inputs)

    def add_exp_reducer(x, y):
        return (x + y).exp().sum(dim=1)

    inputs = (rand(4, 4, dtype=pyad.double, requires_grad=True),
              rand(4, 4, dtype=pyad.double, requires_grad=True))
    res = autogradF.jacobian(add_exp_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(res, add_exp_reducer(*inputs), inputs)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert gradcheck(lambda *inp: autogradF.jacobian(add_exp_reducer, inp, create_graph=True,
                                                     vectorize=vectorize), inputs)
    assert gradgradcheck(lambda *inp: autogradF.jacobian(add_exp_reducer, inp,
                                                         create_graph=True,
                                                         vectorize=vectorize), inputs)


def _check_jacobian_vectorize_correctness(f, inputs):
    # torch also compares strategy="forward-mode"; pyad has reverse mode only (its
    # forward-mode strategies raise NotImplementedError), so that half is not ported.
    expected = autogradF.jacobian(f, inputs, vectorize=False)
    assert_equal(autogradF.jacobian(f, inputs, vectorize=True), expected)


def _check_hessian_vectorize_correctness(f, inputs):
    expected = autogradF.hessian(f, inputs, vectorize=False)
    assert_equal(autogradF.hessian(f, inputs, vectorize=True), expected)


def test_jacobian_vectorize_correctness_simple():
    _check_jacobian_vectorize_correctness(lambda x: 3 * x ** 2, randn(2, 3, 5))


def test_jacobian_vectorize_correctness_multi_input():
    _check_jacobian_vectorize_correctness(lambda x, y: (x.cos() * x) @ y.sin(),
                                          (randn(2, 3), randn(3, 5)))


def test_jacobian_vectorize_correctness_multi_input_multi_output():
    def f(x, y):
        return (x * x) @ y, x @ (x.sum(1) * y), y.sum()
    _check_jacobian_vectorize_correctness(f, (randn(5, 3), randn(3, 5)))


def test_jacobian_vectorize_correctness_unrelated_outputs():
    _check_jacobian_vectorize_correctness(lambda x, y: (x, y, x, y), (randn(2), randn(3)))


def test_jacobian_vectorize_correctness_zero_dim():
    _check_jacobian_vectorize_correctness(lambda x, y: (x.sum(), y.sum(), x * y),
                                          (randn(3), randn(3)))
    _check_jacobian_vectorize_correctness(lambda x: pyad.stack([x, x, x]), randn())
    _check_jacobian_vectorize_correctness(lambda x, y: (y.sum(), x * y), (randn(), randn(1)))


def test_jacobian_vectorize_correctness_different_dtype():
    _check_jacobian_vectorize_correctness(lambda x, y: ((x * y).float(), (x * y).double()),
                                          (randn(3), randn(3)))


def test_hessian_vectorize_correctness_simple():
    _check_hessian_vectorize_correctness(lambda x: (3 * x ** 2).sum(), randn(2, 3, 5))


def test_hessian_vectorize_correctness_multi_input():
    def f(x, y, z):
        return ((x.relu() * x) @ y.sin() @ z).sum()
    _check_hessian_vectorize_correctness(f, (randn(2, 3), randn(3, 5), randn(5, 5)))


def test_hessian_vectorize_correctness_unrelated_outputs():
    _check_hessian_vectorize_correctness(lambda x, y: (x ** 2).sum(), (randn(2), randn(3)))
    _check_hessian_vectorize_correctness(lambda x, y: pyad.ones([]), (randn(2), randn(3)))


# -- hessian ---------------------------------------------------------------------------

@pytest.mark.parametrize("vectorize", [True, False])
def test_hessian_err_check(vectorize):
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    def bar2(a):
        return 3 * a.narrow(0, 0, 3)

    def bar3(a):
        return 3 * a.narrow(0, 0, 3), 3 * a.narrow(0, 0, 3)

    inp = rand(4)
    with pytest.raises(TypeError, match="The inputs given to hessian must be either a"):
        autogradF.hessian(foo, (inp, 2), vectorize=vectorize)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "hessian must"):
        autogradF.hessian(bar, inp, vectorize=vectorize)
    with pytest.raises(RuntimeError, match="returned by the function given to hessian should "
                                           "contain a single element"):
        autogradF.hessian(bar2, inp, vectorize=vectorize)
    with pytest.raises(RuntimeError, match="The function given to hessian should return a "
                                           "single"):
        autogradF.hessian(bar3, inp, vectorize=vectorize)
    res = autogradF.hessian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(res, inp, inp)

    def foo(a, b):
        return (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3)).sum()

    inp = (rand(4), rand(5))
    res = autogradF.hessian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(res, inp, inp)


def test_hessian_err_check_strict():
    def foo(a):
        return a.detach().sum()

    def bar(a):
        return a.long().float().requires_grad_().clone().sum()

    def bar2(a):
        return (3 * a).sum()              # linear: its jacobian does not depend on the input

    inp = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.hessian(foo, inp, strict=True)
    res = autogradF.hessian(foo, inp, strict=False)
    _assert_interleaved_struct(res, inp, inp)
    assert res.abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with "
                                           "respect to input 0"):
        autogradF.hessian(bar, inp, strict=True)
    res = autogradF.hessian(bar, inp, strict=False)
    _assert_interleaved_struct(res, inp, inp)
    assert res.abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with "
                                           "respect to input 0 is"):
        autogradF.hessian(bar2, inp, strict=True)
    res = autogradF.hessian(bar2, inp, strict=False)
    _assert_interleaved_struct(res, inp, inp)
    assert res.abs().sum().item() == 0.0


def test_hessian_err_check_strict_vectorize():
    with pytest.raises(RuntimeError, match="not supported together"):
        autogradF.hessian(lambda x: (x ** 3).sum(), rand(4), strict=True, vectorize=True)


def test_hessian_no_grad():
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = rand(2, 2)
    with pyad.no_grad():
        res = autogradF.hessian(pow_reducer, inputs)
    assert all(res[i][j].grad_fn is None for i in range(2) for j in range(2))
    assert not np.array_equal(res.data, np.zeros((2, 2, 2, 2)))
    with pyad.no_grad():
        res = autogradF.hessian(pow_reducer, inputs, create_graph=True)
    assert all(res[i][j].grad_fn is not None for i in range(2) for j in range(2))
    assert not np.array_equal(res.detach().data, np.zeros((2, 2, 2, 2)))


@pytest.mark.parametrize("vectorize", [True, False])
def test_hessian_output(vectorize):
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = rand(2, 2)
    res = autogradF.hessian(pow_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)
    assert res.grad_fn is None

    def add_pow_reducer(x, y):
        return (x + y).pow(3).sum()

    inputs = (rand(2, 2), rand(2, 2))
    res = autogradF.hessian(add_pow_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)
    assert all(res[i][j].grad_fn is None for i in range(2) for j in range(2))


@pytest.mark.parametrize("vectorize", [True, False])
def test_hessian_scalar(vectorize):
    def reducer(x):
        return x.sum()

    inputs = rand(4, 4)
    res = autogradF.hessian(reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)
    inputs = rand([])
    res = autogradF.hessian(reducer, inputs, vectorize=vectorize)
    _assert_same_struct(res, inputs)

    def bad_reducer(x):
        return x.sum().view(1, 1, 1)

    inputs = rand(4, 4)
    res = autogradF.hessian(bad_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)


@pytest.mark.parametrize("vectorize", [True, False])
def test_hessian_create_graph(vectorize):
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = rand(2, 2, dtype=pyad.double, requires_grad=True)
    res = autogradF.hessian(pow_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)
    assert res.grad_fn is not None
    assert gradcheck(lambda inp: autogradF.hessian(pow_reducer, inp, create_graph=True,
                                                   vectorize=vectorize), inputs)
    assert gradgradcheck(lambda inp: autogradF.hessian(pow_reducer, inp, create_graph=True,
                                                       vectorize=vectorize), inputs)

    def add_pow_reducer(x, y):
        return (x + y).pow(3).sum()

    inputs = (rand(2, 2, dtype=pyad.double, requires_grad=True),
              rand(2, 2, dtype=pyad.double, requires_grad=True))
    res = autogradF.hessian(add_pow_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(res, inputs, inputs)
    assert all(res[i][j].grad_fn is not None for i in range(2) for j in range(2))

    def flatten(inp):
        return tuple(el_lvl2 for el_lvl1 in inp for el_lvl2 in el_lvl1)

    assert gradcheck(lambda *inp: flatten(autogradF.hessian(
        add_pow_reducer, inp, create_graph=True, vectorize=vectorize)), inputs)
    assert gradgradcheck(lambda *inp: flatten(autogradF.hessian(
        add_pow_reducer, inp, create_graph=True, vectorize=vectorize)), inputs)

    def foo(x, y):
        x = x.cos()
        val, hess = autogradF.hessian(add_pow_reducer, (x, y), create_graph=True,
                                      vectorize=vectorize)
        res = val[0].cos().sum() + val[1].cos().sum() + hess[0].cos().sum()
        return res + hess[1].cos().sum() + x.cos().sum() + y.cos().sum()

    assert gradcheck(foo, inputs)
    assert gradgradcheck(foo, inputs)


# -- vhp -------------------------------------------------------------------------------

def test_vhp_err_check():
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    def bar2(a):
        return 3 * a.narrow(0, 0, 3)

    inp = rand(4)
    v = rand(4)
    with pytest.raises(TypeError, match="The inputs given to vhp must be either a"):
        autogradF.vhp(foo, (inp, 2), v)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "vhp must"):
        autogradF.vhp(bar, inp, v)
    with pytest.raises(RuntimeError, match="returned by the function given to vhp should "
                                           "contain a single element"):
        autogradF.vhp(bar2, inp, v)
    with pytest.raises(RuntimeError, match="v has invalid size:"):
        autogradF.vhp(foo, inp, rand(5))
    with pytest.raises(TypeError, match="The v given to vhp must be either a"):
        autogradF.vhp(foo, inp, (v, 2))
    res = autogradF.vhp(foo, inp, v)
    _assert_same_struct(res[1], inp)

    def foo(a, b):
        return (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3)).sum()

    inp = (rand(4), rand(5))
    v = (rand(4), rand(5))
    res = autogradF.vhp(foo, inp, v)
    _assert_same_struct(res[1], inp)


def test_vhp_err_check_strict():
    def foo(a):
        return a.detach().sum()

    def bar(a):
        return a.long().float().requires_grad_().clone().sum()

    def bar2(a):
        return (3 * a).sum()

    inp = rand(4)
    v = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.vhp(foo, inp, v, strict=True)
    res = autogradF.vhp(foo, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                                           "independent of input 0"):
        autogradF.vhp(bar, inp, v, strict=True)
    res = autogradF.vhp(bar, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with "
                                           "respect to input 0 is"):
        autogradF.vhp(bar2, inp, v, strict=True)
    res = autogradF.vhp(bar2, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0


def test_vhp_no_grad():
    def reducer(x):
        return x.exp().sum()

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    with pyad.no_grad():
        res = autogradF.vhp(reducer, inputs, v)
    assert res[0].grad_fn is None and res[1].grad_fn is None
    assert not np.array_equal(res[1].data, np.zeros((4, 4)))
    with pyad.no_grad():
        res = autogradF.vhp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert not np.array_equal(res[1].detach().data, np.zeros((4, 4)))


@pytest.mark.parametrize("api", ["vhp", "hvp"])
def test_vhp_hvp_output(api):
    # torch's test_vhp_output and test_hvp_output
    fn = getattr(autogradF, api)

    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    res = fn(foo, inputs, v)
    _assert_same_struct(res[1], inputs)
    assert res[0].grad_fn is None and res[1].grad_fn is None

    def bar(a, b):
        return (a + 3 * b.narrow(0, 0, 3)).exp().sum()

    inputs = (rand(3), rand(4))
    v = (pyad.ones(3), pyad.ones(4))
    out, val = fn(bar, inputs, v)
    _assert_same_struct(val, inputs)
    assert out.grad_fn is None and val[0].grad_fn is None and val[1].grad_fn is None


@pytest.mark.parametrize("api", ["vhp", "hvp"])
def test_vhp_hvp_scalar(api):
    fn = getattr(autogradF, api)

    def reducer(x):
        return x.exp().sum()

    inputs = rand(4, 4)
    res = fn(reducer, inputs, pyad.ones(4, 4))
    _assert_same_struct(res[1], inputs)
    inputs = rand([])
    res = fn(reducer, inputs, rand([]))
    _assert_same_struct(res[1], inputs)
    res = fn(reducer, inputs)
    _assert_same_struct(res[1], inputs)

    def bad_reducer(x):
        return x.exp().sum().view(1, 1, 1)

    inputs = rand(4, 4)
    res = fn(bad_reducer, inputs, rand(4, 4))
    _assert_same_struct(res[1], inputs)


@pytest.mark.parametrize("api", ["vhp", "hvp"])
def test_vhp_hvp_create_graph(api):
    fn = getattr(autogradF, api)

    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = rand(4, 4, dtype=pyad.double, requires_grad=True)
    v = pyad.ones(4, 4, dtype=pyad.double, requires_grad=True)
    res = fn(foo, inputs, v, create_graph=True)
    _assert_same_struct(res[1], inputs)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert gradcheck(lambda inp, v: fn(foo, inp, v, create_graph=True), (inputs, v))
    assert gradgradcheck(lambda inp, v: fn(foo, inp, v, create_graph=True), (inputs, v))

    def bar(a, b):
        return (a + 3 * b.narrow(0, 0, 3)).exp().sum()

    inputs = (rand(3, dtype=pyad.double, requires_grad=True),
              rand(4, dtype=pyad.double, requires_grad=True))
    v = (pyad.ones(3, dtype=pyad.double, requires_grad=True),
         pyad.ones(4, dtype=pyad.double, requires_grad=True))
    out, val = fn(bar, inputs, v, create_graph=True)
    _assert_same_struct(val, inputs)
    assert out.grad_fn is not None and val[0].grad_fn is not None
    assert val[1].grad_fn is not None
    assert gradcheck(lambda *args: fn(bar, args[:2], args[2:], create_graph=True)[1],
                     inputs + v)
    assert gradgradcheck(lambda *args: fn(bar, args[:2], args[2:], create_graph=True)[1],
                         inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]
        x = x.cos()
        val, grad = fn(bar, (x, y), v, create_graph=True)
        return val.cos() + grad[0].cos().sum() + grad[1].cos() + x.cos().sum() + y.cos()

    assert gradcheck(foo, inputs + v)
    assert gradgradcheck(foo, inputs + v)


# -- hvp -------------------------------------------------------------------------------

def test_hvp_err_check():
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    def bar2(a):
        return 3 * a.narrow(0, 0, 3)

    inp = rand(4)
    v = rand(4)
    autogradF.hvp(foo, inp, v)
    with pytest.raises(TypeError, match="The inputs given to hvp must be either a"):
        autogradF.hvp(foo, (inp, 2), v)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to "
                                        "hvp must"):
        autogradF.hvp(bar, inp, v)
    with pytest.raises(RuntimeError, match="returned by the function given to hvp should "
                                           "contain a single element"):
        autogradF.hvp(bar2, inp, v)
    with pytest.raises(RuntimeError, match="v has invalid size:"):
        autogradF.hvp(foo, inp, rand(5))
    with pytest.raises(TypeError, match="The v given to hvp must be either a"):
        autogradF.hvp(foo, inp, (v, 2))
    res = autogradF.hvp(foo, inp, v)
    _assert_same_struct(res[1], inp)

    def foo(a, b):
        return (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3)).sum()

    inp = (rand(4), rand(5))
    v = (rand(4), rand(5))
    res = autogradF.hvp(foo, inp, v)
    _assert_same_struct(res[1], inp)


def test_hvp_err_check_strict():
    def foo(a):
        return a.detach().sum()

    def bar(a):
        return a.long().float().requires_grad_().clone().sum()

    def bar2(a):
        return (3 * a).sum()

    inp = rand(4)
    v = rand(4)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients."):
        autogradF.hvp(foo, inp, v, strict=True)
    res = autogradF.hvp(foo, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                                           "independent of input 0"):
        autogradF.hvp(bar, inp, v, strict=True)
    res = autogradF.hvp(bar, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with "
                                           "respect to input 0 is"):
        autogradF.hvp(bar2, inp, v, strict=True)
    res = autogradF.hvp(bar2, inp, v, strict=False)
    _assert_same_struct(res[1], inp)
    assert res[1].abs().sum().item() == 0.0


def test_hvp_no_grad():
    def reducer(x):
        return x.exp().sum()

    inputs = rand(4, 4)
    v = pyad.ones(4, 4)
    with pyad.no_grad():
        res = autogradF.hvp(reducer, inputs, v)
    assert res[0].grad_fn is None and res[1].grad_fn is None
    assert not np.array_equal(res[1].data, np.zeros((4, 4)))
    with pyad.no_grad():
        res = autogradF.hvp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None and res[1].grad_fn is not None
    assert not np.array_equal(res[1].detach().data, np.zeros((4, 4)))


def test_jacobian_match_vjp_jvp():
    def foo(x):
        return x ** 3 + x.sum()

    inputs = rand(4)
    v = rand(4)
    jac = autogradF.jacobian(foo, inputs)
    jvp = autogradF.jvp(foo, inputs, v)[1]
    vjp = autogradF.vjp(foo, inputs, v)[1]
    assert_equal(jvp, pyad.mm(jac, v.unsqueeze(1)).squeeze(1))
    assert_equal(vjp, pyad.mm(v.unsqueeze(0), jac).squeeze(0))


def test_hessian_match_vhp_hvp():
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = rand(4)
    v = rand(4)
    hes = autogradF.hessian(foo, inputs)
    hvp = autogradF.hvp(foo, inputs, v)[1]
    vhp = autogradF.vhp(foo, inputs, v)[1]
    assert_equal(hvp, pyad.mm(hes, v.unsqueeze(1)).squeeze(1))
    assert_equal(vhp, pyad.mm(v.unsqueeze(0), hes).squeeze(0))


def test_jacobian_vectorize_correctness_different_devices():
    # torch's TestAutogradFunctionalDeviceType test: needs a GPU (CuPy)
    if not pyad.cuda.is_available():
        pytest.skip("needs a CUDA device (CuPy)")

    def f(x, y):
        return x * y, (x * y).to("cuda")

    x, y = randn(3), randn(3)
    expected = autogradF.jacobian(f, (x, y), vectorize=False)
    result = autogradF.jacobian(f, (x, y), vectorize=True)
    for e_row, r_row in zip(expected, result):
        for e, r in zip(e_row, r_row):
            np.testing.assert_allclose(np.asarray(e.cpu().data), np.asarray(r.cpu().data))
