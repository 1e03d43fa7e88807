"""Every Python snippet in docs/*.md runs and prints what the page says.

Fenced blocks marked ```python are run in order, one namespace per page: blocks with
``>>>`` prompts as doctests (their printed output is compared, with ``...`` as a
wildcard), other blocks with exec. Blocks fenced as ```py (code that needs a GPU) and
```sh are shown but not run.
"""
import doctest
import glob
import importlib.util
import os
import re

import pytest

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
PAGES = sorted(glob.glob(os.path.join(DOCS, "*.md")))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_docs_exist():
    names = {os.path.basename(p) for p in PAGES}
    assert {"index.md", "getting-started.md", "graph-semantics.md", "custom-functions.md",
            "gradcheck.md", "dlpack.md", "devices.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=os.path.basename)
def test_snippets_run(page):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if "import torch" in text and importlib.util.find_spec("torch") is None:
        pytest.skip("page uses PyTorch, which is not installed")
    name = os.path.basename(page)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    namespace = {"__name__": "__docs__"}
    failures = []
    for start, block in ((m.start(), m.group(1)) for m in BLOCK.finditer(text)):
        line = text.count("\n", 0, start) + 2
        if ">>>" not in block:
            try:
                exec(compile(block, "%s:%d" % (name, line), "exec"), namespace)
            except Exception as exc:  # report every failing block, not just the first
                failures.append("%s:%d: %s: %s" % (name, line, type(exc).__name__, exc))
            continue
        test = parser.get_doctest(block, namespace, "%s:%d" % (name, line), page, line - 1)
        out = []
        result = runner.run(test, out=out.append, clear_globs=False)
        namespace.update(test.globs)        # DocTest copies its globals
        if result.failed:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)
