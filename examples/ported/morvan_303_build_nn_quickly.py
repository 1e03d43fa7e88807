"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/303_build_nn_quickly.py``:
the same network as a ``Module`` subclass and as an ``nn.Sequential``, printed.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). ``print`` is ``log``; ``run``
returns the two networks (the tests compare their reprs with torch's and, from the
same weights, their outputs).

Run it with ``python examples/ported/morvan_303_build_nn_quickly.py``.
"""


def run(torch, log=print):
    F = torch.nn.functional

    # replace following class code with an easy sequential network
    class Net(torch.nn.Module):
        def __init__(self, n_feature, n_hidden, n_output):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
            self.predict = torch.nn.Linear(n_hidden, n_output)   # output layer

        def forward(self, x):
            x = F.relu(self.hidden(x))      # activation function for hidden layer
            x = self.predict(x)             # linear output
            return x

    net1 = Net(1, 10, 1)

    # easy and fast way to build your network
    net2 = torch.nn.Sequential(
        torch.nn.Linear(1, 10),
        torch.nn.ReLU(),
        torch.nn.Linear(10, 1)
    )

    log(net1)     # net1 architecture
    log(net2)     # net2 architecture
    return net1, net2


if __name__ == "__main__":
    import pyad as torch
    run(torch)
