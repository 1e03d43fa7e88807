"""Port of yunjey/pytorch-tutorial
``tutorials/02-intermediate/recurrent_neural_network/main.py``: a two-layer
``LSTM(batch_first=True)`` reading each MNIST image row by row, from zero initial
states, and a ``Linear`` layer on its last output.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images of
its shape and random labels in a ``TensorDataset``. The checkpoint goes to
``directory``; ``print`` is ``log``; the sizes (fewer images, a narrower LSTM) are
``run``'s keyword arguments.

Run it with ``python examples/ported/yunjey_recurrent_neural_network.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, hidden_size=16, num_layers=2, num_epochs=2, batch_size=4, n_train=8,
        n_test=4, learning_rate=0.01, shuffle=True, seed=0, directory=None, init=None,
        log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyper-parameters
    sequence_length = 28
    input_size = 28
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

    # Recurrent neural network (many-to-one)
    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(RNN, self).__init__()
            self.hidden_size = hidden_size
            self.num_layers = num_layers
            self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size, num_classes)

        def forward(self, x):
            # Set initial hidden and cell states
            h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
            c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)

            # Forward propagate LSTM
            out, _ = self.lstm(x, (h0, c0))  # out: tensor of shape (batch_size, seq_length, hidden_size)

            # Decode the hidden state of the last time step
            out = self.fc(out[:, -1, :])
            return out

    model = RNN(input_size, hidden_size, num_layers, num_classes).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # Train the model
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.reshape(-1, sequence_length, input_size).to(device)
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
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.reshape(-1, sequence_length, input_size).to(device)
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
