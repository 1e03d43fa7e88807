"""Port of the PyTorch tutorial "Optimizing Model Parameters" (pytorch/tutorials
``beginner_source/basics/optimization_tutorial.py``): the FashionMNIST
``NeuralNetwork`` trained by ``optim.SGD`` and ``CrossEntropyLoss`` in ``train_loop``,
evaluated under ``no_grad`` in ``test_loop``.

Ported by changing the imports (``import pyad as torch``; ``from torch import nn`` and
``from torch.utils.data import DataLoader`` read the namespace ``run`` is given). Other
changes: FashionMNIST is replaced by synthetic images and labels of the same shapes
(``TensorDataset``s of NumPy draws from a seed: ``n_train`` and ``n_test`` images); the
numbers of epochs and the logging interval are ``run``'s keyword arguments (10 and 100);
``train_loop`` and ``test_loop`` record what they print. ``run`` returns the loss of
every training batch and each epoch's test loss and accuracy.

Run it with ``python examples/ported/optimization_tutorial.py``.
"""
import numpy as np


def run(torch, init=None, log=print, n_train=640, n_test=128, epochs=10, log_every=100,
        seed=0):
    """Return the loss of every training batch, then each epoch's test loss and
    accuracy."""
    nn = torch.nn
    DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
    rng = np.random.default_rng(seed)

    def fashion_mnist(n):
        images = rng.random((n, 1, 28, 28)).astype(np.float32)
        labels = rng.integers(0, 10, n)
        return TensorDataset(torch.tensor(images, dtype=torch.get_default_dtype()),
                             torch.tensor(labels))

    training_data = fashion_mnist(n_train)
    test_data = fashion_mnist(n_test)

    train_dataloader = DataLoader(training_data, batch_size=64)
    test_dataloader = DataLoader(test_data, batch_size=64)

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28*28, 512),
                nn.ReLU(),
                nn.Linear(512, 512),
                nn.ReLU(),
                nn.Linear(512, 10),
            )

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = NeuralNetwork()
    if init is not None:
        init(model)

    learning_rate = 1e-3
    batch_size = 64

    results = []

    def train_loop(dataloader, model, loss_fn, optimizer):
        size = len(dataloader.dataset)
        # Set the model to training mode - important for batch normalization and dropout layers
        # Unnecessary in this situation but added for best practices
        model.train()
        for batch, (X, y) in enumerate(dataloader):
            # Compute prediction and loss
            pred = model(X)
            loss = loss_fn(pred, y)

            # Backpropagation
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

            if batch % log_every == 0:
                loss, current = loss.item(), batch * batch_size + len(X)
                log(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

    def test_loop(dataloader, model, loss_fn):
        # Set the model to evaluation mode - important for batch normalization and dropout layers
        # Unnecessary in this situation but added for best practices
        model.eval()
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        test_loss, correct = 0, 0

        # Evaluating the model with torch.no_grad() ensures that no gradients are computed during test mode
        # also serves to reduce unnecessary gradient computations and memory usage for tensors with requires_grad=True
        with torch.no_grad():
            for X, y in dataloader:
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()

        test_loss /= num_batches
        correct /= size
        log(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
        results.extend([test_loss, correct])

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

    for t in range(epochs):
        log(f"Epoch {t+1}\n-------------------------------")
        train_loop(train_dataloader, model, loss_fn, optimizer)
        test_loop(test_dataloader, model, loss_fn)
    log("Done!")
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, epochs=2, log_every=5)
