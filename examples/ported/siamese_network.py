"""Port of pytorch/examples ``siamese_network``: two images through one shared ResNet
feature extractor (its first convolution replaced for one channel, its last layer cut
off by ``nn.Sequential(*(list(resnet.children())[:-1]))``), the two feature vectors
concatenated and classified by ``Linear``/``ReLU(inplace=True)``/``Linear`` and
``Sigmoid``, weights set by ``module.apply`` with the deprecated
``nn.init.xavier_uniform``, ``BCELoss``, a ``Dataset`` subclass that draws positive and
negative pairs with Python's ``random``, ``DataLoader``, ``Adadelta`` and ``StepLR``,
and the test's ``torch.where(outputs > 0.5, 1, 0)`` and ``pred.eq(targets.view_as(pred))``.

Ported by changing the imports (``import pyad as torch``). torchvision is not a
dependency: ``resnet18`` is a narrow two-stage ResNet written below with torchvision's
layout (conv1, bn1, relu, maxpool, layer1, layer2, avgpool, fc of ``BasicBlock``s), and
MNIST is replaced by seeded synthetic 28x28 digits (uint8, ten classes). One line
differs (``data_fill=False``): torch's ``m.bias.data.fill_(0.01)`` is written
``with torch.no_grad(): m.bias.fill_(0.01)``, because pyad's ``.data`` is the NumPy
array (see the porting guide).

Run it with ``python examples/ported/siamese_network.py``.
"""
import random

import numpy as np


def synthetic_mnist(n, seed):
    # at least two images of each class (n >= 20): the pairs' draws need them
    if n < 20:
        raise ValueError("synthetic_mnist: n must be at least 20, got %d" % n)
    rng = np.random.RandomState(seed)
    targets = rng.permutation(np.arange(n) % 10)
    stencils = rng.rand(10, 28, 28) < 0.25
    noise = rng.rand(n, 28, 28) < 0.08
    data = ((stencils[targets] ^ noise) * rng.randint(120, 256, (n, 28, 28))).astype(np.uint8)
    return data, targets


def make_resnet(torch, width=8):
    """A narrow ResNet with torchvision's ``resnet18`` layout (two stages)."""
    nn = torch.nn

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = nn.Sequential(BasicBlock(width, width))
            self.layer2 = nn.Sequential(BasicBlock(width, 2 * width, 2, nn.Sequential(
                nn.Conv2d(width, 2 * width, 1, 2, bias=False), nn.BatchNorm2d(2 * width))))
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(2 * width, 1000)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer2(self.layer1(x))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet()


