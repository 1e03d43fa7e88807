"""Port of pytorch/examples ``distributed/ddp-tutorial-series``: datautils.py's
``MyTrainDataset`` and single_gpu.py's ``Trainer``, ``load_train_objs``,
``prepare_dataloader`` and ``main`` (`run`), and multigpu.py's, with
``DistributedDataParallel``, ``DistributedSampler`` and ``init_process_group``
(`run_multigpu`, one call per rank).

Ported by changing the imports (``import pyad as torch``). Changes: there is no GPU, so
the device is ``"cpu"`` (single_gpu.py's ``device = 0``; multigpu.py moves the model to
``gpu_id``, passes ``device_ids=[gpu_id]`` and calls ``torch.cuda.set_device(rank)`` only
when ``torch.cuda.is_available()``; the printed ``[GPU...]`` and the rank-0 checkpoint keep
``gpu_id``); ``_run_batch`` also appends ``loss.item()`` to ``losses`` (returned, so that
the losses can be compared); ``print`` is ``log``; the checkpoint is written into
``workdir`` (a fresh temporary directory by default: the text's ``checkpoint.pt`` in the
current directory) and read back; the sizes (``MyTrainDataset(2048)``, ``--batch_size``
32, epochs, ``save_every``) are ``run``'s keyword arguments and ``shuffle`` is an option
(the tests turn it off: torch's and pyad's generators draw different permutations);
``init`` sees the model ``load_train_objs`` built. multigpu.py's ranks come from
``mpiexec`` (pyad.distributed runs over MPI; its ``"nccl"`` backend is MPI for NumPy
data) instead of ``mp.spawn``, and ``ic(rank, world_size)`` (icecream) is a logged line
in icecream's format.

The text's model is ``Linear(20, 1)`` and its targets ``torch.rand(1)``: ``cross_entropy``
of a single class is 0 whatever the logits (the log-softmax of one class is 0), so its
gradient is 0 and SGD never moves the weights, in both frameworks. The tests run the text
as written and again with ``cross_entropy`` swapped for ``mse_loss`` through the
namespace.

Run it with ``python examples/ported/ddp_tutorial_series.py`` (single_gpu.py) or
``mpiexec -n 2 python examples/ported/ddp_tutorial_series.py --multigpu``.
"""
import os
import tempfile


def _classes(torch):
    Dataset = torch.utils.data.Dataset

    # datautils.py
    class MyTrainDataset(Dataset):
        def __init__(self, size):
            self.size = size
            self.data = [(torch.rand(20), torch.rand(1)) for _ in range(size)]

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            return self.data[index]

    class MyRandomDataset(Dataset):
        def __init__(self, size, input_shape, target_shape=(1000,)):
            self.size = size
            self.shape = input_shape
            self.target_shape = target_shape

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            return (torch.rand(self.shape), torch.rand(self.target_shape))

    return MyTrainDataset, MyRandomDataset


def _in_workdir(workdir, body):
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(workdir or tmp)
        try:
            return body()
        finally:
            os.chdir(old)


def run(torch, total_epochs=2, save_every=1, batch_size=32, dataset_size=2048,
        shuffle=True, workdir=None, init=None, log=print):
    """single_gpu.py's ``main``; return a dict: ``losses`` (every batch's), ``lines`` (the
    printed lines), ``checkpoint`` (the last saved state_dict, read back) and ``model``."""
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    Dataset = torch.utils.data.Dataset
    MyTrainDataset, _ = _classes(torch)
    losses, lines, saved = [], [], {}

    def print(line):
        lines.append(line)
        log(line)

    class Trainer:
        def __init__(
            self,
            model: torch.nn.Module,
            train_data: DataLoader,
            optimizer: torch.optim.Optimizer,
            gpu_id: int,
            save_every: int,
        ) -> None:
            self.gpu_id = gpu_id
            self.model = model.to(gpu_id)
            self.train_data = train_data
            self.optimizer = optimizer
            self.save_every = save_every

        def _run_batch(self, source, targets):
            self.optimizer.zero_grad()
            output = self.model(source)
            loss = F.cross_entropy(output, targets)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())

        def _run_epoch(self, epoch):
            b_sz = len(next(iter(self.train_data))[0])
            print(f"[GPU{self.gpu_id}] Epoch {epoch} | Batch size: {b_sz} | Steps: {len(self.train_data)}")
            for source, targets in self.train_data:
                source = source.to(self.gpu_id)
                targets = targets.to(self.gpu_id)
                self._run_batch(source, targets)

        def _save_checkpoint(self, epoch):
            ckp = self.model.state_dict()
            PATH = "checkpoint.pt"
            torch.save(ckp, PATH)
            saved["checkpoint"] = torch.load(PATH)
            print(f"Epoch {epoch} | Training checkpoint saved at {PATH}")

        def train(self, max_epochs: int):
            for epoch in range(max_epochs):
                self._run_epoch(epoch)
                if epoch % self.save_every == 0:
                    self._save_checkpoint(epoch)

    def load_train_objs():
        train_set = MyTrainDataset(dataset_size)  # load your dataset
        model = torch.nn.Linear(20, 1)  # load your model
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        return train_set, model, optimizer

    def prepare_dataloader(dataset: Dataset, batch_size: int):
        return DataLoader(
            dataset,
            batch_size=batch_size,
            pin_memory=True,
            shuffle=shuffle
        )

    def main(device, total_epochs, save_every, batch_size):
        dataset, model, optimizer = load_train_objs()
        if init is not None:
            init(model)
        train_data = prepare_dataloader(dataset, batch_size)
        trainer = Trainer(model, train_data, optimizer, device, save_every)
        trainer.train(total_epochs)
        return model

    device = "cpu"  # shorthand for cuda:0 (no GPU here)
    model = _in_workdir(workdir, lambda: main(device, total_epochs, save_every, batch_size))
    return dict(losses=losses, lines=lines, checkpoint=saved.get("checkpoint"), model=model)


