"""torch.* names that ported scripts still missed: asarray / frombuffer, the dtype
algebra (promote_types, result_type, can_cast), set_default_tensor_type, is_storage,
vmap, pyad.jit, pyad.profiler and nn.DataParallel -- each compared with torch."""
import gzip
import json
import os
import typing
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


# -- helpers --------------------------------------------------------------------------------

def tdtype(d):
    """The torch dtype of a pyad (NumPy) dtype."""
    return getattr(torch, np.dtype(d).name)


def pdtype(t):
    """The pyad dtype of a torch dtype."""
    return np.dtype(getattr(pyad, str(t).split(".")[-1]))


def outcome(fn):
    """A call's result, or its exception type."""
    try:
        return fn()
    except Exception as exc:       # noqa: BLE001 -- the type is what is compared
        return type(exc)


@pytest.fixture
def restore_defaults():
    yield
    pyad.set_default_device(None)
    pyad.set_default_dtype(pyad.float32)
    torch.set_default_dtype(torch.float32)


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
if hasattr(pyad, "bfloat16"):
    DTYPES.append("bfloat16")


# -- asarray ----------------------------------------------------------------------------------

def _arrays():
    a = np.arange(12.0).reshape(3, 4)
    return {"float64": a, "transposed": a.T, "strided": a[:, ::2], "int32":
            np.arange(5, dtype=np.int32), "bool": np.array([True, False]),
            "zero-d": np.array(2.5), "empty": np.zeros((0, 3)),
            "float32": np.ones((2, 2), np.float32), "complex": np.array([1 + 2j]),
            "uint16": np.arange(3, dtype=np.uint16)}


@pytest.mark.parametrize("name", list(_arrays()))
def test_asarray_shares_a_numpy_array_as_torch(name):
    a = _arrays()[name]
    v, t = pyad.asarray(a), torch.asarray(a)
    assert v.dtype == pdtype(t.dtype) and tuple(v.shape) == tuple(t.shape)
    np.testing.assert_array_equal(v.data, t.numpy())
    shared = np.shares_memory(t.numpy(), a)
    # torch copies a 0-d array (it reads it as a NumPy scalar); an empty one shares no byte
    assert np.shares_memory(v.data, a) == shared == (a.ndim > 0 and a.size > 0)
    if shared:
        a.flat[0] = 1                      # both see a write to the source
        assert v.data.flat[0] == t.numpy().flat[0] == 1


@pytest.mark.parametrize("name", ["float64", "transposed", "int32", "empty"])
def test_asarray_copies_a_conversion_and_copy_true_and_refuses_copy_false(name):
    a = _arrays()[name]
    for kwargs in ({"dtype": pyad.float32}, {"copy": True}, {"dtype": pyad.float32,
                                                              "copy": True}):
        tkwargs = {k: (tdtype(v) if k == "dtype" else v) for k, v in kwargs.items()}
        v, t = pyad.asarray(a, **kwargs), torch.asarray(a, **tkwargs)
        assert v.dtype == pdtype(t.dtype)
        np.testing.assert_array_equal(v.data, t.numpy())
        assert np.shares_memory(v.data, a) == np.shares_memory(t.numpy(), a) == False  # noqa
    assert outcome(lambda: pyad.asarray(a, dtype=pyad.float16, copy=False)) \
        is outcome(lambda: torch.asarray(a, dtype=torch.float16, copy=False)) is ValueError
    same = pyad.asarray(a, dtype=a.dtype, copy=False)
    assert np.shares_memory(same.data, a) == (a.size > 0)


@pytest.mark.parametrize("obj", [[1, 2], [1.0, 2], [True, False], [1j, 2], [[1, 2], [3, 4]],
                                 3, 2.5, True, 1 + 1j, [], np.float64(2), np.int32(3),
                                 np.bool_(True), [np.float32(1), 2.0]],
                         ids=repr)
def test_asarray_of_numbers_and_sequences_as_torch(obj):
    v, t = pyad.asarray(obj), torch.asarray(obj)
    assert v.dtype == pdtype(t.dtype) and tuple(v.shape) == tuple(t.shape)
    np.testing.assert_array_equal(v.data, t.numpy())
    refused = outcome(lambda: pyad.asarray(obj, copy=False))
    assert refused is outcome(lambda: torch.asarray(obj, copy=False))
    assert refused is (RuntimeError if isinstance(obj, np.generic) else ValueError)
    for d in ("int64", "float64", "complex64"):
        t = outcome(lambda: torch.asarray(obj, dtype=getattr(torch, d)))
        if isinstance(t, type):         # (torch refuses complex -> int64)
            continue
        v = pyad.asarray(obj, dtype=np.dtype(d))
        np.testing.assert_array_equal(v.data, t.numpy())
        assert v.dtype == np.dtype(d)


