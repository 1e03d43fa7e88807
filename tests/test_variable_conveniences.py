"""Variable conveniences torch users reach for: new_* factories, from_numpy,
is_tensor, dtype predicates, type_as, strides and contiguity, compared with torch."""
import numpy as np
import pytest

import pyad

try:
    import torch
except ImportError:
    torch = None

LIBS = [pyad] + ([torch] if torch is not None else [])


def _dt(lib, name):
    return getattr(lib, name)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_new_factories_take_dtype_and_device_from_self(lib):
    x = lib.ones(2, dtype=_dt(lib, "float64"))
    z, o, e = x.new_zeros(3), x.new_ones((2, 2)), x.new_empty(4)
    f, t = x.new_full((2,), 7.0), x.new_tensor([1, 2])
    for v in (z, o, e, f, t):
        assert str(v.dtype).endswith("float64")
        assert not v.requires_grad
    assert tuple(z.shape) == (3,) and tuple(o.shape) == (2, 2) and tuple(e.shape) == (4,)
    np.testing.assert_array_equal(np.asarray(z.tolist()), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(f.tolist()), [7.0, 7.0])
    np.testing.assert_array_equal(np.asarray(t.tolist()), [1.0, 2.0])
    g = x.new_zeros(2, dtype=_dt(lib, "float32"), requires_grad=True)
    assert str(g.dtype).endswith("float32") and g.requires_grad


def test_new_tensor_copies():
    x = pyad.ones(2)
    data = np.array([1.0, 2.0], dtype=np.float32)
    y = x.new_tensor(data)
    data[0] = 9.0
    assert y.tolist() == [1.0, 2.0]


def test_from_numpy_shares_memory_and_refuses_other_types():
    a = np.arange(3.0)
    v = pyad.from_numpy(a)
    a[1] = 10.0
    assert v.tolist() == [0.0, 10.0, 2.0] and v.dtype == np.float64
    with pytest.raises(TypeError, match="from_numpy"):
        pyad.from_numpy([1.0, 2.0])


def test_is_tensor():
    assert pyad.is_tensor(pyad.ones(1))
    assert not pyad.is_tensor(np.ones(1))


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_dtype_predicates_and_type_as(lib):
    f = lib.ones(2, dtype=_dt(lib, "float64"), requires_grad=True)
    i = lib.tensor([1, 2])
    assert f.is_floating_point() and not i.is_floating_point()
    assert not f.is_complex()
    y = f.type_as(lib.ones(1))                     # to float32, differentiable
    assert str(y.dtype).endswith("float32")
    y.sum().backward()
    assert str(f.grad.dtype).endswith("float64")
    np.testing.assert_array_equal(np.asarray(f.grad.tolist()), [1.0, 1.0])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_stride_contiguity_and_nbytes(lib):
    base = lib.zeros(2, 3, 4, dtype=_dt(lib, "float64"))
    assert tuple(base.stride()) == (12, 4, 1)
    assert base.stride(1) == 4 and base.stride(-1) == 1
    assert base.is_contiguous()
    tr = base.transpose(0, 2)
    assert tuple(tr.stride()) == (1, 4, 12)
    assert not tr.is_contiguous()
    assert base.nbytes == 2 * 3 * 4 * 8 and base.element_size() == 8
    with pytest.raises(IndexError):
        lib.tensor(1.0).stride(0)


def test_new_legacy_constructor_matches_torch():
    # Tensor.new: new(*size) / new(size) uninitialised, new() empty, new(list) a copy,
    # all with self's dtype; checked against torch on the same calls.
    torch = pytest.importorskip("torch")
    x = pyad.Variable(np.ones((2, 3), dtype=np.float32))
    t = torch.ones(2, 3, dtype=torch.float32)
    for args in [(3, 2), ((3, 2),), (), (0,), (4,)]:
        got = x.new(*args)
        exp = t.new(*[torch.Size(a) if isinstance(a, tuple) else a for a in args])
        assert tuple(got.shape) == tuple(exp.shape)
        assert got.dtype == pyad.float32
        assert not got.requires_grad
    got = x.new([1, 2])
    exp = t.new([1, 2])
    np.testing.assert_array_equal(got.numpy(), exp.numpy())
    assert got.dtype == pyad.float32
    got = x.new(x[0].size()).fill_(7)
    assert tuple(got.shape) == (3,)
    np.testing.assert_array_equal(got.numpy(), np.full(3, 7, np.float32))
    with pytest.raises(TypeError, match=r"new\(\)"):
        x.new(2.5)
