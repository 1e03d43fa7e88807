"""Port of yunjey/pytorch-tutorial
``tutorials/02-intermediate/deep_residual_network/main.py``: a ResNet of
``ResidualBlock``s (``conv3x3``, ``BatchNorm2d``, ``ReLU(inplace=True)``, ``out +=
residual``) on CIFAR-10, Adam with the learning rate decayed through ``param_groups``.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is synthetic images
of its shape and random labels in a ``TensorDataset``, without the padding, flip and
crop augmentation (torchvision transforms, which draw from torch's generator). The
checkpoint goes to ``directory``; ``print`` is ``log``; the sizes (fewer images, the
decay every ``decay_every`` epochs instead of 20) are ``run``'s keyword arguments. The
images have the default dtype (the tests run in float64: the convolutions feed
``BatchNorm2d``, so some gradients are 0 in exact arithmetic and float32 rounding noise
would decide the sign of Adam's steps, see the README).

Run it with ``python examples/ported/yunjey_deep_residual_network.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, num_epochs=2, batch_size=4, n_train=8, n_test=4, learning_rate=0.001,
        decay_every=1, shuffle=True, seed=0, directory=None, init=None, log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    rng = np.random.RandomState(seed)
    results = []

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    def cifar10(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 3, 32, 32), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))

    # CIFAR-10 dataset
    train_dataset = cifar10(n_train)
    test_dataset = cifar10(n_test)

    # Data loader
    train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                               batch_size=batch_size,
                                               shuffle=shuffle)

    test_loader = torch.utils.data.DataLoader(dataset=test_dataset,
                                              batch_size=batch_size,
                                              shuffle=False)

    # 3x3 convolution
    def conv3x3(in_channels, out_channels, stride=1):
        return nn.Conv2d(in_channels, out_channels, kernel_size=3,
                         stride=stride, padding=1, bias=False)

    # Residual block
    class ResidualBlock(nn.Module):
        def __init__(self, in_channels, out_channels, stride=1, downsample=None):
            super(ResidualBlock, self).__init__()
            self.conv1 = conv3x3(in_channels, out_channels, stride)
            self.bn1 = nn.BatchNorm2d(out_channels)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = conv3x3(out_channels, out_channels)
            self.bn2 = nn.BatchNorm2d(out_channels)
            self.downsample = downsample

        def forward(self, x):
            residual = x
            out = self.conv1(x)
            out = self.bn1(out)
            out = self.relu(out)
            out = self.conv2(out)
            out = self.bn2(out)
            if self.downsample:
                residual = self.downsample(x)
            out += residual
            out = self.relu(out)
            return out

    # ResNet
    class ResNet(nn.Module):
        def __init__(self, block, layers, num_classes=10):
            super(ResNet, self).__init__()
            self.in_channels = 16
            self.conv = conv3x3(3, 16)
            self.bn = nn.BatchNorm2d(16)
            self.relu = nn.ReLU(inplace=True)
            self.layer1 = self.make_layer(block, 16, layers[0])
            self.layer2 = self.make_layer(block, 32, layers[1], 2)
            self.layer3 = self.make_layer(block, 64, layers[2], 2)
            self.avg_pool = nn.AvgPool2d(8)
            self.fc = nn.Linear(64, num_classes)

        def make_layer(self, block, out_channels, blocks, stride=1):
            downsample = None
            if (stride != 1) or (self.in_channels != out_channels):
                downsample = nn.Sequential(
                    conv3x3(self.in_channels, out_channels, stride=stride),
                    nn.BatchNorm2d(out_channels))
            layers = []
            layers.append(block(self.in_channels, out_channels, stride, downsample))
            self.in_channels = out_channels
            for i in range(1, blocks):
                layers.append(block(out_channels, out_channels))
            return nn.Sequential(*layers)

        def forward(self, x):
            out = self.conv(x)
            out = self.bn(out)
            out = self.relu(out)
            out = self.layer1(out)
            out = self.layer2(out)
            out = self.layer3(out)
            out = self.avg_pool(out)
            out = out.view(out.size(0), -1)
            out = self.fc(out)
            return out

    model = ResNet(ResidualBlock, [2, 2, 2]).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # For updating learning rate
    def update_lr(optimizer, lr):
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr

    # Train the model
    total_step = len(train_loader)
    curr_lr = learning_rate
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.to(device)
            labels = labels.to(device)

            # Forward pass
            outputs = model(images)
            loss = criterion(outputs, labels)

            # Backward and optimize
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

            if (i+1) % 100 == 0:
                log("Epoch [{}/{}], Step [{}/{}] Loss: {:.4f}"
                    .format(epoch+1, num_epochs, i+1, total_step, loss.item()))

        # Decay learning rate
        if (epoch+1) % decay_every == 0:
            curr_lr /= 3
            update_lr(optimizer, curr_lr)

    # Test the model
    model.eval()
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
            results.extend(outputs.reshape(-1).tolist())

        log('Accuracy of the model on the test images: {} %'.format(100 * correct / total))
    results.append(100 * correct / total)

    # Save the model checkpoint
    torch.save(model.state_dict(), os.path.join(directory, 'resnet.ckpt'))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
