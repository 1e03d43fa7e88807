"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/401_CNN.py``: two
``Conv2d``/``ReLU``/``MaxPool2d`` stages and a ``Linear`` layer on MNIST, Adam, and the
test accuracy every ``test_every`` steps; then 10 predictions.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``Variable =
torch.autograd.Variable``, ``Data = torch.utils.data``). MNIST is synthetic uint8 images
and random labels in a ``TensorDataset`` (``train_data.train_data`` and
``test_data.test_data`` are those uint8 tensors); ``Variable(..., volatile=True)``
(removed from torch) is ``Variable(...)``; ``loss.data[0]`` (0-d indexing, removed) is
``loss.item()``; ``.data.numpy()`` is ``.detach().numpy()`` (pyad's ``.data`` is the
NumPy array itself); the plots and t-SNE are left out; the sizes are ``run``'s keyword
arguments (50 steps between tests in the original).

Run it with ``python examples/ported/morvan_401_CNN.py``.
"""
import numpy as np


def run(torch, EPOCH=1, BATCH_SIZE=5, LR=0.001, n_train=15, n_test=20, test_every=1,
        shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    Data = torch.utils.data
    rng = np.random.RandomState(seed)
    results = []

    torch.manual_seed(1)    # reproducible

    # Mnist digits dataset (synthetic: uint8 images, ToTensor's scaling)
    train_images = torch.from_numpy(rng.randint(0, 256, (n_train, 28, 28)).astype(np.uint8))
    train_labels = torch.from_numpy(rng.randint(0, 10, n_train))
    train_data = Data.TensorDataset(torch.unsqueeze(train_images, dim=1).type(torch.FloatTensor) / 255.,
                                    train_labels)

    # plot one example
    log(train_images.size())                 # (60000, 28, 28)
    log(train_labels.size())                 # (60000)

    # Data Loader for easy mini-batch return in training, the image batch shape will be (50, 1, 28, 28)
    train_loader = Data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=shuffle)

    # convert test data into Variable, pick 2000 samples to speed up testing
    test_data_test_data = torch.from_numpy(rng.randint(0, 256, (n_test, 28, 28)).astype(np.uint8))
    test_data_test_labels = torch.from_numpy(rng.randint(0, 10, n_test))
    test_x = Variable(torch.unsqueeze(test_data_test_data, dim=1)).type(torch.FloatTensor)[:2000]/255.   # shape from (2000, 28, 28) to (2000, 1, 28, 28), value in range(0,1)
    test_y = test_data_test_labels[:2000]

    class CNN(nn.Module):
        def __init__(self):
            super(CNN, self).__init__()
            self.conv1 = nn.Sequential(         # input shape (1, 28, 28)
                nn.Conv2d(
                    in_channels=1,              # input height
                    out_channels=16,            # n_filters
                    kernel_size=5,              # filter size
                    stride=1,                   # filter movement/step
                    padding=2,                  # if want same width and length of this image after con2d, padding=(kernel_size-1)/2 if stride=1
                ),                              # output shape (16, 28, 28)
                nn.ReLU(),                      # activation
                nn.MaxPool2d(kernel_size=2),    # choose max value in 2x2 area, output shape (16, 14, 14)
            )
            self.conv2 = nn.Sequential(         # input shape (1, 14, 14)
                nn.Conv2d(16, 32, 5, 1, 2),     # output shape (32, 14, 14)
                nn.ReLU(),                      # activation
                nn.MaxPool2d(2),                # output shape (32, 7, 7)
            )
            self.out = nn.Linear(32 * 7 * 7, 10)   # fully connected layer, output 10 classes

        def forward(self, x):
            x = self.conv1(x)
            x = self.conv2(x)
            x = x.view(x.size(0), -1)           # flatten the output of conv2 to (batch_size, 32 * 7 * 7)
            output = self.out(x)
            return output, x    # return x for visualization

    cnn = CNN()
    log(cnn)  # net architecture
    if init is not None:
        init(cnn)

    optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)   # optimize all cnn parameters
    loss_func = nn.CrossEntropyLoss()                       # the target label is not one-hotted

    # training and testing
    for epoch in range(EPOCH):
        for step, (x, y) in enumerate(train_loader):   # gives batch data, normalize x when iterate train_loader
            b_x = Variable(x)   # batch x
            b_y = Variable(y)   # batch y

            output = cnn(b_x)[0]               # cnn output
            loss = loss_func(output, b_y)   # cross entropy loss
            optimizer.zero_grad()           # clear gradients for this training step
            loss.backward()                 # backpropagation, compute gradients
            optimizer.step()                # apply gradients
            results.append(loss.item())

            if step % test_every == 0:
                test_output, last_layer = cnn(test_x)
                pred_y = torch.max(test_output, 1)[1].data.squeeze()
                accuracy = sum(pred_y == test_y) / float(test_y.size(0))
                log('Epoch: ', epoch, '| train loss: %.4f' % loss.item(), '| test accuracy: %.2f' % accuracy)
                results.append(float(accuracy))
                results.extend(test_output.detach().numpy()[:2].ravel().tolist())

    # print 10 predictions from test data
    test_output, _ = cnn(test_x[:10])
    pred_y = torch.max(test_output, 1)[1].detach().numpy().squeeze()
    log(pred_y, 'prediction number')
    log(test_y[:10].numpy(), 'real number')
    results.extend(pred_y.tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
