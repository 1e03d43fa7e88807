"""Differential probes of printing and Python-object behaviour against torch 2.13.

Each test runs the same code on ``torch`` and on ``pyad`` and compares the outcome:
texts (with torch's "torch." prefix removed where pyad names dtypes as NumPy does, and
torch's numbered node suffix "MulBackward0" -> "MulBackward", both documented
differences), values, types and exception types.
"""
import copy
import os
import pickle
import re

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def _norm(text):
    return re.sub(r"(Backward)\d+", r"\1", text.replace("torch.", ""))


def _outcome(fn, lib):
    try:
        return ("ok", fn(lib))
    except Exception as exc:            # noqa: BLE001  (the type is what is compared)
        return ("raise", type(exc))


# --- repr/str of Variables ------------------------------------------------------

VALUES = [
    [1., 2.], [1.5, 2.25], 0., -0., [-0., 0.], [1e-5, 1.], [1e8, 1.], [1e9, 1.],
    [1e-4, 1.], [0.1, 1000.], [0.1, 100.1], [NAN, INF, -INF], [NAN, 1.5], [1e-300],
    [1e300], [[1., 2.], [3., 4.]], [[[1., 2.]]], np.arange(2000.).tolist(),
    np.arange(1001.).tolist(), (np.arange(24.) / 7).reshape(2, 3, 4).tolist(),
    (np.arange(2000.) / 7).reshape(20, 100).tolist(), np.arange(3000.).reshape(10, 10, 30).tolist(),
    [12345.678, 0.001], np.linspace(-1, 1, 40).tolist(), [65504., 1.], [0.5, NAN, 1e10], 1e-6,
]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
          "uint8", "bool", "complex64", "complex128"]


def _int_safe(a, dtype):
    a = np.asarray(a)
    if dtype in ("float32", "float64", "float16", "bfloat16", "complex64", "complex128"):
        return a
    if not np.all(np.isfinite(a)):
        return None
    a = np.abs(a) % 100 if dtype in ("int8", "uint8") else a % 1000
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", range(len(VALUES)))
def test_repr_of_every_dtype_matches_torch(index, dtype):
    a = _int_safe(VALUES[index], dtype)
    if a is None:
        pytest.skip("no integer version of a non-finite value")
    t = torch.tensor(a.tolist(), dtype=getattr(torch, dtype))
    with np.errstate(over="ignore"):
        v = pyad.tensor(a.tolist(), dtype=getattr(pyad, dtype))
    assert repr(v) == str(v) == _norm(repr(t))


SUFFIX_CASES = {
    "requires_grad": lambda lib: lib.tensor([1., 2.], requires_grad=True),
    "requires_grad_f64": lambda lib: lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True),
    "grad_fn": lambda lib: lib.tensor([1., 2.], requires_grad=True) * 2,
    "grad_fn_0d": lambda lib: (lib.tensor([1., 2.], requires_grad=True) * 2).sum(),
    "empty_rg": lambda lib: lib.zeros(0, requires_grad=True),
    "empty_2d": lambda lib: lib.zeros(2, 0),
    "empty_3d_int": lambda lib: lib.zeros(2, 0, 3, dtype=lib.int64),
    "empty_bool": lambda lib: lib.zeros(0, dtype=lib.bool),
    "long_line_rg": lambda lib: lib.arange(20.).requires_grad_(),
    "wrap_f64": lambda lib: lib.arange(14., dtype=lib.float64).requires_grad_() * 1,
    "wrap_int32": lambda lib: lib.arange(13, dtype=lib.int32) * 100000,
    "big_2d_rg": lambda lib: lib.ones(50, 50, requires_grad=True),
    "detached": lambda lib: lib.tensor([1., 2.], requires_grad=True).detach(),
    "param": lambda lib: lib.nn.Parameter(lib.tensor([1., 2.])),
    "param_nograd": lambda lib: lib.nn.Parameter(lib.tensor([1., 2.]), requires_grad=False),
    "param_0d_f64": lambda lib: lib.nn.Parameter(lib.tensor(1., dtype=lib.float64)),
    "param_big": lambda lib: lib.nn.Parameter(lib.ones(40, 40)),
    "param_empty": lambda lib: lib.nn.Parameter(lib.ones(0)),
}


@pytest.mark.parametrize("name", sorted(SUFFIX_CASES))
def test_suffixes_and_parameters_print_as_torch(name):
    t, v = SUFFIX_CASES[name](torch), SUFFIX_CASES[name](pyad)
    assert repr(v) == _norm(repr(t))
    assert str(v) == _norm(str(t))


