"""Every Python snippet in the documentation pages runs and prints what the page says.

The pages (docs/*.md and docs/guides/*.md) are parsed with Sybil: fenced blocks marked
```python run in order, one namespace per page; blocks with ``>>>`` prompts run as
doctests (printed output compared, ``...`` as a wildcard), other blocks with exec.
Blocks fenced as ```py (code that needs a GPU) and ```bash are shown but not run.
"""
import doctest
import importlib.util
import pathlib

import pytest

sybil = pytest.importorskip("sybil")
from sybil.parsers.markdown import PythonCodeBlockParser  # noqa: E402

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
SYBIL = sybil.Sybil(parsers=[PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS)])


def _id(page):
    return str(page.relative_to(DOCS))


def test_docs_exist():
    names = {p.name for p in PAGES}
    assert {"index.md", "getting-started.md", "graph-semantics.md", "custom-functions.md",
            "gradcheck.md", "dlpack.md", "devices.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_snippets_run(page):
    text = page.read_text(encoding="utf-8")
    if "import torch" in text and importlib.util.find_spec("torch") is None:
        pytest.skip("page uses PyTorch, which is not installed")
    document = SYBIL.parse(page)
    document.namespace["__name__"] = "__docs__"
    examples = list(document.examples())
    # every ```python block is picked up (a doctest block gives one example per prompt)
    assert len(examples) >= text.count("```python\n")
    failures = []
    for example in examples:
        try:
            example.evaluate()
        except Exception as exc:  # report every failing block, not just the first
            failures.append("%s:%d: %s: %s" % (_id(page), example.line, type(exc).__name__, exc))
    assert not failures, "\n".join(failures)
