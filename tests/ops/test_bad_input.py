"""Bad input for every public op: a Python exception whose message names the op.

Every op of the family tuples (``pyad._engine.OP_FAMILIES``) and every ``pyad.linalg``
function has one valid call below (``VALID``); the probes then spoil one argument at
a time, where the op has such an argument:

- wrong argument type: a string where the Variable goes;
- wrong dim: an out-of-range int for ``dim`` (and the other dimension arguments);
- mismatched shapes: an ``other`` operand whose shape does not fit;
- wrong index dtype: float indices; out-of-range indices;
- a non-bool mask.

Each must raise TypeError, ValueError, IndexError or RuntimeError (never crash, never
pass silently) with the op's name in the message.
"""
import importlib.util
import inspect
import re

import numpy as np
import pytest

import pyad
import pyad.linalg
from pyad import _engine

ERRORS = (TypeError, ValueError, IndexError, RuntimeError)


def X():
    return pyad.tensor(np.arange(1.0, 7.0).reshape(2, 3))


def SQ():
    return pyad.tensor([[4.0, 1.0], [1.0, 3.0]])


def IDX():
    return pyad.tensor([[0, 1, 2], [2, 1, 0]])


def MASK():
    return pyad.tensor([[True, False, True], [False, True, False]])


def INTS():
    return pyad.tensor([[1, 2, 3], [4, 5, 6]])


