"""Shared machinery for the op tests (imported by tests/ops/test_*.py).

An op case is written once as ``f(L, *xs)`` where ``L`` is one of three adapters
with the same vocabulary -- ``NP`` (NumPy reference), ``PYAD`` and ``TORCH`` -- and
``xs`` are the differentiable inputs (ndarrays, Variables or torch tensors).
Constants are written ``L.c(array)``: a raw ndarray for NumPy and pyad (so the
ndarray-on-either-side paths are exercised), a tensor for torch.

``check_values`` compares pyad with NumPy, ``check_gradcheck``/``check_gradgradcheck``
run pyad's finite-difference checks, ``check_vs_torch`` compares values and first
derivatives with PyTorch, ``check_second_order_vs_torch`` first derivatives taken with
create_graph=True and second derivatives, ``check_create_graph_matches_plain`` the two
backward formulas of every node (fast array path, recorded path) with each other.

Every case also runs in variants (``VARIANTS``): its inputs made 0-d, empty (size 0),
non-contiguous (transposed or strided views), or float32. A 0-d or empty variant
exists where the NumPy reference is defined on those shapes (``Case(zero_d=...,
empty=...)`` overrides the automatic shapes, ``False`` turns the variant off).
"""
import warnings

import numpy as np
import pytest

import pyad

def dname(d):
    """'float32', 'int64', 'bool' ... for a torch or a NumPy/pyad dtype."""
    if type(d).__module__.startswith("torch"):
        return str(d).replace("torch.", "")
    return np.dtype(d).name


def tnp(t):
    """A torch tensor's (or any array's) values as a NumPy array."""
    return t.detach().numpy() if type(t).__module__.startswith("torch") else np.asarray(t)


# torch's assertEqual tolerances (rtol, atol) by dtype, for the ports of its op tests
TORCH_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5),
                    "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5),
                    "complex128": (1e-7, 1e-7)}


def check_result(p, t, exact=True):
    """A pyad result against torch's (tuples and lists item by item): shape, dtype and
    values, NaN where NaN; exact, or within torch's assertEqual tolerance for the dtype
    (exact for a dtype it has none for)."""
    if isinstance(t, (tuple, list)):
        assert isinstance(p, (tuple, list)) and len(p) == len(t)
        for a, b in zip(p, t):
            check_result(a, b, exact)
        return
    assert tuple(p.shape) == tuple(t.shape), (p.shape, t.shape)
    assert dname(p.dtype) == dname(t.dtype), (p.dtype, t.dtype)
    tol = TORCH_TOLERANCES.get(dname(t.dtype))
    if exact or tol is None:
        np.testing.assert_array_equal(p.data, tnp(t))
    else:
        np.testing.assert_allclose(p.data, tnp(t), rtol=tol[0], atol=tol[1])


def both(a, dtype=None):
    """The same data as a pyad Variable and a torch tensor."""
    import torch
    a = np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype)
    return pyad.tensor(a.copy()), torch.tensor(a.copy())


