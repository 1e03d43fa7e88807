"""pyad.save / pyad.load: round trips, and files that must be refused without running code."""
import collections
import io
import json
import math
import os
import zipfile

import numpy as np
import pytest

import pyad
from pyad import nn, optim


def round_trip(obj, **kwargs):
    buffer = io.BytesIO()
    pyad.save(obj, buffer)
    buffer.seek(0)
    return pyad.load(buffer, **kwargs)


def assert_same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, pyad.Variable):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a.data, b.data) and a.requires_grad == b.requires_grad
        assert b.is_leaf
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b) and [type(k) for k in a] == [type(k) for k in b]
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def test_nested_structures_round_trip_with_their_types():
    obj = {
        "none": None, "flags": [True, False], "int": -(2 ** 70), "float": 0.1,
        "special": [float("inf"), float("-inf"), float("nan")], "text": "héllo \"q\"\n",
        "tuple": (1, (2.5, "x"), []), 3: "int key", 2.5: "float key", None: "none key",
        True: "bool key",
        "arrays": [np.arange(6, dtype=np.int32).reshape(2, 3), np.zeros((0, 4)),
                   np.array(["a", "bc"]), np.array([1 + 2j]), np.array(True)],
        "scalar": np.float32(1.5),
        "variables": [pyad.tensor([1.0, 2.0], requires_grad=True),
                      pyad.tensor([[1, 2]]), pyad.tensor(3.0, dtype=pyad.float64),
                      pyad.zeros(2, 3, dtype=pyad.float16)],
        "ordered": collections.OrderedDict([("b", 1), ("a", 2)]),
    }
    back = round_trip(obj)
    assert_same(obj, back)
    assert isinstance(back["scalar"], np.float32)


def test_a_variable_that_requires_grad_keeps_it_and_a_non_leaf_comes_back_a_leaf():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    y = round_trip(x * 2)
    assert y.requires_grad and y.is_leaf and y.grad_fn is None
    assert y.data.tolist() == [2.0, 4.0]


def test_parameters_come_back_as_parameters():
    p = nn.Parameter(pyad.ones(2))
    back = round_trip({"p": p, "frozen": nn.Parameter(pyad.ones(1), requires_grad=False)})
    assert type(back["p"]) is nn.Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is nn.Parameter and not back["frozen"].requires_grad


def test_a_non_contiguous_view_saves_its_values():
    x = pyad.tensor(np.arange(12.0).reshape(3, 4)).t()[::2]
    assert np.array_equal(round_trip(x).data, x.data)


def test_module_state_dict_round_trip_restores_the_model(tmp_path):
    pyad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.BatchNorm2d(2))
    path = tmp_path / "model.pt"
    pyad.save(model.state_dict(), path)
    assert os.listdir(tmp_path) == ["model.pt"]       # no suffix added
    state = pyad.load(path)
    assert isinstance(state, collections.OrderedDict)
    assert list(state) == list(model.state_dict())
    assert state["3.num_batches_tracked"].dtype == np.int64
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.BatchNorm2d(2))
    fresh.load_state_dict(state)
    x = pyad.randn(5, 3)
    assert np.array_equal(fresh[:3](x).data, model[:3](x).data)
    assert_same(dict(model.state_dict()), dict(pyad.load(str(path))))


