"""Port of the PyTorch recipe "Saving and loading a general checkpoint in PyTorch"
(pytorch/tutorials ``recipes_source/recipes/saving_and_loading_a_general_checkpoint.py``):
a checkpoint dictionary (epoch, the model's and the optimizer's ``state_dict``, the
loss) saved with ``torch.save`` and loaded into a fresh model and optimizer.

Ported by changing the imports (``import pyad as torch``); ``F`` is named (the text's
``forward`` uses it without the import; the text never calls it). The checkpoint is
written in a temporary directory. The text saves an optimizer that never stepped (an
empty ``state``): ``steps`` takes that many SGD steps on a synthetic batch first (not in
the text; the tests take 2, so that the checkpoint carries the momentum buffers). The
text's second optimizer is built over ``net.parameters()``, not ``model``'s: kept as
written. ``run`` returns what the text loads, and the model's ``training`` flag after
``eval()`` and ``train()``; ``init`` sees both models.

Run it with ``python examples/ported/saving_and_loading_a_general_checkpoint.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, steps=0, seed=0, init=None, log=print):
    """Return the loaded checkpoint's items, both models and the loaded optimizer."""
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    results = {"losses": []}

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.flatten(start_dim=1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    net = Net()
    if init is not None:
        init(net)
    log(net)

    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    rng = np.random.RandomState(seed)
    inputs = torch.from_numpy(rng.rand(4, 3, 32, 32).astype(np.float32))
    labels = torch.from_numpy(rng.randint(0, 10, 4))
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(inputs), labels)
        loss.backward()
        optimizer.step()
        results["losses"].append(loss.item())

    with tempfile.TemporaryDirectory() as directory:
        # Additional information
        EPOCH = 5
        PATH = os.path.join(directory, "model.pt")
        LOSS = 0.4

        torch.save({
                    'epoch': EPOCH,
                    'model_state_dict': net.state_dict(),
                    'optimizer_state_dict': optimizer.state_dict(),
                    'loss': LOSS,
                    }, PATH)

        model = Net()
        if init is not None:
            init(model)
        optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

        checkpoint = torch.load(PATH)
        model.load_state_dict(checkpoint['model_state_dict'])
        optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        epoch = checkpoint['epoch']
        loss = checkpoint['loss']

    model.eval()
    results["training_after_eval"] = model.training
    # - or -
    model.train()
    results["training_after_train"] = model.training

    results.update(keys=list(checkpoint), epoch=epoch, loss=loss, net=net, model=model,
                   optimizer_state_dict=optimizer.state_dict(),
                   output=model(inputs), net_output=net(inputs))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
