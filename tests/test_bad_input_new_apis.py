"""Bad input for the APIs added on 2026-11-30 (CHANGELOG [Unreleased]): each gives a clear
Python exception naming the op and what was wrong, never a crash, a hang, unbounded
memory or a silent wrong result.

Each row of ``CASES`` is ``(id, call, exception, fragment, torch_raises)``: ``call(m)``
runs the bad call with ``m`` the module (pyad or torch); pyad must raise ``exception``
with a message starting with ``"op(): "`` (the op the row names) and holding
``fragment``. Where ``torch_raises`` is true, torch 2.13 is run on the same input and
must raise the same exception type (so the expected type is torch's, not pyad's own);
where it is false torch takes the input (or fails another way, said in the row's
comment) and pyad's refusal is the clearer answer.
"""
import math
import warnings

import numpy as np
import pytest

import pyad
import pyad.func
import pyad.linalg
import pyad.nn.functional

torch = pytest.importorskip("torch")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import functorch as _functorch
    except Exception:                      # pragma: no cover - torch without functorch
        _functorch = None


def F(m):
    return m.nn.functional


def fn(m):
    """pyad.func, or functorch for torch (its make_functional & co)."""
    if m is pyad:
        return pyad.func
    if _functorch is None:
        pytest.skip("functorch not importable")
    return _functorch


def x4(m):
    return m.rand(1, 2, 8, 8)


def x5(m):
    return m.rand(1, 2, 6, 6, 6)


def sym(m, *batch):
    a = np.arange(9.0).reshape(3, 3) % 5 + 7 * np.eye(3)
    a = a + a.T
    a = np.broadcast_to(a, batch + (3, 3)).copy()
    return m.tensor(a, dtype=m.float64)


def ldl(m, *batch):
    return m.linalg.ldl_factor(sym(m, *batch))


def ones31(m, *batch):
    return m.ones(*batch, 3, 1, dtype=m.float64)


def seq_nr(m, value):
    a = m.ones(2, requires_grad=True)
    (a * 2).sum().grad_fn._set_sequence_nr(value)


def unpool(m, indices, **kwargs):
    return F(m).max_unpool3d(m.rand(1, 1, 2, 2, 2), indices, 2, **kwargs)


def gs(m, grid, **kwargs):
    return F(m).grid_sample(m.rand(1, 1, 4, 4), grid, mode="bicubic", align_corners=False,
                            **kwargs)


def aa(m, x, **kwargs):
    return F(m).interpolate(x, antialias=True, **kwargs)


def i64(m, *shape, fill=0):
    return m.full(shape, fill, dtype=m.int64)


XF_SET = "was: Variable.set_ (pyad/_engine.pyx) "
XF_SEQ = "was: Node._set_sequence_nr (pyad/_engine.pyx) "

