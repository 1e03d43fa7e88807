"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_simple_fullynet.py``: a two-layer fully connected ``NN`` on
flattened MNIST, ``CrossEntropyLoss``, Adam and ``check_accuracy``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape and random labels in a ``TensorDataset``; ``tqdm(...)``
around the loader is left out (the loader itself); ``print`` is ``log``; the epochs,
batch size and set sizes are ``run``'s keyword arguments (smaller in the tests), the
layers as written. Each step's loss and the two accuracies are returned.

Run it with ``python examples/ported/aladdin_simple_fullynet.py``.
"""
import numpy as np


def run(torch, num_epochs=3, batch_size=64, n_train=256, n_test=128, shuffle=True,
        seed=0, init=None, log=print):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.from_numpy(rng.rand(n, 1, 28, 28).astype(np.float32)),
            torch.from_numpy(rng.randint(0, 10, n)))

    # Here we create our simple neural network. For more details here we are subclassing and
    # inheriting from nn.Module, this is the most general way to create your networks and
    # allows for more flexibility.
    class NN(nn.Module):
        def __init__(self, input_size, num_classes):
            super(NN, self).__init__()
            # Our first linear layer take input_size, in this case 784 nodes to 50
            # and our second linear layer takes 50 to the num_classes we have, in
            # this case 10.
            self.fc1 = nn.Linear(input_size, 50)
            self.fc2 = nn.Linear(50, num_classes)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            x = self.fc2(x)
            return x

    # Set device cuda for GPU if it's available otherwise run on the CPU
    device = "mps" if torch.backends.mps.is_available() else "cuda" if torch.cuda.is_available() else "cpu"

    # Hyperparameters
    input_size = 784
    num_classes = 10
    learning_rate = 0.001

    # Load Data
    train_dataset = mnist(n_train)
    test_dataset = mnist(n_test)
    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=shuffle)
    test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=shuffle)

    # Initialize network
    model = NN(input_size=input_size, num_classes=num_classes).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    # Train Network
    for epoch in range(num_epochs):
        for batch_idx, (data, targets) in enumerate(train_loader):
            # Get data to cuda if possible
            data = data.to(device=device)
            targets = targets.to(device=device)

            # Get to correct shape
            data = data.reshape(data.shape[0], -1)

            # Forward
            scores = model(data)
            loss = criterion(scores, targets)
            results.append(loss.item())

            # Backward
            optimizer.zero_grad()
            loss.backward()

            # Gradient descent or adam step
            optimizer.step()

    # Check accuracy on training & test to see how good our model
    def check_accuracy(loader, model):
        num_correct = 0
        num_samples = 0
        model.eval()

        # We don't need to keep track of gradients here so we wrap it in torch.no_grad()
        with torch.no_grad():
            # Loop through the data
            for x, y in loader:

                # Move data to device
                x = x.to(device=device)
                y = y.to(device=device)

                # Get to correct shape
                x = x.reshape(x.shape[0], -1)

                # Forward pass
                scores = model(x)
                _, predictions = scores.max(1)

                # Check how many we got correct
                num_correct += (predictions == y).sum()

                # Keep track of number of samples
                num_samples += predictions.size(0)

        model.train()
        return num_correct / num_samples

    # Check accuracy on training & test to see how good our model
    train_acc = check_accuracy(train_loader, model)
    test_acc = check_accuracy(test_loader, model)
    log(f"Accuracy on training set: {train_acc*100:.2f}")
    log(f"Accuracy on test set: {test_acc*100:.2f}")
    results += [float(train_acc), float(test_acc)]
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
