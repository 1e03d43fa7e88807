"""Port of pytorch/examples ``mnist_hogwild`` (main.py and train.py): one model moved
into shared memory with ``model.share_memory()`` and trained at once by
``num_processes`` processes (``torch.multiprocessing.Process``, one per rank), each with
its own SGD optimizer and DataLoader, hogwild style (no locks); then the parent tests the
model the workers trained.

Ported by changing the imports (``import pyad as torch``). Changes: MNIST is replaced by
synthetic normalised 28x28 images and random labels in a ``TensorDataset`` (each rank
trains on its shard of it, the ``n_batches`` batches of rank ``rank``); the processes come
from ``mp.get_context(start_method)`` instead of ``mp.set_start_method('spawn',
force=True)``, and the start method is ``fork``: pyad's ``share_memory_()`` puts the data
in an anonymous shared mapping that ``fork`` children see, while a ``spawn`` child gets
pickled copies (see docs/porting.md), so only ``fork`` trains the parent's model; the
losses each rank logs travel back to the parent through a queue so that they can be
compared; ``shuffle`` is an option (the test turns it off, since torch's and pyad's
generators draw different permutations); ``size_average=False`` is torch's current
``reduction='sum'``; no CUDA/MPS choice, no saving.

Run it with ``python examples/ported/mnist_hogwild.py``.
"""
import os

import numpy as np


def run(torch, num_processes=2, batch_size=8, n_batches=2, test_batch_size=16, epochs=1,
        lr=0.01, momentum=0.5, seed=1, shuffle=True, start_method="fork", init=None,
        log=print):
    """Train one shared model in ``num_processes`` processes; return a dict with each
    rank's losses (``"losses"``, a list per rank), the parent's test loss and correct
    count after the workers ran, and the parent's parameters before and after."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    mp = torch.multiprocessing
    data = torch.utils.data

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)

        def forward(self, x):
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    # train.py
    def train(rank, args, model, device, dataset, dataloader_kwargs, results):
        torch.manual_seed(args["seed"] + rank)
        shard = data.Subset(dataset, range(rank * args["shard"], (rank + 1) * args["shard"]))
        train_loader = data.DataLoader(shard, **dataloader_kwargs)
        optimizer = optim.SGD(model.parameters(), lr=args["lr"], momentum=args["momentum"])
        losses = []
        for epoch in range(1, args["epochs"] + 1):
            losses += train_epoch(epoch, args, model, device, train_loader, optimizer)
        results.put((rank, losses))

    def train_epoch(epoch, args, model, device, data_loader, optimizer):
        model.train()
        pid = os.getpid()
        losses = []
        for batch_idx, (data, target) in enumerate(data_loader):
            optimizer.zero_grad()
            output = model(data.to(device))
            loss = F.nll_loss(output, target.to(device))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            log('{}\tTrain Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                pid, epoch, batch_idx * len(data), len(data_loader.dataset),
                100. * batch_idx / len(data_loader), loss.item()))
        return losses

    def test(args, model, device, dataset, dataloader_kwargs):
        test_loader = data.DataLoader(dataset, **dataloader_kwargs)
        return test_epoch(model, device, test_loader)

    def test_epoch(model, device, data_loader):
        model.eval()
        test_loss = 0
        correct = 0
        with torch.no_grad():
            for data, target in data_loader:
                output = model(data.to(device))
                test_loss += F.nll_loss(output, target.to(device),
                                        reduction='sum').item()  # sum up batch loss
                pred = output.max(1)[1]  # get the index of the max log-probability
                correct += pred.eq(target.to(device)).sum().item()

        test_loss /= len(data_loader.dataset)
        log('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
            test_loss, correct, len(data_loader.dataset),
            100. * correct / len(data_loader.dataset)))
        return test_loss, correct

    # main.py
    args = {"seed": seed, "lr": lr, "momentum": momentum, "epochs": epochs,
            "shard": n_batches * batch_size}
    device = torch.device("cpu")
    rng = np.random.RandomState(seed)

    def synthetic(n):
        images = ((rng.rand(n, 1, 28, 28) - 0.1307) / 0.3081).astype(np.float32)
        return data.TensorDataset(torch.from_numpy(images),
                                  torch.from_numpy(rng.randint(0, 10, n).astype(np.int64)))
    dataset1 = synthetic(num_processes * args["shard"])
    dataset2 = synthetic(test_batch_size)
    kwargs = {'batch_size': batch_size, 'shuffle': shuffle}

    torch.manual_seed(seed)
    ctx = mp.get_context(start_method)

    model = Net().to(device)
    if init is not None:
        init(model)
    model.share_memory()  # gradients are allocated lazily, so they are not shared here
    before = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}

    results = ctx.SimpleQueue()
    processes = []
    for rank in range(num_processes):
        p = ctx.Process(target=train, args=(rank, args, model, device,
                                            dataset1, kwargs, results))
        # We first train the model across `num_processes` processes
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    for p in processes:
        if p.exitcode != 0:
            raise RuntimeError("mnist_hogwild: a training process exited with code %s"
                               % p.exitcode)
    losses = dict(results.get() for _ in processes)

    # Once training is complete, we can test the model
    test_loss, correct = test(args, model, device, dataset2,
                              {'batch_size': test_batch_size, 'shuffle': False})
    after = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    return {"losses": [losses[rank] for rank in range(num_processes)],
            "test_loss": test_loss, "correct": correct, "before": before,
            "after": after, "shared": [p.is_shared() for p in model.parameters()]}


if __name__ == "__main__":
    import pyad as torch
    run(torch)
