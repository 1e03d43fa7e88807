"""Ports of PyTorch's serialization and state_dict tests, run against torch 2.13 on the
same inputs.

Mirrors (by name, in comments): ``test/test_serialization.py`` (TestSerialization /
TestOldSerialization: dtypes, 0-d and empty tensors, non-contiguous tensors, the same
tensor twice, containers, ``map_location``, path-likes and file objects, parameters,
``requires_grad``, ``weights_only`` refusals, ``pickle_module``), ``test/nn/
test_load_state_dict.py`` (strict errors, BC of BatchNorm's num_batches_tracked,
hooks, custom ``_load_from_state_dict``, ``assign=True``, reference cycles) and the
state_dict tests of ``test/test_nn.py`` (state_dict keys/sharing/keep_vars/prefix,
state_dict and load_state_dict hooks), plus optimizer state round trips that continue
training exactly as torch does from the same weights.

Left out, and why:
- pickle-specific behaviour (arbitrary Python objects, whole modules, ``dill``, tensor
  subclasses, ``torch.serialization.add_safe_globals``, storages, sparse/quantized/meta
  tensors, mmap, byte order records, the legacy tar format): pyad's checkpoint format is
  an ``.npz`` plus a JSON index and never pickles; here we test that pyad refuses such
  objects at save time with TypeError and refuses torch's pickles at load time with
  ``pickle.UnpicklingError`` (what torch's ``weights_only`` loader raises).
- strides of a lone strided view: torch saves the whole storage, so ``x[::2]`` saved
  alone loads with stride 2; pyad saves its values (contiguous). Views saved together
  with their base (or with each other) do load as views sharing memory, as torch's.
- ``map_location='meta'`` and ``torch.device('meta')`` constructions: pyad has no meta
  device.
- CUDA checkpoints: need a GPU (this test file is CPU only); the no-GPU error for
  ``map_location='cuda'`` is tested.
- ``test_serialization_offset_filelike`` (two checkpoints back to back in one buffer):
  torch's own zipfile format fails it too (only the legacy format supports it).
- ``test_load_state_dict_invalid``: pyad deliberately loads NumPy arrays and nested
  sequences from a state_dict (its storage is NumPy); only a value that is not
  array-like is refused (RuntimeError, as torch), tested here.
"""
import collections
import copy
import gc
import io
import pathlib
import pickle

import numpy as np
import pytest

import pyad
from pyad import nn, optim

torch = pytest.importorskip("torch")


def p_round_trip(obj, **kwargs):
    buf = io.BytesIO()
    pyad.save(obj, buf)
    buf.seek(0)
    return pyad.load(buf, **kwargs)


def t_round_trip(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kwargs)


def np_of(t):
    return t.detach().numpy()


DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32",
          "float64", "complex64", "complex128"]


def _values(dtype_name, shape):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shape) * 5
    if dtype_name == "bool":
        return a > 0
    if dtype_name.startswith("complex"):
        return (a + 1j * rng.normal(size=shape)).astype(dtype_name)
    if dtype_name == "uint8":
        return np.abs(a).astype(dtype_name)
    return a.astype(dtype_name)


# -- TestSerialization: tensors of every dtype and shape ----------------------------------

@pytest.mark.parametrize("dtype_name", DTYPES)
def test_serialization_dtypes(dtype_name):
    # mirrors test_serialization / _test_serialization_assert over torch's dtypes
    a = _values(dtype_name, (2, 3))
    t = t_round_trip(torch.from_numpy(a.copy()))
    p = p_round_trip(pyad.tensor(a.copy()))
    assert isinstance(p, pyad.Variable)
    assert p.dtype == np.dtype(str(t.dtype).replace("torch.", ""))
    assert np.array_equal(p.data, t.numpy())
    assert tuple(p.shape) == tuple(t.shape)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 0, 4)])
def test_serialization_zero_dim_and_empty(shape):
    # mirrors test_serialization_empty / 0-d cases of _test_serialization_assert
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = t_round_trip(torch.from_numpy(a.copy()))
    p = p_round_trip(pyad.tensor(a.copy()))
    assert tuple(p.shape) == tuple(t.shape) == shape
    assert p.dim() == t.dim()
    assert np.array_equal(p.data, t.numpy())


@pytest.mark.parametrize("make", [lambda x: x.t(), lambda x: x[:, ::2], lambda x: x[1:, 1:3],
                                  lambda x: x.t()[::2]], ids=["t", "step", "slice", "t_step"])
def test_serialization_noncontiguous(make):
    # mirrors test_serialization_offset / the non-contiguous cases: values survive
    a = np.arange(12.0).reshape(3, 4)
    t = t_round_trip(make(torch.from_numpy(a.copy())))
    p = p_round_trip(make(pyad.tensor(a.copy())))
    assert tuple(p.shape) == tuple(t.shape)
    assert np.array_equal(p.data, t.numpy())


