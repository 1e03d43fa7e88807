"""Port of eriklindernoren/PyTorch-GAN ``implementations/infogan/infogan.py``: InfoGAN, a
convolutional generator fed noise, a one-hot class and a continuous code, a discriminator
with three heads (validity, a ``Softmax()`` class head without ``dim``, the code), and
three Adams: G's, D's, and an information optimizer over
``itertools.chain(generator.parameters(), discriminator.parameters())`` (the same
Parameters in two optimizers each) stepping ``CrossEntropyLoss`` of the class head plus
``MSELoss`` of the code head.

PyTorch-GAN is MIT-licensed, Copyright (c) 2018 Erik Linder-Norén.

Ported by changing the imports (``import pyad as torch``; ``Variable`` is
``torch.autograd.Variable``). ``argparse``'s options are ``run``'s keyword arguments in
an options namespace ``opt`` (16-pixel images, the smallest the four stride-2 blocks
take, and a tiny ``latent_dim``; the layers' widths are the text's); MNIST is synthetic
images in [-1, 1] with random labels in a ``TensorDataset``; ``np.random`` is a seeded
``RandomState`` (``np_random``); ``sample_image``'s ``n_row=10`` is ``opt.n_classes``
(the static labels' grid it pairs with; 3 classes in the tests) and it returns its three samples' first
pixels instead of saving them; ``print`` is ``log``; the losses are returned.
``weights_init_normal`` initialises through ``m.weight.data`` (pyad's ``.data`` is the
NumPy array, which ``init.normal_`` fills in place); the port passes ``m.weight`` and
``verbatim_data=True`` runs the text's lines (as ``pytorch_gan_lsgan``'s: the same run).

Run it with ``python examples/ported/pytorch_gan_infogan.py``.
"""
import itertools
import types

import numpy as np


