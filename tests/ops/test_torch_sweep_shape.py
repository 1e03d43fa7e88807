"""Differential sweep of the shape, view and indexing ops against PyTorch.

Each case is one call ``f(L, X, I)`` written once for both libraries: ``L`` is the
module (``pyad`` or ``torch``), ``X(array, g=False, nc=None)`` makes a tensor of the
library from a NumPy array (``g``: a floating or complex leaf requiring grad; ``nc``:
``"T"`` a transposed view, ``"s"`` a strided view, both non-contiguous) and
``I(array)`` an int64 index tensor.  The outcome -- the exception type when torch
raises, else dtype, shape and values of every tensor returned, and the gradient of
``(out * w).sum()`` for a fixed random ``w`` with respect to the ``g`` leaves -- must be
the same in both libraries.

Cases where pyad differs because of a gap in the Cython engine are listed in
``ENGINE_GAPS`` (strict xfail: when the engine is fixed the case fails and the entry is
deleted).  ``python tests/ops/test_torch_sweep_shape.py`` prints every differing case.
"""
import builtins
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

# --------------------------------------------------------------------------------
# Harness
# --------------------------------------------------------------------------------

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
          "float64", "complex64", "complex128"]
GRAD_DTYPES = ("float16", "float32", "float64", "complex64", "complex128")
TOL = {"float16": 2e-3, "float32": 1e-4, "float64": 1e-6, "complex64": 1e-4,
       "complex128": 1e-6}


def values(shape, dt, special=False):
    """Deterministic values of ``dt`` with ties (small integers); ``special`` puts nan,
    +-inf, -0.0 and a denormal in a floating array."""
    n = int(np.prod(shape)) if shape else 1
    base = (np.arange(n) * 7 % 5 - 2).reshape(shape)       # -2..2 with repeats
    if dt == "bool":
        return (base > 0)
    if dt == "uint8":
        return (base + 2).astype(np.uint8)
    a = base.astype(dt)
    if dt.startswith("complex"):
        a = a + 1j * (np.arange(n).reshape(shape) % 3 - 1).astype(dt)
    elif dt.startswith("float"):
        a = a + np.where(base % 2 == 0, 0.25, 0.0).astype(dt)
        if special and n:
            sp = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-310, 1e308], np.float64)
            flat = a.reshape(-1)
            k = min(n, sp.size)
            with np.errstate(over="ignore"):        # 1e308 is inf in float16/32
                flat[:k] = sp[:k].astype(dt)
            a = flat.reshape(shape)
    return a


class _Side:
    def __init__(self, lib):
        self.lib = lib
        self.leaves = []

    def X(self, a, g=False, nc=None):
        a = np.asarray(a)
        is_torch = self.lib is torch
        # a C-ordered copy (np.ascontiguousarray would make a 0-d array 1-d)
        mk = (lambda arr: torch.tensor(np.array(arr, order="C"))) if is_torch else \
            (lambda arr: pyad.tensor(np.array(arr, order="C")))
        if nc is None:
            t = mk(a)
            if g:
                t.requires_grad_(True)
                self.leaves.append(t)
            return t
        if nc == "T":
            base = mk(np.swapaxes(a, -1, -2).copy())
            if g:
                base.requires_grad_(True)
                self.leaves.append(base)
            return base.transpose(-1, -2)
        # "s": every other element along the last dimension
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        big[..., ::2] = a
        base = mk(big)
        if g:
            base.requires_grad_(True)
            self.leaves.append(base)
        return base[..., ::2]

    def I(self, a):
        a = np.asarray(a, dtype=np.int64)
        return torch.tensor(a) if self.lib is torch else pyad.tensor(a)


def _dtname(dt):
    return str(dt).replace("torch.", "")


def _flat_tensors(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat_tensors(o))
        return res
    return [out]


def _is_tensor(o):
    return isinstance(o, (torch.Tensor, pyad.Variable))


def _describe(o):
    if _is_tensor(o):
        arr = o.detach().cpu().numpy() if isinstance(o, torch.Tensor) else \
            np.asarray(o.detach().numpy())
        return ("tensor", _dtname(o.dtype), tuple(o.shape), arr)
    return ("other", type(o).__name__, repr(o), None)


def _weight(shape, dt, k):
    rng = np.random.default_rng(1234 + k)
    w = rng.standard_normal(shape)
    if dt.startswith("complex"):
        w = w + 1j * rng.standard_normal(shape)
    return w.astype(dt)


def _run(lib, fn):
    """The outcome of ``fn`` in ``lib``: ("raise", exc, None), ("raise-backward", exc,
    None) or ("ok", outputs, gradients). A case marked ``fn.second`` weighs its outputs
    squared, ``(out * out * w).sum()`` (so its gradient depends on the inputs), and its
    gradients also hold the second derivatives: the gradient of ``(g * w2).sum()`` over
    the first-order gradients ``g`` taken with ``create_graph=True``."""
    second = getattr(fn, "second", False)
    side = _Side(lib)
    try:
        out = fn(lib, side.X, side.I)
    except Exception as e:                      # noqa: BLE001 - outcome to compare
        return ("raise", e, None)
    outs = _flat_tensors(out)
    desc = [_describe(o) for o in outs]
    grads = None
    if side.leaves:
        loss = None
        for k, o in enumerate(outs):
            if _is_tensor(o) and o.requires_grad and _dtname(o.dtype) in GRAD_DTYPES:
                w = _weight(tuple(o.shape), _dtname(o.dtype), k)
                w = torch.tensor(w) if lib is torch else pyad.tensor(w)
                term = (o * o * w).sum() if second else (o * w).sum()
                if _dtname(o.dtype).startswith("complex"):
                    term = term.real
                loss = term if loss is None else loss + term
        if loss is not None:
            try:
                gs = lib.autograd.grad(loss, side.leaves, allow_unused=True,
                                       create_graph=second)
                grads = [None if g is None else _describe(g) for g in gs]
                if second:
                    loss2 = None
                    for k, g in enumerate(gs):
                        if g is not None and g.requires_grad:
                            w2 = _weight(tuple(g.shape), _dtname(g.dtype), 100 + k)
                            w2 = torch.tensor(w2) if lib is torch else pyad.tensor(w2)
                            t2 = (g * w2).sum()
                            t2 = t2.real if _dtname(g.dtype).startswith("complex") else t2
                            loss2 = t2 if loss2 is None else loss2 + t2
                    if loss2 is None:
                        grads.append(("other", "no-second-order", "None", None))
                    else:
                        g2 = lib.autograd.grad(loss2, side.leaves, allow_unused=True)
                        grads += [None if g is None else _describe(g) for g in g2]
            except Exception as e:              # noqa: BLE001
                return ("raise-backward", e, None)
    return ("ok", desc, grads)


def _close(d1, d2):
    """Why two described outcomes differ, or None."""
    if d1[0] != d2[0]:
        return "kind %s vs %s" % (d1[0], d2[0])
    if d1[0] == "other":
        return None if d1[1:3] == d2[1:3] else "value %r vs %r" % (d1[2], d2[2])
    _, dt1, s1, a1 = d1
    _, dt2, s2, a2 = d2
    if dt1 != dt2:
        return "dtype %s vs %s" % (dt1, dt2)
    if s1 != s2:
        return "shape %s vs %s" % (s1, s2)
    if dt1 in TOL:
        tol = TOL[dt1]
        ok = np.allclose(a1.astype(np.complex128 if "complex" in dt1 else np.float64),
                         a2.astype(np.complex128 if "complex" in dt1 else np.float64),
                         rtol=tol, atol=tol * 1e-3, equal_nan=True)
    else:
        ok = np.array_equal(a1, a2)
    return None if ok else "values\n torch %s\n pyad  %s" % (a1, a2)


def compare(fn):
    """None when pyad and torch agree on ``fn``, else a description of the difference."""
    t = _run(torch, fn)
    p = _run(pyad, fn)
    if t[0] != "ok":
        te = t[1]
        if p[0] == t[0] and isinstance(p[1], builtins.type(te)):
            return None
        if p[0] == "ok":
            return "%s: torch raises %s(%s), pyad returns" % (
                t[0], type(te).__name__, str(te).split("\n")[0][:120])
        return "%s: torch raises %s(%s), pyad %s %s(%s)" % (
            t[0], type(te).__name__, str(te).split("\n")[0][:100], p[0],
            type(p[1]).__name__, str(p[1]).split("\n")[0][:120])
    if p[0] != "ok":
        return "torch ok, pyad %s %s(%s)" % (p[0], type(p[1]).__name__,
                                            str(p[1]).split("\n")[0][:160])
    if len(t[1]) != len(p[1]):
        return "number of outputs %d vs %d" % (len(t[1]), len(p[1]))
    for k, (d1, d2) in enumerate(zip(t[1], p[1])):
        why = _close(d1, d2)
        if why:
            return "output %d: %s" % (k, why)
    if (t[2] is None) != (p[2] is None):
        return "grad: torch %s, pyad %s" % ("has" if t[2] else "none",
                                            "has" if p[2] else "none")
    if t[2] is not None:
        for k, (g1, g2) in enumerate(zip(t[2], p[2])):
            if (g1 is None) != (g2 is None):
                return "grad %d: torch %s pyad %s" % (k, g1 is None, g2 is None)
            if g1 is not None:
                why = _close(g1, g2)
                if why:
                    return "grad %d: %s" % (k, why)
    return None


# --------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------

# Cases where pyad differs from torch because of the Cython engine (pyad/ops/*.pxi):
# regular expression on the case id -> reason (strict xfail).
ENGINE_GAPS = {
    r"^(getitem|setitem)-negstep-(?!complex-(int64|float64)$)":
        "engine: getitem/setitem (shape.pxi/inplace.pxi) take a negative slice step; "
        "torch ValueError('step must be greater than zero')",
    r"^scatter-srclarger-(float16|float32|float64|complex64|complex128)-(3x4|nc)$|"
    r"^scatter_add-srcdtype-float32-3x4$": "engine: scatter/scatter_add backward (shape.pxi) "
                                           "slice src's gradient; torch's raises when src "
                                           "is larger than index",
    r"^take_along_dim-none-float64-nc$": "engine: take_along_dim(dim=None) on a "
                                         "non-contiguous input: torch raises (it views)",
    r"^viewinfo-(flip|repeat)-T$": "engine: flip/repeat of a non-contiguous input: "
                                   "strides differ from torch's (clone keeps the "
                                   "layout since memory formats)",
    r"^scatter_reduce-srclarger-(sum|amax)$": "python (not engine): _scatter_reduce.py "
                                              "pads src's gradient when src is larger than "
                                              "index; torch's backward raises RuntimeError",
    r"^(tile-more|ri-dim-1)-float16-2x3$": "engine: the float16 gradient of tile/"
                                           "repeat_interleave sums the copies in float16 "
                                           "(sum_to); torch accumulates in float32 and "
                                           "rounds once (a few ulps apart)",
}

