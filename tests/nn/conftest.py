"""Make tests/nn/_nn_helpers.py and tests/ops/_ops_helpers.py importable under
``--import-mode=importlib`` (which does not put test directories on sys.path)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (_HERE, os.path.join(os.path.dirname(_HERE), "ops")):
    if _d not in sys.path:
        sys.path.insert(0, _d)
