"""pyad.testing: assert_close's verdicts, exception types and messages against
torch.testing's on the same inputs, assert_allclose, make_tensor."""
import math
import re
import warnings

import numpy as np
import pytest

import pyad
import pyad.testing

torch = pytest.importorskip("torch")


def to_torch(x):
    """The same input for torch: Variables become tensors, containers recurse."""
    if isinstance(x, pyad.Variable):
        return torch.from_numpy(np.array(x.detach().data))
    if isinstance(x, list):
        return [to_torch(v) for v in x]
    if isinstance(x, tuple):
        return tuple(to_torch(v) for v in x)
    if isinstance(x, dict):
        return {k: to_torch(v) for k, v in x.items()}
    return x


def outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as error:      # noqa: BLE001 - the type is what is compared
        return type(error), str(error)
    return None, ""


def normalise(msg):
    """torch's spellings of dtypes and shapes, as pyad writes them."""
    msg = msg.replace("<class 'torch.Tensor'>", "<class 'pyad._engine.Variable'>")
    msg = msg.replace("torch.Size", "pyad.Size").replace("torch.", "pyad.")
    return msg


def check_same(actual, expected, **kwargs):
    ours = outcome(pyad.testing.assert_close, actual, expected, **kwargs)
    theirs = outcome(torch.testing.assert_close, to_torch(actual), to_torch(expected),
                     **kwargs)
    assert ours[0] is theirs[0], (ours, theirs)
    assert ours[1] == normalise(theirs[1]), "\n%s\n---\n%s" % (ours[1], theirs[1])
    return ours


f32, f64, f16 = pyad.float32, pyad.float64, pyad.float16

CLOSE = [
    (pyad.tensor([1.0, 2.0, 3.0]), pyad.tensor([1.0, 2.0 + 1e-6, 3.0])),
    (pyad.tensor([1.0, 2.0], dtype=f64), pyad.tensor([1.0, 2.0 + 1e-8], dtype=f64)),
    (pyad.tensor([1.0, 2.0], dtype=f16), pyad.tensor([1.0, 2.001], dtype=f16)),
    (pyad.tensor([1, 2]), pyad.tensor([1, 2])),
    (pyad.tensor([True, False]), pyad.tensor([True, False])),
    (pyad.zeros(0), pyad.zeros(0)),
    (pyad.tensor(3.0), pyad.tensor(3.0)),
    (pyad.tensor([1 + 1j, 2j]), pyad.tensor([1 + 1j, 2j + 1e-9])),
    (np.array([1.0, 2.0]), np.array([1.0, 2.0])),
    (1.0, 1.0 + 1e-9), (1, 1), (True, True), (None, None), (np.float32(1.0), np.float32(1.0)),
    ([pyad.tensor(1.0), 2, (3.0, None)], [pyad.tensor(1.0), 2, (3.0, None)]),
    ({"a": pyad.tensor([1.0]), "b": 2}, {"b": 2, "a": pyad.tensor([1.0])}),
]


@pytest.mark.parametrize("actual, expected", CLOSE, ids=range(len(CLOSE)))
def test_close_inputs_pass_in_both(actual, expected):
    assert check_same(actual, expected) == (None, "")


NOT_CLOSE = [
    (pyad.tensor([1.0, 2.0, 3.0]), pyad.tensor([1.0, 2.5, 3.0]), {}),
    (pyad.tensor([1.0, 2.0, 3.0]), pyad.tensor([1.0, 2.0001, 3.0]), {}),
    (pyad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64),
     pyad.tensor([[1.0, 2.0], [3.5, 0.0]], dtype=f64), {}),
    (pyad.tensor([1.0, 2.0], dtype=f16), pyad.tensor([1.0, 2.5], dtype=f16), {}),
    (pyad.tensor([1, 2, 3]), pyad.tensor([1, 5, 3]), {}),
    (pyad.tensor([1, 2, 3], dtype=pyad.uint8), pyad.tensor([3, 2, 1], dtype=pyad.uint8), {}),
    (pyad.tensor([True, False]), pyad.tensor([True, True]), {}),
    (pyad.tensor(1.0), pyad.tensor(2.0), {}),
    (pyad.tensor([1.0, float("nan")]), pyad.tensor([1.0, float("nan")]), {}),
    (pyad.tensor([1.0, float("inf")]), pyad.tensor([1.0, 2.0]), {}),
    (pyad.tensor([1.0, 0.0]), pyad.tensor([1.0, 1.0]), {}),
    (pyad.tensor([1 + 1j, 2j]), pyad.tensor([1 + 1j, 3j]), {}),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.1]), dict(rtol=0.01, atol=0.01)),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.1]), dict(rtol=0.0, atol=0.0)),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.0, 3.0]), {}),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.0], dtype=f64), {}),
    (pyad.tensor([1, 2]), pyad.tensor([1.0, 2.0]), {}),
    (np.array([1.0, 2.0]), np.array([1.0, 3.0]), {}),
    (1.0, 1.1, {}), (1, 2, {}), (1, 1.0, {}), (True, False, {}), (None, 1, {}),
    (float("nan"), float("nan"), {}), (1.0, 0.0, {}), (1 + 2j, 1 + 3j, {}),
    ([1.0, 2.0], [1.0, 2.0, 3.0], {}),
    ([pyad.tensor(1.0), pyad.tensor([1.0, 2.0])], [pyad.tensor(1.0), pyad.tensor([1.0, 3.0])], {}),
    ({"a": 1, "b": 2}, {"a": 1, "c": 2}, {}),
    ({"a": pyad.tensor([1.0])}, {"a": pyad.tensor([2.0])}, {}),
    (pyad.tensor([1.0]), pyad.tensor([2.0]), dict(msg="custom")),
    (pyad.ones(2, 3), pyad.ones(2, 3).t().contiguous().t(), dict(check_stride=True)),
]


