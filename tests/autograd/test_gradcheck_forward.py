"""gradcheck's forward mode (``check_forward_ad=True``, ``check_batched_forward_grad``,
``gradgradcheck(check_fwd_over_rev=True)``): the Jacobian computed with
``pyad.autograd.forward_ad`` (one one-hot tangent per input element, or a random one in
fast mode) against finite differences, as torch's gradcheck. Every scenario runs on pyad
and, where torch is installed, on torch with the same inputs: both must pass, or both
must fail with torch's message."""

import numpy as np
import pytest

import pyad
from _torch_compare import LIBS, as_np

LIB_IDS = [lib.__name__ for lib in LIBS]


def _gradcheck(lib):
    return lib.autograd.gradcheck


def _gradgradcheck(lib):
    return lib.autograd.gradgradcheck


def _inputs(lib, arrays):
    """Fresh leaves of ``lib`` (requiring grad) holding copies of ``arrays``."""
    out = []
    for a in arrays:
        if lib is pyad:
            out.append(pyad.Variable(np.array(a), requires_grad=True))
        else:
            out.append(lib.tensor(np.array(a), requires_grad=True))
    return tuple(out)


def _rand(shape, seed, low=0.5, high=1.5):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def _crand(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, size=shape) + 1j * rng.uniform(-1, 1, size=shape)


# (name, function of lib returning func, input arrays)
CASES = [
    ("sin", lambda m: m.sin, [_rand((3, 2), 0)]),
    ("exp", lambda m: m.exp, [_rand((4,), 1)]),
    ("log", lambda m: m.log, [_rand((2, 3), 2)]),
    ("tanh", lambda m: m.tanh, [_rand((5,), 3)]),
    ("sigmoid", lambda m: m.sigmoid, [_rand((2, 2), 4)]),
    ("sqrt", lambda m: m.sqrt, [_rand((3,), 5)]),
    ("pow", lambda m: lambda x, y: x ** y, [_rand((3,), 6), _rand((3,), 7)]),
    ("add_broadcast", lambda m: lambda x, y: x + y, [_rand((2, 3), 8), _rand((3,), 9)]),
    ("mul_broadcast", lambda m: lambda x, y: x * y, [_rand((2, 1, 3), 10), _rand((4, 1), 11)]),
    ("div_broadcast", lambda m: lambda x, y: x / y, [_rand((2, 3), 12), _rand((2, 1), 13)]),
    ("sub_two_outputs", lambda m: lambda x, y: (x - y, x * 2), [_rand((3,), 14), _rand((3,), 15)]),
    ("sum_dim", lambda m: lambda x: x.sum(1), [_rand((3, 4), 16)]),
    ("mean", lambda m: lambda x: x.mean(), [_rand((2, 3), 17)]),
    ("prod", lambda m: lambda x: x.prod(0), [_rand((3, 2), 18)]),
    ("amax", lambda m: lambda x: x.amax(1), [np.array([[0.5, 1.5, 1.0], [2.0, 0.1, 0.7]])]),
    ("matmul", lambda m: m.matmul, [_rand((2, 3), 19), _rand((3, 4), 20)]),
    ("matmul_batched", lambda m: lambda x, y: x @ y, [_rand((2, 2, 3), 21), _rand((3, 2), 22)]),
    ("transpose_view", lambda m: lambda x: x.transpose(0, 1) * 3, [_rand((2, 3), 23)]),
    ("reshape_slice", lambda m: lambda x: x.reshape(3, 2)[1:, :1], [_rand((2, 3), 24)]),
    ("expand", lambda m: lambda x: x.expand(3, 2) * x, [_rand((1, 2), 25)]),
    ("cat_stack", lambda m: lambda x, y: m.stack([m.cat([x, y]), m.cat([y, x])]),
     [_rand((2,), 26), _rand((2,), 27)]),
    ("softmax", lambda m: lambda x: m.softmax(x, 1), [_rand((2, 3), 28)]),
    ("cumsum", lambda m: lambda x: m.cumsum(x, 0), [_rand((4,), 29)]),
    ("where", lambda m: lambda x, y: m.where(x > 1.0, x * y, y),
     [_rand((4,), 30), _rand((4,), 31)]),
    ("norm", lambda m: lambda x: x.norm(), [_rand((3,), 32)]),
    # complex inputs and outputs
    ("complex_mul", lambda m: lambda x, y: x * y, [_crand((3,), 33), _crand((3,), 34)]),
    ("complex_exp", lambda m: m.exp, [_crand((2, 2), 35)]),
    ("complex_abs", lambda m: lambda x: x.abs(), [_crand((3,), 36)]),
    ("complex_square_sum", lambda m: lambda x: (x * x).sum(), [_crand((3,), 37)]),
    ("real_and_complex", lambda m: lambda x, z: x * z, [_rand((3,), 38), _crand((3,), 39)]),
]


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name,make,arrays", CASES, ids=[c[0] for c in CASES])
def test_forward_ad_gradcheck_passes(lib, fast_mode, name, make, arrays):
    func = make(lib)
    inputs = _inputs(lib, arrays)
    assert _gradcheck(lib)(func, inputs, check_forward_ad=True, fast_mode=fast_mode)
    assert _gradcheck(lib)(func, inputs, check_forward_ad=True, check_backward_ad=False,
                           check_batched_grad=False, check_batched_forward_grad=True,
                           fast_mode=fast_mode)


