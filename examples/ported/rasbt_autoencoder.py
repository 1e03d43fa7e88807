"""Port of rasbt/deeplearning-models ``pytorch_ipynb/autoencoder/ae-basic.ipynb``: a
single-layer autoencoder (784 -> 32 -> 784, ``F.leaky_relu``, ``torch.sigmoid``) trained
with ``F.binary_cross_entropy`` and Adam, then the reconstructions of the first images.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape in [0, 1] (of the default dtype) and random labels in
``TensorDataset``s; ``print`` is ``log``; the notebook's cells run in order in ``run``,
whose keyword arguments are the epochs, batch size, set size and the training loader's
shuffling (the text's sizes are only hyperparameters: smaller in the tests). The
evaluation cell's matplotlib figure is dropped and the original and decoded images it
shows are returned (as NumPy arrays); the unused test set and the ``%watermark`` cells
are dropped. The text's decoder lines re-initialise ``linear_1`` (not ``linear_2``):
kept as written. Each step's loss is returned.

Run it with ``python examples/ported/rasbt_autoencoder.py``.
"""
import time

import numpy as np


def run(torch, num_epochs=5, batch_size=256, n_train=1024, shuffle=True, seed=0,
        init=None, log=print):
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

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
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    log('Device:', device)

    # Hyperparameters
    random_seed = 123
    learning_rate = 0.005

    # Architecture
    num_features = 784
    num_hidden_1 = 32


    ##########################
    ### MNIST DATASET
    ##########################

    # Note transforms.ToTensor() scales input images
    # to 0-1 range
    train_dataset = mnist(n_train)


    train_loader = DataLoader(dataset=train_dataset,
                              batch_size=batch_size,
                              shuffle=shuffle)

    # Checking the dataset
    for images, labels in train_loader:
        log('Image batch dimensions:', images.shape)
        log('Image label dimensions:', labels.shape)
        break

    ##########################
    ### MODEL
    ##########################

    class Autoencoder(torch.nn.Module):

        def __init__(self, num_features):
            super(Autoencoder, self).__init__()

            ### ENCODER
            self.linear_1 = torch.nn.Linear(num_features, num_hidden_1)
            # The following to lones are not necessary,
            # but used here to demonstrate how to access the weights
            # and use a different weight initialization.
            # By default, PyTorch uses Xavier/Glorot initialization, which
            # should usually be preferred.
            self.linear_1.weight.detach().normal_(0.0, 0.1)
            self.linear_1.bias.detach().zero_()

            ### DECODER
            self.linear_2 = torch.nn.Linear(num_hidden_1, num_features)
            self.linear_1.weight.detach().normal_(0.0, 0.1)
            self.linear_1.bias.detach().zero_()


        def forward(self, x):

            ### ENCODER
            encoded = self.linear_1(x)
            encoded = F.leaky_relu(encoded)

            ### DECODER
            logits = self.linear_2(encoded)
            decoded = torch.sigmoid(logits)

            return decoded


    torch.manual_seed(random_seed)
    model = Autoencoder(num_features=num_features)
    model = model.to(device)
    if init is not None:
        init(model)

    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    ## Training

    start_time = time.time()
    for epoch in range(num_epochs):
        for batch_idx, (features, targets) in enumerate(train_loader):

            # don't need labels, only the images (features)
            features = features.view(-1, 28*28).to(device)

            ### FORWARD AND BACK PROP
            decoded = model(features)
            cost = F.binary_cross_entropy(decoded, features)
            optimizer.zero_grad()

            cost.backward()

            ### UPDATE MODEL PARAMETERS
            optimizer.step()
            results.append(cost.item())

            ### LOGGING
            if not batch_idx % 50:
                log ('Epoch: %03d/%03d | Batch %03d/%03d | Cost: %.4f'
                       %(epoch+1, num_epochs, batch_idx,
                         len(train_loader), cost))

        log('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    log('Total Training Time: %.2f min' % ((time.time() - start_time)/60))

    ##########################
    ### VISUALIZATION
    ##########################

    n_images = 15
    image_width = 28

    orig_images = features[:n_images]
    decoded_images = decoded[:n_images]

    images = []
    for i in range(n_images):
        for img in [orig_images, decoded_images]:
            curr_img = img[i].detach().to(torch.device('cpu'))
            images.append(curr_img.view((image_width, image_width)).numpy())
    return results, images


if __name__ == "__main__":
    import pyad as torch
    run(torch)
