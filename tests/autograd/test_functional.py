"""pyad.autograd.functional: values by hand, structures and errors, and the same
functions through torch.autograd.functional (skipped when torch is absent)."""
import doctest
import importlib.util

import numpy as np
import pytest

import pyad
from pyad.autograd import functional as F

HAVE_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
RTOL, ATOL = 1e-10, 1e-12


def V(data, requires_grad=False):
    return pyad.Variable(np.asarray(data, dtype=np.float64), requires_grad=requires_grad)


def data(shape, seed):
    return np.random.default_rng(seed).uniform(0.5, 1.5, size=shape)


# --- Functions written once, run on pyad Variables and torch tensors ------------

def nonscalar(x):                       # one input, one (2, 3) output
    return x.exp() * x.sum()


def multi(a, b):                        # two inputs, two outputs of other shapes
    return a * b.sum(), (a @ b).tanh()


def unused(a, b):                       # b is not used
    return (a * a).sum()


def scalar(x):                          # scalar, for hessian / vhp / hvp
    return (x ** 3).sum() + (x.tanh() * x).sum()


def scalar2(a, b):                      # scalar of two inputs, mixed second derivatives
    return (a * a * b).sum() + (a.exp() * b).sum()


def scalar_unused(a, b):
    return (a ** 3).sum()


# name -> (function, input shapes, output shapes)
CASES = {
    "nonscalar": (nonscalar, [(2, 3)], [(2, 3)]),
    "multi": (multi, [(2, 3), (3, 2)], [(2, 3), (2, 2)]),
    "unused": (unused, [(3,), (2,)], [()]),
}
SCALAR_CASES = {
    "scalar": (scalar, [(2, 2)]),
    "scalar2": (scalar2, [(3,), (3,)]),
    "scalar_unused": (scalar_unused, [(2,), (3,)]),
}


def arguments(shapes, seed=0, as_tuple=None):
    arrays = [data(shape, seed + i) for i, shape in enumerate(shapes)]
    if as_tuple is None:
        as_tuple = len(arrays) > 1
    return arrays, as_tuple


def pack(arrays, make, as_tuple):
    values = tuple(make(a) for a in arrays)
    return values if as_tuple else values[0]