def test_serialization_transposed_keeps_its_layout():
    # torch keeps a transposed tensor's strides (it saves the storage): not contiguous
    a = np.arange(12.0).reshape(3, 4)
    t = t_round_trip(torch.from_numpy(a.copy()).t())
    p = p_round_trip(pyad.tensor(a.copy()).t())
    assert p.is_contiguous() == t.is_contiguous()


def test_serialization_same_tensor_twice_loads_as_one_object():
    # mirrors the memo part of test_serialization: one tensor saved twice is one object
    t = torch.arange(4.0)
    tl = t_round_trip([t, t, {"again": t}])
    p = pyad.arange(4.0)
    pl = p_round_trip([p, p, {"again": p}])
    assert (pl[0] is pl[1] is pl[2]["again"]) == (tl[0] is tl[1] is tl[2]["again"]) is True
    pl[0].data[0] = 7.0
    assert pl[1].data[0] == 7.0


def test_serialization_views_share_storage():
    # mirrors test_serialization (the storage-sharing assertions): a view saved with its
    # base loads sharing memory with it, so writing one shows through the other
    t = torch.arange(6.0)
    ta, tb = t_round_trip([t, t[2:4]])
    ta[2] = 100.0
    p = pyad.arange(6.0)
    pa, pb = p_round_trip([p, p[2:4]])
    pa.data[2] = 100.0
    assert pb.data.tolist() == tb.tolist() == [100.0, 3.0]


# -- containers ---------------------------------------------------------------------------