def test_asarray_follows_the_default_dtype(restore_defaults):
    pyad.set_default_dtype(pyad.float64)
    torch.set_default_dtype(torch.float64)
    for obj in ([1.0], 2.5, [1j]):
        assert pyad.asarray(obj).dtype == pdtype(torch.asarray(obj).dtype)


def test_asarray_of_a_variable_aliases_or_copies_as_torch():
    x, tx = pyad.ones(3), torch.ones(3)
    assert pyad.asarray(x) is x and torch.asarray(tx) is tx
    assert pyad.asarray(x, dtype=pyad.float32, copy=False) is x
    c = pyad.asarray(x, copy=True)
    assert c is not x and not np.shares_memory(c.data, x.data)
    assert outcome(lambda: pyad.asarray(x, dtype=pyad.float64, copy=False)) is ValueError
    assert outcome(lambda: torch.asarray(tx, dtype=torch.float64, copy=False)) is ValueError
    d = pyad.asarray(x, dtype=pyad.float64)
    assert d.dtype == pyad.float64 and torch.asarray(tx, dtype=torch.float64).dtype \
        == torch.float64


def test_asarray_requires_grad_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # torch's note on the new default
        rows = []
        for lib in (pyad, torch):
            leaf = lib.tensor([1.0, 2.0], requires_grad=True)
            nonleaf = leaf * 2
            row = []
            y = lib.asarray(leaf)                              # kept: the leaf itself
            row += [y is leaf, y.requires_grad]
            y = lib.asarray(leaf, copy=True)                   # differentiable copy
            row += [y.requires_grad, y.grad_fn is not None]
            y = lib.asarray(leaf, dtype=lib.float64)           # differentiable conversion
            row += [y.requires_grad, y.grad_fn is not None]
            y = lib.asarray(leaf, copy=True, requires_grad=False)      # detached copy
            row += [y.requires_grad, y.grad_fn is not None]
            y = lib.asarray(nonleaf, requires_grad=False)      # detached alias
            row += [y is nonleaf, y.requires_grad, np.shares_memory(
                np.asarray(y.data if lib is pyad else y.numpy()),
                np.asarray(nonleaf.data if lib is pyad else nonleaf.detach().numpy()))]
            plain = lib.ones(2)
            y = lib.asarray(plain, requires_grad=True)         # flag set on the alias
            row += [y is plain, plain.requires_grad, y.is_leaf]
            y = lib.asarray(leaf, requires_grad=False)         # ... and cleared
            row += [y is leaf, leaf.requires_grad]
            y = lib.asarray([1.0, 2.0], requires_grad=True)
            row += [y.requires_grad, y.is_leaf]
            row.append(outcome(lambda: lib.asarray(lib.ones(2, dtype=lib.int64),
                                                   requires_grad=True)))
            row.append(outcome(lambda: lib.asarray([1, 2], requires_grad=True)))
            rows.append(row)
    assert rows[0] == rows[1]


def test_asarray_copy_of_a_variable_is_differentiable():
    x = pyad.tensor([1.0, 2.0, 3.0], dtype=pyad.float64, requires_grad=True)
    tx = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (pyad.asarray(x, copy=True) * pyad.asarray(x, dtype=pyad.float32)).sum().backward()
    (torch.asarray(tx, copy=True) * torch.asarray(tx, dtype=torch.float32)).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy())
    assert pyad.autograd.gradcheck(lambda a: pyad.asarray(a, copy=True) ** 2, (x,))
    assert pyad.autograd.gradgradcheck(lambda a: pyad.asarray(a, copy=True) ** 3, (x,))


def test_asarray_of_a_buffer_shares_it_as_torch():
    data = np.array([1.0, 2.0], np.float32).tobytes()
    b1, b2 = bytearray(data), bytearray(data)
    v, t = pyad.asarray(b1), torch.asarray(b2)
    assert v.dtype == pdtype(t.dtype)
    np.testing.assert_array_equal(v.data, t.numpy())
    v[0] = 5.0
    t[0] = 5.0
    assert b1 == b2 != bytearray(data)
    v, t = pyad.asarray(memoryview(b1), dtype=pyad.int32), torch.asarray(
        memoryview(b2), dtype=torch.int32)
    np.testing.assert_array_equal(v.data, t.numpy())


def test_asarray_of_array_module_objects_as_torch():
    import array
    a1, a2 = array.array("d", [1.0, 2.0]), array.array("d", [1.0, 2.0])
    v, t = pyad.asarray(a1), torch.asarray(a2)      # a buffer: read as the default dtype
    assert v.dtype == pdtype(t.dtype)
    np.testing.assert_array_equal(v.data, t.numpy())
    v, t = pyad.asarray(a1, dtype=pyad.float64), torch.asarray(a2, dtype=torch.float64)
    np.testing.assert_array_equal(v.data, t.numpy())
    v[0] = 9.0
    assert a1[0] == 9.0                             # shared
    jnp = pytest.importorskip("jax.numpy")
    j = jnp.arange(3.0)
    v, t = pyad.asarray(j), torch.asarray(j)       # __dlpack__
    assert v.dtype == pdtype(t.dtype)
    np.testing.assert_array_equal(v.data, t.numpy())


