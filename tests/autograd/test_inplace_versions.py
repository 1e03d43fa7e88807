"""Version counters and in-place ops: every in-place op bumps the version counter it
shares with its views exactly once, so a value saved for backward and changed since
makes backward raise (as in torch) instead of giving a wrong gradient. The ops are
generated from ``pyad._engine._INPLACE_METHODS``, which must list every in-place
method. Also: assigning ``.data`` and ``detach_`` keep the version rules.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad._engine import _INPLACE_METHODS
from _torch_compare import torch, both, raises_in_both, torch_or_skip, is_torch


# -- every in-place op bumps the version counter once ----------------------------------

def _full(v, value):
    """A constant of v's shape and dtype, of v's library."""
    if is_torch(v):
        import torch
        return torch.full(tuple(v.shape), value, dtype=v.dtype)
    return Variable(np.full(v.shape, value, dtype=v.dtype))


def _index(v, values):
    """An int64 index of v's library."""
    if is_torch(v):
        import torch
        return torch.tensor(values, dtype=torch.int64)
    return np.array(values, dtype=np.int64)


def _mask(v):
    """A bool mask of v's shape, true at the first entry, of v's library."""
    m = np.zeros(v.shape, dtype=bool)
    m.flat[0] = True
    if is_torch(v):
        import torch
        return torch.from_numpy(m)
    return m


# How to call each in-place op on v (a pyad Variable or a torch tensor of positive
# values). Keys must be exactly _INPLACE_METHODS: a new op needs a recipe here.
def _outside_the_domain(inplace_op):
    with np.errstate(invalid="ignore"):
        return inplace_op()


