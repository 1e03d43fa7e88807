"""Generate ``pyad/_engine.pyi``, the type stub of the compiled engine module.

The stub is generated from the built module itself, so it cannot miss a name: every
public function, class, method and attribute defined in ``pyad._engine`` gets an entry,
with the parameter names, kinds and defaults that ``inspect.signature`` reads from the
Cython functions. Types come from the tables below, keyed by parameter name (``input``
is a Variable, ``dim`` an int, ...) and by function name for return types (default:
``Variable``). A new op therefore usually needs nothing here; give it an entry in
``RETURNS`` or ``PARAMS`` only when its types differ from the conventions.

Usage (after building the extension, e.g. ``python setup.py build_ext --inplace``)::

    python tools/gen_stubs.py           # rewrite pyad/_engine.pyi
    python tools/gen_stubs.py --check   # exit 1 if the committed stub is out of date

CI runs ``--check`` and then ``python -m mypy.stubtest pyad._engine``.
"""
import argparse
import difflib
import inspect
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
STUB = ROOT / "pyad" / "_engine.pyi"
MODULE = "pyad._engine"

# Parameter types by parameter name (all functions and methods).
OPERAND = "_Operand"
PARAMS = {
    "input": "Variable", "self": None,
    "other": OPERAND, "mat2": OPERAND, "src": OPERAND, "exponent": OPERAND,
    "value": OPERAND, "reward": OPERAND, "mask": "ArrayLike",
    "gradient": "_Operand | None",
    "dim": "_Dims | None", "keepdim": "bool", "keepdims": "bool | None",
    "axis": "_Dims | None", "dtype": "DTypeLike | None",
    "shape": "int | Sequence[int]", "sizes": "int | Sequence[int]",
    "dims": "int | Sequence[int]",
    "start_dim": "int", "end_dim": "int", "dim0": "int", "dim1": "int",
    "axis0": "int", "axis1": "int",
    "low": "float", "high": "float", "mean": "float", "std": "float",
    "alpha": "float", "key": "Any", "hook": "Callable[..., Any]",
    "requires_grad": "bool", "force": "bool", "copy": "bool | None",
    "non_blocking": "bool", "device": "device | str | int | None",
    "retain_graph": "bool | None", "create_graph": "bool",
    "retain_variables": "bool | None", "only_inputs": "bool", "allow_unused": "bool | None",
    "materialize_grads": "bool",
    "inputs": "Variable | Sequence[Variable] | None",
    "outputs": "Variable | Sequence[Variable]",
    "tensors": "Variable | Sequence[Variable] | None",
    "grad_tensors": "_Operand | Sequence[_Operand | None] | None",
    "grad_variables": "_Operand | Sequence[_Operand | None] | None",
    "grad_outputs": "_Operand | Sequence[_Operand | None] | None",
    "is_grads_batched": "bool",
    "ext_tensor": "Any", "tensor": "Variable", "d": "DTypeLike",
    "stream": "int | Any | None", "max_version": "tuple[int, int] | None",
    "dl_device": "tuple[int, int] | None",
    "memo": "dict[int, Any]", "protocol": "SupportsIndex", "spec": "str",
    "args": "Any", "type": "str | device", "index": "int | None",
    "container": "Any",
}
# Per-function overrides of PARAMS ("function" or "Class.method" -> {param: type}).
PARAM_OVERRIDES = {
    "Variable.to": {"args": "Any"},
    "get_array_module": {"args": "Any"},
    "log_softmax": {"dim": "int | None"},
    "Variable.log_softmax": {"dim": "int"},
    "Variable.logsumexp": {"dim": "_Dims"},
    "max": {"dim": "int | None"},
    "Variable.max": {"dim": "int | None"},
    "squeeze": {"dim": "int | None"},
    "Variable.squeeze": {"dim": "int | None"},
    "unsqueeze": {"dim": "int"},
    "Variable.unsqueeze": {"dim": "int"},
    "Variable.size": {"dim": "int | None"},
    "Variable.type": {"dtype": "DTypeLike | str | None"},
    "Variable.fill_": {"value": "float"},
    "fill_": {"value": "float"},
    "setitem": {"value": OPERAND},
    "where_const": {"value": "float"},
    "Variable.__array__": {"dtype": "DTypeLike | None", "copy": "bool | None"},
    "Variable.requires_grad_": {"requires_grad": "bool"},
}
# Return types ("function" or "Class.method"); anything else returns a Variable.
RETURNS = {
    "backward": "None", "Variable.backward": "None",
    "grad": "tuple[Variable | None, ...]",
    "get_default_dtype": "np.dtype[Any]", "set_default_dtype": "None",
    "is_grad_enabled": "bool", "get_array_module": "types.ModuleType",
    "to_dlpack": "Any", "Variable.__dlpack__": "Any",
    "Variable.__dlpack_device__": "tuple[int, int]",
    "max": "Variable | max_result", "Variable.max": "Variable | max_result",
    "setitem": "None",
    "Variable.size": "Any", "Variable.numel": "int", "Variable.nelement": "int",
    "Variable.dim": "int", "Variable.element_size": "int", "Variable.item": "Any",
    "Variable.tolist": "Any", "Variable.numpy": "NDArray[Any]",
    "Variable.__array__": "NDArray[Any]", "Variable.type": "Any",
    "Variable.__reduce_ex__": "Any", "Variable.__reduce__": "Any",
    "Variable.__format__": "str",
    "Variable.register_hook": "RemovableHandle",
    "Variable.register_post_accumulate_grad_hook": "RemovableHandle",
    "Variable.reinforce": "None", "Variable.retain_grad": "None",
    "Node.name": "str", "Node.register_hook": "RemovableHandle",
    "Node.register_prehook": "RemovableHandle",
    "FunctionNode.save_for_backward": "None", "FunctionNode.mark_dirty": "None",
    "FunctionNode.mark_non_differentiable": "None",
    "FunctionNode.set_materialize_grads": "None",
    "RemovableHandle.remove": "None",
}
# Attribute (property) types; "Class.attr" or plain "attr". Unknown ones are Any.
ATTRS = {
    "Variable.data": "NDArray[Any]", "Variable.grad": "Variable | None",
    "Variable.requires_grad": "bool", "Variable.is_leaf": "bool",
    "Variable.grad_fn": "Node | None", "Variable.creator": "Node | None",
    "Variable.output_nr": "int", "Variable.retains_grad": "bool",
    "Variable.is_view": "bool", "Variable.name": "str | None",
    "Variable.shape": "tuple[int, ...]", "Variable.dtype": "np.dtype[Any]",
    "Variable.device": "device", "Variable.is_cuda": "bool", "Variable.ndim": "int",
    "Variable.T": "Variable", "Variable.mT": "Variable", "Variable.volatile": "bool",
    "Node.next_functions": "tuple[tuple[Node | None, int], ...]",
    "Node.metadata": "dict[Any, Any]",
    "FunctionNode.saved_tensors": "tuple[Variable, ...]",
    "FunctionNode.saved_variables": "tuple[Variable, ...]",
    "FunctionNode.needs_input_grad": "tuple[bool, ...]",
    "AccumulateGrad.variable": "Variable", "VersionCounter.version": "int",
}
# Attributes that can be assigned to (the others are read-only properties).
SETTABLE = {"Variable.data", "Variable.grad", "Variable.requires_grad", "Variable.name",
            "Variable.volatile", "Variable.retains_grad"}