def run(torch, n_epochs=1, batch_size=8, n_images=16, lr=0.0002, b1=0.5, b2=0.999,
        latent_dim=8, code_dim=2, n_classes=10, img_size=16, channels=1,
        sample_interval=400, shuffle=True, seed=0, verbatim_data=False, init=None,
        log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []

    opt = types.SimpleNamespace(n_epochs=n_epochs, batch_size=batch_size, lr=lr, b1=b1,
                                b2=b2, latent_dim=latent_dim, code_dim=code_dim,
                                n_classes=n_classes, img_size=img_size, channels=channels,
                                sample_interval=sample_interval)
    log(opt)

    cuda = True if torch.cuda.is_available() else False

    def weights_init_normal(m):
        classname = m.__class__.__name__
        if verbatim_data:
            if classname.find("Conv") != -1:
                torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
            elif classname.find("BatchNorm") != -1:
                torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
                torch.nn.init.constant_(m.bias.data, 0.0)
        else:
            if classname.find("Conv") != -1:
                torch.nn.init.normal_(m.weight, 0.0, 0.02)
            elif classname.find("BatchNorm") != -1:
                torch.nn.init.normal_(m.weight, 1.0, 0.02)
                torch.nn.init.constant_(m.bias, 0.0)

    def to_categorical(y, num_columns):
        """Returns one-hot encoded Variable"""
        y_cat = np.zeros((y.shape[0], num_columns))
        y_cat[range(y.shape[0]), y] = 1.0

        return Variable(FloatTensor(y_cat))

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()
            input_dim = opt.latent_dim + opt.n_classes + opt.code_dim

            self.init_size = opt.img_size // 4  # Initial size before upsampling
            self.l1 = nn.Sequential(nn.Linear(input_dim, 128 * self.init_size ** 2))

            self.conv_blocks = nn.Sequential(
                nn.BatchNorm2d(128),
                nn.Upsample(scale_factor=2),
                nn.Conv2d(128, 128, 3, stride=1, padding=1),
                nn.BatchNorm2d(128, 0.8),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Upsample(scale_factor=2),
                nn.Conv2d(128, 64, 3, stride=1, padding=1),
                nn.BatchNorm2d(64, 0.8),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(64, opt.channels, 3, stride=1, padding=1),
                nn.Tanh(),
            )

        def forward(self, noise, labels, code):
            gen_input = torch.cat((noise, labels, code), -1)
            out = self.l1(gen_input)
            out = out.view(out.shape[0], 128, self.init_size, self.init_size)
            img = self.conv_blocks(out)
            return img

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()

            def discriminator_block(in_filters, out_filters, bn=True):
                """Returns layers of each discriminator block"""
                block = [nn.Conv2d(in_filters, out_filters, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
                if bn:
                    block.append(nn.BatchNorm2d(out_filters, 0.8))
                return block

            self.conv_blocks = nn.Sequential(
                *discriminator_block(opt.channels, 16, bn=False),
                *discriminator_block(16, 32),
                *discriminator_block(32, 64),
                *discriminator_block(64, 128),
            )

            # The height and width of downsampled image
            ds_size = opt.img_size // 2 ** 4

            # Output layers
            self.adv_layer = nn.Sequential(nn.Linear(128 * ds_size ** 2, 1))
            self.aux_layer = nn.Sequential(nn.Linear(128 * ds_size ** 2, opt.n_classes), nn.Softmax())
            self.latent_layer = nn.Sequential(nn.Linear(128 * ds_size ** 2, opt.code_dim))

        def forward(self, img):
            out = self.conv_blocks(img)
            out = out.view(out.shape[0], -1)
            validity = self.adv_layer(out)
            label = self.aux_layer(out)
            latent_code = self.latent_layer(out)

            return validity, label, latent_code

    # Loss functions
    adversarial_loss = torch.nn.MSELoss()
    categorical_loss = torch.nn.CrossEntropyLoss()
    continuous_loss = torch.nn.MSELoss()

    # Loss weights
    lambda_cat = 1
    lambda_con = 0.1

    # Initialize generator and discriminator
    generator = Generator()
    discriminator = Discriminator()

    if cuda:
        generator.cuda()
        discriminator.cuda()
        adversarial_loss.cuda()
        categorical_loss.cuda()
        continuous_loss.cuda()

    # Initialize weights
    generator.apply(weights_init_normal)
    discriminator.apply(weights_init_normal)
    if init is not None:
        init(generator)
        init(discriminator)

    # Configure data loader (synthetic MNIST)
    img_shape = (opt.channels, opt.img_size, opt.img_size)
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
    optimizer_info = torch.optim.Adam(
        itertools.chain(generator.parameters(), discriminator.parameters()), lr=opt.lr, betas=(opt.b1, opt.b2)
    )

    FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
    LongTensor = torch.cuda.LongTensor if cuda else torch.LongTensor

    # Static generator inputs for sampling
    static_z = Variable(FloatTensor(np.zeros((opt.n_classes ** 2, opt.latent_dim))))
    static_label = to_categorical(
        np.array([num for _ in range(opt.n_classes) for num in range(opt.n_classes)]), num_columns=opt.n_classes
    )
    static_code = Variable(FloatTensor(np.zeros((opt.n_classes ** 2, opt.code_dim))))

    def sample_image(n_row, batches_done):
        """Saves a grid of generated digits ranging from 0 to n_classes"""
        # Static sample
        z = Variable(FloatTensor(np_random.normal(0, 1, (n_row ** 2, opt.latent_dim))))
        static_sample = generator(z, static_label, static_code)

        # Get varied c1 and c2
        zeros = np.zeros((n_row ** 2, 1))
        c_varied = np.repeat(np.linspace(-1, 1, n_row)[:, np.newaxis], n_row, 0)
        c1 = Variable(FloatTensor(np.concatenate((c_varied, zeros), -1)))
        c2 = Variable(FloatTensor(np.concatenate((zeros, c_varied), -1)))
        sample1 = generator(static_z, static_label, c1)
        sample2 = generator(static_z, static_label, c2)
        return [s.detach().numpy()[:, 0, 0, 0].tolist() for s in (static_sample, sample1, sample2)]

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
            labels = to_categorical(labels.numpy(), num_columns=opt.n_classes)

            # -----------------
            #  Train Generator
            # -----------------

            optimizer_G.zero_grad()

            # Sample noise and labels as generator input
            z = Variable(FloatTensor(np_random.normal(0, 1, (batch_size, opt.latent_dim))))
            label_input = to_categorical(np_random.randint(0, opt.n_classes, batch_size), num_columns=opt.n_classes)
            code_input = Variable(FloatTensor(np_random.uniform(-1, 1, (batch_size, opt.code_dim))))

            # Generate a batch of images
            gen_imgs = generator(z, label_input, code_input)

            # Loss measures generator's ability to fool the discriminator
            validity, _, _ = discriminator(gen_imgs)
            g_loss = adversarial_loss(validity, valid)

            g_loss.backward()
            optimizer_G.step()

            # ---------------------
            #  Train Discriminator
            # ---------------------

            optimizer_D.zero_grad()

            # Loss for real images
            real_pred, _, _ = discriminator(real_imgs)
            d_real_loss = adversarial_loss(real_pred, valid)

            # Loss for fake images
            fake_pred, _, _ = discriminator(gen_imgs.detach())
            d_fake_loss = adversarial_loss(fake_pred, fake)

            # Total discriminator loss
            d_loss = (d_real_loss + d_fake_loss) / 2

            d_loss.backward()
            optimizer_D.step()

            # ------------------
            # Information Loss
            # ------------------

            optimizer_info.zero_grad()

            # Sample labels
            sampled_labels = np_random.randint(0, opt.n_classes, batch_size)

            # Ground truth labels
            gt_labels = Variable(LongTensor(sampled_labels), requires_grad=False)

            # Sample noise, labels and code as generator input
            z = Variable(FloatTensor(np_random.normal(0, 1, (batch_size, opt.latent_dim))))
            label_input = to_categorical(sampled_labels, num_columns=opt.n_classes)
            code_input = Variable(FloatTensor(np_random.uniform(-1, 1, (batch_size, opt.code_dim))))

            gen_imgs = generator(z, label_input, code_input)
            _, pred_label, pred_code = discriminator(gen_imgs)

            info_loss = lambda_cat * categorical_loss(pred_label, gt_labels) + lambda_con * continuous_loss(
                pred_code, code_input
            )

            info_loss.backward()
            optimizer_info.step()

            # --------------
            # Log Progress
            # --------------

            log(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f] [info loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item(), info_loss.item())
            )
            results.extend([d_loss.item(), g_loss.item(), info_loss.item()])
            batches_done = epoch * len(dataloader) + i
            if batches_done % opt.sample_interval == 0:
                for pixels in sample_image(n_row=opt.n_classes, batches_done=batches_done):
                    results.extend(pixels)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