# op name -> (args, kwargs) of one valid call; spoiled by the probes below.
VALID = {
    "addcmul": lambda: ((X(), X(), X()), {}),
    "addcdiv": lambda: ((X(), X(), X() + 1), {}),
    "addmm": lambda: ((X(), X(), pyad.ones(3, 3, dtype=pyad.float64)), {}),
    "addmv": lambda: ((pyad.ones(2, dtype=pyad.float64), X(),
                       pyad.ones(3, dtype=pyad.float64)), {}),
    "baddbmm": lambda: ((X(), X().unsqueeze(0), pyad.ones(1, 3, 3, dtype=pyad.float64)), {}),
    "addbmm": lambda: ((X(), X().unsqueeze(0), pyad.ones(1, 3, 3, dtype=pyad.float64)), {}),
    "cdist": lambda: ((X(), X()), {}),
    "unfold": lambda: ((X().reshape(1, 1, 2, 3), 2), {}),
    "fold": lambda: ((pyad.ones(1, 4, 2), (2, 3), 2), {}),
    "repeat_interleave": lambda: ((X(), 2), {"dim": 0}),
    "logit": lambda: ((X() / 10,), {}),
    "moveaxis": lambda: ((X(), 0, 1), {}),
    "swapdims": lambda: ((X(), 0, 1), {}),
    "swapaxes": lambda: ((X(), 0, 1), {}),
    "where": lambda: ((MASK(), X(), X()), {}),
    "clamp": lambda: ((X(), 0.0, 2.0), {}),
    "clip": lambda: ((X(), 0.0, 2.0), {}),
    "clamp_min": lambda: ((X(), 2.0), {}),
    "clamp_max": lambda: ((X(), 2.0), {}),
    "lerp": lambda: ((X(), X(), 0.5), {}),
    "pow": lambda: ((X(), 2.0), {}),
    "bitwise_not": lambda: ((INTS(),), {}),
    "isin": lambda: ((X(), X()), {}),
    "searchsorted": lambda: ((X(), X()), {}),
    "bucketize": lambda: ((X(), pyad.tensor([1.0, 3.0, 5.0])), {}),
    "unsafe_split": lambda: ((X(), 1), {}),
    "unsafe_chunk": lambda: ((X(), 2), {}),
    "unsafe_split_with_sizes": lambda: ((X(), [1, 1]), {}),
    "bitwise_and": lambda: ((INTS(), INTS()), {}),
    "bitwise_or": lambda: ((INTS(), INTS()), {}),
    "bitwise_xor": lambda: ((INTS(), INTS()), {}),
    "bitwise_left_shift": lambda: ((INTS(), INTS()), {}),
    "bitwise_right_shift": lambda: ((INTS(), INTS()), {}),
    "logical_and": lambda: ((MASK(), MASK()), {}),
    "logical_or": lambda: ((MASK(), MASK()), {}),
    "logical_xor": lambda: ((MASK(), MASK()), {}),
    "cumsum": lambda: ((X(), 1), {}),
    "cumprod": lambda: ((X(), 1), {}),
    "topk": lambda: ((X(), 2), {"dim": 1}),
    "kthvalue": lambda: ((X(), 2), {"dim": 1}),
    "mm": lambda: ((X(), X().t()), {}),
    "matmul": lambda: ((X(), X().t()), {}),
    "bmm": lambda: ((X()[None], X().t()[None]), {}),
    "mv": lambda: ((X(), pyad.ones(3, dtype=pyad.float64)), {}),
    "dot": lambda: ((X()[0], X()[1]), {}),
    "vdot": lambda: ((X()[0], X()[1]), {}),
    "view_as_real": lambda: ((X() * 1j,), {}),
    "view_as_complex": lambda: ((pyad.ones(3, 2, dtype=pyad.float64),), {}),
    "outer": lambda: ((X()[0], X()[1]), {}),
    "einsum": lambda: (("ij->j", X()), {}),
    "tensordot": lambda: ((X(), X().t()), {"dims": ([1], [0])}),
    "trace": lambda: ((SQ(),), {}),
    "diag": lambda: ((SQ(),), {}),
    "diagonal": lambda: ((X(),), {"dim1": 0, "dim2": 1}),
    "diag_embed": lambda: ((X(),), {"dim1": 0, "dim2": 1}),
    "reshape": lambda: ((X(), 3, 2), {}),
    "view": lambda: ((X(), 3, 2), {}),
    "transpose": lambda: ((X(), 0, 1), {}),
    "permute": lambda: ((X(), 1, 0), {}),
    "unsqueeze": lambda: ((X(), 0), {}),
    "squeeze": lambda: ((X(),), {"dim": 0}),
    "expand": lambda: ((X(), 4, 2, 3), {}),
    "broadcast_to": lambda: ((X(), (4, 2, 3)), {}),
    "sum_to": lambda: ((X(), (1, 3)), {}),
    "getitem": lambda: ((X(), 1), {}),
    "setitem": lambda: ((X(), 1, 0.0), {}),
    "cat": lambda: (([X(), X()],), {"dim": 0}),
    "concat": lambda: (([X(), X()],), {"dim": 0}),
    "stack": lambda: (([X(), X()],), {"dim": 0}),
    "hstack": lambda: (([X(), X()],), {}),
    "vstack": lambda: (([X(), X()],), {}),
    "split": lambda: ((X(), 1), {"dim": 1}),
    "split_with_sizes": lambda: ((X(), [1, 2]), {"dim": 1}),
    "chunk": lambda: ((X(), 3), {"dim": 1}),
    "unbind": lambda: ((X(),), {"dim": 1}),
    "narrow": lambda: ((X(),), {"dim": 1, "start": 0, "length": 2}),
    "select": lambda: ((X(),), {"dim": 1, "index": 0}),
    "flip": lambda: ((X(), (1,)), {}),
    "roll": lambda: ((X(), 1), {"dims": 1}),
    "repeat": lambda: ((X(), 2, 1), {}),
    "tile": lambda: ((X(), (2, 1)), {}),
    "movedim": lambda: ((X(), 0, 1), {}),
    "unflatten": lambda: ((X(),), {"dim": 1, "sizes": (3, 1)}),
    "gather": lambda: ((X(),), {"dim": 1, "index": IDX()}),
    "take_along_dim": lambda: ((X(),), {"indices": IDX(), "dim": 1}),
    "scatter": lambda: ((X(),), {"dim": 1, "index": IDX(), "src": X()}),
    "scatter_add": lambda: ((X(),), {"dim": 1, "index": IDX(), "src": X()}),
    "index_select": lambda: ((X(),), {"dim": 1, "index": pyad.tensor([0, 2])}),
    "index_add": lambda: ((X(),), {"dim": 1, "index": pyad.tensor([0, 2]),
                                   "source": pyad.ones(2, 2, dtype=pyad.float64)}),
    "index_copy": lambda: ((X(),), {"dim": 1, "index": pyad.tensor([0, 2]),
                                    "source": pyad.ones(2, 2, dtype=pyad.float64)}),
    "index_fill": lambda: ((X(),), {"dim": 1, "index": pyad.tensor([0, 2]), "value": 1.0}),
    "masked_fill": lambda: ((X(),), {"mask": MASK(), "value": 0.0}),
    "masked_select": lambda: ((X(),), {"mask": MASK()}),
    "masked_scatter": lambda: ((X(),), {"mask": MASK(), "source": X()}),
    "pad": lambda: ((X(), (1, 1)), {}),
    "log_softmax": lambda: ((X(),), {"dim": 1}),
    "softmax": lambda: ((X(),), {"dim": 1}),
    # convolution and pooling: (N, C, H, W) inputs
    "conv1d": lambda: ((pyad.ones(1, 2, 5), pyad.ones(3, 2, 2)), {}),
    "conv2d": lambda: ((pyad.ones(1, 2, 5, 5), pyad.ones(3, 2, 2, 2)), {}),
    "conv_transpose2d": lambda: ((pyad.ones(1, 2, 4, 4), pyad.ones(2, 3, 2, 2)), {}),
    "max_pool2d": lambda: ((pyad.ones(1, 2, 4, 4), 2), {}),
    "avg_pool2d": lambda: ((pyad.ones(1, 2, 4, 4), 2), {}),
    "adaptive_avg_pool2d": lambda: ((pyad.ones(1, 2, 4, 4), 2), {}),
    # stochastic ops: probabilities / weights
    "bernoulli": lambda: ((pyad.tensor([[0.2, 0.5], [0.7, 1.0]]),), {}),
    "multinomial": lambda: ((pyad.tensor([[0.2, 0.5, 0.3], [1.0, 1.0, 1.0]]), 2), {}),
    "normal": lambda: ((X(), 1.0), {}),
    "fill_": lambda: ((X(), 1.0), {}),
    "copy_": lambda: ((X(), X()), {}),
    # pyad.linalg
    "inv": lambda: ((SQ(),), {}),
    "det": lambda: ((SQ(),), {}),
    "slogdet": lambda: ((SQ(),), {}),
    "solve": lambda: ((SQ(), SQ()), {}),
    "cholesky": lambda: ((SQ(),), {}),
    "qr": lambda: ((X(),), {}),
    "eigh": lambda: ((SQ(),), {}),
    "svd": lambda: ((X(),), {}),
    "svdvals": lambda: ((X(),), {}),
    "norm": lambda: ((X(),), {}),
    "vector_norm": lambda: ((X(),), {"dim": 1}),
    "matrix_norm": lambda: ((X(),), {}),
    "lstsq": lambda: ((X(), X()), {}),
    "solve_ex": lambda: ((SQ(), SQ()), {}),
    "eigvalsh": lambda: ((SQ(),), {}),
    "eig": lambda: ((SQ(),), {}),
    "eigvals": lambda: ((SQ(),), {}),
    "matrix_exp": lambda: ((SQ(),), {}),
    "inv_ex": lambda: ((SQ(),), {}),
    "cholesky_ex": lambda: ((SQ(),), {}),
    "tensorinv": lambda: ((SQ(),), {"ind": 1}),
    "solve_triangular": lambda: ((SQ(), SQ()), {"upper": True}),
    "lu_solve": lambda: (pyad.linalg.lu_factor(SQ() + 3 * pyad.eye(2))
                         + (SQ(),), {}),
    "multi_dot": lambda: (([SQ(), SQ()],), {}),
    "vecdot": lambda: ((X(), X()), {}),
    "tensorsolve": lambda: ((SQ(), pyad.ones(2)), {}),
    "householder_product": lambda: ((X().t(), pyad.ones(2, dtype=pyad.float64)), {}),
    "ldl_factor": lambda: ((SQ(),), {}),
    "ldl_factor_ex": lambda: ((SQ(),), {}),
    "ldl_solve": lambda: (pyad.linalg.ldl_factor(SQ() + 3 * pyad.eye(2)) + (SQ(),), {}),
    # torch conveniences beyond the core op list
    "cummax": lambda: ((X(), 1), {}),
    "cummin": lambda: ((X(), 1), {}),
    "tensor_split": lambda: ((X(), 3), {"dim": 1}),
    "hsplit": lambda: ((X(), 3), {}),
    "vsplit": lambda: ((X(), 2), {}),
    "take": lambda: ((X(),), {"index": pyad.tensor([0, 5])}),
    "put": lambda: ((X(), pyad.tensor([0, 5]), X().reshape(-1)[:2]), {}),
    "dstack": lambda: (([X(), X()],), {}),
    "column_stack": lambda: (([X(), X()],), {}),
    "broadcast_tensors": lambda: ((X(), X()), {}),
    "meshgrid": lambda: ((pyad.ones(2), pyad.ones(3)), {"indexing": "ij"}),
    "logsumexp": lambda: ((X(), 1), {}),
    "cross": lambda: ((pyad.ones(2, 3), pyad.ones(2, 3)), {"dim": 1}),
    "matrix_power": lambda: ((SQ(), 2), {}),
    "rsub": lambda: ((X(), X()), {}),
}
for _name in ("masked_fill_", "index_fill_", "index_add_", "index_copy_", "scatter_",
              "scatter_add_", "put_"):
    VALID[_name] = VALID[_name[:-1]]