# Hand-written parts: what introspection cannot see (slot wrappers, plain-Python classes'
# instance attributes, the namedtuple).
HEADER = '''\
# Generated by tools/gen_stubs.py from the built module; do not edit by hand.
# Regenerate after changing pyad/_engine.pyx or pyad/ops/*.pxi:
#     python setup.py build_ext --inplace && python tools/gen_stubs.py
import types
from builtins import bool as _bool, float as _float, int as _int, str as _str
from typing import Any, Callable, ClassVar, Iterator, NamedTuple, Sequence, SupportsIndex

from typing_extensions import disjoint_base

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

_Operand = Variable | ArrayLike
_Dims = int | Sequence[int]

class max_result(NamedTuple):
    values: Variable
    indices: Variable

class RemovableHandle:
    id: int
    def __init__(self, container: Any, key: Any = None) -> None: ...
    def remove(self) -> None: ...
    def __enter__(self) -> RemovableHandle: ...
    def __exit__(self, *exc: object) -> None: ...

class device:
    type: str
    index: int | None
    def __init__(self, type: str | device, index: int | None = None) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
'''
VARIABLE_DUNDERS = '''\
    __array_priority__: ClassVar[int]
    def __init__(self, data: Any = ..., requires_grad: bool = False,
                 volatile: bool = False) -> None: ...
    def __add__(self, other: _Operand, /) -> Variable: ...
    def __radd__(self, other: _Operand, /) -> Variable: ...
    def __sub__(self, other: _Operand, /) -> Variable: ...
    def __rsub__(self, other: _Operand, /) -> Variable: ...
    def __mul__(self, other: _Operand, /) -> Variable: ...
    def __rmul__(self, other: _Operand, /) -> Variable: ...
    def __truediv__(self, other: _Operand, /) -> Variable: ...
    def __rtruediv__(self, other: _Operand, /) -> Variable: ...
    def __matmul__(self, other: _Operand, /) -> Variable: ...
    def __rmatmul__(self, other: _Operand, /) -> Variable: ...
    def __pow__(self, value: _Operand, mod: None = None, /) -> Variable: ...
    def __rpow__(self, value: _Operand, mod: None = None, /) -> Variable: ...
    def __iadd__(self, other: _Operand, /) -> Variable: ...
    def __isub__(self, other: _Operand, /) -> Variable: ...
    def __imul__(self, other: _Operand, /) -> Variable: ...
    def __itruediv__(self, other: _Operand, /) -> Variable: ...
    def __floordiv__(self, other: _Operand, /) -> Variable: ...
    def __rfloordiv__(self, other: _Operand, /) -> Variable: ...
    def __mod__(self, other: _Operand, /) -> Variable: ...
    def __rmod__(self, other: _Operand, /) -> Variable: ...
    def __and__(self, other: _Operand, /) -> Variable: ...
    def __rand__(self, other: _Operand, /) -> Variable: ...
    def __or__(self, other: _Operand, /) -> Variable: ...
    def __ror__(self, other: _Operand, /) -> Variable: ...
    def __xor__(self, other: _Operand, /) -> Variable: ...
    def __rxor__(self, other: _Operand, /) -> Variable: ...
    def __round__(self, ndigits: _int | None = None, /) -> Variable: ...
    def __neg__(self) -> Variable: ...
    def __pos__(self) -> Variable: ...
    def __lt__(self, value: _Operand, /) -> Any: ...
    def __le__(self, value: _Operand, /) -> Any: ...
    def __gt__(self, value: _Operand, /) -> Any: ...
    def __ge__(self, value: _Operand, /) -> Any: ...
    def __eq__(self, value: object, /) -> Any: ...  # type: ignore[override]
    def __ne__(self, value: object, /) -> Any: ...  # type: ignore[override]
    def __hash__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __int__(self) -> int: ...
    def __float__(self) -> float: ...
    def __index__(self) -> int: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Variable]: ...
    def __getitem__(self, key: Any, /) -> Variable: ...
    def __setitem__(self, key: Any, value: _Operand, /) -> None: ...
    def __delitem__(self, key: Any, /) -> None: ...
'''
NODE_DUNDERS = '''\
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...'''
HANDWRITTEN_CLASSES = {"RemovableHandle", "device", "max_result"}
# Private or implementation names that the stub leaves out.
SKIP_NAMES = {"cupy", "__test__"}


