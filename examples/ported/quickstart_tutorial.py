"""Port of the PyTorch tutorial "Quickstart" (pytorch/tutorials
``beginner_source/basics/quickstart_tutorial.py``): ``DataLoader`` batches, the
``NeuralNetwork`` (``Flatten`` and a ``Sequential`` of ``Linear``/``ReLU``), ``train`` and
``test`` loops with ``CrossEntropyLoss`` and ``SGD``, then ``save`` of the
``state_dict``, ``load_state_dict`` into a new model and one prediction.

Ported by changing the imports (``import pyad as torch``, ``nn = torch.nn``,
``DataLoader = torch.utils.data.DataLoader``). FashionMNIST is replaced by synthetic
1x28x28 images in [0, 1) (as ``ToTensor`` gives) and random labels, drawn with NumPy from
``seed``, in ``torch.utils.data.TensorDataset``s; torchvision and matplotlib are left
out; ``model.pth`` is written in a temporary directory. The data set sizes, the number
of epochs and the report interval (100 batches in the text) are ``run``'s keyword
arguments. ``init`` sees each model the text builds (the tests load torch's initial
weights; the reloaded model's own initial weights are replaced by ``load_state_dict``).

Run it with ``python examples/ported/quickstart_tutorial.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, n_train=256, n_test=128, epochs=2, report_every=100, seed=0, init=None,
        log=print):
    """Return every training loss, each epoch's test (loss, accuracy), then the reloaded
    model's logits for the first test image and its predicted and actual class."""
    nn = torch.nn
    DataLoader = torch.utils.data.DataLoader
    results = []
    rng = np.random.RandomState(seed)

    def fashion_mnist(n):
        images = rng.rand(n, 1, 28, 28).astype(np.float32)
        labels = rng.randint(0, 10, n)
        return torch.utils.data.TensorDataset(torch.from_numpy(images),
                                              torch.from_numpy(labels))

    training_data = fashion_mnist(n_train)
    test_data = fashion_mnist(n_test)

    batch_size = 64

    # Create data loaders.
    train_dataloader = DataLoader(training_data, batch_size=batch_size)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)

    for X, y in test_dataloader:
        log("Shape of X [N, C, H, W]: ", X.shape)
        log("Shape of y: ", y.shape, y.dtype)
        break

    # Get cpu or gpu device for training.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    log("Using {} device".format(device))

    # Define model
    class NeuralNetwork(nn.Module):
        def __init__(self):
            super(NeuralNetwork, self).__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28*28, 512),
                nn.ReLU(),
                nn.Linear(512, 512),
                nn.ReLU(),
                nn.Linear(512, 10),
                nn.ReLU()
            )

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = NeuralNetwork().to(device)
    if init is not None:
        init(model)
    log(model)

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

    def train(dataloader, model, loss_fn, optimizer):
        size = len(dataloader.dataset)
        for batch, (X, y) in enumerate(dataloader):
            X, y = X.to(device), y.to(device)

            # Compute prediction error
            pred = model(X)
            loss = loss_fn(pred, y)

            # Backpropagation
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

            if batch % report_every == 0:
                loss, current = loss.item(), batch * len(X)
                log(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

    def test(dataloader, model, loss_fn):
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                X, y = X.to(device), y.to(device)
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        test_loss /= num_batches
        correct /= size
        log(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
        results.extend([test_loss, correct])

    for t in range(epochs):
        log(f"Epoch {t+1}\n-------------------------------")
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)
    log("Done!")

    with tempfile.TemporaryDirectory() as directory:
        torch.save(model.state_dict(), os.path.join(directory, "model.pth"))
        log("Saved PyTorch Model State to model.pth")

        model = NeuralNetwork()
        if init is not None:
            init(model)
        model.load_state_dict(torch.load(os.path.join(directory, "model.pth")))

    classes = [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]

    model.eval()
    x, y = test_data[0][0], test_data[0][1]
    with torch.no_grad():
        pred = model(x)
        predicted, actual = classes[pred[0].argmax(0)], classes[y]
        log(f'Predicted: "{predicted}", Actual: "{actual}"')
    results.extend(pred[0].tolist())
    results.extend([classes.index(predicted), classes.index(actual)])
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