def test_asarray_refuses_what_torch_refuses():
    for obj in ("abc", np.zeros(2, dtype=object), [[1, 2], [3]], {"a": 1}, object()):
        p, t = outcome(lambda: pyad.asarray(obj)), outcome(lambda: torch.asarray(obj))
        assert p is t and isinstance(p, type) and issubclass(p, Exception), obj
        with pytest.raises(p, match="asarray"):
            pyad.asarray(obj)


def test_asarray_on_the_cpu_device_shares():
    a = np.arange(3.0)
    assert np.shares_memory(pyad.asarray(a, device="cpu").data, a)
    assert np.shares_memory(pyad.asarray(a, device=pyad.device("cpu")).data, a)


# -- frombuffer ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"dtype": "int32"}, {"dtype": "int8", "count": 3,
                                                         "offset": 2},
                                    {"dtype": "float32", "offset": 4},
                                    {"dtype": "int16", "count": 2}, {"dtype": "float64"},
                                    {"dtype": "uint8", "offset": 7}],
                         ids=repr)
def test_frombuffer_as_torch(kwargs):
    raw = bytes(range(1, 17))
    b1, b2 = bytearray(raw), bytearray(raw)
    v = pyad.frombuffer(b1, **{**kwargs, "dtype": np.dtype(kwargs["dtype"])})
    t = torch.frombuffer(b2, **{**kwargs, "dtype": getattr(torch, kwargs["dtype"])})
    assert v.dtype == pdtype(t.dtype) and tuple(v.shape) == tuple(t.shape)
    np.testing.assert_array_equal(v.data, t.numpy())
    v[0] = 0
    t[0] = 0
    assert b1 == b2 != bytearray(raw)          # written through to the buffer


@pytest.mark.parametrize("buffer,kwargs", [
    (bytearray(8), {"dtype": "int32", "count": 3}),
    (bytearray(8), {"dtype": "int32", "offset": 9}),
    (bytearray(8), {"dtype": "int32", "offset": 8}),
    (bytearray(8), {"dtype": "int32", "offset": -1}),
    (bytearray(8), {"dtype": "int32", "offset": 2}),
    (bytearray(7), {"dtype": "int32"}),
    (bytearray(0), {"dtype": "int32"}),
    (bytearray(8), {"dtype": "int32", "count": 0}),
    ([1, 2], {"dtype": "int8"}),
], ids=repr)
def test_frombuffer_refuses_what_torch_refuses(buffer, kwargs):
    p = outcome(lambda: pyad.frombuffer(buffer, **{**kwargs, "dtype": np.dtype(kwargs["dtype"])}))
    t = outcome(lambda: torch.frombuffer(buffer, **{**kwargs,
                                                    "dtype": getattr(torch, kwargs["dtype"])}))
    assert p is t is ValueError
    with pytest.raises(ValueError, match="frombuffer"):
        pyad.frombuffer(buffer, **{**kwargs, "dtype": np.dtype(kwargs["dtype"])})


def test_frombuffer_requires_grad_and_missing_dtype_as_torch():
    v = pyad.frombuffer(bytearray(8), dtype=pyad.float32, requires_grad=True)
    t = torch.frombuffer(bytearray(8), dtype=torch.float32, requires_grad=True)
    assert v.requires_grad and t.requires_grad and v.is_leaf and t.is_leaf
    assert outcome(lambda: pyad.frombuffer(bytearray(8), dtype=pyad.int32,
                                           requires_grad=True)) is RuntimeError
    assert outcome(lambda: torch.frombuffer(bytearray(8), dtype=torch.int32,
                                            requires_grad=True)) is RuntimeError
    assert outcome(lambda: pyad.frombuffer(bytearray(8))) is TypeError
    assert outcome(lambda: torch.frombuffer(bytearray(8))) is TypeError


def test_frombuffer_of_bytes_warns_and_reads():
    with pytest.warns(UserWarning, match="not writable"):
        v = pyad.frombuffer(b"abcd", dtype=pyad.int8)
    np.testing.assert_array_equal(v.data, [97, 98, 99, 100])


# -- promote_types, result_type, can_cast ---------------------------------------------------

def test_promote_types_matches_torchs_table():
    mismatches = []
    for a in DTYPES:
        for b in DTYPES:
            t = outcome(lambda: torch.promote_types(getattr(torch, a), getattr(torch, b)))
            p = outcome(lambda: pyad.promote_types(getattr(pyad, a), getattr(pyad, b)))
            expected = t if isinstance(t, type) else pdtype(t)
            if p != expected:
                mismatches.append((a, b, p, expected))
    assert not mismatches


