"""Sphinx configuration for pyad's documentation site.

Build: ``pip install ".[docs]" && sphinx-build -W -b html docs docs/_build/html``
(pyad must be importable: the API reference is generated from its docstrings).
"""
import pyad

project = "pyad"
author = "pyad developers"
copyright = "2026, pyad developers"
release = pyad.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",            # the guides are Markdown
    "sphinx.ext.autodoc",     # the API reference, from the docstrings
    "sphinx.ext.napoleon",    # numpydoc-style sections (Parameters, Returns, Examples)
    "sphinx.ext.intersphinx",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing"]   # links into examples/ and the repository

napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_default_options = {"members": True, "undoc-members": True}
autodoc_member_order = "bysource"
autodoc_docstring_signature = True          # Cython's embedded signature lines
intersphinx_mapping = {}

html_theme = "furo"
html_title = "pyad %s" % release
