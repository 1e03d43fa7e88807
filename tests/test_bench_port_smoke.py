"""benchmarks/bench_port.py runs end to end at smoke sizes (no timing asserted): its
pyad and torch steps agree (it checks losses and every gradient before timing) and it
prints one row per benchmark."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO_ROOT, "benchmarks", "bench_port.py")


def test_bench_port_smoke():
    proc = subprocess.run([sys.executable, SCRIPT, "--smoke"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)
    detail = "stdout:\n%s\nstderr:\n%s" % (proc.stdout, proc.stderr)
    assert proc.returncode == 0, detail
    assert "pyad/torch" in proc.stdout, detail
    for case in ("lstm ", "lstm-core", "transformer"):
        assert case in proc.stdout, detail
