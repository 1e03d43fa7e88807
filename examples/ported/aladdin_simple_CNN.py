"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_simple_CNN.py``: a two-convolution ``CNN`` on MNIST,
``CrossEntropyLoss``, Adam and ``check_accuracy``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape and random labels in a ``TensorDataset`` whose ``train``
attribute ``check_accuracy`` reads (torchvision's ``MNIST.train``); ``print`` is
``log``; the epochs, batch size and set sizes are ``run``'s keyword arguments (smaller in
the tests), the layers as written. Each step's loss and the accuracy counts are returned.

Run it with ``python examples/ported/aladdin_simple_CNN.py``.
"""
import numpy as np


def run(torch, num_epochs=5, batch_size=64, n_train=256, n_test=128, shuffle=True,
        seed=0, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    def mnist(n, train):
        dataset = torch.utils.data.TensorDataset(
            torch.from_numpy(rng.rand(n, 1, 28, 28).astype(np.float32)),
            torch.from_numpy(rng.randint(0, 10, n)))
        dataset.train = train
        return dataset

    # Simple CNN
    class CNN(nn.Module):
        def __init__(self, in_channels = 1, num_classes = 10):
            super(CNN, self).__init__()
            self.conv1 = nn.Conv2d(in_channels=1, out_channels=8, kernel_size=(3,3), stride=(1,1), padding=(1,1))
            self.pool = nn.MaxPool2d(kernel_size=(2,2), stride = (2,2))
            self.conv2 = nn.Conv2d(in_channels=8, out_channels=16, kernel_size=(3,3), stride=(1,1), padding=(1,1))
            self.fc1 = nn.Linear(16*7*7, num_classes)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = self.pool(x)
            x = F.relu(self.conv2(x))
            x = self.pool(x)
            x = x.reshape(x.shape[0], -1)
            x = self.fc1(x)

            return x

    # Set device
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyperparameters
    in_channel = 1
    num_classes = 10
    learning_rate = 0.001

    # Load Data
    train_dataset = mnist(n_train, True)
    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=shuffle)
    test_dataset = mnist(n_test, False)
    test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=shuffle)

    # Initialize network
    model = CNN().to(device)
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

            # forward
            scores = model(data)
            loss = criterion(scores, targets)
            results.append(loss.item())

            # backward
            optimizer.zero_grad()
            loss.backward()

            # gradient descent or adam step
            optimizer.step()

    # Check accuracy on training & test to see how good our model

    def check_accuracy(loader, model):
        if loader.dataset.train:
            log("Checking accuracy on training data")
        else:
            log("Checking accuracy on test data")

        num_correct = 0
        num_samples = 0
        model.eval()

        with torch.no_grad():
            for x, y in loader:
                x = x.to(device=device)
                y = y.to(device=device)

                scores = model(x)
                _, predictions = scores.max(1)
                num_correct += (predictions == y).sum()
                num_samples += predictions.size(0)

            log(f'Got {num_correct} / {num_samples} with accuracy {float(num_correct)/float(num_samples)*100:.2f}')
            results.extend([int(num_correct), num_samples])

        model.train()

    check_accuracy(train_loader, model)
    check_accuracy(test_loader, model)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
