"""The Hessian-vector product path (issue 19 item 1, benchmark row (d)): the cheaper
formulas of the fused second-order nodes and of the first backward under create_graph.

* TanhGradBackward keeps the 1 - y^2 its forward computed and multiplies by it in its
  own backward; TanhBackward shares it after a create_graph pass, so the second grad
  through the forward tanh node is one multiply;
* PowConstGradBackward's backward on arrays folds c (c-1) into one constant and skips
  x^(c-2) where it is x or 1;
* a gradient that is exactly all ones (the gradient of a sum) is not multiplied into
  c x^(c-1);
* sum's backward under create_graph builds a gradient with no history as an array;
* the outermost grad() marks the nodes that must run with a C stack.

Every value is compared with torch on the same inputs (first, second and third
derivatives; 0-d, empty, broadcast, NaN/inf, float32, integer exponents 0, 1, 2 and
negative), and gradcheck/gradgradcheck run in float64.
"""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import grad, gradcheck, gradgradcheck
from _torch_compare import torch, as_np

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

EXPONENTS = [0, 1, 2, 3, 4, -1, -2, 2.5, 3.0]
SHAPES = [(), (0,), (1,), (16,), (3, 4)]


def _data(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    if a.size >= 8:
        a.flat[0] = np.nan
        a.flat[1] = np.inf
        a.flat[2] = -np.inf
        a.flat[3] = 0.0
        a.flat[4] = -0.0
    return a


def _lib_fns(lib):
    if lib is pyad:
        return pyad.tanh, pyad.autograd.grad, (lambda a, dt, rg=False:
                                               Variable(a.astype(dt), requires_grad=rg))
    return torch.tanh, torch.autograd.grad, (lambda a, dt, rg=False: torch.tensor(
        a, dtype=getattr(torch, dt), requires_grad=rg))


def _derivatives(lib, xd, vd, wd, c, dt, vdt=None):
    # g = df/dx, the HVP without and with create_graph, and one more order, for
    # f = sum(w * tanh(x) ** c) (w broadcast against x when shapes differ).
    tanh, grad_, var = _lib_fns(lib)
    x = var(xd, dt, True)
    v = var(vd, vdt or dt)
    w = var(wd, dt)
    f = (w * tanh(x) ** c).sum()
    g, = grad_(f, x, create_graph=True)
    hv, = grad_((g * v).sum(), x, retain_graph=True)
    hv_cg, = grad_((g * v).sum(), x, create_graph=True)
    third, = grad_((hv_cg * v).sum(), x, allow_unused=True)
    return g, hv, hv_cg, third


def _assert_close(p, t, dt, what):
    tol = 1e-12 if dt == "float64" else 2e-5
    a, b = as_np(p), as_np(t)
    if b is None:
        assert a is None, what
        return
    assert a.shape == b.shape and a.dtype == b.dtype, (what, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@needs_torch
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("c", EXPONENTS)
def test_hvp_and_third_order_match_torch(c, shape, dt):
    xd, vd = _data(shape, 1), _data(shape, 2)
    wd = np.random.default_rng(3).standard_normal(shape)
    with np.errstate(all="ignore"):
        got = _derivatives(pyad, xd, vd, wd, c, dt)
    want = _derivatives(torch, xd, vd, wd, c, dt)
    for name, p, t in zip(("g", "hv", "hv_cg", "third"), got, want):
        _assert_close(p, t, dt, "%s c=%r shape=%s %s" % (name, c, shape, dt))


@needs_torch
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("c", [0, 1, 2, 3, -1, 2.5])
def test_hvp_with_implicit_ones_root_matches_torch(c):
    # f = sum(tanh(x) ** c): the first grad's incoming gradient is all ones (the
    # ones-skip in pow's fused node), row (d)'s exact shape
    xd, vd = _data((16,), 4), _data((16,), 5)
    got = _derivatives(pyad, xd, vd, np.float64(1.0), c, "float64")
    want = _derivatives(torch, xd, vd, np.float64(1.0), c, "float64")
    for name, p, t in zip(("g", "hv", "hv_cg", "third"), got, want):
        _assert_close(p, t, "float64", "%s c=%r" % (name, c))


@needs_torch
@pytest.mark.parametrize("c", [2, 3, 2.5, -1])
def test_hvp_broadcast_operands_match_torch(c):
    # x (3, 1) against w (3, 4): every gradient is summed back to x's shape
    xd = np.random.default_rng(6).uniform(0.2, 1.5, (3, 1))
    wd = np.random.default_rng(7).standard_normal((3, 4))
    vd = np.random.default_rng(8).standard_normal((3, 1))
    got = _derivatives(pyad, xd, vd, wd, c, "float64")
    want = _derivatives(torch, xd, vd, wd, c, "float64")
    for name, p, t in zip(("g", "hv", "hv_cg", "third"), got, want):
        _assert_close(p, t, "float64", "%s c=%r" % (name, c))


@needs_torch
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("c", [2, 3, 2.5])
def test_hvp_mixed_dtypes_match_torch(c):
    # a float32 x with a float64 vector: the second grad's incoming gradient is float64
    # where the cached 1 - y^2 is float32 (the cache is not used for it)
    xd, vd = _data((16,), 9), _data((16,), 10)
    xd = np.nan_to_num(xd, nan=0.3, posinf=2.0, neginf=-2.0)
    got = _derivatives(pyad, xd, vd, np.float64(1.0), c, "float32", "float64")
    want = _derivatives(torch, xd, vd, np.float64(1.0), c, "float32", "float64")
    for name, p, t in zip(("g", "hv", "hv_cg", "third"), got, want):
        _assert_close(p, t, "float32", "%s c=%r" % (name, c))


@pytest.mark.parametrize("c", [2, 3, 4, 2.5, -1, -2])
def test_gradcheck_and_gradgradcheck_of_the_hvp_path(c):
    # the first derivative as a function of x, checked to the third order
    x = Variable(np.random.default_rng(11).uniform(0.3, 1.2, (5,)), requires_grad=True)
    v = Variable(np.random.default_rng(12).standard_normal(5))

    def first(x):
        g, = grad((pyad.tanh(x) ** c).sum(), x, create_graph=True)
        return g

    def hvp(x):
        g, = grad((pyad.tanh(x) ** c).sum(), x, create_graph=True)
        h, = grad((g * v).sum(), x, create_graph=True)
        return h

    assert gradcheck(first, (x,))
    assert gradgradcheck(first, (x,))
    assert gradcheck(hvp, (x,))


@pytest.mark.parametrize("c", [2, 3, 4, 2.5, -2])
def test_pow_grad_backward_on_arrays_equals_the_recorded_formula(c):
    # PowConstGradBackward's array form (folded constants) against the same backward
    # recorded (torch's order) on the same inputs: equal to rounding
    x = Variable(np.random.default_rng(13).uniform(0.2, 2.0, (7,)), requires_grad=True)
    a = Variable(np.random.default_rng(14).standard_normal(7))
    v = Variable(np.random.default_rng(15).standard_normal(7))
    g, = grad((a * x ** c).sum(), x, create_graph=True)
    fast, = grad((g * v).sum(), x, retain_graph=True)
    recorded, = grad((g * v).sum(), x, create_graph=True)
    expected = v.numpy() * a.numpy() * c * (c - 1) * x.detach().numpy() ** (c - 2)
    np.testing.assert_allclose(fast.numpy(), expected, rtol=1e-13)
    np.testing.assert_allclose(recorded.detach().numpy(), expected, rtol=1e-13)


@needs_torch
@pytest.mark.parametrize("where", [0, 7, 15])
def test_a_gradient_of_ones_except_one_element_is_multiplied(where):
    # the all-ones test must read every element, not only the first
    xd = np.random.default_rng(16).uniform(0.5, 1.5, 16)
    go = np.ones(16)
    go[where] = 2.0
    for value in (2.0, np.nan, -1.0, 1.0 + 2 ** -52):
        go[where] = value
        x = Variable(xd.copy(), requires_grad=True)
        g, = grad(x ** 3, x, grad_outputs=Variable(go.copy()), create_graph=True)
        xt = torch.tensor(xd, requires_grad=True)
        gt, = torch.autograd.grad(xt ** 3, xt, torch.tensor(go), create_graph=True)
        np.testing.assert_array_equal(g.detach().numpy(), gt.detach().numpy())
        g2, = grad(x ** 3, x, grad_outputs=Variable(go.copy()))
        np.testing.assert_array_equal(g2.numpy(), gt.detach().numpy())


@needs_torch
def test_ones_gradients_in_every_layout_match_torch():
    xd = np.random.default_rng(17).uniform(0.5, 1.5, (4, 4))
    xt = torch.tensor(xd, requires_grad=True)
    want, = torch.autograd.grad(xt ** 3, xt, torch.ones(4, 4, dtype=torch.float64))
    layouts = [np.ones((4, 4)), np.broadcast_to(1.0, (4, 4)), np.ones((4, 8))[:, ::2],
               np.ones((4, 4)).T, np.ones((4, 4), dtype=np.float32)]
    for go in layouts:
        for create in (False, True):
            x = Variable(xd.copy(), requires_grad=True)
            g, = grad(x ** 3, x, grad_outputs=Variable(go), create_graph=create)
            np.testing.assert_array_equal(as_np(g), want.numpy())
            assert as_np(g).dtype == np.float64
    # the gradient handed out is its own array: changing it changes nothing else
    go = np.ones((4, 4))
    x = Variable(xd.copy(), requires_grad=True)
    g, = grad(x ** 3, x, grad_outputs=Variable(go))
    g.data[0, 0] = 123.0
    assert go[0, 0] == 1.0 and x.data[0, 0] == xd[0, 0]


def _scenario_inplace_after_first_grad(lib):
    tanh, grad_, var = _lib_fns(lib)
    x = var(np.linspace(-1, 1, 5), "float64", True)
    t = tanh(x)
    f = (t ** 3).sum()
    g, = grad_(f, x, create_graph=True)
    with (pyad.no_grad() if lib is pyad else torch.no_grad()):
        t.mul_(2)
    return grad_(g.sum(), x)


@needs_torch
def test_changing_tanh_output_in_place_after_the_first_grad_raises_in_both():
    for lib in (pyad, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _scenario_inplace_after_first_grad(lib)


@needs_torch
def test_retain_graph_false_with_create_graph_frees_the_cache_and_raises_in_both():
    for lib in (pyad, torch):
        tanh, grad_, var = _lib_fns(lib)
        x = var(np.linspace(-1, 1, 5), "float64", True)
        f = (tanh(x) ** 3).sum()
        g, = grad_(f, x, create_graph=True, retain_graph=False)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            grad_(g.sum(), x)


@needs_torch
def test_saved_tensors_hooks_are_called_again_not_bypassed_by_the_cache():
    # unpack returns 2 y during the second grad: the cached 1 - y^2 of the first grad
    # must not be used (torch calls the hook at each use)
    results = []
    for lib in (pyad, torch):
        tanh, grad_, var = _lib_fns(lib)
        hooks = pyad.autograd.graph.saved_tensors_hooks if lib is pyad else \
            torch.autograd.graph.saved_tensors_hooks
        scale = [1.0]
        x = var(np.linspace(-1, 1, 5), "float64", True)
        v = var(np.linspace(0.5, 2.0, 5), "float64")
        with hooks(lambda t: t, lambda t: t * scale[0]):
            f = (tanh(x) ** 3).sum()
            g, = grad_(f, x, create_graph=True)
            s = (g * v).sum()
            scale[0] = 2.0
            hv, = grad_(s, x)
        results.append((as_np(g), as_np(hv)))
    for a, b in zip(results[0], results[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@needs_torch
def test_hooks_on_intermediate_gradients_in_both_passes_match_torch():
    out = []
    for lib in (pyad, torch):
        tanh, grad_, var = _lib_fns(lib)
        seen = []
        x = var(np.linspace(-1, 1, 6), "float64", True)
        v = var(np.linspace(0.5, 2.0, 6), "float64")
        t = tanh(x)
        t.register_hook(lambda gr: (seen.append(as_np(gr)), gr * 3)[1])
        f = (t ** 3).sum()
        g, = grad_(f, x, create_graph=True)
        g.register_hook(lambda gr: (seen.append(as_np(gr)), gr - 1)[1])
        hv, = grad_((g * v).sum(), x)
        out.append((seen, as_np(g), as_np(hv)))
    (s1, g1, h1), (s2, g2, h2) = out
    assert len(s1) == len(s2)
    for a, b in zip(s1, s2):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-12)
    np.testing.assert_allclose(h1, h2, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_hvp_in_anomaly_mode_equals_the_plain_run():
    x = Variable(np.linspace(-1, 1, 16), requires_grad=True)
    v = Variable(np.linspace(0.5, 2.0, 16))

    def run():
        g, = grad((pyad.tanh(x) ** 3).sum(), x, create_graph=True)
        hv, = grad((g * v).sum(), x)
        return hv.numpy()

    plain = run()
    with pyad.autograd.detect_anomaly():
        anomalous = run()
    np.testing.assert_array_equal(plain, anomalous)


def test_hvp_profiler_node_names():
    x = Variable(np.linspace(-1, 1, 16), requires_grad=True)
    v = Variable(np.linspace(0.5, 2.0, 16))
    f = (pyad.tanh(x) ** 3).sum()
    g, = grad(f, x, create_graph=True)
    s = (g * v).sum()
    with pyad.autograd.profiler.profile() as prof:
        grad(s, x)
    nodes = [e.name for e in prof.function_events if e.scope == "backward"]
    assert nodes == ["_GraphRoot", "SumBackward", "MulBackward", "TanhGradBackward",
                     "PowConstGradBackward", "TanhBackward"]


def test_the_graphs_of_an_hvp_are_freed_without_the_collector():
    x = Variable(np.linspace(-1, 1, 16), requires_grad=True)
    v = Variable(np.linspace(0.5, 2.0, 16))
    t = pyad.tanh(x)
    ref_tanh = weakref.ref(t.grad_fn)
    g, = grad((t ** 3).sum(), x, create_graph=True)
    ref_fused = weakref.ref(g.grad_fn)
    hv, = grad((g * v).sum(), x)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        del t, g
        assert ref_tanh() is None and ref_fused() is None
    finally:
        if was_enabled:
            gc.enable()
    assert hv.grad_fn is None


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_small_full_sum_equals_numpy_bit_for_bit(dtype):
    # sum() over a whole small float array is computed in C with NumPy's pairwise
    # order: every length from 1 past the 8- and 128-element boundaries to the 4096
    # limit, n-d and 1-d, signed zeros, nan, inf and overflow
    rng = np.random.default_rng(21)
    lengths = list(range(1, 300)) + [511, 512, 513, 1000, 1024, 4095, 4096, 4097, 5000]
    for n in lengths:
        a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)).astype(dtype)
        for arr in (a, a.reshape(1, n), a.reshape(n, 1)):
            got = pyad.sum(Variable(arr)).numpy()
            want = np.add.reduce(arr, axis=None)
            assert got.shape == () and got.dtype == dtype
            assert got.tobytes() == np.asarray(want, dtype=dtype).tobytes(), n
    specials = [np.array([-0.0]), np.array([-0.0] * 9), np.array([np.nan, 1.0]),
                np.array([np.inf, -np.inf] * 5), np.array([1e308] * 16),
                np.array([3.0, -0.0, 2.0]), np.ones((2, 3, 4))]
    for a in specials:
        a = a.astype(dtype)
        with np.errstate(all="ignore"):
            want = np.asarray(np.add.reduce(a, axis=None), dtype=dtype)
        got = pyad.sum(Variable(a)).numpy()
        assert got.tobytes() == want.tobytes(), a
    # strided, byte-swapped, 0-d and empty inputs, keepdim and a dtype go through NumPy
    a = np.arange(20.0, dtype=dtype)
    for arr in (a[::2], a.astype(a.dtype.newbyteorder()), np.asarray(dtype(2.5)),
                np.zeros((0,), dtype)):
        assert pyad.sum(Variable(arr)).numpy().tobytes() == \
            np.asarray(np.add.reduce(arr, axis=None), dtype=dtype).tobytes()
    assert pyad.sum(Variable(a), keepdim=True, dim=0).shape == (1,)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sum_gradients_with_the_c_sum_match_torch(dtype):
    # the C sum's result feeds sum's own backward (first and second order)
    xd = np.random.default_rng(22).standard_normal((4, 5))
    out = []
    for lib in (pyad, torch):
        tanh, grad_, var = _lib_fns(lib)
        x = var(xd, dtype, True)
        s = (tanh(x) * x).sum()
        g, = grad_(s, x, create_graph=True)
        h, = grad_(g.sum(), x)
        out.append((s, g, h))
    for a, b in zip(*out):
        _assert_close(a, b, dtype, "sum")


@needs_torch
def test_mul_backward_with_a_ones_gradient_copies_and_matches_torch():
    # (x * w).sum(): the incoming gradient is all ones, so x's gradient is a copy of w
    # (the multiply skipped), its own array in w's layout as torch's
    wd = np.random.default_rng(23).standard_normal((3, 4))
    wd[0, 0] = np.nan
    wd[0, 1] = -0.0
    for w_arr in (wd.copy(), np.asfortranarray(wd), wd.astype(np.float32)):
        xt = torch.ones((3, 4), dtype=torch.float64, requires_grad=True)
        want, = torch.autograd.grad((xt * torch.tensor(w_arr)).sum(), xt)
        x = Variable(np.ones((3, 4)), requires_grad=True)
        w = Variable(w_arr.copy())
        g, = grad((x * w).sum(), x)
        assert g.numpy().tobytes() == want.numpy().tobytes()
        before = w.numpy().copy()
        g.data[...] = 5.0                           # the gradient is its own array
        np.testing.assert_array_equal(w.numpy(), before)
        # and through backward() into a leaf's .grad, twice (accumulated)
        x.grad = None
        (x * w).sum().backward()
        (x * w).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), 2 * want.numpy())
        np.testing.assert_array_equal(w.numpy(), before)
