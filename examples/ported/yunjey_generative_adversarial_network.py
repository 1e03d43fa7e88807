"""Port of yunjey/pytorch-tutorial
``tutorials/03-advanced/generative_adversarial_network/main.py`` (the same text as the
older ``02-intermediate`` copy): a fully connected generator and discriminator
(``LeakyReLU``, ``Sigmoid``, ``Tanh``) trained with ``BCELoss`` and two Adams on MNIST.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). MNIST is synthetic images in
[-1, 1] (what ``Normalize(mean=[0.5], std=[0.5])`` gives) and random labels in a
``TensorDataset``; ``save_image`` of ``denorm``'s images is left out (``denorm`` is kept
and its last images returned); the checkpoints go to ``directory``; ``print`` is
``log``; the sizes are ``run``'s keyword arguments.

Run it with ``python examples/ported/yunjey_generative_adversarial_network.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, latent_size=16, hidden_size=32, num_epochs=2, batch_size=4, n_images=12,
        shuffle=True, seed=0, directory=None, init=None, log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Hyper-parameters
    image_size = 784

    # MNIST dataset
    mnist = torch.utils.data.TensorDataset(
        torch.from_numpy((rng.rand(n_images, 1, 28, 28).astype(np.float32) - 0.5) / 0.5),
        torch.from_numpy(rng.randint(0, 10, n_images)))

    # Data loader
    data_loader = torch.utils.data.DataLoader(dataset=mnist,
                                              batch_size=batch_size,
                                              shuffle=shuffle)

    # Discriminator
    D = nn.Sequential(
        nn.Linear(image_size, hidden_size),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden_size, hidden_size),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden_size, 1),
        nn.Sigmoid())

    # Generator
    G = nn.Sequential(
        nn.Linear(latent_size, hidden_size),
        nn.ReLU(),
        nn.Linear(hidden_size, hidden_size),
        nn.ReLU(),
        nn.Linear(hidden_size, image_size),
        nn.Tanh())

    # Device setting
    D = D.to(device)
    G = G.to(device)
    if init is not None:
        init(D)
        init(G)

    # Binary cross entropy loss and optimizer
    criterion = nn.BCELoss()
    d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
    g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)

    def denorm(x):
        out = (x + 1) / 2
        return out.clamp(0, 1)

    def reset_grad():
        d_optimizer.zero_grad()
        g_optimizer.zero_grad()

    # Start training
    total_step = len(data_loader)
    for epoch in range(num_epochs):
        for i, (images, _) in enumerate(data_loader):
            images = images.reshape(batch_size, -1).to(device)

            # Create the labels which are later used as input for the BCE loss
            real_labels = torch.ones(batch_size, 1).to(device)
            fake_labels = torch.zeros(batch_size, 1).to(device)

            # ================================================================== #
            #                      Train the discriminator                       #
            # ================================================================== #

            # Compute BCE_Loss using real images where BCE_Loss(x, y): - y * log(D(x)) - (1-y) * log(1 - D(x))
            # Second term of the loss is always zero since real_labels == 1
            outputs = D(images)
            d_loss_real = criterion(outputs, real_labels)
            real_score = outputs

            # Compute BCELoss using fake images
            # First term of the loss is always zero since fake_labels == 0
            z = torch.randn(batch_size, latent_size).to(device)
            fake_images = G(z)
            outputs = D(fake_images)
            d_loss_fake = criterion(outputs, fake_labels)
            fake_score = outputs

            # Backprop and optimize
            d_loss = d_loss_real + d_loss_fake
            reset_grad()
            d_loss.backward()
            d_optimizer.step()

            # ================================================================== #
            #                        Train the generator                         #
            # ================================================================== #

            # Compute loss with fake images
            z = torch.randn(batch_size, latent_size).to(device)
            fake_images = G(z)
            outputs = D(fake_images)

            # We train G to maximize log(D(G(z)) instead of minimizing log(1-D(G(z)))
            # For the reason, see the last paragraph of section 3. https://arxiv.org/pdf/1406.2661.pdf
            g_loss = criterion(outputs, real_labels)

            # Backprop and optimize
            reset_grad()
            g_loss.backward()
            g_optimizer.step()
            results.extend([d_loss.item(), g_loss.item(), real_score.mean().item(),
                            fake_score.mean().item()])

            if (i+1) % 200 == 0:
                log('Epoch [{}/{}], Step [{}/{}], d_loss: {:.4f}, g_loss: {:.4f}, D(x): {:.2f}, D(G(z)): {:.2f}'
                    .format(epoch, num_epochs, i+1, total_step, d_loss.item(), g_loss.item(),
                            real_score.mean().item(), fake_score.mean().item()))

        # Save sampled images
        fake_images = fake_images.reshape(fake_images.size(0), 1, 28, 28)
        results.extend(denorm(fake_images).reshape(-1)[:50].tolist())

    # Save the model checkpoints
    torch.save(G.state_dict(), os.path.join(directory, 'G.ckpt'))
    torch.save(D.state_dict(), os.path.join(directory, 'D.ckpt'))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
