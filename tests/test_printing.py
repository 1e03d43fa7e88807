"""repr/str of Variables: torch's printing rules (torch/_tensor_str.py), string for string.

pyad names a dtype as NumPy does ("dtype=complex128" where torch writes
"dtype=torch.complex128"), so torch's text is compared with "torch." removed.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable

NAN, INF = float("nan"), float("inf")

# Expected texts are torch 2.13's output on the same values (with "torch." removed).
LITERAL = [
    (np.array([0.6 + 0.8j, 0], dtype=np.complex64), "tensor([0.6000+0.8000j, 0.0000+0.0000j])"),
    (np.array([1 + 2j, 3 - 1j]), "tensor([1.+2.j, 3.-1.j], dtype=complex128)"),
    (np.array(1.5 + 2j, dtype=np.complex64), "tensor(1.5000+2.j)"),
    (np.array([complex(NAN, INF), 1 + 1j], dtype=np.complex64), "tensor([nan+infj, 1.+1.j])"),
    (np.array([1e-5 + 1j, 1e5 - 2j], dtype=np.complex64),
     "tensor([1.0000e-05+1.j, 1.0000e+05-2.j])"),
    (np.zeros(0, dtype=np.complex64), "tensor([], dtype=complex64)"),
    (np.zeros(0, dtype=np.float32), "tensor([])"),
    (np.zeros(0, dtype=np.int64), "tensor([], dtype=int64)"),
    (np.array([1e10, 1.0], dtype=np.float32), "tensor([1.0000e+10, 1.0000e+00])"),
    (np.array([NAN, 0.0], dtype=np.float32), "tensor([nan, 0.])"),
    ((np.arange(2000) * (1 + 1j)).astype(np.complex64),
     "tensor([0.0000e+00+0.0000e+00j, 1.0000e+00+1.0000e+00j, 2.0000e+00+2.0000e+00j,\n"
     "         ..., 1.9970e+03+1.9970e+03j, 1.9980e+03+1.9980e+03j,\n"
     "        1.9990e+03+1.9990e+03j])"),
]


@pytest.mark.parametrize("data, expected", LITERAL)
def test_variables_print_as_torch_prints_them(data, expected):
    v = Variable(data)
    assert repr(v) == str(v) == expected


def _cases():
    rng = np.random.RandomState(0)
    return [
        ([0.6 + 0.8j, 0], "complex64"), ([0.6 + 0.8j, 0], "complex128"),
        ([1 + 0j], "complex128"), (0j, "complex64"), (1 + 0j, "complex128"),
        ([1e-10j, 1], "complex128"), ([1e10 + 1j], "complex64"),
        ([-0.0 - 0.0j, 1j], "complex64"), ([2.5 + 0j, 3 - 0j], "complex64"),
        ([[1 + 1j, 2.5 - 3j], [0, -1j]], "complex64"), (np.zeros((0, 3)), "complex128"),
        ([INF + 0j, complex(-INF, NAN)], "complex64"), ([1e300 + 1e-300j], "complex128"),
        (np.arange(30) * (0.5 - 1.25j), "complex128"),
        (np.arange(24).reshape(2, 3, 4) * (1 - 0.3j), "complex64"),
        (rng.randn(3, 4, 5) + 1j * rng.randn(3, 4, 5), "complex128"),
        (np.arange(3000).reshape(30, 100) * (1 + 0.5j), "complex64"),
        ([0.6, 0.8], "float32"), ([1.0, 2.0], "float64"), ([1e-5, 1.0, 1000.0], "float32"),
        (1.5, "float32"), ([NAN, INF, -INF, 0.0], "float32"), ([0.0, -0.0], "float32"),
        ([-3.0, 256.0], "float64"), (np.arange(100000.0), "float64"),
        (np.arange(1200).reshape(40, 30) / 7, "float32"),
        (np.arange(12).reshape(3, 4) * 1e9, "float32"), ([1e100, 1e-100], "float64"),
        ([0.1234567, 123.456], "float16"), (rng.randn(5, 40), "float32"),
        (rng.randn(7, 7, 7) * 1e-6, "float32"), (np.zeros((2, 0)), "float32"),
        ([1, 2, 3], "int64"), ([1, -20, 3], "int32"), ([True, False], "bool"), (3, "int64"),
        (True, "bool"), ([], "int32"), (np.arange(5000), "int64"),
        (np.arange(12, dtype=np.uint8).reshape(3, 4), "uint8"),
    ]


@pytest.mark.parametrize("values, dtype", _cases())
def test_printing_matches_torch_on_the_same_values(values, dtype):
    torch = pytest.importorskip("torch")
    data = np.array(values, dtype=dtype)
    theirs = repr(torch.from_numpy(data.copy()) if data.ndim else
                  torch.tensor(data.item(), dtype=getattr(torch, dtype)))
    assert repr(Variable(data)) == theirs.replace("torch.", "")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128",
                                   "float16", "int32"])
def test_lines_and_suffixes_break_where_torch_breaks_them(dtype):
    torch = pytest.importorskip("torch")
    for n in range(1, 50):
        for requires_grad in (False, True) if dtype != "int32" else (False,):
            data = (np.arange(n) * 7 / 3).astype(dtype) if dtype != "int32" else \
                np.arange(n, dtype=dtype) * 1000
            theirs = repr(torch.tensor(data, requires_grad=requires_grad))
            ours = repr(pyad.tensor(data, requires_grad=requires_grad))
            assert ours == theirs.replace("torch.", ""), (n, requires_grad)


def test_the_default_complex_dtype_follows_the_default_float_dtype():
    previous = pyad.get_default_dtype()
    pyad.set_default_dtype(np.float64)
    try:
        assert repr(Variable(np.array([1 + 1j]))) == "tensor([1.+1.j])"
        assert repr(Variable(np.array([1 + 1j], dtype=np.complex64))) == \
            "tensor([1.+1.j], dtype=complex64)"
    finally:
        pyad.set_default_dtype(previous)


def test_a_complex_variable_shows_its_autograd_suffix():
    torch = pytest.importorskip("torch")
    data = np.array([1 + 2j, -0.5 + 0.25j])
    assert repr(pyad.tensor(data, requires_grad=True)) == \
        repr(torch.tensor(data, requires_grad=True)).replace("torch.", "")
