"""The namespaces a torch script touches first: pyad.cuda, pyad.backends, the default
device and dtype (followed by factories and modules), pyad.Generator and manual_seed."""
import types

import numpy as np
import pytest

import pyad
from pyad import _engine


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(_engine, "cupy", None)


class FakeRuntime:
    def __init__(self):
        self.current = 0

    def getDeviceCount(self):
        return 2

    def getDevice(self):
        return self.current

    def setDevice(self, i):
        self.current = i

    def getDeviceProperties(self, i):
        return {"name": b"Fake GPU %d" % i}


class FakeDevice:
    synced = []

    def __init__(self, i=None):
        self.i = i

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def synchronize(self):
        FakeDevice.synced.append(self.i)


def fake_cupy():
    pool = types.SimpleNamespace(used_bytes=lambda: 4096, free_all_blocks=lambda: None)
    seeds = []
    cp = types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=FakeRuntime(), Device=FakeDevice),
        random=types.SimpleNamespace(seed=seeds.append),
        get_default_memory_pool=lambda: pool)
    return cp, seeds


def test_cuda_without_a_gpu_answers_no(no_gpu):
    assert pyad.cuda.is_available() is False
    assert pyad.cuda.is_initialized() is False
    assert pyad.cuda.device_count() == 0
    pyad.cuda.manual_seed(0)                   # silently ignored, as torch
    pyad.cuda.manual_seed_all(0)
    pyad.cuda.empty_cache()
    for call in (pyad.cuda.current_device, pyad.cuda.get_device_name, pyad.cuda.synchronize,
                 pyad.cuda.get_device_capability, lambda: pyad.cuda.set_device(0)):
        with pytest.raises(RuntimeError, match=r"pyad\.cuda\.\w+\(\): no GPU"):
            call()


def test_cuda_is_answered_by_cupy_when_present(monkeypatch):
    cp, seeds = fake_cupy()
    monkeypatch.setattr(_engine, "cupy", cp)
    assert pyad.cuda.is_available() and pyad.cuda.device_count() == 2
    assert pyad.cuda.current_device() == 0
    pyad.cuda.set_device("cuda:1")
    assert pyad.cuda.current_device() == 1
    pyad.cuda.set_device(pyad.device("cuda", 0))
    assert pyad.cuda.get_device_name() == "Fake GPU 0"
    assert pyad.cuda.get_device_name(1) == "Fake GPU 1"
    assert pyad.cuda.memory_allocated() == 4096
    pyad.cuda.synchronize()
    pyad.cuda.manual_seed(7)
    pyad.cuda.manual_seed_all(8)
    assert seeds == [7, 8, 8]
    with pytest.raises(ValueError, match="expected a cuda device"):
        pyad.cuda.get_device_name("cpu")


def test_cuda_with_cupy_but_no_device_answers_no(monkeypatch):
    cp, _ = fake_cupy()
    cp.cuda.runtime.getDeviceCount = lambda: (_ for _ in ()).throw(RuntimeError("no driver"))
    monkeypatch.setattr(_engine, "cupy", cp)
    assert pyad.cuda.is_available() is False and pyad.cuda.device_count() == 0


def test_cuda_matches_torch_on_a_machine_without_a_gpu():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() or _engine.cupy is not None:
        pytest.skip("this machine has a GPU stack")
    assert pyad.cuda.is_available() == torch.cuda.is_available()
    assert pyad.cuda.device_count() == torch.cuda.device_count()
    assert pyad.backends.mps.is_available() == torch.backends.mps.is_available()


def test_backends():
    assert pyad.backends.mps.is_available() is False and pyad.backends.mps.is_built() is False
    cudnn = pyad.backends.cudnn
    assert cudnn.benchmark is False and cudnn.deterministic is False
    cudnn.benchmark, cudnn.deterministic = True, True
    try:
        assert cudnn.benchmark and cudnn.deterministic
    finally:
        cudnn.benchmark, cudnn.deterministic = False, False
    assert cudnn.is_available() is (_engine.cupy is not None and pyad.cuda.is_available()
                                    and cudnn.is_available())
    if not cudnn.is_available():
        assert cudnn.version() is None