def test_print_of_containers_and_no_grad():
    assert str([pyad.tensor([1., 2.]), pyad.tensor(3)]) == _norm(
        str([torch.tensor([1., 2.]), torch.tensor(3)]))
    texts = []
    for lib in (torch, pyad):
        x = lib.tensor([1., 2.], requires_grad=True)
        with lib.no_grad():
            texts.append(repr(x) + repr(x * 2))
    assert texts[1] == _norm(texts[0])


PRINT_OPTIONS = [dict(precision=2), dict(precision=0), dict(precision=8), dict(threshold=5),
                 dict(threshold=10, edgeitems=1), dict(edgeitems=2), dict(linewidth=40),
                 dict(linewidth=200), dict(sci_mode=True), dict(sci_mode=False),
                 dict(profile="short"), dict(profile="full"), dict(profile="short", precision=6),
                 dict(threshold=INF), dict(precision=2, sci_mode=True)]


def _printed(lib):
    return "\n".join(repr(x) for x in [
        lib.tensor([1.123456789, 2.5, 3.]), lib.arange(30.), lib.tensor([1e-5, 1.]),
        lib.arange(2000.), lib.arange(100.).reshape(10, 10), lib.tensor([123456.789, 1.]),
        lib.tensor([1.5 + 2.25j, 1]), lib.arange(12).reshape(3, 4), lib.tensor(3.14159265),
        lib.arange(20.) * 1e10, lib.arange(10.) / 3, lib.tensor([0.1, 1000.])])


@pytest.mark.parametrize("options", PRINT_OPTIONS, ids=str)
def test_set_printoptions_and_reset(options):
    texts = []
    for lib in (torch, pyad):
        lib.set_printoptions(**options)
        try:
            texts.append(_printed(lib))
        finally:
            lib.set_printoptions(profile="default")
        texts.append(_printed(lib))          # back to the defaults
    assert texts[2] == _norm(texts[0])
    assert texts[3] == _norm(texts[1])


def test_sci_mode_is_reset_by_the_next_call():
    texts = []
    for lib in (torch, pyad):
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=2)
        first = repr(lib.tensor([1.5]))
        lib.set_printoptions(profile="default")
        texts.append(first + repr(lib.tensor([1.5])))
    assert texts[1] == texts[0]


# --- format ---------------------------------------------------------------------

FORMATS = [(3.14159, ".2f"), (3.14159, ""), (3, "05d"), (True, ""), (-0.0, ".1f"),
           (NAN, ".3f"), ([3.14159], ""), ([3.14159], ".2f"), ([[1., 2.]], "")]


@pytest.mark.parametrize("value, spec", FORMATS)
def test_format_matches_torch(value, spec):
    a = _outcome(lambda lib: format(lib.tensor(value), spec), torch)
    b = _outcome(lambda lib: format(lib.tensor(value), spec), pyad)
    assert b[0] == a[0]
    if a[0] == "ok":
        assert b[1] == a[1]
    else:
        assert issubclass(b[1], a[1])
    if isinstance(value, float):
        assert f"{pyad.tensor(value, requires_grad=True):{spec}}" == \
            f"{torch.tensor(value, requires_grad=True):{spec}}"


# --- Python protocols -----------------------------------------------------------

SCALARS = [(0., None), (1.5, None), ([2.], None), ([1., 2.], None), ([], None), (3, None),
           ([3], None), (True, None), ([[1.]], None), (NAN, None), (INF, None), (-0., None),
           (5, "uint8"), (7, "int8"), (1.5, "float16"), (2.5, "bfloat16"), (1 + 2j, None)]
PROTOCOLS = {
    "bool": bool, "item": lambda v: v.item(), "tolist": lambda v: v.tolist(),
    "len": len, "index": lambda v: [10, 20, 30, 40, 50, 60, 70, 80][v],
    "range": lambda v: list(range(v)), "hex": hex, "iter": lambda v: [x.tolist() for x in v],
}


@pytest.mark.parametrize("proto", sorted(PROTOCOLS))
@pytest.mark.parametrize("value, dtype", SCALARS, ids=str)
def test_python_protocols_match_torch(value, dtype, proto):
    def run(lib):
        v = lib.tensor(value) if dtype is None else lib.tensor(value, dtype=getattr(lib, dtype))
        return PROTOCOLS[proto](v)
    a, b = _outcome(run, torch), _outcome(run, pyad)
    assert b[0] == a[0], (a, b)
    if a[0] == "ok":
        assert type(b[1]) is type(a[1]) and repr(b[1]) == repr(a[1])
    else:
        assert issubclass(b[1], a[1])


