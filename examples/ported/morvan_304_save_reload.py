"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/304_save_reload.py``: train a
``Sequential`` net, save it, and restore it into a new net from its state_dict.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The files go to
``directory``; the plots are left out (the predictions they show are returned); the
number of steps is ``run``'s keyword argument. The tutorial's first way,
``torch.save(net1, 'net.pkl')`` and ``restore_net``'s ``torch.load('net.pkl')``, pickles
the whole module (torch 2.13 loads it only with ``weights_only=False``, which the port
adds): pyad's checkpoint format holds no code and refuses it by design (see SPEC.md), so
those lines are ``save_net`` and ``restore_net``, which ``run`` calls only with
``entire_net=True`` (the tests run them on torch and check that pyad's ``save`` refuses
the module); the state_dict half is ``run``'s.

Run it with ``python examples/ported/morvan_304_save_reload.py``.
"""
import os
import tempfile


def run(torch, steps=100, directory=None, entire_net=False, init=None, log=print):
    directory = directory or tempfile.mkdtemp()
    results = []

    # fake data
    x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)  # x data (tensor), shape=(100, 1)
    y = x.pow(2) + 0.2*torch.rand(x.size())  # noisy y data (tensor), shape=(100, 1)

    def save():
        # save net1
        net1 = torch.nn.Sequential(
            torch.nn.Linear(1, 10),
            torch.nn.ReLU(),
            torch.nn.Linear(10, 1)
        )
        if init is not None:
            init(net1)
        optimizer = torch.optim.SGD(net1.parameters(), lr=0.5)
        loss_func = torch.nn.MSELoss()

        for t in range(steps):
            prediction = net1(x)
            loss = loss_func(prediction, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            results.append(loss.item())

        # plot result
        results.extend(prediction.detach().numpy().ravel().tolist())

        # 2 ways to save the net
        if entire_net:
            save_net(torch, net1, directory)  # save entire net
        torch.save(net1.state_dict(), os.path.join(directory, 'net_params.pkl'))   # save only the parameters
        return net1

    def restore_params():
        # restore only the parameters in net1 to net3
        net3 = torch.nn.Sequential(
            torch.nn.Linear(1, 10),
            torch.nn.ReLU(),
            torch.nn.Linear(10, 1)
        )

        # copy net1's parameters into net3
        net3.load_state_dict(torch.load(os.path.join(directory, 'net_params.pkl')))
        prediction = net3(x)

        # plot result
        results.extend(prediction.detach().numpy().ravel().tolist())

    # save net1
    net1 = save()

    # restore entire net (may slow)
    if entire_net:
        prediction = restore_net(torch, x, directory)
        results.extend(prediction.detach().numpy().ravel().tolist())

    # restore only the net parameters
    restore_params()
    return results


def save_net(torch, net1, directory):
    torch.save(net1, os.path.join(directory, 'net.pkl'))  # save entire net


def restore_net(torch, x, directory):
    # restore entire net1 to net2
    net2 = torch.load(os.path.join(directory, 'net.pkl'), weights_only=False)
    prediction = net2(x)
    return prediction


if __name__ == "__main__":
    import pyad as torch
    run(torch)
