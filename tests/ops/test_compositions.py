"""Random compositions of 2-8 ops (hypothesis), checked by finite differences and vs torch.

A program starts from one random float64 input of a random small shape (0-d and
size-0 included) and applies 2-8 steps drawn from: unary elementwise ops, binary ops
with a new broadcastable input, reductions (dim int / tuple / all, keepdim), shape ops
and matmul with a new matrix where the shapes fit. Every step keeps its input in the
op's domain (log of abs()+1, division by y*y+1, exp of tanh). Each program is run
through ``pyad.autograd.gradcheck`` and, when torch is installed, compared with torch:
values, and the gradients of every input for the same random grad_output.

The number of examples comes from the hypothesis profile (tests/conftest.py): small
and derandomized by default, ``--hypothesis-profile=long`` for a long random run.
"""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402

import pyad  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

MAX_DIMS = 4


def _libs():
    return (pyad,) if torch is None else (pyad, torch)


# -- the steps --------------------------------------------------------------------------
# Each takes (L, x, *new_inputs) with L the pyad or torch module; both share the API.

UNARY = {
    "sin": lambda L, x: L.sin(x),
    "cos": lambda L, x: L.cos(x),
    "tanh": lambda L, x: L.tanh(x),
    "sigmoid": lambda L, x: L.sigmoid(x),
    "atan": lambda L, x: L.atan(x),
    "exp_of_tanh": lambda L, x: L.exp(L.tanh(x)),
    "log_of_abs_plus_1": lambda L, x: L.log(L.abs(x) + 1),
    "sqrt_of_square_plus_1": lambda L, x: L.sqrt(x * x + 1),
    "neg": lambda L, x: -x,
}

BINARY = {
    "add": lambda L, x, y: L.add(x, y),
    "sub": lambda L, x, y: y - x,
    "mul": lambda L, x, y: L.mul(x, y),
    "div": lambda L, x, y: L.div(x, y * y + 1),
    "maximum": lambda L, x, y: L.maximum(x, y),
}


def _reduce(name, dim, keepdim):
    def step(L, x):
        if name == "logsumexp":
            return L.logsumexp(x, dim, keepdim)
        fn = getattr(L, name)
        if dim is None:
            return fn(x)
        return fn(x, dim, keepdim)
    return step


def _shape_step(name, arg):
    def step(L, x):
        if name == "flatten":
            return x.reshape(-1)
        if name == "unsqueeze":
            return x.unsqueeze(arg)
        if name == "transpose":
            return x.transpose(*arg)
        if name == "permute":
            return x.permute(*arg)
        if name == "flip":
            return L.flip(x, arg)
        if name == "expand":
            return x.expand(*arg)
        if name == "slice":
            return x[::2]
        raise AssertionError(name)
    return step


def _matmul(L, x, w):
    return L.matmul(x, w)


# -- drawing programs ------------------------------------------------------------------

def _size(shape):
    return int(np.prod(shape)) if shape else 1


def _out_shape(fn, shape, extra_shapes):
    # The shape a step gives, from running it on ones (pyad, no graph).
    args = [pyad.ones(*s, dtype=pyad.float64) for s in (shape,) + tuple(extra_shapes)]
    return tuple(fn(pyad, *args).shape)


@st.composite
def _broadcastable(draw, shape):
    # Some dims of `shape` set to 1, then either some leading dims dropped or a new
    # leading dim added (the result grows).
    dims = [1 if draw(st.booleans()) else n for n in shape]
    if dims and draw(st.booleans()):
        dims = dims[draw(st.integers(0, len(dims))):]
    elif len(dims) < MAX_DIMS and draw(st.integers(0, 3)) == 0:
        dims = [2] + dims
    return tuple(dims)


