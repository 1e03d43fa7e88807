"""Port of rasbt/deeplearning-models ``pytorch_ipynb/gan/gan.ipynb``: a fully connected
GAN (generator ``Linear``-``LeakyReLU(inplace=True)``-``Dropout``-``Linear``-``Tanh``,
discriminator ``Linear``-``LeakyReLU``-``Dropout``-``Linear``-``Sigmoid``) trained on MNIST
with ``F.binary_cross_entropy`` and two Adams, the generator's noise drawn by
``torch.zeros(...).uniform_(-1.0, 1.0)``, then five generated images.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape in [0, 1] (of the default dtype) and random labels in
``TensorDataset``s; ``print`` is ``log``; the notebook's cells run in order in ``run``,
whose keyword arguments are the epochs, batch size, set sizes and the training loader's
shuffling (the text's sizes are only hyperparameters: smaller in the tests; the layers
as written). The matplotlib cells are dropped: the losses they plot (the text's
``discr_costs`` and ``gener_costs``, as floats) and the five generated images they show
(as NumPy arrays) are returned. The text's ``discriminator_forward`` reads the global
``model`` (not ``self``): kept as written (``model`` is ``run``'s). In the tests the
``uniform_`` draws and the ``Dropout`` masks come from a shared NumPy stream through the
namespace proxy. The ``%watermark`` cells are dropped.

Run it with ``python examples/ported/rasbt_gan.py``.
"""
import time

import numpy as np


def run(torch, num_epochs=100, batch_size=128, n_train=1024, n_test=256, shuffle=True,
        seed=0, init=None, log=print):
    F = torch.nn.functional
    nn = torch.nn
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 28, 28), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))

    if torch.cuda.is_available():
        torch.backends.cudnn.deterministic = True

    ##########################
    ### SETTINGS
    ##########################

    # Device
    device = torch.device("cuda:2" if torch.cuda.is_available() else "cpu")

    # Hyperparameters
    random_seed = 123
    generator_learning_rate = 0.001
    discriminator_learning_rate = 0.001
    LATENT_DIM = 100
    IMG_SHAPE = (1, 28, 28)
    IMG_SIZE = 1
    for x in IMG_SHAPE:
        IMG_SIZE *= x



    ##########################
    ### MNIST DATASET
    ##########################

    # Note transforms.ToTensor() scales input images
    # to 0-1 range
    train_dataset = mnist(n_train)

    test_dataset = mnist(n_test)


    train_loader = DataLoader(dataset=train_dataset,
                              batch_size=batch_size,
                              shuffle=shuffle)

    test_loader = DataLoader(dataset=test_dataset,
                             batch_size=batch_size,
                             shuffle=False)

    # Checking the dataset
    for images, labels in train_loader:
        log('Image batch dimensions:', images.shape)
        log('Image label dimensions:', labels.shape)
        break

    ##########################
    ### MODEL
    ##########################


    class GAN(torch.nn.Module):

        def __init__(self):
            super(GAN, self).__init__()


            self.generator = nn.Sequential(
                nn.Linear(LATENT_DIM, 128),
                nn.LeakyReLU(inplace=True),
                nn.Dropout(p=0.5),
                nn.Linear(128, IMG_SIZE),
                nn.Tanh()
            )

            self.discriminator = nn.Sequential(
                nn.Linear(IMG_SIZE, 128),
                nn.LeakyReLU(inplace=True),
                nn.Dropout(p=0.5),
                nn.Linear(128, 1),
                nn.Sigmoid()
            )


        def generator_forward(self, z):
            img = self.generator(z)
            return img

        def discriminator_forward(self, img):
            pred = model.discriminator(img)
            return pred.view(-1)

    torch.manual_seed(random_seed)

    model = GAN()
    model = model.to(device)
    if init is not None:
        init(model)

    optim_gener = torch.optim.Adam(model.generator.parameters(), lr=generator_learning_rate)
    optim_discr = torch.optim.Adam(model.discriminator.parameters(), lr=discriminator_learning_rate)

    ## Training

    start_time = time.time()

    discr_costs = []
    gener_costs = []
    for epoch in range(num_epochs):
        model = model.train()
        for batch_idx, (features, targets) in enumerate(train_loader):



            features = (features - 0.5)*2.
            features = features.view(-1, IMG_SIZE).to(device)
            targets = targets.to(device)

            valid = torch.ones(targets.size(0)).float().to(device)
            fake = torch.zeros(targets.size(0)).float().to(device)


            ### FORWARD AND BACK PROP


            # --------------------------
            # Train Generator
            # --------------------------

            # Make new images
            z = torch.zeros((targets.size(0), LATENT_DIM)).uniform_(-1.0, 1.0).to(device)
            generated_features = model.generator_forward(z)

            # Loss for fooling the discriminator
            discr_pred = model.discriminator_forward(generated_features)

            gener_loss = F.binary_cross_entropy(discr_pred, valid)

            optim_gener.zero_grad()
            gener_loss.backward()
            optim_gener.step()

            # --------------------------
            # Train Discriminator
            # --------------------------

            discr_pred_real = model.discriminator_forward(features.view(-1, IMG_SIZE))
            real_loss = F.binary_cross_entropy(discr_pred_real, valid)

            discr_pred_fake = model.discriminator_forward(generated_features.detach())
            fake_loss = F.binary_cross_entropy(discr_pred_fake, fake)

            discr_loss = 0.5*(real_loss + fake_loss)

            optim_discr.zero_grad()
            discr_loss.backward()
            optim_discr.step()

            discr_costs.append(discr_loss)
            gener_costs.append(gener_loss)


            ### LOGGING
            if not batch_idx % 100:
                log ('Epoch: %03d/%03d | Batch %03d/%03d | Gen/Dis Loss: %.4f/%.4f'
                       %(epoch+1, num_epochs, batch_idx,
                         len(train_loader), gener_loss, discr_loss))

        log('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    log('Total Training Time: %.2f min' % ((time.time() - start_time)/60))

    ## Evaluation

    ##########################
    ### VISUALIZATION
    ##########################


    model.eval()
    # Make new images
    z = torch.zeros((5, LATENT_DIM)).uniform_(-1.0, 1.0).to(device)
    generated_features = model.generator_forward(z)
    imgs = generated_features.view(-1, 28, 28)

    images = []
    for i in range(5):
        images.append(imgs[i].to(torch.device('cpu')).detach().numpy())
    costs = [float(c) for pair in zip(gener_costs, discr_costs) for c in pair]
    return costs, images


if __name__ == "__main__":
    import pyad as torch
    run(torch)
