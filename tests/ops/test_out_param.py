"""``out=`` on pyad's functions, as torch's: the result written into the given Variable,
which is returned (resized, with torch's warning, when its shape differs), under
torch's dtype rules, refused where it would need a gradient (pyad/ops/_out.pxi,
pyad/_out.py). Expected values are hand math or torch run on the same inputs."""
import warnings

import numpy
import pytest

import pyad

try:
    import torch
except ImportError:                     # the hand-math tests still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def P(name):
    return getattr(pyad, name)


def T(name):
    return getattr(torch, name)


# -- the basic contract, by hand -------------------------------------------------------

def test_out_is_written_and_returned_and_its_version_moves():
    a = pyad.tensor([1.0, 2.0])
    out = pyad.zeros(2)
    v0 = out._version
    r = pyad.add(a, 10, out=out)
    assert r is out
    numpy.testing.assert_array_equal(out.numpy(), [11.0, 12.0])
    assert out._version == v0 + 1


def test_out_into_itself():
    x = pyad.tensor([0.0, 1.0])
    pyad.exp(x, out=x)
    numpy.testing.assert_allclose(x.numpy(), numpy.exp([0.0, 1.0]).astype(numpy.float32))


def test_a_view_out_writes_through_to_its_base():
    base = pyad.zeros(4)
    pyad.mul(pyad.tensor([1.0, 2.0]), 3, out=base[1:3])
    numpy.testing.assert_array_equal(base.numpy(), [0.0, 3.0, 6.0, 0.0])


def test_a_transposed_out_keeps_its_strides():
    out = pyad.zeros(3, 2).t()
    pyad.add(pyad.ones(2, 3), pyad.arange(3.0), out=out)
    assert out.stride() == (1, 2)
    numpy.testing.assert_array_equal(out.numpy(), [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])


def test_an_out_of_another_shape_is_resized_with_torchs_warning():
    out = pyad.zeros(5)
    with pytest.warns(UserWarning, match=r"An output with one or more elements was resized "
                      r"since it had shape \[5\], which does not match the required output "
                      r"shape \[2\]") as record:
        pyad.sub(pyad.tensor([3.0, 4.0]), 1, out=out)
    assert record[0].filename == __file__            # the warning points at the caller
    assert out.shape == (2,)
    numpy.testing.assert_array_equal(out.numpy(), [2.0, 3.0])


def test_an_empty_out_is_resized_silently():
    out = pyad.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pyad.neg(pyad.ones(2, 3), out=out)
    assert out.shape == (2, 3)
    numpy.testing.assert_array_equal(out.numpy(), -numpy.ones((2, 3)))


def test_an_out_whose_elements_overlap_is_refused():
    out = pyad.zeros(1).expand(3)
    with pytest.raises(RuntimeError, match=r"exp\(\): unsupported operation: more than one "
                       "element of the written-to Variable refers to a single memory location"):
        pyad.exp(pyad.ones(3), out=out)


def test_out_must_be_a_variable():
    with pytest.raises(TypeError, match=r"add\(\): argument 'out' must be Variable, not list"):
        pyad.add(pyad.ones(2), 1, out=[0.0, 0.0])
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'out' must be Variable, "
                       "not ndarray"):
        pyad.zeros(2, out=numpy.zeros(2))
    with pytest.raises(TypeError, match=r"sort\(\): argument 'out' must be tuple of 2 "
                       "Variables"):
        pyad.sort(pyad.ones(2), out=pyad.empty(2))


# -- gradients: out= is not differentiable -----------------------------------------------

def test_out_is_refused_when_an_input_requires_grad():
    a = pyad.ones(2, requires_grad=True)
    out = pyad.zeros(2)
    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments "
                       "don't support automatic differentiation, but one of the arguments "
                       "requires grad"):
        pyad.mul(a, 2, out=out)
    numpy.testing.assert_array_equal(out.numpy(), [0.0, 0.0])      # nothing written
    assert out.grad_fn is None


def test_out_is_refused_when_out_requires_grad_and_allowed_under_no_grad():
    out = pyad.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="functions with out="):
        pyad.add(pyad.ones(2), 1, out=out)
    with pytest.raises(RuntimeError, match="functions with out="):
        pyad.zeros(2, out=out)
    a = pyad.ones(2, requires_grad=True)
    with pyad.no_grad():
        r = pyad.add(a, 1, out=out)
    assert r is out and out.grad_fn is None and out.requires_grad
    numpy.testing.assert_array_equal(out.detach().numpy(), [2.0, 2.0])


def test_an_op_that_records_nothing_takes_out_from_an_input_that_requires_grad():
    a = pyad.tensor([1.0, 2.0], requires_grad=True)
    out = pyad.zeros(2, dtype=pyad.bool)
    pyad.eq(a, 1.0, out=out)                    # comparisons are not differentiable
    assert out.tolist() == [True, False]
    idx = pyad.zeros((), dtype=pyad.int64)
    pyad.argmax(a, 0, out=idx)
    assert idx.item() == 1


