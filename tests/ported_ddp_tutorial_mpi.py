"""Run by tests/test_ported_examples_26.py under ``mpiexec -n N``: multigpu.py of
pytorch/examples' ddp-tutorial-series (examples/ported/ddp_tutorial_series.py's
``run_multigpu``) on every rank, from the initial weights in ``INIT.npz``, once as
written and once with ``cross_entropy`` swapped for ``mse_loss``; each rank writes what
it saw to ``OUTDIR/rank<r>.npz`` (no torch here: the parent compares with torch).

usage: mpiexec -n N python tests/ported_ddp_tutorial_mpi.py INIT.npz OUTDIR SIZE BATCH EPOCHS
"""
import importlib.util
import json
import os
import sys
import types

import numpy as np
from mpi4py import MPI

import pyad

HERE = os.path.dirname(os.path.abspath(__file__))
PORTED = os.path.join(os.path.dirname(HERE), "examples", "ported")


class Proxy(types.SimpleNamespace):
    def __init__(self, lib, **overrides):
        super().__init__(**overrides)
        self._lib = lib

    def __getattr__(self, name):
        return getattr(self.__dict__["_lib"], name)


def namespace(lib, loss=None, seed=0):
    # torch.rand from one NumPy stream: every rank builds the same data set
    rng = np.random.default_rng(seed)

    def rand(*size, **kw):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return lib.tensor(rng.random(size, dtype=np.float32))
    nn = lib.nn
    if loss is not None:
        nn = Proxy(lib.nn, functional=Proxy(lib.nn.functional,
                                            cross_entropy=getattr(lib.nn.functional, loss)))
    return Proxy(lib, rand=rand, nn=nn)


def main():
    init_path, outdir, size, batch, epochs = sys.argv[1:6]
    spec = importlib.util.spec_from_file_location(
        "ddp_tutorial_series", os.path.join(PORTED, "ddp_tutorial_series.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    init = dict(np.load(init_path))

    def restore(model):
        model.load_state_dict({k: pyad.tensor(v) for k, v in init.items()})

    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    saved = {}
    for variant, loss in (("text", None), ("mse", "mse_loss")):
        out = module.run_multigpu(namespace(pyad, loss), rank, world,
                                  total_epochs=int(epochs), save_every=1,
                                  batch_size=int(batch), dataset_size=int(size),
                                  init=restore, log=lambda line: None)
        saved[variant + "_losses"] = np.array(out["losses"])
        saved[variant + "_sampler"] = np.array(out["sampler"])
        saved[variant + "_lines"] = np.array(json.dumps(out["lines"]))
        for k, v in out["model"].state_dict().items():
            saved[variant + "_final_" + k] = v.detach().numpy()
        if out["checkpoint"] is not None:
            for k, v in out["checkpoint"].items():
                saved[variant + "_checkpoint_" + k] = v.detach().numpy()
    np.savez(os.path.join(outdir, "rank%d.npz" % rank), **saved)
    print("ok rank %d" % rank)


if __name__ == "__main__":
    main()