for _name in ("add_", "sub_", "mul_", "div_", "arctan2_", "xlogy_", "copysign_", "ldexp_",
              "nextafter_", "hypot_"):
    VALID[_name] = lambda: ((X(), X()), {})
VALID["clamp_"] = lambda: ((X(), 0.0, 2.0), {})
VALID["pow_"] = lambda: ((X(), 2.0), {})
VALID["imag"] = lambda: ((X() * 1j,), {})
VALID["vdot"] = lambda: ((pyad.ones(3), pyad.ones(3)), {})
VALID["view_as_real"] = lambda: ((X() * 1j,), {})
VALID["view_as_complex"] = lambda: ((pyad.ones(2, 3, 2),), {})
VALID["polygamma"] = lambda: ((1, X()), {})
VALID["logcumsumexp"] = lambda: ((X(), 1), {})
VALID["mvlgamma"] = lambda: ((X(), 2), {})
VALID["heaviside"] = lambda: ((X(), X()), {})
VALID["gcd"] = VALID["lcm"] = lambda: ((INTS(), INTS()), {})
VALID["concatenate"] = lambda: (([X(), X()],), {})
VALID["row_stack"] = lambda: (([X(), X()],), {})
# the in-place forms of INPLACE_FORMS and the in-place view ops (pyad/ops/inplace.pxi)
for _name in ("addcmul_", "addcdiv_", "addmm_", "addmv_", "addbmm_"):
    VALID[_name] = VALID[_name[:-1]]
VALID["baddbmm_"] = lambda: ((X().unsqueeze(0), X().unsqueeze(0),
                              pyad.ones(1, 3, 3, dtype=pyad.float64)), {})
for _name in ("transpose_", "swapdims_", "swapaxes_"):
    VALID[_name] = lambda: ((X(), 0, 1), {})
VALID["unsqueeze_"] = lambda: ((X(),), {"dim": 0})
VALID["clamp_min_"] = lambda: ((X(),), {"min": 2.0})
VALID["clamp_max_"] = lambda: ((X(),), {"max": 2.0})
VALID["clip_"] = lambda: ((X(), 1.0, 2.0), {})
VALID["cumsum_"] = lambda: ((X(),), {"dim": 1})
VALID["cumprod_"] = lambda: ((X(),), {"dim": 1})
VALID["lerp_"] = lambda: ((X(), X()), {"weight": 0.5})
VALID["masked_scatter_"] = lambda: ((X(),), {"mask": MASK(), "source": X()})
for _name in ("bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
              "bitwise_right_shift_"):
    VALID[_name] = lambda: ((INTS(), INTS()), {})
VALID["bitwise_not_"] = lambda: ((INTS(),), {})
VALID["geometric_"] = lambda: ((X(), 0.5), {})
VALID["select_scatter"] = lambda: ((X(),), {"src": pyad.ones(3, dtype=pyad.float64), "dim": 0,
                                          "index": 1})
VALID["slice_scatter"] = lambda: ((X(),), {"src": X()[:, :2], "dim": 1, "start": 0, "end": 2})
VALID["diagonal_scatter"] = lambda: ((X(), pyad.ones(2, dtype=pyad.float64)), {"dim1": 0,
                                                                                "dim2": 1})
for _name in ("index_put", "index_put_"):
    VALID[_name] = lambda: ((X(), (pyad.tensor([1]),), pyad.ones(3, dtype=pyad.float64)), {})
VALID["fill_diagonal_"] = lambda: ((X(), 1.0), {})

# Names the op goes by in messages when it differs from its function's name.
SPOKEN = {"getitem": "__getitem__", "setitem": "__setitem__", "concat": "cat",
          "_linalg_norm": "linalg.norm", "_linalg_cross": "linalg.cross"}

ALL_OPS = [op for family in _engine.OP_FAMILIES.values() for op in family]
LINALG = [getattr(pyad.linalg, name) for name in pyad.linalg.__all__]
OPS = ALL_OPS + [f for f in LINALG if f not in ALL_OPS]


def _key(op):
    for name in pyad.linalg.__all__:
        if getattr(pyad.linalg, name) is op:
            return name
    return op.__name__


if importlib.util.find_spec("scipy") is None:
    # pyad.linalg's ldl_* call LAPACK through SciPy, an optional dependency
    OPS = [op for op in OPS if not _key(op).startswith("ldl_")]


def _valid(op):
    key = _key(op)
    if key in VALID:
        args, kwargs = VALID[key]()
        return list(args), dict(kwargs)
    params = list(inspect.signature(op).parameters.values())
    nargs = 2 if len(params) > 1 and params[1].name in ("other", "exponent") else 1
    return [X() for _ in range(nargs)], {}


def _params(op):
    return [p.name for p in inspect.signature(op).parameters.values()]