_BUILTIN = re.compile(r"\b(int|float|bool|str)\b")


def _b(annotation):
    """Annotation text with int/float/bool/str spelled as the module-level aliases
    (inside class Variable those names are its methods)."""
    return _BUILTIN.sub(r"_\1", annotation)


def _type_of(qual, pname):
    over = PARAM_OVERRIDES.get(qual, {})
    if pname in over:
        return over[pname]
    return PARAMS.get(pname, "Any")


def _signature(qual, func, is_method):
    sig = inspect.signature(func)
    parts, seen_kwonly = [], False
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if is_method and i == 0:
            # "self", or "input" for the ops installed as methods from the family tuples
            parts.append(p.name)
            continue
        ann = _type_of(qual, p.name)
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*%s: %s" % (p.name, _b(ann)))
            seen_kwonly = True
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append("**%s: %s" % (p.name, _b(ann)))
            continue
        if p.kind is p.KEYWORD_ONLY and not seen_kwonly:
            parts.append("*")
            seen_kwonly = True
        if p.default is p.empty:
            parts.append("%s: %s" % (p.name, _b(ann)))
        else:
            if p.default is None and "None" not in ann and ann != "Any":
                ann = "%s | None" % ann          # a None default means "not given"
            parts.append("%s: %s = %s" % (p.name, _b(ann), _default(p.default)))
    ret = _b(RETURNS.get(qual, "Variable"))
    return "(%s) -> %s" % (", ".join(parts), ret)


def _default(value):
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value)
    return "..."


def _is_function(obj):
    return type(obj).__name__ in ("cython_function_or_method", "function")


def _public_bases(cls):
    # a private base (_BinaryNode) is an implementation detail: stub its public ancestor
    out = []
    for base in cls.__bases__:
        while base.__name__.startswith("_"):
            base = base.__bases__[0]
        if base is not object:
            out.append(base)
    return out


