"""Double backward through the piecewise-linear ops whose torch formula takes the input.

torch's backward of threshold, hardshrink, softshrink, prelu, hardsigmoid, the max and
average poolings and the 1/inf norms is a function of the incoming gradient *and* the
forward input (threshold_backward(g, x), max_pool2d_with_indices_backward(g, x, indices),
avg_pool2d_backward(g, x, ...), g * sign(x), ...). So with ``create_graph=True`` the
first derivative requires grad whenever the input does, and differentiating it again
gives zeros (the mask is locally constant), not "element 0 of tensors does not require
grad". pyad's formulas keep no copy of the input, and reached it through the node's edge
(pyad/ops/elementwise.pxi, ``_grad_depends_on``). Expected values come from torch on the
same inputs.
"""

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# Ties, a NaN, +-inf and points on the thresholds (0.5 for the shrinks, 0.3 for threshold).
_VALUES = np.array([-1.0, 0.5, 2.0, 3.0, 1.0, -2.0, 0.25, 4.0, 0.0, 0.3, 2.0, 3.0,
                    5.0, -0.5, 7.0, -8.0])


def _cases(lib, fn):
    f = fn.nn.functional

    def prelu(x):
        return f.prelu(x, lib.tensor([0.25], dtype=lib.float64))

    def fractional(x):
        return f.fractional_max_pool2d(x, 2, output_size=2,
                                       _random_samples=lib.tensor([[[0.5, 0.5]]],
                                                                  dtype=lib.float64))
    return {
        "threshold": ((1, 1, 16), lambda x: f.threshold(x, 0.3, -1.0)),
        "hardshrink": ((1, 1, 16), f.hardshrink),
        "softshrink": ((1, 1, 16), f.softshrink),
        "prelu": ((1, 1, 16), prelu),
        "max_pool1d": ((1, 1, 16), lambda x: f.max_pool1d(x, 2)),
        "max_pool2d": ((1, 1, 4, 4), lambda x: f.max_pool2d(x, 2)),
        "max_pool2d_overlapping": ((1, 1, 4, 4), lambda x: f.max_pool2d(x, 2, 1)),
        "max_pool2d_unbatched": ((1, 4, 4), lambda x: f.max_pool2d(x, 3, 1, 1)),
        "max_pool3d": ((1, 1, 2, 2, 4), lambda x: f.max_pool3d(x, 2)),
        "adaptive_max_pool1d": ((1, 1, 16), lambda x: f.adaptive_max_pool1d(x, 3)),
        "adaptive_max_pool2d": ((1, 1, 4, 4), lambda x: f.adaptive_max_pool2d(x, 3)),
        "adaptive_max_pool3d": ((1, 1, 2, 2, 4), lambda x: f.adaptive_max_pool3d(x, 1)),
        "fractional_max_pool2d": ((1, 1, 4, 4), fractional),
        # linear in x, but torch's formula takes x (avg_pool2d_backward(g, x, ...),
        # norm_backward's sign(x) and its max mask)
        "avg_pool1d": ((1, 1, 16), lambda x: f.avg_pool1d(x, 3, 2, 1)),
        "avg_pool2d": ((1, 1, 4, 4), lambda x: f.avg_pool2d(x, 2)),
        "avg_pool2d_unbatched": ((1, 4, 4), lambda x: f.avg_pool2d(x, 3, 1, 1, False, False)),
        "avg_pool3d": ((1, 1, 2, 2, 4), lambda x: f.avg_pool3d(x, 2)),
        "adaptive_avg_pool1d": ((1, 1, 16), lambda x: f.adaptive_avg_pool1d(x, 3)),
        "adaptive_avg_pool2d": ((1, 1, 4, 4), lambda x: f.adaptive_avg_pool2d(x, 3)),
        "adaptive_avg_pool3d": ((1, 1, 2, 2, 4), lambda x: f.adaptive_avg_pool3d(x, 2)),
        "vector_norm_1": ((16,), lambda x: lib.linalg.vector_norm(x, 1)),
        "vector_norm_inf": ((4, 4), lambda x: lib.linalg.vector_norm(x, float("inf"), 1)),
        "vector_norm_minus_inf": ((16,), lambda x: lib.linalg.vector_norm(x, -float("inf"))),
        "norm_1": ((4, 4), lambda x: x.norm(1, 0)),
        "dist_inf": ((16,), lambda x: lib.dist(x, lib.ones(16, dtype=lib.float64),
                                                float("inf"))),
        "matrix_norm_1": ((4, 4), lambda x: lib.linalg.matrix_norm(x, 1)),
        "matrix_norm_inf": ((2, 2, 4), lambda x: lib.linalg.matrix_norm(x, float("inf"))),
    }


_NAMES = sorted(_cases(pyad, pyad))
# first derivatives that are sums of window weights, whose rounding follows the order of
# the sum (pyad's window sums and torch's kernels differ in the last bit)
_SUMMED = {n for n in _NAMES if "avg_pool" in n}


