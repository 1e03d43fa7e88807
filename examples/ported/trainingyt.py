"""Port of the PyTorch tutorial "Training with PyTorch" (pytorch/tutorials
``beginner_source/introyt/trainingyt.py``): ``Dataset``/``DataLoader``, the
``GarmentClassifier`` (a LeNet-5 variant), ``CrossEntropyLoss`` of dummy outputs, ``SGD``
with momentum, ``train_one_epoch`` and the per-epoch validation with the best model's
``state_dict`` saved, then loaded into a fresh ``GarmentClassifier`` (the text's closing
snippet).

Ported by changing the imports (``import pyad as torch``). Fashion-MNIST is replaced by
synthetic normalised 1x28x28 images and random labels (NumPy, from ``seed``), fed through
``torch.utils.data.TensorDataset`` and the text's ``DataLoader`` calls (``shuffle`` is a
keyword argument: the tests give both frameworks the same batches with
``shuffle=False``); torchvision, the image grid display and TensorBoard (the
``SummaryWriter`` and its ``add_scalar(s)``) are left out; ``dataiter.next()`` is
``next(dataiter)`` (iterators of torch 2's ``DataLoader`` have no ``next`` method); the
loss is reported every ``report_every`` batches instead of 1000, over ``epochs``
epochs instead of 5; the models are saved in a temporary directory. ``init`` sees the
model (the tests load torch's initial weights).

Run it with ``python examples/ported/trainingyt.py``.
"""
import os
import tempfile
from datetime import datetime

import numpy as np


def run(torch, n_train=48, n_valid=16, epochs=2, report_every=4, shuffle=True, seed=0,
        init=None, log=print):
    """Return every training loss, the dummy batch's loss, each epoch's (average train
    loss, average validation loss) and the reloaded best model's validation loss."""
    nn = torch.nn
    F = torch.nn.functional
    results = []
    rng = np.random.RandomState(seed)

    def fashion_mnist(n):
        images = (rng.rand(n, 1, 28, 28).astype(np.float32) - 0.5) / 0.5
        labels = rng.randint(0, 10, n)
        return torch.utils.data.TensorDataset(torch.from_numpy(images),
                                              torch.from_numpy(labels))

    # Create datasets for training & validation
    training_set = fashion_mnist(n_train)
    validation_set = fashion_mnist(n_valid)

    # Create data loaders for our datasets; shuffle for training, not for validation
    training_loader = torch.utils.data.DataLoader(training_set, batch_size=4, shuffle=shuffle, num_workers=2)
    validation_loader = torch.utils.data.DataLoader(validation_set, batch_size=4, shuffle=False, num_workers=2)

    # Class labels
    classes = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
            'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle Boot')

    # Report split sizes
    log('Training set has {} instances'.format(len(training_set)))
    log('Validation set has {} instances'.format(len(validation_set)))

    dataiter = iter(training_loader)
    images, labels = next(dataiter)
    log('  '.join(classes[labels[j]] for j in range(4)))

    # PyTorch models inherit from torch.nn.Module
    class GarmentClassifier(nn.Module):
        def __init__(self):
            super(GarmentClassifier, self).__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 4 * 4, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 4 * 4)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    model = GarmentClassifier()
    if init is not None:
        init(model)

    loss_fn = torch.nn.CrossEntropyLoss()

    # NB: Loss functions expect data in batches, so we're creating batches of 4
    # Represents the model's confidence in each of the 10 classes for a given input
    dummy_outputs = torch.rand(4, 10)
    # Represents the correct class among the 10 being tested
    dummy_labels = torch.tensor([1, 5, 3, 7])

    log(dummy_outputs)
    log(dummy_labels)

    loss = loss_fn(dummy_outputs, dummy_labels)
    log('Total loss for this batch: {}'.format(loss.item()))
    results.append(loss.item())

    # Optimizers specified in the torch.optim package
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

    def train_one_epoch(epoch_index):
        running_loss = 0.
        last_loss = 0.

        # Here, we use enumerate(training_loader) instead of
        # iter(training_loader) so that we can track the batch
        # index and do some intra-epoch reporting
        for i, data in enumerate(training_loader):
            # Every data instance is an input + label pair
            inputs, labels = data

            # Zero your gradients for every batch!
            optimizer.zero_grad()

            # Make predictions for this batch
            outputs = model(inputs)

            # Compute the loss and its gradients
            loss = loss_fn(outputs, labels)
            loss.backward()

            # Adjust learning weights
            optimizer.step()

            # Gather data and report
            running_loss += loss.item()
            results.append(loss.item())
            if i % report_every == report_every - 1:
                last_loss = running_loss / report_every # loss per batch
                log('  batch {} loss: {}'.format(i + 1, last_loss))
                running_loss = 0.

        return last_loss

    with tempfile.TemporaryDirectory() as directory:
        # Initializing in a separate cell so we can easily add more epochs to the same run
        timestamp = datetime.now().strftime('%Y%m%d_%H%M%S')
        epoch_number = 0

        EPOCHS = epochs

        best_vloss = 1_000_000.

        for epoch in range(EPOCHS):
            log('EPOCH {}:'.format(epoch_number + 1))

            # Make sure gradient tracking is on, and do a pass over the data
            model.train(True)
            avg_loss = train_one_epoch(epoch_number)

            # We don't need gradients on to do reporting
            model.train(False)

            running_vloss = 0.0
            for i, vdata in enumerate(validation_loader):
                vinputs, vlabels = vdata
                voutputs = model(vinputs)
                vloss = loss_fn(voutputs, vlabels)
                running_vloss += vloss

            avg_vloss = running_vloss / (i + 1)
            log('LOSS train {} valid {}'.format(avg_loss, avg_vloss))
            results += [avg_loss, avg_vloss.item()]

            # Track best performance, and save the model's state
            if avg_vloss < best_vloss:
                best_vloss = avg_vloss
                model_path = os.path.join(directory,
                                          'model_{}_{}'.format(timestamp, epoch_number))
                torch.save(model.state_dict(), model_path)

            epoch_number += 1

        PATH = model_path
        saved_model = GarmentClassifier()
        saved_model.load_state_dict(torch.load(PATH))

    saved_model.train(False)
    vinputs, vlabels = next(iter(validation_loader))
    results.append(loss_fn(saved_model(vinputs), vlabels).item())
    log('reloaded model, first validation batch loss {}'.format(results[-1]))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