CASES = [
    # -- Variable.set_ ----------------------------------------------------------------
    ("set_-list-source", lambda m: m.zeros(3).set_([1.0, 2.0]),
     TypeError, "argument 'source' must be a Variable", True),
    ("set_-ndarray-source", lambda m: m.zeros(3).set_(np.zeros(3, np.float32)),
     TypeError, "must be a Variable, not ndarray", True),
    ("set_-other-dtype", lambda m: m.zeros(3).set_(m.zeros(3, dtype=m.int64)),
     RuntimeError, "Could not set Variable of type long", True),
    ("set_-offset-without-source", lambda m: m.zeros(3).set_(None, 0),
     TypeError, "need a source Variable", True),
    ("set_-stride-without-size", lambda m: m.zeros(3).set_(m.zeros(6), 0, None, (1,)),
     TypeError, "needs a storage_offset and a size", True),
    # -- Node._set_sequence_nr ---------------------------------------------------------
    # -- pyad.func's functorch API --------------------------------------------------------
    ("make_functional-non-module", lambda m: fn(m).make_functional(lambda x: x),
     AttributeError, "expected an nn.Module, got function", True),
    ("make_functional-none", lambda m: fn(m).make_functional(None),
     AttributeError, "expected an nn.Module, got NoneType", True),
    ("make_functional_with_buffers-int", lambda m: fn(m).make_functional_with_buffers(3),
     AttributeError, "expected an nn.Module, got int", True),
    ("FunctionalModule-params-int",
     lambda m: fn(m).make_functional(m.nn.Linear(3, 2))[0](5, m.zeros(2, 3)),
     TypeError, "expected a sequence of Variables as parameters and buffers, got int", True),
    ("FunctionalModule-params-floats",
     lambda m: fn(m).make_functional(m.nn.Linear(3, 2))[0]((1.0, 2.0), m.zeros(2, 3)),
     TypeError, "'weight' must be a Variable, got float", True),
    # torch: "Tensor on device meta is not on the expected device cpu!"
    ("FunctionalModule-too-few-params",
     lambda m: (lambda f, p: f(p[:1], m.zeros(2, 3)))(*fn(m).make_functional(m.nn.Linear(3, 2))),
     RuntimeError, "expected 2 parameters and buffers, got 1", True),
    # torch ignores the extra one
    ("FunctionalModule-too-many-params",
     lambda m: (lambda f, p: f(tuple(p) + (m.zeros(1),), m.zeros(2, 3)))(
         *fn(m).make_functional(m.nn.Linear(3, 2))),
     RuntimeError, "expected 2 parameters and buffers, got 3", False),
    ("FunctionalModuleWithBuffers-too-few-buffers",
     lambda m: (lambda f, p, b: f(p, (), m.zeros(2, 3)))(
         *fn(m).make_functional_with_buffers(m.nn.BatchNorm1d(3))),
     RuntimeError, "expected 5 parameters and buffers, got 2", True),
    ("FunctionalModuleWithBuffers-buffers-int",
     lambda m: (lambda f, p, b: f(p, 7, m.zeros(2, 3)))(
         *fn(m).make_functional_with_buffers(m.nn.BatchNorm1d(3))),
     TypeError, "expected a sequence of Variables as buffers, got int", True),
    ("combine_state_for_ensemble-empty", lambda m: fn(m).combine_state_for_ensemble([]),
     RuntimeError, "Expected at least one model, got 0", True),
    ("combine_state_for_ensemble-ints", lambda m: fn(m).combine_state_for_ensemble([1, 2]),
     AttributeError, "expected an nn.Module, got int", True),
    ("combine_state_for_ensemble-module",
     lambda m: fn(m).combine_state_for_ensemble(m.nn.Linear(3, 2)),
     TypeError, "expected a sequence of nn.Modules, got Linear", True),
    ("combine_state_for_ensemble-iterator",
     lambda m: fn(m).combine_state_for_ensemble(iter([m.nn.Linear(3, 2)])),
     TypeError, "expected a sequence of nn.Modules, got list_iterator", True),
    ("combine_state_for_ensemble-shapes",
     lambda m: fn(m).combine_state_for_ensemble([m.nn.Linear(3, 2), m.nn.Linear(4, 2)]),
     RuntimeError, "'weight' has shape [2, 4] in model 1 but [2, 3] in model 0", True),
    ("combine_state_for_ensemble-classes",
     lambda m: fn(m).combine_state_for_ensemble([m.nn.Linear(3, 2), m.nn.Conv1d(3, 2, 1)]),
     RuntimeError, "same class", True),
    ("combine_state_for_ensemble-modes",
     lambda m: fn(m).combine_state_for_ensemble([m.nn.Linear(3, 2), m.nn.Linear(3, 2).eval()]),
     RuntimeError, "training/eval mode", True),
    # -- fractional_max_pool2d/3d ----------------------------------------------------------
    ("fractional_max_pool2d-no-size", lambda m: F(m).fractional_max_pool2d(x4(m), 2),
     ValueError, "either an output_size or an output_ratio", True),
    # torch returns -inf everywhere
    ("fractional_max_pool2d-kernel-0",
     lambda m: F(m).fractional_max_pool2d(x4(m), 0, output_size=4),
     RuntimeError, "kernel_size must be greater than zero, got [0, 0]", False),
    ("fractional_max_pool2d-kernel-negative",
     lambda m: F(m).fractional_max_pool2d(x4(m), -2, output_size=4),
     RuntimeError, "kernel_size must be greater than zero, got [-2, -2]", False),
    ("fractional_max_pool3d-kernel-0",
     lambda m: F(m).fractional_max_pool3d(x5(m), 0, output_size=3),
     RuntimeError, "kernel_size must be greater than zero", False),
    ("fractional_max_pool2d-kernel-too-big",
     lambda m: F(m).fractional_max_pool2d(x4(m), 9, output_size=4),
     RuntimeError, "pool height 9 too large relative to input height 8", True),
    ("fractional_max_pool2d-huge-output",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=10 ** 12),
     RuntimeError, "too large relative to input", True),
    ("fractional_max_pool3d-huge-output",
     lambda m: F(m).fractional_max_pool3d(x5(m), 2, output_size=(10 ** 6,) * 3),
     RuntimeError, "too large relative to input", True),
    ("fractional_max_pool2d-negative-output",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=-3),
     RuntimeError, "negative dimension", True),
    ("fractional_max_pool2d-float-output",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4.5),
     TypeError, "'output_size' must be an int or a tuple of ints, not float", True),
    # torch 2.13's functional fails on any float output_ratio for 2-d ("object of type
    # 'float' has no len()"); pyad takes the float and refuses the nonsensical ones
    ("fractional_max_pool2d-ratio-nan",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_ratio=(math.nan, 0.5)),
     ValueError, "output_ratio must be a finite number between 0 and 1", False),
    ("fractional_max_pool2d-ratio-negative",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_ratio=-0.5),
     ValueError, "output_ratio must be a finite number between 0 and 1, got -0.5", False),
    ("fractional_max_pool3d-ratio-inf",
     lambda m: F(m).fractional_max_pool3d(x5(m), 2, output_ratio=math.inf),
     ValueError, "output_ratio must be a finite number between 0 and 1", False),
    ("fractional_max_pool3d-ratio-2",
     lambda m: F(m).fractional_max_pool3d(x5(m), 2, output_ratio=2.0),
     RuntimeError, "pool time 2 too large relative to input time 6", True),
    ("fractional_max_pool2d-ratio-3-tuple",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_ratio=(0.5, 0.5, 0.5)),
     ValueError, "output_ratio to either be a single Int or tuple of Ints", True),
    ("fractional_max_pool2d-samples-list",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4,
                                          _random_samples=[[[0.5, 0.5]] * 2]),
     TypeError, "'_random_samples' must be a Variable, not list", True),
    ("fractional_max_pool2d-samples-2d",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4,
                                          _random_samples=m.full((2, 2), 0.5)),
     RuntimeError, "_random_samples to have 3 dimensions, got 2", True),
    ("fractional_max_pool2d-samples-size2",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4,
                                          _random_samples=m.full((1, 2, 3), 0.5)),
     RuntimeError, "_random_samples.size(2) equals to 2; got 3", True),
    ("fractional_max_pool2d-samples-channels",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4,
                                          _random_samples=m.full((1, 5, 2), 0.5)),
     RuntimeError, "_random_samples.size(1) equals to input channel size", True),
    ("fractional_max_pool2d-samples-int",
     lambda m: F(m).fractional_max_pool2d(x4(m), 2, output_size=4,
                                          _random_samples=i64(m, 1, 2, 2)),
     RuntimeError, "_random_samples to have the same dtype as input", True),
    ("fractional_max_pool3d-samples-float64",
     lambda m: F(m).fractional_max_pool3d(x5(m), 2, output_size=3,
                                          _random_samples=m.full((1, 2, 3), 0.5,
                                                                 dtype=m.float64)),
     RuntimeError, "_random_samples to have the same dtype as input", True),
    ("fractional_max_pool2d-zero-size",
     lambda m: F(m).fractional_max_pool2d(m.rand(1, 2, 0, 8), 2, output_size=4),
     RuntimeError, "non-zero size for non-batch dimensions", True),
    ("fractional_max_pool2d-5d",
     lambda m: F(m).fractional_max_pool2d(m.rand(1, 1, 1, 8, 8), 2, output_size=4),
     RuntimeError, "Expected 3D or 4D Variable", True),
    # -- adaptive_max_pool3d -------------------------------------------------------------
    ("adaptive_max_pool3d-negative", lambda m: F(m).adaptive_max_pool3d(x5(m), -1),
     RuntimeError, "output_size must be non-negative", True),
    # torch: DefaultCPUAllocator "can't allocate memory"; pyad refuses before allocating
    ("adaptive_max_pool3d-huge", lambda m: F(m).adaptive_max_pool3d(x5(m), 10 ** 5),
     RuntimeError, "can't allocate memory", False),
    ("adaptive_max_pool3d-huge-tuple",
     lambda m: F(m).adaptive_max_pool3d(x5(m), (10 ** 4, 10 ** 4, 10 ** 4)),
     RuntimeError, "can't allocate memory", False),
    # 1000**3 cells of 2x2x2 taps: the cells were built in a Python loop (hours)
    ("adaptive_max_pool3d-large-windows", lambda m: F(m).adaptive_max_pool3d(x5(m), 1000),
     RuntimeError, "can't allocate memory: the windows gathered", False),
    ("adaptive_max_pool3d-float", lambda m: F(m).adaptive_max_pool3d(x5(m), 2.5),
     TypeError, "output_size must be an int or a tuple of ints", True),
    ("adaptive_max_pool3d-none", lambda m: F(m).adaptive_max_pool3d(x5(m), None),
     TypeError, "not NoneType", True),
    ("adaptive_max_pool3d-2-tuple", lambda m: F(m).adaptive_max_pool3d(x5(m), (2, 2)),
     RuntimeError, "output_size.size() must be 3", True),
    ("adaptive_max_pool3d-3d", lambda m: F(m).adaptive_max_pool3d(m.rand(6, 6, 6), 2),
     RuntimeError, "Expected 4D or 5D Variable", True),
    ("adaptive_max_pool3d-empty",
     lambda m: F(m).adaptive_max_pool3d(m.rand(1, 2, 0, 6, 6), 2),
     RuntimeError, "non-zero size for non-batch dimensions", True),
    ("adaptive_max_pool3d-int64",
     lambda m: F(m).adaptive_max_pool3d(i64(m, 1, 2, 4, 4, 4), 2),
     NotImplementedError, "not implemented for 'Long'", True),
    # -- max_unpool3d ----------------------------------------------------------------------
    ("max_unpool3d-index-too-big", lambda m: unpool(m, i64(m, 1, 1, 2, 2, 2, fill=100)),
     RuntimeError, "invalid max index: 100", True),
    ("max_unpool3d-index-negative", lambda m: unpool(m, i64(m, 1, 1, 2, 2, 2, fill=-1)),
     RuntimeError, "invalid max index: -1", True),
    ("max_unpool3d-float-indices", lambda m: unpool(m, m.zeros(1, 1, 2, 2, 2)),
     RuntimeError, "indices should be type int64", True),
    ("max_unpool3d-int32-indices",
     lambda m: unpool(m, m.zeros(1, 1, 2, 2, 2, dtype=m.int32)),
     RuntimeError, "indices should be type int64", True),
    ("max_unpool3d-indices-shape", lambda m: unpool(m, i64(m, 1, 1, 2, 2)),
     RuntimeError, "Expected shape of indices to be same as that of the input", True),
    ("max_unpool3d-huge-output_size",
     lambda m: unpool(m, i64(m, 1, 1, 2, 2, 2), output_size=(10 ** 5,) * 3),
     ValueError, "invalid output_size", True),
    ("max_unpool3d-output_size-length",
     lambda m: unpool(m, i64(m, 1, 1, 2, 2, 2), output_size=(4, 4)),
     ValueError, "output_size should be a sequence containing 3 or 5 elements", True),
    ("max_unpool3d-stride-0", lambda m: unpool(m, i64(m, 1, 1, 2, 2, 2), stride=0),
     RuntimeError, "strides should be greater than zero", True),
    ("max_unpool3d-huge-kernel",
     lambda m: F(m).max_unpool3d(m.rand(1, 1, 2, 2, 2), i64(m, 1, 1, 2, 2, 2), 10 ** 6),
     RuntimeError, "can't allocate memory", True),
    # -- grid_sample bicubic ----------------------------------------------------------------
    ("grid_sample-grid-last-dim-3", lambda m: gs(m, m.zeros(1, 2, 2, 3)),
     RuntimeError, "expected grid to have size 2 in last dimension", True),
    ("grid_sample-grid-3d", lambda m: gs(m, m.zeros(2, 2, 2)),
     RuntimeError, "grid with sizes [2, 2, 2]", True),
    ("grid_sample-grid-batch", lambda m: gs(m, m.zeros(2, 2, 2, 2)),
     RuntimeError, "same batch size", True),
    ("grid_sample-grid-float64", lambda m: gs(m, m.zeros(1, 2, 2, 2, dtype=m.float64)),
     RuntimeError, "expected grid to have the same dtype as input", True),
    ("grid_sample-grid-int64", lambda m: gs(m, i64(m, 1, 2, 2, 2)),
     RuntimeError, "expected grid to have the same dtype as input", True),
    ("grid_sample-bicubic-5d",
     lambda m: F(m).grid_sample(m.rand(1, 1, 2, 2, 2), m.zeros(1, 1, 1, 1, 3),
                                mode="bicubic", align_corners=False),
     RuntimeError, "bicubic interpolation only supports 4D input", True),
    ("grid_sample-empty-input",
     lambda m: F(m).grid_sample(m.rand(1, 1, 0, 4), m.zeros(1, 2, 2, 2), mode="bicubic",
                                align_corners=False),
     RuntimeError, "non-empty spatial dimensions", True),
    ("grid_sample-bad-padding", lambda m: gs(m, m.zeros(1, 2, 2, 2), padding_mode="foo"),
     ValueError, "expected padding_mode to be 'zeros', 'border', or 'reflection'", True),
    # -- interpolate antialias ---------------------------------------------------------------
    ("interpolate-aa-zero-scale",
     lambda m: aa(m, m.rand(1, 1, 4, 4), scale_factor=0.0, mode="bilinear"),
     RuntimeError, "Input and output sizes should be greater than 0", True),
    ("interpolate-aa-negative-scale",
     lambda m: aa(m, m.rand(1, 1, 4, 4), scale_factor=-2.0, mode="bicubic"),
     RuntimeError, "Input and output sizes should be greater than 0", True),
    ("interpolate-aa-nan-scale",
     lambda m: aa(m, m.rand(1, 1, 4, 4), scale_factor=math.nan, mode="bilinear"),
     RuntimeError, "scale_factor must be finite", True),
    ("interpolate-aa-inf-scale",
     lambda m: aa(m, m.rand(1, 1, 4, 4), scale_factor=(math.inf, 1.0), mode="bilinear"),
     RuntimeError, "scale_factor must be finite", True),
    ("interpolate-aa-huge-scale",
     lambda m: aa(m, m.rand(1, 1, 4, 4), scale_factor=1e6, mode="bilinear"),
     RuntimeError, "can't allocate memory", True),
    ("interpolate-aa-huge-size",
     lambda m: aa(m, m.rand(1, 1, 4, 4), size=(10 ** 6, 10 ** 6), mode="bicubic"),
     RuntimeError, "can't allocate memory", True),
    ("interpolate-aa-zero-size-input",
     lambda m: aa(m, m.rand(1, 1, 0, 4), size=(2, 2), mode="bilinear"),
     RuntimeError, "Input and output sizes should be greater than 0", True),
    ("interpolate-aa-zero-channels",
     lambda m: aa(m, m.rand(1, 0, 4, 4), size=(2, 2), mode="bicubic"),
     RuntimeError, "Non-empty 4D data Variable expected", True),
    ("interpolate-aa-int64",
     lambda m: aa(m, i64(m, 1, 1, 4, 4, fill=1), size=(2, 2), mode="bilinear"),
     NotImplementedError, "not implemented", True),
    ("interpolate-aa-nearest",
     lambda m: aa(m, m.rand(1, 1, 4, 4), size=(2, 2), mode="nearest"),
     ValueError, "Anti-alias option is restricted to bilinear", True),
    # -- linalg.ldl_factor / ldl_solve ------------------------------------------------------
    ("ldl_factor-non-square", lambda m: m.linalg.ldl_factor(m.zeros(3, 4, dtype=m.float64)),
     RuntimeError, "A must be batches of square matrices, but they are 3 by 4", True),
    ("ldl_factor-1d", lambda m: m.linalg.ldl_factor(m.zeros(3, dtype=m.float64)),
     RuntimeError, "must have at least 2 dimensions", True),
    ("ldl_factor-int64", lambda m: m.linalg.ldl_factor(m.eye(3, dtype=m.int64)),
     RuntimeError, "Expected a floating point or complex tensor as input. Got Long", True),
    ("ldl_solve-float-pivots",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p.double(), ones31(m)))(*ldl(m)),
     RuntimeError, "Expected pivots to be integers. Got Double", True),
    ("ldl_solve-pivot-too-big",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, m.full_like(p, 9), ones31(m)))(*ldl(m)),
     RuntimeError, "must all satisfy |pivot| <= LD.size(-2)", True),
    ("ldl_solve-pivot-too-negative",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, m.full_like(p, -100), ones31(m)))(
         *ldl(m)),
     RuntimeError, "must all satisfy |pivot| <= LD.size(-2)", True),
    ("ldl_solve-pivot-zero",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, m.zeros_like(p), ones31(m)))(*ldl(m)),
     RuntimeError, "must all satisfy |pivot| >= 1", True),
    # a 2x2 block running off the end: torch hands it to LAPACK, which writes outside its
    # arrays ("free(): invalid next size" in torch 2.13); torch is not run on it
    ("ldl_solve-2x2-block-off-the-end",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, m.tensor([1, 2, -3], dtype=m.int32),
                                                 ones31(m)))(*ldl(m)),
     RuntimeError, "a negative pivot on the last row", False),
    ("ldl_solve-2x2-block-before-the-start",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, m.tensor([-2, 2, 3], dtype=m.int32),
                                                 ones31(m)))(*ldl(m)),
     RuntimeError, "a negative pivot on the first row", False),
    ("ldl_solve-pivots-shape",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p[:2], ones31(m)))(*ldl(m)),
     RuntimeError, "Expected LD.shape[:-1] and pivots.shape to be the same", True),
    ("ldl_solve-batched-pivots-shape",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p[:1], ones31(m, 2)))(*ldl(m, 2)),
     RuntimeError, "Expected LD.shape[:-1] and pivots.shape to be the same", True),
    ("ldl_solve-batch-mismatch",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p, ones31(m, 3)))(*ldl(m, 2)),
     RuntimeError, "cannot be broadcast", True),
    ("ldl_solve-B-rows",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p, m.ones(4, 1, dtype=m.float64)))(
         *ldl(m)),
     RuntimeError, "Incompatible shapes of A and B", True),
    ("ldl_solve-B-dtype",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD, p, m.ones(3, 1)))(*ldl(m)),
     RuntimeError, "Expected b and A to have the same dtype", True),
    ("ldl_solve-LD-not-square",
     lambda m: (lambda LD, p: m.linalg.ldl_solve(LD[:, :2], p, ones31(m)))(*ldl(m)),
     RuntimeError, "must be batches of square matrices", True),
    # -- linalg out= ------------------------------------------------------------------------
    ("ldl_factor-out-int", lambda m: m.linalg.ldl_factor(sym(m), out=5),
     TypeError, "argument 'out' must be", True),
    ("ldl_factor-out-one-Variable",
     lambda m: m.linalg.ldl_factor(sym(m), out=m.empty(3, 3, dtype=m.float64)),
     TypeError, "argument 'out' must be tuple", True),
    ("ldl_factor-out-pivots-dtype",
     lambda m: m.linalg.ldl_factor(sym(m), out=(m.empty(3, 3, dtype=m.float64),
                                                m.empty(3, dtype=m.float64))),
     RuntimeError, "to have dtype int, but got double", True),
    ("inv-out-list", lambda m: m.linalg.inv(sym(m), out=[m.empty(3, 3, dtype=m.float64)]),
     TypeError, "argument 'out' must be", True),
    ("inv-out-ndarray", lambda m: m.linalg.inv(sym(m), out=np.empty((3, 3))),
     TypeError, "argument 'out' must be", True),
    ("inv-out-str", lambda m: m.linalg.inv(sym(m), out="x"),
     TypeError, "argument 'out' must be", True),
    ("det-out-dtype", lambda m: m.linalg.det(sym(m), out=m.empty((), dtype=m.float32)),
     RuntimeError, "to have dtype double, but got float", True),
    ("cross-out-aliases-input",
     lambda m: (lambda a: m.linalg.cross(a, m.tensor([1.0, 0.0, 0.0]), out=a))(
         m.tensor([1.0, 2.0, 3.0])),
     RuntimeError, "refer to a single memory location", True),
    ("cross-out-overlaps-other",
     lambda m: (lambda a: m.linalg.cross(m.tensor([[1.0, 0.0, 0.0]] * 2), a[:2],
                                         out=a[1:]))(m.ones(3, 3)),
     RuntimeError, "refer to a single memory location", True),
    # -- index_put_ with uint8 masks, short index lists of ranges -------------------------
    ("index_put_-uint8-mask-too-long",
     lambda m: m.zeros(2, 3).index_put_((m.tensor([1, 0, 1], dtype=m.uint8),),
                                        m.tensor(1.0)),
     IndexError, "", True),
    ("index_put_-uint8-mask-2d-wrong",
     lambda m: m.zeros(2, 3).index_put_((m.ones(3, 2, dtype=m.uint8),), m.tensor(1.0)),
     IndexError, "", True),
    ("index_put_-uint8-mask-values-shape",
     lambda m: m.zeros(2, 3).index_put_((m.ones(2, 3, dtype=m.uint8),), m.ones(4)),
     RuntimeError, "cannot be broadcast", True),
    ("index_put_-uint8-mask-and-bad-index",
     lambda m: m.zeros(2, 3).index_put_((m.tensor([1, 0], dtype=m.uint8), m.tensor([0, 5])),
                                        m.tensor(1.0)),
     IndexError, "index 5 is out of bounds", True),
    ("getitem-list-of-ranges-mismatch",
     lambda m: m.arange(20.0).reshape(4, 5)[[range(2), range(3)]],
     IndexError, "shape mismatch", True),
    ("getitem-list-range-out-of-bounds",
     lambda m: m.arange(20.0).reshape(4, 5)[[range(5)]],
     IndexError, "index 4 is out of bounds", True),
    ("getitem-list-range-negative-out-of-bounds",
     lambda m: m.arange(20.0).reshape(4, 5)[[range(-5, 0)]],
     IndexError, "index -5 is out of bounds", True),
    ("getitem-list-ranges-too-many",
     lambda m: m.arange(20.0).reshape(4, 5)[[range(2), range(2), range(2)]],
     IndexError, "too many indices", True),
    ("getitem-list-range-and-float",
     lambda m: m.arange(20.0).reshape(4, 5)[[range(2), 1.5]],
     IndexError, "", True),
    ("getitem-tuple-in-tuple-out-of-bounds",
     lambda m: m.arange(20.0).reshape(4, 5)[(0, 9), (1, 2)],
     IndexError, "index 9 is out of bounds", True),
]

