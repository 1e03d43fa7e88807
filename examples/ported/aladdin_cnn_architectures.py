"""Port of aladdinpersson/Machine-Learning-Collection ``ML/Pytorch/CNN_architectures``:
``lenet5_pytorch.py`` (``LeNet``), ``pytorch_vgg_implementation.py`` (``VGG_net``),
``pytorch_resnet.py`` (``ResNet`` of bottleneck ``block``s: ResNet50/101/152) and
``pytorch_inceptionet.py`` (``GoogLeNet`` with ``Inception_block``, ``InceptionAux`` and
``conv_block``), each file's test and ``__main__`` block.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). Each file is a function
``<file>(torch, ...)`` whose body is the file's text and which returns its names; ``print``
is ``log``. The channel counts of VGG, ResNet and GoogLeNet are hyperparameters of the
architectures (not of the input's size): each is divided by ``width`` (1 keeps the texts'
sizes; the tests use 16, so that VGG16 at 224x224 and GoogLeNet's 224x224 input run in a
second), the VGG's 4096-wide classifier too; the layer counts, kernels, strides and
paddings are as written, and so are LeNet's sizes. The batch sizes of the texts' tests
are keywords (``N``). ``pytorch_resnet.py``'s ``forward`` ends with
``x = self.softmax(1)`` (the module called on the number 1), which raises in torch: the
port's default passes ``x`` (``softmax_of_one=True`` runs the text's line, checked to
raise in both frameworks); its ``test()`` moves the output to CUDA: the port's
``test()`` leaves it on the CPU, and the file's module-level ``test()`` call is
``run``'s forward. The texts train nothing: ``run`` adds one training step
(``CrossEntropyLoss``, ``SGD(lr=0.01, momentum=0.9)``) after the forward, summing
GoogLeNet's two auxiliary losses with weight 0.3 (the paper's) to its main loss.
``run`` returns the outputs, the loss, every parameter's gradient and the model.

Run it with ``python examples/ported/aladdin_cnn_architectures.py``.
"""


def lenet5(torch):
    nn = torch.nn  # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions

    class LeNet(nn.Module):
        def __init__(self):
            super(LeNet, self).__init__()
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
            self.conv1 = nn.Conv2d(
                in_channels=1,
                out_channels=6,
                kernel_size=5,
                stride=1,
                padding=0,
            )
            self.conv2 = nn.Conv2d(
                in_channels=6,
                out_channels=16,
                kernel_size=5,
                stride=1,
                padding=0,
            )
            self.conv3 = nn.Conv2d(
                in_channels=16,
                out_channels=120,
                kernel_size=5,
                stride=1,
                padding=0,
            )
            self.linear1 = nn.Linear(120, 84)
            self.linear2 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.pool(x)
            x = self.relu(self.conv2(x))
            x = self.pool(x)
            x = self.relu(
                self.conv3(x)
            )  # num_examples x 120 x 1 x 1 --> num_examples x 120
            x = x.reshape(x.shape[0], -1)
            x = self.relu(self.linear1(x))
            x = self.linear2(x)
            return x

    def test_lenet(N=64):
        x = torch.randn(N, 1, 32, 32)
        model = LeNet()
        return model(x)

    return dict(LeNet=LeNet, test_lenet=test_lenet)


