"""pyad.amp: autocast state, casting of the covered ops, custom_fwd/custom_bwd and
GradScaler, against torch's CPU autocast and GradScaler on the same inputs."""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def tdt(dtype):
    return str(dtype).replace("torch.", "")


def T(x):
    return torch.from_numpy(np.array(x.detach().data))


# -- state ----------------------------------------------------------------------------------

def test_state_functions_match_torch_inside_and_outside_nested_regions():
    for lib in (pyad, torch):
        assert lib.is_autocast_enabled("cpu") is False
        assert lib.is_autocast_enabled() is False
        assert tdt(lib.get_autocast_dtype("cpu")) == "bfloat16"
        assert tdt(lib.get_autocast_dtype("cuda")) == "float16"
        with lib.autocast("cpu"):
            assert lib.is_autocast_enabled("cpu") and not lib.is_autocast_enabled("cuda")
            with lib.autocast("cpu", dtype=lib.float16):
                assert tdt(lib.get_autocast_dtype("cpu")) == "float16"
                with lib.autocast("cpu", enabled=False):
                    assert not lib.is_autocast_enabled("cpu")
                assert lib.is_autocast_enabled("cpu")
            assert tdt(lib.get_autocast_dtype("cpu")) == "bfloat16"
        assert lib.is_autocast_enabled("cpu") is False
        lib.set_autocast_enabled("cpu", True)
        assert lib.is_autocast_enabled("cpu")
        lib.set_autocast_enabled("cpu", False)


def test_the_decorator_form_and_exceptions_restore_the_state():
    @pyad.autocast("cpu", dtype=pyad.float16)
    def inside():
        return pyad.is_autocast_enabled("cpu"), pyad.get_autocast_dtype("cpu")

    assert inside() == (True, pyad.float16)
    assert not pyad.is_autocast_enabled("cpu")
    with pytest.raises(KeyError):
        with pyad.autocast("cpu"):
            raise KeyError
    assert not pyad.is_autocast_enabled("cpu")
    assert pyad.amp.autocast is pyad.autocast


def test_the_state_is_per_thread_as_torchs():
    import threading
    for lib in (pyad, torch):
        seen = []
        with lib.autocast("cpu", dtype=lib.float16):
            t = threading.Thread(target=lambda: seen.append(
                (lib.is_autocast_enabled("cpu"), tdt(lib.get_autocast_dtype("cpu")))))
            t.start()
            t.join()
            assert lib.is_autocast_enabled("cpu")
        assert seen == [(False, "bfloat16")]
    out = []
    with pyad.autocast("cpu", dtype=pyad.float16):
        t = threading.Thread(target=lambda: out.append(F.linear(pyad.ones(1, 2),
                                                                pyad.ones(3, 2)).dtype))
        t.start()
        t.join()
    assert out == [pyad.float32]          # another thread's region does not cast here


def test_bad_arguments_raise_torchs_types():
    for lib in (pyad, torch):
        with pytest.raises(ValueError):
            lib.autocast(0)
        with pytest.raises(RuntimeError):
            lib.autocast("nosuchdevice")
        with pytest.raises(TypeError, match="requires a callable"):
            lib.autocast("cpu")(3)
        with pytest.raises(ValueError):
            lib.amp.custom_fwd(device_type=1)
        for call in (lib.get_autocast_dtype, lib.is_autocast_enabled):
            with pytest.raises(TypeError):
                call(3)
            with pytest.raises(RuntimeError):
                call("nosuchdevice")
    assert pyad.amp.is_autocast_available("cpu") == torch.amp.is_autocast_available("cpu")
    assert pyad.amp.is_autocast_available("cuda") == torch.amp.is_autocast_available("cuda")


def test_an_unsupported_cpu_dtype_warns_and_disables_as_torch():
    for lib in (pyad, torch):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not "
                                             "supported. Disabling autocast."):
            region = lib.autocast("cpu", dtype=lib.float64)
        with region:
            assert not lib.is_autocast_enabled("cpu")


def test_cuda_without_a_gpu_warns_and_disables_as_torch():
    if torch.cuda.is_available() or pyad.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for lib in (pyad, torch):
        with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is "
                                             "imported. Disabling autocast."):
            region = lib.autocast("cuda")
        with region:
            assert not lib.is_autocast_enabled("cuda")
        with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                lib.cuda.amp.autocast()


# -- casting ---------------------------------------------------------------------------------

def lin_args(lib, dtype):
    g = np.random.default_rng(0)
    return [lib.tensor(g.standard_normal(s), dtype=dtype) for s in ((4, 3), (2, 3), (2,))]