def _leaf(lib, shape, values=_VALUES):
    return lib.tensor(values.reshape(shape), dtype=lib.float64, requires_grad=True)


def _grads(lib, name, values=_VALUES, through_tanh=False):
    shape, f = _cases(lib, lib)[name]
    x = _leaf(lib, shape, values)
    inp = lib.tanh(x) * 3 if through_tanh else x
    y = (f(inp) * lib.arange(1.0, f(inp).numel() + 1, dtype=lib.float64)
         .reshape(f(inp).shape)).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    gg, = lib.autograd.grad((g * g).sum() + g.sum(), x)
    return g, gg


@pytest.mark.parametrize("name", _NAMES)
def test_first_derivative_requires_grad_and_second_is_torchs(name):
    g, gg = _grads(pyad, name)
    tg, tgg = _grads(torch, name)
    assert g.requires_grad == tg.requires_grad
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(),
                               rtol=4e-16 if name in _SUMMED else 0, atol=0)
    # (torch's second derivative may be one of its ZeroTensors, which numpy() refuses
    # unless forced)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(force=True), rtol=0, atol=0)
    assert not np.any(gg.numpy())             # zeros, not an error


@pytest.mark.parametrize("name", _NAMES)
def test_through_a_smooth_op_the_second_derivative_is_torchs(name):
    # the incoming gradient requires grad here: the chain rule's values, not just zeros
    g, gg = _grads(pyad, name, through_tanh=True)
    tg, tgg = _grads(torch, name, through_tanh=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-13,
                               atol=1e-13)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(force=True), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", _NAMES)
def test_gradcheck_and_gradgradcheck_away_from_the_kinks(name):
    shape, f = _cases(pyad, pyad)[name]
    # distinct values, none near a threshold, so finite differences are valid
    values = np.linspace(-3.1, 2.9, 16) + 0.013
    x = _leaf(pyad, shape, np.random.default_rng(0).permutation(values))
    assert pyad.autograd.gradcheck(f, (x,))
    assert pyad.autograd.gradgradcheck(f, (x,))


# (not hardshrink and softshrink: torch's own gradient at a NaN is 1 from its scalar
# kernel, under 16 elements, and 0 from its vectorised one)
@pytest.mark.parametrize("name", ["threshold", "max_pool2d", "adaptive_max_pool2d",
                                  "max_pool3d", "prelu"])
def test_nan_and_inf_inputs_match_torch(name):
    values = _VALUES.copy()
    values[[2, 5, 12]] = [np.nan, np.inf, -np.inf]
    g, gg = _grads(pyad, name, values)
    tg, tgg = _grads(torch, name, values)
    np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())
    np.testing.assert_array_equal(gg.numpy(), tgg.numpy())


def test_hardsigmoid_gradient_takes_its_input_as_torchs():
    # torch's hardsigmoid_backward(g, x) takes x, so the first derivative requires grad;
    # torch has no derivative for it ("not implemented"), pyad's is the true one, zeros
    values = np.array([-4.0, -3.0, -1.0, 0.0, 2.5, 3.0, 4.0])
    grads = []
    for lib in (pyad, torch):
        x = _leaf(lib, (7,), values)
        out = lib.nn.functional.hardsigmoid(x)
        g, = lib.autograd.grad((out * lib.arange(1.0, 8.0, dtype=lib.float64)).sum(), x,
                               create_graph=True)
        assert g.requires_grad, lib.__name__
        assert out.grad_fn.name().rstrip("0123456789") == "HardsigmoidBackward"
        grads.append(g.detach().numpy())
    inside = (values > -3) & (values < 3)
    np.testing.assert_array_equal(grads[0], np.where(inside, np.arange(1.0, 8.0) / 6, 0))
    # torch's CPU kernel multiplies by 1/6 rounded to float32 even in float64
    np.testing.assert_allclose(grads[0], grads[1], rtol=3e-8, atol=0)
    x = _leaf(pyad, (7,), values)
    g, = pyad.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    gg, = pyad.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.numpy(), np.zeros(7))
    # in place too (torch's hardsigmoid_ is the same node)
    x = _leaf(pyad, (7,), values)
    y = x * 1
    F.hardsigmoid(y, inplace=True)
    g, = pyad.autograd.grad(y.sum(), x, create_graph=True)
    assert g.requires_grad
    np.testing.assert_array_equal(g.detach().numpy(), np.where(inside, 1 / 6, 0))


def test_a_global_adaptive_average_is_a_mean_as_torchs():
    # torch computes an output size of 1 as a mean, whose gradient does not take x
    for lib in (pyad, torch):
        x = _leaf(lib, (1, 1, 4, 4))
        for out in (lib.nn.functional.adaptive_avg_pool2d(x, 1),
                    lib.nn.functional.adaptive_avg_pool3d(x, 1)):
            g, = lib.autograd.grad(out.sum(), x, create_graph=True)
            assert not g.requires_grad, lib.__name__


