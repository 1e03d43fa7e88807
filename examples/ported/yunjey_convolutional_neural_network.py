"""Port of yunjey/pytorch-tutorial
``tutorials/02-intermediate/convolutional_neural_network/main.py``: a two-layer
``ConvNet`` (``Conv2d``, ``BatchNorm2d``, ``MaxPool2d``) on MNIST, Adam, then the test
accuracy in eval mode.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images of
its shape and random labels in a ``TensorDataset``. The checkpoint goes to
``directory``; ``print`` is ``log``; the sizes (fewer images, small batches) are
``run``'s keyword arguments. The images have the default dtype (the tests run in
float64: the convolutions feed ``BatchNorm2d``, so some gradients are 0 in exact
arithmetic and float32 rounding noise would decide the sign of Adam's steps, see the
README).

Run it with ``python examples/ported/yunjey_convolutional_neural_network.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, num_epochs=2, batch_size=4, n_train=8, n_test=8, learning_rate=0.001,
        shuffle=True, seed=0, directory=None, init=None, log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')

    # Hyper parameters
    num_classes = 10

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 28, 28), dtype=torch.get_default_dtype()),
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

    # Convolutional neural network (two convolutional layers)
    class ConvNet(nn.Module):
        def __init__(self, num_classes=10):
            super(ConvNet, self).__init__()
            self.layer1 = nn.Sequential(
                nn.Conv2d(1, 16, kernel_size=5, stride=1, padding=2),
                nn.BatchNorm2d(16),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2))
            self.layer2 = nn.Sequential(
                nn.Conv2d(16, 32, kernel_size=5, stride=1, padding=2),
                nn.BatchNorm2d(32),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2))
            self.fc = nn.Linear(7*7*32, num_classes)

        def forward(self, x):
            out = self.layer1(x)
            out = self.layer2(out)
            out = out.reshape(out.size(0), -1)
            out = self.fc(out)
            return out

    model = ConvNet(num_classes).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # Train the model
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.to(device)
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
    model.eval()  # eval mode (batchnorm uses moving mean/variance instead of mini-batch mean/variance)
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
            results.extend(outputs.reshape(-1).tolist())

        log('Test Accuracy of the model on the 10000 test images: {} %'.format(100 * correct / total))
    results.append(100 * correct / total)

    # Save the model checkpoint
    torch.save(model.state_dict(), os.path.join(directory, 'model.ckpt'))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
