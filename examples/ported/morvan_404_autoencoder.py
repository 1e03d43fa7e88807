"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/404_autoencoder.py``: a
``Tanh`` autoencoder compressing MNIST to 3 features (``Sigmoid`` output), Adam and
``MSELoss``, the decoded view images every ``show_every`` steps and the encoded
features of the first images.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``Variable =
torch.autograd.Variable``, ``Data = torch.utils.data``). MNIST is synthetic uint8
images and random labels (``train_data.train_data``/``train_labels`` are those
tensors); ``loss.data[0]`` is ``loss.item()``; ``.data.numpy()`` and
``encoded_data.data[:, 0].numpy()`` are ``.detach().numpy()`` and
``encoded_data.detach()[:, 0].numpy()`` (pyad's ``.data`` is the NumPy array itself);
the plots are left out (what they show is returned); the sizes are ``run``'s keyword
arguments (100 steps between views in the original).

Run it with ``python examples/ported/morvan_404_autoencoder.py``.
"""
import numpy as np


def run(torch, EPOCH=2, BATCH_SIZE=4, LR=0.005, n_train=12, N_TEST_IMG=5, show_every=2,
        shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    Data = torch.utils.data
    rng = np.random.RandomState(seed)
    results = []

    torch.manual_seed(1)    # reproducible

    # Mnist digits dataset (synthetic uint8 images; ToTensor's scaling)
    train_data_train_data = torch.from_numpy(rng.randint(0, 256, (n_train, 28, 28)).astype(np.uint8))
    train_data_train_labels = torch.from_numpy(rng.randint(0, 10, n_train))
    train_data = Data.TensorDataset(train_data_train_data.unsqueeze(1).type(torch.FloatTensor) / 255.,
                                    train_data_train_labels)

    # plot one example
    log(train_data_train_data.size())     # (60000, 28, 28)
    log(train_data_train_labels.size())   # (60000)

    # Data Loader for easy mini-batch return in training, the image batch shape will be (50, 1, 28, 28)
    train_loader = Data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=shuffle)

    class AutoEncoder(nn.Module):
        def __init__(self):
            super(AutoEncoder, self).__init__()

            self.encoder = nn.Sequential(
                nn.Linear(28*28, 128),
                nn.Tanh(),
                nn.Linear(128, 64),
                nn.Tanh(),
                nn.Linear(64, 12),
                nn.Tanh(),
                nn.Linear(12, 3),   # compress to 3 features which can be visualized in plt
            )
            self.decoder = nn.Sequential(
                nn.Linear(3, 12),
                nn.Tanh(),
                nn.Linear(12, 64),
                nn.Tanh(),
                nn.Linear(64, 128),
                nn.Tanh(),
                nn.Linear(128, 28*28),
                nn.Sigmoid(),       # compress to a range (0, 1)
            )

        def forward(self, x):
            encoded = self.encoder(x)
            decoded = self.decoder(encoded)
            return encoded, decoded

    autoencoder = AutoEncoder()
    if init is not None:
        init(autoencoder)

    optimizer = torch.optim.Adam(autoencoder.parameters(), lr=LR)
    loss_func = nn.MSELoss()

    # original data (first row) for viewing
    view_data = Variable(train_data_train_data[:N_TEST_IMG].view(-1, 28*28).type(torch.FloatTensor)/255.)

    for epoch in range(EPOCH):
        for step, (x, y) in enumerate(train_loader):
            b_x = Variable(x.view(-1, 28*28))   # batch x, shape (batch, 28*28)
            b_y = Variable(x.view(-1, 28*28))   # batch y, shape (batch, 28*28)
            b_label = Variable(y)               # batch label

            encoded, decoded = autoencoder(b_x)

            loss = loss_func(decoded, b_y)      # mean square error
            optimizer.zero_grad()               # clear gradients for this training step
            loss.backward()                     # backpropagation, compute gradients
            optimizer.step()                    # apply gradients
            results.append(loss.item())

            if step % show_every == 0:
                log('Epoch: ', epoch, '| train loss: %.4f' % loss.item())

                # plotting decoded image (second row)
                _, decoded_data = autoencoder(view_data)
                for i in range(N_TEST_IMG):
                    results.extend(np.reshape(decoded_data.detach().numpy()[i], (28, 28))[14, ::4].tolist())

    # visualize in 3D plot
    view_data = Variable(train_data_train_data[:200].view(-1, 28*28).type(torch.FloatTensor)/255.)
    encoded_data, _ = autoencoder(view_data)
    X = encoded_data.detach()[:, 0].numpy()
    Y = encoded_data.detach()[:, 1].numpy()
    Z = encoded_data.detach()[:, 2].numpy()
    results.extend(X.tolist() + Y.tolist() + Z.tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