# the op each row's message must start with
OPS = {
    "set_": "set_",
    "make_functional": "make_functional",
    "make_functional_with_buffers": "make_functional_with_buffers",
    "FunctionalModule": "FunctionalModule",
    "FunctionalModuleWithBuffers": "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble": "combine_state_for_ensemble",
    "fractional_max_pool2d": "fractional_max_pool2d",
    "fractional_max_pool3d": "fractional_max_pool3d",
    "adaptive_max_pool3d": "adaptive_max_pool3d", "max_unpool3d": "max_unpool3d",
    "grid_sample": "grid_sample", "interpolate": "interpolate",
    "ldl_factor": "linalg.ldl_factor", "ldl_solve": "linalg.ldl_solve",
    "inv": "linalg.inv", "det": "linalg.det", "cross": "linalg.cross",
    "index_put_": "index_put_", "getitem": "__getitem__",
}

def _op(case_id):
    head = case_id.split("-")[0]
    return OPS[head]


@pytest.mark.parametrize("case_id, call, exc, fragment, torch_raises", CASES,
                         ids=[c[0] for c in CASES])
def test_bad_input_new_apis(case_id, call, exc, fragment, torch_raises):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if torch_raises:
            with pytest.raises(exc):
                call(torch)
        with pytest.raises(exc) as info:
            call(pyad)
    message = str(info.value)
    assert message.startswith(_op(case_id) + "(): "), message
    assert fragment in message, message