def _is_disjoint_base(cls):
    """Whether instances have a C layout of their own (PEP 800), as CPython decides it:
    a cdef class with C fields. mypy.stubtest checks the stub marks these."""
    base = cls.__base__
    if cls.__itemsize__ or base.__itemsize__ or sys.version_info >= (3, 12):
        return cls.__basicsize__ != base.__basicsize__ or cls.__itemsize__ != base.__itemsize__
    ptr = 8 if sys.maxsize > 2 ** 32 else 4
    size = cls.__basicsize__
    if not base.__weakrefoffset__ and cls.__weakrefoffset__ + ptr == size:
        size -= ptr
    if not base.__dictoffset__ and cls.__dictoffset__ + ptr == size:
        size -= ptr
    return size != base.__basicsize__


def _class_lines(cls, module):
    name = cls.__name__
    bases = [b.__name__ for b in _public_bases(cls)]
    head = "class %s%s:" % (name, "(%s)" % ", ".join(bases) if bases else "")
    if _is_disjoint_base(cls):
        head = "@disjoint_base\n" + head
    body = []
    if name == "Variable":
        body.append(_b(VARIABLE_DUNDERS))
    elif name == "Node":
        body.append(NODE_DUNDERS)
    for attr, obj in cls.__dict__.items():
        if attr.startswith("_") and attr not in ("__array__", "__dlpack__",
                                                 "__dlpack_device__", "__format__",
                                                 "__reduce__", "__reduce_ex__",
                                                 "__deepcopy__"):
            continue
        qual = "%s.%s" % (name, attr)
        if _is_function(obj):
            if attr == "__deepcopy__":
                body.append("    def __deepcopy__(self, memo: dict[_int, Any]) -> Variable: ...")
                continue
            body.append("    def %s%s: ..." % (attr, _signature(qual, obj, True)))
        elif type(obj).__name__ in ("getset_descriptor", "property", "member_descriptor"):
            typ = _b(ATTRS.get(qual, "Any"))
            body.append("    @property")
            body.append("    def %s(self) -> %s: ..." % (attr, typ))
            if qual in SETTABLE:
                body.append("    @%s.setter" % attr)
                body.append("    def %s(self, value: %s) -> None: ..." % (attr, typ))
    if not body:
        body.append("    ...")
    return [head] + body


def generate():
    # the in-tree build if there is one (development), else the installed package (CI)
    if any((ROOT / "pyad").glob("_engine*.so")) or any((ROOT / "pyad").glob("_engine*.pyd")):
        sys.path.insert(0, str(ROOT))
    import pyad._engine as module
    lines = [HEADER]
    classes, functions, aliases = [], [], []
    for attr in sorted(vars(module)):
        obj = getattr(module, attr)
        if attr.startswith("_") or attr in SKIP_NAMES or isinstance(obj, types.ModuleType):
            continue
        if isinstance(obj, type):
            if attr in HANDWRITTEN_CLASSES:
                continue
            if obj.__name__ != attr:
                aliases.append("%s = %s" % (attr, obj.__name__))
            elif attr not in HANDWRITTEN_CLASSES and obj.__module__ == MODULE:
                classes.append(obj)
        elif _is_function(obj) and getattr(obj, "__module__", None) == MODULE:
            functions.append("def %s%s: ..." % (attr, _signature(attr, obj, False)))
        elif isinstance(obj, tuple):              # the op families' tuples
            aliases.append("%s: tuple[Any, ...]" % attr)
        elif isinstance(obj, frozenset):          # FUNCTION_ONLY
            aliases.append("%s: frozenset[str]" % attr)
        elif isinstance(obj, dict):               # OP_FAMILIES
            aliases.append("%s: dict[str, tuple[Any, ...]]" % attr)
    # base classes first, so the stub reads top-down
    ordered, placed = [], set()
    while len(ordered) < len(classes):
        for cls in classes:
            if cls.__name__ in placed:
                continue
            if all(b.__name__ in placed or b.__module__ != MODULE for b in _public_bases(cls)):
                ordered.append(cls)
                placed.add(cls.__name__)
    for cls in ordered:
        lines.append("\n".join(_class_lines(cls, module)) + "\n")
    lines.append("\n".join(aliases) + "\n")
    lines.append("\n".join(functions) + "\n")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed stub instead of writing it")
    args = parser.parse_args()
    text = generate()
    if args.check:
        current = STUB.read_text(encoding="utf-8") if STUB.exists() else ""
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), text.splitlines(True),
                "pyad/_engine.pyi (committed)", "pyad/_engine.pyi (generated)"))
            print("\npyad/_engine.pyi is out of date: run python tools/gen_stubs.py")
            return 1
        print("pyad/_engine.pyi is up to date")
        return 0
    STUB.write_text(text, encoding="utf-8")
    print("wrote %s" % STUB.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
