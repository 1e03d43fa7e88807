"""Port of yunjey/pytorch-tutorial
``tutorials/01-basics/feedforward_neural_network/main.py``: a one-hidden-layer
``NeuralNet`` on flattened MNIST images, ``CrossEntropyLoss`` and Adam.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images of
its shape and random labels in a ``TensorDataset``; the checkpoint goes to
``directory``; ``print`` is ``log``; the sizes (a narrower hidden layer) are
``run``'s keyword arguments.

Run it with ``python examples/ported/yunjey_feedforward_neural_network.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, hidden_size=50, num_epochs=2, batch_size=10, n_train=40, n_test=20,
        learning_rate=0.001, shuffle=True, seed=0, directory=None, init=None, log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyper-parameters
    input_size = 784
    num_classes = 10

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.from_numpy(rng.rand(n, 1, 28, 28).astype(np.float32)),
            torch.from_numpy(rng.randint(0, num_classes, n)))

    # MNIST dataset
    train_dataset = mnist(n_train)
    test_dataset = mnist(n_test)

    # Data loader
    train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                               batch_size=batch_size,
                                               shuffle=shuffle)

    test_loader = torch.utils.data.DataLoader(dataset=test_dataset,
                                              batch_size=batch_size,
                                              shuffle=False)

    # Fully connected neural network with one hidden layer
    class NeuralNet(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super(NeuralNet, self).__init__()
            self.fc1 = nn.Linear(input_size, hidden_size)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(hidden_size, num_classes)

        def forward(self, x):
            out = self.fc1(x)
            out = self.relu(out)
            out = self.fc2(out)
            return out

    model = NeuralNet(input_size, hidden_size, num_classes).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # Train the model
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            # Move tensors to the configured device
            images = images.reshape(-1, 28*28).to(device)
            labels = labels.to(device)

            # Forward pass
            outputs = model(images)
            loss = criterion(outputs, labels)

            # Backward and optimize
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

            if (i+1) % 100 == 0:
                log('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                    .format(epoch+1, num_epochs, i+1, total_step, loss.item()))

    # Test the model
    # In test phase, we don't need to compute gradients (for memory efficiency)
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.reshape(-1, 28*28).to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

        log('Accuracy of the network on the 10000 test images: {} %'.format(100 * correct / total))
    results.append(100 * correct / total)

    # Save the model checkpoint
    torch.save(model.state_dict(), os.path.join(directory, 'model.ckpt'))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