def test_adam_state_dict_round_trip_resumes_training(tmp_path):
    def make():
        pyad.manual_seed(1)
        model = nn.Linear(3, 1)
        return model, optim.Adam(model.parameters(), lr=0.01, amsgrad=True)

    def train(model, opt, steps, seed):
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            x = pyad.tensor(rng.normal(size=(8, 3)), dtype=pyad.float32)
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()

    model, opt = make()
    train(model, opt, 3, seed=0)
    pyad.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3},
              tmp_path / "ckpt")
    ckpt = pyad.load(tmp_path / "ckpt")
    saved = opt.state_dict()
    assert sorted(ckpt["optim"]["state"]) == [0, 1]       # int keys stay ints
    assert ckpt["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert_same(saved["state"], ckpt["optim"]["state"])
    assert ckpt["epoch"] == 3

    model2, opt2 = make()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optim"])
    train(model, opt, 3, seed=1)
    train(model2, opt2, 3, seed=1)
    for p, q in zip(model.parameters(), model2.parameters()):
        assert np.array_equal(p.data, q.data)


def test_file_objects_and_map_location():
    buffer = io.BytesIO()
    pyad.save([pyad.ones(2, requires_grad=True)], buffer)
    for loc in ("cpu", pyad.device("cpu")):
        buffer.seek(0)
        (v,) = pyad.load(buffer, map_location=loc)
        assert v.device == pyad.device("cpu") and v.requires_grad
    # torch's other forms: a function of (storage, location), a dict of locations
    for loc in (lambda storage, location: storage, {"cuda:0": "cpu"}):
        buffer.seek(0)
        (v,) = pyad.load(buffer, map_location=loc, weights_only=True)
        assert v.device == pyad.device("cpu") and v.requires_grad
    buffer.seek(0)
    with pytest.raises(TypeError, match=r"pyad.load\(\): map_location"):
        pyad.load(buffer, map_location=3)
    buffer.seek(0)
    with pytest.raises(ValueError, match=r"pyad.load\(\): invalid map_location"):
        pyad.load(buffer, map_location="tpu")


@pytest.mark.parametrize("obj,path", [
    ({"a": [1, object()]}, r"obj\['a'\]\[1\]"),
    ([{"k": {1, 2}}], r"obj\[0\]\['k'\]"),
    ({(1, 2): 3}, r"dict key of type tuple at obj"),
    ({"x": np.array([None, 1], dtype=object)}, r"dtype object at obj\['x'\]"),
    (pyad.device("cpu"), r"type device at obj"),
    ([slice(1, 2)], r"type slice at obj\[0\]"),
])
def test_unsupported_objects_raise_type_error_naming_the_path(obj, path):
    with pytest.raises(TypeError, match=r"pyad.save\(\): cannot save .*" + path):
        pyad.save(obj, io.BytesIO())


# -- files that must be refused ------------------------------------------------------------


class _Boom:
    """Unpickling this runs code: it sets ``pyad._evil_ran``."""

    def __reduce__(self):
        return (exec, ("import sys; sys.modules['pyad']._evil_ran = True",))


def _code_ran():
    return getattr(pyad, "_evil_ran", False)


def _npz(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)          # object arrays are pickled into the archive
    buffer.seek(0)
    return buffer


def _index(root):
    text = json.dumps({"format": "pyad-checkpoint", "version": 1, "root": root})
    return np.frombuffer(text.encode(), dtype=np.uint8)


def test_a_pickled_object_array_is_refused_and_never_run():
    evil = np.empty(1, dtype=object)
    evil[0] = _Boom()
    f = _npz(index=_index({"t": "array", "k": "a0"}), a0=evil)
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*not a valid pyad checkpoint.*a0"):
        pyad.load(f)
    assert not _code_ran()
    # the archive really would run code if unpickled
    f.seek(0)
    try:
        np.load(f, allow_pickle=True)["a0"]
        assert _code_ran()
    finally:
        pyad.__dict__.pop("_evil_ran", None)


def test_a_pickled_index_is_refused_and_never_run():
    evil = np.empty(1, dtype=object)
    evil[0] = _Boom()
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*index"):
        pyad.load(_npz(index=evil))
    assert not _code_ran()


def test_a_plain_pickle_file_is_refused_and_never_run(tmp_path):
    import pickle
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"w": _Boom()}))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*evil.pt.*not a valid pyad checkpoint"):
        pyad.load(path)
    assert not _code_ran()


