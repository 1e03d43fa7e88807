"""Port of pytorch/tutorials ``beginner_source/blitz/cifar10_tutorial.py`` ("Training a
Classifier"): the small CNN (two ``Conv2d`` + ``MaxPool2d``, three ``Linear``),
``CrossEntropyLoss`` and ``SGD`` with momentum, then the overall and per-class accuracy
on the test set.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is replaced by
synthetic normalised 3x32x32 images and random labels, fed through
``torch.utils.data.TensorDataset`` and ``DataLoader(batch_size=4)`` (not shuffled, so
that both frameworks see the same batches); torchvision, the image display and the
checkpoint are left out; the loops take a few steps and the statistics are printed
every ``print_every`` mini-batches instead of 2000. The per-class accuracy skips a class
that the small synthetic test set does not hold (the original divides by its count).

Run it with ``python examples/ported/cifar10_tutorial.py``.
"""
import numpy as np


def run(torch, n_train=24, n_test=12, epochs=2, print_every=3, seed=0, init=None,
        log=print):
    """Train for ``epochs``; return every training loss, then the test accuracy and the
    per-class correct counts."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim

    batch_size = 4
    rng = np.random.RandomState(seed)

    def dataset(n):
        images = (rng.rand(n, 3, 32, 32).astype(np.float32) - 0.5) / 0.5
        labels = rng.randint(0, 10, n)
        return torch.utils.data.TensorDataset(torch.from_numpy(images),
                                              torch.from_numpy(labels))

    trainset = dataset(n_train)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=batch_size,
                                              shuffle=False, num_workers=0)
    testset = dataset(n_test)
    testloader = torch.utils.data.DataLoader(testset, batch_size=batch_size,
                                             shuffle=False, num_workers=0)

    classes = ('plane', 'car', 'bird', 'cat',
               'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = torch.flatten(x, 1)  # flatten all dimensions except batch
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    net = Net()
    if init is not None:
        init(net)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    results = []
    for epoch in range(epochs):  # loop over the dataset multiple times

        running_loss = 0.0
        for i, data in enumerate(trainloader, 0):
            # get the inputs; data is a list of [inputs, labels]
            inputs, labels = data

            # zero the parameter gradients
            optimizer.zero_grad()

            # forward + backward + optimize
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            # print statistics
            running_loss += loss.item()
            results.append(loss.item())
            if i % print_every == print_every - 1:    # print every few mini-batches
                log(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / print_every:.3f}')
                running_loss = 0.0

    log('Finished Training')

    correct = 0
    total = 0
    # since we're not training, we don't need to calculate the gradients for our outputs
    with torch.no_grad():
        for data in testloader:
            images, labels = data
            # calculate outputs by running images through the network
            outputs = net(images)
            # the class with the highest energy is what we choose as prediction
            _, predicted = torch.max(outputs, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    log(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
    results.append(100 * correct / total)

    # prepare to count predictions for each class
    correct_pred = {classname: 0 for classname in classes}
    total_pred = {classname: 0 for classname in classes}

    # again no gradients needed
    with torch.no_grad():
        for data in testloader:
            images, labels = data
            outputs = net(images)
            _, predictions = torch.max(outputs, 1)
            # collect the correct predictions for each class
            for label, prediction in zip(labels, predictions):
                if label == prediction:
                    correct_pred[classes[label]] += 1
                total_pred[classes[label]] += 1

    # print accuracy for each class
    for classname, correct_count in correct_pred.items():
        if total_pred[classname]:
            accuracy = 100 * float(correct_count) / total_pred[classname]
            log(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
    results.extend(correct_pred[c] for c in classes)
    results.extend(total_pred[c] for c in classes)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