def _set(args, kwargs, op, name, value):
    """args/kwargs with parameter ``name`` replaced (None if the call does not pass it)."""
    params = _params(op)
    args, kwargs = list(args), dict(kwargs)
    if name in kwargs:
        kwargs[name] = value
    elif name in params and params.index(name) < len(args) and \
            inspect.signature(op).parameters[name].kind != inspect.Parameter.VAR_POSITIONAL:
        args[params.index(name)] = value
    else:
        return None
    return args, kwargs


def _probes(op):
    """(label, args, kwargs) for every bad input that applies to ``op``."""
    args, kwargs = _valid(op)
    params = _params(op)
    out = []

    def add(label, changed):
        if changed is not None:
            out.append((label,) + changed)

    first = params[0]
    if first in ("input", "a", "A", "x", "x1", "condition", "mean", "elements",
                 "sorted_sequence") and args:
        add("wrong type", (["abc"] + args[1:], kwargs))
    elif first == "equation":
        add("wrong type", ([args[0], "abc"], kwargs))
        add("bad subscripts", (["ij->k", args[1]], kwargs))
        add("mismatched shapes", (["ij,ij->i", args[1], args[1].t()], kwargs))
        add("wrong operand count", (["ij,jk->ik", args[1]], kwargs))
    elif first == "n" and len(args) > 1:          # polygamma(n, input)
        add("wrong type", ([args[0], "abc"] + args[2:], kwargs))
        add("wrong order type", ([1.5] + args[1:], kwargs))
    elif first == "tensors":
        add("wrong type", (["abc"] + args[1:], kwargs))
        add("wrong element type", ([[X(), "abc"]] + args[1:], kwargs))
    dim_names = ("dim", "dim0", "dim1", "dim2", "start_dim", "end_dim")
    if op.__name__ in ("movedim", "moveaxis"):
        dim_names += ("source", "destination")
    for name in dim_names:
        if name in params:
            add("dim out of range (%s)" % name, _set(args, kwargs, op, name, 7))
    for name in ("other", "mat2", "vec", "vec2", "end", "b", "B", "x2", "values"):
        # equal: False, as torch; kron: any two shapes have a Kronecker product
        if name in params and op.__name__ not in ("equal", "kron"):
            value = pyad.ones(4, 5, 7, dtype=pyad.float64)
            add("mismatched shapes (%s)" % name, _set(args, kwargs, op, name, value))
    for name in ("src", "source"):
        if name in kwargs and isinstance(kwargs[name], pyad.Variable):
            # masked_scatter takes any source with enough elements: give it too few
            bad = pyad.ones(1 if "mask" in kwargs else (7, 7, 7), dtype=pyad.float64)
            add("mismatched shapes (%s)" % name, _set(args, kwargs, op, name, bad))
    for name in ("index", "indices"):
        if isinstance(kwargs.get(name), pyad.Variable):
            good = kwargs[name]
            add("float index", _set(args, kwargs, op, name, good.to(pyad.float64)))
            add("index out of range", _set(args, kwargs, op, name,
                                           pyad.full(tuple(good.shape), 9)))
            add("negative index out of range", _set(args, kwargs, op, name,
                                                    pyad.full(tuple(good.shape), -9)))
    if isinstance(kwargs.get("index"), int):
        add("index out of range", _set(args, kwargs, op, "index", 9))
    if "mask" in kwargs:
        add("float mask", _set(args, kwargs, op, "mask", X()))
        add("mismatched mask", _set(args, kwargs, op, "mask",
                                    pyad.ones(4, 5, dtype=pyad.bool)))
    return out


CASES = [(op, label, args, kwargs) for op in OPS for label, args, kwargs in _probes(op)]


def _id(case):
    return "%s-%s" % (_key(case[0]), case[1])


def test_the_valid_calls_are_valid():
    for op in OPS:
        args, kwargs = _valid(op)
        op(*args, **kwargs)


def test_every_op_has_a_probe():
    probed = {id(case[0]) for case in CASES}
    assert [op.__name__ for op in OPS if id(op) not in probed] == []
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_raises_an_error_naming_the_op(case):
    op, label, args, kwargs = case
    with pytest.raises(ERRORS) as info:
        op(*args, **kwargs)
    name = SPOKEN.get(op.__name__, _key(op))
    message = str(info.value)
    assert re.search(r"(^|[^\w.])(linalg\.)?%s\(" % re.escape(name), message) or \
        re.match(r"%s\b" % re.escape(name), message), (label, message)


# -- refusals with torch's exception type (each compared with torch on the same call) --

def _np_in(L, a):
    return L.tensor(np.asarray(a))


_C23 = np.arange(6).reshape(2, 3) * (1 + 1j)
_B23 = np.arange(6).reshape(2, 3) % 2 == 0
_F23 = np.arange(6.0).reshape(2, 3)
_E03 = np.zeros((0, 3))