COVERED = {
    "linear": (lambda F_, a: F_.linear(*a), [(4, 3), (2, 3), (2,)]),
    "conv1d": (lambda F_, a: F_.conv1d(*a), [(1, 2, 5), (3, 2, 2), (3,)]),
    "conv2d": (lambda F_, a: F_.conv2d(*a), [(1, 2, 5, 5), (3, 2, 2, 2), (3,)]),
    "conv3d": (lambda F_, a: F_.conv3d(*a), [(1, 2, 4, 4, 4), (3, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda F_, a: F_.conv_transpose1d(*a), [(1, 2, 5), (2, 3, 2)]),
    "conv_transpose2d": (lambda F_, a: F_.conv_transpose2d(*a), [(1, 2, 4, 4), (2, 3, 2, 2)]),
    "prelu": (lambda F_, a: F_.prelu(*a), [(2, 3), (1,)]),
    "scaled_dot_product_attention": (lambda F_, a: F_.scaled_dot_product_attention(*a),
                                     [(1, 2, 3, 4)] * 3),
    "mse_loss": (lambda F_, a: F_.mse_loss(*a), [(3,), (3,)]),
    "l1_loss": (lambda F_, a: F_.l1_loss(*a), [(3,), (3,)]),
    "smooth_l1_loss": (lambda F_, a: F_.smooth_l1_loss(*a), [(3,), (3,)]),
    "huber_loss": (lambda F_, a: F_.huber_loss(*a), [(3,), (3,)]),
    "soft_margin_loss": (lambda F_, a: F_.soft_margin_loss(*a), [(3,), (3,)]),
    "kl_div": (lambda F_, a: F_.kl_div(*a, reduction="sum"), [(3,), (3,)]),
    "binary_cross_entropy_with_logits": (
        lambda F_, a: F_.binary_cross_entropy_with_logits(*a), [(3,), (3,)]),
    "cross_entropy": (lambda F_, a: F_.cross_entropy(a[0], a[0].argmax(1)), [(2, 3)]),
    "avg_pool3d": (lambda F_, a: F_.avg_pool3d(a[0], 2), [(1, 1, 4, 4, 4)]),
    "max_pool3d": (lambda F_, a: F_.max_pool3d(a[0], 2), [(1, 1, 4, 4, 4)]),
}


def make(lib, shapes, dtype, requires_grad=False):
    g = np.random.default_rng(1)
    out = []
    for s in shapes:
        x = lib.tensor(g.uniform(0.1, 1.0, s), dtype=dtype)
        out.append(x.requires_grad_() if requires_grad else x)
    return out


@pytest.mark.parametrize("name", list(COVERED))
@pytest.mark.parametrize("fast", ["float16", "bfloat16"])
@pytest.mark.parametrize("input_dtype", ["float32", "float16", "float64"])
def test_covered_ops_give_torchs_dtypes(name, fast, input_dtype):
    fn, shapes = COVERED[name]
    with torch.autocast("cpu", dtype=getattr(torch, fast)):
        theirs = fn(TF, make(torch, shapes, getattr(torch, input_dtype)))
    with pyad.no_grad(), pyad.autocast("cpu", dtype=getattr(pyad, fast)):
        ours = fn(F, make(pyad, shapes, getattr(pyad, input_dtype)))
    assert str(ours.dtype) == tdt(theirs.dtype)
    # bfloat16/float16 results: their own rounding; float32 ones: torch's float32 defaults
    tol = dict(rtol=2e-2, atol=2e-2) if "16" in str(ours.dtype) + input_dtype else \
        dict(rtol=1.3e-6, atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours.data, dtype=np.float64),
                               theirs.double().numpy(), **tol)


@pytest.mark.parametrize("name", ["linear", "conv2d", "mse_loss", "cross_entropy"])
def test_float16_regions_are_differentiable_and_match_torch(name):
    fn, shapes = COVERED[name]
    ours_in = make(pyad, shapes, pyad.float32, requires_grad=True)
    theirs_in = make(torch, shapes, torch.float32, requires_grad=True)
    with pyad.autocast("cpu", dtype=pyad.float16):
        ours = fn(F, ours_in)
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = fn(TF, theirs_in)
    assert str(ours.dtype) == tdt(theirs.dtype)
    ours.float().sum().backward()
    theirs.float().sum().backward()
    for a, b in zip(ours_in, theirs_in):
        assert str(a.grad.dtype) == tdt(b.grad.dtype) == "float32"
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-2, atol=1e-2)


