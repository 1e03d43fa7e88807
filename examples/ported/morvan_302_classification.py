"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/302_classification.py``:
two Gaussian clusters drawn with ``torch.normal``, a one-hidden-layer ``Net``,
``CrossEntropyLoss`` and SGD, and the accuracy every 2 steps.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
accuracy they show is computed and returned, with ``.detach().numpy()`` for
``.data.numpy()``: pyad's ``.data`` is the NumPy array itself); the number of steps is
``run``'s keyword argument.

Run it with ``python examples/ported/morvan_302_classification.py``.
"""


def run(torch, steps=100, init=None, log=print):
    F = torch.nn.functional
    results = []

    # make fake data
    n_data = torch.ones(100, 2)
    x0 = torch.normal(2*n_data, 1)      # class0 x data (tensor), shape=(100, 2)
    y0 = torch.zeros(100)               # class0 y data (tensor), shape=(100, 1)
    x1 = torch.normal(-2*n_data, 1)     # class1 x data (tensor), shape=(100, 2)
    y1 = torch.ones(100)                # class1 y data (tensor), shape=(100, 1)
    x = torch.cat((x0, x1), 0).type(torch.FloatTensor)  # shape (200, 2) FloatTensor = 32-bit floating
    y = torch.cat((y0, y1), ).type(torch.LongTensor)    # shape (200,) LongTensor = 64-bit integer

    class Net(torch.nn.Module):
        def __init__(self, n_feature, n_hidden, n_output):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
            self.out = torch.nn.Linear(n_hidden, n_output)   # output layer

        def forward(self, x):
            x = F.relu(self.hidden(x))      # activation function for hidden layer
            x = self.out(x)
            return x

    net = Net(n_feature=2, n_hidden=10, n_output=2)     # define the network
    log(net)  # net architecture
    if init is not None:
        init(net)

    optimizer = torch.optim.SGD(net.parameters(), lr=0.02)
    loss_func = torch.nn.CrossEntropyLoss()  # the target label is NOT an one-hotted

    for t in range(steps):
        out = net(x)                 # input x and predict based on x
        loss = loss_func(out, y)     # must be (1. nn output, 2. target), the target label is NOT one-hotted

        optimizer.zero_grad()   # clear gradients for next train
        loss.backward()         # backpropagation, compute gradients
        optimizer.step()        # apply gradients
        results.append(loss.item())

        if t % 2 == 0:
            # plot and show learning process
            prediction = torch.max(out, 1)[1]
            pred_y = prediction.detach().numpy()
            target_y = y.detach().numpy()
            accuracy = float((pred_y == target_y).astype(int).sum()) / float(target_y.size)
            log('Accuracy=%.2f' % accuracy)
            results.append(accuracy)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
