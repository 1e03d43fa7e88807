"""Port of pytorch/tutorials ``beginner_source/saving_loading_models.py`` ("Saving and
Loading Models"): the ``state_dict`` of ``TheModelClass`` (the Training a Classifier
network) and of its ``SGD(momentum=0.9)``, then each recipe the tutorial shows, run
for real in a temporary directory: a ``state_dict`` saved and loaded for inference
(``weights_only=True``, ``model.eval()``); a general checkpoint (epoch, model and
optimizer ``state_dict``s, loss) saved, loaded into a fresh model and optimizer, and
training resumed from it; several models and optimizers in one file; warm starting a
different model with ``load_state_dict(..., strict=False)``; ``map_location`` (CPU);
and the ``state_dict`` of an ``nn.DataParallel``'s ``module``.

Ported by changing the imports (``import pyad as torch``). The tutorial's code blocks
are fragments (``PATH``, ``TheModelClass(*args, **kwargs)``, ``...``): here ``PATH``
names files in a temporary directory, the models train a few steps on synthetic
CIFAR-shaped images so that the saved weights and momentum buffers are not the initial
ones, and each recipe's results (outputs, losses after resuming) are returned.
"Save/Load Entire Model" (``torch.save(model, PATH)``, which pickles the module) is
the function ``save_entire_model``: pyad's ``save`` writes a format that runs no code
on load and refuses a ``Module``. The GPU recipes are run with the CPU as the device;
``torch.export`` is left out.

Run it with ``python examples/ported/saving_loading_models.py``.
"""
import os
import tempfile

import numpy as np


