"""Train a small regression MLP with pyad.utils.data.DataLoader (two worker processes),
RMSprop and a OneCycleLR schedule -- and, when PyTorch is installed, the same script on
torch from the same initial weights and the same batches, comparing the loss step by step.

The training function is written once against a module namespace ``lib`` (``pyad`` or
``torch``): porting a torch script is changing its imports.

Usage: python examples/train_with_dataloader.py [--epochs N] [--workers N]
"""
import argparse
import importlib

import numpy as np


def make_data(n=256, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, size=(n, 3)).astype(np.float32)
    y = (np.sin(x[:, :1] * 1.5) + 0.5 * x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    return x, y


def batch_order(n, batch_size, epochs, seed=1):
    """The same shuffled batches for both libraries (their random streams differ)."""
    rng = np.random.default_rng(seed)
    return [[idx.tolist() for idx in np.array_split(rng.permutation(n), n // batch_size)]
            for _ in range(epochs)]


def train(lib_name, x, y, init, epochs, workers):
    lib = importlib.import_module(lib_name)
    data = importlib.import_module(lib_name + ".utils.data")
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))
    model.load_state_dict({k: lib.tensor(v) for k, v in init.items()})
    dataset = data.TensorDataset(lib.tensor(x), lib.tensor(y))
    order = batch_order(len(x), 32, epochs)
    optimizer = lib.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5)
    scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.02,
                                                  total_steps=sum(map(len, order)))
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        loader = data.DataLoader(dataset, batch_sampler=order[epoch], num_workers=workers)
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.detach()))
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    x, y = make_data()
    rng = np.random.default_rng(2)
    init = {"0.weight": rng.uniform(-0.5, 0.5, (32, 3)), "0.bias": rng.uniform(-0.5, 0.5, 32),
            "2.weight": rng.uniform(-0.2, 0.2, (1, 32)), "2.bias": np.zeros(1)}
    init = {k: v.astype(np.float32) for k, v in init.items()}
    losses = train("pyad", x, y, init, args.epochs, args.workers)
    steps_per_epoch = len(losses) // args.epochs
    for epoch in range(args.epochs):
        chunk = losses[epoch * steps_per_epoch:(epoch + 1) * steps_per_epoch]
        print("epoch %d mean loss %.6f" % (epoch + 1, sum(chunk) / len(chunk)))
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch not installed: no comparison")
        return
    reference = train("torch", x, y, init, args.epochs, args.workers)
    worst = max(abs(a - b) / max(abs(b), 1e-6) for a, b in zip(losses, reference))
    print("steps %d, largest relative loss difference vs torch %.3e" % (len(losses), worst))


if __name__ == "__main__":
    main()