def test_set_window_never_reads_outside_the_source():
    # torch reads past its storage for these (it checks against the storage's capacity);
    # pyad refuses any window reaching past the memory the source shares
    src = pyad.zeros(6)
    for offset, size, stride in [(0, (3,), (3,)), (0, (2, 3), (4, 1)), (4, (3,), (1,)),
                                 (10 ** 6, (2,), (1,)), (0, (10 ** 12,), (1,))]:
        with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
            pyad.zeros(3).set_(src, offset, size, stride)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 0"):
        pyad.zeros(3).set_(pyad.zeros(0), 0, (2,), (1,))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        pyad.zeros(3).set_(src, -1, (2,), (1,))
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        pyad.zeros(3).set_(src, 0, (2, 2), (1,))
    # the offset counts from a view source's first element (torch's): a window over the
    # rest of its base stays inside the memory the view shares; one element more does not
    x = pyad.zeros(3).set_(pyad.arange(6.0)[2:4], 0, (4,), (1,))
    assert x.tolist() == [2.0, 3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        pyad.zeros(3).set_(pyad.arange(6.0)[2:4], 0, (5,), (1,))


def test_set_window_offset_of_a_view_source_as_torch():
    for offset in (0, 1):
        got = pyad.zeros(3).set_(pyad.arange(6.0)[2:4], offset, (3,), (1,))
        want = torch.zeros(3).set_(torch.arange(6.0)[2:4], offset, (3,), (1,))
        assert got.tolist() == want.tolist()


def _set_(args):
    return lambda m: m.zeros(3).set_(m.zeros(6), *args)


# engine cases: each row's last entry says what the engine did before it was fixed
ENGINE_CASES = [
    # torch: TypeError (its argument parser); pyad truncates the float silently
    ("set_-float-size", _set_((0, (2.5,), (1,))), TypeError, "set_(): ", True,
     XF_SET + "takes a float size (truncated)"),
    ("set_-float-offset", _set_((0.5, (2,), (1,))), TypeError, "set_(): ", True,
     XF_SET + "takes a float storage_offset (truncated)"),
    ("set_-bool-offset", _set_((True, (2,), (1,))), TypeError, "set_(): ", True,
     XF_SET + "takes a bool storage_offset"),
    ("set_-float-stride", _set_((0, (2,), (1.5,))), TypeError, "set_(): ", True,
     XF_SET + "takes a float stride (truncated)"),
    ("set_-str-size", _set_((0, "ab", (1,))), TypeError, "set_(): ", True,
     XF_SET + "raises int()'s ValueError for a str size, without the op's name"),
    ("set_-int-size", _set_((0, 3, (1,))), TypeError, "set_(): ", True,
     XF_SET + "raises tuple()'s TypeError for an int size, without the op's name"),
    ("set_-negative-offset", _set_((-1, (2,), (1,))), RuntimeError, "set_(): ", True,
     XF_SET + "window errors are as_strided()'s, named as_strided()"),
    # torch: "an integer is required"; pyad truncates a float
    ("seqnr-float", lambda m: seq_nr(m, 1.5), TypeError, "Node._set_sequence_nr(): ",
     True, XF_SEQ + "takes a float (truncated by the long long conversion)"),
    ("seqnr-integral-float", lambda m: seq_nr(m, 2.0), TypeError,
     "Node._set_sequence_nr(): ", True, XF_SEQ + "takes 2.0"),
    ("seqnr-nan", lambda m: seq_nr(m, math.nan), TypeError, "Node._set_sequence_nr(): ",
     True, XF_SEQ + "raises ValueError for NaN"),
    ("seqnr-str", lambda m: seq_nr(m, "3"), TypeError, "Node._set_sequence_nr(): ", True,
     XF_SEQ + "TypeError 'an integer is required' without the op's name"),
    ("seqnr-huge", lambda m: seq_nr(m, 2 ** 70), OverflowError,
     "Node._set_sequence_nr(): ", True,
     XF_SEQ + "OverflowError of the long long conversion, without the op's name"),
    ("seqnr-negative", lambda m: seq_nr(m, -1), OverflowError, "Node._set_sequence_nr(): ",
     True, XF_SEQ + "ValueError for -1 (torch: OverflowError, an unsigned sequence number)"),
    ("index_put_-uint8-empty-mask",
     lambda m: m.zeros(2, 3).index_put_((m.zeros(0, dtype=m.uint8),), m.tensor(1.0)),
     IndexError, "index_put_(): ", True,
     "was: index_put_ (pyad/ops/shape.pxi) takes an empty mask (uint8, and bool "
     "too) on a dim of size 2 and writes nothing; torch raises IndexError"),
]


@pytest.mark.parametrize(
    "case_id, call, exc, prefix, torch_raises",
    [pytest.param(*row[:5], id=row[0]) for row in ENGINE_CASES])
def test_bad_input_new_apis_engine(case_id, call, exc, prefix, torch_raises):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if torch_raises:
            with pytest.raises(exc):
                call(torch)
        with pytest.raises(exc) as info:
            call(pyad)
    assert str(info.value).startswith(prefix), str(info.value)


def test_interpolate_antialias_uint8_matches_torch():
    # before: the weights were cast to uint8 (zeros), so every output was 0
    rng = np.random.default_rng(0)
    for shape, size, mode, align in [((1, 3, 17, 13), (5, 7), "bilinear", False),
                                     ((2, 1, 9, 9), (4, 3), "bicubic", False),
                                     ((1, 1, 6, 6), (12, 12), "bicubic", False),
                                     ((1, 2, 8, 8), (16, 5), "bilinear", True),
                                     ((1, 4, 5, 11), (20, 5), "bicubic", True),
                                     ((1, 1, 4, 4), (4, 2), "bilinear", False)]:
        a = rng.integers(0, 256, shape).astype(np.uint8)
        got = aa(pyad, pyad.tensor(a), size=size, mode=mode, align_corners=align)
        want = aa(torch, torch.tensor(a), size=size, mode=mode, align_corners=align)
        assert got.dtype == pyad.uint8
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    ones = np.ones((1, 1, 4, 4), np.uint8)
    np.testing.assert_array_equal(
        aa(pyad, pyad.tensor(ones), size=(2, 2), mode="bilinear").numpy(),
        aa(torch, torch.tensor(ones), size=(2, 2), mode="bilinear").numpy())


def test_adaptive_max_pool3d_many_cells_as_torch():
    # the windows are built at once (they were built cell by cell in Python): an output
    # larger than the input, windows of unequal sizes, values and indices as torch's
    rng = np.random.default_rng(2)
    for shape, size in [((2, 3, 5, 7, 4), (3, 4, 5)), ((1, 1, 5, 5, 5), (7, 6, 5)),
                        ((1, 2, 9, 3, 7), (4, None, 3)), ((1, 1, 6, 6, 6), 40)]:
        a = rng.standard_normal(shape).astype(np.float32)
        got, got_i = F(pyad).adaptive_max_pool3d(pyad.tensor(a), size, return_indices=True)
        want, want_i = F(torch).adaptive_max_pool3d(torch.tensor(a), size,
                                                    return_indices=True)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(got_i.numpy(), want_i.numpy())


def test_ldl_empty_and_integer_pivots_as_torch():
    # an empty matrix factors (before: numpy's reshape error); pivots of any integer
    # dtype solve, as torch's (before: only int32)
    LD, piv = pyad.linalg.ldl_factor(pyad.zeros(0, 0, dtype=pyad.float64))
    tLD, tpiv = torch.linalg.ldl_factor(torch.zeros(0, 0, dtype=torch.float64))
    assert tuple(LD.shape) == tuple(tLD.shape) and tuple(piv.shape) == tuple(tpiv.shape)
    LD, piv = ldl(pyad)
    tLD, tpiv = ldl(torch)
    got = pyad.linalg.ldl_solve(LD, piv.long(), ones31(pyad))
    want = torch.linalg.ldl_solve(tLD, tpiv.long(), ones31(torch))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=0)