# -- dtypes -------------------------------------------------------------------------------

def test_elementwise_results_cast_within_torchs_rules():
    out = pyad.zeros(2, dtype=pyad.float64)
    pyad.add(pyad.tensor([1, 2]), 1, out=out)                 # int64 into float64
    assert out.dtype == pyad.float64 and out.tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match=r"add\(\): result type Float can't be cast to the "
                       "desired output type Long"):
        pyad.add(pyad.tensor([1.0]), 1, out=pyad.zeros(1, dtype=pyad.int64))
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired "
                       "output type Bool"):
        pyad.add(pyad.tensor([1]), 1, out=pyad.zeros(1, dtype=pyad.bool))
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast"):
        pyad.mul(pyad.tensor([1j]), 2, out=pyad.zeros(1))


def test_matmul_and_indices_want_their_own_dtype():
    with pytest.raises(RuntimeError, match=r"matmul\(\): Expected out Variable to have "
                       "dtype float, but got double instead"):
        pyad.matmul(pyad.ones(2, 2), pyad.ones(2, 2), out=pyad.zeros(2, 2, dtype=pyad.float64))
    with pytest.raises(RuntimeError, match=r"max\(\): Expected out Variable to have dtype "
                       "long int, but got int instead"):
        pyad.max(pyad.tensor([3.0, 1.0]), 0,
                 out=(pyad.empty(0), pyad.empty(0, dtype=pyad.int32)))


def test_cat_refuses_an_uncastable_out_with_type_error():
    with pytest.raises(TypeError, match=r"cat\(\): input types can't be cast to the desired "
                       "output type Long"):
        pyad.cat([pyad.ones(2), pyad.ones(2)], out=pyad.zeros(4, dtype=pyad.int64))
    out = pyad.zeros(4, dtype=pyad.float64)
    pyad.cat([pyad.ones(2), pyad.tensor([2, 3])], out=out)
    assert out.tolist() == [1.0, 1.0, 2.0, 3.0] and out.dtype == pyad.float64


def test_sum_and_cumsum_compute_in_outs_dtype():
    # torch's kernels cast the input to out's dtype first: 1.5 -> 1 in int64
    out = pyad.zeros(1, dtype=pyad.int64)
    pyad.sum(pyad.tensor([[1.5, 1.5]]), 1, out=out)
    assert out.tolist() == [2]
    out = pyad.zeros(2, dtype=pyad.int64)
    pyad.cumsum(pyad.tensor([1.5, 1.5]), 0, out=out)
    assert out.tolist() == [1, 2]
    out = pyad.zeros(1, dtype=pyad.int64)
    pyad.prod(pyad.tensor([[1.5, 2.5]]), 1, out=out)
    assert out.tolist() == [2]


# -- tuple results --------------------------------------------------------------------------

def test_values_and_indices_outs():
    values, indices = pyad.empty(0), pyad.empty(0, dtype=pyad.int64)
    r = pyad.max(pyad.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(values, indices))
    assert r.values is values and r.indices is indices
    assert values.tolist() == [3.0, 4.0] and indices.tolist() == [1, 0]
    values, indices = pyad.empty(0), pyad.empty(0, dtype=pyad.int64)
    r = pyad.sort(pyad.tensor([3.0, 1.0, 2.0]), descending=True, out=[values, indices])
    assert r[0] is values and values.tolist() == [3.0, 2.0, 1.0]
    assert indices.tolist() == [0, 2, 1]


# -- factories ------------------------------------------------------------------------------

def test_factories_make_their_values_in_outs_dtype():
    out = pyad.empty(3, dtype=pyad.int32)
    assert pyad.arange(3, out=out) is out
    assert out.dtype == pyad.int32 and out.tolist() == [0, 1, 2]
    out = pyad.empty(3, dtype=pyad.float64)
    pyad.linspace(0, 1, 3, out=out)
    assert out.tolist() == [0.0, 0.5, 1.0]
    out = pyad.empty(2, 2, dtype=pyad.int64)
    pyad.eye(2, out=out)
    assert out.tolist() == [[1, 0], [0, 1]]
    out = pyad.empty(0, dtype=pyad.float64)
    pyad.randn(4, 5, out=out)
    assert out.shape == (4, 5) and out.dtype == pyad.float64
    with pytest.raises(RuntimeError, match=r"ones\(\): dtype Double does not match dtype of "
                       r"out parameter \(Float\)"):
        pyad.ones(2, dtype=pyad.float64, out=pyad.empty(2))