# second-order cases whose first-order case agrees with torch
ENGINE_GAPS_GG = {
    r"^gg-repeat-0-float64-2x3$": "engine: repeat to an empty output: the create_graph "
                                  "gradient requires grad in pyad, not in torch",
}

CASES = {}


def case(cid, fn):
    assert cid not in CASES, cid
    CASES[cid] = fn


# Shapes for the unary sweep: (name, shape, nc)
SHAPES = [("0d", (), None), ("e0", (0,), None), ("3", (3,), None),
          ("2x3", (2, 3), None), ("2x1x3", (2, 1, 3), None), ("0x3", (0, 3), None),
          ("2x3T", (2, 3), "T"), ("2x3s", (2, 3), "s"), ("2x3x4", (2, 3, 4), None)]

# (name, f(L, x, X, I)) -- x is the input tensor
UNARY = [
    ("reshape-1", lambda L, x, X, I: x.reshape(-1)),
    ("reshape_fn", lambda L, x, X, I: L.reshape(x, (-1, 1))),
    ("reshape-0", lambda L, x, X, I: x.reshape(0, -1)),
    ("reshape-bad", lambda L, x, X, I: x.reshape(5, 7)),
    ("reshape-2neg", lambda L, x, X, I: x.reshape(-1, -1)),
    ("view-1", lambda L, x, X, I: x.view(-1)),
    ("view-1x", lambda L, x, X, I: x.view(1, *x.shape)),
    ("view_as", lambda L, x, X, I: x.view_as(x.reshape(-1))),
    ("reshape_as", lambda L, x, X, I: x.reshape_as(x.reshape(-1))),
    ("flatten", lambda L, x, X, I: x.flatten()),
    ("flatten01", lambda L, x, X, I: L.flatten(x, 0, 1)),
    ("flatten-bad", lambda L, x, X, I: x.flatten(1, 0)),
    ("ravel", lambda L, x, X, I: L.ravel(x)),
    ("unflatten", lambda L, x, X, I: x.unflatten(0, (1, -1))),
    ("unflatten-neg", lambda L, x, X, I: L.unflatten(x, -1, (-1, 1))),
    ("unflatten-bad", lambda L, x, X, I: x.unflatten(0, (4, 5))),
    ("squeeze", lambda L, x, X, I: x.squeeze()),
    ("squeeze0", lambda L, x, X, I: x.squeeze(0)),
    ("squeeze1", lambda L, x, X, I: L.squeeze(x, 1)),
    ("squeeze-1", lambda L, x, X, I: x.squeeze(-1)),
    ("squeeze-tup", lambda L, x, X, I: x.squeeze((0, 1))),
    ("squeeze-tup1", lambda L, x, X, I: L.squeeze(x, (-1,))),
    ("squeeze-oob", lambda L, x, X, I: x.squeeze(5)),
    ("unsqueeze0", lambda L, x, X, I: x.unsqueeze(0)),
    ("unsqueeze-1", lambda L, x, X, I: L.unsqueeze(x, -1)),
    ("unsqueeze-oob", lambda L, x, X, I: x.unsqueeze(x.dim() + 2)),
    ("permute-rev", lambda L, x, X, I: x.permute(*reversed(range(x.dim())))),
    ("permute-fn", lambda L, x, X, I: L.permute(x, tuple(range(x.dim())))),
    ("permute-dup", lambda L, x, X, I: x.permute(0, 0)),
    ("transpose0-1", lambda L, x, X, I: x.transpose(0, -1)),
    ("transpose-fn", lambda L, x, X, I: L.transpose(x, -1, 0)),
    ("swapaxes", lambda L, x, X, I: L.swapaxes(x, 0, -1)),
    ("swapdims", lambda L, x, X, I: x.swapdims(-1, 0)),
    ("movedim", lambda L, x, X, I: L.movedim(x, 0, -1)),
    ("movedim-tup", lambda L, x, X, I: L.movedim(x, (0, -1), (-1, 0))),
    ("moveaxis", lambda L, x, X, I: L.moveaxis(x, -1, 0)),
    ("t", lambda L, x, X, I: x.t()),
    ("t-fn", lambda L, x, X, I: L.t(x)),
    ("T", lambda L, x, X, I: x.T if x.dim() in (0, 2) else x.permute(
        *reversed(range(x.dim())))),
    ("mT", lambda L, x, X, I: x.mT),
    ("expand", lambda L, x, X, I: x.expand(2, *x.shape)),
    ("expand-neg", lambda L, x, X, I: x.expand(*([-1] * x.dim()))),
    ("expand-1to4", lambda L, x, X, I: x.expand(*(x.shape[:-1] + (4,)))
     if x.dim() else x.expand(4)),
    ("expand-lead-neg", lambda L, x, X, I: x.expand(-1, *x.shape)),
    ("expand-fewer", lambda L, x, X, I: x.expand(3)),
    ("expand_as", lambda L, x, X, I: x.expand_as(X(np.zeros((2,) + tuple(x.shape))))),
    ("broadcast_to", lambda L, x, X, I: L.broadcast_to(x, (2,) + tuple(x.shape))),
    ("broadcast_to-neg", lambda L, x, X, I: L.broadcast_to(x, (2,) + (-1,) * x.dim())),
    ("repeat", lambda L, x, X, I: x.repeat(*([2] * max(x.dim(), 1)))),
    ("repeat-more", lambda L, x, X, I: x.repeat(2, *([1] * x.dim()), 2)
     if False else x.repeat(*([2] + [1] * x.dim()))),
    ("repeat-0", lambda L, x, X, I: x.repeat(*([0] * max(x.dim(), 1)))),
    ("repeat-fewer", lambda L, x, X, I: x.repeat(2)),
    ("tile", lambda L, x, X, I: L.tile(x, (2,))),
    ("tile-more", lambda L, x, X, I: x.tile((2, 1, 1, 2))),
    ("ri-int", lambda L, x, X, I: L.repeat_interleave(x, 2)),
    ("ri-dim0", lambda L, x, X, I: x.repeat_interleave(2, dim=0)),
    ("ri-dim-1", lambda L, x, X, I: x.repeat_interleave(3, -1)),
    ("ri-tensor", lambda L, x, X, I: x.repeat_interleave(
        I(np.arange(x.shape[0]) % 3) if x.dim() else I(2), dim=0)),
    ("ri-neg", lambda L, x, X, I: x.repeat_interleave(-1)),
    ("flip0", lambda L, x, X, I: x.flip(0)),
    ("flip-tup", lambda L, x, X, I: L.flip(x, (0, -1))),
    ("flip-empty", lambda L, x, X, I: L.flip(x, ())),
    ("fliplr", lambda L, x, X, I: L.fliplr(x)),
    ("flipud", lambda L, x, X, I: L.flipud(x)),
    ("roll1", lambda L, x, X, I: L.roll(x, 1)),
    ("roll-neg0", lambda L, x, X, I: x.roll(-4, 0)),
    ("roll-tup", lambda L, x, X, I: L.roll(x, (1, 2), (0, -1))),
    ("roll-dimsNone", lambda L, x, X, I: L.roll(x, shifts=5, dims=None)),
    ("roll-mismatch", lambda L, x, X, I: L.roll(x, (1, 2), 0)),
    ("rot90", lambda L, x, X, I: L.rot90(x)),
    ("rot90-2", lambda L, x, X, I: x.rot90(2)),
    ("rot90-3", lambda L, x, X, I: L.rot90(x, 3, (0, 1))),
    ("rot90--1", lambda L, x, X, I: L.rot90(x, -1, (-1, 0))),
    ("rot90-samedim", lambda L, x, X, I: L.rot90(x, 1, (0, 0))),
    ("split2", lambda L, x, X, I: x.split(2)),
    ("split-list", lambda L, x, X, I: L.split(x, [1, x.shape[0] - 1])),
    ("split-dim-1", lambda L, x, X, I: L.split(x, 2, dim=-1)),
    ("split-badlist", lambda L, x, X, I: x.split([1, 1], 0)),
    ("split-0", lambda L, x, X, I: x.split(0)),
    ("chunk2", lambda L, x, X, I: x.chunk(2)),
    ("chunk4-1", lambda L, x, X, I: L.chunk(x, 4, -1)),
    ("chunk0", lambda L, x, X, I: x.chunk(0)),
    ("tsplit3", lambda L, x, X, I: L.tensor_split(x, 3)),
    ("tsplit-list", lambda L, x, X, I: x.tensor_split([1, 2], dim=-1)),
    ("tsplit-tensor", lambda L, x, X, I: L.tensor_split(x, I([1, 5]))),
    ("tsplit-0dtensor", lambda L, x, X, I: L.tensor_split(x, I(2))),
    ("hsplit", lambda L, x, X, I: L.hsplit(x, [1])),
    ("vsplit", lambda L, x, X, I: L.vsplit(x, [1])),
    ("unbind", lambda L, x, X, I: x.unbind()),
    ("unbind-1", lambda L, x, X, I: L.unbind(x, -1)),
    ("narrow", lambda L, x, X, I: x.narrow(0, 1, 1)),
    ("narrow-neg", lambda L, x, X, I: L.narrow(x, -1, -2, 2)),
    ("narrow-tensorstart", lambda L, x, X, I: L.narrow(x, 0, I(0), 1)),
    ("narrow-oob", lambda L, x, X, I: x.narrow(0, 2, 5)),
    ("select", lambda L, x, X, I: x.select(0, 1)),
    ("select-neg", lambda L, x, X, I: L.select(x, -1, -1)),
    ("select-oob", lambda L, x, X, I: x.select(0, 7)),
    ("diag", lambda L, x, X, I: L.diag(x)),
    ("diag1", lambda L, x, X, I: x.diag(1)),
    ("diag-2", lambda L, x, X, I: L.diag(x, -2)),
    ("diagonal", lambda L, x, X, I: x.diagonal()),
    ("diagonal-off", lambda L, x, X, I: L.diagonal(x, 1, -1, 0)),
    ("diagonal-bigoff", lambda L, x, X, I: L.diagonal(x, offset=-5)),
    ("diagonal-same", lambda L, x, X, I: L.diagonal(x, 0, 0, 0)),
    ("diag_embed", lambda L, x, X, I: L.diag_embed(x)),
    ("diag_embed-off", lambda L, x, X, I: x.diag_embed(-1, 0, 2)),
    ("diagflat", lambda L, x, X, I: L.diagflat(x, 1)),
    ("tril", lambda L, x, X, I: x.tril()),
    ("tril1", lambda L, x, X, I: L.tril(x, 1)),
    ("tril-5", lambda L, x, X, I: L.tril(x, -5)),
    ("triu", lambda L, x, X, I: L.triu(x)),
    ("triu-1", lambda L, x, X, I: x.triu(diagonal=-1)),
    ("triu9", lambda L, x, X, I: x.triu(9)),
    ("clone", lambda L, x, X, I: x.clone()),
    ("clone-fn", lambda L, x, X, I: L.clone(x)),
    ("contiguous", lambda L, x, X, I: x.contiguous()),
    ("nonzero", lambda L, x, X, I: x.nonzero()),
    ("nonzero-tuple", lambda L, x, X, I: L.nonzero(x, as_tuple=True)),
    ("argwhere", lambda L, x, X, I: L.argwhere(x)),
    ("where1", lambda L, x, X, I: L.where(x)),
    ("masked_select-self", lambda L, x, X, I: x.masked_select(x != 0)),
    ("take", lambda L, x, X, I: L.take(x, I([0, -1, 0]))),
    ("take-oob", lambda L, x, X, I: x.take(I([99]))),
    ("take-2d", lambda L, x, X, I: L.take(x, I([[0], [0]]))),
    ("atleast_1d", lambda L, x, X, I: L.atleast_1d(x)),
    ("atleast_2d", lambda L, x, X, I: L.atleast_2d(x)),
    ("atleast_3d", lambda L, x, X, I: L.atleast_3d(x)),
    ("getitem-0", lambda L, x, X, I: x[0]),
    ("getitem--1", lambda L, x, X, I: x[-1]),
    ("getitem-oob", lambda L, x, X, I: x[5]),
    ("getitem-none", lambda L, x, X, I: x[None]),
    ("getitem-ell", lambda L, x, X, I: x[..., None]),
    ("getitem-ell2", lambda L, x, X, I: x[..., 0]),
    ("getitem-slice-step", lambda L, x, X, I: x[::2]),
    ("getitem-slice-neg", lambda L, x, X, I: x[-2:]),
    ("getitem-slice-oob", lambda L, x, X, I: x[5:10]),
    ("getitem-slice-rev", lambda L, x, X, I: x[2:0]),
    ("getitem-negstep", lambda L, x, X, I: x[::-1]),
    ("getitem-true", lambda L, x, X, I: x[True]),
    ("getitem-false", lambda L, x, X, I: x[False]),
    ("getitem-0dbool", lambda L, x, X, I: x[X(np.array(True))]),
    ("getitem-mask", lambda L, x, X, I: x[x != 0] if x.dtype != L.bool else x[x]),
    ("getitem-list", lambda L, x, X, I: x[[0, 0, -1]]),
    ("getitem-tensoridx", lambda L, x, X, I: x[I([[1, 0], [0, 1]])]),
    ("getitem-int32idx", lambda L, x, X, I: x[I([1, 0]).int()]),
    ("getitem-idx-oob", lambda L, x, X, I: x[I([0, 9])]),
    ("getitem-tuple-many", lambda L, x, X, I: x[0, 0, 0, 0]),
    ("getitem-2ell", lambda L, x, X, I: x[..., ...]),
    ("getitem-float", lambda L, x, X, I: x[1.0]),
    ("getitem-fidx", lambda L, x, X, I: x[X(np.array([0.0]))]),
    ("getitem-empty-list", lambda L, x, X, I: x[[]]),
    ("getitem-0dint", lambda L, x, X, I: x[I(0)]),
]