@pytest.mark.parametrize("conv", [int, float, complex])
@pytest.mark.parametrize("value", [0., 1.5, [2.], 3, True, NAN, -0., [1., 2.], []], ids=str)
def test_number_conversions_match_torch(value, conv):
    a, b = _outcome(lambda lib: conv(lib.tensor(value)), torch), \
        _outcome(lambda lib: conv(lib.tensor(value)), pyad)
    assert b[0] == a[0]
    if a[0] == "ok":
        assert type(b[1]) is type(a[1]) and repr(b[1]) == repr(a[1])
    else:
        assert issubclass(b[1], a[1])


CHECKS = {
    "bool_many": lambda lib: bool(lib.tensor([1., 2.])),
    "bool_empty": lambda lib: bool(lib.tensor([])),
    "item_many": lambda lib: lib.tensor([1., 2.]).item(),
    "item_empty": lambda lib: lib.tensor([]).item(),
    "index_float": lambda lib: [1, 2, 3][lib.tensor(1.)],
    "index_many": lambda lib: [1, 2, 3][lib.tensor([1, 2])],
    "numpy_rg": lambda lib: lib.tensor([2.], requires_grad=True).numpy(),
    "asarray_rg": lambda lib: np.asarray(lib.tensor([2.], requires_grad=True)),
    "numpy_force": lambda lib: lib.tensor([2.], requires_grad=True).numpy(force=True).tolist(),
    "asarray": lambda lib: np.asarray(lib.tensor([2.5, 1.])).dtype.name,
    "asarray_dtype": lambda lib: np.asarray(lib.tensor([2.5]), dtype=np.float64).dtype.name,
    "eq_none": lambda lib: lib.tensor([1.]) == None,       # noqa: E711
    "ne_none": lambda lib: lib.tensor([1.]) != None,       # noqa: E711
    "lt_none": lambda lib: lib.tensor([1.]) < None,
    "in_float": lambda lib: 2. in lib.tensor([1., 2.]),
    "in_int": lambda lib: 3 in lib.tensor([1, 2]),
    "in_0d": lambda lib: lib.tensor(2.) in lib.tensor([1., 2.]),
    "in_nan": lambda lib: NAN in lib.tensor([NAN]),
    "in_str": lambda lib: "a" in lib.tensor([1., 2.]),
    "in_none": lambda lib: None in lib.tensor([1., 2.]),
    "hash_is_id": lambda lib: (lambda t: hash(t) == id(t))(lib.tensor([1.])),
    "set": lambda lib: len({lib.tensor(1.), lib.tensor(1.)}),
    "len_2d": lambda lib: len(lib.zeros(3, 4)),
    "len_empty": lambda lib: len(lib.zeros(0, 4)),
    "tolist_int32": lambda lib: [type(x).__name__ for x in
                                 lib.tensor([1, 2], dtype=lib.int32).tolist()],
    "tolist_empty2d": lambda lib: lib.zeros(2, 0).tolist(),
    "tolist_rg": lambda lib: lib.tensor([2.5], requires_grad=True).tolist(),
    "tolist_cplx": lambda lib: lib.tensor([1 + 2j]).tolist(),
    "builtin_max": lambda lib: max(lib.tensor([1., 3., 2.])).item(),
    "builtin_sum": lambda lib: sum(lib.tensor([1., 3., 2.])).item(),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_object_behaviour_matches_torch(name):
    a, b = _outcome(CHECKS[name], torch), _outcome(CHECKS[name], pyad)
    assert b[0] == a[0], (a, b)
    if a[0] == "ok":
        assert type(b[1]) is type(a[1]) and b[1] == a[1]
    else:
        assert issubclass(b[1], a[1])


# --- copy / deepcopy / pickle ---------------------------------------------------

def _copies(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * x).sum().backward()
    c, d = copy.copy(x), copy.deepcopy(x)
    d.data[0] = 9.
    p = pickle.loads(pickle.dumps(x))
    q = pickle.loads(pickle.dumps(x * 2))
    r = copy.copy(x * 2)
    par = copy.deepcopy(lib.nn.Parameter(lib.tensor([1., 2.], dtype=lib.float64)))
    pp = pickle.loads(pickle.dumps(lib.nn.Parameter(lib.tensor([1., 2.]))))
    t = pickle.loads(pickle.dumps(lib.arange(6, dtype=lib.int32).reshape(2, 3).t()))
    return [c is x, c.is_leaf, repr(c), c.grad is None, repr(d), repr(d.grad), repr(x),
            d.grad is x.grad, repr(p), p.grad is None, repr(q), q.is_leaf, repr(r), r.is_leaf,
            type(par).__name__, repr(par), type(pp).__name__, repr(pp), repr(t),
            repr(pickle.loads(pickle.dumps(lib.zeros(0, 3)))),
            repr(pickle.loads(pickle.dumps(lib.tensor(True))))]


def test_copy_deepcopy_and_pickle_match_torch():
    a, b = _copies(torch), _copies(pyad)
    assert b == [_norm(x) if isinstance(x, str) else x for x in a]


def test_deepcopy_of_a_non_leaf_raises_as_torch():
    with pytest.raises(RuntimeError):
        copy.deepcopy(torch.tensor([1.], requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match="deepcopy"):
        copy.deepcopy(pyad.tensor([1.], requires_grad=True) * 2)


# --- Size, finfo, iinfo, device -------------------------------------------------

SIZE_CHECKS = {
    "repr": lambda lib: repr(lib.Size([2, 3])),
    "empty": lambda lib: repr(lib.Size()),
    "slice": lambda lib: repr(lib.Size([2, 3, 4])[1:]),
    "neg": lambda lib: repr(lib.Size([-1, 2])),
    "float": lambda lib: lib.Size([1.5]),
    "np_float": lambda lib: lib.Size([np.float64(3)]),
    "np_bool": lambda lib: lib.Size([np.bool_(True)]),
    "str": lambda lib: lib.Size(["3"]),
    "none_item": lambda lib: lib.Size([None]),
    "bool": lambda lib: repr(lib.Size([True])),
    "np_int": lambda lib: repr(lib.Size([np.int64(3)])),
    "variable_1elem": lambda lib: repr(lib.Size([lib.tensor([3])])),
    "variable_0d_uint8": lambda lib: repr(lib.Size([lib.tensor(3, dtype=lib.uint8)])),
    "variable_float": lambda lib: lib.Size([lib.tensor(3.)]),
    "add": lambda lib: repr(lib.Size([2]) + lib.Size([3])),
    "add_tuple": lambda lib: repr(lib.Size([2]) + (3,)),
    "radd_tuple": lambda lib: repr((3,) + lib.Size([2])),
    "add_list": lambda lib: lib.Size([2]) + [3],
    "mul": lambda lib: repr(lib.Size([2, 1]) * 2),
    "rmul": lambda lib: repr(2 * lib.Size([2])),
    "mul_variable": lambda lib: repr(lib.Size([2]) * lib.tensor(2)),
    "mul_float": lambda lib: lib.Size([2]) * 1.5,
    "numel": lambda lib: (lib.Size([2, 3]).numel(), lib.Size().numel()),
    "eq": lambda lib: (lib.Size([2, 3]) == (2, 3), lib.Size([2, 3]) == [2, 3]),
    "pickle": lambda lib: repr(pickle.loads(pickle.dumps(lib.Size([2, 3])))),
    "deepcopy": lambda lib: repr(copy.deepcopy(lib.Size([2, 3]))),
    "fstring": lambda lib: f"{lib.Size([2, 3])}",
}


@pytest.mark.parametrize("name", sorted(SIZE_CHECKS))
def test_size_matches_torch(name):
    a, b = _outcome(SIZE_CHECKS[name], torch), _outcome(SIZE_CHECKS[name], pyad)
    assert b[0] == a[0], (a, b)
    if a[0] == "ok":
        assert b[1] == (a[1].replace("torch.", "pyad.") if isinstance(a[1], str) else a[1])
    else:
        assert issubclass(b[1], a[1])


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "complex64",
                                  "complex128"])
