"""Make tests/optim/_lr_helpers.py importable under ``--import-mode=importlib`` (which
does not put test directories on sys.path)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