# Ops whose first argument must be at least 2-d etc. are still run on every shape: the
# error types must match torch.

for opname, f in UNARY:
    for dt in DTYPES:
        for sname, shape, nc in SHAPES:
            # the dtype grid on one 2-d shape, every shape in float64, a few in int64
            if dt in ("uint8", "int8", "int16", "int32", "float32"):
                continue
            if dt != "float64" and sname != "2x3" and not (dt == "int64" and sname == "2x3T"):
                continue
            g = dt in GRAD_DTYPES
            if nc == "T" and len(shape) < 2:
                continue
            a = values(shape, dt)
            case("%s-%s-%s" % (opname, dt, sname),
                 (lambda f, a, g, nc: lambda L, X, I: f(L, X(a, g=g, nc=nc), X, I))(
                     f, a, g, nc))
    # complex128 gradients through every op on one non-contiguous shape
    a = values((2, 3), "complex128")
    case("%s-complex128-2x3T" % opname,
         (lambda f, a: lambda L, X, I: f(L, X(a, g=True, nc="T"), X, I))(f, a))



# ---- several inputs: cat/stack family, dtype promotion across the inputs
MULTI = [
    ("cat", lambda L, a, b: L.cat([a, b])),
    ("cat-1", lambda L, a, b: L.cat((a, b), dim=-1)),
    ("concat", lambda L, a, b: L.concat([a, b], 1)),
    ("concatenate", lambda L, a, b: L.concatenate([a, b], axis=0)),
    ("stack", lambda L, a, b: L.stack([a, b])),
    ("stack-1", lambda L, a, b: L.stack((a, b), -1)),
    ("hstack", lambda L, a, b: L.hstack([a, b])),
    ("vstack", lambda L, a, b: L.vstack([a, b])),
    ("dstack", lambda L, a, b: L.dstack([a, b])),
    ("column_stack", lambda L, a, b: L.column_stack([a, b])),
    ("row_stack", lambda L, a, b: L.row_stack([a, b])),
]
for opname, f in MULTI:
    for d1 in DTYPES:
        for d2 in DTYPES:
            # every pair for cat, pairs with float64 (and same-dtype ones) for stack,
            # float64 with each dtype for the others
            if opname != "cat" and "float64" not in (d1, d2) and (
                    opname != "stack" or d1 != d2):
                continue
            if opname not in ("cat", "stack") and d1 != "float64":
                continue
            g1, g2 = d1 in GRAD_DTYPES, d2 in GRAD_DTYPES
            a, b = values((2, 3), d1), values((2, 3), d2)
            case("%s-%s+%s-2x3" % (opname, d1, d2),
                 (lambda f, a, b, g1, g2: lambda L, X, I: f(L, X(a, g=g1), X(b, g=g2)))(
                     f, a, b, g1, g2))
    for sa, sb, sname in [((3,), (0,), "3+e0"), ((2, 3), (0,), "2x3+e0"),
                          ((0,), (0,), "e0+e0"), ((), (), "0d+0d"), ((2, 3), (3,), "2x3+3"),
                          ((2, 3), (2, 4), "2x3+2x4"), ((2, 3), (3, 3), "2x3+3x3"),
                          ((2, 3), (0, 3), "2x3+0x3"), ((3,), (2,), "3+2")]:
        for d1, d2 in ([("float64", "float64"), ("int64", "float32"), ("float64", "int8"),
                        ("int32", "bool"), ("float32", "complex128")]
                       if opname in ("cat", "stack", "hstack", "vstack") else
                       [("float64", "float64"), ("int64", "float32")]):
            g1, g2 = d1 in GRAD_DTYPES, d2 in GRAD_DTYPES
            a, b = values(sa, d1), values(sb, d2)
            case("%s-%s+%s-%s" % (opname, d1, d2, sname),
                 (lambda f, a, b, g1, g2: lambda L, X, I: f(L, X(a, g=g1), X(b, g=g2)))(
                     f, a, b, g1, g2))
    case("%s-nc-float64" % opname,
         (lambda f: lambda L, X, I: f(L, X(values((2, 3), "float64"), g=True, nc="T"),
                                      X(values((2, 3), "float64"), g=True, nc="s")))(f))
case("cat-empty-list", lambda L, X, I: L.cat([]))
case("stack-empty-list", lambda L, X, I: L.stack([]))
case("cat-single", lambda L, X, I: L.cat([X(values((2, 3), "float64"), g=True)], 1))
case("cat-dim-oob", lambda L, X, I: L.cat([X(values((2, 3), "float64"))] * 2, 2))
case("cat-3inputs-mixed", lambda L, X, I: L.cat(
    [X(values((2,), "int8")), X(values((0,), "float16")), X(values((1,), "uint8"))]))
case("cat-0d-error", lambda L, X, I: L.cat([X(values((), "float64")), X(values((2,), "float64"))]))
case("stack-shape-mismatch", lambda L, X, I: L.stack([X(values((2,), "float64")),
                                                      X(values((3,), "float64"))]))
case("stack-dim-oob", lambda L, X, I: L.stack([X(values((2,), "float64"))] * 2, 3))
case("stack-neg-dim", lambda L, X, I: L.stack([X(values((2,), "float64"), g=True)] * 3, -2))
case("cat-tuple-of-3", lambda L, X, I: L.cat(tuple(
    X(values((1, 2), "float64"), g=True) for _ in range(3)), -2))
case("meshgrid-ij", lambda L, X, I: L.meshgrid(X(values((3,), "float64"), g=True),
                                               X(values((2,), "float64"), g=True),
                                               indexing="ij"))
case("meshgrid-xy", lambda L, X, I: L.meshgrid(X(values((3,), "float64"), g=True),
                                               X(values((2,), "float64"), g=True),
                                               indexing="xy"))
case("meshgrid-list", lambda L, X, I: L.meshgrid([X(values((3,), "int64")),
                                                 X(values((2,), "int64"))], indexing="ij"))
case("meshgrid-3", lambda L, X, I: L.meshgrid(X(values((3,), "float32")),
                                              X(values((2,), "float32")),
                                              X(values((1,), "float32")), indexing="xy"))
case("meshgrid-0d", lambda L, X, I: L.meshgrid(X(values((), "float64")),
                                               X(values((2,), "float64")), indexing="ij"))
case("meshgrid-mixdtype", lambda L, X, I: L.meshgrid(X(values((3,), "float64")),
                                                     X(values((2,), "int64")), indexing="ij"))
case("meshgrid-2d", lambda L, X, I: L.meshgrid(X(values((2, 2), "float64")),
                                               X(values((2,), "float64")), indexing="ij"))
case("meshgrid-badidx", lambda L, X, I: L.meshgrid(X(values((3,), "float64")),
                                                   indexing="ik"))