def _saved_bytes():
    buffer = io.BytesIO()
    pyad.save({"w": pyad.arange(100.0), "b": [1, 2]}, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("cut", [0, 10, 100, 0.5, -30, -1])
def test_a_truncated_file_raises_a_clear_error(cut):
    data = _saved_bytes()
    cut = int(len(data) * cut) if isinstance(cut, float) else cut
    with pytest.raises(RuntimeError, match="pyad.load"):
        pyad.load(io.BytesIO(data[:cut]))


def test_corrupt_bytes_raise_a_clear_error():
    data = bytearray(_saved_bytes())
    rng = np.random.default_rng(0)
    for _ in range(50):
        bad = bytearray(data)
        for i in rng.integers(0, len(bad), size=8):
            bad[i] ^= 0xFF
        try:
            pyad.load(io.BytesIO(bytes(bad)))
        except RuntimeError as exc:
            assert "pyad.load" in str(exc)
        # a flip that lands in array values (not checked by npz) may load silently


@pytest.mark.parametrize("root,why", [
    ({"t": "array", "k": "missing"}, "missing array"),
    ({"t": "array", "k": "index"}, "missing array"),
    ({"t": "eval", "v": "__import__('os')"}, "unknown entry type"),
    ({"t": "int", "v": "3"}, "malformed int"),
    ({"t": "list", "v": 3}, "malformed list"),
    ({"t": "dict", "keys": [{"t": "list", "v": []}], "values": [{"t": "none"}]}, "dict key"),
    ({"t": "variable", "k": "a0", "requires_grad": "yes"}, "malformed Variable"),
    ({"t": "variable", "k": "a1", "requires_grad": True}, "integer or bool Variable"),
    ([], "malformed index entry"),
])
def test_a_malformed_index_is_refused(root, why):
    f = _npz(index=_index(root), a0=np.zeros(2), a1=np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*" + why):
        pyad.load(f)


def test_other_files_are_refused():
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*single .npy"):
        buffer = io.BytesIO()
        np.save(buffer, np.zeros(2))
        buffer.seek(0)
        pyad.load(buffer)
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*no index"):
        pyad.load(_npz(a0=np.zeros(2)))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*not UTF-8 JSON"):
        pyad.load(_npz(index=np.zeros(3)))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*not valid JSON"):
        pyad.load(_npz(index=np.frombuffer(b"{nope", dtype=np.uint8)))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*header"):
        pyad.load(_npz(index=np.frombuffer(b"[1]", dtype=np.uint8)))
    text = b'{"format": "pyad-checkpoint", "version": 99, "root": {"t": "none"}}'
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*version 99"):
        pyad.load(_npz(index=np.frombuffer(text, dtype=np.uint8)))
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("index.npy", b"not an npy file")
    zipped.seek(0)
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*index"):
        pyad.load(zipped)


def test_a_deeply_nested_index_is_refused_cleanly():
    deep = b'{"t": "list", "v": [' * 100000 + b"]}" * 100000
    text = b'{"format": "pyad-checkpoint", "version": 1, "root": ' + deep + b"}"
    with pytest.raises(RuntimeError, match="pyad.load"):
        pyad.load(_npz(index=np.frombuffer(text, dtype=np.uint8)))


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        pyad.load(tmp_path / "nope.pt")


# -- atomic writes, bounded reads, clear errors ------------------------------------------


_FILL_DISK = r"""
import resource, signal, sys
import numpy as np
import pyad
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)    # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
try:
    pyad.save({"w": pyad.zeros(100000)}, sys.argv[1])      # 800 KB: cannot be written
except OSError as exc:
    print("failed", exc.errno)
else:
    print("saved")
"""


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
def test_a_save_that_fails_part_way_leaves_the_old_checkpoint_intact(tmp_path):
    import errno
    import subprocess
    import sys
    path = tmp_path / "model.pt"
    old = {"w": pyad.arange(5.0), "epoch": 7}
    pyad.save(old, path)
    old_bytes = path.read_bytes()
    # The pyad under test (installed or in-tree), and a working directory outside the
    # checkout: `python -c` puts the working directory first on sys.path, where an
    # uncompiled source tree would shadow an installed pyad.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(pyad.__file__)))
    run = subprocess.run([sys.executable, "-c", _FILL_DISK, str(path)], env=env,
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert run.stdout.split() == ["failed", str(errno.EFBIG)], run.stdout + run.stderr
    assert path.read_bytes() == old_bytes
    assert_same(pyad.load(path), old)
    assert os.listdir(tmp_path) == ["model.pt"]          # the temporary file is gone


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and symlinks")
def test_save_replaces_a_checkpoint_keeping_its_permissions_and_through_a_symlink(tmp_path):
    path = tmp_path / "ckpt"
    pyad.save([1], path)
    os.chmod(path, 0o640)
    pyad.save([2], path)
    assert pyad.load(path) == [2]
    assert (os.stat(path).st_mode & 0o777) == 0o640
    link = tmp_path / "latest"
    os.symlink(path, link)
    pyad.save([3], link)
    assert os.path.islink(link) and pyad.load(path) == [3]
    assert sorted(os.listdir(tmp_path)) == ["ckpt", "latest"]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_save_to_a_device_writes_into_it_and_never_replaces_it(monkeypatch):
    import stat
    real_replace = os.replace

    def guarded_replace(src, dst):      # (a broken save must not replace /dev/null)
        assert not os.path.exists(dst) or stat.S_ISREG(os.stat(dst).st_mode), dst
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", guarded_replace)
    import struct
    try:
        pyad.save({"w": pyad.arange(3.0)}, "/dev/null")
    except struct.error:                # zipfile cannot finish an archive on /dev/null
        pass
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_interrupted_save_removes_its_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt"
    pyad.save([1], path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pyad.save([2], path)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["ckpt"] and pyad.load(path) == [1]


def _npy_bytes(arr):
    buffer = io.BytesIO()
    np.save(buffer, arr)
    return buffer.getvalue()


def _npy_header(shape, descr="<f8"):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def _deflated_zeros_archive(nbytes, references):
    """An archive whose index names one deflated member of ``nbytes`` zero bytes
    ``references`` times, written in chunks (the test never holds the inflated array)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        index = _index({"t": "list", "v": [{"t": "array", "k": "a0"}] * references})
        z.writestr("index.npy", _npy_bytes(index))
        with z.open("a0.npy", "w", force_zip64=True) as member:
            member.write(_npy_header((nbytes // 8,)))
            chunk = bytes(1 << 20)
            for _ in range(nbytes >> 20):
                member.write(chunk)
    buffer.seek(0)
    return buffer


def test_a_zip_bomb_member_is_refused_before_it_is_inflated(monkeypatch):
    bomb = _deflated_zeros_archive(64 << 20, references=10)
    assert len(bomb.getvalue()) < 200_000
    reads = []
    real = np.lib.npyio.NpzFile.__getitem__
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__",
                        lambda self, key: reads.append(key) or real(self, key))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*'a0' declares \d+ bytes in a "
                                           r"\d+-byte file .*zip bomb"):
        pyad.load(bomb)
    assert "a0" not in reads


def test_each_member_is_read_once_however_often_the_index_names_it(monkeypatch):
    arr = np.arange(1000.0)
    f = _npz(index=_index({"t": "list", "v": [{"t": "array", "k": "a0"}] * 10
                           + [{"t": "variable", "k": "a0", "requires_grad": False}]}),
             a0=arr)
    reads = []
    real = np.lib.npyio.NpzFile.__getitem__
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__",
                        lambda self, key: reads.append(key) or real(self, key))
    back = pyad.load(f, max_bytes=2 * arr.nbytes)    # ten copies would not fit
    assert reads.count("a0") == 1
    assert all(np.array_equal(a, arr) for a in back[:10]) and back[1] is back[0]
    assert np.array_equal(back[10].data, arr)


def test_max_bytes_bounds_one_load():
    buffer = io.BytesIO()
    pyad.save({"w": pyad.zeros(1000, dtype=pyad.float64),
               "b": pyad.zeros(1000, dtype=pyad.float64)}, buffer)
    buffer.seek(0)
    assert pyad.load(buffer, max_bytes=20000)["w"].shape == (1000,)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): the file needs more than "
                                           r"max_bytes=12000 bytes"):
        pyad.load(buffer, max_bytes=12000)
    for bad in (-1, 1.5, True, "10"):
        buffer.seek(0)
        with pytest.raises(ValueError, match=r"pyad.load\(\): max_bytes"):
            pyad.load(buffer, max_bytes=bad)


def test_a_member_whose_header_declares_more_than_it_holds_is_refused():
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("index.npy", _npy_bytes(_index({"t": "array", "k": "a0"})))
        z.writestr("a0.npy", _npy_header((10 ** 12,)) + bytes(32))
    zipped.seek(0)
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*'a0' declares shape "
                                           r"\(1000000000000,\)"):
        pyad.load(zipped)


def _nested(depth):
    obj = 1
    for _ in range(depth):
        obj = [obj]
    return obj


def test_deep_nesting_and_cycles_raise_pyads_own_error_when_saving():
    from pyad.serialization import MAX_DEPTH
    assert round_trip(_nested(MAX_DEPTH)) == _nested(MAX_DEPTH)
    for depth in (MAX_DEPTH + 1, 490, 5000):
        with pytest.raises(ValueError, match=r"pyad.save\(\): obj is nested more than "
                                             r"%d levels deep" % MAX_DEPTH):
            pyad.save(_nested(depth), io.BytesIO())
    loop = {"a": [1]}
    loop["a"].append(loop)
    with pytest.raises(ValueError, match=r"pyad.save\(\): obj contains itself at "
                                         r"obj\['a'\]\[1\]"):
        pyad.save(loop, io.BytesIO())
    shared = [1]
    assert round_trip([shared, shared]) == [[1], [1]]     # shared is not a cycle


def test_nesting_within_max_depth_from_a_deep_caller_raises_pyads_own_error():
    import sys
    from pyad.serialization import MAX_DEPTH

    def recurse(n):
        return recurse(n - 1) if n else pyad.save(_nested(MAX_DEPTH), io.BytesIO())
    with pytest.raises(ValueError, match=r"pyad.save\(\): obj is nested too deeply for "
                                         r"the interpreter's recursion limit"):
        recurse(sys.getrecursionlimit() - 300)


def test_deep_nesting_in_a_crafted_index_is_refused():
    from pyad.serialization import MAX_DEPTH
    root = {"t": "none"}
    for _ in range(MAX_DEPTH + 1):
        root = {"t": "list", "v": [root]}
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*nested more than %d levels"
                                           % MAX_DEPTH):
        pyad.load(_npz(index=_index(root)))


def test_out_of_range_numbers_raise_pyads_own_error():
    text = b'{"format": "pyad-checkpoint", "version": 1, "root": {"t": "float", "v": 1' \
           + b"0" * 400 + b"}}"
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*float entry out of range"):
        pyad.load(_npz(index=np.frombuffer(text, dtype=np.uint8)))
    # 1e400 written as a JSON float reads as inf, as Python's float("1e400")
    text = b'{"format": "pyad-checkpoint", "version": 1, "root": {"t": "float", "v": 1e400}}'
    assert pyad.load(_npz(index=np.frombuffer(text, dtype=np.uint8))) == math.inf
    assert round_trip([1e400, -1e400, 10 ** 400]) == [math.inf, -math.inf, 10 ** 400]
    with pytest.raises(ValueError, match=r"pyad.save\(\): the int at obj\[0\] is too large"):
        pyad.save([10 ** 5000], io.BytesIO())


def _index_v2(root):
    text = json.dumps({"format": "pyad-checkpoint", "version": 2, "root": root})
    return np.frombuffer(text.encode(), dtype=np.uint8)


def test_views_saved_together_load_as_views_sharing_memory():
    # torch saves storages: a tensor and its views load sharing memory (independent
    # derivation: writing the base must show through each view as numpy computes it)
    base = np.arange(12.0).reshape(3, 4)
    x = pyad.tensor(base.copy())
    back = round_trip({"x": x, "rows": x[1:], "col": x[:, 2], "t": x.t(),
                       "arr": x.data[::-1, ::2], "alone": pyad.tensor([5.0])[0:1]})
    expected = {"rows": base[1:], "col": base[:, 2], "t": base.T, "arr": base[::-1, ::2]}
    for k, v in expected.items():
        got = back[k].data if isinstance(back[k], pyad.Variable) else back[k]
        assert np.array_equal(got, v) and got.strides == v.strides, k
    back["x"].data[1, 2] = -1.0
    base[1, 2] = -1.0
    assert back["rows"].data[0, 2] == back["col"].data[1] == back["t"].data[2, 1] == -1.0
    assert back["arr"][1, 1] == -1.0
    assert back["alone"].data.tolist() == [5.0]


def test_a_file_without_views_stays_version_1():
    buffer = io.BytesIO()
    x = pyad.arange(4.0)
    pyad.save([x, x[1:].clone()], buffer)
    buffer.seek(0)
    with zipfile.ZipFile(buffer) as z:
        header = np.lib.format.read_array(z.open("index.npy"))
    assert json.loads(header.tobytes())["version"] == 1


@pytest.mark.parametrize("view,why", [
    ({"offset": 8 * 6, "shape": [2], "strides": [8]}, "view outside"),        # past the end
    ({"offset": 0, "shape": [2], "strides": [-8]}, "view outside"),           # before start
    ({"offset": 8, "shape": [3, 2], "strides": [0, 40]}, "view outside"),
    ({"offset": 4, "shape": [1], "strides": [8]}, "view outside"),            # misaligned
    ({"offset": 0, "shape": [-1], "strides": [8]}, "malformed view"),
    ({"offset": 0, "shape": [2], "strides": [8, 8]}, "malformed view"),
    ({"offset": True, "shape": [2], "strides": [8]}, "malformed view"),
    ({"offset": 0, "shape": [1.5], "strides": [8]}, "malformed view"),
    ("0:2", "malformed view"),
])
def test_a_crafted_view_is_refused(view, why):
    for node in ({"t": "array", "k": "a0", "view": view},
                 {"t": "variable", "k": "a0", "requires_grad": False, "view": view}):
        f = _npz(index=_index_v2(node), a0=np.zeros(6))
        with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*" + why):
            pyad.load(f)


def test_a_view_entry_in_a_version_1_file_is_refused():
    f = _npz(index=_index({"t": "array", "k": "a0",
                           "view": {"offset": 0, "shape": [2], "strides": [8]}}),
             a0=np.zeros(6))
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*malformed view"):
        pyad.load(f)


def test_a_valid_crafted_view_loads_inside_its_array():
    f = _npz(index=_index_v2({"t": "array", "k": "a0",
                              "view": {"offset": 40, "shape": [3], "strides": [-16]}}),
             a0=np.arange(6.0))
    assert pyad.load(f).tolist() == [5.0, 3.0, 1.0]


def test_a_huge_zero_stride_view_is_refused_before_anything_copies_it():
    # inside its 48-byte array, but 8 TB as an array: whatever copied it (map_location
    # to a GPU, the user's first op) would allocate that, so the load's budget applies
    node = {"t": "variable", "k": "a0", "requires_grad": False,
            "view": {"offset": 0, "shape": [10 ** 12], "strides": [0]}}
    with pytest.raises(RuntimeError, match=r"pyad.load\(\): .*view of 8000000000000 bytes"):
        pyad.load(_npz(index=_index_v2(node), a0=np.zeros(6)))
    # a legitimate expand within the budget loads, sharing its 8 bytes
    node["view"]["shape"] = [1000]
    v = pyad.load(_npz(index=_index_v2(node), a0=np.arange(6.0)), max_bytes=8000)
    assert v.shape == (1000,) and v.data.strides == (0,) and not v.data.any()
    with pytest.raises(RuntimeError, match="max_bytes=7999"):
        pyad.load(_npz(index=_index_v2(node), a0=np.arange(6.0)), max_bytes=7999)
