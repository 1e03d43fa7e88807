"""``pyad.save`` and ``pyad.load``: checkpoints that cannot run code when opened.

A checkpoint is a NumPy ``.npz`` (zip) archive: every array is one ``.npy`` member, and
the structure around them (dicts, lists, tuples, numbers, strings, Variables' flags) is a
JSON document in the member ``index`` (format version 2 adds entries that are views,
offset, shape and strides, of one member; a file without views is written as version
1). Loading reads it with ``numpy.load(..., allow_pickle=False)`` and ``json``, never
``pickle``: an archive
holding a pickled (object) array is refused, so opening a checkpoint from an untrusted
source cannot execute anything.

Writing is atomic: ``save`` to a path writes a temporary file in the same directory,
fsyncs it, and renames it over the target, so a save that fails part-way (disk full,
file size limit, interrupt) leaves any previous checkpoint intact. Reading is bounded:
every array member is read once however often the index names it, a member whose
declared size is out of proportion with the file (a zip bomb) is refused before it is
inflated, and one ``load`` allocates at most ``max_bytes`` (default: the machine's
physical memory).
"""
import collections
import json
import math
import os
import pickle
import secrets
import stat
import sys
import zipfile

import numpy

from pyad import _engine
from pyad._engine import Variable, device as _device

__all__ = ["save", "load", "MAX_DEPTH", "MAX_EXPANSION", "default_restore_location"]

_FORMAT = "pyad-checkpoint"
_VERSION = 1
_VERSION_VIEWS = 2                # version 1 plus entries that are views of a member
_INDEX = "index"
_ARRAY_KINDS = "biufcSU"          # bool, integers, floats, complex, bytes, str: no objects
# Deepest nesting of dicts/lists/tuples save writes and load accepts: far beyond any
# state_dict, and well inside Python's recursion limit for json and the codec below.
MAX_DEPTH = 200
# A member may declare at most this many times the archive's size (plus _EXPANSION_SLACK)
# of uncompressed data. pyad.save stores members uncompressed (ratio 1); deflate of
# constant data reaches about 1000, the signature of a zip bomb.
MAX_EXPANSION = 64
_EXPANSION_SLACK = 1 << 20


class _NotACheckpoint(RuntimeError, pickle.UnpicklingError):
    """A file pyad.load refuses (not a pyad checkpoint: a pickle, a torch file, damaged):
    a RuntimeError, and a ``pickle.UnpicklingError`` as torch's refusal of a file its
    ``weights_only`` loader will not unpickle."""


class _EmptyFile(_NotACheckpoint, EOFError):
    """An empty file: also an EOFError, as torch.load's."""


class _BadLocation(ValueError, RuntimeError):
    """An unknown ``map_location`` device: ValueError (pyad's) and RuntimeError (torch's)."""


