"""Port of pytorch/examples ``super_resolution`` (model.py and main.py): the efficient
sub-pixel convolution network (four ``Conv2d`` layers and a ``PixelShuffle``, weights
from ``init.orthogonal_`` with ``init.calculate_gain('relu')``) trained with ``MSELoss``
and Adam, tested by the PSNR ``10 * log10(1 / mse)``.

Ported by changing the imports (``import pyad as torch``). BSDS300 is replaced by
synthetic luminance images: the targets are smooth random ``crop x crop`` images and the
inputs their ``upscale_factor``-times average-pooled versions (the original resizes
with PIL), batched by hand instead of through ``DataLoader``. Checkpointing is left out;
the defaults are the README's command (``--upscale_factor 3 --batchSize 4 --lr 0.001``).

Run it with ``python examples/ported/super_resolution.py``.
"""
from math import log10

import numpy as np


def build(torch):
    """model.py's ``Net`` for the namespace ``torch``."""
    nn = torch.nn
    init = torch.nn.init

    class Net(nn.Module):
        def __init__(self, upscale_factor):
            super(Net, self).__init__()

            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
            self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
            self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

            self._initialize_weights()

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.relu(self.conv2(x))
            x = self.relu(self.conv3(x))
            x = self.pixel_shuffle(self.conv4(x))
            return x

        def _initialize_weights(self):
            init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
            init.orthogonal_(self.conv4.weight)

    return Net


def synthetic_set(rng, n, crop, upscale_factor):
    """``n`` (input, target) pairs: smooth images in [0, 1] and their pooled versions."""
    coarse = rng.rand(n, 1, crop // 4, crop // 4)
    target = np.kron(coarse, np.ones((1, 1, 4, 4)))
    target = 0.7 * target + 0.3 * rng.rand(n, 1, crop, crop)
    small = crop // upscale_factor
    low = target.reshape(n, 1, small, upscale_factor, small, upscale_factor).mean((3, 5))
    return low.astype(np.float32), target.astype(np.float32)


def run(torch, upscale_factor=3, batch_size=4, n_batches=3, test_batches=2, crop=24,
        epochs=2, lr=0.001, seed=123, init=None, log=print):
    """Train for ``epochs``; return the training loss of every batch and each epoch's
    average PSNR on the test batches."""
    nn = torch.nn
    optim = torch.optim
    Net = build(torch)
    torch.manual_seed(seed)
    device = torch.device("cpu")
    rng = np.random.RandomState(seed)

    def loader(batches):
        x, y = synthetic_set(rng, batches * batch_size, crop, upscale_factor)
        return [(torch.from_numpy(x[i:i + batch_size]), torch.from_numpy(y[i:i + batch_size]))
                for i in range(0, len(x), batch_size)]

    training_data_loader = loader(n_batches)
    testing_data_loader = loader(test_batches)

    log('===> Building model')
    model = Net(upscale_factor=upscale_factor).to(device)
    if init is not None:
        init(model)
    criterion = nn.MSELoss()

    optimizer = optim.Adam(model.parameters(), lr=lr)
    results = []

    def train(epoch):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0].to(device), batch[1].to(device)

            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

            log("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(
                epoch, iteration, len(training_data_loader), loss.item()))

        log("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(
            epoch, epoch_loss / len(training_data_loader)))

    def test():
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0].to(device), batch[1].to(device)

                prediction = model(input)
                mse = criterion(prediction, target)
                psnr = 10 * log10(1 / mse.item())
                avg_psnr += psnr
        log("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))
        results.append(avg_psnr / len(testing_data_loader))

    for epoch in range(1, epochs + 1):
        train(epoch)
        test()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