def run_multigpu(torch, rank, world_size, total_epochs=2, save_every=1, batch_size=32,
                 dataset_size=2048, workdir=None, init=None, log=print):
    """multigpu.py's ``main`` on rank ``rank`` of ``world_size`` (started by ``mpiexec``);
    the same dict as `run`'s (``checkpoint`` on rank 0 only) and ``sampler``: the indices
    the ``DistributedSampler`` gave this rank in each epoch."""
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    Dataset = torch.utils.data.Dataset
    DistributedSampler = torch.utils.data.distributed.DistributedSampler
    DDP = torch.nn.parallel.DistributedDataParallel
    init_process_group = torch.distributed.init_process_group
    destroy_process_group = torch.distributed.destroy_process_group
    MyTrainDataset, _ = _classes(torch)
    losses, lines, saved, order = [], [], {}, []

    def print(line):
        lines.append(line)
        log(line)

    def ic(rank, world_size):
        print(f"ic| rank: {rank}, world_size: {world_size}")

    def ddp_setup(rank, world_size):
        """
        Args:
            rank: Unique identifier of each process
            world_size: Total number of processes
        """
        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["MASTER_PORT"] = "12355"
        init_process_group(backend="nccl", rank=rank, world_size=world_size)
        if torch.cuda.is_available():
            torch.cuda.set_device(rank)

    class Trainer:
        def __init__(
            self,
            model: torch.nn.Module,
            train_data: DataLoader,
            optimizer: torch.optim.Optimizer,
            gpu_id: int,
            save_every: int,
        ) -> None:
            self.gpu_id = gpu_id
            self.device = gpu_id if torch.cuda.is_available() else "cpu"
            self.model = model.to(self.device)
            self.train_data = train_data
            self.optimizer = optimizer
            self.save_every = save_every
            self.model = DDP(model, device_ids=[gpu_id] if torch.cuda.is_available() else None)

        def _run_batch(self, source, targets):
            self.optimizer.zero_grad()
            output = self.model(source)
            loss = F.cross_entropy(output, targets)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())

        def _run_epoch(self, epoch):
            b_sz = len(next(iter(self.train_data))[0])
            print(f"[GPU{self.gpu_id}] Epoch {epoch} | Batch size: {b_sz} | Steps: {len(self.train_data)}")
            self.train_data.sampler.set_epoch(epoch)
            order.append([int(i) for i in self.train_data.sampler])
            for source, targets in self.train_data:
                source = source.to(self.device)
                targets = targets.to(self.device)
                self._run_batch(source, targets)

        def _save_checkpoint(self, epoch):
            ckp = self.model.module.state_dict()
            PATH = "checkpoint.pt"
            torch.save(ckp, PATH)
            saved["checkpoint"] = torch.load(PATH)
            print(f"Epoch {epoch} | Training checkpoint saved at {PATH}")

        def train(self, max_epochs: int):
            for epoch in range(max_epochs):
                self._run_epoch(epoch)
                if self.gpu_id == 0 and epoch % self.save_every == 0:
                    self._save_checkpoint(epoch)

    def load_train_objs():
        train_set = MyTrainDataset(dataset_size)  # load your dataset
        model = torch.nn.Linear(20, 1)  # load your model
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        return train_set, model, optimizer

    def prepare_dataloader(dataset: Dataset, batch_size: int):
        return DataLoader(
            dataset,
            batch_size=batch_size,
            pin_memory=True,
            shuffle=False,
            sampler=DistributedSampler(dataset)
        )

    def main(rank: int, world_size: int, save_every: int, total_epochs: int, batch_size: int):
        ic(rank, world_size)

        ddp_setup(rank, world_size)
        dataset, model, optimizer = load_train_objs()
        if init is not None:
            init(model)
        train_data = prepare_dataloader(dataset, batch_size)
        trainer = Trainer(model, train_data, optimizer, rank, save_every)
        trainer.train(total_epochs)
        destroy_process_group()
        return model

    model = _in_workdir(workdir, lambda: main(rank, world_size, save_every, total_epochs,
                                              batch_size))
    return dict(losses=losses, lines=lines, checkpoint=saved.get("checkpoint"),
                model=model, sampler=order)


if __name__ == "__main__":
    import sys

    import pyad as torch
    if "--multigpu" in sys.argv:
        from mpi4py import MPI
        run_multigpu(torch, MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size())
    else:
        run(torch)
