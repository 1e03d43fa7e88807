"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_loadsave.py``: save a checkpoint (the model's and the Adam
optimizer's ``state_dict``) with ``torch.save`` and load it back with ``torch.load``,
``load_state_dict`` and the optimizer's ``load_state_dict``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). ``torchvision.models.vgg16``
is a small stand-in with VGG's layout (``features`` of ``Conv2d``/``ReLU``/``MaxPool2d``,
``avgpool``, a ``classifier`` of ``Linear``/``ReLU``/``Dropout``), whose widths are
``run``'s keyword arguments; the checkpoint file is ``filename`` (a temporary path in
the tests); ``print`` is ``log``. ``run`` returns the model, the optimizer and the
checkpoint it saved.

Run it with ``python examples/ported/aladdin_loadsave.py``.
"""
import os
import tempfile


def run(torch, filename=None, widths=(8, 16), hidden=32, init=None, log=print):
    nn = torch.nn  # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions
    optim = torch.optim  # For all Optimization algorithms, SGD, Adam, etc.
    filename = filename or os.path.join(tempfile.mkdtemp(), "my_checkpoint.pth.tar")

    def vgg16(weights=None):
        # the smallest stand-in for torchvision.models.vgg16 (its layout, narrow)
        layers, in_channels = [], 3
        for v in widths:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(True),
                       nn.MaxPool2d(kernel_size=2, stride=2)]
            in_channels = v
        model = nn.Module()
        model.features = nn.Sequential(*layers)
        model.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        model.classifier = nn.Sequential(
            nn.Linear(in_channels * 4, hidden), nn.ReLU(True), nn.Dropout(),
            nn.Linear(hidden, 10))
        return model

    def save_checkpoint(state, filename="my_checkpoint.pth.tar"):
        log("=> Saving checkpoint")
        torch.save(state, filename)

    def load_checkpoint(checkpoint, model, optimizer):
        log("=> Loading checkpoint")
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"])

    def main():
        # Initialize network
        model = vgg16(
            weights=None
        )  # pretrained=False deprecated, use weights instead
        if init is not None:
            init(model)
        optimizer = optim.Adam(model.parameters())

        checkpoint = {"state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}
        # Try save checkpoint
        save_checkpoint(checkpoint, filename)

        # Try load checkpoint
        load_checkpoint(torch.load(filename), model, optimizer)
        return model, optimizer, checkpoint

    return main()


if __name__ == "__main__":
    import pyad as torch
    run(torch)
