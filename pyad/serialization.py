"""``pyad.save`` and ``pyad.load``: checkpoints that cannot run code when opened.

A checkpoint is a NumPy ``.npz`` (zip) archive: every array is one ``.npy`` member, and
the structure around them (dicts, lists, tuples, numbers, strings, Variables' flags) is a
JSON document in the member ``index``. Loading reads it with
``numpy.load(..., allow_pickle=False)`` and ``json``, never ``pickle``: an archive
holding a pickled (object) array is refused, so opening a checkpoint from an untrusted
source cannot execute anything.
"""
import collections
import json
import os

import numpy

from pyad._engine import Variable, device as _device

__all__ = ["save", "load"]

_FORMAT = "pyad-checkpoint"
_VERSION = 1
_INDEX = "index"
_ARRAY_KINDS = "biufcSU"          # bool, integers, floats, complex, bytes, str: no objects


class _Writer:
    def __init__(self):
        self.arrays = {}

    def _array(self, arr, path):
        if not isinstance(arr, numpy.ndarray):         # a CuPy array: saved from the host
            arr = arr.get()
        if arr.dtype.kind not in _ARRAY_KINDS:
            raise TypeError("pyad.save(): cannot save an array of dtype %s at %s (only bool, "
                            "integer, floating point, complex and string arrays)"
                            % (arr.dtype, path))
        key = "a%d" % len(self.arrays)
        self.arrays[key] = arr
        return key

    def encode(self, obj, path):
        # bool before int: bool is a subclass of int.
        if obj is None:
            return {"t": "none"}
        if isinstance(obj, bool):
            return {"t": "bool", "v": obj}
        if isinstance(obj, int):
            return {"t": "int", "v": int(obj)}
        if isinstance(obj, float):
            return {"t": "float", "v": float(obj)}
        if isinstance(obj, str):
            return {"t": "str", "v": obj}
        if isinstance(obj, Variable):
            from pyad.nn.parameter import Parameter
            return {"t": "variable", "k": self._array(obj.data, path),
                    "requires_grad": bool(obj.requires_grad),
                    "parameter": isinstance(obj, Parameter), "device": str(obj.device)}
        if isinstance(obj, numpy.generic):
            return {"t": "scalar", "k": self._array(numpy.asarray(obj), path)}
        if isinstance(obj, numpy.ndarray) or type(obj).__module__.startswith("cupy"):
            return {"t": "array", "k": self._array(obj, path)}
        if isinstance(obj, dict):
            keys, values = [], []
            for k, v in obj.items():
                if k is not None and not isinstance(k, (str, int, float)):
                    raise TypeError("pyad.save(): cannot save a dict key of type %s at %s "
                                    "(keys may be str, int, float, bool or None)"
                                    % (type(k).__name__, path))
                keys.append(self.encode(k, path))
                values.append(self.encode(v, "%s[%r]" % (path, k)))
            kind = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {"t": kind, "keys": keys, "values": values}
        if isinstance(obj, (list, tuple)):
            items = [self.encode(v, "%s[%d]" % (path, i)) for i, v in enumerate(obj)]
            return {"t": "list" if isinstance(obj, list) else "tuple", "v": items}
        raise TypeError("pyad.save(): cannot save an object of type %s at %s (supported: "
                        "Variable, array, int, float, bool, str, None, and dicts, lists and "
                        "tuples of them)" % (type(obj).__name__, path))


def save(obj, f):
    """Save ``obj`` to ``f`` (a path or a binary file object) as a safe ``.npz`` checkpoint.

    ``obj`` may be a Variable (or `pyad.nn.Parameter`), a NumPy or CuPy array, an int,
    float, bool, str or None, or dicts (keys str, int, float, bool or None, as in an
    optimizer's ``state_dict``), lists and tuples nesting them: a module's or an
    optimizer's ``state_dict``. Anything else raises TypeError naming where in ``obj``
    it is. A path is written as given (no suffix is added).

    >>> import io, pyad
    >>> buffer = io.BytesIO()
    >>> pyad.save({"w": pyad.ones(2, requires_grad=True), "step": 3}, buffer)
    >>> _ = buffer.seek(0)
    >>> pyad.load(buffer)
    {'w': tensor([1., 1.], requires_grad=True), 'step': 3}
    """
    writer = _Writer()
    root = writer.encode(obj, "obj")
    index = json.dumps({"format": _FORMAT, "version": _VERSION, "root": root},
                       allow_nan=True).encode("utf-8")
    arrays = dict(writer.arrays)
    arrays[_INDEX] = numpy.frombuffer(index, dtype=numpy.uint8)
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "wb") as fh:
            numpy.savez(fh, **arrays)
    else:
        numpy.savez(f, **arrays)


