"""Make tests/ops/_ops_helpers.py and tests/autograd/_torch_compare.py importable
under ``--import-mode=importlib`` (which, unlike the default mode, does not put test
directories on sys.path)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (_HERE, os.path.join(os.path.dirname(_HERE), "autograd")):   # _torch_compare
    if _d not in sys.path:
        sys.path.insert(0, _d)

# The differential sweeps against torch (test_torch_sweep_*.py, about 22,000 cases, and
# the later OpInfo gradient rounds test_torch_opinfo_grad_ports_2/_3.py, 1,500 more) run
# when PYAD_SWEEPS=1 (.ci/run runs them as a step of their own): collected with the rest
# of the suite they would double its time (every gc.collect() a test makes walks their
# items too) and take it past its ten minutes.
collect_ignore_glob = ([] if os.environ.get("PYAD_SWEEPS", "") not in ("", "0")
                       else ["test_torch_sweep_*.py", "test_torch_opinfo_grad_ports_[0-9].py"])
