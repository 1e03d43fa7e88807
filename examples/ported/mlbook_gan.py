"""Port of rasbt/machine-learning-book ``ch17/ch17_part1.py`` (Chapter 17, Generative
Adversarial Networks for Synthesizing New Data, part 1): the fully connected GAN: the
generator and discriminator built by ``add_module`` (``LeakyReLU``, ``Dropout``,
``Tanh``/``Sigmoid``), uniform noise ``torch.rand(...)*2 - 1``, the data flow and first
``BCELoss`` values, and the training loop with ``d_train``/``g_train`` (two Adams), the
epochs' average losses and discriminator outputs and the samples from a fixed noise.

machine-learning-book is MIT-licensed, Copyright (c) 2021 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST through torchvision's
``ToTensor`` and ``Normalize(0.5, 0.5)`` is a synthetic ``TensorDataset`` of ``n_train``
images of shape (1, 28, 28) in [-1, 1] and random labels; ``print`` is ``log``. The
cells run in order in ``run``, whose keyword arguments are the epochs, the final
training's batch size (64 in the text), the data set's size, the hidden sizes and the
loader's shuffling (the text's sizes are only hyperparameters: smaller in the tests).
The plots are dropped and what they show (the epochs' averages, the samples) is
returned; the CUDA-only MMD score cells (``.cuda()`` of the images) are dropped.
``init`` is called with each model before it is used (the tests start pyad's from
torch's weights, with the noise and dropout masks from NumPy streams).

Run it with ``python examples/ported/mlbook_gan.py``.
"""
import numpy as np