def _classes(torch):
    nn = torch.nn
    F = torch.nn.functional

    # Define model
    class TheModelClass(nn.Module):
        def __init__(self):
            super(TheModelClass, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    # a model for warm starting: TheModelClass's convolutions, a different head
    class TheModelBClass(nn.Module):
        def __init__(self):
            super(TheModelBClass, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.head = nn.Linear(16 * 5 * 5, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5)
            return self.head(x)

    return TheModelClass, TheModelBClass


def _data(torch, seed, n_batches, batch_size=4):
    rng = np.random.RandomState(seed)
    images = rng.uniform(-1, 1, (n_batches, batch_size, 3, 32, 32)).astype(np.float32)
    labels = rng.randint(0, 10, (n_batches, batch_size))
    return [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in zip(images, labels)]


def run(torch, steps=3, seed=0, tmpdir=None, init=None, log=print):
    """Run every recipe; return the numbers each computes (losses, outputs, counts)."""
    nn = torch.nn
    optim = torch.optim
    TheModelClass, TheModelBClass = _classes(torch)
    batches = _data(torch, seed, steps + 1)
    criterion = nn.CrossEntropyLoss()
    results = []

    def train(model, optimizer, data):
        model.train()
        losses = []
        for inputs, labels in data:
            optimizer.zero_grad()
            loss = criterion(model(inputs), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    with tempfile.TemporaryDirectory(dir=tmpdir) as directory:
        # -- What is a state_dict? -------------------------------------------------------
        # Initialize model
        model = TheModelClass()
        if init is not None:
            init(model)

        # Initialize optimizer
        optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

        # Print model's state_dict
        log("Model's state_dict:")
        for param_tensor in model.state_dict():
            log(param_tensor, "\t", model.state_dict()[param_tensor].size())
            results.extend(model.state_dict()[param_tensor].size())

        # Print optimizer's state_dict
        log("Optimizer's state_dict:")
        for var_name in optimizer.state_dict():
            log(var_name, "\t", optimizer.state_dict()[var_name])
        group = optimizer.state_dict()['param_groups'][0]
        results.extend([group['lr'], group['momentum'], group['dampening'],
                        group['weight_decay'], float(group['nesterov'])] + group['params'])

        train_losses = train(model, optimizer, batches[:steps])
        results.extend(train_losses)
        test_inputs = batches[steps][0]

        # -- Save/Load state_dict (Recommended) ------------------------------------------
        PATH = os.path.join(directory, "model.pth")
        torch.save(model.state_dict(), PATH)

        loaded = TheModelClass()
        loaded.load_state_dict(torch.load(PATH, weights_only=True))
        loaded.eval()
        with torch.no_grad():
            results.extend(loaded(test_inputs).numpy().ravel().tolist())

        # -- Saving & Loading a General Checkpoint ---------------------------------------
        epoch, loss = steps, train_losses[-1]
        PATH = os.path.join(directory, "checkpoint.tar")
        torch.save({
                    'epoch': epoch,
                    'model_state_dict': model.state_dict(),
                    'optimizer_state_dict': optimizer.state_dict(),
                    'loss': loss,
                    }, PATH)

        resumed = TheModelClass()
        resumed_optimizer = optim.SGD(resumed.parameters(), lr=0.001, momentum=0.9)

        checkpoint = torch.load(PATH, weights_only=True)
        resumed.load_state_dict(checkpoint['model_state_dict'])
        resumed_optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        epoch = checkpoint['epoch']
        loss = checkpoint['loss']
        results.extend([epoch, loss])
        results.extend(sorted(len(s) for s in
                              resumed_optimizer.state_dict()['state'].values()))

        resumed.train()
        # one more step from the checkpoint, and the same step of the original model:
        # the momentum buffers came back, so the two agree
        results.extend(train(resumed, resumed_optimizer, batches[:1]))
        results.extend(train(model, optimizer, batches[:1]))
        for p, q in zip(resumed.parameters(), model.parameters()):
            results.append(float((p.detach() - q.detach()).abs().max()))

        # -- Saving Multiple Models in One File ------------------------------------------
        modelA, modelB = model, TheModelBClass()
        if init is not None:
            init(modelB)
        optimizerA = optimizer
        optimizerB = optim.SGD(modelB.parameters(), lr=0.01, momentum=0.9)
        results.extend(train(modelB, optimizerB, batches[:1]))
        PATH = os.path.join(directory, "models.tar")
        torch.save({
                    'modelA_state_dict': modelA.state_dict(),
                    'modelB_state_dict': modelB.state_dict(),
                    'optimizerA_state_dict': optimizerA.state_dict(),
                    'optimizerB_state_dict': optimizerB.state_dict(),
                    }, PATH)

        modelA = TheModelClass()
        modelB = TheModelBClass()
        optimizerA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
        optimizerB = optim.SGD(modelB.parameters(), lr=0.01, momentum=0.9)

        checkpoint = torch.load(PATH, weights_only=True)
        modelA.load_state_dict(checkpoint['modelA_state_dict'])
        modelB.load_state_dict(checkpoint['modelB_state_dict'])
        optimizerA.load_state_dict(checkpoint['optimizerA_state_dict'])
        optimizerB.load_state_dict(checkpoint['optimizerB_state_dict'])

        modelA.eval()
        modelB.eval()
        with torch.no_grad():
            results.extend(modelA(test_inputs).numpy().ravel().tolist())
            results.extend(modelB(test_inputs).numpy().ravel().tolist())
        results.append(optimizerB.state_dict()['param_groups'][0]['lr'])

        # -- Warmstarting Model Using Parameters from a Different Model ------------------
        PATH = os.path.join(directory, "modelA.pth")
        torch.save(modelA.state_dict(), PATH)

        modelB = TheModelBClass()
        keys = modelB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
        log(keys)
        results.append(len(keys.missing_keys))
        results.append(len(keys.unexpected_keys))
        results.append(float((modelB.conv2.weight.detach()
                              - modelA.conv2.weight.detach()).abs().max()))

        # -- Save on GPU, Load on CPU (the CPU both times here) --------------------------
        device = torch.device('cpu')
        model = TheModelClass()
        model.load_state_dict(torch.load(PATH, map_location=device, weights_only=True))
        model.to(device)
        model.eval()
        with torch.no_grad():
            results.extend(model(test_inputs.to(device)).numpy().ravel().tolist())

        # -- Saving torch.nn.DataParallel Models -----------------------------------------
        parallel = nn.DataParallel(TheModelClass())
        parallel.module.load_state_dict(modelA.state_dict())
        PATH = os.path.join(directory, "module.pth")
        torch.save(parallel.module.state_dict(), PATH)
        model = TheModelClass()
        model.load_state_dict(torch.load(PATH, weights_only=True))
        model.eval()
        with torch.no_grad():
            results.extend(model(test_inputs).numpy().ravel().tolist())
    return results


def save_entire_model(torch, tmpdir=None, init=None):
    """Save/Load Entire Model: ``torch.save(model, PATH)`` pickles the module itself;
    return the loaded model's outputs on a batch."""
    TheModelClass, _ = _classes(torch)
    # pickle finds a class by its module and name: this module's globals
    TheModelClass.__qualname__ = TheModelClass.__name__
    globals()["TheModelClass"] = TheModelClass
    model = TheModelClass()
    if init is not None:
        init(model)
    inputs = _data(torch, 1, 1)[0][0]
    with tempfile.TemporaryDirectory(dir=tmpdir) as directory:
        PATH = os.path.join(directory, "entire_model.pt")
        torch.save(model, PATH)

        # Model class must be defined somewhere
        model = torch.load(PATH, weights_only=False)
        model.eval()
    with torch.no_grad():
        return model(inputs).numpy().ravel().tolist()


if __name__ == "__main__":
    import pyad as torch
    run(torch)
