"""The typing surface stays in step with the package: ``pyad.__all__`` lists every
public name, the engine's stub and ``py.typed`` ship with the package, and the stub
names every public name of the compiled module. (CI also runs ``mypy.stubtest``, which
compares signatures; this test only needs the package.)"""
import ast
import pathlib
import types

import pytest

import pyad
import pyad._engine

PACKAGE_DIR = pathlib.Path(pyad.__file__).parent


def test_all_lists_every_public_name():
    public = {n for n, v in vars(pyad).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    public |= {"autograd", "nn", "optim"}
    missing = public - set(pyad.__all__)
    assert not missing, "add these to __all__ in pyad/__init__.py: %s" % sorted(missing)
    unknown = set(pyad.__all__) - set(vars(pyad))
    assert not unknown, "__all__ names that pyad does not define: %s" % sorted(unknown)


def test_stub_and_marker_are_installed():
    assert (PACKAGE_DIR / "py.typed").exists()
    assert (PACKAGE_DIR / "_engine.pyi").exists()


def test_stub_names_every_public_engine_name():
    stub = ast.parse((PACKAGE_DIR / "_engine.pyi").read_text(encoding="utf-8"))
    names = set()
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    runtime = {n for n, v in vars(pyad._engine).items()
               if not n.startswith("_") and not isinstance(v, types.ModuleType)
               and getattr(v, "__module__", "pyad._engine") in ("pyad._engine", "pyad")
               and n != "cupy"}
    missing = runtime - names
    assert not missing, ("pyad/_engine.pyi lacks %s: rebuild, then run "
                         "python tools/gen_stubs.py" % sorted(missing))


def test_stub_covers_every_public_variable_member():
    stub = ast.parse((PACKAGE_DIR / "_engine.pyi").read_text(encoding="utf-8"))
    cls = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Variable")
    members = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    runtime = {n for n in vars(pyad.Variable) if not n.startswith("_")}
    missing = runtime - members
    assert not missing, ("pyad/_engine.pyi lacks Variable.%s: rebuild, then run "
                         "python tools/gen_stubs.py" % sorted(missing))


def test_typed_example_runs():
    example = pathlib.Path(__file__).resolve().parents[1] / "examples" / "typed_usage.py"
    if not example.exists():
        pytest.skip("not run from a source checkout")
    namespace = {"__name__": "typed_usage"}
    exec(compile(example.read_text(encoding="utf-8"), str(example), "exec"), namespace)
    import numpy as np
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 2))
    w = namespace["fit"](x, x @ np.array([[3.0], [-1.0]]), steps=200)
    np.testing.assert_allclose(w.ravel(), [3.0, -1.0], atol=1e-3)
