"""Port of pytorch/tutorials ``beginner_source/nn_tutorial.py`` ("What is torch.nn
really?"): logistic regression on MNIST written from scratch (hand-written
``log_softmax`` and ``nll``, a manual update under ``no_grad``), then refactored step by
step to ``F.cross_entropy``, ``nn.Module`` with ``nn.Parameter``, ``nn.Linear``,
``optim``, ``TensorDataset`` and ``DataLoader``, the ``fit``/``loss_batch`` loop with
validation, a CNN, ``nn.Sequential`` with a ``Lambda`` layer, a ``WrappedDataLoader``
and ``AdaptiveAvgPool2d``.

Ported by changing the imports (``import pyad as torch``). MNIST (the pickled 784-pixel
rows) is replaced by synthetic pixels in [0, 1) (four in five of them 0) and random
labels; the download, the image display and the GPU section are left out; the training
sets are a few batches. The training ``DataLoader``s of "Add validation" and of
``get_data`` shuffle when ``shuffle`` is true (the original's ``shuffle=True``; the
tests pass false, as the two frameworks' generators differ). ``loss_batch`` and the
loops also append each loss to the returned list.

Run it with ``python examples/ported/nn_tutorial.py``.
"""
import math

import numpy as np


def run(torch, n_train=96, n_valid=40, bs=16, epochs=2, shuffle=True, seed=0, init=None,
        log=print):
    """Run the tutorial's stages; return their losses (and accuracies) in order."""
    results = []
    rng = np.random.RandomState(seed)
    def pixels(n):  # mostly background, as MNIST's (mean about 0.1)
        return (rng.rand(n, 784) * (rng.rand(n, 784) < 0.2)).astype(np.float32)

    x_train = pixels(n_train)
    y_train = rng.randint(0, 10, n_train)
    x_valid = pixels(n_valid)
    y_valid = rng.randint(0, 10, n_valid)

    def record(model):
        if init is not None:
            init(model)
        return model

    # -- Using PyTorch's tensors ----------------------------------------------------------

    x_train, y_train, x_valid, y_valid = map(
        torch.tensor, (x_train, y_train, x_valid, y_valid)
    )
    n, c = x_train.shape
    log(x_train, y_train)
    log(x_train.shape)
    log(y_train.min(), y_train.max())

    # -- Neural net from scratch (without torch.nn) --------------------------------------

    weights = torch.randn(784, 10) / math.sqrt(784)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    xb = x_train[0:bs]  # a mini-batch from x
    preds = model(xb)  # predictions
    preds[0], preds.shape
    log(preds[0], preds.shape)

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    loss_func = nll

    yb = y_train[0:bs]
    log(loss_func(preds, yb))

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    log(accuracy(preds, yb))
    results += [loss_func(preds, yb).item(), accuracy(preds, yb).item()]

    lr = 0.5  # learning rate

    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            #         set_trace()
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            results.append(loss.item())

            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()

    log(loss_func(model(xb), yb), accuracy(model(xb), yb))
    results += [loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item()]

    # -- Using torch.nn.functional -------------------------------------------------------

    F = torch.nn.functional

    loss_func = F.cross_entropy

    def model(xb):
        return xb @ weights + bias

    log(loss_func(model(xb), yb), accuracy(model(xb), yb))
    results += [loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item()]

    # -- Refactor using nn.Module --------------------------------------------------------

    nn = torch.nn

    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
            self.bias = nn.Parameter(torch.zeros(10))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    model = record(Mnist_Logistic())
    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    def fit():
        for epoch in range(epochs):
            for i in range((n - 1) // bs + 1):
                start_i = i * bs
                end_i = start_i + bs
                xb = x_train[start_i:end_i]
                yb = y_train[start_i:end_i]
                pred = model(xb)
                loss = loss_func(pred, yb)
                results.append(loss.item())

                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= p.grad * lr
                    model.zero_grad()

    fit()
    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    # -- Refactor using nn.Linear --------------------------------------------------------

    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(784, 10)

        def forward(self, xb):
            return self.lin(xb)

    model = record(Mnist_Logistic())
    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())
    fit()
    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    # -- Refactor using torch.optim ------------------------------------------------------

    optim = torch.optim

    def get_model():
        model = record(Mnist_Logistic())
        return model, optim.SGD(model.parameters(), lr=lr)

    model, opt = get_model()
    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            results.append(loss.item())

            loss.backward()
            opt.step()
            opt.zero_grad()

    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    # -- Refactor using Dataset and DataLoader -------------------------------------------

    TensorDataset = torch.utils.data.TensorDataset
    DataLoader = torch.utils.data.DataLoader

    train_ds = TensorDataset(x_train, y_train)
    train_dl = DataLoader(train_ds, batch_size=bs)

    model, opt = get_model()

    for epoch in range(epochs):
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)
            results.append(loss.item())

            loss.backward()
            opt.step()
            opt.zero_grad()

    log(loss_func(model(xb), yb))
    results.append(loss_func(model(xb), yb).item())

    # -- Add validation ------------------------------------------------------------------

    train_ds = TensorDataset(x_train, y_train)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=shuffle)

    valid_ds = TensorDataset(x_valid, y_valid)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)

    model, opt = get_model()

    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)
            results.append(loss.item())

            loss.backward()
            opt.step()
            opt.zero_grad()

        model.eval()
        with torch.no_grad():
            valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)

        log(epoch, valid_loss / len(valid_dl))
        results.append((valid_loss / len(valid_dl)).item())

    # -- Create fit() and get_data() -----------------------------------------------------

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)

        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
            results.append(loss.item())

        return loss.item(), len(xb)

    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
        for epoch in range(epochs):
            model.train()
            for xb, yb in train_dl:
                loss_batch(model, loss_func, xb, yb, opt)

            model.eval()
            with torch.no_grad():
                losses, nums = zip(
                    *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
                )
            val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

            log(epoch, val_loss)
            results.append(float(val_loss))

    def get_data(train_ds, valid_ds, bs):
        return (
            DataLoader(train_ds, batch_size=bs, shuffle=shuffle),
            DataLoader(valid_ds, batch_size=bs * 2),
        )

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    model, opt = get_model()
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # -- Switch to CNN -------------------------------------------------------------------

    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

        def forward(self, xb):
            xb = xb.view(-1, 1, 28, 28)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 4)
            return xb.view(-1, xb.size(1))

    lr = 0.1

    model = record(Mnist_CNN())
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # -- Using nn.Sequential -------------------------------------------------------------

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x):
        return x.view(-1, 1, 28, 28)

    model = record(nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(4),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ))

    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # -- Wrapping DataLoader -------------------------------------------------------------

    def preprocess(x, y):
        return x.view(-1, 1, 28, 28), y

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl = dl
            self.func = func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield (self.func(*b))

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    valid_dl = WrappedDataLoader(valid_dl, preprocess)

    model = record(nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ))

    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
