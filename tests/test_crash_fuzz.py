"""Misusing the engine's Python surface raises Python exceptions; it never crashes.

The fuzz (``_fuzz``) calls every public method, property and operator of Variable and
of every backward node class (found by walking ``Node.__subclasses__()``, so new ones
are covered without editing this file) with wrong arities and wrong types, on
receivers in every state: uninitialised (``Cls.__new__(Cls)``), live, released by a
backward, under no_grad and with grad enabled. It also installs node hooks that
return bad values and runs backward through them. Any Python exception is fine; a
segfault is not, so the fuzz runs in a subprocess and the test checks its exit code.

Run this file directly (``python tests/test_crash_fuzz.py``) to run the fuzz alone.
"""
import json
import os
import subprocess
import sys
import warnings

import numpy
import pytest

import pyad
from pyad import _engine


# -- the fuzz (runs in a subprocess) ---------------------------------------------------

# Nodes never made by a forward op: abstract bases, the engine's virtual root and the
# custom Function node bases (their concrete subclasses are in the zoo below), and the
# pyad.interop bridge node base (its subclasses live in pyad.interop and need torch).
_NO_REAL_INSTANCE = {"Node", "_BinaryNode", "_UnaryNode", "_UnaryOutNode", "_KeyNode",
                     "_GraphRoot", "FunctionNode",
                     "BackwardCFunction", "_ZeroGradNode", "_SelectNode", "_BridgeNode",
                     "_RemainderNode", "_IndexAlongNode", "_StochasticNode", "_FminmaxNode",
                     "_FloatSampleNode", "_GroupBackward", "_TernaryBackward",
                     # matmul's node always takes torch's name for the product (an alias)
                     "MatmulBackward"}


def _uninit_variable():
    return _engine.Variable.__new__(_engine.Variable)


def _leaf(shape=(2, 3), dtype=numpy.float64):
    return pyad.Variable(numpy.arange(1.0, 1.0 + numpy.prod(shape)).reshape(shape)
                         .astype(dtype), requires_grad=True)


def _released_output():
    with pyad.enable_grad():
        x = _leaf()
        y = (x * x).exp()
        y.sum().backward()
    return y


def _bad_values():
    """Values of every wrong kind (fresh each time: in-place methods may change them)."""
    with pyad.enable_grad():
        x = _leaf()
        y = x * 2
    return [None, 0, -1, 2, 1.5, True, "x", b"x", (), [1, 2], {}, object(), 3j,
            slice(None), Ellipsis, numpy.float64(1.0), numpy.ones(1), numpy.ones((2, 3)),
            numpy.ones((), dtype=bool), numpy.ones(4, dtype=numpy.int64),
            numpy.array([None, 1], dtype=object), _uninit_variable(), x, y,
            pyad.Variable(numpy.ones((), dtype=numpy.float32)),
            pyad.Variable(numpy.arange(5)), _released_output(),
            lambda *args, **kwargs: None, y.grad_fn,
            _engine.MulBackward.__new__(_engine.MulBackward)]


def _few_values():
    with pyad.enable_grad():
        x = _leaf()
        y = x * 2
    return [None, 1, "x", numpy.ones(1), _uninit_variable(), x, y]


def _arg_lists():
    yield ()
    for v in _bad_values():
        yield (v,)
    for v in _few_values():
        for w in _few_values():
            yield (v, w)
    for v in _few_values():
        yield (v, v, v)
    yield (1, 2, 3, 4, 5)


def _variable_receivers():
    x = _leaf()
    y = x * 2
    return [_uninit_variable(), x, y, y.transpose(0, 1), y[0], _released_output(),
            pyad.Variable(numpy.float32(2.0)), pyad.Variable(numpy.arange(6)),
            pyad.Variable(numpy.ones((2, 3)), volatile=True)]