def test_serialization_container():
    # mirrors test_serialization_container: nested dict/list/tuple/OrderedDict keep their
    # types, order, keys and leaves
    def build(lib, tensor):
        return {"list": [tensor([1.0, 2.0]), 3, "s"],
                "tuple": (tensor([[1, 2]]), (None, 2.5)),
                "odict": collections.OrderedDict([("z", tensor(1.0)), ("a", True)]),
                7: {"nested": [[], ()]}}
    tl = t_round_trip(build(torch, torch.tensor))
    pl = p_round_trip(build(pyad, pyad.tensor))

    def same(a, b):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, pyad.Variable)
            assert np.array_equal(a.data, b.numpy()) and tuple(a.shape) == tuple(b.shape)
            return
        assert type(a) is type(b), (type(a), type(b))
        if isinstance(b, dict):
            assert list(a) == list(b)
            for k in b:
                same(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b
    same(pl, tl)


def test_serialization_optimizer_int_keys_and_tuples():
    # an optimizer state_dict's int keys stay ints and betas stay a tuple, as in torch
    tm = torch.nn.Linear(2, 1)
    topt = torch.optim.Adam(tm.parameters())
    tm(torch.ones(1, 2)).sum().backward()
    topt.step()
    pm = nn.Linear(2, 1)
    popt = optim.Adam(pm.parameters())
    pm(pyad.ones(1, 2)).sum().backward()
    popt.step()
    tsd, psd = t_round_trip(topt.state_dict()), p_round_trip(popt.state_dict())
    assert list(psd["state"]) == list(tsd["state"]) == [0, 1]
    assert type(psd["param_groups"][0]["betas"]) is type(tsd["param_groups"][0]["betas"])
    assert sorted(psd["state"][0]) == sorted(tsd["state"][0])


# -- map_location -------------------------------------------------------------------------

@pytest.mark.parametrize("loc", ["cpu", "device", "dict", "lambda", "lambda_restore"])
def test_serialization_map_location(loc):
    # mirrors test_serialization_map_location (the CPU forms)
    def location(lib):
        return {"cpu": "cpu", "device": lib.device("cpu"), "dict": {"cpu": "cpu"},
                "lambda": lambda storage, where: storage,
                "lambda_restore": lambda storage, where:
                lib.serialization.default_restore_location(storage, "cpu")}[loc]
    t = t_round_trip({"w": torch.arange(3.0, requires_grad=True)},
                     map_location=location(torch))["w"]
    p = p_round_trip({"w": pyad.arange(3.0, requires_grad=True)},
                     map_location=location(pyad))["w"]
    assert str(p.device) == str(t.device) == "cpu"
    assert p.requires_grad == t.requires_grad
    assert np.array_equal(p.data, np_of(t))


@pytest.mark.skipif(pyad.cuda.is_available(), reason="checks the no-GPU error")
@pytest.mark.parametrize("loc", ["cuda", "cuda:0"])
def test_load_nonexistent_device(loc):
    # mirrors test_load_nonexistent_device: a CUDA map_location without a GPU is a
    # RuntimeError
    with pytest.raises(RuntimeError):
        t_round_trip(torch.ones(2), map_location=loc)
    with pytest.raises(RuntimeError, match="cuda"):
        p_round_trip(pyad.ones(2), map_location=loc)


def test_load_unknown_location_is_a_runtime_error():
    # torch: "don't know how to restore data location" (RuntimeError)
    with pytest.raises(RuntimeError):
        t_round_trip(torch.ones(2), map_location="tpu")
    with pytest.raises(RuntimeError, match="map_location"):
        p_round_trip(pyad.ones(2), map_location="tpu")


# -- files ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["str", "pathlib", "fileobj"])
def test_pathlike_serialization(tmp_path, kind):
    # mirrors test_pathlike_serialization / test_serialization_filelike
    obj = {"a": pyad.tensor([1.0, 2.0]), "n": 3}
    path = tmp_path / "ckpt.pt"
    if kind == "fileobj":
        with open(path, "wb") as fh:
            pyad.save(obj, fh)
        with open(path, "rb") as fh:
            back = pyad.load(fh)
    else:
        target = str(path) if kind == "str" else pathlib.Path(path)
        pyad.save(obj, target)
        back = pyad.load(target)
    assert back["n"] == 3 and back["a"].data.tolist() == [1.0, 2.0]


def test_serialization_filelike_missing_attrs():
    # mirrors test_serialization_filelike_missing_attrs: AttributeError both ways
    class Nothing:
        pass
    with pytest.raises(AttributeError):
        torch.save(1, Nothing())
    with pytest.raises(AttributeError, match="write"):
        pyad.save(1, Nothing())
    with pytest.raises(AttributeError):
        torch.load(Nothing())
    with pytest.raises(AttributeError):
        pyad.load(Nothing())


def test_load_empty_file_is_eof_error():
    with pytest.raises(EOFError):
        torch.load(io.BytesIO())
    with pytest.raises(EOFError):
        pyad.load(io.BytesIO())


# -- Parameters and requires_grad ---------------------------------------------------------

@pytest.mark.parametrize("requires_grad", [True, False])
def test_serialization_save_parameter(requires_grad):
    # mirrors test_serialization_parameter: a Parameter loads as a Parameter with its flag
    t = t_round_trip(torch.nn.Parameter(torch.ones(2), requires_grad=requires_grad))
    p = p_round_trip(nn.Parameter(pyad.ones(2), requires_grad=requires_grad))
    assert isinstance(t, torch.nn.Parameter) and isinstance(p, nn.Parameter)
    assert p.requires_grad == t.requires_grad == requires_grad
    assert p.is_leaf and t.is_leaf


def test_serialization_requires_grad_preserved():
    # a leaf that requires grad and a non-leaf both load as leaves requiring grad
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    px = pyad.tensor([1.0, 2.0], requires_grad=True)
    tl = t_round_trip([tx, tx * 2, torch.ones(1)])
    pl = p_round_trip([px, px * 2, pyad.ones(1)])
    for a, b in zip(pl, tl):
        assert a.requires_grad == b.requires_grad
        assert a.is_leaf == b.is_leaf
        assert a.grad_fn is None and b.grad_fn is None
        assert np.array_equal(a.data, np_of(b))
    # and gradients flow through a loaded leaf as through torch's
    (tl[1] ** 2).sum().backward()
    (pl[1] ** 2).sum().backward()
    assert np.array_equal(pl[1].grad.data, tl[1].grad.numpy())


def test_serialization_module_state_dict_round_trip(tmp_path):
    # torch.save(model.state_dict()) then load into a fresh model: same outputs as torch
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2),
                             torch.nn.BatchNorm1d(2)).double()
    pm = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.BatchNorm1d(2)).double()
    pm.load_state_dict({k: pyad.tensor(np_of(v).copy()) for k, v in tm.state_dict().items()})
    pyad.save(pm.state_dict(), tmp_path / "m.pt")
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2),
                          nn.BatchNorm1d(2)).double()
    fresh.load_state_dict(pyad.load(tmp_path / "m.pt"))
    x = np.random.default_rng(0).normal(size=(5, 3))
    tm.eval()
    fresh.eval()
    assert np.allclose(fresh(pyad.tensor(x)).data, np_of(tm(torch.from_numpy(x))),
                       atol=1e-12, rtol=1e-12)
    assert list(fresh.state_dict()) == list(tm.state_dict())


# -- weights_only and pickle-specific behaviour -------------------------------------------

class _Arbitrary:
    pass