class _Writer:
    def __init__(self):
        self.arrays = {}
        # id(Variable or array) -> (object, its entry): an object met again is written as
        # the same entry, and loads as the same object (as torch's pickle memo)
        self.memo = {}
        # member key -> (the NumPy array written there, the entries naming it): views of
        # one buffer are regrouped into one member by share_views()
        self.owners = {}

    def share_views(self):
        """Arrays that are views of one NumPy buffer (a Variable and its slices, tied
        views) are written as that buffer once, each entry naming its offset, shape and
        strides in it, so that they load as views sharing memory, as torch's shared
        storages do. Returns True when any entry became such a view."""
        groups = {}
        for key, (arr, nodes) in self.owners.items():
            root = _root_of(arr)
            if root.dtype != arr.dtype or arr.dtype.kind not in "biufc" \
                    or not root.flags.c_contiguous:
                continue
            groups.setdefault(id(root), (root, []))[1].append(key)
        shared = False
        for root, keys in groups.values():
            if len(keys) < 2:
                continue
            root_key = "a%d" % len(self.arrays)
            self.arrays[root_key] = root
            start = root.__array_interface__["data"][0]
            for key in keys:
                arr, nodes = self.owners[key]
                view = {"offset": arr.__array_interface__["data"][0] - start,
                        "shape": list(arr.shape), "strides": list(arr.strides)}
                for node in nodes:
                    node["k"] = root_key
                    node["view"] = view
                del self.arrays[key]
            shared = True
        return shared

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

    def _own(self, node, arr):
        if isinstance(arr, numpy.ndarray):
            self.owners[node["k"]] = (arr, [node])
        return node

    def encode(self, obj, path, depth=0, open_containers=None):
        # bool before int: bool is a subclass of int.
        if obj is None:
            return {"t": "none"}
        if isinstance(obj, bool):
            return {"t": "bool", "v": obj}
        if isinstance(obj, int):
            value = int(obj)
            if value.bit_length() > 4096:       # json writes ints in decimal; bound it
                raise ValueError("pyad.save(): the int at %s is too large to save (%d bits; "
                                 "at most 4096)" % (path, value.bit_length()))
            return {"t": "int", "v": value}
        if isinstance(obj, float):
            return {"t": "float", "v": float(obj)}
        if isinstance(obj, str):
            return {"t": "str", "v": obj}
        if isinstance(obj, complex):
            return {"t": "complex", "v": [obj.real, obj.imag]}
        if isinstance(obj, bytes):
            return {"t": "bytes", "v": obj.hex()}
        if isinstance(obj, Variable):
            seen = self.memo.get(id(obj))
            if seen is not None:
                return seen[1]
            from pyad.nn.parameter import Parameter
            node = self._own({"t": "variable", "k": self._array(obj.data, path),
                              "requires_grad": bool(obj.requires_grad),
                              "parameter": isinstance(obj, Parameter),
                              "device": str(obj.device)}, obj.data)
            self.memo[id(obj)] = (obj, node)
            return node
        if isinstance(obj, numpy.generic):
            return {"t": "scalar", "k": self._array(numpy.asarray(obj), path)}
        if isinstance(obj, numpy.ndarray) or type(obj).__module__.startswith("cupy"):
            seen = self.memo.get(id(obj))
            if seen is not None:
                return seen[1]
            node = self._own({"t": "array", "k": self._array(obj, path)}, obj)
            self.memo[id(obj)] = (obj, node)
            return node
        if isinstance(obj, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                raise ValueError("pyad.save(): obj is nested more than %d levels deep (dicts, "
                                 "lists and tuples inside each other); flatten it"
                                 % MAX_DEPTH)
            if open_containers is None:
                open_containers = set()
            if id(obj) in open_containers:
                raise ValueError("pyad.save(): obj contains itself at %s (a reference cycle)"
                                 % path)
            open_containers.add(id(obj))
            try:
                return self._container(obj, path, depth + 1, open_containers)
            finally:
                open_containers.discard(id(obj))
        raise TypeError("pyad.save(): cannot save an object of type %s at %s (supported: "
                        "Variable, array, int, float, complex, bool, str, bytes, None, and "
                        "dicts, lists and tuples of them)" % (type(obj).__name__, path))

    def _container(self, obj, path, depth, open_containers):
        if isinstance(obj, dict):
            keys, values = [], []
            for k, v in obj.items():
                if k is not None and not isinstance(k, (str, int, float)):
                    raise TypeError("pyad.save(): cannot save a dict key of type %s at %s "
                                    "(keys may be str, int, float, bool or None)"
                                    % (type(k).__name__, path))
                keys.append(self.encode(k, path))
                values.append(self.encode(v, "%s[%r]" % (path, k), depth, open_containers))
            kind = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {"t": kind, "keys": keys, "values": values}
        items = [self.encode(v, "%s[%d]" % (path, i), depth, open_containers)
                 for i, v in enumerate(obj)]
        return {"t": "list" if isinstance(obj, list) else "tuple", "v": items}


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` to ``f`` (a path or a binary file object) as a safe ``.npz`` checkpoint.

    ``obj`` may be a Variable (or `pyad.nn.Parameter`), a NumPy or CuPy array, an int,
    float, complex, bool, str, bytes or None, or dicts (keys str, int, float, bool or None, as in an
    optimizer's ``state_dict``), lists and tuples nesting them: a module's or an
    optimizer's ``state_dict``. Anything else raises TypeError naming where in ``obj``
    it is, and so does nesting deeper than `pyad.serialization.MAX_DEPTH` levels (or a
    container that holds itself) with ValueError. A path is written as given (no suffix
    is added) and atomically: the checkpoint goes to a temporary file in the same
    directory, is flushed to disk, then renamed over ``f``, so if the save fails part-way
    (disk full, file size limit) an existing checkpoint at ``f`` is left as it was.
    The same Variable or array met twice (tied weights) is written once and loads as
    one object, as torch's; Variables and arrays that are views of one NumPy buffer
    (a Variable and its slices) are written as that buffer once and load as views
    sharing memory, as torch's shared storages (a view saved on its own is written as
    its values). torch's ``pickle_protocol`` and zipfile switches are
    accepted and change nothing; a ``pickle_module`` other than the standard `pickle`
    raises TypeError (pyad never pickles, so it cannot honour a custom pickler).

    >>> import io, pyad
    >>> buffer = io.BytesIO()
    >>> pyad.save({"w": pyad.ones(2, requires_grad=True), "step": 3}, buffer)
    >>> _ = buffer.seek(0)
    >>> pyad.load(buffer)
    {'w': tensor([1., 1.], requires_grad=True), 'step': 3}
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise TypeError("pyad.save(): pickle_module=%r is not supported: pyad checkpoints "
                        "are never pickled (see pyad.save's docstring for what it saves)"
                        % getattr(pickle_module, "__name__", pickle_module))
    writer = _Writer()
    try:
        root = writer.encode(obj, "obj")
        # version 2 only when entries are views (older readers would ignore them)
        version = _VERSION_VIEWS if writer.share_views() else _VERSION
        index = json.dumps({"format": _FORMAT, "version": version, "root": root},
                           allow_nan=True).encode("utf-8")
    except RecursionError:      # MAX_DEPTH is checked first; this is a deep caller stack
        raise ValueError("pyad.save(): obj is nested too deeply for the interpreter's "
                         "recursion limit here (sys.getrecursionlimit() is %d)"
                         % sys.getrecursionlimit()) from None
    arrays = dict(writer.arrays)
    arrays[_INDEX] = numpy.frombuffer(index, dtype=numpy.uint8)
    if not isinstance(f, (str, bytes, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("pyad.save(): expected 'f' to be string, path, or a file-like "
                             "object with a 'write' attribute, got %s" % type(f).__name__)
    if isinstance(f, (str, bytes, os.PathLike)):
        _write_atomically(os.fspath(f), lambda fh: numpy.savez(fh, **arrays))
    else:
        numpy.savez(f, **arrays)


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:                     # (Windows cannot open a directory)
        return
    try:
        os.fsync(fd)
    except OSError:                     # some file systems refuse fsync on a directory
        pass
    finally:
        os.close(fd)


def _write_atomically(path, write):
    """Write through ``write(fh)`` to a temporary file beside ``path``, fsync it, and
    rename it over ``path``; on any failure remove the temporary file and keep ``path``."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    target = os.path.realpath(path)     # through a symlink, replace the file it names
    directory, base = os.path.split(target)
    try:
        st = os.stat(target)
    except OSError:
        mode = None
    else:
        if not stat.S_ISREG(st.st_mode):
            # A device or a pipe (/dev/null, a FIFO a reader waits on) is written to, as
            # open() would; renaming over it would replace the device node itself.
            with open(path, "wb") as fh:
                write(fh)
            return
        mode = stat.S_IMODE(st.st_mode)
    while True:
        tmp = os.path.join(directory, ".%s.%s.tmp" % (base, secrets.token_hex(6)))
        try:
            # 0o666 filtered by the umask: the permissions open(path, "wb") would give
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)         # an overwritten checkpoint keeps its permissions
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory or ".")


def _root_of(arr):
    while isinstance(arr.base, numpy.ndarray):
        arr = arr.base
    return arr


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 64 << 30


class _Reader:
    def __init__(self, npz, map_location, name, archive_size, max_bytes):
        self.npz = npz
        self.map_location = map_location
        self.name = name
        self.archive_size = archive_size
        self.max_bytes = max_bytes
        self.allocated = 0
        self.arrays = {}                # member key -> array: each member is read once
        self.variables = {}             # entry -> Variable: one entry, one object
        self.depth = 0
        self.version = _VERSION

    def fail(self, why):
        raise _NotACheckpoint("pyad.load(): %s is not a valid pyad checkpoint: %s"
                              % (self.name, why))

    def _member_info(self, key):
        for member in (key + ".npy", key):
            try:
                return self.npz.zip.getinfo(member)
            except KeyError:
                continue
        self.fail("it refers to a missing array %r" % (key,))

    def read_member(self, key):
        """The array in member ``key``, read once; its declared sizes are checked against
        the archive's size and the load's budget before anything is inflated."""
        arr = self.arrays.get(key)
        if arr is not None:
            return arr
        info = self._member_info(key)
        limit = MAX_EXPANSION * self.archive_size + _EXPANSION_SLACK
        if info.file_size > limit:
            self.fail("array %r declares %d bytes in a %d-byte file (more than %d times the "
                      "file: a zip bomb?)" % (key, info.file_size, self.archive_size,
                                              MAX_EXPANSION))
        try:
            with self.npz.zip.open(info) as fp:
                version = numpy.lib.format.read_magic(fp)
                if version == (1, 0):
                    shape, fortran, dtype = numpy.lib.format.read_array_header_1_0(fp)
                elif version == (2, 0):
                    shape, fortran, dtype = numpy.lib.format.read_array_header_2_0(fp)
                else:
                    raise ValueError("unsupported .npy version %s" % (version,))
                header_size = fp.tell()
        except Exception as exc:
            self.fail("array %r cannot be read (%s: %s)" % (key, type(exc).__name__, exc))
        if dtype.kind not in _ARRAY_KINDS:
            self.fail("array %r has dtype %s" % (key, dtype))
        nbytes = math.prod(shape) * dtype.itemsize
        if header_size + nbytes != info.file_size:
            self.fail("array %r declares shape %s of %s (%d bytes) in a member of %d bytes"
                      % (key, shape, dtype, nbytes, info.file_size - header_size))
        if self.allocated + nbytes > self.max_bytes:
            raise RuntimeError("pyad.load(): %s needs more than max_bytes=%d bytes (array %r "
                               "of %d bytes after %d read); pass a larger max_bytes to "
                               "load it" % (self.name, self.max_bytes, key, nbytes,
                                            self.allocated))
        try:
            arr = self.npz[key]
        except Exception as exc:    # an object (pickled) array is refused, never unpickled
            self.fail("array %r cannot be read (%s: %s)" % (key, type(exc).__name__, exc))
        if not isinstance(arr, numpy.ndarray):   # a member that is not a .npy file
            self.fail("array %r is not an array" % (key,))
        if arr.dtype.kind not in _ARRAY_KINDS:
            self.fail("array %r has dtype %s" % (key, arr.dtype))
        self.allocated += nbytes
        self.arrays[key] = arr
        return arr

    def _array(self, node):
        key = node.get("k")
        if not isinstance(key, str) or key == _INDEX or key not in self.npz.files:
            self.fail("it refers to a missing array %r" % (key,))
        arr = self.read_member(key)
        if "view" in node:
            arr = self._view(arr, node["view"])
        return arr

    def _view(self, base, view):
        # an entry that is a view of a member (version 2): checked to lie inside the
        # member's buffer before numpy is asked for it
        if self.version < _VERSION_VIEWS or not isinstance(view, dict):
            self.fail("malformed view entry")
        offset, shape, strides = view.get("offset"), view.get("shape"), view.get("strides")

        def ints(xs):
            return isinstance(xs, list) and all(
                isinstance(x, int) and not isinstance(x, bool) for x in xs)
        if not isinstance(offset, int) or isinstance(offset, bool) or not ints(shape) \
                or not ints(strides) or len(shape) != len(strides) \
                or len(shape) > 64 or any(n < 0 for n in shape):
            self.fail("malformed view entry")
        if not base.flags.c_contiguous or base.dtype.kind not in "biufc":
            self.fail("a view of an array that cannot hold views")
        itemsize = base.dtype.itemsize
        if 0 not in shape:
            low = offset + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
            high = offset + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides))
            if low < 0 or high + itemsize > base.nbytes or offset % itemsize:
                self.fail("a view outside its array")
        elif offset < 0 or offset > base.nbytes:
            self.fail("a view outside its array")
        # a view costs no memory, but whatever copies it (map_location to a GPU, the
        # user's first op) does: its size counts against the load's budget, so a crafted
        # zero-stride view of 10**12 elements is refused, not handed on
        if math.prod(shape) * itemsize > self.max_bytes:
            raise RuntimeError("pyad.load(): %s holds a view of %d bytes, more than "
                               "max_bytes=%d; pass a larger max_bytes to load it"
                               % (self.name, math.prod(shape) * itemsize, self.max_bytes))
        try:
            return numpy.ndarray(tuple(shape), dtype=base.dtype, buffer=base,
                                 offset=offset if 0 not in shape else 0,
                                 strides=tuple(strides))
        except (TypeError, ValueError) as exc:
            self.fail("a view numpy refuses (%s)" % exc)

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
            if t == "float":
                try:
                    return float(value)
                except OverflowError:       # an int too large for a float
                    self.fail("a float entry out of range (%d digits)" % len(str(value)))
            return value
        if t == "complex":
            value = node.get("v")
            if not isinstance(value, list) or len(value) != 2 or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
                self.fail("malformed complex entry")
            return complex(value[0], value[1])
        if t == "bytes":
            value = node.get("v")
            try:
                return bytes.fromhex(value)
            except (TypeError, ValueError):
                self.fail("malformed bytes entry")
        if t == "variable":
            memo_key = json.dumps(node, sort_keys=True)
            v = self.variables.get(memo_key)
            if v is None:
                v = self.variables[memo_key] = self._variable(node)
            return v
        if t == "array":
            if "view" not in node:
                return self._array(node)
            memo_key = json.dumps(node, sort_keys=True)      # one entry, one view object
            arr = self.variables.get(memo_key)
            if arr is None:
                arr = self.variables[memo_key] = self._array(node)
            return arr
        if t == "scalar":
            arr = self._array(node)
            if arr.ndim != 0:
                self.fail("a scalar entry holds an array of shape %s" % (arr.shape,))
            return arr[()]
        if t in ("list", "tuple", "dict", "odict"):
            if self.depth >= MAX_DEPTH:
                self.fail("the structure is nested more than %d levels deep" % MAX_DEPTH)
            self.depth += 1
            try:
                return self._container(node, t)
            finally:
                self.depth -= 1
        self.fail("unknown entry type %r" % (t,))

    def _container(self, node, t):
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

    def _variable(self, node):
        arr = self._array(node)
        requires_grad = node.get("requires_grad")
        parameter = node.get("parameter", False)
        saved_device = node.get("device", "cpu")
        if not isinstance(requires_grad, bool) or not isinstance(parameter, bool) \
                or not isinstance(saved_device, str):
            self.fail("malformed Variable entry")
        if requires_grad and not _engine._is_floating_or_complex(arr.dtype):
            self.fail("an integer or bool Variable marked requires_grad")
        target = _mapped_device(self.map_location, arr, saved_device)
        v = Variable(arr)
        if _device(target) != v.device:
            v = v.to(device=target)
        if parameter:
            from pyad.nn.parameter import Parameter
            return Parameter(v, requires_grad=requires_grad)
        return v._mark_requires_grad(requires_grad)


def _mapped_device(map_location, arr, saved_device):
    # torch's forms of map_location: a device (everything there), a dict from saved
    # location to location ({'cuda:0': 'cpu'}), or a function of (storage, location)
    # whose result's device is the target (lambda storage, loc: storage keeps the CPU).
    if map_location is None:
        return saved_device
    if isinstance(map_location, dict):
        return str(_device(map_location.get(saved_device, saved_device)))
    if callable(map_location):
        result = map_location(arr, saved_device)
        if result is None or result is arr:
            return "cpu"
        if isinstance(result, (str, _device)):
            return str(_device(result))
        return str(Variable(result).device)
    return map_location


def default_restore_location(storage, location):
    """``storage`` (an array being loaded) placed at ``location`` (``'cpu'``,
    ``'cuda:N'``, ...), as torch's; for a ``map_location`` function that delegates to it
    (``lambda storage, loc: default_restore_location(storage, 'cpu')``).

    >>> import numpy
    >>> a = numpy.zeros(2)
    >>> default_restore_location(a, "cpu") is a
    True
    """
    if str(_device(location)).startswith("cpu"):
        return storage
    return Variable(storage).to(device=location).data


def load(f, map_location=None, *, max_bytes=None, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by `save` from ``f`` (a path or a binary file object).

    Nothing in the file is executed: arrays are read with ``allow_pickle=False`` and
    the structure with ``json``. Variables keep ``requires_grad``; Parameters come back
    as `pyad.nn.Parameter`; arrays come back as NumPy arrays. ``map_location`` (``'cpu'``,
    ``'cuda'``, ``'cuda:N'`` or a `pyad.device`) places every Variable on that device;
    a dict maps saved locations to locations (``{'cuda:0': 'cpu'}``) and a function of
    ``(array, location)`` places each Variable where its result lives (``lambda storage,
    loc: storage`` keeps the CPU), as torch's; by default each goes back where it was
    saved. ``weights_only``, ``mmap`` and pickle's arguments are accepted and change
    nothing (the format never runs code). A file that is not a pyad checkpoint,
    truncated or corrupt raises RuntimeError naming ``pyad.load`` (also a
    ``pickle.UnpicklingError``, what torch's ``weights_only`` loader raises; an empty
    file also an ``EOFError``).

    Loading is bounded: each array member is read once, however many entries name it;
    a member that declares more than `pyad.serialization.MAX_EXPANSION` times the
    file's size (a zip bomb) is refused before it is inflated; and the arrays of one
    load may take at most ``max_bytes`` bytes (keyword only, pyad's own; default
    ``None``: the machine's physical memory), else RuntimeError before the array that
    would exceed it is read.

    >>> import io, pyad
    >>> buffer = io.BytesIO()
    >>> pyad.save([1, (2.5, "three"), None], buffer)
    >>> _ = buffer.seek(0)
    >>> pyad.load(buffer)
    [1, (2.5, 'three'), None]
    """
    # weights_only, mmap and pickle's arguments are accepted for torch's scripts: pyad's
    # format never runs code (always "weights only") and is read into memory.
    if weights_only and pickle_load_args.get("pickle_module") is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if map_location is not None and not isinstance(map_location, (dict, str, _device)) \
            and not callable(map_location):
        raise TypeError("pyad.load(): map_location must be None, a device string ('cpu', "
                        "'cuda', 'cuda:N'), a pyad.device, a dict or a function, got %s"
                        % type(map_location).__name__)
    if isinstance(map_location, (str, _device)):
        try:
            map_location = str(_device(map_location))
        except Exception as exc:
            raise _BadLocation("pyad.load(): invalid map_location %r (%s)"
                               % (map_location, exc)) from None
    if max_bytes is None:
        max_bytes = _physical_memory()
    elif isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError("pyad.load(): max_bytes must be None or a non-negative int, got %r"
                         % (max_bytes,))
    is_path = isinstance(f, (str, bytes, os.PathLike))
    name = repr(os.fspath(f)) if is_path else "the file"
    try:
        if is_path:
            archive_size = os.path.getsize(f)
        else:
            position = f.tell()
            archive_size = f.seek(0, os.SEEK_END) - position
            f.seek(position)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except AttributeError as exc:
        raise AttributeError("pyad.load(): %s; pass a path or a seekable binary file (or read "
                             "it into an io.BytesIO)" % (exc,)) from None
    except (OSError, ValueError) as exc:
        raise RuntimeError("pyad.load(): cannot find the size of %s (%s: %s); pass a path or "
                           "a seekable binary file" % (name, type(exc).__name__, exc)) from None
    if archive_size == 0:
        raise _EmptyFile("pyad.load(): %s is empty, not a pyad checkpoint" % name)
    try:
        npz = numpy.load(f, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as exc:     # zipfile and numpy raise many kinds on a damaged archive
        raise _NotACheckpoint("pyad.load(): %s is not a valid pyad checkpoint (%s: %s)"
                              % (name, type(exc).__name__, exc)) from None
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise _NotACheckpoint("pyad.load(): %s is not a valid pyad checkpoint (a single .npy "
                              "array, not an .npz archive)" % name)
    with npz:
        reader = _Reader(npz, map_location, name, archive_size, max_bytes)
        if _INDEX not in npz.files:
            reader.fail("no index")
        raw = reader.read_member(_INDEX)
        if not isinstance(raw, numpy.ndarray) or raw.dtype != numpy.uint8 or raw.ndim != 1:
            reader.fail("the index is not UTF-8 JSON bytes")
        try:
            index = json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            reader.fail("the index is not valid JSON (%s)" % exc)
        if not isinstance(index, dict) or index.get("format") != _FORMAT:
            reader.fail("no pyad checkpoint header")
        if index.get("version") not in (_VERSION, _VERSION_VIEWS) \
                or isinstance(index.get("version"), bool):
            reader.fail("unsupported format version %r" % (index.get("version"),))
        reader.version = index["version"]
        try:
            return reader.decode(index.get("root"))
        except RecursionError:      # (MAX_DEPTH is checked first; a deep caller stack)
            reader.fail("the structure is nested too deeply")
