"""Port of rasbt/machine-learning-book ``ch13/ch13_part1.py`` (Chapter 13, Going Deeper --
The Mechanics of PyTorch): gradients of a one-weight loss by ``backward``, an
``nn.Sequential`` with ``xavier_uniform_`` and an L1 penalty, and the XOR classifier
trained with ``BCELoss`` and SGD as ``nn.Sequential`` (one layer, then three),
as an ``nn.Module`` over an ``nn.ModuleList`` and with the custom ``NoisyLinear`` layer
(``nn.Parameter`` of ``torch.Tensor(n, m)``, ``torch.normal`` noise while training).

machine-learning-book is MIT-licensed, Copyright (c) 2021 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). The cells run in order in
``run``, whose keyword arguments are the number of epochs, the data set's size, the
batch size and the loader's shuffling (the text's 200 epochs are only a hyperparameter:
fewer in the tests); ``print`` is ``log``; the matplotlib figures and mlxtend's decision
regions are dropped and what they show (the four histories, the models' predictions on
the validation set) is returned, with the gradients, the penalty and the noisy layer's
printed outputs. ``init`` is called with each model before it trains (the tests start
pyad's models from torch's weights). ``torch.Tensor(output_size)`` of one size is a
0-d tensor in pyad (a strict xfail in the tests, which otherwise run with ``Tensor``
swapped for ``empty`` through the namespace).

Run it with ``python examples/ported/mlbook_xor_modules.py``.
"""
import numpy as np