def vgg(torch, width=1):
    nn = torch.nn  # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions

    VGG_types = {
        "VGG11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
        "VGG13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
        "VGG16": [
            64, 64, "M", 128, 128, "M", 256, 256, 256, "M",
            512, 512, 512, "M", 512, 512, 512, "M",
        ],
        "VGG19": [
            64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M",
            512, 512, 512, 512, "M", 512, 512, 512, 512, "M",
        ],
    }
    # the port's one change: every width divided by ``width``
    VGG_types = {k: [v // width if type(v) == int else v for v in a]
                 for k, a in VGG_types.items()}

    class VGG_net(nn.Module):
        def __init__(self, in_channels=3, num_classes=1000):
            super(VGG_net, self).__init__()
            self.in_channels = in_channels
            self.conv_layers = self.create_conv_layers(VGG_types["VGG16"])

            self.fcs = nn.Sequential(
                nn.Linear(512 // width * 7 * 7, 4096 // width),
                nn.ReLU(),
                nn.Dropout(p=0.5),
                nn.Linear(4096 // width, 4096 // width),
                nn.ReLU(),
                nn.Dropout(p=0.5),
                nn.Linear(4096 // width, num_classes),
            )

        def forward(self, x):
            x = self.conv_layers(x)
            x = x.reshape(x.shape[0], -1)
            x = self.fcs(x)
            return x

        def create_conv_layers(self, architecture):
            layers = []
            in_channels = self.in_channels

            for x in architecture:
                if type(x) == int:
                    out_channels = x

                    layers += [
                        nn.Conv2d(
                            in_channels=in_channels,
                            out_channels=out_channels,
                            kernel_size=(3, 3),
                            stride=(1, 1),
                            padding=(1, 1),
                        ),
                        nn.BatchNorm2d(x),
                        nn.ReLU(),
                    ]
                    in_channels = x
                elif x == "M":
                    layers += [nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2))]

            return nn.Sequential(*layers)

    return dict(VGG_types=VGG_types, VGG_net=VGG_net)


def resnet(torch, width=1, softmax_of_one=False):
    nn = torch.nn

    class block(nn.Module):
        def __init__(
            self, in_channels, intermediate_channels, identity_downsample=None, stride=1
        ):
            super(block, self).__init__()
            self.expansion = 4
            self.conv1 = nn.Conv2d(
                in_channels, intermediate_channels, kernel_size=1, stride=1, padding=0, bias=False
            )
            self.bn1 = nn.BatchNorm2d(intermediate_channels)
            self.conv2 = nn.Conv2d(
                intermediate_channels,
                intermediate_channels,
                kernel_size=3,
                stride=stride,
                padding=1,
                bias=False
            )
            self.bn2 = nn.BatchNorm2d(intermediate_channels)
            self.conv3 = nn.Conv2d(
                intermediate_channels,
                intermediate_channels * self.expansion,
                kernel_size=1,
                stride=1,
                padding=0,
                bias=False
            )
            self.bn3 = nn.BatchNorm2d(intermediate_channels * self.expansion)
            self.relu = nn.ReLU()
            self.identity_downsample = identity_downsample
            self.stride = stride

        def forward(self, x):
            identity = x.clone()

            x = self.conv1(x)
            x = self.bn1(x)
            x = self.relu(x)
            x = self.conv2(x)
            x = self.bn2(x)
            x = self.relu(x)
            x = self.conv3(x)
            x = self.bn3(x)

            if self.identity_downsample is not None:
                identity = self.identity_downsample(identity)

            x += identity
            x = self.relu(x)
            return x

    class ResNet(nn.Module):
        def __init__(self, block, layers, image_channels, num_classes):
            super(ResNet, self).__init__()
            self.in_channels = 64 // width
            self.conv1 = nn.Conv2d(image_channels, 64 // width, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64 // width)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

            # Essentially the entire ResNet architecture are in these 4 lines below
            self.layer1 = self._make_layer(
                block, layers[0], intermediate_channels=64 // width, stride=1
            )
            self.layer2 = self._make_layer(
                block, layers[1], intermediate_channels=128 // width, stride=2
            )
            self.layer3 = self._make_layer(
                block, layers[2], intermediate_channels=256 // width, stride=2
            )
            self.layer4 = self._make_layer(
                block, layers[3], intermediate_channels=512 // width, stride=2
            )

            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512 // width * 4, num_classes)
            self.softmax = nn.Softmax(dim=1)

        def forward(self, x):
            x = self.conv1(x)
            x = self.bn1(x)
            x = self.relu(x)
            x = self.maxpool(x)
            x = self.layer1(x)
            x = self.layer2(x)
            x = self.layer3(x)
            x = self.layer4(x)

            x = self.avgpool(x)
            x = x.reshape(x.shape[0], -1)
            x = self.fc(x)
            x = self.softmax(1 if softmax_of_one else x)
            return x

        def _make_layer(self, block, num_residual_blocks, intermediate_channels, stride):
            identity_downsample = None
            layers = []

            # Either if we half the input space for ex, 56x56 -> 28x28 (stride=2), or channels changes
            # we need to adapt the Identity (skip connection) so it will be able to be added
            # to the layer that's ahead
            if stride != 1 or self.in_channels != intermediate_channels * 4:
                identity_downsample = nn.Sequential(
                    nn.Conv2d(
                        self.in_channels,
                        intermediate_channels * 4,
                        kernel_size=1,
                        stride=stride,
                        bias=False
                    ),
                    nn.BatchNorm2d(intermediate_channels * 4),
                )

            layers.append(
                block(self.in_channels, intermediate_channels, identity_downsample, stride)
            )

            # The expansion size is always 4 for ResNet 50,101,152
            self.in_channels = intermediate_channels * 4

            # For example for first resnet layer: 256 will be mapped to 64 as intermediate layer,
            # then finally back to 256. Hence no identity downsample is needed, since stride = 1,
            # and also same amount of channels.
            for i in range(num_residual_blocks - 1):
                layers.append(block(self.in_channels, intermediate_channels))

            return nn.Sequential(*layers)

    def ResNet50(img_channel=3, num_classes=1000):
        return ResNet(block, [3, 4, 6, 3], img_channel, num_classes)

    def ResNet101(img_channel=3, num_classes=1000):
        return ResNet(block, [3, 4, 23, 3], img_channel, num_classes)

    def ResNet152(img_channel=3, num_classes=1000):
        return ResNet(block, [3, 8, 36, 3], img_channel, num_classes)

    def test(N=4, size=224):
        net = ResNet101(img_channel=3, num_classes=1000)
        y = net(torch.randn(N, 3, size, size))
        return y.size()

    return dict(block=block, ResNet=ResNet, ResNet50=ResNet50, ResNet101=ResNet101,
                ResNet152=ResNet152, test=test)


def inceptionet(torch, width=1):
    nn = torch.nn  # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions
    w = width

    class GoogLeNet(nn.Module):
        def __init__(self, aux_logits=True, num_classes=1000):
            super(GoogLeNet, self).__init__()
            assert aux_logits == True or aux_logits == False
            self.aux_logits = aux_logits

            # Write in_channels, etc, all explicit in self.conv1, rest will write to
            # make everything as compact as possible, kernel_size=3 instead of (3,3)
            self.conv1 = conv_block(
                in_channels=3,
                out_channels=64 // w,
                kernel_size=(7, 7),
                stride=(2, 2),
                padding=(3, 3),
            )

            self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.conv2 = conv_block(64 // w, 192 // w, kernel_size=3, stride=1, padding=1)
            self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

            # In this order: in_channels, out_1x1, red_3x3, out_3x3, red_5x5, out_5x5, out_1x1pool
            self.inception3a = Inception_block(192, 64, 96, 128, 16, 32, 32)
            self.inception3b = Inception_block(256, 128, 128, 192, 32, 96, 64)
            self.maxpool3 = nn.MaxPool2d(kernel_size=(3, 3), stride=2, padding=1)

            self.inception4a = Inception_block(480, 192, 96, 208, 16, 48, 64)
            self.inception4b = Inception_block(512, 160, 112, 224, 24, 64, 64)
            self.inception4c = Inception_block(512, 128, 128, 256, 24, 64, 64)
            self.inception4d = Inception_block(512, 112, 144, 288, 32, 64, 64)
            self.inception4e = Inception_block(528, 256, 160, 320, 32, 128, 128)
            self.maxpool4 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

            self.inception5a = Inception_block(832, 256, 160, 320, 32, 128, 128)
            self.inception5b = Inception_block(832, 384, 192, 384, 48, 128, 128)

            self.avgpool = nn.AvgPool2d(kernel_size=7, stride=1)
            self.dropout = nn.Dropout(p=0.4)
            self.fc1 = nn.Linear(1024 // w, num_classes)

            if self.aux_logits:
                self.aux1 = InceptionAux(512, num_classes)
                self.aux2 = InceptionAux(528, num_classes)
            else:
                self.aux1 = self.aux2 = None

        def forward(self, x):
            x = self.conv1(x)
            x = self.maxpool1(x)
            x = self.conv2(x)
            # x = self.conv3(x)
            x = self.maxpool2(x)

            x = self.inception3a(x)
            x = self.inception3b(x)
            x = self.maxpool3(x)

            x = self.inception4a(x)

            # Auxiliary Softmax classifier 1
            if self.aux_logits and self.training:
                aux1 = self.aux1(x)

            x = self.inception4b(x)
            x = self.inception4c(x)
            x = self.inception4d(x)

            # Auxiliary Softmax classifier 2
            if self.aux_logits and self.training:
                aux2 = self.aux2(x)

            x = self.inception4e(x)
            x = self.maxpool4(x)
            x = self.inception5a(x)
            x = self.inception5b(x)
            x = self.avgpool(x)
            x = x.reshape(x.shape[0], -1)
            x = self.dropout(x)
            x = self.fc1(x)

            if self.aux_logits and self.training:
                return aux1, aux2, x
            else:
                return x

    class Inception_block(nn.Module):
        def __init__(
            self, in_channels, out_1x1, red_3x3, out_3x3, red_5x5, out_5x5, out_1x1pool
        ):
            super(Inception_block, self).__init__()
            # the port's one change: every width divided by ``width``
            in_channels, out_1x1, red_3x3, out_3x3, red_5x5, out_5x5, out_1x1pool = (
                max(v // w, 1) for v in (in_channels, out_1x1, red_3x3, out_3x3,
                                         red_5x5, out_5x5, out_1x1pool))
            self.branch1 = conv_block(in_channels, out_1x1, kernel_size=(1, 1))

            self.branch2 = nn.Sequential(
                conv_block(in_channels, red_3x3, kernel_size=(1, 1)),
                conv_block(red_3x3, out_3x3, kernel_size=(3, 3), padding=(1, 1)),
            )

            self.branch3 = nn.Sequential(
                conv_block(in_channels, red_5x5, kernel_size=(1, 1)),
                conv_block(red_5x5, out_5x5, kernel_size=(5, 5), padding=(2, 2)),
            )

            self.branch4 = nn.Sequential(
                nn.MaxPool2d(kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)),
                conv_block(in_channels, out_1x1pool, kernel_size=(1, 1)),
            )

        def forward(self, x):
            return torch.cat(
                [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1
            )

    class InceptionAux(nn.Module):
        def __init__(self, in_channels, num_classes):
            super(InceptionAux, self).__init__()
            self.relu = nn.ReLU()
            self.dropout = nn.Dropout(p=0.7)
            self.pool = nn.AvgPool2d(kernel_size=5, stride=3)
            self.conv = conv_block(in_channels // w, 128 // w, kernel_size=1)
            self.fc1 = nn.Linear(2048 // w, 1024 // w)
            self.fc2 = nn.Linear(1024 // w, num_classes)

        def forward(self, x):
            x = self.pool(x)
            x = self.conv(x)
            x = x.reshape(x.shape[0], -1)
            x = self.relu(self.fc1(x))
            x = self.dropout(x)
            x = self.fc2(x)

            return x

    class conv_block(nn.Module):
        def __init__(self, in_channels, out_channels, **kwargs):
            super(conv_block, self).__init__()
            self.relu = nn.ReLU()
            self.conv = nn.Conv2d(in_channels, out_channels, **kwargs)
            self.batchnorm = nn.BatchNorm2d(out_channels)

        def forward(self, x):
            return self.relu(self.batchnorm(self.conv(x)))

    return dict(GoogLeNet=GoogLeNet, Inception_block=Inception_block,
                InceptionAux=InceptionAux, conv_block=conv_block)


def run(torch, model="LeNet", width=1, N=2, num_classes=1000, size=224,
        softmax_of_one=False, seed=0, init=None, log=print):
    """The file's ``__main__`` forward (its test for LeNet and ResNet) on ``N`` inputs,
    then one training step."""
    import numpy as np
    rng = np.random.RandomState(seed)
    if model == "LeNet":
        names = lenet5(torch)
        net = names["LeNet"]()
        num_classes = 10
        shape = (N, 1, 32, 32)
    elif model == "VGG16":
        names = vgg(torch, width)
        device = "cuda" if torch.cuda.is_available() else "cpu"
        net = names["VGG_net"](in_channels=3, num_classes=num_classes).to(device)
        log(net)
        shape = (N, 3, 224, 224)
    elif model.startswith("ResNet"):
        names = resnet(torch, width, softmax_of_one)
        net = names[model](img_channel=3, num_classes=num_classes)
        shape = (N, 3, size, size)
    elif model == "GoogLeNet":
        names = inceptionet(torch, width)
        net = names["GoogLeNet"](aux_logits=True, num_classes=num_classes)
        shape = (N, 3, 224, 224)
    if init is not None:
        init(net)
    x = torch.tensor(rng.standard_normal(shape), dtype=torch.get_default_dtype())
    y = torch.tensor(rng.randint(0, num_classes, N))
    out = net(x)
    if model == "GoogLeNet":
        log(out[2].shape)
        loss = torch.nn.functional.cross_entropy(out[2], y) + 0.3 * (
            torch.nn.functional.cross_entropy(out[0], y) +
            torch.nn.functional.cross_entropy(out[1], y))
    else:
        log(out.shape)
        loss = torch.nn.functional.cross_entropy(out, y)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    optimizer.zero_grad()
    loss.backward()
    grads = {k: (p.grad.detach().clone() if p.grad is not None else None)
             for k, p in net.named_parameters()}
    optimizer.step()
    return dict(outputs=out, loss=loss.item(), grads=grads, net=net)


if __name__ == "__main__":
    import pyad as torch
    run(torch, model="LeNet")
    run(torch, model="GoogLeNet", width=16)
