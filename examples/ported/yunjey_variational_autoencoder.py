"""Port of yunjey/pytorch-tutorial
``tutorials/03-advanced/variational_autoencoder/main.py``: a fully connected VAE
(``reparameterize`` with ``randn_like``), the reconstruction loss
``F.binary_cross_entropy(..., size_average=False)`` plus the KL divergence, Adam, and
each epoch's sampled and reconstructed images.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images in
[0, 1] in a ``TensorDataset``; ``save_image`` is left out (the images it would save are
returned); ``print`` is ``log``; the sizes are ``run``'s keyword arguments.

Run it with ``python examples/ported/yunjey_variational_autoencoder.py``.
"""
import numpy as np


def run(torch, h_dim=40, z_dim=4, num_epochs=2, batch_size=4, n_images=12,
        learning_rate=1e-3, shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    F = torch.nn.functional
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyper-parameters
    image_size = 784

    # MNIST dataset
    dataset = torch.utils.data.TensorDataset(
        torch.from_numpy(rng.rand(n_images, 1, 28, 28).astype(np.float32)),
        torch.from_numpy(rng.randint(0, 10, n_images)))

    # Data loader
    data_loader = torch.utils.data.DataLoader(dataset=dataset,
                                              batch_size=batch_size,
                                              shuffle=shuffle)

    # VAE model
    class VAE(nn.Module):
        def __init__(self, image_size=784, h_dim=400, z_dim=20):
            super(VAE, self).__init__()
            self.fc1 = nn.Linear(image_size, h_dim)
            self.fc2 = nn.Linear(h_dim, z_dim)
            self.fc3 = nn.Linear(h_dim, z_dim)
            self.fc4 = nn.Linear(z_dim, h_dim)
            self.fc5 = nn.Linear(h_dim, image_size)

        def encode(self, x):
            h = F.relu(self.fc1(x))
            return self.fc2(h), self.fc3(h)

        def reparameterize(self, mu, log_var):
            std = torch.exp(log_var/2)
            eps = torch.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            h = F.relu(self.fc4(z))
            return F.sigmoid(self.fc5(h))

        def forward(self, x):
            mu, log_var = self.encode(x)
            z = self.reparameterize(mu, log_var)
            x_reconst = self.decode(z)
            return x_reconst, mu, log_var

    model = VAE(image_size, h_dim, z_dim).to(device)
    if init is not None:
        init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # Start training
    for epoch in range(num_epochs):
        for i, (x, _) in enumerate(data_loader):
            # Forward pass
            x = x.to(device).view(-1, image_size)
            x_reconst, mu, log_var = model(x)

            # Compute reconstruction loss and kl divergence
            # For KL divergence, see Appendix B in VAE paper or http://yunjey47.tistory.com/43
            reconst_loss = F.binary_cross_entropy(x_reconst, x, size_average=False)
            kl_div = - 0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())

            # Backprop and optimize
            loss = reconst_loss + kl_div
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.extend([reconst_loss.item(), kl_div.item()])

            if (i+1) % 10 == 0:
                log("Epoch[{}/{}], Step [{}/{}], Reconst Loss: {:.4f}, KL Div: {:.4f}"
                    .format(epoch+1, num_epochs, i+1, len(data_loader), reconst_loss.item(), kl_div.item()))

        with torch.no_grad():
            # Save the sampled images
            z = torch.randn(batch_size, z_dim).to(device)
            out = model.decode(z).view(-1, 1, 28, 28)
            results.extend(out.reshape(-1)[:50].tolist())

            # Save the reconstructed images
            out, _, _ = model(x)
            x_concat = torch.cat([x.view(-1, 1, 28, 28), out.view(-1, 1, 28, 28)], dim=3)
            results.extend(x_concat[:, :, :, 20:36].reshape(-1)[:50].tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
