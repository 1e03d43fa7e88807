"""Every op family on the GPU (CuPy), against the same op on the CPU.

Each family's own cases (the ``CASES`` lists of tests/ops/test_*.py) run twice: on NumPy
Variables and on CuPy Variables made from the same numbers. On the GPU the output and
every gradient must be CuPy arrays on the input's device, equal to the CPU's, and the
backward pass must not synchronise with the host: it runs under
``cupyx.allow_synchronize(False)``, which makes any device-to-host transfer (a
``bool(x.any())``, ``float(x)``, ``.get()``) raise. CuPy itself refuses implicit
conversion to NumPy, so a NumPy call on device data fails the test too.

The whole module skips without CuPy and a GPU; `.ci/gpu` runs it on a GPU machine.
"""
import contextlib

import numpy as np
import pytest

import pyad
from _ops_helpers import PYAD, make_inputs

cupy = pytest.importorskip("cupy")
try:
    if cupy.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no CUDA device", allow_module_level=True)
except Exception as exc:          # no driver, no runtime: CuPy imports but cannot run
    pytest.skip("CuPy cannot reach a GPU: %s" % exc, allow_module_level=True)
import cupyx  # noqa: E402

import test_elementwise  # noqa: E402
import test_inplace  # noqa: E402
import test_linalg  # noqa: E402
import test_nn  # noqa: E402
import test_reduction  # noqa: E402
import test_rules_once_shape_matmul  # noqa: E402
import test_shape  # noqa: E402
import test_special  # noqa: E402

FAMILIES = {
    "elementwise": test_elementwise.CASES,
    "reduction": list(test_reduction.CASES),
    "shape": test_shape.CASES,
    "linalg": test_linalg.CASES,
    "nn": test_nn.CASES,
    "inplace": test_inplace.CASES,
    "rules": test_rules_once_shape_matmul.CASES,
    # the special functions: cupyx.scipy.special on device data, no NumPy call
    "special": test_special.CASES,
}
PARAMS = [pytest.param(case, id="%s-%s" % (family, case.id))
          for family, cases in FAMILIES.items() for case in cases]


class _CupyLib(type(PYAD)):
    """The pyad adapter with constants made on the GPU (a NumPy constant beside GPU
    data is a device mismatch, as in torch)."""

    @staticmethod
    def c(a):
        return cupy.asarray(a) if isinstance(a, np.ndarray) else a


GPU = _CupyLib()


@pytest.mark.parametrize("case", PARAMS)
def test_op_runs_on_the_gpu_without_host_syncs_in_backward(case):
    arrays = make_inputs(case)
    cpu_xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    cpu_out = case.f(PYAD, *cpu_xs)
    gpu_xs = [pyad.Variable(cupy.asarray(a), requires_grad=True) for a in arrays]
    gpu_out = case.f(GPU, *gpu_xs)

    assert isinstance(gpu_out.data, cupy.ndarray), "the output left the GPU"
    assert gpu_out.device == pyad.device("cuda", 0)
    np.testing.assert_allclose(cupy.asnumpy(gpu_out.data), cpu_out.data,
                               rtol=1e-10, atol=1e-12)
    if not cpu_out.requires_grad:
        return
    seed = np.random.default_rng(1).standard_normal(cpu_out.shape)
    cpu_out.backward(pyad.Variable(seed.astype(cpu_out.dtype)))
    gpu_seed = pyad.Variable(cupy.asarray(seed.astype(cpu_out.dtype)))
    cupy.cuda.Device().synchronize()
    with cupyx.allow_synchronize(False):
        gpu_out.backward(gpu_seed)
    for cx, gx in zip(cpu_xs, gpu_xs):
        if cx.grad is None:
            assert gx.grad is None
            continue
        assert isinstance(gx.grad.data, cupy.ndarray), "a gradient left the GPU"
        np.testing.assert_allclose(cupy.asnumpy(gx.grad.data), cx.grad.data,
                                   rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("case", PARAMS[::7])
def test_second_order_stays_on_the_gpu(case):
    arrays = make_inputs(case)
    gpu_xs = [pyad.Variable(cupy.asarray(a), requires_grad=True) for a in arrays]
    out = case.f(GPU, *gpu_xs)
    if not out.requires_grad:
        pytest.skip("no gradient")
    grads = pyad.grad(out.sum(), gpu_xs, create_graph=True, allow_unused=True)
    total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
    if not isinstance(total, pyad.Variable):
        pytest.skip("linear op: no second derivative")
    with cupyx.allow_synchronize(False):
        second = pyad.grad(total, gpu_xs, allow_unused=True)
    for g in second:
        assert g is None or isinstance(g.data, cupy.ndarray)


# -- ops outside the Case lists ------------------------------------------------------

def _gpu(a, requires_grad=True):
    return pyad.Variable(cupy.asarray(a), requires_grad=requires_grad)


def _backward_on_gpu(out, inputs):
    cupy.cuda.Device().synchronize()
    with cupyx.allow_synchronize(False):
        out.sum().backward()
    for x in inputs:
        assert isinstance(x.grad.data, cupy.ndarray)


def test_conv_and_pooling_on_the_gpu():
    import pyad.nn.functional as F
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6))
    w = rng.standard_normal((4, 3, 3, 3))
    for fn in (lambda x, w: F.conv2d(x, w, padding=1, stride=2),
               lambda x, w: F.avg_pool2d(F.conv2d(x, w), 2, ceil_mode=True,
                                         count_include_pad=False),
               lambda x, w: F.adaptive_avg_pool2d(F.conv2d(x, w), (2, 3)),
               lambda x, w: F.max_pool2d(F.conv2d(x, w, padding=1), 2),
               lambda x, w: F.max_pool2d(F.conv2d(x, w), (3, 2)),
               lambda x, w: F.max_pool2d(F.conv2d(x, w, padding=1), 3, stride=2, padding=1)):
        cx, cw = pyad.Variable(x, requires_grad=True), pyad.Variable(w, requires_grad=True)
        gx, gw = _gpu(x), _gpu(w)
        cpu, gpu = fn(cx, cw), fn(gx, gw)
        np.testing.assert_allclose(cupy.asnumpy(gpu.data), cpu.data, rtol=1e-10)
        cpu.sum().backward()
        _backward_on_gpu(gpu, (gx, gw))
        np.testing.assert_allclose(cupy.asnumpy(gx.grad.data), cx.grad.data, rtol=1e-9)
        np.testing.assert_allclose(cupy.asnumpy(gw.grad.data), cw.grad.data, rtol=1e-9)


