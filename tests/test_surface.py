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
    with pytest.raises(TypeError, match=r"^randint\(\): generator"):
        pyad.randint(10, (2,), generator=object())


# -- operand types of binary ops and operators ---------------------------------------

class _Opaque:
    """A type neither library knows."""


# name -> (expression, expected): "TypeError" (raised), or the type of the result.
OPERANDS = {
    "add_list": (lambda x, o: x + [1, 2, 3, 4], TypeError),
    "radd_list": (lambda x, o: [1, 2, 3, 4] + x, TypeError),
    "mul_list": (lambda x, o: x * [1, 2, 3, 4], TypeError),
    "rmul_list": (lambda x, o: [1, 2, 3, 4] * x, TypeError),
    "sub_tuple": (lambda x, o: x - (1, 2, 3, 4), TypeError),
    "rsub_tuple": (lambda x, o: (1, 2, 3, 4) - x, TypeError),
    "div_list": (lambda x, o: x / [1, 2, 3, 4], TypeError),
    "rdiv_list": (lambda x, o: [1, 2, 3, 4] / x, TypeError),
    "pow_list": (lambda x, o: x ** [1, 2, 3, 4], TypeError),
    "rpow_list": (lambda x, o: [1, 2, 3, 4] ** x, TypeError),
    "matmul_list": (lambda x, o: o @ [1, 2], TypeError),
    "rmatmul_list": (lambda x, o: [1, 2] @ o, TypeError),
    "lt_list": (lambda x, o: x < [1, 2, 3, 4], TypeError),
    "ge_list": (lambda x, o: x >= [1, 2, 3, 4], TypeError),
    "eq_list_is_identity": (lambda x, o: x == [1, 2, 3, 4], bool),
    "ne_list_is_identity": (lambda x, o: x != [1, 2, 3, 4], bool),
    "eq_none": (lambda x, o: x == None, bool),                       # noqa: E711
    "add_str": (lambda x, o: x + "a", TypeError),
    "add_none": (lambda x, o: x + None, TypeError),
    "add_opaque": (lambda x, o: x + _Opaque(), TypeError),
    "radd_opaque": (lambda x, o: _Opaque() + x, TypeError),
    "iadd_list": (lambda x, o: x.__iadd__([1, 2, 3, 4]), type(NotImplemented)),
    "add_method_list": (lambda x, o: x.add([1, 2, 3, 4]), TypeError),
    "mul_method_list": (lambda x, o: x.mul([1, 2, 3, 4]), TypeError),
    "add_ndarray": (lambda x, o: x + np.ones(4), "tensor"),
    "radd_ndarray": (lambda x, o: np.ones(4) + x, "tensor"),
    "add_numpy_scalar": (lambda x, o: x + np.float32(1), "tensor"),
    "radd_numpy_int": (lambda x, o: np.int64(2) + x, "tensor"),
    "add_python_scalars": (lambda x, o: 1 + x * 2.5 - 1, "tensor"),
    "add_object_array": (lambda x, o: x + np.array([object()] * 4), TypeError),
    "add_str_array": (lambda x, o: x + np.array(["a"] * 4), TypeError),
}


def _operand_outcome(mod, case):
    expr, _ = OPERANDS[case]
    x, o = mod.ones(4), mod.ones(2, 2)
    try:
        r = expr(x, o)
    except TypeError as exc:
        return TypeError, str(exc).replace("pyad._engine.Variable", "T").replace("Tensor", "T")
    return ("tensor" if isinstance(r, (pyad.Variable,) + ((torch.Tensor,) if torch else ()))
            else type(r)), None


@pytest.mark.parametrize("case", list(OPERANDS))
def test_operand_types(case):
    kind, message = _operand_outcome(pyad, case)
    assert kind == OPERANDS[case][1]
    if kind is TypeError:
        assert message


# pyad's own choice: an ndarray on the left defers to the Variable (torch raises).
PYAD_ONLY = {"radd_ndarray"}


@pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning")   # torch + ndarray
@pytest.mark.parametrize("case", sorted(set(OPERANDS) - PYAD_ONLY))
def test_operand_types_match_torch(case):
    if torch is None:
        pytest.skip("torch not installed")
    ours, theirs = _operand_outcome(pyad, case), _operand_outcome(torch, case)
    assert ours[0] == theirs[0]
    if "_array" not in case and ours[0] is TypeError and "method" not in case:
        # Python's own operator message, as torch's (the operator returned NotImplemented)
        assert ours[1] == theirs[1].replace("tensors", "Variables")


def test_operator_list_error_names_the_operator():
    x = pyad.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: .*'list'"):
        x + [1, 2]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+=: .*'list'"):
        x += [1, 2]
    with pytest.raises(TypeError, match=r"converted to an index"):   # list * float Variable
        x * [1, 2, 3, 4]
    assert pyad.tensor(2) * [1, 2] == [1, 2, 1, 2]                      # as torch: repeat


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_function_form_names_op_and_argument(op):
    fn = getattr(pyad, op)
    with pytest.raises(TypeError, match=r"^%s\(\): argument '(other|exponent)' must be a "
                                        r"Variable, an array or a number, not list$" % op):
        fn(pyad.ones(2), [1, 2])
    with pytest.raises(TypeError, match=r"^%s\(\): argument 'input' .* not tuple$" % op):
        fn((1, 2), pyad.ones(2))
    with pytest.raises(TypeError, match=r"^%s\(\): operands must be numeric, got an array of "
                                        r"dtype <U1$" % op):
        fn(pyad.ones(2), np.array(["a", "b"]))


def test_comparison_function_form_names_op():
    x = pyad.ones(2)
    with pytest.raises(TypeError, match=r"^lt\(\): operands must be numeric"):
        x < np.array(["a", "b"])


class _ForeignTensor:
    """Another library's tensor: a DLPack producer pyad does not convert implicitly."""

    def __init__(self):
        self._array = np.ones(2, dtype=np.float32)

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.mark.parametrize("make", [
    lambda x, t: x + t, lambda x, t: t + x, lambda x, t: x * t, lambda x, t: t - x,
    lambda x, t: x / t, lambda x, t: x ** t, lambda x, t: x < t, lambda x, t: pyad.add(x, t),
    lambda x, t: x.mul(t),
], ids=["add", "radd", "mul", "rsub", "div", "pow", "lt", "add_fn", "mul_method"])
def test_foreign_tensor_operand_points_to_from_dlpack(make):
    x = pyad.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"\(\): argument '(input|other|exponent)' is a .*"
                                        r"_ForeignTensor.*pyad\.from_dlpack"):
        make(x, _ForeignTensor())
    # and the named remedy works, sharing memory
    t = _ForeignTensor()
    y = x + pyad.from_dlpack(t)
    np.testing.assert_array_equal(y.data, [2.0, 2.0])


def test_torch_tensor_operand_points_to_from_dlpack():
    if torch is None:
        pytest.skip("torch not installed")
    x = pyad.ones(2, requires_grad=True)
    for expr in (lambda: x + torch.ones(2), lambda: torch.ones(2) + x,
                 lambda: x * torch.ones(2), lambda: pyad.mul(torch.ones(2), x)):
        with pytest.raises(TypeError, match=r"torch\.Tensor.*pyad\.from_dlpack"):
            expr()


@pytest.mark.parametrize("arg, error, pattern", [
    ("mps", RuntimeError, r"^to\(\): 'mps' is neither a device"),
    ("cuda:x", RuntimeError, r"^to\(\): 'cuda:x' is neither a device"),
    ([1], TypeError, r"^to\(\): expected a dtype, a device or a Variable"),
    (None, TypeError, r"^to\(\): expected a dtype, a device or a Variable, got None"),
    (object, TypeError, r"^to\(\): dtype must be numeric"),
])
def test_to_bad_argument(arg, error, pattern):
    with pytest.raises(error, match=pattern):
        pyad.ones(2).to(arg)