def test_promote_types_accepts_numpy_types_and_refuses_others():
    assert pyad.promote_types(np.float32, np.int64) == pyad.float32
    assert outcome(lambda: pyad.promote_types(1, pyad.int32)) is TypeError \
        is outcome(lambda: torch.promote_types(1, torch.int32))
    with pytest.raises(RuntimeError, match="promote_types"):
        pyad.promote_types(pyad.uint16, pyad.int64)


def _operands(lib, dtype):
    if dtype == "py":
        return []
    return [("dim", lambda: lib.zeros(2, dtype=getattr(lib, dtype))),
            ("zero", lambda: lib.zeros((), dtype=getattr(lib, dtype)))]


SCALARS = [True, 3, 2.5, 1 + 2j, np.float64(1.5), np.int32(2)]


def test_result_type_matches_torch():
    mismatches = []
    kinds = []
    for d in DTYPES:
        for label, make in _operands(pyad, d):
            kinds.append((d, label))
    cases = [(x, y) for x in kinds for y in kinds] + \
            [(x, s) for x in kinds for s in SCALARS] + [(s, x) for x in kinds for s in SCALARS] + \
            [(s, r) for s in SCALARS for r in SCALARS]

    def build(lib, spec):
        if isinstance(spec, tuple):
            d, label = spec
            return lib.zeros(2 if label == "dim" else (), dtype=getattr(lib, d))
        return spec
    for x, y in cases:
        t = outcome(lambda: torch.result_type(build(torch, x), build(torch, y)))
        if t is torch.complex32 or t == torch.complex32:
            continue                    # torch's ComplexHalf: pyad has no such dtype
        p = outcome(lambda: pyad.result_type(build(pyad, x), build(pyad, y)))
        expected = t if isinstance(t, type) else pdtype(t)
        if p != expected:
            mismatches.append((x, y, p, expected))
    assert not mismatches, mismatches[:10]


def test_result_type_follows_the_default_dtype_and_refuses_others(restore_defaults):
    pyad.set_default_dtype(pyad.float64)
    torch.set_default_dtype(torch.float64)
    for x, y in ((1, 2.0), (pyad.tensor([1]), 2.0), (1, 2j)):
        tx = torch.tensor([1]) if isinstance(x, pyad.Variable) else x
        assert pyad.result_type(x, y) == pdtype(torch.result_type(tx, y))
    assert outcome(lambda: pyad.result_type("a", 2)) is TypeError \
        is outcome(lambda: torch.result_type("a", 2))


def test_result_type_is_the_dtype_ops_return():
    for a in ("int8", "uint8", "int32", "float16", "float64", "bool"):
        for other in (2, 2.5, pyad.zeros((), dtype=pyad.int64), pyad.zeros(3, dtype=pyad.float32)):
            x = pyad.zeros(3, dtype=getattr(pyad, a))
            assert pyad.result_type(x, other) == (x + other).dtype


def test_can_cast_matches_torchs_table():
    table = [(a, b, pyad.can_cast(getattr(pyad, a), getattr(pyad, b)),
              torch.can_cast(getattr(torch, a), getattr(torch, b)))
             for a in DTYPES for b in DTYPES]
    assert [r for r in table if r[2] != r[3]] == []
    assert outcome(lambda: pyad.can_cast(1, pyad.int32)) is TypeError \
        is outcome(lambda: torch.can_cast(1, torch.int32))


# -- set_default_tensor_type, is_storage, vmap -----------------------------------------------

@pytest.mark.parametrize("spec", ["torch.DoubleTensor", "torch.FloatTensor", "torch.HalfTensor",
                                  "DoubleTensor", "pyad.DoubleTensor", "class:DoubleTensor",
                                  "class:FloatTensor"])