def test_weights_only_refuses_arbitrary_objects():
    # torch: save pickles anything, a weights_only load refuses it (UnpicklingError);
    # pyad refuses the object already at save time (TypeError naming where it is)
    buf = io.BytesIO()
    torch.save({"a": _Arbitrary()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(buf, weights_only=True)
    with pytest.raises(TypeError, match=r"_Arbitrary at obj\['a'\]"):
        pyad.save({"a": _Arbitrary()}, io.BytesIO())


def test_weights_only_pyad_load_refuses_torch_pickles():
    # a torch (pickle) checkpoint is refused by pyad.load as torch's weights_only loader
    # refuses what it cannot trust: pickle.UnpicklingError, nothing run
    buf = io.BytesIO()
    torch.save({"a": _Arbitrary()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="pyad.load"):
        pyad.load(buf, weights_only=True)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        pyad.load(buf, weights_only=False)


@pytest.mark.parametrize("weights_only", [True, False, None])
def test_weights_only_accepts_state_dict_content(weights_only):
    # what torch's weights_only loader accepts (tensors, primitives, containers,
    # OrderedDict) loads in pyad whatever weights_only says
    def build(lib):
        return collections.OrderedDict(
            [("w", lib.ones(2, dtype=lib.float64)), ("step", 3), ("lr", 0.5),
             ("name", "x"), ("flags", (True, None)), ("c", 1 + 2j)])
    tl = t_round_trip(build(torch), weights_only=weights_only)
    pl = p_round_trip(build(pyad), weights_only=weights_only)
    assert type(pl) is type(tl)
    assert list(pl) == list(tl)
    for k in ["step", "lr", "name", "flags", "c"]:
        assert pl[k] == tl[k] and type(pl[k]) is type(tl[k])
    assert np.array_equal(pl["w"].data, tl["w"].numpy())


@pytest.mark.parametrize("obj", [lambda: nn.Linear(1, 1), lambda: {1, 2},
                                 lambda: pyad.device("cpu"), lambda: pyad.float32,
                                 lambda: slice(1, 2)])
def test_serialization_pickle_only_objects_are_refused_clearly(obj):
    # torch pickles modules, sets, devices, dtypes, slices; pyad refuses them (TypeError)
    with pytest.raises(TypeError, match=r"pyad.save\(\): cannot save"):
        pyad.save(obj(), io.BytesIO())


def test_serialization_pickle_module():
    # torch.save(..., pickle_module=pickle, pickle_protocol=N) works; pyad accepts the
    # standard pickle and protocol (nothing pickled) and refuses another pickler clearly
    buf = io.BytesIO()
    pyad.save({"a": pyad.ones(1)}, buf, pickle_module=pickle, pickle_protocol=4)
    buf.seek(0)
    assert pyad.load(buf)["a"].data.tolist() == [1.0]

    class FakePickler:
        __name__ = "dill"
    with pytest.raises(TypeError, match="pickle_module"):
        pyad.save(1, io.BytesIO(), pickle_module=FakePickler())


def test_weights_only_with_explicit_pickle_module():
    # mirrors test_weights_only_* : torch refuses weights_only=True with a pickle_module
    tbuf, pbuf = io.BytesIO(), io.BytesIO()
    torch.save(1, tbuf)
    pyad.save(1, pbuf)
    tbuf.seek(0)
    pbuf.seek(0)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        torch.load(tbuf, pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        pyad.load(pbuf, pickle_module=pickle, weights_only=True)
    tbuf.seek(0)
    pbuf.seek(0)
    assert pyad.load(pbuf, pickle_module=pickle) == torch.load(tbuf, pickle_module=pickle) == 1


# -- Module.state_dict (test_nn.py) -------------------------------------------------------

def _net(lib):
    # the network of torch's test_state_dict / test_load_state_dict: a shared Linear, a
    # BatchNorm, a block of two convolutions and an empty (None) submodule
    lnn = lib.nn
    shared = lnn.Linear(5, 5)
    block = lnn.Module()
    block.conv1 = lnn.Conv2d(3, 3, 3, bias=True)
    block.conv2 = lnn.Conv2d(3, 3, 3, bias=False)
    net = lnn.Module()
    net.linear1 = shared
    net.linear2 = shared
    net.bn = lnn.BatchNorm2d(2)
    net.block = block
    net.add_module("empty", None)
    return net


def test_state_dict():
    # mirrors test_nn.py test_state_dict: the same keys in the same order as torch, shared
    # modules listed under both names, entries share memory with the parameters and are
    # detached
    tnet, pnet = _net(torch), _net(pyad)
    tsd, psd = tnet.state_dict(), pnet.state_dict()
    assert list(psd) == list(tsd)
    assert type(psd) is collections.OrderedDict
    assert np.shares_memory(psd["linear1.weight"].data, pnet.linear1.weight.data)
    assert np.shares_memory(psd["linear2.weight"].data, pnet.linear1.weight.data)
    assert psd["linear1.weight"].requires_grad == tsd["linear1.weight"].requires_grad
    assert psd["bn.num_batches_tracked"].dtype == np.int64
    assert str(tsd["bn.num_batches_tracked"].dtype) == "torch.int64"
    assert psd._metadata.keys() == tsd._metadata.keys()


def test_state_dict_keep_vars_and_prefix():
    tnet, pnet = _net(torch), _net(pyad)
    tk, pk = tnet.state_dict(keep_vars=True), pnet.state_dict(keep_vars=True)
    assert (pk["linear1.weight"] is pnet.linear1.weight) == \
        (tk["linear1.weight"] is tnet.linear1.weight) is True
    assert pk["linear1.weight"].requires_grad == tk["linear1.weight"].requires_grad
    assert list(pnet.state_dict(prefix="model.")) == list(tnet.state_dict(prefix="model."))


def _ported_values(pnet, tnet):
    # make the pyad net hold torch's values (float32)
    pnet.load_state_dict({k: pyad.tensor(np_of(v).copy())
                          for k, v in tnet.state_dict().items()})


def test_load_state_dict():
    # mirrors test_load_state_dict (first part): a full state_dict, and one with the
    # DDP "module." prefix removed by consume_prefix_in_state_dict_if_present
    pnet = _net(pyad)
    new = {"linear1.weight": pyad.ones(5, 5), "block.conv1.bias": pyad.arange(1, 4).float(),
           "bn.running_mean": pyad.randn(2)}
    sd = pnet.state_dict()
    sd.update(new)
    ddp = collections.OrderedDict(("module." + k, v) for k, v in pnet.state_dict().items())
    ddp.update({"module." + k: v for k, v in new.items()})
    nn.modules.utils.consume_prefix_in_state_dict_if_present(ddp, "module.")
    assert list(ddp) == list(sd)
    for d in (sd, ddp):
        keys = pnet.load_state_dict(d)
        assert keys.missing_keys == [] and keys.unexpected_keys == []
        assert "Incompatible" not in str(keys)
        assert np.array_equal(pnet.linear1.weight.data, d["linear1.weight"].data)
        assert np.array_equal(pnet.block.conv1.bias.data, d["block.conv1.bias"].data)
        assert np.array_equal(pnet.bn.running_mean.data, d["bn.running_mean"].data)


@pytest.mark.parametrize("extra", ["extra", "extra.param"])
def test_load_state_dict_unexpected(extra):
    # mirrors test_load_state_dict: an unexpected key raises with strict, is reported
    # without it (same lists as torch)
    results = []
    for lib, net in ((torch, _net(torch)), (pyad, _net(pyad))):
        sd = net.state_dict()
        sd[extra] = lib.ones(5)
        with pytest.raises(RuntimeError, match="Unexpected key"):
            net.load_state_dict(sd)
        keys = net.load_state_dict(sd, strict=False)
        assert "Incompatible" in str(keys)
        results.append((keys.missing_keys, keys.unexpected_keys))
    assert results[0] == results[1] == ([], [extra])


def test_load_state_dict_missing_and_unexpected():
    results = []
    for lib, net in ((torch, _net(torch)), (pyad, _net(pyad))):
        sd = net.state_dict()
        del sd["linear1.weight"]
        with pytest.raises(RuntimeError, match="Missing key"):
            net.load_state_dict(sd)
        keys = net.load_state_dict(sd, strict=False)
        results.append((list(keys.missing_keys), list(keys.unexpected_keys)))
        sd["extra.param"] = lib.ones(5)
        with pytest.raises(RuntimeError, match="Missing key.*\n.*Unexpected key"):
            net.load_state_dict(sd)
        keys = net.load_state_dict(sd, strict=False)
        results.append((list(keys.missing_keys), list(keys.unexpected_keys)))
    assert results[:2] == results[2:]
    assert results[1] == (["linear1.weight"], ["extra.param"])


@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_size_mismatch(strict):
    # a wrong size is an error even with strict=False; the message names the key
    msgs = []
    for lib, net in ((torch, _net(torch)), (pyad, _net(pyad))):
        sd = net.state_dict()
        sd["bn.running_mean"] = lib.rand(14, 4)
        with pytest.raises(RuntimeError, match="size mismatch for bn.running_mean") as info:
            net.load_state_dict(sd, strict=strict)
        msgs.append(str(info.value))
    assert "copying a param with shape" in msgs[1]
    assert "Error(s) in loading state_dict for Module" in msgs[1]


def test_load_state_dict_partial_non_strict():
    # mirrors the end of test_load_state_dict: a partial dict with an unknown key loads
    # the given entries and leaves the others untouched
    pnet = _net(pyad)
    old = copy.deepcopy(pnet.state_dict())
    part = {"linear1.weight": pyad.ones(5, 5), "block.conv1.bias": pyad.arange(1, 4).float(),
            "bn.running_mean": pyad.randn(2), "nonexistent_key": pyad.rand(3)}
    pnet.load_state_dict(part, strict=False)
    new = pnet.state_dict()
    for k in ("linear1.weight", "block.conv1.bias", "bn.running_mean"):
        assert np.array_equal(new[k].data, part[k].data)
    for k, v in old.items():
        if k not in part and not k.startswith("linear2"):     # linear2 is linear1
            assert np.array_equal(new[k].data, v.data), k


@pytest.mark.parametrize("value", ["", 2, None, [("a", 1)]])
def test_load_state_dict_type(value):
    # mirrors test_load_state_dict_type
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        torch.nn.Module().load_state_dict(value)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        nn.Module().load_state_dict(value)


def test_load_state_dict_invalid():
    # mirrors test_load_state_dict_invalid for a value that is not array-like (pyad loads
    # arrays and nested sequences by design; see the module docstring)
    for lib, m in ((torch, torch.nn.Linear(2, 2, bias=False)),
                   (pyad, nn.Linear(2, 2, bias=False))):
        with pytest.raises(RuntimeError, match="from checkpoint but received"):
            m.load_state_dict({"weight": object()})


def test_load_state_dict_BC():
    # mirrors test_load_state_dict_BC: a BatchNorm checkpoint of version 1 (or none)
    # without num_batches_tracked loads, the count staying a long 0
    for lib, bn in ((torch, torch.nn.BatchNorm2d(3)), (pyad, nn.BatchNorm2d(3))):
        sd = bn.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        bn.load_state_dict(sd)
        assert bn.num_batches_tracked.item() == 0
        del sd._metadata[""]["version"]
        bn.load_state_dict(sd)
        assert bn.num_batches_tracked.item() == 0
        assert "int64" in str(bn.num_batches_tracked.dtype)


def test_load_state_dict_child():
    # mirrors test_load_state_dict_child: a load pre-hook of a nested child sees only
    # the entries under its prefix
    model = nn.Linear(1, 1)
    for _ in range(2):
        model = nn.Sequential(*[copy.deepcopy(model) for _ in range(4)])
    seen = []

    def hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errs):
        seen.append((prefix, len(state_dict), len(module.state_dict())))

    model[0][0].register_load_state_dict_pre_hook(hook)
    model.load_state_dict(model.state_dict(), strict=True)
    assert seen == [("0.0.", 2, 2)]


def test_load_state_dict_custom():
    # mirrors test_load_state_dict_custom: _save_to_state_dict / _load_from_state_dict
    # overrides replace a module's own entries, its children still load
    class CustomState(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(pyad.ones(1))
            self.sub = nn.Linear(5, 5)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + "serialized"] = self.param.data + 1

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                  missing_keys, unexpected_keys, error_msgs):
            self.param.data[...] = np.asarray(state_dict[prefix + "serialized"]) - 1

    m = nn.Sequential(CustomState())
    with pyad.no_grad():
        m[0].param[0] = 10
        m[0].sub.weight[0, 0] = 555
    sd = m.state_dict()
    assert float(np.asarray(sd["0.serialized"]).reshape(-1)[0]) == 11
    assert "0.sub.weight" in sd and "0.param" not in sd
    mm = nn.Sequential(CustomState())
    assert mm[0].param[0].item() == 1
    mm.load_state_dict(sd)
    assert mm[0].param[0].item() == 10
    assert mm[0].sub.weight[0, 0].item() == 555


def test_load_state_dict_assign_shape_stride():
    # mirrors test_load_state_dict_assign_shape_stride: assign=True takes a transposed
    # value, a wrong shape still raises the size-mismatch RuntimeError
    net = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5))
    sd = net.state_dict()
    sd["0.weight"] = pyad.randn(3, 5).transpose(0, 1)
    net2 = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5))
    net2.load_state_dict(sd, strict=False, assign=True)
    assert np.array_equal(net2[0].weight.data, sd["0.weight"].data)
    assert isinstance(net2[0].weight, nn.Parameter) and net2[0].weight.requires_grad
    sd["0.weight"] = pyad.randn(2, 4)
    with pytest.raises(RuntimeError, match="size mismatch for 0.weight: copying a param "
                                           "with shape"):
        net2.load_state_dict(sd, strict=False, assign=True)