@pytest.mark.parametrize("actual, expected, kwargs", NOT_CLOSE, ids=range(len(NOT_CLOSE)))
def test_failures_have_torchs_type_and_message(actual, expected, kwargs):
    kind, _ = check_same(actual, expected, **kwargs)
    assert kind is AssertionError


def test_the_key_lines_of_the_brief():
    kind, msg = outcome(pyad.testing.assert_close, pyad.tensor([1.0, 2.0, 3.0]),
                        pyad.tensor([1.0, 2.5, 3.0]))
    assert kind is AssertionError
    assert msg.splitlines()[0] == "Tensor-likes are not close!"
    assert "Mismatched elements: 1 / 3 (33.3%)" in msg
    assert re.search(r"Greatest absolute difference: 0\.5 at index \(1,\) "
                     r"\(up to 1e-05 allowed\)", msg)


@pytest.mark.parametrize("actual, expected, kwargs", [
    (pyad.tensor([1.0]), pyad.tensor([2.0]), dict(equal_nan=True)),
    (pyad.tensor([1.0, float("nan")]), pyad.tensor([1.0, float("nan")]), dict(equal_nan=True)),
    (float("nan"), float("nan"), dict(equal_nan=True)),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.0], dtype=f64), dict(check_dtype=False)),
    (pyad.tensor([1, 2]), pyad.tensor([1.0, 2.0]), dict(check_dtype=False)),
    (pyad.tensor([1, 2]), pyad.tensor([1.0, 2.5]), dict(check_dtype=False)),
    (1, 1.0, dict(check_dtype=False)),
    (pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.1]), dict(rtol=0.1, atol=0.0)),
    (pyad.ones(2, 3), pyad.ones(2, 3).t().contiguous().t(), {}),
])
def test_the_options_change_the_verdict_as_torchs(actual, expected, kwargs):
    check_same(actual, expected, **kwargs)


@pytest.mark.parametrize("actual, expected, kwargs", [
    (pyad.tensor([1.0]), pyad.tensor([1.0]), dict(rtol=0.1)),
    (pyad.tensor([1.0]), pyad.tensor([1.0]), dict(atol=0.1)),
    (1.0, 1.0, dict(atol=0.1)),
])
def test_one_tolerance_without_the_other_is_a_value_error(actual, expected, kwargs):
    assert check_same(actual, expected, **kwargs)[0] is ValueError


@pytest.mark.parametrize("actual, expected", [
    (pyad.tensor([1.0]), np.array([1.0], dtype=np.float32)),
    (pyad.tensor([1.0]), [1.0]),
    (pyad.tensor(1.0), 1.0),
    ("a", "a"),
    (object(), object()),
])
def test_mixed_kinds_are_a_type_error(actual, expected):
    assert check_same(actual, expected)[0] is TypeError


def test_a_callable_msg_maps_the_generated_message():
    def mapper(generated):
        return "prefix: " + generated

    ours = outcome(pyad.testing.assert_close, pyad.tensor([1.0]), pyad.tensor([2.0]),
                   msg=mapper)
    theirs = outcome(torch.testing.assert_close, torch.tensor([1.0]), torch.tensor([2.0]),
                     msg=mapper)
    assert ours == theirs and ours[1].startswith("prefix: Tensor-likes")


def test_subclasses_are_refused_only_when_asked():
    p = pyad.nn.Parameter(pyad.tensor([1.0]))
    pyad.testing.assert_close(p, pyad.tensor([1.0]))
    with pytest.raises(TypeError, match="No comparison pair"):
        pyad.testing.assert_close(p, pyad.tensor([1.0]), allow_subclasses=False)
    tp = torch.nn.Parameter(torch.tensor([1.0]))
    with pytest.raises(TypeError, match="No comparison pair"):
        torch.testing.assert_close(tp, torch.tensor([1.0]), allow_subclasses=False)


def test_variables_that_require_grad_and_noncontiguous_views_compare():
    x = pyad.arange(6.0).reshape(2, 3).requires_grad_()
    pyad.testing.assert_close(x.t(), pyad.tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]))


