"""Port of eriklindernoren/PyTorch-GAN ``implementations/softmax_gan/softmax_gan.py``:
Softmax GAN, one partition function ``Z`` over the critic's outputs on the real and the
generated batch; the discriminator's loss is backpropagated with
``retain_graph=True`` and the generator's loss goes back through the same graph.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``). ``argparse``'s options are ``run``'s keyword arguments in
an options namespace ``opt`` (a tiny ``img_size`` and ``latent_dim``; the layers' widths
are the text's); MNIST is synthetic images in [-1, 1] in a ``TensorDataset``;
``np.random`` is a seeded ``RandomState`` (``np_random``); ``save_image`` is left out;
``print`` is ``printer`` (``run``'s ``log``: the text defines its own ``log``); the
losses and the first batch's ``Z`` are returned. The text steps D's optimizer before ``g_loss.backward()`` goes back
through D's forward: torch 2.13 refuses (D's saved weights were modified in place by
the step), and so does pyad (tested); ``step_d_after_g_backward=True`` runs both
backwards first (D's gradients kept from ``d_loss`` alone), then both steps, so that
G's gradient is taken at the weights the losses were computed with.

Run it with ``python examples/ported/pytorch_gan_softmax_gan.py``.
"""
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=24, lr=0.0002, b1=0.5, b2=0.999,
        latent_dim=8, img_size=6, channels=1, sample_interval=400, shuffle=True, seed=0,
        step_d_after_g_backward=False, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []
    printer = log  # the text defines its own log() below

    opt = types.SimpleNamespace(n_epochs=n_epochs, batch_size=batch_size, lr=lr, b1=b1,
                                b2=b2, latent_dim=latent_dim, img_size=img_size,
                                channels=channels, sample_interval=sample_interval)
    printer(opt)

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
                nn.Linear(opt.img_size ** 2, 512),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(512, 256),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(256, 1),
            )

        def forward(self, img):
            img_flat = img.view(img.shape[0], -1)
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

    def log(x):
        return torch.log(x + 1e-8)

    # ----------
    #  Training
    # ----------

    for epoch in range(opt.n_epochs):
        for i, (imgs, _) in enumerate(dataloader):

            optimizer_G.zero_grad()
            optimizer_D.zero_grad()

            batch_size = imgs.shape[0]

            # Adversarial ground truths
            g_target = 1 / (batch_size * 2)
            d_target = 1 / batch_size

            # Configure input
            real_imgs = Variable(imgs.type(Tensor))

            # Sample noise as generator input
            z = Variable(Tensor(np_random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))
            # Generate a batch of images
            gen_imgs = generator(z)

            d_real = discriminator(real_imgs)
            d_fake = discriminator(gen_imgs)

            # Partition function
            Z = torch.sum(torch.exp(-d_real)) + torch.sum(torch.exp(-d_fake))

            # Calculate loss of discriminator and update
            d_loss = d_target * torch.sum(d_real) + log(Z)
            d_loss.backward(retain_graph=True)
            if not step_d_after_g_backward:
                optimizer_D.step()

            # Calculate loss of generator and update
            g_loss = g_target * (torch.sum(d_real) + torch.sum(d_fake)) + log(Z)
            if step_d_after_g_backward:
                # g_loss's gradient must reach G only: D's gradients are d_loss's
                d_grads = [p.grad.clone() for p in discriminator.parameters()]
            g_loss.backward()
            if step_d_after_g_backward:
                for p, g in zip(discriminator.parameters(), d_grads):
                    p.grad = g
                optimizer_D.step()
            optimizer_G.step()

            printer(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
            )
            results.extend([d_loss.item(), g_loss.item()])
            if epoch == 0 and i == 0:
                # Z before any step (later it carries D's output bias, which both losses
                # are invariant to: its gradient is 0 in exact arithmetic)
                results.append(Z.item())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, step_d_after_g_backward=True)