def test_finfo_repr_and_equality_match_torch(name):
    a, b = torch.finfo(getattr(torch, name)), pyad.finfo(getattr(pyad, name))
    assert repr(b) == repr(a)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                  "dtype"):
        assert getattr(b, field) == getattr(a, field), field
    assert (b == pyad.finfo(pyad.float32)) == (a == torch.finfo(torch.float32))
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        hash(b)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
def test_iinfo_repr_and_fields_match_torch(name):
    a, b = torch.iinfo(getattr(torch, name)), pyad.iinfo(getattr(pyad, name))
    assert repr(b) == repr(a)
    assert str(b) == str(a)
    for field in ("bits", "min", "max", "dtype"):
        assert getattr(b, field) == getattr(a, field)
        assert type(getattr(b, field)) is type(getattr(a, field))
    assert (b == pyad.iinfo(pyad.int32)) == (a == torch.iinfo(torch.int32))


def test_iinfo_refuses_bool_as_torch():
    with pytest.raises(TypeError):
        torch.iinfo(torch.bool)
    with pytest.raises(TypeError, match=r"iinfo\(\)"):
        pyad.iinfo(pyad.bool)


DEVICE_CHECKS = {
    "cpu": lambda lib: repr(lib.device("cpu")),
    "str": lambda lib: str(lib.device("cuda:1")),
    "repr_index": lambda lib: repr(lib.device("cuda", 1)),
    "cpu_index": lambda lib: lib.device("cpu").index,
    "type": lambda lib: lib.device("cuda:1").type,
    "eq": lambda lib: lib.device("cpu") == lib.device("cpu"),
    "bad": lambda lib: lib.device("blah"),
    "pickle": lambda lib: repr(pickle.loads(pickle.dumps(lib.device("cuda:1")))),
    "tensor_device": lambda lib: repr(lib.tensor(1.).device),
    # the string grammar and the index checks (torch 2.13's outcomes)
    "negative_in_string": lambda lib: lib.device("cuda:-1"),
    "negative_index": lambda lib: lib.device("cuda", -1),
    "letters": lambda lib: lib.device("cuda:abc"),
    "leading_zero": lambda lib: lib.device("cuda:01"),
    "space": lambda lib: lib.device("cuda: 1"),
    "bool_index": lambda lib: lib.device("cuda", True),
    "float_index": lambda lib: lib.device("cuda", 1.0),
    "negative_int": lambda lib: lib.device(-1),
    "cpu_zero": lambda lib: repr(lib.device("cpu:0")),
    "cuda_ten": lambda lib: repr(lib.device("cuda:10")),
    "keywords": lambda lib: repr(lib.device(type="cuda", index=3)),
    "copy": lambda lib: repr(lib.device(lib.device("cuda:2"))),
    # a device equals only a device, never its string
    "eq_str": lambda lib: lib.device("cpu") == "cpu",
    "ne_str": lambda lib: lib.device("cuda:1") != "cuda:1",
    "eq_index": lambda lib: lib.device("cpu") == lib.device("cpu", 0),
    "tensor_eq_str": lambda lib: lib.tensor(1.).device == "cpu",
}


