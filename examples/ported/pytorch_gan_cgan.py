"""Port of eriklindernoren/PyTorch-GAN ``implementations/cgan/cgan.py``: the conditional
GAN, the class label embedded (``nn.Embedding``) and concatenated to the generator's noise
and to the discriminator's flattened image, the discriminator with ``Dropout(0.4)``,
``MSELoss`` and two Adams, labels as ``LongTensor``s.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``). ``argparse``'s options are ``run``'s keyword arguments in
an options namespace ``opt`` (a tiny ``img_size`` and ``latent_dim``; the layers' widths
are the text's); MNIST is synthetic images in [-1, 1] with random labels in a
``TensorDataset``; ``np.random`` is a seeded ``RandomState`` (``np_random``);
``sample_image`` returns its images instead of saving them; ``print`` is ``log``; the
losses are returned.

Run it with ``python examples/ported/pytorch_gan_cgan.py``.
"""
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=16, lr=0.0002, b1=0.5, b2=0.999,
        latent_dim=8, n_classes=10, img_size=6, channels=1, sample_interval=2,
        shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []

    opt = types.SimpleNamespace(n_epochs=n_epochs, batch_size=batch_size, lr=lr, b1=b1,
                                b2=b2, latent_dim=latent_dim, n_classes=n_classes,
                                img_size=img_size, channels=channels,
                                sample_interval=sample_interval)
    log(opt)

    img_shape = (opt.channels, opt.img_size, opt.img_size)

    cuda = True if torch.cuda.is_available() else False

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()

            self.label_emb = nn.Embedding(opt.n_classes, opt.n_classes)

            def block(in_feat, out_feat, normalize=True):
                layers = [nn.Linear(in_feat, out_feat)]
                if normalize:
                    layers.append(nn.BatchNorm1d(out_feat, 0.8))
                layers.append(nn.LeakyReLU(0.2, inplace=True))
                return layers

            self.model = nn.Sequential(
                *block(opt.latent_dim + opt.n_classes, 128, normalize=False),
                *block(128, 256),
                *block(256, 512),
                *block(512, 1024),
                nn.Linear(1024, int(np.prod(img_shape))),
                nn.Tanh()
            )

        def forward(self, noise, labels):
            # Concatenate label embedding and image to produce input
            gen_input = torch.cat((self.label_emb(labels), noise), -1)
            img = self.model(gen_input)
            img = img.view(img.size(0), *img_shape)
            return img

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()

            self.label_embedding = nn.Embedding(opt.n_classes, opt.n_classes)

            self.model = nn.Sequential(
                nn.Linear(opt.n_classes + int(np.prod(img_shape)), 512),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(512, 512),
                nn.Dropout(0.4),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(512, 512),
                nn.Dropout(0.4),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(512, 1),
            )

        def forward(self, img, labels):
            # Concatenate label embedding and image to produce input
            d_in = torch.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
            validity = self.model(d_in)
            return validity

    # Loss functions
    adversarial_loss = torch.nn.MSELoss()

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
            torch.from_numpy(np_random.randint(0, opt.n_classes, n_images))),
        batch_size=opt.batch_size,
        shuffle=shuffle,
    )

    # Optimizers
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

    FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
    LongTensor = torch.cuda.LongTensor if cuda else torch.LongTensor

    def sample_image(n_row, batches_done):
        """Saves a grid of generated digits ranging from 0 to n_classes"""
        # Sample noise
        z = Variable(FloatTensor(np_random.normal(0, 1, (n_row ** 2, opt.latent_dim))))
        # Get labels ranging from 0 to n_classes for n rows
        labels = np.array([num for _ in range(n_row) for num in range(n_row)])
        labels = Variable(LongTensor(labels))
        gen_imgs = generator(z, labels)
        return gen_imgs

    # ----------
    #  Training
    # ----------

    for epoch in range(opt.n_epochs):
        for i, (imgs, labels) in enumerate(dataloader):

            batch_size = imgs.shape[0]

            # Adversarial ground truths
            valid = Variable(FloatTensor(batch_size, 1).fill_(1.0), requires_grad=False)
            fake = Variable(FloatTensor(batch_size, 1).fill_(0.0), requires_grad=False)

            # Configure input
            real_imgs = Variable(imgs.type(FloatTensor))
            labels = Variable(labels.type(LongTensor))

            # -----------------
            #  Train Generator
            # -----------------

            optimizer_G.zero_grad()

            # Sample noise and labels as generator input
            z = Variable(FloatTensor(np_random.normal(0, 1, (batch_size, opt.latent_dim))))
            gen_labels = Variable(LongTensor(np_random.randint(0, opt.n_classes, batch_size)))

            # Generate a batch of images
            gen_imgs = generator(z, gen_labels)

            # Loss measures generator's ability to fool the discriminator
            validity = discriminator(gen_imgs, gen_labels)
            g_loss = adversarial_loss(validity, valid)

            g_loss.backward()
            optimizer_G.step()

            # ---------------------
            #  Train Discriminator
            # ---------------------

            optimizer_D.zero_grad()

            # Loss for real images
            validity_real = discriminator(real_imgs, labels)
            d_real_loss = adversarial_loss(validity_real, valid)

            # Loss for fake images
            validity_fake = discriminator(gen_imgs.detach(), gen_labels)
            d_fake_loss = adversarial_loss(validity_fake, fake)

            # Total discriminator loss
            d_loss = (d_real_loss + d_fake_loss) / 2

            d_loss.backward()
            optimizer_D.step()

            log(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
            )
            results.extend([d_loss.item(), g_loss.item(), d_real_loss.item(), d_fake_loss.item()])

            batches_done = epoch * len(dataloader) + i
            if batches_done % opt.sample_interval == 0:
                # sample_image(n_row=10, ...): a batch of 100 through the training-mode
                # generator (its batch norms update their running statistics)
                results.extend(sample_image(n_row=10, batches_done=batches_done).detach().numpy()[:, 0, 0, 0].tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
