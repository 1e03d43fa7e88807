"""Packaging: every source the extension build needs ships with the package, and CI
tests the installed package (built from the sdist), not the source tree."""
import fnmatch
import os
import pathlib
import re

import pytest

import pyad

PACKAGE_DIR = pathlib.Path(pyad.__file__).parent
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
INCLUDE = re.compile(r'^\s*include\s+"([^"]+)"', re.M)


def _included_sources(package_dir):
    """_engine.pyx and every file it textually includes, recursively (paths relative to
    the package), with the includes that do not exist."""
    seen, missing, todo = set(), [], ["_engine.pyx"]
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        path = package_dir / rel
        if not path.exists():
            missing.append(rel)
            continue
        todo.extend(INCLUDE.findall(path.read_text(encoding="utf-8")))
    return seen, missing


def _package_data_globs():
    tomllib = pytest.importorskip("tomllib")          # Python 3.11+
    pyproject = REPO_ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not run from a source checkout")
    with open(pyproject, "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-data"]["pyad"]


def test_package_data_covers_every_included_cython_source():
    tree = REPO_ROOT / "pyad"
    if not (tree / "_engine.pyx").exists():
        pytest.skip("not run from a source checkout")
    sources, missing = _included_sources(tree)
    assert not missing
    assert {"_function.pxi", "_dlpack.pxi", "ops/_common.pxi"} <= sources
    globs = _package_data_globs()
    unshipped = [s for s in sorted(sources)
                 if not any(fnmatch.fnmatchcase(s, g) and s.count("/") == g.count("/")
                            for g in globs)]
    assert not unshipped, "package-data misses %s" % unshipped


def test_installed_package_has_all_its_cython_sources():
    # In CI this is the package installed from the sdist: a missing .pxi shows here.
    if not (PACKAGE_DIR / "_engine.pyx").exists():
        pytest.skip("the Cython sources are not installed next to the package")
    _, missing = _included_sources(PACKAGE_DIR)
    assert not missing


def test_ci_tests_the_installed_package():
    # .ci/run sets PYAD_EXPECT_INSTALLED=1 after installing pyad from its sdist.
    if os.environ.get("PYAD_EXPECT_INSTALLED") != "1":
        pytest.skip("only checked under .ci/run")
    # (the CI venv itself lives inside the checkout, so compare with the tree's pyad/)
    assert PACKAGE_DIR.resolve() != (REPO_ROOT / "pyad").resolve(), (
        "tests imported pyad from the source tree (%s), not the installed package"
        % PACKAGE_DIR)
    assert "site-packages" in PACKAGE_DIR.parts