def test_to_accepts_torch_forms():
    x = pyad.ones(2, requires_grad=True)
    y = x.to(pyad.float64, False, True)            # to(dtype, non_blocking, copy)
    assert y.dtype == np.float64 and y.grad_fn is not None
    z = x.to("cpu", pyad.float32, copy=True)       # to(device, dtype, copy=)
    assert z.data is not x.data and z.dtype == np.float32
    assert x.to("cpu") is x and x.to(pyad.ones(1, dtype=pyad.float32)) is x
    assert x.to("float64").dtype == np.float64
    w = x.to(pyad.float64, non_blocking=True)
    w.sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad.data, [1.0, 1.0])


# -- numeric data only ---------------------------------------------------------------

NON_NUMERIC = {
    "none": None,
    "str_array": np.array(["a", "b"]),
    "bytes_array": np.array([b"a"]),
    "object_array": np.array([object()]),
    "object_array_of_numbers": np.array([1, 2], dtype=object),
    "datetime_array": np.array([1], dtype="M8[s]"),
    "timedelta_array": np.array([1], dtype="m8[s]"),
    "void_array": np.zeros(2, dtype=[("a", "f4")]),
    "str": "abc",
    "list_of_str": ["a", "b"],
    "numpy_str_scalar": np.str_("a"),
}


@pytest.mark.parametrize("case", list(NON_NUMERIC))
def test_non_numeric_data_refused_everywhere(case):
    data = NON_NUMERIC[case]
    with pytest.raises(TypeError, match=r"^Variable\(\): data must be"):
        Variable(data)
    with pytest.raises(TypeError, match=r"^Variable\(\): data must be"):
        pyad.tensor(data)
    with pytest.raises(TypeError, match=r"^Variable\(\): data must be"):
        pyad.as_tensor(data)
    x = pyad.ones(2)
    with pytest.raises(TypeError, match=r"^Variable\.data\(\): data must be"):
        x.data = data
    assert x.data.dtype == np.float32                  # unchanged


@pytest.mark.parametrize("case", [c for c in NON_NUMERIC if c != "none"])
def test_non_numeric_data_refused_like_torch(case):
    if torch is None:
        pytest.skip("torch not installed")
    with pytest.raises((TypeError, ValueError)):
        torch.tensor(NON_NUMERIC[case])


def test_from_dlpack_refuses_non_numeric():
    # DLPack has no object, string or date types: the producer itself refuses.
    with pytest.raises(BufferError):
        pyad.from_dlpack(np.array([object()]))
    with pytest.raises(BufferError):
        pyad.from_dlpack(np.array(["a"]))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.int64,
                                   np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
def test_numeric_data_accepted(dtype):
    a = np.zeros(3, dtype=dtype)
    assert Variable(a).data is a
    assert pyad.tensor(a).dtype == dtype
    x = pyad.ones(3)
    x.data = a
    assert x.data is a


def test_variable_without_data_is_empty_but_none_is_refused():
    v = Variable()
    assert v.shape == (0,) and v.dtype == pyad.get_default_dtype()
    if torch is not None:
        assert tuple(torch.autograd.Variable().shape) == (0,)
        with pytest.raises(RuntimeError):
            torch.tensor(None)
    with pytest.raises(TypeError, match="got NoneType"):
        Variable(None, requires_grad=True)


# -- pickling and copying ---------------------------------------------------------------

import copy       # noqa: E402
import pickle     # noqa: E402


def _used_leaf(mod):
    """A leaf that has been through an op and a backward (it holds its accumulator)."""
    x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.sum().backward()
    return x, y