@st.composite
def _step(draw, shape):
    nd = len(shape)
    kinds = ["unary", "binary", "reduction", "shape"]
    if 1 <= nd <= 3:
        kinds.append("matmul")
    kind = draw(st.sampled_from(kinds))
    if kind == "unary":
        name = draw(st.sampled_from(sorted(UNARY)))
        return name, UNARY[name], ()
    if kind == "binary":
        name = draw(st.sampled_from(sorted(BINARY)))
        return name, BINARY[name], (draw(_broadcastable(shape)),)
    if kind == "matmul":
        n = shape[-1]
        other = (n,) if draw(st.booleans()) else (n, draw(st.integers(1, 3)))
        return "matmul%s" % (other,), _matmul, (other,)
    if kind == "reduction":
        form = draw(st.sampled_from(["all", "int", "tuple"]) if nd else st.just("all"))
        if form == "all":
            dim = None
        elif form == "int":
            dim = draw(st.integers(-nd, nd - 1))
        else:
            dim = tuple(draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd,
                                      unique=True)))
        keepdim = draw(st.booleans()) if dim is not None else False
        reduced = range(nd) if dim is None else ((dim,) if isinstance(dim, int) else dim)
        if any(shape[d] == 0 for d in reduced):
            names = ["sum", "prod"]        # the others have no value on an empty set
        else:
            names = ["sum", "mean", "prod", "logsumexp"]
        if isinstance(dim, tuple):
            names.remove("prod")           # torch's prod takes one dim
        if dim is None:
            names = [n for n in names if n != "logsumexp"]  # torch's needs a dim
        name = draw(st.sampled_from(names))
        return ("%s(dim=%r, keepdim=%r)" % (name, dim, keepdim), _reduce(name, dim, keepdim),
                ())
    options = ["flatten"]
    if nd < MAX_DIMS:
        options.append("unsqueeze")
    if nd >= 1:
        options += ["flip", "slice"]
    if nd >= 2:
        options += ["transpose", "permute"]
    if 1 in shape or nd < MAX_DIMS:
        options.append("expand")
    name = draw(st.sampled_from(options))
    if name == "unsqueeze":
        arg = draw(st.integers(-nd - 1, nd))
    elif name == "transpose":
        arg = tuple(draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2)))
    elif name == "permute":
        arg = tuple(draw(st.permutations(range(nd))))
    elif name == "flip":
        arg = tuple(draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd,
                                  unique=True)))
    elif name == "expand":
        if 1 in shape:
            arg = tuple(3 if n == 1 else n for n in shape)
        else:
            arg = (2,) + tuple(shape)
    else:
        arg = None
    return "%s(%r)" % (name, arg) if arg is not None else name, _shape_step(name, arg), ()


@st.composite
def programs(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))
    if 0 in shape and draw(st.integers(0, 2)) != 0:     # size-0 in about 1 of 3 of those
        shape = tuple(n or 1 for n in shape)
    input_shapes = [shape]
    steps = []
    for _ in range(draw(st.integers(2, 8))):
        label, fn, extra = draw(_step(shape))
        steps.append((label, fn, len(input_shapes), len(extra)))
        input_shapes.extend(extra)
        shape = _out_shape(fn, shape, extra)
        if _size(shape) > 200:
            break
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return input_shapes, steps, seed


def _run(L, steps, inputs):
    x = inputs[0]
    for _, fn, first, count in steps:
        x = fn(L, x, *inputs[first:first + count])
    return x


def _describe(input_shapes, steps):
    return "inputs %s: %s" % (input_shapes, " -> ".join(label for label, *_ in steps))


def _close(ours, theirs, what):
    ours = np.asarray(ours)
    theirs = np.asarray(theirs)
    assert ours.shape == theirs.shape, what
    scale = max(1.0, float(np.max(np.abs(theirs)))) if theirs.size else 1.0
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12 * scale, err_msg=what)


@given(programs())
def test_random_composition(program):
    input_shapes, steps, seed = program
    what = _describe(input_shapes, steps)
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1.5, 1.5, s) for s in input_shapes]
    leaves = [pyad.tensor(a, requires_grad=True) for a in arrays]

    assert pyad.autograd.gradcheck(lambda *xs: _run(pyad, steps, xs), tuple(leaves)), what

    if torch is None:
        return
    out = _run(pyad, steps, leaves)
    tleaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    tout = _run(torch, steps, tleaves)
    _close(out.data, tout.detach().numpy(), "values: " + what)
    g = rng.standard_normal(tuple(tout.shape))
    grads = pyad.autograd.grad(out, leaves, pyad.tensor(g), allow_unused=True,
                               materialize_grads=True)
    tgrads = torch.autograd.grad(tout, tleaves, torch.tensor(g), allow_unused=True,
                                 materialize_grads=True)
    for i, (ours, theirs) in enumerate(zip(grads, tgrads)):
        _close(ours.data, theirs.numpy(), "gradient of input %d: %s" % (i, what))


def test_profiles_are_registered():
    from hypothesis import settings
    assert settings.get_profile("ci").max_examples <= 100
    assert settings.get_profile("ci").derandomize
    assert settings.get_profile("long").max_examples >= 1000