def test_the_usual_device_line_of_a_torch_script_runs():
    device = pyad.device("cuda" if pyad.cuda.is_available() else
                         "mps" if pyad.backends.mps.is_available() else "cpu")
    model = pyad.nn.Linear(3, 2).to(device)
    assert model(pyad.zeros(4, 3).to(device)).shape == (4, 2)


def test_accelerator_and_xpu_match_torch_on_a_machine_without_a_gpu(no_gpu):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() or torch.xpu.is_available():
        pytest.skip("torch sees an accelerator here")
    for lib in (torch, pyad):
        assert lib.accelerator.is_available() is False
        assert lib.accelerator.current_accelerator() is None
        assert lib.accelerator.current_accelerator(check_available=True) is None
        assert lib.accelerator.device_count() == 0
        for call in (lib.accelerator.current_device_index, lib.accelerator.synchronize,
                     lambda: lib.accelerator.set_device_index(0)):
            with pytest.raises(RuntimeError, match="Cannot access accelerator device when "
                                                   "none is available"):
                call()
        assert lib.xpu.is_available() is False and lib.xpu.is_initialized() is False
        assert lib.xpu.device_count() == 0
        for quiet in (lambda: lib.xpu.manual_seed(0), lambda: lib.xpu.manual_seed_all(0),
                      lib.xpu.seed, lib.xpu.seed_all, lib.xpu.empty_cache):
            assert quiet() is None
        for call in (lib.xpu.current_device, lib.xpu.get_device_name, lib.xpu.synchronize,
                     lambda: lib.xpu.set_device(0)):
            with pytest.raises(AssertionError):
                call()
    with pytest.raises(RuntimeError, match=r"pyad\.accelerator\.synchronize\(\)"):
        pyad.accelerator.synchronize()
    with pytest.raises(AssertionError, match=r"pyad\.xpu\.current_device\(\)"):
        pyad.xpu.current_device()


def test_accelerator_is_cuda_when_cupy_sees_a_gpu(monkeypatch):
    cp, _ = fake_cupy()
    monkeypatch.setattr(_engine, "cupy", cp)
    assert pyad.accelerator.is_available() is True
    acc = pyad.accelerator.current_accelerator()
    assert acc.type == "cuda" and pyad.accelerator.current_accelerator(True).type == "cuda"
    assert pyad.accelerator.device_count() == 2
    assert pyad.accelerator.current_device_index() == 0
    pyad.accelerator.set_device_index(1)
    assert pyad.accelerator.current_device_index() == 1 == pyad.cuda.current_device()
    FakeDevice.synced.clear()
    pyad.accelerator.synchronize()
    assert FakeDevice.synced


def test_the_accelerator_device_line_of_a_recent_torch_script_runs():
    # pytorch/examples and the tutorials now pick the device this way
    device = (pyad.accelerator.current_accelerator().type
              if pyad.accelerator.is_available() else "cpu")
    use_xpu = pyad.xpu.is_available()
    model = pyad.nn.Linear(3, 2).to(device)
    assert not use_xpu and model(pyad.zeros(4, 3).to(device)).shape == (4, 2)


# -- default device and dtype ----------------------------------------------------------------

@pytest.fixture
def restore_defaults():
    yield
    pyad.set_default_device(None)
    pyad.set_default_dtype(pyad.float32)


def test_default_device_is_cpu_and_settable(restore_defaults):
    assert pyad.get_default_device() == pyad.device("cpu")
    pyad.set_default_device("cpu")
    assert pyad.get_default_device() == pyad.device("cpu")
    pyad.set_default_device(pyad.device("cpu"))
    assert pyad.zeros(2).device == pyad.device("cpu")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        pyad.set_default_device("tpu")