def test_the_profiler_reports_an_op_with_out_once():
    out = pyad.zeros(2)
    with pyad.autograd.profiler.profile() as prof:
        pyad.add(pyad.ones(2), 1, out=out)
    names = [e.name for e in prof.function_events]
    assert names.count("add") == 1, names


# -- against torch on the same inputs ----------------------------------------------------------

_UNARY = ["abs", "neg", "exp", "log", "sqrt", "tanh", "sigmoid", "sin", "floor", "ceil",
          "round", "trunc", "reciprocal", "square", "expm1", "log1p", "erf", "sign", "frac",
          "logical_not", "bitwise_not", "signbit", "asinh", "exp2", "erfinv", "lgamma",
          "digamma", "i0", "sinc", "angle", "sgn", "nan_to_num"]


@needs_torch
@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool", "complex64"])
def test_unary_ops_with_out_match_torch(name, out_dtype):
    data = numpy.array([-1.5, 0.0, 0.5, 2.0, numpy.nan], dtype=numpy.float32)
    if name in ("bitwise_not",):
        data = numpy.array([-2, 0, 3], dtype=numpy.int64)
    _compare(name, (data,), {}, out_dtype)


_BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot",
           "fmod", "remainder", "floor_divide", "eq", "lt", "ge", "logical_and",
           "logaddexp", "copysign", "fmax", "xlogy", "nextafter", "heaviside", "float_power"]


@needs_torch
@pytest.mark.parametrize("name", _BINARY)
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
def test_binary_ops_with_out_match_torch(name, out_dtype):
    a = numpy.array([[-1.5, 0.0, 2.5], [3.0, -2.0, 1.0]], dtype=numpy.float32)
    b = numpy.array([2.0, -1.0, 0.5], dtype=numpy.float32)       # broadcast
    _compare(name, (a, b), {}, out_dtype)


_REDUCTIONS = [("sum", (1,)), ("mean", (1,)), ("prod", (0,)), ("amax", (1,)),
               ("argmin", (1,)), ("logsumexp", (1,)), ("std", (1,)), ("var", (0,)),
               ("cumsum", (1,)), ("cumprod", (0,)), ("nansum", (1,)), ("all", (1,)),
               ("any", (0,)), ("norm", ())]


@needs_torch
@pytest.mark.parametrize("name,args", _REDUCTIONS)
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
def test_reductions_with_out_match_torch(name, args, out_dtype):
    data = numpy.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=numpy.float32)
    _compare(name, (data,) + args, {}, out_dtype)


_LINALG_SHAPE = [
    ("matmul", lambda: (numpy.ones((2, 3), numpy.float32), numpy.arange(6.0, dtype=numpy.float32).reshape(3, 2)), {}),
    ("mm", lambda: (numpy.ones((2, 3), numpy.float32), numpy.ones((3, 1), numpy.float32)), {}),
    ("bmm", lambda: (numpy.ones((2, 2, 3), numpy.float32), numpy.ones((2, 3, 1), numpy.float32)), {}),
    ("mv", lambda: (numpy.ones((2, 3), numpy.float32), numpy.arange(3.0, dtype=numpy.float32)), {}),
    ("dot", lambda: (numpy.arange(3.0, dtype=numpy.float32), numpy.arange(3.0, dtype=numpy.float32)), {}),
    ("outer", lambda: (numpy.arange(3.0, dtype=numpy.float32), numpy.arange(2.0, dtype=numpy.float32)), {}),
    ("tril", lambda: (numpy.arange(9.0, dtype=numpy.float32).reshape(3, 3),), {}),
    ("index_select", lambda: (numpy.arange(6.0, dtype=numpy.float32).reshape(2, 3), 1, numpy.array([2, 0])), {}),
    ("gather", lambda: (numpy.arange(6.0, dtype=numpy.float32).reshape(2, 3), 1, numpy.array([[2], [0]])), {}),
    ("where", lambda: (numpy.array([True, False, True]), numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)), {}),
    ("clamp", lambda: (numpy.arange(-2.0, 3.0, dtype=numpy.float32),), {"min": -1.0, "max": 1.0}),
    ("masked_select", lambda: (numpy.arange(4.0, dtype=numpy.float32), numpy.array([True, False, True, True])), {}),
    ("nonzero", lambda: (numpy.array([[1.0, 0.0], [0.0, 2.0]], numpy.float32),), {}),
    ("addmm", lambda: (numpy.ones((2, 2), numpy.float32), numpy.ones((2, 3), numpy.float32), numpy.ones((3, 2), numpy.float32)), {"beta": 0.5, "alpha": 2.0}),
    ("kron", lambda: (numpy.eye(2, dtype=numpy.float32), numpy.arange(2.0, dtype=numpy.float32)), {}),
    ("diff", lambda: (numpy.array([1.0, 4.0, 9.0], numpy.float32),), {}),
    ("searchsorted", lambda: (numpy.array([1.0, 3.0, 5.0], numpy.float32), numpy.array([0.0, 3.0, 6.0], numpy.float32)), {}),
]