SECOND_ORDER = ["sin", "mul_broadcast", "matmul", "softmax", "complex_mul", "sum_dim"]


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck_fwd_over_rev_passes(lib, name):
    _, make, arrays = next(c for c in CASES if c[0] == name)
    inputs = _inputs(lib, arrays)
    assert _gradgradcheck(lib)(make(lib), inputs, check_fwd_over_rev=True)
    assert _gradgradcheck(lib)(make(lib), inputs, check_fwd_over_rev=True,
                               check_rev_over_rev=False, check_undefined_grad=False)


# --- deliberately wrong custom Functions ---------------------------------------------

def _scale_function(lib, jvp_factor, backward_factor, with_jvp=True):
    """y = 2 x, with a jvp multiplying by ``jvp_factor`` and a backward by
    ``backward_factor`` (2 is right for both)."""
    body = {
        "forward": staticmethod(lambda ctx, x: x * 2),
        "backward": staticmethod(lambda ctx, g: g * backward_factor),
    }
    if with_jvp:
        body["jvp"] = staticmethod(lambda ctx, t: t * jvp_factor)
    return type("Scale", (lib.autograd.Function,), body)


FWD_MISMATCH = "Jacobian computed with forward mode mismatch for output 0 with respect to input 0"


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
@pytest.mark.parametrize("fast_mode", [False, True])
def test_wrong_jvp_is_caught(lib, fast_mode):
    (x,) = _inputs(lib, [_rand((4,), 40)])
    right = _scale_function(lib, 2, 2)
    wrong = _scale_function(lib, 3, 2)
    assert _gradcheck(lib)(right.apply, (x,), check_forward_ad=True, fast_mode=fast_mode)
    # backward mode alone does not look at the jvp
    assert _gradcheck(lib)(wrong.apply, (x,), fast_mode=fast_mode)
    with pytest.raises(RuntimeError, match=FWD_MISMATCH):
        _gradcheck(lib)(wrong.apply, (x,), check_forward_ad=True, fast_mode=fast_mode)
    assert not _gradcheck(lib)(wrong.apply, (x,), check_forward_ad=True, fast_mode=fast_mode,
                               raise_exception=False)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_wrong_backward_right_jvp(lib):
    (x,) = _inputs(lib, [_rand((3,), 41)])
    wrong_backward = _scale_function(lib, 2, 5)
    # forward mode alone uses the jvp only: passes
    assert _gradcheck(lib)(wrong_backward.apply, (x,), check_forward_ad=True,
                           check_backward_ad=False)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to "
                                           "input 0"):
        _gradcheck(lib)(wrong_backward.apply, (x,), check_forward_ad=True)