RECIPES = {
    "add_": lambda v: v.add_(0.5),
    "sub_": lambda v: v.sub_(0.5),
    "mul_": lambda v: v.mul_(1.5),
    "div_": lambda v: v.div_(2.0),
    "pow_": lambda v: v.pow_(2),
    "exp_": lambda v: v.exp_(),
    "log_": lambda v: v.log_(),
    "sqrt_": lambda v: v.sqrt_(),
    "tanh_": lambda v: v.tanh_(),
    "sigmoid_": lambda v: v.sigmoid_(),
    "relu_": lambda v: v.relu_(),
    "neg_": lambda v: v.neg_(),
    "abs_": lambda v: v.abs_(),
    "reciprocal_": lambda v: v.reciprocal_(),
    "sign_": lambda v: v.sign_(),
    "square_": lambda v: v.square_(),
    "rsqrt_": lambda v: v.rsqrt_(),
    "expm1_": lambda v: v.expm1_(),
    "log1p_": lambda v: v.log1p_(),
    "log2_": lambda v: v.log2_(),
    "log10_": lambda v: v.log10_(),
    "sin_": lambda v: v.sin_(),
    "cos_": lambda v: v.cos_(),
    "tan_": lambda v: v.tan_(),
    "asin_": lambda v: _outside_the_domain(v.asin_),      # VALUES are > 1: nan
    "acos_": lambda v: _outside_the_domain(v.acos_),
    "atan_": lambda v: v.atan_(),
    "sinh_": lambda v: v.sinh_(),
    "cosh_": lambda v: v.cosh_(),
    "erf_": lambda v: v.erf_(),
    "floor_": lambda v: v.floor_(),
    "ceil_": lambda v: v.ceil_(),
    "round_": lambda v: v.round_(),
    "trunc_": lambda v: v.trunc_(),
    "frac_": lambda v: v.frac_(),
    "clamp_": lambda v: v.clamp_(1.5, 2.5),
    "zero_": lambda v: v.zero_(),
    "fill_": lambda v: v.fill_(0.25),
    "copy_": lambda v: v.copy_(_full(v, 0.75)),
    "uniform_": lambda v: v.uniform_(0.5, 1.0),
    "normal_": lambda v: v.normal_(0.0, 1.0),
    "random_": lambda v: v.random_(0, 5),
    "fill_diagonal_": lambda v: v.unsqueeze(0).fill_diagonal_(0.5),
    "index_put_": lambda v: v.index_put_(
        (_index(v, [1]) if is_torch(v) else Variable(_index(v, [1])),), _full(v, 0.5)[:1]),
    "exponential_": lambda v: v.exponential_(2.0),
    "cauchy_": lambda v: v.cauchy_(0.0, 1.0),
    "log_normal_": lambda v: v.log_normal_(0.0, 0.5),
    "geometric_": lambda v: v.geometric_(0.5),
    "bernoulli_": lambda v: v.bernoulli_(0.5),
    "__setitem__": lambda v: v.__setitem__(slice(0, 1), 0.5),
    "masked_fill_": lambda v: v.masked_fill_(_mask(v), 0.5),
    "index_fill_": lambda v: v.index_fill_(0, _index(v, [1]), 0.5),
    "index_add_": lambda v: v.index_add_(0, _index(v, [0, 0]), _full(v, 0.5)[:2]),
    "index_copy_": lambda v: v.index_copy_(0, _index(v, [1]), _full(v, 0.5)[:1]),
    "scatter_": lambda v: v.scatter_(0, _index(v, [1]), 0.5),
    "scatter_add_": lambda v: v.scatter_add_(0, _index(v, [1, 1]), _full(v, 0.5)[:2]),
    "put_": lambda v: v.put_(_index(v, [1]), _full(v, 0.5)[:1]),
    # pyad/ops/special.pxi
    "asinh_": lambda v: v.asinh_(),
    "acosh_": lambda v: v.acosh_(),
    "atanh_": lambda v: _outside_the_domain(v.atanh_),
    "arcsinh_": lambda v: v.arcsinh_(),
    "arccosh_": lambda v: v.arccosh_(),
    "arctanh_": lambda v: _outside_the_domain(v.arctanh_),
    "arcsin_": lambda v: _outside_the_domain(v.arcsin_),
    "arccos_": lambda v: _outside_the_domain(v.arccos_),
    "arctan_": lambda v: v.arctan_(),
    "arctan2_": lambda v: v.arctan2_(_full(v, 0.5)),
    "fix_": lambda v: v.fix_(),
    "exp2_": lambda v: v.exp2_(),
    "erfc_": lambda v: v.erfc_(),
    "erfinv_": lambda v: _outside_the_domain(v.erfinv_),
    "lgamma_": lambda v: v.lgamma_(),
    "digamma_": lambda v: v.digamma_(),
    "i0_": lambda v: v.i0_(),
    "xlogy_": lambda v: v.xlogy_(_full(v, 0.5)),
    "sinc_": lambda v: v.sinc_(),
    "copysign_": lambda v: v.copysign_(_full(v, -1.0)),
    "ldexp_": lambda v: v.ldexp_(_full(v, 2.0)),
    "nextafter_": lambda v: v.nextafter_(_full(v, 0.0)),
    # the in-place forms of ops with operands (pyad/ops/inplace.pxi, INPLACE_FORMS)
    "addcmul_": lambda v: v.addcmul_(_full(v, 1.5), _full(v, 0.5), value=2),
    "addcdiv_": lambda v: v.addcdiv_(_full(v, 0.5), _full(v, 2.0)),
    "addmm_": lambda v: v[None].addmm_(_full(v, 1.0)[:1, None], _full(v, 1.0)[None, :]),
    "addmv_": lambda v: v.addmv_(_full(v, 1.0)[:, None], _full(v, 1.0)[:1]),
    "addbmm_": lambda v: v[None].addbmm_(_full(v, 1.0)[None, :1, None],
                                         _full(v, 1.0)[None, None, :]),
    "baddbmm_": lambda v: v[None, None].baddbmm_(_full(v, 1.0)[None, :1, None],
                                                 _full(v, 1.0)[None, None, :]),
    "clamp_min_": lambda v: v.clamp_min_(1.5),
    "clamp_max_": lambda v: v.clamp_max_(2.5),
    "clip_": lambda v: v.clip_(1.5, 2.5),
    "cumsum_": lambda v: v.cumsum_(0),
    "cumprod_": lambda v: v.cumprod_(0),
    "lerp_": lambda v: v.lerp_(_full(v, 0.5), 0.25),
    "hypot_": lambda v: v.hypot_(_full(v, 0.5)),
    "atan2_": lambda v: v.atan2_(_full(v, 0.5)),
    "fmod_": lambda v: v.fmod_(1.5),
    "remainder_": lambda v: v.remainder_(1.5),
    "floor_divide_": lambda v: v.floor_divide_(1.5),
    "float_power_": lambda v: v.float_power_(2),
    "true_divide_": lambda v: v.true_divide_(2.0),
    "logit_": lambda v: _outside_the_domain(v.logit_),
    "nan_to_num_": lambda v: v.nan_to_num_(),
    "sgn_": lambda v: v.sgn_(),
    "tril_": lambda v: v.tril_() if v.ndim >= 2 else v.unsqueeze(0).tril_(),
    "triu_": lambda v: v.triu_() if v.ndim >= 2 else v.unsqueeze(0).triu_(),
    "masked_scatter_": lambda v: v.masked_scatter_(_mask(v), _full(v, 0.5)),
    "eq_": lambda v: v.eq_(2.0),
    "ne_": lambda v: v.ne_(2.0),
    "lt_": lambda v: v.lt_(2.0),
    "le_": lambda v: v.le_(2.0),
    "gt_": lambda v: v.gt_(2.0),
    "ge_": lambda v: v.ge_(2.0),
    "greater_": lambda v: v.greater_(2.0),
    "greater_equal_": lambda v: v.greater_equal_(2.0),
    "less_": lambda v: v.less_(2.0),
    "less_equal_": lambda v: v.less_equal_(2.0),
    "not_equal_": lambda v: v.not_equal_(2.0),
    "logical_and_": lambda v: v.logical_and_(_full(v, 0.0)),
    "logical_or_": lambda v: v.logical_or_(_full(v, 0.0)),
    "logical_xor_": lambda v: v.logical_xor_(_full(v, 1.0)),
    "logical_not_": lambda v: v.logical_not_(),
    "bitwise_and_": lambda v: v.bitwise_and_(6),
    "bitwise_or_": lambda v: v.bitwise_or_(6),
    "bitwise_xor_": lambda v: v.bitwise_xor_(6),
    "bitwise_not_": lambda v: v.bitwise_not_(),
    "bitwise_left_shift_": lambda v: v.bitwise_left_shift_(2),
    "bitwise_right_shift_": lambda v: v.bitwise_right_shift_(1),
    "absolute_": lambda v: v.absolute_(),
    "negative_": lambda v: v.negative_(),
    "multiply_": lambda v: v.multiply_(1.5),
    "divide_": lambda v: v.divide_(2.0),
    "subtract_": lambda v: v.subtract_(0.5),
    "deg2rad_": lambda v: v.deg2rad_(),
    "rad2deg_": lambda v: v.rad2deg_(),
    # the in-place view ops change the shape (and bump the version, as torch)
    "t_": lambda v: v.t_(),
    "transpose_": lambda v: v.transpose_(0, -1),
    "swapdims_": lambda v: v.swapdims_(0, -1),
    "swapaxes_": lambda v: v.swapaxes_(0, -1),
    "squeeze_": lambda v: v.squeeze_(),
    "unsqueeze_": lambda v: v.unsqueeze_(0),
    "__iadd__": lambda v: v.__iadd__(0.5),
    "__isub__": lambda v: v.__isub__(0.5),
    "__imul__": lambda v: v.__imul__(1.5),
    "__itruediv__": lambda v: v.__itruediv__(2.0),
    "__ifloordiv__": lambda v: v.__ifloordiv__(2.0),
    "__imod__": lambda v: v.__imod__(2.0),
    "__ipow__": lambda v: v.__ipow__(2.0),
    "__iand__": lambda v: v.__iand__(6),
    "__ior__": lambda v: v.__ior__(6),
    "__ixor__": lambda v: v.__ixor__(6),
    "__ilshift__": lambda v: v.__ilshift__(2),
    "__irshift__": lambda v: v.__irshift__(1),
    # the in-place methods written in Python (pyad/_compat.py, pyad/_scatter_reduce.py)
    "conj_physical_": lambda v: v.conj_physical_(),
    "heaviside_": lambda v: v.heaviside_(_full(v, 0.5)),
    "gcd_": lambda v: v.gcd_(_full(v, 6)),
    "lcm_": lambda v: v.lcm_(_full(v, 6)),
    "mvlgamma_": lambda v: v.mvlgamma_(1),
    "polygamma_": lambda v: v.polygamma_(1),
    "renorm_": lambda v: v.unsqueeze(0).renorm_(2, 0, 1.0),
    "scatter_reduce_": lambda v: v.scatter_reduce_(0, _index(v, [1, 1]), _full(v, 0.5)[:2],
                                                   "amax"),
    "index_reduce_": lambda v: v.index_reduce_(0, _index(v, [1]), _full(v, 0.5)[:1], "prod"),
    # pyad/_toplevel_math.py
    "igamma_": lambda v: v.igamma_(_full(v, 0.5)),
    "igammac_": lambda v: v.igammac_(_full(v, 0.5)),
    "addr_": lambda v: v.unsqueeze(0).addr_(_full(v, 0.5)[:1], _full(v, 0.5)),
}


