"""Port of pytorch/examples ``mnist_forward_forward``: Hinton's forward-forward training.
Each ``Layer`` (an ``nn.Linear`` subclass with its own Adam optimiser, its own
``train(x_pos, x_neg)`` overriding ``Module.train``) learns to give a high "goodness"
(mean squared activation) to positive data (an image with its label written into its
first pixels) and a low one to negative data (a wrong label drawn by ``torch.randint``),
through the loss ``log1p(exp(cat([-g_pos + threshold, g_neg - threshold]))).mean()``.

Ported by changing the imports (``import pyad as torch``). MNIST is replaced by one
synthetic batch of normalised, flattened 28x28 images with random labels; the layer
sizes and epochs are shrunk. The original's module-level ``args`` and ``device`` are
locals of ``run``. Needs ``pyad.xpu`` (for the device choice).

Run it with ``python examples/ported/mnist_forward_forward.py``.
"""
import types

import numpy as np


def run(torch, train_size=32, test_size=16, dims=(784, 64, 64), epochs=5, lr=0.03,
        threshold=2.0, seed=1, init=None, log=print):
    """Train every layer for ``epochs``; return every layer's loss at every epoch, then
    the train and test errors."""
    nn = torch.nn
    Adam = torch.optim.Adam
    args = types.SimpleNamespace(epochs=epochs, lr=lr, threshold=threshold, log_interval=1)
    torch.manual_seed(seed)
    use_cuda = torch.cuda.is_available()
    use_xpu = torch.xpu.is_available()
    use_mps = torch.backends.mps.is_available()
    if use_cuda:
        device = torch.device("cuda")
    elif use_xpu:
        device = torch.device("xpu")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    rng = np.random.RandomState(seed)
    losses = []

    def get_y_neg(y):
        y_neg = y.clone()
        for idx, y_samp in enumerate(y):
            allowed_indices = list(range(10))
            allowed_indices.remove(y_samp.item())
            y_neg[idx] = torch.tensor(allowed_indices)[
                torch.randint(len(allowed_indices), size=(1,))
            ].item()
        return y_neg.to(device)

    def overlay_y_on_x(x, y, classes=10):
        x_ = x.clone()
        x_[:, :classes] *= 0.0
        x_[range(x.shape[0]), y] = x.max()
        return x_

    class Net(torch.nn.Module):
        def __init__(self, dims):

            super().__init__()
            self.layers = []
            for d in range(len(dims) - 1):
                self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

        def predict(self, x):
            goodness_per_label = []
            for label in range(10):
                h = overlay_y_on_x(x, label)
                goodness = []
                for layer in self.layers:
                    h = layer(h)
                    goodness = goodness + [h.pow(2).mean(1)]
                goodness_per_label += [sum(goodness).unsqueeze(1)]
            goodness_per_label = torch.cat(goodness_per_label, 1)
            return goodness_per_label.argmax(1)

        def train(self, x_pos, x_neg):
            h_pos, h_neg = x_pos, x_neg
            for i, layer in enumerate(self.layers):
                log("training layer: ", i)
                h_pos, h_neg = layer.train(h_pos, h_neg)

    class Layer(nn.Linear):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__(in_features, out_features, bias, device, dtype)
            self.relu = torch.nn.ReLU()
            self.opt = Adam(self.parameters(), lr=args.lr)
            self.threshold = args.threshold
            self.num_epochs = args.epochs

        def forward(self, x):
            x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
            return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

        def train(self, x_pos, x_neg):
            for i in range(self.num_epochs):
                g_pos = self.forward(x_pos).pow(2).mean(1)
                g_neg = self.forward(x_neg).pow(2).mean(1)
                loss = torch.log1p(
                    torch.exp(
                        torch.cat([-g_pos + self.threshold, g_neg - self.threshold])
                    )
                ).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                losses.append(loss.item())
                if i % args.log_interval == 0:
                    log("Loss: ", loss.item())
            return self.forward(x_pos).detach(), self.forward(x_neg).detach()

    def batch(n):
        x = ((rng.rand(n, 784) - 0.1307) / 0.3081).astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(rng.randint(0, 10, n))

    net = Net(list(dims))
    if init is not None:
        # the layers are in a plain list (not registered): hand them over in one module
        init(nn.ModuleList(net.layers))
    x, y = batch(train_size)
    x, y = x.to(device), y.to(device)
    x_pos = overlay_y_on_x(x, y)
    y_neg = get_y_neg(y)
    x_neg = overlay_y_on_x(x, y_neg)
    net.train(x_pos, x_neg)
    train_error = 1.0 - net.predict(x).eq(y).float().mean().item()
    log("train error:", train_error)
    x_te, y_te = batch(test_size)
    x_te, y_te = x_te.to(device), y_te.to(device)
    test_error = 1.0 - net.predict(x_te).eq(y_te).float().mean().item()
    log("test error:", test_error)
    return losses + [train_error, test_error]


if __name__ == "__main__":
    import pyad as torch
    run(torch)
