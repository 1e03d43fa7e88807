"""Port of aladdinpersson/Machine-Learning-Collection ``ML/Pytorch/GANs/4. WGAN-GP``:
``model.py`` (the DCGAN-style ``Discriminator`` with ``InstanceNorm2d`` and
``Generator``, ``initialize_weights``, ``test``) and ``train.py``'s loop with the
``gradient_penalty`` it imports from ``utils.py`` (``autograd.grad(create_graph=True)``:
the critic's loss backpropagates through a gradient, a double backward).

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). ``utils.py`` is not in the
stored copy of the repository read for this port: ``gradient_penalty`` is written as the
repository publishes it (interpolation ``real * alpha + fake * (1 - alpha)`` with one
``rand`` per image, the gradient's per-image 2-norm, ``mean((norm - 1) ** 2)``). MNIST
(resized to 64) is synthetic images in [-1, 1]; TensorBoard and ``make_grid`` are left
out (the fixed-noise images are returned); ``print`` is ``log``. The hyperparameters
``Z_DIM``, ``FEATURES_CRITIC``, ``FEATURES_GEN`` (100, 16, 16 in the text), the batch
size, epochs and critic iterations are ``run``'s keyword arguments (narrower and fewer in
the tests). ``initialize_weights``'s ``nn.init.normal_(m.weight.data, ...)``: pyad's
``.data`` is the NumPy array, so the default writes ``m.weight`` and
``verbatim_data=True`` runs the text's line. ``run`` returns every critic step's loss and
penalty, every generator loss, and the penalty's gradients (with respect to the critic's
first weight and to the real images) at the first step; ``run_model_test=True`` runs
``model.py``'s ``test()`` (commented out in the text) first.

Run it with ``python examples/ported/aladdin_wgan_gp.py``.
"""
import numpy as np