@pytest.mark.parametrize("keep_vars", [True, False])
def test_load_state_dict_assign(keep_vars):
    # mirrors test_load_state_dict_assign_meta on CPU (pyad has no meta device):
    # parameters become the state_dict's values (a Parameter as itself), requires_grad
    # follows the module, buffers are the very objects, orders are kept
    def make(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.BatchNorm1d(5))
        m.x = lib.nn.Parameter(lib.rand(5), requires_grad=False)
        return m
    results = []
    for lib in (torch, pyad):
        net = make(lib)
        sd = net.state_dict(keep_vars=keep_vars)
        for v in sd.values():
            v.requires_grad_(False)
        other = make(lib)
        old = other.state_dict(keep_vars=True)
        other.load_state_dict(sd, assign=True)
        new = other.state_dict(keep_vars=True)
        row = []
        for k in sd:
            row.append((k, new[k] is sd[k], new[k] is old[k], new[k].requires_grad,
                        old[k].requires_grad,
                        # pyad.Tensor is pyad.Variable
                        type(new[k]).__name__.replace("Tensor", "Variable")))
        results.append(row)
        assert [n for n, _ in other.named_parameters()] == \
            [n for n, _ in net.named_parameters()]
    assert results[0] == [tuple(r) for r in results[1]]