# ---- indexing ops over the dtype grid (x: (3, 4), indices with duplicates)
GIDX = np.array([[0, 2, 2, 1], [1, 1, 0, 0]])          # gather/scatter along dim 0
SIDX = np.array([[0, 3, 3], [2, 2, 1], [1, 0, 0]])       # along dim 1
IDX3 = np.array([2, 0, 2])                               # index_* along dim 0


def _src(dt, shape):
    return values(shape, dt) if dt != "bool" else values(shape, dt)


INDEX_OPS = [
    ("gather0", lambda L, x, s, X, I: L.gather(x, 0, I(GIDX))),
    ("gather1", lambda L, x, s, X, I: x.gather(1, I(SIDX))),
    ("gather-1", lambda L, x, s, X, I: L.gather(x, -1, I(SIDX[:2, :2]))),
    ("gather-oob", lambda L, x, s, X, I: L.gather(x, 1, I([[4]]))),
    ("gather-neg", lambda L, x, s, X, I: L.gather(x, 1, I([[-1]]))),
    ("gather-int32", lambda L, x, s, X, I: L.gather(x, 1, I(SIDX).int())),
    ("gather-bigidx", lambda L, x, s, X, I: L.gather(x, 1, I(np.zeros((4, 2), int)))),
    ("gather-ndim", lambda L, x, s, X, I: L.gather(x, 1, I([0, 1]))),
    ("gather-sparse_grad", lambda L, x, s, X, I: L.gather(x, 0, I(GIDX), sparse_grad=False)),
    ("scatter", lambda L, x, s, X, I: L.scatter(x, 1, I(SIDX[:, :2] * 0 + [[0, 1]]),
                                                s[:, :2])),
    ("scatter-dup", lambda L, x, s, X, I: x.scatter(0, I(GIDX), s[:2])),
    ("scatter-srclarger", lambda L, x, s, X, I: x.scatter(0, I(GIDX), s)),
    ("scatter-value", lambda L, x, s, X, I: L.scatter(x, 1, I(SIDX), 7)),
    ("scatter-value-kw", lambda L, x, s, X, I: x.scatter(1, I(SIDX), value=2)),
    ("scatter-reduce-add", lambda L, x, s, X, I: x.scatter(0, I(GIDX), s, reduce="add")),
    ("scatter-reduce-mul", lambda L, x, s, X, I: x.scatter(0, I(GIDX), s,
                                                           reduce="multiply")),
    ("scatter-oob", lambda L, x, s, X, I: x.scatter(1, I([[5]]), s)),
    ("scatter-srcdtype", lambda L, x, s, X, I: x.scatter(0, I(GIDX), s[:2].double())),
    ("scatter_", lambda L, x, s, X, I: x.clone().scatter_(0, I(GIDX), s[:2])),
    ("scatter_-leaf", lambda L, x, s, X, I: x.scatter_(0, I(GIDX), s[:2])),
    ("scatter_add", lambda L, x, s, X, I: L.scatter_add(x, 0, I(GIDX), s[:2])),
    ("scatter_add_", lambda L, x, s, X, I: x.clone().scatter_add_(1, I(SIDX), s[:, :3])),
    ("scatter_add-srcdtype", lambda L, x, s, X, I: L.scatter_add(x, 0, I(GIDX), s.float())),
    ("index_select", lambda L, x, s, X, I: L.index_select(x, 0, I(IDX3))),
    ("index_select-1", lambda L, x, s, X, I: x.index_select(-1, I([3, 3, 0]))),
    ("index_select-0d", lambda L, x, s, X, I: x.index_select(0, I(1))),
    ("index_select-int32", lambda L, x, s, X, I: x.index_select(0, I(IDX3).int())),
    ("index_select-2d", lambda L, x, s, X, I: x.index_select(0, I([[0]]))),
    ("index_select-oob", lambda L, x, s, X, I: x.index_select(0, I([3]))),
    ("index_select-neg", lambda L, x, s, X, I: x.index_select(0, I([-1]))),
    ("index_add", lambda L, x, s, X, I: L.index_add(x, 0, I(IDX3), s[:, :4]
                                                    if s.dim() == 2 else s)),
    ("index_add-alpha", lambda L, x, s, X, I: x.index_add(0, I(IDX3), s, alpha=2)),
    ("index_add_", lambda L, x, s, X, I: x.clone().index_add_(0, I(IDX3), s)),
    ("index_add-oob", lambda L, x, s, X, I: x.index_add(0, I([0, 1, 3]), s)),
    ("index_add-srcdtype", lambda L, x, s, X, I: x.index_add(0, I(IDX3), s.double())),
    ("index_copy", lambda L, x, s, X, I: L.index_copy(x, 0, I([2, 0, 1]), s)),
    ("index_copy-dup", lambda L, x, s, X, I: x.index_copy(0, I([1, 1, 0]), s) * 0
     if False else x.index_copy(0, I([2, 0, 1]), s)),
    ("index_copy_", lambda L, x, s, X, I: x.clone().index_copy_(0, I([2, 0, 1]), s)),
    ("index_fill", lambda L, x, s, X, I: L.index_fill(x, 1, I([3, 0, 3]), 5)),
    ("index_fill-0dt", lambda L, x, s, X, I: x.index_fill(1, I([1]), s[0, 0])),
    ("index_fill-float", lambda L, x, s, X, I: x.index_fill(1, I([1]), 1.5)),
    ("index_fill_", lambda L, x, s, X, I: x.clone().index_fill_(0, I([0]), -1)),
    ("masked_fill", lambda L, x, s, X, I: L.masked_fill(x, X(values((3, 4), "bool")), 3)),
    ("masked_fill-bcast", lambda L, x, s, X, I: x.masked_fill(X(np.array([True, False,
                                                                          True, False])),
                                                              -1)),
    ("masked_fill-0dt", lambda L, x, s, X, I: x.masked_fill(X(values((3, 4), "bool")),
                                                            s[0, 1])),
    ("masked_fill-float", lambda L, x, s, X, I: x.masked_fill(X(values((3, 4), "bool")),
                                                              2.5)),
    ("masked_fill-complex", lambda L, x, s, X, I: x.masked_fill(X(values((3, 4), "bool")),
                                                                1j)),
    ("masked_fill-uint8mask", lambda L, x, s, X, I: x.masked_fill(
        X(values((3, 4), "uint8")), 1)),
    ("masked_fill_", lambda L, x, s, X, I: x.clone().masked_fill_(
        X(values((3, 4), "bool")), 1)),
    ("masked_select", lambda L, x, s, X, I: L.masked_select(x, X(values((3, 4), "bool")))),
    ("masked_select-bcast", lambda L, x, s, X, I: x.masked_select(
        X(np.array([[True], [False], [True]])))),
    ("masked_select-bcastself", lambda L, x, s, X, I: L.masked_select(
        x[0], X(values((3, 4), "bool")))),
    ("masked_scatter", lambda L, x, s, X, I: x.masked_scatter(X(values((3, 4), "bool")),
                                                              L.cat([s.reshape(-1)] * 2))),
    ("masked_scatter-small", lambda L, x, s, X, I: x.masked_scatter(
        X(np.ones((3, 4), bool)), s)),
    ("masked_scatter-bcast", lambda L, x, s, X, I: L.masked_scatter(
        x, X(np.array([True, False, False, True])), s)),
    ("take_along_dim", lambda L, x, s, X, I: L.take_along_dim(x, I(SIDX), 1)),
    ("take_along_dim-none", lambda L, x, s, X, I: L.take_along_dim(x, I([0, 11, 11]))),
    ("take_along_dim-bcast", lambda L, x, s, X, I: x.take_along_dim(I([[0], [2]]), dim=1)),
    ("take_along_dim-neg", lambda L, x, s, X, I: L.take_along_dim(x, I([[-1]]), -1)),
    ("put", lambda L, x, s, X, I: L.put(x, I([0, 11, 0]), s.reshape(-1)[:3])),
    ("put-acc", lambda L, x, s, X, I: x.put(I([0, 11, 0]), s.reshape(-1)[:3],
                                            accumulate=True)),
    ("put_", lambda L, x, s, X, I: x.clone().put_(I([[1], [-1]]), s.reshape(-1)[:2])),
    ("put-oob", lambda L, x, s, X, I: x.put(I([12]), s.reshape(-1)[:1])),
    ("take-dup", lambda L, x, s, X, I: L.take(x, I([[5, 5], [0, -12]]))),
    ("index_put", lambda L, x, s, X, I: x.index_put((I([0, 2]), I([1, 1])), s[0, :2])),
    ("index_put-acc", lambda L, x, s, X, I: x.index_put((I([0, 0, 2]),), s,
                                                        accumulate=True)),
    ("index_put-bool", lambda L, x, s, X, I: x.index_put((X(values((3, 4), "bool")),),
                                                         s[0, 0])),
    ("index_put_-acc", lambda L, x, s, X, I: x.clone().index_put_(
        (I([1, 1]), I([2, 2])), s[0, :2], accumulate=True)),
]
for opname, f in INDEX_OPS:
    for dt in DTYPES:
        if dt in ("int8", "int16", "int32"):
            continue
        g = dt in GRAD_DTYPES
        a = values((3, 4), dt)
        b = values((3, 4), dt)[::-1].copy() + (1 if dt not in ("bool",) else False)
        case("%s-%s-3x4" % (opname, dt),
             (lambda f, a, b, g: lambda L, X, I: f(L, X(a, g=g), X(b, g=g), X, I))(
                 f, a, b, g))
    a = values((3, 4), "float64")
    b = values((3, 4), "float64") + 1
    case("%s-float64-nc" % opname,
         (lambda f, a, b: lambda L, X, I: f(L, X(a, g=True, nc="T"), X(b, g=True, nc="s"),
                                            X, I))(f, a, b))
    case("%s-float64-nograd" % opname,
         (lambda f, a, b: lambda L, X, I: f(L, X(a), X(b), X, I))(f, a, b))

