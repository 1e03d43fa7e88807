"""Port of pytorch/tutorials ``intermediate_source/spatial_transformer_tutorial.py``
("Spatial Transformer Networks Tutorial"): a localisation network regresses a 2x3
affine matrix (its last ``Linear`` initialised to the identity transformation),
``F.affine_grid`` and ``F.grid_sample`` resample the input, and a small classifier
with ``Dropout2d`` and ``F.dropout`` follows; SGD, ``nll_loss``, a test pass with the
summed loss and the accuracy, and the ``stn`` of a test batch.

Ported by changing the imports (``import pyad as torch``). MNIST is replaced by
synthetic normalised 28x28 images and random labels batched by hand instead of through
``DataLoader``; the epochs are few; ``convert_image_np``, ``torchvision.utils.make_grid``
and the plots are left out (``visualize_stn`` returns the transformed batch). The
original's identity initialisation writes through ``.data`` (``weight.data.zero_()``,
``bias.data.copy_(...)``, the tutorial's current text): in pyad ``.data`` is the NumPy
array, so the default writes the same two calls under ``with torch.no_grad():``;
``data_init=True`` runs the original lines. ``F.nll_loss(..., size_average=False)`` of
the test is kept (torch's legacy keyword for ``reduction='sum'``).

Run it with ``python examples/ported/spatial_transformer.py``.
"""
import numpy as np


def run(torch, batch_size=8, n_train=3, n_test=2, epochs=2, lr=0.01, seed=0,
        data_init=False, init=None, log=print):
    """Train for ``epochs``; return every training loss, each test pass's summed loss
    and accuracy, and the ``stn`` of a test batch (flattened)."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim

    rng = np.random.RandomState(seed)

    def loader(n):
        images = (rng.rand(n, batch_size, 1, 28, 28) - 0.1307) / 0.3081
        labels = rng.randint(0, 10, (n, batch_size))
        return [(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y))
                for x, y in zip(images, labels)]

    train_loader = loader(n_train)
    test_loader = loader(n_test)
    n_train_rows, n_test_rows = n_train * batch_size, n_test * batch_size

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)

            # Spatial transformer localization-network
            self.localization = nn.Sequential(
                nn.Conv2d(1, 8, kernel_size=7),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
                nn.Conv2d(8, 10, kernel_size=5),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True)
            )

            # Regressor for the 3 * 2 affine matrix
            self.fc_loc = nn.Sequential(
                nn.Linear(10 * 3 * 3, 32),
                nn.ReLU(True),
                nn.Linear(32, 3 * 2)
            )

            # Initialize the weights/bias with identity transformation
            if data_init:
                self.fc_loc[2].weight.data.zero_()
                self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0],
                                                            dtype=torch.float))
            else:
                with torch.no_grad():
                    self.fc_loc[2].weight.zero_()
                    self.fc_loc[2].bias.copy_(torch.tensor([1, 0, 0, 0, 1, 0],
                                                           dtype=torch.float))

        # Spatial transformer network forward function
        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 10 * 3 * 3)
            theta = self.fc_loc(xs)
            theta = theta.view(-1, 2, 3)

            grid = F.affine_grid(theta, x.size())
            x = F.grid_sample(x, grid)

            return x

        def forward(self, x):
            # transform the input
            x = self.stn(x)

            # Perform the usual forward pass
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    model = Net().to(device)
    if init is not None:
        init(model)

    optimizer = optim.SGD(model.parameters(), lr=lr)
    results = []

    def train(epoch):
        model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)

            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            results.append(loss.item())
            if batch_idx % 500 == 0:
                log('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                    epoch, batch_idx * len(data), n_train_rows,
                    100. * batch_idx / len(train_loader), loss.item()))

    def test():
        with torch.no_grad():
            model.eval()
            test_loss = 0
            correct = 0
            for data, target in test_loader:
                data, target = data.to(device), target.to(device)
                output = model(data)

                # sum up batch loss
                test_loss += F.nll_loss(output, target, size_average=False).item()
                # get the index of the max log-probability
                pred = output.max(1, keepdim=True)[1]
                correct += pred.eq(target.view_as(pred)).sum().item()

            test_loss /= n_test_rows
            log('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'
                .format(test_loss, correct, n_test_rows,
                        100. * correct / n_test_rows))
            results.extend([test_loss, correct])

    def visualize_stn():
        with torch.no_grad():
            # Get a batch of training data
            data = next(iter(test_loader))[0].to(device)

            input_tensor = data.cpu()
            transformed_input_tensor = model.stn(data).cpu()
            return input_tensor, transformed_input_tensor

    for epoch in range(1, epochs + 1):
        train(epoch)
        test()

    # Visualize the STN transformation on some input batch
    _, transformed = visualize_stn()
    results.extend(transformed.numpy().ravel().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
