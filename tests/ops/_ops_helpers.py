"""Shared machinery for the op tests (imported by tests/ops/test_*.py).

An op case is written once as ``f(L, *xs)`` where ``L`` is one of three adapters
with the same vocabulary -- ``NP`` (NumPy reference), ``PYAD`` and ``TORCH`` -- and
``xs`` are the differentiable inputs (ndarrays, Variables or torch tensors).
Constants are written ``L.c(array)``: a raw ndarray for NumPy and pyad (so the
ndarray-on-either-side paths are exercised), a tensor for torch.

``check_values`` compares pyad with NumPy, ``check_gradcheck``/``check_gradgradcheck``
run pyad's finite-difference checks, ``check_vs_torch`` compares values and first
derivatives with PyTorch, ``check_second_order_vs_torch`` second derivatives.
"""
import numpy as np
import pytest

import pyad

RTOL = 1e-10   # pyad vs torch / NumPy in float64
ATOL = 1e-12


# --------------------------------------------------------------------------------
# Adapters
# --------------------------------------------------------------------------------

def _np_logsumexp(x, dim, keepdim=False):
    m = np.max(x, axis=dim, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


class _NumpyLib:
    name = "numpy"

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
    name = "pyad"

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
    name = "torch"

    def __init__(self, torch):
        self.t = torch

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
        return a @ b

    def reshape(self, x, *shape):
        return x.reshape(*shape)

    def view(self, x, *shape):
        return x.view(*shape)

    def transpose(self, x, d0, d1):
        return x.transpose(d0, d1)

    def T(self, x):
        # torch deprecates .T on ndim != 2; permute(reversed) is the same thing.
        return x.permute(*reversed(range(x.ndim)))

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
    """

    def __init__(self, id, f, shapes, domain="signed", second_order=True, torch=True,
                 xfail=None, xfail_values=False):
        self.id = id
        # xfail: reason of a known pyad bug, applied to the derivative checks (and to
        # the value check too when xfail_values).
        self.xfail = xfail
        self.xfail_values = xfail_values
        self.f = f
        self.shapes = [tuple(s) for s in shapes]
        self.domain = domain
        self.second_order = second_order
        self.torch = torch

    def __repr__(self):
        return self.id


def make_inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in case.shapes:
        n = int(np.prod(shape))
        if case.domain == "positive":
            a = rng.uniform(0.5, 2.0, size=shape)
        elif case.domain == "distinct":
            a = (rng.permutation(n) * 0.25 - n * 0.1).reshape(shape) + rng.uniform(
                0, 0.05, size=shape)
        else:
            a = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        arrays.append(np.asarray(a, dtype=np.float64))
    return arrays


def params(cases, values=False):
    """pytest params for ``cases``; known-bug cases get a strict xfail mark."""
    out = []
    for c in cases:
        marks = []
        if c.xfail and (not values or c.xfail_values):
            marks = [pytest.mark.xfail(reason=c.xfail, strict=True)]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def variables(arrays, requires_grad=True):
    return [pyad.Variable(a.copy(), requires_grad=requires_grad) for a in arrays]


def _data(x):
    return x.data if isinstance(x, pyad.Variable) else np.asarray(x)


# --------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------

def check_values(case):
    arrays = make_inputs(case)
    expected = np.asarray(case.f(NP, *[a.copy() for a in arrays]))
    out = case.f(PYAD, *variables(arrays))
    assert isinstance(out, pyad.Variable)
    assert out.shape == expected.shape
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out.data, expected, rtol=RTOL, atol=ATOL)
    # The same op without grad gives the same values and records nothing.
    plain = case.f(PYAD, *variables(arrays, requires_grad=False))
    assert plain.grad_fn is None and not plain.requires_grad
    np.testing.assert_allclose(plain.data, expected, rtol=RTOL, atol=ATOL)


def check_gradcheck(case):
    from pyad.autograd import gradcheck
    xs = variables(make_inputs(case))
    assert gradcheck(lambda *a: case.f(PYAD, *a), tuple(xs))


def check_gradgradcheck(case):
    from pyad.autograd import gradgradcheck
    xs = variables(make_inputs(case))
    assert gradgradcheck(lambda *a: case.f(PYAD, *a), tuple(xs))


def check_vs_torch(case):
    T, torch = torch_lib()
    arrays = make_inputs(case)
    xs = variables(arrays)
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = case.f(PYAD, *xs)
    tout = case.f(T, *ts)
    assert out.shape == tuple(tout.shape)
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=RTOL, atol=ATOL)
    g = np.random.default_rng(1).standard_normal(out.shape)
    grads = pyad.grad(out, xs, pyad.Variable(g), allow_unused=True)
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(g), allow_unused=True)
    for i, (a, b) in enumerate(zip(grads, tgrads)):
        if b is None:
            assert a is None or np.all(a.data == 0), i
            continue
        assert a is not None, "input %d: pyad gave no gradient, torch did" % i
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(a.data, b.numpy(), rtol=RTOL, atol=ATOL,
                                   err_msg="gradient of input %d" % i)


def check_second_order_vs_torch(case):
    """d/dx <v, d/dx <w, f(x)>> against torch (create_graph then grad again)."""
    T, torch = torch_lib()
    arrays = make_inputs(case)
    xs = variables(arrays)
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = case.f(PYAD, *xs)
    tout = case.f(T, *ts)
    rng = np.random.default_rng(2)
    w = rng.standard_normal(out.shape)
    g1 = pyad.grad(out, xs, pyad.Variable(w), create_graph=True)
    tg1 = torch.autograd.grad(tout, ts, torch.from_numpy(w), create_graph=True)
    vs = [rng.standard_normal(x.shape) for x in xs]
    s = sum((g * pyad.Variable(v)).sum() for g, v in zip(g1, vs))
    ts_ = sum((g * torch.from_numpy(v)).sum() for g, v in zip(tg1, vs))
    g2 = pyad.grad(s, xs, allow_unused=True)
    tg2 = torch.autograd.grad(ts_, ts, allow_unused=True)
    for i, (a, b) in enumerate(zip(g2, tg2)):
        if b is None:
            assert a is None or np.all(a.data == 0), i
            continue
        assert a is not None, "input %d: pyad gave no second derivative" % i
        np.testing.assert_allclose(a.data, b.numpy(), rtol=RTOL, atol=ATOL,
                                   err_msg="second derivative, input %d" % i)


def standard_op_tests(cases, second_order):
    """The five checks every op family runs, as test functions for the module to bind.

    Values vs NumPy; first and second derivatives vs finite differences (gradcheck,
    gradgradcheck, float64); values and gradients vs PyTorch; second derivatives vs
    PyTorch for the cases named in ``second_order``.
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

    @pytest.mark.parametrize("case", params([c for c in cases if c.id in second_order]))
    def test_second_derivatives_match_torch(case):
        check_second_order_vs_torch(case)

    return (test_values_match_numpy, test_first_derivatives_pass_gradcheck,
            test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
            test_second_derivatives_match_torch)