def run(torch, Z_DIM=100, FEATURES_CRITIC=16, FEATURES_GEN=16, BATCH_SIZE=64,
        NUM_EPOCHS=100, CRITIC_ITERATIONS=5, n=128, seed=0, verbatim_data=False,
        run_model_test=False, init=None, log=print, trace=None):
    nn = torch.nn
    optim = torch.optim
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    # -- model.py --
    class Discriminator(nn.Module):
        def __init__(self, channels_img, features_d):
            super(Discriminator, self).__init__()
            self.disc = nn.Sequential(
                # input: N x channels_img x 64 x 64
                nn.Conv2d(channels_img, features_d, kernel_size=4, stride=2, padding=1),
                nn.LeakyReLU(0.2),
                # _block(in_channels, out_channels, kernel_size, stride, padding)
                self._block(features_d, features_d * 2, 4, 2, 1),
                self._block(features_d * 2, features_d * 4, 4, 2, 1),
                self._block(features_d * 4, features_d * 8, 4, 2, 1),
                # After all _block img output is 4x4 (Conv2d below makes into 1x1)
                nn.Conv2d(features_d * 8, 1, kernel_size=4, stride=2, padding=0),
            )

        def _block(self, in_channels, out_channels, kernel_size, stride, padding):
            return nn.Sequential(
                nn.Conv2d(
                    in_channels, out_channels, kernel_size, stride, padding, bias=False,
                ),
                nn.InstanceNorm2d(out_channels, affine=True),
                nn.LeakyReLU(0.2),
            )

        def forward(self, x):
            return self.disc(x)

    class Generator(nn.Module):
        def __init__(self, channels_noise, channels_img, features_g):
            super(Generator, self).__init__()
            self.net = nn.Sequential(
                # Input: N x channels_noise x 1 x 1
                self._block(channels_noise, features_g * 16, 4, 1, 0),  # img: 4x4
                self._block(features_g * 16, features_g * 8, 4, 2, 1),  # img: 8x8
                self._block(features_g * 8, features_g * 4, 4, 2, 1),  # img: 16x16
                self._block(features_g * 4, features_g * 2, 4, 2, 1),  # img: 32x32
                nn.ConvTranspose2d(
                    features_g * 2, channels_img, kernel_size=4, stride=2, padding=1
                ),
                # Output: N x channels_img x 64 x 64
                nn.Tanh(),
            )

        def _block(self, in_channels, out_channels, kernel_size, stride, padding):
            return nn.Sequential(
                nn.ConvTranspose2d(
                    in_channels, out_channels, kernel_size, stride, padding, bias=False,
                ),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(),
            )

        def forward(self, x):
            return self.net(x)

    def initialize_weights(model):
        # Initializes weights according to the DCGAN paper
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.BatchNorm2d)):
                nn.init.normal_(m.weight.data if verbatim_data else m.weight, 0.0, 0.02)

    def test():
        N, in_channels, H, W = 8, 3, 64, 64
        noise_dim = 100
        x = torch.randn((N, in_channels, H, W))
        disc = Discriminator(in_channels, 8)
        assert disc(x).shape == (N, 1, 1, 1), "Discriminator test failed"
        gen = Generator(noise_dim, in_channels, 8)
        z = torch.randn((N, noise_dim, 1, 1))
        assert gen(z).shape == (N, in_channels, H, W), "Generator test failed"

    if run_model_test:  # model.py's ``# test()``
        test()

    # -- utils.py --
    def gradient_penalty(critic, real, fake, device="cpu"):
        BATCH_SIZE, C, H, W = real.shape
        alpha = torch.rand((BATCH_SIZE, 1, 1, 1)).repeat(1, C, H, W).to(device)
        interpolated_images = real * alpha + fake * (1 - alpha)

        # Calculate critic scores
        mixed_scores = critic(interpolated_images)

        # Take the gradient of the scores with respect to the images
        gradient = torch.autograd.grad(
            inputs=interpolated_images,
            outputs=mixed_scores,
            grad_outputs=torch.ones_like(mixed_scores),
            create_graph=True,
            retain_graph=True,
        )[0]
        gradient = gradient.view(gradient.shape[0], -1)
        gradient_norm = gradient.norm(2, dim=1)
        gradient_penalty = torch.mean((gradient_norm - 1) ** 2)
        return gradient_penalty

    # -- train.py --
    # Hyperparameters etc.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    LEARNING_RATE = 1e-4
    IMAGE_SIZE = 64
    CHANNELS_IMG = 1
    LAMBDA_GP = 10

    dataset = torch.utils.data.TensorDataset(
        torch.tensor(rng.uniform(-1, 1, (n, CHANNELS_IMG, IMAGE_SIZE, IMAGE_SIZE)),
                     dtype=torch.get_default_dtype()),
        torch.from_numpy(rng.randint(0, 10, n)))
    loader = DataLoader(
        dataset,
        batch_size=BATCH_SIZE,
        shuffle=False,
    )

    # initialize gen and disc, note: discriminator should be called critic,
    # according to WGAN paper (since it no longer outputs between [0, 1])
    gen = Generator(Z_DIM, CHANNELS_IMG, FEATURES_GEN).to(device)
    critic = Discriminator(CHANNELS_IMG, FEATURES_CRITIC).to(device)
    initialize_weights(gen)
    initialize_weights(critic)
    if init is not None:
        init(gen)
        init(critic)

    # initializate optimizer
    opt_gen = optim.Adam(gen.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))
    opt_critic = optim.Adam(critic.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))

    # for tensorboard plotting
    fixed_noise = torch.randn(32, Z_DIM, 1, 1).to(device)
    step = 0

    gen.train()
    critic.train()

    for epoch in range(NUM_EPOCHS):
        # Target labels not needed! <3 unsupervised
        for batch_idx, (real, _) in enumerate(loader):
            real = real.to(device)
            cur_batch_size = real.shape[0]

            # Train Critic: max E[critic(real)] - E[critic(fake)]
            # equivalent to minimizing the negative of that
            for _ in range(CRITIC_ITERATIONS):
                noise = torch.randn(cur_batch_size, Z_DIM, 1, 1).to(device)
                fake = gen(noise)
                critic_real = critic(real).reshape(-1)
                critic_fake = critic(fake).reshape(-1)
                if trace is not None and step == 0:
                    real = real.clone().requires_grad_()
                gp = gradient_penalty(critic, real, fake, device=device)
                if trace is not None and step == 0:
                    trace["gp"] = gp.item()
                    trace["grads"] = torch.autograd.grad(
                        gp, [critic.disc[0].weight, real], retain_graph=True)
                    real = real.detach()
                    step = 1
                loss_critic = (
                    -(torch.mean(critic_real) - torch.mean(critic_fake)) + LAMBDA_GP * gp
                )
                critic.zero_grad()
                loss_critic.backward(retain_graph=True)
                opt_critic.step()
                results += [loss_critic.item(), gp.item()]

            # Train Generator: max E[critic(gen_fake)] <-> min -E[critic(gen_fake)]
            gen_fake = critic(fake).reshape(-1)
            loss_gen = -torch.mean(gen_fake)
            gen.zero_grad()
            loss_gen.backward()
            opt_gen.step()
            results.append(loss_gen.item())

            # Print losses occasionally and print to tensorboard
            if batch_idx % 100 == 0 and batch_idx > 0:
                log(
                    f"Epoch [{epoch}/{NUM_EPOCHS}] Batch {batch_idx}/{len(loader)} \
                      Loss D: {loss_critic:.4f}, loss G: {loss_gen:.4f}"
                )

    with torch.no_grad():
        fake = gen(fixed_noise)
    log(f"last Loss D: {loss_critic:.4f}, loss G: {loss_gen:.4f}")
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, Z_DIM=8, FEATURES_CRITIC=2, FEATURES_GEN=2, BATCH_SIZE=4, NUM_EPOCHS=1,
        CRITIC_ITERATIONS=2, n=8)