def test_wrong_backward_without_jvp_fails_forward_mode_in_pyad():
    # pyad's forward mode runs a Function without jvp through its backward (twice,
    # docs/functional.md), so a backward that is 5/2 too large gives a forward Jacobian
    # 5/2 too large (hand math); torch would raise NotImplementedError (no jvp)
    (x,) = _inputs(pyad, [_rand((3,), 42)])
    no_jvp = _scale_function(pyad, None, 5, with_jvp=False)
    with pytest.raises(RuntimeError, match=FWD_MISMATCH) as info:
        pyad.autograd.gradcheck(no_jvp.apply, (x,), check_forward_ad=True,
                                check_backward_ad=False)
    assert "numerical 2, analytical 5" in str(info.value)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_wrong_jvp_complex_input_names_the_imaginary_part(lib):
    # jvp conj(t) * 2 is right along real tangents, wrong along imaginary ones; torch
    # checks the imaginary parts of complex inputs first and says so
    (z,) = _inputs(lib, [_crand((2,), 43)])
    Conj = type("ConjScale", (lib.autograd.Function,), {
        "forward": staticmethod(lambda ctx, x: x * 2),
        "backward": staticmethod(lambda ctx, g: g * 2),
        "jvp": staticmethod(lambda ctx, t: t.conj() * 2),
    })
    with pytest.raises(RuntimeError, match="While considering the imaginary part of complex "
                                           "inputs only, " + FWD_MISMATCH):
        _gradcheck(lib)(Conj.apply, (z,), check_forward_ad=True)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_wrong_jvp_second_input_two_outputs(lib):
    x, y = _inputs(lib, [_rand((2,), 44), _rand((2,), 45)])

    def forward(ctx, a, b):
        return a * b, a + b

    def jvp(ctx, ta, tb):
        return ta * 0 + tb * 0, ta + tb       # the product's tangent is missing

    Fn = type("TwoOut", (lib.autograd.Function,), {
        "forward": staticmethod(forward), "jvp": staticmethod(jvp),
        "backward": staticmethod(lambda ctx, g1, g2: (g1 + g2, g1 + g2))})
    with pytest.raises(RuntimeError, match="Jacobian computed with forward mode mismatch for "
                                           "output 0 with respect to input 0"):
        _gradcheck(lib)(Fn.apply, (x, y), check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_save_for_forward_reaches_jvp(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.save_for_forward(a, b)
            return a * b

        @staticmethod
        def jvp(ctx, ta, tb):
            a, b = ctx.saved_tensors
            return ta * b + a * tb

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    x, y = _inputs(lib, [_rand((3,), 46), _rand((3,), 47)])
    assert _gradcheck(lib)(Mul.apply, (x, y), check_forward_ad=True)
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        tangent = lib.ones(3, dtype=x.dtype)
        out = Mul.apply(fwAD.make_dual(x.detach(), tangent), y.detach())
        # d(ab) = b da with da = 1 (hand math)
        np.testing.assert_allclose(as_np(fwAD.unpack_dual(out).tangent), as_np(y))


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_jvp_wrong_number_of_tangents(lib):
    (x,) = _inputs(lib, [_rand((2,), 48)])
    Fn = type("TooMany", (lib.autograd.Function,), {
        "forward": staticmethod(lambda ctx, a: a * 2),
        "jvp": staticmethod(lambda ctx, t: (t * 2, t)),
        "backward": staticmethod(lambda ctx, g: g * 2)})
    with pytest.raises(RuntimeError, match=r"Function's jvp returned an invalid number of "
                                           r"forward gradients \(expected 1 but got 2\)"):
        _gradcheck(lib)(Fn.apply, (x,), check_forward_ad=True)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_mode_flag_assertions(lib):
    (x,) = _inputs(lib, [_rand((2,), 49)])
    with pytest.raises(AssertionError, match="Setting check_batched_forward_grad=True "
                                             "requires check_forward_ad to be True"):
        _gradcheck(lib)(lib.sin, (x,), check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="Setting check_batched_grad=True requires "
                                             "check_backward_ad to be True"):
        _gradcheck(lib)(lib.sin, (x,), check_forward_ad=True, check_backward_ad=False,
                        check_batched_grad=True)
    with pytest.raises(AssertionError, match="Expected at least one of check_fwd_over_rev"):
        _gradgradcheck(lib)(lib.sin, (x,), check_rev_over_rev=False)
    with pytest.raises(AssertionError, match="Setting check_undefined_grad=True requires "
                                             "check_rev_over_rev to be True"):
        _gradgradcheck(lib)(lib.sin, (x,), check_fwd_over_rev=True, check_rev_over_rev=False)