# name -> (call of the library L, the op named in pyad's message)
TORCH_REFUSALS = {
    "amax-complex-empty-dim": (lambda L: L.amax(_np_in(L, _E03 + 0j), 0), "amax"),
    "max-complex-dim-range": (lambda L: L.max(_np_in(L, _C23), 2), "max"),
    "argmax-complex-tuple-dim": (lambda L: L.argmax(_np_in(L, _C23), ()), "argmax"),
    "sort-complex-dim-range": (lambda L: L.sort(_np_in(L, _C23), 2), "sort"),
    "topk-complex-dim-range": (lambda L: L.topk(_np_in(L, _C23), 1, 2), "topk"),
    "median-complex-empty-dim": (lambda L: L.median(_np_in(L, _E03 + 0j), 0), "median"),
    "median-dim-none": (lambda L: L.median(_np_in(L, _F23), dim=None), "median"),
    "nanmedian-dim-none": (lambda L: L.nanmedian(_np_in(L, _F23), None, True), "nanmedian"),
    "prod-dim-none": (lambda L: L.prod(_np_in(L, _F23), dim=None, keepdim=True), "prod"),
    "median-bool": (lambda L: L.median(_np_in(L, _B23)), "median"),
    "median-bool-dim": (lambda L: L.median(_np_in(L, _B23), 1), "median"),
    "nanmedian-complex": (lambda L: L.nanmedian(_np_in(L, _C23)), "nanmedian"),
    "nanmedian-complex-dim": (lambda L: L.nanmedian(_np_in(L, _C23), 0), "nanmedian"),
    "kthvalue-empty-dim": (lambda L: L.kthvalue(_np_in(L, _E03), 2, 0), "kthvalue"),
    "kthvalue-bool": (lambda L: L.kthvalue(_np_in(L, _B23), 1), "kthvalue"),
    "topk-bool": (lambda L: L.topk(_np_in(L, _B23), 1), "topk"),
    "trace-bool": (lambda L: L.trace(_np_in(L, _B23)), "trace"),
    "trace-bool-1d": (lambda L: L.trace(_np_in(L, _B23[0])), "trace"),
    "cumsum-dtype-bool": (lambda L: L.cumsum(_np_in(L, _F23), 1, dtype=L.bool), "cumsum"),
    "logcumsumexp-int": (lambda L: L.logcumsumexp(_np_in(L, _F23.astype(np.int64)), 0),
                         "logcumsumexp"),
    "logcumsumexp-bool": (lambda L: L.logcumsumexp(_np_in(L, _B23), 0), "logcumsumexp"),
    "logsumexp-dim-none": (lambda L: L.logsumexp(_np_in(L, _F23), None), "logsumexp"),
    "logsumexp-no-dim": (lambda L: L.logsumexp(_np_in(L, _F23)), "logsumexp"),
    "logsumexp-empty-tuple": (lambda L: L.logsumexp(_np_in(L, _F23), ()), "logsumexp"),
    "nansum-complex-dtype": (lambda L: L.nansum(_np_in(L, _F23), dtype=L.complex128),
                             "nansum"),
    "nanmean-complex-dtype": (lambda L: L.nanmean(_np_in(L, _F23), dtype=L.complex128),
                              "nanmean"),
    "var-unbiased-and-correction": (lambda L: L.var(_np_in(L, _F23), unbiased=True,
                                                     correction=0), "var"),
    "index_select-out-of-range": (lambda L: L.index_select(_np_in(L, _F23), 0,
                                                           L.tensor([2])), "index_select"),
    "index_select-out-of-range-dim1": (lambda L: L.index_select(_np_in(L, _F23), 1,
                                                                L.tensor([3])),
                                       "index_select"),
    "index_select-out-of-range-3d": (lambda L: L.index_select(_np_in(L, np.zeros((2, 3, 2))),
                                                              2, L.tensor([-1])),
                                     "index_select"),
    "take_along_dim-negative-flat": (lambda L: L.take_along_dim(_np_in(L, _F23),
                                                                L.tensor([-1, 0])),
                                     "take_along_dim"),
    "take_along_dim-int32": (lambda L: L.take_along_dim(
        _np_in(L, _F23), _np_in(L, np.array([[0], [1]], np.int32)), 1), "take_along_dim"),
    "index_fill-complex-into-bool": (lambda L: _np_in(L, _B23).index_fill(
        1, L.tensor([0]), 1 + 1j), "index_fill"),
    "masked_fill-complex-into-float": (lambda L: _np_in(L, _F23).masked_fill(
        L.tensor(_B23), 1 + 1j), "masked_fill"),
    "masked_fill-300-into-uint8": (lambda L: _np_in(L, np.zeros(3, np.uint8)).masked_fill(
        L.tensor([True, False, True]), 300), "masked_fill"),
    "scatter-inf-into-int": (lambda L: _np_in(L, np.zeros(3, np.int64)).scatter(
        0, L.tensor([1]), float("inf")), "scatter"),
    "index_fill-2e40-into-float16": (lambda L: _np_in(L, np.zeros(3, np.float16)).index_fill(
        0, L.tensor([1]), 2 ** 40), "index_fill"),
    "index_select-negative": (lambda L: L.index_select(_np_in(L, _F23), 0,
                                                       L.tensor([-1])), "index_select"),
    "getitem-str": (lambda L: _np_in(L, _F23)["a"], "__getitem__"),
    "cat-empty-list": (lambda L: L.cat([]), "cat"),
    "permute-no-dims": (lambda L: _np_in(L, _F23).permute(), "permute"),
    "expand-no-sizes": (lambda L: _np_in(L, _F23).expand(), "expand"),
    "meshgrid-bad-indexing": (lambda L: L.meshgrid(_np_in(L, _F23[0]), indexing="ik"),
                              "meshgrid"),
    "meshgrid-mixed-dtypes": (lambda L: L.meshgrid(_np_in(L, _F23[0]),
                                                   _np_in(L, [1, 2]), indexing="ij"),
                              "meshgrid"),
}