def test_load_state_dict_assign_with_optimizer():
    # mirrors test_load_state_dict_assign_with_optimizer, compared with torch from the
    # same weights: train, load into a new net with assign=True, make the optimizer after,
    # load its state, train on; both nets and both libraries stay together
    # a Tanh between them (torch's test has none): a Linear bias right before a
    # BatchNorm gets an exactly-zero gradient, whose rounding noise Adam would amplify
    def make(lib):
        return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(),
                                 lib.nn.BatchNorm1d(5)).double()
    tnet, pnet = make(torch), make(pyad)
    _ported_values(pnet, tnet)
    x = np.random.default_rng(1).normal(size=(4, 3))
    nets = {}
    for lib, net in ((torch, tnet), (pyad, pnet)):
        opt = lib.optim.Adam(net.parameters(), lr=0.1)
        xin = lib.tensor(x)
        for _ in range(3):
            opt.zero_grad()
            # (out ** 3).sum(), not torch's out.sum(): the sum of a BatchNorm output has
            # a zero gradient for the Linear, which Adam would turn into rounding noise
            (net(xin) ** 3).sum().backward()
            opt.step()
        opt_sd = copy.deepcopy(opt.state_dict())
        net_sd = copy.deepcopy(net.state_dict())
        net2 = make(lib)
        net2.load_state_dict(net_sd, assign=True)
        opt2 = lib.optim.Adam(net2.parameters(), lr=0.1)
        opt2.load_state_dict(opt_sd)
        for _ in range(3):
            for n, o in ((net, opt), (net2, opt2)):
                o.zero_grad()
                (n(xin) ** 3).sum().backward()
                o.step()
        nets[lib.__name__] = (net, net2)
    (t1, t2), (p1, p2) = nets["torch"], nets["pyad"]
    for (k, a), b, c in zip(p1.state_dict().items(), p2.state_dict().values(),
                            t2.state_dict().values()):
        assert np.array_equal(a.data, b.data), k
        np.testing.assert_allclose(b.data, np_of(c), rtol=1e-7, atol=1e-7, err_msg=k)