def test_gradients_through_the_casts_pass_gradcheck():
    # float64 is not cast (as torch), so the checks run on the region's code path
    x = pyad.randn(3, 4, dtype=pyad.float64, requires_grad=True)
    w = pyad.randn(2, 4, dtype=pyad.float64, requires_grad=True)
    with pyad.autocast("cpu", dtype=pyad.float16):
        assert F.linear(x, w).dtype == pyad.float64
        assert gradcheck(F.linear, (x, w)) and gradgradcheck(F.linear, (x, w))
    from pyad.amp.autocast_mode import _cast
    y = pyad.tensor([0.5, 1.25], requires_grad=True)
    out = _cast([y], "cpu", np.dtype("float16"))[0]      # the cast a covered op applies
    assert out.dtype == np.float16
    (out.float() * pyad.tensor([2.0, 3.0])).sum().backward()
    assert y.grad.dtype == np.float32 and y.grad.tolist() == [2.0, 3.0]


def test_modules_go_through_the_covered_ops():
    pyad.manual_seed(0)
    model = pyad.nn.Sequential(pyad.nn.Conv2d(1, 2, 3), pyad.nn.Flatten(),
                               pyad.nn.Linear(2 * 4 * 4, 3))
    tmodel = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.Flatten(),
                                 torch.nn.Linear(2 * 4 * 4, 3))
    for lib, m in ((pyad, model), (torch, tmodel)):
        with lib.autocast("cpu", dtype=lib.float16):
            out = m(lib.ones(2, 1, 6, 6))
            assert tdt(out.dtype) == "float16"
            loss = lib.nn.functional.cross_entropy(out, lib.tensor([0, 1]))
            assert tdt(loss.dtype) == "float32"
        loss.backward()
        assert tdt(m[2].weight.grad.dtype) == "float32"


def test_ops_outside_the_lists_and_outside_regions_are_untouched():
    x = pyad.randn(2, 3)
    with pyad.autocast("cpu", dtype=pyad.float16):
        assert F.relu(x).dtype == pyad.float32              # not listed, as torch
        assert F.linear(pyad.tensor([[1, 2]]).float(), pyad.ones(3, 2)).dtype == pyad.float16
    assert F.linear(x, pyad.ones(4, 3)).dtype == pyad.float32


def test_bfloat16_region_is_differentiable_and_matches_torch():
    # torch's CPU default: bfloat16 outputs, float32 gradients on the float32 leaves, the
    # GEMM accumulated in float32 and rounded once
    rng = np.random.default_rng(0)
    xv, wv, bv = (rng.standard_normal(s).astype(np.float32) for s in ((5, 7), (4, 7), (4,)))
    got = {}
    for lib in (pyad, torch):
        x, w, b = (lib.tensor(v, requires_grad=True) for v in (xv, wv, bv))
        with lib.autocast("cpu"):
            out = lib.nn.functional.linear(x, w, b)
            loss = lib.nn.functional.mse_loss(out, lib.zeros(5, 4))
        assert tdt(out.dtype) == "bfloat16" and tdt(loss.dtype) == "float32"
        loss.backward()
        assert tdt(w.grad.dtype) == "float32" and tdt(x.grad.dtype) == "float32"
        got[lib.__name__] = [np.asarray(t.detach().float().numpy(), np.float64)
                             for t in (out, loss, x.grad, w.grad, b.grad)]
    for p_, t_ in zip(got["pyad"], got["torch"]):
        # the forward is exact to torch's rounding; the gradients pass through bfloat16
        # GEMMs whose summation order may differ: one bfloat16 ulp (2**-8) relative
        np.testing.assert_allclose(p_, t_, rtol=2 ** -7, atol=1e-6)


# -- custom_fwd / custom_bwd -----------------------------------------------------------------

def make_function(lib):
    seen = {}

    class Scale(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, x):
            seen["fwd"] = (tdt(x.dtype), lib.is_autocast_enabled("cpu"))
            return x * 2

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = lib.is_autocast_enabled("cpu")
            return g * 2

    class Plain(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            seen["plain_fwd"] = lib.is_autocast_enabled("cpu")
            return x * 3

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["plain_bwd"] = (lib.is_autocast_enabled("cpu"),
                                 tdt(lib.get_autocast_dtype("cpu")))
            return g * 3

    return Scale, Plain, seen


def test_custom_fwd_and_bwd_match_torch():
    results = []
    for lib in (pyad, torch):
        Scale, Plain, seen = make_function(lib)
        x = lib.ones(2, dtype=lib.float16, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.float16):
            y = Scale.apply(x)
            z = Plain.apply(lib.ones(2, requires_grad=True))
        (y.sum() + z.sum()).backward()
        w = Scale.apply(lib.ones(2, dtype=lib.float16))          # outside: no cast
        results.append((tdt(y.dtype), tdt(w.dtype), tdt(x.grad.dtype), dict(seen)))
    assert results[0] == results[1]


# -- GradScaler ------------------------------------------------------------------------------

def run_loop(lib, losses_scale, init_scale=2.0 ** 4, growth_interval=2, inf_at=(2,)):
    w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval)
    log = []
    for step in range(6):
        opt.zero_grad()
        loss = (w * w).sum() * losses_scale
        if step in inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaled = w.grad.tolist()
        scaler.unscale_(opt) if step == 4 else None
        scaler.step(opt)
        scaler.update()
        log.append((scaled, w.detach().tolist(), scaler.get_scale(),
                    scaler._get_growth_tracker()))
    return log, scaler


