"""pyad.func against torch.func: each scenario is written once against a library ``L``
(pyad or torch, with ``L.func`` the transforms) and run on both with the same inputs;
values, dtypes, structures, ``requires_grad`` and error types must agree. The gradients
of the transforms' own results are checked by gradcheck and gradgradcheck in float64."""
import numpy as np
import pytest

import pyad
import pyad.func
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
import torch.func  # noqa: E402  (after the skip)

RTOL, ATOL = 1e-10, 1e-12
LIBS = (pyad, torch)


def rng(seed=0):
    return np.random.default_rng(seed)


def make(L, array, requires_grad=False):
    """A float64 (or the array's dtype) Variable / tensor holding a copy of ``array``."""
    array = np.array(array)
    t = pyad.tensor(array) if L is pyad else torch.tensor(array)
    return t.requires_grad_() if requires_grad else t


def leaves(tree):
    """``(structure, leaves)`` of a result pytree, the structure naming the node types."""
    if isinstance(tree, dict):
        parts = [(k, leaves(v)) for k, v in tree.items()]
        return ("dict", tuple((k, s) for k, (s, _) in parts)), [x for _, (_, l) in parts for x in l]
    if isinstance(tree, (tuple, list)):
        parts = [leaves(v) for v in tree]
        return (type(tree).__name__, tuple(s for s, _ in parts)), [x for _, l in parts for x in l]
    return "*", [tree]


def as_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    if isinstance(t, pyad.Variable):
        return np.asarray(t.detach().data)
    return t


def assert_same(ours, theirs, rtol=RTOL, atol=ATOL, requires_grad=True):
    """Same structure, shapes, dtypes, values (and requires_grad) in pyad's and torch's result."""
    s_ours, l_ours = leaves(ours)
    s_theirs, l_theirs = leaves(theirs)
    assert s_ours == s_theirs, (s_ours, s_theirs)
    for a, b in zip(l_ours, l_theirs):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, pyad.Variable), type(a)
            assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
            assert str(a.dtype) == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
            np.testing.assert_allclose(as_np(a), as_np(b), rtol=rtol, atol=atol)
            if requires_grad:
                assert a.requires_grad == b.requires_grad, (a.requires_grad, b.requires_grad)
        else:
            assert a == b, (a, b)


def both(scenario, **kw):
    """Run ``scenario(L)`` on pyad and torch and compare the results."""
    assert_same(scenario(pyad), scenario(torch), **kw)


def raises_in_both(scenario, exc, match=None):
    """``scenario(L)`` raises ``exc`` on pyad and torch; pyad's message matches ``match``
    (pyad's messages start with the function's name and say "Variable" for "Tensor")."""
    with pytest.raises(exc, match=match):
        scenario(pyad)
    with pytest.raises(exc):
        scenario(torch)


# Functions written once, on Variables and tensors alike ----------------------------

def cubic(x):
    return (x ** 3).sum() + (x.sin() * x).sum()


def two_args(a, b):
    return (a.exp() * b).sum() + (a * a * b).sum()


def many_outputs(a, b):
    return a.tanh() * b.sum(), {"prod": (a * b).sum(), "sq": [b ** 2]}


# ---------------------------------------------------------------------------
# grad and grad_and_value
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0,)])
def test_grad_matches_torch_for_each_shape(shape):
    data = rng().standard_normal(shape)
    both(lambda L: L.func.grad(cubic)(make(L, data)))


def test_grad_keeps_float32():
    data = rng().standard_normal(4).astype(np.float32)
    both(lambda L: L.func.grad(cubic)(make(L, data)), rtol=1e-5, atol=1e-6)


def test_grad_of_a_non_contiguous_input_matches_torch():
    data = rng().standard_normal((3, 4))
    both(lambda L: L.func.grad(cubic)(make(L, data).t()))


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0), (1,)])
def test_grad_argnums_match_torch(argnums):
    a, b = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.grad(two_args, argnums=argnums)(make(L, a), make(L, b)))


def test_grad_of_pytree_arguments_and_kwargs_matches_torch():
    w, v, x = rng(1).standard_normal((2, 3)), rng(2).standard_normal(2), rng(3).standard_normal(3)

    def loss(params, inputs, scale=1.0):
        hidden = (params["w"] @ inputs[0]).tanh() + params["b"][0]
        return (hidden * scale).sum() + (inputs[1] ** 2).sum()

    both(lambda L: L.func.grad(loss, argnums=(0, 1))(
        {"w": make(L, w), "b": [make(L, v)]}, (make(L, x), make(L, v)), scale=3.0))


def test_grad_has_aux_matches_torch():
    data = rng().standard_normal(3)

    def f(x):
        return cubic(x), {"double": x * 2, "list": [x.sum()]}

    both(lambda L: L.func.grad(f, has_aux=True)(make(L, data)))
    both(lambda L: L.func.grad_and_value(f, has_aux=True)(make(L, data)))
    raises_in_both(lambda L: L.func.grad(lambda x: (cubic(x), 5), has_aux=True)(make(L, data)),
                   RuntimeError, "Expected Variables in aux")


def test_grad_and_value_matches_torch():
    a, b = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.grad_and_value(two_args, argnums=(0, 1))(make(L, a), make(L, b)))


def test_grad_results_require_grad_only_where_torch_says():
    data, w = rng().standard_normal(3), rng(1).standard_normal(3)
    both(lambda L: L.func.grad(cubic)(make(L, data)))                       # plain: no
    both(lambda L: L.func.grad(cubic)(make(L, data, requires_grad=True)))   # input in a graph
    for L, weight in ((pyad, make(pyad, w, True)), (torch, make(torch, w, True))):
        ours_or_theirs = L.func.grad_and_value(lambda x: cubic(x * weight))(make(L, data))
        assert all(t.requires_grad for t in ours_or_theirs)     # captured weight in a graph
    for L in LIBS:
        with L.no_grad():
            got = L.func.grad(cubic)(make(L, data, requires_grad=True))
        assert not got.requires_grad