# Methods ending in "_" that change no data (so bump no version).
NOT_INPLACE = {"requires_grad_", "detach_", "share_memory_"}
# apply_ / map_ call Python on each element and are refused on a Variable that requires
# grad, as torch's (tests/test_tensor_api.py checks their version bump).
PYTHON_CALLBACKS = {"apply_", "map_", "map2_"}
# resize_ / resize_as_ / set_ change the shape and are refused in a graph (set_ from a
# source requiring grad records a node whose backward raises), so the recipes here do not
# apply (tests/test_resize.py and tests/test_tensor_api.py check their version bump).
RESIZING = {"resize_", "resize_as_", "set_"}


# Python's in-place operator slots (and item assignment).
INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__imatmul__", "__itruediv__",
                   "__ifloordiv__", "__imod__", "__ipow__", "__ilshift__", "__irshift__",
                   "__iand__", "__ixor__", "__ior__", "__setitem__"}


VALUES = (1.0, 2.0, 3.0)
# In-place ops defined on integers only (torch: not implemented for 'Double'): their
# version tests run on int64 VALUES, and the gradient tests do not apply.
INTEGER_ONLY = {"bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_", "__iand__",
                "__ior__", "__ixor__", "bitwise_left_shift_", "bitwise_right_shift_",
                "__ilshift__", "__irshift__", "gcd_", "lcm_"}