def test_grad_scaler_loop_matches_torchs_including_an_inf_step():
    ours, s1 = run_loop(pyad, 1.0)
    theirs, s2 = run_loop(torch, 1.0)
    for a, b in zip(ours, theirs):
        assert a[2:] == b[2:]                     # scale and growth tracker exactly
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
    # the inf step was skipped and backed off in both
    assert ours[2][1] == ours[1][1] and ours[2][2] == ours[1][2] * 0.5
    assert s1.state_dict() == s2.state_dict()


def test_grad_scaler_growth_and_state_dict_round_trip():
    for lib in (pyad, torch):
        s = lib.amp.GradScaler("cpu", init_scale=3.0, growth_factor=3.0, backoff_factor=0.25,
                               growth_interval=7)
        assert s.get_scale() == 3.0 and s.is_enabled()
        assert s.state_dict() == {"scale": 3.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                                  "growth_interval": 7, "_growth_tracker": 0}
    ours, _ = run_loop(pyad, 1.0, init_scale=2.0 ** 127, growth_interval=1, inf_at=())
    theirs, _ = run_loop(torch, 1.0, init_scale=2.0 ** 127, growth_interval=1, inf_at=())
    assert [r[2:] for r in ours] == [r[2:] for r in theirs]     # a non-finite growth is refused
    s = pyad.amp.GradScaler("cpu")
    s.load_state_dict({"scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.1,
                       "growth_interval": 3, "_growth_tracker": 2})
    assert s.get_scale() == 8.0 and s.get_growth_factor() == 4.0
    assert s.get_backoff_factor() == 0.1 and s.get_growth_interval() == 3
    with pytest.raises(RuntimeError, match="state dict is empty"):
        s.load_state_dict({})


def test_grad_scaler_misuse_raises_torchs_types():
    for lib in (pyad, torch):
        with pytest.raises(AssertionError, match="growth factor"):
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(AssertionError, match="backoff factor"):
            lib.amp.GradScaler("cpu", backoff_factor=1.0)
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        with pytest.raises(AssertionError, match="_scale is None"):
            s.step(opt)
        s.scale(w.sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError, match="already been called"):
            s.unscale_(opt)
        s.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            s.step(opt)
        with pytest.raises(RuntimeError, match="Closure"):
            s.step(opt, closure=lambda: 0)
        s.update()
        opt.zero_grad()
        w16 = lib.ones(2, dtype=lib.float16, requires_grad=True)
        opt16 = lib.optim.SGD([w16], lr=0.1)
        s.scale(w16.sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
            s.unscale_(opt16)


def test_grad_scaler_scale_keeps_structure_and_dtype():
    for lib in (pyad, torch):
        s = lib.amp.GradScaler("cpu", init_scale=4.0)
        a, b = s.scale([lib.ones(2, dtype=lib.float16), (lib.ones(()),)])
        assert tdt(a.dtype) == "float16" and a.tolist() == [4.0, 4.0]
        assert tdt(b[0].dtype) == "float32" and float(b[0]) == 4.0
        with pytest.raises(ValueError, match="outputs must be a Tensor"):
            s.scale(3)


def test_disabled_scaler_passes_through_and_cuda_without_gpu_disables():
    for lib in (pyad, torch):
        s = lib.amp.GradScaler("cpu", enabled=False)
        x = lib.ones(2)
        assert s.scale(x) is x and s.get_scale() == 1.0 and s.state_dict() == {}
        assert not s.is_enabled()
    if torch.cuda.is_available() or pyad.cuda.is_available():
        return
    for lib in (pyad, torch):
        with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not "
                                             "available.  Disabling."):
            assert not lib.amp.GradScaler().is_enabled()
        with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                assert not lib.cuda.amp.GradScaler().is_enabled()