def test_grad_of_an_input_in_a_graph_backpropagates_like_torch():
    data = rng().standard_normal(3)

    def scenario(L):
        x = make(L, data, requires_grad=True)
        g = L.func.grad(cubic)(x)
        (g * g).sum().backward()
        return g, x.grad

    both(scenario, requires_grad=False)


def test_nested_grads_match_torch():
    x = rng().standard_normal(())
    for order in (2, 3):
        def scenario(L):
            f = lambda x: (x.sin() * x.exp())          # noqa: E731
            for _ in range(order):
                f = L.func.grad(f)
            return f(make(L, x))
        both(scenario)


def test_nested_grad_does_not_confuse_perturbations():
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x: the inner grad must not see the outer x.
    x = np.array(1.5)
    both(lambda L: L.func.grad(lambda x: x * L.func.grad(lambda y: x * y)(x))(make(L, x)))
    both(lambda L: L.func.grad(lambda x: L.func.grad(lambda y: (x * y))(x * 2) * x)(make(L, x)))


def test_grad_of_a_closure_argument_that_is_also_captured_matches_torch():
    x = rng().standard_normal(3)

    def scenario(L):
        t = make(L, x)
        return L.func.grad(lambda y: (y * t).sum())(t)

    both(scenario)


def test_grad_results_pass_gradcheck_and_gradgradcheck():
    x = pyad.tensor(rng().standard_normal(3), requires_grad=True)
    g = pyad.func.grad(cubic)
    assert gradcheck(g, (x,))
    assert gradgradcheck(g, (x,))
    a = pyad.tensor(rng(1).standard_normal(3), requires_grad=True)
    two = pyad.func.grad(two_args, argnums=(0, 1))
    assert gradcheck(lambda a, b: two(a, b), (a, x))
    assert gradgradcheck(lambda a, b: two(a, b), (a, x))


def test_grad_errors_match_torch():
    x = rng().standard_normal(3)
    raises_in_both(lambda L: L.func.grad(lambda x: x)(make(L, x)), RuntimeError,
                   r"^grad\(\): .*scalar \(0-d\) Variable")
    raises_in_both(lambda L: L.func.grad_and_value(lambda x: 1.0)(make(L, x)), RuntimeError,
                   r"^grad_and_value\(\): .*to return a Variable")
    raises_in_both(lambda L: L.func.grad(cubic)(3.0), ValueError, "must be Variables")
    raises_in_both(lambda L: L.func.grad(cubic)(make(L, np.arange(3))), RuntimeError,
                   "floating point")
    raises_in_both(lambda L: L.func.grad(cubic, argnums=2)(make(L, x)), RuntimeError,
                   "only 1 positional")
    raises_in_both(lambda L: L.func.grad(cubic, argnums=[0])(make(L, x)), RuntimeError,
                   "argnums must be int")
    raises_in_both(lambda L: L.func.grad(two_args, argnums=(0, 0))(make(L, x), make(L, x)),
                   RuntimeError, "unique")
    raises_in_both(lambda L: L.func.grad(two_args, argnums=())(make(L, x), make(L, x)),
                   RuntimeError, "non-empty")
    raises_in_both(lambda L: L.func.grad(cubic, has_aux=True)(make(L, x)), RuntimeError,
                   r"\(output, aux\)")


# ---------------------------------------------------------------------------
# vjp
# ---------------------------------------------------------------------------

def test_vjp_matches_torch_with_pytree_outputs_and_repeated_calls():
    a, b = rng(1).standard_normal(3), rng(2).standard_normal(3)
    c0, c1, c2 = rng(3).standard_normal(3), rng(4).standard_normal(()), rng(5).standard_normal(3)

    def scenario(L):
        out, vjp_fn = L.func.vjp(many_outputs, make(L, a), make(L, b))
        cot = (make(L, c0), {"prod": make(L, c1), "sq": [make(L, c2)]})
        return out, vjp_fn(cot), vjp_fn(cot)

    both(scenario)


def test_vjp_has_aux_and_requires_grad_match_torch():
    data = rng().standard_normal(3)
    cot = rng(1).standard_normal(3)

    def scenario(L, requires_grad):
        out, vjp_fn, aux = L.func.vjp(lambda x: (x.exp(), x * 3), make(L, data, requires_grad),
                                      has_aux=True)
        return out, vjp_fn(make(L, cot)), aux

    both(lambda L: scenario(L, False))
    both(lambda L: scenario(L, True))


def test_vjp_of_vjp_matches_torch():
    x, v, w = (rng(i).standard_normal(3) for i in range(3))

    def scenario(L):
        def pullback(x, v):
            return L.func.vjp(lambda x: x.sin() * x, x)[1](v)[0]
        return L.func.vjp(pullback, make(L, x), make(L, v))[1](make(L, w))

    both(scenario)


def test_vjp_results_pass_gradcheck_and_gradgradcheck():
    x = pyad.tensor(rng().standard_normal(3), requires_grad=True)
    v = pyad.tensor(rng(1).standard_normal(3), requires_grad=True)

    def pullback(x, v):
        return pyad.func.vjp(lambda x: x.sin() * x.exp(), x)[1](v)[0]

    assert gradcheck(pullback, (x, v))
    assert gradgradcheck(pullback, (x, v))


