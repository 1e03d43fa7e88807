"""Port of eriklindernoren/PyTorch-GAN ``implementations/wgan/wgan.py``: the Wasserstein
GAN with weight clipping: the critic (no ``Sigmoid``) trained with two ``RMSprop``s on
``-mean(D(real)) + mean(D(fake))``, its weights clamped in place after each step, the
generator trained every ``n_critic`` batches.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``). ``argparse``'s options are ``run``'s keyword arguments in
an options namespace ``opt`` (a tiny ``img_size`` and ``latent_dim``; the layers' widths are
the text's); MNIST
is synthetic images in [-1, 1] in a ``TensorDataset``; ``np.random`` is a seeded
``RandomState`` (``np_random``); ``save_image`` is left out (so is the ``gen_imgs``
it reads); ``print`` is ``log``; the losses are returned. The text clamps through
``p.data.clamp_(...)``: pyad's ``.data`` is the NumPy array (no ``clamp_``), so the port
writes ``p.clamp_(...)`` under ``torch.no_grad()``; ``verbatim_data=True`` runs the
text's line (a strict xfail in the tests).

Run it with ``python examples/ported/pytorch_gan_wgan.py``.
"""
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=48, lr=0.00005, b1=0.5, b2=0.999,
        latent_dim=8, img_size=6, channels=1, n_critic=5, clip_value=0.01,
        sample_interval=400, shuffle=True, seed=0, verbatim_data=False, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []

    opt = types.SimpleNamespace(n_epochs=n_epochs, batch_size=batch_size, lr=lr, b1=b1,
                                b2=b2, latent_dim=latent_dim, img_size=img_size,
                                channels=channels, n_critic=n_critic,
                                clip_value=clip_value, sample_interval=sample_interval)
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
            img = img.view(img.shape[0], *img_shape)
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
            )

        def forward(self, img):
            img_flat = img.view(img.shape[0], -1)
            validity = self.model(img_flat)
            return validity

    # Initialize generator and discriminator
    generator = Generator()
    discriminator = Discriminator()
    if init is not None:
        init(generator)
        init(discriminator)

    if cuda:
        generator.cuda()
        discriminator.cuda()

    # Configure data loader (synthetic MNIST)
    dataloader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(
            torch.from_numpy(np_random.uniform(-1, 1, (n_images,) + img_shape).astype(np.float32)),
            torch.from_numpy(np_random.randint(0, 10, n_images))),
        batch_size=opt.batch_size,
        shuffle=shuffle,
    )

    # Optimizers
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=opt.lr)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=opt.lr)

    Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor

    # ----------
    #  Training
    # ----------

    batches_done = 0
    for epoch in range(opt.n_epochs):

        for i, (imgs, _) in enumerate(dataloader):

            # Configure input
            real_imgs = Variable(imgs.type(Tensor))

            # ---------------------
            #  Train Discriminator
            # ---------------------

            optimizer_D.zero_grad()

            # Sample noise as generator input
            z = Variable(Tensor(np_random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))

            # Generate a batch of images
            fake_imgs = generator(z).detach()
            # Adversarial loss
            loss_D = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs))

            loss_D.backward()
            optimizer_D.step()
            results.append(loss_D.item())

            # Clip weights of discriminator
            for p in discriminator.parameters():
                if verbatim_data:
                    p.data.clamp_(-opt.clip_value, opt.clip_value)
                else:
                    with torch.no_grad():
                        p.clamp_(-opt.clip_value, opt.clip_value)

            # Train the generator every n_critic iterations
            if i % opt.n_critic == 0:

                # -----------------
                #  Train Generator
                # -----------------

                optimizer_G.zero_grad()

                # Generate a batch of images
                gen_imgs = generator(z)
                # Adversarial loss
                loss_G = -torch.mean(discriminator(gen_imgs))

                loss_G.backward()
                optimizer_G.step()

                log(
                    "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                    % (epoch, opt.n_epochs, batches_done % len(dataloader), len(dataloader), loss_D.item(), loss_G.item())
                )
                results.append(loss_G.item())

            batches_done += 1
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
