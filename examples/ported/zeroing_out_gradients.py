"""Port of the PyTorch recipe "Zeroing out gradients in PyTorch" (pytorch/tutorials
``recipes_source/recipes/zeroing_out_gradients.py``): the CIFAR-10 ``Net``,
``CrossEntropyLoss``, ``SGD`` with momentum, and the training loop that calls
``optimizer.zero_grad()`` before each batch.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is replaced by
synthetic normalised 3x32x32 images and random labels (NumPy, from ``seed``), fed
through ``torch.utils.data.TensorDataset`` and the text's ``DataLoader`` calls
(``shuffle`` is a keyword argument: the tests give both frameworks the same batches
with ``shuffle=False``); torchvision is left out; the statistics are printed every
``print_every`` mini-batches instead of 2000, over ``epochs`` epochs. The text's closing
remark (``model.zero_grad()`` does the same as ``optimizer.zero_grad()`` when the
optimizer holds every parameter) is ``zero_grad="model"``; ``zero_grad=None`` leaves the
gradients to accumulate (what the recipe warns about). ``init`` sees the model.

Run it with ``python examples/ported/zeroing_out_gradients.py``.
"""
import numpy as np


def run(torch, n_train=24, epochs=2, print_every=3, shuffle=True, zero_grad="optimizer",
        seed=0, init=None, log=print):
    """Return every training loss and each printed running loss."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    rng = np.random.RandomState(seed)
    results = []

    images = (rng.rand(n_train, 3, 32, 32).astype(np.float32) - 0.5) / 0.5
    targets = rng.randint(0, 10, n_train)
    trainset = torch.utils.data.TensorDataset(torch.from_numpy(images),
                                              torch.from_numpy(targets))
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=4,
                                              shuffle=shuffle, num_workers=2)

    classes = ('plane', 'car', 'bird', 'cat',
               'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.flatten(start_dim=1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    net = Net()
    if init is not None:
        init(net)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    for epoch in range(epochs):  # loop over the dataset multiple times

        running_loss = 0.0
        for i, data in enumerate(trainloader, 0):
            # get the inputs; data is a list of [inputs, labels]
            inputs, labels = data

            # zero the parameter gradients
            if zero_grad == "optimizer":
                optimizer.zero_grad()
            elif zero_grad == "model":
                net.zero_grad()

            # forward + backward + optimize
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            # print statistics
            running_loss += loss.item()
            results.append(loss.item())
            if i % print_every == print_every - 1:    # print every print_every mini-batches
                log('[%d, %5d] loss: %.3f' %
                    (epoch + 1, i + 1, running_loss / print_every))
                results.append(running_loss / print_every)
                running_loss = 0.0

    log('Finished Training')
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
