"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/301_regression.py``: a
one-hidden-layer ``Net`` fitted to noisy ``x**2`` with SGD and ``MSELoss``.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
``Loss=%.4f`` text they show every 5 steps is ``log``ged, with
``loss.detach().numpy()`` for ``loss.data.numpy()``: pyad's ``.data`` is the NumPy
array itself); the number of steps is ``run``'s keyword argument.

Run it with ``python examples/ported/morvan_301_regression.py``.
"""


def run(torch, steps=200, init=None, log=print):
    F = torch.nn.functional
    losses = []

    x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)  # x data (tensor), shape=(100, 1)
    y = x.pow(2) + 0.2*torch.rand(x.size())                 # noisy y data (tensor), shape=(100, 1)

    class Net(torch.nn.Module):
        def __init__(self, n_feature, n_hidden, n_output):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
            self.predict = torch.nn.Linear(n_hidden, n_output)   # output layer

        def forward(self, x):
            x = F.relu(self.hidden(x))      # activation function for hidden layer
            x = self.predict(x)             # linear output
            return x

    net = Net(n_feature=1, n_hidden=10, n_output=1)     # define the network
    log(net)  # net architecture
    if init is not None:
        init(net)

    optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
    loss_func = torch.nn.MSELoss()  # this is for regression mean squared loss

    for t in range(steps):
        prediction = net(x)     # input x and predict based on x

        loss = loss_func(prediction, y)     # must be (1. nn output, 2. target)

        optimizer.zero_grad()   # clear gradients for next train
        loss.backward()         # backpropagation, compute gradients
        optimizer.step()        # apply gradients
        losses.append(loss.item())

        if t % 5 == 0:
            # plot and show learning process
            log('Loss=%.4f' % loss.detach().numpy())
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch)