def test_conv_and_max_pool_second_order_on_the_gpu():
    # create_graph through ConvolutionBackward and the tiling max-pool rule, on device
    import pyad.nn.functional as F
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3, 7, 6)), rng.standard_normal((4, 3, 3, 3))
    grads = []
    for make in (lambda a: pyad.Variable(a, requires_grad=True), _gpu):
        vx, vw = make(x), make(w)
        out = F.max_pool2d(pyad.tanh(F.conv2d(vx, vw, padding=1)), 2)
        gx, gw = pyad.autograd.grad(out.sum(), (vx, vw), create_graph=True)
        (hx,) = pyad.autograd.grad((gx * gx).sum() + (gw * gw).sum(), vx)
        grads.append([gx.data, gw.data, hx.data])
    for c, g in zip(*grads):
        assert isinstance(g, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(g), c, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "constant"])
def test_pad_builds_its_position_map_on_the_gpu(mode):
    x = _gpu(np.arange(12.0).reshape(3, 4))
    out = pyad.nn.functional.pad(x, (1, 2, 2, 1), mode=mode)
    assert isinstance(out.data, cupy.ndarray)
    _backward_on_gpu(out, (x,))


def test_prod_and_cumprod_backward_do_not_sync():
    a = np.array([[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]])
    for fn in (lambda v: v.prod(), lambda v: v.prod(1), lambda v: v.cumprod(1)):
        c, g = pyad.Variable(a, requires_grad=True), _gpu(a)
        fn(c).sum().backward()
        _backward_on_gpu(fn(g), (g,))
        np.testing.assert_allclose(cupy.asnumpy(g.grad.data), c.grad.data)