def test_set_default_tensor_type_as_torch(spec, restore_defaults):
    def arg(lib):
        if spec.startswith("class:"):
            return getattr(lib, spec[6:])
        return spec
    with pytest.warns(UserWarning, match="deprecated"):
        pyad.set_default_tensor_type(arg(pyad))
    if spec.split(".")[0] in ("torch", "class:DoubleTensor", "class:FloatTensor"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.set_default_tensor_type(arg(torch))
        assert pyad.get_default_dtype() == pdtype(torch.get_default_dtype())
        assert pyad.tensor([1.0]).dtype == pdtype(torch.tensor([1.0]).dtype)
    else:                               # pyad's own spellings (torch imports the name)
        assert pyad.get_default_dtype() == pyad.float64


@pytest.mark.parametrize("spec", ["torch.LongTensor", "torch.cuda.FloatTensor", "torch.Foo",
                                  "class:LongTensor", "dtype", 3])
def test_set_default_tensor_type_refuses_as_torch(spec, restore_defaults, monkeypatch):
    if torch.cuda.is_available() or pyad.cuda.is_available():
        pytest.skip("this machine has a GPU")

    def arg(lib):
        if spec == "dtype":
            return lib.float64
        if isinstance(spec, str) and spec.startswith("class:"):
            return getattr(lib, spec[6:])
        return spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = outcome(lambda: pyad.set_default_tensor_type(arg(pyad)))
        t = outcome(lambda: torch.set_default_tensor_type(arg(torch)))
    assert p is t and isinstance(p, type) and issubclass(p, Exception)
    assert pyad.get_default_dtype() == pyad.float32


def test_is_storage_is_false_for_everything_pyad_has():
    for obj in (pyad.ones(2), pyad.ones(2).data, [1], None, pyad.nn.Parameter(pyad.ones(1))):
        assert pyad.is_storage(obj) is False
    assert torch.is_storage(torch.ones(2)) is False


def test_vmap_is_func_vmap_and_matches_torch():
    assert pyad.vmap is pyad.func.vmap
    x = np.random.default_rng(0).standard_normal((4, 3))
    p = pyad.vmap(lambda r: (r * r).sum())(pyad.tensor(x))
    t = torch.vmap(lambda r: (r * r).sum())(torch.tensor(x))
    np.testing.assert_allclose(p.data, t.numpy(), rtol=1e-12)


# -- pyad.jit -------------------------------------------------------------------------------

def _mlp(lib, seed=0):
    rng = np.random.default_rng(seed)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=lib.float64))
    return net.double() if lib is torch else net.to(dtype=pyad.float64)


@pytest.mark.parametrize("how", ["script", "trace"])
def test_jit_script_and_trace_compute_what_torchs_do(how):
    x = np.random.default_rng(1).standard_normal((5, 3))
    tnet, pnet = _mlp(torch), _mlp(pyad)
    if how == "script":
        tm, pm = torch.jit.script(tnet), pyad.jit.script(pnet)
    else:
        tm, pm = torch.jit.trace(tnet, torch.tensor(x)), pyad.jit.trace(pnet, pyad.tensor(x))
    assert pm is pnet
    tx, px = torch.tensor(x, requires_grad=True), pyad.tensor(x, requires_grad=True)
    tout, pout = tm(tx), pm(px)
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-12)
    tout.pow(2).sum().backward()
    pout.pow(2).sum().backward()
    np.testing.assert_allclose(px.grad.data, tx.grad.numpy(), rtol=1e-12)
    for (n, p), (m, q) in zip(pnet.named_parameters(), tnet.named_parameters()):
        assert n == m
        np.testing.assert_allclose(p.grad.data, q.grad.numpy(), rtol=1e-12)


def test_jit_script_of_a_function_and_decorators():
    def f(x, y):
        return x * y + y.exp()
    assert pyad.jit.script(f) is f and pyad.jit.trace(f, (pyad.ones(2), pyad.ones(2))) is f
    a, b = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    np.testing.assert_allclose(
        pyad.jit.script(f)(pyad.tensor(a), pyad.tensor(b)).data,
        torch.jit.script(f)(torch.tensor(a), torch.tensor(b)).numpy())
    x = pyad.tensor([0.3, 0.7], dtype=pyad.float64, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda v: pyad.jit.script(f)(v, v), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: pyad.jit.script(f)(v, v), (x,))

    def g(x):
        return x + 1
    for lib in (pyad, torch):
        assert lib.jit.ignore(g) is g and lib.jit.ignore(drop=True)(g) is g
        assert lib.jit.unused(g) is g and lib.jit.export(g) is g
        assert lib.jit.is_scripting() is False and lib.jit.is_tracing() is False
        assert lib.jit.annotate(typing.List[int], [1]) == [1]
        assert lib.jit.Final is typing.Final
        assert lib.jit.wait(lib.jit.fork(lambda a, b=0: a * 10 + b, 4, b=2)) == 42
        fut = lib.jit.fork(g, 1)
        assert fut.done() and fut.wait() == 2 and fut.value() == 2


def test_jit_errors_as_torch():
    def bad():
        raise KeyError("boom")
    for lib in (pyad, torch):
        assert outcome(lambda: lib.jit.fork(bad)) is KeyError
        assert outcome(lambda: lib.jit.trace(lambda x: x)) is TypeError
        assert outcome(lambda: lib.jit.trace_module(lambda x: x, {})) is AttributeError
        assert outcome(lambda: lib.jit.trace_module(lib.nn.Linear(1, 1), (lib.ones(1),))) \
            is AttributeError
    m = pyad.nn.Linear(2, 1)
    assert pyad.jit.trace_module(m, {"forward": (pyad.ones(2),)}) is m
    with pytest.raises(NotImplementedError, match=r"pyad\.jit\.save\(\).*pyad\.save"):
        pyad.jit.save(m, "m.pt")
    with pytest.raises(NotImplementedError, match=r"pyad\.jit\.load\(\).*pyad\.load"):
        pyad.jit.load("m.pt")