def test_vjp_errors_match_torch():
    x = rng().standard_normal(3)
    raises_in_both(lambda L: L.func.vjp(lambda x: x, make(L, x))[1]((make(L, x),)),
                   RuntimeError, "pytree structure of cotangents")
    raises_in_both(lambda L: L.func.vjp(lambda x: x, make(L, x))[1](make(L, x[:2])),
                   RuntimeError, "Mismatch in shape")
    raises_in_both(lambda L: L.func.vjp(lambda x: x.long(), make(L, x)), RuntimeError,
                   "floating-point or complex")
    raises_in_both(lambda L: L.func.vjp(lambda x: 3.0, make(L, x)), RuntimeError,
                   "return only Variables")
    raises_in_both(lambda L: L.func.vjp(lambda x: None, make(L, x)), RuntimeError, "non-empty")
    raises_in_both(lambda L: L.func.vjp(lambda x: x, 3.0), ValueError, "must be Variables")
    raises_in_both(lambda L: L.func.vjp(lambda x: x, make(L, x), has_aux=True), RuntimeError,
                   r"\(output, aux\)")


# ---------------------------------------------------------------------------
# jvp and linearize
# ---------------------------------------------------------------------------

def test_jvp_matches_torch_with_several_primals_and_pytree_outputs():
    a, b, ta, tb = (rng(i).standard_normal(3) for i in range(4))
    both(lambda L: L.func.jvp(many_outputs, (make(L, a), make(L, b)), (make(L, ta), make(L, tb))))


@pytest.mark.parametrize("shape", [(), (2, 3), (0,)])
def test_jvp_matches_torch_for_each_shape(shape):
    x, t = rng(1).standard_normal(shape), rng(2).standard_normal(shape)
    both(lambda L: L.func.jvp(lambda x: x.exp() * x.sum(), (make(L, x),), (make(L, t),)))


def test_jvp_of_dict_primals_identity_and_independent_outputs_matches_torch():
    x, t = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.jvp(lambda p: p["w"].cos(), ({"w": make(L, x)},), ({"w": make(L, t)},)))
    both(lambda L: L.func.jvp(lambda x: x, (make(L, x),), (make(L, t),)))
    both(lambda L: L.func.jvp(lambda x: (x * 2, L.ones(2, dtype=L.float64)), (make(L, x),),
                              (make(L, t),)))


def test_jvp_has_aux_strict_and_tangent_dtype_match_torch():
    x, t = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.jvp(lambda x: (x.exp(), x + 1), (make(L, x),), (make(L, t),),
                              has_aux=True))
    # A float32 tangent for a float64 primal is taken at the primal's precision.
    both(lambda L: L.func.jvp(lambda x: x.exp(), (make(L, x),), (make(L, t.astype(np.float32)),)),
         rtol=1e-6)
    raises_in_both(lambda L: L.func.jvp(lambda x: L.ones(2), (make(L, x),), (make(L, t),),
                                        strict=True), RuntimeError, "independent of the inputs")


def test_jvp_results_require_grad_like_torch():
    x, t = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.jvp(lambda x: x.exp() * x, (make(L, x, True),), (make(L, t),)))
    both(lambda L: L.func.jvp(lambda x: x.exp() * x, (make(L, x),), (make(L, t),)))


def test_jvp_results_pass_gradcheck_and_gradgradcheck():
    x = pyad.tensor(rng().standard_normal(3), requires_grad=True)
    t = pyad.tensor(rng(1).standard_normal(3), requires_grad=True)

    def push(x, t):
        return pyad.func.jvp(lambda x: x.sin() * x.exp(), (x,), (t,))[1]

    assert gradcheck(push, (x, t))
    assert gradgradcheck(push, (x, t))


def test_jvp_errors_match_torch():
    x = rng().standard_normal(3)
    raises_in_both(lambda L: L.func.jvp(cubic, make(L, x), make(L, x)), RuntimeError,
                   "Expected primals to be a tuple")
    raises_in_both(lambda L: L.func.jvp(cubic, (make(L, x),), make(L, x)), RuntimeError,
                   "same python structure")
    raises_in_both(lambda L: L.func.jvp(cubic, (make(L, x),), (make(L, x[:2]),)), RuntimeError,
                   "different size")
    raises_in_both(lambda L: L.func.jvp(cubic, (), ()), RuntimeError, "at least one Variable")
    raises_in_both(lambda L: L.func.jvp(cubic, (1.0,), (1.0,)), RuntimeError,
                   "only contain Variables")


def test_linearize_matches_torch_jvp_for_several_tangents():
    x = rng().standard_normal(3)
    tangents = [rng(i).standard_normal(3) for i in (1, 2)]
    out, jvp_fn = pyad.func.linearize(lambda x: x.sin() * x.exp(), make(pyad, x))
    for t in tangents:
        theirs = torch.func.jvp(lambda x: x.sin() * x.exp(), (make(torch, x),), (make(torch, t),))
        assert_same((out, jvp_fn(make(pyad, t))), theirs)


def test_linearize_results_pass_gradcheck_and_gradgradcheck():
    x = pyad.tensor(rng().standard_normal(3), requires_grad=True)
    t = pyad.tensor(rng(1).standard_normal(3), requires_grad=True)

    def push(x, t):
        return pyad.func.linearize(lambda x: x.sin() * x.exp(), x)[1](t)

    assert gradcheck(push, (x, t))
    assert gradgradcheck(push, (x, t))


def test_linearize_errors_match_torch():
    x = rng().standard_normal(3)
    for L in LIBS:
        _, jvp_fn = L.func.linearize(lambda x: x * x, make(L, x))
        with pytest.raises(RuntimeError, match="shape"):
            jvp_fn(make(L, x[:2]))
        with pytest.raises(RuntimeError, match="dtype"):
            jvp_fn(make(L, x.astype(np.float32)))
        with pytest.raises(RuntimeError, match="argspec"):
            jvp_fn(make(L, x), make(L, x))