# scatter_reduce: every reduction, include_self both ways, duplicate indices, on a grid
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        for dt in DTYPES:
            g = dt in GRAD_DTYPES
            a = values((3, 4), dt)
            b = values((2, 4), dt)[::-1].copy()
            if dt.startswith("float"):
                b = b * 2 + 0.5
            case("scatter_reduce-%s-inc%d-%s-3x4" % (red, inc, dt),
                 (lambda a, b, g, red, inc: lambda L, X, I: L.scatter_reduce(
                     X(a, g=g), 0, I(GIDX), X(b, g=g), red, include_self=inc))(
                     a, b, g, red, inc))
        a = values((3, 4), "float64", special=True)
        b = values((2, 4), "float64")
        case("scatter_reduce-%s-inc%d-float64-special" % (red, inc),
             (lambda a, b, red, inc: lambda L, X, I: X(a).scatter_reduce(
                 1, I(GIDX[:, :3] % 4), X(b), reduce=red, include_self=inc))(
                 a, b, red, inc))
        # ties for amax/amin: equal values share the gradient as torch
        a = np.array([[1.0, 2.0, 3.0], [1.0, 5.0, 3.0]])
        b = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
        case("scatter_reduce-%s-inc%d-float64-ties" % (red, inc),
             (lambda a, b, red, inc: lambda L, X, I: L.scatter_reduce(
                 X(a, g=True), 0, I([[0, 0, 1], [0, 1, 1]]), X(b, g=True), red,
                 include_self=inc))(a, b, red, inc))
        case("scatter_reduce_-%s-inc%d" % (red, inc),
             (lambda red, inc: lambda L, X, I: X(values((3, 4), "float64")).scatter_reduce_(
                 0, I(GIDX), X(values((2, 4), "float64")), red, include_self=inc))(red, inc))
case("scatter_reduce-badreduce", lambda L, X, I: L.scatter_reduce(
    X(values((3, 4), "float64")), 0, I(GIDX), X(values((2, 4), "float64")), "max"))
case("scatter_reduce-0d", lambda L, X, I: L.scatter_reduce(
    X(np.array(2.0), g=True), 0, I(np.array(0)), X(np.array(3.0), g=True), "prod"))
case("gather-0d", lambda L, X, I: L.gather(X(np.array(2.0), g=True), 0, I(np.array(0))))
case("gather-empty", lambda L, X, I: L.gather(X(values((3, 4), "float64"), g=True), 1,
                                              I(np.zeros((3, 0), int))))
case("scatter-0d", lambda L, X, I: L.scatter(X(np.array(2.0), g=True), 0, I(np.array(0)),
                                             X(np.array(5.0), g=True)))
case("index_select-0d", lambda L, X, I: L.index_select(X(np.array(2.0), g=True), 0,
                                                       I([0, 0])))
case("index_add-0d", lambda L, X, I: L.index_add(X(np.array(2.0), g=True), 0, I([0]),
                                                 X(np.array([5.0]), g=True)))
case("masked_select-0d", lambda L, X, I: L.masked_select(X(np.array(2.0), g=True),
                                                         X(np.array(True))))
case("take-0d", lambda L, X, I: L.take(X(np.array(2.0), g=True), I(np.array(0))))

# ---- searchsorted / bucketize
SS_SORTED = np.array([1.0, 2.0, 2.0, 2.0, 5.0, np.inf])
SS_VALS = np.array([[2.0, -np.inf], [np.nan, 6.0]])
SS = [
    ("left", lambda L, s, v, X, I: L.searchsorted(s, v)),
    ("right", lambda L, s, v, X, I: L.searchsorted(s, v, right=True)),
    ("side-right", lambda L, s, v, X, I: L.searchsorted(s, v, side="right")),
    ("side-left", lambda L, s, v, X, I: L.searchsorted(s, v, side="left")),
    ("side-conflict", lambda L, s, v, X, I: L.searchsorted(s, v, right=True, side="left")),
    ("int32", lambda L, s, v, X, I: L.searchsorted(s, v, out_int32=True)),
    ("scalar", lambda L, s, v, X, I: L.searchsorted(s, 2)),
    ("scalar-float", lambda L, s, v, X, I: L.searchsorted(s, 2.5, right=True)),
    ("sorter", lambda L, s, v, X, I: L.searchsorted(s.flip(0), v, sorter=I([5, 4, 3, 2, 1, 0]))),
    ("batched", lambda L, s, v, X, I: L.searchsorted(s.expand(2, -1).contiguous(), v)),
    ("batched-mismatch", lambda L, s, v, X, I: L.searchsorted(s.expand(3, -1).contiguous(), v)),
    ("bucketize", lambda L, s, v, X, I: L.bucketize(v, s)),
    ("bucketize-right", lambda L, s, v, X, I: L.bucketize(v, s, right=True)),
    ("bucketize-int32", lambda L, s, v, X, I: L.bucketize(v, s, out_int32=True)),
    ("bucketize-scalar", lambda L, s, v, X, I: L.bucketize(2, s)),
    ("bucketize-2dbound", lambda L, s, v, X, I: L.bucketize(v, s.expand(2, -1))),
    ("nc", lambda L, s, v, X, I: L.searchsorted(s, v.t())),
    ("empty-sorted", lambda L, s, v, X, I: L.searchsorted(s[:0], v)),
    ("empty-vals", lambda L, s, v, X, I: L.searchsorted(s, v[:0])),
    ("0d-vals", lambda L, s, v, X, I: L.searchsorted(s, v[0, 0])),
    ("0d-sorted", lambda L, s, v, X, I: L.searchsorted(s[0], v)),
]
for opname, f in SS:
    for d1, d2 in [("float64", "float64"), ("float32", "float32"), ("int64", "int64"),
                   ("int64", "float64"), ("float32", "float64"), ("uint8", "int32"),
                   ("float16", "float16"), ("bool", "bool"), ("complex64", "complex64")]:
        s_ = SS_SORTED.copy()
        v_ = SS_VALS.copy()
        if d1 in ("int64", "uint8", "bool"):
            s_ = np.array([0, 1, 1, 1, 3, 7])
        if d2 in ("int64", "int32", "uint8", "bool"):
            v_ = np.array([[1, 0], [3, 9]])
        s_ = s_.astype(d1) if d1 != "bool" else s_ > 0
        v_ = v_.astype(d2) if d2 != "bool" else v_ > 0
        case("searchsorted-%s-%s+%s" % (opname, d1, d2),
             (lambda f, s_, v_: lambda L, X, I: f(L, X(s_), X(v_), X, I))(f, s_, v_))


# ---- __setitem__ (index_put_ semantics) on a clone of x, gradients to x and the value
SET_KEYS = [
    ("int", lambda I: 0), ("negint", lambda I: -1), ("oob", lambda I: 3),
    ("slice-step", lambda I: (slice(None), slice(None, None, 2))),
    ("none", lambda I: (None, 1)), ("ell", lambda I: (Ellipsis, 1)),
    ("mask", lambda I: "mask"), ("0dbool", lambda I: "0dbool"),
    ("list-dup", lambda I: [0, 0, 2]), ("tensor-dup", lambda I: I([1, 1])),
    ("adv-bcast", lambda I: (I([[0], [2]]), I([1, 3]))),
    ("adv-slice", lambda I: (slice(1, None), I([3, 0]))),
    ("adv-split", lambda I: (I([0, 1]), slice(None), None)),
    ("negstep", lambda I: slice(None, None, -1)),
    ("true", lambda I: True), ("false", lambda I: False),
]
SET_VALS = [
    ("int", lambda L, X, dt: 2), ("float", lambda L, X, dt: 1.5),
    ("complex", lambda L, X, dt: 1 + 1j), ("0d", lambda L, X, dt: X(np.array(3.0).astype(dt),
                                                                   g=dt in GRAD_DTYPES)),
    ("row", lambda L, X, dt: X(values((4,), dt), g=dt in GRAD_DTYPES)),
    ("f64row", lambda L, X, dt: X(values((4,), "float64"))),
    ("badshape", lambda L, X, dt: X(values((5,), dt))),
]


def _setitem_case(key_f, val_f, dt):
    def fn(L, X, I):
        x = X(values((3, 4), dt), g=dt in GRAD_DTYPES)
        y = x.clone()
        key = key_f(I)
        if isinstance(key, str) and key == "mask":
            key = X(values((3, 4), "bool"))
        elif isinstance(key, str):
            key = X(np.array(True))
        y[key] = val_f(L, X, dt)
        return y
    return fn


for kname, key_f in SET_KEYS:
    for vname, val_f in SET_VALS:
        for dt in ("bool", "int64", "float64", "complex128"):
            case("setitem-%s-%s-%s" % (kname, vname, dt), _setitem_case(key_f, val_f, dt))
case("setitem-leaf-requires-grad", lambda L, X, I: X(values((3,), "float64"), g=True)
     .__setitem__(0, 1.0))
case("setitem-nc", lambda L, X, I: (lambda x: (x.__setitem__((0, I([1, 1])), 9.0), x)[1])(
    X(values((2, 3), "float64"), nc="T")))
case("setitem-0d", lambda L, X, I: (lambda x: (x.__setitem__((), 9.0), x)[1])(
    X(np.array(1.0))))
case("setitem-0d-ell", lambda L, X, I: (lambda x: (x.__setitem__(Ellipsis, X(np.array(
    [4.0]))), x)[1])(X(np.array(1.0))))
case("index_put_-dup-acc-grad", lambda L, X, I: (lambda x, v: x.clone().index_put_(
    (I([0, 0, 1, 0]),), v, accumulate=True))(X(values((3, 2), "float64"), g=True),
                                              X(values((4, 2), "float64"), g=True)))


# ---- views: version counters, view-ness, strides, in-place through views
def _viewinfo(L, x, v):
    return (tuple(v.shape), tuple(v.stride()), v.is_contiguous(), v._is_view(),
            v._base is x or (x._base is not None and v._base is x._base))