@needs_torch
@pytest.mark.parametrize("name,make,kwargs", _LINALG_SHAPE, ids=[c[0] for c in _LINALG_SHAPE])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
def test_linalg_and_shape_ops_with_out_match_torch(name, make, kwargs, out_dtype):
    _compare(name, make(), kwargs, out_dtype)


_TUPLES = [("max", (1,)), ("min", (0,)), ("sort", (1,)), ("topk", (2,)), ("kthvalue", (2,)),
           ("median", (1,)), ("cummax", (1,)), ("cummin", (0,)), ("mode", (1,))]


@needs_torch
@pytest.mark.parametrize("name,args", _TUPLES)
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_values_and_indices_outs_match_torch(name, args, index_dtype):
    data = numpy.array([[1.5, -2.0, 0.25], [3.0, 0.5, 0.5]], dtype=numpy.float32)
    results = []
    for lib, conv in ((torch, torch.from_numpy), (pyad, pyad.from_numpy)):
        outs = (lib.empty(0), lib.empty(0, dtype=getattr(lib, index_dtype)))
        try:
            r = getattr(lib, name)(conv(data.copy()), *args, out=outs)
            assert r[0] is outs[0] and r[1] is outs[1]
            results.append(("ok", outs[0].numpy().copy(), outs[1].numpy().copy()))
        except (RuntimeError, TypeError) as exc:
            results.append((type(exc).__name__,))
    assert results[0][0] == results[1][0], results
    if results[0][0] == "ok":
        for t, p in zip(results[0][1:], results[1][1:]):
            numpy.testing.assert_array_equal(p, t)


@needs_torch
@pytest.mark.parametrize("name,args", [("zeros", (2, 3)), ("ones", (4,)), ("arange", (1, 7, 2)),
                                       ("linspace", (0.0, 1.0, 5)), ("full", ((2,), 7)),
                                       ("eye", (3,)), ("logspace", (0, 2, 3))])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "int32"])
def test_factories_with_out_match_torch(name, args, out_dtype):
    _compare(name, args, {}, out_dtype, arrays=False)


@needs_torch
@pytest.mark.parametrize("name", ["cat", "stack", "hstack", "vstack"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
def test_joins_with_out_match_torch(name, out_dtype):
    parts = [numpy.array([1.0, 2.0], numpy.float32), numpy.array([3, 4], numpy.int64)]
    results = []
    for lib, conv in ((torch, torch.from_numpy), (pyad, pyad.from_numpy)):
        out = lib.zeros(1, dtype=getattr(lib, out_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = getattr(lib, name)([conv(p.copy()) for p in parts], out=out)
                assert r is out
                results.append(("ok", out.numpy().copy()))
            except (RuntimeError, TypeError) as exc:
                results.append((type(exc).__name__,))
    assert results[0][0] == results[1][0], results
    if results[0][0] == "ok":
        numpy.testing.assert_array_equal(results[1][1], results[0][1])
        assert results[1][1].dtype == results[0][1].dtype


@needs_torch
@pytest.mark.parametrize("name,args", [("inverse", (numpy.array([[2.0, 1.0], [1.0, 3.0]]),)),
                                       ("deg2rad", (numpy.array([180.0, 90.0]),)),
                                       ("histc", (numpy.array([1.0, 2.0, 1.0, 4.0]), 4)),
                                       ("inner", (numpy.arange(3.0), numpy.ones(3))),
                                       ("matrix_power", (numpy.array([[1.0, 1.0], [0.0, 1.0]]), 3))])
def test_python_level_ops_with_out_match_torch(name, args):
    _compare(name, args, {}, "float64")


def _compare(name, args, kwargs, out_dtype, arrays=True):
    """Run ``name(*args, out=...)`` in torch and in pyad with an out of ``out_dtype`` and
    shape (1,) (so it is resized); both must fail alike or write the same values."""
    results = []
    for lib in (torch, pyad):
        conv = (lambda a: lib.from_numpy(a.copy()) if isinstance(a, numpy.ndarray) else a) \
            if arrays else (lambda a: a)
        out = lib.zeros(1, dtype=getattr(lib, out_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = getattr(lib, name)(*[conv(a) for a in args], out=out, **kwargs)
            except (RuntimeError, TypeError, NotImplementedError) as exc:
                results.append((type(exc).__name__,))
                continue
        assert r is out
        results.append(("ok", out.numpy().copy()))
    assert results[0][0] == results[1][0], (name, out_dtype, results)
    if results[0][0] == "ok":
        expected, got = results[0][1], results[1][1]
        assert got.dtype == expected.dtype and got.shape == expected.shape
        numpy.testing.assert_allclose(got, expected, rtol=2e-6, atol=0, equal_nan=True)