def test_pow_with_zero_exponent_backward_does_not_sync():
    base, exp_ = np.array([0.0, 2.0, 3.0]), np.array([0.0, 2.0, 0.0])
    c = [pyad.Variable(base, requires_grad=True), pyad.Variable(exp_, requires_grad=True)]
    g = [_gpu(base), _gpu(exp_)]
    (c[0] ** c[1]).sum().backward()
    _backward_on_gpu(g[0] ** g[1], g)
    for cv, gv in zip(c, g):
        np.testing.assert_allclose(cupy.asnumpy(gv.grad.data), cv.grad.data)


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
def test_cross_entropy_first_and_second_order_stay_on_the_gpu(reduction, shape):
    # CrossEntropyBackward's one rule: the one-hot subtracted in place on the device (a
    # plain backward) or recorded (create_graph), with no host sync either way
    import pyad.nn.functional as F
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    target = rng.integers(0, 3, (shape[0],) + shape[2:])
    weight = np.array([0.5, 2.0, 1.0])
    res = {}
    for dev, mk in (("cpu", pyad.Variable), ("gpu", lambda a: pyad.Variable(cupy.asarray(a)))):
        xv = mk(x)
        xv.requires_grad = True
        loss = F.cross_entropy(xv, mk(target), weight=mk(weight), ignore_index=2,
                               reduction=reduction).sum()
        cupy.cuda.Device().synchronize()
        with cupyx.allow_synchronize(False) if dev == "gpu" else contextlib.nullcontext():
            plain, = pyad.grad(loss, xv, retain_graph=True)
            first, = pyad.grad(loss, xv, create_graph=True)
            second, = pyad.grad((first * first).sum(), xv)
        res[dev] = (plain, first, second)
    for c, g in zip(res["cpu"], res["gpu"]):
        assert isinstance(g.data, cupy.ndarray), "a gradient left the GPU"
        np.testing.assert_allclose(cupy.asnumpy(g.data), c.data, rtol=1e-9, atol=1e-12)


def test_list_index_key_is_made_on_the_gpu():
    x = _gpu(np.arange(5.0))
    out = x[[0, 0, 3]]
    assert isinstance(out.data, cupy.ndarray)
    _backward_on_gpu(out, (x,))
    np.testing.assert_array_equal(cupy.asnumpy(x.grad.data), [2.0, 0, 0, 1.0, 0])


def test_function_returning_a_number_as_gradient_fills_on_the_gpu():
    class Twice(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2.0

    x = _gpu(np.ones(3))
    _backward_on_gpu(Twice.apply(x), (x,))
    np.testing.assert_array_equal(cupy.asnumpy(x.grad.data), [2.0, 2.0, 2.0])


def test_normal_draws_on_the_requested_device():
    out = pyad.normal(0.0, 1.0, (1000,), device="cuda")
    assert isinstance(out.data, cupy.ndarray)
    assert abs(float(out.data.mean())) < 0.2


@pytest.mark.parametrize("draw", [
    lambda g: pyad.normal(0.0, 1.0, (50,), device="cuda", generator=g),
    lambda g: pyad.bernoulli(pyad.full((50,), 0.5, device="cuda"), generator=g),
    lambda g: pyad.multinomial(pyad.ones(6, device="cuda"), 4, generator=g),
    lambda g: pyad.zeros(50, device="cuda").uniform_(generator=g),
    lambda g: pyad.zeros(50, device="cuda").normal_(generator=g),
], ids=["normal", "bernoulli", "multinomial", "uniform_", "normal_"])
def test_a_cuda_generator_drives_gpu_draws(draw):
    first = draw(pyad.Generator("cuda").manual_seed(4)).data
    assert isinstance(first, cupy.ndarray)
    again = draw(pyad.Generator("cuda").manual_seed(4)).data
    np.testing.assert_array_equal(cupy.asnumpy(first), cupy.asnumpy(again))
    with pytest.raises(RuntimeError, match="expected a generator on the same device"):
        draw(pyad.Generator("cpu"))


def test_erf_runs_on_the_gpu():
    a = np.linspace(-2, 2, 7)
    c, g = pyad.Variable(a, requires_grad=True), _gpu(a)
    pyad.erf(c).sum().backward()
    _backward_on_gpu(pyad.erf(g), (g,))
    np.testing.assert_allclose(cupy.asnumpy(g.grad.data), c.grad.data, rtol=1e-12)


def test_relu_and_log_softmax_edge_values_on_the_gpu():
    # relu's forward/backward and log_softmax's forward have NumPy-only fast paths
    # (tests/ops/test_mlp_step_paths.py); on CuPy the general paths give the same numbers.
    a = np.array([[np.nan, -np.inf, -1.0, 0.0, -0.0, 2.0, np.inf],
                  [1.0, -2.0, 0.0, 3.0, -np.inf, 0.5, -0.5]], dtype=np.float32)
    g = np.arange(14, dtype=np.float32).reshape(2, 7)
    for fn in (pyad.relu, lambda v: pyad.log_softmax(v, dim=1)):
        outs = []
        for xp in (np, cupy):
            x = pyad.Variable(xp.asarray(a), requires_grad=True)
            y = fn(x)
            with cupyx.allow_synchronize(False) if xp is cupy else contextlib.nullcontext():
                y.backward(pyad.Variable(xp.asarray(g)))
            assert isinstance(y.data, xp.ndarray) and isinstance(x.grad.data, xp.ndarray)
            outs.append((cupy.asnumpy(y.data), cupy.asnumpy(x.grad.data)))
        np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-6, atol=1e-6)
