"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_init_weights.py``: a small ``CNN`` whose
``initialize_weights`` walks ``self.modules()`` with ``nn.init.kaiming_uniform_`` and
``nn.init.constant_``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). ``print`` is ``log``; the
``__main__`` block is ``run``, which returns the model (its parameters are what the text
prints) and, given an input ``x``, the model's output.

Run it with ``python examples/ported/aladdin_init_weights.py``.
"""


def run(torch, x=None, init=None, log=print):
    nn = torch.nn  # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions
    F = torch.nn.functional  # All functions that don't have any parameters

    class CNN(nn.Module):
        def __init__(self, in_channels, num_classes):
            super(CNN, self).__init__()
            self.conv1 = nn.Conv2d(in_channels=in_channels, out_channels=6, kernel_size=(3,3), stride=(1,1), padding=(1,1))
            self.pool = nn.MaxPool2d(kernel_size=(2,2), stride = (2,2))
            self.conv2 = nn.Conv2d(in_channels=6, out_channels=16, kernel_size=(3,3), stride=(1,1), padding=(1,1))
            self.fc1 = nn.Linear(16*7*7, num_classes)
            self.initialize_weights()

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = self.pool(x)
            x = F.relu(self.conv2(x))
            x = self.pool(x)
            x = x.reshape(x.shape[0], -1)
            x = self.fc1(x)

            return x

        def initialize_weights(self):
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_uniform_(m.weight)

                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)

                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

                elif isinstance(m, nn.Linear):
                    nn.init.kaiming_uniform_(m.weight)
                    nn.init.constant_(m.bias, 0)

    model = CNN(in_channels=3,num_classes=10)

    for param in model.parameters():
        log(param)
    if init is not None:
        init(model)
    return model, (model(x) if x is not None else None)


if __name__ == "__main__":
    import pyad as torch
    run(torch)