def test_jit_script_module_class_is_a_module():
    assert issubclass(pyad.jit.ScriptModule, pyad.nn.Module)
    assert issubclass(torch.jit.ScriptModule, torch.nn.Module)
    assert not isinstance(pyad.jit.script(pyad.nn.Linear(1, 1)), pyad.jit.ScriptModule)
    assert not isinstance(pyad.jit.script(len), pyad.jit.ScriptFunction)
    with pytest.raises(TypeError):
        pyad.jit.ScriptFunction()


# -- pyad.profiler --------------------------------------------------------------------------

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=1, active=1, repeat=2),
             dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
             dict(wait=3, warmup=2, active=1, skip_first=2, skip_first_wait=1),
             dict(wait=0, warmup=0, active=1), dict(wait=1, warmup=0, active=3, repeat=3)]


@pytest.mark.parametrize("kwargs", SCHEDULES, ids=repr)
def test_schedule_gives_torchs_actions(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, t = pyad.profiler.schedule(**kwargs), torch.profiler.schedule(**kwargs)
    assert [p(i).name for i in range(60)] == [t(i).name for i in range(60)]


def test_schedule_checks_and_warns_as_torch():
    for bad in (dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=0, active=0),
                dict(wait=0, warmup=1, active=1, repeat=-1),
                dict(wait=0, warmup=1, active=1, skip_first=-2)):
        assert outcome(lambda: pyad.profiler.schedule(**bad)) is AssertionError
        assert outcome(lambda: torch.profiler.schedule(**bad)) is AssertionError
    with pytest.warns(UserWarning, match="warmup"):
        pyad.profiler.schedule(wait=1, warmup=0, active=1)
    with pytest.warns(UserWarning, match="warmup"):
        torch.profiler.schedule(wait=1, warmup=0, active=1)
    assert outcome(lambda: pyad.profiler.schedule(wait=1, warmup=1, active=1)(-1)) \
        is AssertionError is outcome(lambda: torch.profiler.schedule(wait=1, warmup=1,
                                                                     active=1)(-1))
    assert outcome(lambda: pyad.profiler.schedule(1, 1, 1)) is TypeError


def test_enums_have_torchs_members():
    for ours, theirs in ((pyad.profiler.ProfilerActivity, torch.profiler.ProfilerActivity),
                         (pyad.profiler.ProfilerAction, torch.profiler.ProfilerAction)):
        for name, member in ours.__members__.items():
            assert int(getattr(theirs, name).value) == member.value, name
    assert set(pyad.profiler.ProfilerActivity.__members__) == set(
        torch.profiler.ProfilerActivity.__members__)


def _cycles(lib, steps, sched=None, acc_events=False):
    """For each on_trace_ready call: the step number then and the ProfilerStep#N
    ranges recorded in that cycle."""
    calls = []

    def ready(prof):
        names = sorted({e.trace_name for e in prof.events() if e.name == "ProfilerStep*"},
                       key=lambda n: int(n.split("#")[1]))
        calls.append((prof.step_num, names))
    x = lib.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=sched(lib) if sched else None,
                                  on_trace_ready=ready, acc_events=acc_events) as prof:
            for _ in range(steps):
                (x * 2).sum().backward()
                prof.step()
    return calls, prof


@pytest.mark.parametrize("kwargs", SCHEDULES + [None], ids=repr)
@pytest.mark.parametrize("steps", [0, 1, 7, 13])
def test_profile_cycles_as_torch(kwargs, steps):
    sched = (lambda lib: lib.profiler.schedule(**kwargs)) if kwargs else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, pprof = _cycles(pyad, steps, sched)
        theirs, tprof = _cycles(torch, steps, sched)
    assert ours == theirs
    # after the exit, events() is the last cycle (torch's too, even an empty one)
    last = lambda prof: (outcome(prof.events) if prof.profiler is None  # noqa: E731
                         else sorted(e.trace_name for e in prof.events()
                                     if e.name == "ProfilerStep*"))
    assert last(pprof) == last(tprof)


def test_profile_with_acc_events_keeps_every_cycle():
    sched = lambda lib: lib.profiler.schedule(wait=1, warmup=1, active=1)  # noqa: E731
    _, ours = _cycles(pyad, 9, sched, acc_events=True)
    _, theirs = _cycles(torch, 9, sched, acc_events=True)
    names = lambda prof: sorted(e.trace_name for e in prof.events()  # noqa: E731
                                if e.name == "ProfilerStep*")
    assert names(ours) == names(theirs) and len(names(ours)) == 3