class _Reader:
    def __init__(self, npz, map_location, name):
        self.npz = npz
        self.map_location = map_location
        self.name = name

    def fail(self, why):
        raise RuntimeError("pyad.load(): %s is not a valid pyad checkpoint: %s"
                           % (self.name, why))

    def _array(self, node):
        key = node.get("k")
        if not isinstance(key, str) or key == _INDEX or key not in self.npz.files:
            self.fail("it refers to a missing array %r" % (key,))
        try:
            arr = self.npz[key]
        except Exception as exc:    # an object (pickled) array is refused, never unpickled
            self.fail("array %r cannot be read (%s: %s)" % (key, type(exc).__name__, exc))
        if not isinstance(arr, numpy.ndarray):   # a member that is not a .npy file
            self.fail("array %r is not an array" % (key,))
        if arr.dtype.kind not in _ARRAY_KINDS:
            self.fail("array %r has dtype %s" % (key, arr.dtype))
        return arr

    def decode(self, node):
        if not isinstance(node, dict):
            self.fail("malformed index entry %r" % (node,))
        t = node.get("t")
        if t == "none":
            return None
        if t in ("bool", "int", "float", "str"):
            value = node.get("v")
            kinds = {"bool": bool, "int": int, "float": (float, int), "str": str}
            if not isinstance(value, kinds[t]) or (t == "int" and isinstance(value, bool)):
                self.fail("malformed %s entry" % t)
            return float(value) if t == "float" else value
        if t == "variable":
            return self._variable(node)
        if t == "array":
            return self._array(node)
        if t == "scalar":
            arr = self._array(node)
            if arr.ndim != 0:
                self.fail("a scalar entry holds an array of shape %s" % (arr.shape,))
            return arr[()]
        if t in ("list", "tuple"):
            items = node.get("v")
            if not isinstance(items, list):
                self.fail("malformed %s entry" % t)
            items = [self.decode(v) for v in items]
            return items if t == "list" else tuple(items)
        if t in ("dict", "odict"):
            keys, values = node.get("keys"), node.get("values")
            if not isinstance(keys, list) or not isinstance(values, list) \
                    or len(keys) != len(values):
                self.fail("malformed dict entry")
            out = collections.OrderedDict() if t == "odict" else {}
            for k, v in zip(keys, values):
                key = self.decode(k)
                if key is not None and not isinstance(key, (str, int, float)):
                    self.fail("a dict key of type %s" % type(key).__name__)
                out[key] = self.decode(v)
            return out
        self.fail("unknown entry type %r" % (t,))

    def _variable(self, node):
        arr = self._array(node)
        requires_grad = node.get("requires_grad")
        parameter = node.get("parameter", False)
        saved_device = node.get("device", "cpu")
        if not isinstance(requires_grad, bool) or not isinstance(parameter, bool) \
                or not isinstance(saved_device, str):
            self.fail("malformed Variable entry")
        if requires_grad and arr.dtype.kind not in "fc":
            self.fail("an integer or bool Variable marked requires_grad")
        target = self.map_location if self.map_location is not None else saved_device
        v = Variable(arr)
        if _device(target) != v.device:
            v = v.to(device=target)
        if parameter:
            from pyad.nn.parameter import Parameter
            return Parameter(v, requires_grad=requires_grad)
        return v.requires_grad_(requires_grad)


def load(f, map_location=None):
    """Load an object saved by `save` from ``f`` (a path or a binary file object).

    Nothing in the file is executed: arrays are read with ``allow_pickle=False`` and
    the structure with ``json``. Variables keep ``requires_grad``; Parameters come back
    as `pyad.nn.Parameter`; arrays come back as NumPy arrays. ``map_location`` (``'cpu'``,
    ``'cuda'``, ``'cuda:N'`` or a `pyad.device`) places every Variable on that device;
    by default each goes back where it was saved. A file that is not a pyad checkpoint,
    truncated or corrupt raises RuntimeError naming ``pyad.load``.

    >>> import io, pyad
    >>> buffer = io.BytesIO()
    >>> pyad.save([1, (2.5, "three"), None], buffer)
    >>> _ = buffer.seek(0)
    >>> pyad.load(buffer)
    [1, (2.5, 'three'), None]
    """
    if map_location is not None:
        if not isinstance(map_location, (str, _device)):
            raise TypeError("pyad.load(): map_location must be None, a device string ('cpu', "
                            "'cuda', 'cuda:N') or a pyad.device, got %s"
                            % type(map_location).__name__)
        try:
            map_location = str(_device(map_location))
        except Exception as exc:
            raise ValueError("pyad.load(): invalid map_location %r (%s)"
                             % (map_location, exc)) from None
    name = repr(os.fspath(f)) if isinstance(f, (str, bytes, os.PathLike)) else "the file"
    try:
        npz = numpy.load(f, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as exc:     # zipfile and numpy raise many kinds on a damaged archive
        raise RuntimeError("pyad.load(): %s is not a valid pyad checkpoint (%s: %s)"
                           % (name, type(exc).__name__, exc)) from None
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise RuntimeError("pyad.load(): %s is not a valid pyad checkpoint (a single .npy "
                           "array, not an .npz archive)" % name)
    with npz:
        reader = _Reader(npz, map_location, name)
        if _INDEX not in npz.files:
            reader.fail("no index")
        try:
            raw = npz[_INDEX]
        except Exception as exc:    # an object (pickled) array is refused, never unpickled
            reader.fail("the index cannot be read (%s: %s)" % (type(exc).__name__, exc))
        if not isinstance(raw, numpy.ndarray) or raw.dtype != numpy.uint8 or raw.ndim != 1:
            reader.fail("the index is not UTF-8 JSON bytes")
        try:
            index = json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            reader.fail("the index is not valid JSON (%s)" % exc)
        if not isinstance(index, dict) or index.get("format") != _FORMAT:
            reader.fail("no pyad checkpoint header")
        if index.get("version") != _VERSION:
            reader.fail("unsupported format version %r" % (index.get("version"),))
        try:
            return reader.decode(index.get("root"))
        except RecursionError:
            reader.fail("the structure is nested too deeply")
