"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/306_optimizer.py``: the same
``Net`` trained by SGD, SGD with momentum, RMSprop and Adam on mini-batches of noisy
``x**2``, each optimizer's losses recorded.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``Data =
torch.utils.data``). The plots are left out; ``l_his.append(loss.data.numpy())`` is
``loss.detach().numpy()`` (pyad's ``.data`` is the NumPy array itself); the data size
and epochs are ``run``'s keyword arguments.

Run it with ``python examples/ported/morvan_306_optimizer.py``.
"""


def run(torch, n_points=1000, EPOCH=12, LR=0.01, BATCH_SIZE=32, shuffle=True, init=None,
        log=print):
    Data = torch.utils.data
    F = torch.nn.functional

    # fake dataset
    x = torch.unsqueeze(torch.linspace(-1, 1, n_points), dim=1)
    y = x.pow(2) + 0.1*torch.normal(torch.zeros(*x.size()))

    # put dateset into torch dataset
    torch_dataset = Data.TensorDataset(x, y)
    loader = Data.DataLoader(dataset=torch_dataset, batch_size=BATCH_SIZE, shuffle=shuffle, num_workers=2,)

    # default network
    class Net(torch.nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.hidden = torch.nn.Linear(1, 20)   # hidden layer
            self.predict = torch.nn.Linear(20, 1)   # output layer

        def forward(self, x):
            x = F.relu(self.hidden(x))      # activation function for hidden layer
            x = self.predict(x)             # linear output
            return x

    # different nets
    net_SGD         = Net()
    net_Momentum    = Net()
    net_RMSprop     = Net()
    net_Adam        = Net()
    nets = [net_SGD, net_Momentum, net_RMSprop, net_Adam]
    if init is not None:
        for net in nets:
            init(net)

    # different optimizers
    opt_SGD         = torch.optim.SGD(net_SGD.parameters(), lr=LR)
    opt_Momentum    = torch.optim.SGD(net_Momentum.parameters(), lr=LR, momentum=0.8)
    opt_RMSprop     = torch.optim.RMSprop(net_RMSprop.parameters(), lr=LR, alpha=0.9)
    opt_Adam        = torch.optim.Adam(net_Adam.parameters(), lr=LR, betas=(0.9, 0.99))
    optimizers = [opt_SGD, opt_Momentum, opt_RMSprop, opt_Adam]

    loss_func = torch.nn.MSELoss()
    losses_his = [[], [], [], []]   # record loss

    # training
    for epoch in range(EPOCH):
        log('Epoch: ', epoch)
        for step, (b_x, b_y) in enumerate(loader):          # for each training step
            for net, opt, l_his in zip(nets, optimizers, losses_his):
                output = net(b_x)              # get output for every net
                loss = loss_func(output, b_y)  # compute loss for every net
                opt.zero_grad()                # clear gradients for next train
                loss.backward()                # backpropagation, compute gradients
                opt.step()                     # apply gradients
                l_his.append(loss.detach().numpy())     # loss recoder

    return [float(l) for l_his in losses_his for l in l_his]


if __name__ == "__main__":
    import pyad as torch
    run(torch)
