"""Bit shifts (``<<``, ``>>``, ``bitwise_left_shift``, ``bitwise_right_shift`` and their
in-place forms) against torch on the same integer inputs, including shifts by the bit
width or more, negative shift counts, type promotion, and torch's refusal of floats and
bools."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

VALUES = [1, -8, 3, 0, 2 ** 40, -(2 ** 62)]
COUNTS = [0, 1, 63, 64, 70, -1]


def _same(p, t):
    assert str(p.dtype) == str(t.dtype).replace("torch.", ""), (p.dtype, t.dtype)
    np.testing.assert_array_equal(p.numpy(), t.numpy())


@pytest.mark.parametrize("name,op", [("left", lambda a, b: a << b),
                                     ("right", lambda a, b: a >> b)])
def test_tensor_by_tensor_matches_torch(name, op):
    a = np.array(VALUES, dtype=np.int64)
    b = np.array(COUNTS, dtype=np.int64)
    _same(op(pyad.tensor(a), pyad.tensor(b)), op(torch.tensor(a), torch.tensor(b)))
    fn = "bitwise_%s_shift" % name
    _same(getattr(pyad, fn)(pyad.tensor(a), pyad.tensor(b)),
          getattr(torch, fn)(torch.tensor(a), torch.tensor(b)))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_scalar_count_keeps_dtype_and_wraps(dtype):
    a = np.array([1, 3, 100, 127], dtype=dtype)
    for k in (0, 1, 3, 9):
        _same(pyad.tensor(a) << k, torch.tensor(a) << k)
        _same(pyad.tensor(a) >> k, torch.tensor(a) >> k)


def test_reflected_and_broadcast():
    a = np.array([[0], [1], [5]], dtype=np.int64)
    b = np.array([1, 2, 3], dtype=np.int64)
    _same(3 << pyad.tensor(b), 3 << torch.tensor(b))
    _same(64 >> pyad.tensor(b), 64 >> torch.tensor(b))
    _same(pyad.tensor(a) << pyad.tensor(b), torch.tensor(a) << torch.tensor(b))
    # a dimensioned int8 with a dimensioned int64: promoted as torch promotes
    _same(pyad.tensor(a.astype(np.int8)) << pyad.tensor(b), torch.tensor(a.astype(np.int8))
          << torch.tensor(b))
    # empty and 0-d
    _same(pyad.tensor(np.zeros(0, np.int32)) << 2, torch.tensor(np.zeros(0, np.int32)) << 2)
    _same(pyad.tensor(5) >> 1, torch.tensor(5) >> 1)


def test_bool_with_int_scalar_promotes_like_torch():
    _same(pyad.tensor([True, False]) << 1, torch.tensor([True, False]) << 1)


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1.5]) << 1,
    lambda lib: lib.tensor([1.5]) >> 1,
    lambda lib: lib.tensor([1, 2], dtype=lib.int32) << 2.5,
    lambda lib: lib.bitwise_left_shift(lib.tensor([1.0]), 1),
    lambda lib: lib.tensor([True]) << lib.tensor([True]),
])
def test_float_and_bool_operands_are_refused_as_torch(make):
    with pytest.raises(NotImplementedError):
        make(torch)
    with pytest.raises(NotImplementedError, match="shift"):
        make(pyad)


def test_inplace_forms_bump_the_version_and_match_torch():
    p, t = pyad.tensor([1, 2, -7]), torch.tensor([1, 2, -7])
    view = p[1:]
    p <<= 3
    t <<= 3
    _same(p, t)
    assert p._version == 1 and view._version == 1
    np.testing.assert_array_equal(view.numpy(), [16, -56])
    p >>= 2
    t >>= 2
    _same(p, t)
    assert p._version == 2
    _same(p.bitwise_left_shift_(1), t.bitwise_left_shift_(1))
    _same(p.bitwise_right_shift(1), t.bitwise_right_shift(1))


def test_shift_results_do_not_require_grad():
    x = pyad.tensor([1, 2])
    y = x << 1
    assert not y.requires_grad and y.grad_fn is None


def test_grad_accumulates_in_place_into_a_grad_that_requires_grad():
    # torch: a backward without create_graph adds into the existing .grad in place,
    # even when an earlier create_graph backward left that .grad requiring grad
    for lib in (pyad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        first = x.grad
        assert first.requires_grad
        (x * 3).sum().backward()
        assert x.grad is first, lib.__name__
        np.testing.assert_allclose(x.grad.detach().numpy(), [5.0, 7.0])
