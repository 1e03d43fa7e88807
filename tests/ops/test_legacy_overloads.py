"""torch's deprecated call forms that old public code still uses, compared with torch.

``p.data.add_(-lr, grad)``, ``exp_avg.mul_(beta1).add_(1 - beta1, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)`` and ``p.data.addcdiv_(-step, m, denom)``
(the optimizers of torch 0.4-1.4 and the many repositories that copied them) are
deprecated overloads torch 2.13 still accepts with a UserWarning: (Number alpha, Tensor
other) for add/sub, (Number value, Tensor tensor1, Tensor tensor2) for addcmul/addcdiv.
Read with the current signatures they would shift the operands silently; pyad takes
them as torch does. Also: ``x.real = v`` / ``x.imag = v`` writing through, ``map2_``,
``fill_`` wrapping a negative int into an unsigned dtype, and the strides of a Variable
with no elements.
"""
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def _both(fn):
    out = []
    for lib in (torch, pyad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(lib)
        out.append((np.asarray(value.detach().numpy() if hasattr(value, "detach")
                               else value), [str(w.message) for w in caught
                                             if issubclass(w.category, UserWarning)]))
    return out


def _operands(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)
    y = lib.tensor([0.5, 1.5, 2.5, 3.5], dtype=lib.float64)
    z = lib.tensor([2.0, 4.0, 8.0, 16.0], dtype=lib.float64)
    return x, y, z


LEGACY = {
    "x.add(alpha, other)": lambda L, x, y, z: x.add(0.5, y),
    "x.sub(alpha, other)": lambda L, x, y, z: x.sub(0.5, y),
    "x.add_(alpha, other)": lambda L, x, y, z: x.add_(-0.1, y),
    "x.sub_(alpha, other)": lambda L, x, y, z: x.sub_(0.1, y),
    "torch.add(x, alpha, other)": lambda L, x, y, z: L.add(x, 0.5, y),
    "torch.sub(x, alpha, other)": lambda L, x, y, z: L.sub(x, 0.5, y),
    "x.addcmul_(value, t1, t2)": lambda L, x, y, z: x.addcmul_(0.25, y, z),
    "x.addcdiv_(value, t1, t2)": lambda L, x, y, z: x.addcdiv_(-0.5, y, z),
    "x.addcdiv(value, t1, t2)": lambda L, x, y, z: x.addcdiv(0.5, y, z),
    "torch.addcdiv(x, value, t1, t2)": lambda L, x, y, z: L.addcdiv(x, 0.5, y, z),
    "torch.addcmul(x, value, t1, t2)": lambda L, x, y, z: L.addcmul(x, 2.0, y, z),
    "adam's moments": lambda L, x, y, z: x.mul_(0.9).add_(1 - 0.9, y).addcmul_(0.1, z, z),
}


@pytest.mark.parametrize("case", sorted(LEGACY))
def test_deprecated_overload_values_and_warning(case):
    (theirs, their_warnings), (ours, our_warnings) = _both(
        lambda L: LEGACY[case](L, *_operands(L)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)
    # torch warns once per process; pyad each time, in the same words
    assert our_warnings and "This overload of" in our_warnings[0]
    assert "is deprecated" in our_warnings[0]


def test_deprecated_overload_records_the_same_gradients():
    grads = []
    for lib in (torch, pyad):
        x, y, z = (t.requires_grad_() for t in _operands(lib))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = x.add(0.5, y).addcdiv(0.25, y, z).sum()
        out.backward()
        grads.append([t.grad.numpy().copy() for t in (x, y, z)])
    for ours, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-15)


def test_current_forms_do_not_warn():
    x, y, z = _operands(pyad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.add(y, alpha=0.5)
        x.add_(y)
        x.addcdiv(y, z, value=0.5)
        pyad.add(x, y, alpha=2)


def test_a_bad_mix_is_a_type_error():
    x, y, _ = _operands(pyad)
    with pytest.raises(TypeError, match=r"add\(\)"):
        x.add(0.5, y, y)
    with pytest.raises(TypeError, match=r"add_\(\)"):
        x.add_(y, y)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_setting_real_or_imag_writes_through(part):
    (theirs, _), (ours, _) = _both(lambda L: _set_part(L, part, 0.5))
    np.testing.assert_array_equal(ours, theirs)
    (theirs, _), (ours, _) = _both(
        lambda L: _set_part(L, part, L.tensor([1.0, 2.0, 3.0], dtype=L.float32)))
    np.testing.assert_array_equal(ours, theirs)


def _set_part(lib, part, value):
    x = lib.tensor(np.array([1 + 2j, -3 + 4j, 5 - 6j], dtype=np.complex64))
    version = x._version
    setattr(x, part, value)
    assert x._version > version
    return x


@pytest.mark.parametrize("part", ["real", "imag"])
def test_setting_a_part_of_a_non_leaf_records_it(part):
    grads = []
    for lib in (torch, pyad):
        a = lib.tensor(np.array([1 + 2j, -3 + 4j], dtype=np.complex128), requires_grad=True)
        v = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        x = a * 2
        setattr(x, part, v)
        (x * x.conj()).real.sum().backward()
        grads.append((a.grad.numpy().copy(), v.grad.numpy().copy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-15)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-15)
    leaf = pyad.tensor(np.array([1 + 2j]), requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.real = 0.0


def test_map2_as_torch():
    a = np.arange(9.0).reshape(3, 3)
    b, c = np.array([1.0, -2.0, 3.0]), np.array([[0.5, 2.0, -1.0]])
    out = []
    for lib in (torch, pyad):
        res = lib.tensor(a).clone()
        res.map2_(lib.tensor(b), lib.tensor(c), lambda p, q, r: p + q * r)
        out.append(res.numpy())
    np.testing.assert_array_equal(out[1], out[0])
    with pytest.raises(TypeError, match="map2_"):
        pyad.ones(3).map2_(pyad.ones(3), pyad.ones(3), lambda p, q, r: "no")


@pytest.mark.parametrize("value", [-100, -255, 255, 0])
def test_fill_wraps_a_negative_int_into_uint8(value):
    (theirs, _), (ours, _) = _both(lambda L: L.zeros(2, dtype=L.uint8).fill_(value))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("value", [300, -256, 2 ** 40])
def test_fill_refuses_an_int_out_of_range(value):
    with pytest.raises(RuntimeError):
        torch.zeros(2, dtype=torch.uint8).fill_(value)
    with pytest.raises(RuntimeError, match=r"fill_\(\): value cannot be converted"):
        pyad.zeros(2, dtype=pyad.uint8).fill_(value)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (5, 0, 3), (2, 0), (0, 1, 1)])
def test_strides_of_an_empty_variable(shape):
    assert pyad.empty(shape).stride() == torch.empty(shape).stride()
    assert pyad.zeros(shape).stride() == torch.zeros(shape).stride()
    sizes, strides = (0, 2, 0), (12, 4, 1)
    assert pyad.empty_strided(sizes, strides).stride() == strides
    assert pyad.ones(2).new_empty_strided(sizes, strides).stride() == strides


def test_setting_a_part_is_differentiable_twice():
    # the recorded form: x.real = v on a non-leaf, through finite differences
    from pyad.autograd import gradcheck, gradgradcheck

    def real_set(a, v):
        x = a * 2
        x.real = v
        return (x * x.conj()).real

    def imag_set(a, v):
        x = a * 2
        x.imag = v
        return (x * x.conj()).real

    a = pyad.tensor(np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j]), requires_grad=True)
    v = pyad.tensor([0.5, -1.5, 2.0], dtype=pyad.float64, requires_grad=True)
    for fn in (real_set, imag_set):
        assert gradcheck(fn, (a, v))
        assert gradgradcheck(fn, (a, v))


@pytest.mark.parametrize("bad", [np.ones(5), np.ones((2, 3))])
def test_setting_a_part_of_the_wrong_shape_is_refused(bad):
    x = pyad.tensor(np.array([1 + 2j, -3 + 4j, 5 - 6j], dtype=np.complex64))
    for part in ("real", "imag"):
        with pytest.raises(RuntimeError, match=part):
            setattr(x, part, pyad.tensor(bad.astype(np.float32)))
    with pytest.raises(RuntimeError):
        torch.zeros(3, dtype=torch.complex64).real = torch.ones(5)
