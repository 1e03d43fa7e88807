"""Port of yunjey/pytorch-tutorial ``tutorials/01-basics/pytorch_basics/main.py``: autograd
on scalars, one SGD step of a ``Linear`` layer, the NumPy bridge, an input pipeline
through ``DataLoader``, a custom ``Dataset``, a model whose top layer is replaced for
finetuning, and saving/loading.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is a synthetic
``TensorDataset`` of the same image shape (fewer images); ``data_iter.next()`` (Python
2) is ``next(data_iter)``; the custom ``Dataset`` of length 0 gets a ``DataLoader``
without ``shuffle`` (torch 2.13's ``RandomSampler`` refuses an empty data set, as the
original line does there); the pretrained ResNet-18 (torchvision, downloaded weights) is
a small stand-in ``nn.Sequential`` with the same ``fc`` attribute, on a smaller batch;
the checkpoints go to ``directory``. ``torch.save(resnet, ...)`` (the whole module) is
``save_entire_model``: pyad's checkpoint format holds no code and refuses modules.
``print`` is ``log``; ``run`` returns what the text prints.

Run it with ``python examples/ported/yunjey_pytorch_basics.py``.
"""
import collections
import os
import tempfile

import numpy as np


def run(torch, directory=None, n_images=10, seed=0, shuffle=True, init=None, log=print):
    nn = torch.nn
    out = {}
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)

    # ================================================================== #
    #                     1. Basic autograd example 1                    #
    # ================================================================== #

    # Create tensors.
    x = torch.tensor(1., requires_grad=True)
    w = torch.tensor(2., requires_grad=True)
    b = torch.tensor(3., requires_grad=True)

    # Build a computational graph.
    y = w * x + b    # y = 2 * x + 3

    # Compute gradients.
    y.backward()

    # Print out the gradients.
    log(x.grad)    # x.grad = 2
    log(w.grad)    # w.grad = 1
    log(b.grad)    # b.grad = 1
    out["grads1"] = [x.grad, w.grad, b.grad]

    # ================================================================== #
    #                    2. Basic autograd example 2                     #
    # ================================================================== #

    # Create tensors of shape (10, 3) and (10, 2).
    x = torch.randn(10, 3)
    y = torch.randn(10, 2)

    # Build a fully connected layer.
    linear = nn.Linear(3, 2)
    if init is not None:
        init(linear)
    log('w: ', linear.weight)
    log('b: ', linear.bias)

    # Build loss function and optimizer.
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)

    # Forward pass.
    pred = linear(x)

    # Compute loss.
    loss = criterion(pred, y)
    log('loss: ', loss.item())
    out["loss"] = loss.item()

    # Backward pass.
    loss.backward()

    # Print out the gradients.
    log('dL/dw: ', linear.weight.grad)
    log('dL/db: ', linear.bias.grad)
    out["grads2"] = [linear.weight.grad.clone(), linear.bias.grad.clone()]

    # 1-step gradient descent.
    optimizer.step()

    # Print out the loss after 1-step gradient descent.
    pred = linear(x)
    loss = criterion(pred, y)
    log('loss after 1 step optimization: ', loss.item())
    out["loss_after"] = loss.item()

    # ================================================================== #
    #                     3. Loading data from numpy                     #
    # ================================================================== #

    # Create a numpy array.
    x = np.array([[1, 2], [3, 4]])

    # Convert the numpy array to a torch tensor.
    y = torch.from_numpy(x)

    # Convert the torch tensor to a numpy array.
    z = y.numpy()
    out["numpy"] = (y, z)

    # ================================================================== #
    #                         4. Input pipeline                          #
    # ================================================================== #

    # Synthetic CIFAR-10 (the shape of transforms.ToTensor()'s images).
    train_dataset = torch.utils.data.TensorDataset(
        torch.from_numpy(rng.rand(n_images, 3, 32, 32).astype(np.float32)),
        torch.from_numpy(rng.randint(0, 10, n_images)))

    # Fetch one data pair (read data from disk).
    image, label = train_dataset[0]
    log(image.size())
    log(label)
    out["pair"] = (tuple(image.size()), label)

    # Data loader (this provides queues and threads in a very simple way).
    train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                               batch_size=4,
                                               shuffle=shuffle)

    # When iteration starts, queue and thread start to load data from files.
    data_iter = iter(train_loader)

    # Mini-batch images and labels.
    images, labels = next(data_iter)
    out["first_batch"] = (images, labels)

    # Actual usage of the data loader is as below.
    sizes = []
    for images, labels in train_loader:
        # Training code should be written here.
        sizes.append(images.size(0))
    out["batch_sizes"] = sizes

    # ================================================================== #
    #                5. Input pipeline for custom dataset                #
    # ================================================================== #

    # You should build your custom dataset as below.
    class CustomDataset(torch.utils.data.Dataset):
        def __init__(self):
            # TODO
            # 1. Initialize file paths or a list of file names.
            pass

        def __getitem__(self, index):
            # TODO
            # 1. Read one data from file (e.g. using numpy.fromfile, PIL.Image.open).
            # 2. Preprocess the data (e.g. torchvision.Transform).
            # 3. Return a data pair (e.g. image and label).
            pass

        def __len__(self):
            # You should change 0 to the total size of your dataset.
            return 0

    # You can then use the prebuilt data loader.
    custom_dataset = CustomDataset()
    train_loader = torch.utils.data.DataLoader(dataset=custom_dataset,
                                               batch_size=64)
    out["custom_batches"] = len(list(train_loader))

    # ================================================================== #
    #                        6. Pretrained model                         #
    # ================================================================== #

    # torchvision.models.resnet18(pretrained=True), narrowed: a convolution, a global
    # average pool and the top layer ``fc``
    resnet = nn.Sequential(collections.OrderedDict([
        ('conv', nn.Conv2d(3, 8, 3, stride=2, padding=1)), ('relu', nn.ReLU()),
        ('avgpool', nn.AdaptiveAvgPool2d((1, 1))), ('flatten', nn.Flatten()),
        ('fc', nn.Linear(8, 1000))]))

    # If you want to finetune only the top layer of the model, set as below.
    for param in resnet.parameters():
        param.requires_grad = False

    # Replace the top layer for finetuning.
    resnet.fc = nn.Linear(resnet.fc.in_features, 100)  # 100 is an example.
    if init is not None:
        init(resnet)

    # Forward pass.
    images = torch.randn(4, 3, 32, 32)
    outputs = resnet(images)
    log(outputs.size())     # (4, 100)
    out["outputs"] = outputs
    out["trainable"] = [p.requires_grad for p in resnet.parameters()]

    # ================================================================== #
    #                      7. Save and load the model                    #
    # ================================================================== #

    # Save and load only the model parameters (recommended).
    torch.save(resnet.state_dict(), os.path.join(directory, 'params.ckpt'))
    result = resnet.load_state_dict(torch.load(os.path.join(directory, 'params.ckpt')))
    out["loaded"] = (list(result.missing_keys), list(result.unexpected_keys))
    out["outputs_loaded"] = resnet(images)
    out["model"] = resnet
    return out


def save_entire_model(torch, model, directory):
    """The tutorial's first save: the entire model (``torch.save(resnet, ...)``)."""
    # Save and load the entire model.
    torch.save(model, os.path.join(directory, 'model.ckpt'))
    return torch.load(os.path.join(directory, 'model.ckpt'), weights_only=False)


if __name__ == "__main__":
    import pyad as torch
    run(torch)