def run(torch, epochs=2, batches=3, batch_size=8, lr=1.0, gamma=0.7, seed=1,
        data_fill=False, init=None, log=print):
    """Train ``epochs`` epochs of ``batches`` batches and test after each; return the
    training losses and each test's average loss and accuracy."""
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    Dataset = torch.utils.data.Dataset
    StepLR = torch.optim.lr_scheduler.StepLR
    random.seed(seed)
    torch.manual_seed(seed)

    class SiameseNetwork(nn.Module):
        def __init__(self):
            super(SiameseNetwork, self).__init__()
            # get resnet model
            self.resnet = make_resnet(torch)

            # over-write the first conv layer to be able to read MNIST images
            # as resnet18 reads (3,x,x) where 3 is RGB channels
            # whereas MNIST has (1,x,x) where 1 is a gray-scale channel
            self.resnet.conv1 = nn.Conv2d(1, 8, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
            self.fc_in_features = self.resnet.fc.in_features

            # remove the last layer of resnet18 (linear layer which is before avgpool layer)
            self.resnet = torch.nn.Sequential(*(list(self.resnet.children())[:-1]))

            # add linear layers to compare between the features of the two images
            self.fc = nn.Sequential(
                nn.Linear(self.fc_in_features * 2, 256),
                nn.ReLU(inplace=True),
                nn.Linear(256, 1),
            )

            self.sigmoid = nn.Sigmoid()

            # initialize the weights
            self.resnet.apply(self.init_weights)
            self.fc.apply(self.init_weights)

        def init_weights(self, m):
            if isinstance(m, nn.Linear):
                torch.nn.init.xavier_uniform(m.weight)
                if data_fill:
                    m.bias.data.fill_(0.01)
                else:
                    with torch.no_grad():
                        m.bias.fill_(0.01)

        def forward_once(self, x):
            output = self.resnet(x)
            output = output.view(output.size()[0], -1)
            return output

        def forward(self, input1, input2):
            # get two images' features
            output1 = self.forward_once(input1)
            output2 = self.forward_once(input2)

            # concatenate both images' features
            output = torch.cat((output1, output2), 1)

            # pass the concatenation to the linear layers
            output = self.fc(output)

            # pass the out of the linear layers to sigmoid layer
            output = self.sigmoid(output)

            return output

    class APP_MATCHER(Dataset):
        def __init__(self, n, train):
            super(APP_MATCHER, self).__init__()
            data, targets = synthetic_mnist(n, 0 if train else 1)
            self.targets = torch.from_numpy(targets)
            self.data = torch.from_numpy(data).unsqueeze(1).clone()
            self.group_examples()

        def group_examples(self):
            # get the targets from MNIST dataset
            np_arr = np.array(self.targets.clone())

            # group examples based on class
            self.grouped_examples = {}
            for i in range(0, 10):
                self.grouped_examples[i] = np.where((np_arr == i))[0]

        def __len__(self):
            return self.data.shape[0]

        def __getitem__(self, index):
            # pick some random class for the first image
            selected_class = random.randint(0, 9)

            # pick a random index for the first image in the grouped indices based of the label
            # of the class
            random_index_1 = random.randint(0, self.grouped_examples[selected_class].shape[0]-1)

            # pick the index to get the first image
            index_1 = self.grouped_examples[selected_class][random_index_1]

            # get the first image
            image_1 = self.data[index_1].clone().float()

            # same class
            if index % 2 == 0:
                # pick a random index for the second image
                random_index_2 = random.randint(0, self.grouped_examples[selected_class].shape[0]-1)

                # ensure that the index of the second image isn't the same as the first image
                while random_index_2 == random_index_1:
                    random_index_2 = random.randint(0, self.grouped_examples[selected_class].shape[0]-1)

                # pick the index to get the second image
                index_2 = self.grouped_examples[selected_class][random_index_2]

                # get the second image
                image_2 = self.data[index_2].clone().float()

                # set the label for this example to be positive (1)
                target = torch.tensor(1, dtype=torch.float)

            # different class
            else:
                # pick a random class
                other_selected_class = random.randint(0, 9)

                # ensure that the class of the second image isn't the same as the first image
                while other_selected_class == selected_class:
                    other_selected_class = random.randint(0, 9)

                # pick a random index for the second image in the grouped indices based of the label
                # of the class
                random_index_2 = random.randint(0, self.grouped_examples[other_selected_class].shape[0]-1)

                # pick the index to get the second image
                index_2 = self.grouped_examples[other_selected_class][random_index_2]

                # get the second image
                image_2 = self.data[index_2].clone().float()

                # set the label for this example to be negative (0)
                target = torch.tensor(0, dtype=torch.float)

            return image_1, image_2, target

    def train(model, device, train_loader, optimizer, epoch):
        model.train()

        # we aren't using `TripletLoss` as the MNIST dataset is simple, so `BCELoss` can do the trick.
        criterion = nn.BCELoss()

        losses = []
        for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
            images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = model(images_1, images_2).squeeze()
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            log('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(images_1), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
        return losses

    def test(model, device, test_loader):
        model.eval()
        test_loss = 0
        correct = 0

        # we aren't using `TripletLoss` as the MNIST dataset is simple, so `BCELoss` can do the trick.
        criterion = nn.BCELoss()

        with torch.no_grad():
            for (images_1, images_2, targets) in test_loader:
                images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
                outputs = model(images_1, images_2).squeeze()
                test_loss += criterion(outputs, targets).sum().item()  # sum up batch loss
                pred = torch.where(outputs > 0.5, 1, 0)  # get the index of the max log-probability
                correct += pred.eq(targets.view_as(pred)).sum().item()

        test_loss /= len(test_loader.dataset)

        log('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
            test_loss, correct, len(test_loader.dataset),
            100. * correct / len(test_loader.dataset)))
        return [test_loss, correct]

    device = torch.device("cpu")
    train_dataset = APP_MATCHER(batches * batch_size, train=True)
    test_dataset = APP_MATCHER(20, train=False)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=batch_size)
    test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=10)

    model = SiameseNetwork().to(device)
    if init is not None:
        init(model)
    optimizer = optim.Adadelta(model.parameters(), lr=lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=gamma)
    results = []
    for epoch in range(1, epochs + 1):
        results += train(model, device, train_loader, optimizer, epoch)
        results += test(model, device, test_loader)
        scheduler.step()
    return results


if __name__ == "__main__":
    import pyad
    run(pyad)