def test_load_state_dict_with_unexpected_key():
    # mirrors test_load_state_dict_with_unexpected_key, including a key whose prefix is
    # a valid key
    for lib in (torch, pyad):
        m = lib.nn.Module()
        m.fc1 = lib.nn.Linear(5, 10)
        for bad in ("fc1.bad_suffix", "fc1.weight.bad_suffix"):
            sd = m.state_dict()
            sd[bad] = lib.randn(5, 10)
            with pytest.raises(RuntimeError, match="Unexpected key"):
                m.load_state_dict(sd)
            assert bad in m.load_state_dict(sd, strict=False).unexpected_keys


def test_load_state_dict_ref_cycle():
    # mirrors test_load_state_dict_ref_cycle: loading leaves nothing for the collector
    m = nn.LSTM(4, 4, bidirectional=True)
    sd = copy.deepcopy(m).state_dict()
    gc.collect()
    m.load_state_dict(sd)
    assert gc.collect() == 0


# -- state_dict / load_state_dict hooks (test_nn.py, test_module_hooks.py) -----------------

def test_register_state_dict_pre_hook():
    # mirrors test_register_state_dict_pre_hook: called with (module, prefix, keep_vars)
    # for each module, before its entries are written; same calls as torch
    calls = {}
    for lib in (torch, pyad):
        seen = calls[lib.__name__] = []
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 2)))
        handles = [mod.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars, s=seen: s.append((type(mod).__name__, prefix,
                                                             keep_vars)))
            for mod in m.modules()]
        m.state_dict(keep_vars=True)
        m.state_dict(prefix="p.")
        for h in handles:
            h.remove()
        m.state_dict()
    assert calls["pyad"] == calls["torch"]
    assert len(calls["pyad"]) == 8


def test_register_state_dict_post_hook():
    # a post hook edits the state_dict in place; returning a value is an error
    for lib in (torch, pyad):
        m = lib.nn.Linear(2, 2)

        def hook(module, state_dict, prefix, local_metadata):
            state_dict[prefix + "extra_entry"] = lib.ones(1)

        h = m.register_state_dict_post_hook(hook)
        assert list(m.state_dict()) == ["weight", "bias", "extra_entry"]
        h.remove()
        assert list(m.state_dict()) == ["weight", "bias"]
        m.register_state_dict_post_hook(lambda *args: {})
        with pytest.raises(RuntimeError):
            m.state_dict()


def test_state_dict_hook_can_replace_the_dict():
    # torch's private _register_state_dict_hook: a returned dict replaces the result
    for lib in (torch, pyad):
        m = lib.nn.Linear(2, 2)
        m._register_state_dict_hook(
            lambda module, sd, prefix, meta: collections.OrderedDict(
                (k.upper(), v) for k, v in sd.items()))
        assert list(m.state_dict()) == ["WEIGHT", "BIAS"]