VIEW_OPS = [
    ("reshape", lambda x: x.reshape(-1)), ("view", lambda x: x.view(3, 2)),
    ("flatten", lambda x: x.flatten()), ("t", lambda x: x.t()),
    ("permute", lambda x: x.permute(1, 0)), ("expand", lambda x: x.expand(2, 2, 3)),
    ("narrow", lambda x: x.narrow(1, 1, 2)), ("select", lambda x: x.select(1, 1)),
    ("diagonal", lambda x: x.diagonal()), ("unbind", lambda x: x.unbind(1)[1]),
    ("split", lambda x: x.split(2, 1)[1]), ("chunk", lambda x: x.chunk(2, 1)[0]),
    ("squeeze", lambda x: x.unsqueeze(1).squeeze(1)), ("unsqueeze", lambda x: x.unsqueeze(0)),
    ("movedim", lambda x: x.movedim(0, 1)), ("getitem-basic", lambda x: x[:, ::2]),
    ("getitem-int", lambda x: x[1]), ("getitem-adv", lambda x: x[[0, 1]]),
    ("getitem-mask", lambda x: x[x > 0]), ("contiguous", lambda x: x.contiguous()),
    ("unflatten", lambda x: x.unflatten(1, (3, 1))), ("mT", lambda x: x.mT),
    ("flip", lambda x: x.flip(0)), ("clone", lambda x: x.clone()),
    ("tensor_split", lambda x: x.tensor_split(2, 1)[1]), ("swapaxes", lambda x: x.swapaxes(0, 1)),
    ("view_as", lambda x: x.view_as(x)), ("expand_as", lambda x: x.expand_as(x)),
    ("broadcast_to", lambda x: x.broadcast_to((2, 2, 3))), ("T", lambda x: x.T),
    ("repeat", lambda x: x.repeat(1, 1)), ("detach", lambda x: x.detach()),
    ("real", lambda x: x.real), ("squeeze-noop", lambda x: x.squeeze()),
]
for vname, vf in VIEW_OPS:
    for nc in (None, "T"):
        case("viewinfo-%s-%s" % (vname, nc or "contig"),
             (lambda vf, nc: lambda L, X, I: (lambda x: _viewinfo(L, x, vf(x)))(
                 X(values((2, 3), "float64"), nc=nc)))(vf, nc))
    if vname in ("detach", "clone", "getitem-adv", "getitem-mask", "repeat", "flip"):
        continue

    def _inplace_view(L, X, I, vf=vf):
        x = X(values((2, 3), "float64"))
        v = vf(x)
        v0 = (x._version, v._version)
        v.mul_(2) if vf is not VIEW_OPS[5][1] else None
        return (v0, x._version, v._version, x, v)

    def _inplace_view_grad(L, X, I, vf=vf):
        leaf = X(values((2, 3), "float64"), g=True)
        base = leaf * 1
        v = vf(base)
        v.mul_(X(np.array(3.0), g=True))
        return (base, v)

    def _inplace_view_leaf(L, X, I, vf=vf):
        leaf = X(values((2, 3), "float64"), g=True)
        vf(leaf).add_(1)
        return leaf

    if vname not in ("expand", "expand_as", "broadcast_to"):
        case("view-inplace-%s" % vname, _inplace_view)
        case("view-inplace-grad-%s" % vname, _inplace_view_grad)
    case("view-inplace-leaf-%s" % vname, _inplace_view_leaf)
case("view-noncontig-error", lambda L, X, I: X(values((2, 3), "float64"), nc="T").view(-1))
case("view-noncontig-ok", lambda L, X, I: X(values((2, 3), "float64"), nc="T").view(3, 2))
case("view-strided-split", lambda L, X, I: X(values((2, 3), "float64"), nc="s").view(2, 3, 1))
case("view-expanded", lambda L, X, I: X(values((3,), "float64")).expand(2, 3).view(6))
case("reshape-expanded", lambda L, X, I: (lambda v: (v._is_view(), v))(
    X(values((3,), "float64")).expand(2, 3).reshape(6)))


def _inplace_leaf_nograd_view(L, X, I):
    leaf = X(values((2, 3), "float64"), g=True)
    with L.no_grad():
        leaf[0].add_(1)
    return (leaf._version, leaf.detach().clone())


case("inplace-leaf-nograd-view", _inplace_leaf_nograd_view)
case("inplace-view-of-view-backward", lambda L, X, I: (lambda leaf: (lambda b: (
    b[0][1:].mul_(X(np.array(2.0), g=True)), b)[1])(leaf * 1))(
    X(values((2, 3), "float64"), g=True)))
case("inplace-base-after-view", lambda L, X, I: (lambda leaf: (lambda b: (lambda v: (
    b.add_(1), v * 1)[1])(b[:, 1]))(leaf.exp()))(X(values((2, 3), "float64"), g=True)))
case("inplace-saved-modified", lambda L, X, I: (lambda leaf: (lambda b: (lambda y: (
    b[0].mul_(2), y)[1])(b.exp()))(leaf * 1))(X(values((2, 3), "float64"), g=True)))
case("unbind-inplace-error", lambda L, X, I: (lambda b: b.unbind(0)[0].mul_(2))(
    X(values((2, 3), "float64"), g=True) * 1))
case("split-inplace-error", lambda L, X, I: (lambda b: b.split(1, 0)[0].mul_(2))(
    X(values((2, 3), "float64"), g=True) * 1))


# ---- special values (nan, +-inf, -0.0, denormal, huge) through value-dependent ops
SPECIAL_OPS = ["nonzero", "nonzero-tuple", "argwhere", "where1", "getitem-mask", "take",
               "clone", "flip0", "roll1", "tril", "diag", "masked_select-self", "ri-tensor",
               "getitem-list", "T"]
for opname, f in UNARY:
    if opname in SPECIAL_OPS:
        for dt in ("float16", "float32", "float64", "complex128"):
            a = values((2, 3), dt, special=True)
            case("%s-%s-2x3-special" % (opname, dt),
                 (lambda f, a, g: lambda L, X, I: f(L, X(a, g=g), X, I))(
                     f, a, dt in GRAD_DTYPES))