def _values_for(name):
    return np.array(VALUES, dtype=np.int64 if name in INTEGER_ONLY else np.float64)


def _skip_integer_only(name):
    if name in INTEGER_ONLY:
        pytest.skip("an integer Variable never requires grad")


def test_inplace_ops_list_names_every_inplace_method_of_variable():
    methods = {n for n in dir(Variable) if n.endswith("_") and not n.startswith("__")}
    dunders = {n for n in INPLACE_DUNDERS if hasattr(Variable, n)}
    assert len(_INPLACE_METHODS) == len(set(_INPLACE_METHODS))
    assert set(_INPLACE_METHODS) == (methods - NOT_INPLACE - RESIZING - PYTHON_CALLBACKS) | dunders
    assert set(RECIPES) == set(_INPLACE_METHODS)


# torch's in-place functions that exist only at the top level (no Tensor method), with a
# call each; their version bumps are compared with torch's below.
TOPLEVEL_ONLY = {
    "dropout_": lambda L, x: L.dropout_(x, 0.5, True),
    "alpha_dropout_": lambda L, x: L.alpha_dropout_(x, 0.5, True),
    "feature_dropout_": lambda L, x: L.feature_dropout_(x, 0.5, True),
    "feature_alpha_dropout_": lambda L, x: L.feature_alpha_dropout_(x, 0.5, True),
    "celu_": lambda L, x: L.celu_(x),
    "selu_": lambda L, x: L.selu_(x),
    "rrelu_": lambda L, x: L.rrelu_(x),
    "threshold_": lambda L, x: L.threshold_(x, 0.1, 20.0),
}


@pytest.mark.parametrize("name", sorted(TOPLEVEL_ONLY))
@pytest.mark.parametrize("train", [True, False])
def test_toplevel_only_inplace_functions_bump_the_version_as_torch(name, train):
    torch = pytest.importorskip("torch")
    call = TOPLEVEL_ONLY[name]
    if not train:
        if "dropout" not in name:
            pytest.skip("only the dropouts have an eval mode")
        call = (lambda L, x, f=getattr: f(L, name)(x, 0.5, False))
    bumps = []
    for lib in (torch, pyad):
        x = lib.tensor([[0.5, -1.0, 2.0], [0.3, -0.2, 0.1]])
        before = x._version
        assert call(lib, x) is x
        bumps.append(x._version - before)
    assert bumps[0] == bumps[1], (name, bumps)
    assert not hasattr(torch.Tensor, name)


def test_inplace_ops_list_names_every_inplace_function_of_pyad():
    # pyad.add_ and friends are the same ops; pyad.setitem is __setitem__
    functions = {n for n in dir(pyad) if n.endswith("_") and not n.startswith("__")
                 and callable(getattr(pyad, n))} - NOT_INPLACE - set(TOPLEVEL_ONLY)
    assert functions <= set(_INPLACE_METHODS)
    for name in functions:
        x = Variable(_values_for(name))
        before = x._version
        RECIPES[name](_FunctionCaller(name, x))
        assert x._version == before + 1, name


