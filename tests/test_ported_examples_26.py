"""Ported pytorch/examples (examples/ported/, the twenty-sixth batch):
``distributed/ddp-tutorial-series`` (examples/ported/ddp_tutorial_series.py).

single_gpu.py's ``Trainer`` runs in one process on torch and on pyad from torch's initial
weights, with ``MyTrainDataset``'s ``torch.rand`` from one NumPy stream (through the
namespace proxy) and an unshuffled loader, comparing every batch's loss, the printed
lines, the checkpoint read back and the final weights. The text's
``cross_entropy`` of ``Linear(20, 1)``'s single logit is 0 with a 0 gradient (the
log-softmax of one class is 0; checked by hand: the weights stay where they started), so
both runs are repeated with ``cross_entropy`` swapped for ``mse_loss`` through the
namespace, where SGD moves the weights.

multigpu.py runs on 2 ranks under ``mpiexec`` (pyad.distributed over MPI, as
tests/distributed/test_mpi.py launches it; about a second): torch's expected values are
one process stepping SGD on the mean of the two ranks' batch losses (what
``DistributedDataParallel``'s averaged gradient is), batch by batch from the indices
each rank's ``DistributedSampler`` gave it; the samplers' shares are checked by hand
(disjoint, covering the data set, reshuffled per epoch). pyad's ``DistributedSampler``
shuffles with NumPy's generator, not torch's ``randperm``, so the order itself is not
compared with torch's.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers26_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
_mpi_helper = _module("ported_ddp_tutorial_mpi")
load, PYAD_HOME, REPO_ROOT = _helpers.load, _helpers.PYAD_HOME, _helpers.REPO_ROOT
namespace = _mpi_helper.namespace

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["ddp_tutorial_series"]

SIZE, BATCH, EPOCHS = 40, 4, 2


@pytest.fixture(autouse=True)
def _no_pin_memory_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pin_memory.*")
        yield


def _init_state():
    torch.manual_seed(26)
    return {k: v.detach().numpy().copy()
            for k, v in torch.nn.Linear(20, 1).state_dict().items()}


def _loader(state, lib):
    def init(model):
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return init


def _numpy(state_dict):
    return {k: v.detach().numpy() for k, v in state_dict.items()}


def _single(loss):
    state = _init_state()
    out = {}
    for name, lib in (("torch", torch), ("pyad", pyad)):
        out[name] = load("ddp_tutorial_series").run(
            namespace(lib, loss), total_epochs=EPOCHS, save_every=1, batch_size=BATCH,
            dataset_size=SIZE, shuffle=False, init=_loader(state, lib), log=lambda l: None)
    return state, out["torch"], out["pyad"]


def _compare_single(t, p):
    assert p["lines"] == t["lines"] == [
        "[GPUcpu] Epoch 0 | Batch size: 4 | Steps: 10",
        "Epoch 0 | Training checkpoint saved at checkpoint.pt",
        "[GPUcpu] Epoch 1 | Batch size: 4 | Steps: 10",
        "Epoch 1 | Training checkpoint saved at checkpoint.pt"]
    assert len(p["losses"]) == len(t["losses"]) == EPOCHS * SIZE // BATCH
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=1e-5, atol=1e-7)
    tw, pw = _numpy(t["model"].state_dict()), _numpy(p["model"].state_dict())
    assert list(pw) == list(tw) == ["weight", "bias"]
    for k in tw:
        np.testing.assert_allclose(pw[k], tw[k], rtol=1e-5, atol=1e-7, err_msg=k)
        np.testing.assert_array_equal(_numpy(p["checkpoint"])[k], pw[k])
        np.testing.assert_array_equal(_numpy(t["checkpoint"])[k], tw[k])


def test_single_gpu_as_written_matches_torch():
    state, t, p = _single(None)
    _compare_single(t, p)
    # cross_entropy over one class: the loss is 0 and so is the gradient (by hand)
    assert p["losses"] == [0.0] * len(p["losses"])
    for k, v in _numpy(p["model"].state_dict()).items():
        np.testing.assert_array_equal(v, state[k])


def test_single_gpu_with_mse_loss_matches_torch():
    state, t, p = _single("mse_loss")
    _compare_single(t, p)
    assert not np.allclose(_numpy(p["model"].state_dict())["weight"], state["weight"])
    # the first loss by hand: the first batch of the shared stream's data set
    data = namespace(torch).rand
    xs = [(data(20).numpy(), data(1).numpy()) for _ in range(BATCH)]
    x = np.stack([a for a, _ in xs]).astype(np.float64)
    y = np.stack([b for _, b in xs]).astype(np.float64)
    first = np.mean((x @ state["weight"].T.astype(np.float64) + state["bias"] - y) ** 2)
    np.testing.assert_allclose(p["losses"][0], first, rtol=1e-6)


MPIEXEC = (shutil.which("mpiexec", path=os.path.dirname(sys.executable))
           or shutil.which("mpiexec"))


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    pytest.importorskip("mpi4py")
    if MPIEXEC is None:
        pytest.skip("no mpiexec on PATH (pip install mpich)")
    tmp = tmp_path_factory.mktemp("ddp_tutorial")
    state = _init_state()
    np.savez(tmp / "init.npz", **state)
    env = dict(os.environ)
    env["PYTHONPATH"] = PYAD_HOME
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    proc = subprocess.run(
        [MPIEXEC, "-n", "2", sys.executable, os.path.join(_HERE, "ported_ddp_tutorial_mpi.py"),
         str(tmp / "init.npz"), str(tmp), str(SIZE), str(BATCH), str(EPOCHS)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return state, [dict(np.load(tmp / ("rank%d.npz" % r))) for r in range(2)]


def _torch_ddp_equivalent(state, ranks, variant, loss_fn):
    # one torch process: each step's gradient is the mean of the two ranks' batch
    # gradients (DistributedDataParallel's all-reduce average), i.e. that of the mean
    # of their losses; the data set is the one every rank drew from the shared stream
    data = namespace(torch).rand
    dataset = [(data(20), data(1)) for _ in range(SIZE)]
    model = torch.nn.Linear(20, 1)
    model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    losses = [[], []]
    per_rank = SIZE // 2
    for epoch in range(EPOCHS):
        for step in range(per_rank // BATCH):
            optimizer.zero_grad()
            total = 0
            for r in range(2):
                idx = ranks[r][variant + "_sampler"][epoch][step * BATCH:(step + 1) * BATCH]
                x = torch.stack([dataset[i][0] for i in idx])
                y = torch.stack([dataset[i][1] for i in idx])
                loss = loss_fn(model(x), y)
                losses[r].append(loss.item())
                total = total + loss / 2
            total.backward()
            optimizer.step()
    return losses, _numpy(model.state_dict())


@pytest.mark.parametrize("variant", ["text", "mse"])
def test_multigpu_two_ranks_match_torch_on_both_batches(two_ranks, variant):
    state, ranks = two_ranks
    loss_fn = (torch.nn.functional.cross_entropy if variant == "text"
               else torch.nn.functional.mse_loss)
    losses, weights = _torch_ddp_equivalent(state, ranks, variant, loss_fn)
    for r in range(2):
        np.testing.assert_allclose(ranks[r][variant + "_losses"], losses[r], rtol=1e-5,
                                   atol=1e-7, err_msg="rank %d" % r)
        for k in weights:
            np.testing.assert_allclose(ranks[r][variant + "_final_" + k], weights[k],
                                       rtol=1e-5, atol=1e-7, err_msg="rank %d %s" % (r, k))
        assert json.loads(str(ranks[r][variant + "_lines"])) == (
            ["ic| rank: %d, world_size: 2" % r]
            + [line for e in range(EPOCHS) for line in
               ["[GPU%d] Epoch %d | Batch size: 4 | Steps: 5" % (r, e)]
               + (["Epoch %d | Training checkpoint saved at checkpoint.pt" % e]
                  if r == 0 else [])])
    # only rank 0 saves, the DDP-wrapped model's .module state_dict: its final weights
    assert variant + "_checkpoint_weight" not in ranks[1]
    for k in weights:
        np.testing.assert_array_equal(ranks[0][variant + "_checkpoint_" + k],
                                      ranks[0][variant + "_final_" + k])
    if variant == "text":
        assert all(list(ranks[r]["text_losses"]) == [0.0] * 10 for r in range(2))
        for k in weights:
            np.testing.assert_array_equal(ranks[0]["text_final_" + k], state[k])
    else:
        assert not np.allclose(ranks[0]["mse_final_weight"], state["weight"])


def test_multigpu_distributed_samplers_split_the_data_set(two_ranks):
    _, ranks = two_ranks
    for epoch in range(EPOCHS):
        shares = [list(ranks[r]["mse_sampler"][epoch]) for r in range(2)]
        assert [len(s) for s in shares] == [SIZE // 2] * 2
        assert sorted(shares[0] + shares[1]) == list(range(SIZE))
    # set_epoch reshuffles
    assert list(ranks[0]["mse_sampler"][0]) != list(ranks[0]["mse_sampler"][1])