def assert_same(ours, theirs):
    """Same nesting of tuples; each leaf the same shape and values (torch or ndarray)."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (ours, theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t)
        return
    assert isinstance(ours, pyad.Variable), type(ours)
    expected = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    assert tuple(ours.shape) == tuple(expected.shape)
    np.testing.assert_allclose(ours.detach().numpy(), expected, rtol=RTOL, atol=ATOL)


def both(name, fn_name, case, vectors=None, **kwargs):
    """Run ``fn_name`` on pyad and torch for ``case`` and compare."""
    import torch
    func, shapes = case[0], case[1]
    arrays, as_tuple = arguments(shapes)
    ours_in = pack(arrays, V, as_tuple)
    theirs_in = pack(arrays, torch.tensor, as_tuple)
    extra_ours, extra_theirs = (), ()
    if vectors is not None:
        vs, v_tuple = vectors
        extra_ours = (pack(vs, V, v_tuple),)
        extra_theirs = (pack(vs, torch.tensor, v_tuple),)
    ours = getattr(F, fn_name)(func, ours_in, *extra_ours, **kwargs)
    theirs = getattr(torch.autograd.functional, fn_name)(func, theirs_in, *extra_theirs, **kwargs)
    assert_same(ours, theirs)
    return ours


# --- Against torch.autograd.functional ------------------------------------------

@needs_torch
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_jacobian_matches_torch(name, vectorize):
    both(name, "jacobian", CASES[name], vectorize=vectorize)


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_matches_torch(name):
    _, _, out_shapes = CASES[name]
    vs = [data(s, 10 + i) for i, s in enumerate(out_shapes)]
    both(name, "vjp", CASES[name], (vs, len(vs) > 1))


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_torch(name):
    _, in_shapes, _ = CASES[name]
    vs = [data(s, 20 + i) for i, s in enumerate(in_shapes)]
    both(name, "jvp", CASES[name], (vs, len(vs) > 1))


@needs_torch
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_hessian_matches_torch(name, vectorize):
    both(name, "hessian", SCALAR_CASES[name], vectorize=vectorize)


@needs_torch
@pytest.mark.parametrize("fn_name", ["vhp", "hvp"])
@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_vhp_hvp_match_torch(name, fn_name):
    _, in_shapes = SCALAR_CASES[name]
    vs = [data(s, 30 + i) for i, s in enumerate(in_shapes)]
    both(name, fn_name, SCALAR_CASES[name], (vs, len(vs) > 1))


@needs_torch
def test_single_tensor_in_tuple_keeps_tuple_structure_like_torch():
    import torch
    x = data((3,), 0)
    ours = F.jacobian(lambda x: (x * x,), (V(x),))
    theirs = torch.autograd.functional.jacobian(lambda x: (x * x,), (torch.tensor(x),))
    assert_same(ours, theirs)
    ours = F.hessian(lambda x: (x ** 3).sum(), (V(x),))
    theirs = torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), (torch.tensor(x),))
    assert_same(ours, theirs)


@needs_torch
@pytest.mark.parametrize("fn_name", ["jacobian", "hessian"])
def test_create_graph_result_differentiates_like_torch(fn_name):
    import torch
    arrays = [data((3,), 1), data((3,), 2)]
    a, b = (V(x, requires_grad=True) for x in arrays)
    ta, tb = (torch.tensor(x, requires_grad=True) for x in arrays)
    func = scalar2 if fn_name == "hessian" else multi_vector
    ours = getattr(F, fn_name)(func, (a, b), create_graph=True)
    theirs = getattr(torch.autograd.functional, fn_name)(func, (ta, tb), create_graph=True)
    assert_same(ours, theirs)
    total = sum(((block * block).sum() for row in ours for block in row), V(0.0))
    ttotal = sum((block * block).sum() for row in theirs for block in row)
    assert_same(pyad.autograd.grad(total, (a, b)), torch.autograd.grad(ttotal, (ta, tb)))


def multi_vector(a, b):
    return a * b * b, (a.exp() * b).sum()


@needs_torch
@pytest.mark.parametrize("fn_name", ["vjp", "jvp", "vhp", "hvp"])
def test_create_graph_products_differentiate_like_torch(fn_name):
    import torch
    x = data((3,), 3)
    v = data((3,), 4)
    xv = V(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    func = (lambda x: (x ** 3).sum() * x.tanh().sum()) if fn_name in ("vhp", "hvp") else \
        (lambda x: x.exp() * x.sum())
    out, res = getattr(F, fn_name)(func, xv, V(v), create_graph=True)
    tout, tres = getattr(torch.autograd.functional, fn_name)(func, tx, torch.tensor(v),
                                                             create_graph=True)
    assert_same((out, res), (tout, tres))
    assert res.requires_grad and out.requires_grad
    assert_same(pyad.autograd.grad((res * res).sum(), xv), torch.autograd.grad((tres * tres).sum(), tx))


@needs_torch
def test_function_capturing_its_input_treats_the_capture_as_constant_like_torch():
    import torch
    x = data((3,), 5)
    xv, tx = V(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = F.jacobian(lambda y: y * xv, xv)
    theirs = torch.autograd.functional.jacobian(lambda y: y * tx, tx)
    assert_same(ours, theirs)


# --- Values by hand ------------------------------------------------------------

def test_jacobian_by_hand_multi_input_multi_output_with_unused_input():
    a, b = V([1.0, 2.0]), V([3.0, 4.0, 5.0])
    jac = F.jacobian(lambda a, b: (a * a, b.sum() * 2, a.sum()), (a, b))
    assert len(jac) == 3 and all(len(row) == 2 for row in jac)
    assert_same(jac[0], (np.diag([2.0, 4.0]), np.zeros((2, 3))))
    assert_same(jac[1], (np.zeros(2), np.full(3, 2.0)))
    assert_same(jac[2], (np.ones(2), np.zeros(3)))


def test_jacobian_single_in_single_out_is_one_variable_of_output_then_input_shape():
    x = V([[1.0, 2.0, 3.0]])
    jac = F.jacobian(lambda x: x.sum(1) * 2, x)
    assert isinstance(jac, pyad.Variable)
    assert_same(jac, np.full((1, 1, 3), 2.0))


def test_hessian_by_hand():
    a, b = V([1.0, 2.0]), V([3.0, 5.0])
    # f = sum(a^2 b): d2f/da2 = diag(2b), d2f/dadb = diag(2a), d2f/db2 = 0
    hes = F.hessian(lambda a, b: (a * a * b).sum(), (a, b))
    assert_same(hes, ((np.diag([6.0, 10.0]), np.diag([2.0, 4.0])),
                      (np.diag([2.0, 4.0]), np.zeros((2, 2)))))


def test_vjp_jvp_vhp_hvp_by_hand():
    x = V([1.0, 2.0])
    out, res = F.vjp(lambda x: x * x * x, x, V([1.0, 10.0]))      # 3x^2 * v
    assert_same((out, res), (np.array([1.0, 8.0]), np.array([3.0, 120.0])))
    out, res = F.jvp(lambda x: (x * x).sum(), x, V([1.0, 10.0]))  # 2x . v
    assert_same((out, res), (np.array(5.0), np.array(42.0)))
    # f = x0^2 x1: H = [[2 x1, 2 x0], [2 x0, 0]] = [[4, 2], [2, 0]]
    f = lambda x: x[0] * x[0] * x[1]
    assert_same(F.vhp(f, x, V([1.0, 10.0])), (np.array(2.0), np.array([24.0, 2.0])))
    assert_same(F.hvp(f, x, V([1.0, 10.0])), (np.array(2.0), np.array([24.0, 2.0])))


def test_v_may_be_omitted_for_one_element():
    x = V([2.0])
    assert_same(F.vjp(lambda x: x * x, x), (np.array([4.0]), np.array([4.0])))
    assert_same(F.jvp(lambda x: x * x, x), (np.array([4.0]), np.array([4.0])))
    assert_same(F.vhp(lambda x: (x ** 3).sum(), x)[1], np.array([12.0]))
    assert_same(F.hvp(lambda x: (x ** 3).sum(), x)[1], np.array([12.0]))


def test_unused_input_gets_zeros_when_not_strict():
    a, b = V([1.0, 2.0]), V([[1.0, 2.0, 3.0]])
    _, (ga, gb) = F.vjp(unused, (a, b))
    assert_same((ga, gb), (np.array([2.0, 4.0]), np.zeros((1, 3))))
    _, (ha, hb) = F.hvp(scalar_unused, (a, b), (V([1.0, 1.0]), V([[1.0, 1.0, 1.0]])))
    assert_same((ha, hb), (np.array([6.0, 12.0]), np.zeros((1, 3))))
    jvp_out = F.jvp(lambda a, b: (a * 2, b * 0 + 1), (a, b), (V([1.0, 1.0]), V([[1.0] * 3])))[1]
    assert_same(jvp_out, (np.array([2.0, 2.0]), np.zeros((1, 3))))


def test_vectorize_gives_identical_results():
    a, b = V(data((2, 3), 0)), V(data((3, 2), 1))
    plain = F.jacobian(multi, (a, b))
    batched = F.jacobian(multi, (a, b), vectorize=True)
    for row_p, row_b in zip(plain, batched):
        for p, q in zip(row_p, row_b):
            assert np.array_equal(p.numpy(), q.numpy())


def test_results_are_detached_without_create_graph_even_for_inputs_requiring_grad():
    x = V([1.0, 2.0], requires_grad=True)
    for fn_name in ("vjp", "jvp", "vhp", "hvp"):
        out, res = getattr(F, fn_name)(lambda x: (x ** 3).sum(), x, V([1.0, 1.0])) \
            if fn_name != "vjp" else F.vjp(lambda x: (x ** 3).sum(), x)
        assert not out.requires_grad and not res.requires_grad, fn_name
    assert not F.jacobian(lambda x: x * x, x).requires_grad
    assert not F.hessian(lambda x: (x ** 3).sum(), x).requires_grad


def test_works_under_no_grad():
    x = V([1.0, 2.0], requires_grad=True)
    with pyad.no_grad():
        assert_same(F.jacobian(lambda x: x * x, x), np.diag([2.0, 4.0]))
        assert_same(F.hessian(lambda x: (x ** 3).sum(), x), np.diag([6.0, 12.0]))
        assert_same(F.jvp(lambda x: x * x, x, V([1.0, 1.0]))[1], np.array([2.0, 4.0]))
    assert pyad.is_grad_enabled()


def test_create_graph_hessian_differentiates_to_third_derivative():
    x = V([1.0, 2.0], requires_grad=True)
    hes = F.hessian(lambda x: (x ** 4).sum(), x, create_graph=True)   # diag(12 x^2)
    assert_same(hes, np.diag([12.0, 48.0]))
    (third,) = pyad.autograd.grad(hes.sum(), x)                        # 24 x
    assert_same(third, np.array([24.0, 48.0]))


# --- Errors ----------------------------------------------------------------------

def test_strict_errors_for_independent_outputs():
    a, b = V([1.0, 2.0]), V([3.0])
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        F.jacobian(unused, (a, b), strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed in strict mode"):
        F.vjp(unused, (a, b), strict=True)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is independent of input 1"):
        F.hvp(scalar_unused, (a, b), (V([1.0, 1.0]), V([1.0])), strict=True)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect to input 1 is independent"):
        F.vhp(lambda a, b: (a ** 3).sum() + b.sum(), (a, b), (V([1.0, 1.0]), V([1.0])), strict=True)


def test_strict_errors_for_outputs_not_requiring_grad():
    x = V([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require gradients"):
        F.jacobian(lambda x: pyad.ones(2), x, strict=True)
    with pytest.raises(RuntimeError, match="Output 1 of the user-provided function does not require gradients"):
        F.vjp(lambda x: (x.sum(), pyad.ones(())), x, (V(1.0), V(1.0)), strict=True)
    assert_same(F.jacobian(lambda x: pyad.ones(2), x), np.zeros((2, 2)))


def test_strict_hessian_of_linear_function_is_refused():
    x = V([1.0, 2.0])
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect to input 0 is independent"):
        F.hessian(lambda x: (x * 3).sum(), x, strict=True)
    assert_same(F.hessian(lambda x: (x * 3).sum(), x), np.zeros((2, 2)))


def test_strict_with_vectorize_is_refused_like_torch():
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorize=True` are not supported together"):
        F.jacobian(lambda x: x * x, V([1.0]), strict=True, vectorize=True)


def test_forward_mode_strategies_follow_torch():
    x = V([1.0, 2.0])
    # forward mode needs vectorize=True, and refuses create_graph and strict (torch)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(lambda x: x * x, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and `strategy="):
        F.jacobian(lambda x: x * x, x, strategy="forward-mode", vectorize=True,
                   create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `strategy="):
        F.jacobian(lambda x: x * x, x, strategy="forward-mode", vectorize=True, strict=True)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.hessian(lambda x: (x * x).sum(), x, outer_jacobian_strategy="forward-mode")
    assert_same(F.jacobian(lambda x: x * x, x, strategy="forward-mode", vectorize=True),
                np.diag([2.0, 4.0]))
    assert_same(F.hessian(lambda x: (x ** 3).sum(), x, vectorize=True,
                          outer_jacobian_strategy="forward-mode"), np.diag([6.0, 12.0]))
    # an unknown strategy is an AssertionError in torch
    with pytest.raises(AssertionError, match="reverse-mode"):
        F.jacobian(lambda x: x * x, x, strategy="sideways")
    with pytest.raises(AssertionError, match="reverse-mode"):
        F.hessian(lambda x: (x * x).sum(), x, outer_jacobian_strategy="sideways")


def test_bad_arguments_raise_clear_errors():
    x = V([1.0, 2.0])
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a Variable or a tuple"):
        F.jacobian(lambda x: x, np.ones(2))
    with pytest.raises(TypeError, match="value at index 1 has type"):
        F.vjp(lambda a, b: a, (x, 3.0))
    with pytest.raises(TypeError, match="outputs of the user-provided function given to vjp"):
        F.vjp(lambda x: 3.0, x)
    with pytest.raises(RuntimeError, match="v can only be None if the user-provided function returns a single"):
        F.vjp(lambda x: x * 2, x)
    with pytest.raises(RuntimeError, match="v can only be None if the input"):
        F.jvp(lambda x: x * 2, x)
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be \(2,\) but got \(3,\)"):
        F.vjp(lambda x: x * 2, x, V([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="Entry 1 in v has invalid size"):
        F.jvp(lambda a, b: a * b, (x, x), (V([1.0, 1.0]), V([1.0])))
    with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
        F.jvp(lambda a, b: a * b, (x, x), (V([1.0, 1.0]),))
    with pytest.raises(RuntimeError, match="should return a single Variable"):
        F.hessian(lambda x: (x.sum(), x.sum()), x)
    with pytest.raises(RuntimeError, match="function given to hvp should contain a single element"):
        F.hvp(lambda x: x * x, x, V([1.0, 1.0]))


def test_exported_from_pyad_autograd():
    assert pyad.autograd.functional is F
    assert {"vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"} <= set(F.__all__)


def test_docstring_examples_run():
    globs = dict(vars(F), numpy=np, np=np, pyad=pyad)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(F, globs=globs):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 10


def test_create_graph_results_pass_gradcheck():
    from pyad.autograd import gradcheck
    x = V(data((3,), 7), requires_grad=True)
    assert gradcheck(lambda x: F.jacobian(lambda x: x.exp() * x.sum(), x, create_graph=True), (x,))
    assert gradcheck(lambda x: F.hessian(lambda x: (x ** 3).sum() * x.tanh().sum(), x,
                                         create_graph=True), (x,))
    v = V(data((3,), 8))
    assert gradcheck(lambda x: F.jvp(lambda x: x.exp() * x.sum(), x, v, create_graph=True)[1], (x,))
    assert gradcheck(lambda x: F.hvp(lambda x: (x ** 3).sum() * x.sum(), x, v,
                                     create_graph=True)[1], (x,))


def test_strict_create_graph_refuses_a_constant_jacobian():
    x = V([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="The jacobian of the user-provided function is independent of "
                                           "input 0. This is not allowed in strict mode when create_graph=True"):
        F.jacobian(lambda x: x * 2, x, create_graph=True, strict=True)
    with pytest.raises(RuntimeError, match="when create_graph=True"):
        F.vjp(lambda x: x * 2, x, V([1.0, 1.0]), create_graph=True, strict=True)