@pytest.mark.parametrize("make", [lambda: pyad.zeros(2), lambda: pyad.ones(2),
                                  lambda: pyad.empty(2), lambda: pyad.randn(2),
                                  lambda: pyad.rand(2), lambda: pyad.tensor([1.0]),
                                  lambda: pyad.arange(3), lambda: pyad.full((2,), 1.0),
                                  lambda: pyad.eye(2), lambda: pyad.linspace(0, 1, 3),
                                  lambda: pyad.randperm(3), lambda: pyad.randint(0, 3, (2,)),
                                  lambda: pyad.nn.Linear(2, 2)],
                         ids=["zeros", "ones", "empty", "randn", "rand", "tensor", "arange",
                              "full", "eye", "linspace", "randperm", "randint", "Linear"])
def test_factories_and_modules_follow_the_default_device(make, restore_defaults,
                                                         monkeypatch):
    monkeypatch.setattr(_engine, "cupy", None)
    pyad.set_default_device("cuda")
    assert pyad.get_default_device() == pyad.device("cuda", 0)
    with pytest.raises(RuntimeError, match="needs CuPy"):
        make()
    pyad.set_default_device(None)
    make()


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_factories_and_modules_follow_the_default_dtype_as_torch(dtype, restore_defaults):
    torch = pytest.importorskip("torch")
    torch_default = torch.get_default_dtype()
    try:
        torch.set_default_dtype(getattr(torch, dtype))
        pyad.set_default_dtype(getattr(pyad, dtype))
        assert pyad.get_default_dtype() == np.dtype(dtype)
        for make in ["zeros(2)", "ones(2)", "empty(2)", "rand(2)", "randn(2)", "tensor(1.5)",
                     "tensor([1, 2.5])", "arange(0.0, 1.0, 0.5)", "full((2,), 0.5)",
                     "linspace(0, 1, 3)", "eye(2)", "tensor(1)", "arange(3)",
                     "full((2,), 1)", "tensor([True])", "tensor(1j)", "tensor([1.5, 2j])",
                     "tensor([[1, 2j]])"]:
            if dtype == "float16" and "j" in make:
                continue          # torch makes complex32, which NumPy does not have
            ours = eval("pyad." + make).dtype
            theirs = eval("torch." + make).dtype
            assert str(ours) == str(theirs).replace("torch.", ""), make
        lin = pyad.nn.Linear(2, 2)
        assert lin.weight.dtype == np.dtype(dtype) and lin.bias.dtype == np.dtype(dtype)
    finally:
        torch.set_default_dtype(torch_default)


def test_default_dtype_refuses_integers_with_a_type_error(restore_defaults):
    with pytest.raises(TypeError, match="set_default_dtype"):
        pyad.set_default_dtype(pyad.int64)


# -- Generator and manual_seed -----------------------------------------------------------------

def test_manual_seed_returns_the_default_generator():
    g = pyad.manual_seed(11)
    assert isinstance(g, pyad.Generator) and g is pyad.default_generator
    assert g.initial_seed() == 11 == pyad.initial_seed()
    a = pyad.rand(4)
    pyad.manual_seed(11)
    assert (pyad.rand(4) == a).all()


@pytest.mark.parametrize("factory", [lambda g: pyad.rand(5, generator=g),
                                     lambda g: pyad.randn(2, 3, generator=g),
                                     lambda g: pyad.randint(0, 100, (6,), generator=g),
                                     lambda g: pyad.randperm(9, generator=g)],
                         ids=["rand", "randn", "randint", "randperm"])
def test_generators_are_independent_and_reproducible(factory):
    g1, g2 = pyad.Generator().manual_seed(3), pyad.Generator().manual_seed(3)
    a = factory(g1)
    pyad.manual_seed(0)
    _ = pyad.rand(10)                               # the default stream does not interfere
    assert (factory(g2) == a).all()
    assert not (factory(g1) == a).all() or a.numel() < 2


def test_generator_state_round_trips_and_seed_is_fresh():
    g = pyad.Generator()
    assert g.device == pyad.device("cpu")
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    assert state.dtype == np.uint8
    a = pyad.rand(3, generator=g)
    assert g.set_state(state) is g
    assert (pyad.rand(3, generator=g) == a).all()
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    with pytest.raises(TypeError, match="set_state"):
        g.set_state([1, 2])
    if _engine.cupy is None:
        with pytest.raises(RuntimeError, match="needs CuPy"):
            pyad.Generator("cuda")


