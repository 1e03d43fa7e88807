"""The in-place forms of ops with operands (``addcmul_``, ``eq_``, ``greater_``, ...,
pyad/ops/inplace.pxi, INPLACE_FORMS) and the in-place view ops (``t_``, ``squeeze_``,
...), against torch on the same inputs: values, the version bump, gradients (through a
non-leaf, w.r.t. the Variable and its operands), gradcheck/gradgradcheck in float64,
and torch's errors (a leaf that requires grad, a result that cannot be cast, a shape
that would grow)."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
A = RNG.uniform(0.5, 2.0, (3, 4))          # positive: logit, cumprod, pow stay defined
P = RNG.uniform(0.1, 0.9, (3, 4))          # inside (0, 1)
B = RNG.uniform(0.5, 2.0, (3, 4))
ROW = RNG.uniform(0.5, 2.0, (4,))
SQ = RNG.uniform(0.5, 2.0, (3, 3))
M34 = RNG.uniform(0.5, 2.0, (3, 4))
M44 = RNG.uniform(0.5, 2.0, (4, 4))
V4 = RNG.uniform(0.5, 2.0, (4,))
BATCH1 = RNG.uniform(0.5, 2.0, (2, 3, 4))
BATCH2 = RNG.uniform(0.5, 2.0, (2, 4, 4))


def _t(L, a, requires_grad=False):
    if L is torch:
        return torch.tensor(a, dtype=torch.float64 if np.asarray(a).dtype.kind == "f"
                            else None, requires_grad=requires_grad)
    return pyad.tensor(a, requires_grad=requires_grad)


# name -> (input array, operands: arrays are Variables (differentiable where float),
# other values pass as they are, kwargs)
FORMS = {
    "addcmul_": (A, [B, ROW], {"value": 0.5}),
    "addcdiv_": (A, [B, ROW], {"value": 2.0}),
    "addmm_": (A, [M34, M44], {"beta": 0.5, "alpha": 2.0}),
    "addmv_": (V4 * 0 + A[0], [M44, V4], {"beta": 2.0}),
    "addbmm_": (A, [BATCH1, BATCH2], {"alpha": 0.5}),
    "baddbmm_": (BATCH1, [BATCH1, BATCH2], {"beta": 0.5}),
    "clamp_min_": (A, [1.0], {}),
    "clamp_max_": (A, [1.0], {}),
    "clip_": (A, [0.8, 1.5], {}),
    "cumsum_": (A, [1], {}),
    "cumprod_": (A, [0], {}),
    "lerp_": (A, [B, 0.3], {}),
    "hypot_": (A, [B], {}),
    "atan2_": (A, [ROW], {}),
    "fmod_": (A, [0.7], {}),
    "remainder_": (A, [0.7], {}),
    "true_divide_": (A, [B], {}),
    "float_power_": (A, [2.5], {}),
    "logit_": (P, [], {}),
    "nan_to_num_": (A, [], {}),
    "sgn_": (A - 1.0, [], {}),
    "tril_": (A, [1], {}),
    "triu_": (A, [-1], {}),
    "masked_scatter_": (A, [A > 1.0, B], {}),
    "absolute_": (A - 1.0, [], {}),
    "negative_": (A, [], {}),
    "multiply_": (A, [ROW], {}),
    "subtract_": (A, [B], {"alpha": 2.0}),
    "divide_": (A, [B], {}),
    "deg2rad_": (A, [], {}),
    "rad2deg_": (A, [], {}),
}
# torch has no gradient for these (comparisons, logical ops) or a zero one
ZERO_GRAD = {"eq_": 1.0, "ne_": 1.0, "lt_": 1.0, "le_": 1.0, "gt_": 1.0, "ge_": 1.0,
             "greater_": 1.0, "greater_equal_": 1.0, "less_": 1.0, "less_equal_": 1.0,
             "not_equal_": 1.0}
for _name, _value in ZERO_GRAD.items():
    FORMS[_name] = (A, [_value], {})
FORMS["logical_and_"] = (A - 1.0, [B - 1.0], {})
FORMS["logical_or_"] = (A * 0, [B - 1.0], {})
FORMS["logical_xor_"] = (A - 1.0, [B - 1.0], {})
FORMS["logical_not_"] = (A - 1.0, [], {})
FORMS["floor_divide_"] = (A, [0.7], {})
NO_DERIVATIVE = {"floor_divide_"}
LOGICAL = {"logical_and_", "logical_or_", "logical_xor_", "logical_not_"}      # torch: "derivative for floor_divide is not implemented"


def _operands(L, name, requires_grad):
    x, ops, kwargs = FORMS[name]
    args = []
    for o in ops:
        if isinstance(o, np.ndarray):
            args.append(_t(L, o, requires_grad and o.dtype.kind == "f"))
        else:
            args.append(o)
    return _t(L, x), args, kwargs


def _run(L, name, requires_grad):
    x0, args, kwargs = _operands(L, name, requires_grad)
    leaf = _t(L, FORMS[name][0], requires_grad)
    h = leaf * 1 if requires_grad else x0
    before = h._version
    out = getattr(h, name)(*args, **kwargs)
    assert out is h
    assert h._version == before + 1
    return leaf, args, h


@pytest.mark.parametrize("name", sorted(FORMS))
def test_values_and_the_version_bump_match_torch(name):
    with np.errstate(all="ignore"):
        _, _, got = _run(pyad, name, False)
    _, _, expected = _run(torch, name, False)
    assert str(got.dtype) == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(got.data, expected.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(set(FORMS) - NO_DERIVATIVE))
def test_gradients_through_a_non_leaf_match_torch(name):
    weights = RNG.uniform(-1.0, 1.0, np.shape(FORMS[name][0]))
    grads = []
    for L in (pyad, torch):
        leaf, args, h = _run(L, name, True)
        (h * _t(L, weights)).sum().backward()
        diff = [leaf] + [a for a in args if getattr(a, "requires_grad", False)]
        grads.append([None if v.grad is None else np.asarray(
            v.grad.detach().numpy(force=True) if L is torch else v.grad.data) for v in diff])
    if name in LOGICAL:
        # torch leaves the history of a float Variable changed in place by a logical op
        # as it was (the gradient passes through as if nothing happened); pyad records
        # the zero gradient of the op (docs/graph-semantics.md, differences from torch)
        assert not np.any(grads[0][0])
        return
    for g, e in zip(*grads):
        if e is None:
            assert g is None or not np.any(g)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(set(FORMS) - NO_DERIVATIVE - set(ZERO_GRAD)
                                        - {"logical_and_", "logical_or_", "logical_xor_",
                                           "logical_not_", "sgn_"}))
def test_gradcheck_and_gradgradcheck(name):
    x0, args, kwargs = _operands(pyad, name, True)
    x0.requires_grad_()
    diff = [i for i, a in enumerate(args) if isinstance(a, pyad.Variable) and a.requires_grad]

    def fn(x, *ds):
        full = list(args)
        for i, d in zip(diff, ds):
            full[i] = d
        return getattr(x * 1, name)(*full, **kwargs)

    inputs = (x0,) + tuple(args[i] for i in diff)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", ["clamp_min_", "hypot_", "cumsum_", "tril_", "lerp_", "eq_",
                                  "nan_to_num_", "multiply_"])
def test_a_leaf_that_requires_grad_is_refused_as_in_torch(name):
    for L in (pyad, torch):
        leaf, args, kwargs = _operands(L, name, False)
        leaf.requires_grad_()
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(leaf, name)(*args, **kwargs)
        with L.no_grad():
            getattr(leaf, name)(*args, **kwargs)


def test_results_that_cannot_be_cast_to_the_dtype_raise_as_in_torch():
    for L in (pyad, torch):
        x = L.tensor([1, 2, 3])
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            x.true_divide_(2)
        with pytest.raises(RuntimeError, match="can't be cast"):
            x.logit_()
        x.eq_(2)                        # bool results cast to any dtype
        assert x.tolist() == [0, 1, 0]
        f = L.ones(3, dtype=L.float32)
        with pytest.raises(RuntimeError, match="float_power_ has dtype Float but the "
                                               "operation's result requires dtype Double"):
            f.float_power_(2)


def test_a_result_of_a_larger_shape_raises_as_in_torch():
    for L in (pyad, torch):
        x = L.ones(3, dtype=L.float64)
        with pytest.raises(RuntimeError):
            x.hypot_(L.ones(2, 3, dtype=L.float64))
        with pytest.raises(RuntimeError):
            x.addcmul_(L.ones(2, 3, dtype=L.float64), L.ones(3, dtype=L.float64))


@pytest.mark.parametrize("name", ["hypot_", "lerp_", "eq_", "clip_", "multiply_",
                                  "nan_to_num_", "cumsum_"])
@pytest.mark.parametrize("case", ["0-d", "empty", "non-contiguous", "nan-inf"])
def test_edge_inputs_match_torch(name, case):
    results = []
    for L in (pyad, torch):
        if case == "0-d":
            x = _t(L, np.array(1.5))
        elif case == "empty":
            x = _t(L, np.zeros((0, 3)))
        elif case == "non-contiguous":
            x = _t(L, A.copy()).t()
        else:
            x = _t(L, np.array([np.nan, np.inf, -np.inf, 1.0]))
        other = {"hypot_": [x * 0 + 2], "lerp_": [x * 0 + 2, 0.25], "eq_": [1.5],
                 "clip_": [0.0, 1.0], "multiply_": [x * 0 + 3], "nan_to_num_": [],
                 "cumsum_": [0 if x.dim() else 0]}[name]
        with np.errstate(all="ignore"):
            getattr(x, name)(*other)
        results.append(x.detach().numpy() if L is torch else x.data)
    np.testing.assert_allclose(results[0], results[1])


def test_comparisons_in_place_record_a_zero_gradient_as_torch():
    for L in (pyad, torch):
        a = _t(L, np.array([1.0, np.inf, 3.0]), True)
        h = a * 1
        h.gt_(2.0)
        assert h.grad_fn is not None
        (h * 2).sum().backward()
        np.testing.assert_array_equal(a.grad.numpy() if L is torch else a.grad.data, 0)


def test_divide_rounding_modes_match_torch():
    cases = [(np.array([7.0, -7.0, 7.5, -0.5]), 2.0), (np.array([7, -7, 6, -1, 0]), 2),
             (np.array([7, -7, 5]), np.array([-2, 2, 5]))]
    for a, b in cases:
        for mode in (None, "trunc", "floor"):
            got = pyad.tensor(a).divide(pyad.tensor(b) if isinstance(b, np.ndarray) else b,
                                        rounding_mode=mode)
            expected = torch.tensor(a).divide(torch.tensor(b) if isinstance(b, np.ndarray)
                                              else b, rounding_mode=mode)
            assert str(got.dtype) == str(expected.dtype).replace("torch.", "")
            np.testing.assert_array_equal(got.data, expected.numpy())
            x, t = pyad.tensor(a), torch.tensor(a)
            if mode is not None or a.dtype.kind == "f":
                x.div_(b if not isinstance(b, np.ndarray) else pyad.tensor(b), rounding_mode=mode)
                t.div_(b if not isinstance(b, np.ndarray) else torch.tensor(b),
                       rounding_mode=mode)
                np.testing.assert_array_equal(x.data, t.numpy())
    for L in (pyad, torch):
        with pytest.raises(RuntimeError, match="rounding_mode"):
            L.div(L.ones(2), 2, rounding_mode="round")
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            L.div(L.tensor([1, 2]), 0, rounding_mode="trunc")
        x = L.tensor([3.0, -4.0], requires_grad=True)
        L.div(x, 2, rounding_mode="floor").sum().backward()
        assert x.grad.tolist() == [0.0, 0.0]


# -- the in-place view ops ------------------------------------------------------------

VIEW_OPS = [("t_", (), (3, 4)), ("transpose_", (0, 2), (2, 3, 4)), ("swapdims_", (1, -1), (2, 3, 4)),
            ("swapaxes_", (0, 1), (3, 4)), ("squeeze_", (), (1, 3, 1)), ("squeeze_", (0,), (1, 3, 1)),
            ("unsqueeze_", (1,), (3, 4)), ("unsqueeze_", (-1,), ()), ("t_", (), (4,))]


@pytest.mark.parametrize("name, args, shape", VIEW_OPS)
def test_inplace_view_ops_change_the_shape_and_history_as_torch(name, args, shape):
    data = RNG.uniform(-1, 1, shape)
    outs = []
    for L in (pyad, torch):
        leaf = _t(L, data, True)
        h = leaf * 2
        got = getattr(h, name)(*args)
        assert got is h and h._version == 1
        w = _t(L, RNG.uniform(-1, 1, tuple(h.shape))) if L is pyad else torch.tensor(w_np)
        w_np = np.asarray(w.data) if L is pyad else None
        (h * w).sum().backward()
        outs.append((tuple(h.shape), np.asarray(h.detach().numpy() if L is torch else h.data),
                     np.asarray(leaf.grad.numpy() if L is torch else leaf.grad.data)))
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(_t(L, data, True), name)(*args)
    assert outs[0][0] == outs[1][0]
    np.testing.assert_allclose(outs[0][1], outs[1][1])
    np.testing.assert_allclose(outs[0][2], outs[1][2])


def test_inplace_view_op_on_a_view_keeps_it_a_view_of_the_base():
    for L in (pyad, torch):
        a = _t(L, np.arange(6.0).reshape(2, 3), True)
        h = a * 1
        v = h[0]
        v.unsqueeze_(0)
        assert tuple(v.shape) == (1, 3) and v._base is h
        v.mul_(2)                                      # writes through to h
        np.testing.assert_array_equal(np.asarray(h.detach().numpy() if L is torch else h.data),
                                      [[0, 2, 4], [3, 4, 5]])
        h.sum().backward()
        np.testing.assert_array_equal(np.asarray(a.grad.numpy() if L is torch else a.grad.data),
                                      [[2, 2, 2], [1, 1, 1]])


def test_inplace_view_op_of_a_saved_value_is_caught_as_torch():
    for L in (pyad, torch):
        a = _t(L, np.ones(3), True)
        h = a * 1
        out = (h * h).sum()
        h.unsqueeze_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


def test_inplace_view_ops_bad_dims_raise_naming_the_op():
    x = pyad.ones(2, 3)
    with pytest.raises(IndexError, match=r"^transpose_\(\)"):
        x.transpose_(0, 5)
    with pytest.raises(RuntimeError, match=r"^t_\(\)"):
        pyad.ones(2, 3, 4).t_()
    assert x.shape == (2, 3) and x._version == 0