def test_profile_records_ops_and_prints_the_table():
    x = pyad.ones(3, requires_grad=True)
    with pyad.profiler.profile(record_shapes=True) as prof:
        with pyad.profiler.record_function("my_block"):
            (x * 2).sum().backward()
    names = [e.name for e in prof.events()]
    assert "my_block" in names and "mul" in names and "MulBackward" in names
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    assert "Name" in table and "Self CPU" in table
    assert len(prof.key_averages(group_by_input_shape=True)) >= len(prof.key_averages())
    assert pyad.profiler.record_function is pyad.autograd.profiler.record_function


def test_profile_errors_and_warnings_as_torch():
    for lib in (pyad, torch):
        assert outcome(lambda: lib.profiler.profile(activities=[])) is AssertionError
        p = lib.profiler.profile()
        assert outcome(p.events) is AssertionError and outcome(p.key_averages) is AssertionError
        with pytest.warns(FutureWarning, match="use_cuda"):
            lib.profiler.profile(use_cuda=False)
    if not torch.cuda.is_available() and not pyad.cuda.is_available():
        for lib in (pyad, torch):
            with pytest.warns(UserWarning, match="CUDA is not available"):
                with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU,
                                                      lib.profiler.ProfilerActivity.CUDA]) as p:
                    lib.ones(2) * 2
            assert any("mul" in e.name for e in p.events())
    assert pyad.profiler.supported_activities() >= {pyad.profiler.ProfilerActivity.CPU}


def test_profile_with_stack_and_memory_exports_stacks(tmp_path):
    x = pyad.ones(64, requires_grad=True)
    with pyad.profiler.profile(with_stack=True, profile_memory=True, with_flops=True,
                               with_modules=True) as prof:
        (x * 2).sum().backward()
    mul = next(e for e in prof.events() if e.name == "mul")
    assert mul.stack and mul.cpu_memory_usage == 64 * 4
    prof.export_stacks(str(tmp_path / "stacks.txt"))
    assert "mul" in (tmp_path / "stacks.txt").read_text()


def test_export_chrome_trace_plain_and_gzip(tmp_path):
    x = pyad.ones(3, requires_grad=True)
    with pyad.profiler.profile() as prof:
        (x * 2).sum().backward()
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    prof.export_chrome_trace(str(tmp_path / "t.json.gz"))
    plain = json.loads((tmp_path / "t.json").read_text())
    with gzip.open(tmp_path / "t.json.gz", "rt") as f:
        zipped = json.load(f)
    names = {e["name"] for e in plain["traceEvents"]}
    assert "mul" in names and names == {e["name"] for e in zipped["traceEvents"]}
    assert sorted(os.listdir(tmp_path)) == ["t.json", "t.json.gz"]


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_one_whole_trace_per_cycle(tmp_path, use_gzip):
    out = tmp_path / "logs" / "run"
    handler = pyad.profiler.tensorboard_trace_handler(str(out), worker_name="w0",
                                                      use_gzip=use_gzip)
    x = pyad.ones(3, requires_grad=True)
    with pyad.profiler.profile(schedule=pyad.profiler.schedule(wait=1, warmup=1, active=2),
                               on_trace_ready=handler) as prof:
        for _ in range(8):
            (x * 2).sum().backward()
            prof.step()
    files = sorted(os.listdir(out))
    suffix = ".pt.trace.json" + (".gz" if use_gzip else "")
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(suffix) for f in files)
    for f in files:
        opener = gzip.open if use_gzip else open
        with opener(out / f, "rt") as fp:
            trace = json.load(fp)
        assert any(e["name"].startswith("ProfilerStep#") for e in trace["traceEvents"])
    handler = pyad.profiler.tensorboard_trace_handler(str(tmp_path / "default"))
    with pyad.profiler.profile(on_trace_ready=handler):
        x * 2
    (only,) = os.listdir(tmp_path / "default")
    assert only.startswith("%s_%d." % (__import__("socket").gethostname(), os.getpid()))


# -- nn.DataParallel ------------------------------------------------------------------------

@pytest.fixture
def no_gpu():
    if torch.cuda.is_available() or pyad.cuda.is_available():
        pytest.skip("this machine has a GPU")


