"""Port of eriklindernoren/PyTorch-GAN ``implementations/wgan_gp/wgan_gp.py``: the
Wasserstein GAN with gradient penalty. The penalty is ``autograd.grad`` of the critic's
output at random interpolates with ``grad_outputs`` of ones, ``create_graph=True``, so
that ``d_loss.backward()`` goes through the gradient (a double backward through
``Linear`` and ``LeakyReLU(inplace=True)``); the generator trains every ``n_critic``
batches.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``, ``autograd`` is ``torch.autograd``). ``argparse``'s options
are ``run``'s keyword arguments in an options namespace ``opt`` (a tiny ``img_size`` and
``latent_dim``; the layers' widths are the text's); MNIST is synthetic images in [-1, 1]
in a ``TensorDataset``; ``np.random`` is a seeded ``RandomState`` (``np_random``);
``save_image`` is left out; ``print`` is ``log``; the losses and each gradient penalty
are returned. The text passes ``real_imgs.data, fake_imgs.data`` to
``compute_gradient_penalty``: pyad's ``.data`` is the NumPy array, so the port passes
``.detach()`` (the same values, no history); ``verbatim_data=True`` runs the text's line
(a strict xfail in the tests).

Run it with ``python examples/ported/pytorch_gan_wgan_gp.py``.
"""
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=48, lr=0.0002, b1=0.5, b2=0.999,
        latent_dim=8, img_size=6, channels=1, n_critic=5, clip_value=0.01,
        sample_interval=400, shuffle=True, seed=0, verbatim_data=False, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    autograd = torch.autograd
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

    # Loss weight for gradient penalty
    lambda_gp = 10

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
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

    Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor

    def compute_gradient_penalty(D, real_samples, fake_samples):
        """Calculates the gradient penalty loss for WGAN GP"""
        # Random weight term for interpolation between real and fake samples
        alpha = Tensor(np_random.random((real_samples.size(0), 1, 1, 1)))
        # Get random interpolation between real and fake samples
        interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
        d_interpolates = D(interpolates)
        fake = Variable(Tensor(real_samples.shape[0], 1).fill_(1.0), requires_grad=False)
        # Get gradient w.r.t. interpolates
        gradients = autograd.grad(
            outputs=d_interpolates,
            inputs=interpolates,
            grad_outputs=fake,
            create_graph=True,
            retain_graph=True,
            only_inputs=True,
        )[0]
        gradients = gradients.view(gradients.size(0), -1)
        gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        return gradient_penalty

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
            fake_imgs = generator(z)

            # Real images
            real_validity = discriminator(real_imgs)
            # Fake images
            fake_validity = discriminator(fake_imgs)
            # Gradient penalty
            if verbatim_data:
                gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
            else:
                gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.detach(), fake_imgs.detach())
            # Adversarial loss
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty

            d_loss.backward()
            optimizer_D.step()
            results.extend([d_loss.item(), gradient_penalty.item()])

            optimizer_G.zero_grad()

            # Train the generator every n_critic steps
            if i % opt.n_critic == 0:

                # -----------------
                #  Train Generator
                # -----------------

                # Generate a batch of images
                fake_imgs = generator(z)
                # Loss measures generator's ability to fool the discriminator
                # Train on fake images
                fake_validity = discriminator(fake_imgs)
                g_loss = -torch.mean(fake_validity)

                g_loss.backward()
                optimizer_G.step()

                log(
                    "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                    % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
                )
                results.append(g_loss.item())

                if batches_done % opt.sample_interval == 0:
                    results.extend(fake_imgs.detach().numpy()[0].ravel().tolist())

                batches_done += opt.n_critic
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
