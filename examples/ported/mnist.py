"""Port of pytorch/examples ``mnist``: a two-convolution network with dropout trained by
Adadelta with a StepLR schedule.

Ported by changing the imports (``import pyad as torch``). MNIST is replaced by synthetic
normalised 28x28 images and random labels, batched by hand instead of through
``DataLoader``. Needs ``pyad.optim.Adadelta`` and ``pyad.optim.lr_scheduler.StepLR``
(and ``pyad.cuda`` / ``pyad.backends.mps`` for the device choice).

Run it with ``python examples/ported/mnist.py``.
"""
import numpy as np


def run(torch, batch_size=8, n_batches=3, epochs=2, lr=1.0, gamma=0.7, seed=1, init=None,
        log=print):
    """Train for ``epochs`` over ``n_batches`` synthetic batches; return every loss."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    from_lib = torch.optim.lr_scheduler
    StepLR = from_lib.StepLR

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    use_cuda = torch.cuda.is_available()
    use_mps = torch.backends.mps.is_available()
    torch.manual_seed(seed)
    if use_cuda:
        device = torch.device("cuda")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    rng = np.random.RandomState(seed)
    images = ((rng.rand(n_batches, batch_size, 1, 28, 28) - 0.1307) / 0.3081)
    labels = rng.randint(0, 10, (n_batches, batch_size))
    train_loader = [(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y))
                    for x, y in zip(images, labels)]

    model = Net().to(device)
    if init is not None:
        init(model)
    optimizer = optim.Adadelta(model.parameters(), lr=lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=gamma)
    losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            log("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), n_batches * batch_size, loss.item()))
        model.eval()
        correct = 0
        with torch.no_grad():
            for data, target in train_loader:
                output = model(data)
                pred = output.argmax(dim=1, keepdim=True)
                correct += pred.eq(target.view_as(pred)).sum().item()
        log("accuracy on the training batches: {}/{}".format(correct,
                                                           n_batches * batch_size))
        scheduler.step()
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch)
