"""Every ``pyad.<name>`` that a string in the package mentions (error messages,
docstrings) names something that exists, so no message sends users to a missing API."""
import importlib
import io
import pathlib
import re
import tokenize

import pytest

import pyad

PACKAGE_DIR = pathlib.Path(pyad.__file__).parent
SOURCE_SUFFIXES = {".py", ".pyx", ".pxi", ".pxd"}
NAME = re.compile(r"\bpyad((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# A string literal, for sources Python's tokenizer cannot read (it reads Cython so far).
STRING = re.compile(r"""(?s)[rbuRBUfF]{0,2}("{3}.*?"{3}|'{3}.*?'{3}|"(?:\\.|[^"\\\n])*"|"""
                    r"""'(?:\\.|[^'\\\n])*')""")


def _string_literals(text):
    try:
        return [tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.STRING]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return STRING.findall(text)


def _mentions():
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        for literal in _string_literals(path.read_text(encoding="utf-8")):
            for match in NAME.finditer(literal):
                found.append((path.relative_to(PACKAGE_DIR).as_posix(), "pyad" + match.group(1)))
    return found


def _resolves(dotted):
    obj = pyad
    parts = dotted.split(".")[1:]
    for i, part in enumerate(parts):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(["pyad"] + parts[:i + 1]))
        except ImportError:
            return False
    return True


MENTIONS = _mentions()


def test_scan_reads_the_engine_sources():
    # The check must not pass vacuously (e.g. if the .pyx/.pxi were not installed).
    files = {path for path, _ in MENTIONS}
    assert "_engine.pyx" in {p.name for p in PACKAGE_DIR.iterdir()}
    assert any(f.endswith(".pxi") for f in files)
    assert any(f.endswith(".py") for f in files)
    assert len(MENTIONS) >= 20


@pytest.mark.parametrize("path, name", sorted(set(MENTIONS)))
def test_named_attribute_exists(path, name):
    assert _resolves(name), "%s mentions %s, which does not exist" % (path, name)


def test_resolver_rejects_missing_names():
    assert _resolves("pyad.autograd.gradcheck")
    assert _resolves("pyad.nn.functional")
    assert not _resolves("pyad.maximum_that_does_not_exist")
    assert not _resolves("pyad.autograd.no_such_module")


def test_max_with_a_variable_dim_names_no_missing_function():
    with pytest.raises(TypeError, match=r"^max\(input, other\): the elementwise maximum") as info:
        pyad.max(pyad.ones(2), pyad.ones(2))
    assert "pyad.maximum" not in str(info.value)