def _summary(v):
    grad = None if v.grad is None else v.grad.tolist()
    return (v.tolist(), str(v.dtype).replace("torch.", ""), v.requires_grad, v.is_leaf,
            v.grad_fn is None, grad)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_used_leaf(protocol):
    x, _ = _used_leaf(pyad)
    z = pickle.loads(pickle.dumps(x, protocol=protocol))
    # torch 2.13 pickles data and requires_grad, not .grad
    assert _summary(z) == ([1.0, 2.0, 3.0], "float32", True, True, True, None)
    z.sum().backward()                       # the copy is a working leaf of its own
    assert z.grad.tolist() == [1.0, 1.0, 1.0] and x.grad.tolist() == [2.0, 4.0, 6.0]


def test_deepcopy_used_leaf_keeps_grad_and_owns_memory():
    x, _ = _used_leaf(pyad)
    z = copy.deepcopy(x)
    assert _summary(z) == ([1.0, 2.0, 3.0], "float32", True, True, True, [2.0, 4.0, 6.0])
    assert not np.shares_memory(z.data, x.data)
    assert not np.shares_memory(z.grad.data, x.grad.data)
    z.sum().backward()
    assert z.grad.tolist() == [3.0, 5.0, 7.0] and x.grad.tolist() == [2.0, 4.0, 6.0]
    shared = copy.deepcopy([x, x])
    assert shared[0] is shared[1]


def test_copy_shares_data_and_drops_grad_like_torch():
    x, y = _used_leaf(pyad)
    c = copy.copy(x)
    assert c is not x and c.data is x.data
    assert _summary(c) == ([1.0, 2.0, 3.0], "float32", True, True, True, None)
    d = copy.copy(y)                          # a non-leaf becomes a leaf, as in torch
    assert _summary(d) == ([1.0, 4.0, 9.0], "float32", True, True, True, None)


def test_non_leaf_pickles_as_leaf_and_refuses_deepcopy():
    _, y = _used_leaf(pyad)
    z = pickle.loads(pickle.dumps(y))
    assert _summary(z) == ([1.0, 4.0, 9.0], "float32", True, True, True, None)
    with pytest.raises(RuntimeError, match="Only Variables created explicitly by the user "
                                           r"\(graph leaves\) support the deepcopy protocol"):
        copy.deepcopy(y)
    with pyad.no_grad():
        w = y * 2
    assert copy.deepcopy(w).tolist() == [2.0, 8.0, 18.0]


def test_pickle_and_copy_match_torch():
    if torch is None:
        pytest.skip("torch not installed")
    results = []
    for mod in (pyad, torch):
        x, y = _used_leaf(mod)
        out = [_summary(pickle.loads(pickle.dumps(x))), _summary(copy.deepcopy(x)),
               _summary(copy.copy(x)), _summary(pickle.loads(pickle.dumps(y))),
               _summary(copy.copy(y))]
        with pytest.raises(RuntimeError, match="deepcopy protocol"):
            copy.deepcopy(y)
        results.append(out)
    assert results[0] == results[1]


def test_pickle_keeps_dtype_shape_volatile_name_and_views():
    v = Variable(np.arange(6, dtype=np.int32).reshape(2, 3), volatile=True)
    v.name = "counts"
    z = pickle.loads(pickle.dumps(v))
    assert z.dtype == np.int32 and z.shape == (2, 3) and z.volatile and z.name == "counts"
    np.testing.assert_array_equal(z.data, v.data)
    base = pyad.arange(6.0)
    view = base[1:4]
    z = pickle.loads(pickle.dumps(view))
    assert z.tolist() == [1.0, 2.0, 3.0] and not z.is_view
    d = copy.deepcopy(view)
    d.data[0] = 100.0
    assert base.tolist()[1] == 1.0


class _Tagged(Variable):
    pass


def test_pickle_and_deepcopy_subclass_keep_type_and_attributes():
    t = _Tagged(np.ones(2), requires_grad=True)
    t.tag = {"epoch": 3}
    for z in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert type(z) is _Tagged and z.tag == {"epoch": 3} and z.requires_grad
    assert copy.deepcopy(t).tag is not t.tag


def test_deepcopy_leaf_whose_grad_has_history():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    z = copy.deepcopy(x)
    assert z.grad.tolist() == [3.0, 12.0] and z.grad.grad_fn is None