# ---------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_jacobians_match_torch_for_pytree_outputs_and_argnums(jac, argnums):
    a, b = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: getattr(L.func, jac)(many_outputs, argnums=argnums)(make(L, a), make(L, b)))


@pytest.mark.parametrize("jac, shape", [("jacrev", ()), ("jacrev", (2, 3)), ("jacrev", (0,)),
                                        ("jacfwd", ()), ("jacfwd", (2, 3))])
def test_jacobians_match_torch_for_each_shape(jac, shape):
    # (torch's jacfwd fails on an empty input, selecting from an empty basis; pyad's
    # jacfwd gives the empty Jacobian jacrev gives.)
    x = rng().standard_normal(shape)
    both(lambda L: getattr(L.func, jac)(lambda x: (x.exp() * x.sum()).reshape(-1))(make(L, x)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_of_dict_inputs_has_aux_float32_match_torch(jac):
    w = rng(1).standard_normal((2, 3))
    both(lambda L: getattr(L.func, jac)(lambda p: (p["w"].tanh() @ p["v"], p["v"] * 2),
                                        has_aux=True)({"w": make(L, w), "v": make(L, w[0])}))
    f32 = w.astype(np.float32)
    both(lambda L: getattr(L.func, jac)(lambda x: x.sin())(make(L, f32)), rtol=1e-6)


def test_jacrev_chunk_size_gives_the_same_jacobian_as_torch():
    x = rng().standard_normal(5)
    for chunk in (1, 2, 10):
        both(lambda L: L.func.jacrev(lambda x: x.sin() * x.sum(), chunk_size=chunk)(make(L, x)))


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_hessian_and_nested_jacobians_match_torch(argnums):
    a, b = rng(1).standard_normal(3), rng(2).standard_normal(3)
    both(lambda L: L.func.hessian(two_args, argnums=argnums)(make(L, a), make(L, b)))
    both(lambda L: L.func.jacrev(L.func.jacrev(two_args, argnums), argnums)(make(L, a),
                                                                              make(L, b)))
    both(lambda L: L.func.jacfwd(L.func.jacfwd(two_args, argnums), argnums)(make(L, a),
                                                                              make(L, b)))


def test_jacobian_results_require_grad_like_torch_and_pass_gradgradcheck():
    x = rng().standard_normal(3)
    both(lambda L: L.func.jacrev(lambda x: x.sin() * x)(make(L, x, True)))
    both(lambda L: L.func.jacfwd(lambda x: x.sin() * x)(make(L, x, True)))
    xp = make(pyad, x, True)
    assert gradcheck(pyad.func.jacrev(lambda x: x.sin() * x.sum()), (xp,))
    assert gradgradcheck(pyad.func.jacrev(lambda x: x.sin() * x.sum()), (xp,))
    assert gradcheck(pyad.func.hessian(cubic), (xp,))
    assert gradgradcheck(pyad.func.hessian(cubic), (xp,))
    assert gradcheck(pyad.func.jacfwd(lambda x: x.exp() * x.sum()), (xp,))
    assert gradgradcheck(pyad.func.jacfwd(lambda x: x.exp() * x.sum()), (xp,))


def test_jacobian_errors_match_torch():
    raises_in_both(lambda L: L.func.jacrev(cubic, chunk_size=0), ValueError, "chunk_size")
    for jac in ("jacrev", "jacfwd"):
        raises_in_both(lambda L: getattr(L.func, jac)(lambda x: x)(
            L.ones(2, dtype=L.complex128)), RuntimeError, "real")
    raises_in_both(lambda L: L.func.jacrev(lambda x: x)(make(L, np.arange(3))),
                   RuntimeError, "floating point")
    raises_in_both(lambda L: L.func.jacfwd(lambda x: x)(make(L, np.arange(3))),
                   ValueError, "floating point")
    raises_in_both(lambda L: L.func.jvp(lambda x: x, (make(L, np.arange(3)),),
                                        (make(L, np.arange(3)),)), ValueError, "floating point")
    raises_in_both(lambda L: L.func.jacrev(lambda x: x.long())(make(L, np.ones(2))),
                   RuntimeError, "floating-point")


# ---------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------

def test_vmap_matches_torch_for_in_dims_and_out_dims():
    x, y = rng(1).standard_normal((3, 4)), rng(2).standard_normal((4, 3))
    both(lambda L: L.func.vmap(lambda a: a.sin() * a.sum())(make(L, x)))
    both(lambda L: L.func.vmap(lambda a, b: a * b, in_dims=(0, 1))(make(L, x), make(L, y)))
    both(lambda L: L.func.vmap(lambda a, b: a @ b, in_dims=(0, None))(make(L, x), make(L, y)))
    both(lambda L: L.func.vmap(lambda a: a * 2, in_dims=-1, out_dims=-1)(make(L, x)))
    both(lambda L: L.func.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(make(L, x)))
    both(lambda L: L.func.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(make(L, x).t()))


def test_vmap_of_pytrees_kwargs_and_unbatched_outputs_matches_torch():
    x, y = rng(1).standard_normal((3, 2)), rng(2).standard_normal(2)

    def f(inputs, scale=1.0):
        return {"sum": (inputs["a"] + inputs["b"][0]) * scale, "const": inputs["b"][0] * 2,
                "n": 7}

    both(lambda L: L.func.vmap(f, in_dims=({"a": 0, "b": [None]},),
                               out_dims={"sum": 0, "const": None, "n": None})(
        {"a": make(L, x), "b": [make(L, y)]}, scale=2.0))


def test_nested_vmap_and_float32_match_torch():
    x = rng().standard_normal((2, 3, 4)).astype(np.float32)
    both(lambda L: L.func.vmap(L.func.vmap(lambda a: a.exp().sum()))(make(L, x)), rtol=1e-6)
    both(lambda L: L.func.vmap(L.func.vmap(lambda a, b: a * b, in_dims=(None, 0)),
                               in_dims=(0, None))(make(L, x[0, 0]), make(L, x[0, 0])), rtol=1e-6)


def test_vmap_over_an_empty_batch_matches_torch():
    x = np.ones((0, 3))
    both(lambda L: L.func.vmap(lambda a: (a * 2, a.sum()))(make(L, x)))


def test_gradients_flow_through_vmap_like_torch():
    x, w = rng(1).standard_normal((3, 4)), rng(2).standard_normal(4)

    def scenario(L):
        xs, ws = make(L, x, True), make(L, w, True)
        out = L.func.vmap(lambda row, w: (row.tanh() * w).sum(), in_dims=(0, None))(xs, ws)
        (out ** 2).sum().backward()
        return out, xs.grad, ws.grad

    both(scenario, requires_grad=False)
    xp, wp = make(pyad, x, True), make(pyad, w, True)
    f = pyad.func.vmap(lambda row, w: (row.tanh() * w).sum(), in_dims=(0, None))
    assert gradcheck(f, (xp, wp))
    assert gradgradcheck(f, (xp, wp))


def test_vmap_randomness_follows_torch():
    x = np.ones((3, 2))
    raises_in_both(lambda L: L.func.vmap(lambda a: a + L.randn(2))(make(L, x)), RuntimeError,
                   "randomness error mode")
    raises_in_both(lambda L: L.func.jacfwd(lambda a: a + L.randn(2, dtype=L.float64))(
        make(L, x[0])), RuntimeError, "randomness error mode")
    for L in LIBS:
        L.func.jacfwd(lambda a: a + L.randn(2, dtype=L.float64), randomness="different")(
            make(L, x[0]))
    for L in LIBS:
        L.manual_seed(0)
        same = L.func.vmap(lambda a: a + L.rand(2, dtype=L.float64), randomness="same")(
            make(L, x))
        assert np.all(as_np(same) == as_np(same)[0])
        different = L.func.vmap(lambda a: a + L.rand(2, dtype=L.float64),
                                randomness="different")(make(L, x))
        assert not np.all(as_np(different) == as_np(different)[0])


def test_vmap_refusing_randomness_leaves_the_generator_as_it_was():
    pyad.manual_seed(3)
    expected = pyad.rand(2)
    pyad.manual_seed(3)
    with pytest.raises(RuntimeError):
        pyad.func.vmap(lambda a: a + pyad.rand(2))(pyad.ones(3, 2))
    np.testing.assert_array_equal(pyad.rand(2).data, expected.data)


def test_vmap_errors_match_torch():
    ones = lambda L, *s: L.ones(*s, dtype=L.float64)  # noqa: E731
    cases = [
        (lambda L: L.func.vmap(lambda a, b: a + b)(ones(L, 2), ones(L, 3)), ValueError,
         "same size in the mapped dimension"),
        (lambda L: L.func.vmap(lambda a: a)(3.0), ValueError, "non-Variable arguments"),
        (lambda L: L.func.vmap(lambda a: a)(ones(L, 3), None), ValueError, "non-Variable"),
        (lambda L: L.func.vmap(lambda a: a, in_dims=1)(ones(L, 3)), ValueError,
         "dimensionality 1"),
        (lambda L: L.func.vmap(lambda a: 1.0)(ones(L, 3)), ValueError,
         "must only return Variables"),
        (lambda L: L.func.vmap(lambda a: a, out_dims=None)(L.arange(3.)), ValueError,
         "batched Variable"),
        (lambda L: L.func.vmap(lambda a: a, randomness="x"), RuntimeError, "randomness"),
        (lambda L: L.func.vmap(lambda a: a, chunk_size=0), ValueError, "chunk_size"),
        (lambda L: L.func.vmap(lambda: 1)(), ValueError, "got no inputs"),
        (lambda L: L.func.vmap(lambda a: a, in_dims=[0])(ones(L, 3)), ValueError,
         "expected `in_dims` to be int"),
        (lambda L: L.func.vmap(lambda a: a, in_dims=None)(ones(L, 3)), ValueError,
         "expected `in_dims` to be int"),
        (lambda L: L.func.vmap(lambda a, b: a, in_dims=(0,))(ones(L, 3), ones(L, 3)), ValueError,
         "not compatible with the structure of `inputs`"),
        (lambda L: L.func.vmap(lambda a: a, in_dims=(0.5,))(ones(L, 3)), ValueError,
         "integer dimension or None"),
        (lambda L: L.func.vmap(lambda a: a, in_dims=(None,))(ones(L, 3)), ValueError,
         "at least one Variable"),
        (lambda L: L.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(ones(L, 3)), ValueError,
         "not compatible with the structure of `outputs`"),
        (lambda L: L.func.vmap(lambda a: a, out_dims="a")(ones(L, 3)), ValueError,
         "`out_dims` must be an int"),
        (lambda L: L.func.vmap(lambda a: a, out_dims=2)(ones(L, 3, 2)), IndexError,
         "Dimension out of range"),
    ]
    for scenario, exc, match in cases:
        raises_in_both(scenario, exc, match)


def test_vmap_out_dims_none_returns_an_unbatched_output_like_torch():
    both(lambda L: L.func.vmap(lambda a, b: b * 2, in_dims=(0, None), out_dims=None)(
        L.ones(3, dtype=L.float64), L.ones(2, dtype=L.float64)))


# ---------------------------------------------------------------------------
# Compositions
# ---------------------------------------------------------------------------

_X, _T, _B = rng(1).standard_normal(3), rng(2).standard_normal(3), rng(3).standard_normal((4, 3))
COMPOSITIONS = {
    "grad of jvp": lambda L: L.func.grad(lambda x: L.func.jvp(
        lambda y: y.sin() * y, (x,), (make(L, _T),))[1].sum())(make(L, _X)),
    # The result depends only on the inner jvp's own (finished) inputs and the outer
    # tangent: torch's result does not require grad, nor does pyad's.
    "grad of jvp by the tangent": lambda L: L.func.grad(lambda t: (L.func.jvp(
        lambda y: y.sin() * y, (make(L, _X),), (t,))[1] ** 2).sum())(make(L, _T)),
    "grad of vmap": lambda L: L.func.grad(lambda x: L.func.vmap(
        lambda r: (r * x).sin().sum())(make(L, _B)).sum())(make(L, _X)),
    "jacrev of vmap": lambda L: L.func.jacrev(L.func.vmap(lambda r: r.sin()))(make(L, _B)),
    "vmap of jacrev": lambda L: L.func.vmap(L.func.jacrev(lambda r: r.sin() * r.sum()))(
        make(L, _B)),
    "vmap of hessian": lambda L: L.func.vmap(L.func.hessian(cubic))(make(L, _B)),
    "jvp of grad": lambda L: L.func.jvp(L.func.grad(cubic), (make(L, _X),), (make(L, _T),)),
    "vjp of grad": lambda L: L.func.vjp(L.func.grad(cubic), make(L, _X))[1](make(L, _T)),
    "linearize of grad": lambda L: L.func.linearize(L.func.grad(cubic), make(L, _X))[1](
        make(L, _T)),
    "grad of a leaf inside a dict that requires grad": lambda L: L.func.grad(
        lambda p: (p["a"] * p["b"]).sum())({"a": make(L, _X, True), "b": make(L, _T)}),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_match_torch(name):
    both(COMPOSITIONS[name])


# ---------------------------------------------------------------------------
# Per-sample gradients, functional_call, MAML
# ---------------------------------------------------------------------------

def mlp(L, seed=0):
    """The same two-layer model in pyad and torch (float64 weights from NumPy)."""
    nn = L.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    r = rng(seed)
    with L.no_grad():
        for _, p in model.named_parameters():
            p.copy_(make(L, r.standard_normal(tuple(p.shape))))
    return model


def test_per_sample_gradients_match_torch():
    x, y = rng(1).standard_normal((5, 3)), rng(2).standard_normal((5, 2))

    def scenario(L):
        model = mlp(L)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(params, sample, target):
            out = L.func.functional_call(model, params, (sample.unsqueeze(0),))
            return ((out - target.unsqueeze(0)) ** 2).mean()

        return L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(params, make(L, x),
                                                                    make(L, y))

    both(scenario)


def test_per_sample_gradients_equal_one_grad_per_sample():
    x, y = rng(1).standard_normal((4, 3)), rng(2).standard_normal((4, 2))
    model = mlp(pyad)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, sample, target):
        out = pyad.func.functional_call(model, params, (sample.unsqueeze(0),))
        return ((out - target.unsqueeze(0)) ** 2).mean()

    batched = pyad.func.vmap(pyad.func.grad(loss), in_dims=(None, 0, 0))(
        params, make(pyad, x), make(pyad, y))
    for i in range(4):
        model.zero_grad()
        loss(dict(model.named_parameters()), make(pyad, x[i]), make(pyad, y[i])).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(batched[name].data[i], p.grad.data, rtol=RTOL, atol=ATOL)


def test_functional_call_matches_torch_and_restores_the_module():
    x = rng(1).standard_normal((2, 3))
    replacement = {"0.weight": rng(2).standard_normal((4, 3)), "2.bias": rng(3).standard_normal(2)}

    def scenario(L):
        model = mlp(L)
        before = {k: v for k, v in model.named_parameters()}
        params = {k: make(L, v, True) for k, v in replacement.items()}
        out = L.func.functional_call(model, params, make(L, x))
        out.sum().backward()
        after = dict(model.named_parameters())
        assert all(after[k] is before[k] for k in before)
        assert all(p.grad is None for p in model.parameters() if p is before["0.weight"])
        return out, params["0.weight"].grad, params["2.bias"].grad, model(make(L, x))

    both(scenario, requires_grad=False)


def test_functional_call_with_a_sequence_of_dicts_kwargs_and_buffers_matches_torch():
    x = rng(1).standard_normal((4, 3))

    def scenario(L):
        bn = L.nn.BatchNorm1d(3).double()
        bn.eval()
        params = {"weight": make(L, np.full(3, 2.0)), "bias": make(L, np.ones(3))}
        buffers = {"running_mean": make(L, np.full(3, 0.5)),
                   "running_var": make(L, np.full(3, 4.0))}
        out = L.func.functional_call(bn, (params, buffers), args=(), kwargs={"input": make(L, x)})
        return out, bn.running_mean, bn.weight

    both(scenario, requires_grad=False)


def test_functional_call_hands_back_buffers_the_call_updated_like_torch():
    x = rng(1).standard_normal((4, 3))

    def batch_norm(L):
        bn = L.nn.BatchNorm1d(3).double()              # training mode: updates its buffers
        buffers = {"running_mean": make(L, np.zeros(3)), "running_var": make(L, np.ones(3)),
                   "num_batches_tracked": make(L, np.array(0))}
        out = L.func.functional_call(bn, buffers, make(L, x))
        return out, buffers, bn.running_mean, bn.num_batches_tracked

    both(batch_norm, requires_grad=False)

    def reassigning(L):
        class Counter(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("count", L.zeros((), dtype=L.float64))

            def forward(self, x):
                self.count = self.count + 1                # rebinds the attribute
                return x + self.count

        module = Counter()
        given = {"count": make(L, np.array(5.0))}
        out = L.func.functional_call(module, given, make(L, x))
        return out, given, module.count

    both(reassigning, requires_grad=False)


def test_functional_call_gradients_pass_gradcheck_and_gradgradcheck():
    x = make(pyad, rng(1).standard_normal((2, 3)))
    model = mlp(pyad)
    weight = make(pyad, rng(2).standard_normal((4, 3)), True)
    bias = make(pyad, rng(3).standard_normal(2), True)

    def call(weight, bias):
        return pyad.func.functional_call(model, {"0.weight": weight, "2.bias": bias}, x)

    assert gradcheck(call, (weight, bias))
    assert gradgradcheck(call, (weight, bias))


def test_functional_call_restores_the_module_when_the_call_raises():
    for L in LIBS:
        model = mlp(L)
        weight = model[0].weight
        with pytest.raises(RuntimeError):
            L.func.functional_call(model, {"0.weight": L.ones(4, 3, dtype=L.float64)},
                                   (L.ones(2, 5, dtype=L.float64),))
        assert model[0].weight is weight


def test_functional_call_tie_weights_and_strict_match_torch():
    x = rng(1).standard_normal((2, 3))

    def tied(L):
        model = L.nn.Sequential(L.nn.Linear(3, 3, bias=False), L.nn.Linear(3, 3, bias=False))
        model = model.double()
        model[1].weight = model[0].weight
        with L.no_grad():
            model[0].weight.copy_(make(L, rng(5).standard_normal((3, 3))))
        return model

    new = rng(2).standard_normal((3, 3))
    both(lambda L: L.func.functional_call(tied(L), {"0.weight": make(L, new)}, make(L, x)),
         requires_grad=False)
    both(lambda L: L.func.functional_call(tied(L), {"0.weight": make(L, new)}, make(L, x),
                                          tie_weights=False), requires_grad=False)
    raises_in_both(lambda L: L.func.functional_call(
        tied(L), {"0.weight": make(L, new), "1.weight": make(L, new)}, make(L, x)),
        ValueError, "which are tied")
    raises_in_both(lambda L: L.func.functional_call(
        mlp(L), {"0.weight": make(L, new)}, make(L, x), strict=True), RuntimeError,
        "Missing key")
    raises_in_both(lambda L: L.func.functional_call(
        mlp(L), {k: v for k, v in mlp(L).named_parameters()} | {"extra": make(L, new)},
        make(L, x), strict=True), RuntimeError, "Unexpected key")
    raises_in_both(lambda L: L.func.functional_call(mlp(L), [{"a": 1}, {"a": 2}], make(L, x)),
                   ValueError, "multiple dictionaries")
    raises_in_both(lambda L: L.func.functional_call(mlp(L), [{"a": 1}, 3], make(L, x)),
                   ValueError, "dictionaries")
    raises_in_both(lambda L: L.func.functional_call(mlp(L), 3, make(L, x)), ValueError,
                   "to be a dict")


def test_hessian_of_functional_call_matches_torch():
    x = rng(1).standard_normal((4, 3))

    def scenario(L):
        model = mlp(L)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def f(bias):
            return (L.func.functional_call(model, {**params, "2.bias": bias}, make(L, x))
                    ** 2).sum()

        return L.func.hessian(f)(params["2.bias"])

    both(scenario)


def test_per_sample_gradients_of_parameters_that_require_grad_match_torch():
    x = rng(1).standard_normal((4, 3))

    def scenario(L):
        model = mlp(L)

        def loss(params, sample):
            return (L.func.functional_call(model, params, (sample.unsqueeze(0),)) ** 2).sum()

        return L.func.vmap(L.func.grad(loss), in_dims=(None, 0))(
            dict(model.named_parameters()), make(L, x))

    both(scenario)


def test_maml_step_through_functional_call_matches_torch():
    x, y = rng(1).standard_normal((4, 3)), rng(2).standard_normal((4, 2))
    xq, yq = rng(3).standard_normal((4, 3)), rng(4).standard_normal((4, 2))

    def scenario(L):
        model = mlp(L)
        params = dict(model.named_parameters())

        def loss(params, x, y):
            return ((L.func.functional_call(model, params, x) - y) ** 2).mean()

        grads = L.func.grad(loss)(params, make(L, x), make(L, y))
        adapted = {k: params[k] - 0.1 * grads[k] for k in params}
        meta_loss = loss(adapted, make(L, xq), make(L, yq))
        meta_loss.backward()
        return meta_loss, {k: p.grad for k, p in model.named_parameters()}

    both(scenario, requires_grad=False)


def test_the_module_is_registered_as_torch_func_is():
    assert pyad.func is pyad.func.__class__ or pyad.func.__name__ == "pyad.func"
    assert "func" in pyad.__all__
    assert set(pyad.func.__all__) <= set(dir(torch.func))


def test_autograd_functional_in_another_thread_is_not_refused_by_a_transform():
    # the running-transform stack is per thread, as grad mode: a worker thread started
    # inside a transformed function is not inside the transform
    import threading
    from pyad.autograd import functional as AF
    seen = {}

    def f(x):
        def work():
            seen["jac"] = AF.jacobian(lambda y: y.sin(), pyad.tensor([0.0], dtype=pyad.float64))
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
        return x.sin().sum()

    g = pyad.func.grad(f)(pyad.tensor([0.0, 1.0], dtype=pyad.float64))
    assert g.tolist() == [1.0, pytest.approx(0.5403023058681398)]
    assert seen["jac"].tolist() == [[1.0]]


def test_requires_grad_made_by_pyad_inside_a_transform_is_allowed():
    # torch.func refuses Variable.requires_grad_() and retain_grad() written in the
    # transformed function (the ported torch tests check that), but not Variables made
    # requiring grad by factories, Parameter or assignment to .requires_grad there, nor
    # pyad.autograd.functional (with create_graph=True) or nested transforms.
    from pyad.func import grad, vmap, jacrev

    def f(x):
        w = pyad.randn(3, requires_grad=True, dtype=pyad.float64)
        p = pyad.nn.Parameter(pyad.ones(3, dtype=pyad.float64))
        c = pyad.zeros(3, dtype=pyad.float64)
        c.requires_grad = True
        h = pyad.autograd.functional.jacobian(lambda t: t.sin(), x, create_graph=True)
        return (x * w.detach() * p + c).sum() + h.diagonal().sum()

    x = pyad.tensor([0.1, 0.2, 0.3], dtype=pyad.float64)
    g = grad(f)(x)
    assert g.shape == (3,)
    assert vmap(grad(lambda t: (t.sin() * 2).sum()))(x.reshape(3, 1)).shape == (3, 1)
    assert jacrev(grad(lambda t: (t ** 3).sum()))(x).shape == (3, 3)
    with pytest.raises(RuntimeError, match=r"Variable\.requires_grad_\(\).*vmap"):
        vmap(lambda t: pyad.zeros(2).requires_grad_())(x)
    with pytest.raises(RuntimeError, match=r"Module|requires_grad_"):
        grad(lambda t: (pyad.nn.Linear(3, 1).double().requires_grad_(False)(t)).sum())(x)
    # outside a transform the method is as before, and the stack is left empty
    y = pyad.zeros(2).requires_grad_()
    assert y.requires_grad
    assert pyad.func._ACTIVE.stack == []


def test_functional_without_create_graph_is_allowed_under_vmap_only():
    from pyad.func import grad, vmap
    from pyad.autograd.functional import jacobian
    x = pyad.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=pyad.float64)
    out = vmap(lambda r: jacobian(lambda t: t.exp(), r))(x)
    np.testing.assert_allclose(out.data, np.stack([np.diag(np.exp(r)) for r in x.data]))
    with pytest.raises(RuntimeError, match="create_graph"):
        grad(lambda r: jacobian(lambda t: t.exp(), r).sum())(x[0])


def _twin_linear_models(n, seed=0):
    # n pairs of (pyad, torch) Linear(3, 2) models with the same weights
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        w, b = rng.standard_normal((2, 3)), rng.standard_normal(2)
        pm, tm = pyad.nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
        with pyad.no_grad():
            pm.weight.copy_(pyad.tensor(w))
            pm.bias.copy_(pyad.tensor(b))
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(w))
            tm.bias.copy_(torch.tensor(b))
        pairs.append((pm, tm))
    return pairs


def test_make_functional_family_matches_functorch():
    functorch = pytest.importorskip("functorch")
    import warnings
    x0 = np.random.default_rng(1).standard_normal((5, 3))
    (pm, tm), = _twin_linear_models(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # functorch's deprecation warnings
        tf, tparams = functorch.make_functional(tm)
        tg = functorch.grad(lambda p: (tf(p, torch.tensor(x0)) ** 2).sum())(tparams)
    pf, pparams = pyad.func.make_functional(pm)
    pg = pyad.func.grad(lambda p: (pf(p, pyad.tensor(x0)) ** 2).sum())(pparams)
    for a, b in zip(pg, tg):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    assert all(p.requires_grad and p.is_leaf for p in pparams)
    assert pparams[0] is not pm.weight              # a copy's: the model is untouched
    _, frozen = pyad.func.make_functional(pm, disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in frozen) and pm.weight.requires_grad
    with pytest.raises(RuntimeError, match="make_functional_with_buffers"):
        pyad.func.make_functional(pyad.nn.BatchNorm1d(3))
    with pytest.raises(RuntimeError, match="expected 2"):
        pf(pparams[:1], pyad.tensor(x0))

    # with buffers: a BatchNorm in training mode updates the copy's running stats
    bn_p, bn_t = pyad.nn.BatchNorm1d(3).double(), torch.nn.BatchNorm1d(3).double()
    fp, pp, pb = pyad.func.make_functional_with_buffers(bn_p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ft, tp, tb = functorch.make_functional_with_buffers(bn_t)
    assert len(pp) == len(tp) == 2 and len(pb) == len(tb) == 3
    np.testing.assert_allclose(fp(pp, pb, pyad.tensor(x0)).detach().numpy(),
                               ft(tp, tb, torch.tensor(x0)).detach().numpy(), rtol=1e-12)

    # an ensemble: stacked detached state, run through vmap
    pairs = _twin_linear_models(4, seed=2)
    fe, ep, eb = pyad.func.combine_state_for_ensemble([p for p, _ in pairs])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        te, tep, teb = functorch.combine_state_for_ensemble([t for _, t in pairs])
        t_out = functorch.vmap(te, (0, 0, None))(tep, teb, torch.tensor(x0))
    p_out = pyad.func.vmap(fe, (0, 0, None))(ep, eb, pyad.tensor(x0))
    assert tuple(ep[0].shape) == (4, 2, 3) and not ep[0].requires_grad and eb == ()
    np.testing.assert_allclose(p_out.numpy(), t_out.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="at least one model"):
        pyad.func.combine_state_for_ensemble([])
    with pytest.raises(RuntimeError, match="same class"):
        pyad.func.combine_state_for_ensemble([pyad.nn.Linear(3, 2), pyad.nn.Linear(3, 2),
                                              pyad.nn.Identity()])
    mixed = [pyad.nn.Linear(3, 2), pyad.nn.Linear(3, 2).eval()]
    with pytest.raises(RuntimeError, match="training/eval"):
        pyad.func.combine_state_for_ensemble(mixed)