# ---- more keyword / scalar variants
MORE = {
    "ri-tensor-dimNone": lambda L, X, I: L.repeat_interleave(
        X(values((2, 2), "float64"), g=True), I([1, 0, 2, 1])),
    "ri-tensor-output_size": lambda L, X, I: L.repeat_interleave(
        X(values((3,), "float64"), g=True), I([1, 0, 2]), dim=0, output_size=3),
    "ri-repeats-only": lambda L, X, I: L.repeat_interleave(I([1, 0, 2])),
    "ri-tensor-badlen": lambda L, X, I: L.repeat_interleave(
        X(values((3,), "float64")), I([1, 2]), dim=0),
    "ri-tensor-neg": lambda L, X, I: L.repeat_interleave(
        X(values((3,), "float64")), I([1, -1, 2]), dim=0),
    "ri-2d-repeats": lambda L, X, I: L.repeat_interleave(
        X(values((3,), "float64")), I([[1, 1, 2]]), dim=0),
    "masked_fill-bool-value-float": lambda L, X, I: X(values((3, 4), "float64")).masked_fill(
        X(values((3, 4), "bool")), True),
    "masked_fill-float-into-bool": lambda L, X, I: X(values((3, 4), "bool")).masked_fill(
        X(values((3, 4), "bool")), 0.5),
    "masked_fill-1dtensor-value": lambda L, X, I: X(values((3, 4), "float64")).masked_fill(
        X(values((3, 4), "bool")), X(np.array([1.0]))),
    "masked_fill-0d-int-into-float": lambda L, X, I: X(values((3, 4), "float64")).masked_fill(
        X(values((3, 4), "bool")), X(np.array(3))),
    "masked_fill-0d-float-into-int": lambda L, X, I: X(values((3, 4), "int64")).masked_fill(
        X(values((3, 4), "bool")), X(np.array(3.5))),
    "masked_fill-grad-value": lambda L, X, I: X(values((3, 4), "float64"), g=True).masked_fill(
        X(values((3, 4), "bool")), X(np.array(3.5), g=True)),
    "index_fill-bool-into-float": lambda L, X, I: X(values((3, 4), "float64")).index_fill(
        0, I([1]), True),
    "index_fill-grad-value": lambda L, X, I: X(values((3, 4), "float64"), g=True).index_fill(
        0, I([1, 1]), X(np.array(3.5), g=True)),
    "index_fill-1dvalue": lambda L, X, I: X(values((3, 4), "float64")).index_fill(
        0, I([1]), X(np.array([3.5]))),
    "setitem-bool-value": _setitem_case(lambda I: 0, lambda L, X, dt: True, "float64"),
    "setitem-float-into-int": _setitem_case(lambda I: I([0, 1]), lambda L, X, dt: 2.7,
                                            "int64"),
    "setitem-nan-into-int": _setitem_case(lambda I: 0, lambda L, X, dt: float("nan"),
                                          "int64"),
    "setitem-big-into-int": _setitem_case(lambda I: 0, lambda L, X, dt: 2 ** 70, "int64"),
    "setitem-300-into-uint8": _setitem_case(lambda I: 0, lambda L, X, dt: 300, "uint8"),
    "setitem-neg-into-uint8": _setitem_case(lambda I: 0, lambda L, X, dt: -1, "uint8"),
    "getitem-bool-list": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        [True, False, True]],
    "getitem-bool-list-mismatch": lambda L, X, I: X(values((3, 4), "float64"))[[True, False]],
    "getitem-mask-wrongshape": lambda L, X, I: X(values((3, 4), "float64"))[
        X(np.array([True, False]))],
    "getitem-uint8-mask": lambda L, X, I: X(values((3, 4), "float64"))[
        X(values((3, 4), "uint8"))],
    "getitem-adv-dup-grad": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        I([[0, 0], [2, 0]]), I([1])],
    "getitem-adv-split-grad": lambda L, X, I: X(values((2, 3, 4), "float64"), g=True)[
        I([1, 0, 1]), :, I([0, 0, 3])],
    "getitem-adv-none-grad": lambda L, X, I: X(values((2, 3, 4), "float64"), g=True)[
        None, I([1, 1]), ..., I([2])],
    "getitem-mask-and-int": lambda L, X, I: X(values((2, 3, 4), "float64"), g=True)[
        X(np.array([True, False])), 1],
    "getitem-2masks": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        X(np.array([True, False, True])), X(np.array([True, True, False, False]))],
    "getitem-tensor-neg": lambda L, X, I: X(values((3, 4), "float64"), g=True)[I([-1, -3])],
    "getitem-tensor-oob-neg": lambda L, X, I: X(values((3, 4), "float64"))[I([-4])],
    "getitem-int-tensor-0d-float": lambda L, X, I: X(values((3, 4), "float64"))[
        X(np.array(1.0))],
    "getitem-string": lambda L, X, I: X(values((3, 4), "float64"))["a"],
    "getitem-slice-tensor-bounds": lambda L, X, I: X(values((3, 4), "float64"))[
        I(1):I(3)],
    "getitem-numpy-int": lambda L, X, I: X(values((3, 4), "float64"), g=True)[np.int64(1)],
    "getitem-numpy-idx": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        np.array([2, 2])],
    "getitem-tuple-list": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        ([0, 1], [1, 2])],
    "getitem-nested-list": lambda L, X, I: X(values((3, 4), "float64"), g=True)[
        [[0, 1], [1, 2]]],
    "diag-2d-k": lambda L, X, I: L.diag(X(values((3, 4), "float64"), g=True), 2),
    "diag-2d-kneg": lambda L, X, I: L.diag(X(values((3, 4), "float64"), g=True), -3),
    "diag-2d-kbig": lambda L, X, I: L.diag(X(values((3, 4), "float64"), g=True), 7),
    "diag-3d": lambda L, X, I: L.diag(X(values((2, 3, 4), "float64"))),
    "diag_embed-batched": lambda L, X, I: L.diag_embed(X(values((2, 3), "float64"), g=True),
                                                       offset=1, dim1=-1, dim2=0),
    "diag_embed-samedims": lambda L, X, I: L.diag_embed(X(values((2, 3), "float64")),
                                                        dim1=1, dim2=1),
    "tril-batched-neg": lambda L, X, I: L.tril(X(values((2, 3, 4), "float64"), g=True), -1),
    "triu-batched-nc": lambda L, X, I: L.triu(X(values((2, 4, 3), "float64"), g=True,
                                                nc="T"), 1),
    "roll-dims-list": lambda L, X, I: L.roll(X(values((2, 3), "float64"), g=True),
                                             [1, -1], [1, 0]),
    "roll-empty": lambda L, X, I: L.roll(X(values((0, 3), "float64")), 1, 1),
    "roll-kw": lambda L, X, I: X(values((2, 3), "float64"), g=True).roll(shifts=(1,),
                                                                         dims=(1,)),
    "rot90-3d": lambda L, X, I: L.rot90(X(values((2, 3, 4), "float64"), g=True), 1, (2, 0)),
    "rot90-k5": lambda L, X, I: L.rot90(X(values((2, 3), "float64"), g=True), 5),
    "rot90-1d": lambda L, X, I: L.rot90(X(values((3,), "float64")), 1, (0, 0)),
    "movedim-dup": lambda L, X, I: L.movedim(X(values((2, 3), "float64")), (0, 0), (1, 0)),
    "movedim-lenmismatch": lambda L, X, I: L.movedim(X(values((2, 3), "float64")), (0, 1),
                                                     (1,)),
    "permute-list": lambda L, X, I: X(values((2, 3, 4), "float64"), g=True).permute([2, 0, 1]),
    "permute-tuple-fn": lambda L, X, I: L.permute(X(values((2, 3, 4), "float64")), (-1, 0, 1)),
    "permute-wronglen": lambda L, X, I: X(values((2, 3, 4), "float64")).permute(1, 0),
    "expand-list": lambda L, X, I: X(values((3, 1), "float64"), g=True).expand([2, 3, 4]),
    "expand-size-arg": lambda L, X, I: X(values((3, 1), "float64")).expand(
        X(values((2, 3, 4), "float64")).shape),
    "expand-neg-newdim": lambda L, X, I: X(values((3, 1), "float64")).expand(-1, 3, 1),
    "expand-0": lambda L, X, I: X(values((3, 1), "float64"), g=True).expand(3, 0),
    "reshape-list": lambda L, X, I: X(values((2, 3), "float64"), g=True).reshape([3, 2]),
    "view-dtype": lambda L, X, I: X(values((2, 4), "float32")).view(L.int32),
    "view-dtype-size": lambda L, X, I: X(values((2, 4), "float32")).view(L.float64),
    "flatten-0d-args": lambda L, X, I: X(np.array(2.0)).flatten(0, -1),
    "unflatten-sizes-tensorlike": lambda L, X, I: X(values((6,), "float64")).unflatten(
        0, [2, 3]),
    "unflatten-empty-sizes": lambda L, X, I: X(values((6,), "float64")).unflatten(0, ()),
    "narrow-len0": lambda L, X, I: X(values((3, 4), "float64"), g=True).narrow(1, 4, 0),
    "narrow-neglen": lambda L, X, I: X(values((3, 4), "float64")).narrow(1, 0, -1),
    "select-0d": lambda L, X, I: X(np.array(2.0)).select(0, 0),
    "split-sizes-kw": lambda L, X, I: X(values((5, 2), "float64"), g=True).split(
        split_size=2, dim=0),
    "split-tuple": lambda L, X, I: L.split(X(values((5, 2), "float64"), g=True), (2, 3)),
    "split-list-zero": lambda L, X, I: L.split(X(values((5, 2), "float64"), g=True), [0, 5]),
    "chunk-more-than-size": lambda L, X, I: X(values((2, 3), "float64"), g=True).chunk(5, 1),
    "chunk-6-of-5": lambda L, X, I: X(values((5,), "float64"), g=True).chunk(4),
    "tsplit-sections-more": lambda L, X, I: L.tensor_split(X(values((2,), "float64")), 4),
    "tsplit-neg-idx": lambda L, X, I: L.tensor_split(X(values((5,), "float64"), g=True),
                                                     [-2, 4]),
    "tsplit-decreasing": lambda L, X, I: L.tensor_split(X(values((5,), "float64")), [3, 1]),
    "tsplit-sections-0": lambda L, X, I: L.tensor_split(X(values((5,), "float64")), 0),
    "hsplit-int": lambda L, X, I: L.hsplit(X(values((2, 4), "float64"), g=True), 2),
    "hsplit-uneven": lambda L, X, I: L.hsplit(X(values((2, 3), "float64")), 2),
    "vsplit-1d": lambda L, X, I: L.vsplit(X(values((4,), "float64")), 2),
    "dsplit": lambda L, X, I: L.dsplit(X(values((2, 2, 4), "float64"), g=True), [1, 3]),
    "unbind-empty": lambda L, X, I: X(values((0, 3), "float64")).unbind(0),
    "take_along_dim-3d-bcast": lambda L, X, I: L.take_along_dim(
        X(values((2, 3, 4), "float64"), g=True), I(np.array([[[0], [3], [3]]])), 2),
    "take_along_dim-rank": lambda L, X, I: L.take_along_dim(
        X(values((2, 3), "float64")), I([0]), 1),
    "take_along_dim-int32": lambda L, X, I: L.take_along_dim(
        X(values((2, 3), "float64")), I([[0]]).int(), 1),
    "put-bcast-error": lambda L, X, I: X(values((2, 3), "float64")).put(
        I([0, 1]), X(values((3,), "float64"))),
    "put-acc-grad": lambda L, X, I: X(values((2, 3), "float64"), g=True).put(
        I([[0, 0], [5, 0]]), X(values((2, 2), "float64"), g=True), accumulate=True),
    "index_add-bcast-err": lambda L, X, I: X(values((3, 4), "float64")).index_add(
        0, I([0]), X(values((4,), "float64"))),
    "index_add-0dsrc": lambda L, X, I: X(values((3,), "float64"), g=True).index_add(
        0, I([1]), X(np.array(2.0), g=True)),
    "index_add-int32-idx": lambda L, X, I: X(values((3, 4), "float64"), g=True).index_add(
        1, I([1, 1]).int(), X(values((3, 2), "float64"), g=True)),
    "index_copy-dup-values": lambda L, X, I: X(values((3, 4), "float64")).index_copy(
        0, I([1, 1]), X(np.ones((2, 4)))),
    "index_copy-grad-dims": lambda L, X, I: X(values((3, 4), "float64"), g=True).index_copy(
        1, I([3, 0]), X(values((3, 2), "float64"), g=True)),
    "index_copy-0d": lambda L, X, I: X(np.array(2.0), g=True).index_copy(
        0, I([0]), X(np.array(5.0), g=True)),
    "masked_scatter-grad": lambda L, X, I: X(values((3, 4), "float64"), g=True).masked_scatter(
        X(values((3, 4), "bool")), X(values((12,), "float64"), g=True)),
    "masked_scatter-2dsrc": lambda L, X, I: X(values((3, 4), "float64"), g=True).masked_scatter(
        X(values((3, 4), "bool")), X(values((4, 4), "float64"), g=True)),
    "masked_scatter-uint8mask": lambda L, X, I: X(values((3, 4), "float64")).masked_scatter(
        X(values((3, 4), "uint8")), X(values((12,), "float64"))),
    "masked_scatter-dtype": lambda L, X, I: X(values((3, 4), "float64")).masked_scatter(
        X(values((3, 4), "bool")), X(values((12,), "float32"))),
    "masked_select-dtype-mask": lambda L, X, I: X(values((3, 4), "float64")).masked_select(
        X(values((3, 4), "int64"))),
    "nonzero-0d-true": lambda L, X, I: L.nonzero(X(np.array(3.0))),
    "nonzero-0d-tuple": lambda L, X, I: L.nonzero(X(np.array(3.0)), as_tuple=True),
    "nonzero-0d-false-tuple": lambda L, X, I: L.nonzero(X(np.array(0.0)), as_tuple=True),
    "argwhere-0d": lambda L, X, I: L.argwhere(X(np.array(0.0))),
    "where1-0d": lambda L, X, I: L.where(X(np.array(1.0))),
    "meshgrid-noindexing": lambda L, X, I: L.meshgrid(X(values((3,), "float64")),
                                                      X(values((2,), "float64"))),
    "meshgrid-single": lambda L, X, I: L.meshgrid(X(values((3,), "float64"), g=True),
                                                  indexing="xy"),
    "meshgrid-empty": lambda L, X, I: L.meshgrid(X(values((0,), "float64")),
                                                 X(values((2,), "float64")), indexing="xy"),
    "broadcast_to-fewer": lambda L, X, I: L.broadcast_to(X(values((2, 3), "float64")), (3,)),
    "broadcast_to-0": lambda L, X, I: L.broadcast_to(X(values((1, 3), "float64"), g=True),
                                                     (0, 3)),
    "expand_as-bad": lambda L, X, I: X(values((2, 3), "float64")).expand_as(
        X(values((3, 2), "float64"))),
    "contiguous-nc-grad": lambda L, X, I: X(values((2, 3), "float64"), g=True,
                                            nc="s").contiguous(),
    "swapaxes-oob": lambda L, X, I: L.swapaxes(X(values((2, 3), "float64")), 0, 2),
    "transpose-0d": lambda L, X, I: L.transpose(X(np.array(1.0), g=True), 0, -1),
    "t-1d-grad": lambda L, X, I: X(values((3,), "float64"), g=True).t(),
    "squeeze-dup-tuple": lambda L, X, I: X(values((1, 3), "float64")).squeeze((0, 0)),
    "squeeze-0d-dim0": lambda L, X, I: X(np.array(2.0), g=True).squeeze(0),
    "squeeze-empty-tuple": lambda L, X, I: X(values((1, 3), "float64")).squeeze(()),
    "unsqueeze-0d-neg": lambda L, X, I: X(np.array(2.0), g=True).unsqueeze(-1),
    "gather-grad-dup": lambda L, X, I: L.gather(X(values((3, 4), "float64"), g=True), 1,
                                                I([[0, 0, 0], [3, 3, 1]])),
    "gather-idx-float": lambda L, X, I: L.gather(X(values((3, 4), "float64")), 1,
                                                 X(np.array([[0.0]]))),
    "scatter_add-grad-dup": lambda L, X, I: L.scatter_add(
        X(values((3, 4), "float64"), g=True), 1, I([[0, 0, 0], [3, 3, 1]]),
        X(values((2, 3), "float64"), g=True)),
    "scatter-value-grad": lambda L, X, I: L.scatter(X(values((3, 4), "float64"), g=True), 1,
                                                    I([[0, 0], [3, 3]]), 2.5),
    "scatter_reduce-srclarger-sum": lambda L, X, I: L.scatter_reduce(
        X(values((3, 4), "float64"), g=True), 0, I([[0, 2]]), X(values((2, 4), "float64"),
                                                                g=True), "sum"),
    "scatter_reduce-srclarger-amax": lambda L, X, I: L.scatter_reduce(
        X(values((3, 4), "float64"), g=True), 0, I([[0, 2]]), X(values((2, 4), "float64"),
                                                                g=True), "amax"),
    "gather-1d-0dindex": lambda L, X, I: L.gather(X(values((3,), "float64"), g=True), 0,
                                                  I(np.array(1))),
    "scatter-1d-0dindex": lambda L, X, I: L.scatter(X(values((3,), "float64"), g=True), 0,
                                                    I(np.array(1)), X(np.array(5.0), g=True)),
    "scatter-0dtensor-src": lambda L, X, I: L.scatter(X(values((3, 4), "float64")), 1,
                                                      I([[0, 0], [3, 3]]), X(np.array(2.5))),
}
for cid, fn in MORE.items():
    case(cid, fn)