def rnd(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def rint(shape, lo, hi, seed=0, dtype=np.int64):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


def same(fn, *arrays, exact=True):
    """``fn(module, *inputs)`` with pyad and with torch on the same data: equal results."""
    import torch
    ps, ts = zip(*[both(a) for a in arrays]) if arrays else ((), ())
    p, t = fn(pyad, *ps), fn(torch, *ts)
    check_result(p, t, exact)
    return p, t


def shares_memory(a, b):
    return np.shares_memory(a.data, b.data)


RTOL = 1e-10   # pyad vs torch / NumPy in float64
ATOL = 1e-12
# float32 (eps 1.2e-7): the two libraries may round in a different order over a few
# dozen operations (sums over a row, second derivatives), so about 100 ulps.
RTOL32 = 1e-5
ATOL32 = 1e-5
# create_graph=True vs the fast array backward of the same node: the same formula
# written with pyad ops or directly on arrays; only the order of a product or quotient
# may differ, a few ulps.
CG_TOL = {np.dtype(np.float64): (1e-13, 1e-15), np.dtype(np.float32): (1e-6, 1e-7)}


# --------------------------------------------------------------------------------
# Adapters
# --------------------------------------------------------------------------------

def _np_logsumexp(x, dim, keepdim=False):
    if x.size == 0:      # the log of an empty sum
        return np.full(np.sum(x, axis=dim, keepdims=keepdim).shape, -np.inf, x.dtype)
    m = np.max(x, axis=dim, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


class _NumpyLib:
    """NumPy reference. An op not spelled out below is ``numpy.<name>`` (so a new op
    whose NumPy function has torch's name and arguments needs only its Case line)."""
    name = "numpy"

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def c(a):
        return a

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)
    tanh = staticmethod(np.tanh)

    @staticmethod
    def sigmoid(x):
        return 1.0 / (1.0 + np.exp(-x))

    @staticmethod
    def relu(x):
        return np.maximum(x, 0)

    @staticmethod
    def sum(x, dim=None, keepdim=False):
        return np.sum(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def mean(x, dim=None, keepdim=False):
        if x.size == 0:      # nan without NumPy's warning
            with np.errstate(invalid="ignore"):
                return np.true_divide(np.sum(x, axis=dim, keepdims=keepdim), 0)
        return np.mean(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def max(x, dim=None, keepdim=False):
        if dim is None:
            return np.max(x)
        return np.max(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def argmax(x, dim, keepdim=False):
        return np.argmax(x, axis=dim, keepdims=keepdim)

    logsumexp = staticmethod(_np_logsumexp)

    @staticmethod
    def log_softmax(x, dim):
        if x.size == 0:
            return x.copy()
        return x - _np_logsumexp(x, dim, keepdim=True)

    @staticmethod
    def matmul(a, b):
        return np.matmul(a, b)

    @staticmethod
    def reshape(x, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        return np.reshape(x, shape)

    view = reshape

    @staticmethod
    def transpose(x, d0, d1):
        return np.swapaxes(x, d0, d1)

    @staticmethod
    def T(x):
        return x.T

    @staticmethod
    def permute(x, *dims):
        return np.transpose(x, dims)

    @staticmethod
    def unsqueeze(x, d):
        return np.expand_dims(x, d)

    @staticmethod
    def squeeze(x, d=None):
        return np.squeeze(x) if d is None else np.squeeze(x, axis=d)

    @staticmethod
    def flatten(x, start=0, end=-1):
        shape = x.shape
        if not shape:        # torch: a 0-d input flattens to one element
            if start not in (0, -1) or end not in (0, -1):
                raise IndexError("flatten: dimension out of range")
            return x.reshape(1)
        s = start % len(shape)
        e = end % len(shape)
        return x.reshape(shape[:s] + (-1,) + shape[e + 1:])

    @staticmethod
    def expand(x, *sizes):
        lead = len(sizes) - x.ndim
        shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        return np.broadcast_to(x, shape)

    @staticmethod
    def broadcast_to(x, shape):
        return np.broadcast_to(x, shape)

    @staticmethod
    def getitem(x, key):
        return x[key]

    @staticmethod
    def clone(x):
        return x.copy()


    @staticmethod
    def inplace(z, name, *args, alpha=1):
        """``z.<name>(*args)`` for the in-place ops and the augmented operators."""
        z = np.asarray(z)    # arithmetic on a 0-d array gives a NumPy scalar
        a = args[0] if args else None
        if alpha != 1:
            a = a * alpha
        if name in ("add_", "iadd"):
            z += a
        elif name in ("sub_", "isub"):
            z -= a
        elif name in ("mul_", "imul"):
            z *= a
        elif name in ("div_", "itruediv"):
            z /= a
        elif name == "zero_":
            z[...] = 0
        elif name in ("fill_", "copy_"):
            z[...] = a
        elif name == "setitem":
            z[args[0]] = args[1]
        elif name in _NUMPY_UNARY_INPLACE:
            z[...] = _NUMPY_UNARY_INPLACE[name](z, *args)
        else:
            raise ValueError(name)
        return z


_NUMPY_UNARY_INPLACE = {
    "exp_": lambda z: np.exp(z), "log_": lambda z: np.log(z), "sqrt_": lambda z: np.sqrt(z),
    "tanh_": lambda z: np.tanh(z), "sigmoid_": lambda z: 1 / (1 + np.exp(-z)),
    "relu_": lambda z: np.maximum(z, 0), "neg_": lambda z: -z,
    "pow_": lambda z, e: z ** e,
}


class _PyadLib:
    """pyad. An op not spelled out below is ``pyad.<name>``."""
    name = "pyad"

    def __getattr__(self, name):
        return getattr(pyad, name)

    @staticmethod
    def c(a):
        return a

    exp = staticmethod(pyad.exp)
    log = staticmethod(pyad.log)
    sqrt = staticmethod(pyad.sqrt)
    tanh = staticmethod(pyad.tanh)
    sigmoid = staticmethod(pyad.sigmoid)
    relu = staticmethod(pyad.relu)

    @staticmethod
    def sum(x, dim=None, keepdim=False):
        return x.sum(dim, keepdim=keepdim) if dim is not None else pyad.sum(x)

    @staticmethod
    def mean(x, dim=None, keepdim=False):
        return x.mean(dim, keepdim=keepdim) if dim is not None else pyad.mean(x)

    @staticmethod
    def max(x, dim=None, keepdim=False):
        if dim is None:
            return x.max()
        return pyad.max(x, dim, keepdim=keepdim).values

    @staticmethod
    def argmax(x, dim, keepdim=False):
        return x.max(dim, keepdim).indices

    @staticmethod
    def logsumexp(x, dim, keepdim=False):
        return pyad.logsumexp(x, dim, keepdim=keepdim)

    @staticmethod
    def log_softmax(x, dim):
        return pyad.log_softmax(x, dim)

    @staticmethod
    def matmul(a, b):
        return a @ b

    @staticmethod
    def reshape(x, *shape):
        return x.reshape(*shape)

    @staticmethod
    def view(x, *shape):
        return x.view(*shape)

    @staticmethod
    def transpose(x, d0, d1):
        return x.transpose(d0, d1)

    @staticmethod
    def T(x):
        return x.T

    @staticmethod
    def permute(x, *dims):
        return x.permute(*dims)

    @staticmethod
    def unsqueeze(x, d):
        return x.unsqueeze(d)

    @staticmethod
    def squeeze(x, d=None):
        return x.squeeze() if d is None else x.squeeze(d)

    @staticmethod
    def flatten(x, start=0, end=-1):
        return x.flatten(start, end)

    @staticmethod
    def expand(x, *sizes):
        return x.expand(*sizes)

    @staticmethod
    def broadcast_to(x, shape):
        return pyad.broadcast_to(x, shape)

    @staticmethod
    def getitem(x, key):
        return x[key]

    @staticmethod
    def clone(x):
        return x.clone()

    @staticmethod
    def inplace(z, name, *args, **kwargs):
        if name == "setitem":
            z[args[0]] = args[1]
        elif name == "iadd":
            z += args[0]
        elif name == "isub":
            z -= args[0]
        elif name == "imul":
            z *= args[0]
        elif name == "itruediv":
            z /= args[0]
        else:
            z = getattr(z, name)(*args, **kwargs)
        return z


class _TorchLib:
    """torch. An op not spelled out below is ``torch.<name>``."""
    name = "torch"

    def __init__(self, torch):
        self.t = torch

    def __getattr__(self, name):
        if name == "t":                     # set in __init__; never fall back for it
            raise AttributeError(name)
        return getattr(self.t, name)

    def c(self, a):
        return self.t.from_numpy(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a

    def exp(self, x):
        return self.t.exp(x)

    def log(self, x):
        return self.t.log(x)

    def sqrt(self, x):
        return self.t.sqrt(x)

    def tanh(self, x):
        return self.t.tanh(x)

    def sigmoid(self, x):
        return self.t.sigmoid(x)

    def relu(self, x):
        return self.t.relu(x)

    def sum(self, x, dim=None, keepdim=False):
        return x.sum() if dim is None else x.sum(dim, keepdim=keepdim)

    def mean(self, x, dim=None, keepdim=False):
        return x.mean() if dim is None else x.mean(dim, keepdim=keepdim)

    def max(self, x, dim=None, keepdim=False):
        return x.max() if dim is None else x.max(dim, keepdim=keepdim).values

    def argmax(self, x, dim, keepdim=False):
        return x.max(dim, keepdim=keepdim).indices

    def logsumexp(self, x, dim, keepdim=False):
        return self.t.logsumexp(x, dim, keepdim=keepdim)

    def log_softmax(self, x, dim):
        return self.t.log_softmax(x, dim)

    def matmul(self, a, b):
        # NumPy promotes mixed dtypes, torch's matmul does not.
        dtype = self.t.promote_types(a.dtype, b.dtype)
        return a.to(dtype) @ b.to(dtype)

    def reshape(self, x, *shape):
        return x.reshape(*shape)

    def view(self, x, *shape):
        return x.view(*shape)

    def transpose(self, x, d0, d1):
        return x.transpose(d0, d1)

    def T(self, x):
        # torch deprecates .T on ndim != 2; permute(reversed) is the same thing.
        return x.permute(tuple(reversed(range(x.ndim))))

    def permute(self, x, *dims):
        return x.permute(*dims)

    def unsqueeze(self, x, d):
        return x.unsqueeze(d)

    def squeeze(self, x, d=None):
        return x.squeeze() if d is None else x.squeeze(d)

    def flatten(self, x, start=0, end=-1):
        return x.flatten(start, end)

    def expand(self, x, *sizes):
        return x.expand(*sizes)

    def broadcast_to(self, x, shape):
        return self.t.broadcast_to(x, shape)

    def getitem(self, x, key):
        # torch has no negative-step slices: index the flattened tensor with the flat
        # positions NumPy's indexing selects (the same function, gradient included).
        flat = np.arange(int(np.prod(x.shape)), dtype=np.int64).reshape(tuple(x.shape))[key]
        return x.reshape(-1)[self.t.as_tensor(np.array(flat, dtype=np.int64))]

    def clone(self, x):
        return x.clone()

    inplace = staticmethod(_PyadLib.inplace)


NP = _NumpyLib()
PYAD = _PyadLib()


def torch_lib():
    torch = pytest.importorskip("torch")
    return _TorchLib(torch), torch


# --------------------------------------------------------------------------------
# Cases and inputs
# --------------------------------------------------------------------------------

class Case:
    """One op application: ``f(L, *xs)`` on inputs of ``shapes``.

    domain: 'signed' (|x| in [0.5, 1.5], random sign: away from 0 for relu),
    'positive' ([0.5, 2]: log, sqrt, pow bases), 'distinct' (a permutation of
    well-separated values: max without ties).
    zero_d / empty: the input shapes of the 0-d and the empty variant; None derives
    them (every input 0-d; every size equal to the first input's first size made 0),
    False means the op is not defined there.
    """

    def __init__(self, id, f, shapes, domain="signed", xfail=None, xfail_values=False,
                 zero_d=None, empty=None, non_contiguous=True):
        self.id = id
        # xfail: reason of a known pyad bug, applied to the derivative checks (and to
        # the value check too when xfail_values).
        self.xfail = xfail
        self.xfail_values = xfail_values
        self.f = f
        self.shapes = [tuple(s) for s in shapes]
        self.domain = domain
        self.zero_d = zero_d
        self.empty = empty
        self.non_contiguous = non_contiguous     # False: the op needs contiguous input

    def __repr__(self):
        return self.id


def make_inputs(case, seed=0, shapes=None, dtype=np.float64, non_contiguous=False):
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in (case.shapes if shapes is None else shapes):
        n = int(np.prod(shape))
        if case.domain == "positive":
            a = rng.uniform(0.5, 2.0, size=shape)
        elif case.domain == "distinct":
            a = (rng.permutation(n) * 0.25 - n * 0.1).reshape(shape) + rng.uniform(
                0, 0.05, size=shape)
        else:
            a = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        a = np.asarray(a, dtype=dtype)
        arrays.append(_non_contiguous(a) if non_contiguous else a)
    return arrays


def _non_contiguous(a):
    """The same values in a non-contiguous view: transposed when two dims are > 1,
    else every other element of a bigger array."""
    if sum(s > 1 for s in a.shape) >= 2:
        rev = tuple(reversed(range(a.ndim)))
        out = np.ascontiguousarray(a.transpose(rev)).transpose(rev)
    elif a.ndim:
        big = np.zeros(tuple(2 * s for s in a.shape), a.dtype)
        key = (slice(None, None, 2),) * a.ndim
        big[key] = a
        out = big[key]
    else:
        return a
    if a.size > 1:
        assert not out.flags.c_contiguous
    np.testing.assert_array_equal(out, a)
    return out


# -- variants -------------------------------------------------------------------------

VARIANTS = ["0d", "empty", "noncontig", "float32"]


def _numpy_defined(case, shapes):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case.f(NP, *make_inputs(case, shapes=shapes))
    except (ValueError, IndexError, TypeError, np.exceptions.AxisError):
        return False
    return True


def variant_shapes(case, variant):
    """Input shapes of ``case`` in ``variant``, or None where it does not apply."""
    if variant == "float32" or variant == "noncontig" and case.non_contiguous:
        return case.shapes
    if variant == "noncontig":
        return None
    given = case.zero_d if variant == "0d" else case.empty
    if given is False:
        return None
    if given is not None:
        return [tuple(s) for s in given]
    if variant == "0d":
        shapes = [() for _ in case.shapes]
    else:
        if not case.shapes[0]:
            return None
        n0 = case.shapes[0][0]
        shapes = [tuple(0 if d == n0 else d for d in s) for s in case.shapes]
    if shapes == case.shapes or not _numpy_defined(case, shapes):
        return None
    return shapes


def variant_params(cases):
    out = []
    for c in cases:
        for v in VARIANTS:
            if variant_shapes(c, v) is None:
                continue
            marks = [pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else []
            out.append(pytest.param(c, v, id="%s-%s" % (c.id, v), marks=marks))
    return out


def variant_inputs(case, variant):
    return make_inputs(case, shapes=variant_shapes(case, variant),
                       dtype=np.float32 if variant == "float32" else np.float64,
                       non_contiguous=variant == "noncontig")


def params(cases, values=False):
    """pytest params for ``cases``; known-bug cases get a strict xfail mark."""
    out = []
    for c in cases:
        marks = []
        if c.xfail and (not values or c.xfail_values):
            marks = [pytest.mark.xfail(reason=c.xfail, strict=True)]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def variables(arrays, requires_grad=True, copy=True):
    return [pyad.Variable(a.copy() if copy else a, requires_grad=requires_grad)
            for a in arrays]


def _tolerances(dtype):
    return (RTOL, ATOL) if np.dtype(dtype) == np.float64 else (RTOL32, ATOL32)


def _data(x):
    return x.data if isinstance(x, pyad.Variable) else np.asarray(x)


# --------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------

def check_values(case, arrays=None):
    arrays = make_inputs(case) if arrays is None else arrays
    rtol, atol = _tolerances(arrays[0].dtype)
    expected = np.asarray(case.f(NP, *[a.copy() for a in arrays]))
    out = case.f(PYAD, *variables(arrays, copy=False))
    assert isinstance(out, pyad.Variable)
    assert out.shape == expected.shape
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out.data, expected, rtol=rtol, atol=atol)
    # The same op without grad gives the same values and records nothing.
    plain = case.f(PYAD, *variables(arrays, requires_grad=False, copy=False))
    assert plain.grad_fn is None and not plain.requires_grad
    np.testing.assert_allclose(plain.data, expected, rtol=rtol, atol=atol)


def check_gradcheck(case, arrays=None):
    from pyad.autograd import gradcheck
    xs = variables(make_inputs(case) if arrays is None else arrays)
    assert gradcheck(lambda *a: case.f(PYAD, *a), tuple(xs))


def check_gradgradcheck(case, arrays=None):
    from pyad.autograd import gradgradcheck
    xs = variables(make_inputs(case) if arrays is None else arrays)
    assert gradgradcheck(lambda *a: case.f(PYAD, *a), tuple(xs))


def _torch_inputs(torch, arrays):
    # from_numpy keeps the strides of a non-contiguous view (torch.tensor would copy).
    return [torch.from_numpy(a).requires_grad_(True) for a in arrays]


def _compare_grads(ours, theirs, dtypes, what, rtol, atol):
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if b is None:
            assert a is None or np.all(a.data == 0), "%s, input %d" % (what, i)
            continue
        if a is None:       # no graph to differentiate: zero, as torch's must be then
            assert bool((b == 0).all()), "input %d: pyad gave no %s, torch did" % (i, what)
            continue
        assert a.shape == tuple(b.shape), "%s, input %d" % (what, i)
        assert a.dtype == dtypes[i], "%s, input %d: dtype %s" % (what, i, a.dtype)
        # (torch's zero second derivatives may be a lazy ZeroTensor: numpy(force=True))
        np.testing.assert_allclose(a.data, b.detach().numpy(force=True), rtol=rtol,
                                   atol=atol, err_msg="%s of input %d" % (what, i))


def check_vs_torch(case, arrays=None):
    T, torch = torch_lib()
    arrays = make_inputs(case) if arrays is None else arrays
    rtol, atol = _tolerances(arrays[0].dtype)
    xs = variables(arrays, copy=False)
    ts = _torch_inputs(torch, arrays)
    out = case.f(PYAD, *xs)
    tout = case.f(T, *ts)
    assert out.shape == tuple(tout.shape)
    assert out.dtype == tout.detach().numpy().dtype
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=rtol, atol=atol)
    g = np.random.default_rng(1).standard_normal(out.shape).astype(out.dtype)
    grads = pyad.grad(out, xs, pyad.Variable(g), allow_unused=True)
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(g), allow_unused=True)
    _compare_grads(grads, tgrads, [a.dtype for a in arrays], "gradient", rtol, atol)


def check_second_order_vs_torch(case, arrays=None):
    """First derivatives taken with create_graph=True, then d/dx <v, d/dx <w, f(x)>>,
    against torch."""
    T, torch = torch_lib()
    arrays = make_inputs(case) if arrays is None else arrays
    rtol, atol = _tolerances(arrays[0].dtype)
    dtypes = [a.dtype for a in arrays]
    xs = variables(arrays, copy=False)
    ts = _torch_inputs(torch, arrays)
    out = case.f(PYAD, *xs)
    tout = case.f(T, *ts)
    rng = np.random.default_rng(2)
    w = rng.standard_normal(out.shape).astype(out.dtype)
    g1 = pyad.grad(out, xs, pyad.Variable(w), create_graph=True, allow_unused=True)
    tg1 = torch.autograd.grad(tout, ts, torch.from_numpy(w), create_graph=True,
                              allow_unused=True)
    _compare_grads(g1, tg1, dtypes, "first derivative (create_graph)", rtol, atol)
    vs = [rng.standard_normal(x.shape).astype(x.dtype) for x in arrays]
    s = sum((g * pyad.Variable(v)).sum() for g, v in zip(g1, vs) if g is not None)
    ts_ = sum((g * torch.from_numpy(v)).sum() for g, v in zip(tg1, vs) if g is not None)
    # A linear op's first derivative does not depend on x: no second derivative.
    g2 = (pyad.grad(s, xs, allow_unused=True)
          if isinstance(s, pyad.Variable) and s.requires_grad else [None] * len(xs))
    tg2 = (torch.autograd.grad(ts_, ts, allow_unused=True)
           if isinstance(ts_, torch.Tensor) and ts_.requires_grad else [None] * len(ts))
    _compare_grads(g2, tg2, dtypes, "second derivative", rtol, atol)


def check_create_graph_matches_plain(case, arrays=None):
    """The gradient with create_graph=True (the recorded formula) equals the one without
    (the fast array formula): value, shape and dtype; and it records a graph only
    when asked to."""
    arrays = make_inputs(case) if arrays is None else arrays
    xs = variables(arrays, copy=False)
    out = case.f(PYAD, *xs)
    w = pyad.Variable(np.random.default_rng(3).standard_normal(out.shape).astype(out.dtype))
    plain = pyad.grad(out, xs, w, retain_graph=True, allow_unused=True)
    recorded = pyad.grad(out, xs, w, create_graph=True, allow_unused=True)
    for i, (a, b) in enumerate(zip(plain, recorded)):
        assert (a is None) == (b is None), i
        if a is None:
            continue
        assert a.grad_fn is None and not a.requires_grad, i
        assert a.shape == b.shape == xs[i].shape, i
        assert a.dtype == b.dtype == xs[i].dtype, i
        rtol, atol = CG_TOL[np.dtype(a.dtype)]
        np.testing.assert_allclose(a.data, b.data, rtol=rtol, atol=atol,
                                   err_msg="input %d" % i)


def check_variant(case, variant):
    """All checks of a case on its 0-d / empty / non-contiguous / float32 inputs."""
    arrays = variant_inputs(case, variant)
    check_values(case, arrays)
    check_create_graph_matches_plain(case, arrays)
    if variant in ("0d", "empty"):
        check_gradcheck(case, arrays)
        check_gradgradcheck(case, arrays)
    check_vs_torch(case, arrays)
    check_second_order_vs_torch(case, arrays)


def standard_op_tests(cases):
    """The checks every op family runs, as test functions for the module to bind.

    Values vs NumPy; first and second derivatives vs finite differences (gradcheck,
    gradgradcheck, float64); values and gradients vs PyTorch; first (create_graph) and
    second derivatives vs PyTorch; create_graph vs plain backward; and all of these on
    the 0-d, empty, non-contiguous and float32 variants of each case.
    """
    @pytest.mark.parametrize("case", params(cases, values=True))
    def test_values_match_numpy(case):
        check_values(case)

    @pytest.mark.parametrize("case", params(cases))
    def test_first_derivatives_pass_gradcheck(case):
        check_gradcheck(case)

    @pytest.mark.parametrize("case", params(cases))
    def test_second_derivatives_pass_gradgradcheck(case):
        check_gradgradcheck(case)

    @pytest.mark.parametrize("case", params(cases))
    def test_values_and_gradients_match_torch(case):
        check_vs_torch(case)

    @pytest.mark.parametrize("case", params(cases))
    def test_second_derivatives_match_torch(case):
        check_second_order_vs_torch(case)

    @pytest.mark.parametrize("case", params(cases))
    def test_create_graph_gradient_equals_plain_gradient(case):
        check_create_graph_matches_plain(case)

    @pytest.mark.parametrize("case, variant", variant_params(cases))
    def test_variant(case, variant):
        check_variant(case, variant)

    return (test_values_match_numpy, test_first_derivatives_pass_gradcheck,
            test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
            test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
            test_variant)
