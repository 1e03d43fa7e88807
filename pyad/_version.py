"""The package version, defined here only (pyproject.toml and docs/conf.py read it)."""
__version__ = "0.1.0"
