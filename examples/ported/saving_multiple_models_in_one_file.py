"""Port of the PyTorch recipe "Saving and loading multiple models in one file using
PyTorch" (pytorch/tutorials
``recipes_source/recipes/saving_multiple_models_in_one_file.py``): two models' and two
optimizers' ``state_dict``s in one dictionary, saved with ``torch.save`` and loaded into
fresh models.

Ported by changing the imports (``import pyad as torch``); ``F`` is named (the text's
``forward`` uses it without the import; the text never calls it). The file is written
in a temporary directory. ``steps`` takes that many SGD steps of each model on a
synthetic batch before saving (not in the text, which saves optimizers that never
stepped; the tests take 2). The text loads the saved optimizer states back into
``optimizerA``/``optimizerB`` (not into the fresh ``optimModelA``/``optimModelB``): kept
as written. ``run`` returns the loaded models and optimizers' states, the models'
``training`` flags and outputs; ``init`` sees the four models.

Run it with ``python examples/ported/saving_multiple_models_in_one_file.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, steps=0, seed=0, init=None, log=print):
    """Return the loaded items, the four models and the four optimizers' states."""
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

    netA = Net()
    netB = Net()
    if init is not None:
        init(netA)
        init(netB)

    optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
    optimizerB = optim.SGD(netB.parameters(), lr=0.001, momentum=0.9)

    rng = np.random.RandomState(seed)
    inputs = torch.from_numpy(rng.rand(4, 3, 32, 32).astype(np.float32))
    labels = torch.from_numpy(rng.randint(0, 10, 4))
    for _ in range(steps):
        for net, optimizer in ((netA, optimizerA), (netB, optimizerB)):
            optimizer.zero_grad()
            loss = F.cross_entropy(net(inputs), labels)
            loss.backward()
            optimizer.step()
            results["losses"].append(loss.item())

    with tempfile.TemporaryDirectory() as directory:
        # Specify a path to save to
        PATH = os.path.join(directory, "model.pt")

        torch.save({
                    'modelA_state_dict': netA.state_dict(),
                    'modelB_state_dict': netB.state_dict(),
                    'optimizerA_state_dict': optimizerA.state_dict(),
                    'optimizerB_state_dict': optimizerB.state_dict(),
                    }, PATH)

        modelA = Net()
        modelB = Net()
        if init is not None:
            init(modelA)
            init(modelB)
        optimModelA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
        optimModelB = optim.SGD(modelB.parameters(), lr=0.001, momentum=0.9)

        checkpoint = torch.load(PATH)
        modelA.load_state_dict(checkpoint['modelA_state_dict'])
        modelB.load_state_dict(checkpoint['modelB_state_dict'])
        optimizerA.load_state_dict(checkpoint['optimizerA_state_dict'])
        optimizerB.load_state_dict(checkpoint['optimizerB_state_dict'])

    modelA.eval()
    modelB.eval()
    results["training_after_eval"] = (modelA.training, modelB.training)
    # - or -
    modelA.train()
    modelB.train()
    results["training_after_train"] = (modelA.training, modelB.training)

    results.update(keys=list(checkpoint), netA=netA, netB=netB, modelA=modelA,
                   modelB=modelB,
                   optimizer_states=[o.state_dict() for o in (optimizerA, optimizerB,
                                                              optimModelA, optimModelB)],
                   outputs=[m(inputs) for m in (modelA, modelB)])
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
