"""Edge rules where pyad follows torch to the letter (each was a strict xfail of the
differential sweeps): view(dtype), mT/mH on 0-d, expand with -1 in a new leading
dimension, where's condition dtype and integer fill, and the dtypes searchsorted and
bucketize refuse. Hand-derived values always; torch on the same inputs where installed.
"""
import warnings

import numpy as np
import pytest

import pyad
from _torch_compare import torch, as_np


def _torch_raises(fn, exc):
    if torch is not None:
        with pytest.raises(exc):
            fn(torch)


# -- view(dtype) ----------------------------------------------------------------------

@pytest.mark.parametrize("src, dst, shape", [
    ("float32", "int32", (2, 4)), ("float32", "float64", (2, 2)), ("float64", "int16", (2, 16)),
    ("complex64", "float32", (2, 8)), ("float32", "complex64", (2, 2)), ("int64", "uint8", (2, 32)),
])
def test_view_dtype_reinterprets_the_bytes_like_torch(src, dst, shape):
    a = np.arange(8, dtype=np.float64).reshape(2, 4).astype(src) * 3 + 1
    x = pyad.Variable(a)
    v = x.view(getattr(pyad, dst))
    assert v.dtype == np.dtype(dst) and tuple(v.shape) == shape
    np.testing.assert_array_equal(as_np(v), a.view(dst))
    assert v.data.base is not None and np.shares_memory(v.data, x.data)
    if torch is not None:
        t = torch.tensor(a).view(getattr(torch, dst))
        assert tuple(t.shape) == shape
        np.testing.assert_array_equal(as_np(v), t.numpy())


def test_view_dtype_is_a_view_without_gradient():
    x = pyad.Variable(np.ones((2, 4), np.float32), requires_grad=True)
    v = x.view(pyad.int32)
    assert not v.requires_grad and v.grad_fn is None and v._is_view()
    w = x.detach()
    u = w.view(pyad.int32)
    u.add_(1)                             # writes through, and bumps the shared version
    assert w._version == 1
    assert as_np(w)[0, 0] == np.float32(1.0000001)
    if torch is not None:
        t = torch.ones(2, 4, requires_grad=True).view(torch.int32)
        assert not t.requires_grad and t.grad_fn is None


@pytest.mark.parametrize("make, match", [
    (lambda L: L.ones(2, 3, dtype=L.float32).view(L.float64), "size\\(-1\\) must be divisible by 2"),
    (lambda L: L.ones(4, 2, dtype=L.float32).t().view(L.float64), "stride\\(-1\\) must be 1"),
    (lambda L: L.tensor(1.0, dtype=L.float32).view(L.float64), "dim\\(\\) cannot be 0"),
])
def test_view_dtype_refuses_like_torch(make, match):
    with pytest.raises(RuntimeError, match="view\\(\\): .*" + match):
        make(pyad)
    _torch_raises(make, RuntimeError)


# -- mT / mH on 0-d ---------------------------------------------------------------------

