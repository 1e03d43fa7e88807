"""The Python surface: factory signatures, operand types, data validation, pickling and
copying, and the names error messages point at. Compared with torch where it is installed."""
import numpy as np
import pytest

import pyad
from pyad import Variable

try:
    import torch
except ImportError:  # the torch comparisons skip; the exact expectations still run
    torch = None


def _outcome(make):
    """(shape, dtype name, requires_grad, min, max) of a result, or the exception type."""
    try:
        r = make()
    except Exception as exc:          # noqa: BLE001 - the type is what is compared
        return type(exc)
    a = np.asarray(r.detach().numpy())
    lo, hi = (a.min().item(), a.max().item()) if a.size else (None, None)
    return (tuple(r.shape), str(r.dtype).replace("torch.", ""), bool(r.requires_grad), lo, hi)


# -- randint and the *_like factories ----------------------------------------------

def _dtypes(m):
    return {"f32": m.float32, "f64": m.float64, "i32": m.int32, "i64": m.int64,
            "bool": m.bool}


# Each case draws enough values that every integer of a small range shows up, so the
# min/max compared are the range's ends, not chance.
RANDINT = {
    "high_size": lambda m, d: m.randint(10, (400,)),
    "high_size_int_is_error": lambda m, d: m.randint(10, 3),
    "low_high_size": lambda m, d: m.randint(3, 10, (400,)),
    "size_keyword": lambda m, d: m.randint(3, 10, size=(400,)),
    "high_size_keywords": lambda m, d: m.randint(3, high=10, size=(400,)),
    "high_positional_size_keyword": lambda m, d: m.randint(10, size=(400,)),
    "all_keywords": lambda m, d: m.randint(low=3, high=10, size=(20, 20)),
    "high_keyword_size_keyword": lambda m, d: m.randint(high=4, size=(2, 200)),
    "missing_high": lambda m, d: m.randint(low=3, size=(3,)),
    "missing_size": lambda m, d: m.randint(10),
    "no_arguments": lambda m, d: m.randint(),
    "too_many_positionals": lambda m, d: m.randint(2, 10, (3,), low=1),
    "float_dtype": lambda m, d: m.randint(10, (400,), dtype=d["f32"]),
    "float_requires_grad": lambda m, d: m.randint(10, (400,), dtype=d["f64"],
                                                  requires_grad=True),
    "int_requires_grad": lambda m, d: m.randint(10, (3,), requires_grad=True),
    "scalar_size": lambda m, d: m.randint(1, 2, ()),
    "list_size": lambda m, d: m.randint(5, 6, [2]),
    "float_high": lambda m, d: m.randint(10.5, (2,)),
    "empty_range": lambda m, d: m.randint(3, 3, (2,)),
    "reversed_range": lambda m, d: m.randint(5, 3, (2,)),
    "bool_out_of_range": lambda m, d: m.randint(0, 10, (2,), dtype=d["bool"]),
    "bool": lambda m, d: m.randint(0, 2, (200,), dtype=d["bool"]),
    "int32_out_of_range": lambda m, d: m.randint(0, 2 ** 40, (3,), dtype=d["i32"]),
    "int32": lambda m, d: m.randint(-3, 0, (200,), dtype=d["i32"]),
    "negative": lambda m, d: m.randint(-3, 0, (200,)),
    "like_high": lambda m, d: m.randint_like(m.ones(400), 10),
    "like_low_high": lambda m, d: m.randint_like(m.ones(400), 3, 10),
    "like_keeps_int_dtype": lambda m, d: m.randint_like(m.ones(400, dtype=d["i32"]), 3, 10),
    "like_high_keyword": lambda m, d: m.randint_like(m.ones(400), high=10),
    "like_dtype": lambda m, d: m.randint_like(m.ones(400, dtype=d["i64"]), 3, 5,
                                              dtype=d["f64"]),
    "like_requires_grad": lambda m, d: m.randint_like(m.ones(400), 10, requires_grad=True),
    "like_int_requires_grad": lambda m, d: m.randint_like(m.ones(3, dtype=d["i64"]), 10,
                                                          requires_grad=True),
    "rand_like_int": lambda m, d: m.rand_like(m.ones(2, dtype=d["i64"])),
    "randn_like_int": lambda m, d: m.randn_like(m.ones(2, dtype=d["i64"])),
    "rand_int": lambda m, d: m.rand(2, dtype=d["i64"]),
    "randn_int": lambda m, d: m.randn(2, dtype=d["i32"]),
    "zeros_like_int_requires_grad": lambda m, d: m.zeros_like(m.ones(2, dtype=d["i64"]),
                                                              requires_grad=True),
    "full_like_keeps_int_dtype": lambda m, d: m.full_like(m.ones(2, dtype=d["i64"]), 2.5),
    "full_like_dtype": lambda m, d: m.full_like(m.ones(2), 7, dtype=d["i64"]),
    "ones_like_requires_grad": lambda m, d: m.ones_like(m.ones(2, 3, dtype=d["f64"]),
                                                        requires_grad=True),
    "zeros_like_scalar": lambda m, d: m.zeros_like(m.ones(())),
    "rand_like_float": lambda m, d: m.rand_like(m.ones(3, 2, dtype=d["f64"])) * 0,
}