def test_assert_allclose_is_deprecated_and_uses_the_old_defaults():
    for args in [(pyad.tensor([1.0, 2.0]), [1.0, 2.00001]),
                 (pyad.tensor([1.0, 2.0]), [1.0, 2.01]),
                 (pyad.tensor([1.0, float("nan")]), [1.0, float("nan")]),
                 ([1, 2], [1.0, 2.0]),
                 (pyad.tensor([1.0, 2.0], dtype=f64), pyad.tensor([1.0, 2.0 + 1e-6], dtype=f64))]:
        with warnings.catch_warnings(record=True) as ours_w:
            warnings.simplefilter("always")
            ours = outcome(pyad.testing.assert_allclose, *args)
        with warnings.catch_warnings(record=True) as theirs_w:
            warnings.simplefilter("always")
            theirs = outcome(torch.testing.assert_allclose, *[to_torch(a) for a in args])
        assert ours[0] is theirs[0] and ours[1] == normalise(theirs[1])
        assert [w.category for w in ours_w] == [FutureWarning]
        assert [w.category for w in theirs_w] == [FutureWarning]


# -- make_tensor ----------------------------------------------------------------------------

DTYPES = ["float32", "float64", "float16", "complex64", "complex128", "int64", "int32",
          "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_make_tensor_has_torchs_shape_dtype_and_range(dtype):
    ours = pyad.testing.make_tensor(200, 3, dtype=getattr(pyad, dtype), device="cpu")
    theirs = torch.testing.make_tensor(200, 3, dtype=getattr(torch, dtype), device="cpu")
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    o, t = np.asarray(ours.data), theirs.numpy()
    parts = (o.real, o.imag) if o.dtype.kind == "c" else (o,)
    for part in parts:
        lo, hi = (0, 2) if dtype == "bool" else (0, 10) if dtype == "uint8" else \
            (-9, 10) if o.dtype.kind in "iu" else (-9, 9)
        assert part.min() >= lo and part.max() < hi
        if o.dtype.kind != "b":
            assert part.max() - part.min() > (hi - lo) / 2      # spread over the range
    assert t.real.min() >= lo and t.real.max() < hi


def test_make_tensor_options():
    t = pyad.testing.make_tensor((4, 5), dtype=f64, device="cpu", low=2, high=3,
                                 requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.shape == (4, 5)
    assert float(t.min()) >= 2 and float(t.max()) < 3
    n = pyad.testing.make_tensor(3, 4, dtype=f32, device="cpu", noncontiguous=True)
    tn = torch.testing.make_tensor(3, 4, dtype=torch.float32, device="cpu", noncontiguous=True)
    assert n.shape == (3, 4) and not n.is_contiguous() and not tn.is_contiguous()
    assert n.stride() == tn.stride()
    one = pyad.testing.make_tensor(1, dtype=f32, device="cpu", noncontiguous=True)
    assert one.is_contiguous()
    z = pyad.testing.make_tensor(1000, dtype=pyad.int64, device="cpu", low=-1, high=2,
                                 exclude_zero=True)
    assert (z != 0).all()
    zf = pyad.testing.make_tensor(1000, dtype=f16, device="cpu", low=0, high=1e-7,
                                  exclude_zero=True)
    assert (zf != 0).all()
    assert pyad.testing.make_tensor(dtype=f32, device="cpu").shape == ()
    assert pyad.testing.make_tensor(0, 2, dtype=f32, device="cpu").shape == (0, 2)


@pytest.mark.parametrize("kwargs", [
    dict(low=3, high=2), dict(low=float("nan")), dict(dtype="uint8", low=-5, high=-1),
    dict(dtype="int64", requires_grad=True), dict(dtype="bool", requires_grad=True),
    dict(noncontiguous=True, memory_format="channels_last"),
])
def test_make_tensor_refuses_what_torch_refuses(kwargs):
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", "float32")
    theirs_kwargs = dict(kwargs)
    if "memory_format" in kwargs:
        theirs_kwargs["memory_format"] = torch.channels_last
    ours = outcome(pyad.testing.make_tensor, 2, 3, 4, 5, dtype=getattr(pyad, dtype),
                   device="cpu", **kwargs)
    theirs = outcome(torch.testing.make_tensor, 2, 3, 4, 5, dtype=getattr(torch, dtype),
                     device="cpu", **theirs_kwargs)
    assert ours[0] is theirs[0] is ValueError
    assert ours[1].split(",")[0].split("=")[0] == theirs[1].split(",")[0].split("=")[0]


def test_make_tensor_low_equal_high_warns_for_floats_as_torch():
    with pytest.warns(FutureWarning):
        torch.testing.make_tensor(2, dtype=torch.float32, device="cpu", low=1, high=1)
    with pytest.warns(FutureWarning, match="low==high"):
        t = pyad.testing.make_tensor(2, dtype=f32, device="cpu", low=1, high=1)
    assert math.isclose(float(t[0]), 1.0)