def test_negative_and_large_seeds_are_accepted_as_torch():
    torch = pytest.importorskip("torch")
    for seed in [-1, 2 ** 63, 2 ** 64 - 1]:
        assert pyad.Generator().manual_seed(seed).initial_seed() == \
            torch.Generator().manual_seed(seed).initial_seed()
    for seed in [2 ** 64, -2 ** 63 - 1]:            # ValueError in torch 2.13
        with pytest.raises(ValueError):
            torch.Generator().manual_seed(seed)
        with pytest.raises(ValueError, match="Overflow"):
            pyad.Generator().manual_seed(seed)


def test_randperm_is_a_permutation_with_torchs_dtype_and_checks():
    torch = pytest.importorskip("torch")
    for n in [0, 1, 7]:
        ours, theirs = pyad.randperm(n), torch.randperm(n)
        assert sorted(ours.tolist()) == list(range(n))
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    assert pyad.randperm(4, dtype=pyad.float32).dtype == np.float32
    with pytest.raises(TypeError, match="randperm"):
        pyad.randperm(2.5)
    with pytest.raises(RuntimeError, match="randperm"):
        pyad.randperm(-1)


def test_a_generator_of_the_wrong_kind_is_refused():
    with pytest.raises(TypeError, match="rand\\(\\): generator must be a pyad.Generator"):
        pyad.rand(2, generator=object())


@pytest.mark.parametrize("name", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_",
                                  "kaiming_uniform_", "kaiming_normal_", "trunc_normal_",
                                  "orthogonal_"])
def test_nn_init_takes_a_generator_as_torch(name):
    import inspect
    torch = pytest.importorskip("torch")
    ours = inspect.signature(getattr(pyad.nn.init, name))
    theirs = inspect.signature(getattr(torch.nn.init, name))
    assert list(ours.parameters) == list(theirs.parameters)
    fill = getattr(pyad.nn.init, name)
    a = fill(pyad.empty(4, 5, dtype=pyad.float64), generator=pyad.Generator().manual_seed(9))
    b = fill(pyad.empty(4, 5, dtype=pyad.float64), generator=pyad.Generator().manual_seed(9))
    c = fill(pyad.empty(4, 5, dtype=pyad.float64), generator=pyad.Generator().manual_seed(10))
    assert (a == b).all() and not (a == c).all()
    w = pyad.nn.Parameter(pyad.zeros(3, 3))
    fill(w, generator=pyad.Generator())
    assert w.requires_grad and w.is_leaf and w.dtype == np.float32


def test_cuda_memory_questions_answer_as_torch_without_a_gpu(no_gpu):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("torch sees a GPU here")
    for name in ("memory_allocated", "memory_reserved", "max_memory_allocated",
                 "max_memory_reserved"):
        assert getattr(pyad.cuda, name)() == getattr(torch.cuda, name)() == 0
    assert dict(pyad.cuda.memory_stats()) == dict(torch.cuda.memory_stats()) == {}
    assert pyad.cuda.is_bf16_supported() is torch.cuda.is_bf16_supported() is False
    pyad.cuda.reset_peak_memory_stats()      # nothing to reset


def test_cuda_peak_statistics_refuse_with_cupy(monkeypatch):
    cp, _ = fake_cupy()
    monkeypatch.setattr(_engine, "cupy", cp)
    for call in (pyad.cuda.max_memory_allocated, pyad.cuda.reset_peak_memory_stats):
        with pytest.raises(RuntimeError, match="keeps no peak"):
            call()


def test_backends_cuda_switches_as_torch():
    torch = pytest.importorskip("torch")
    matmul = pyad.backends.cuda.matmul
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction"):
        assert getattr(matmul, name) == getattr(torch.backends.cuda.matmul, name)
    matmul.allow_tf32 = True
    try:
        assert pyad.backends.cuda.matmul.allow_tf32 is True
    finally:
        matmul.allow_tf32 = False
    with pytest.raises(AttributeError):
        matmul.allow_tf64 = True              # a typo is not silently accepted
    assert pyad.backends.cudnn.allow_tf32 == torch.backends.cudnn.allow_tf32
    cuda = pyad.backends.cuda
    assert cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()
    with cuda.sdp_kernel(enable_flash=False):
        assert not cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()
    assert cuda.flash_sdp_enabled()
    cuda.enable_mem_efficient_sdp(False)
    try:
        assert cuda.mem_efficient_sdp_enabled() is False
    finally:
        cuda.enable_mem_efficient_sdp(True)
    assert cuda.is_built() is (_engine.cupy is not None)
    assert pyad.backends.mkldnn.is_available() is False
    assert pyad.backends.opt_einsum.enabled is True
    assert pyad.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "NEON", "DEFAULT")


