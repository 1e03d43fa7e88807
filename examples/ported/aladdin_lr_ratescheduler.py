"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_lr_ratescheduler.py``: a small feed-forward net on MNIST
with Adam and ``ReduceLROnPlateau`` stepped on each epoch's mean loss.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape and random labels in a ``TensorDataset``; ``print`` is
``log``; the epochs (100 in the text), batch size and set size are ``run``'s keyword
arguments (smaller in the tests). The text's ``ReduceLROnPlateau(..., verbose=True)``:
torch 2.13 has no ``verbose`` argument (a ``TypeError``), so the port leaves it out;
``verbose=True`` passes it (the test checks that both frameworks refuse it). The text's ``check_accuracy`` passes the unflattened images to the
``Linear`` model, which raises in torch (shapes 28x28 and 784x50): the port flattens
them, as the training loop does. Each step's
loss, each epoch's mean loss and learning rate, and the accuracy count are returned.

Run it with ``python examples/ported/aladdin_lr_ratescheduler.py``.
"""
import numpy as np


def run(torch, num_epochs=100, batch_size=128, n_train=256, shuffle=True, seed=0,
        verbose=False, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    # Set device
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyperparameters
    num_classes = 10
    learning_rate = 0.1

    # Define a very simple model
    model = nn.Sequential(nn.Linear(784, 50), nn.ReLU(), nn.Linear(50, 10)).to(device)
    if init is not None:
        init(model)

    # Load Data
    train_dataset = torch.utils.data.TensorDataset(
        torch.from_numpy(rng.rand(n_train, 1, 28, 28).astype(np.float32)),
        torch.from_numpy(rng.randint(0, num_classes, n_train)))
    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=shuffle)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    # Define Scheduler
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer,factor=0.1, patience=5,
                                                           **({"verbose": True} if verbose else {}))

    # Train Network
    for epoch in range(1, num_epochs):
        losses = []

        for batch_idx, (data, targets) in enumerate(train_loader):
            # Get data to cuda if possible
            data = data.reshape(data.shape[0], -1)
            data = data.to(device=device)
            targets = targets.to(device=device)

            # forward
            scores = model(data)
            loss = criterion(scores, targets)

            losses.append(loss.item())

            # backward
            loss.backward()

            # gradient descent or adam step
            # scheduler.step(loss)
            optimizer.step()
            optimizer.zero_grad()

        mean_loss = sum(losses)/len(losses)

        # After each epoch do scheduler.step, note in this scheduler we need to send
        # in loss for that epoch!
        scheduler.step(mean_loss)
        log(f'Cost at epoch {epoch} is {mean_loss}')
        results += losses + [mean_loss, optimizer.param_groups[0]["lr"]]

    # Check accuracy on training & test to see how good our model
    def check_accuracy(loader, model):
        num_correct = 0
        num_samples = 0
        model.eval()

        with torch.no_grad():
            for x, y in loader:
                x = x.to(device=device)
                y = y.to(device=device)

                scores = model(x.reshape(x.shape[0], -1))
                _, predictions = scores.max(1)
                num_correct += (predictions == y).sum()
                num_samples += predictions.size(0)

            log(f'Got {num_correct} / {num_samples} with accuracy {float(num_correct)/float(num_samples)*100:.2f}')
            results.extend([int(num_correct), num_samples])

        model.train()

    check_accuracy(train_loader, model)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, num_epochs=10)
