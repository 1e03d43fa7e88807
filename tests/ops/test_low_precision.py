"""float16 and bfloat16 as torch's CPU kernels compute them: arithmetic with a number in
float32 ("opmath") and one rounding, float32 accumulation in sum/mean, the composite
activations in float32, and bfloat16's promotion table. Expected values come from
torch 2.13 on the same inputs, compared bit for bit."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

X = np.linspace(-4, 4, 2001)
Y = np.linspace(0.3, 7, 2001)


def dtypes():
    pairs = [(pyad.float16, torch.float16)]
    if hasattr(pyad, "bfloat16"):
        pairs.append((pyad.bfloat16, torch.bfloat16))
    return pairs


def ids(pair):
    return str(pair[1]).replace("torch.", "")


def as64(v):
    if isinstance(v, pyad.Variable):
        return np.asarray(v.detach().float().numpy(), dtype=np.float64)
    return v.detach().float().numpy().astype(np.float64)


def same(p, t):
    assert str(p.dtype) == str(t.dtype).replace("torch.", ""), (p.dtype, t.dtype)
    np.testing.assert_array_equal(as64(p), as64(t))


@pytest.fixture(params=dtypes(), ids=ids)
def pair(request):
    dt, tdt = request.param
    return (pyad.tensor(X).to(dt), torch.tensor(X).to(tdt),
            pyad.tensor(Y).to(dt), torch.tensor(Y).to(tdt))


@pytest.mark.parametrize("expr", ["a + 2.2", "a * 0.1", "a / 3.0", "a - 0.7", "2.5 - a",
                                  "1.7 / b", "a * b", "a / b", "a + b", "a * 3",
                                  "a + True", "a * s", "a / s"])
def test_arithmetic_with_numbers_in_float32_as_torch(pair, expr):
    a, t, b, u = pair
    got = eval(expr, {"a": a, "b": b, "s": pyad.tensor(0.3)})
    want = eval(expr, {"a": t, "b": u, "s": torch.tensor(0.3)})
    same(got, want)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_reductions_accumulate_in_float32_as_torch(pair, name):
    a, t, b, u = pair
    for p, q in ((a, t), (b, u)):
        same(getattr(p, name)(), getattr(q, name)())
        same(getattr(p.reshape(3, 667), name)(1), getattr(q.reshape(3, 667), name)(1))


@pytest.mark.parametrize("name", ["sigmoid", "softplus", "logsigmoid", "softmax", "gelu",
                                  "silu", "rsqrt"])
def test_composite_activations_round_once_as_torch(pair, name):
    a, t, b, u = pair
    if name == "rsqrt":
        a, t = b, u
    args = (0,) if "softmax" in name else ()
    pf = getattr(pyad, name, None) or getattr(pyad.nn.functional, name)
    tf = getattr(torch, name, None) or getattr(torch.nn.functional, name)
    got, want = pf(a, *args), tf(t, *args)
    if name in ("gelu", "silu", "rsqrt"):
        # computed in float32 and rounded once, as torch's; torch's float32 erf, exp and
        # rsqrt (SLEEF, vectorised) and NumPy's differ in the last float32 bit, which
        # moves a value across a rounding boundary of the low-precision dtype now and
        # then: one unit in its last place, on under 4% of the elements
        assert str(got.dtype) == str(want.dtype).replace("torch.", "")
        g, w = as64(got), as64(want)
        ulp = np.spacing(np.abs(w).astype(str(got.dtype) if got.dtype == pyad.float16
                                          else np.float32)) * (
            1 if got.dtype == pyad.float16 else 2 ** 16)
        assert (np.abs(g - w) <= ulp).all()
        assert (g != w).mean() < 0.04
    else:
        same(got, want)


def test_gradients_keep_the_low_precision_dtype(pair):
    a, t, b, u = pair
    a = a.detach().requires_grad_()
    y = (pyad.sigmoid(a) * 0.5 + a.sum()).mean()
    y.backward()
    assert a.grad.dtype == a.dtype


@pytest.mark.skipif(not hasattr(pyad, "bfloat16"), reason="needs ml_dtypes")
def test_bfloat16_promotion_as_torch():
    cases = [(pyad.bfloat16, pyad.float16), (pyad.bfloat16, pyad.float32),
             (pyad.bfloat16, pyad.float64), (pyad.bfloat16, pyad.int64),
             (pyad.bfloat16, pyad.bool), (pyad.bfloat16, pyad.complex64),
             (pyad.bfloat16, pyad.int8)]
    names = {pyad.bfloat16: torch.bfloat16, pyad.float16: torch.float16,
             pyad.float32: torch.float32, pyad.float64: torch.float64,
             pyad.int64: torch.int64, pyad.bool: torch.bool, pyad.complex64: torch.complex64,
             pyad.int8: torch.int8}
    for left, right in cases:
        for a_shape, b_shape in (((3,), (3,)), ((3,), ()), ((), (3,))):
            pa = pyad.ones(a_shape).to(left)
            pb = pyad.ones(b_shape).to(right)
            ta = torch.ones(a_shape).to(names[left])
            tb = torch.ones(b_shape).to(names[right])
            for p, q in ((pa + pb, ta + tb), (pb * pa, tb * ta)):
                assert str(p.dtype) == str(q.dtype).replace("torch.", ""), (left, right)
        assert (pyad.promote_types(left, right)
                == np.dtype(str(torch.promote_types(names[left], names[right]))
                            .replace("torch.", "")))


@pytest.mark.skipif(not hasattr(pyad, "bfloat16"), reason="needs ml_dtypes")
@pytest.mark.parametrize("name", ["mish", "hardswish"])
def test_python_level_activations_take_bfloat16(name):
    a = pyad.tensor(X).to(pyad.bfloat16)
    t = torch.tensor(X).to(torch.bfloat16)
    got = getattr(pyad.nn.functional, name)(a)
    want = getattr(torch.nn.functional, name)(t)
    assert got.dtype == a.dtype
    # composed of several ops here (each rounded to bfloat16), one kernel in torch: a
    # bfloat16 step (2**-7 relative) apart at most
    np.testing.assert_allclose(as64(got), as64(want), rtol=2 ** -7, atol=2 ** -7)
