"""Port of the PyTorch recipe "Warmstarting model using parameters from a different
model in PyTorch" (pytorch/tutorials
``recipes_source/recipes/warmstarting_model_using_parameters_from_a_different_model.py``):
``NetA``'s ``state_dict`` saved and loaded into ``NetB`` with ``strict=False``.

Ported by changing the imports (``import pyad as torch``); ``F`` is named (the text's
``forward`` uses it without the import; the text never calls it). The file is written in
a temporary directory. ``run`` returns what ``load_state_dict`` returns (the notebook
shows its repr, ``<All keys matched successfully>``) and both models. The text's
advice for keys that do not match (rename them) is ``rename=True`` (not in the text):
``NetB``'s last layer is ``classifier``, and ``NetA``'s ``state_dict`` is saved with
``fc3.*`` renamed ``classifier.*``, without ``conv1``'s entries and with an ``extra``
one, so ``strict=False`` loads the rest and reports ``conv1``'s keys as missing and
``extra`` as unexpected. ``init`` sees both models.

Run it with ``python examples/ported/warmstarting_model_using_parameters_from_a_different_model.py``.
"""
import os
import tempfile


def run(torch, rename=False, init=None, log=print):
    """Return ``{"result", "missing", "unexpected", "netA", "netB"}``."""
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional

    class NetA(nn.Module):
        def __init__(self):
            super(NetA, self).__init__()
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

    netA = NetA()
    if init is not None:
        init(netA)

    class NetB(nn.Module):
        def __init__(self):
            super(NetB, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            if rename:
                self.classifier = nn.Linear(84, 10)
            else:
                self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.flatten(start_dim=1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.classifier(x) if rename else self.fc3(x)
            return x

    netB = NetB()
    if init is not None:
        init(netB)

    with tempfile.TemporaryDirectory() as directory:
        # Specify a path to save to
        PATH = os.path.join(directory, "model.pt")

        state = netA.state_dict()
        if rename:
            state = {k.replace("fc3.", "classifier."): v
                     for k, v in state.items() if not k.startswith("conv1.")}
            state["extra"] = netA.fc2.bias.detach().clone()
        torch.save(state, PATH)

        result = netB.load_state_dict(torch.load(PATH), strict=False)
    log(result)
    return {"result": repr(result), "missing": list(result.missing_keys),
            "unexpected": list(result.unexpected_keys), "netA": netA, "netB": netB}


if __name__ == "__main__":
    import pyad as torch
    run(torch)