def test_mps_compiler_and_hooks_modules():
    torch = pytest.importorskip("torch")
    assert pyad.mps.is_available() is torch.mps.is_available() is False
    assert pyad.mps.device_count() == 0
    pyad.mps.manual_seed(0)
    with pytest.raises(RuntimeError, match="no MPS"):
        pyad.mps.synchronize()

    def f(x):
        return x * 2
    assert pyad.compiler.disable(f) is f
    assert pyad.compiler.disable(recursive=False)(f) is f
    assert pyad.compiler.is_compiling() is torch.compiler.is_compiling() is False
    assert pyad.compiler.is_dynamo_compiling() is False
    model = pyad.nn.Linear(2, 2)
    assert pyad.compiler.compile(model) is model
    from pyad.utils.hooks import RemovableHandle
    handle = pyad.ones(2, requires_grad=True).register_hook(lambda g: g)
    assert isinstance(handle, RemovableHandle)
    assert isinstance(model.register_forward_hook(lambda *a: None), RemovableHandle)


def test_sdpa_kernel_checks_its_arguments_as_torch():
    torch = pytest.importorskip("torch")
    from pyad.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.attention as tattn
    assert {m.name: int(m) for m in SDPBackend} == {
        name: int(m.value) for name, m in tattn.SDPBackend.__members__.items()}
    q = np.random.default_rng(0).standard_normal((1, 2, 4, 8))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION), \
            tattn.sdpa_kernel(tattn.SDPBackend.FLASH_ATTENTION):
        got = pyad.nn.functional.scaled_dot_product_attention(
            pyad.tensor(q), pyad.tensor(q), pyad.tensor(q), is_causal=True)
        want = torch.nn.functional.scaled_dot_product_attention(
            torch.tensor(q), torch.tensor(q), torch.tensor(q), is_causal=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    with sdpa_kernel([]):
        pass
    for bad in ("MATH", None, (SDPBackend.MATH,)):
        with pytest.raises(AssertionError, match="must be an instance of SDPBackend"):
            with sdpa_kernel(bad):
                pass
        with pytest.raises(AssertionError):
            with tattn.sdpa_kernel(bad):
                pass


def _forked_square(index, values, queue):
    queue.put((index, (pyad.tensor(values) * (index + 1)).sum().item()))


def _forked_failure(index):
    if index == 1:
        raise ValueError("rank one fails")
    import time
    time.sleep(30)                     # the others are terminated, not waited for


def test_multiprocessing_spawn_runs_and_fails_fast():
    import operator
    import time
    import pyad.multiprocessing as mp
    # spawn's children import the function by name: the standard library's here (a test
    # module is not importable by name under pytest's importlib mode)
    mp.spawn(time.sleep, nprocs=2)                       # sleep(0), sleep(1)
    with pytest.raises(mp.ProcessRaisedException, match="ZeroDivisionError"):
        mp.spawn(operator.truediv, args=(0,), nprocs=2)   # 0 / 0 and 1 / 0
    # fork's children run the test's own functions
    context = mp.get_context("fork")
    queue = context.SimpleQueue()
    mp.start_processes(_forked_square, args=([1.0, 2.0], queue), nprocs=2,
                       start_method="fork")
    assert sorted(queue.get() for _ in range(2)) == [(0, 3.0), (1, 6.0)]
    start = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException, match="rank one fails"):
        mp.start_processes(_forked_failure, nprocs=2, start_method="fork")
    assert time.monotonic() - start < 25
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nonsense")
    assert mp.Process is __import__("multiprocessing").Process
