"""Make tests/ops/_ops_helpers.py and tests/autograd/_torch_compare.py importable
under ``--import-mode=importlib`` (which, unlike the default mode, does not put test
directories on sys.path)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (_HERE, os.path.join(os.path.dirname(_HERE), "autograd")):   # _torch_compare
    if _d not in sys.path:
        sys.path.insert(0, _d)
