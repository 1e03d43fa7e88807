"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/GANs/1. SimpleGAN/fc_gan.py``: a fully connected GAN on MNIST (``BCELoss``,
two Adams, the discriminator's loss ``backward(retain_graph=True)`` before the
generator's loss goes back through the same fake images).

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images in
[-1, 1] (the text's ``Normalize((0.5,), (0.5,))`` of ``ToTensor``'s [0, 1]);
TensorBoard's ``SummaryWriter`` and ``make_grid`` are left out (the fixed-noise images
are returned); ``print`` is ``log``; the epochs, batch size and set size are ``run``'s
keyword arguments (fewer in the tests), the layers and ``z_dim`` as written. Every
step's two losses are returned.

Run it with ``python examples/ported/aladdin_fc_gan.py``.
"""
import numpy as np


def run(torch, num_epochs=50, batch_size=32, n=256, shuffle=True, seed=0, init=None,
        log=print):
    nn = torch.nn
    optim = torch.optim
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    class Discriminator(nn.Module):
        def __init__(self, in_features):
            super().__init__()
            self.disc = nn.Sequential(
                nn.Linear(in_features, 128),
                nn.LeakyReLU(0.01),
                nn.Linear(128, 1),
                nn.Sigmoid(),
            )

        def forward(self, x):
            return self.disc(x)

    class Generator(nn.Module):
        def __init__(self, z_dim, img_dim):
            super().__init__()
            self.gen = nn.Sequential(
                nn.Linear(z_dim, 256),
                nn.LeakyReLU(0.01),
                nn.Linear(256, img_dim),
                nn.Tanh(),  # normalize inputs to [-1, 1] so make outputs [-1, 1]
            )

        def forward(self, x):
            return self.gen(x)

    # Hyperparameters etc.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    lr = 3e-4
    z_dim = 64
    image_dim = 28 * 28 * 1  # 784

    disc = Discriminator(image_dim).to(device)
    gen = Generator(z_dim, image_dim).to(device)
    if init is not None:
        init(disc)
        init(gen)
    fixed_noise = torch.randn((batch_size, z_dim)).to(device)

    dataset = torch.utils.data.TensorDataset(
        torch.tensor(rng.uniform(-1, 1, (n, 1, 28, 28)), dtype=torch.float32),
        torch.from_numpy(rng.randint(0, 10, n)))
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
    opt_disc = optim.Adam(disc.parameters(), lr=lr)
    opt_gen = optim.Adam(gen.parameters(), lr=lr)
    criterion = nn.BCELoss()
    step = 0

    for epoch in range(num_epochs):
        for batch_idx, (real, _) in enumerate(loader):
            real = real.view(-1, 784).to(device)
            batch_size = real.shape[0]

            ### Train Discriminator: max log(D(x)) + log(1 - D(G(z)))
            noise = torch.randn(batch_size, z_dim).to(device)
            fake = gen(noise)
            disc_real = disc(real).view(-1)
            lossD_real = criterion(disc_real, torch.ones_like(disc_real))
            disc_fake = disc(fake).view(-1)
            lossD_fake = criterion(disc_fake, torch.zeros_like(disc_fake))
            lossD = (lossD_real + lossD_fake) / 2
            disc.zero_grad()
            lossD.backward(retain_graph=True)
            opt_disc.step()

            ### Train Generator: min log(1 - D(G(z))) <-> max log(D(G(z))
            # where the second option of maximizing doesn't suffer from
            # saturating gradients
            output = disc(fake).view(-1)
            lossG = criterion(output, torch.ones_like(output))
            gen.zero_grad()
            lossG.backward()
            opt_gen.step()
            results += [lossD.item(), lossG.item()]

            if batch_idx == 0:
                log(
                    f"Epoch [{epoch}/{num_epochs}] Batch {batch_idx}/{len(loader)} \
                          Loss D: {lossD:.4f}, loss G: {lossG:.4f}"
                )

                with torch.no_grad():
                    fake = gen(fixed_noise).reshape(-1, 1, 28, 28)
                    data = real.reshape(-1, 1, 28, 28)
                    step += 1
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, num_epochs=2)
