"""Port of eriklindernoren/PyTorch-GAN ``implementations/gan/gan.py``: the original GAN, a
fully connected generator (``BatchNorm1d(out_feat, 0.8)``, ``LeakyReLU(inplace=True)``,
``Tanh``) against a fully connected discriminator (``Sigmoid``), ``BCELoss`` and two
Adams, the targets built as ``Variable(Tensor(n, 1).fill_(1.0), requires_grad=False)``.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``). ``argparse``'s options are ``run``'s keyword arguments in an
options namespace ``opt`` (a tiny ``img_size`` and ``latent_dim``; the layers' widths are
the text's); MNIST is synthetic images in [-1, 1] (what ``Normalize([0.5], [0.5])``
gives) with random labels in a ``TensorDataset``; ``np.random`` is a seeded
``RandomState`` (``np_random``); ``save_image`` is left out; ``print`` is ``log``; the
losses are returned.

Run it with ``python examples/ported/pytorch_gan_gan.py``.
"""
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=24, lr=0.0002, b1=0.5, b2=0.999,
        latent_dim=8, img_size=6, channels=1, sample_interval=400, shuffle=True, seed=0,
        init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []

    opt = types.SimpleNamespace(n_epochs=n_epochs, batch_size=batch_size, lr=lr, b1=b1,
                                b2=b2, latent_dim=latent_dim, img_size=img_size,
                                channels=channels, sample_interval=sample_interval)
    log(opt)

    img_shape = (opt.channels, opt.img_size, opt.img_size)

    cuda = True if torch.cuda.is_available() else False

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()

            def block(in_feat, out_feat, normalize=True):
                layers = [nn.Linear(in_feat, out_feat)]
                if normalize:
                    layers.append(nn.BatchNorm1d(out_feat, 0.8))
                layers.append(nn.LeakyReLU(0.2, inplace=True))
                return layers

            self.model = nn.Sequential(
                *block(opt.latent_dim, 128, normalize=False),
                *block(128, 256),
                *block(256, 512),
                *block(512, 1024),
                nn.Linear(1024, int(np.prod(img_shape))),
                nn.Tanh()
            )

        def forward(self, z):
            img = self.model(z)
            img = img.view(img.size(0), *img_shape)
            return img

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()

            self.model = nn.Sequential(
                nn.Linear(int(np.prod(img_shape)), 512),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(512, 256),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(256, 1),
                nn.Sigmoid(),
            )

        def forward(self, img):
            img_flat = img.view(img.size(0), -1)
            validity = self.model(img_flat)

            return validity

    # Loss function
    adversarial_loss = torch.nn.BCELoss()

    # Initialize generator and discriminator
    generator = Generator()
    discriminator = Discriminator()
    if init is not None:
        init(generator)
        init(discriminator)

    if cuda:
        generator.cuda()
        discriminator.cuda()
        adversarial_loss.cuda()

    # Configure data loader (synthetic MNIST)
    dataloader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(
            torch.from_numpy(np_random.uniform(-1, 1, (n_images,) + img_shape).astype(np.float32)),
            torch.from_numpy(np_random.randint(0, 10, n_images))),
        batch_size=opt.batch_size,
        shuffle=shuffle,
    )

    # Optimizers
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

    Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor

    # ----------
    #  Training
    # ----------

    for epoch in range(opt.n_epochs):
        for i, (imgs, _) in enumerate(dataloader):

            # Adversarial ground truths
            valid = Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)
            fake = Variable(Tensor(imgs.size(0), 1).fill_(0.0), requires_grad=False)

            # Configure input
            real_imgs = Variable(imgs.type(Tensor))

            # -----------------
            #  Train Generator
            # -----------------

            optimizer_G.zero_grad()

            # Sample noise as generator input
            z = Variable(Tensor(np_random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))

            # Generate a batch of images
            gen_imgs = generator(z)

            # Loss measures generator's ability to fool the discriminator
            g_loss = adversarial_loss(discriminator(gen_imgs), valid)

            g_loss.backward()
            optimizer_G.step()

            # ---------------------
            #  Train Discriminator
            # ---------------------

            optimizer_D.zero_grad()

            # Measure discriminator's ability to classify real from generated samples
            real_loss = adversarial_loss(discriminator(real_imgs), valid)
            fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), fake)
            d_loss = (real_loss + fake_loss) / 2

            d_loss.backward()
            optimizer_D.step()

            log(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
            )
            results.extend([d_loss.item(), g_loss.item(), real_loss.item(), fake_loss.item()])

            batches_done = epoch * len(dataloader) + i
            if batches_done % opt.sample_interval == 0:
                results.extend(gen_imgs.detach().numpy()[0].ravel().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
