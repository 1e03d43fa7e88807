"""Port of the PyTorch recipe "What is a state_dict in PyTorch" (pytorch/tutorials
``recipes_source/recipes/what_is_state_dict.py``): a CIFAR-10 ``Net``, ``SGD`` with
momentum, and the two ``state_dict``s printed entry by entry.

Ported by changing the imports (``import pyad as torch``); the text's ``forward`` calls
``F.relu`` without importing ``F`` (it is never called there): the port names
``F = torch.nn.functional``, and ``run(forward=True)`` also passes a batch through the
model (not in the text). ``run`` returns the printed lines (each ``size()`` as a tuple:
torch prints ``torch.Size([6, 3, 5, 5])``, pyad a tuple) and the optimizer's
``state_dict``; ``init`` sees the model.

Run it with ``python examples/ported/what_is_state_dict.py``.
"""
import numpy as np


def run(torch, init=None, log=print, forward=False):
    """Return ``{"net", "model_state_dict", "optimizer_state_dict", "output"}``."""
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    results = {}

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
    results["net"] = repr(net)

    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    # Print model's state_dict
    log("Model's state_dict:")
    results["model_state_dict"] = []
    for param_tensor in net.state_dict():
        log(param_tensor, "\t", net.state_dict()[param_tensor].size())
        results["model_state_dict"].append(
            (param_tensor, tuple(net.state_dict()[param_tensor].size())))

    log()

    # Print optimizer's state_dict
    log("Optimizer's state_dict:")
    results["optimizer_state_dict"] = []
    for var_name in optimizer.state_dict():
        log(var_name, "\t", optimizer.state_dict()[var_name])
        results["optimizer_state_dict"].append((var_name, optimizer.state_dict()[var_name]))

    if forward:
        x = torch.from_numpy(np.random.RandomState(0).rand(2, 3, 32, 32).astype(np.float32))
        results["output"] = net(x)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