@pytest.mark.parametrize("name", sorted(DEVICE_CHECKS))
def test_device_matches_torch(name):
    a, b = _outcome(DEVICE_CHECKS[name], torch), _outcome(DEVICE_CHECKS[name], pyad)
    assert b[0] == a[0], (a, b)
    if a[0] == "ok":
        assert b[1] == a[1]
    else:
        assert issubclass(b[1], a[1])


SCALAR_WARNING = "Converting a tensor with requires_grad=True to a scalar"


def test_float_of_a_variable_requiring_grad_warns_once_per_process_as_torch(tmp_path):
    # torch: float() (not int(), item(), bool(), tolist()) of a tensor that requires
    # grad, with grad mode on, gives a UserWarning once per process; set_warn_always
    # makes it every time. A fresh process of each library shows the same counts.
    import subprocess
    import sys
    script = r"""
import sys, warnings
lib = __import__(sys.argv[1])
x = lib.tensor([1.5], requires_grad=True)
counts = []
for f in (int, lambda t: t.item(), bool, lambda t: t.tolist(), lambda t: float(t.detach())):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f(x)
    counts.append(len(w))
with lib.no_grad(), warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    float(x)
counts.append(len(w))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    float(x); float(x * 2)
counts.append(len(w))
counts.append(str(w[0].message).startswith(%r) and w[0].category is UserWarning)
counts.append(w[0].filename == "<string>")     # the user's line, as torch
print(counts)
""" % SCALAR_WARNING
    out = {}
    for name in ("torch", "pyad"):
        # the pyad this process imported (site-packages, or the checkout for an in-place
        # build), from outside the checkout (`-c` puts the working directory first)
        home = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
        env = dict(os.environ, PYTHONPATH=home)
        run = subprocess.run([sys.executable, "-c", script, name], capture_output=True,
                             text=True, check=True, cwd=str(tmp_path), env=env)
        out[name] = run.stdout.strip()
    assert out["pyad"] == out["torch"] == "[0, 0, 0, 0, 0, 0, 1, True, True]", out


def test_float_warns_every_time_with_warn_always():
    before = pyad.is_warn_always_enabled()
    pyad.set_warn_always(True)
    try:
        x = pyad.tensor(2.0, requires_grad=True)
        for _ in range(2):
            with pytest.warns(UserWarning, match=SCALAR_WARNING):
                assert float(x) == 2.0
    finally:
        pyad.set_warn_always(before)
