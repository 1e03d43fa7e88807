"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/503_dropout.py``: an
overfitting MLP and the same with ``Dropout(0.5)``, trained side by side with Adam, both
tested in eval mode every ``test_every`` steps.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
test losses they show are returned, with ``.detach().numpy()`` for ``.data.numpy()``:
pyad's ``.data`` is the NumPy array itself); the sizes are ``run``'s keyword arguments
(10 steps between tests, 300 hidden units in the original).

Run it with ``python examples/ported/morvan_503_dropout.py``.
"""


def run(torch, n_steps=20, N_SAMPLES=20, N_HIDDEN=30, test_every=5, init=None, log=print):
    results = []

    # training data
    x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
    y = x + 0.3*torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

    # test data
    test_x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
    test_y = test_x + 0.3*torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

    net_overfitting = torch.nn.Sequential(
        torch.nn.Linear(1, N_HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(N_HIDDEN, N_HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(N_HIDDEN, 1),
    )

    net_dropped = torch.nn.Sequential(
        torch.nn.Linear(1, N_HIDDEN),
        torch.nn.Dropout(0.5),  # drop 50% of the neuron
        torch.nn.ReLU(),
        torch.nn.Linear(N_HIDDEN, N_HIDDEN),
        torch.nn.Dropout(0.5),  # drop 50% of the neuron
        torch.nn.ReLU(),
        torch.nn.Linear(N_HIDDEN, 1),
    )

    log(net_overfitting)  # net architecture
    log(net_dropped)
    if init is not None:
        init(net_overfitting)
        init(net_dropped)

    optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
    optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
    loss_func = torch.nn.MSELoss()

    for t in range(n_steps):
        pred_ofit = net_overfitting(x)
        pred_drop = net_dropped(x)
        loss_ofit = loss_func(pred_ofit, y)
        loss_drop = loss_func(pred_drop, y)

        optimizer_ofit.zero_grad()
        optimizer_drop.zero_grad()
        loss_ofit.backward()
        loss_drop.backward()
        optimizer_ofit.step()
        optimizer_drop.step()
        results.extend([loss_ofit.item(), loss_drop.item()])

        if t % test_every == 0:
            # change to eval mode in order to fix drop out effect
            net_overfitting.eval()
            net_dropped.eval()  # parameters for dropout differ from train mode

            # plotting
            test_pred_ofit = net_overfitting(test_x)
            test_pred_drop = net_dropped(test_x)
            log('overfitting loss=%.4f' % loss_func(test_pred_ofit, test_y).detach().numpy())
            log('dropout loss=%.4f' % loss_func(test_pred_drop, test_y).detach().numpy())
            results.extend([loss_func(test_pred_ofit, test_y).item(),
                            loss_func(test_pred_drop, test_y).item()])

            # change back to train mode
            net_overfitting.train()
            net_dropped.train()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