@pytest.mark.parametrize("name", list(TORCH_REFUSALS))
def test_refusals_raise_torch_exception_type(name):
    torch = pytest.importorskip("torch")
    call, op = TORCH_REFUSALS[name]
    with pytest.raises(Exception) as t_info:
        call(torch)
    # pyad's exception is of torch's builtin type (a subclass of it)
    t_type = next(c for c in type(t_info.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(t_type) as p_info:
        call(pyad)
    assert re.search(r"(^|[^\w.])%s\(" % re.escape(op), str(p_info.value)), str(p_info.value)
    assert "tensor" not in str(p_info.value).lower().replace("tensors", "")


# calls torch computes (pyad used to refuse them), compared value for value
TORCH_ACCEPTS = {
    "cummax-empty-any-dim": lambda L: L.cummax(_np_in(L, np.zeros(0)), 2).values,
    "cummin-empty-any-dim": lambda L: L.cummin(_np_in(L, _E03), 2).indices,
    "cat-only-empty-1d": lambda L: L.cat([_np_in(L, np.zeros(0)),
                                          _np_in(L, np.zeros(0, np.float32))], dim=1),
    "take_along_dim-negative": lambda L: L.take_along_dim(_np_in(L, _F23),
                                                          L.tensor([[-1], [-3]]), 1),
    "gather-0d-index": lambda L: L.gather(_np_in(L, _F23[1]), 0, L.tensor(2)),
    "scatter-0d-index": lambda L: L.scatter(_np_in(L, _F23[1]), 0, L.tensor(2),
                                            _np_in(L, np.array(9.0))),
    "index_add-alpha-bool": lambda L: _np_in(L, _B23).index_add(
        0, L.tensor([1, 0]), _np_in(L, ~_B23), alpha=2),
    "setitem-2e40-into-float16": lambda L: _setitem_any(L, np.float16, 2 ** 40),
    "setitem-complex-into-bool": lambda L: _setitem_any(L, np.bool_, 1 + 1j),
    "masked_fill-uint8-wraps": lambda L: _np_in(L, np.arange(3, dtype=np.uint8)).masked_fill(
        L.tensor([True, False, True]), -1),
    "index_fill-uint8-wraps": lambda L: _np_in(L, np.arange(3, dtype=np.uint8)).index_fill(
        0, L.tensor([1]), -255),
    "logsumexp-empty-tuple-empty": lambda L: L.logsumexp(_np_in(L, _E03), ()),
    "logsumexp-empty-tuple-0d": lambda L: L.logsumexp(_np_in(L, np.array(1.5)), []),
    "kthvalue-bool-0d": lambda L: L.kthvalue(_np_in(L, np.array(True)), 1).values,
    "cumsum-dtype-bool-0d": lambda L: L.cumsum(_np_in(L, np.array(2.0)), 0, dtype=L.bool),
    "nansum-int-complex-dtype": lambda L: L.nansum(_np_in(L, [1, 2]), dtype=L.complex128),
}


def _setitem_any(L, dtype, value):
    x = _np_in(L, np.zeros(3, dtype=dtype))
    x[1] = value
    return x


def _setitem_uint8(L, key, value):
    x = _np_in(L, np.arange(4, dtype=np.uint8))
    x[key] = value
    return x


for _k, _v in ((0, -1), (slice(1, 3), -255), ([0, 2], -7)):
    TORCH_ACCEPTS["setitem-uint8-%r-%d" % (_k, _v)] = (
        lambda L, k=_k, v=_v: _setitem_uint8(L, k if not isinstance(k, list)
                                               else L.tensor(k), v))


@pytest.mark.parametrize("name", list(TORCH_ACCEPTS))
def test_calls_torch_computes_match_torch(name):
    torch = pytest.importorskip("torch")
    ref = TORCH_ACCEPTS[name](torch)
    out = TORCH_ACCEPTS[name](pyad)
    assert str(out.dtype).replace("pyad.", "") == str(ref.dtype).replace("torch.", "")
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(np.asarray(out.numpy()), ref.numpy())


def test_setitem_out_of_uint8_range_still_raises():
    x = pyad.tensor(np.arange(4, dtype=np.uint8))
    with pytest.raises((RuntimeError, OverflowError, ValueError)):
        x[0] = -256


def test_expand_as_same_shape_is_a_new_view_like_torch():
    x = pyad.tensor(_F23, requires_grad=True)
    for v in (x.expand_as(x), x.expand(2, 3), x.expand(-1, -1)):
        assert v is not x and v._base is x
        assert pyad.autograd.gradcheck(lambda a: a.expand_as(a) * a, (x,))
        assert pyad.autograd.gradgradcheck(lambda a: a.expand(2, 3) * a, (x,))

# -- dtypes torch's kernels refuse: the same exception type as torch, naming the op ----

def _typed(lib, values, dtype):
    return lib.tensor(np.array(values, dtype=dtype), dtype=getattr(lib, dtype))


REFUSALS = [
    # (label, call(lib, F, x), dtype, values, torch's exception type)
    ("floor-bool", lambda m, F, x: m.floor(x), "bool", [True, False], NotImplementedError),
    ("ceil-bool", lambda m, F, x: m.ceil(x), "bool", [True, False], NotImplementedError),
    ("round-bool", lambda m, F, x: m.round(x), "bool", [True, False], NotImplementedError),
    ("trunc-bool", lambda m, F, x: m.trunc(x), "bool", [True, False], NotImplementedError),
    ("fix-bool", lambda m, F, x: m.fix(x), "bool", [True, False], NotImplementedError),
    ("floor_-bool", lambda m, F, x: x.floor_(), "bool", [True, False], NotImplementedError),
    ("round-decimals-int64", lambda m, F, x: m.round(x, decimals=1), "int64", [1, 2],
     NotImplementedError),
    ("round-decimals-uint8", lambda m, F, x: m.round(x, decimals=-1), "uint8", [1, 2],
     NotImplementedError),
    ("round_-decimals-int64", lambda m, F, x: x.round_(decimals=1), "int64", [1, 2],
     NotImplementedError),
    ("frac-int64", lambda m, F, x: m.frac(x), "int64", [1, 2], NotImplementedError),
    ("frac-uint8", lambda m, F, x: m.frac(x), "uint8", [1, 2], NotImplementedError),
    ("frac-bool", lambda m, F, x: m.frac(x), "bool", [True], NotImplementedError),
    ("frac_-int64", lambda m, F, x: x.frac_(), "int64", [1, 2], NotImplementedError),
    ("abs-bool", lambda m, F, x: m.abs(x), "bool", [True, False], NotImplementedError),
    ("absolute-bool", lambda m, F, x: m.absolute(x), "bool", [True], NotImplementedError),
    ("softsign-bool", lambda m, F, x: F.softsign(x), "bool", [True], NotImplementedError),
    ("abs_-complex", lambda m, F, x: x.abs_(), "complex64", [1j], RuntimeError),
    ("absolute_-complex", lambda m, F, x: x.absolute_(), "complex64", [1j], RuntimeError),
    ("deg2rad_-complex", lambda m, F, x: x.deg2rad_(), "complex64", [1j], RuntimeError),
    ("rad2deg_-complex", lambda m, F, x: x.rad2deg_(), "complex64", [1j], RuntimeError),
    ("relu-bool", lambda m, F, x: m.relu(x), "bool", [True], RuntimeError),
    ("F.relu-bool", lambda m, F, x: F.relu(x), "bool", [True], RuntimeError),
    ("relu_-bool", lambda m, F, x: x.relu_(), "bool", [True], RuntimeError),
    ("bitwise_not-float64", lambda m, F, x: m.bitwise_not(x), "float64", [1.0],
     NotImplementedError),
    ("bitwise_not-float16", lambda m, F, x: m.bitwise_not(x), "float16", [1.0],
     NotImplementedError),
    ("bitwise_not-complex", lambda m, F, x: m.bitwise_not(x), "complex128", [1j],
     NotImplementedError),
    ("bitwise_not_-float32", lambda m, F, x: x.bitwise_not_(), "float32", [1.0],
     NotImplementedError),
    ("invert-operator-float", lambda m, F, x: ~x, "float64", [1.0], TypeError),
    ("signbit-complex", lambda m, F, x: m.signbit(x), "complex128", [1j],
     NotImplementedError),
    ("mvlgamma-bool", lambda m, F, x: m.mvlgamma(x, 2), "bool", [True], RuntimeError),
    ("ndtri-float16", lambda m, F, x: m.special.ndtri(x), "float16", [0.5],
     NotImplementedError),
    ("log_ndtr-float16", lambda m, F, x: m.special.log_ndtr(x), "float16", [0.5],
     NotImplementedError),
    ("clamp-no-bounds-complex", lambda m, F, x: m.clamp(x), "complex128", [1j],
     RuntimeError),
    ("nan_to_num-complex-grad", lambda m, F, x: m.nan_to_num(x.requires_grad_()),
     "complex128", [1j], RuntimeError),
]


@pytest.mark.parametrize("label, call, dtype, values, error", REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_dtype_refusals_match_torch(label, call, dtype, values, error):
    import pyad.nn.functional as pF
    torch = pytest.importorskip("torch")
    import torch.nn.functional as tF
    with pytest.raises(error) as theirs:
        call(torch, tF, _typed(torch, values, dtype))
    assert type(theirs.value) is error or isinstance(theirs.value, error)
    with pytest.raises(error) as ours:
        call(pyad, pF, _typed(pyad, values, dtype))
    # the exact type torch raises (NotImplementedError is a RuntimeError: not enough)
    assert type(ours.value) is type(theirs.value), (type(ours.value), type(theirs.value))
    name = label.split("-")[0].split(".")[-1]
    name = {"softsign": "abs"}.get(name, name)      # (softsign's abs refuses)
    if name != "invert":
        assert "%s(" % name.rstrip("_") in str(ours.value) or "%s(" % name in \
            str(ours.value), str(ours.value)

# -- dtypes torch has no kernel for, and operand dtypes torch requires to agree: the
#    same exception type as torch, the message naming the op ----------------------------

def _b(*v):
    return np.array(v, dtype=bool)


_U8, _I8 = np.array([1, 2], np.uint8), np.array([3, -1], np.int8)
_F64, _F32, _F16 = np.array([1.5, 2.0]), np.array([1.5, 2.0], np.float32), \
    np.array([0.5, 3.0], np.float16)
_I64 = np.array([3, 4])

# (name, op(lib, *tensors), operands, exception torch and pyad raise)
BINARY_REFUSALS = [
    ("floor_divide-bool", lambda L, a, b: L.floor_divide(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "floor_divide"),
    ("div-trunc-bool", lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
     (_b(1, 0), _b(1, 1)), NotImplementedError, "div"),
    ("remainder-bool", lambda L, a, b: L.remainder(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "remainder"),
    ("fmod-bool", lambda L, a, b: L.fmod(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "fmod"),
    ("pow-bool", lambda L, a, b: L.pow(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "pow"),
    ("pow-True-bool", lambda L, a: L.pow(True, a), (_b(1, 0),), NotImplementedError, "pow"),
    ("hypot-int", lambda L, a, b: L.hypot(a, b), (_U8, _I8), NotImplementedError, "hypot"),
    ("gcd-float", lambda L, a, b: L.gcd(a, b), (_F64, _F64), NotImplementedError, "gcd"),
    ("lcm-bool", lambda L, a, b: L.lcm(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "lcm"),
    ("nextafter-int", lambda L, a, b: L.nextafter(a, b), (_I64, _I64),
     NotImplementedError, "nextafter"),
    ("lerp-int", lambda L, a, b: L.lerp(a, b, 0.5), (_I64, _I64),
     NotImplementedError, "lerp"),
    ("lerp-int-weight", lambda L, a, b, c: L.lerp(a, b, c), (_I64, _I64, _I64),
     NotImplementedError, "lerp"),
    ("lerp-end-dtype", lambda L, a, b: L.lerp(a, b, 0.5), (_F32, _F64), RuntimeError, "lerp"),
    ("lerp-weight-dtype", lambda L, a, b, c: L.lerp(a, b, c), (_F32, _F32, _F64),
     RuntimeError, "lerp"),
    ("lerp-complex-weight", lambda L, a, b: L.lerp(a, b, 1j), (_F64, _F64),
     RuntimeError, "lerp"),
    ("addcmul-bool", lambda L, a, b, c: L.addcmul(a, b, c), (_b(1, 0), _b(1, 1), _b(0, 1)),
     NotImplementedError, "addcmul"),
    ("matmul-1d-dtypes", lambda L, a, b: L.matmul(a, b), (_F32, _F64), RuntimeError, "matmul"),
    ("matmul-1d-bool", lambda L, a, b: L.matmul(a, b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "matmul"),
    ("isclose-dtypes", lambda L, a, b: L.isclose(a, b), (_F16, _F32), RuntimeError, "isclose"),
    ("allclose-dtypes", lambda L, a, b: L.allclose(a, b), (_U8, _I8), RuntimeError,
     "allclose"),
    ("floor_divide_-bool", lambda L, a, b: a.clone().floor_divide_(b), (_b(1, 0), _b(1, 1)),
     NotImplementedError, "floor_divide_"),
    ("hypot_-int", lambda L, a, b: a.clone().hypot_(b), (_I64, _I64), NotImplementedError,
     "hypot_"),
    ("add_-float-into-int", lambda L, a, b: a.clone().add_(b), (_U8, _F32), RuntimeError,
     "add_"),
]


@pytest.mark.parametrize("name,fn,arrays,exc,op", BINARY_REFUSALS, ids=[r[0] for r in BINARY_REFUSALS])
def test_refusals_raise_torchs_exception_type(name, fn, arrays, exc, op):
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        fn(torch, *[torch.tensor(a) for a in arrays])
    with pytest.raises(exc) as info:
        fn(pyad, *[pyad.tensor(a) for a in arrays])
    assert re.match(r"%s\(\): " % re.escape(op), str(info.value)), str(info.value)
    assert "tensor" not in str(info.value).lower().replace("lerp_kernel_tensor", "")


# in-place ops and comparisons where torch wraps or casts within a category
ACCEPTED = [
    ("iadd-uint8-int8", lambda L, a, b: a.clone().add_(b), (_U8, _I8)),
    ("imul-uint8-int8", lambda L, a, b: a.clone().mul_(b), (_U8, _I8)),
    ("iadd-uint8-neg", lambda L, a: a.clone().add_(-3), (_U8,)),
    ("isub-uint8-neg", lambda L, a: a.clone().sub_(-3), (_U8,)),
    ("pow_-uint8-int8", lambda L, a, b: a.clone().pow_(b.abs()), (_U8, _I8)),
    ("lt-uint8-neg", lambda L, a: a < -3, (_U8,)),
    ("ge-int8-200", lambda L, a: a >= 200, (_I8,)),
    ("eq-int32-float16", lambda L, a, b: a == b,
     (np.array([2147483647, 1, 65520], np.int32), np.array([np.inf, 1, np.inf], np.float16))),
    # a 0-d operand of the same category does not widen the comparison: it is cast to
    # the dimensioned operand's dtype first (300 wraps to 44 in int8, -1 to 255 in uint8,
    # 0.1 rounds to float32's 0.1, 70000 overflows float16 to inf), on either side
    ("eq-int8-0d-int64", lambda L, a, b: a == b,
     (np.array([44, 2, -128], np.int8), np.array(300))),
    ("lt-int8-0d-int64", lambda L, a, b: a < b, (np.array([44, 2, 50], np.int8), np.array(300))),
    ("gt-0d-int64-int8", lambda L, a, b: a > b, (np.array(300), np.array([44, 2, 50], np.int8))),
    ("eq-uint8-0d-neg", lambda L, a, b: a.eq(b), (np.array([255, 2], np.uint8), np.array(-1))),
    ("eq-float32-0d-float64", lambda L, a, b: a == b,
     (np.array([0.1, 0.2], np.float32), np.array(0.1))),
    ("ge-float16-0d-float64", lambda L, a, b: L.ge(a, b),
     (np.array([np.inf, 1.0], np.float16), np.array(70000.0))),
    ("ne-int32-0d-float64", lambda L, a, b: a != b,
     (np.array([16777217, 1], np.int32), np.array(16777216.0))),
    ("div-trunc-uint8-neg", lambda L, a: L.div(a, -3, rounding_mode="trunc"), (_U8,)),
    ("pow-bool-True", lambda L, a: L.pow(a, True), (_b(1, 0),)),
    ("pow-bool-False", lambda L, a: L.pow(a, False), (_b(1, 0),)),
    ("pow-True-int8", lambda L, a: L.pow(True, a), (np.array([-2, 0, 3], np.int8),)),
    ("nextafter-int32-float16", lambda L, a, b: L.nextafter(a, b),
     (np.array([1, 2], np.int32), _F16)),
]


@pytest.mark.parametrize("name,fn,arrays", ACCEPTED, ids=[r[0] for r in ACCEPTED])
def test_wrapping_and_casting_like_torch(name, fn, arrays):
    torch = pytest.importorskip("torch")
    exp = fn(torch, *[torch.tensor(a) for a in arrays])
    got = fn(pyad, *[pyad.tensor(a) for a in arrays])
    assert str(got.dtype) == str(exp.dtype).replace("torch.", "")
    np.testing.assert_array_equal(np.asarray(got.data), exp.numpy())


def test_ldexp_refuses_a_bool_exponent_of_a_float_input_like_torch():
    torch = pytest.importorskip("torch")
    x, e = np.array([1.0, 2.0]), np.array([True, False])
    with pytest.raises(NotImplementedError):
        torch.ldexp(torch.tensor(x), torch.tensor(e))
    with pytest.raises(NotImplementedError, match=r"ldexp\(\)"):
        pyad.ldexp(pyad.tensor(x), pyad.tensor(e))
    # a bool input with a bool exponent computes (float32), as torch
    got = pyad.ldexp(pyad.tensor(e), pyad.tensor(e))
    exp = torch.ldexp(torch.tensor(e), torch.tensor(e))
    assert str(got.dtype) == str(exp.dtype).replace("torch.", "")
    np.testing.assert_array_equal(np.asarray(got.data), exp.numpy())


def test_ldexp_real_input_of_complex_result_backward_raises_like_torch():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.5 + 1j], dtype=torch.complex64, requires_grad=True)
    e = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.ldexp(x, e).real.sum().backward()
    px = pyad.tensor(np.array([1.5 + 1j], dtype=np.complex64), requires_grad=True)
    pe = pyad.tensor(np.array([1.0]), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"ldexp\(\)"):
        pyad.ldexp(px, pe).real.sum().backward()


_BOOL_DIM_CALLS = {
    "sum": lambda m, x: m.sum(x, True), "mean": lambda m, x: m.mean(x, True),
    "cumsum": lambda m, x: m.cumsum(x, True), "softmax": lambda m, x: m.softmax(x, True),
    "argmax": lambda m, x: m.argmax(x, True), "kthvalue": lambda m, x: m.kthvalue(x, 1, True),
    "topk": lambda m, x: m.topk(x, 1, True), "unsqueeze": lambda m, x: m.unsqueeze(x, True),
    "select": lambda m, x: m.select(x, True, 0), "narrow": lambda m, x: m.narrow(x, True, 0, 1),
    "max": lambda m, x: m.max(x, True), "logsumexp": lambda m, x: m.logsumexp(x, True),
    "cat": lambda m, x: m.cat([x, x], True),
}


@pytest.mark.parametrize("name", list(_BOOL_DIM_CALLS))
def test_a_bool_dim_is_refused_as_torch(name):
    # True is an int subclass: taken as dim 1 it would silently reduce the wrong way
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        _BOOL_DIM_CALLS[name](torch, torch.ones(2, 3))
    with pytest.raises(TypeError, match=r"argument 'dim' must be int, not bool"):
        _BOOL_DIM_CALLS[name](pyad, pyad.ones(2, 3))