def run(torch, num_epochs=200, n_samples=200, n_train=100, batch_size=2, shuffle=True,
        init=None, log=print):
    nn = torch.nn
    TensorDataset = torch.utils.data.TensorDataset
    DataLoader = torch.utils.data.DataLoader
    init = init or (lambda model: None)
    results = {}

    # ### Computing the gradients of the loss with respect to trainable variables

    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)

    x = torch.tensor([1.4])
    y = torch.tensor([2.1])

    z = torch.add(torch.mul(w, x), b)

    loss = (y-z).pow(2).sum()
    loss.backward()

    log('dL/dw : ', w.grad)
    log('dL/db : ', b.grad)

    # verifying the computed gradient dL/dw
    log(2 * x * ((w * x + b) - y))
    results['grads'] = [w.grad.item(), b.grad.item(),
                        (2 * x * ((w * x + b) - y)).item()]

    # ### Implementing models based on nn.Sequential

    model = nn.Sequential(
        nn.Linear(4, 16),
        nn.ReLU(),
        nn.Linear(16, 32),
        nn.ReLU()
    )
    init(model)

    nn.init.xavier_uniform_(model[0].weight)

    l1_weight = 0.01
    l1_penalty = l1_weight * model[2].weight.abs().sum()
    results['l1_penalty'] = l1_penalty.item()

    # ## Solving an XOR classification problem

    np.random.seed(1)
    torch.manual_seed(1)
    x = np.random.uniform(low=-1, high=1, size=(n_samples, 2))
    y = np.ones(len(x))
    y[x[:, 0] * x[:, 1]<0] = 0

    x_train = torch.tensor(x[:n_train, :], dtype=torch.float32)
    y_train = torch.tensor(y[:n_train], dtype=torch.float32)
    x_valid = torch.tensor(x[n_train:, :], dtype=torch.float32)
    y_valid = torch.tensor(y[n_train:], dtype=torch.float32)

    train_ds = TensorDataset(x_train, y_train)
    torch.manual_seed(1)
    train_dl = DataLoader(train_ds, batch_size, shuffle=shuffle)

    model = nn.Sequential(
        nn.Linear(2, 1),
        nn.Sigmoid()
    )
    init(model)

    loss_fn = nn.BCELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    torch.manual_seed(1)

    def train(model, num_epochs, train_dl, x_valid, y_valid):
        loss_hist_train = [0] * num_epochs
        accuracy_hist_train = [0] * num_epochs
        loss_hist_valid = [0] * num_epochs
        accuracy_hist_valid = [0] * num_epochs
        for epoch in range(num_epochs):
            for x_batch, y_batch in train_dl:
                pred = model(x_batch)[:, 0]
                loss = loss_fn(pred, y_batch)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                loss_hist_train[epoch] += loss.item()
                is_correct = ((pred>=0.5).float() == y_batch).float()
                accuracy_hist_train[epoch] += is_correct.mean()

            loss_hist_train[epoch] /= n_train/batch_size
            accuracy_hist_train[epoch] /= n_train/batch_size

            pred = model(x_valid)[:, 0]
            loss = loss_fn(pred, y_valid)
            loss_hist_valid[epoch] = loss.item()
            is_correct = ((pred>=0.5).float() == y_valid).float()
            accuracy_hist_valid[epoch] += is_correct.mean()
        return loss_hist_train, loss_hist_valid, accuracy_hist_train, accuracy_hist_valid

    def floats(history):
        return [[float(v) for v in h] for h in history]

    history = train(model, num_epochs, train_dl, x_valid, y_valid)
    results['linear'] = floats(history)

    model = nn.Sequential(
        nn.Linear(2, 4),
        nn.ReLU(),
        nn.Linear(4, 4),
        nn.ReLU(),
        nn.Linear(4, 1),
        nn.Sigmoid()
    )
    init(model)

    loss_fn = nn.BCELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.015)

    history = train(model, num_epochs, train_dl, x_valid, y_valid)
    results['sequential'] = floats(history)

    # ## Making model building more flexible with nn.Module

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            l1 = nn.Linear(2, 4)
            a1 = nn.ReLU()
            l2 = nn.Linear(4, 4)
            a2 = nn.ReLU()
            l3 = nn.Linear(4, 1)
            a3 = nn.Sigmoid()
            l = [l1, a1, l2, a2, l3, a3]
            self.module_list = nn.ModuleList(l)

        def forward(self, x):
            for f in self.module_list:
                x = f(x)
            return x

        def predict(self, x):
            x = torch.tensor(x, dtype=torch.float32)
            pred = self.forward(x)[:, 0]
            return (pred>=0.5).float()

    model = MyModule()
    init(model)

    loss_fn = nn.BCELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.015)

    history = train(model, num_epochs, train_dl, x_valid, y_valid)
    results['module_list'] = floats(history)
    # what plot_decision_regions draws: the predictions on the validation set
    results['module_list_predict'] = model.predict(x_valid.numpy()).numpy().tolist()

    # ## Writing custom layers in PyTorch

    class NoisyLinear(nn.Module):
        def __init__(self, input_size, output_size, noise_stddev=0.1):
            super().__init__()
            w = torch.Tensor(input_size, output_size)
            self.w = nn.Parameter(w)  # nn.Parameter is a Tensor that's a module parameter.
            nn.init.xavier_uniform_(self.w)
            b = torch.Tensor(output_size).fill_(0)
            self.b = nn.Parameter(b)
            self.noise_stddev = noise_stddev

        def forward(self, x, training=False):
            if training:
                noise = torch.normal(0.0, self.noise_stddev, x.shape)
                x_new = torch.add(x, noise)
            else:
                x_new = x
            return torch.add(torch.mm(x_new, self.w), self.b)

    ## testing:

    torch.manual_seed(1)

    noisy_layer = NoisyLinear(4, 2)
    init(noisy_layer)

    x = torch.zeros((1, 4))
    outputs = []
    outputs.append(noisy_layer(x, training=True))
    log(outputs[-1])

    outputs.append(noisy_layer(x, training=True))
    log(outputs[-1])

    outputs.append(noisy_layer(x, training=False))
    log(outputs[-1])
    results['noisy_layer'] = [o.detach().numpy().tolist() for o in outputs]

    class MyNoisyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = NoisyLinear(2, 4, 0.07)
            self.a1 = nn.ReLU()
            self.l2 = nn.Linear(4, 4)
            self.a2 = nn.ReLU()
            self.l3 = nn.Linear(4, 1)
            self.a3 = nn.Sigmoid()

        def forward(self, x, training=False):
            x = self.l1(x, training)
            x = self.a1(x)
            x = self.l2(x)
            x = self.a2(x)
            x = self.l3(x)
            x = self.a3(x)
            return x

        def predict(self, x):
            x = torch.tensor(x, dtype=torch.float32)
            pred = self.forward(x)[:, 0]
            return (pred>=0.5).float()

    torch.manual_seed(1)
    model = MyNoisyModule()
    init(model)

    loss_fn = nn.BCELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.015)

    torch.manual_seed(1)

    loss_hist_train = [0] * num_epochs
    accuracy_hist_train = [0] * num_epochs
    loss_hist_valid = [0] * num_epochs
    accuracy_hist_valid = [0] * num_epochs
    for epoch in range(num_epochs):
        for x_batch, y_batch in train_dl:
            pred = model(x_batch, True)[:, 0]
            loss = loss_fn(pred, y_batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_hist_train[epoch] += loss.item()
            is_correct = ((pred>=0.5).float() == y_batch).float()
            accuracy_hist_train[epoch] += is_correct.mean()

        loss_hist_train[epoch] /= n_train/batch_size
        accuracy_hist_train[epoch] /= n_train/batch_size

        pred = model(x_valid)[:, 0]
        loss = loss_fn(pred, y_valid)
        loss_hist_valid[epoch] = loss.item()
        is_correct = ((pred>=0.5).float() == y_valid).float()
        accuracy_hist_valid[epoch] += is_correct.mean()

    results['noisy'] = floats((loss_hist_train, loss_hist_valid, accuracy_hist_train,
                               accuracy_hist_valid))
    results['noisy_predict'] = model.predict(x_valid.numpy()).numpy().tolist()
    return results, model


if __name__ == "__main__":
    import pyad as torch
    run(torch)
