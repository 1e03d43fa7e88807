"""Port of pytorch/examples ``mnist_rnn``: an ``nn.LSTM(batch_first=True)`` reading each
28x28 image row by row, ``BatchNorm1d`` and ``Dropout2d`` on its last output, two linear
layers, trained by Adadelta with a ``StepLR`` schedule.

Ported by changing the imports (``import pyad as torch``). MNIST is replaced by synthetic
normalised images and random labels, batched by hand instead of through ``DataLoader``.
``Dropout2d`` of the LSTM's 2-D output is what torch 2.13 does with it (a deprecation
warning, then elementwise dropout), and so is pyad's.

Run it with ``python examples/ported/mnist_rnn.py``.
"""
import numpy as np


def run(torch, batch_size=8, n_batches=3, test_batches=2, epochs=2, lr=0.1, gamma=0.7,
        seed=1, init=None, log=print):
    """Train for ``epochs``; return every training loss and each epoch's test loss."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    StepLR = torch.optim.lr_scheduler.StepLR

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
            self.batchnorm = nn.BatchNorm1d(64)
            self.dropout1 = nn.Dropout2d(0.25)
            self.dropout2 = nn.Dropout2d(0.5)
            self.fc1 = nn.Linear(64, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, input):
            # Shape of input is (batch_size,1, 28, 28)
            # converting shape of input to (batch_size, 28, 28)
            # as required by RNN when batch_first is set True
            input = input.reshape(-1, 28, 28)
            output, hidden = self.rnn(input)

            # RNN output shape is (seq_len, batch, input_size)
            # Get last output of RNN
            output = output[:, -1, :]
            output = self.batchnorm(output)
            output = self.dropout1(output)
            output = self.fc1(output)
            output = F.relu(output)
            output = self.dropout2(output)
            output = self.fc2(output)
            output = F.log_softmax(output, dim=1)
            return output

    results = []

    def train(model, device, train_loader, optimizer, epoch):
        model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            results.append(loss.item())
            log('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader) * batch_size,
                100. * batch_idx / len(train_loader), loss.item()))

    def test(model, device, test_loader):
        model.eval()
        test_loss = 0
        correct = 0
        with torch.no_grad():
            for data, target in test_loader:
                data, target = data.to(device), target.to(device)
                output = model(data)
                test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
                pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
                correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(test_loader) * batch_size
        results.append(test_loss)
        log('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
            test_loss, correct, len(test_loader) * batch_size,
            100. * correct / (len(test_loader) * batch_size)))

    device = torch.device("cpu")
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)

    def loader(batches):
        images = (rng.rand(batches, batch_size, 1, 28, 28) - 0.1307) / 0.3081
        labels = rng.randint(0, 10, (batches, batch_size))
        return [(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y))
                for x, y in zip(images, labels)]

    train_loader = loader(n_batches)
    test_loader = loader(test_batches)

    model = Net().to(device)
    if init is not None:
        init(model)
    optimizer = optim.Adadelta(model.parameters(), lr=lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=gamma)
    for epoch in range(1, epochs + 1):
        train(model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
