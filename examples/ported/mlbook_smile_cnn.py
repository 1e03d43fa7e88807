"""Port of rasbt/machine-learning-book ``ch14/ch14_part2.py`` (Chapter 14, Classifying
Images with Deep Convolutional Neural Networks, part 2): the CelebA smile classifier: an
``nn.Sequential`` built by ``add_module`` (four padded 3x3 ``Conv2d`` with ``ReLU``,
``MaxPool2d`` and ``Dropout``, global average pooling by ``AvgPool2d(8)``, ``Flatten``,
``Linear`` and ``Sigmoid``) on 64x64 images, its output shapes on ``torch.ones``,
``BCELoss`` and Adam, the training and validation loop under ``no_grad``, the test
accuracy, the predicted smile probabilities and ``torch.save`` of the model.

machine-learning-book is MIT-licensed, Copyright (c) 2021 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). CelebA through torchvision's
transforms (crop, flip, resize to 64x64) is synthetic images of that shape in [0, 1] and
random 0/1 smile attributes in ``TensorDataset``s of ``n_train``/``n_valid``/``n_test``
rows (the text's 16000/1000/19962: smaller in the tests), and the augmentation figures
are dropped. ``print`` is ``log``; the plots are dropped and what they show (the
histories, the last test batch's probabilities and labels) is returned; the text's
``range(10, 20)`` over the last test batch stops at that batch's size. The text's
``device = torch.device("cuda:0")`` is ``"cuda:0"`` where CUDA is available and ``"cpu"``
otherwise; ``torch.save(model, path)`` writes into ``save_dir`` (a temporary directory
by default). ``init`` is called with the model before it trains (the tests start
pyad's from torch's weights, with the dropout masks from one NumPy stream). pyad's
``save`` takes Variables and containers of them, not a whole module (a strict xfail in
the tests, which otherwise swap ``save`` for a save of the ``state_dict``).

Run it with ``python examples/ported/mlbook_smile_cnn.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, num_epochs=30, batch_size=32, n_train=16000, n_valid=1000, n_test=19962,
        shuffle=True, save_dir=None, seed=0, init=None, log=print):
    nn = torch.nn
    DataLoader = torch.utils.data.DataLoader
    init = init or (lambda model: None)
    rng = np.random.RandomState(seed)
    results = {}

    def celeba(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 3, 64, 64), dtype=torch.float32),
            torch.from_numpy(rng.randint(0, 2, n)))

    celeba_train_dataset = celeba(n_train)
    celeba_valid_dataset = celeba(n_valid)
    celeba_test_dataset = celeba(n_test)

    log('Train set:', len(celeba_train_dataset))
    log('Validation set:', len(celeba_valid_dataset))

    torch.manual_seed(1)
    train_dl = DataLoader(celeba_train_dataset, batch_size, shuffle=shuffle)
    valid_dl = DataLoader(celeba_valid_dataset, batch_size, shuffle=False)
    test_dl = DataLoader(celeba_test_dataset, batch_size, shuffle=False)

    # ### Training a CNN Smile classifier

    model = nn.Sequential()

    model.add_module('conv1', nn.Conv2d(in_channels=3, out_channels=32, kernel_size=3, padding=1))
    model.add_module('relu1', nn.ReLU())
    model.add_module('pool1', nn.MaxPool2d(kernel_size=2))
    model.add_module('dropout1', nn.Dropout(p=0.5))

    model.add_module('conv2', nn.Conv2d(in_channels=32, out_channels=64, kernel_size=3, padding=1))
    model.add_module('relu2', nn.ReLU())
    model.add_module('pool2', nn.MaxPool2d(kernel_size=2))
    model.add_module('dropout2', nn.Dropout(p=0.5))

    model.add_module('conv3', nn.Conv2d(in_channels=64, out_channels=128, kernel_size=3, padding=1))
    model.add_module('relu3', nn.ReLU())
    model.add_module('pool3', nn.MaxPool2d(kernel_size=2))

    model.add_module('conv4', nn.Conv2d(in_channels=128, out_channels=256, kernel_size=3, padding=1))
    model.add_module('relu4', nn.ReLU())

    shapes = []
    x = torch.ones((4, 3, 64, 64))
    shapes.append(list(model(x).shape))

    model.add_module('pool4', nn.AvgPool2d(kernel_size=8))
    model.add_module('flatten', nn.Flatten())

    x = torch.ones((4, 3, 64, 64))
    shapes.append(list(model(x).shape))

    model.add_module('fc', nn.Linear(256, 1))
    model.add_module('sigmoid', nn.Sigmoid())

    x = torch.ones((4, 3, 64, 64))
    shapes.append(list(model(x).shape))
    results['shapes'] = shapes
    init(model)

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = model.to(device)

    loss_fn = nn.BCELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

    def train(model, num_epochs, train_dl, valid_dl):
        loss_hist_train = [0] * num_epochs
        accuracy_hist_train = [0] * num_epochs
        loss_hist_valid = [0] * num_epochs
        accuracy_hist_valid = [0] * num_epochs
        for epoch in range(num_epochs):
            model.train()
            for x_batch, y_batch in train_dl:
                x_batch = x_batch.to(device)
                y_batch = y_batch.to(device)
                pred = model(x_batch)[:, 0]
                loss = loss_fn(pred, y_batch.float())
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                loss_hist_train[epoch] += loss.item()*y_batch.size(0)
                is_correct = ((pred>=0.5).float() == y_batch).float()
                accuracy_hist_train[epoch] += is_correct.sum().cpu()

            loss_hist_train[epoch] /= len(train_dl.dataset)
            accuracy_hist_train[epoch] /= len(train_dl.dataset)

            model.eval()
            with torch.no_grad():
                for x_batch, y_batch in valid_dl:
                    x_batch = x_batch.to(device)
                    y_batch = y_batch.to(device)
                    pred = model(x_batch)[:, 0]
                    loss = loss_fn(pred, y_batch.float())
                    loss_hist_valid[epoch] += loss.item()*y_batch.size(0)
                    is_correct = ((pred>=0.5).float() == y_batch).float()
                    accuracy_hist_valid[epoch] += is_correct.sum().cpu()

            loss_hist_valid[epoch] /= len(valid_dl.dataset)
            accuracy_hist_valid[epoch] /= len(valid_dl.dataset)

            log(f'Epoch {epoch+1} accuracy: {accuracy_hist_train[epoch]:.4f} val_accuracy: {accuracy_hist_valid[epoch]:.4f}')
        return loss_hist_train, loss_hist_valid, accuracy_hist_train, accuracy_hist_valid

    torch.manual_seed(1)
    hist = train(model, num_epochs, train_dl, valid_dl)
    results['hist'] = [[float(v) for v in h] for h in hist]

    accuracy_test = 0

    model.eval()
    with torch.no_grad():
        for x_batch, y_batch in test_dl:
            x_batch = x_batch.to(device)
            y_batch = y_batch.to(device)
            pred = model(x_batch)[:, 0]
            is_correct = ((pred>=0.5).float() == y_batch).float()
            accuracy_test += is_correct.sum().cpu()

    accuracy_test /= len(test_dl.dataset)

    log(f'Test accuracy: {accuracy_test:.4f}')
    results['accuracy_test'] = float(accuracy_test)

    pred = model(x_batch)[:, 0] * 100

    shown = []
    for j in range(10, min(20, len(x_batch))):
        if y_batch[j] == 1:
            label = 'Smile'
        else:
            label = 'Not Smile'
        shown.append(f'GT: {label:s}\nPr(Smile)={pred[j]:.0f}%')
    results['pred'] = pred.detach().numpy().tolist()
    results['shown'] = shown

    save_dir = save_dir or tempfile.mkdtemp()
    path = os.path.join(save_dir, 'celeba-cnn.ph')
    torch.save(model, path)
    results['saved'] = os.path.exists(path)
    return results, model


if __name__ == "__main__":
    import pyad as torch
    run(torch)