def test_mT_mH_on_0d_are_the_identity_with_one_warning():
    x = pyad.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert x.mT is x
        assert x.mT is x
        h = x.mH
    messages = [str(m.message) for m in w]
    assert len([m for m in messages if "mT is deprecated on 0-D" in m]) <= 1
    assert as_np(h) == 2.0
    with pytest.raises(RuntimeError, match="mT is only supported on matrices"):
        pyad.ones(3).mT
    if torch is not None:
        t = torch.tensor(2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert t.mT is t


# -- expand with -1 in a new leading dimension -------------------------------------------

@pytest.mark.parametrize("make", [
    lambda L: L.tensor(2.0).expand(-1),
    lambda L: L.tensor(2.0).expand(-1, 3),
    lambda L: L.ones(3).expand(2, -1, 3),
    lambda L: L.ones(2, 3).expand(-1, 2, 3),
])
def test_expand_refuses_minus_one_in_a_new_dimension(make):
    with pytest.raises(RuntimeError, match="expand\\(\\): .*leading, non-existing dimension"):
        make(pyad)
    _torch_raises(make, RuntimeError)


def test_expand_minus_one_keeps_an_existing_dimension():
    x = pyad.Variable(np.array([[1.0], [2.0]]), requires_grad=True)
    y = x.expand(3, -1, 4)
    assert tuple(y.shape) == (3, 2, 4)
    y.sum().backward()
    np.testing.assert_array_equal(as_np(x.grad), [[12.0], [12.0]])


# -- where: condition dtype, an integer fill ------------------------------------------

def test_where_refuses_a_non_bool_condition_like_torch():
    x = pyad.Variable(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="where\\(\\): expected condition to be a bool"):
        pyad.where(pyad.Variable(np.array([1, 0])), x, 0.0)
    _torch_raises(lambda L: L.where(L.tensor([1, 0]), L.tensor([1.0, 2.0]), 0.0), RuntimeError)


@pytest.mark.parametrize("value, expect", [(300, None), (-256, None), (-1, [1, 255]),
                                           (255, [1, 255]), (2.5, [1.0, 2.5])])
def test_where_converts_an_int_fill_to_the_integer_dtype_like_torch(value, expect):
    cond = np.array([True, False])
    a = np.array([1, 2], np.uint8)
    for first in (False, True):
        args = (value, pyad.Variable(a)) if first else (pyad.Variable(a), value)
        c = pyad.Variable(cond if not first else ~cond)
        if expect is None:
            with pytest.raises(RuntimeError, match="where\\(\\): value cannot be converted "
                                                   "to type Byte"):
                pyad.where(c, *args)
        else:
            got = pyad.where(c, *args)
            np.testing.assert_array_equal(as_np(got), expect)
        if torch is not None:
            targs = (value, torch.tensor(a)) if first else (torch.tensor(a), value)
            tc = torch.tensor(cond if not first else ~cond)
            if expect is None:
                with pytest.raises(RuntimeError):
                    torch.where(tc, *targs)
            else:
                t = torch.where(tc, *targs)
                assert str(t.dtype).replace("torch.", "") == str(got.dtype)
                np.testing.assert_array_equal(as_np(got), t.numpy())


# -- searchsorted / bucketize: no bool or complex comparison --------------------------------

B = np.array([False, True])
F = np.array([1.0, 2.0], np.float32)
C = np.array([1j, 2j], np.complex64)
I64 = np.array([1, 2])


@pytest.mark.parametrize("fn", [
    lambda L, T: L.searchsorted(T(B), T(B)),
    lambda L, T: L.searchsorted(T(F), T(C)),
    lambda L, T: L.searchsorted(T(C), T(F)),
    lambda L, T: L.bucketize(T(C), T(C)),
    lambda L, T: L.bucketize(T(B), T(B)),
])
def test_searchsorted_bucketize_refuse_bool_and_complex_like_torch(fn):
    with pytest.raises(NotImplementedError, match="searchsorted_out_cpu.* not implemented"):
        fn(pyad, pyad.Variable)
    if torch is not None:
        with pytest.raises(NotImplementedError):
            fn(torch, torch.tensor)


@pytest.mark.parametrize("fn, expect", [
    (lambda L, T: L.searchsorted(T(I64), T(B)), [0, 0]),
    (lambda L, T: L.searchsorted(T(B), T(I64)), [1, 2]),
    (lambda L, T: L.searchsorted(T(B), 2), 2),
    (lambda L, T: L.bucketize(T(B), T(F)), [0, 0]),
    (lambda L, T: L.bucketize(T(F), T(B)), [1, 2]),
])
def test_searchsorted_bucketize_with_one_bool_operand_promote_like_torch(fn, expect):
    got = fn(pyad, pyad.Variable)
    np.testing.assert_array_equal(as_np(got), expect)
    if torch is not None:
        np.testing.assert_array_equal(as_np(got), fn(torch, torch.tensor).numpy())