def run(torch, num_epochs=100, final_batch_size=64, n_train=60000, gen_hidden_size=100,
        disc_hidden_size=100, shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    DataLoader = torch.utils.data.DataLoader
    init = init or (lambda model: None)
    rng = np.random.RandomState(seed)
    results = {}

    log("GPU Available:", torch.cuda.is_available())

    if torch.cuda.is_available():
        device = torch.device("cuda:0")
    else:
        device = "cpu"

    ## define a function for the generator:
    def make_generator_network(
            input_size=20,
            num_hidden_layers=1,
            num_hidden_units=100,
            num_output_units=784):
        model = nn.Sequential()
        for i in range(num_hidden_layers):
            model.add_module(f'fc_g{i}',
                             nn.Linear(input_size,
                                       num_hidden_units))
            model.add_module(f'relu_g{i}',
                             nn.LeakyReLU())
            input_size = num_hidden_units
        model.add_module(f'fc_g{num_hidden_layers}',
                        nn.Linear(input_size, num_output_units))
        model.add_module('tanh_g', nn.Tanh())
        return model

    ## define a function for the discriminator:
    def make_discriminator_network(
            input_size,
            num_hidden_layers=1,
            num_hidden_units=100,
            num_output_units=1):
        model = nn.Sequential()
        for i in range(num_hidden_layers):
            model.add_module(f'fc_d{i}',
                     nn.Linear(input_size,
                               num_hidden_units, bias=False))
            model.add_module(f'relu_d{i}',
                             nn.LeakyReLU())
            model.add_module('dropout', nn.Dropout(p=0.5))
            input_size = num_hidden_units
        model.add_module(f'fc_d{num_hidden_layers}',
                         nn.Linear(input_size, num_output_units))
        model.add_module('sigmoid', nn.Sigmoid())
        return model

    image_size = (28, 28)
    z_size = 20

    gen_hidden_layers = 1
    disc_hidden_layers = 1

    torch.manual_seed(1)

    gen_model = make_generator_network(
        input_size=z_size,
        num_hidden_layers=gen_hidden_layers,
        num_hidden_units=gen_hidden_size,
        num_output_units=np.prod(image_size))
    init(gen_model)

    log(gen_model)

    disc_model = make_discriminator_network(
        input_size=np.prod(image_size),
        num_hidden_layers=disc_hidden_layers,
        num_hidden_units=disc_hidden_size)
    init(disc_model)

    log(disc_model)

    # ## Defining the training dataset

    mnist_dataset = torch.utils.data.TensorDataset(
        torch.tensor(rng.uniform(-1, 1, (n_train, 1) + image_size), dtype=torch.float32),
        torch.from_numpy(rng.randint(0, 10, n_train)))

    example, label = next(iter(mnist_dataset))
    log(f'Min: {example.min()} Max: {example.max()}')
    log(example.shape)

    def create_noise(batch_size, z_size, mode_z):
        if mode_z == 'uniform':
            input_z = torch.rand(batch_size, z_size)*2 - 1
        elif mode_z == 'normal':
            input_z = torch.randn(batch_size, z_size)
        return input_z

    batch_size = 32
    dataloader = DataLoader(mnist_dataset, batch_size, shuffle=False)
    input_real, label = next(iter(dataloader))
    input_real = input_real.view(batch_size, -1)

    torch.manual_seed(1)
    mode_z = 'uniform'  # 'uniform' vs. 'normal'
    input_z = create_noise(batch_size, z_size, mode_z)

    log('input-z -- shape:', input_z.shape)
    log('input-real -- shape:', input_real.shape)

    g_output = gen_model(input_z)
    log('Output of G -- shape:', g_output.shape)

    d_proba_real = disc_model(input_real)
    d_proba_fake = disc_model(g_output)
    log('Disc. (real) -- shape:', d_proba_real.shape)
    log('Disc. (fake) -- shape:', d_proba_fake.shape)

    # ## Training the GAN model

    loss_fn = nn.BCELoss()

    ## Loss for the Generator
    g_labels_real = torch.ones_like(d_proba_fake)
    g_loss = loss_fn(d_proba_fake, g_labels_real)
    log(f'Generator Loss: {g_loss:.4f}')

    ## Loss for the Discriminator
    d_labels_real = torch.ones_like(d_proba_real)
    d_labels_fake = torch.zeros_like(d_proba_fake)

    d_loss_real = loss_fn(d_proba_real, d_labels_real)
    d_loss_fake = loss_fn(d_proba_fake, d_labels_fake)
    log(f'Discriminator Losses: Real {d_loss_real:.4f} Fake {d_loss_fake:.4f}')
    results['first_losses'] = [g_loss.item(), d_loss_real.item(), d_loss_fake.item()]

    #  * **Final training**

    batch_size = final_batch_size

    torch.manual_seed(1)
    np.random.seed(1)

    ## Set up the dataset
    mnist_dl = DataLoader(mnist_dataset, batch_size=batch_size,
                          shuffle=shuffle, drop_last=True)

    ## Set up the models
    gen_model = make_generator_network(
        input_size=z_size,
        num_hidden_layers=gen_hidden_layers,
        num_hidden_units=gen_hidden_size,
        num_output_units=np.prod(image_size)).to(device)
    init(gen_model)

    disc_model = make_discriminator_network(
        input_size=np.prod(image_size),
        num_hidden_layers=disc_hidden_layers,
        num_hidden_units=disc_hidden_size).to(device)
    init(disc_model)

    ## Loss function and optimizers:
    loss_fn = nn.BCELoss()
    g_optimizer = torch.optim.Adam(gen_model.parameters())
    d_optimizer = torch.optim.Adam(disc_model.parameters())

    ## Train the discriminator
    def d_train(x):
        disc_model.zero_grad()

        # Train discriminator with a real batch
        batch_size = x.size(0)
        x = x.view(batch_size, -1).to(device)
        d_labels_real = torch.ones(batch_size, 1, device=device)

        d_proba_real = disc_model(x)
        d_loss_real = loss_fn(d_proba_real, d_labels_real)

        # Train discriminator on a fake batch
        input_z = create_noise(batch_size, z_size, mode_z).to(device)
        g_output = gen_model(input_z)

        d_proba_fake = disc_model(g_output)
        d_labels_fake = torch.zeros(batch_size, 1, device=device)
        d_loss_fake = loss_fn(d_proba_fake, d_labels_fake)

        # gradient backprop & optimize ONLY D's parameters
        d_loss = d_loss_real + d_loss_fake
        d_loss.backward()
        d_optimizer.step()

        return d_loss.data.item(), d_proba_real.detach(), d_proba_fake.detach()

    ## Train the generator
    def g_train(x):
        gen_model.zero_grad()

        batch_size = x.size(0)
        input_z = create_noise(batch_size, z_size, mode_z).to(device)
        g_labels_real = torch.ones(batch_size, 1, device=device)

        g_output = gen_model(input_z)
        d_proba_fake = disc_model(g_output)
        g_loss = loss_fn(d_proba_fake, g_labels_real)

        # gradient backprop & optimize ONLY G's parameters
        g_loss.backward()
        g_optimizer.step()

        return g_loss.data.item()

    fixed_z = create_noise(batch_size, z_size, mode_z).to(device)

    def create_samples(g_model, input_z):
        g_output = g_model(input_z)
        images = torch.reshape(g_output, (batch_size, *image_size))
        return (images+1)/2.0

    epoch_samples = []

    all_d_losses = []
    all_g_losses = []

    all_d_real = []
    all_d_fake = []
    results['d_losses'], results['g_losses'] = [], []

    torch.manual_seed(1)
    for epoch in range(1, num_epochs+1):
        d_losses, g_losses = [], []
        d_vals_real, d_vals_fake = [], []
        for i, (x, _) in enumerate(mnist_dl):
            d_loss, d_proba_real, d_proba_fake = d_train(x)
            d_losses.append(d_loss)
            g_losses.append(g_train(x))

            d_vals_real.append(d_proba_real.mean().cpu())
            d_vals_fake.append(d_proba_fake.mean().cpu())

        all_d_losses.append(torch.tensor(d_losses).mean())
        all_g_losses.append(torch.tensor(g_losses).mean())
        all_d_real.append(torch.tensor(d_vals_real).mean())
        all_d_fake.append(torch.tensor(d_vals_fake).mean())
        log(f'Epoch {epoch:03d} | Avg Losses >>'
            f' G/D {all_g_losses[-1]:.4f}/{all_d_losses[-1]:.4f}'
            f' [D-Real: {all_d_real[-1]:.4f} D-Fake: {all_d_fake[-1]:.4f}]')
        epoch_samples.append(
            create_samples(gen_model, fixed_z).detach().cpu().numpy())
        results['d_losses'] += d_losses
        results['g_losses'] += g_losses

    half_d_losses = [all_d_loss/2 for all_d_loss in all_d_losses]
    results['curves'] = [[float(v) for v in c] for c in
                         (all_g_losses, half_d_losses, all_d_real, all_d_fake)]
    results['samples'] = [s.tolist() for s in epoch_samples]
    return results, gen_model


if __name__ == "__main__":
    import pyad as torch
    run(torch)
