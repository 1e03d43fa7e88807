"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/504_batch_normalization.py``:
two 8-layer tanh MLPs with a bad bias initialisation (``init.normal_``,
``init.constant_``, layers registered by ``setattr``), one with
``BatchNorm1d(momentum=0.5)`` on its input and after every layer, trained side by side
with Adam; each epoch's test loss in eval mode, and the final predictions.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``Data = torch.utils.data``;
``from torch.nn import init`` is ``nn.init``, because ``run``'s ``init`` is the tests'
hook). ``np.random.normal`` is a seeded NumPy generator's; the layers' ``init.normal_``
draws from the framework's generator (the tests start pyad from torch's weights); the
plots and histograms are left out (the test losses and predictions are returned); the
sizes are ``run``'s keyword arguments. ``double=True`` makes the data float64
(``.double()`` for ``.float()``): the tests run so, because the biases before each
``BatchNorm1d`` have a gradient that is 0 in exact arithmetic, and in float32 each
framework's rounding noise decides the sign of Adam's steps for them, which the running
means carry into the eval-mode losses.

Run it with ``python examples/ported/morvan_504_batch_normalization.py``.
"""
import numpy as np


def run(torch, N_SAMPLES=200, BATCH_SIZE=64, EPOCH=2, shuffle=True, seed=0, double=False,
        init=None, log=print):
    nn = torch.nn
    Data = torch.utils.data
    np_random = np.random.RandomState(seed)
    results = []

    # Hyper parameters
    LR = 0.03
    N_HIDDEN = 8
    ACTIVATION = torch.tanh
    B_INIT = -0.2   # use a bad bias constant initializer

    # training data
    x = np.linspace(-7, 10, N_SAMPLES)[:, np.newaxis]
    noise = np_random.normal(0, 2, x.shape)
    y = np.square(x) - 5 + noise

    # test data
    test_x = np.linspace(-7, 10, 200)[:, np.newaxis]
    noise = np_random.normal(0, 2, test_x.shape)
    test_y = np.square(test_x) - 5 + noise

    if double:  # the tests' float64 run (the text's lines are the else branch)
        train_x, train_y = torch.from_numpy(x).double(), torch.from_numpy(y).double()
        test_x = torch.from_numpy(test_x).double()
        test_y = torch.from_numpy(test_y).double()
    else:
        train_x, train_y = torch.from_numpy(x).float(), torch.from_numpy(y).float()
        test_x = torch.from_numpy(test_x).float()
        test_y = torch.from_numpy(test_y).float()

    train_dataset = Data.TensorDataset(train_x, train_y)
    train_loader = Data.DataLoader(dataset=train_dataset, batch_size=BATCH_SIZE, shuffle=shuffle, num_workers=2,)

    class Net(nn.Module):
        def __init__(self, batch_normalization=False):
            super(Net, self).__init__()
            self.do_bn = batch_normalization
            self.fcs = []
            self.bns = []
            self.bn_input = nn.BatchNorm1d(1, momentum=0.5)   # for input data

            for i in range(N_HIDDEN):               # build hidden layers and BN layers
                input_size = 1 if i == 0 else 10
                fc = nn.Linear(input_size, 10)
                setattr(self, 'fc%i' % i, fc)       # IMPORTANT set layer to the Module
                self._set_init(fc)                  # parameters initialization
                self.fcs.append(fc)
                if self.do_bn:
                    bn = nn.BatchNorm1d(10, momentum=0.5)
                    setattr(self, 'bn%i' % i, bn)   # IMPORTANT set layer to the Module
                    self.bns.append(bn)

            self.predict = nn.Linear(10, 1)         # output layer
            self._set_init(self.predict)            # parameters initialization

        def _set_init(self, layer):
            nn.init.normal_(layer.weight, mean=0., std=.1)
            nn.init.constant_(layer.bias, B_INIT)

        def forward(self, x):
            pre_activation = [x]
            if self.do_bn: x = self.bn_input(x)     # input batch normalization
            layer_input = [x]
            for i in range(N_HIDDEN):
                x = self.fcs[i](x)
                pre_activation.append(x)
                if self.do_bn: x = self.bns[i](x)   # batch normalization
                x = ACTIVATION(x)
                layer_input.append(x)
            out = self.predict(x)
            return out, layer_input, pre_activation

    nets = [Net(batch_normalization=False), Net(batch_normalization=True)]
    if init is not None:
        for net in nets:
            init(net)

    opts = [torch.optim.Adam(net.parameters(), lr=LR) for net in nets]

    loss_func = torch.nn.MSELoss()

    # training
    losses = [[], []]  # recode loss for two networks

    for epoch in range(EPOCH):
        log('Epoch: ', epoch)
        layer_inputs, pre_acts = [], []
        for net, l in zip(nets, losses):
            net.eval()              # set eval mode to fix moving_mean and moving_var
            pred, layer_input, pre_act = net(test_x)
            l.append(loss_func(pred, test_y).data.item())
            layer_inputs.append(layer_input)
            pre_acts.append(pre_act)
            net.train()             # free moving_mean and moving_var

        for step, (b_x, b_y) in enumerate(train_loader):
            for net, opt in zip(nets, opts):     # train for each network
                pred, _, _ = net(b_x)
                loss = loss_func(pred, b_y)
                opt.zero_grad()
                loss.backward()
                opt.step()    # it will also learns the parameters in Batch Normalization
                results.append(loss.item())

    results.extend(losses[0] + losses[1])

    # evaluation
    # set net to eval mode to freeze the parameters in batch normalization layers
    [net.eval() for net in nets]    # set eval mode to fix moving_mean and moving_var
    preds = [net(test_x)[0] for net in nets]
    results.extend(preds[0].detach().numpy()[::10].ravel().tolist())
    results.extend(preds[1].detach().numpy()[::10].ravel().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
