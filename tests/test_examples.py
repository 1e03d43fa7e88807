"""Every script in examples/ runs to completion and prints what it promises.

Each example runs in a fresh interpreter (the way a user runs it), from the repository
root, importing the same pyad as this test process (installed, or an in-place build).
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import pyad

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(REPO_ROOT, "examples")
PYAD_HOME = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
NUMBER = r"-?\d+\.\d*(?:e[-+]?\d+)?"


def run_example(name, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYAD_HOME
    # The MLP's matrices are small: threaded BLAS only adds contention on a busy CI box.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    proc = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, name), *args],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    detail = "stdout:\n%s\nstderr:\n%s" % (proc.stdout, proc.stderr)
    assert proc.returncode == 0, detail
    return proc.stdout, detail


def numbers(text):
    return [float(s) for s in re.findall(NUMBER, text)]


def test_every_example_has_a_test():
    scripts = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))
    assert scripts == ["custom_function.py", "interop.py", "per_sample_grads.py",
                       "profile_mlp.py", "train_cnn.py", "train_ddp.py", "train_mlp.py",
                       "train_with_dataloader.py", "tutorial.py", "typed_usage.py"]


def test_per_sample_grads_match_one_backward_per_sample():
    out, detail = run_example("per_sample_grads.py")
    lines = out.splitlines()
    assert lines[0] == ("per-sample gradient shapes: {'0.weight': (16, 8, 4), '0.bias': (16, 8), "
                        "'2.weight': (16, 3, 8), '2.bias': (16, 3)}"), detail
    assert lines[1].startswith("largest difference from one backward per sample: "), detail
    assert numbers(lines[1])[0] < 1e-12, detail
    norms = numbers(" ".join(lines[2:]).split(":", 1)[1])
    assert len(norms) == 16 and all(n > 0 for n in norms), detail


def test_train_ddp_on_one_process_reaches_the_documented_accuracy():
    # Without mpiexec it is a world of one rank; tests/distributed/test_mpi.py runs it on
    # two ranks under mpiexec.
    pytest.importorskip("mpi4py")
    out, detail = run_example("train_ddp.py", "--quiet")
    assert re.fullmatch(r"final training accuracy: (%s) \(300 steps, 1 ranks, %s s\)\n"
                        % (NUMBER, NUMBER), out), detail
    assert float(out.split()[3]) >= 0.95, detail


def test_interop_trains_a_torch_jax_pyad_model_end_to_end():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    out, detail = run_example("interop.py")
    first, final = numbers(out.splitlines()[-1])
    assert final < first / 10, detail


def test_typed_usage_recovers_the_true_weights():
    # y = x @ [1, -2, 0.5] exactly, so least squares by gradient descent finds them.
    out, detail = run_example("typed_usage.py")
    assert out.split() == ["[", "1.", "-2.", "0.5]"], detail


def test_tutorial_prints_the_tutorial_values():
    out, detail = run_example("tutorial.py")
    lines = out.splitlines()

    # x.grad and x.creator are None before any backward, for a leaf.
    assert lines.count("None") == 2, detail
    assert "AddBackward" in out, detail          # y.creator

    # The values of each printed Variable: what follows "tensor(" up to its first
    # keyword (requires_grad=, grad_fn=, dtype=) or closing parenthesis.
    values = [numbers(m) for m in re.findall(r"tensor\(([^=)]*)", out)]
    # x, y = x + 2, z = y * y * 3 and its mean, d(out)/dx, x.grad, z = y * y, x.grad
    assert values[0] == [1.0] * 4, detail
    assert values[1] == [3.0] * 4, detail
    assert values[2] == [27.0] * 4, detail
    assert values[3] == [27.0], detail
    assert values[4] == [4.5] * 4, detail
    assert values[5] == [1.0] * 4, detail        # retain_variables=True pass
    assert values[6] == [9.0] * 4, detail

    # The last x.grad is ones (first backward) + the seeded random gradient.
    import pyad
    pyad.manual_seed(0)
    expected = 1.0 + pyad.randn(2, 2).data.ravel()
    np.testing.assert_allclose(values[7], expected, atol=1e-4, err_msg=detail)


def test_train_mlp_reaches_the_documented_accuracy():
    out, detail = run_example("train_mlp.py", "--quiet")
    match = re.search(r"final training accuracy: (%s)" % NUMBER, out)
    assert match, detail
    assert float(match.group(1)) >= 0.95, detail
    assert "step" not in out.replace("steps", ""), detail   # --quiet


def test_train_mlp_steps_option_prints_progress():
    out, detail = run_example("train_mlp.py", "--steps", "3")
    assert re.search(r"step\s+1\s+loss", out), detail
    assert "(3 steps" in out, detail


_CNN_OPS = ("conv2d", "max_pool2d", "cross_entropy")


@pytest.mark.skipif(not all(hasattr(pyad.nn.functional, n) for n in _CNN_OPS),
                    reason="pyad.nn.functional lacks conv2d, max_pool2d or cross_entropy")
def test_train_cnn_reaches_the_documented_accuracy_and_reloads_it():
    out, detail = run_example("train_cnn.py", "--quiet")
    match = re.search(r"^test accuracy: (%s)" % NUMBER, out, re.M)
    assert match, detail
    assert float(match.group(1)) >= 0.95, detail
    reloaded = re.search(r"reloaded test accuracy: (%s)" % NUMBER, out)
    assert reloaded and float(reloaded.group(1)) == float(match.group(1)), detail
    assert "epoch 1" not in out, detail                       # --quiet


def test_custom_function_passes_gradcheck_and_refuses_double_backward():
    out, detail = run_example("custom_function.py")
    assert "softplus gradient matches sigmoid(beta * x)" in out, detail
    assert "gradcheck(Softplus): True" in out, detail
    assert "gradgradcheck(Softplus): True" in out, detail
    assert "gradcheck(Cube): True" in out, detail
    assert re.search(r"gradgradcheck\(Cube\):.*once_differentiable", out), detail


def test_profile_mlp_prints_the_table_and_writes_a_trace(tmp_path):
    import json
    path = tmp_path / "trace.json"
    out, detail = run_example("profile_mlp.py", str(path))
    assert re.search(r"Name\s+Self CPU %\s+Self CPU\s+CPU total %\s+CPU total\s+"
                     r"CPU time avg\s+CPU Mem\s+Self CPU Mem\s+# of Calls", out), detail
    # 3 profiled steps, each one forward, backward and update range, 3 matmuls
    # (the table shows the 12 rows with most self time: these are always among them)
    for name, calls in (("forward", 3), ("backward", 3), ("matmul", 9),
                        ("MmBackward", 9)):
        assert re.search(r"^\s*%s\s.*\s%d\s*$" % (name, calls), out, re.M), (name, detail)
    # every row shown has the count the three steps imply
    expected = {"update": 3, "log_softmax": 3, "add": 9, "relu": 6, "AddBackward": 9,
                "ReluBackward": 6, "LogSoftmaxBackward": 3, "SumBackward": 3, "sum": 3,
                "mul": 3, "MulBackward": 3, "neg": 3, "NegBackward": 3, "mean": 3,
                "MeanBackward": 3, "AccumulateGrad": 18, "_GraphRoot": 3}
    for name, calls in expected.items():
        row = re.search(r"^\s*%s\s.*\s(\d+)\s*$" % name, out, re.M)
        assert row is None or int(row.group(1)) == calls, (name, detail)
    assert "Self CPU time total:" in out, detail
    trace = json.loads(path.read_text())["traceEvents"]
    assert any(e["ph"] == "s" and e["cat"] == "fwdbwd" for e in trace), detail
    assert "chrome trace written to %s" % path in out, detail


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


def test_train_with_dataloader_learns_and_matches_torch_step_by_step():
    out, detail = run_example("train_with_dataloader.py", "--epochs", "3")
    means = [float(m) for m in re.findall(r"mean loss (%s)" % NUMBER, out)]
    assert len(means) == 3, detail
    assert means[-1] < means[0], detail
    found = re.search(r"steps (\d+), largest relative loss difference vs torch (\S+)", out)
    try:
        import torch  # noqa: F401
    except ImportError:
        assert "no comparison" in out, detail
        return
    assert found, detail
    assert int(found.group(1)) == 24, detail
    assert float(found.group(2)) < 1e-4, detail            # float32 rounding only
