"""The recipe for adding an op (docs/internals.md, "Adding an op") is complete: a
throw-away elementwise op with an in-place twin, added to a copy of the repository in
its family file plus one Case line, needs nothing else edited by hand: after a rebuild
and the two generators, the registry, typing and op tests pass in the copy.

It rebuilds the extension in the copy (minutes), so it runs only with
``PYAD_SLOW_TESTS=1``; tests/test_op_registry.py checks the same rules on the real
tree on every run."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("PYAD_SLOW_TESTS") != "1",
                                reason="rebuilds the extension: set PYAD_SLOW_TESTS=1")

ROOT = pathlib.Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns(".git", "build", "__pycache__", "*.so", "*.c", "*.html",
                                ".pytest_cache", "_build", "*.egg-info")

OP_CODE = '''

@profiled_op
cpdef Variable exp2(object input):
    """Elementwise ``2 ** input`` (a throw-away op of tests/test_op_recipe.py).

    >>> exp2(Variable(numpy.array([0., 3.])))
    tensor([1., 8.], dtype=float64)
    """
    return pow(2.0, _float_input(input, "exp2"))

'''


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _run(cmd, cwd, **env):
    environ = dict(os.environ, PYTHONPATH=str(cwd), **env)
    done = subprocess.run(cmd, cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, "%s\n%s\n%s" % (cmd, done.stdout[-4000:], done.stderr[-4000:])
    return done.stdout


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".so", ".c", ".html") and "build" not in p.parts}


def test_an_elementwise_op_and_its_twin_need_three_places(tmp_path):
    copy = tmp_path / "pyad-copy"
    shutil.copytree(ROOT, copy, ignore=IGNORE)
    before = _snapshot(copy)
    family = copy / "pyad" / "ops" / "elementwise.pxi"
    # 1. the op's code, 2. its tuple entry (and its twin's entry beside the tuple)
    _edit(family, "\n\n# The public elementwise ops", OP_CODE + "\n# The public elementwise ops")
    _edit(family, "isclose, allclose, equal)", "isclose, allclose, equal, exp2)")
    _edit(family, '(trunc, ""), (frac, ""))', '(trunc, ""), (frac, ""), (exp2, ""))')
    # 3. its Case line
    _edit(copy / "tests" / "ops" / "test_elementwise.py",
          '    Case("exp", lambda L, a: L.exp(a), [(3, 4)]),\n',
          '    Case("exp", lambda L, a: L.exp(a), [(3, 4)]),\n'
          '    Case("exp2", lambda L, a: L.exp2(a), [(3, 4)]),\n')
    _run([sys.executable, "setup.py", "build_ext", "--inplace"], copy, PYAD_FAST_BUILD="1")
    _run([sys.executable, "tools/gen_stubs.py"], copy)
    _run([sys.executable, "tools/gen_op_reference.py"], copy)

    after = _snapshot(copy)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == {"pyad/ops/elementwise.pxi", "tests/ops/test_elementwise.py",
                       # generated
                       "pyad/__init__.py", "pyad/_engine.pyi", "docs/op-reference.md"}, changed

    out = _run([sys.executable, "-c",
                "import pyad, numpy; x = pyad.tensor([1., 2.]); "
                "print(pyad.exp2(x).tolist(), x.exp2().tolist(), 'exp2' in pyad.__all__, "
                "'exp2_' in pyad.__all__, x.exp2_().tolist())"], copy)
    assert out.split() == "[2.0, 4.0] [2.0, 4.0] True True [2.0, 4.0]".split(), out
    _run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
          "tests/test_op_registry.py", "tests/test_typing.py"], copy)
    out = _run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                "tests/ops/test_elementwise.py", "-k", "exp2"], copy)
    assert " passed" in out, out
    _run([sys.executable, "tools/gen_stubs.py", "--check"], copy)