def test_load_state_dict_post_hook():
    # mirrors test_load_state_dict_post_hook: the hook sees the module and the
    # incompatible keys; clearing them in place makes a strict load pass; returning a
    # value raises; the handle removes it
    for lib in (torch, pyad):
        m = lib.nn.Linear(2, 2)
        seen = []

        def clear(module, keys):
            seen.append((module is m, list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.missing_keys.clear()
            keys.unexpected_keys.clear()

        h = m.register_load_state_dict_post_hook(clear)
        sd = {"weight": lib.ones(2, 2), "junk": lib.ones(1)}
        assert m.load_state_dict(sd).missing_keys == []
        assert seen == [(True, ["bias"], ["junk"])]
        h.remove()
        with pytest.raises(RuntimeError):
            m.load_state_dict(sd)
        assert len(seen) == 1
        m.register_load_state_dict_post_hook(lambda module, keys: "not none")
        with pytest.raises(AssertionError):
            m.load_state_dict(m.state_dict())


def test_load_state_dict_pre_hook_renames_keys():
    # a load pre-hook may rename old keys in place (torch's backward-compat pattern)
    for lib in (torch, pyad):
        m = lib.nn.Linear(2, 2)

        def rename(state_dict, prefix, *args):
            if prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")

        m._register_load_state_dict_pre_hook(rename)
        m.load_state_dict({"w": lib.full((2, 2), 3.0), "bias": lib.zeros(2)})
        assert m.weight.detach().sum().item() == 12.0


# -- optimizers: state round trip, then training continues as torch's ---------------------

OPTIMS = [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
          ("Adam", dict(lr=0.05, amsgrad=True)),
          ("AdamW", dict(lr=0.05, weight_decay=0.1)),
          ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
          ("Adagrad", dict(lr=0.1))]


@pytest.mark.parametrize("name,kwargs", OPTIMS, ids=[n for n, _ in OPTIMS])
def test_optimizer_state_dict_round_trip_continues_like_torch(name, kwargs, tmp_path):
    rng = np.random.default_rng(3)
    xs = [rng.normal(size=(6, 3)) for _ in range(6)]
    tnet = torch.nn.Linear(3, 2).double()
    w = {k: np_of(v).copy() for k, v in tnet.state_dict().items()}

    def make_pyad():
        net = nn.Linear(3, 2).double()
        net.load_state_dict({k: pyad.tensor(v.copy()) for k, v in w.items()})
        return net, getattr(optim, name)(net.parameters(), **kwargs)

    topt = getattr(torch.optim, name)(tnet.parameters(), **kwargs)
    pnet, popt = make_pyad()

    def step(lib, net, opt, x):
        opt.zero_grad()
        (net(lib.tensor(x)) ** 2).mean().backward()
        opt.step()

    for x in xs[:3]:
        step(torch, tnet, topt, x)
        step(pyad, pnet, popt, x)
    pyad.save({"model": pnet.state_dict(), "optim": popt.state_dict()}, tmp_path / "c.pt")
    ckpt = pyad.load(tmp_path / "c.pt", weights_only=True)
    tsd = topt.state_dict()
    assert ckpt["optim"]["param_groups"][0].keys() == tsd["param_groups"][0].keys()
    for i, st in tsd["state"].items():
        assert sorted(ckpt["optim"]["state"][i]) == sorted(st)
        for k, v in st.items():
            np.testing.assert_allclose(np.asarray(getattr(ckpt["optim"]["state"][i][k],
                                                          "data", ckpt["optim"]["state"][i][k])),
                                       np_of(v) if isinstance(v, torch.Tensor) else v,
                                       rtol=1e-10, atol=1e-12, err_msg=k)
    pnet2, popt2 = make_pyad()
    pnet2.load_state_dict(ckpt["model"])
    popt2.load_state_dict(ckpt["optim"])
    for x in xs[3:]:
        step(torch, tnet, topt, x)
        step(pyad, pnet2, popt2, x)
    for k, v in tnet.state_dict().items():
        np.testing.assert_allclose(pnet2.state_dict()[k].data, np_of(v), rtol=1e-10,
                                   atol=1e-12, err_msg=k)


@pytest.mark.parametrize("bad", ["groups", "sizes"])
def test_optimizer_load_state_dict_mismatch(bad):
    # torch's ValueErrors for a state_dict of another optimizer shape
    def sd(lib):
        if bad == "groups":
            return {"state": {}, "param_groups": []}
        return {"state": {}, "param_groups": [{"lr": 0.1, "params": [0]}]}
    msg = "different number of parameter groups" if bad == "groups" else \
        "doesn't match the size of optimizer's group"
    with pytest.raises(ValueError, match=msg):
        torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1).load_state_dict(sd(torch))
    with pytest.raises(ValueError, match=msg):
        optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1).load_state_dict(sd(pyad))