EXPECTED_RANDINT = {   # independent of both libraries: shape, dtype, requires_grad, min, max
    "high_size": ((400,), "int64", False, 0, 9),
    "high_size_int_is_error": TypeError,
    "low_high_size": ((400,), "int64", False, 3, 9),
    "size_keyword": ((400,), "int64", False, 3, 9),
    "high_size_keywords": ((400,), "int64", False, 3, 9),
    "high_positional_size_keyword": ((400,), "int64", False, 0, 9),
    "all_keywords": ((20, 20), "int64", False, 3, 9),
    "high_keyword_size_keyword": ((2, 200), "int64", False, 0, 3),
    "missing_high": TypeError,
    "missing_size": TypeError,
    "no_arguments": TypeError,
    "too_many_positionals": TypeError,
    "float_dtype": ((400,), "float32", False, 0.0, 9.0),
    "float_requires_grad": ((400,), "float64", True, 0.0, 9.0),
    "int_requires_grad": RuntimeError,
    "scalar_size": ((), "int64", False, 1, 1),
    "list_size": ((2,), "int64", False, 5, 5),
    "float_high": TypeError,
    "empty_range": RuntimeError,
    "reversed_range": RuntimeError,
    "bool_out_of_range": RuntimeError,
    "bool": ((200,), "bool", False, False, True),
    "int32_out_of_range": RuntimeError,
    "int32": ((200,), "int32", False, -3, -1),
    "negative": ((200,), "int64", False, -3, -1),
    "like_high": ((400,), "float32", False, 0.0, 9.0),
    "like_low_high": ((400,), "float32", False, 3.0, 9.0),
    "like_keeps_int_dtype": ((400,), "int32", False, 3, 9),
    "like_high_keyword": ((400,), "float32", False, 0.0, 9.0),
    "like_dtype": ((400,), "float64", False, 3.0, 4.0),
    "like_requires_grad": ((400,), "float32", True, 0.0, 9.0),
    "like_int_requires_grad": RuntimeError,
    "rand_like_int": NotImplementedError,
    "randn_like_int": NotImplementedError,
    "rand_int": NotImplementedError,
    "randn_int": NotImplementedError,
    "zeros_like_int_requires_grad": RuntimeError,
    "full_like_keeps_int_dtype": ((2,), "int64", False, 2, 2),
    "full_like_dtype": ((2,), "int64", False, 7, 7),
    "ones_like_requires_grad": ((2, 3), "float64", True, 1.0, 1.0),
    "zeros_like_scalar": ((), "float32", False, 0.0, 0.0),
    "rand_like_float": ((3, 2), "float64", False, 0.0, 0.0),
}


@pytest.mark.parametrize("case", list(RANDINT))
def test_randint_and_like_factories(case):
    pyad.manual_seed(0)
    assert _outcome(lambda: RANDINT[case](pyad, _dtypes(pyad))) == EXPECTED_RANDINT[case]


@pytest.mark.parametrize("case", list(RANDINT))
def test_randint_and_like_factories_match_torch(case):
    if torch is None:
        pytest.skip("torch not installed")
    torch.manual_seed(0)
    pyad.manual_seed(0)
    assert (_outcome(lambda: RANDINT[case](pyad, _dtypes(pyad)))
            == _outcome(lambda: RANDINT[case](torch, _dtypes(torch))))


def test_randint_generator_and_seed():
    a = pyad.randint(0, 1000, (50,), generator=np.random.default_rng(7))
    b = pyad.randint(0, 1000, (50,), generator=np.random.default_rng(7))
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.data, np.random.default_rng(7).integers(0, 1000, 50))
    pyad.manual_seed(3)
    c = pyad.randint(1000, (50,))
    pyad.manual_seed(3)
    np.testing.assert_array_equal(c.data, pyad.randint(1000, (50,)).data)
    with pytest.raises(TypeError, match="randint: generator"):
        pyad.randint(10, (2,), generator=object())
