"""pyad's dtype names (NumPy dtypes under torch's names) and the factories' dtypes."""
import numpy as np
import pytest

import pyad

NAMES = [("float16", np.float16), ("float32", np.float32), ("float64", np.float64),
         ("half", np.float16), ("float", np.float32), ("double", np.float64),
         ("int8", np.int8), ("int16", np.int16), ("short", np.int16), ("int32", np.int32),
         ("int", np.int32), ("int64", np.int64), ("long", np.int64), ("uint8", np.uint8),
         ("bool", np.bool_), ("complex64", np.complex64), ("cfloat", np.complex64),
         ("complex128", np.complex128), ("cdouble", np.complex128)]


@pytest.mark.parametrize("name, numpy_type", NAMES)
def test_dtype_names_are_numpy_dtypes_under_torchs_names(name, numpy_type):
    assert getattr(pyad, name) == np.dtype(numpy_type)
    assert name in pyad.__all__


@pytest.mark.parametrize("name, numpy_type", NAMES)
def test_each_dtype_name_is_also_a_torch_dtype_of_the_same_kind(name, numpy_type):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch, name)
    assert torch.empty(0, dtype=theirs).numpy().dtype == np.dtype(numpy_type)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "cfloat", "cdouble"])
def test_complex_dtype_names_work_with_to_factories_and_comparisons(dtype):
    d = getattr(pyad, dtype)
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(d)
    assert y.dtype == d and y.is_complex() and not y.is_floating_point()
    (y.abs() ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 4.0])
    assert x.grad.dtype == pyad.float32
    for made in (pyad.zeros(2, dtype=d), pyad.ones(2, 3, dtype=d), pyad.empty(2, dtype=d),
                 pyad.full((2,), 1.5, dtype=d), pyad.tensor([1j], dtype=d),
                 pyad.arange(3, dtype=d), pyad.eye(2, dtype=d), pyad.rand(3, dtype=d),
                 pyad.randn(3, dtype=d), pyad.randn_like(pyad.zeros(2, dtype=d)),
                 pyad.zeros_like(x, dtype=d)):
        assert made.dtype == d and made.is_complex()
    assert pyad.rand(2, dtype=d, requires_grad=True).requires_grad


def test_complex_randn_has_unit_variance_split_between_real_and_imaginary_parts():
    pyad.manual_seed(0)
    z = pyad.randn(200000, dtype=pyad.complex128).data
    assert abs(z.real.var() - 0.5) < 0.01 and abs(z.imag.var() - 0.5) < 0.01
    assert abs((np.abs(z) ** 2).mean() - 1.0) < 0.01
    u = pyad.rand(200000, dtype=pyad.complex64).data
    assert u.real.min() >= 0 and u.real.max() < 1 and u.imag.min() >= 0 and u.imag.max() < 1
    assert abs(u.imag.mean() - 0.5) < 0.01


@pytest.mark.parametrize("make", [lambda d: pyad.rand(dtype=d), lambda d: pyad.randn((), dtype=d),
                                  lambda d: pyad.rand_like(pyad.tensor(1.0), dtype=d),
                                  lambda d: pyad.randn_like(pyad.tensor(1j), dtype=d)])
def test_complex_random_0d_is_a_0d_variable(make):
    # (NumPy's arithmetic on 0-d arrays gives a scalar; the factories hand out arrays)
    for d in (pyad.complex64, pyad.complex128):
        v = make(d)
        assert isinstance(v.data, np.ndarray) and v.shape == () and v.dtype == d


def test_complex_randn_matches_torchs_distribution():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.randn(200000, dtype=torch.complex128)
    pyad.manual_seed(0)
    ours = pyad.randn(200000, dtype=pyad.complex128).data
    assert abs(ours.real.var() - theirs.real.var().item()) < 0.01
    assert abs(ours.imag.var() - theirs.imag.var().item()) < 0.01


@pytest.mark.parametrize("fill", [1 + 1j, 2, True, 2.5, np.int32(3), np.float64(2.0),
                                  np.bool_(True), np.complex128(1j)],
                         ids=["complex", "int", "bool", "float", "np-int32", "np-float64",
                              "np-bool", "np-complex128"])
def test_full_infers_its_dtype_from_the_fill_value_as_torch(fill):
    torch = pytest.importorskip("torch")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        theirs = torch.full((2,), fill)
        ours = pyad.full((2,), fill)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_full_with_a_complex_value_follows_the_default_dtype():
    previous = pyad.get_default_dtype()
    pyad.set_default_dtype(np.float64)
    try:
        assert pyad.full((1,), 1j).dtype == pyad.complex128
    finally:
        pyad.set_default_dtype(previous)
    assert pyad.full((1,), 1j).dtype == pyad.complex64


def test_randint_refuses_a_complex_dtype_as_torch():
    with pytest.raises(RuntimeError, match="randint"):
        pyad.randint(0, 3, (2,), dtype=pyad.complex64)