# in-place shape ops: result, version counters, views of the base, errors on leaves
INPLACE_SHAPE = [
    ("t_", lambda v, I: v.t_()), ("transpose_", lambda v, I: v.transpose_(0, 1)),
    ("swapdims_", lambda v, I: v.swapdims_(0, 1)), ("swapaxes_", lambda v, I: v.swapaxes_(1, 0)),
    ("squeeze_", lambda v, I: v.unsqueeze(0).squeeze_()),
    ("squeeze_-dim", lambda v, I: v.unsqueeze(1).squeeze_(1)),
    ("unsqueeze_", lambda v, I: v.unsqueeze_(-1)),
    ("tril_", lambda v, I: v.tril_(-1)), ("triu_", lambda v, I: v.triu_(1)),
    ("index_fill_", lambda v, I: v.index_fill_(1, I([0, 2]), 7.0)),
    ("index_add_", lambda v, I: v.index_add_(1, I([0, 0]), v[:, :2] * 1)),
    ("index_copy_", lambda v, I: v.index_copy_(1, I([2, 0]), v[:, :2] * 2)),
    ("masked_fill_", lambda v, I: v.masked_fill_(v > 0, 0.0)),
    ("masked_scatter_", lambda v, I: v.masked_scatter_(v > 0, v.reshape(-1) * 3)),
    ("scatter_", lambda v, I: v.scatter_(1, I([[0], [1]]), 5.0)),
    ("scatter_add_", lambda v, I: v.scatter_add_(1, I([[0, 0], [1, 1]]), v[:, :2] * 1)),
    ("put_", lambda v, I: v.put_(I([0, 0]), v.reshape(-1)[:2] * 1, accumulate=True)),
    ("index_put_", lambda v, I: v.index_put_((I([0, 0]),), v[0] * 1, accumulate=True)),
    ("setitem", lambda v, I: v.__setitem__((slice(None), 0), 4.0)),
]
for iname, inf in INPLACE_SHAPE:
    def _ip_plain(L, X, I, inf=inf):
        base = X(values((2, 3), "float64"))
        v = base[:, :]
        out = inf(v, I)
        return (base._version, v._version, out is v or out is None, tuple(v.shape), base, v)

    def _ip_grad(L, X, I, inf=inf):
        leaf = X(values((2, 3), "float64"), g=True)
        y = leaf * 1
        inf(y, I)
        return y

    def _ip_view_grad(L, X, I, inf=inf):
        leaf = X(values((2, 3), "float64"), g=True)
        y = leaf * 1
        inf(y[:, :], I)
        return y

    def _ip_leaf(L, X, I, inf=inf):
        leaf = X(values((2, 3), "float64"), g=True)
        inf(leaf, I)
        return leaf

    def _ip_leafview(L, X, I, inf=inf):
        leaf = X(values((2, 3), "float64"), g=True)
        inf(leaf[:, :], I)
        return leaf

    case("inplace-%s-leafview" % iname, _ip_leafview)
    case("inplace-%s-version" % iname, _ip_plain)
    case("inplace-%s-grad" % iname, _ip_grad)
    case("inplace-%s-viewgrad" % iname, _ip_view_grad)
    case("inplace-%s-leaf" % iname, _ip_leaf)


# ---- Python scalar fill values of every kind into every dtype
FILL_VALUES = [("True", True), ("2", 2), ("2.5", 2.5), ("1+1j", 1 + 1j), ("-1", -1),
               ("nan", float("nan")), ("inf", float("inf")), ("2e40", 2 ** 40)]
FILL_OPS = [
    ("masked_fill", lambda L, x, v, X, I: x.masked_fill(X(values((3, 4), "bool")), v)),
    ("index_fill", lambda L, x, v, X, I: x.index_fill(1, I([0, 2]), v)),
    ("scatter-value", lambda L, x, v, X, I: x.scatter(1, I([[0], [3], [1]]), v)),
    ("setitem-int", lambda L, x, v, X, I: (lambda y: (y.__setitem__((0, 1), v), y)[1])(
        x.clone())),
    ("setitem-slice", lambda L, x, v, X, I: (lambda y: (y.__setitem__(
        (slice(None), slice(1, 3)), v), y)[1])(x.clone())),
    ("setitem-adv", lambda L, x, v, X, I: (lambda y: (y.__setitem__(I([2, 0]), v), y)[1])(
        x.clone())),
]
for opname, f in FILL_OPS:
    for vname, v in FILL_VALUES:
        for dt in ("bool", "uint8", "int32", "int64", "float16", "float32", "float64",
                   "complex64"):
            case("fill-%s-%s-%s" % (opname, vname, dt),
                 (lambda f, v, a: lambda L, X, I: f(L, X(a), v, X, I))(
                     f, v, values((3, 4), dt)))


# ---- second derivatives (create_graph=True) through every differentiable float64 case
for _cid in [c for c in CASES if ("-float64-" in c and c.endswith(("-2x3", "-3x4", "-nc")))
             or c.startswith("scatter_reduce-") and "-float64-" in c]:
    def _second(L, X, I, _f=CASES[_cid]):
        return _f(L, X, I)
    _second.second = True
    case("gg-" + _cid, _second)


def _marks(cid):
    import re
    # a second-order case ("gg-" + id) shares its first-order case's entry
    base = cid[3:] if cid.startswith("gg-") and cid not in ENGINE_GAPS_GG else cid
    reasons = [r for pat, r in ENGINE_GAPS.items() if re.search(pat, base)]
    reasons += [r for pat, r in ENGINE_GAPS_GG.items() if re.search(pat, cid)]
    return [pytest.mark.xfail(strict=True, reason=reasons[0])] if reasons else []


@pytest.mark.parametrize("cid", [pytest.param(c, id=c, marks=_marks(c)) for c in CASES])
def test_torch_sweep_shape(cid):
    why = compare(CASES[cid])
    if why is not None:
        pytest.fail("%s: %s" % (cid, why), pytrace=False)



# ---- the Python-level fixes made with this sweep (pyad/_scatter_reduce.py)

@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("shapes", [((), (), ()), ((3,), (), ()), ((), (1,), (1,))],
                         ids=["all0d", "0dindex", "0dself"])
def test_scatter_reduce_0d_as_torch(reduce, shapes):
    # torch counts a 0-d self, index or src as 1-d of size 1
    xs, is_, ss = shapes
    x = np.arange(1.0, 2.0 + (np.prod(xs) if xs else 1)).reshape(-1)[:int(np.prod(xs))]
    x = x.reshape(xs) + 0.5
    s = (np.arange(int(np.prod(ss))) * 2.0 + 3.0).reshape(ss)
    i = np.zeros(is_, np.int64)
    px, ps = pyad.tensor(x, requires_grad=True), pyad.tensor(s, requires_grad=True)
    tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(s, requires_grad=True)
    for inc in (True, False):
        p = pyad.scatter_reduce(px, 0, pyad.tensor(i), ps, reduce, include_self=inc)
        t = torch.scatter_reduce(tx, 0, torch.tensor(i), ts, reduce, include_self=inc)
        assert tuple(p.shape) == tuple(t.shape)
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-12)
        gp = pyad.autograd.grad(p.sum(), (px, ps))
        gt = torch.autograd.grad(t.sum(), (tx, ts))
        for a, b in zip(gp, gt):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)

        def f(a, b, inc=inc):
            return pyad.scatter_reduce(a, 0, pyad.tensor(i), b, reduce, include_self=inc)
        assert pyad.autograd.gradcheck(f, (px, ps))
        assert pyad.autograd.gradgradcheck(f, (px, ps))


def test_scatter_reduce_complex_requires_grad_raises_as_torch():
    x = np.array([1 + 1j, 2 - 1j])
    i = np.array([0, 0])
    for lib in (torch, pyad):
        a = lib.tensor(x, requires_grad=True)
        with pytest.raises(RuntimeError, match="complex"):
            lib.scatter_reduce(a, 0, lib.tensor(i), lib.tensor(x), "sum")
        with lib.no_grad():       # without autograd the complex sum is computed
            out = lib.scatter_reduce(a, 0, lib.tensor(i), lib.tensor(x), "sum")
        np.testing.assert_allclose(np.asarray(out.detach().numpy()), [4 + 1j, 2 - 1j])
    # a complex input not requiring grad is fine in both
    out = pyad.scatter_reduce(pyad.tensor(x), 0, pyad.tensor(i), pyad.tensor(x), "mean")
    ref = torch.scatter_reduce(torch.tensor(x), 0, torch.tensor(i), torch.tensor(x), "mean")
    np.testing.assert_allclose(out.numpy(), ref.numpy())

if __name__ == "__main__":
    bad = 0
    sel = sys.argv[1] if len(sys.argv) > 1 else ""
    for cid, fn in CASES.items():
        if sel not in cid:
            continue
        why = compare(fn)
        if not why and _marks(cid):
            bad += 1
            print("%s :: listed in ENGINE_GAPS but agrees with torch" % cid)
        if why and "-v" in sys.argv or why and not _marks(cid):
            bad += 1
            print("%s :: %s" % (cid, why))
    print("differing and not known: %d of %d" % (bad, len(CASES)))
