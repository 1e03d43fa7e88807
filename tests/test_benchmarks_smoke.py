"""The core benchmark script runs end to end at smoke sizes.

No timing is asserted: only that the script exits 0 (its floor self-checks
pass and no available framework disagrees with the NumPy floor) and prints
the results table.
"""
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO_ROOT, "benchmarks", "bench_core.py")


def test_bench_core_smoke():
    proc = subprocess.run(
        [sys.executable, SCRIPT, "--smoke"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=600,
    )
    detail = "stdout:\n%s\nstderr:\n%s" % (proc.stdout, proc.stderr)
    assert proc.returncode == 0, detail
    header = [line for line in proc.stdout.splitlines() if line.startswith("benchmark")]
    assert header, detail
    for column in ("NumPy floor", "pyad", "pyad/floor", "target", "torch", "torch/floor"):
        assert column in header[0], detail
    for case in ("(a)", "(a')", "(b)", "(c)", "(d)", "(e)", "(f)"):
        assert case in proc.stdout, detail


def test_bench_interop_smoke():
    import pytest
    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO_ROOT, "benchmarks", "bench_interop.py"), "--smoke"],
        cwd=REPO_ROOT, capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=600)
    detail = "stdout:\n%s\nstderr:\n%s" % (proc.stdout, proc.stderr)
    assert proc.returncode == 0, detail
    assert "torch fwd+bwd" in proc.stdout and "overhead" in proc.stdout, detail


def test_bench_scale_smoke():
    """benchmarks/bench_scale.py (growth, plain-process big row, profiler on/off)
    runs end to end at tiny sizes; its columns agree with the NumPy floor."""
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO_ROOT, "benchmarks", "bench_scale.py"), "--smoke"],
        cwd=REPO_ROOT, capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=600,
    )
    detail = "stdout:\n%s\nstderr:\n%s" % (proc.stdout, proc.stderr)
    assert proc.returncode == 0, detail
    for line in ("plain-process big row", "pyad+pool", "minflt/call", "live-graph growth",
                 "profiler: chain"):
        assert line in proc.stdout, detail