class _FunctionCaller:
    # Turns `v.<name>(*args)` in a recipe into `pyad.<name>(x, *args)`.
    def __init__(self, name, x):
        self._name, self._x, self.shape, self.dtype = name, x, x.shape, x.dtype

    def __getattr__(self, name):
        assert name == self._name
        return lambda *args, **kwargs: getattr(pyad, name)(self._x, *args, **kwargs)

    # recipes that work on a 2-D view of v (addmm_, tril_, ...)
    ndim = property(lambda self: self._x.ndim)

    def __getitem__(self, key):
        return _FunctionCaller(self._name, self._x[key])

    def unsqueeze(self, dim):
        return _FunctionCaller(self._name, self._x.unsqueeze(dim))


@pytest.mark.parametrize("name, make", [
    ("requires_grad_", lambda: Variable(np.array(VALUES))),
    ("detach_", lambda: Variable(np.array(VALUES)).requires_grad_() * 2.0),
    ("share_memory_", lambda: Variable(np.array(VALUES))),
])
def test_methods_left_out_of_the_inplace_list_change_no_data(name, make):
    assert set(NOT_INPLACE) == {"requires_grad_", "detach_", "share_memory_"}
    v = make()
    data, version = v.data.copy(), v._version
    getattr(v, name)()
    np.testing.assert_array_equal(v.data, data)
    assert v._version == version


@pytest.mark.parametrize("name", _INPLACE_METHODS)
@pytest.mark.parametrize("mode", ["grad_enabled", "no_grad"])
def test_inplace_op_bumps_the_version_shared_with_views_once(name, mode):
    x = Variable(_values_for(name))
    view = x[1:]
    other_view = x.view(3, 1)
    before = x._version
    with pyad.set_grad_enabled(mode == "grad_enabled"):
        RECIPES[name](x)
    assert x._version == view._version == other_view._version == before + 1
    torch = torch_or_skip()
    t = torch.from_numpy(_values_for(name))
    RECIPES[name](t)
    assert t._version == 1          # torch agrees on one bump per op


@pytest.mark.parametrize("name", _INPLACE_METHODS)
def test_inplace_op_on_a_non_leaf_in_a_graph_bumps_the_version_once(name):
    _skip_integer_only(name)
    a = Variable(np.array(VALUES), requires_grad=True)
    h = a * 1.0
    view = h[1:]
    before = h._version
    RECIPES[name](h)
    assert h._version == view._version == before + 1


def _saved_then_modified(L, name, how):
    """out saves h; then h (or a view of it) is changed in place by `name`."""
    if L is pyad:
        a = Variable(np.array(VALUES), requires_grad=True)
    else:
        a = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
    h = a * 1.0
    out = (h * h).sum()                    # MulBackward saves h
    target = h if how != "through_view" else h[1:]
    if how == "grad_enabled":
        RECIPES[name](target)
    else:
        with L.no_grad():
            RECIPES[name](target)
    return out


@pytest.mark.parametrize("name", _INPLACE_METHODS)
@pytest.mark.parametrize("how", ["grad_enabled", "no_grad", "through_view"])
def test_backward_through_a_value_saved_before_an_inplace_op_raises(name, how):
    _skip_integer_only(name)
    out = _saved_then_modified(pyad, name, how)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        out.backward()
    assert "MulBackward" in str(info.value)
    torch = torch_or_skip()
    tout = _saved_then_modified(torch, name, how)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tout.backward()


@pytest.mark.parametrize("name", _INPLACE_METHODS)
def test_backward_through_an_output_saved_before_an_inplace_op_raises(name):
    # ExpBackward saves its output y; changing y afterwards must be caught
    _skip_integer_only(name)
    a = Variable(np.array(VALUES), requires_grad=True)
    y = pyad.exp(a)
    with pyad.no_grad():
        RECIPES[name](y)
    with pytest.raises(RuntimeError, match="ExpBackward"):
        y.sum().backward()


# -- assigning .data keeps the version counter -----------------------------------------

def test_assigning_data_keeps_the_version_counter():
    def scenario(lib):
        x = lib.randn(1, 2)
        v = x[0]
        x.add_(1)
        x.data = lib.randn(2, 3)
        return x._version, v._version

    both(scenario, (1, 1))


# -- detach_ of a saved value ----------------------------------------------------------

def test_detach_in_place_of_a_saved_non_leaf_is_refused():
    def scenario(lib):
        a = lib.ones(2, requires_grad=True) * 1
        b = a.log()
        a.detach_()
        b.sum().backward()

    raises_in_both(scenario, RuntimeError, "detached in-place")


def test_detach_in_place_of_a_saved_leaf_proceeds():
    def scenario(lib):
        a = lib.ones(2, requires_grad=True)
        b = (a * 3).sum()
        a.detach_()
        b.backward()
        return a.requires_grad, a.is_leaf

    both(scenario, (False, True))