def test_data_parallel_without_a_gpu_calls_the_module_as_torch(no_gpu):
    tnet, pnet = _mlp(torch), _mlp(pyad)
    tdp, pdp = torch.nn.DataParallel(tnet), pyad.nn.DataParallel(pnet)
    assert pdp.module is pnet and tdp.module is tnet
    assert pdp.device_ids == tdp.device_ids == []
    for attr in ("dim", "output_device", "src_device_obj"):
        assert hasattr(pdp, attr) == hasattr(tdp, attr)
    assert list(pdp.state_dict()) == list(tdp.state_dict())
    assert repr(pdp) == repr(tdp)
    x = np.random.default_rng(2).standard_normal((6, 3))
    tx, px = torch.tensor(x, requires_grad=True), pyad.tensor(x, requires_grad=True)
    tout, pout = tdp(tx), pdp(px)
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-12)
    tout.sum().backward()
    pout.sum().backward()
    np.testing.assert_allclose(px.grad.data, tx.grad.numpy(), rtol=1e-12)
    for p, q in zip(pdp.parameters(), tdp.parameters()):
        np.testing.assert_allclose(p.grad.data, q.grad.numpy(), rtol=1e-12)
    # the state_dict round-trips into the bare module after stripping the prefix
    bare = _mlp(pyad, seed=5)
    bare.load_state_dict({k[len("module."):]: v for k, v in pdp.state_dict().items()})
    np.testing.assert_allclose(bare(px).data, pout.data)
    # keyword arguments go through as well
    kw = pyad.nn.DataParallel(pyad.nn.Bilinear(2, 2, 1))
    a = pyad.ones(1, 2)
    np.testing.assert_allclose(kw(a, input2=a).data, kw.module(a, a).data)


def test_data_parallel_keeps_float32_and_takes_empty_and_strided_batches(no_gpu):
    rng = np.random.default_rng(4)
    w, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(2).astype(
        np.float32)
    nets = []
    for lib in (pyad, torch):
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(w))
            lin.bias.copy_(lib.tensor(b))
        nets.append(lib.nn.DataParallel(lin))
    x = rng.standard_normal((3, 5)).astype(np.float32).T      # non-contiguous (5, 3)
    for batch in (x, x[:0]):
        p, t = nets[0](pyad.tensor(batch)), nets[1](torch.tensor(batch))
        assert p.dtype == pyad.float32 and t.dtype == torch.float32
        assert tuple(p.shape) == tuple(t.shape)
        np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-6, atol=1e-6)
    p = nets[0](pyad.from_numpy(x))
    np.testing.assert_allclose(p.data, nets[1](torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)


def test_data_parallel_wrapper_is_differentiable_twice(no_gpu):
    dp = pyad.nn.DataParallel(_mlp(pyad))
    x = pyad.tensor(np.random.default_rng(3).standard_normal((2, 3)), dtype=pyad.float64,
                    requires_grad=True)
    assert pyad.autograd.gradcheck(dp, (x,))
    assert pyad.autograd.gradgradcheck(dp, (x,))


def test_data_parallel_function_needs_a_device_as_torch(no_gpu):
    for lib in (pyad, torch):
        assert outcome(lambda: lib.nn.parallel.data_parallel(lib.nn.Linear(2, 1),
                                                             lib.ones(1, 2))) is RuntimeError
    with pytest.raises(RuntimeError, match="data_parallel"):
        pyad.nn.parallel.data_parallel(pyad.nn.Linear(2, 1), pyad.ones(1, 2))


def test_data_parallel_with_gpus_reads_device_ids_and_checks_the_module(monkeypatch):
    monkeypatch.setattr(pyad.cuda, "is_available", lambda: True)
    monkeypatch.setattr(pyad.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(pyad.cuda, "current_device", lambda: 2)
    dp = pyad.nn.DataParallel(pyad.nn.Linear(2, 1), device_ids=[1, "cuda:0"])
    assert dp.device_ids == [1, 0] and dp.output_device == 1 and dp.dim == 0
    assert dp.src_device_obj == pyad.device("cuda", 1)
    dp = pyad.nn.DataParallel(pyad.nn.Linear(2, 1), output_device=pyad.device("cuda", 2))
    assert dp.device_ids == [0, 1, 2] and dp.output_device == 2
    # the module is on the CPU, not on device_ids[0]: torch's RuntimeError
    with pytest.warns(UserWarning, match="replicate"), \
            pytest.raises(RuntimeError, match="parameters and buffers on device cuda:0"):
        dp(pyad.ones(1, 2))
    with pytest.raises(RuntimeError, match="data_parallel.*parameters and buffers"):
        pyad.nn.parallel.data_parallel(pyad.nn.Linear(2, 1), pyad.ones(1, 2))
    with pytest.raises(ValueError, match="cuda device"):
        pyad.nn.DataParallel(pyad.nn.Linear(2, 1), device_ids=["cpu"])


def test_names_are_exported():
    for name in ("asarray", "frombuffer", "promote_types", "result_type", "can_cast",
                 "set_default_tensor_type", "is_storage", "vmap", "jit", "profiler"):
        assert name in pyad.__all__ and hasattr(torch, name)
    assert "DataParallel" in pyad.nn.__all__ and pyad.nn.DataParallel is \
        pyad.nn.parallel.DataParallel
    assert "data_parallel" in pyad.nn.parallel.__all__
