"""pyad.distributed, DistributedDataParallel and the differentiable collectives under
real MPI: each test launches ``mpiexec -n N python <script>`` (the scripts beside this
file check their results on every rank and print one "ok" line per check).

Skipped when mpi4py (the ``mpi`` extra) or ``mpiexec`` is missing. N up to 4 runs
oversubscribed on small machines; every launch has a timeout, so a hang fails instead
of blocking the suite.
"""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import pyad

pytest.importorskip("mpi4py")

HERE = os.path.dirname(os.path.abspath(__file__))
PYAD_HOME = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
MPIEXEC = (shutil.which("mpiexec", path=os.path.dirname(sys.executable))
           or shutil.which("mpiexec"))
if MPIEXEC is None:
    pytest.skip("no mpiexec on PATH (pip install mpich)", allow_module_level=True)
TIMEOUT = 90


def mpirun(n, script, *args, timeout=TIMEOUT):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYAD_HOME
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    start = time.monotonic()
    proc = subprocess.run([MPIEXEC, "-n", str(n), sys.executable, script, *args],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    detail = "exit %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout, proc.stderr)
    return proc, time.monotonic() - start, detail


def ok_lines(stdout, world):
    # Ranks' lines reach mpiexec's stdout whole, but not always newline-separated.
    return sorted("ok %s (world %d)" % (m, world)
                  for m in re.findall(r"ok ([^()\n]+?) \(world %d\)" % world, stdout))


@pytest.mark.parametrize("world", [1, 2, 3, 4])
def test_ddp_on_shards_equals_one_process_on_the_whole_batch(world):
    # SGD with momentum, Adam, small buckets, no_sync accumulation, an unused parameter
    # (with find_unused_parameters) and the state_dict prefix, each checked after every
    # step with rtol=1e-12 on every rank.
    proc, _, detail = mpirun(world, os.path.join(HERE, "mpi_ddp_equivalence.py"))
    assert proc.returncode == 0, detail
    cases = ["sgd", "adam", "sgd-small-buckets", "no_sync", "adam-no_sync", "unused",
             "unused-adam", "unused-without-find_unused refused", "state_dict",
             "buckets start during backward", "buffers", "used on some ranks",
             "forward without backward"]
    expected = sorted("ok %s (world %d)" % (c, world) for c in cases for _ in range(world))
    assert ok_lines(proc.stdout, world) == expected, detail


@pytest.mark.parametrize("world, options", [(1, ()), (2, ()), (3, ()), (2, ("--timeout",))])
def test_collectives_and_differentiable_collectives(world, options):
    proc, _, detail = mpirun(world, os.path.join(HERE, "mpi_collectives.py"), *options)
    assert proc.returncode == 0, detail
    checks = ["all_reduce ops", "all_reduce 0-d, empty and dtypes",
              "all_reduce bumps the version",
              "all_reduce non-contiguous", "broadcast and reduce",
              "all_gather, all_gather_into_tensor, reduce_scatter, gather, scatter",
              "groups and barrier", "gradcheck across ranks", "cross-rank gradient all_reduce",
              "cross-rank gradient all_reduce AVG", "cross-rank gradient all_gather",
              "cross-rank gradient broadcast", "second order"]
    if world > 1:
        checks += ["mismatches refused", "send and recv"]
    expected = sorted("ok %s (world %d)" % (c, world) for c in checks for _ in range(world))
    assert ok_lines(proc.stdout, world) == expected, detail
    assert proc.stdout.count("done") == world, detail


def test_collectives_and_ddp_match_torch_distributed_on_the_same_ranks():
    # Each rank also joins a torch.distributed (gloo) world and runs every collective,
    # the differentiable collectives' gradients and a DDP training with Adam in both.
    pytest.importorskip("torch.distributed")
    proc, _, detail = mpirun(2, os.path.join(HERE, "mpi_vs_torch.py"), timeout=240)
    assert proc.returncode == 0, detail
    checks = ["collectives match torch.distributed",
              "differentiable collectives match torch.distributed.nn", "DDP matches torch DDP"]
    assert ok_lines(proc.stdout, 2) == sorted("ok %s (world 2)" % c for c in checks * 2), detail


@pytest.mark.parametrize("case, failed", [("raise-in-backward", 1), ("raise-in-forward", 0)])
def test_one_rank_raising_ends_every_rank_naming_it(case, failed):
    proc, elapsed, detail = mpirun(3, os.path.join(HERE, "mpi_faults.py"), case, timeout=60)
    assert proc.returncode != 0, detail
    assert "finished, which it must not" not in proc.stdout, detail
    assert "pyad.distributed: rank %d (of 3) failed" % failed in proc.stderr, detail
    assert "injected failure" in proc.stderr, detail
    assert elapsed < 30, detail


def test_a_rank_that_hangs_ends_the_job_after_the_timeout():
    proc, elapsed, detail = mpirun(3, os.path.join(HERE, "mpi_faults.py"), "timeout",
                                   timeout=60)
    assert proc.returncode != 0, detail
    assert "finished, which it must not" not in proc.stdout, detail
    assert ("all_reduce(): timed out after 3.0 s waiting for the other ranks (a rank did "
            "not join the collective)") in proc.stderr, detail
    assert elapsed < 40, detail


def test_ddp_refuses_a_different_model_on_every_rank():
    proc, _, detail = mpirun(3, os.path.join(HERE, "mpi_faults.py"), "model-mismatch")
    assert proc.returncode == 0, detail
    for rank in range(3):
        assert ("rank %d refused: DistributedDataParallel(): DDP expects the same model on "
                "every rank: parameter 0.weight is (8, 4) float32 (cpu) on rank 0 but "
                "0.weight (9, 4) float32 (cpu) on rank 1" % rank) in proc.stdout, detail
        assert ("rank %d refused dtype: DistributedDataParallel(): DDP expects the same "
                "model on every rank: parameter weight is (2, 4) float64" % rank
                ) in proc.stdout, detail


def test_init_process_group_takes_an_mpi4py_communicator():
    proc, _, detail = mpirun(3, os.path.join(HERE, "mpi_faults.py"), "communicator")
    assert proc.returncode == 0, detail
    assert sorted(re.findall(r"ok communicator \(rank (\d)\)", proc.stdout)) == ["0", "1", "2"], \
        detail


def test_train_ddp_example_on_two_ranks():
    proc, _, detail = mpirun(2, os.path.join(REPO_ROOT, "examples", "train_ddp.py"), "--quiet")
    assert proc.returncode == 0, detail
    lines = [l for l in proc.stdout.splitlines() if l.startswith("final training accuracy")]
    assert len(lines) == 1, detail          # rank 0 reports
    accuracy = float(lines[0].split(":")[1].split()[0])
    assert accuracy >= 0.95, detail


def _gpu_count():
    cupy = pytest.importorskip("cupy")
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


@pytest.mark.parametrize("backend", ["mpi", "nccl"])
def test_cupy_collectives_and_ddp(backend):
    gpus = _gpu_count()
    if gpus == 0:
        pytest.skip("no GPU")
    if backend == "nccl":
        pytest.importorskip("cupy.cuda.nccl")
    # NCCL needs a GPU per rank; through MPI two ranks may share one.
    world = min(gpus, 2) if backend == "nccl" else 2
    proc, _, detail = mpirun(world, os.path.join(HERE, "mpi_gpu.py"), backend)
    assert proc.returncode == 0, detail
    expected = sorted("ok %s (world %d)" % (c, world)
                      for c in ("collectives on cupy", "DDP on cupy") for _ in range(world))
    assert ok_lines(proc.stdout, world) == expected, detail


def test_benchmark_runs_at_smoke_sizes():
    proc, _, detail = mpirun(2, os.path.join(REPO_ROOT, "benchmarks", "bench_distributed.py"),
                             "--smoke")
    assert proc.returncode == 0, detail
    for row in ("all_reduce 0.25 MB float32", "all_reduce async", "DDP, buckets overlapped",
                "all-reduce after backward", "overlap gain"):
        assert row in proc.stdout, detail


@pytest.mark.parametrize("world", [2, 3])
def test_sync_batchnorm_on_unequal_shards_equals_torch_batchnorm_on_the_whole_batch(world):
    # rank r holds r + 1 samples (rank 0 none in "empty shard"); outputs, input
    # gradients, the weight/bias gradients summed over the ranks and the running
    # statistics against torch's BatchNorm on the concatenated batch, float64.
    proc, _, detail = mpirun(world, os.path.join(HERE, "mpi_sync_batchnorm.py"))
    assert proc.returncode == 0, detail
    cases = ["2-d", "3-d", "4-d", "5-d", "momentum None", "track_running_stats False",
             "affine False", "bias False", "empty shard"]
    expected = sorted("ok %s (world %d)" % (c, world) for c in cases for _ in range(world))
    assert ok_lines(proc.stdout, world) == expected, detail
    assert proc.stdout.count("done") == world, detail


@pytest.mark.parametrize("case, message", [
    ("channel-mismatch", "RuntimeError: SyncBatchNorm(): the ranks disagree, refused on "
     "every rank: rank 0 has channels=4, dtype=float32; rank 1 has channels=5, "
     "dtype=float32; rank 2 has channels=4, dtype=float32"),
    ("input-mismatch", "ValueError: SyncBatchNorm(): refused on every rank: rank 1: "
     "expected input with 4 channels (num_features), got input of shape (3, 5, 2)"),
])
def test_sync_batchnorm_with_a_different_channel_count_fails_on_every_rank(case, message):
    proc, elapsed, detail = mpirun(3, os.path.join(HERE, "mpi_sync_batchnorm.py"), case,
                                   timeout=60)
    assert proc.returncode == 0, detail
    assert "finished, which it must not" not in proc.stdout, detail
    for rank in range(3):
        assert "rank %d refused: %s" % (rank, message) in proc.stdout, detail
    assert elapsed < 30, detail
