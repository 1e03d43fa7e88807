"""pyad's thread-count controls (pyad/_threads.py) against torch's: the same checks,
messages and round trips, and the BLAS pool really resized when threadpoolctl is there."""
import json
import os
import subprocess
import sys

import pytest

import pyad

torch = pytest.importorskip("torch")


def _run_child(code, tmp_path):
    # The pyad this test imported (the tree or the installed wheel), from a neutral
    # directory: a checkout's pyad/ without its built core must not shadow it.
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=str(tmp_path), env=env)


@pytest.mark.parametrize("name", ["set_num_threads", "set_num_interop_threads"])
@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_bad_counts_raise_as_torch(name, bad):
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(bad)
    with pytest.raises(RuntimeError) as ours:
        getattr(pyad, name)(bad)
    assert str(ours.value) == str(theirs.value)


def test_counts_round_trip_and_reach_blas(tmp_path):
    # In a child process: the setting is process-wide, and the suite's own BLAS
    # threads must not change under other tests.
    code = """
import numpy, pyad
threadpoolctl = None
try:
    import threadpoolctl
except ImportError:
    pass
assert pyad.get_num_threads() >= 1 and pyad.get_num_interop_threads() >= 1
pyad.set_num_threads(1)
assert pyad.get_num_threads() == 1
pyad.set_num_threads(numpy.int64(3))
assert pyad.get_num_threads() == 3 and type(pyad.get_num_threads()) is int
if threadpoolctl is not None:
    blas = [p["num_threads"] for p in threadpoolctl.threadpool_info()
            if p["user_api"] == "blas"]
    assert blas and all(n == 3 for n in blas), blas
pyad.set_num_interop_threads(2)
assert pyad.get_num_interop_threads() == 2
a = pyad.randn(64, 64, requires_grad=True)
(a @ a).sum().backward()      # matmul still runs with the new count
assert a.grad.shape == (64, 64)
print("ok", threadpoolctl is not None)
"""
    out = _run_child(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_blas_count_is_applied_when_threadpoolctl_is_installed(tmp_path):
    pytest.importorskip("threadpoolctl")
    code = ("import pyad, threadpoolctl\n"
            "pyad.set_num_threads(1)\n"
            "import json\n"
            "print(json.dumps([p['num_threads'] for p in threadpoolctl.threadpool_info() "
            "if p['user_api'] == 'blas']))")
    out = _run_child(code, tmp_path)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)
    assert counts and set(counts) == {1}
