"""Port of pytorch/examples ``vae``: a variational auto-encoder on 28x28 images
(fully connected encoder 784-400-(20, 20) and decoder 20-400-784, Adam).

Ported by changing the imports (``import pyad as torch``). MNIST is replaced by synthetic
images of the same shape with values in [0, 1], batched by hand instead of through
``DataLoader``.

Run it with ``python examples/ported/vae.py``.
"""
import numpy as np


def run(torch, batch_size=16, n_batches=4, epochs=2, lr=1e-3, seed=1, init=None, log=print):
    """Train for ``epochs`` over ``n_batches`` synthetic batches; return every loss."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)
    images = rng.rand(n_batches, batch_size, 1, 28, 28).astype(np.float32)
    train_loader = [(torch.from_numpy(b), None) for b in images]

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 400)
            self.fc21 = nn.Linear(400, 20)
            self.fc22 = nn.Linear(400, 20)
            self.fc3 = nn.Linear(20, 400)
            self.fc4 = nn.Linear(400, 784)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 784))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    model = VAE()
    if init is not None:
        init(model)
    optimizer = optim.Adam(model.parameters(), lr=lr)

    # Reconstruction + KL divergence losses summed over all elements and batch
    def loss_function(recon_x, x, mu, logvar):
        BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
        KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return BCE + KLD

    losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        train_loss = 0
        for batch_idx, (data, _) in enumerate(train_loader):
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
            losses.append(loss.item() / len(data))
            log("Train Epoch: %d [%d/%d]\tLoss: %.6f" % (epoch, batch_idx * len(data),
                                                        n_batches * batch_size,
                                                        loss.item() / len(data)))
        log("====> Epoch: %d Average loss: %.4f" % (epoch,
                                                    train_loss / (n_batches * batch_size)))
        model.eval()
        with torch.no_grad():
            sample = torch.randn(8, 20)
            sample = model.decode(sample)
            log("sampled %s images" % (tuple(sample.shape),))
    return losses


if __name__ == "__main__":
    import pyad as torch
    losses = run(torch)
    print("first loss %.4f, last loss %.4f" % (losses[0], losses[-1]))