class _Square(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 2 * x


class _TwoOutputs(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2 + gb * 3


class _NoMaterialize(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        return None if ga is None else ga * 2


def _zoo():
    """(output, leaves) pairs whose graphs hold a node of every built-in class."""
    x, w, m = _leaf(), _leaf(), _leaf((3, 2))
    entries = [
        x + w, x - w, x * w, x / w, x ** 2, x ** w, 2 ** x, -x, x.exp(), x.log(),
        x.sqrt(), x.tanh(), x.sigmoid(), x.relu(), x.sum(1), x.mean(), x.max(),
        x.max(1).values, x.logsumexp(1), x.log_softmax(1), x @ m, x.reshape(3, 2),
        x.transpose(0, 1), x[0], x[[0, 0]], x.expand(4, 2, 3), x.double(), x.float(),
        _engine.sum_to(x, (1, 3)), _engine.where_const(numpy.eye(2, 3) > 0, 0.0, x),
        _Square.apply(x), _TwoOutputs.apply(x)[0], _NoMaterialize.apply(x)[1],
        _engine._delayed_error((x * 1,), (x,), "delayed")[0],
    ]
    # Stochastic ops (their samples' nodes take rewards).
    entries += [x.sigmoid().bernoulli(), pyad.normal(x, 1.0),
                pyad.multinomial(x.sigmoid(), 2)]
    # elementwise math, selections, rounding and remainders
    entries += [
        abs(x), x.reciprocal(), x.sign(), x.square(), x.rsqrt(), x.expm1(), x.log1p(),
        x.log2(), x.log10(), x.sin(), x.cos(), x.tan(), x.asin(), x.acos(), x.atan(),
        x.sinh(), x.cosh(), x.erf(), x.maximum(w), x.minimum(w), pyad.where(x > 0, x, w),
        x.clamp(-1, w), x.atan2(w), x.hypot(w), x.floor(), x.ceil(), x.round(), x.trunc(),
        pyad.div(x, w, rounding_mode="floor"),
        x % w, x.fmod(w), x.logaddexp(w), (x.sigmoid() * 0.5).logit(),
        x.add(w, alpha=2), x.lerp(w, 0.3), x.addcmul(w, x), x.addcdiv(w, x.exp()),
        pyad.nansum(x), pyad.nanmean(x, 0), pyad.ldexp(x, w), 2 - x, pyad.rsub(x, 3.0),
        x.clone(),
    ]
    # special functions (pyad/ops/special.pxi) and logcumsumexp
    p = x.sigmoid()
    entries += [
        x.asinh(), (x * x + 1).acosh(), (p * 0.5).atanh(), x.exp2(), x.erfc(),
        (p * 0.5).erfinv(), (x * x + 1).lgamma(), (x * x + 1).digamma(),
        pyad.polygamma(2, x * x + 1), x.i0(), pyad.special.i0e(x), pyad.special.i1(x),
        pyad.special.i1e(x), pyad.special.ndtr(x), pyad.special.ndtri(p),
        pyad.special.log_ndtr(x), x.xlogy(p), pyad.special.xlog1py(x, p),
        pyad.special.entr(p), x.sinc(), x.fmax(w), x.fmin(w), x.copysign(w), x.nextafter(w),
        pyad.frexp(x).mantissa, x.logcumsumexp(1),
        pyad.special.zeta(2.5, x * x + 1),        # pyad/_special_more.py (a Function)
    ]
    # nn activations
    entries += [x.softmax(1), pyad.gelu(x), pyad.silu(x), pyad.elu(x), pyad.leaky_relu(x),
                pyad.softplus(x), pyad.hardtanh(x), pyad.logsigmoid(x),
                pyad.nn.functional.cross_entropy(x, pyad.tensor([0, 2])),
                pyad.nn.functional.hardshrink(x)]       # (GradDependsOnBackward)
    # Linear algebra.
    entries += [x.diagonal(), pyad.diag_embed(x), x.tril(), pyad.einsum("ij->j", x)]
    sq = x @ m + pyad.tensor(numpy.eye(2) * 3)
    entries += [pyad.linalg.inv(sq), pyad.linalg.det(sq), pyad.linalg.slogdet(sq)[1],
                pyad.linalg.solve(sq, x), pyad.linalg.cholesky(sq @ sq.T),
                pyad.linalg.qr(m)[0], pyad.linalg.eigh(sq)[1], pyad.linalg.svd(x)[2]]
    entries += [x.min(), x.amax(1), x.amin(), x.prod(1), x.var(1), x.std(), x.norm(),
                x.norm(0), x.cumsum(1), x.cumprod(1), x.median(),
                x.sort(1).values]   # reductions
    entries += [pyad.cat([x, w]), x.flip([0]), x.roll(1), x.repeat(2, 1),
                pyad.pad(x, (1, 1))]                                            # shape.pxi
    entries += [pyad.cdist(x, w, float("inf"))]                                 # linalg.pxi
    # the nodes that carry torch's names for ops pyad records with a shared class
    i = pyad.tensor([0, 0])
    entries += [x.t(), x.permute(1, 0), x[:, 1:], x[None], x.unsqueeze(0),
                x[None].squeeze(0), x.take(pyad.tensor([1, 4])), x.gather(1, pyad.tensor(
                    [[0, 1], [2, 2]])), x.index_select(1, i), pyad.stack([x, w]),
                x.masked_fill(x > 3, 0.0), x.topk(2, 1).values, x @ m[:, 0], x[0] @ x[1],
                x[0] @ m, pyad.bmm(x[None], m[None]), x[None] @ m,
                x.kthvalue(2, 1).values]
    # multi-output nodes
    entries += [x.split(1)[0], x.split([1, 1])[1], x.unbind(1)[2], x.unsafe_split(1)[0],
                x.unsafe_split_with_sizes([1, 1])[1], pyad.var_mean(x, 1)[0],
                pyad.std_mean(x, 1)[1]]
    x4, w4 = x.reshape(1, 1, 2, 3), w.reshape(1, 1, 2, 3)       # conv.pxi
    entries += [pyad.nn.functional.conv2d(x4, w4[..., :2, :2]),
                pyad.nn.functional.conv_transpose2d(x4, w4),       # einsum + FoldBackward
                pyad.nn.functional.max_pool2d(x4, 2, stride=1),
                pyad.nn.functional.avg_pool2d(x4, 2, stride=1)]    # UnfoldBackward
    z = x * (1 + 1j) + w * 0.5j                                 # complex.pxi
    entries += [z.conj().real, z.imag, pyad.angle(z), pyad.angle(x),
                pyad.view_as_real(z), pyad.view_as_complex(x[..., :2].contiguous()),
                pyad.sgn(z), pyad.vdot(z[0], z[1])]
    b = x * 1
    b[0].mul_(w[0])                       # CopySlicesBackward on b
    entries.append(b)
    c = x * 1
    c[1] = w[0]                           # SetItemBackward
    entries.append(c)
    # Backward nodes recorded by create_graph (fused and adjoint nodes).
    for y in (x.tanh().sum(), (x ** 3).sum(), (x[0] * x[0]).sum(), (x * 0).prod(1).sum(),
              (x.cumsum(1) * x).sum(), (x.sort(1).values * x).sum()):
        g, = pyad.autograd.grad(y, x, create_graph=True)
        entries.append(g)
    return [(e, (x, w, m)) for e in entries]


def _graph_nodes(root):
    seen, stack, order = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return order


def _all_subclasses(cls):
    found, stack = {}, [cls]
    while stack:
        c = stack.pop()
        found[c.__module__ + "." + c.__qualname__] = c
        stack.extend(c.__subclasses__())
    return [found[k] for k in sorted(found)]


def _members(obj):
    return sorted(set(dir(type(obj))) - {"__class__", "__init_subclass__",
                                         "__subclasshook__", "__getattribute__"})


_TRACE = os.environ.get("PYAD_FUZZ_TRACE", "") not in ("", "0")


def _describe(args):
    return "(%s)" % ", ".join(
        "uninitialised Variable" if isinstance(a, _engine.Variable) and a.__class__ is
        _engine.Variable and _is_uninit(a) else type(a).__name__ for a in args)


def _is_uninit(v):
    try:
        return v.data is None
    except Exception:
        return True


class _Fuzzer:
    def __init__(self):
        self.calls = 0
        self.failures = []

    def attempt(self, what, fn, *args, **kwargs):
        self.calls += 1
        if _TRACE:                        # PYAD_FUZZ_TRACE=1: name the call that crashes
            print(what, _describe(args), kwargs, file=sys.stderr, flush=True)
        try:
            fn(*args, **kwargs)
        except SystemError as exc:        # a C-level bug even though it did not crash
            self.failures.append("%s: SystemError: %s" % (what, exc))
        except Exception:
            pass

    def members(self, label, make_receivers, names=None):
        """Call every member (or those in `names`) of each receiver with every argument list."""
        if names is None:
            names = _members(make_receivers()[0])
        for name in names:
            for receiver in make_receivers():
                what = "%s.%s" % (label, name)
                try:
                    attr = getattr(receiver, name)
                except Exception:
                    attr = None                   # a property that refused: that is fine
                if callable(attr):
                    for args in _arg_lists():
                        self.attempt(what, attr, *args)
                    self.attempt(what, attr, unexpected_keyword=1)
                for value in _few_values():
                    self.attempt(what, setattr, receiver, name, value)
                self.attempt(what, delattr, receiver, name)


def _node_receivers(cls, real):
    receivers = []
    try:
        receivers.append(cls.__new__(cls))
    except Exception:
        pass
    try:
        receivers.append(cls())
    except Exception:
        pass
    return receivers + real


def _fuzz():
    fuzz = _Fuzzer()

    # Variable, in every state, then its type's own entry points.
    fuzz.members("Variable", _variable_receivers)
    for args in _arg_lists():
        fuzz.attempt("Variable.__new__", _engine.Variable.__new__, _engine.Variable, *args)

    # Real nodes of every class: live (graph kept) and released (after a backward).
    live, released = {}, {}
    for out, leaves in _zoo():
        for node in _graph_nodes(out.grad_fn):
            live.setdefault(type(node), node)
    for out, leaves in _zoo():
        root = out.sum() if out.ndim else out
        try:
            pyad.autograd.grad(root, leaves, allow_unused=True)
        except RuntimeError:              # DelayedErrorBackward raises by design
            pass
        for node in _graph_nodes(out.grad_fn):
            released.setdefault(type(node), node)

    classes = _all_subclasses(_engine.Node)
    uncovered = sorted(c.__name__ for c in classes if c.__module__ == "pyad._engine"
                       and c not in live and c.__name__ not in _NO_REAL_INSTANCE)
    base_members = set(_members(_engine.Node.__new__(_engine.Node)))
    for cls in classes:
        real = [n for n in (live.get(cls), released.get(cls)) if n is not None]
        receivers = lambda: _node_receivers(cls, real)
        # Members inherited from Node as they are run the same code for every class:
        # fuzzed on Node and on classes that override them.
        names = [name for name in _members(receivers()[0])
                 if cls is _engine.Node or name not in base_members or name == "__call__"
                 or getattr(cls, name, None) is not getattr(_engine.Node, name, None)]
        fuzz.members(cls.__name__, receivers, names)
        with pyad.no_grad():              # the backward formulas' array fast paths
            fuzz.members(cls.__name__, receivers, ["__call__"])

    # SavedVariable and the engine's other small classes reachable as module attributes.
    for cls in (_engine.SavedVariable, _engine.VersionCounter, _engine._VersionRare):
        fuzz.members(cls.__name__, lambda: [cls.__new__(cls)])

    # Node hooks that return bad values, run by the engine.
    bad_results = [(), (None,), (1.0,), "x", 5, [numpy.ones(7)], (_uninit_variable(),),
                   (numpy.ones((2, 3)),), (None, None, None)]
    for out, leaves in _zoo():
        for node in _graph_nodes(out.grad_fn):
            for result in bad_results:
                for register, hook in ((node.register_prehook, lambda g: result),
                                       (node.register_hook, lambda gi, go: result)):
                    handle = register(hook)
                    root = out.sum() if out.ndim else out
                    fuzz.attempt("%s hook" % type(node).__name__, pyad.autograd.grad, root,
                                 leaves, retain_graph=True, allow_unused=True)
                    handle.remove()

    print(json.dumps({"calls": fuzz.calls, "failures": fuzz.failures,
                      "classes": [c.__name__ for c in classes], "uncovered": uncovered}))


# -- the tests -------------------------------------------------------------------------

def test_fuzz_raises_only_python_exceptions():
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "the fuzz crashed (exit code %d):\n%s" % (
        proc.returncode, proc.stderr[-4000:])
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["failures"] == []
    # Every node class made by a forward op had a real instance fuzzed.
    assert report["uncovered"] == [], "add an op making these nodes to _zoo()"
    for name in ("MulBackward", "AccumulateGrad", "FunctionNode", "_GraphRoot",
                 "CopySlicesBackward", "TanhGradBackward", "_SquareBackward"):
        assert name in report["classes"]
    assert report["calls"] > 100000


# -- dims on 0-d inputs and sizes whose product overflows ---------------------------------
#
# Every op taking a dim, called on a 0-d input with dims 0 and -1 (which torch accepts for
# many ops) and 1 and -2 (out of range): pyad must not crash (the engine indexes shapes
# without bounds checks), must raise where torch raises (the same exception type) and
# must give torch's values and gradients where torch accepts. The pyad side runs in a
# subprocess (a crash is a failure, not a lost test run); torch runs in the test.

def _lin(lib):
    return lib.linalg


def _nnf(lib):
    return pyad.nn.functional if lib is pyad else lib.nn.functional


def _ix(lib, v):
    return pyad.tensor(numpy.array(v)) if lib is pyad else lib.tensor(v)


# name -> fn(lib, x, dim) with x a 0-d float64 Variable / tensor that requires grad
_DIM_OPS = {
    "softmax": lambda m, x, d: m.softmax(x, d),
    "log_softmax": lambda m, x, d: m.log_softmax(x, d),
    "nn.functional.softmax": lambda m, x, d: _nnf(m).softmax(x, d),
    "nn.functional.softmin": lambda m, x, d: _nnf(m).softmin(x, d),
    "nn.functional.gumbel_softmax": lambda m, x, d: _nnf(m).gumbel_softmax(x, dim=d),
    "nn.functional.log_softmax": lambda m, x, d: _nnf(m).log_softmax(x, d),
    "nn.functional.glu": lambda m, x, d: _nnf(m).glu(x, d),
    "nn.functional.normalize": lambda m, x, d: _nnf(m).normalize(x, dim=d),
    "nn.functional.cosine_similarity": lambda m, x, d: _nnf(m).cosine_similarity(x, x * 2, d),
    "cosine_similarity": lambda m, x, d: m.cosine_similarity(x, x * 2, d),
    "frobenius_norm": lambda m, x, d: m.frobenius_norm(x, [d]),
    "nuclear_norm": lambda m, x, d: m.nuclear_norm(x, [d, d - 1]),
    "gradient": lambda m, x, d: m.gradient(x, dim=d),
    "all": lambda m, x, d: m.all(x, d),
    "any": lambda m, x, d: m.any(x, d),
    "amax": lambda m, x, d: m.amax(x, d),
    "amin": lambda m, x, d: m.amin(x, d),
    "aminmax": lambda m, x, d: m.aminmax(x, dim=d),
    "argmax": lambda m, x, d: m.argmax(x, d),
    "argmin": lambda m, x, d: m.argmin(x, d),
    "argsort": lambda m, x, d: m.argsort(x, d),
    "sort": lambda m, x, d: m.sort(x, d),
    "topk": lambda m, x, d: m.topk(x, 1, d),
    "kthvalue": lambda m, x, d: m.kthvalue(x, 1, d),
    "median": lambda m, x, d: m.median(x, d),
    "nanmedian": lambda m, x, d: m.nanmedian(x, d),
    "max": lambda m, x, d: m.max(x, d),
    "min": lambda m, x, d: m.min(x, d),
    "max_keepdim": lambda m, x, d: m.max(x, d, keepdim=True),
    "cat": lambda m, x, d: m.cat([x, x], d),
    "concat": lambda m, x, d: m.concat([x, x], d),
    "stack": lambda m, x, d: m.stack([x, x], d),
    "chunk": lambda m, x, d: m.chunk(x, 2, d),
    "split": lambda m, x, d: m.split(x, 1, d),
    "split_with_sizes": lambda m, x, d: m.split_with_sizes(x, [1], d),
    "unsafe_chunk": lambda m, x, d: m.unsafe_chunk(x, 2, d),
    "unsafe_split": lambda m, x, d: m.unsafe_split(x, 1, d),
    "unsafe_split_with_sizes": lambda m, x, d: m.unsafe_split_with_sizes(x, [1], d),
    "tensor_split": lambda m, x, d: m.tensor_split(x, 1, d),
    "unbind": lambda m, x, d: m.unbind(x, d),
    "count_nonzero": lambda m, x, d: m.count_nonzero(x, d),
    "cumsum": lambda m, x, d: m.cumsum(x, d),
    "cumsum_": lambda m, x, d: (x * 1).cumsum_(d),
    "cumprod_": lambda m, x, d: (x * 1).cumprod_(d),
    "squeeze_": lambda m, x, d: (x * 1).squeeze_(d),
    "unsqueeze_": lambda m, x, d: (x * 1).unsqueeze_(d),
    "transpose_": lambda m, x, d: (x * 1).transpose_(d, d),
    "swapdims_": lambda m, x, d: (x * 1).swapdims_(d, d),
    "concatenate": lambda m, x, d: m.concatenate([x, x], d),
    "select_scatter": lambda m, x, d: m.select_scatter(x, x, d, 0),
    "slice_scatter": lambda m, x, d: m.slice_scatter(x, x, d),
    "diagonal_scatter": lambda m, x, d: m.diagonal_scatter(x, x, 0, d, d),
    "logcumsumexp": lambda m, x, d: m.logcumsumexp(x, d),
    "quantile": lambda m, x, d: m.quantile(x, 0.5, d),
    "nanquantile": lambda m, x, d: m.nanquantile(x, 0.5, d),
    "mode": lambda m, x, d: m.mode(x, d),
    "renorm": lambda m, x, d: m.renorm(x, 2, d, 1.0),
    "trapezoid": lambda m, x, d: m.trapezoid(x, dim=d),
    "trapz": lambda m, x, d: m.trapz(x, dim=d),
    "cumulative_trapezoid": lambda m, x, d: m.cumulative_trapezoid(x, dim=d),
    "cumprod": lambda m, x, d: m.cumprod(x, d),
    "cummax": lambda m, x, d: m.cummax(x, d),
    "cummin": lambda m, x, d: m.cummin(x, d),
    "diag_embed": lambda m, x, d: m.diag_embed(x, 0, d, d - 1 if d >= 0 else 0),
    "diagonal": lambda m, x, d: m.diagonal(x, 0, d, 1 - d),
    "flatten": lambda m, x, d: m.flatten(x, d, d),
    "flip": lambda m, x, d: m.flip(x, [d]),
    "roll": lambda m, x, d: m.roll(x, 1, d),
    "rot90": lambda m, x, d: m.rot90(x, 1, (d, d + 1)),
    "gather": lambda m, x, d: m.gather(x, d, _ix(m, 0)),
    "take_along_dim": lambda m, x, d: m.take_along_dim(x, _ix(m, 0), d),
    "index_select": lambda m, x, d: m.index_select(x, d, _ix(m, [0])),
    "index_add": lambda m, x, d: m.index_add(x, d, _ix(m, [0]), x * 1),
    "index_reduce": lambda m, x, d: m.index_reduce(x, d, _ix(m, [0]), x * 2, "prod"),
    "scatter_reduce": lambda m, x, d: m.scatter_reduce(x, d, _ix(m, 0), x * 2, "sum"),
    "narrow_copy": lambda m, x, d: m.narrow_copy(x, d, 0, 1),
    "index_add_1d_source": lambda m, x, d: m.index_add(x, d, _ix(m, [0]), x.reshape(1) * 1),
    "index_copy": lambda m, x, d: m.index_copy(x, d, _ix(m, [0]), x * 2),
    "index_fill": lambda m, x, d: m.index_fill(x, d, _ix(m, [0]), 3.0),
    "scatter": lambda m, x, d: m.scatter(x, d, _ix(m, 0), x * 2),
    "scatter_value": lambda m, x, d: m.scatter(x, d, _ix(m, 0), value=4.0),
    "scatter_add": lambda m, x, d: m.scatter_add(x, d, _ix(m, 0), x * 2),
    "index_add_": lambda m, x, d: (x * 1).index_add_(d, _ix(m, [0]), x * 1),
    "index_copy_": lambda m, x, d: (x * 1).index_copy_(d, _ix(m, [0]), x * 2),
    "index_fill_": lambda m, x, d: (x * 1).index_fill_(d, _ix(m, [0]), 3.0),
    "scatter_": lambda m, x, d: (x * 1).scatter_(d, _ix(m, 0), x * 2),
    "scatter_add_": lambda m, x, d: (x * 1).scatter_add_(d, _ix(m, 0), x * 2),
    "logsumexp": lambda m, x, d: m.logsumexp(x, d),
    "mean": lambda m, x, d: m.mean(x, d),
    "sum": lambda m, x, d: m.sum(x, d),
    "sum_keepdim": lambda m, x, d: m.sum(x, d, keepdim=True),
    "nansum": lambda m, x, d: m.nansum(x, d),
    "nanmean": lambda m, x, d: m.nanmean(x, d),
    "prod": lambda m, x, d: m.prod(x, d),
    "std": lambda m, x, d: m.std(x, d),
    "var": lambda m, x, d: m.var(x, d),
    "std_mean": lambda m, x, d: m.std_mean(x, d),
    "var_mean": lambda m, x, d: m.var_mean(x, d),
    "norm": lambda m, x, d: m.norm(x, 2, d),
    "linalg.vector_norm": lambda m, x, d: _lin(m).vector_norm(x, 2, d),
    "linalg.norm": lambda m, x, d: _lin(m).norm(x, 2, d),
    "linalg.matrix_norm": lambda m, x, d: _lin(m).matrix_norm(x, "fro", (d, d + 1)),
    "cross": lambda m, x, d: m.cross(x, x * 2, dim=d),
    "linalg.cross": lambda m, x, d: _lin(m).cross(x, x * 2, dim=d),
    "linalg.vecdot": lambda m, x, d: _lin(m).vecdot(x, x * 2, dim=d),
    "linalg.diagonal": lambda m, x, d: _lin(m).diagonal(x, offset=0, dim1=d, dim2=1 - d),
    "linalg.tensorsolve": lambda m, x, d: _lin(m).tensorsolve(x, x * 2, dims=(d,)),
    "fft.fft": lambda m, x, d: m.fft.fft(x, dim=d),
    "fft.rfft": lambda m, x, d: m.fft.rfft(x, dim=d),
    "fft.irfft": lambda m, x, d: m.fft.irfft(x, dim=d),
    "fft.fftn": lambda m, x, d: m.fft.fftn(x, dim=(d,)),
    "fft.fftshift": lambda m, x, d: m.fft.fftshift(x, dim=d),
    "tensordot": lambda m, x, d: m.tensordot(x, x, dims=([d], [d])),
    "movedim": lambda m, x, d: m.movedim(x, d, d),
    "moveaxis": lambda m, x, d: m.moveaxis(x, d, d),
    "swapdims": lambda m, x, d: m.swapdims(x, d, d),
    "diff": lambda m, x, d: m.diff(x, dim=d),
    "repeat_interleave": lambda m, x, d: m.repeat_interleave(x, 2, dim=d),
    "narrow": lambda m, x, d: m.narrow(x, d, 0, 1),
    "select": lambda m, x, d: m.select(x, d, 0),
    "permute": lambda m, x, d: m.permute(x, (d,)),
    "transpose": lambda m, x, d: m.transpose(x, d, d),
    "transpose_two": lambda m, x, d: m.transpose(x, d, d + 1),
    "squeeze": lambda m, x, d: m.squeeze(x, d),
    "unsqueeze": lambda m, x, d: m.unsqueeze(x, d),
    "unflatten": lambda m, x, d: m.unflatten(x, d, (1,)),
    "unique": lambda m, x, d: m.unique(x, dim=d),
    "unique_consecutive": lambda m, x, d: m.unique_consecutive(x, dim=d),
    "Variable.size": lambda m, x, d: x.size(d),
    "Variable.stride": lambda m, x, d: x.stride(d),
}

# Public functions with a dim-like parameter that need no entry above (with the reason).
_DIM_EXEMPT = {
    "tile": "its 'dims' are repetition counts (the size table below)",
    "masked_scatter": "no dim: matched by the parameter name 'source'",
    "masked_scatter_": "no dim: matched by the parameter name 'source'",
    "put": "no dim (the input is taken as 1-d): matched by the parameter name 'source'",
    "put_": "as put",
}
_DIM_PARAMS = {"dim", "dims", "start_dim", "end_dim", "dim0", "dim1", "dim2", "source",
               "destination", "axis"}


def _public_dim_functions():
    import inspect
    names = set()
    for namespace, prefix in ((pyad, ""), (pyad.linalg, "linalg."),
                              (pyad.nn.functional, "nn.functional.")):
        for name in getattr(namespace, "__all__", dir(namespace)):
            fn = getattr(namespace, name, None)
            if name.startswith("_") or not callable(fn) or isinstance(fn, type):
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if _DIM_PARAMS & set(params):
                names.add(prefix + name)
    return names


def _zero_dim_outcome(lib, fn, d):
    """("ok", values, grad) or ("exc", exception type name)."""
    if lib is pyad:
        x = pyad.Variable(numpy.array(2.5), requires_grad=True)
    else:
        x = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
    try:
        out = fn(lib, x, d)
    except Exception as exc:
        return ["exc", type(exc).__name__, str(exc)]
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    values = [numpy.asarray(o.detach().numpy() if lib is not pyad else o.data).tolist()
              for o in outs]
    shapes = [list(numpy.shape(o.data if lib is pyad else o.detach().numpy())) for o in outs]
    diff = [o for o in outs if o.requires_grad]
    grad = None
    if diff:
        total = diff[0].sum()
        for o in diff[1:]:
            total = total + o.sum()
        g = (pyad.autograd.grad(total, x, allow_unused=True)[0] if lib is pyad else
             lib.autograd.grad(total, x, allow_unused=True)[0])
        grad = None if g is None else float(g.data if lib is pyad else g.detach().numpy())
    return ["ok", values, shapes, grad]


def _zero_dim_fuzz():
    report = {}
    for name, fn in _DIM_OPS.items():
        for d in (0, -1, 1, -2):
            print(name, d, file=sys.stderr, flush=True)      # names the op if it crashes
            report["%s %d" % (name, d)] = _zero_dim_outcome(pyad, fn, d)
    print(json.dumps(report))


def _overflow_cases():
    big, huge = 2 ** 61, 2 ** 62
    f = lambda: pyad.Variable(numpy.ones((2, 3)), requires_grad=True)
    b = lambda: pyad.Variable(numpy.ones((8, 1), bool))
    nnf = pyad.nn.functional
    return {
        "repeat": lambda: b().repeat(1, big),                    # crashed NumPy
        "tile": lambda: b().tile((1, big)),                      # crashed NumPy
        "repeat_3d": lambda: f().repeat(big, big, 1),
        "tile_1": lambda: pyad.tile(f(), (big,)),
        "zeros": lambda: pyad.zeros(big, big),
        "ones": lambda: pyad.ones(huge, 4),
        "empty": lambda: pyad.empty(big, 8),
        "full": lambda: pyad.full((big, 8), 1.0),
        "rand": lambda: pyad.rand(big, 8),
        "randn": lambda: pyad.randn(big, 8),
        "randint": lambda: pyad.randint(0, 3, (big, 8)),
        "new_zeros": lambda: f().new_zeros(big, 8),
        "new_ones": lambda: f().new_ones((big, 8)),
        "new_empty": lambda: f().new_empty(big, 8),
        "new_full": lambda: f().new_full((big, 8), 2.0),
        "eye": lambda: pyad.eye(big, big),
        "arange": lambda: pyad.arange(0, huge),
        "linspace": lambda: pyad.linspace(0, 1, huge),
        "pad": lambda: pyad.pad(f(), (big, big)),
        "nn.functional.pad": lambda: nnf.pad(f(), (big, big)),
        "normal": lambda: pyad.normal(0.0, 1.0, (big, 8)),
        "multinomial": lambda: pyad.multinomial(pyad.tensor([0.5, 0.5]), big,
                                                replacement=True),
        "one_hot": lambda: nnf.one_hot(pyad.tensor([0, 1]), big),
        "expand": lambda: f().expand(big, big, 2, 3),
        "broadcast_to": lambda: pyad.broadcast_to(f(), (huge, huge, 2, 3)),
        "reshape": lambda: f().reshape(huge, huge),
        "view": lambda: f().view(big, big),
        "unflatten": lambda: f().unflatten(1, (huge, huge)),
    }


def _overflow_fuzz():
    report = {}
    for name, fn in _overflow_cases().items():
        print(name, file=sys.stderr, flush=True)
        try:
            fn()
            report[name] = ["ok", ""]
        except Exception as exc:
            report[name] = [type(exc).__name__, str(exc)]
    print(json.dumps(report))


def _run_fuzz(mode):
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), mode], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "the %s fuzz crashed (exit code %d) in:\n%s" % (
        mode, proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_op_with_a_dim_is_in_the_zero_dim_table():
    missing = sorted(_public_dim_functions() - set(_DIM_OPS) - set(_DIM_EXEMPT))
    assert missing == [], "add these ops to _DIM_OPS: %s" % missing


def test_dims_on_zero_dim_inputs_never_crash_and_match_torch():
    report = _run_fuzz("zero-dim")
    for key, outcome in report.items():
        if outcome[0] == "exc":
            # a dim out of range is an IndexError (torch's); some ops refuse 0-d input
            # with a RuntimeError, as torch
            assert outcome[1] in ("IndexError", "RuntimeError"), (key, outcome)
    torch = pytest.importorskip("torch")
    mismatches = []
    for name, fn in _DIM_OPS.items():
        for d in (0, -1, 1, -2):
            got = report["%s %d" % (name, d)]
            want = _zero_dim_outcome(torch, fn, d)
            if got[0] != want[0] or (got[0] == "exc" and got[1] != want[1]):
                mismatches.append((name, d, got, want))
            elif got[0] == "ok":
                same = (got[2] == want[2] and len(got[1]) == len(want[1]) and
                        numpy.allclose(numpy.array(got[1], dtype=float),
                                       numpy.array(want[1], dtype=float), equal_nan=True)
                        and (got[3] is None) == (want[3] is None) and
                        (got[3] is None or numpy.isclose(got[3], want[3], equal_nan=True)))
                if not same:
                    mismatches.append((name, d, got, want))
    assert mismatches == []


def test_take_along_dim_and_cross_on_zero_dim_raise_index_error_like_torch():
    # Both read and wrote past an empty shape (a segfault); now torch's IndexError.
    report = _run_fuzz("zero-dim")
    for name in ("take_along_dim", "cross", "linalg.cross"):
        for d in (0, -1):
            kind, message = report["%s %d" % (name, d)][1:]
            assert kind == "IndexError"
            assert message == "%s(): Dimension specified as %d but the Variable has no " \
                              "dimensions" % (name, d)
        kind, message = report["%s 1" % name][1:]
        assert kind == "IndexError" and message == (
            "%s(): Dimension out of range (expected to be in range of [-1, 0], but got 1)"
            % name)


def test_overflowing_sizes_raise_runtime_error_like_torch():
    report = _run_fuzz("overflow")
    wrong = {k: v for k, v in report.items() if v[0] != "RuntimeError"}
    assert wrong == {}
    for name in ("repeat", "tile", "zeros", "pad", "eye", "one_hot"):
        assert "Storage size calculation overflowed" in report[name][1], report[name]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.ones(8, 1, dtype=torch.bool).repeat(1, 2 ** 61)


def test_repeat_and_tile_below_the_overflow_still_work():
    x = pyad.Variable(numpy.array([[1.0], [2.0]]), requires_grad=True)
    y = x.repeat(2, 3)
    assert y.shape == (4, 3)
    y.sum().backward()
    numpy.testing.assert_array_equal(x.grad.data, [[6.0], [6.0]])
    assert pyad.tile(x, (0, 2)).shape == (0, 2)
    assert pyad.zeros(2 ** 40, 0).shape == (2 ** 40, 0)          # no elements: fine


if __name__ == "__main__":
    if sys.argv[1:] == ["zero-dim"]:
        _zero_dim_fuzz()
    elif sys.argv[1:] == ["overflow"]:
        _overflow_fuzz()
    else:
        _fuzz()


# -- the checks behind the fuzz, against torch --------------------------------------------

_X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
_G = [[0.25, 1.0, -2.0], [3.0, 0.5, 1.5]]


def _both(torch):
    x = pyad.Variable(numpy.array(_X), requires_grad=True)
    w = pyad.Variable(numpy.array(_G), requires_grad=True)
    tx = torch.tensor(_X, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(_G, dtype=torch.float64, requires_grad=True)
    return x, w, tx, tw


def _exception_type(fn, *args):
    try:
        fn(*args)
    except Exception as exc:
        return type(exc)
    return None


def test_calling_a_node_with_wrong_arguments_raises_type_error_like_torch():
    torch = pytest.importorskip("torch")
    x, w, tx, tw = _both(torch)
    node, tnode = (x * w).grad_fn, (tx * tw).grad_fn
    g, tg = pyad.Variable(numpy.array(_G)), torch.tensor(_G, dtype=torch.float64)
    for args, targs in [((), ()), ((g, g), (tg, tg)), ((1.0,), (1.0,)), (("a",), ("a",))]:
        assert _exception_type(node, *args) is TypeError
        assert _exception_type(tnode, *targs) is TypeError
    with pytest.raises(TypeError, match=r"MulBackward expected 1 arguments, got 0"):
        node()
    with pytest.raises(TypeError, match="argument 0 given to MulBackward is not a Variable"):
        node("a")
    with pytest.raises(TypeError, match="without data"):
        node(_uninit_variable())


def test_calling_a_node_runs_its_formula_like_torch():
    torch = pytest.importorskip("torch")
    x, w, tx, tw = _both(torch)
    g, tg = pyad.Variable(numpy.array(_G)), torch.tensor(_G, dtype=torch.float64)
    for make in (lambda a, b: a * b, lambda a, b: (a / b).exp(), lambda a, b: a.tanh() - b):
        node, tnode = make(x, w).grad_fn, make(tx, tw).grad_fn
        for grad_mode in (True, False):
            with pyad.set_grad_enabled(grad_mode):
                got = node(g)
            want = tnode(tg)
            want = want if isinstance(want, tuple) else (want,)  # torch unwraps one
            assert len(got) == len(want)
            for a, b in zip(got, want):
                numpy.testing.assert_allclose(a.data, b.detach().numpy(), rtol=1e-12)
        # No gradient flowing in: nothing flows out (torch returns undefined grads).
        assert node(None) == (None,) * len(got)
        assert tnode(None) in (None, (None,) * len(got))
    # An array stands for a Variable (as in a hook's result).
    numpy.testing.assert_allclose((x * w).grad_fn(numpy.array(_G))[0].data,
                                  numpy.array(_G) * numpy.array(_G))


def test_node_classes_cannot_be_made_from_python_like_torch():
    torch = pytest.importorskip("torch")
    x, w, tx, tw = _both(torch)
    for node, tnode in [((x * w).grad_fn, (tx * tw).grad_fn),
                        ((x * w).grad_fn.next_functions[0][0],
                         (tx * tw).grad_fn.next_functions[0][0])]:
        with pytest.raises(TypeError, match="cannot create"):
            type(node)()
        with pytest.raises((TypeError, RuntimeError)):   # torch: TypeError, RuntimeError
            type(tnode)()
        # Made without its forward op (__new__ skips __init__): no graph to run.
        bare = type(node).__new__(type(node))
        with pytest.raises(RuntimeError, match="not created by a forward op"):
            bare(pyad.Variable(numpy.array(_G)))
        assert bare.next_functions == ()
    with pytest.raises(RuntimeError, match="not created by a forward op"):
        _engine._GraphRoot.__new__(_engine._GraphRoot)()


def test_calling_a_released_node_raises_like_torch():
    torch = pytest.importorskip("torch")
    x, w, tx, tw = _both(torch)
    y, ty = (x * w).exp(), (tx * tw).exp()
    y.sum().backward()
    ty.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn(pyad.Variable(numpy.array(_G)))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ty.grad_fn(torch.tensor(_G, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.next_functions[0][0](pyad.Variable(numpy.array(_G)))


def test_accumulate_grad_of_a_dead_leaf_does_nothing():
    x = pyad.Variable(numpy.array(_X), requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.variable is x
    acc(pyad.Variable(numpy.array(_G)))
    numpy.testing.assert_array_equal(x.grad.data, numpy.array(_G))
    del x
    assert acc.variable is None
    assert acc(pyad.Variable(numpy.array(_G))) == ()


@pytest.mark.parametrize("kind, result, error, message", [
    ("pre", (), RuntimeError, "incorrect number of values"),
    ("pre", (1.0,), TypeError, "is not a Variable"),
    ("pre", ("x",), TypeError, "is not a Variable"),
    ("pre", 5, TypeError, "expected a tuple"),
    ("pre", (numpy.ones(7),), RuntimeError, "changed the size of value 0"),
    ("post", (), RuntimeError, "incorrect number of values"),
    ("post", (1.0, None), TypeError, "is not a Variable"),
    ("post", ("x", None), TypeError, "is not a Variable"),
    ("post", (numpy.ones(7), None), RuntimeError, "changed the size of value 0"),
])
def test_node_hook_returning_bad_values_raises_like_torch(kind, result, error, message):
    torch = pytest.importorskip("torch")
    x, w, tx, tw = _both(torch)
    for y, module in (((x * w).sum(), pyad), ((tx * tw).sum(), torch)):
        node = y.grad_fn.next_functions[0][0]          # MulBackward
        if kind == "pre":
            node.register_prehook(lambda grads: result)
        else:
            node.register_hook(lambda grads_in, grads_out: result)
        if isinstance(result, tuple) and result and isinstance(result[0], numpy.ndarray) \
                and module is torch:
            continue                                   # torch takes no ndarrays
        with pytest.raises(error) as info:
            y.backward()
        if module is pyad:
            assert message in str(info.value)


def test_node_hooks_returning_good_values_still_replace_gradients():
    x = pyad.Variable(numpy.array(_X), requires_grad=True)
    y = (x * 3.0).sum()
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (numpy.ones((2, 3)), None))
    y.backward()
    numpy.testing.assert_array_equal(x.grad.data, numpy.ones((2, 3)))


def test_pickling_nodes_raises_and_variables_keep_value_and_flags():
    import copy
    import pickle
    x = pyad.Variable(numpy.array(_X), requires_grad=True)
    x.grad = pyad.Variable(numpy.array(_G))
    y = x * 2
    for obj in (y.grad_fn, y.grad_fn.next_functions[0][0]):
        with pytest.raises(TypeError, match="pickle"):
            pickle.dumps(obj)
    for copied in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert copied.requires_grad and copied.is_leaf
        numpy.testing.assert_array_equal(copied.data, x.data)
    # As torch 2.13: deepcopy keeps .grad, pickling drops it.
    numpy.testing.assert_array_equal(copy.deepcopy(x).grad.data, x.grad.data)
    assert pickle.loads(pickle.dumps(x)).grad is None
    z = pickle.loads(pickle.dumps(y))                  # as torch: back as a leaf
    assert z.is_leaf and z.requires_grad
    numpy.testing.assert_array_equal(z.data, y.data)
    # No generated __setstate__ left to write the fields unchecked.
    assert not hasattr(_engine.Variable, "__setstate_cython__")
    assert not hasattr(_engine.MulBackward, "__setstate_cython__")


def test_size_of_a_zero_dim_variable_raises_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.tensor(2.0).size(0)
    with pytest.raises(IndexError, match="no dimensions"):
        pyad.Variable(numpy.float64(2.0)).size(0)
    with pytest.raises(TypeError, match="format spec"):
        pyad.Variable(numpy.float64(2.0)).__format__(5)


_TUPLE_DIM_REDUCTIONS = ["sum", "mean", "amax", "amin", "logsumexp", "std", "var", "nansum",
                         "nanmean", "count_nonzero"]


@pytest.mark.parametrize("name", _TUPLE_DIM_REDUCTIONS)
@pytest.mark.parametrize("dims", [(0,), [-1], (), (0, -1), (1,)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_a_dim_list_on_a_zero_dim_input_matches_torch(name, dims, keepdim):
    # torch lets a 0-d input take dim 0 / -1 in a list too (there is no axis to reduce);
    # a repeated dim and a dim out of range are still errors. (A list once reached
    # NumPy's reduction as axis (0,) and failed with AxisError.)
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (torch, pyad):
        x = lib.tensor(2.5, requires_grad=name != "count_nonzero")
        fn = getattr(lib, name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = fn(x, dims) if name == "count_nonzero" else fn(x, dims, keepdim=keepdim)
            value = float(r.detach() if r.requires_grad else r)
            grad = None
            if r.requires_grad:
                r.backward()
                grad = float(x.grad)
            outcomes.append(("ok", tuple(r.shape), value, grad))
        except Exception as exc:        # noqa: BLE001  (the type is what is compared)
            outcomes.append(("raise", type(exc).__name__))
    t, p = outcomes
    assert p[:2] == t[:2], (name, dims, keepdim, t, p)
    if t[0] == "ok":
        numpy.testing.assert_equal(p[2:], t[2:])