def test_without_create_graph_the_gradient_has_no_history():
    x = _leaf(pyad, (1, 1, 4, 4))
    for f in (F.hardshrink, lambda v: F.max_pool2d(v, 2), lambda v: F.threshold(v, 0, 0)):
        g, = pyad.autograd.grad(f(x).sum(), x)
        assert not g.requires_grad and g.grad_fn is None


def test_no_dependence_is_recorded_when_the_input_needs_no_grad():
    x = pyad.tensor(_VALUES, dtype=pyad.float64)
    assert F.hardshrink(x).grad_fn is None
    w = pyad.tensor([0.25], dtype=pyad.float64, requires_grad=True)
    out = F.prelu(x, w)               # only the weight requires grad: prelu's own history
    g, = pyad.autograd.grad(out.sum(), w, create_graph=True)
    tw = torch.tensor([0.25], dtype=torch.float64, requires_grad=True)
    tg, = torch.autograd.grad(TF.prelu(torch.tensor(_VALUES), tw).sum(), tw,
                              create_graph=True)
    assert g.requires_grad == tg.requires_grad
    assert g.item() == tg.item()


def test_in_place_threshold_keeps_its_double_backward():
    x = _leaf(pyad, (16,))
    y = x * 1
    F.threshold(y, 0.3, -1.0, inplace=True)
    g, = pyad.autograd.grad((y * y).sum(), x, create_graph=True)
    gg, = pyad.autograd.grad(g.sum(), x)
    tx = _leaf(torch, (16,))
    ty = tx * 1
    TF.threshold(ty, 0.3, -1.0, inplace=True)
    tg, = torch.autograd.grad((ty * ty).sum(), tx, create_graph=True)
    tgg, = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())
    np.testing.assert_array_equal(gg.numpy(), tgg.numpy())


@pytest.mark.parametrize("name", ["threshold", "hardshrink", "softshrink", "prelu",
                                  "avg_pool2d", "avg_pool2d_unbatched",
                                  "avg_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"])
def test_node_names_are_torchs(name):
    # pyad's names drop torch's trailing overload digit ("MulBackward", "MulBackward0");
    # (the poolings composed in Python end in a reshape: ViewBackward, as before)
    shape, f = _cases(pyad, pyad)[name]
    tshape, tf = _cases(torch, torch)[name]
    out = f(_leaf(pyad, shape))
    tout = tf(_leaf(torch, tshape))
    assert out.grad_fn.name() == tout.grad_fn.name().rstrip("0123456789")


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "abs", "threshold", "hardshrink",
                                  "max_pool2d", "adaptive_max_pool2d", "prelu"])
def test_a_gradient_penalty_gives_the_input_zeros_not_none(name):
    # WGAN-GP's shape: the critic's gradient with respect to its input depends on the
    # weights through the incoming gradient, and torch's formula takes the input too, so
    # the penalty's backward gives the input a zero gradient (x.grad is zeros, not None:
    # an optimizer stepping x would otherwise skip it)
    def run(lib):
        f = lib.nn.functional
        ops = {"relu": f.relu, "leaky_relu": lambda v: f.leaky_relu(v, 0.2),
               "abs": lib.abs, "threshold": lambda v: f.threshold(v, 0.1, 0.0),
               "hardshrink": f.hardshrink,
               "max_pool2d": lambda v: f.max_pool2d(v.reshape(1, 1, 4, 4), 2).reshape(1, 4),
               "adaptive_max_pool2d": lambda v: f.adaptive_max_pool2d(
                   v.reshape(1, 1, 4, 4), 2).reshape(1, 4),
               "prelu": lambda v: f.prelu(v, lib.tensor([0.25], dtype=lib.float64))}
        rng = np.random.default_rng(5)
        w1 = lib.tensor(rng.standard_normal((16, 16)), requires_grad=True)
        w2 = lib.tensor(rng.standard_normal((4, 1)) if name.endswith("pool2d")
                        else rng.standard_normal((16, 1)), requires_grad=True)
        x = lib.tensor(rng.standard_normal((1, 16)), requires_grad=True)
        out = ops[name](x @ w1) @ w2
        g, = lib.autograd.grad(out.sum(), x, create_graph=True)
        ((g.norm(2, dim=1) - 1) ** 2).mean().backward()
        return x.grad, w1.grad, w2.grad

    (tx, tw1, tw2), (px, pw1, pw2) = run(torch), run(pyad)
    assert tx is not None and not tx.any()
    assert px is not None
    np.testing.assert_array_equal(px.numpy(), tx.numpy())
    np.testing.assert_allclose(pw1.numpy(), tw1.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pw2.numpy(), tw2.numpy(), rtol=1e-12, atol=1e-12)
